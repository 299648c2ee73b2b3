/* regtool audit: what is wrong with a name database, and what it does to
 * the programs that read it. Read-only. One store (the global --store),
 * or several given as arguments or in a file, each a JSON object of one
 * array; a store that cannot be opened is a finding, not an abort. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] audit [--json | --format text|json|prometheus]\n"
    "       [--textfile FILE] [--lang L] [--libraries] [--stores-from FILE]\n"
    "       [STORE ...]\n"
    "       regtool audit --fleet DIR [--jobs N] [--json] [--lang L] "
    "[--libraries]\n"
    "\n"
    "Checks the name database and reports each problem with a stable id,\n"
    "its severity, the language and indices involved, what it does to the\n"
    "programs that read performance data, and the regtool command that\n"
    "fixes it. Writes nothing to the store.\n"
    "\n"
    "  --json              {\"store\",\"layout\",\"findings\":[{\"id\",\"severity\",\n"
    "                      \"language\",\"indices\",\"texts\",\"message\",\"symptom\",\n"
    "                      \"fix\"}],\"summary\":{\"errors\",\"warnings\",\"info\"}};\n"
    "                      with several stores, an array of them\n"
    "  --format F          text (the default), json (as --json) or prometheus:\n"
    "                      Prometheus' text exposition format (findings by\n"
    "                      id, severity and language; Last Counter, Last\n"
    "                      Help, Base Index, the highest index in use,\n"
    "                      providers and disabled providers;\n"
    "                      regtool_audit_success, 0 when a store could not be\n"
    "                      read); with several stores a store label\n"
    "  --textfile FILE     the prometheus format written to FILE through a\n"
    "                      temporary file renamed over it (node_exporter's and\n"
    "                      windows_exporter's textfile collectors); FILE is\n"
    "                      left as it was when it cannot be written\n"    "  --lang L            only language L's findings\n"
    "  --libraries         only who gets loaded: each provider's Library,\n"
    "                      Open/Collect/Close, where the DLL is and, in a\n"
    "                      Windows tree, whether it exists there\n"
    "  --stores-from FILE  store specs, one a line, as well as STORE ...\n"
    "  STORE ...           audit these stores (hive:DIR, ...) instead of --store\n"
    "  --fleet DIR         one machine per entry of DIR: a .ini (PerfStringBackup),\n"
    "                      a .reg export, or a folder holding a Windows tree\n"
    "                      (System32/config), a PerfStringBackup.INI or one\n"
    "                      .ini or .reg file; audited in worker processes; a\n"
    "                      table of findings by machines, those that could\n"
    "                      not be read and why; --json: a line per machine\n"
    "                      {\"machine\",\"store\",...} or {\"machine\",\"error\"},\n"
    "                      then a summary line {\"fleet\",\"machines\",...}\n"
    "  --jobs N            --fleet's workers (default: one per processor)\n"
    "\n"
    "Exit status: 0 clean (info only); 1 warnings; 2 errors (the worst of\n"
    "every store); 3 memory ran out (the audit incomplete), --textfile\n"
    "cannot be written, or with --fleet a machine could not be read; 64\n"
    "bad command line.\n";

struct result {
    const char *spec;
    char *layout;            /* NULL when the store could not be opened */
    struct rt_findings f;
};

/* 0, or -1 when memory ran out (said): the audit of R is incomplete. */
static int audit_one(struct result *r, const struct rt_audit_options *opt,
                     int libraries)
{
    regtool_open_options o = rt_cli_open_options();
    int rc = rt_op_audit_spec(r->spec, &o, rt_cli_options()->read_once, opt,
                              libraries, &r->layout, &r->f);
    if (rc == -2)
        rt_cli_error("audit of %s: out of memory", r->spec);
    else if (rc < 0)
        rt_cli_error("audit of %s: out of memory; findings incomplete",
                     r->spec);
    return rc < 0 ? -1 : 0;
}

/* The store specs of FILE, one a line; blank lines and '#' comments
 * skipped. Appends to *V. */
static int read_specs(const char *file, char ***v, size_t *n)
{
    uint8_t *data;
    size_t len;
    /* Beneath its folder, confined: a list kept in a tree someone else
     * wrote may be a link to a host file, refused as every link there. */
    if (rt_os_read_file_beneath(file, 1u << 20, &data, &len) != 0) {
        rt_cli_error("--stores-from %s: cannot read it: %s", file,
                     rt_os_strerror(errno));
        return -1;
    }
    char *text = (char *)data, *save = NULL;
    char *copy = malloc(len + 1);
    if (!copy) {
        free(data);
        return -1;
    }
    memcpy(copy, text, len);
    copy[len] = '\0';
    free(data);
    for (char *line = strtok_r(copy, "\r\n", &save); line;
         line = strtok_r(NULL, "\r\n", &save)) {
        while (*line == ' ' || *line == '\t')
            line++;
        if (!*line || *line == '#')
            continue;
        char **nv = realloc(*v, (*n + 1) * sizeof *nv);
        if (!nv || !(nv[*n] = strdup(line))) {
            if (nv)
                *v = nv;
            free(copy);
            return -1;
        }
        *v = nv;
        (*n)++;
    }
    free(copy);
    return 0;
}

/* Audits the N stores SPECS one after the other, printing each one's
 * findings (text, or JSON: an array when MANY); the exit status of the
 * worst. */
static int audit_stores(char **specs, size_t n_specs, int many, int json,
                        const struct rt_audit_options *opt, int libraries)
{
    struct result *r = calloc(n_specs, sizeof *r);
    if (!r)
        return RT_EXIT_FAILURE;
    int rc = RT_EXIT_OK, incomplete = 0;
    if (json && many)
        putchar('[');
    for (size_t i = 0; i < n_specs; i++) {
        r[i].spec = specs[i];
        incomplete |= audit_one(&r[i], opt, libraries) != 0;
        if (json) {
            if (i)
                putchar(',');
            rt_cli_findings_json(r[i].spec, r[i].layout, &r[i].f);
        } else {
            if (i)
                putchar('\n');
            rt_cli_findings_text(r[i].spec, r[i].layout, &r[i].f);
        }
        int code = r[i].f.errors ? RT_EXIT_INVALID
                 : r[i].f.warnings ? RT_EXIT_WARN : RT_EXIT_OK;
        if (code == RT_EXIT_INVALID || (code == RT_EXIT_WARN && rc == RT_EXIT_OK))
            rc = code;
        free(r[i].layout);
        rt_findings_free(&r[i].f);
    }
    if (json)
        fputs(many ? "]\n" : "\n", stdout);
    free(r);
    /* An audit memory cut short is no verdict, clean or not. */
    return incomplete ? RT_EXIT_FAILURE : rc;
}

/* Whether operand A names a store (hive:DIR, ...): one that names none
 * ("", hive:, reg:) is a usage error, as diff's and --store's are, not
 * an unreadable store (review 42 R42-8). */
static int known_store(const char *a)
{
    struct rt_store_spec p;
    if (rt_op_parse_spec(a, &p) == 0)
        return 1;
    rt_cli_error("audit: unknown store '%s': use hive:DIR, "
                 "hive:SOFTWARE,SYSTEM, live, psb:FILE or reg:FILE",
                 rt_cli_shown(a));
    return 0;
}

/* 1, said, when FORMAT is none audit writes, TEXTFILE is given with
 * another, or TEXTFILE names one of the N lists of stores LISTS (review
 * 42 R42-2: the next scheduled run read the metrics written over its
 * list as its stores). */
static int refused_outputs(const char *format, const char *textfile,
                           const char *const *lists, size_t n)
{
    if (format && strcmp(format, "text") && strcmp(format, "json") &&
        strcmp(format, "prometheus")) {
        rt_cli_error("audit: --format %s: use text, json or prometheus", format);
        return 1;
    }
    /* --textfile is for the textfile collectors, which read only the
     * prometheus format. */
    if (textfile && format && strcmp(format, "prometheus")) {
        rt_cli_error("audit: --textfile writes the prometheus format, not %s",
                     format);
        return 1;
    }
    const struct rt_cli_file out = {"--textfile", textfile, 0, 0};
    for (size_t k = 0; k < n; k++) {
        const struct rt_cli_file list = {"--stores-from", lists[k], 1, 0};
        if (rt_cli_refuse_one_file(&out, &list))
            return 1;
    }
    return 0;
}

int cmd_audit(int argc, char **argv)
{
    rt_cli_options()->read_once = 1;    /* each table checked once */
    int json = 0, prometheus = 0, libraries = 0;
    const char *textfile = NULL, *format = NULL;
    struct rt_audit_options opt = {0};
    char **specs = NULL;
    size_t n_specs = 0;
    const char *fleet = NULL;
    long jobs = 0;
    int rc = RT_EXIT_USAGE;
    /* Each --stores-from FILE, an input --textfile must not name. */
    const char **lists = calloc((size_t)argc, sizeof *lists);
    size_t n_lists = 0;
    if (!lists) {
        rt_cli_error("audit: out of memory");
        return RT_EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
            format = "json";
        } else if (!strcmp(a, "--libraries")) {
            libraries = 1;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            rc = RT_EXIT_OK;
            goto out;
        } else if (!strcmp(a, "--fleet") || !strcmp(a, "--jobs")) {
            char *end = NULL;
            if (i + 1 >= argc) {
                rt_cli_error("audit: %s needs a value", a);
                goto out;
            }
            if (a[2] == 'f')
                fleet = argv[++i];
            else if ((jobs = strtol(argv[++i], &end, 10)) < 1 || jobs > 1024 ||
                     *end) {
                rt_cli_error("audit: --jobs takes a number from 1 to 1024");
                goto out;
            }
        } else if (!strcmp(a, "--lang") || !strcmp(a, "--stores-from") ||
                   !strcmp(a, "--format") || !strcmp(a, "--textfile")) {
            if (i + 1 >= argc) {
                rt_cli_error("audit: %s needs a value", a);
                goto out;
            }
            if (!strcmp(a, "--lang"))
                opt.language = argv[++i];
            else if (!strcmp(a, "--format"))
                format = argv[++i];
            else if (!strcmp(a, "--textfile"))
                textfile = argv[++i];
            else if (read_specs(lists[n_lists++] = argv[++i], &specs,
                                &n_specs) != 0)
                goto out;
        } else if (a[0] == '-' && a[1]) {
            rt_cli_error("audit: unknown option '%s'", a);
            fputs(usage_text, stderr);
            goto out;
        } else if (!known_store(a)) {
            goto out;
        } else {
            char **nv = realloc(specs, (n_specs + 1) * sizeof *nv);
            if (!nv || !(nv[n_specs] = strdup(a))) {
                if (nv)
                    specs = nv;
                rc = RT_EXIT_FAILURE;
                goto out;
            }
            specs = nv;
            n_specs++;
        }
    }
    if (refused_outputs(format, textfile, lists, n_lists))
        goto out;
    json = format && !strcmp(format, "json");
    prometheus = textfile || (format && !strcmp(format, "prometheus"));
    if (fleet || jobs) {
        if (!fleet || n_specs || prometheus) {
            rt_cli_error("audit: %s", !fleet ? "--jobs goes with --fleet"
                         : n_specs ? "--fleet audits DIR's machines, not "
                                     "stores given too"
                                   : "--fleet writes text or --json, not the "
                                     "prometheus format");
            goto out;
        }
        rc = rt_cli_audit_fleet(fleet, (unsigned)jobs, json, libraries, &opt);
        goto out;
    }
    int many = n_specs > 0;
    if (!many) {
        const char *spec = rt_cli_store_spec();
        if (!spec) {
            int code;
            rt_cli_open_store(&code);   /* says why there is no store */
            rc = code;
            goto out;
        }
        if (!(specs = malloc(sizeof *specs)) || !(specs[0] = strdup(spec))) {
            rc = RT_EXIT_FAILURE;
            goto out;
        }
        n_specs = 1;
    }
    if (prometheus) {
        rc = rt_cli_audit_prometheus(specs, n_specs, many, &opt, libraries,
                                     textfile);
        goto out;
    }
    rc = audit_stores(specs, n_specs, many, json, &opt, libraries);
out:
    for (size_t i = 0; i < n_specs; i++)
        free(specs[i]);
    free(specs);
    free(lists);
    return rc;
}
