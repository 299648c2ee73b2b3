/* regtool audit --fleet DIR: the backups, .reg exports and Windows trees
 * a fleet's configuration management collected under DIR, one entry per
 * machine, audited in one run. Each machine is audited in a worker
 * process of its own (rt_os_run_jobs, platform/os.h): the library keeps
 * process-wide state, a worker holds one machine's database at a time,
 * and one that crashes or is killed loses that machine alone. Workers
 * send back a compact result; this process counts the finding classes
 * and prints in machine order, so the output never depends on which
 * worker was first.
 *
 * DIR's contents come from many machines: each entry is stat'ed without
 * following links (DIR is confined), a link or special file is a machine
 * that could not be read, and only one level inside an entry's folder is
 * looked at. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform/os.h"

enum state { PENDING, CLEAN, WARNINGS, ERRORS, UNREADABLE };

struct machine {
    char *name;
    char *spec;         /* NULL when found unreadable by its entry */
    char *reason;       /* why it could not be read */
    char *json;         /* its --json line, until printed */
    enum state state;
};

/* A finding class: an id at a severity, on how many machines. */
struct klass {
    char *id;
    int severity;
    size_t machines, findings;
};

struct fleet {
    const char *dir;
    struct machine *m;
    size_t n;
    size_t *jobs;       /* job -> machine */
    size_t n_jobs;
    int json, libraries, progress;
    const struct rt_audit_options *opt;
    struct klass *k;
    size_t n_k;
    size_t printed, ended;
    int out_of_memory;
};

static int has_ext(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    return n > e && !strcasecmp(name + n - e, ext);
}

static char *joined(const char *a, const char *b, const char *c)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s", a, b, c);
    return s;
}

/* The store spec of FILE, a regular file of the machine's: NULL when its
 * name says neither. */
static const char *prefix_of(const char *file)
{
    return has_ext(file, ".ini") ? "psb:" : has_ext(file, ".reg") ? "reg:"
                                                                   : NULL;
}

/* The file of a machine's folder PATH to audit: one named
 * PerfStringBackup.INI (any case), else the one .ini or .reg file there.
 * Sets M's spec or reason. */
static int pick_in_folder(struct machine *m, const char *path)
{
    char **names;
    size_t count, n_cand = 0;
    const char *chosen = NULL, *backup = NULL;
    if (rt_os_list_dir(path, &names, &count) != 0)
        return (m->reason = joined("cannot list it: ",
                                   rt_os_strerror(errno), "")) ? 0 : -1;
    for (size_t i = 0; i < count; i++) {
        if (!strcasecmp(names[i], "PerfStringBackup.INI"))
            backup = names[i];
        else if (names[i][0] != '.' && prefix_of(names[i]) && ++n_cand == 1)
            chosen = names[i];
    }
    int r = 0;
    if (backup || n_cand == 1) {
        const char *file = backup ? backup : chosen;
        char *full = joined(path, "/", file);
        struct rt_os_stat st;
        if (!full)
            r = -1;
        else if (rt_os_stat(full, &st) != 0 || st.kind != RT_OS_FILE) {
            char *why = joined(file, ": ", st.kind == RT_OS_ABSENT
                                               ? rt_os_strerror(errno)
                                               : st.what);
            r = why ? 0 : -1;
            m->reason = why;
        } else {
            r = (m->spec = joined(prefix_of(file), full, "")) ? 0 : -1;
        }
        free(full);
    } else {
        m->reason = strdup(n_cand ? "a folder holding several .ini and .reg "
                                    "files and no PerfStringBackup.INI"
                                  : "a folder holding no Windows tree, "
                                    "PerfStringBackup.INI or .reg export");
        r = m->reason ? 0 : -1;
    }
    rt_os_free_list(names, count);
    return r;
}

/* What entry M (at PATH) is: its store spec, or why it cannot be read. */
static int classify(struct machine *m, const char *path)
{
    struct rt_os_stat st;
    if (rt_os_stat(path, &st) != 0)
        return (m->reason = strdup(rt_os_strerror(errno))) ? 0 : -1;
    if (st.kind == RT_OS_FILE) {
        const char *p = prefix_of(m->name);
        if (p)
            return (m->spec = joined(p, path, "")) ? 0 : -1;
        return (m->reason = strdup("neither a PerfStringBackup .ini, a .reg "
                                   "export nor a folder")) ? 0 : -1;
    }
    if (st.kind != RT_OS_DIR)
        return (m->reason = strdup(st.what ? st.what : "not a file"))
                   ? 0 : -1;
    char *config = rt_os_path_ci(path, "Windows/System32/config", 1);
    if (!config && errno == ENOENT)
        config = rt_os_path_ci(path, "System32/config", 1);
    if (config) {
        int dir = rt_os_is_dir(config);
        free(config);
        /* hive:A,B names two hive files: a comma in the folder's path
         * would have the second read from wherever B leads. */
        if (dir && strchr(path, ','))
            return (m->reason = strdup("a Windows tree whose path holds a "
                                       "comma, which a hive: store reads as "
                                       "SOFTWARE,SYSTEM: rename it"))
                       ? 0 : -1;
        if (dir)
            return (m->spec = joined("hive:", path, "")) ? 0 : -1;
    } else if (errno == EEXIST) {
        return (m->reason = strdup(rt_os_strerror(EEXIST))) ? 0 : -1;
    }
    return pick_in_folder(m, path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* DIR's entries, sorted, as machines (names starting with '.' are not
 * machines: a checkout's .git, an editor's files). */
static int discover(struct fleet *fl, const char *root)
{
    char **names;
    size_t count;
    if (rt_os_list_dir(root, &names, &count) != 0) {
        rt_cli_error("audit --fleet %s: cannot list it: %s", fl->dir,
                     rt_os_strerror(errno));
        return RT_EXIT_FAILURE;
    }
    if (count) /* an empty folder lists no array */
        qsort(names, count, sizeof *names, by_name);
    fl->m = calloc(count ? count : 1, sizeof *fl->m);
    fl->jobs = calloc(count ? count : 1, sizeof *fl->jobs);
    int rc = fl->m && fl->jobs ? RT_EXIT_OK : RT_EXIT_FAILURE;
    for (size_t i = 0; i < count && rc == RT_EXIT_OK; i++) {
        if (names[i][0] == '.')
            continue;
        struct machine *m = &fl->m[fl->n++];
        char *path = joined(root, "/", names[i]);
        if (!(m->name = strdup(names[i])) || !path || classify(m, path) != 0)
            rc = RT_EXIT_FAILURE;
        free(path);
        if (m->spec)
            fl->jobs[fl->n_jobs++] = fl->n - 1;
        else
            m->state = UNREADABLE;
    }
    rt_os_free_list(names, count);
    if (rc != RT_EXIT_OK)
        rt_cli_error("audit --fleet %s: out of memory", fl->dir);
    return rc;
}

/* --- in the worker ------------------------------------------------------ */

static int by_id(const void *a, const void *b)
{
    const struct rt_finding *x = *(const struct rt_finding *const *)a;
    const struct rt_finding *y = *(const struct rt_finding *const *)b;
    int c = strcmp(rt_finding_id(x), rt_finding_id(y));
    return c ? c : (int)rt_finding_severity(x) - (int)rt_finding_severity(y);
}

/* Writes TEXT on one line (a message may hold a newline). */
static void put_line(FILE *out, const char *tag, const char *text)
{
    fputs(tag, out);
    for (; *text; text++)
        fputc(*text == '\n' || *text == '\r' ? ' ' : *text, out);
    fputc('\n', out);
}

/* The result of one machine: "U reason", or "C errors warnings info",
 * then "F severity count id" per class and, with --json, "J line". */
static void put_result(struct fleet *fl, const struct machine *m,
                       const char *layout, const struct rt_findings *f,
                       FILE *out)
{
    const struct rt_finding **v = malloc((f->n ? f->n : 1) * sizeof *v);
    if (!v) {
        fputs("U out of memory\n", out);
        return;
    }
    for (size_t i = 0; i < f->n; i++) {
        v[i] = &f->v[i];
        if (!strcmp(rt_finding_id(v[i]), "store-unreadable")) {
            char *msg = rt_finding_message(v[i]);
            put_line(out, "U ", msg ? msg : "out of memory");
            free(msg);
            free(v);
            return;
        }
    }
    fprintf(out, "C %zu %zu %zu\n", f->errors, f->warnings, f->infos);
    qsort(v, f->n, sizeof *v, by_id);
    for (size_t i = 0, j; i < f->n; i = j) {
        for (j = i + 1; j < f->n && by_id(&v[i], &v[j]) == 0; j++)
            ;
        fprintf(out, "F %d %zu %s\n", (int)rt_finding_severity(v[i]), j - i,
                rt_finding_id(v[i]));
    }
    free(v);
    if (fl->json) {
        fputs("J ", out);
        rt_cli_findings_json_to(out, m->name, m->spec, layout, f);
        fputc('\n', out);
    }
}

static int audit_machine(void *ctx, size_t job, FILE *out)
{
    struct fleet *fl = ctx;
    const struct machine *m = &fl->m[fl->jobs[job]];
    struct rt_findings f = {0};
    char *layout = NULL;
    regtool_open_options o = rt_cli_open_options();
    int rc = rt_op_audit_spec(m->spec, &o, 1, fl->opt, fl->libraries,
                              &layout, &f);
    if (rc < 0)
        fputs("U out of memory; the audit is incomplete\n", out);
    else
        put_result(fl, m, layout, &f, out);
    free(layout);
    rt_findings_free(&f);
    return 0;
}

/* --- in this process ---------------------------------------------------- */

static int add_class(struct fleet *fl, const char *id, size_t id_len,
                     int severity, size_t findings)
{
    for (size_t i = 0; i < fl->n_k; i++)
        if (fl->k[i].severity == severity && strlen(fl->k[i].id) == id_len &&
            !memcmp(fl->k[i].id, id, id_len)) {
            fl->k[i].machines++;
            fl->k[i].findings += findings;
            return 0;
        }
    struct klass *k = realloc(fl->k, (fl->n_k + 1) * sizeof *k);
    if (!k)
        return -1;
    fl->k = k;
    k = &k[fl->n_k];
    if (!(k->id = malloc(id_len + 1)))
        return -1;
    memcpy(k->id, id, id_len);
    k->id[id_len] = '\0';
    k->severity = severity;
    k->machines = 1;
    k->findings = findings;
    fl->n_k++;
    return 0;
}

/* Takes a worker's result lines (DATA: NUL-terminated) into M. */
static int take_result(struct fleet *fl, struct machine *m, const char *data)
{
    size_t e = 0, w = 0, in = 0;
    int have = 0;
    for (const char *l = data; *l;) {
        const char *end = strchr(l, '\n');
        size_t len = end ? (size_t)(end - l) : strlen(l);
        int sev;
        size_t count;
        int off = 0;
        if (l[0] == 'U' && len >= 2) {
            free(m->reason);
            if (!(m->reason = joined("", "", l + 2)))
                return -1;
            m->reason[len - 2] = '\0';
            have = 2;
        } else if (l[0] == 'C' &&
                   sscanf(l, "C %zu %zu %zu", &e, &w, &in) == 3) {
            have = have ? have : 1;
        } else if (l[0] == 'F' && have == 1 &&
                   sscanf(l, "F %d %zu %n", &sev, &count, &off) == 2 && off &&
                   (size_t)off < len) {
            if (add_class(fl, l + off, len - (size_t)off, sev, count) != 0)
                return -1;
        } else if (l[0] == 'J' && len >= 2 && fl->json) {
            free(m->json);
            if (!(m->json = malloc(len - 1)))
                return -1;
            memcpy(m->json, l + 2, len - 2);
            m->json[len - 2] = '\0';
        }
        l += len + (end ? 1 : 0);
    }
    if (have == 2)
        m->state = UNREADABLE;
    else if (have == 1)
        m->state = e ? ERRORS : w ? WARNINGS : CLEAN;
    else if (!(m->reason = strdup("the audit ended without a result")))
        return -1;
    else
        m->state = UNREADABLE;
    return 0;
}

static void print_machine_json(const struct machine *m)
{
    if (m->state == UNREADABLE || !m->json) {
        fputs("{\"machine\":", stdout);
        rt_json_string(stdout, m->name);
        fputs(",\"error\":", stdout);
        rt_json_string(stdout, m->reason ? m->reason : "no result");
        fputs("}\n", stdout);
    } else {
        fputs(m->json, stdout);
        putchar('\n');
    }
}

/* Prints the machines whose turn has come: every one before them is
 * printed, so the order is the machines' whatever the workers' was. */
static void print_ready(struct fleet *fl)
{
    /* The progress line goes first, where both go to one terminal. */
    if (fl->progress && fl->json && fl->printed < fl->n &&
        fl->m[fl->printed].state != PENDING)
        fputs("\r\033[K", stderr);
    for (; fl->printed < fl->n && fl->m[fl->printed].state != PENDING;
         fl->printed++) {
        struct machine *m = &fl->m[fl->printed];
        if (fl->json)
            print_machine_json(m);
        free(m->json);
        m->json = NULL;
    }
}

static void machine_ended(void *ctx, size_t job, const char *data,
                          size_t len, int ended)
{
    struct fleet *fl = ctx;
    struct machine *m = &fl->m[fl->jobs[job]];
    char why[160];
    (void)len;
    if (ended > 0)
        snprintf(why, sizeof why, "the audit ended on signal %d", ended);
    else if (ended <= -1000)
        snprintf(why, sizeof why, "no worker could be started: %s",
                 rt_os_strerror(-1000 - ended));
    else if (ended < 0)
        snprintf(why, sizeof why, "the audit exited with status %d", -ended);
    if (ended != 0) {
        m->state = UNREADABLE;
        if (!(m->reason = strdup(why)))
            fl->out_of_memory = 1;
    } else if (take_result(fl, m, data) != 0) {
        fl->out_of_memory = 1;
        m->state = UNREADABLE;
    }
    fl->ended++;
    print_ready(fl);
    if (fl->progress) {
        fflush(stdout);
        fprintf(stderr, "\raudited %zu/%zu machines", fl->ended, fl->n_jobs);
    }
}

static int by_machines(const void *a, const void *b)
{
    const struct klass *x = a, *y = b;
    if (x->machines != y->machines)
        return x->machines > y->machines ? -1 : 1;
    int c = strcmp(x->id, y->id);
    return c ? c : x->severity - y->severity;
}

struct counts {
    size_t clean, warnings, errors, unreadable;
};

static struct counts count_states(const struct fleet *fl)
{
    struct counts c = {0, 0, 0, 0};
    for (size_t i = 0; i < fl->n; i++) {
        enum state s = fl->m[i].state;
        c.clean += s == CLEAN;
        c.warnings += s == WARNINGS;
        c.errors += s == ERRORS;
        c.unreadable += s == UNREADABLE;
    }
    return c;
}

static void print_summary_json(const struct fleet *fl, struct counts c)
{
    fputs("{\"fleet\":", stdout);
    rt_json_string(stdout, fl->dir);
    printf(",\"machines\":%zu,\"clean\":%zu,\"warnings\":%zu,\"errors\":%zu,"
           "\"unreadable\":%zu,\"findings\":[",
           fl->n, c.clean, c.warnings, c.errors, c.unreadable);
    for (size_t i = 0; i < fl->n_k; i++) {
        fputs(i ? ",{\"id\":" : "{\"id\":", stdout);
        rt_json_string(stdout, fl->k[i].id);
        fputs(",\"severity\":", stdout);
        rt_json_string(stdout, rt_audit_severity_name(fl->k[i].severity));
        printf(",\"machines\":%zu,\"findings\":%zu}", fl->k[i].machines,
               fl->k[i].findings);
    }
    fputs("]}\n", stdout);
}

static void print_summary_text(const struct fleet *fl, struct counts c)
{
    printf("%s: %zu machine%s: %zu clean, %zu with warnings, %zu with "
           "errors, %zu could not be read\n",
           rt_cli_shown(fl->dir), fl->n, fl->n == 1 ? "" : "s", c.clean,
           c.warnings, c.errors, c.unreadable);
    if (fl->n_k)
        printf("%-32s %-8s %8s %8s\n", "finding", "severity", "machines",
               "findings");
    for (size_t i = 0; i < fl->n_k; i++)
        printf("%-32s %-8s %8zu %8zu\n", rt_cli_shown(fl->k[i].id),
               rt_audit_severity_name(fl->k[i].severity), fl->k[i].machines,
               fl->k[i].findings);
    if (c.unreadable)
        puts("could not be read:");
    for (size_t i = 0; i < fl->n; i++)
        if (fl->m[i].state == UNREADABLE) {
            printf("  %s: ", rt_cli_shown(fl->m[i].name));
            puts(rt_cli_shown(fl->m[i].reason ? fl->m[i].reason
                                              : "no result"));
        }
}

static void fleet_free(struct fleet *fl)
{
    for (size_t i = 0; i < fl->n; i++) {
        free(fl->m[i].name);
        free(fl->m[i].spec);
        free(fl->m[i].reason);
        free(fl->m[i].json);
    }
    for (size_t i = 0; i < fl->n_k; i++)
        free(fl->k[i].id);
    free(fl->m);
    free(fl->jobs);
    free(fl->k);
}

/* Audits the workers' jobs and prints the results; the exit status. */
static int run_fleet(struct fleet *fl, unsigned jobs)
{
    rt_cli_catch_interrupts();
    fl->progress = rt_os_stderr_is_terminal();
    int r = rt_os_run_jobs(fl->n_jobs, jobs ? jobs : rt_os_cpu_count(),
                           audit_machine, machine_ended, fl);
    if (fl->progress && fl->n_jobs)
        fputs("\r\033[K", stderr);
    if (r == RT_OS_SIGINT || r == RT_OS_SIGTERM || r == RT_OS_SIGHUP) {
        fflush(stdout);
        rt_cli_error("audit --fleet: interrupted after %zu of %zu machines",
                     fl->ended, fl->n_jobs);
        return 128 + r;
    }
    if (r != 0 || fl->out_of_memory) {
        rt_cli_error("audit --fleet %s: %s", fl->dir,
                     r != 0 ? rt_os_strerror(errno) : "out of memory");
        return RT_EXIT_FAILURE;
    }
    print_ready(fl);
    if (fl->n_k) /* qsort takes no null array, even empty */
        qsort(fl->k, fl->n_k, sizeof *fl->k, by_machines);
    struct counts c = count_states(fl);
    if (fl->json)
        print_summary_json(fl, c);
    else
        print_summary_text(fl, c);
    return c.unreadable ? RT_EXIT_FAILURE
           : c.errors   ? RT_EXIT_INVALID
           : c.warnings ? RT_EXIT_WARN
                        : RT_EXIT_OK;
}

int rt_cli_audit_fleet(const char *dir, unsigned jobs, int json,
                       int libraries, const struct rt_audit_options *opt)
{
    struct fleet fl;
    memset(&fl, 0, sizeof fl);
    fl.dir = dir;
    fl.json = json;
    fl.libraries = libraries;
    fl.opt = opt;
    char *root = NULL, *path = rt_os_user_path(dir);
    /* Confined as a tree: an entry that is a link is seen as one, not
     * followed, nothing a machine's files name leads out of DIR, and a
     * file there that another name shares with the host is not read (a
     * machine's upload hard-linked to a host file); a DIR on a disk (a
     * folder of a Windows tree) is reached with the disk's links
     * refused. */
    if (!path || rt_os_confine_on_disk(path, &root) != 0) {
        rt_cli_error("audit --fleet %s: %s", dir,
                     path ? rt_os_strerror(errno) : "out of memory");
        free(path);
        return RT_EXIT_FAILURE;
    }
    free(path);
    int rc = discover(&fl, root);
    if (rc == RT_EXIT_OK)
        rc = run_fleet(&fl, jobs);
    rt_os_unconfine(root);
    free(root);
    fleet_free(&fl);
    return rc;
}
