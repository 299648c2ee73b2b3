/* regtool hive: operations on offline hive files, one subverb per file. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

static const struct rt_command hive_verbs[] = {
    /* one line per subverb */
    {"check", hive_check_main, "hive check [--json] FILE"},
    {"recover", hive_recover_main, "hive recover FILE -o OUT"},
};
#define N_HIVE_VERBS (sizeof hive_verbs / sizeof hive_verbs[0])

static void hive_usage(FILE *f)
{
    fputs("Usage:\n", f);
    for (size_t i = 0; i < N_HIVE_VERBS; i++)
        fprintf(f, "  regtool %s\n", hive_verbs[i].usage);
}

int cmd_hive(int argc, char **argv)
{
    if (argc < 2) {
        hive_usage(stderr);
        return RT_EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        hive_usage(stdout);
        return RT_EXIT_OK;
    }
    for (size_t i = 0; i < N_HIVE_VERBS; i++)
        if (!strcmp(argv[1], hive_verbs[i].name))
            return hive_verbs[i].run(argc - 1, argv + 1);
    rt_cli_error("hive: unknown subcommand '%s' (try 'regtool hive --help')",
                 argv[1]);
    return RT_EXIT_USAGE;
}
