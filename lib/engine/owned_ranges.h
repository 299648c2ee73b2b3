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
#include "provider/provider_spec.h"

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

/* Where an INI's symbols land in a provider's installed range, as lodctr
 * placed them (First Counter + offset, First Help + offset): the INI
 * that was installed ends exactly at Last Counter and Last Help. */
enum rt_fit { RT_FIT_EXACT, RT_FIT_SHORT, RT_FIT_PAST };
struct rt_spec_fit {
    enum rt_fit fit;
    /* PAST: the first symbol past the range; else the last symbol. */
    const struct rt_provider_symbol *symbol;
    uint64_t counter, help;      /* SYMBOL's indices */
};

/* How SP (at least one symbol) fits SI's range (First Counter, Last
 * Counter, First Help and Last Help all present): a binary search, the
 * symbols being sorted by offset. */
void rt_spec_fit(const struct rt_provider_spec *sp,
                 const struct rt_service_info *si, struct rt_spec_fit *out);

#endif
