/* Engine layer: which indices the providers' ranges own, as the union of
 * the ranges sorted once, so that each string is placed by a binary search
 * instead of being compared with every provider's range (audit's orphan
 * check and repair --prune-orphans ask it of every string of every
 * table). */
#ifndef RT_OWNED_RANGES_H
#define RT_OWNED_RANGES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"

struct rt_span {
    uint32_t lo, hi;
};

/* The union of DB's providers' ranges of table K (help when K), as *N
 * disjoint spans in ascending order, malloc'd; NULL when out of memory.
 * A provider without a range, without First Help (for help), or whose
 * range is inverted owns nothing; one without its Last value owns its
 * First alone. */
struct rt_span *rt_owned_spans(const struct rt_database *db, int k,
                               size_t *n);

/* Whether X lies in one of the N spans V (as rt_owned_spans makes them). */
int rt_spans_have(const struct rt_span *v, size_t n, uint32_t x);

#endif
