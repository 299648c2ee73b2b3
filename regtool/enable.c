/* regtool enable / disable: Disable Performance Counters (lodctr /E /D). */
#include "cli.h"

#include <string.h>

#include "ops/ops.h"

static void usage(FILE *f, const char *verb)
{
    fprintf(f,
            "Usage: regtool [--store SPEC] %s DRIVER\n"
            "\n"
            "%s the provider's counters: %s the Disable Performance Counters\n"
            "value of Services\\DRIVER\\Performance (lodctr /%c).\n",
            verb, !strcmp(verb, "enable") ? "Enables" : "Disables",
            !strcmp(verb, "enable") ? "removes" : "sets",
            !strcmp(verb, "enable") ? 'E' : 'D');
}

static int set_disabled(int argc, char **argv, int disable)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout, argv[0]);
        return RT_EXIT_OK;
    }
    if (argc != 2 || argv[1][0] == '-') {
        usage(stderr, argv[0]);
        return RT_EXIT_USAGE;
    }
    int rc;
    rt_cli_catch_interrupts();
    struct rt_store *s = rt_cli_open_store(&rc);
    if (!s)
        return rc;
    struct rt_error e = {0};
    int r = rt_op_set_disabled(s, argv[1], disable, &e);
    if (r == 0)
        printf("%s %s\n", disable ? "disabled" : "enabled",
               rt_cli_shown(argv[1]));
    char what[300];
    snprintf(what, sizeof what, "%s %s", argv[0], argv[1]);
    rc = rt_cli_report_error(what, r, &e);
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    return rc;
}

int cmd_enable(int argc, char **argv)
{
    return set_disabled(argc, argv, 0);
}

int cmd_disable(int argc, char **argv)
{
    return set_disabled(argc, argv, 1);
}
