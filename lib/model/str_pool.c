/* Model layer: a pool of short strings (str_pool.h). */
#include "model/str_pool.h"

#include <stdlib.h>
#include <string.h>

/* Blocks of 64 KiB (or one string's size when longer): a pool of many
 * names wastes at most part of its last block. */
#define BLOCK_BYTES 65536u

/* BYTES follows two words: at a multiple of 8 of malloc's alignment. */
struct rt_str_block {
    struct rt_str_block *next;
    size_t size;
    char bytes[];
};

/* N bytes of POOL at a multiple of ALIGN (a power of two, at most 8,
 * which a block's bytes begin at), or NULL when out of memory. */
static void *reserve(struct rt_str_pool *pool, size_t n, size_t align)
{
    struct rt_str_block *b = pool->head;
    size_t at = (pool->used + align - 1) & ~(align - 1);
    if (b && at <= b->size && b->size - at >= n) {
        pool->used = at + n;
        return b->bytes + at;
    }
    size_t size = n > BLOCK_BYTES ? n : BLOCK_BYTES;
    b = malloc(sizeof *b + size);
    if (!b)
        return NULL;
    b->size = size;
    if (n > BLOCK_BYTES && pool->head) {
        /* A block of its own, behind the head: the head's room is kept
         * for the strings that follow. */
        b->next = pool->head->next;
        pool->head->next = b;
        return b->bytes;
    }
    b->next = pool->head;
    pool->head = b;
    pool->used = n;
    return b->bytes;
}

char *rt_str_pool_add(struct rt_str_pool *pool, const char *s, size_t n)
{
    char *out = reserve(pool, n + 1, 1);
    if (!out)
        return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    return out;
}

void *rt_str_pool_alloc(struct rt_str_pool *pool, size_t n)
{
    return reserve(pool, n ? n : 1, 8);
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
