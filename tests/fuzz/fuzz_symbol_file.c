/* libFuzzer harness: the lodctr symbol-file parser (provider/symbol_file.c)
 * on a buffer, then a lookup of every name it defined, as the INI loader
 * looks them up. */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/diag.h"
#include "provider/symbol_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_symbol_table t = {0};
    struct rt_diags d = {0};
    int r = rt_symbol_file_parse("fuzz.h", data, size, &t, &d);
    if (r == 0) {
        for (size_t i = 0; i < t.n; i++) {
            const struct rt_symbol_def *def = &t.v[i];
            /* One entry per name, and an exact match wins
             * (symbol_file.h). */
            FUZZ_ASSERT(rt_symbol_find(&t, def->name) == def);
            /* One without a value says why, where. */
            if (!def->ok) {
                char *why = rt_symbol_problem(&t, def);
                if (!why)
                    abort();
                FUZZ_ASSERT(*why && def->problem_line > 0);
                free(why);
            }
            /* The case-insensitive path: any spelling finds a definition
             * equal but for ASCII case, or none when it is ambiguous. */
            char *lower = strdup(def->name);
            if (!lower)
                abort();
            for (char *p = lower; *p; p++)
                *p = (char)tolower((unsigned char)*p);
            const struct rt_symbol_def *f = rt_symbol_find(&t, lower);
            FUZZ_ASSERT(!f || !strcasecmp(f->name, def->name));
            free(lower);
        }
    } else {
        FUZZ_ASSERT(d.errors > 0);
    }
    for (size_t i = 0; i < d.n; i++)
        free(rt_diag_format(&d.v[i]));
    rt_symbol_table_free(&t);
    rt_diags_free(&d);
    return 0;
}
