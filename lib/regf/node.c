/* Hive-file layer: keys. Validates key nodes, reads their names (ASCII
 * "compressed" or UTF-16LE), collects subkey lists (li, lf, lh and ri
 * over leaves) with checks against cycles and absurd counts, looks keys
 * up by path the way Windows compares names, and walks the tree. */
#include <stdlib.h>
#include <string.h>

#include "regf/regf_internal.h"
#include "model/utf16.h"

int regf_nk(struct rt_regf *h, uint32_t key, uint8_t **nk, uint32_t *len)
{
    int rc = regf_cell(h, key, "key node", nk, len);
    if (rc)
        return rc;
    unsigned long long fo = regf_file_off(key);
    if (*len < NK_NAME || memcmp(*nk, "nk", 2))
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "key node at file offset 0x%llx: %s", fo,
                         *len < NK_NAME ? "cell too small for a key node"
                                        : "signature is not 'nk'");
    uint32_t namelen = regf_le16(*nk + NK_NAMELEN);
    if (namelen > *len - NK_NAME)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "key node at file offset 0x%llx: name length %u "
                         "exceeds the cell (%u bytes)", fo, namelen, *len);
    if (!(regf_le16(*nk + NK_FLAGS) & KEY_COMP_NAME) && namelen % 2)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "key node at file offset 0x%llx: UTF-16 name has "
                         "odd length %u", fo, namelen);
    return 0;
}

static uint16_t stored_unit(const uint8_t *name, int compressed, size_t i)
{
    return compressed ? name[i] : regf_le16(name + 2 * i);
}

int regf_stored_name_cmp(const uint8_t *name, size_t len, int compressed,
                         const uint16_t *up, size_t upn)
{
    size_t n = compressed ? len : len / 2;
    for (size_t i = 0; i < n && i < upn; i++) {
        uint16_t a = rt_upcase16(stored_unit(name, compressed, i));
        if (a != up[i])
            return a < up[i] ? -1 : 1;
    }
    return n < upn ? -1 : n > upn;
}

int regf_name_cmp16(const uint16_t *a, size_t an, const uint16_t *b,
                    size_t bn)
{
    for (size_t i = 0; i < an && i < bn; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

uint32_t regf_lh_hash(const uint16_t *up, size_t n)
{
    uint32_t x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 37 + up[i];
    return x;
}

int regf_name_to_utf8(struct rt_regf *h, const uint8_t *name, size_t len,
                      int compressed, uint32_t cell, const char *what,
                      char **out)
{
    if (compressed) {
        /* Compressed names are Latin-1: one byte per UTF-16 unit. */
        char *s = malloc(len * 2 + 1), *p = s;
        if (!s)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        for (size_t i = 0; i < len; i++) {
            if (name[i] < 0x80) {
                *p++ = (char)name[i];
            } else {
                *p++ = (char)(0xC0 | name[i] >> 6);
                *p++ = (char)(0x80 | (name[i] & 0x3F));
            }
        }
        *p = 0;
        *out = s;
        return 0;
    }
    size_t bad;
    int rc = rt_utf16le_to_utf8(name, len, out, NULL, &bad);
    if (rc == -2)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (rc)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s at file offset 0x%llx: name is not valid UTF-16 "
                         "(unpaired surrogate at name byte %zu)", what,
                         (unsigned long long)regf_file_off(cell), bad);
    return 0;
}

int regf_utf8_upcase16(struct rt_regf *h, const char *name, size_t len,
                       uint16_t **out, size_t *n)
{
    uint8_t *u16;
    size_t blen, bad;
    int rc = rt_utf8_to_utf16le(name, len, &u16, &blen, &bad);
    if (rc == -2)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (rc)
        return regf_fail(h, RT_REGF_EINVAL,
                         "name is not valid UTF-8 at byte %zu", bad);
    uint16_t *up = malloc((blen / 2 + 1) * sizeof *up);
    if (!up) {
        free(u16);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < blen / 2; i++)
        up[i] = rt_upcase16(regf_le16(u16 + 2 * i));
    free(u16);
    *out = up;
    *n = blen / 2;
    return 0;
}

int regf_nk_name16(struct rt_regf *h, uint32_t key, uint16_t **name, size_t *n)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    int comp = regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME;
    size_t nl = regf_le16(nk + NK_NAMELEN), units = comp ? nl : nl / 2;
    uint16_t *v = malloc((units + 1) * sizeof *v);
    if (!v)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    for (size_t i = 0; i < units; i++)
        v[i] = stored_unit(nk + NK_NAME, comp, i);
    *name = v;
    *n = units;
    return 0;
}

/* --- subkey lists ---------------------------------------------------- */

struct offs {
    uint32_t *v;
    size_t n, cap, limit;
};

static int offs_push(struct rt_regf *h, struct offs *o, uint32_t x,
                     uint32_t key)
{
    if (o->n >= o->limit)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "key node at file offset 0x%llx: subkey lists hold "
                         "more entries than the key node's count of %zu",
                         (unsigned long long)regf_file_off(key), o->limit);
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        uint32_t *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = x;
    return 0;
}

static int read_leaf(struct rt_regf *h, uint32_t leaf, uint32_t key,
                     uint32_t read, int allow_ri, struct offs *o)
{
    uint8_t *p;
    uint32_t len;
    int rc = regf_cell(h, leaf, "subkey list", &p, &len);
    if (rc)
        return rc;
    unsigned long long fo = regf_file_off(leaf);
    if (len < 4)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "subkey list at file offset 0x%llx: cell too small",
                         fo);
    uint32_t count = regf_le16(p + 2);
    int ri = !memcmp(p, "ri", 2), li = !memcmp(p, "li", 2);
    int fast = !memcmp(p, "lf", 2) || !memcmp(p, "lh", 2);
    if (!ri && !li && !fast)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "subkey list at file offset 0x%llx: signature "
                         "'%c%c' is not li, lf, lh or ri", fo,
                         p[0] >= 0x20 && p[0] < 0x7f ? p[0] : '?',
                         p[1] >= 0x20 && p[1] < 0x7f ? p[1] : '?');
    if (ri && !allow_ri)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "subkey list at file offset 0x%llx: an index root "
                         "(ri) inside an index root", fo);
    /* One key's list alone: N keys naming one list of M keys would
     * otherwise be read, and indexed, as N lists of M. */
    if ((rc = regf_claim(h, leaf, key, read, "subkey list")))
        return rc;
    uint32_t esz = fast ? 8 : 4;
    if ((uint64_t)count * esz > len - 4)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "subkey list at file offset 0x%llx: %u entries do "
                         "not fit in a cell of %u bytes", fo, count, len);
    for (uint32_t i = 0; i < count; i++) {
        uint32_t e = regf_le32(p + 4 + i * esz);
        if (ri) {
            if (e == leaf)
                return regf_fail(h, RT_REGF_ECORRUPT,
                                 "subkey list at file offset 0x%llx: index "
                                 "root lists itself", fo);
            if ((rc = read_leaf(h, e, key, read, 0, o)))
                return rc;
            /* The recursive call may have moved nothing, but re-read P in
             * case a future change lets the image move. */
            if ((rc = regf_cell(h, leaf, "subkey list", &p, &len)))
                return rc;
        } else if ((rc = offs_push(h, o, e, key))) {
            return rc;
        }
    }
    return 0;
}

/* Claims for KEY (in read READ) each of its subkeys O whose parent field
 * names another key: such a key may be listed once more than under its
 * parent (the store reports it, misparented), never under any number of
 * keys, each of which would copy its name into an index. A key listed
 * under its parent needs no claim: its parent has one list. A subkey
 * whose parent field cannot be read is left to whoever reads it. */
static int claim_misparented(struct rt_regf *h, uint32_t key, uint32_t read,
                             const struct offs *o)
{
    for (size_t i = 0; i < o->n; i++) {
        uint32_t sub = o->v[i];
        if (sub >= regf_hbins_size(h) || !regf_is_cell_start(h, sub) ||
            regf_cell_capacity(h, sub) < NK_PARENT + 4)
            continue;
        const uint8_t *nk = regf_bins(h) + sub + 4;
        if (memcmp(nk, "nk", 2) || regf_le32(nk + NK_PARENT) == key)
            continue;
        int rc = regf_claim(h, sub, key, read, "key node");
        if (rc)
            return rc;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int regf_leaf_hint(struct rt_regf *h, int lh, uint32_t key, uint32_t *want)
{
    uint16_t *name;
    size_t nn;
    int rc = regf_nk_name16(h, key, &name, &nn);
    if (rc)
        return rc;
    *want = 0;
    if (lh) {
        for (size_t k = 0; k < nn; k++)
            name[k] = rt_upcase16(name[k]);
        *want = regf_lh_hash(name, nn);
    } else {
        uint8_t b[4] = {0, 0, 0, 0};
        int ok = 1;
        for (size_t k = 0; k < 4 && k < nn; k++) {
            if (name[k] > 0xFF)
                ok = 0;
            b[k] = (uint8_t)name[k];
        }
        *want = ok ? regf_le32(b) : 0;
    }
    free(name);
    return 0;
}

/* CHILD's entry in the subkey list LIST (below an index root when
 * ALLOW_RI): *FOUND when there, *HINTED when its stored hash or hint is
 * its name's (an li list keeps none). */
static int hinted_in(struct rt_regf *h, uint32_t list, uint32_t child,
                     int allow_ri, int *found, int *hinted)
{
    uint8_t *p;
    uint32_t len;
    int rc = regf_cell(h, list, "subkey list", &p, &len);
    if (rc)
        return rc;
    if (len < 4)
        return regf_fail(h, RT_REGF_ECORRUPT, "subkey list at file offset "
                         "0x%llx: cell too small",
                         (unsigned long long)regf_file_off(list));
    uint32_t n = regf_le16(p + 2);
    int ri = !memcmp(p, "ri", 2), lh = !memcmp(p, "lh", 2);
    int fast = lh || !memcmp(p, "lf", 2);
    uint32_t esz = fast ? 8 : 4;
    for (uint32_t i = 0; i < n && 4 + (uint64_t)esz * (i + 1) <= len; i++) {
        uint32_t e = regf_le32(p + 4 + esz * i);
        if (ri && allow_ri && e != list) {
            if ((rc = hinted_in(h, e, child, 0, found, hinted)) || *found)
                return rc;
            if ((rc = regf_cell(h, list, "subkey list", &p, &len)))
                return rc;
            continue;
        }
        if (ri || e != child)
            continue;
        uint32_t stored = fast ? regf_le32(p + 8 + esz * i) : 0, want = 0;
        if (fast && (rc = regf_leaf_hint(h, lh, child, &want)))
            return rc;
        *found = 1;
        *hinted = want == stored;
        return 0;
    }
    return 0;
}

/* Whether KEY's subkeys are listed in Windows' (upper-case) order, which
 * its look-up searches them by: *ORDERED. 0, or an error code. */
static int in_order(struct rt_regf *h, uint32_t key, int *ordered)
{
    uint32_t *subs;
    size_t n;
    int rc = regf_subkey_list(h, key, &subs, &n);
    if (rc)
        return rc;
    uint16_t *prev = NULL;
    size_t prevn = 0;
    *ordered = 1;
    for (size_t i = 0; i < n && *ordered && !rc; i++) {
        uint16_t *name;
        size_t nn;
        if ((rc = regf_nk_name16(h, subs[i], &name, &nn)))
            break;
        for (size_t k = 0; k < nn; k++)
            name[k] = rt_upcase16(name[k]);
        if (prev && regf_name_cmp16(prev, prevn, name, nn) > 0)
            *ordered = 0;
        free(prev);
        prev = name;
        prevn = nn;
    }
    free(prev);
    free(subs);
    return rc;
}

int rt_regf_subkey_hinted(struct rt_regf *h, uint32_t parent, uint32_t child,
                          int *hinted)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, parent, &nk, &len);
    *hinted = 0;
    if (rc)
        return rc;
    int found = 0, ordered = 1;
    if (regf_le32(nk + NK_NSUB) == 0)
        return 0;
    rc = hinted_in(h, regf_le32(nk + NK_SUBLIST), child, 1, &found, hinted);
    /* A list out of order hides a key from Windows' binary search as a
     * wrong hash does (review 51 R51-7). */
    if (!rc && *hinted && (rc = in_order(h, parent, &ordered)) == 0 &&
        !ordered)
        *hinted = 0;
    return rc;
}

int regf_subkey_list(struct rt_regf *h, uint32_t key, uint32_t **keys,
                     size_t *n)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    uint32_t count = regf_le32(nk + NK_NSUB), list = regf_le32(nk + NK_SUBLIST);
    *keys = NULL;
    *n = 0;
    if (count == 0)
        return 0;
    /* Every subkey is a distinct key-node cell of at least 80 bytes. */
    struct offs o = {NULL, 0, 0, count};
    if (o.limit > regf_hbins_size(h) / 80)
        o.limit = regf_hbins_size(h) / 80;
    uint32_t read = ++h->reads;
    rc = read_leaf(h, list, key, read, 1, &o);
    if (!rc && o.n != count)
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "key node at file offset 0x%llx: says %u subkeys, its "
                       "subkey list holds %zu",
                       (unsigned long long)regf_file_off(key), count, o.n);
    if (!rc && o.n > 1) {
        uint32_t *sorted = malloc(o.n * sizeof *sorted);
        if (!sorted) {
            rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        } else {
            memcpy(sorted, o.v, o.n * sizeof *sorted);
            qsort(sorted, o.n, sizeof *sorted, cmp_u32);
            for (size_t i = 1; i < o.n && !rc; i++)
                if (sorted[i] == sorted[i - 1])
                    rc = regf_fail(h, RT_REGF_ECORRUPT,
                                   "key node at file offset 0x%llx: its "
                                   "subkey lists name the key at file offset "
                                   "0x%llx twice",
                                   (unsigned long long)regf_file_off(key),
                                   (unsigned long long)regf_file_off(sorted[i]));
            free(sorted);
        }
    }
    for (size_t i = 0; i < o.n && !rc; i++)
        if (o.v[i] == key)
            rc = regf_fail(h, RT_REGF_ECORRUPT,
                           "key node at file offset 0x%llx: lists itself as "
                           "a subkey", (unsigned long long)regf_file_off(key));
    if (!rc)
        rc = claim_misparented(h, key, read, &o);
    if (rc) {
        free(o.v);
        return rc;
    }
    *keys = o.v;
    *n = o.n;
    return 0;
}

int rt_regf_subkeys(struct rt_regf *h, uint32_t key, uint32_t **keys,
                    size_t *n)
{
    return regf_subkey_list(h, key, keys, n);
}

/* --- subkey index ----------------------------------------------------
 * A key's subkeys sorted by upper-cased name, built from its validated
 * subkey list the first time a name is looked up in it: a key with
 * thousands of subkeys (Services, Perflib) is then searched by bisection
 * instead of having its list read, checked and scanned again for every
 * value read below it. Only keys with more than REGF_SUBIDX_MIN subkeys
 * get one: a short list is scanned as fast as an index is searched.
 *
 * An index holds cell offsets and copies of names, never pointers into
 * the image (which moves when it grows). It is used while the hive's
 * key generation (bumped by key deletion, which frees lists and key
 * nodes, write_key.c) and the key node's list and count fields are those it
 * was built from. Key creation changes one list only, its parent's, and
 * adds the new key to the parent's index rather than dropping it, so that
 * filling a key with subkeys stays O(n log n). A hit is confirmed against
 * the key node it names before it is returned. */

#define REGF_SUBIDX_MIN 8u

struct subidx_item {
    uint32_t cell;
    uint32_t len;       /* name length in UTF-16 units */
    size_t at;          /* name's first unit in the index's NAMES */
};

struct regf_subidx {
    uint32_t key, list, count;
    uint64_t gen;
    struct subidx_item *item;
    size_t n, cap;
    uint16_t *names;    /* upper-cased names, one after the other */
    size_t names_len, names_cap;
};

static void subidx_free(void *p)
{
    struct regf_subidx *x = p;
    if (!x)
        return;
    free(x->item);
    free(x->names);
    free(x);
}

void regf_subidx_drop_all(struct rt_regf *h)
{
    regf_cell_map_clear(&h->subidx, subidx_free);
}

static struct regf_subidx *subidx_find(struct rt_regf *h, uint32_t key)
{
    return regf_cell_map_find(&h->subidx, key);
}

/* Stores X (for X->key) in the map, replacing an older index of the key;
 * the map grows at half full. */
static int subidx_put(struct rt_regf *h, struct regf_subidx *x)
{
    return regf_cell_map_put(&h->subidx, x, subidx_free) == 0
               ? 0
               : regf_fail(h, RT_REGF_ENOMEM, "out of memory");
}

struct sort_item {
    const uint16_t *name;
    uint32_t len, pos, cell;
};

static int sort_item_cmp(const void *a, const void *b)
{
    const struct sort_item *x = a, *y = b;
    int c = regf_name_cmp16(x->name, x->len, y->name, y->len);
    /* Equal names (a damaged hive) keep their stored order: the first
     * is found, as a scan of the list finds it. */
    return c ? c : x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const uint16_t *item_name(const struct regf_subidx *x, size_t i)
{
    return x->names + x->item[i].at;
}

/* The first position in X whose name is not below UP. */
static size_t subidx_lower(const struct regf_subidx *x, const uint16_t *up,
                           size_t upn)
{
    size_t lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (regf_name_cmp16(item_name(x, mid), x->item[mid].len, up, upn) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Builds KEY's index from its subkey list (checked as regf_subkey_list
 * checks it) with LIST and COUNT its key node's fields. */
static int subidx_build(struct rt_regf *h, uint32_t key, uint32_t list,
                        uint32_t count, struct regf_subidx **out)
{
    uint32_t *subs;
    size_t n;
    int rc = regf_subkey_list(h, key, &subs, &n);
    if (rc)
        return rc;
    struct regf_subidx *x = calloc(1, sizeof *x);
    struct sort_item *tmp = malloc((n ? n : 1) * sizeof *tmp);
    size_t units = 0;
    if (!x || !tmp) {
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *nk;
        uint32_t len;
        if (!(rc = regf_nk(h, subs[i], &nk, &len)))
            units += regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME
                         ? regf_le16(nk + NK_NAMELEN)
                         : regf_le16(nk + NK_NAMELEN) / 2u;
    }
    if (rc)
        goto out;
    x->item = malloc((n ? n : 1) * sizeof *x->item);
    x->names = malloc((units ? units : 1) * sizeof *x->names);
    if (!x->item || !x->names) {
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        goto out;
    }
    x->cap = n ? n : 1;
    x->names_cap = units ? units : 1;
    for (size_t i = 0; i < n; i++) {
        uint8_t *nk;
        uint32_t len;
        regf_nk(h, subs[i], &nk, &len);
        int comp = regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME;
        size_t nl = regf_le16(nk + NK_NAMELEN), un = comp ? nl : nl / 2;
        uint16_t *dst = x->names + x->names_len;
        for (size_t k = 0; k < un; k++)
            dst[k] = rt_upcase16(stored_unit(nk + NK_NAME, comp, k));
        tmp[i] = (struct sort_item){dst, (uint32_t)un, (uint32_t)i, subs[i]};
        x->names_len += un;
    }
    qsort(tmp, n, sizeof *tmp, sort_item_cmp);
    for (size_t i = 0; i < n; i++)
        x->item[i] = (struct subidx_item){tmp[i].cell, tmp[i].len,
                                          (size_t)(tmp[i].name - x->names)};
    x->n = n;
    x->key = key;
    x->list = list;
    x->count = count;
    x->gen = h->keys_gen;
    rc = subidx_put(h, x);
out:
    free(tmp);
    free(subs);
    if (rc) {
        subidx_free(x);
        return rc;
    }
    *out = x;
    return 0;
}

/* KEY's index as its key node (NK) now is: kept, or built anew. */
static int subidx_current(struct rt_regf *h, uint32_t key, const uint8_t *nk,
                          struct regf_subidx **out)
{
    uint32_t count = regf_le32(nk + NK_NSUB), list = regf_le32(nk + NK_SUBLIST);
    struct regf_subidx *x = subidx_find(h, key);
    if (x && x->gen == h->keys_gen && x->list == list && x->count == count) {
        *out = x;
        return 0;
    }
    return subidx_build(h, key, list, count, out);
}

/* The scan of KEY's list, for short lists. */
static int find_by_scan(struct rt_regf *h, uint32_t key, const uint16_t *up,
                        size_t upn, uint32_t *found)
{
    uint32_t *subs;
    size_t n;
    int rc = regf_subkey_list(h, key, &subs, &n);
    if (rc)
        return rc;
    rc = RT_REGF_ENOTFOUND;
    for (size_t i = 0; i < n; i++) {
        uint8_t *nk;
        uint32_t len;
        int r = regf_nk(h, subs[i], &nk, &len);
        if (r) {
            rc = r;
            break;
        }
        if (!regf_stored_name_cmp(nk + NK_NAME, regf_le16(nk + NK_NAMELEN),
                                  regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME,
                                  up, upn)) {
            *found = subs[i];
            rc = 0;
            break;
        }
    }
    free(subs);
    return rc;
}

int regf_find_subkey(struct rt_regf *h, uint32_t key, const uint16_t *up,
                     size_t upn, uint32_t *found)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    if (regf_le32(nk + NK_NSUB) <= REGF_SUBIDX_MIN)
        return find_by_scan(h, key, up, upn, found);
    struct regf_subidx *x;
    if ((rc = subidx_current(h, key, nk, &x)))
        return rc;
    size_t i = subidx_lower(x, up, upn);
    if (i == x->n || regf_name_cmp16(item_name(x, i), x->item[i].len, up, upn))
        return RT_REGF_ENOTFOUND;
    /* The key node must still say so: else the index is not this hive's
     * any more, and the list is read as it is. */
    uint8_t *sub;
    if (regf_nk(h, x->item[i].cell, &sub, &len) ||
        regf_stored_name_cmp(sub + NK_NAME, regf_le16(sub + NK_NAMELEN),
                             regf_le16(sub + NK_FLAGS) & KEY_COMP_NAME, up,
                             upn)) {
        h->keys_gen++;
        return find_by_scan(h, key, up, upn, found);
    }
    *found = x->item[i].cell;
    return 0;
}

void regf_subidx_prepare(struct rt_regf *h, uint32_t key,
                         struct regf_subidx_mark *mark)
{
    uint8_t *nk;
    uint32_t len;
    struct regf_subidx *x = subidx_find(h, key);
    mark->kept = x && x->gen == h->keys_gen && !regf_nk(h, key, &nk, &len) &&
                 x->list == regf_le32(nk + NK_SUBLIST) &&
                 x->count == regf_le32(nk + NK_NSUB);
}

void regf_subidx_added(struct rt_regf *h, uint32_t parent, uint32_t child,
                       const uint16_t *up, size_t upn,
                       const struct regf_subidx_mark *mark)
{
    /* Only PARENT's list changed (the new key and list cells came from
     * free space): the other indexes stay. PARENT's gets the new key, or
     * is retired when it was not current or cannot grow. */
    struct regf_subidx *x = subidx_find(h, parent);
    uint8_t *nk;
    uint32_t len;
    if (!x)
        return;
    x->gen = h->keys_gen - 1;
    if (!mark->kept || regf_nk(h, parent, &nk, &len))
        return;
    if (x->n == x->cap) {
        size_t cap = 2 * x->cap;
        struct subidx_item *v = realloc(x->item, cap * sizeof *v);
        if (!v)
            return;
        x->item = v;
        x->cap = cap;
    }
    if (x->names_len + upn > x->names_cap) {
        size_t cap = 2 * (x->names_len + upn);
        uint16_t *v = realloc(x->names, cap * sizeof *v);
        if (!v)
            return;
        x->names = v;
        x->names_cap = cap;
    }
    memcpy(x->names + x->names_len, up, upn * sizeof *up);
    /* After the names equal to it: a new key's name is new, so none. */
    size_t i = subidx_lower(x, up, upn);
    memmove(x->item + i + 1, x->item + i, (x->n - i) * sizeof *x->item);
    x->item[i] = (struct subidx_item){child, (uint32_t)upn, x->names_len};
    x->names_len += upn;
    x->n++;
    x->list = regf_le32(nk + NK_SUBLIST);
    x->count = regf_le32(nk + NK_NSUB);
    x->gen = h->keys_gen;
}

int rt_regf_lookup(struct rt_regf *h, uint32_t from, const char *path,
                   uint32_t *key)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, from, &nk, &len);
    if (rc)
        return rc;
    uint32_t cur = from;
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, '\\');
        size_t clen = e ? (size_t)(e - p) : strlen(p);
        if (clen) {
            uint16_t *up;
            size_t upn;
            if ((rc = regf_utf8_upcase16(h, p, clen, &up, &upn)))
                return rc;
            uint32_t next;
            rc = regf_find_subkey(h, cur, up, upn, &next);
            free(up);
            if (rc == RT_REGF_ENOTFOUND)
                return regf_fail(h, rc, "key '%.*s' not found in '%s'",
                                 (int)clen, p, path);
            if (rc)
                return rc;
            cur = next;
        }
        p += clen;
        if (*p == '\\')
            p++;
    }
    *key = cur;
    return 0;
}

int rt_regf_key_info(struct rt_regf *h, uint32_t key,
                     struct rt_regf_key_info *info)
{
    uint8_t *nk;
    uint32_t len;
    memset(info, 0, sizeof *info);
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    uint16_t flags = regf_le16(nk + NK_FLAGS);
    info->flags = flags;
    info->mtime = regf_le64(nk + NK_MTIME);
    info->parent = regf_le32(nk + NK_PARENT);
    info->n_subkeys = regf_le32(nk + NK_NSUB);
    info->security = regf_le32(nk + NK_SECURITY);
    info->class_len = regf_le16(nk + NK_CLASSLEN);
    if (flags & KEY_PREDEF_HANDLE) {
        info->predefined = 1;
        info->predef_handle = regf_le32(nk + NK_NVAL);
    } else {
        info->n_values = regf_le32(nk + NK_NVAL);
    }
    return regf_name_to_utf8(h, nk + NK_NAME, regf_le16(nk + NK_NAMELEN),
                             flags & KEY_COMP_NAME, key, "key node",
                             &info->name);
}

int rt_regf_key_class(struct rt_regf *h, uint32_t key, char **cls)
{
    uint8_t *nk, *p;
    uint32_t len, plen;
    *cls = NULL;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    uint32_t clen = regf_le16(nk + NK_CLASSLEN), off = regf_le32(nk + NK_CLASS);
    if (clen == 0)
        return 0;
    if ((rc = regf_cell(h, off, "class name", &p, &plen)))
        return rc;
    if (clen > plen || clen % 2)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "class name at file offset 0x%llx: length %u does "
                         "not fit its cell of %u bytes",
                         (unsigned long long)regf_file_off(off), clen, plen);
    return regf_name_to_utf8(h, p, clen, 0, off, "class name", cls);
}

int rt_regf_key_link_target(struct rt_regf *h, uint32_t key, char **target)
{
    uint32_t v, type;
    uint8_t *data = NULL;
    size_t len, at;
    *target = NULL;
    int rc = rt_regf_value_find(h, key, "SymbolicLinkValue", &v);
    if (rc == RT_REGF_ENOTFOUND)
        return 0;
    if (rc || (rc = rt_regf_value_read(h, v, &type, &data, &len)))
        return rc;
    /* Stored without a terminator; one there is not part of the name. */
    while (len >= 2 && !data[len - 2] && !data[len - 1])
        len -= 2;
    int r = len && len % 2 == 0 ? rt_utf16le_to_utf8(data, len, target, NULL, &at)
                                : -1;
    free(data);
    if (r == -2)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (r != 0)
        *target = NULL;
    return 0;
}

int rt_regf_key_path(struct rt_regf *h, uint32_t key, char **path)
{
    char *names[REGF_MAX_DEPTH];
    size_t depth = 0, total = 1;
    int rc = 0;
    *path = NULL;
    for (uint32_t at = key;; depth++) {
        struct rt_regf_key_info ki;
        if (depth == REGF_MAX_DEPTH) {
            rc = regf_fail(h, RT_REGF_ECORRUPT,
                           "key node at file offset 0x%llx: its parents do "
                           "not reach the root within %u levels",
                           (unsigned long long)regf_file_off(key),
                           REGF_MAX_DEPTH);
            break;
        }
        if ((rc = rt_regf_key_info(h, at, &ki)))
            break;
        if (at == rt_regf_root(h) || (ki.flags & KEY_HIVE_ENTRY)) {
            rt_regf_key_info_free(&ki);
            break;
        }
        names[depth] = ki.name;   /* kept: freed below */
        total += strlen(ki.name) + 1;
        at = ki.parent;
    }
    if (!rc && !(*path = malloc(total)))
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (*path) {
        char *p = *path;
        for (size_t i = depth; i-- > 0;) {
            size_t n = strlen(names[i]);
            memcpy(p, names[i], n);
            p += n;
            if (i)
                *p++ = '\\';
        }
        *p = '\0';
    }
    for (size_t i = 0; i < depth; i++)
        free(names[i]);
    return rc;
}

void rt_regf_key_info_free(struct rt_regf_key_info *info)
{
    free(info->name);
    info->name = NULL;
}

/* --- walk ------------------------------------------------------------ */

struct frame {
    uint32_t *subs;
    size_t n, i;
};

int rt_regf_walk(struct rt_regf *h, uint32_t key,
                 int (*fn)(void *ctx, uint32_t key, unsigned depth),
                 void *ctx)
{
    size_t words = ((size_t)regf_hbins_size(h) / 8 + 63) / 64;
    uint64_t *seen = calloc(words ? words : 1, sizeof *seen);
    struct frame *stack = calloc(REGF_MAX_DEPTH + 1, sizeof *stack);
    int rc = 0;
    size_t depth = 0;
    if (!seen || !stack) {
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        goto out;
    }
    uint32_t cur = key;
    for (;;) {
        /* Visit CUR at DEPTH, then descend into its subkeys. */
        uint8_t *nk;
        uint32_t len;
        if ((rc = regf_nk(h, cur, &nk, &len)))
            goto out;
        if (seen[cur / 8 / 64] >> (cur / 8 % 64) & 1) {
            rc = regf_fail(h, RT_REGF_ECORRUPT,
                           "key node at file offset 0x%llx: reached twice "
                           "(cycle in the key tree)",
                           (unsigned long long)regf_file_off(cur));
            goto out;
        }
        seen[cur / 8 / 64] |= (uint64_t)1 << (cur / 8 % 64);
        if ((rc = fn(ctx, cur, (unsigned)depth)))
            goto out;
        if (depth == REGF_MAX_DEPTH) {
            rc = regf_fail(h, RT_REGF_ECORRUPT,
                           "key node at file offset 0x%llx: keys nested "
                           "deeper than %u levels",
                           (unsigned long long)regf_file_off(cur),
                           REGF_MAX_DEPTH);
            goto out;
        }
        struct frame *f = &stack[depth];
        if ((rc = regf_subkey_list(h, cur, &f->subs, &f->n)))
            goto out;
        f->i = 0;
        depth++;
        /* Pop finished frames, pick the next key to visit. */
        for (;;) {
            f = &stack[depth - 1];
            if (f->i < f->n) {
                cur = f->subs[f->i++];
                break;
            }
            free(f->subs);
            f->subs = NULL;
            if (--depth == 0)
                goto out;
        }
    }
out:
    if (stack)
        for (size_t i = 0; i < depth; i++)
            free(stack[i].subs);
    free(stack);
    free(seen);
    return rc;
}
