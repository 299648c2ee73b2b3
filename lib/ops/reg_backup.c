/* Engine: .reg backups and their restore (engine/reg_backup.h). */
#include "ops/reg_backup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "model/lang_id.h"
#include "model/reg_types.h"
#include "model/regtree.h"

const char *const rt_reg_perflib_values[] = {
    "Base Index", "Last Counter", "Last Help", "Version",
    "Disable Performance Counters", "Collect Timeout", "Open Timeout",
    "ExtCounterTestLevel", "EventLogLevel", "Configuration Data",
    "Error Count", "Updating", NULL,
};

const char *const rt_reg_service_values[] = {
    "Library", "Open", "Collect", "Close", "Object List", "PerfIniFile",
    "First Counter", "First Help", "Last Counter", "Last Help",
    "Disable Performance Counters", "Open Timeout", "Collect Timeout",
    "Library Validation Code", "Query", "Counter Names", "Help Text",
    "WbemAdapFileSignature", "WbemAdapFileSize", "WbemAdapFileTime",
    "WbemAdapStatus", NULL,
};

static const char *const range_values[] = {
    "First Counter", "First Help", "Last Counter", "Last Help", NULL,
};

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* Adds each of NAMES that READ finds to K. */
static int add_values(struct rt_store *s, struct rt_reg_key *k,
                      const char *service, const char *const *names,
                      struct rt_error *e)
{
    for (size_t i = 0; names[i]; i++) {
        struct rt_value v;
        int present;
        int r = service ? s->ops->read_service(s, service, names[i], &v,
                                               &present, e)
                        : s->ops->read_perflib(s, names[i], &v, &present, e);
        if (r != 0)
            return -1;
        if (present && rt_reg_add_value(k, names[i], &v) != 0) {
            rt_value_free(&v);
            return oom(e);
        }
        rt_value_free(&v);
    }
    return 0;
}

int rt_engine_backup_reg(struct rt_store *s, const struct rt_database *db,
                         enum rt_reg_format format, struct rt_reg_file *out,
                         struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    out->format = format;
    char *path = NULL;
    struct rt_reg_key *k = rt_reg_add_key(out, RT_REG_PERFLIB_KEY, 0);
    if (!k) {
        oom(e);
        goto fail;
    }
    if (add_values(s, k, NULL, rt_reg_perflib_values, e) != 0)
        goto fail;
    for (size_t i = 0; i < db->n_langs; i++) {
        if (asprintf(&path, RT_REG_PERFLIB_KEY "\\%s", db->langs[i].id) < 0 ||
            !(k = rt_reg_add_key(out, path, 0))) {
            oom(e);
            goto fail;
        }
        free(path);
        path = NULL;
        for (int t = RT_TABLE_COUNTER; t <= RT_TABLE_HELP; t++) {
            struct rt_value v;
            int present;
            if (s->ops->read_table(s, db->langs[i].id, t, &v, &present, e))
                goto fail;
            int r = present ? rt_reg_add_value(k, t == RT_TABLE_COUNTER
                                                      ? "Counter" : "Help",
                                               &v)
                            : 0;
            rt_value_free(&v);
            if (r != 0) {
                oom(e);
                goto fail;
            }
        }
    }
    for (size_t i = 0; i < db->n_services; i++) {
        const char *name = db->services[i].name;
        if (asprintf(&path, RT_REG_SERVICES_KEY "\\%s\\Performance",
                     name) < 0 ||
            !(k = rt_reg_add_key(out, path, 0))) {
            oom(e);
            goto fail;
        }
        free(path);
        path = NULL;
        if (add_values(s, k, name, rt_reg_service_values, e) != 0)
            goto fail;
    }
    return 0;
fail:
    free(path);
    rt_reg_file_free(out);
    return -1;
}

void rt_reg_restore_report_free(struct rt_reg_restore_report *r)
{
    for (size_t i = 0; i < r->n_skipped; i++)
        free(r->skipped[i]);
    free(r->skipped);
    free(r->base_first_lang);
    memset(r, 0, sizeof *r);
}

static int skip(struct rt_reg_restore_report *r, const char *what,
                const char *name)
{
    char **v = realloc(r->skipped, (r->n_skipped + 1) * sizeof *v);
    if (!v)
        return -1;
    r->skipped = v;
    if (asprintf(&v[r->n_skipped], "%s %s", what, name) < 0)
        return -1;
    r->n_skipped++;
    return 0;
}

/* The file's language keys by value (CurrentLanguage above every
 * value), ties in the file's order: each of the store's languages is
 * found by a search (a scan each was store languages x file languages,
 * review 35 F7). */
struct file_langs {
    struct rt_lang_pos *v;
    size_t n;
};

static int file_langs_of(const struct rt_tree_key *perflib,
                         struct file_langs *f)
{
    f->n = 0;
    f->v = malloc((perflib->n_sub ? perflib->n_sub : 1) * sizeof *f->v);
    if (!f->v)
        return -1;
    for (size_t i = 0; i < perflib->n_sub; i++)
        if (rt_lang_key(perflib->sub[i]->name, &f->v[f->n].key))
            f->v[f->n++].pos = (uint32_t)i;
    qsort(f->v, f->n, sizeof *f->v, rt_lang_pos_cmp);
    return 0;
}

/* The file's language key for the store's language ID, matched by value
 * as the rest of regtool matches languages (0804 is 804): the first of
 * that value in the file. */
static struct rt_tree_key *file_language(const struct rt_tree_key *perflib,
                                         const struct file_langs *f,
                                         const char *id)
{
    uint32_t key;
    if (!rt_lang_key(id, &key))
        return NULL;
    size_t at = rt_lang_pos_find(f->v, f->n, key);
    return at < f->n ? perflib->sub[f->v[at].pos] : NULL;
}

/* Adds to B the base texts of the file's table FILE against the
 * database's T. 0, or -1 when out of memory. */
static int compare_base(const struct rt_table *t, const struct rt_value *file,
                        uint32_t base, struct rt_base_texts *b)
{
    /* Leniently: the pairs before any damage are compared. */
    struct rt_name_table nt;
    struct rt_msz_error err = {0};
    int which;
    int rc = 0;
    if (rt_name_table_decode(&nt, file->data, file->len, NULL, 0, 1, &err,
                             &which) != 0 &&
        err.status == RT_MSZ_NOMEM)
        rc = -1;
    if (rc == 0)
        rc = rt_engine_compare_base(t, &nt.counter, base, b);
    rt_name_table_free(&nt);
    return rc;
}

/* Sums language ID's comparison LB into R, naming the first language
 * (in the store's order) that differs, as rt_op_restore does. */
static int add_base(struct rt_reg_restore_report *r, const char *id,
                    const struct rt_base_texts *lb)
{
    r->base.compared += lb->compared;
    r->base.differ += lb->differ;
    if (!lb->differ || r->base_first_lang)
        return 0;
    r->base.first_differ = lb->first_differ;
    return (r->base_first_lang = strdup(id)) ? 0 : -1;
}

static int plan_tables(struct rt_store *s, const struct rt_database *db,
                       const struct rt_tree_key *perflib,
                       const struct file_langs *fl,
                       struct rt_change_set *cs,
                       struct rt_reg_restore_report *r, struct rt_error *e)
{
    size_t matched = 0;
    for (size_t i = 0; i < db->n_langs; i++) {
        const char *id = db->langs[i].id;
        struct rt_tree_key *fk = file_language(perflib, fl, id);
        /* A language key without a table restores nothing: such a file
         * (an empty Perflib\009) is no backup of this store. */
        if (!fk || (!rt_tree_value(fk, "Counter") && !rt_tree_value(fk, "Help")))
            continue;
        matched++;
        struct rt_base_texts lb = {0};
        for (int t = RT_TABLE_COUNTER; t <= RT_TABLE_HELP; t++) {
            const char *vn = t == RT_TABLE_COUNTER ? "Counter" : "Help";
            struct rt_tree_value *fv = rt_tree_value(fk, vn);
            if (!fv)
                continue;
            if (fv->v.type != RT_REG_MULTI_SZ || fv->v.len < 4)
                return rt_error_set(e, RT_ERR_INVALID_DATA,
                                    "Perflib\\%s's %s in the file is %s: a "
                                    "table is a REG_MULTI_SZ (hex(7)) of "
                                    "strings", fk->name, vn,
                                    fv->v.type != RT_REG_MULTI_SZ
                                        ? "not hex(7)" : "empty");
            if (compare_base(&db->langs[i].tab[t], &fv->v, db->base_index,
                             &lb) != 0)
                return oom(e);
            struct rt_value cur;
            int present;
            if (s->ops->read_table(s, id, t, &cur, &present, e) != 0)
                return -1;
            int same = present && cur.type == RT_REG_MULTI_SZ &&
                       rt_value_equal(&cur, &fv->v);
            uint64_t h = present ? rt_blob_hash(cur.data, cur.len) : 0;
            size_t len = present ? cur.len : 0;
            rt_value_free(&cur);
            if (same)
                continue;
            if (rt_change_set_table_replace(cs, id, t, fv->v.data, fv->v.len,
                                            present, len, h, NULL, NULL) != 0)
                return oom(e);
            r->tables++;
        }
        if (add_base(r, id, &lb) != 0)
            return oom(e);
    }
    for (size_t i = 0; i < perflib->n_sub; i++) {
        const char *n = perflib->sub[i]->name;
        if (rt_is_language_key(n) && !rt_database_language(db, n) &&
            skip(r, "language", n) != 0)
            return oom(e);
    }
    if (!matched)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "the file has tables for none of this store's "
                            "languages");
    return 0;
}

/* What changing a service's value NAME decides: 1 what code runs in
 * every program that reads performance data (its Library and entry
 * points), 2 which indices it serves (its range), 0 neither. On one of
 * the system's providers either is an install over it, refused as
 * install refuses it. */
static int guarded(const char *name)
{
    static const char *const code[] = {"Library", "Open", "Collect",
                                       "Close", NULL};
    for (size_t i = 0; code[i]; i++)
        if (!strcmp(name, code[i]))
            return 1;
    for (size_t i = 0; range_values[i]; i++)
        if (!strcmp(name, range_values[i]))
            return 2;
    return 0;
}

/* -1 with E set when changing value NAME of SVC is refused (FORCE not
 * given): a range of one of the system's providers or in the base range,
 * or any provider's code (Library, Open, Collect, Close). */
static int refuse_guarded(const struct rt_database *db,
                          const struct rt_service_info *svc, const char *name,
                          const struct rt_value *v, int force,
                          struct rt_error *e)
{
    char why[600];
    int what = force ? 0 : guarded(name);
    if (!what)
        return 0;
    /* A range in the base range is Windows' own, whoever gets it. */
    uint32_t x;
    if (v && (!strcmp(name, "First Counter") || !strcmp(name, "First Help")) &&
        rt_value_dword(v, &x) == 0 && x <= db->base_index)
        return rt_op_refuse_forced(e, "[%s\\%s\\Performance] in the file "
                                   "would set its %s to %u, in the system's "
                                   "base range (Base Index %u)",
                                   RT_REG_SERVICES_KEY, svc->name, name, x,
                                   db->base_index);
    /* A range moved out of the base range is a repair (a damaged First
     * Counter); only Windows' own keep theirs. */
    if (what == 2 && svc->has_range && !rt_audit_system_dll(svc->name))
        return 0;
    if (rt_engine_system_provider(db, svc, why, sizeof why) != 0)
        return oom(e);
    if (why[0])
        return rt_op_refuse_forced(e, "[%s\\%s\\Performance] in the file "
                                   "would %s its %s, and %s is one of the "
                                   "system's providers: %s",
                                   RT_REG_SERVICES_KEY, svc->name,
                                   v ? "set" : "delete", name, svc->name, why);
    /* Library, Open, Collect and Close of any provider (ESENT's, MSDTC's,
     * a vendor's) decide the code every program that reads performance
     * data loads, SYSTEM's services among them: install never rewrites
     * them, and a restore does not either unless forced. */
    if (what == 1)
        return rt_op_refuse_forced(e, "[%s\\%s\\Performance] in the file "
                                   "would %s its %s, which decides the code "
                                   "every program that reads performance "
                                   "data loads", RT_REG_SERVICES_KEY,
                                   svc->name, v ? "set" : "delete", name);
    return 0;
}

static int plan_services(struct rt_store *s, const struct rt_database *db,
                         const struct rt_tree_key *services, int force,
                         struct rt_change_set *cs,
                         struct rt_reg_restore_report *r, struct rt_error *e)
{
    for (size_t i = 0; i < db->n_services; i++) {
        const char *name = db->services[i].name;
        struct rt_tree_key *fs = services ? rt_tree_child(services, name)
                                          : NULL;
        struct rt_tree_key *fp = fs ? rt_tree_child(fs, "Performance") : NULL;
        const char *const *names = fp ? rt_reg_service_values : range_values;
        for (size_t j = 0; names[j]; j++) {
            struct rt_tree_value *fv = fp ? rt_tree_value(fp, names[j]) : NULL;
            struct rt_value cur;
            int present;
            if (s->ops->read_service(s, name, names[j], &cur, &present, e))
                return -1;
            int same = fv ? present && rt_value_equal(&cur, &fv->v)
                          : !present;
            rt_value_free(&cur);
            if (same)
                continue;
            if (refuse_guarded(db, &db->services[i], names[j],
                               fv ? &fv->v : NULL, force, e) != 0)
                return -1;
            if ((fv ? rt_change_set_service(cs, name, names[j], &fv->v)
                    : rt_change_set_delete_service(cs, name, names[j])) != 0)
                return oom(e);
            r->service_values++;
        }
    }
    for (size_t i = 0; services && i < services->n_sub; i++) {
        const struct rt_tree_key *k = services->sub[i];
        if (rt_tree_child(k, "Performance") &&
            !rt_database_service(db, k->name) &&
            skip(r, "service", k->name) != 0)
            return oom(e);
    }
    return 0;
}

int rt_op_restore_reg_tree(struct rt_store *s, const struct rt_tree_key *root,
                           int force, int dry_run, struct rt_change_set *cs,
                           struct rt_reg_restore_report *r,
                           struct rt_error *e)
{
    memset(cs, 0, sizeof *cs);
    memset(r, 0, sizeof *r);
    const struct rt_tree_key *perflib = rt_tree_find(root, RT_REG_PERFLIB_KEY);
    if (!perflib) {
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "the file has no [" RT_REG_PERFLIB_KEY "]");
    }
    const struct rt_tree_key *services =
        rt_tree_find(root, RT_REG_SERVICES_KEY);
    /* A dry run reads the store as opened, as a reader (transact's
     * rule): no lock, no lock file made, read-only media too. */
    int locked = !dry_run;
    if (locked && s->ops->begin(s, e) != 0)
        return -1;
    if (rt_op_refuse_key_anomalies(s, e) != 0) {
        if (locked)
            s->ops->end(s);
        return -1;
    }
    struct rt_database db;
    int rc = rt_database_load(s, &db, e);
    if (rc == 0) {
        r->base_index = db.base_index;
        struct file_langs fl;
        rc = file_langs_of(perflib, &fl) != 0 ? oom(e) : 0;
        if (rc == 0)
            rc = plan_tables(s, &db, perflib, &fl, cs, r, e);
        free(fl.v);
        if (rc == 0 && r->base.differ && !force && !dry_run)
            rc = rt_op_refuse_other_machine(db.base_index, r->base.differ,
                                            r->base.compared,
                                            r->base.first_differ,
                                            r->base_first_lang, e);
        /* A file without the Services key restores no provider's values
         * (it would delete every range). */
        if (rc == 0 && services)
            rc = plan_services(s, &db, services, force, cs, r, e);
        for (size_t i = 0; rc == 0 && rt_reg_perflib_values[i]; i++) {
            const char *n = rt_reg_perflib_values[i];
            struct rt_tree_value *fv = rt_tree_value(perflib, n);
            if (!fv)
                continue;
            struct rt_value cur;
            int present;
            if ((rc = s->ops->read_perflib(s, n, &cur, &present, e)) != 0)
                break;
            int same = present && rt_value_equal(&cur, &fv->v);
            rt_value_free(&cur);
            if (!same && !force && !strcmp(n, "Base Index")) {
                uint32_t x;
                int number = rt_value_dword(&fv->v, &x) == 0;
                rc = rt_op_refuse_base_index("[" RT_REG_PERFLIB_KEY "]",
                                             number ? &x : NULL,
                                             db.base_index, e);
                break;
            }
            if (!same) {
                if (rt_change_set_perflib(cs, n, &fv->v) != 0)
                    rc = oom(e);
                r->perflib_values++;
            }
        }
        rt_database_free(&db);
    }
    if (rc == 0 && cs->n)
        rc = dry_run ? rt_op_check(s, cs, e) : rt_op_apply(s, cs, e);
    else if (rc == 0 && dry_run)
        rc = rt_op_check_begin(s, e);
    if (locked)
        s->ops->end(s);
    if (rc != 0) {
        rt_change_set_free(cs);
        rt_reg_restore_report_free(r);
    }
    return rc;
}

int rt_op_restore_reg(struct rt_store *s, const struct rt_reg_file *f,
                      int force, int dry_run, struct rt_change_set *cs,
                      struct rt_reg_restore_report *r, struct rt_error *e)
{
    memset(cs, 0, sizeof *cs);
    memset(r, 0, sizeof *r);
    struct rt_tree_key *root = rt_tree_new("");
    if (!root || rt_reg_apply(f, root) != 0) {
        rt_tree_free(root);
        return oom(e);
    }
    int rc = rt_op_restore_reg_tree(s, root, force, dry_run, cs, r, e);
    rt_tree_free(root);
    return rc;
}

/* The least a .reg file of F (UTF-16LE, as backups are) takes, counted
 * before its text is made, which is six times the values' bytes and
 * more: a REG_SZ at least its own bytes (a unit a character, quoted or
 * not), a DWORD nothing that counts, every other value (a table, a
 * Library of another type) its bytes as hex, "xx," 6 bytes each but the
 * last comma. A hive's 100 MB value took 1.9 GB to render before the
 * cap refused the text. */
static uint64_t reg_size_at_least(const struct rt_reg_file *f)
{
    uint64_t n = 0;
    for (size_t i = 0; i < f->n_keys; i++)
        for (size_t j = 0; j < f->keys[i].n_vals; j++) {
            const struct rt_reg_value *v = &f->keys[i].vals[j];
            uint64_t len = v->v.len;
            if (v->del || !len || v->v.type == RT_REG_DWORD)
                continue;
            n += v->v.type == RT_REG_SZ ? len : 6 * len - 2;
        }
    return n;
}

int rt_op_reg_backup_text(const struct rt_reg_file *f, uint8_t **data,
                          size_t *len, uint64_t *too_large,
                          struct rt_error *e)
{
    *data = NULL;
    *len = 0;
    /* Restore and reg: stores read no .reg file over RT_REG_FILE_MAX: a
     * backup that could not be restored is not saved (refused before
     * its text is made where the tables alone are too large). */
    uint64_t least = reg_size_at_least(f);
    if (least > RT_REG_FILE_MAX) {
        *too_large = least;
        return 1;
    }
    struct rt_reg_error re;
    if (rt_reg_write_max(f, NULL, RT_REG_FILE_MAX, data, len, &re) == 0)
        return 0;
    if (re.too_large) {
        *too_large = re.too_large;
        return 1;
    }
    return rt_error_set(e, re.nomem ? RT_ERR_NOT_ENOUGH_MEMORY
                                    : RT_ERR_WRITE_FAULT,
                        "%s", re.message);
}

int rt_op_reg_patch_text(struct rt_store *s, const struct rt_change_set *cs,
                         uint8_t **data, size_t *len, size_t *keys,
                         size_t *values, size_t *left_out, size_t *files,
                         struct rt_error *e)
{
    /* The .dat files are no registry values: the patch carries what a
     * .reg file can reach, and says what it leaves out. */
    int tables = rt_op_tables_layout(s) != RT_TABLES_IN_FILES;
    struct rt_reg_file f;
    *data = NULL;
    *len = 0;
    if (rt_reg_patch(cs, RT_REG_V5_UTF16, tables, &f, left_out) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    *keys = f.n_keys;
    *values = 0;
    for (size_t i = 0; i < f.n_keys; i++)
        *values += f.keys[i].n_vals;
    *files = 0;
    for (size_t i = 0; i < cs->n; i++)
        *files += cs->v[i].op == RT_CHANGE_WRITE_FILE ||
                  cs->v[i].op == RT_CHANGE_DELETE_FILE;
    struct rt_reg_error re;
    int rc = 0;
    /* No larger than restore reads: a patch offered to be applied that
     * regtool would refuse, made whole in memory first, is no help. */
    if (rt_reg_write_max(&f, NULL, RT_REG_FILE_MAX, data, len, &re) != 0)
        rc = rt_error_set(e, re.nomem ? RT_ERR_NOT_ENOUGH_MEMORY
                                      : RT_ERR_INVALID_DATA,
                          "%s%s", re.message,
                          re.too_large ? " (restore reads no larger one)"
                                       : "");
    rt_reg_file_free(&f);
    return rc;
}
