/* Hive-file layer: modifications of keys. Names prepared for the record
 * (upper-cased for comparisons, one byte a unit when they fit), key nodes
 * made, keys created (with their path) and deleted with everything below
 * them, the counters of the parent kept true. */
#include "regf/write_internal.h"

#include <stdlib.h>
#include <string.h>

#include "platform/compat.h"
#include "model/utf16.h"

void regf_name_free(struct name *nm)
{
    free(nm->units);
    free(nm->up);
}

int regf_name_prepare(struct rt_regf *h, const char *s, int is_key,
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
        regf_name_free(nm);
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
        regf_name_free(nm);
        return regf_fail(h, RT_REGF_EINVAL, "name '%.80s': %s", s, bad_why);
    }
    return 0;
}

void regf_name_store(const struct name *nm, uint8_t *dst)
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
    int rc = regf_name_prepare(h, name, 1, &nm);
    if (rc)
        return rc;
    uint32_t cell;
    if ((rc = regf_alloc(h, (uint32_t)(NK_NAME + nm.stored), &cell))) {
        regf_name_free(&nm);
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
    regf_name_store(&nm, p + NK_NAME);
    regf_name_free(&nm);
    if (sk != RT_REGF_NONE && (rc = regf_sk_addref(h, sk)))
        return rc;
    *off = cell;
    return 0;
}

void regf_touch_mtime(struct rt_regf *h, uint32_t key)
{
    regf_set64(h, key, NK_MTIME, regf_now_filetime());
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
    if ((rc = regf_name_prepare(h, name, 1, &nm)))
        return rc;
    uint32_t found;
    rc = regf_find_subkey(h, parent, nm.up, nm.n, &found);
    if (rc == 0) {
        *key = found;
        regf_name_free(&nm);
        return regf_fail(h, RT_REGF_EEXIST, "key '%s' exists", name);
    }
    if (rc != RT_REGF_ENOTFOUND) {
        regf_name_free(&nm);
        return rc;
    }
    if ((rc = regf_nk(h, parent, &nk, &len))) {
        regf_name_free(&nm);
        return rc;
    }
    uint32_t count = regf_le32(nk + NK_NSUB), sk = regf_le32(nk + NK_SECURITY);
    if (count >= 0xFFFF * REGF_LEAF_MAX) {
        regf_name_free(&nm);
        return regf_fail(h, RT_REGF_ETOOBIG, "too many subkeys");
    }
    struct regf_subidx_mark mark;
    regf_subidx_prepare(h, parent, &mark);
    uint32_t child;
    if ((rc = regf_nk_new(h, parent, name, 0, sk, &child)) ||
        (rc = regf_sublist_insert(h, parent, child, &nm))) {
        /* A list may be half written: no index is trusted. */
        h->keys_gen++;
        regf_name_free(&nm);
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
    regf_touch_mtime(h, parent);
    regf_subidx_added(h, parent, child, nm.up, nm.n, &mark);
    regf_name_free(&nm);
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

void regf_free_cb(void *ctx, uint32_t cell)
{
    regf_free_cell(ctx, cell);
}

void regf_nop_cb(void *ctx, uint32_t cell)
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
        rc = regf_value_data_cells(c->h, vals[i], regf_nop_cb, NULL);
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
    if (regf_ents_load(h, list, &e))
        return;
    if (e.kind == 'r')
        for (size_t i = 0; i < e.n; i++)
            regf_free_cell(h, e.off[i]);
    regf_free_cell(h, list);
    regf_ents_free(&e);
}

/* Frees a key node and everything it owns except its subkeys. */
static void free_key(struct rt_regf *h, uint32_t key)
{
    uint8_t *nk, *p;
    uint32_t len, plen;
    regf_validx_drop(h, key);   /* its value records go: so does its index */
    if (regf_nk(h, key, &nk, &len))
        return;
    uint32_t *vals;
    size_t n;
    if (!regf_value_list(h, key, &vals, &n)) {
        for (size_t i = 0; i < n; i++) {
            regf_value_data_cells(h, vals[i], regf_free_cb, h);
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
    rc = regf_sublist_remove(h, parent, key);
    if (rc == RT_REGF_ENOTFOUND)
        rc = regf_fail(h, RT_REGF_ECORRUPT,
                       "key at file offset 0x%llx: its parent (0x%llx) does "
                       "not list it", (unsigned long long)regf_file_off(key),
                       (unsigned long long)regf_file_off(parent));
    if (!rc) {
        uint8_t *pnk;
        regf_nk(h, parent, &pnk, &len);
        regf_set32(h, parent, NK_NSUB, regf_le32(pnk + NK_NSUB) - 1);
        regf_touch_mtime(h, parent);
        /* Children before parents. */
        for (size_t i = c.n; i-- > 0;)
            free_key(h, c.v[i]);
        rc = regf_subkey_stats(h, parent);
    }
    free(c.v);
    return rc;
}
