/* INI layer: hash index of array positions (see pos_index.h). */
#include "provider/pos_index.h"

#include <ctype.h>
#include <stdlib.h>

#include "platform/os.h"

/* The hash's bits mixed with this process's basis and cut to 32: a slot
 * keeps this tag, which gives its chain's start again when the index
 * grows. Keyed here, whatever hash a user gives: names are hashed from
 * the basis already, but the texts index's keys are numbers an INI's
 * author orders (symbol and language), and keys chosen against a fixed
 * mix made its lookups walk one cluster (128k [text] keys: 10.9 s,
 * review 35 F1). */
static uint32_t tag_of(size_t hash)
{
    /* The mix's low half already holds its high half's bits: folding
     * them in again cancelled them, and a slot (the tag's low bits) then
     * hung on the key's low bits alone, whatever the basis (review 36
     * F5). */
    return (uint32_t)rt_os_hash_mix((uint64_t)hash ^ rt_os_hash_basis());
}

static void insert(struct rt_pos_slot *slots, size_t n_slots, uint32_t tag,
                   uint32_t pos1)
{
    size_t mask = n_slots - 1;
    size_t k = tag & mask;
    while (slots[k].pos1)
        k = (k + 1) & mask;
    slots[k] = (struct rt_pos_slot){tag, pos1};
}

int rt_pos_index_add(struct rt_pos_index *x, size_t hash, size_t pos)
{
    /* Positions are array indices of parsed inputs far below 2^32; one
     * beyond is more than memory allows an index to hold. */
    if (pos >= UINT32_MAX - 1)
        return -1;
    /* At most half full, so that probe chains stay short. */
    if (2 * (x->n + 1) > x->n_slots) {
        size_t n_slots = x->n_slots ? x->n_slots * 2 : 64;
        struct rt_pos_slot *slots = calloc(n_slots, sizeof *slots);
        if (!slots)
            return -1;
        /* From an empty slot on, round: each chain is met from its start,
         * so entries of one hash keep the order they were added in (the
         * first definition found first), whatever slots they wrapped to. */
        size_t e = 0;
        while (x->n_slots && x->slots[e].pos1)
            e++;
        for (size_t i = 1; i <= x->n_slots; i++) {
            size_t k = (e + i) & (x->n_slots - 1);
            if (x->slots[k].pos1)
                insert(slots, n_slots, x->slots[k].tag, x->slots[k].pos1);
        }
        free(x->slots);
        x->slots = slots;
        x->n_slots = n_slots;
    }
    insert(x->slots, x->n_slots, tag_of(hash), (uint32_t)pos + 1);
    x->n++;
    return 0;
}

size_t rt_pos_index_next(const struct rt_pos_index *x, size_t hash,
                         size_t *cursor)
{
    if (!x->n_slots)
        return 0;
    size_t mask = x->n_slots - 1;
    uint32_t tag = tag_of(hash);
    /* The cursor counts the slots of HASH's chain already looked at:
     * entries never move once added, so the chain is stable between
     * calls as long as nothing is added. */
    for (size_t k = (tag + *cursor) & mask; x->slots[k].pos1;
         k = (k + 1) & mask) {
        ++*cursor;
        if (x->slots[k].tag == tag)
            return x->slots[k].pos1;
    }
    return 0;
}

void rt_pos_index_free(struct rt_pos_index *x)
{
    free(x->slots);
    x->slots = NULL;
    x->n_slots = x->n = 0;
}

/* FNV-1a over the bytes, from a basis of this process's own: the names
 * are an INI's and a symbol file's, someone else's, and names chosen to
 * land in one window under FNV's own basis made every lookup walk one
 * cluster (100,000 of them: 32 s, review 34 F2). */
size_t rt_hash_ci(const char *s)
{
    size_t h = (size_t)rt_os_hash_basis();
    for (; *s; s++)
        h = (h ^ (unsigned char)tolower((unsigned char)*s)) *
            (size_t)1099511628211ull;
    return h;
}

size_t rt_hash_exact(const char *s)
{
    size_t h = (size_t)rt_os_hash_basis();
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
    return h;
}
