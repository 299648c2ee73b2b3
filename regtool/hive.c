/* regtool hive: operations on hive files, one subverb per line. */
#include <stdio.h>
#include <string.h>

#include "regtool.h"

static const struct rt_command hive_verbs[] = {
    {"check", hive_check_main, "hive check [--json] FILE"},
};
#define N_VERBS (sizeof hive_verbs / sizeof hive_verbs[0])

int cmd_hive(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        FILE *f = argc < 2 ? stderr : stdout;
        fputs("Usage:\n", f);
        for (size_t i = 0; i < N_VERBS; i++)
            fprintf(f, "  regtool %s\n", hive_verbs[i].usage);
        return argc < 2 ? RT_EXIT_USAGE : RT_EXIT_OK;
    }
    for (size_t i = 0; i < N_VERBS; i++)
        if (!strcmp(argv[1], hive_verbs[i].name))
            return hive_verbs[i].run(argc - 1, argv + 1);
    rt_cli_error("unknown hive command '%s' (try 'regtool hive --help')",
                 argv[1]);
    return RT_EXIT_USAGE;
}
