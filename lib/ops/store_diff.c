/* regtool diff's operation: two stores' databases read in turn and
 * compared (engine/diff.h). */
#include "ops/ops.h"

#include <string.h>

/* Perflib's Version (a DWORD; absent as any other type), which the
 * database does not hold. */
static int read_version(struct rt_store *s, uint32_t *version, int *has,
                        struct rt_error *e)
{
    struct rt_value v = {0};
    *has = 0;
    if (s->ops->read_perflib(s, "Version", &v, has, e) != 0)
        return -1;
    if (*has && rt_value_dword(&v, version) != 0)
        *has = 0;
    rt_value_free(&v);
    return 0;
}

int rt_op_diff(const char *spec_a, const char *spec_b,
               const regtool_open_options *opt, int read_once,
               struct rt_database db[2], struct rt_diff *d,
               struct rt_error *e, int *which, int *bad_spec)
{
    /* Every table, decoded into pairs: the comparison reads texts. */
    static const struct rt_db_load_options all = {RT_DB_TABLES_ALL, NULL, 1,
                                                  0, NULL};
    memset(db, 0, 2 * sizeof *db);
    memset(d, 0, sizeof *d);
    *bad_spec = 0;
    const char *spec[2] = {spec_a, spec_b};
    uint32_t version[2] = {0, 0};
    int has_version[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        *which = i;
        /* Each store closed once read: the database is plain data, and
         * the same tree given twice is then never open twice. */
        struct rt_store *s = rt_op_open_database(spec[i], opt, read_once, &all,
                                                 &db[i], e, bad_spec);
        if (s && read_version(s, &version[i], &has_version[i], e) != 0) {
            rt_database_free(&db[i]);
            rt_op_close(s);
            s = NULL;
        }
        if (!s) {
            if (i)
                rt_database_free(&db[0]);
            memset(db, 0, 2 * sizeof *db);
            return -1;
        }
        rt_op_close(s);
        rt_database_keep_pairs_only(&db[i]);
    }
    if (rt_diff_databases(&db[0], &db[1], d) != 0) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                     "out of memory comparing the two databases");
        *which = -1;
        rt_database_free(&db[0]);
        rt_database_free(&db[1]);
        memset(db, 0, 2 * sizeof *db);
        return -1;
    }
    /* Compared where both have it: a PerfStringBackup file holds none. */
    if (has_version[0] && has_version[1])
        rt_diff_add_value(d, "Version", 1, version[0], 1, version[1]);
    return 0;
}

void rt_op_diff_free(struct rt_database db[2], struct rt_diff *d)
{
    rt_diff_free(d);
    rt_database_free(&db[0]);
    rt_database_free(&db[1]);
}

const struct rt_pair *rt_op_diff_text(const struct rt_diff *d,
                                      const struct rt_diff_pair *p, int side)
{
    return rt_diff_text(d, p, side);
}
