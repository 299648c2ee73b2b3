/* What the CLI asks of an open store, typed: where its tables are, its
 * Windows directory, whether it keeps side files, whether it holds the
 * providers' libraries; and
 * verify, which needs the store's running system. */
#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

#include "engine/verify.h"
#include "model/perf_data.h"

void rt_op_close(struct rt_store *s)
{
    if (s)
        s->ops->close(s);
}

enum rt_tables_layout rt_op_tables_layout(struct rt_store *s)
{
    return s->ops->tables_in_files && s->ops->tables_in_files(s)
               ? RT_TABLES_IN_FILES
               : RT_TABLES_IN_VALUES;
}

const char *rt_op_layout_text(struct rt_store *s)
{
    return s->ops->layout(s);
}

const char *rt_op_windows_dir(struct rt_store *s)
{
    return s->ops->windows_dir ? s->ops->windows_dir(s) : NULL;
}

int rt_op_keeps_side_files(struct rt_store *s)
{
    return rt_store_win_files(s);
}

int rt_op_owns_file(struct rt_store *s, const char *path)
{
    return rt_store_owns_file(s, path);
}

int rt_op_holds_libraries(struct rt_store *s)
{
    return strcmp(s->ops->kind, "psb") != 0;
}

int rt_op_list_perf_services(struct rt_store *s, char ***names, size_t *n,
                             struct rt_error *e)
{
    return s->ops->list_perf_services(s, names, n, e);
}

int rt_op_service_string(struct rt_store *s, const char *svc,
                         const char *name, char **out, struct rt_error *e)
{
    return rt_database_service_string(s, svc, name, out, e);
}

enum rt_verify_status rt_op_verify(struct rt_store *s,
                                   const struct rt_database *db,
                                   const char *driver, const char *query,
                                   struct rt_findings *f, struct rt_error *e)
{
    if (!s->ops->perf_data) {
        rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                     "the %s store has no running system to load providers; "
                     "use --store live (on Windows or under Wine)",
                     s->ops->kind);
        return RT_VERIFY_NO_SYSTEM;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    int more_data = -1;
    if (s->ops->perf_data(s, query, &buf, &len, &cap, &more_data, e) != 0)
        return RT_VERIFY_READ_FAILED;
    struct rt_perf_data data;
    if (rt_perf_data_parse(buf, len, cap, &data) != 0) {
        free(buf);
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        return RT_VERIFY_NO_MEMORY;
    }
    struct rt_verify_input in = {driver, query, &data, more_data};
    enum rt_verify_status st =
        rt_verify(db, &in, f) != 0 ? RT_VERIFY_INCOMPLETE : RT_VERIFY_DONE;
    rt_findings_sort(f);
    rt_perf_data_free(&data);
    free(buf);
    return st;
}
