/* regtool repair: fixes what needs no guessing in one atomic commit,
 * after saving the database as it is (a PerfStringBackup.INI, as regtool
 * backup writes it), and says what it changed and what it left. */
#include "regtool.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/ops.h"
#include "engine/repair.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] repair [--dry-run] [--prune-orphans] "
    "[--enable-disabled]\n"
    "         [--backup FILE]\n"
    "\n"
    "Saves the database (as regtool backup does; a damaged table's readable\n"
    "pairs, all of them), then fixes in one atomic commit what needs no\n"
    "guessing: every valid pair of a damaged table is kept, a duplicate index\n"
    "keeps the text another language confirms (else the first), Last\n"
    "Counter/Last Help cover the highest index, a missing Base Index comes\n"
    "back, a language gets English text for entries above Base Index it\n"
    "lacks, CurrentLanguage becomes a copy of the language it mirrors. Says\n"
    "what it changed and what it could not fix, and why. Running it again\n"
    "changes nothing.\n"
    "\n"
    "  --dry-run          print what would change; save and write nothing\n"
    "  --prune-orphans    remove strings above Base Index no provider owns\n"
    "  --enable-disabled  remove Disable Performance Counters values\n"
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
    return rt_cli_write_backup(db, b->file, 0, 1, &win32) == RT_EXIT_OK ? 0 : -1;
}

static void print_findings(const char *title, const struct rt_findings *f)
{
    if (!f->n)
        return;
    printf("%s\n", title);
    for (size_t i = 0; i < f->n; i++) {
        const struct rt_finding *x = &f->v[i];
        printf("  %s%s%s%s: %s\n", x->id, x->language ? " [" : "",
               x->language ? x->language : "", x->language ? "]" : "",
               x->message);
    }
}

int cmd_repair(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dry-run", no_argument, 0, 'n'},
        {"prune-orphans", no_argument, 0, 'p'},
        {"enable-disabled", no_argument, 0, 'E'},
        {"backup", required_argument, 0, 'b'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct rt_repair_options opt = {0};
    struct backup_ctx bctx = {"regtool-repair-backup.ini"};
    int dry_run = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': dry_run = 1; break;
        case 'p': opt.prune_orphans = 1; break;
        case 'E': opt.enable_disabled = 1; break;
        case 'b': bctx.file = optarg; break;
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
    }
    rc = rt_cli_report_error("repair", op, &e);
    if (op == 0 && rc != RT_EXIT_OK) {
        rt_repair_report_free(&r);
        rt_change_set_free(&cs);
    } else if (op == 0) {
        size_t errors = 0, warnings = 0;
        for (size_t i = 0; i < r.left.n; i++) {
            errors += r.left.v[i].severity == RT_AUDIT_ERROR;
            warnings += r.left.v[i].severity == RT_AUDIT_WARNING;
        }
        rc = errors ? RT_EXIT_INVALID : warnings ? RT_EXIT_WARN : RT_EXIT_OK;
        rt_repair_report_free(&r);
        rt_change_set_free(&cs);
    }
    rt_cli_report_io(op == 0);
    s->ops->close(s);
    return rc;
}
