/* Hive-file layer: modifications. Creates and deletes keys (keeping
 * subkey lists sorted the way Windows compares names, with lf hints or lh
 * hashes, split under an ri index root when a leaf fills up), sets and
 * deletes values (inline, one data cell, or big data with unchanged
 * segments kept in place), and keeps the key-node counters, largest-name
 * and largest-data fields and timestamps true. Every cell comes from the
 * allocator in cell.c; pointers into the image are re-read after each
 * allocation because appending a bin may move the image. */
#include <stdlib.h>
#include <string.h>

#include "regf/regf_internal.h"
#include "platform/compat.h"
#include "model/utf16.h"

/* --- names ----------------------------------------------------------- */

struct name {
    uint16_t *units;    /* as given */
    uint16_t *up;       /* upper-cased, for comparisons and lh hashes */
    size_t n;
    int comp;           /* every unit < 256: stored one byte each */
    size_t stored;      /* bytes in the record */
};

static void name_free(struct name *nm)
{
    free(nm->units);
    free(nm->up);
}

static int name_prepare(struct rt_regf *h, const char *s, int is_key,
                        struct name *nm)
{
    memset(nm, 0, sizeof *nm);
    uint8_t *u16;
    size_t blen, bad;
    int rc = rt_utf8_to_utf16le(s, strlen(s), &u16, &blen, &bad);
    if (rc == -2)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (rc)
        return regf_fail(h, RT_REGF_EINVAL,
                         "name '%s' is not valid UTF-8 at byte %zu", s, bad);
    nm->n = blen / 2;
    nm->units = malloc((nm->n + 1) * sizeof *nm->units);
    nm->up = malloc((nm->n + 1) * sizeof *nm->up);
    if (!nm->units || !nm->up) {
        free(u16);
        name_free(nm);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    nm->comp = 1;
    for (size_t i = 0; i < nm->n; i++) {
        nm->units[i] = regf_le16(u16 + 2 * i);
        nm->up[i] = rt_upcase16(nm->units[i]);
        if (nm->units[i] > 0xFF)
            nm->comp = 0;
    }
    free(u16);
    nm->stored = nm->comp ? nm->n : 2 * nm->n;
    /* Limits from Microsoft's "Registry element size limits": key names
     * 255 characters, value names 16383. */
    const char *bad_why = NULL;
    if (is_key && nm->n == 0)
        bad_why = "a key name cannot be empty";
    else if (is_key && nm->n > 255)
        bad_why = "a key name is at most 255 characters";
    else if (!is_key && nm->n > 16383)
        bad_why = "a value name is at most 16383 characters";
    for (size_t i = 0; is_key && i < nm->n && !bad_why; i++)
        if (nm->units[i] == '\\')
            bad_why = "a key name cannot contain '\\'";
    if (bad_why) {
        name_free(nm);
        return regf_fail(h, RT_REGF_EINVAL, "name '%.80s': %s", s, bad_why);
    }
    return 0;
}

static void name_store(const struct name *nm, uint8_t *dst)
{
    for (size_t i = 0; i < nm->n; i++) {
        if (nm->comp)
            dst[i] = (uint8_t)nm->units[i];
        else
            regf_put16(dst + 2 * i, nm->units[i]);
    }
}

/* --- key nodes ------------------------------------------------------- */

int regf_nk_new(struct rt_regf *h, uint32_t parent, const char *name,
                uint16_t flags, uint32_t sk, uint32_t *off)
{
    struct name nm;
    int rc = name_prepare(h, name, 1, &nm);
    if (rc)
        return rc;
    uint32_t cell;
    if ((rc = regf_alloc(h, (uint32_t)(NK_NAME + nm.stored), &cell))) {
        name_free(&nm);
        return rc;
    }
    uint8_t *p = regf_cell_write(h, cell, NK_NAME + nm.stored);
    memset(p, 0, NK_NAME);
    memcpy(p, "nk", 2);
    regf_put16(p + NK_FLAGS, (uint16_t)(flags | (nm.comp ? KEY_COMP_NAME : 0)));
    regf_put64(p + NK_MTIME, regf_now_filetime());
    regf_put32(p + NK_PARENT, parent);
    regf_put32(p + NK_SUBLIST, RT_REGF_NONE);
    regf_put32(p + NK_SUBLIST_VOL, RT_REGF_NONE);
    regf_put32(p + NK_VALLIST, RT_REGF_NONE);
    regf_put32(p + NK_SECURITY, sk);
    regf_put32(p + NK_CLASS, RT_REGF_NONE);
    regf_put16(p + NK_NAMELEN, (uint16_t)nm.stored);
    name_store(&nm, p + NK_NAME);
    name_free(&nm);
    if (sk != RT_REGF_NONE && (rc = regf_sk_addref(h, sk)))
        return rc;
    *off = cell;
    return 0;
}

static void touch_mtime(struct rt_regf *h, uint32_t key)
{
    regf_set64(h, key, NK_MTIME, regf_now_filetime());
}

/* --- subkey lists ---------------------------------------------------- */

struct ents {
    uint32_t *off, *hint;
    size_t n;
    char kind;          /* 'i' li, 'f' lf, 'h' lh, 'r' ri */
};

static void ents_free(struct ents *e)
{
    free(e->off);
    free(e->hint);
    e->off = e->hint = NULL;
}

static uint32_t kind_esz(char kind)
{
    return kind == 'f' || kind == 'h' ? 8 : 4;
}

static int ents_load(struct rt_regf *h, uint32_t cell, struct ents *e)
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
        ents_free(e);
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

static int sublist_insert(struct rt_regf *h, uint32_t parent, uint32_t child,
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
    if ((rc = ents_load(h, list, &e)))
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
        ents_free(&e);
        return rc;
    }
    /* Index root: the first leaf whose last name sorts after NM. */
    size_t j = 0;
    for (; j + 1 < e.n; j++) {
        struct ents leaf;
        if ((rc = ents_load(h, e.off[j], &leaf)))
            break;
        int c = 1;
        if (leaf.n)
            rc = key_cmp(h, leaf.off[leaf.n - 1], nm, &c);
        ents_free(&leaf);
        if (rc || c > 0)
            break;
    }
    if (!rc && e.n == 0)
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "subkey list at file offset 0x%llx: empty index root",
                       (unsigned long long)regf_file_off(list));
    struct ents leaf = {0};
    if (!rc)
        rc = ents_load(h, e.off[j], &leaf);
    if (!rc && leaf.kind == 'r')
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "subkey list at file offset 0x%llx: an index root "
                       "inside an index root",
                       (unsigned long long)regf_file_off(e.off[j]));
    uint32_t cell = e.off[j < e.n ? j : 0];
    if (!rc)
        rc = leaf_insert(h, &leaf, &cell, child, nm, &split);
    ents_free(&leaf);
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
    ents_free(&e);
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

static int sublist_remove(struct rt_regf *h, uint32_t parent, uint32_t child)
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
    if ((rc = ents_load(h, list, &e)))
        return rc;
    uint32_t cell = list;
    if (e.kind != 'r') {
        rc = leaf_remove(h, &e, &cell, child);
    } else {
        rc = RT_REGF_ENOTFOUND;
        for (size_t j = 0; j < e.n && rc == RT_REGF_ENOTFOUND; j++) {
            struct ents leaf;
            if ((rc = ents_load(h, e.off[j], &leaf)))
                break;
            uint32_t lc = e.off[j];
            rc = leaf.kind == 'r' ? RT_REGF_ENOTFOUND
                                  : leaf_remove(h, &leaf, &lc, child);
            ents_free(&leaf);
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
    ents_free(&e);
    if (!rc)
        regf_set32(h, parent, NK_SUBLIST, cell);
    return rc;
}

/* Largest subkey name (UTF-16 bytes) and class name of PARENT's
 * subkeys, recomputed. The upper 16 bits of the name field are flags. */
static int subkey_stats(struct rt_regf *h, uint32_t parent)
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

/* --- public: keys ---------------------------------------------------- */

int rt_regf_key_create(struct rt_regf *h, uint32_t parent, const char *name,
                       uint32_t *key)
{
    int rc = regf_require_writable(h);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t len;
    if ((rc = regf_nk(h, parent, &nk, &len)))
        return rc;
    struct name nm;
    if ((rc = name_prepare(h, name, 1, &nm)))
        return rc;
    uint32_t found;
    rc = regf_find_subkey(h, parent, nm.up, nm.n, &found);
    if (rc == 0) {
        *key = found;
        name_free(&nm);
        return regf_fail(h, RT_REGF_EEXIST, "key '%s' exists", name);
    }
    if (rc != RT_REGF_ENOTFOUND) {
        name_free(&nm);
        return rc;
    }
    if ((rc = regf_nk(h, parent, &nk, &len))) {
        name_free(&nm);
        return rc;
    }
    uint32_t count = regf_le32(nk + NK_NSUB), sk = regf_le32(nk + NK_SECURITY);
    if (count >= 0xFFFF * REGF_LEAF_MAX) {
        name_free(&nm);
        return regf_fail(h, RT_REGF_ETOOBIG, "too many subkeys");
    }
    struct regf_subidx_mark mark;
    regf_subidx_prepare(h, parent, &mark);
    uint32_t child;
    if ((rc = regf_nk_new(h, parent, name, 0, sk, &child)) ||
        (rc = sublist_insert(h, parent, child, &nm))) {
        /* A list may be half written: no index is trusted. */
        h->keys_gen++;
        name_free(&nm);
        return rc;
    }
    regf_set32(h, parent, NK_NSUB, count + 1);
    /* The longest subkey name grows with this one or stays (a new key has
     * no class): not recomputed over every sibling, which would make
     * filling a key quadratic. */
    regf_nk(h, parent, &nk, &len);     /* the image may have moved */
    uint32_t field = regf_le32(nk + NK_MAX_SUBNAME);
    if (2 * nm.n > (field & 0xFFFFu))
        regf_set32(h, parent, NK_MAX_SUBNAME,
                   (field & 0xFFFF0000u) | (uint32_t)(2 * nm.n));
    touch_mtime(h, parent);
    regf_subidx_added(h, parent, child, nm.up, nm.n, &mark);
    name_free(&nm);
    *key = child;
    return 0;
}

int rt_regf_key_create_path(struct rt_regf *h, uint32_t from,
                            const char *path, uint32_t *key)
{
    uint32_t cur = from;
    const char *p = path;
    while (*p) {
        const char *e = strchr(p, '\\');
        size_t clen = e ? (size_t)(e - p) : strlen(p);
        if (clen) {
            char *comp = strndup(p, clen);
            if (!comp)
                return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
            uint32_t next;
            int rc = rt_regf_key_create(h, cur, comp, &next);
            free(comp);
            if (rc && rc != RT_REGF_EEXIST)
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

static void free_cb(void *ctx, uint32_t cell)
{
    regf_free_cell(ctx, cell);
}

static void nop_cb(void *ctx, uint32_t cell)
{
    (void)ctx;
    (void)cell;
}

struct collect {
    struct rt_regf *h;
    uint32_t *v;
    size_t n, cap;
};

/* Walk callback: records each key after checking that everything it owns
 * can be freed, so a deletion fails before changing anything. */
static int collect_key(void *ctx, uint32_t key, unsigned depth)
{
    (void)depth;
    struct collect *c = ctx;
    uint32_t *vals;
    size_t n;
    int rc = regf_value_list(c->h, key, &vals, &n);
    for (size_t i = 0; i < n && !rc; i++)
        rc = regf_value_data_cells(c->h, vals[i], nop_cb, NULL);
    free(vals);
    if (rc)
        return rc;
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        uint32_t *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return regf_fail(c->h, RT_REGF_ENOMEM, "out of memory");
        c->v = v;
        c->cap = cap;
    }
    c->v[c->n++] = key;
    return 0;
}

static void free_list_cells(struct rt_regf *h, uint32_t list)
{
    struct ents e;
    if (ents_load(h, list, &e))
        return;
    if (e.kind == 'r')
        for (size_t i = 0; i < e.n; i++)
            regf_free_cell(h, e.off[i]);
    regf_free_cell(h, list);
    ents_free(&e);
}

/* Frees a key node and everything it owns except its subkeys. */
static void free_key(struct rt_regf *h, uint32_t key)
{
    uint8_t *nk, *p;
    uint32_t len, plen;
    if (regf_nk(h, key, &nk, &len))
        return;
    uint32_t *vals;
    size_t n;
    if (!regf_value_list(h, key, &vals, &n)) {
        for (size_t i = 0; i < n; i++) {
            regf_value_data_cells(h, vals[i], free_cb, h);
            regf_free_cell(h, vals[i]);
        }
        free(vals);
        if (n && !regf_nk(h, key, &nk, &len))
            regf_free_cell(h, regf_le32(nk + NK_VALLIST));
    }
    if (regf_nk(h, key, &nk, &len))
        return;
    uint32_t cls = regf_le32(nk + NK_CLASS), sk = regf_le32(nk + NK_SECURITY);
    uint32_t nsub = regf_le32(nk + NK_NSUB), list = regf_le32(nk + NK_SUBLIST);
    if (regf_le16(nk + NK_CLASSLEN) && !regf_cell(h, cls, "class name", &p, &plen))
        regf_free_cell(h, cls);
    if (nsub)
        free_list_cells(h, list);
    if (sk != RT_REGF_NONE)
        regf_sk_release(h, sk);
    regf_free_cell(h, key);
}

int rt_regf_key_delete(struct rt_regf *h, uint32_t key, unsigned flags)
{
    int rc = regf_require_writable(h);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t len;
    if ((rc = regf_nk(h, key, &nk, &len)))
        return rc;
    if (key == rt_regf_root(h))
        return regf_fail(h, RT_REGF_EINVAL, "the root key cannot be deleted");
    if (regf_le32(nk + NK_NSUB) && !(flags & RT_REGF_RECURSIVE))
        return regf_fail(h, RT_REGF_ENOTEMPTY,
                         "key at file offset 0x%llx has %u subkeys",
                         (unsigned long long)regf_file_off(key),
                         regf_le32(nk + NK_NSUB));
    uint32_t parent = regf_le32(nk + NK_PARENT);
    struct collect c = {h, NULL, 0, 0};
    if ((rc = rt_regf_walk(h, key, collect_key, &c))) {
        free(c.v);
        return rc;
    }
    h->keys_gen++;
    rc = sublist_remove(h, parent, key);
    if (rc == RT_REGF_ENOTFOUND)
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "key at file offset 0x%llx: its parent (0x%llx) does "
                       "not list it", (unsigned long long)regf_file_off(key),
                       (unsigned long long)regf_file_off(parent));
    if (!rc) {
        uint8_t *pnk;
        regf_nk(h, parent, &pnk, &len);
        regf_set32(h, parent, NK_NSUB, regf_le32(pnk + NK_NSUB) - 1);
        touch_mtime(h, parent);
        /* Children before parents. */
        for (size_t i = c.n; i-- > 0;)
            free_key(h, c.v[i]);
        rc = subkey_stats(h, parent);
    }
    free(c.v);
    return rc;
}

/* --- values ---------------------------------------------------------- */

/* Largest value name (UTF-16 bytes) and data size of KEY, recomputed. */
static int value_stats(struct rt_regf *h, uint32_t key)
{
    uint32_t *vals;
    size_t n;
    int rc = regf_value_list(h, key, &vals, &n);
    if (rc)
        return rc;
    uint32_t maxname = 0, maxdata = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *vk;
        uint32_t len;
        if ((rc = regf_vk(h, vals[i], &vk, &len)))
            break;
        uint32_t nl = regf_le16(vk + VK_NAMELEN);
        if (regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME)
            nl *= 2;
        uint32_t dl = regf_le32(vk + VK_DATALEN) & ~VK_DATA_INLINE;
        if (nl > maxname)
            maxname = nl;
        if (dl > maxdata)
            maxdata = dl;
    }
    free(vals);
    if (rc)
        return rc;
    regf_set32(h, key, NK_MAX_VALNAME, maxname);
    regf_set32(h, key, NK_MAX_VALDATA, maxdata);
    return 0;
}

static void zero_tail(struct rt_regf *h, uint32_t cell, uint32_t used)
{
    uint32_t cap = regf_cell_capacity(h, cell);
    if (cap > used)
        memset(regf_cell_write(h, cell, cap) + used, 0, cap - used);
}

/* Allocates a cell holding LEN bytes of DATA (plus SPARE unused bytes),
 * at or after FLOOR. */
static int new_data_cell(struct rt_regf *h, const uint8_t *data, uint32_t len,
                         uint32_t spare, uint32_t floor, uint32_t *cell)
{
    int rc = regf_alloc_above(h, len + spare, floor, cell);
    if (rc)
        return rc;
    memcpy(regf_cell_write(h, *cell, len), data, len);
    zero_tail(h, *cell, len);
    return 0;
}

/* Stores DATA as big data for value VK whose current data is described
 * by OLD_BIG/OLD_INLINE. Segments whose bytes are unchanged stay where
 * they are, untouched. Each segment cell keeps at least 4 spare bytes
 * because hivex and reglookup read a segment as its cell size minus 8,
 * and segments lie in ascending file order because reglookup reassembles
 * them in that order. A new last segment gets a full segment's room, so
 * a value that grows (a provider's strings appended to Help) fills it in
 * place instead of moving it: the bytes a commit writes follow the
 * change, not the segment size. The first KEEP segments (of an old big
 * value that has them) stay as they are, unread; DATA then holds the
 * bytes from segment KEEP on. */
static int store_big(struct rt_regf *h, uint32_t vk, const uint8_t *data,
                     uint32_t len, int old_big, int old_inline, uint32_t keep)
{
    uint32_t k = (len + RT_REGF_SEGMENT_MAX - 1) / RT_REGF_SEGMENT_MAX;
    if (k > 0xFFFF)
        return regf_fail(h, RT_REGF_ETOOBIG,
                         "value data of %u bytes exceeds big data's 65535 "
                         "segments", len);
    uint8_t *p;
    uint32_t plen;
    int rc = regf_vk(h, vk, &p, &plen);
    if (rc)
        return rc;
    uint32_t db = RT_REGF_NONE, list = RT_REGF_NONE, m = 0;
    uint32_t *olds = NULL;
    if (old_big) {
        db = regf_le32(p + VK_DATA);
        uint8_t *d, *l;
        uint32_t dl, ll;
        if ((rc = regf_cell(h, db, "big data record", &d, &dl)))
            return rc;
        m = regf_le16(d + 2);
        list = regf_le32(d + 4);
        if ((rc = regf_cell(h, list, "big data segment list", &l, &ll)))
            return rc;
        if ((uint64_t)m * 4 > ll)
            return regf_fail(h, RT_REGF_ECORRUPT, "big data segment list at "
                             "file offset 0x%llx too small",
                             (unsigned long long)regf_file_off(list));
        olds = malloc((m + 1) * sizeof *olds);
        if (!olds)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < m; i++)
            olds[i] = regf_le32(l + 4 * i);
    } else if (!old_inline) {
        if ((rc = regf_value_data_cells(h, vk, free_cb, h)))
            return rc;
    }
    uint32_t *segs = malloc((size_t)k * sizeof *segs);
    if (!segs) {
        free(olds);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    uint32_t floor = 0;
    if (keep > m || keep > k) {
        free(olds);
        free(segs);
        return regf_fail(h, RT_REGF_EINVAL, "segments to keep past the value");
    }
    for (uint32_t i = 0; i < keep; i++)
        segs[i] = olds[i];
    for (uint32_t i = keep; i < k && !rc; i++) {
        const uint8_t *src = data + (size_t)(i - keep) * RT_REGF_SEGMENT_MAX;
        uint32_t t = len - i * RT_REGF_SEGMENT_MAX;
        if (t > RT_REGF_SEGMENT_MAX)
            t = RT_REGF_SEGMENT_MAX;
        if (i > 0)
            floor = segs[i - 1] + 8;
        if (i < m && olds[i] >= floor && regf_is_cell_start(h, olds[i]) &&
            regf_cell(h, olds[i], "big data segment", &p, &plen) == 0 &&
            plen >= t + 4) {
            regf_write(h, regf_file_off(olds[i]) + 4, src, t);
            segs[i] = olds[i];
            continue;
        }
        if (i < m)
            regf_free_cell(h, olds[i]);
        uint32_t spare = i == k - 1 ? RT_REGF_SEGMENT_MAX - t + 4 : 4;
        rc = new_data_cell(h, src, t, spare, floor, &segs[i]);
    }
    for (uint32_t i = k; i < m && !rc; i++)
        regf_free_cell(h, olds[i]);
    free(olds);
    if (!rc) {
        uint8_t *buf = malloc((size_t)k * 4);
        if (!buf) {
            rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        } else {
            for (uint32_t i = 0; i < k; i++)
                regf_put32(buf + 4 * i, segs[i]);
            if (list != RT_REGF_NONE && regf_cell_capacity(h, list) >= 4 * k) {
                regf_write(h, regf_file_off(list) + 4, buf, 4 * (size_t)k);
            } else {
                if (list != RT_REGF_NONE)
                    regf_free_cell(h, list);
                rc = new_data_cell(h, buf, 4 * k, 0, 0, &list);
            }
            free(buf);
        }
    }
    free(segs);
    if (rc)
        return rc;
    uint8_t rec[12] = {'d', 'b', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    regf_put16(rec + 2, (uint16_t)k);
    regf_put32(rec + 4, list);
    if (db == RT_REGF_NONE) {
        if ((rc = new_data_cell(h, rec, sizeof rec, 0, 0, &db)))
            return rc;
    } else {
        regf_write(h, regf_file_off(db) + 4, rec, 8);
    }
    regf_set32(h, vk, VK_DATA, db);
    regf_set32(h, vk, VK_DATALEN, len);
    return 0;
}

/* Replaces the data of value VK with DATA. */
static int store_data(struct rt_regf *h, uint32_t vk, const uint8_t *data,
                      size_t len)
{
    uint8_t *p;
    uint32_t plen;
    int rc = regf_vk(h, vk, &p, &plen);
    if (rc)
        return rc;
    uint32_t raw = regf_le32(p + VK_DATALEN), olen = raw & ~VK_DATA_INLINE;
    uint32_t doff = regf_le32(p + VK_DATA);
    int old_inline = (raw & VK_DATA_INLINE) || olen == 0;
    int old_big = !old_inline && regf_is_big_data(h, olen, doff);
    if (len > 0x7FFFFFFFu)
        return regf_fail(h, RT_REGF_ETOOBIG, "value data of %zu bytes is too "
                         "large", len);
    if (len <= 4) {
        /* Windows keeps data of 4 bytes or less in the record itself. */
        if (!old_inline && (rc = regf_value_data_cells(h, vk, free_cb, h)))
            return rc;
        uint8_t small[4] = {0, 0, 0, 0};
        if (len)
            memcpy(small, data, len);
        regf_write(h, regf_file_off(vk) + 4 + VK_DATA, small, 4);
        regf_set32(h, vk, VK_DATALEN, (uint32_t)len | VK_DATA_INLINE);
        return 0;
    }
    if (h->minor >= 4 && len > RT_REGF_SEGMENT_MAX)
        return store_big(h, vk, data, (uint32_t)len, old_big, old_inline, 0);
    if (!old_inline && !old_big) {
        uint32_t cap = regf_cell_capacity(h, doff);
        if (cap >= len && cap - len <= len / 2 + 64) {
            regf_write(h, regf_file_off(doff) + 4, data, len);
            regf_set32(h, vk, VK_DATALEN, (uint32_t)len);
            return 0;
        }
    }
    /* Free first so that the new data can reuse the space. */
    if (!old_inline && (rc = regf_value_data_cells(h, vk, free_cb, h)))
        return rc;
    uint32_t cell;
    if ((rc = new_data_cell(h, data, (uint32_t)len, 0, 0, &cell)))
        return rc;
    regf_set32(h, vk, VK_DATA, cell);
    regf_set32(h, vk, VK_DATALEN, (uint32_t)len);
    return 0;
}

static int value_key(struct rt_regf *h, uint32_t key)
{
    int rc = regf_require_writable(h);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t len;
    if ((rc = regf_nk(h, key, &nk, &len)))
        return rc;
    if (regf_le16(nk + NK_FLAGS) & KEY_PREDEF_HANDLE)
        return regf_fail(h, RT_REGF_EINVAL,
                         "key at file offset 0x%llx is a predefined handle "
                         "and holds no values",
                         (unsigned long long)regf_file_off(key));
    return 0;
}

int rt_regf_value_set(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t type, const void *data, size_t len)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    if (len && !data)
        return regf_fail(h, RT_REGF_EINVAL, "no data");
    struct name nm;
    if ((rc = name_prepare(h, name, 0, &nm)))
        return rc;
    uint32_t vk;
    rc = regf_find_value(h, key, nm.up, nm.n, &vk, NULL);
    if (rc == RT_REGF_ENOTFOUND) {
        uint8_t *nk;
        uint32_t nklen, *vals = NULL;
        size_t n = 0;
        rc = regf_value_list(h, key, &vals, &n);
        if (!rc && n >= 0x7FFFFFFF / 4)
            rc = regf_fail(h, RT_REGF_ETOOBIG, "too many values");
        if (!rc)
            rc = regf_alloc(h, (uint32_t)(VK_NAME + nm.stored), &vk);
        if (!rc) {
            uint8_t *p = regf_cell_write(h, vk, VK_NAME + nm.stored);
            memset(p, 0, VK_NAME);
            memcpy(p, "vk", 2);
            regf_put16(p + VK_NAMELEN, (uint16_t)nm.stored);
            regf_put32(p + VK_DATALEN, VK_DATA_INLINE);
            regf_put32(p + VK_TYPE, type);
            regf_put16(p + VK_FLAGS, nm.comp && nm.n ? VALUE_COMP_NAME : 0);
            name_store(&nm, p + VK_NAME);
            zero_tail(h, vk, (uint32_t)(VK_NAME + nm.stored));
            rc = regf_nk(h, key, &nk, &nklen);
        }
        if (!rc) {
            uint32_t list = regf_le32(nk + NK_VALLIST);
            if (n && regf_cell_capacity(h, list) >= 4 * (n + 1)) {
                regf_set32(h, list, (uint32_t)(4 * n), vk);
            } else {
                uint32_t fresh;
                if (!(rc = regf_alloc(h, (uint32_t)(4 * (n + 1)), &fresh))) {
                    uint8_t *q = regf_cell_write(h, fresh, 4 * (n + 1));
                    for (size_t i = 0; i < n; i++)
                        regf_put32(q + 4 * i, vals[i]);
                    regf_put32(q + 4 * n, vk);
                    zero_tail(h, fresh, (uint32_t)(4 * (n + 1)));
                    if (n)
                        regf_free_cell(h, list);
                    regf_set32(h, key, NK_VALLIST, fresh);
                }
            }
            if (!rc)
                regf_set32(h, key, NK_NVAL, (uint32_t)(n + 1));
        }
        free(vals);
    }
    name_free(&nm);
    if (rc)
        return rc;
    regf_set32(h, vk, VK_TYPE, type);
    if ((rc = store_data(h, vk, data, len)))
        return rc;
    touch_mtime(h, key);
    return value_stats(h, key);
}

/* The new data of a splice from byte BASE on: OLD holds the old data
 * from BASE on. */
static void splice_from(const uint8_t *old, size_t base, size_t old_len,
                        const struct rt_regf_edit *edits, size_t n,
                        uint8_t *out)
{
    size_t pos = base;
    for (size_t i = 0; i <= n; i++) {
        size_t end = i < n ? edits[i].at : old_len;
        if (end > pos)
            memcpy(out, old + (pos - base), end - pos);
        out += end - pos;
        if (i == n)
            break;
        if (edits[i].ins_len)
            memcpy(out, edits[i].ins, edits[i].ins_len);
        out += edits[i].ins_len;
        pos = edits[i].at + edits[i].cut;
    }
}

int rt_regf_value_splice(struct rt_regf *h, uint32_t key, const char *name,
                         uint32_t type, size_t old_len,
                         const struct rt_regf_edit *edits, size_t n)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    uint32_t vk;
    if ((rc = rt_regf_value_find(h, key, name, &vk)))
        return rc;
    uint8_t *p;
    uint32_t plen;
    if ((rc = regf_vk(h, vk, &p, &plen)))
        return rc;
    uint32_t raw = regf_le32(p + VK_DATALEN), dlen = raw & ~VK_DATA_INLINE;
    size_t new_len = old_len, at = 0;
    for (size_t i = 0; i < n; i++) {
        if (edits[i].at < at || edits[i].cut > old_len - edits[i].at)
            return regf_fail(h, RT_REGF_EINVAL, "edits of value '%s' out of "
                             "order or past its data", name);
        at = edits[i].at + edits[i].cut;
        new_len = new_len - edits[i].cut + edits[i].ins_len;
    }
    if (dlen != old_len || !n)
        return regf_fail(h, RT_REGF_EINVAL, "value '%s' holds %u bytes, not "
                         "the %zu its edits were computed from", name, dlen,
                         old_len);
    int big = !(raw & VK_DATA_INLINE) && dlen &&
              regf_is_big_data(h, dlen, regf_le32(p + VK_DATA));
    uint32_t keep = (uint32_t)(edits[0].at / RT_REGF_SEGMENT_MAX);
    if (!big || new_len <= RT_REGF_SEGMENT_MAX || new_len > 0x7FFFFFFFu)
        keep = 0;       /* not big before or after: the whole value anew */
    size_t base = (size_t)keep * RT_REGF_SEGMENT_MAX;
    uint8_t *old = NULL, *out = NULL;
    if ((rc = regf_value_read_range(h, vk, base, old_len - base, &old)))
        return rc;
    if (!(out = malloc(new_len - base + 1)))
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (!rc) {
        splice_from(old, base, old_len, edits, n, out);
        regf_set32(h, vk, VK_TYPE, type);
        rc = keep ? store_big(h, vk, out, (uint32_t)new_len, 1, 0, keep)
                  : store_data(h, vk, out, new_len);
    }
    free(old);
    free(out);
    if (rc)
        return rc;
    touch_mtime(h, key);
    return value_stats(h, key);
}

int rt_regf_value_delete(struct rt_regf *h, uint32_t key, const char *name)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    struct name nm;
    if ((rc = name_prepare(h, name, 0, &nm)))
        return rc;
    uint32_t vk, index;
    rc = regf_find_value(h, key, nm.up, nm.n, &vk, &index);
    name_free(&nm);
    if (rc == RT_REGF_ENOTFOUND)
        return regf_fail(h, rc, "value '%s' not found", name);
    if (rc)
        return rc;
    uint32_t *vals;
    size_t n;
    if ((rc = regf_value_list(h, key, &vals, &n)))
        return rc;
    if ((rc = regf_value_data_cells(h, vk, nop_cb, NULL))) {
        free(vals);
        return rc;
    }
    regf_value_data_cells(h, vk, free_cb, h);
    regf_free_cell(h, vk);
    uint8_t *nk;
    uint32_t len;
    regf_nk(h, key, &nk, &len);
    uint32_t list = regf_le32(nk + NK_VALLIST);
    if (n == 1) {
        regf_free_cell(h, list);
        regf_set32(h, key, NK_VALLIST, RT_REGF_NONE);
    } else {
        memmove(vals + index, vals + index + 1, (n - index - 1) * sizeof *vals);
        uint8_t *buf = malloc((n - 1) * 4);
        if (!buf) {
            free(vals);
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n - 1; i++)
            regf_put32(buf + 4 * i, vals[i]);
        regf_write(h, regf_file_off(list) + 4, buf, (n - 1) * 4);
        free(buf);
    }
    free(vals);
    regf_set32(h, key, NK_NVAL, (uint32_t)(n - 1));
    touch_mtime(h, key);
    return value_stats(h, key);
}
