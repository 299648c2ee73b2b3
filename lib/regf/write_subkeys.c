/* Hive-file layer: subkey lists kept sorted the way Windows compares
 * names, with lf hints or lh hashes, split under an ri index root when a
 * leaf fills up; a key's subkey counters and largest-name fields kept
 * true. */
#include "regf/write_internal.h"

#include <stdlib.h>
#include <string.h>

#include "platform/compat.h"
#include "model/utf16.h"

void regf_ents_free(struct ents *e)
{
    free(e->off);
    free(e->hint);
    e->off = e->hint = NULL;
}

static uint32_t kind_esz(char kind)
{
    return kind == 'f' || kind == 'h' ? 8 : 4;
}

int regf_ents_load(struct rt_regf *h, uint32_t cell, struct ents *e)
{
    uint8_t *p;
    uint32_t len;
    memset(e, 0, sizeof *e);
    int rc = regf_cell(h, cell, "subkey list", &p, &len);
    if (rc)
        return rc;
    e->kind = len < 4 ? 0 : !memcmp(p, "li", 2) ? 'i' : !memcmp(p, "lf", 2) ? 'f'
            : !memcmp(p, "lh", 2) ? 'h' : !memcmp(p, "ri", 2) ? 'r' : 0;
    uint32_t count = len < 4 ? 0 : regf_le16(p + 2), esz = kind_esz(e->kind);
    if (!e->kind || (uint64_t)count * esz > len - 4)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "subkey list at file offset 0x%llx: not a valid "
                         "li/lf/lh/ri list",
                         (unsigned long long)regf_file_off(cell));
    /* One spare slot for an insertion. */
    e->off = malloc((count + 1) * sizeof *e->off);
    e->hint = malloc((count + 1) * sizeof *e->hint);
    if (!e->off || !e->hint) {
        regf_ents_free(e);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < count; i++) {
        e->off[i] = regf_le32(p + 4 + i * esz);
        e->hint[i] = esz == 8 ? regf_le32(p + 8 + i * esz) : 0;
    }
    e->n = count;
    return 0;
}

/* Writes entries [FROM, FROM+N) of E as a list of E's kind into *CELL:
 * in place when it fits, else in a new cell (the old one freed). */
static int ents_write(struct rt_regf *h, const struct ents *e, size_t from,
                      size_t n, uint32_t *cell)
{
    uint32_t esz = kind_esz(e->kind), need = 4 + (uint32_t)n * esz;
    uint8_t *buf = malloc(need);
    if (!buf)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    buf[0] = e->kind == 'r' ? 'r' : 'l';
    buf[1] = e->kind == 'r' ? 'i' : e->kind;
    regf_put16(buf + 2, (uint16_t)n);
    for (size_t i = 0; i < n; i++) {
        regf_put32(buf + 4 + i * esz, e->off[from + i]);
        if (esz == 8)
            regf_put32(buf + 8 + i * esz, e->hint[from + i]);
    }
    int rc = 0;
    if (*cell != RT_REGF_NONE && regf_cell_capacity(h, *cell) >= need) {
        regf_write(h, regf_file_off(*cell) + 4, buf, need);
    } else {
        uint32_t fresh;
        if (!(rc = regf_alloc(h, need, &fresh))) {
            memcpy(regf_cell_write(h, fresh, need), buf, need);
            if (*cell != RT_REGF_NONE)
                regf_free_cell(h, *cell);
            *cell = fresh;
        }
    }
    free(buf);
    return rc;
}

static uint32_t entry_hint(char kind, const struct name *nm)
{
    if (kind == 'h')
        return regf_lh_hash(nm->up, nm->n);
    if (kind != 'f')
        return 0;
    /* lf: the first four characters as bytes, zero when one is not
     * Latin-1 (spec, "Fast leaf"). */
    uint8_t b[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < 4 && i < nm->n; i++) {
        if (nm->units[i] > 0xFF)
            return 0;
        b[i] = (uint8_t)nm->units[i];
    }
    return regf_le32(b);
}

/* Sign of (name of key KEY) - NM. */
static int key_cmp(struct rt_regf *h, uint32_t key, const struct name *nm,
                   int *cmp)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    *cmp = regf_stored_name_cmp(nk + NK_NAME, regf_le16(nk + NK_NAMELEN),
                                regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME,
                                nm->up, nm->n);
    return 0;
}

/* Position in a leaf where NM goes. */
static int leaf_position(struct rt_regf *h, const struct ents *e,
                         const struct name *nm, size_t *pos)
{
    size_t lo = 0, hi = e->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c, rc = key_cmp(h, e->off[mid], nm, &c);
        if (rc)
            return rc;
        if (c == 0)
            return regf_fail(h, RT_REGF_EEXIST, "key exists");
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return 0;
}

/* Inserts CHILD into leaf *CELL (loaded as E); when the leaf overflows it
 * is split and *SPLIT receives the new right half. */
static int leaf_insert(struct rt_regf *h, struct ents *e, uint32_t *cell,
                       uint32_t child, const struct name *nm, uint32_t *split)
{
    size_t pos = 0;
    int rc = leaf_position(h, e, nm, &pos);
    if (rc)
        return rc;
    memmove(e->off + pos + 1, e->off + pos, (e->n - pos) * sizeof *e->off);
    memmove(e->hint + pos + 1, e->hint + pos, (e->n - pos) * sizeof *e->hint);
    e->off[pos] = child;
    e->hint[pos] = entry_hint(e->kind, nm);
    e->n++;
    *split = RT_REGF_NONE;
    if (e->n <= REGF_LEAF_MAX)
        return ents_write(h, e, 0, e->n, cell);
    size_t left = e->n / 2;
    if ((rc = ents_write(h, e, 0, left, cell)))
        return rc;
    return ents_write(h, e, left, e->n - left, split);
}

int regf_sublist_insert(struct rt_regf *h, uint32_t parent, uint32_t child,
                        const struct name *nm)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, parent, &nk, &len);
    if (rc)
        return rc;
    uint32_t count = regf_le32(nk + NK_NSUB), list = regf_le32(nk + NK_SUBLIST);
    struct ents e;
    uint32_t split;
    if (count == 0) {
        /* lh from version 1.5 on (spec, "Hash leaf"), lf before. */
        uint32_t off[1] = {child}, hint[1];
        e.kind = h->minor >= 5 ? 'h' : 'f';
        hint[0] = entry_hint(e.kind, nm);
        e.off = off;
        e.hint = hint;
        e.n = 1;
        uint32_t cell = RT_REGF_NONE;
        if ((rc = ents_write(h, &e, 0, 1, &cell)))
            return rc;
        regf_set32(h, parent, NK_SUBLIST, cell);
        return 0;
    }
    if ((rc = regf_ents_load(h, list, &e)))
        return rc;
    if (e.kind != 'r') {
        uint32_t cell = list;
        rc = leaf_insert(h, &e, &cell, child, nm, &split);
        if (!rc && split != RT_REGF_NONE) {
            /* The leaf became two: put an index root over them. */
            struct ents r = {NULL, NULL, 2, 'r'};
            uint32_t offs[2] = {cell, split}, ri = RT_REGF_NONE;
            r.off = offs;
            rc = ents_write(h, &r, 0, 2, &ri);
            cell = ri;
        }
        if (!rc)
            regf_set32(h, parent, NK_SUBLIST, cell);
        regf_ents_free(&e);
        return rc;
    }
    /* Index root: the first leaf whose last name sorts after NM. */
    size_t j = 0;
    for (; j + 1 < e.n; j++) {
        struct ents leaf;
        if ((rc = regf_ents_load(h, e.off[j], &leaf)))
            break;
        int c = 1;
        if (leaf.n)
            rc = key_cmp(h, leaf.off[leaf.n - 1], nm, &c);
        regf_ents_free(&leaf);
        if (rc || c > 0)
            break;
    }
    if (!rc && e.n == 0)
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "subkey list at file offset 0x%llx: empty index root",
                       (unsigned long long)regf_file_off(list));
    struct ents leaf = {0};
    if (!rc)
        rc = regf_ents_load(h, e.off[j], &leaf);
    if (!rc && leaf.kind == 'r')
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "subkey list at file offset 0x%llx: an index root "
                       "inside an index root",
                       (unsigned long long)regf_file_off(e.off[j]));
    uint32_t cell = e.off[j < e.n ? j : 0];
    if (!rc)
        rc = leaf_insert(h, &leaf, &cell, child, nm, &split);
    regf_ents_free(&leaf);
    if (!rc) {
        e.off[j] = cell;
        if (split != RT_REGF_NONE) {
            if (e.n >= 0xFFFF) {
                rc = regf_fail(h, RT_REGF_ETOOBIG, "too many subkeys");
            } else {
                uint32_t *grown = realloc(e.off, (e.n + 1) * sizeof *grown);
                if (!grown) {
                    rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
                } else {
                    e.off = grown;
                    memmove(e.off + j + 2, e.off + j + 1,
                            (e.n - j - 1) * sizeof *e.off);
                    e.off[j + 1] = split;
                    e.n++;
                }
            }
        }
    }
    uint32_t ri = list;
    if (!rc)
        rc = ents_write(h, &e, 0, e.n, &ri);
    if (!rc)
        regf_set32(h, parent, NK_SUBLIST, ri);
    regf_ents_free(&e);
    return rc;
}

/* Removes CHILD from leaf E stored in *CELL; *CELL becomes RT_REGF_NONE
 * when the leaf empties. Returns RT_REGF_ENOTFOUND when it is not there. */
static int leaf_remove(struct rt_regf *h, struct ents *e, uint32_t *cell,
                       uint32_t child)
{
    size_t i = 0;
    while (i < e->n && e->off[i] != child)
        i++;
    if (i == e->n)
        return RT_REGF_ENOTFOUND;
    memmove(e->off + i, e->off + i + 1, (e->n - i - 1) * sizeof *e->off);
    memmove(e->hint + i, e->hint + i + 1, (e->n - i - 1) * sizeof *e->hint);
    e->n--;
    if (e->n == 0) {
        regf_free_cell(h, *cell);
        *cell = RT_REGF_NONE;
        return 0;
    }
    return ents_write(h, e, 0, e->n, cell);
}

int regf_sublist_remove(struct rt_regf *h, uint32_t parent, uint32_t child)
{
    uint8_t *nk;
    uint32_t len;
    int rc = regf_nk(h, parent, &nk, &len);
    if (rc)
        return rc;
    uint32_t count = regf_le32(nk + NK_NSUB), list = regf_le32(nk + NK_SUBLIST);
    struct ents e;
    if (count == 0)
        return RT_REGF_ENOTFOUND;
    if ((rc = regf_ents_load(h, list, &e)))
        return rc;
    uint32_t cell = list;
    if (e.kind != 'r') {
        rc = leaf_remove(h, &e, &cell, child);
    } else {
        rc = RT_REGF_ENOTFOUND;
        for (size_t j = 0; j < e.n && rc == RT_REGF_ENOTFOUND; j++) {
            struct ents leaf;
            if ((rc = regf_ents_load(h, e.off[j], &leaf)))
                break;
            uint32_t lc = e.off[j];
            rc = leaf.kind == 'r' ? RT_REGF_ENOTFOUND
                                  : leaf_remove(h, &leaf, &lc, child);
            regf_ents_free(&leaf);
            if (rc)
                continue;
            if (lc == RT_REGF_NONE) {
                memmove(e.off + j, e.off + j + 1, (e.n - j - 1) * sizeof *e.off);
                e.n--;
            } else {
                e.off[j] = lc;
            }
            if (e.n == 0) {
                regf_free_cell(h, cell);
                cell = RT_REGF_NONE;
            } else {
                rc = ents_write(h, &e, 0, e.n, &cell);
            }
        }
    }
    regf_ents_free(&e);
    if (!rc)
        regf_set32(h, parent, NK_SUBLIST, cell);
    return rc;
}

/* Largest subkey name (UTF-16 bytes) and class name of PARENT's
 * subkeys, recomputed. The upper 16 bits of the name field are flags. */
int regf_subkey_stats(struct rt_regf *h, uint32_t parent)
{
    uint32_t *subs;
    size_t n;
    int rc = regf_subkey_list(h, parent, &subs, &n);
    if (rc)
        return rc;
    uint32_t maxname = 0, maxclass = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *nk;
        uint32_t len;
        if ((rc = regf_nk(h, subs[i], &nk, &len)))
            break;
        uint32_t nl = regf_le16(nk + NK_NAMELEN);
        if (regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME)
            nl *= 2;
        if (nl > maxname)
            maxname = nl;
        if (regf_le16(nk + NK_CLASSLEN) > maxclass)
            maxclass = regf_le16(nk + NK_CLASSLEN);
    }
    free(subs);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t len;
    if ((rc = regf_nk(h, parent, &nk, &len)))
        return rc;
    regf_nk(h, parent, &nk, &len);     /* the image may have moved */
    uint32_t field = regf_le32(nk + NK_MAX_SUBNAME);
    regf_set32(h, parent, NK_MAX_SUBNAME, (field & 0xFFFF0000u) | maxname);
    regf_set32(h, parent, NK_MAX_CLASS, maxclass);
    return 0;
}
