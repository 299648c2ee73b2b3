/* regtool restore: the name database from a PerfStringBackup file, as
 * lodctr /R:file restores it (docs/design.md, "The backup store"), in one
 * atomic commit. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] restore [--force] [--dry-run] [--emit-reg FILE]\n"
    "       FILE\n"
    "\n"
    "Restores the name database from a PerfStringBackup file (what lodctr /S\n"
    "and regtool backup write, or Windows' PerfStringBackup.INI) in one\n"
    "atomic commit, as lodctr /R:FILE does: each service with a Performance\n"
    "key gets First/Last Counter/Help from its [PERF_] section, or loses them\n"
    "when the file has none; each language with a [PerfStrings_] section\n"
    "gets its Counter and Help tables from it (other languages are kept);\n"
    "then Perflib's Base Index, Last Counter and Last Help. Unlike Windows,\n"
    "Disable Performance Counters comes back too. A malformed file is\n"
    "refused naming its line, and nothing is written. So is another\n"
    "machine's backup: one whose base texts (indices 1 to Base Index) differ\n"
    "from the database's, which would replace this machine's texts and the\n"
    "ranges of the providers installed here (exit 4, naming how many\n"
    "differ), unless --force.\n"
    "\n"
    "FILE may also be a .reg file (regtool backup --format reg, or a reg\n"
    "export of Perflib and Services), told by its first line: each language\n"
    "it has gets its tables byte for byte, Perflib's values are set as it\n"
    "has them, and each provider's Performance values as its key has them.\n"
    "\n"
    "  --force    restore another machine's backup (said in a warning line)\n"
    "  --dry-run  print what would change and write nothing\n"
    "  --emit-reg FILE  also write the exact change to FILE as a .reg patch\n"
    "             (with or without --dry-run)\n";

int cmd_restore(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"force", no_argument, 0, 'f'},
        {"dry-run", no_argument, 0, 'n'},
        {"emit-reg", required_argument, 0, 'E'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int force = 0, dry_run = 0, c;
    const char *emit_reg = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': force = 1; break;
        case 'n': dry_run = 1; break;
        case 'E': emit_reg = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !*argv[optind]) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int win32;
    return rt_cli_restore(argv[optind], force, dry_run, 0, 0, emit_reg,
                          &win32);
}
