/* The API layer's own interface to the regtool CLI: what the CLI shares
 * with the public API (lib/regtool.h) but needs in the library's own
 * types, because its other commands work on struct rt_store directly. */
#ifndef RT_API_H
#define RT_API_H

#include <regtool.h>

#include "model/change_set.h"
#include "model/error.h"
#include "store/store.h"

/* Opens the store SPEC names (regtool_open's specs) with OPT (NULL:
 * defaults). Warnings of the opening (a dirty hive read without its logs)
 * go to OPT->notice. NULL with E set on failure, and *BAD_SPEC 1 when
 * SPEC names no store this build has (the CLI's usage error). */
struct rt_store *rt_api_open_store(const char *spec,
                                   const regtool_open_options *opt,
                                   struct rt_error *e, int *bad_spec);

/* A handle on an open store, which regtool_close then closes. NULL when
 * out of memory (S is left open). */
regtool *rt_api_wrap_store(struct rt_store *s);

/* CS as text, one line per change and per pair, each line ending in a
 * newline: a new string, or NULL when out of memory. */
char *rt_api_change_set_text(const struct rt_change_set *cs);

#endif
