/* regtool backup: the whole name database in the PerfStringBackup format,
 * as lodctr /S:file saves it (docs/design.md, "The backup store").
 * Read-only on the store. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] backup [--force] [--format ini|reg] FILE\n"
    "\n"
    "Saves the whole name database as lodctr /S:FILE does: a PerfStringBackup\n"
    "file (UTF-16LE) with Perflib's values, each installed provider's\n"
    "First/Last Counter/Help (and Disable Performance Counters), and every\n"
    "language's names and help texts. Only reads the store. When FILE\n"
    "exists, saves to FILE_001, FILE_002, ... FILE_999 instead, the first\n"
    "that does not exist, as lodctr does. Written to a temporary file that\n"
    "becomes FILE only when whole: a failure or an interrupt (exit 130,\n"
    "143) leaves no file. A damaged table gives every pair readable in it,\n"
    "named on stderr, and exit status 1. A text with a line that would read\n"
    "back as a section or an N= record of its own is left out, with a warning.\n"
    "\n"
    "  --force  overwrite FILE instead\n"
    "  --format reg  save a .reg file instead (Version 5.00, UTF-16LE, as reg\n"
    "           export writes): the whole Perflib key, every language's\n"
    "           tables byte for byte as hex(7) values, and every provider's\n"
    "           Performance values; reg import and regtool restore take it\n";

int cmd_backup(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"force", no_argument, 0, 'f'},
        {"format", required_argument, 0, 'F'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int force = 0, reg = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': force = 1; break;
        case 'F':
            if (strcmp(optarg, "reg") && strcmp(optarg, "ini")) {
                rt_cli_error("--format %s: give ini (a PerfStringBackup "
                             "file, as lodctr /S) or reg (a .reg file)",
                             optarg);
                return RT_EXIT_USAGE;
            }
            reg = !strcmp(optarg, "reg");
            break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !*argv[optind]) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int win32;
    return rt_cli_backup_as(argv[optind], force, reg, &win32);
}
