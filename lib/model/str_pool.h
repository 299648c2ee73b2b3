/* Model layer: many short strings kept in a few large blocks, for the
 * names of hundreds of thousands of sections or services: each costs its
 * bytes and its NUL, not a heap block of at least 32 bytes. A string,
 * once added, does not move until the pool is freed. */
#ifndef RT_STR_POOL_H
#define RT_STR_POOL_H

#include <stddef.h>

struct rt_str_pool {
    struct rt_str_block *head;  /* the newest block; NULL when empty */
    size_t used;                /* bytes used of the head block */
};

/* A copy of the N bytes at S and a NUL in POOL, or NULL when out of
 * memory. */
char *rt_str_pool_add(struct rt_str_pool *pool, const char *s, size_t n);
/* N bytes (uninitialised) in POOL at a multiple of 8, for arrays of
 * integers or pointers kept beside the strings, or NULL when out of
 * memory. */
void *rt_str_pool_alloc(struct rt_str_pool *pool, size_t n);
/* Frees every string of POOL, leaving it empty. */
void rt_str_pool_free(struct rt_str_pool *pool);

#endif
