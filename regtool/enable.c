/* regtool enable / disable: Disable Performance Counters (lodctr /E /D). */
#include "cli.h"

#include <string.h>

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
    return rt_cli_set_disabled(argv[0], argv[1], disable);
}

int cmd_enable(int argc, char **argv)
{
    return set_disabled(argc, argv, 0);
}

int cmd_disable(int argc, char **argv)
{
    return set_disabled(argc, argv, 1);
}
