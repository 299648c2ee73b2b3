/* The operations layer's transactions: each ties the engine's plan to a
 * store's lock, apply and read-back. */
#include "ops/ops.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/side_files.h"

/* Where splice C was computed from: its table in DB, the database read
 * under the lock it is applied under (NULL when the language is new). */
static const struct rt_table *db_table(const struct rt_database *db,
                                       const struct rt_change *c,
                                       int *present)
{
    const struct rt_db_language *l =
        db ? rt_database_language(db, c->lang) : NULL;
    *present = l && (c->table == RT_TABLE_COUNTER ? l->has_counter
                                                  : l->has_help);
    return l ? &l->tab[c->table] : NULL;
}

static int not_computed_from(const struct rt_change *c, struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                        "internal error: Perflib\\%s\\%s is not the table "
                        "the change was computed from; nothing was written",
                        c->lang, c->table == RT_TABLE_HELP ? "Help" : "Counter");
}

/* Turns CS's splices into whole tables, from DB, or from the store (under
 * the same lock) where DB kept only a table's tail. */
static int materialize(struct rt_store *s, const struct rt_database *db,
                       struct rt_change_set *cs, struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        struct rt_change *c = &cs->v[i];
        if (c->op != RT_CHANGE_SET_TABLE || !c->n_edits)
            continue;
        int present, r;
        const struct rt_table *t = db_table(db, c, &present);
        if (t && t->base) {
            struct rt_value v = {0};
            if (s->ops->read_table(s, c->lang, c->table, &v, &present, e))
                return -1;
            r = rt_change_materialize(c, v.data, v.len);
            rt_value_free(&v);
        } else {
            r = rt_change_materialize(c, t ? t->blob : NULL, t ? t->len : 0);
        }
        if (r < 0)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        if (r > 0)
            return not_computed_from(c, e);
    }
    return 0;
}

/* Checks each table change of CS: a whole table's with FN against the
 * table as the store holds it now; a splice's with SPLICE_FN against DB's
 * table. */
static int each_table(struct rt_store *s, const struct rt_change_set *cs,
                      const struct rt_database *db,
                      int (*fn)(const struct rt_change *c,
                                const struct rt_value *v, int present,
                                const struct rt_table *known,
                                struct rt_error *e),
                      int (*splice_fn)(struct rt_store *s,
                                       const struct rt_change *c,
                                       const struct rt_table *t, int present,
                                       struct rt_error *e),
                      struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op != RT_CHANGE_SET_TABLE)
            continue;
        if (c->n_edits) {
            int present;
            const struct rt_table *t = db_table(db, c, &present);
            if (!db)
                return not_computed_from(c, e);
            if (splice_fn(s, c, t, present, e) != 0)
                return -1;
            continue;
        }
        struct rt_value v = {0};
        int present = 0, loaded;
        if (s->ops->read_table(s, c->lang, c->table, &v, &present, e) != 0)
            return -1;
        int r = fn(c, &v, present, db_table(db, c, &loaded), e);
        rt_value_free(&v);
        if (r != 0)
            return -1;
    }
    return 0;
}

static int written_wrong(const struct rt_change *c, struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_WRITE_FAULT,
                        "verification failed: Perflib\\%s\\%s does not read "
                        "back as written",
                        c->lang, c->table == RT_TABLE_HELP ? "Help" : "Counter");
}

/* A table change reads back exactly as it was meant to be written. */
static int reads_back(const struct rt_change *c, const struct rt_value *v,
                      int present, const struct rt_table *known,
                      struct rt_error *e)
{
    (void)known;
    if (present && rt_value_equal(v, &c->value))
        return 0;
    return written_wrong(c, e);
}

/* A splice reads back as the table it was computed from with its edits
 * made, compared range by range: from its first edit on where the store
 * can read a table's tail (the bytes before it were not written). */
static int splice_reads_back(struct rt_store *s, const struct rt_change *c,
                             const struct rt_table *t, int present,
                             struct rt_error *e)
{
    (void)present;
    struct rt_value v = {0};
    int now = 0, r;
    size_t from = c->edits[0].at, total = 0, skip = 0;
    if (s->ops->read_table_from) {
        r = s->ops->read_table_from(s, c->lang, c->table, from, &v, &total,
                                    &now, e);
    } else {
        r = s->ops->read_table(s, c->lang, c->table, &v, &now, e);
        total = v.len;
        skip = from < v.len ? from : v.len;
    }
    if (r != 0)
        return -1;
    int ok = now && v.type == c->value.type &&
             rt_change_splice_equal_from(c, t ? t->blob : NULL,
                                         t ? t->base : 0, t ? t->len : 0,
                                         from, v.data + skip, v.len - skip,
                                         total);
    rt_value_free(&v);
    return ok ? 0 : written_wrong(c, e);
}

static int splice_invariant(struct rt_store *s, const struct rt_change *c,
                            const struct rt_table *t, int present,
                            struct rt_error *e)
{
    (void)s;
    return rt_engine_check_table_splice(c, t, present, e);
}

/* The engine's invariant on every table change, against the tables as
 * the store holds them now, where the change will write (a splice: as
 * read under this lock, the bytes it keeps being the store's own). */
static int check_invariant(struct rt_store *s, const struct rt_change_set *cs,
                           const struct rt_database *db, struct rt_error *e)
{
    return each_table(s, cs, db, rt_engine_check_table_change_known,
                      splice_invariant, e);
}

static int apply_checked(struct rt_store *s, const struct rt_change_set *cs,
                         const struct rt_database *db, struct rt_error *e)
{
    const struct rt_commit_hooks *h = s->hooks;
    if (check_invariant(s, cs, db, e) != 0 ||
        (h && h->before && h->before(h->ctx, s, cs, e) != 0))
        return -1;
    /* A commit that fails past its commit point has written the change
     * all the same (review 49 R49-4: its patch was thrown away). */
    struct rt_error mine = {0};
    struct rt_error *err = e ? e : &mine;
    err->committed = 0;
    int r = s->ops->apply(s, cs, err);
    if (h && h->after)
        h->after(h->ctx, r == 0 || err->committed);
    if (r != 0)
        return -1;
    if (each_table(s, cs, db, reads_back, splice_reads_back, e) == 0)
        return 0;
    /* The commit is done: out of memory now must not read as "nothing
     * was written". */
    if (e && e->code == RT_ERR_NOT_ENOUGH_MEMORY)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                     "out of memory reading the tables back: the change "
                     "was written, not verified");
    return -1;
}

int rt_op_apply(struct rt_store *s, const struct rt_change_set *cs,
                struct rt_error *e)
{
    return apply_checked(s, cs, NULL, e);
}

/* A dry run's rt_op_apply: the invariant, then what the store's commit
 * would refuse, nothing written. */
static int check_only(struct rt_store *s, const struct rt_change_set *cs,
                      const struct rt_database *db, struct rt_error *e)
{
    if (check_invariant(s, cs, db, e) != 0)
        return -1;
    return s->ops->check_apply ? s->ops->check_apply(s, cs, e) : 0;
}

int rt_op_check(struct rt_store *s, const struct rt_change_set *cs,
                struct rt_error *e)
{
    return check_only(s, cs, NULL, e);
}

/* A dry run that finds nothing to change: the real run took the lock all
 * the same, so what its begin() refuses (a lock file or a journal that
 * is no file) is refused here too, in its words; the store's check of
 * an empty change is that and nothing more. */
int rt_op_check_begin(struct rt_store *s, struct rt_error *e)
{
    const struct rt_change_set none = {0};
    return s->ops->check_apply ? s->ops->check_apply(s, &none, e) : 0;
}

static int finish(struct rt_store *s, struct rt_change_set *cs,
                  const struct rt_database *db, int dry_run, int whole,
                  struct rt_error *e)
{
    /* Splices go to a store that writes only what they change; anywhere
     * else (a caller that wants whole tables, a store that writes whole
     * tables) they are made whole, and checked as such. */
    int keep = !whole && s->ops->splices && s->ops->splices(s);
    if (!keep && materialize(s, db, cs, e) != 0)
        return -1;
    if (!dry_run)
        return apply_checked(s, cs, db, e);
    /* A dry run has the store check the change as its commit would, in
     * the form the commit gets (a journal's size, what stands at each
     * path, the file's code page and cap), and reports it whole. */
    if (check_only(s, cs, db, e) != 0)
        return -1;
    return keep ? materialize(s, db, cs, e) : 0;
}

/* One operation's plan: computes CS from the database as read. */
typedef int (*plan_fn)(struct rt_database *db, struct rt_store *s,
                       void *ctx, struct rt_change_set *cs,
                       struct rt_error *e);

struct transaction {
    struct rt_db_load_options load;  /* what the plan needs to read */
    int dry_run;
    int whole;            /* table changes are given back whole */
    plan_fn plan;
    /* Runs, when anything is to be written, before it is (repair's
     * backup); a failure writes nothing. */
    int (*before_write)(const struct rt_database *db, void *ctx);
    void *ctx;
    int planned;          /* out: PLAN succeeded (its report is filled) */
};

int rt_op_refuse_key_anomalies(struct rt_store *s, struct rt_error *e)
{
    struct rt_key_anomaly *v;
    size_t n;
    if (!s->ops->key_anomalies)
        return 0;
    if (s->ops->key_anomalies(s, &v, &n, e) != 0)
        return -1;
    int rc = rt_refuse_key_anomalies(v, n, e);
    rt_key_anomalies_free(v, n);
    return rc;
}

/* begin, load, plan, check (dry run) or apply, end: every operation's
 * frame. A dry run reads the store as opened, as a reader: no lock,
 * nothing written, a journal found said and not replayed (the docs'
 * promise: dry runs work on read-only media). On failure *CS is freed. */
static int transact(struct rt_store *s, struct transaction *t,
                    struct rt_change_set *cs, struct rt_error *e)
{
    struct rt_database db;
    int locked = !t->dry_run;
    memset(cs, 0, sizeof *cs);
    t->planned = 0;
    if (locked && s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    /* A link key or two keys of one name where the database lies: what
     * Windows reads there is not what a plan would be made from. */
    if (rt_op_refuse_key_anomalies(s, e) == 0 &&
        rt_database_load_with(s, &db, &t->load, e) == 0) {
        db.change_max = rt_store_change_max(s);
        if (t->plan(&db, s, t->ctx, cs, e) == 0) {
            t->planned = 1;
            /* Windows rewrites PerfStringBackup.INI after every change:
             * in the same commit here. */
            if (cs->n && rt_store_win_files(s) && rt_side_psb(s, cs, e) != 0)
                rc = -1;
            else if (!cs->n)
                rc = t->dry_run ? rt_op_check_begin(s, e) : 0;
            else if (!t->dry_run && t->before_write &&
                     t->before_write(&db, t->ctx) != 0)
                rc = rt_error_set(e, RT_ERR_WRITE_FAULT,
                                  "the backup could not be saved; nothing "
                                  "was written");
            else
                rc = finish(s, cs, &db, t->dry_run, t->whole, e);
        }
        rt_database_free(&db);
    }
    if (locked)
        s->ops->end(s);
    if (rc != 0)
        rt_change_set_free(cs);
    return rc;
}

/* Install and uninstall read every table's bytes and index, never their
 * text: the engine splices UTF-16; of the Help tables, the bulk of the
 * database, they keep only the end a change can touch (tail_for). */
static const struct rt_db_load_options lean = {RT_DB_TABLES_ALL, NULL, 0, 0,
                                               NULL};
/* Repair and rebuild read every table whole as stored (UTF-16, indexed)
 * and decode only the pairs their steps change or take: a table of
 * millions of tiny pairs is not held decoded besides the change that
 * replaces it (rebuild read every table decoded too, and peaked at
 * 12 x the tables). */
static const struct rt_db_load_options as_stored = {RT_DB_TABLES_ALL, NULL, 0,
                                                    0, NULL};

struct install_ctx {
    const struct rt_provider_spec *spec;
    const struct rt_install_options *opt;
    struct rt_install_plan *plan;
};

static int plan_install(struct rt_database *db, struct rt_store *s,
                        void *ctx, struct rt_change_set *cs,
                        struct rt_error *e)
{
    struct install_ctx *c = ctx;
    struct rt_service_info svc;
    if (rt_service_load(s, c->spec->drivername, &svc, e) != 0)
        return -1;
    int r = rt_engine_install(db, &svc, c->spec, c->opt, cs, c->plan, e);
    /* The INF copy, where lodctr /R looks for it; a replaced provider's
     * old copy goes, but for the files written anew. */
    if (r == 0 && c->opt->inf && rt_store_win_files(s) &&
        (rt_side_inf_copy(db, c->spec, c->opt->inf, cs, e) != 0 ||
         (svc.has_range && rt_side_inf_remove(s, db, &svc, cs, e) != 0))) {
        rt_install_plan_free(c->plan);
        r = -1;
    }
    rt_service_info_free(&svc);
    return r;
}

int rt_op_install(struct rt_store *s, const struct rt_provider_spec *spec,
                  const struct rt_install_options *opt, int flags,
                  struct rt_change_set *cs, struct rt_install_plan *plan,
                  struct rt_error *e)
{
    /* Checked before the lock is taken (rt_service_name_check). */
    if (rt_service_name_check(spec->drivername, e) != 0)
        return -1;
    struct install_ctx c = {spec, opt, plan};
    struct transaction t = {lean, flags & RT_OP_DRY_RUN,
                            (flags & RT_OP_WHOLE_TABLES) != 0, plan_install,
                            NULL, &c, 0};
    t.load.tail_for = spec->drivername;
    int rc = transact(s, &t, cs, e);
    if (rc != 0 && t.planned)
        rt_install_plan_free(plan);
    return rc;
}

struct uninstall_ctx {
    const char *drivername;
    int force;
    struct rt_uninstall_plan *plan;
};

static int plan_uninstall(struct rt_database *db, struct rt_store *s,
                          void *ctx, struct rt_change_set *cs,
                          struct rt_error *e)
{
    struct uninstall_ctx *c = ctx;
    struct rt_service_info svc;
    if (rt_service_load(s, c->drivername, &svc, e) != 0)
        return -1;
    int r = rt_engine_uninstall(db, &svc, c->force, cs, c->plan, e);
    if (r == 0 && rt_store_win_files(s))
        r = rt_side_inf_remove(s, db, &svc, cs, e);
    rt_service_info_free(&svc);
    return r;
}

int rt_op_uninstall(struct rt_store *s, const char *drivername, int force,
                    int flags, struct rt_change_set *cs,
                    struct rt_uninstall_plan *plan, struct rt_error *e)
{
    if (rt_service_name_check(drivername, e) != 0)
        return -1;
    struct uninstall_ctx c = {drivername, force, plan};
    struct transaction t = {lean, flags & RT_OP_DRY_RUN,
                            (flags & RT_OP_WHOLE_TABLES) != 0, plan_uninstall,
                            NULL, &c, 0};
    t.load.tail_for = drivername;
    return transact(s, &t, cs, e);
}

int rt_op_set_disabled(struct rt_store *s, const char *drivername,
                       int disable, struct rt_error *e)
{
    struct rt_service_info svc;
    struct rt_change_set cs = {0};
    if (rt_service_name_check(drivername, e) != 0)
        return -1;
    if (s->ops->begin(s, e) != 0)
        return -1;
    int rc = -1;
    memset(&svc, 0, sizeof svc);
    if (rt_op_refuse_key_anomalies(s, e) != 0 ||
        rt_service_load(s, drivername, &svc, e) != 0)
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
        else if (cs.n && rt_store_win_files(s) && rt_side_psb(s, &cs, e) != 0)
            rc = -1;
        else
            rc = cs.n ? rt_op_apply(s, &cs, e) : 0;
    }
    rt_service_info_free(&svc);
end:
    s->ops->end(s);
    rt_change_set_free(&cs);
    return rc;
}

int rt_op_refuse_forced(struct rt_error *e, const char *fmt, ...)
{
    char what[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return rt_error_set(e, RT_ERR_ALREADY_EXISTS,
                        "%s; nothing was written (--force restores it "
                        "anyway)", what);
}

int rt_op_refuse_base_index(const char *where, const uint32_t *value,
                            uint32_t ours, struct rt_error *e)
{
    /* Base Index bounds the system's own range: every later check of a
     * provider's range against it (install, restore, audit, repair's
     * orphans) would follow the file's. */
    char number[16] = "";
    if (value)
        snprintf(number, sizeof number, " %u", (unsigned)*value);
    return rt_op_refuse_forced(e, "%s in the file sets Base Index%s, which "
                               "is not this store's (%u): its base range is "
                               "another Windows'", where, number,
                               (unsigned)ours);
}

int rt_op_refuse_other_machine(uint32_t base_index, size_t differ,
                               size_t compared, uint32_t first_index,
                               const char *first_lang, struct rt_error *e)
{
    /* Another machine's backup: its base texts (another Windows version,
     * another language pack) would replace this machine's, and its
     * ranges those of the providers installed here. Said before anything
     * is written. */
    return rt_op_refuse_forced(e, "the file's base texts (indices 1 to Base "
                               "Index %u) differ from the database's in %zu "
                               "of the %zu they both have (the first: index "
                               "%u of language %s): it is another machine's "
                               "backup", (unsigned)base_index, differ,
                               compared, (unsigned)first_index, first_lang);
}

struct restore_ctx {
    const struct rt_psb *psb;
    struct rt_restore_plan *plan;
    int force, dry_run;
};

static int plan_restore(struct rt_database *db, struct rt_store *s,
                        void *ctx, struct rt_change_set *cs,
                        struct rt_error *e)
{
    struct restore_ctx *c = ctx;
    if (rt_engine_restore_from(s, db, c->psb, cs, c->plan, e) != 0)
        return -1;
    const struct rt_restore_plan *p = c->plan;
    /* A section that gives one of the system's providers a range it has
     * not got (a backup of another machine, or one someone wrote): its
     * names would take the place of a provider's that Windows serves
     * from its own DLL, as an install over it would; refused as such an
     * install is, unless forced. Services are the plan's in DB's order. */
    const struct rt_restore_perflib *bi = &p->perflib[2];
    if (!c->force && bi->in_file && bi->had &&
        bi->new_value != bi->old_value) {
        rt_op_refuse_base_index("[Perflib]", &bi->new_value, bi->old_value,
                                e);
        rt_change_set_free(cs);
        rt_restore_plan_free(c->plan);
        return -1;
    }
    for (size_t i = 0; i < p->n_services && !c->force; i++) {
        const struct rt_restore_service *rs = &p->services[i];
        const struct rt_service_info *si = &db->services[i];
        char why[400];
        if (rs->action != RT_RESTORE_SET || !rs->values_changed)
            continue;
        /* A range in the base range is Windows' own, whoever gets it. */
        char reason[600];
        if (rs->first_counter <= db->base_index ||
            rs->first_help <= db->base_index) {
            snprintf(reason, sizeof reason, "in the system's base range "
                     "(Base Index %u)", db->base_index);
        } else if (rs->had_range && !rt_audit_system_dll(si->name)) {
            /* A range moved out of the base range is a repair (a damaged
             * First Counter); only Windows' own keep theirs. */
            continue;
        } else if (rt_engine_system_provider(db, si, why, sizeof why) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            rt_change_set_free(cs);
            rt_restore_plan_free(c->plan);
            return -1;
        } else if (!why[0]) {
            continue;
        } else {
            snprintf(reason, sizeof reason, "%s: %s (one of the system's "
                     "providers)", rs->had_range ? "another range than its own"
                                                 : "a range it has not got",
                     why);
        }
        rt_op_refuse_forced(e, "line %u: [PERF_%s] would give %s names "
                            "%u-%u and help texts %u-%u, %s", rs->line, rs->name,
                            rs->name, rs->first_counter, rs->last_counter,
                            rs->first_help, rs->last_help, reason);
        rt_change_set_free(cs);
        rt_restore_plan_free(c->plan);
        return -1;
    }
    if (!p->base_differ || c->force || c->dry_run)
        return 0;
    const struct rt_restore_language *first = NULL;
    for (size_t i = 0; i < p->n_langs && !first; i++)
        if (p->langs[i].base_differ)
            first = &p->langs[i];
    rt_op_refuse_other_machine(db->base_index, p->base_differ,
                               p->base_compared, first->base_first_differ,
                               first->id, e);
    rt_change_set_free(cs);
    rt_restore_plan_free(c->plan);
    return -1;
}

int rt_op_restore(struct rt_store *s, const struct rt_psb *psb, int force,
                  int dry_run, struct rt_change_set *cs,
                  struct rt_restore_plan *plan, struct rt_error *e)
{
    struct restore_ctx c = {psb, plan, force, dry_run};
    /* Each language's tables read as the plan comes to them. */
    struct transaction t = {rt_db_load_no_tables, dry_run, 0, plan_restore,
                            NULL, &c, 0};
    int rc = transact(s, &t, cs, e);
    if (rc != 0 && t.planned)
        rt_restore_plan_free(plan);
    return rc;
}

struct repair_ctx {
    const struct rt_repair_options *opt;
    struct rt_repair_report *report;
    int (*before_write)(const struct rt_database *db, void *ctx);
    void *ctx;
};

static int plan_repair(struct rt_database *db, struct rt_store *s,
                       void *ctx, struct rt_change_set *cs,
                       struct rt_error *e)
{
    struct repair_ctx *c = ctx;
    /* The copies of the tables the store keeps, compared under the lock
     * as the tables were read: repair rewrites those that differ. */
    struct rt_database with = *db;
    with.copy_diffs = NULL;
    with.n_copy_diffs = 0;
    int rc = rt_database_load_copies(s, &with, e);
    if (rc == 0)
        rc = rt_engine_repair(&with, c->opt, cs, c->report, e);
    rt_database_copies_free(&with);
    return rc;
}

static int repair_before_write(const struct rt_database *db, void *ctx)
{
    struct repair_ctx *c = ctx;
    return c->before_write ? c->before_write(db, c->ctx) : 0;
}

int rt_op_repair(struct rt_store *s, const struct rt_repair_options *opt,
                 int dry_run,
                 int (*before_write)(const struct rt_database *db, void *ctx),
                 void *ctx, struct rt_change_set *cs,
                 struct rt_repair_report *r, struct rt_error *e)
{
    memset(r, 0, sizeof *r);
    struct repair_ctx c = {opt, r, before_write, ctx};
    struct transaction t = {as_stored, dry_run, 0, plan_repair,
                            repair_before_write, &c, 0};
    int rc = transact(s, &t, cs, e);
    if (rc != 0 && t.planned)
        rt_repair_report_free(r);
    return rc;
}

struct rebuild_ctx {
    const char *from;
    int accept_loss, dry_run;
    struct rt_rebuild_plan *plan;
    struct rt_rebuild_sources *src;
    int refused;
    int (*before_write)(const struct rt_rebuild_plan *plan,
                        const struct rt_change_set *cs, void *ctx);
    void *ctx;
    const struct rt_change_set *cs;     /* the one planned */
};

static int plan_rebuild(struct rt_database *db, struct rt_store *s,
                        void *ctx, struct rt_change_set *cs,
                        struct rt_error *e)
{
    struct rebuild_ctx *c = ctx;
    c->cs = cs;
    if (rt_rebuild_sources_read(s, db, c->from, c->src, e) != 0)
        return -1;
    if (rt_engine_rebuild(db, &c->src->in, cs, c->plan, e) != 0)
        return -1;
    if (c->plan->lost && !c->accept_loss && !c->dry_run) {
        /* The plan is kept for the caller to print what would be lost. */
        c->refused = 1;
        rt_change_set_free(cs);
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                            "%zu provider or language texts cannot be "
                            "recovered; nothing was written",
                            c->plan->lost);
    }
    return 0;
}

static int rebuild_before_write(const struct rt_database *db, void *ctx)
{
    (void)db;
    struct rebuild_ctx *c = ctx;
    return c->before_write ? c->before_write(c->plan, c->cs, c->ctx) : 0;
}

int rt_op_rebuild(struct rt_store *s, const char *from, int accept_loss,
                  int dry_run,
                  int (*before_write)(const struct rt_rebuild_plan *plan,
                                      const struct rt_change_set *cs,
                                      void *ctx),
                  void *ctx, struct rt_change_set *cs,
                  struct rt_rebuild_plan *plan, struct rt_rebuild_sources *src,
                  int *refused, struct rt_error *e)
{
    memset(plan, 0, sizeof *plan);
    memset(src, 0, sizeof *src);
    struct rebuild_ctx c = {from, accept_loss, dry_run, plan, src, 0,
                            before_write, ctx, NULL};
    struct transaction t = {as_stored, dry_run, 0, plan_rebuild,
                            rebuild_before_write, &c, 0};
    int rc = transact(s, &t, cs, e);
    *refused = c.refused;
    if (rc != 0 && !c.refused) {
        rt_rebuild_plan_free(plan);
        rt_rebuild_sources_free(src);
    }
    return rc;
}
