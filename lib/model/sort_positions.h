/* Model layer: sorting an array of positions in place by what they point
 * at, for an index of hundreds of thousands of entries that holds four
 * bytes each and needs no second array to sort (qsort's merge sort takes
 * a copy of the array; its entries cannot reach a context), and finding
 * a value in a sorted array. */
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

/* Moves the N elements of SIZE bytes (at most RT_PERMUTE_MAX) at V so
 * that the one at PERM[K] ends at K (PERM sorted positions put their
 * array in that order), each cycle once round: O(n), no memory beyond
 * one element. PERM is left as 0..N-1. */
#define RT_PERMUTE_MAX 64
void rt_permute(void *v, size_t size, uint32_t *perm, size_t n);

/* NAME(V, N, X): the first of the N values at V (of type T), sorted
 * ascending, at or above X (N when none is): a binary search. X is 64-bit
 * so that "above the last 32-bit index" (last + 1) can be asked. */
#define RT_LOWER_BOUND(name, T)                                               \
    static inline size_t name(const T *v, size_t n, uint64_t x)               \
    {                                                                         \
        size_t lo = 0, hi = n;                                                \
        while (lo < hi) {                                                     \
            size_t mid = lo + (hi - lo) / 2;                                  \
            if (v[mid] < x)                                                   \
                lo = mid + 1;                                                 \
            else                                                              \
                hi = mid;                                                     \
        }                                                                     \
        return lo;                                                            \
    }
RT_LOWER_BOUND(rt_lower_bound_u32, uint32_t)
RT_LOWER_BOUND(rt_lower_bound_u64, uint64_t)

#endif
