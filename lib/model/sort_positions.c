/* Model layer: a heap sort of positions (sort_positions.h). */
#include "model/sort_positions.h"

#include <string.h>

/* Moves V[I] down the max-heap of the N entries at V until no child of
 * it sorts after it. */
static void sift_down(uint32_t *v, size_t i, size_t n,
                      int (*cmp)(uint32_t, uint32_t, const void *),
                      const void *ctx)
{
    for (;;) {
        size_t big = i, l = 2 * i + 1, r = l + 1;
        if (l < n && cmp(v[l], v[big], ctx) > 0)
            big = l;
        if (r < n && cmp(v[r], v[big], ctx) > 0)
            big = r;
        if (big == i)
            return;
        uint32_t t = v[i];
        v[i] = v[big];
        v[big] = t;
        i = big;
    }
}

void rt_sort_positions(uint32_t *v, size_t n,
                       int (*cmp)(uint32_t a, uint32_t b, const void *ctx),
                       const void *ctx)
{
    if (n < 2)
        return;
    for (size_t i = n / 2; i-- > 0;)
        sift_down(v, i, n, cmp, ctx);
    for (size_t end = n - 1; end > 0; end--) {
        uint32_t t = v[0];
        v[0] = v[end];
        v[end] = t;
        sift_down(v, 0, end, cmp, ctx);
    }
}

void rt_permute(void *v, size_t size, uint32_t *perm, size_t n)
{
    unsigned char first[RT_PERMUTE_MAX], *b = v;
    for (size_t i = 0; i < n; i++) {
        if (perm[i] == i)
            continue;
        memcpy(first, b + i * size, size);
        size_t j = i;
        while (perm[j] != i) {
            size_t next = perm[j];
            memcpy(b + j * size, b + next * size, size);
            perm[j] = (uint32_t)j;
            j = next;
        }
        memcpy(b + j * size, first, size);
        perm[j] = (uint32_t)j;
    }
}
