/* regtool rebuild: lodctr /R, the name tables rebuilt from the system's
 * backup store (docs/design.md, "Rebuilding: lodctr /R";
 * engine/rebuild.h), saying first where every provider's strings come
 * from and what cannot be recovered. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] rebuild [--dry-run] [--from DIR] "
    "[--accept-loss]\n"
    "\n"
    "Rebuilds every language's Counter and Help tables from scratch, as\n"
    "lodctr /R does, in one atomic commit: the tables as installed\n"
    "(System32\\perfdLLL.dat and perfiLLL.dat), plus each provider whose\n"
    "Performance key has First Counter, at its own indices, from its INF\n"
    "copy (INF\\<service>\\<LLLL>\\<PerfIniFile> and its symbol file), else\n"
    "from its strings in the current tables, else from its section of\n"
    "System32\\PerfStringBackup.INI. With .dat tables, System32's and\n"
    "SysWOW64's are both rebuilt; PerfStringBackup.INI is rewritten from\n"
    "the result. Before writing it prints, per provider and language,\n"
    "where the strings come from, and every file it could not find (what\n"
    "Windows reports as \"error code is 2\").\n"
    "\n"
    "Strings of the current tables that no source gives a text at their\n"
    "index are dropped; their count is printed before anything is written.\n"
    "When any provider or language would lose its text, nothing is\n"
    "written and the exit status is 4 (lodctr /R: 2, --dry-run: 4 too)\n"
    "unless --accept-loss.\n"
    "winmgmt /resyncperf (WMI's copy of the counters) has no offline\n"
    "counterpart: run it on the machine after its next start.\n"
    "\n"
    "  --dry-run      print the plan and the change a rebuild commits (each\n"
    "                 table's pairs added and removed, the strings lost),\n"
    "                 write nothing\n"
    "  --from DIR     read the sources from the Windows directory DIR (an\n"
    "                 identical machine's) instead of the store's own\n"
    "  --accept-loss  rebuild even though some text cannot be recovered\n";

int cmd_rebuild(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"dry-run", no_argument, 0, 'n'},
        {"from", required_argument, 0, 'f'},
        {"accept-loss", no_argument, 0, 'a'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int dry_run = 0, accept = 0, c;
    const char *from = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': dry_run = 1; break;
        case 'f': from = optarg; break;
        case 'a': accept = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc || (from && !*from)) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int win32;
    return rt_cli_rebuild(from, dry_run, accept, 0, &win32);
}
