/* regtool repair: fixes what needs no guessing in one atomic commit,
 * after saving the database as it is (a PerfStringBackup.INI, as regtool
 * backup writes it), and says what it changed and what it left. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] repair [--dry-run] [--prune-orphans] "
    "[--enable-disabled]\n"
    "         [--from-ini DIR] [--backup FILE] [--emit-reg FILE]\n"
    "\n"
    "Saves the database (as regtool backup does; a damaged table's readable\n"
    "pairs, all of them), then fixes in one atomic commit what needs no\n"
    "guessing: every valid pair of a damaged table is kept, a duplicate index\n"
    "keeps the text another language confirms (else the first), Last\n"
    "Counter/Last Help cover the highest index, a missing Base Index comes\n"
    "back, a language gets English text for entries above Base Index it\n"
    "lacks, CurrentLanguage becomes a copy of the language it mirrors, the\n"
    "tables' SysWOW64 copies and stale copies in the hive are written again\n"
    "from System32's tables. Says what it changed and what it could not fix,\n"
    "and why. Running it again changes nothing.\n"
    "\n"
    "  --dry-run          print what would change; save and write nothing\n"
    "  --emit-reg FILE    also write the exact change to FILE as a .reg patch\n"
    "  --prune-orphans    remove strings above Base Index no provider owns\n"
    "  --enable-disabled  remove Disable Performance Counters values\n"
    "  --from-ini DIR     restore a provider's missing strings from its INI in\n"
    "                     DIR (matched by drivername), or from its copy in the\n"
    "                     Windows tree's INF\\<service>\\<LLLL>, at the indices\n"
    "                     it has (First Counter/First Help + the offsets)\n"
    "  --backup FILE      where the backup goes (default\n"
    "                     regtool-repair-backup.ini; FILE_001... when it exists)\n"
    "\n"
    "Exit status: 0 nothing left to fix; 1 warnings left; 2 errors left;\n"
    "3 I/O or system failure (nothing written); 64 bad command line.\n";

struct backup_ctx {
    const char *file;
};

static int save_backup(const struct rt_database *db, void *ctx)
{
    const struct backup_ctx *b = ctx;
    int win32;
    return rt_cli_write_backup(NULL, db, b->file, 0, 1, &win32) == RT_EXIT_OK
               ? 0 : -1;
}

static void print_findings(const char *title, const struct rt_findings *f)
{
    if (!f->n)
        return;
    printf("%s\n", title);
    for (size_t i = 0; i < f->n; i++) {
        const struct rt_finding *x = &f->v[i];
        /* The message quotes the tree's names: one line, escaped. */
        printf("  %s%s%s%s: ", rt_finding_id(x), x->language ? " [" : "",
               x->language ? rt_cli_shown(x->language) : "",
               x->language ? "]" : "");
        char *message = rt_finding_message(x);
        if (!message)
            rt_cli_error("out of memory: a finding's message is left out");
        rt_cli_put_shown(stdout, message ? message : "(out of memory)");
        free(message);
        putchar('\n');
    }
}

/* The INIs --from-ini found: DIR's, then the Windows tree's INF copies. */
struct inis {
    struct rt_provider_spec **v;
    size_t n;
};

static void inis_free(struct inis *l)
{
    for (size_t i = 0; i < l->n; i++) {
        rt_provider_spec_free(l->v[i]);
        free(l->v[i]);
    }
    free(l->v);
}

static int ends_with_ci(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcasecmp(s + n - t, tail);
}

/* Loads INI (its symbol file beside it, or else in SYMBOL_DIR when that
 * is not NULL) into L; one that does not load is skipped, saying why. */
static int add_ini(struct inis *l, const char *ini, const char *symbol_dir)
{
    struct rt_provider_spec *sp = calloc(1, sizeof *sp);
    struct rt_provider_spec **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!sp || !nv) {
        free(sp);
        if (nv)
            l->v = nv;
        return -1;
    }
    l->v = nv;
    struct rt_diags d = {0};
    /* An INF copy has its symbol file beside it where regtool's install
     * wrote it (INF\<service>\<LLLL>\), in INF\<service> where Windows
     * did (docs/design.md, "Rebuilding: lodctr /R"); when neither loads,
     * the reason given is the latter's. */
    if (symbol_dir) {
        if (rt_provider_spec_load(ini, NULL, sp, &d) == 0) {
            rt_diags_free(&d);
            l->v[l->n++] = sp;
            return 0;
        }
        rt_diags_free(&d);
        rt_provider_spec_free(sp);
        d = (struct rt_diags){0};
    }
    if (rt_provider_spec_load_in(ini, symbol_dir, NULL, sp, &d) != 0) {
        char *first = NULL;
        for (size_t i = 0; i < d.n && !first; i++)
            if (d.v[i].severity == RT_ERROR)
                first = rt_diag_format(&d.v[i]);
        rt_cli_error("--from-ini: %s skipped: %s", ini,
                     first ? first : "it cannot be read");
        free(first);
        rt_diags_free(&d);
        rt_provider_spec_free(sp);
        free(sp);
        return 0;
    }
    rt_diags_free(&d);
    l->v[l->n++] = sp;
    return 0;
}

/* DIR/NAME, NAME matched without regard to case (a Windows tree copied
 * to Linux keeps Windows' case). New string or NULL. */
static char *find_ci(const char *dir, const char *name)
{
    char **names;
    size_t n;
    char *found = NULL;
    if (rt_os_list_dir(dir, &names, &n) != 0)
        return NULL;
    for (size_t i = 0; i < n && !found; i++)
        if (!strcasecmp(names[i], name) &&
            asprintf(&found, "%s/%s", dir, names[i]) < 0)
            found = NULL;
    rt_os_free_list(names, n);
    return found;
}

/* Every *.ini of DIR. */
static int load_dir(struct inis *l, const char *dir)
{
    char **names;
    size_t n;
    if (rt_os_list_dir(dir, &names, &n) != 0) {
        rt_cli_error("--from-ini %s: cannot list it", dir);
        return -2;
    }
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        char *p = NULL;
        if (!ends_with_ci(names[i], ".ini"))
            continue;
        if (asprintf(&p, "%s/%s", dir, names[i]) < 0)
            rc = -1;
        else if (!rt_os_is_dir(p))
            rc = add_ini(l, p, NULL);
        free(p);
    }
    rt_os_free_list(names, n);
    return rc;
}

/* The INF copies of each provider's INI (docs/design.md, "Rebuilding:
 * lodctr /R"): WIN/INF/<service>/<four hex digits>/<PerfIniFile>, the
 * symbol file beside it (as install writes it) or in WIN/INF/<service> (as
 * Windows does). */
static int load_inf(struct inis *l, struct rt_store *s)
{
    const char *win = rt_op_windows_dir(s);
    char *inf = win ? find_ci(win, "INF") : NULL;
    char **svcs = NULL;
    size_t n_svcs = 0;
    struct rt_error e = {0};
    if (!inf)
        return 0;
    if (rt_op_list_perf_services(s, &svcs, &n_svcs, &e) != 0) {
        rt_cli_error("--from-ini: the services cannot be listed: %s",
                     e.message);
        free(inf);
        return -3;
    }
    int rc = 0;
    for (size_t i = 0; i < n_svcs && !rc; i++) {
        char *ini_name = NULL, *sdir = NULL;
        /* One that cannot be read is passed over, as one without it. */
        rt_op_service_string(s, svcs[i], "PerfIniFile", &ini_name, &e);
        /* Both become path components: a name that is not one file's is
         * never looked up, and said. */
        const char *bad = ini_name ? rt_side_name_problem(ini_name) : NULL;
        const char *bad_svc = ini_name ? rt_side_name_problem(svcs[i]) : NULL;
        if (bad || bad_svc) {
            char shown[100];
            rt_side_name_shown(bad ? ini_name : svcs[i], shown, sizeof shown);
            fprintf(stderr,
                    "%s: warning: --from-ini: %s: its %s '%s' is not a file "
                    "name (%s): its INF copy is not read\n",
                    rt_cli_program(), rt_cli_shown(svcs[i]),
                    bad ? "PerfIniFile" : "service name", shown,
                    bad ? bad : bad_svc);
        } else if (ini_name && (sdir = find_ci(inf, svcs[i])) != NULL) {
            char **langs;
            size_t n_langs;
            if (rt_os_list_dir(sdir, &langs, &n_langs) == 0) {
                for (size_t j = 0; j < n_langs && !rc; j++) {
                    char *ldir = NULL, *ini = NULL;
                    if (strlen(langs[j]) != 4 ||
                        strspn(langs[j], "0123456789abcdefABCDEF") != 4)
                        continue;
                    if (asprintf(&ldir, "%s/%s", sdir, langs[j]) < 0) {
                        rc = -1;
                        break;
                    }
                    if ((ini = find_ci(ldir, ini_name)) != NULL)
                        rc = add_ini(l, ini, sdir);
                    free(ini);
                    free(ldir);
                }
                rt_os_free_list(langs, n_langs);
            }
        }
        free(sdir);
        free(ini_name);
    }
    rt_strings_free(svcs, n_svcs);
    free(inf);
    return rc;
}

int cmd_repair(int argc, char **argv)
{
    rt_cli_options()->read_once = 1;    /* each table read once */
    static const struct option longopts[] = {
        {"dry-run", no_argument, 0, 'n'},
        {"prune-orphans", no_argument, 0, 'p'},
        {"enable-disabled", no_argument, 0, 'E'},
        {"backup", required_argument, 0, 'b'},
        {"emit-reg", required_argument, 0, 'R'},
        {"from-ini", required_argument, 0, 'I'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct rt_repair_options opt = {0};
    struct backup_ctx bctx = {"regtool-repair-backup.ini"};
    int dry_run = 0, c, emit_rc = RT_EXIT_OK;
    const char *emit = NULL, *from_ini = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': dry_run = 1; break;
        case 'p': opt.prune_orphans = 1; break;
        case 'E': opt.enable_disabled = 1; break;
        case 'b': bctx.file = optarg; break;
        case 'R': emit = optarg; break;
        case 'I': from_ini = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int rc;
    rt_cli_catch_interrupts();
    struct rt_store *s = rt_cli_open_store(&rc);
    if (!s)
        return rc;
    struct inis inis = {0};
    if (from_ini) {
        /* DIR may be another machine's: confined while it is read. */
        char *root = NULL;
        int lr = rt_os_confine(from_ini, &root) != 0 ? -2
                                                      : load_dir(&inis, root);
        if (!root)
            rt_cli_error("--from-ini %s: %s", from_ini, rt_os_strerror(errno));
        rt_os_unconfine(root);
        free(root);
        if (lr == 0)
            lr = load_inf(&inis, s);
        if (lr != 0) {
            if (lr == -1)
                rt_cli_error("out of memory");
            /* -2: DIR cannot be read (input); -3, -1: the system. */
            inis_free(&inis);
            rt_op_close(s);
            return lr == -2 ? RT_EXIT_INVALID : RT_EXIT_FAILURE;
        }
        opt.from_ini = 1;
        opt.inis = (const struct rt_provider_spec *const *)inis.v;
        opt.n_inis = inis.n;
    }
    struct rt_change_set cs;
    struct rt_repair_report r;
    struct rt_error e = {0};
    int op = rt_op_repair(s, &opt, dry_run, save_backup, &bctx, &cs, &r, &e);
    if (op == 0) {
        if (!cs.n)
            printf("nothing to repair\n");
        else if (dry_run)
            printf("would repair (%zu changes):\n", cs.n);
        else
            printf("repaired (%zu changes)\n", cs.n);
        print_findings(dry_run ? "would fix:" : "fixed:", &r.fixed);
        if (dry_run && cs.n)
            rt_cli_print_change_set(stdout, &cs);
        print_findings("left:", &r.left);
        if (emit)
            emit_rc = rt_cli_emit_reg(emit, s, &cs);
    }
    rc = rt_cli_report_error("repair", op, &e);
    if (op == 0 && rc != RT_EXIT_OK) {
        rt_repair_report_free(&r);
        rt_change_set_free(&cs);
    } else if (op == 0) {
        size_t errors = 0, warnings = 0;
        for (size_t i = 0; i < r.left.n; i++) {
            errors += rt_finding_severity(&r.left.v[i]) == RT_AUDIT_ERROR;
            warnings += rt_finding_severity(&r.left.v[i]) == RT_AUDIT_WARNING;
        }
        rc = emit_rc != RT_EXIT_OK ? emit_rc
             : errors ? RT_EXIT_INVALID : warnings ? RT_EXIT_WARN : RT_EXIT_OK;
        rt_repair_report_free(&r);
        rt_change_set_free(&cs);
    }
    rt_cli_report_io(op == 0);
    rt_op_close(s);
    inis_free(&inis);
    return rc;
}
