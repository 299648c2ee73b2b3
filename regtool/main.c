/* regtool entry point: dispatches to one subcommand per file. */
#include "cli.h"
#include "regtool.h"   /* lib/regtool.h: REGTOOL_VERSION */

#include "platform/os.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

static const struct rt_command commands[] = {
    /* RT_COMMANDS: one line per subcommand file */
    {"version", cmd_version, "version"},
    {"init", cmd_init,
     "init [--languages 009,019,...] [--layout files|registry]"},
    {"install", cmd_install,
     "install [--replace] [--dry-run] [--emit-reg FILE] [--codepage CP] [--strict] [--create-service ...] INI"},
    {"uninstall", cmd_uninstall,
     "uninstall [--force] [--dry-run] [--emit-reg FILE] DRIVER"},
    {"names", cmd_names,
     "names [--lang L] [--help-text] [--json] [INDEX|NAME ...] | names --provider DRIVER [--lang L] [--json]"},
    {"query", cmd_query, "query [--json] [DRIVER]"},
    {"enable", cmd_enable, "enable DRIVER"},
    {"disable", cmd_disable, "disable DRIVER"},
    {"backup", cmd_backup, "backup [--force] [--format ini|reg] FILE"},
    {"restore", cmd_restore, "restore [--dry-run] [--emit-reg FILE] FILE"},
    {"rebuild", cmd_rebuild, "rebuild [--dry-run] [--from DIR] [--accept-loss]"},
    {"hive", cmd_hive, "hive check [--json] FILE | hive recover FILE -o OUT"},
    {"repair", cmd_repair, "repair [--dry-run] [--prune-orphans] [--enable-disabled] [--backup FILE] [--emit-reg FILE]"},
    {"diff", cmd_diff, "diff [--json] [--pairs] A B"},
    {"audit", cmd_audit, "audit [--json | --format text|json|prometheus] [--textfile FILE] [--lang L] [--stores-from FILE] [STORE ...]"},
    {"verify", cmd_verify, "verify [--json] [--query Q] DRIVER"},
    {"check-ini", cmd_check_ini, "check-ini [--json] [--strict] [--codepage CP] INI"},
    {"perfstats", cmd_perfstats,
     "perfstats list|audit [--json] FILE.reg | perfstats remove [--emit-reg PATCH] SERVER FILE.reg"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static const char *program = "regtool";

void rt_cli_set_program(const char *name)
{
    program = name;
}

const char *rt_cli_program(void)
{
    return program;
}

void rt_cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *message = NULL;
    int n = vasprintf(&message, fmt, ap);
    va_end(ap);
    rt_cli_progress_clear();
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", program);
    /* One line, whatever the names in it hold. */
    rt_cli_put_shown_line(stderr, prefix,
                          n >= 0 ? message
                                 : "(message not shown: out of memory)");
    free(message);
}

static void usage(FILE *f)
{
    fputs("Usage: regtool [--store SPEC] [--verbose] [--force-dirty] "
          "[--tables DIR] [--wait SECONDS] COMMAND [ARGS]\n"
          "       regtool --version | --help | COMMAND --help\n\n"
          "Install, remove, audit and repair performance-counter names in the\n"
          "Windows Perflib name database.\n\nCommands:\n", f);
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(f, "  regtool %s\n", commands[i].usage);
    fputs("\nGlobal options (before or after the command):\n"
          "  --store SPEC   the database: hive:DIR (a Windows tree),\n"
          "                 hive:SOFTWARE,SYSTEM (two hive files), live or\n"
          "                 live:\\\\MACHINE (the registry), psb:FILE (a\n"
          "                 PerfStringBackup file, read-only), reg:FILE (a .reg\n"
          "                 export); or REGTOOL_STORE\n"
          "  --tables DIR   where the .dat tables are, when not the tree's\n"
          "                 System32\n"
          "  --verbose      bytes written, writes and fsyncs of a change\n"
          "  --force-dirty  write to a dirty hive that has no usable logs\n"
          "\nExit status: 0 success; 1 warnings (--strict), a name or index not\n"
          "found, a dirty hive; 2 invalid input, nothing written; 3 I/O or\n"
          "system failure; 4 a missing store, service or provider, or a state\n"
          "that forbids it (already installed); 64 bad command line.\n", f);
}

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("regtool %s%s\n", REGTOOL_VERSION,
           rt_op_ini_available() ? "" : " (without inih: the verbs that read INIs are unavailable)");
    return RT_EXIT_OK;
}

/* RC, the status of a command that ran to its end, or its status for an
 * interrupt (128 + the signal; DROPIN: lodctr's ERROR_CANCELLED, which
 * rt_dropin_exit turns into the same) when an interrupt the command had
 * taken over came after its last check (while it printed its last
 * lines): the run is then said to have been interrupted, and what it
 * printed stands, rather than exit 0 for a SIGTERM it never answered. A
 * failure's status is kept: it says more than the interrupt. */
static int finished(int rc, int dropin)
{
    /* Its last lines written out here, not by exit: an interrupt while
     * they are written is noted in time to be answered. */
    fflush(stdout);
    if (rc != 0 || !rt_os_interrupted())
        return rc;
    rt_cli_error("interrupted as it ended: what it did and said above "
                 "is complete");
    return dropin ? RT_ERR_CANCELLED : 128 + rt_os_interrupted();
}

int main(int argc, char **argv)
{
#ifdef __GLIBC__
    /* Tables are megabytes each, read and freed a language at a time:
     * glibc would raise its mmap threshold past them after the first
     * free and keep the next ones in a heap that does not shrink, so
     * that the process held every table it ever read. A fixed threshold
     * gives each back to the system when freed. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    /* Hive files are mapped (regf), and backups read by restore: a page
     * the disk cannot deliver ends the process with SIGBUS. Say so; a
     * commit it interrupted is rolled back or finished by the next run,
     * as after any crash. */
    rt_os_report_map_faults(
        "regtool: a mapped file (a hive, or the backup being restored) could "
        "not be read (an I/O error, or another program cut it short while "
        "regtool read it); stopped. Any commit this interrupted is finished "
        "or rolled back by the next run\n",
        RT_EXIT_FAILURE);
    /* Until a verb takes interrupts over to stop where stopping is safe
     * (the writers that commit), an interrupt, even one that comes while
     * waiting for the lock or blocked on a file, ends the process at
     * once: a reader has changed nothing, a file being saved (a
     * textfile, a recovered hive, an --emit-reg patch) is replaced whole
     * or not at all, its temporary removed, and a commit cut short is
     * the journal's to finish or roll back, as after a crash. */
    rt_os_end_on_interrupts(
        "regtool: interrupted: stopped at once (a commit it cut short is "
        "finished or rolled back by the next run)\n",
        "regtool: interrupted: stopped at once (a file it was saving is left "
        "as it was; a commit it cut short is finished or rolled back by the "
        "next run)\n",
        "regtool: interrupted: stopped at once (a file it was saving had "
        "just been put in place, whole; a commit it cut short is finished or "
        "rolled back by the next run)\n");
    /* On Windows the C runtime's ARGV is in the ANSI code page: taken
     * again in UTF-8, as every path and name the library reads is. */
    if (rt_os_args_utf8(&argc, &argv) != 0) {
        fputs("regtool: out of memory\n", stderr);
        return RT_EXIT_FAILURE;
    }
    int dropin = rt_dropin_mode(argv[0]);
    if (dropin)
        rt_cli_set_program(dropin == 1 ? "lodctr" : "unlodctr");
    if (rt_cli_parse_global(&argc, &argv) != 0)
        return dropin ? RT_ERR_INVALID_PARAMETER : RT_EXIT_USAGE;
    if (dropin == 1)
        return rt_dropin_exit(finished(rt_lodctr_main(argc, argv), 1));
    if (dropin == 2)
        return rt_dropin_exit(finished(rt_unlodctr_main(argc, argv), 1));
    if (argc < 2) {
        usage(stderr);
        return RT_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--version"))
        return cmd_version(1, argv + 1);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
        !strcmp(argv[1], "help")) {
        usage(stdout);
        return RT_EXIT_OK;
    }
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(argv[1], commands[i].name)) {
            int rc = commands[i].run(argc - 1, argv + 1);
            return finished(rc, 0);
        }
    rt_cli_error("unknown command '%s' (try 'regtool --help')", argv[1]);
    return RT_EXIT_USAGE;
}
