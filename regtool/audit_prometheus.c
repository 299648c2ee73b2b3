/* regtool audit --format prometheus: the audit as Prometheus' text
 * exposition format, for node_exporter's and windows_exporter's textfile
 * collectors (--textfile FILE, replaced whole so that a collector never
 * reads half a file). Every value comes from one read of each store:
 * its findings counted by class, and the gauges the library reads on the
 * same open store (ops.h, rt_name_db_gauges). The families are written
 * one after the other, each store's samples inside each (the format
 * wants a family's samples together). */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "platform/os.h"

struct audited {
    const char *spec;
    struct rt_findings f;
    struct rt_name_db_gauges g;
    int success;                /* the store and its database were read */
    /* Memory ran out: its findings are not all of them, so they are not
     * given as counts (a count of 0 errors would read as a clean audit). */
    int incomplete;
    long long when;             /* seconds since the epoch, audit's end */
};

/* The text in memory: nothing is written until it is whole. */
struct text {
    char *s;
    size_t len, cap;
    int failed;
};

static void put_bytes(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *ns = realloc(t->s, cap);
        if (!ns) {
            t->failed = 1;
            return;
        }
        t->s = ns;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void put(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof buf)
        t->failed = 1;
    else
        put_bytes(t, buf, (size_t)n);
}

/* A label value from a hostile registry: first its visible form, as
 * regtool's text output shows it (model/printable.h: controls, invisible
 * characters and bytes of no valid UTF-8 as \xHH, \uXXXX), so the value
 * is valid UTF-8 and a dashboard shows what a terminal would; then the
 * exposition format's escapes of a backslash, a double quote and a
 * newline. */
static void put_label_value(struct text *t, const char *s)
{
    while (*s) {
        char vis[RT_PRINTABLE_MAX];
        size_t used, n = rt_printable_char(s, vis, &used);
        for (size_t i = 0; i < n; i++) {
            if (vis[i] == '\\' || vis[i] == '"')
                put_bytes(t, "\\", 1);
            if (vis[i] == '\n')
                put_bytes(t, "\\n", 2);
            else
                put_bytes(t, &vis[i], 1);
        }
        s += used;
    }
}

static void family(struct text *t, const char *name, const char *help)
{
    put_bytes(t, "# HELP ", 7);
    put_bytes(t, name, strlen(name));
    put_bytes(t, " ", 1);
    put_bytes(t, help, strlen(help));
    put_bytes(t, "\n# TYPE ", 8);
    put_bytes(t, name, strlen(name));
    put_bytes(t, " gauge\n", 7);
}

/* NAME{store="SPEC",K1="V1",...} VALUE: the store label only when STORE
 * is not NULL (several stores audited); the pairs end with a NULL. */
static void sample(struct text *t, const char *name, const char *store,
                   unsigned long long value, ...)
{
    va_list ap;
    const char *sep = "{";
    put_bytes(t, name, strlen(name));
    if (store) {
        put(t, "%sstore=\"", sep);
        put_label_value(t, store);
        put_bytes(t, "\"", 1);
        sep = ",";
    }
    va_start(ap, value);
    for (const char *k; (k = va_arg(ap, const char *));) {
        const char *v = va_arg(ap, const char *);
        put(t, "%s%s=\"", sep, k);
        put_label_value(t, v ? v : "");
        put_bytes(t, "\"", 1);
        sep = ",";
    }
    va_end(ap);
    put(t, "%s %llu\n", *sep == ',' ? "}" : "", value);
}

static int finding_cmp(const void *a, const void *b)
{
    const struct rt_finding *x = *(const struct rt_finding *const *)a;
    const struct rt_finding *y = *(const struct rt_finding *const *)b;
    int c = strcmp(rt_finding_id(x), rt_finding_id(y));
    if (c)
        return c;
    c = strcmp(x->language ? x->language : "", y->language ? y->language : "");
    if (c)
        return c;
    return (int)rt_finding_severity(x) - (int)rt_finding_severity(y);
}

static int same_class(const struct rt_finding *x, const struct rt_finding *y)
{
    return finding_cmp(&x, &y) == 0;
}

/* regtool_audit_findings: one series per id, language and severity,
 * counting the findings of that class. */
static void findings_by_class(struct text *t, const char *name,
                              const struct audited *a, const char *store)
{
    if (a->incomplete)
        return;
    const struct rt_finding **v = malloc((a->f.n ? a->f.n : 1) * sizeof *v);
    if (!v) {
        t->failed = 1;
        return;
    }
    for (size_t i = 0; i < a->f.n; i++)
        v[i] = &a->f.v[i];
    qsort(v, a->f.n, sizeof *v, finding_cmp);
    for (size_t i = 0, j; i < a->f.n; i = j) {
        for (j = i + 1; j < a->f.n && same_class(v[i], v[j]); j++)
            ;
        sample(t, name, store, j - i, "id",
               rt_finding_id(v[i]), "severity",
               rt_audit_severity_name(rt_finding_severity(v[i])), "language",
               v[i]->language, (const char *)NULL);
    }
    free(v);
}

/* Each family's samples of one store A (STORE: its label, or NULL). */
typedef void samples_fn(struct text *t, const char *name,
                        const struct audited *a, const char *store);

static void success(struct text *t, const char *name, const struct audited *a,
                    const char *store)
{
    sample(t, name, store, (unsigned)a->success, (const char *)NULL);
}

static void timestamp(struct text *t, const char *name,
                      const struct audited *a, const char *store)
{
    sample(t, name, store, (unsigned long long)a->when, (const char *)NULL);
}

static void by_severity(struct text *t, const char *name,
                        const struct audited *a, const char *store)
{
    if (a->incomplete)
        return;
    sample(t, name, store, a->f.errors, "severity",
           rt_audit_severity_name(RT_AUDIT_ERROR), (const char *)NULL);
    sample(t, name, store, a->f.warnings, "severity",
           rt_audit_severity_name(RT_AUDIT_WARNING), (const char *)NULL);
    sample(t, name, store, a->f.infos, "severity",
           rt_audit_severity_name(RT_AUDIT_INFO), (const char *)NULL);
}

/* The gauges below have no sample for a store whose database could not
 * be read. */
static void last_index(struct text *t, const char *name,
                       const struct audited *a, const char *store)
{
    if (!a->g.read)
        return;
    sample(t, name, store, a->g.last_counter, "kind", "counter",
           (const char *)NULL);
    sample(t, name, store, a->g.last_help, "kind", "help", (const char *)NULL);
}

static void base_index(struct text *t, const char *name,
                       const struct audited *a, const char *store)
{
    if (a->g.read)
        sample(t, name, store, a->g.base_index, (const char *)NULL);
}

static void highest(struct text *t, const char *name, const struct audited *a,
                    const char *store)
{
    if (!a->g.read)
        return;
    sample(t, name, store, a->g.highest[RT_TABLE_COUNTER], "kind", "counter",
           (const char *)NULL);
    sample(t, name, store, a->g.highest[RT_TABLE_HELP], "kind", "help",
           (const char *)NULL);
}

static void providers(struct text *t, const char *name,
                      const struct audited *a, const char *store)
{
    if (a->g.read)
        sample(t, name, store, a->g.providers, (const char *)NULL);
}

static void n_disabled(struct text *t, const char *name,
                       const struct audited *a, const char *store)
{
    if (a->g.read)
        sample(t, name, store, a->g.n_disabled, (const char *)NULL);
}

static void disabled(struct text *t, const char *name,
                     const struct audited *a, const char *store)
{
    for (size_t k = 0; k < a->g.n_disabled; k++)
        sample(t, name, store, 1, "provider", a->g.disabled[k],
               (const char *)NULL);
}

/* Not regtool_last_counter: a name holding "_counter" reads as a
 * counter's (promtool check metrics says so); Last Counter and Last
 * Help are one family, as the highest indices are, so that a rule
 * compares the two label for label. */
static const struct {
    const char *name, *help;
    samples_fn *samples;
} families[] = {
    {"regtool_audit_success",
     "1 when the store and its name database could be read, 0 when not "
     "(the reason is on regtool's standard error and in the finding "
     "store-unreadable or database-unreadable).", success},
    {"regtool_audit_timestamp_seconds",
     "When the audit of the store ended, in seconds since the Unix epoch.",
     timestamp},
    {"regtool_audit_findings_by_severity",
     "Findings of the audit of each severity, 0 included.", by_severity},
    {"regtool_audit_findings",
     "Findings of the audit by class: its stable id, severity and language "
     "(empty when it concerns none).", findings_by_class},
    {"regtool_last_index",
     "Perflib's Last Counter (kind=\"counter\") and Last Help "
     "(kind=\"help\").", last_index},
    {"regtool_base_index", "Perflib's Base Index.", base_index},
    {"regtool_highest_index_in_use",
     "The highest index in any language's Counter (kind=\"counter\") or "
     "Help (kind=\"help\") table.", highest},
    {"regtool_providers_installed", "Services with a Performance key.",
     providers},
    {"regtool_providers_disabled",
     "Providers whose Disable Performance Counters is not 0.", n_disabled},
    {"regtool_provider_disabled",
     "1 for each provider whose Disable Performance Counters is not 0.",
     disabled},
};

/* The message of the finding that says why SPEC could not be read. */
static void say_unread(const struct audited *a)
{
    for (size_t i = 0; i < a->f.n; i++) {
        const char *id = rt_finding_id(&a->f.v[i]);
        if (strcmp(id, "store-unreadable") && strcmp(id, "database-unreadable"))
            continue;
        char *m = rt_finding_message(&a->f.v[i]);
        rt_cli_error("audit of %s: %s", a->spec, m ? m : "(out of memory)");
        free(m);
        return;
    }
    rt_cli_error("audit of %s: out of memory; findings incomplete", a->spec);
}

/* Writes T to TEXTFILE through a temporary file beside it, synced and
 * renamed over it (platform/os.h, rt_os_replace_file): a collector reads
 * the old file or the new one, never a part; on failure the temporary
 * file is removed and TEXTFILE is left as it was. */
static int write_out(const struct text *t, const char *textfile)
{
    if (!textfile) {
        fwrite(t->s, 1, t->len, stdout);
        return RT_EXIT_OK;
    }
    char *path = rt_os_user_path(textfile);
    if (!path || rt_os_replace_file(path, t->s, t->len, 0644) != 0) {
        rt_cli_error("--textfile %s: cannot write it: %s; it is left as it "
                     "was", textfile, rt_os_strerror(path ? errno : ENOMEM));
        free(path);
        return RT_EXIT_FAILURE;
    }
    free(path);
    return RT_EXIT_OK;
}

int rt_cli_audit_prometheus(char **specs, size_t n_specs, int many,
                            const struct rt_audit_options *opt, int libraries,
                            const char *textfile)
{
    struct audited *a = calloc(n_specs ? n_specs : 1, sizeof *a);
    struct text t = {0};
    size_t n = 0;
    int rc = RT_EXIT_OK, incomplete = 0;
    const char *own = NULL;     /* the store TEXTFILE is a file of */
    if (!a) {
        rt_cli_error("out of memory");
        return RT_EXIT_FAILURE;
    }
    for (size_t i = 0; i < n_specs; i++) {
        /* A store named twice would give each series twice. */
        size_t k = 0;
        while (k < n && strcmp(a[k].spec, specs[i]))
            k++;
        if (k < n)
            continue;
        struct audited *x = &a[n++];
        regtool_open_options o = rt_cli_open_options();
        char *layout = NULL;
        x->spec = specs[i];
        int owns = 0;
        int r = rt_op_audit_spec_gauges(x->spec, &o, rt_cli_options()->read_once,
                                        opt, libraries, &layout, &x->f, &x->g,
                                        textfile, &owns);
        if (owns && !own) {
            own = x->spec;
            rt_cli_say_own_file("--textfile", textfile);
        }
        free(layout);
        x->when = (long long)time(NULL);
        x->success = r == 0 && x->g.read;
        x->incomplete = r < 0;
        incomplete |= x->incomplete;
        if (!x->success)
            say_unread(x);
        int code = x->f.errors ? RT_EXIT_INVALID
                 : x->f.warnings ? RT_EXIT_WARN : RT_EXIT_OK;
        if (code == RT_EXIT_INVALID || (code == RT_EXIT_WARN && rc == RT_EXIT_OK))
            rc = code;
    }
    for (size_t k = 0; k < sizeof families / sizeof families[0]; k++) {
        family(&t, families[k].name, families[k].help);
        for (size_t i = 0; i < n; i++)
            families[k].samples(&t, families[k].name, &a[i],
                                many ? a[i].spec : NULL);
    }
    if (own) {
        rc = RT_EXIT_USAGE;
    } else if (t.failed) {
        rt_cli_error("out of memory: no metrics written");
        rc = RT_EXIT_FAILURE;
    } else {
        /* Beneath a store's folder a link its writer planted is refused,
         * as while the store was open: the stores are closed by now. */
        char *(*held)[2] = calloc(n ? n : 1, sizeof *held);
        size_t *n_held = calloc(n ? n : 1, sizeof *n_held);
        size_t unheld = n;
        for (size_t i = 0; held && n_held && textfile && i < n; i++)
            if (rt_op_hold_spec_folders(a[i].spec, held[i], &n_held[i]) != 0 &&
                unheld == n) {
                unheld = i;
                rt_cli_error("%s: its folder cannot be held for the write "
                             "(%s): no metrics written",
                             rt_cli_shown(a[i].spec), rt_os_strerror(errno));
            }
        if (!held || !n_held) {
            rt_cli_error("out of memory: no metrics written");
            rc = RT_EXIT_FAILURE;
        } else if (unheld < n) {
            /* Beneath a folder not held, a planted link would be
             * followed for the write. */
            rc = RT_EXIT_FAILURE;
        } else if (write_out(&t, textfile) != RT_EXIT_OK) {
            rc = RT_EXIT_FAILURE;
        }
        for (size_t i = 0; held && n_held && i < n; i++)
            rt_op_release_spec_folders(held[i], n_held[i]);
        free(held);
        free(n_held);
    }
    for (size_t i = 0; i < n; i++) {
        rt_findings_free(&a[i].f);
        rt_name_db_gauges_free(&a[i].g);
    }
    free(a);
    free(t.s);
    /* An audit memory cut short is no verdict, clean or not: the file
     * says so by its success 0 and the counts it leaves out. */
    return own ? RT_EXIT_USAGE : incomplete ? RT_EXIT_FAILURE : rc;
}
