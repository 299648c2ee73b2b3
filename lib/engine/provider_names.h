/* A provider's counters in one language: each index of its name range
 * that the Counter table has, its name and its help text, and the
 * indices of the range that have no name. Pure: computed from the pair
 * lists and the range, never by walking the range's integers (a hostile
 * Last Counter of 0x7fffffff costs what the table holds, not 2^30
 * steps). */
#ifndef RT_PROVIDER_NAMES_H
#define RT_PROVIDER_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"

struct rt_provider_counter {
    uint32_t index;         /* even, in the range */
    const char *name;       /* the first Counter pair's text of INDEX */
    const char *help;       /* the first Help pair's text of INDEX + 1,
                               NULL when the table has none */
};

/* Even indices FIRST, FIRST + 2, ..., LAST that have no name. */
struct rt_index_run {
    uint32_t first, last;
};

struct rt_provider_names {
    struct rt_provider_counter *v;     /* in index order */
    size_t n;
    struct rt_index_run *missing;      /* in index order */
    size_t n_missing;
    uint64_t missing_count;            /* indices in all the runs */
    size_t without_help;               /* counters whose help is NULL */
    size_t duplicates;                 /* pairs of the range whose index an
                                          earlier pair had (not listed) */
};

/* The counters of the name range FIRST..LAST (even indices; none when
 * FIRST > LAST) in COUNTER, with their help (index + 1) from HELP, the
 * pointers into those lists (which must outlive OUT). O(n log n) in the
 * tables' sizes. 0, or -1 when out of memory (OUT then empty). */
int rt_provider_names(const struct rt_pair_list *counter,
                      const struct rt_pair_list *help, uint32_t first,
                      uint32_t last, struct rt_provider_names *out);

void rt_provider_names_free(struct rt_provider_names *p);

#endif
