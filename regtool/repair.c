/* regtool repair: fixes what needs no guessing in one atomic commit,
 * after saving the database as it is (a PerfStringBackup.INI, as regtool
 * backup writes it), and says what it changed and what it left. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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
    int saved;
};

static int save_backup(const struct rt_database *db, void *ctx)
{
    struct backup_ctx *b = ctx;
    int win32;
    if (rt_cli_write_backup(NULL, db, b->file, 0, 1, &win32) != RT_EXIT_OK)
        return -1;
    b->saved = 1;
    return 0;
}

/* The outputs of a repair (BACKUP saved numbered), in OUT: the chosen
 * store is opened with them (rt_cli_open_store_writing: saved before the
 * commit, the backup must not be one of the files the repair then
 * rewrites, nor the file of the patch, written after it over the backup
 * just saved), and --from-ini's files are checked against them. */
static void repair_outputs(const char *backup, const char *emit,
                           struct rt_cli_file out[2])
{
    out[0] = (struct rt_cli_file){"--backup", backup, 0, 1};
    out[1] = (struct rt_cli_file){"--emit-reg", emit, 0, 0};
}

/* 1, said, when an output of OUT (the backup, the patch) names an INI of
 * --from-ini's (INIS) or its symbol file: written over, the provider's
 * own files would be lost. */
static int refused_over_inis(const struct rt_cli_file out[2],
                             const struct rt_ini_set *inis)
{
    for (size_t i = 0; i < inis->n; i++) {
        const struct rt_cli_file in[] = {
            {"an INI of --from-ini", inis->v[i]->ini_path, 1, 0},
            {"its symbol file", inis->v[i]->symbol_path, 1, 0}};
        for (size_t o = 0; o < 2; o++)
            for (size_t k = 0; k < 2; k++)
                if (rt_cli_refuse_one_file(&out[o], &in[k]))
                    return 1;
    }
    return 0;
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

/* What --from-ini passed over, on stderr as it is found. */
static void say_ini_note(void *ctx, const struct rt_ini_note *n)
{
    (void)ctx;
    if (n->kind == RT_INI_NOTE_SKIPPED)
        rt_cli_error("--from-ini: %s skipped: %s", n->path,
                     n->why ? n->why : "it cannot be read");
    else
        fprintf(stderr,
                "%s: warning: --from-ini: %s: its %s '%s' is not a file "
                "name (%s): its INF copy is not read\n",
                rt_cli_program(), rt_cli_shown(n->service), n->value,
                n->shown, n->why);
}

/* --from-ini DIR's INIs, read from DIR into *INIS: 0, or the exit
 * status with the failure said (INIS then freed by the caller). */
static int find_inis(const char *dir, struct rt_store *s,
                     const struct rt_cli_file out[2], struct rt_ini_set *inis)
{
    struct rt_error le = {0};
    int lr = rt_op_find_inis(s, dir, say_ini_note, NULL, inis, &le);
    if (lr != 0) {
        /* -2: DIR cannot be read (input); -3, -1: the system. */
        rt_cli_error(lr == -2 ? "--from-ini %s" : lr == -3
                     ? "--from-ini: %s" : "%s", le.message);
        return lr == -2 ? RT_EXIT_INVALID : RT_EXIT_FAILURE;
    }
    /* Nor an INI of DIR or its symbol file, read already. */
    return refused_over_inis(out, inis) ? RT_EXIT_USAGE : 0;
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
    struct backup_ctx bctx = {"regtool-repair-backup.ini", 0};
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
    struct rt_cli_file outs[2];
    repair_outputs(bctx.file, emit, outs);
    struct rt_store *s = rt_cli_open_store_writing(outs, 2, &rc);
    if (!s)
        return rc;
    struct rt_ini_set inis = {0};
    if (from_ini) {
        if ((rc = find_inis(from_ini, s, outs, &inis)) != 0) {
            rt_ini_set_free(&inis);
            rt_op_close(s);
            return rc;
        }
        opt.from_ini = 1;
        opt.inis = (const struct rt_provider_spec *const *)inis.v;
        opt.n_inis = inis.n;
    }
    struct rt_change_set cs;
    struct rt_repair_report r;
    struct rt_error e = {0};
    rt_cli_progress_begin("repair");
    int op = rt_op_repair(s, &opt, dry_run, save_backup, &bctx, &cs, &r, &e);
    rt_cli_progress_end();
    /* Where the backup would go is looked at as its saving would, and
     * refused alike, before anything of the repair is shown or a patch
     * written (review 39 F4: a link, a folder or a FIFO there, or no
     * such folder, passed the dry run; review 40 R40-1: its patch was
     * written). */
    int en;
    if (op == 0 && dry_run && cs.n &&
        rt_op_check_backup_path(bctx.file, 0, &en) != 0) {
        rt_cli_say_backup_unsaved(bctx.file, NULL, en, 0);
        e.code = RT_ERR_WRITE_FAULT;
        snprintf(e.message, sizeof e.message, "the backup could not be "
                 "saved; nothing was written");
        rt_repair_report_free(&r);
        rt_change_set_free(&cs);
        op = -1;
    }
    if (op == 0) {
        if (!cs.n)
            printf("nothing to repair\n");
        else if (dry_run)
            printf("would repair (%zu changes):\n", cs.n);
        else
            printf("repaired (%zu changes)\n", cs.n);
        print_findings(dry_run ? "would fix:" : "fixed:", &r.fixed);
        if (dry_run && cs.n) {
            rt_cli_print_change_set(stdout, &cs);
            printf("would save the database to %s first (or the first "
                   "free %s_NNN)\n", rt_cli_shown(bctx.file),
                   rt_cli_shown(bctx.file));
        }
        print_findings("left:", &r.left);
        if (emit)
            emit_rc = rt_cli_emit_reg(emit, s, &cs);
    }
    rc = rt_cli_report_error("repair", op, &e);
    /* "nothing was written" is of the database: the backup saved before
     * the commit was refused is a file written, and what it still is. */
    if (op != 0 && bctx.saved)
        fprintf(stderr, "%s: repair: the backup saved above stays: it "
                "holds the database as it still is\n", rt_cli_program());
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
    rt_ini_set_free(&inis);
    return rc;
}
