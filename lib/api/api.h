/* The API layer's own interface, beyond lib/regtool.h: a handle on a
 * store opened otherwise (the tests open stores of their own). The CLI
 * calls the operations layer (ops/ops.h) directly. */
#ifndef RT_API_H
#define RT_API_H

#include <regtool.h>

#include "store/store.h"

/* A handle on an open store, which regtool_close then closes. NULL when
 * out of memory (S is left open). */
regtool *rt_api_wrap_store(struct rt_store *s);

#endif
