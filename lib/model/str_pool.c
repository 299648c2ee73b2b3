/* Model layer: a pool of short strings (str_pool.h). */
#include "model/str_pool.h"

#include <stdlib.h>
#include <string.h>

/* Blocks of 64 KiB (or one string's size when longer): a pool of many
 * names wastes at most part of its last block. */
#define BLOCK_BYTES 65536u

struct rt_str_block {
    struct rt_str_block *next;
    size_t size;
    char bytes[];
};

char *rt_str_pool_add(struct rt_str_pool *pool, const char *s, size_t n)
{
    struct rt_str_block *b = pool->head;
    if (!b || b->size - pool->used < n + 1) {
        size_t size = n + 1 > BLOCK_BYTES ? n + 1 : BLOCK_BYTES;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->next = pool->head;
        b->size = size;
        pool->head = b;
        pool->used = 0;
    }
    char *out = b->bytes + pool->used;
    memcpy(out, s, n);
    out[n] = '\0';
    pool->used += n + 1;
    return out;
}

void rt_str_pool_free(struct rt_str_pool *pool)
{
    while (pool->head) {
        struct rt_str_block *next = pool->head->next;
        free(pool->head);
        pool->head = next;
    }
    pool->used = 0;
}
