/* Store specs: the one place that turns "hive:DIR", "live", "psb:FILE"
 * into a store, for the CLI's --store and for regtool_open alike. */
#include "ops/ops.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/diag.h"
#include "model/printable.h"
#include "store/store_hive.h"
#include "store/store_psb.h"
#include "store/store_reg.h"
#include "store/store_win32.h"

struct rt_store *rt_op_open_store(const char *spec,
                                  const regtool_open_options *opt,
                                  int read_once, struct rt_error *e,
                                  int *bad_spec)
{
    static const regtool_open_options defaults = {NULL, 0, 0, NULL};
    struct rt_store *s = NULL;
    if (!opt)
        opt = &defaults;
    *bad_spec = 0;
    if (!spec) {
        *bad_spec = 1;
        rt_error_set(e, RT_ERR_INVALID_PARAMETER, "no store given");
        return NULL;
    }
    if (!strncmp(spec, "hive:", 5)) {
        struct rt_hive_options ho = {
            .tables_dir = opt->tables,
            .force_dirty = opt->force_dirty,
            .wait_seconds = opt->wait_seconds == 0 ? 60
                            : opt->wait_seconds < 0 ? 0 : opt->wait_seconds,
            .notice = opt->notice,
            .read_once = read_once,
        };
        struct rt_diags d = {0};
        s = rt_store_hive_open(spec + 5, &ho, &d, e);
        for (size_t i = 0; i < d.n; i++) {
            char *m = rt_diag_format(&d.v[i]);
            /* Escaped: it names the tree's files (model/printable.h). */
            char *shown = m ? rt_text_printable_dup(m) : NULL;
            if (shown && opt->notice)
                opt->notice(shown);
            free(shown);
            free(m);
        }
        rt_diags_free(&d);
    } else if (!strncmp(spec, "psb:", 4)) {
        s = rt_store_psb_open(spec + 4, e);
    } else if (!strncmp(spec, "reg:", 4)) {
        /* A REGEDIT4 file's code page, as for an ANSI INI. */
        s = rt_store_reg_open(spec + 4, getenv("REGTOOL_CODEPAGE"), e);
    } else if (!strcmp(spec, "live") || !strncmp(spec, "live:", 5)) {
        /* Elsewhere than Windows and Wine this fails, saying so. */
        s = rt_store_win32_open(spec[4] ? spec + 5 : NULL, e);
        if (!s && e->code == RT_ERR_NOT_SUPPORTED) {
            char why[sizeof e->message];
            snprintf(why, sizeof why, "%s", e->message);
            rt_error_set(e, RT_ERR_NOT_SUPPORTED, "store '%s': %s", spec, why);
            *bad_spec = 1;
        }
    } else {
        *bad_spec = 1;
        rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                     "unknown store '%s': use hive:DIR, hive:SOFTWARE,SYSTEM, "
                     "live, psb:FILE or reg:FILE", spec);
    }
    return s;
}
