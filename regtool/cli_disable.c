/* Setting or removing a provider's Disable Performance Counters, as
 * regtool enable/disable and lodctr /E /D say it. */
#include "cli.h"

int rt_cli_set_disabled(const char *verb, const char *driver, int disable)
{
    int rc;
    rt_cli_catch_interrupts();
    struct rt_store *s = rt_cli_open_store(&rc);
    if (!s)
        return rc;
    struct rt_error e = {0};
    int r = rt_op_set_disabled(s, driver, disable, &e);
    if (r == 0)
        printf("%s %s\n", disable ? "disabled" : "enabled",
               rt_cli_shown(driver));
    char what[300];
    snprintf(what, sizeof what, "%s %s", verb, driver);
    rc = rt_cli_report_error(what, r, &e);
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    return rc;
}
