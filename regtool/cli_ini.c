/* Loading a provider's INI and its INF copy's files as install and lodctr
 * load them, its diagnostics printed; the note on a store that keeps no
 * side files. */
#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops.h"
#include "platform/os.h"

int rt_cli_print_diags(struct rt_diags *d)
{
    int rc = 0;
    rt_diags_sort(d);
    for (size_t i = 0; i < d->n; i++) {
        char *m = rt_diag_format(&d->v[i]);
        if (!m) {
            rt_cli_error("out of memory: a diagnostic is left out");
            rc = -1;
            continue;
        }
        rt_cli_put_shown_line(stderr, NULL, m);   /* quotes the INI's names */
        free(m);
    }
    return rc;
}

void rt_cli_side_note(struct rt_store *s)
{
    if (!rt_op_keeps_side_files(s))
        printf("note: this store has no Windows directory: no INF copy and "
               "no PerfStringBackup.INI are kept\n");
}

int rt_cli_load_spec(const char *ini_arg, const char *codepage, int strict,
                     struct rt_provider_spec *spec, struct rt_inf_files *inf)
{
    struct rt_diags d = {0};
    struct rt_error e = {0};
    /* As given: C:\dir\x.ini on Windows, and from the Windows programs
     * that run a Winelib regtool as lodctr. */
    char *ini = rt_os_user_path(ini_arg);
    if (!ini) {
        memset(spec, 0, sizeof *spec);
        memset(inf, 0, sizeof *inf);
        rt_cli_error("out of memory");
        return RT_EXIT_FAILURE;
    }
    const struct rt_ini_load_options opt = {codepage, NULL, strict};
    enum rt_ini_load r = rt_op_load_provider(ini, &opt, spec, inf, &d, &e);
    /* Out of memory: what the diagnostics say is no account of the INI.
     * A warning that could not be shown is one the user did not see:
     * nothing is installed then either. */
    if (r != RT_INI_OUT_OF_MEMORY && rt_cli_print_diags(&d) != 0 &&
        r == RT_INI_LOADED) {
        rt_provider_spec_free(spec);
        rt_inf_files_free(inf);
        r = RT_INI_OUT_OF_MEMORY;
    }
    if (r == RT_INI_OUT_OF_MEMORY)
        rt_cli_error("%s: out of memory; nothing was written", ini);
    else if (r == RT_INI_REFUSED_STRICT)
        rt_cli_error("%s: %zu warning%s, refused as strict; nothing was "
                     "written", ini, d.warnings, d.warnings == 1 ? "" : "s");
    free(ini);
    rt_diags_free(&d);
    if (r == RT_INI_UNREADABLE || r == RT_INI_OUT_OF_MEMORY)
        return RT_EXIT_FAILURE;
    return r == RT_INI_LOADED ? RT_EXIT_OK : RT_EXIT_INVALID;
}
