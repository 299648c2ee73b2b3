/* The public API (lib/regtool.h): the engine's operations behind an
 * opaque handle, with the CLI's messages and report lines, so an
 * installer gets what regtool install would say without a shell. */
/* Marks the public functions for export from regtool.dll. */
#define REGTOOL_BUILD
#include "api/api.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/io.h"
#include "engine/audit.h"
#include "ops/ops.h"
#include "model/diag.h"
#include "model/printable.h"
#include "model/strbuf.h"
#include "platform/os.h"

/* The public codes are the library's own: callers compare either. */
_Static_assert(REGTOOL_ERR_FILE_NOT_FOUND == RT_ERR_FILE_NOT_FOUND &&
               REGTOOL_ERR_PATH_NOT_FOUND == RT_ERR_PATH_NOT_FOUND &&
               REGTOOL_ERR_ACCESS_DENIED == RT_ERR_ACCESS_DENIED &&
               REGTOOL_ERR_NOT_ENOUGH_MEMORY == RT_ERR_NOT_ENOUGH_MEMORY &&
               REGTOOL_ERR_INVALID_DATA == RT_ERR_INVALID_DATA &&
               REGTOOL_ERR_WRITE_PROTECT == RT_ERR_WRITE_PROTECT &&
               REGTOOL_ERR_WRITE_FAULT == RT_ERR_WRITE_FAULT &&
               REGTOOL_ERR_LOCK_VIOLATION == RT_ERR_LOCK_VIOLATION &&
               REGTOOL_ERR_NOT_SUPPORTED == RT_ERR_NOT_SUPPORTED &&
               REGTOOL_ERR_FILE_EXISTS == RT_ERR_FILE_EXISTS &&
               REGTOOL_ERR_INVALID_PARAMETER == RT_ERR_INVALID_PARAMETER &&
               REGTOOL_ERR_DISK_FULL == RT_ERR_DISK_FULL &&
               REGTOOL_ERR_CALL_NOT_IMPLEMENTED ==
                   RT_ERR_CALL_NOT_IMPLEMENTED &&
               REGTOOL_ERR_ALREADY_EXISTS == RT_ERR_ALREADY_EXISTS &&
               REGTOOL_ERR_BADDB == RT_ERR_BADDB &&
               REGTOOL_ERR_BADKEY == RT_ERR_BADKEY &&
               REGTOOL_ERR_CANCELLED == RT_ERR_CANCELLED &&
               REGTOOL_ERR_INTERNAL_ERROR == RT_ERR_INTERNAL_ERROR,
               "public error codes differ from model/error.h");
_Static_assert(REGTOOL_SEVERITY_ERROR == (int)RT_AUDIT_ERROR &&
               REGTOOL_SEVERITY_WARNING == (int)RT_AUDIT_WARNING &&
               REGTOOL_SEVERITY_INFO == (int)RT_AUDIT_INFO,
               "public severities differ from engine/audit.h");
_Static_assert(sizeof(((regtool_error *)0)->message) ==
                   sizeof(((struct rt_error *)0)->message),
               "regtool_error holds every message of struct rt_error");

struct regtool {
    struct rt_store *s;
    regtool_line_fn out;
    void *ctx;
};

struct regtool_findings {
    struct rt_findings f;
};

const char *regtool_version(void)
{
    return REGTOOL_VERSION;
}

static int set_error(regtool_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int set_error(regtool_error *err, int code, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        err->code = code;
        /* Escaped: the message names the tree's services and files. */
        char raw[sizeof err->message];
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        rt_text_printable(err->message, sizeof err->message, raw);
    }
    return code;
}

static void clear_error(regtool_error *err)
{
    if (err) {
        err->code = 0;
        err->message[0] = '\0';
    }
}

/* "WHAT: E's message", as the CLI prints a failed operation. */
static int fail(regtool_error *err, const char *what, const struct rt_error *e)
{
    int code = e->code ? e->code : RT_ERR_INTERNAL_ERROR;
    return set_error(err, code, "%s: %s", what, e->message);
}

/* Lines to the handle's output: TEXT, already escaped where it quotes
 * the tree (the change set's text), may hold several, split here so the
 * callback always gets one line without its newline. */
static void emit(regtool *rt, int kind, const char *text)
{
    if (!rt->out || !text)
        return;
    for (;;) {
        const char *nl = strchr(text, '\n');
        if (!nl) {
            if (*text)
                rt->out(rt->ctx, kind, text);
            return;
        }
        size_t n = (size_t)(nl - text);
        char *line = malloc(n + 1);
        if (!line)
            return;
        memcpy(line, text, n);
        line[n] = '\0';
        rt->out(rt->ctx, kind, line);
        free(line);
        text = nl + 1;
    }
}

/* TEXT as one line to the handle's output, escaped (model/printable.h):
 * the names in it come from the tree or the INI, and a newline or an ESC
 * sequence in one must neither forge a line nor act on a terminal. */
static void emit_line(regtool *rt, int kind, const char *text)
{
    if (!rt->out || !text || !*text)
        return;
    if (rt_text_is_printable(text)) {
        rt->out(rt->ctx, kind, text);
        return;
    }
    char *shown = rt_text_printable_dup(text);
    if (shown)
        rt->out(rt->ctx, kind, shown);
    free(shown);
}

static void emitf(regtool *rt, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void emitf(regtool *rt, int kind, const char *fmt, ...)
{
    if (!rt->out)
        return;
    char small[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        emit_line(rt, kind, small);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big)
        return;
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    emit_line(rt, kind, big);
    free(big);
}

static void emit_change_set(regtool *rt, const struct rt_change_set *cs)
{
    if (!rt->out)
        return;
    char *text = rt_op_change_set_text(cs);
    if (text)
        emit(rt, REGTOOL_LINE_REPORT, text);
    else
        emit(rt, REGTOOL_LINE_WARNING, "out of memory printing the change");
    free(text);
}

regtool *rt_api_wrap_store(struct rt_store *s)
{
    regtool *rt = calloc(1, sizeof *rt);
    if (rt)
        rt->s = s;
    return rt;
}

int regtool_open(const char *spec, const regtool_open_options *opt,
                 regtool **out, regtool_error *err)
{
    clear_error(err);
    if (!out)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_open: no place for the handle");
    *out = NULL;
    struct rt_error e = {0};
    int bad_spec;
    struct rt_store *s = rt_op_open_store(spec, opt, 0, &e, &bad_spec);
    if (!s)
        return set_error(err, e.code ? e.code : RT_ERR_INTERNAL_ERROR, "%s",
                         e.message);
    *out = rt_api_wrap_store(s);
    if (!*out) {
        s->ops->close(s);
        return set_error(err, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    return 0;
}

void regtool_set_output(regtool *rt, regtool_line_fn fn, void *ctx)
{
    if (rt) {
        rt->out = fn;
        rt->ctx = ctx;
    }
}

void regtool_close(regtool *rt)
{
    if (!rt)
        return;
    rt->s->ops->close(rt->s);
    free(rt);
}

static void put_ranges(regtool_ranges *r, uint32_t fc, uint32_t lc,
                       uint32_t fh, uint32_t lh)
{
    if (r) {
        r->first_counter = fc;
        r->last_counter = lc;
        r->first_help = fh;
        r->last_help = lh;
    }
}

/* The INI's diagnostics as lines, errors and warnings in file order, the
 * first error into ERR. */
static void report_diags(regtool *rt, struct rt_diags *d, regtool_error *err)
{
    int first = 1;
    rt_diags_sort(d);
    for (size_t i = 0; i < d->n; i++) {
        char *m = rt_diag_format(&d->v[i]);
        if (!m)
            continue;
        int is_error = d->v[i].severity == RT_ERROR;
        emit_line(rt,
                  is_error ? REGTOOL_LINE_INI_ERROR : REGTOOL_LINE_INI_WARNING,
                  m);
        if (is_error && first && err) {
            rt_text_printable(err->message, sizeof err->message, m);
            first = 0;
        }
        free(m);
    }
}

static void report_install(regtool *rt, const struct rt_install_plan *p,
                           const char *driver, int dry_run)
{
    char replacing[160] = "";
    if (p->replaced)
        snprintf(replacing, sizeof replacing,
                 " (replacing %u-%u/%u-%u%s)", p->old_first_counter,
                 p->old_last_counter, p->old_first_help, p->old_last_help,
                 p->kept_position ? ", same first indices"
                                  : ", moved to the top");
    emitf(rt, REGTOOL_LINE_REPORT, "%s %s: names %u-%u, help %u-%u%s",
          dry_run ? "would install" : "installed", driver, p->first_counter,
          p->last_counter, p->first_help, p->last_help, replacing);
    for (size_t i = 0; i < p->n_langs; i++)
        if (p->langs[i].fixed[0])
            emitf(rt, REGTOOL_LINE_REPORT, "  %-16s not written: %s",
                  p->langs[i].lang, p->langs[i].fixed);
        else
            emitf(rt, REGTOOL_LINE_REPORT,
                  "  %-16s %zu names, text from %s%s", p->langs[i].lang,
                  p->pairs_per_language, p->langs[i].source,
                  p->langs[i].created ? " (key created)" : "");
    for (size_t i = 0; i < p->n_missing; i++)
        emitf(rt, REGTOOL_LINE_WARNING,
              "warning: language %s is in the INI but not on this machine: "
              "not installed", p->missing[i]);
}

int regtool_install(regtool *rt, const char *ini,
                    const regtool_install_options *opt,
                    regtool_ranges *ranges, regtool_error *err)
{
    static const regtool_install_options none = {0, 0, NULL, 0, NULL, NULL,
                                                 NULL, NULL, 0};
    clear_error(err);
    if (!rt || !ini)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_install: no handle or no INI");
    if (!opt)
        opt = &none;
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    /* The INI and symbol file as validated, for the INF copy the same
     * commit makes where the store keeps side files. */
    struct rt_inf_files inf;
    struct rt_error e = {0};
    const struct rt_ini_load_options lo = {opt->codepage, NULL, opt->strict};
    enum rt_ini_load r = rt_op_load_provider(ini, &lo, &spec, &inf, &d, &e);
    if (r == RT_INI_OUT_OF_MEMORY) {
        /* Its diagnostics are no account of the INI: none is reported. */
        rt_diags_free(&d);
        return set_error(err, e.code, "install %s", e.message);
    }
    report_diags(rt, &d, err);
    size_t warnings = d.warnings;
    rt_diags_free(&d);
    if (r == RT_INI_REFUSED_STRICT) {
        rt_provider_spec_free(&spec);
        return set_error(err, RT_ERR_INVALID_DATA,
                         "%s: %zu warning%s, refused as strict; nothing was "
                         "written", ini, warnings, warnings == 1 ? "" : "s");
    }
    if (r != RT_INI_LOADED) {
        rt_provider_spec_free(&spec);
        /* The INI could not be read at all (said in its diagnostic). */
        int code = r == RT_INI_UNREADABLE ? RT_ERR_FILE_NOT_FOUND
                                          : RT_ERR_INVALID_DATA;
        if (err) {
            err->code = code;
            if (!err->message[0])
                snprintf(err->message, sizeof err->message,
                         "%s: not a valid provider INI", ini);
        }
        return code;
    }
    struct rt_install_options io = {
        .replace = opt->replace, .create_service = opt->create_service,
        .library = opt->library, .open = opt->open, .collect = opt->collect,
        .close = opt->close, .inf = &inf};
    struct rt_change_set cs;
    struct rt_install_plan plan;
    int rc = 0;
    if (rt_op_install(rt->s, &spec, &io, opt->dry_run, &cs, &plan, &e) != 0) {
        char what[300];
        snprintf(what, sizeof what, "install %s", ini);
        rc = fail(err, what, &e);
    } else {
        report_install(rt, &plan, spec.drivername, opt->dry_run);
        if (opt->dry_run)
            emit_change_set(rt, &cs);
        put_ranges(ranges, plan.first_counter, plan.last_counter,
                   plan.first_help, plan.last_help);
        rt_change_set_free(&cs);
        rt_install_plan_free(&plan);
    }
    rt_inf_files_free(&inf);
    rt_provider_spec_free(&spec);
    return rc;
}

int regtool_uninstall(regtool *rt, const char *drivername, int flags,
                      regtool_ranges *ranges, regtool_error *err)
{
    clear_error(err);
    if (!rt || !drivername)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_uninstall: no handle or no drivername");
    int dry_run = (flags & REGTOOL_DRY_RUN) != 0;
    struct rt_change_set cs;
    struct rt_uninstall_plan p;
    struct rt_error e = {0};
    if (rt_op_uninstall(rt->s, drivername, (flags & REGTOOL_FORCE) != 0,
                        dry_run, &cs, &p, &e) != 0) {
        char what[300];
        snprintf(what, sizeof what, "uninstall %s", drivername);
        return fail(err, what, &e);
    }
    emitf(rt, REGTOOL_LINE_REPORT,
          "%s %s: names %u-%u, help %u-%u (%zu names, %zu help texts in all "
          "languages)",
          dry_run ? "would uninstall" : "uninstalled", drivername,
          p.first_counter, p.last_counter, p.first_help, p.last_help,
          p.removed_names, p.removed_helps);
    emit_line(rt, REGTOOL_LINE_REPORT, p.counter.why);
    emit_line(rt, REGTOOL_LINE_REPORT, p.help.why);
    if (dry_run)
        emit_change_set(rt, &cs);
    put_ranges(ranges, p.first_counter, p.last_counter, p.first_help,
               p.last_help);
    rt_change_set_free(&cs);
    return 0;
}

int regtool_query(regtool *rt, const char *drivername, regtool_ranges *ranges,
                  regtool_error *err)
{
    clear_error(err);
    if (!rt || !drivername)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_query: no handle or no drivername");
    struct rt_service_info si;
    struct rt_error e = {0};
    if (rt_service_load(rt->s, drivername, &si, &e) != 0)
        return fail(err, "query", &e);
    int rc = 0;
    /* A range is the four values together: First Counter alone is what
     * an interrupted lodctr leaves, not an installed provider. */
    if (!si.has_perf)
        rc = set_error(err, RT_ERR_FILE_NOT_FOUND,
                       "no service '%s' with a Performance key", drivername);
    else if (!si.has_range || !si.has_last_counter || !si.has_first_help ||
             !si.has_last_help)
        rc = set_error(err, RT_ERR_FILE_NOT_FOUND,
                       "%s is not installed: its Performance key lacks "
                       "First/Last Counter/Help", drivername);
    else
        put_ranges(ranges, si.first_counter, si.last_counter, si.first_help,
                   si.last_help);
    rt_service_info_free(&si);
    return rc;
}

int regtool_audit(regtool *rt, regtool_findings **out, regtool_error *err)
{
    clear_error(err);
    if (out)
        *out = NULL;
    if (!rt || !out)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_audit: no handle or no place for findings");
    *out = calloc(1, sizeof **out);
    if (!*out)
        return set_error(err, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    struct rt_findings *f = &(*out)->f;
    /* As regtool audit, and a database that cannot be read a finding, not
     * a failure to audit; but no file tree here (the CLI looks at the
     * disk's files): the library checks that need none. */
    int failed = rt_op_audit(rt->s, NULL,
                             RT_OP_AUDIT_TABLES | RT_OP_AUDIT_LIBRARIES, 0,
                             f) < 0;
    rt_findings_sort(f);
    /* Each message whole, for regtool_finding_message to hand out. */
    failed |= rt_findings_spell_out(f) != 0;
    if (failed) {
        regtool_findings_free(*out);
        *out = NULL;
        return set_error(err, RT_ERR_NOT_ENOUGH_MEMORY,
                         "audit: out of memory");
    }
    return 0;
}

size_t regtool_findings_count(const regtool_findings *f)
{
    return f ? f->f.n : 0;
}

static const struct rt_finding *finding(const regtool_findings *f, size_t i)
{
    return f && i < f->f.n ? &f->f.v[i] : NULL;
}

const char *regtool_finding_id(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? rt_finding_id(x) : NULL;
}

int regtool_finding_severity(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? (int)rt_finding_severity(x) : -1;
}

const char *regtool_finding_language(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? x->language : NULL;
}

const char *regtool_finding_message(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? rt_finding_message_kept(x) : NULL;
}

const char *regtool_finding_symptom(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? rt_finding_symptom(x) : NULL;
}

const char *regtool_finding_fix(const regtool_findings *f, size_t i)
{
    const struct rt_finding *x = finding(f, i);
    return x ? rt_finding_fix(x) : NULL;
}

void regtool_findings_free(regtool_findings *f)
{
    if (f) {
        rt_findings_free(&f->f);
        free(f);
    }
}

int regtool_backup(regtool *rt, const char *file, int flags,
                   regtool_error *err)
{
    clear_error(err);
    if (!rt || !file || !*file)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_backup: no handle or no file");
    /* Read and written a language at a time (rt_engine_backup_stream). */
    struct rt_database db;
    struct rt_error e = {0};
    if (rt_database_load_with(rt->s, &db, &rt_db_load_no_tables, &e) != 0)
        return fail(err, "backup", &e);
    struct rt_backup_stats st;
    char *used = NULL;
    int en, rc = 0;
    if (rt_op_save_backup(rt->s, &db, file,
                           (flags & REGTOOL_FORCE) ? RT_OS_SAVE_REPLACE
                                                   : RT_OS_SAVE_NEW,
                           0, NULL, NULL, &st, &used, &en, &e) != 0) {
        if (e.code != RT_ERR_WRITE_FAULT)
            rc = fail(err, "backup", &e);
        else if (en == EEXIST)
            rc = set_error(err, RT_ERR_FILE_EXISTS,
                           "%s exists; nothing was saved (REGTOOL_FORCE "
                           "overwrites it)", file);
        else
            rc = set_error(err, rt_error_code_for_errno(en),
                           "cannot write %s: %s; nothing was saved", file,
                           rt_os_strerror(en));
    } else {
        emitf(rt, REGTOOL_LINE_REPORT,
              "saved %zu languages and %zu services to %s (%zu bytes)",
              st.n_langs, st.n_services, file, st.bytes);
    }
    free(used);
    rt_database_free(&db);
    return rc;
}

int regtool_restore(regtool *rt, const char *file, int flags,
                    regtool_error *err)
{
    clear_error(err);
    if (!rt || !file)
        return set_error(err, RT_ERR_INVALID_PARAMETER,
                         "regtool_restore: no handle or no file");
    /* As the CLI reads it: beneath its folder (often a tree's own
     * PerfStringBackup.INI), refused by its size before it is read. */
    struct rt_backup_file bf;
    struct rt_error re = {0};
    if (rt_op_read_backup_file(file, &bf, &re) != RT_BACKUP_READ_OK) {
        rt_backup_file_free(&bf);
        return set_error(err, re.code ? re.code : RT_ERR_INVALID_DATA, "%s",
                         re.message);
    }
    if (bf.kind != RT_BACKUP_FILE_PSB) {
        rt_backup_file_free(&bf);
        return set_error(err, RT_ERR_INVALID_DATA,
                         "%s is a .reg file, not a PerfStringBackup file; "
                         "nothing was written (regtool restore reads both)",
                         file);
    }
    struct rt_psb psb = bf.psb;
    int dry_run = (flags & REGTOOL_DRY_RUN) != 0;
    int force = (flags & REGTOOL_FORCE) != 0;
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    int rc = 0;
    if (rt_op_restore(rt->s, &psb, force, dry_run, &cs, &plan, &e) != 0) {
        char what[300];
        snprintf(what, sizeof what, "restore from %s", file);
        rc = fail(err, what, &e);
    } else {
        emitf(rt, REGTOOL_LINE_REPORT, "%s %s: %zu changes%s",
              dry_run ? "would restore from" : "restored from", file, cs.n,
              cs.n || dry_run ? "" : ", nothing to write");
        if (plan.base_differ)
            emitf(rt, REGTOOL_LINE_WARNING,
                  "%s: its base texts differ from the database's in %zu of "
                  "the %zu they both have: another machine's backup, %s",
                  file, plan.base_differ, plan.base_compared,
                  force ? "restored as asked"
                        : "which a restore refuses without REGTOOL_FORCE");
        if (dry_run)
            emit_change_set(rt, &cs);
        rt_restore_plan_free(&plan);
        rt_change_set_free(&cs);
    }
    rt_psb_free(&psb);
    return rc;
}
