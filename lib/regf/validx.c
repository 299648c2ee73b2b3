/* Hive-file layer: value indexes. A key's value names, upper-cased and
 * sorted, built from its validated value list the first time a name is
 * looked up in a key with more than REGF_VALIDX_MIN values: a key given
 * tens of thousands of values (a hostile hive or tree) is then searched
 * by bisection, not scanned for every value set or read. A key's value
 * list is in the order values were added, not sorted, so each value set
 * would otherwise scan it, and recount the largest name and data over
 * every value, making the filling of one key quadratic.
 *
 * The names are held as sorted runs whose lengths are the bits of the
 * value count, largest first (the logarithmic method): a new value is
 * appended as a run of one and equal runs are merged, so an addition
 * costs O(log n) amortized and a look-up bisects each of at most 32
 * runs. The data sizes of the values are held in a max-heap with a heap
 * of the sizes replaced beside it (removed lazily), so that the key's
 * largest-data field stays exact when its largest value shrinks.
 *
 * An index holds cell offsets and copies of names, never pointers into
 * the image. It is used while the key node's value-list and count fields
 * are those it was built from or updated to; value deletion and key
 * deletion drop it, and a hit is confirmed against the value record it
 * names before it is returned. */
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"
#include "regf/regf_internal.h"

struct validx_item {
    uint32_t cell;
    uint32_t pos;       /* place in the value list */
    uint32_t len;       /* name length in UTF-16 units */
    uint32_t at;        /* name's first unit in NAMES */
};

struct size_heap {
    uint32_t *v;
    size_t n, cap;
};

struct regf_validx {
    uint32_t key, list, count;
    struct validx_item *item, *tmp;
    size_t cap;                 /* of ITEM and TMP */
    uint16_t *names;
    size_t names_len, names_cap;
    uint32_t max_name;          /* bytes, as the key node's field */
    /* A value of the list does not read: the list is scanned (as far as
     * each look-up needs) until it changes, not indexed again each time. */
    int broken;
    struct size_heap live, dead;
};

static void validx_free(void *p)
{
    struct regf_validx *x = p;
    if (!x)
        return;
    free(x->item);
    free(x->tmp);
    free(x->names);
    free(x->live.v);
    free(x->dead.v);
    free(x);
}

void regf_validx_drop_all(struct rt_regf *h)
{
    regf_cell_map_clear(&h->validx, validx_free);
}

void regf_validx_drop(struct rt_regf *h, uint32_t key)
{
    regf_cell_map_drop(&h->validx, key, validx_free);
}

static int validx_put(struct rt_regf *h, struct regf_validx *x)
{
    return regf_cell_map_put(&h->validx, x, validx_free) == 0
               ? 0
               : regf_fail(h, RT_REGF_ENOMEM, "out of memory");
}

/* --- the heaps of data sizes ------------------------------------------ */

static int heap_push(struct size_heap *p, uint32_t v)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 16;
        uint32_t *g = realloc(p->v, cap * sizeof *g);
        if (!g)
            return -1;
        p->v = g;
        p->cap = cap;
    }
    size_t i = p->n++;
    while (i > 0 && p->v[(i - 1) / 2] < v) {
        p->v[i] = p->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    p->v[i] = v;
    return 0;
}

static void heap_pop(struct size_heap *p)
{
    uint32_t v = p->v[--p->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= p->n)
            break;
        if (c + 1 < p->n && p->v[c + 1] > p->v[c])
            c++;
        if (p->v[c] <= v)
            break;
        p->v[i] = p->v[c];
        i = c;
    }
    if (p->n)
        p->v[i] = v;
}

/* The largest size held: LIVE's largest not cancelled by DEAD. */
static uint32_t max_data(struct regf_validx *x)
{
    while (x->dead.n && x->live.n && x->live.v[0] == x->dead.v[0]) {
        heap_pop(&x->live);
        heap_pop(&x->dead);
    }
    return x->live.n ? x->live.v[0] : 0;
}

/* --- the sorted runs -------------------------------------------------- */

static int item_cmp(const struct regf_validx *x, const struct validx_item *a,
                    const struct validx_item *b)
{
    int c = regf_name_cmp16(x->names + a->at, a->len, x->names + b->at,
                            b->len);
    /* Equal names (a damaged hive) keep their stored order: the first
     * is found, as a scan of the list finds it. */
    return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Merges the sorted runs [A, M) and [M, E) of X's items. */
static void merge_runs(struct regf_validx *x, size_t a, size_t m, size_t e)
{
    memcpy(x->tmp, x->item + a, (m - a) * sizeof *x->tmp);
    size_t i = 0, n = m - a, j = m, o = a;
    while (i < n && j < e)
        x->item[o++] = item_cmp(x, &x->tmp[i], &x->item[j]) <= 0
                           ? x->tmp[i++] : x->item[j++];
    while (i < n)
        x->item[o++] = x->tmp[i++];
}

/* Sorts X's first N items: runs of 1, 2, 4 ... merged bottom up. */
static void sort_items(struct regf_validx *x, size_t n)
{
    for (size_t w = 1; w < n; w *= 2)
        for (size_t a = 0; a + w < n; a += 2 * w)
            merge_runs(x, a, a + w, a + 2 * w < n ? a + 2 * w : n);
}

static int grow_items(struct regf_validx *x, size_t want)
{
    if (want <= x->cap)
        return 0;
    size_t cap = x->cap ? x->cap : 16;
    while (cap < want)
        cap *= 2;
    struct validx_item *a = realloc(x->item, cap * sizeof *a);
    if (!a)
        return -1;
    x->item = a;
    struct validx_item *b = realloc(x->tmp, cap * sizeof *b);
    if (!b)
        return -1;
    x->tmp = b;
    x->cap = cap;
    return 0;
}

static int add_name(struct regf_validx *x, const uint16_t *up, size_t upn,
                    uint32_t *at)
{
    if (x->names_len + upn > x->names_cap) {
        size_t cap = 2 * (x->names_len + upn) + 16;
        uint16_t *v = realloc(x->names, cap * sizeof *v);
        if (!v)
            return -1;
        x->names = v;
        x->names_cap = cap;
    }
    if (upn)
        memcpy(x->names + x->names_len, up, upn * sizeof *up);
    *at = (uint32_t)x->names_len;
    x->names_len += upn;
    return 0;
}

/* --- building, finding, adding ---------------------------------------- */

/* Builds KEY's index from its value list. */
static int validx_build(struct rt_regf *h, uint32_t key,
                        struct regf_validx **out)
{
    uint32_t *vals;
    size_t n;
    int rc = regf_value_list(h, key, &vals, &n);
    if (rc)
        return rc;
    struct regf_validx *x = calloc(1, sizeof *x);
    if (!x || grow_items(x, n ? n : 1)) {
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *vk;
        uint32_t len;
        if ((rc = regf_vk(h, vals[i], &vk, &len)))
            break;
        int comp = regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME;
        size_t nl = regf_le16(vk + VK_NAMELEN), un = comp ? nl : nl / 2;
        if (x->names_len + un > x->names_cap) {
            size_t cap = 2 * (x->names_len + un) + 16;
            uint16_t *v = realloc(x->names, cap * sizeof *v);
            if (!v) {
                rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
                break;
            }
            x->names = v;
            x->names_cap = cap;
        }
        uint16_t *dst = x->names + x->names_len;
        for (size_t k = 0; k < un; k++)
            dst[k] = rt_upcase16(comp ? vk[VK_NAME + k]
                                      : regf_le16(vk + VK_NAME + 2 * k));
        x->item[i] = (struct validx_item){vals[i], (uint32_t)i, (uint32_t)un,
                                          (uint32_t)x->names_len};
        x->names_len += un;
        if (2 * un > x->max_name)
            x->max_name = (uint32_t)(2 * un);
        if (heap_push(&x->live, regf_le32(vk + VK_DATALEN) & ~VK_DATA_INLINE))
            rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    if (rc == RT_REGF_ECORRUPT) {
        x->broken = 1;
        rc = 0;
    }
    if (rc)
        goto out;
    if (!x->broken)
        sort_items(x, n);
    uint8_t *nk;
    uint32_t len;
    regf_nk(h, key, &nk, &len);
    x->key = key;
    x->list = regf_le32(nk + NK_VALLIST);
    x->count = (uint32_t)n;
    rc = validx_put(h, x);
out:
    free(vals);
    if (rc) {
        validx_free(x);
        return rc;
    }
    *out = x->broken ? NULL : x;
    return 0;
}

/* KEY's index, broken or not, when it describes the key node as it is. */
static struct regf_validx *validx_fresh(struct rt_regf *h, uint32_t key)
{
    struct regf_validx *x = regf_cell_map_find(&h->validx, key);
    uint8_t *nk;
    uint32_t len;
    if (!x || regf_nk(h, key, &nk, &len) ||
        (regf_le16(nk + NK_FLAGS) & KEY_PREDEF_HANDLE) ||
        x->list != regf_le32(nk + NK_VALLIST) ||
        x->count != regf_le32(nk + NK_NVAL))
        return NULL;
    return x;
}

struct regf_validx *regf_validx_current(struct rt_regf *h, uint32_t key)
{
    struct regf_validx *x = validx_fresh(h, key);
    return x && !x->broken ? x : NULL;
}

int regf_validx_get(struct rt_regf *h, uint32_t key, struct regf_validx **x)
{
    uint8_t *nk;
    uint32_t len;
    *x = NULL;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    if ((regf_le16(nk + NK_FLAGS) & KEY_PREDEF_HANDLE) ||
        regf_le32(nk + NK_NVAL) <= REGF_VALIDX_MIN)
        return 0;
    struct regf_validx *fresh = validx_fresh(h, key);
    if (fresh) {
        *x = fresh->broken ? NULL : fresh;
        return 0;
    }
    return validx_build(h, key, x);
}

/* The first position in run [A, E) of X whose name is not below UP. */
static size_t run_lower(const struct regf_validx *x, size_t a, size_t e,
                        const uint16_t *up, size_t upn)
{
    while (a < e) {
        size_t mid = a + (e - a) / 2;
        const struct validx_item *it = &x->item[mid];
        if (regf_name_cmp16(x->names + it->at, it->len, up, upn) < 0)
            a = mid + 1;
        else
            e = mid;
    }
    return a;
}

int regf_validx_find(struct rt_regf *h, struct regf_validx *x,
                     const uint16_t *up, size_t upn, uint32_t *value,
                     uint32_t *index)
{
    const struct validx_item *best = NULL;
    size_t start = 0;
    for (int bit = 31; bit >= 0; bit--) {
        size_t size = (size_t)1 << bit;
        if (!(x->count & size))
            continue;
        size_t i = run_lower(x, start, start + size, up, upn);
        const struct validx_item *it = &x->item[i];
        if (i < start + size &&
            !regf_name_cmp16(x->names + it->at, it->len, up, upn) &&
            (!best || it->pos < best->pos))
            best = it;
        start += size;
    }
    if (!best)
        return RT_REGF_ENOTFOUND;
    uint8_t *vk;
    uint32_t len;
    if (regf_vk(h, best->cell, &vk, &len) ||
        regf_stored_name_cmp(vk + VK_NAME, regf_le16(vk + VK_NAMELEN),
                             regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME, up,
                             upn))
        return 1;       /* not this hive's any more: the caller scans */
    *value = best->cell;
    if (index)
        *index = best->pos;
    return 0;
}

int regf_validx_added(struct rt_regf *h, struct regf_validx *x,
                      uint32_t value, const uint16_t *up, size_t upn,
                      uint32_t data_len)
{
    uint32_t at;
    size_t n = x->count;
    if (grow_items(x, n + 1) || add_name(x, up, upn, &at) ||
        heap_push(&x->live, data_len))
        return -1;
    x->item[n] = (struct validx_item){value, (uint32_t)n, (uint32_t)upn, at};
    /* The runs follow the bits of the count: adding one carries through
     * its low set bits, each carry a merge of two equal runs. */
    for (size_t size = 1; n & size; size <<= 1)
        merge_runs(x, n + 1 - 2 * size, n + 1 - size, n + 1);
    x->count = (uint32_t)(n + 1);
    if (2 * upn > x->max_name)
        x->max_name = (uint32_t)(2 * upn);
    uint8_t *nk;
    uint32_t len;
    if (regf_nk(h, x->key, &nk, &len))
        return -1; /* never: rt_regf_value_set read this key node */
    x->list = regf_le32(nk + NK_VALLIST);
    return 0;
}

int regf_validx_resized(struct regf_validx *x, uint32_t old_len,
                        uint32_t new_len)
{
    if (old_len == new_len)
        return 0;
    if (heap_push(&x->live, new_len) || heap_push(&x->dead, old_len))
        return -1;
    /* Replaced sizes that never reach the top pile up: past the count,
     * the index is rebuilt (on its next use) rather than kept. */
    max_data(x);
    return x->dead.n > (size_t)x->count + 64 ? -1 : 0;
}

void regf_validx_largest(struct regf_validx *x, uint32_t *name_bytes,
                         uint32_t *data_bytes)
{
    *name_bytes = x->max_name;
    *data_bytes = max_data(x);
}
