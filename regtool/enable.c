/* regtool enable / disable: Disable Performance Counters (lodctr /E /D). */
#include "regtool.h"

#include <string.h>

#include "engine/ops.h"

static int set_disabled(int argc, char **argv, int disable)
{
    if (argc != 2 || argv[1][0] == '-') {
        fprintf(stderr, "Usage: regtool [--store SPEC] %s DRIVER\n", argv[0]);
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
        printf("%s %s\n", disable ? "disabled" : "enabled", argv[1]);
    char what[300];
    snprintf(what, sizeof what, "%s %s", argv[0], argv[1]);
    rc = rt_cli_report_error(what, r, &e);
    s->ops->close(s);
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
