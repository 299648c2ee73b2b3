/* Model layer: sorting an array of positions in place by what they point
 * at, for an index of hundreds of thousands of entries that holds four
 * bytes each and needs no second array to sort (qsort's merge sort takes
 * a copy of the array; its entries cannot reach a context). */
#ifndef RT_SORT_POSITIONS_H
#define RT_SORT_POSITIONS_H

#include <stddef.h>
#include <stdint.h>

/* Sorts the N positions at V so that CMP(a, b, CTX) < 0 puts a first: a
 * heap sort, O(n log n), no memory beyond V. Not stable: CMP should
 * order equals by position when their order matters. */
void rt_sort_positions(uint32_t *v, size_t n,
                       int (*cmp)(uint32_t a, uint32_t b, const void *ctx),
                       const void *ctx);

#endif
