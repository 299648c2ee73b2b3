/* INI layer: an open-addressing hash index of positions in a caller's
 * array, so that looking a key or symbol up among thousands costs the
 * same as among ten (a lodctr INI of a generated provider has tens of
 * thousands of keys).
 *
 * The index holds only positions and their hashes; the caller hashes its
 * keys and compares candidates itself, which lets one index serve names
 * compared case-insensitively and language ids compared by value. */
#ifndef RT_POS_INDEX_H
#define RT_POS_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* Eight bytes a slot: an index of a big INI holds a slot or two per key,
 * and the positions of an input capped at 16 MiB fit in 32 bits. */
struct rt_pos_slot {
    uint32_t tag;           /* the hash, mixed and cut to 32 bits: where
                               its chain starts and a first filter */
    uint32_t pos1;          /* position + 1; 0 marks an empty slot */
};

struct rt_pos_index {
    struct rt_pos_slot *slots;
    size_t n_slots;         /* 0 or a power of two */
    size_t n;
};

/* Records POS (below UINT32_MAX - 1) under HASH; several positions may
 * share a hash. 0, or -1 out of memory (X as it was). */
int rt_pos_index_add(struct rt_pos_index *x, size_t hash, size_t pos);

/* The positions recorded under HASH, one a call: start with *CURSOR = 0;
 * each call returns the next position + 1, or 0 when there are no more.
 * Positions under other hashes that share a slot chain are skipped, but
 * the caller must still compare keys: different keys may hash alike. */
size_t rt_pos_index_next(const struct rt_pos_index *x, size_t hash,
                         size_t *cursor);

void rt_pos_index_free(struct rt_pos_index *x);

/* A hash of NUL-terminated S that is equal for strings strcasecmp finds
 * equal (it folds each byte with tolower, as strcasecmp does). */
size_t rt_hash_ci(const char *s);

/* A hash of NUL-terminated S for exact comparison. */
size_t rt_hash_exact(const char *s);

#endif
