/* Engine layer, inside audit --libraries (audit_libraries.c): the pairs
 * of providers that load one DLL with different procedures, found by
 * sorting, never by comparing every two providers. */
#ifndef RT_AUDIT_SHARED_DLLS_H
#define RT_AUDIT_SHARED_DLLS_H

#include <stddef.h>

#include "engine/audit.h"

/* Two providers, by their index in the database's services, I < J. */
struct rt_dll_pair {
    size_t i, j;
};


/* Every pair of DB's providers whose Library KEY calls the same DLL
 * (compared without case) and whose Open, Collect and Close procedures
 * differ, each pair once, in database order, in *PAIRS (a new array,
 * NULL when none) and *N: O(n log n) plus the pairs found. KEY is asked
 * once of each provider whose Library is not blank, and gives a new
 * string or NULL when out of memory. 0, or -1 when out of memory. */
int rt_audit_shared_dll_pairs(const struct rt_database *db,
                              char *(*key)(void *ctx, const char *library),
                              void *ctx, struct rt_dll_pair **pairs,
                              size_t *n);

#endif
