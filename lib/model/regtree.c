/* Model layer: an in-memory registry tree. */
#include "model/regtree.h"
#include "model/strbuf.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

/* --- indexes by name -------------------------------------------------
 * Open addressing over positions (+1; 0 is an empty slot), at most half
 * full, hashed by rt_utf8_casehash: equal names (rt_utf8_casecmp) hash
 * alike. Kept from INDEX_MIN entries on; a deleted entry leaves it
 * (index_remove), the hole it leaves among the entries stays until the
 * key is closed up and the index rebuilt. The seed is the key's address:
 * names chosen to collide in one run do not in another. */

#define INDEX_MIN 16u

struct rt_tree_index {
    uint32_t *slot;     /* a position + 1; 0: free */
    size_t cap;         /* a power of two */
};

/* An entry's name; NULL for a deleted one not closed up yet. */
static const char *sub_name(const struct rt_tree_key *k, size_t i)
{
    return k->sub[i] ? k->sub[i]->name : NULL;
}

static const char *val_name(const struct rt_tree_key *k, size_t i)
{
    return k->vals[i].name;
}

static size_t index_home(const struct rt_tree_key *k,
                         const struct rt_tree_index *x, const char *name,
                         size_t len)
{
    uint64_t h = rt_utf8_casehash(name, len, (uintptr_t)k);
    return (size_t)h & (x->cap - 1);
}

static void index_free(struct rt_tree_index **x)
{
    if (*x)
        free((*x)->slot);
    free(*x);
    *x = NULL;
}

static void index_put(const struct rt_tree_key *k, struct rt_tree_index *x,
                      const char *name, size_t pos)
{
    size_t i = index_home(k, x, name, strlen(name));
    while (x->slot[i])
        i = (i + 1) & (x->cap - 1);
    x->slot[i] = (uint32_t)(pos + 1);
}

/* Takes entry POS, named NAME, out of X: its slot emptied and the slots
 * after it in its run moved back where their probes would find them
 * (linear probing's deletion), so that no probe ever walks the slots of
 * entries deleted (a name set and deleted a million times would make
 * its run a million slots long). */
static void index_remove(const struct rt_tree_key *k, struct rt_tree_index *x,
                         const char *(*name_at)(const struct rt_tree_key *,
                                                size_t),
                         const char *name, size_t pos)
{
    size_t mask = x->cap - 1;
    size_t i = index_home(k, x, name, strlen(name));
    while (x->slot[i] && x->slot[i] != pos + 1)
        i = (i + 1) & mask;
    if (!x->slot[i])
        return;
    for (size_t j = (i + 1) & mask; x->slot[j]; j = (j + 1) & mask) {
        const char *m = name_at(k, x->slot[j] - 1);
        size_t h = index_home(k, x, m, strlen(m));
        /* Left where it is when its home lies after the hole, up to J
         * (cyclically): a probe from there never passes the hole. */
        if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
            continue;
        x->slot[i] = x->slot[j];
        i = j;
    }
    x->slot[i] = 0;
}

/* (Re)builds the index *X of the N entries NAME_AT names, in two to four
 * slots an entry (four bytes each: a key of millions of values is not
 * indexed at 64 bytes a value); without memory, or past 2^32 entries,
 * none (lookups scan). */
static void index_build(const struct rt_tree_key *k, struct rt_tree_index **x,
                        const char *(*name_at)(const struct rt_tree_key *,
                                               size_t),
                        size_t n)
{
    index_free(x);
    if (n < INDEX_MIN || n >= UINT32_MAX / 4)
        return;
    size_t cap = 4 * INDEX_MIN;
    while (cap < 2 * n)
        cap *= 2;
    struct rt_tree_index *nx = malloc(sizeof *nx);
    if (!nx || !(nx->slot = calloc(cap, sizeof *nx->slot))) {
        free(nx);
        return;
    }
    nx->cap = cap;
    for (size_t i = 0; i < n; i++)
        if (name_at(k, i))
            index_put(k, nx, name_at(k, i), i);
    *x = nx;
}

/* Entry N - 1 was appended: into the index, which grows at half full. */
static void index_added(const struct rt_tree_key *k, struct rt_tree_index **x,
                        const char *(*name_at)(const struct rt_tree_key *,
                                               size_t),
                        size_t n)
{
    if (!*x || 2 * n > (*x)->cap)
        index_build(k, x, name_at, n);
    else
        index_put(k, *x, name_at(k, n - 1), n - 1);
}

/* The position of the first entry named NAME (LEN bytes, not NUL-ended:
 * a part of a path), or N when none is. */
static size_t index_find(const struct rt_tree_key *k,
                         const struct rt_tree_index *x,
                         const char *(*name_at)(const struct rt_tree_key *,
                                                size_t),
                         size_t n, const char *name, size_t len)
{
    if (!x) {
        for (size_t i = 0; i < n; i++) {
            const char *m = name_at(k, i);
            if (m && !rt_utf8_casecmp(m, strlen(m), name, len))
                return i;
        }
        return n;
    }
    /* Equal names may both be present (entries added before the index,
     * by a caller that checked): the lowest position is the first. */
    size_t best = n;
    for (size_t i = index_home(k, x, name, len); x->slot[i];
         i = (i + 1) & (x->cap - 1)) {
        size_t pos = x->slot[i] - 1;
        const char *m = name_at(k, pos);
        if (m && pos < best && !rt_utf8_casecmp(m, strlen(m), name, len))
            best = pos;
    }
    return best;
}

/* --- a key's own bytes ----------------------------------------------
 * Value names, and data of RT_TREE_SMALL_DATA bytes or fewer, are copied
 * into chunks the key owns and frees with it: a .reg file of millions of
 * tiny values ("ab"="", 8 bytes a line) held a heap block for each name
 * and each datum, two 32-byte blocks a value (14x the file). A value
 * replaced or deleted leaves its bytes there until the key goes: no more
 * than the input that set it held. */
struct rt_tree_bytes {
    struct rt_tree_bytes *next;
    size_t used, cap;
    unsigned char b[];
};

#define BYTES_FIRST 128u
#define BYTES_MOST 65536u

/* N bytes from P into K's chunks, unaligned (names, and data read a
 * byte at a time); NULL out of memory. A request larger than half a
 * chunk gets one of its own, behind the current one. */
static void *key_bytes(struct rt_tree_key *k, const void *p, size_t n)
{
    struct rt_tree_bytes *c = k->bytes;
    size_t at = c ? c->used : 0;
    if (!c || c->cap - at < n) {
        size_t cap = c ? c->cap * 2 : BYTES_FIRST;
        if (cap > BYTES_MOST)
            cap = BYTES_MOST;
        int own = n > cap / 2;
        if (own)
            cap = n;
        struct rt_tree_bytes *nc = malloc(sizeof *nc + cap);
        if (!nc)
            return NULL;
        nc->cap = cap;
        nc->used = n;
        if (own && c) {
            nc->next = c->next;
            c->next = nc;
        } else {
            nc->next = c;
            k->bytes = nc;
        }
        memcpy(nc->b, p, n);
        return nc->b;
    }
    c->used = at + n;
    return memcpy(c->b + at, p, n);
}

static void key_bytes_free(struct rt_tree_key *k)
{
    for (struct rt_tree_bytes *c = k->bytes, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    k->bytes = NULL;
}

/* V's data, unless it lies in its key's bytes. */
static void value_data_free(struct rt_value *v)
{
    if (v->len > RT_TREE_SMALL_DATA)
        rt_value_free(v);
    else
        memset(v, 0, sizeof *v);
}

/* A small datum moved into K's bytes (V's heap block freed), or a large
 * one left where it is: 0, or -1 out of memory (V untouched). */
static int own_data(struct rt_tree_key *k, struct rt_value *v)
{
    if (v->len > RT_TREE_SMALL_DATA)
        return 0;
    uint8_t *d = NULL;
    if (v->len && !(d = key_bytes(k, v->data, v->len)))
        return -1;
    free(v->data);
    v->data = d;
    return 0;
}

/* Room for one more in *V (N entries of SIZE bytes, *CAP allocated):
 * doubled when full, so that appending n entries copies O(n) bytes. */
static int grow(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 4;
    if (nc < n + 1)
        nc = n + 1;
    void *nv = realloc(*v, nc * size);
    if (!nv)
        return -1;
    *v = nv;
    *cap = nc;
    return 0;
}

struct rt_tree_key *rt_tree_new(const char *name)
{
    struct rt_tree_key *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->name = strdup(name);
    if (!k->name) {
        free(k);
        return NULL;
    }
    return k;
}

void rt_tree_free(struct rt_tree_key *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n_sub; i++)
        rt_tree_free(k->sub[i]);
    for (size_t i = 0; i < k->n_vals; i++)
        if (k->vals[i].name)
            value_data_free(&k->vals[i].v);
    key_bytes_free(k);
    free(k->sub);
    free(k->vals);
    free(k->name);
    index_free(&k->sub_index);
    index_free(&k->val_index);
    free(k);
}

struct rt_tree_key *rt_tree_clone(const struct rt_tree_key *k)
{
    struct rt_tree_key *c = rt_tree_new(k->name);
    if (!c)
        return NULL;
    c->sub = calloc(k->n_sub ? k->n_sub : 1, sizeof *c->sub);
    c->vals = calloc(k->n_vals ? k->n_vals : 1, sizeof *c->vals);
    if (!c->sub || !c->vals)
        goto fail;
    for (size_t i = 0; i < k->n_sub; i++) {
        if (!k->sub[i])
            continue;
        if (!(c->sub[c->n_sub] = rt_tree_clone(k->sub[i])))
            goto fail;
        c->n_sub++;
    }
    for (size_t i = 0; i < k->n_vals; i++) {
        struct rt_tree_value *cv = &c->vals[c->n_vals];
        const struct rt_tree_value *kv = &k->vals[i];
        if (!kv->name)
            continue;
        cv->name = key_bytes(c, kv->name, strlen(kv->name) + 1);
        if (!cv->name || rt_value_copy(&cv->v, &kv->v) != 0 ||
            own_data(c, &cv->v) != 0) {
            if (cv->name)
                rt_value_free(&cv->v);
            cv->name = NULL;
            goto fail;
        }
        c->n_vals++;
    }
    c->sub_cap = k->n_sub ? k->n_sub : 1;
    c->val_cap = k->n_vals ? k->n_vals : 1;
    index_build(c, &c->sub_index, sub_name, c->n_sub);
    index_build(c, &c->val_index, val_name, c->n_vals);
    return c;
fail:
    rt_tree_free(c);
    return NULL;
}

static struct rt_tree_key *child_n(const struct rt_tree_key *k,
                                   const char *name, size_t len)
{
    size_t i = index_find(k, k->sub_index, sub_name, k->n_sub, name, len);
    return i < k->n_sub ? k->sub[i] : NULL;
}

struct rt_tree_key *rt_tree_child(const struct rt_tree_key *k,
                                  const char *name)
{
    return child_n(k, name, strlen(name));
}

/* Walks PATH; with CREATE, adds the keys that are missing. A find
 * allocates nothing: out of memory must not make a key look absent (a
 * value read as absent takes its default). */
static struct rt_tree_key *walk(struct rt_tree_key *k, const char *path,
                                int create)
{
    const char *part = path;
    while (k) {
        part += strspn(part, "\\");
        size_t len = strcspn(part, "\\");
        if (!len)
            break;
        struct rt_tree_key *c = child_n(k, part, len);
        if (!c && create) {
            char *name = malloc(len + 1);
            if (name) {
                memcpy(name, part, len);
                name[len] = '\0';
            }
            if (!name || grow((void **)&k->sub, k->n_sub, &k->sub_cap,
                              sizeof *k->sub) != 0 ||
                !(c = rt_tree_new(name))) {
                free(name);
                return NULL;
            }
            free(name);
            k->sub[k->n_sub++] = c;
            index_added(k, &k->sub_index, sub_name, k->n_sub);
        }
        k = c;
        part += len;
    }
    return k;
}

struct rt_tree_key *rt_tree_find(const struct rt_tree_key *k, const char *path)
{
    return walk((struct rt_tree_key *)k, path, 0);
}

struct rt_tree_key *rt_tree_create(struct rt_tree_key *k, const char *path)
{
    return walk(k, path, 1);
}

struct rt_tree_value *rt_tree_value(const struct rt_tree_key *k,
                                    const char *name)
{
    size_t i = index_find(k, k->val_index, val_name, k->n_vals, name,
                          strlen(name));
    return i < k->n_vals ? &k->vals[i] : NULL;
}

int rt_tree_reserve_values(struct rt_tree_key *k, size_t more)
{
    if (more <= k->val_cap - k->n_vals)
        return 0;
    /* At least half as much again: many sections of one key, each with
     * a value or two, grow it as one value at a time would. */
    size_t nc = k->n_vals + more;
    if (nc < k->val_cap + k->val_cap / 2)
        nc = k->val_cap + k->val_cap / 2;
    void *nv = realloc(k->vals, nc * sizeof *k->vals);
    if (!nv)
        return -1;
    k->vals = nv;
    k->val_cap = nc;
    return 0;
}

int rt_tree_set_value_take(struct rt_tree_key *k, char *name,
                           struct rt_value *v)
{
    struct rt_value took = *v;
    memset(v, 0, sizeof *v);
    if (own_data(k, &took) != 0) {
        free(name);
        rt_value_free(&took);
        return -1;
    }
    struct rt_tree_value *old = rt_tree_value(k, name);
    if (old) {
        free(name);
        value_data_free(&old->v);
        old->v = took;
        return 0;
    }
    char *kept = key_bytes(k, name, strlen(name) + 1);
    free(name);
    if (!kept || grow((void **)&k->vals, k->n_vals, &k->val_cap,
                      sizeof *k->vals) != 0) {
        value_data_free(&took);
        return -1;
    }
    k->vals[k->n_vals].name = kept;
    k->vals[k->n_vals].v = took;
    k->n_vals++;
    index_added(k, &k->val_index, val_name, k->n_vals);
    return 0;
}

int rt_tree_set_value(struct rt_tree_key *k, const char *name,
                      const struct rt_value *v)
{
    struct rt_value copy;
    if (rt_value_copy(&copy, v) != 0)
        return -1;
    char *n = strdup(name);
    if (!n) {
        rt_value_free(&copy);
        return -1;
    }
    return rt_tree_set_value_take(k, n, &copy);
}

/* Closes up K's holes (values, subkeys), keeping the order of what is
 * left, and rebuilds the indexes. O(entries). */
static void close_up(struct rt_tree_key *k)
{
    if (k->dead_vals) {
        size_t n = 0;
        for (size_t i = 0; i < k->n_vals; i++)
            if (k->vals[i].name)
                k->vals[n++] = k->vals[i];
        k->n_vals = n;
        k->dead_vals = 0;
        index_build(k, &k->val_index, val_name, k->n_vals);
    }
    if (k->dead_subs) {
        size_t n = 0;
        for (size_t i = 0; i < k->n_sub; i++)
            if (k->sub[i])
                k->sub[n++] = k->sub[i];
        k->n_sub = n;
        k->dead_subs = 0;
        index_build(k, &k->sub_index, sub_name, k->n_sub);
    }
}

void rt_tree_settle(struct rt_tree_key *k)
{
    close_up(k);
    for (size_t i = 0; i < k->n_sub; i++)
        rt_tree_settle(k->sub[i]);
}

int rt_tree_delete_value(struct rt_tree_key *k, const char *name)
{
    struct rt_tree_value *v = rt_tree_value(k, name);
    if (!v)
        return 0;
    if (k->val_index)
        index_remove(k, k->val_index, val_name, v->name,
                     (size_t)(v - k->vals));
    value_data_free(&v->v);
    v->name = NULL;
    /* Closed up once holes outnumber entries: each entry moved once for
     * at least as many deletions, so n deletions cost O(n). */
    if (2 * ++k->dead_vals > k->n_vals)
        close_up(k);
    return 1;
}

int rt_tree_delete_child(struct rt_tree_key *k, const char *name)
{
    size_t i = index_find(k, k->sub_index, sub_name, k->n_sub, name,
                          strlen(name));
    if (i == k->n_sub)
        return 0;
    if (k->sub_index)
        index_remove(k, k->sub_index, sub_name, k->sub[i]->name, i);
    rt_tree_free(k->sub[i]);
    k->sub[i] = NULL;
    if (2 * ++k->dead_subs > k->n_sub)
        close_up(k);
    return 1;
}

static void dump_key(struct rt_strbuf *f, const struct rt_tree_key *k, const char *prefix)
{
    char *path = NULL;
    if (asprintf(&path, "%s%s%s", prefix, *prefix ? "\\" : "", k->name) < 0)
        return;
    rt_strbuf_printf(f, "[%s]\n", path);
    for (size_t i = 0; i < k->n_vals; i++) {
        if (!k->vals[i].name)
            continue;
        rt_strbuf_printf(f, "  \"%s\" type=%u len=%zu ", k->vals[i].name,
                k->vals[i].v.type, k->vals[i].v.len);
        /* Hex in chunks: one printf a byte made a dump of a database's
         * tables (the test suites' snapshots) take seconds. */
        static const char hex[] = "0123456789abcdef";
        char chunk[512];
        size_t used = 0;
        for (size_t b = 0; b < k->vals[i].v.len; b++) {
            chunk[used++] = hex[k->vals[i].v.data[b] >> 4];
            chunk[used++] = hex[k->vals[i].v.data[b] & 15];
            if (used == sizeof chunk) {
                rt_strbuf_append(f, chunk, used);
                used = 0;
            }
        }
        rt_strbuf_append(f, chunk, used);
        rt_strbuf_append(f, "\n", 1);
    }
    for (size_t i = 0; i < k->n_sub; i++)
        if (k->sub[i])
            dump_key(f, k->sub[i], path);
    free(path);
}

char *rt_tree_dump(const struct rt_tree_key *k)
{
    struct rt_strbuf b = {0};
    dump_key(&b, k, "");
    return rt_strbuf_take(&b);
}
