/* regf: a map from a key's cell to what an index keeps for it (the
 * subkey indexes of node.c, the value indexes of validx.c). Open
 * addressing, grown at half full; each entry begins with its key cell
 * (a uint32_t first member), so the map needs nothing else of it. */
#include "regf/regf_internal.h"
#include "platform/os.h"

#include <stdlib.h>

static uint32_t key_of(const void *entry)
{
    return *(const uint32_t *)entry;
}

/* The slot of KEY in M (empty when it has none); M has slots. */
static void **slot_of(const struct regf_cell_map *m, uint32_t key)
{
    /* Mixed with this process's basis before masking: the cells lie
     * where the hive's writer put them, and offsets chosen to agree in
     * their low bits would share a slot under a fixed multiplier. */
    size_t i = (size_t)rt_os_hash_mix(key ^ rt_os_hash_basis()) &
               (m->cap - 1);
    while (m->slot[i] && key_of(m->slot[i]) != key)
        i = (i + 1) & (m->cap - 1);
    return &m->slot[i];
}

void *regf_cell_map_find(const struct regf_cell_map *m, uint32_t key)
{
    return m->cap ? *slot_of(m, key) : NULL;
}

int regf_cell_map_put(struct regf_cell_map *m, void *entry,
                      void (*free_entry)(void *))
{
    if (2 * (m->used + 1) > m->cap) {
        struct regf_cell_map grown = {NULL, m->cap ? 2 * m->cap : 64, m->used};
        if (!(grown.slot = calloc(grown.cap, sizeof *grown.slot)))
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->slot[i])
                *slot_of(&grown, key_of(m->slot[i])) = m->slot[i];
        free(m->slot);
        *m = grown;
    }
    void **s = slot_of(m, key_of(entry));
    if (*s)
        free_entry(*s);
    else
        m->used++;
    *s = entry;
    return 0;
}

void regf_cell_map_drop(struct regf_cell_map *m, uint32_t key,
                        void (*free_entry)(void *))
{
    if (!m->cap)
        return;
    void **s = slot_of(m, key);
    if (!*s)
        return;
    free_entry(*s);
    *s = NULL;
    m->used--;
    /* Open addressing: the entries after the hole move up if their home
     * lies at or before it. */
    size_t hole = (size_t)(s - m->slot);
    for (size_t i = (hole + 1) & (m->cap - 1); m->slot[i];
         i = (i + 1) & (m->cap - 1)) {
        void *e = m->slot[i];
        m->slot[i] = NULL;
        *slot_of(m, key_of(e)) = e;
    }
}

void regf_cell_map_clear(struct regf_cell_map *m, void (*free_entry)(void *))
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slot[i])
            free_entry(m->slot[i]);
    free(m->slot);
    *m = (struct regf_cell_map){NULL, 0, 0};
}
