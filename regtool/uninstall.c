/* regtool uninstall: remove a provider's names and help exactly. */
#include "cli.h"

#include <getopt.h>
#include <string.h>

#include "ops/ops.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] uninstall [--force] [--dry-run] DRIVER\n"
    "\n"
    "Removes exactly the provider's ranges from every language and its\n"
    "service values; Last Counter and Last Help go back to where its install\n"
    "found them when it was on top, never lower. A PerfIniFile that is not\n"
    "one file name ('..', 'C:x.ini') does not stop it: its INF copy is left,\n"
    "and named in a warning.\n"
    "\n"
    "  --force    remove a range that is inverted, of the wrong parity or\n"
    "             overlapping the base range or another provider\n"
    "  --dry-run  print the exact change and write nothing\n"
    "  --emit-reg FILE  also write the exact change to FILE as a .reg patch\n"
    "             (with or without --dry-run)\n";

int cmd_uninstall(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"force", no_argument, 0, 'f'},
        {"dry-run", no_argument, 0, 'n'},
        {"emit-reg", required_argument, 0, 'E'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int force = 0, dry_run = 0, c, emit_rc = RT_EXIT_OK;
    const char *emit = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': force = 1; break;
        case 'n': dry_run = 1; break;
        case 'E': emit = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int rc;
    if (!dry_run)
        rt_cli_catch_interrupts();
    const struct rt_cli_file files[] = {{"--emit-reg", emit, 0, 0}};
    struct rt_store *s = rt_cli_open_store_writing(files, 1, &rc);
    if (!s)
        return rc;
    struct rt_change_set cs;
    struct rt_uninstall_plan p;
    struct rt_error e = {0};
    char what[300];
    snprintf(what, sizeof what, "uninstall %s", argv[optind]);
    int r = rt_op_uninstall(s, argv[optind], force,
                            rt_cli_op_flags(dry_run, emit), &cs, &p, &e);
    if (r != 0) {
        rc = rt_cli_report_error(what, r, &e);
    } else {
        printf("%s %s: names %u-%u, help %u-%u (%zu names, %zu help texts "
               "in all languages)",
               dry_run ? "would uninstall" : "uninstalled",
               rt_cli_shown(argv[optind]),
               p.first_counter, p.last_counter, p.first_help, p.last_help,
               p.removed_names, p.removed_helps);
        printf("\n%s\n%s\n", rt_cli_shown(p.counter.why),
               rt_cli_shown(p.help.why));
        rt_cli_side_note(s);
        if (*p.side_skipped && rt_op_keeps_side_files(s))
            fprintf(stderr, "%s: warning: %s: %s\n", rt_cli_program(),
                    rt_cli_shown(what), rt_cli_shown(p.side_skipped));
        if (dry_run)
            rt_cli_print_change_set(stdout, &cs);
        if (emit)
            emit_rc = rt_cli_emit_reg(emit, s, &cs);
        rt_change_set_free(&cs);
        rc = rt_cli_report_error(what, 0, &e);
    }
    if (rc == RT_EXIT_OK)
        rc = emit_rc;
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    return rc;
}
