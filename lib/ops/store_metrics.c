/* The name database's numbers a monitoring system follows over time
 * (regtool audit --format prometheus): Perflib's counters, the highest
 * index each table kind holds, how many providers there are and which of
 * them are disabled. Read on the store audit has open, after its checks. */
#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

void rt_name_db_gauges_free(struct rt_name_db_gauges *g)
{
    for (size_t i = 0; i < g->n_disabled; i++)
        free(g->disabled[i]);
    free(g->disabled);
    memset(g, 0, sizeof *g);
}

static int add_disabled(struct rt_name_db_gauges *g, const char *name)
{
    char **nv = realloc(g->disabled, (g->n_disabled + 1) * sizeof *nv);
    if (!nv)
        return -1;
    g->disabled = nv;
    if (!(nv[g->n_disabled] = strdup(name)))
        return -1;
    g->n_disabled++;
    return 0;
}

int rt_op_name_db_gauges(struct rt_store *s, struct rt_name_db_gauges *g,
                         struct rt_error *e)
{
    struct rt_database db;
    /* The tables as blobs, indexed: their highest index without
     * decoding a text. */
    const struct rt_db_load_options load = {RT_DB_TABLES_ALL, NULL, 0, 0,
                                            NULL};
    memset(g, 0, sizeof *g);
    if (rt_database_load_with(s, &db, &load, e) != 0)
        return e->code == RT_ERR_NOT_ENOUGH_MEMORY ? -1 : 1;
    g->last_counter = db.last_counter;
    g->last_help = db.last_help;
    g->base_index = db.base_index;
    g->highest[RT_TABLE_COUNTER] = rt_database_highest(&db, RT_TABLE_COUNTER);
    g->highest[RT_TABLE_HELP] = rt_database_highest(&db, RT_TABLE_HELP);
    int r = 0;
    for (size_t i = 0; i < db.n_services && r == 0; i++) {
        const struct rt_service_info *p = &db.services[i];
        if (!p->has_perf)
            continue;
        g->providers++;
        if (p->has_disable && p->disable)
            r = add_disabled(g, p->name);
    }
    rt_database_free(&db);
    if (r != 0) {
        rt_name_db_gauges_free(g);
        return -1;
    }
    g->read = 1;
    return 0;
}
