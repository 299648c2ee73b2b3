/* Out of memory at each allocation in turn (malloc's, realloc's and
 * calloc's calls, tests/alloc_hook.h), through the library's main entry
 * points on a small database in the in-memory store: loading the
 * database, audit and its sorting, install and uninstall, repair, a
 * .reg backup's restore, a backup's building, writing and parsing, a table's encoding and
 * decoding, names' lookups, a change set's text and the languages of its
 * view of the store, and loading a provider's INI and symbol file (real
 * ones of ini-samples/, valid, with errors and with warnings) with their
 * diagnostics. Each operation is run once to count its allocations (N);
 * then, for each k (every one up to 200, then every 7th), it runs with
 * the k-th failing: it either fails saying out of memory (never as bad
 * input, and the store as it was before, or, when memory ran out reading
 * the tables back after the commit, wholly written and saying so), or
 * gives exactly the result of the run with memory. LeakSanitizer, in the
 * sanitizer build, checks at exit that no failure leaked. Where the C
 * library's allocator cannot be hooked (not glibc, or under valgrind)
 * every test skips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <unistd.h>
#include <cmocka.h>

#define ALLOC_HOOK_CALLOC
#include "oom_sweep.h"

#ifdef HAVE_ALLOC_HOOK
#include "engine/overlay.h"
#include "model/reg_file.h"
#include "model/reg_types.h"
#include "ops/reg_backup.h"
#include "regf/regf.h"
#endif

#ifdef HAVE_ALLOC_HOOK
/* Everything one case works on or gives; TEARDOWN frees what is set. */
struct oom_ctx {
    struct rt_store *s;
    int damaged;                    /* Last Counter/Help low, Base Index off */
    struct rt_database db;
    int has_db;
    struct rt_findings f;
    struct rt_provider_spec *spec;
    struct rt_change_set cs;
    int has_cs;
    struct rt_install_plan install;
    int has_install;
    struct rt_uninstall_plan uninstall;
    struct rt_repair_report report;
    int has_report;
    struct rt_reg_file reg;         /* a .reg backup to restore */
    int has_reg;
    struct rt_reg_restore_report restore;
    int has_restore;
    struct rt_psb psb;
    int has_psb;
    uint8_t *bytes, *help_bytes;
    size_t len, help_len;
    struct rt_pair_list list;
    struct rt_name_table table;
    struct rt_name_index index;
    struct rt_provider_names names;
    char *text;
    char **langs;                   /* a change set's view lists them */
    size_t n_langs;
};

static char *store_dump(void *ctx)
{
    return rt_store_mem_dump(((struct oom_ctx *)ctx)->s);
}

static void ctx_clear(struct oom_ctx *c)
{
    int damaged = c->damaged;
    memset(c, 0, sizeof *c);
    c->damaged = damaged;
}

/* The small store; DAMAGED 1: Last Counter and Last Help below Peer's
 * range, and Base Index other than English's pair 1 says (audit reads
 * that pair's text: out of memory there is not the two agreeing), for
 * audit and repair to find; 2: Last Counter and Last Help past any index
 * a table may hold, for repair to lower. */
static void store_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    ctx_clear(c);
    c->s = small_store();
    if (c->damaged == 1) {
        struct rt_change_set cs = {0};
        put_dword(&cs, "Last Counter", 1846);
        put_dword(&cs, "Last Help", 1847);
        put_dword(&cs, "Base Index", 1846);
        apply_set(c->s, &cs);
    } else if (c->damaged == 2) {
        struct rt_change_set cs = {0};
        put_dword(&cs, "Last Counter", 0x90000000u);
        put_dword(&cs, "Last Help", 0x90000001u);
        apply_set(c->s, &cs);
    }
}

static void db_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_error e = {0};
    store_setup(ctx);
    assert_int_equal(rt_database_load(c->s, &c->db, &e), 0);
    c->has_db = 1;
}

static void teardown(void *ctx)
{
    struct oom_ctx *c = ctx;
    if (c->has_db)
        rt_database_free(&c->db);
    rt_findings_free(&c->f);
    if (c->spec)
        free_spec(c->spec);
    if (c->has_cs)
        rt_change_set_free(&c->cs);
    if (c->has_install)
        rt_install_plan_free(&c->install);
    if (c->has_report)
        rt_repair_report_free(&c->report);
    if (c->has_reg)
        rt_reg_file_free(&c->reg);
    if (c->has_restore)
        rt_reg_restore_report_free(&c->restore);
    if (c->has_psb)
        rt_psb_free(&c->psb);
    free(c->bytes);
    free(c->help_bytes);
    rt_pair_list_free(&c->list);
    rt_name_table_free(&c->table);
    rt_name_index_free(&c->index);
    rt_provider_names_free(&c->names);
    rt_strings_free(c->langs, c->n_langs);
    free(c->text);
    if (c->s)
        c->s->ops->close(c->s);
    ctx_clear(c);
}

/* --- database load ------------------------------------------------------- */

static int load_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_database_load(c->s, &c->db, e) != 0)
        return -1;
    c->has_db = 1;
    return 0;
}

static char *load_result(void *ctx)
{
    return database_text(&((struct oom_ctx *)ctx)->db);
}

/* --- audit ----------------------------------------------------------- */

static int audit_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_audit(&c->db, NULL, &c->f) != 0) {
        set_nomem(e);
        return -1;
    }
    rt_findings_sort(&c->f);
    return 0;
}

static char *audit_result(void *ctx)
{
    return findings_text(&((struct oom_ctx *)ctx)->f);
}

/* --- install and uninstall ---------------------------------------------- */

static void install_setup(void *ctx)
{
    store_setup(ctx);
    ((struct oom_ctx *)ctx)->spec = make_spec("Transfer");
}

static int install_run_flags(void *ctx, struct rt_error *e, int flags)
{
    struct oom_ctx *c = ctx;
    struct rt_install_options opt = {0};
    if (rt_op_install(c->s, c->spec, &opt, flags, &c->cs, &c->install, e))
        return -1;
    c->has_cs = c->has_install = 1;
    return 0;
}

static int install_run(void *ctx, struct rt_error *e)
{
    return install_run_flags(ctx, e, 0);
}

static char *install_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    return install_text(&c->install, &c->cs);
}

static int uninstall_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_op_uninstall(c->s, "Peer", 0, 0, &c->cs, &c->uninstall, e))
        return -1;
    c->has_cs = 1;
    return 0;
}

static char *uninstall_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    const struct rt_uninstall_plan *p = &c->uninstall;
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "%u-%u %u-%u removed %zu %zu skipped '%s'\n",
                     p->first_counter, p->last_counter, p->first_help,
                     p->last_help, p->removed_names, p->removed_helps,
                     p->side_skipped);
    char *t = change_set_text(&c->cs);
    rt_strbuf_printf(&b, "%s", t);
    free(t);
    return rt_strbuf_take(&b);
}

/* --- repair ------------------------------------------------------------ */

static int repair_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    struct rt_repair_options opt = {.prune_orphans = 1};
    if (rt_op_repair(c->s, &opt, 0, NULL, NULL, &c->cs, &c->report, e))
        return -1;
    c->has_cs = c->has_report = 1;
    return 0;
}

static char *repair_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_strbuf b = {0};
    char *t = change_set_text(&c->cs);
    char *fixed = findings_text(&c->report.fixed);
    char *left = findings_text(&c->report.left);
    rt_strbuf_printf(&b, "%sfixed:\n%sleft:\n%s", t, fixed, left);
    free(t);
    free(fixed);
    free(left);
    return rt_strbuf_take(&b);
}

/* --- a .reg backup restored --------------------------------------------- */

/* The small store, and a .reg backup of it made before Peer was
 * installed: its restore takes Peer's names out of the tables, lowers
 * Last Counter and Last Help and deletes Peer's range values. */
static void restore_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    store_setup(ctx);
    struct rt_store *before = small_store();
    struct rt_change_set cs;
    struct rt_uninstall_plan plan;
    struct rt_error e = {0};
    if (rt_op_uninstall(before, "Peer", 0, 0, &cs, &plan, &e))
        fail_msg("set-up uninstall: %s", e.message);
    rt_change_set_free(&cs);
    struct rt_database db;
    assert_int_equal(rt_database_load(before, &db, &e), 0);
    assert_int_equal(rt_engine_backup_reg(before, &db, RT_REG_V5_UTF16,
                                          &c->reg, &e), 0);
    c->has_reg = 1;
    rt_database_free(&db);
    before->ops->close(before);
}

static int restore_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_op_restore_reg(c->s, &c->reg, 1, 0, &c->cs, &c->restore, e))
        return -1;
    c->has_cs = c->has_restore = 1;
    return 0;
}

static char *restore_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    const struct rt_reg_restore_report *r = &c->restore;
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "tables %zu perflib %zu services %zu skipped %zu\n",
                     r->tables, r->perflib_values, r->service_values,
                     r->n_skipped);
    char *t = change_set_text(&c->cs);
    rt_strbuf_printf(&b, "%s", t);
    free(t);
    return rt_strbuf_take(&b);
}

/* --- backup: built, written, parsed ------------------------------------- */

static int backup_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_engine_backup(&c->db, &c->psb, e) != 0)
        return -1;
    c->has_psb = 1;
    if (rt_psb_write(&c->psb, &c->bytes, &c->len) != 0) {
        set_nomem(e);
        return -1;
    }
    return 0;
}

static char *bytes_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_strbuf b = {0};
    put_bytes(&b, c->bytes, c->len);
    return rt_strbuf_take(&b);
}

/* The backup file's bytes, to parse. */
static void parse_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_error e = {0};
    db_setup(ctx);
    assert_int_equal(backup_run(ctx, &e), 0);
    rt_psb_free(&c->psb);
    c->has_psb = 0;
}

static int parse_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    struct rt_psb_error err = {0};
    if (rt_psb_parse(c->bytes, c->len, &c->psb, NULL, &err) != 0) {
        if (err.nomem)
            set_nomem(e);
        else
            rt_error_set(e, RT_ERR_INVALID_DATA, "line %u: %s", err.line,
                         err.message);
        return -1;
    }
    c->has_psb = 1;
    return 0;
}

static char *parse_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    uint8_t *bytes;
    size_t len;
    assert_int_equal(rt_psb_write(&c->psb, &bytes, &len), 0);
    struct rt_strbuf b = {0};
    put_bytes(&b, bytes, len);
    free(bytes);
    return rt_strbuf_take(&b);
}

/* --- a table's pairs encoded and decoded --------------------------------- */

static void list_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    ctx_clear(c);
    for (uint32_t i = 1; i <= 40; i++) {
        char t[48];
        snprintf(t, sizeof t, "Name %u %.*s", i, (int)(i % 9), "ABCDEFGHI");
        assert_int_equal(rt_pair_list_append(&c->list, 2 * i, t), 0);
    }
}

static int encode_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_pair_list_encode(&c->list, &c->bytes, &c->len) != 0) {
        set_nomem(e);
        return -1;
    }
    return 0;
}

/* The list encoded as Counter, and as Help with odd indices. */
static void decode_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_error e = {0};
    list_setup(ctx);
    assert_int_equal(encode_run(ctx, &e), 0);
    for (size_t i = 0; i < c->list.n; i++)
        c->list.v[i].index++;
    assert_int_equal(rt_pair_list_encode(&c->list, &c->help_bytes,
                                         &c->help_len), 0);
}

static int decode_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    struct rt_msz_error err = {0};
    int which = -1;
    if (rt_name_table_decode(&c->table, c->bytes, c->len, c->help_bytes,
                             c->help_len, 0, &err, &which) != 0) {
        if (err.status == RT_MSZ_NOMEM)
            set_nomem(e);
        else
            rt_error_set(e, RT_ERR_INVALID_DATA,
                         "table %d: status %d at byte %zu", which,
                         (int)err.status, err.offset);
        return -1;
    }
    return 0;
}

static char *decode_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_strbuf b = {0};
    put_pairs(&b, &c->table.counter);
    put_pairs(&b, &c->table.help);
    return rt_strbuf_take(&b);
}

/* --- names' lookups ---------------------------------------------------- */

/* The decoded table's name index, and a provider's counters over a
 * range wider than the table (runs of missing indices on both sides). */
static void names_setup(void *ctx)
{
    struct rt_error e = {0};
    decode_setup(ctx);
    assert_int_equal(decode_run(ctx, &e), 0);
}

static int names_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (rt_op_name_index(&c->index, &c->table.counter, e) != 0)
        return -1;
    if (rt_provider_names(&c->table.counter, &c->table.help, 0, 0x7fffffff,
                          &c->names) != 0) {
        set_nomem(e);
        return -1;
    }
    return 0;
}

static char *names_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_strbuf b = {0};
    for (size_t i = 0; i < c->index.n; i++)
        rt_strbuf_printf(&b, "%u ", c->index.by[i]);
    for (size_t i = 0; i < c->names.n; i++)
        rt_strbuf_printf(&b, "\n%u %s %s", c->names.v[i].index,
                         c->names.v[i].name,
                         c->names.v[i].help ? c->names.v[i].help : "-");
    for (size_t i = 0; i < c->names.n_missing; i++)
        rt_strbuf_printf(&b, "\nmissing %u..%u", c->names.missing[i].first,
                         c->names.missing[i].last);
    return rt_strbuf_take(&b);
}

/* --- a change set's text -------------------------------------------------- */

/* An install's change set (a dry run: nothing written). */
static void text_setup(void *ctx)
{
    struct rt_error e = {0};
    install_setup(ctx);
    assert_int_equal(install_run_flags(ctx, &e, RT_OP_DRY_RUN), 0);
}

static int text_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    if (!(c->text = rt_op_change_set_text(&c->cs))) {
        set_nomem(e);
        return -1;
    }
    return 0;
}

static char *text_result(void *ctx)
{
    return strdup(((struct oom_ctx *)ctx)->text);
}

/* --- a change set's view of the store: its languages -------------------- */

/* Languages the store has, one the change set creates, one it gives a
 * table, and one it changes that the store has: the view lists the
 * store's, then the new ones in the order of their first change. */
static void overlay_setup(void *ctx)
{
    struct oom_ctx *c = ctx;
    static const char16_t text[] = u"1\0Top\0\0";
    store_setup(ctx);
    c->has_cs = 1;
    assert_int_equal(rt_change_set_create_language(&c->cs, "0C0A"), 0);
    assert_int_equal(rt_change_set_table(&c->cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)text, sizeof text,
                                         NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(&c->cs, "407", RT_TABLE_HELP,
                                         (const uint8_t *)text, sizeof text,
                                         NULL, NULL), 0);
}

static int overlay_run(void *ctx, struct rt_error *e)
{
    struct oom_ctx *c = ctx;
    struct rt_store *view = rt_overlay_new(c->s, &c->cs);
    if (!view) {
        set_nomem(e);
        return -1;
    }
    char **langs;
    size_t n;
    int r = view->ops->list_languages(view, &langs, &n, e);
    view->ops->close(view);
    if (r == 0) {
        c->langs = langs;
        c->n_langs = n;
    }
    return r;
}

static char *overlay_result(void *ctx)
{
    struct oom_ctx *c = ctx;
    struct rt_strbuf b = {0};
    for (size_t i = 0; i < c->n_langs; i++)
        rt_strbuf_printf(&b, "%s ", c->langs[i]);
    return rt_strbuf_take(&b);
}

static void run_case(const struct oom_case *c, int damaged)
{
    struct oom_ctx ctx = {.damaged = damaged};
    if (sweep(c, &ctx) == 0)
        skip(); /* valgrind: no call reaches the hook */
}

/* --- an INI and its symbol file, and their diagnostics ------------------- */

/* Loading a provider as install does (rt_op_load_provider) or as
 * check-ini does (rt_op_load_ini): a real INI of ini-samples/ with its
 * symbol file. The load is the operation: its result, whatever the INI
 * holds (a provider, errors, warnings), is what it gives with memory;
 * out of memory is RT_INI_OUT_OF_MEMORY, never the INI taken as bad. */
struct ini_ctx {
    const char *path, *codepage;
    int install;                /* rt_op_load_provider, not rt_op_load_ini */
    enum rt_ini_load r;
    struct rt_provider_spec spec;
    struct rt_inf_files inf;
    struct rt_diags d;
    char *text;                 /* the diagnostics case's */
};

static void ini_setup(void *ctx)
{
    struct ini_ctx *c = ctx;
    c->spec = (struct rt_provider_spec){0};
    c->inf = (struct rt_inf_files){0};
    c->d = (struct rt_diags){0};
    c->text = NULL;
}

static int ini_run(void *ctx, struct rt_error *e)
{
    struct ini_ctx *c = ctx;
    const struct rt_ini_load_options opt = {c->codepage, NULL, 0};
    if (c->install)
        c->r = rt_op_load_provider(c->path, &opt, &c->spec, &c->inf, &c->d,
                                   e);
    else
        c->r = rt_op_load_ini(c->path, &opt, &c->spec, &c->d);
    if (c->r == RT_INI_OUT_OF_MEMORY) {
        if (c->install && e->code != RT_ERR_NOT_ENOUGH_MEMORY)
            fail_msg("%s: out of memory, and E says %d: %s", c->path,
                     e->code, e->message);
        if (c->spec.drivername || c->spec.n_symbols || c->inf.ini)
            fail_msg("%s: out of memory, and a provider is left", c->path);
        set_nomem(e);
        return -1;
    }
    return 0;
}

static void put_diags(struct rt_strbuf *b, const struct rt_diags *d)
{
    rt_strbuf_printf(b, "%zu errors, %zu warnings, oom %d\n", d->errors,
                     d->warnings, d->out_of_memory);
    for (size_t i = 0; i < d->n; i++) {
        char *m = rt_diag_format(&d->v[i]);
        rt_strbuf_printf(b, "%s [%s]\n", m ? m : "(no memory)",
                         d->v[i].symbol ? d->v[i].symbol : "-");
        free(m);
    }
}

static char *ini_result(void *ctx)
{
    struct ini_ctx *c = ctx;
    const struct rt_provider_spec *sp = &c->spec;
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "load %d\n", (int)c->r);
    put_diags(&b, &c->d);
    rt_strbuf_printf(&b, "%s %s %s %s %u %u %d\n",
                     sp->ini_path ? sp->ini_path : "-",
                     sp->symbol_path ? sp->symbol_path : "-",
                     sp->drivername ? sp->drivername : "-",
                     sp->symbolfile ? sp->symbolfile : "-",
                     sp->drivername_line, sp->symbolfile_line, sp->trusted);
    for (size_t i = 0; i < sp->n_languages; i++)
        rt_strbuf_printf(&b, "language %s line %u\n", sp->languages[i].id,
                         sp->languages[i].line);
    for (size_t i = 0; i < sp->n_symbols; i++) {
        const struct rt_provider_symbol *y = &sp->symbols[i];
        rt_strbuf_printf(&b, "%s %ld %u %d %u %u\n", y->symbol, y->offset,
                         y->define_line, y->is_object, y->object_line,
                         y->first_line);
        for (size_t j = 0; j < sp->n_languages; j++) {
            static const struct rt_provider_text none = {0};
            const struct rt_provider_text *t = rt_provider_symbol_text(y, j);
            if (!t)
                t = &none;
            rt_strbuf_printf(&b, "  %s %u %s %u\n",
                             t->name ? t->name : "-", t->name_line,
                             t->help ? t->help : "-", t->help_line);
        }
    }
    rt_strbuf_printf(&b, "files %zu %zu\n", c->inf.ini_len, c->inf.sym_len);
    return rt_strbuf_take(&b);
}

static void ini_teardown(void *ctx)
{
    struct ini_ctx *c = ctx;
    rt_provider_spec_free(&c->spec);
    rt_inf_files_free(&c->inf);
    rt_diags_free(&c->d);
    free(c->text);
    c->text = NULL;
}

/* Diagnostics themselves: many added (with and without a file, line
 * and symbol, so that the list grows several times), then each one
 * formatted; out of memory at either is said, never a list short of one
 * without a word. */
static int diags_run(void *ctx, struct rt_error *e)
{
    struct ini_ctx *c = ctx;
    for (unsigned i = 0; i < 40; i++)
        rt_diags_add(&c->d, i % 3 ? RT_ERROR : RT_WARNING,
                     i % 2 ? "x.ini" : NULL, i % 5 ? i : 0,
                     i % 4 ? "SYM" : NULL, "problem %u of %s", i, "forty");
    struct rt_strbuf b = {0};
    for (size_t i = 0; i < c->d.n && !c->d.out_of_memory; i++) {
        char *m = rt_diag_format(&c->d.v[i]);
        if (!m)
            rt_diags_nomem(&c->d);
        else
            rt_strbuf_printf(&b, "%s\n", m);
        free(m);
    }
    c->text = rt_strbuf_take(&b);
    if (c->d.out_of_memory || !c->text) {
        if (!c->d.errors)
            fail_msg("out of memory, not counted as an error");
        set_nomem(e);
        return -1;
    }
    return 0;
}

static char *diags_result(void *ctx)
{
    struct ini_ctx *c = ctx;
    struct rt_strbuf b = {0};
    put_diags(&b, &c->d);
    rt_strbuf_printf(&b, "%s", c->text);
    return rt_strbuf_take(&b);
}

static void run_ini_case(const struct oom_case *c, const char *path,
                         const char *codepage, int install)
{
    struct ini_ctx ctx = {.path = path, .codepage = codepage,
                          .install = install};
    if (!rt_ini_available())
        skip();
    if (sweep(c, &ctx) == 0)
        skip(); /* valgrind: no call reaches the hook */
}
#endif /* HAVE_ALLOC_HOOK */

/* Each case: its name, set-up, operation, result, what it writes. */
#define OOM_CASE(test, damaged, ...)                                           \
    OOM_TEST(test, {                                                           \
        static const struct oom_case c = {__VA_ARGS__, teardown, 0, 0};      \
        run_case(&c, damaged);                                                 \
    })

OOM_CASE(database_load, 0, "rt_database_load", store_setup, load_run,
         load_result, NULL)
OOM_CASE(audit_and_sort, 1, "rt_audit", db_setup, audit_run, audit_result,
         NULL)
OOM_CASE(install, 0, "rt_op_install", install_setup, install_run,
         install_result, store_dump)
OOM_CASE(uninstall, 0, "rt_op_uninstall", store_setup, uninstall_run,
         uninstall_result, store_dump)
OOM_CASE(repair, 1, "rt_op_repair", store_setup, repair_run, repair_result,
         store_dump)
OOM_CASE(repair_lowering_last_indices, 2, "rt_op_repair (Last Counter past "
         "any index)", store_setup, repair_run, repair_result, store_dump)
OOM_CASE(restore_reg, 0, "rt_op_restore_reg", restore_setup, restore_run,
         restore_result, store_dump)
OOM_CASE(backup_build_and_write, 0, "rt_engine_backup", db_setup,
         backup_run, bytes_result, NULL)
OOM_CASE(backup_parse, 0, "rt_psb_parse", parse_setup, parse_run,
         parse_result, NULL)
OOM_CASE(pair_list_encode, 0, "rt_pair_list_encode", list_setup, encode_run,
         bytes_result, NULL)
OOM_CASE(name_table_decode, 0, "rt_name_table_decode", decode_setup,
         decode_run, decode_result, NULL)
OOM_CASE(names_lookups, 0, "rt_op_name_index, rt_provider_names", names_setup,
         names_run, names_result, NULL)
OOM_CASE(change_set_as_text, 0, "rt_op_change_set_text", text_setup, text_run,
         text_result, NULL)
OOM_CASE(overlay_languages, 0, "the overlay's list_languages", overlay_setup,
         overlay_run, overlay_result, NULL)


#define INI_CASE(test, name, run, result, path, codepage, install)            \
    OOM_TEST(test, {                                                           \
        static const struct oom_case c = {name, ini_setup, run, result, NULL, \
                                          ini_teardown, 0, 0};                 \
        run_ini_case(&c, path, codepage, install);                             \
    })

/* Four languages, objects, aliases in its symbol file (UTF-8). */
INI_CASE(provider_load_four_languages, "rt_op_load_provider replication.ini",
         ini_run, ini_result, "ini-samples/replication.ini", NULL, 1)
/* UTF-16LE with a byte-order mark, a symbol file of many defines. */
INI_CASE(provider_load_utf16, "rt_op_load_provider transfer.ini", ini_run,
         ini_result, "ini-samples/transfer.ini", NULL, 1)
/* check-ini's load of an ANSI INI through its code page. */
INI_CASE(check_ini_codepage, "rt_op_load_ini sklad.cp1251.ini", ini_run,
         ini_result, "ini-samples/sklad.cp1251.ini", "1251", 0)
/* INIs with errors and with warnings: their diagnostics are the result. */
INI_CASE(check_ini_errors, "rt_op_load_ini duplicate_key.ini", ini_run,
         ini_result, "ini-samples/broken/duplicate_key.ini", NULL, 0)
INI_CASE(check_ini_alias_cycle, "rt_op_load_ini alias_cycle.ini", ini_run,
         ini_result, "ini-samples/broken/alias_cycle.ini", NULL, 0)
INI_CASE(check_ini_warnings, "rt_op_load_ini offset_gap.ini", ini_run,
         ini_result, "ini-samples/warnings/offset_gap.ini", NULL, 0)
INI_CASE(diagnostics, "rt_diags_add and rt_diag_format", diags_run,
         diags_result, NULL, NULL, 0)

/* A key of more values than are scanned (REGF_VALIDX_MIN) has them
 * indexed by name at the first lookup in a hive just opened: each
 * allocation of that failed in turn is said as out of memory, never a
 * crash nor a value taken for another (the index's own allocation failing
 * was once taken for success: a random mutant). */
OOM_TEST(value_index_built, {
    char path[600], err[256];
    const char *tmp = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/oom-validx-%ld.hiv", tmp ? tmp : "/tmp",
             (long)getpid());
    struct rt_regf *h;
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    for (uint32_t i = 0; i < 40; i++) {
        char n[16];
        snprintf(n, sizeof n, "v%02u", (unsigned)i);
        assert_int_equal(rt_regf_value_set(h, rt_regf_root(h), n,
                                           RT_REG_DWORD, &i, 4), 0);
    }
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    size_t failed = 0;
    for (unsigned long k = 1;; k++) {
        assert_int_equal(rt_regf_open(path, 0, &h, err, sizeof err), 0);
        uint32_t v = 0, type = 0, *got;
        uint8_t *data = NULL;
        size_t len = 0;
        alloc_calls = 0;
        alloc_fail_at = k;
        int rc = rt_regf_value_find(h, rt_regf_root(h), "V33", &v);
        unsigned long calls = alloc_calls;
        alloc_fail_at = 0;
        if (rc == 0) {
            assert_int_equal(rt_regf_value_read(h, v, &type, &data, &len), 0);
            assert_int_equal(len, 4);
            got = (uint32_t *)data;
            assert_int_equal(*got, 33);
            free(data);
        } else {
            assert_int_equal(rc, RT_REGF_ENOMEM);
            failed++;
        }
        rt_regf_close(h);
        if (calls == 0) {       /* under valgrind: no call reaches the hook */
            unlink(path);
            skip();
        }
        if (calls < k)
            break;
    }
    assert_true(failed > 0);
    unlink(path);
})

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(database_load),
        cmocka_unit_test(audit_and_sort),
        cmocka_unit_test(install),
        cmocka_unit_test(uninstall),
        cmocka_unit_test(repair),
        cmocka_unit_test(repair_lowering_last_indices),
        cmocka_unit_test(restore_reg),
        cmocka_unit_test(backup_build_and_write),
        cmocka_unit_test(backup_parse),
        cmocka_unit_test(pair_list_encode),
        cmocka_unit_test(name_table_decode),
        cmocka_unit_test(names_lookups),
        cmocka_unit_test(change_set_as_text),
        cmocka_unit_test(overlay_languages),
        cmocka_unit_test(provider_load_four_languages),
        cmocka_unit_test(provider_load_utf16),
        cmocka_unit_test(check_ini_codepage),
        cmocka_unit_test(check_ini_errors),
        cmocka_unit_test(check_ini_alias_cycle),
        cmocka_unit_test(check_ini_warnings),
        cmocka_unit_test(diagnostics),
        cmocka_unit_test(value_index_built),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
