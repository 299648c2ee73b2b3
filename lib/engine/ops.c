/* Operations layer: transactions that tie the engine to a store. */
#include "engine/ops.h"

#include <string.h>

/* Calls FN for each table change of CS with the table as the store holds
 * it now. */
static int each_table(struct rt_store *s, const struct rt_change_set *cs,
                      int (*fn)(const struct rt_change *c,
                                const struct rt_value *v, int present,
                                struct rt_error *e),
                      struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op != RT_CHANGE_SET_TABLE)
            continue;
        struct rt_value v = {0};
        int present = 0;
        if (s->ops->read_table(s, c->lang, c->table, &v, &present, e) != 0)
            return -1;
        int r = fn(c, &v, present, e);
        rt_value_free(&v);
        if (r != 0)
            return -1;
    }
    return 0;
}

/* A table change reads back exactly as it was meant to be written. */
static int reads_back(const struct rt_change *c, const struct rt_value *v,
                      int present, struct rt_error *e)
{
    if (present && rt_value_equal(v, &c->value))
        return 0;
    return rt_error_set(e, RT_ERR_WRITE_FAULT,
                        "verification failed: Perflib\\%s\\%s does not read "
                        "back as written",
                        c->lang, c->table == RT_TABLE_HELP ? "Help" : "Counter");
}

static int verify(struct rt_store *s, const struct rt_change_set *cs,
                  struct rt_error *e)
{
    return each_table(s, cs, reads_back, e);
}

/* The engine's invariant on every table change, against the tables as
 * the store holds them now, where the change will write. */
static int check_invariant(struct rt_store *s, const struct rt_change_set *cs,
                           struct rt_error *e)
{
    return each_table(s, cs, rt_engine_check_table_change, e);
}

int rt_op_apply(struct rt_store *s, const struct rt_change_set *cs,
                struct rt_error *e)
{
    if (check_invariant(s, cs, e) != 0 || s->ops->apply(s, cs, e) != 0)
        return -1;
    return verify(s, cs, e);
}

static int finish(struct rt_store *s, const struct rt_change_set *cs,
                  int dry_run, struct rt_error *e)
{
    if (dry_run)
        return check_invariant(s, cs, e);
    return rt_op_apply(s, cs, e);
}

int rt_op_install(struct rt_store *s, const struct rt_provider_spec *spec,
                  const struct rt_install_options *opt, int dry_run,
                  struct rt_change_set *cs, struct rt_install_plan *plan,
                  struct rt_error *e)
{
    struct rt_database db;
    struct rt_service_info svc;
    memset(cs, 0, sizeof *cs);
    /* A dry run reads the store as opened: no lock, nothing written. */
    if (!dry_run && s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    if (rt_database_load(s, &db, e) != 0)
        goto end;
    if (rt_service_load(s, spec->drivername, &svc, e) == 0) {
        if (rt_engine_install(&db, &svc, spec, opt, cs, plan, e) == 0) {
            rc = finish(s, cs, dry_run, e);
            if (rc != 0)
                rt_install_plan_free(plan);
        }
        rt_service_info_free(&svc);
    }
    rt_database_free(&db);
end:
    if (!dry_run)
        s->ops->end(s);
    if (rc != 0)
        rt_change_set_free(cs);
    return rc;
}

int rt_op_uninstall(struct rt_store *s, const char *drivername, int force,
                    int dry_run, struct rt_change_set *cs,
                    struct rt_uninstall_plan *plan, struct rt_error *e)
{
    struct rt_database db;
    struct rt_service_info svc;
    memset(cs, 0, sizeof *cs);
    if (!dry_run && s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    if (rt_database_load(s, &db, e) != 0)
        goto end;
    if (rt_service_load(s, drivername, &svc, e) == 0) {
        if (rt_engine_uninstall(&db, &svc, force, cs, plan, e) == 0)
            rc = finish(s, cs, dry_run, e);
        rt_service_info_free(&svc);
    }
    rt_database_free(&db);
end:
    if (!dry_run)
        s->ops->end(s);
    if (rc != 0)
        rt_change_set_free(cs);
    return rc;
}

int rt_op_set_disabled(struct rt_store *s, const char *drivername,
                       int disable, struct rt_error *e)
{
    struct rt_service_info svc;
    struct rt_change_set cs = {0};
    if (s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    if (rt_service_load(s, drivername, &svc, e) != 0)
        goto end;
    if (!svc.has_perf) {
        rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                     "service '%s' has no Performance key", drivername);
    } else {
        int r;
        if (disable) {
            r = rt_change_set_dword(&cs, drivername,
                                    "Disable Performance Counters", 1);
        } else {
            r = svc.has_disable
                    ? rt_change_set_delete_service(
                          &cs, drivername, "Disable Performance Counters")
                    : 0;
        }
        if (r != 0)
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        else
            rc = cs.n ? rt_op_apply(s, &cs, e) : 0;
    }
    rt_service_info_free(&svc);
end:
    s->ops->end(s);
    rt_change_set_free(&cs);
    return rc;
}

int rt_op_restore(struct rt_store *s, const struct rt_psb *psb, int dry_run,
                  struct rt_change_set *cs, struct rt_restore_plan *plan,
                  struct rt_error *e)
{
    struct rt_database db;
    memset(cs, 0, sizeof *cs);
    if (s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    if (rt_database_load(s, &db, e) == 0) {
        if (rt_engine_restore(&db, psb, cs, plan, e) == 0) {
            rc = cs->n ? finish(s, cs, dry_run, e) : 0;
            if (rc != 0)
                rt_restore_plan_free(plan);
        }
        rt_database_free(&db);
    }
    s->ops->end(s);
    if (rc != 0)
        rt_change_set_free(cs);
    return rc;
}

int rt_op_repair(struct rt_store *s, const struct rt_repair_options *opt,
                 int dry_run,
                 int (*before_write)(const struct rt_database *db, void *ctx),
                 void *ctx, struct rt_change_set *cs,
                 struct rt_repair_report *r, struct rt_error *e)
{
    struct rt_database db;
    memset(cs, 0, sizeof *cs);
    memset(r, 0, sizeof *r);
    if (s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    if (rt_database_load(s, &db, e) == 0) {
        if (rt_engine_repair(&db, opt, cs, r, e) == 0) {
            if (!cs->n)
                rc = 0;
            else if (!dry_run && before_write && before_write(&db, ctx) != 0)
                rc = rt_error_set(e, RT_ERR_WRITE_FAULT,
                                  "the backup could not be saved; nothing "
                                  "was written");
            else
                rc = finish(s, cs, dry_run, e);
            if (rc != 0)
                rt_repair_report_free(r);
        }
        rt_database_free(&db);
    }
    s->ops->end(s);
    if (rc != 0)
        rt_change_set_free(cs);
    return rc;
}
