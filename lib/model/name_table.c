/* Model layer: name tables (one language's Counter and Help lists). */
#include "model/name_table.h"

#include <stdlib.h>
#include <string.h>

#include "model/sort_positions.h"
#include "model/utf16.h"

/* Whether P's text lies in one of L's blocks of texts. */
struct rt_text_block rt_texts_borrowed;

static int in_block(const struct rt_pair_list *l, const struct rt_pair *p)
{
    if (l->texts == RT_TEXTS_BORROWED)
        return 1;
    uintptr_t t = (uintptr_t)p->text;
    for (const struct rt_text_block *k = l->texts; k; k = k->next) {
        uintptr_t b = (uintptr_t)k->text;
        if (t >= b && t < b + k->size)
            return 1;
    }
    return 0;
}

void rt_pair_list_free_pair(const struct rt_pair_list *l, struct rt_pair *p)
{
    if (in_block(l, p))
        p->text = NULL;
    rt_pair_free(p);
}

int rt_pair_list_detach(const struct rt_pair_list *l, struct rt_pair *p)
{
    if (!in_block(l, p))
        return 0;
    char *t = malloc(p->text_len + 1);
    if (!t)
        return -1;
    memcpy(t, p->text, p->text_len + 1);
    p->text = t;
    return 0;
}

void rt_pair_list_free(struct rt_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        rt_pair_list_free_pair(l, &l->v[i]);
    free(l->v);
    if (l->texts == RT_TEXTS_BORROWED)
        l->texts = NULL;
    while (l->texts) {
        struct rt_text_block *next = l->texts->next;
        free(l->texts);
        l->texts = next;
    }
    memset(l, 0, sizeof *l);
}

void rt_name_table_free(struct rt_name_table *t)
{
    rt_pair_list_free(&t->counter);
    rt_pair_list_free(&t->help);
}

int rt_name_table_decode(struct rt_name_table *t, const uint8_t *counter,
                         size_t counter_len, const uint8_t *help,
                         size_t help_len, int lenient,
                         struct rt_msz_error *err, int *which)
{
    struct rt_msz_error e1 = {RT_MSZ_OK, 0}, e2 = {RT_MSZ_OK, 0};
    memset(t, 0, sizeof *t);
    int r1 = rt_multi_sz_decode(counter, counter ? counter_len : 0, lenient,
                                &t->counter.v, &t->counter.n, &e1);
    t->counter.cap = t->counter.n;
    int r2 = 0;
    if (r1 == 0 || lenient) {
        r2 = rt_multi_sz_decode(help, help ? help_len : 0, lenient,
                                &t->help.v, &t->help.n, &e2);
        t->help.cap = t->help.n;
    }
    if (r1 == 0 && r2 == 0) {
        if (err)
            *err = e1;
        return 0;
    }
    if (err)
        *err = r1 ? e1 : e2;
    if (which)
        *which = r1 ? 0 : 1;
    if (!lenient)
        rt_name_table_free(t);
    return -1;
}

int rt_pair_list_encode(const struct rt_pair_list *l, uint8_t **blob,
                        size_t *len)
{
    return rt_multi_sz_encode(l->v, l->n, blob, len);
}

/* The low four bytes of X (ASCII) as four UTF-16LE units, read as a
 * little-endian host reads eight bytes. */
static uint64_t units(uint64_t x)
{
    return (x & 0xFF) | (x & 0xFF00) << 8 | (x & 0xFF0000) << 16 |
           (x & 0xFF000000) << 24;
}

/* Whether the N bytes at U begin with the LEN bytes of UTF-8 at S as
 * rt_utf8_to_utf16le_into writes them (its one-, two- and three-byte
 * forms; 0 for any other) and a NUL unit; *USED then their count.
 *
 * Each unit is encoded and its bytes compared, not the text decoded:
 * bytes that equal a unit's own encoding are valid UTF-8 by that, so
 * only surrogates and, behind a lead byte, a unit below 0x80 (its
 * encoding is one byte) are checked; a comparison that holds, the
 * common case, then takes no branch that could go either way. */
static int same_string(const char *s, size_t len, const uint8_t *u,
                       size_t n, size_t *used)
{
    const unsigned char *c = (const unsigned char *)s;
    size_t o = 0, i = 0;
    while (i < len) {
        if (c[i] < 0x80) {
            /* Eight ASCII bytes a step (most text), then four (the
             * accented letters of most languages come every few words),
             * against their units as a little-endian host reads them
             * (elsewhere they differ, and the caller encodes). */
            uint64_t w, a, b;
            while (len - i >= 8 && n - o >= 16) {
                memcpy(&w, c + i, 8);
                if (w & 0x8080808080808080u)
                    break;
                memcpy(&a, u + o, 8);
                memcpy(&b, u + o + 8, 8);
                if (a != units(w) || b != units(w >> 32))
                    return 0;
                i += 8;
                o += 16;
            }
            if (len - i >= 4 && n - o >= 8) {
                uint32_t x;
                memcpy(&x, c + i, 4);
                if (!(x & 0x80808080u)) {
                    memcpy(&a, u + o, 8);
                    if (a != units(x))
                        return 0;
                    i += 4;
                    o += 8;
                    continue;
                }
            }
            if (i == len)
                break;
            if (c[i] < 0x80) {
                if (n - o < 2 || u[o] != c[i] || u[o + 1])
                    return 0;
                o += 2;
                i++;
                continue;
            }
        }
        if (n - o < 2)
            return 0;
        uint32_t v = (uint32_t)u[o] | (uint32_t)u[o + 1] << 8;
        if (v < 0x800) {
            if (v < 0x80 || len - i < 2 ||
                ((uint32_t)c[i] | (uint32_t)c[i + 1] << 8) !=
                    (0x80C0 | v >> 6 | (v & 0x3F) << 8))
                return 0;
            i += 2;
        } else {
            if (v - 0xD800 < 0x800 || len - i < 3 ||
                ((uint32_t)c[i] | (uint32_t)c[i + 1] << 8 |
                 (uint32_t)c[i + 2] << 16) !=
                    (0x8080E0 | v >> 12 | (v >> 6 & 0x3F) << 8 |
                     (v & 0x3F) << 16))
                return 0;
            i += 3;
        }
        o += 2;
    }
    if (n - o < 2 || u[o] || u[o + 1])
        return 0;
    *used = o + 2;
    return 1;
}

/* INDEX in decimal, as "%u" prints it, into D (at least 11 bytes). */
static const char *decimal(uint32_t index, char *d)
{
    char *p = d + 10;
    *p = '\0';
    do {
        *--p = (char)('0' + index % 10);
        index /= 10;
    } while (index);
    return p;
}

size_t rt_pair_list_encoded_prefix(const struct rt_pair_list *l,
                                   const uint8_t *blob, size_t len,
                                   size_t *bytes)
{
    size_t o = 0, i = 0;
    for (; blob && i < l->n; i++) {
        const struct rt_pair *p = &l->v[i];
        char d[11];
        const char *idx = p->index_raw ? p->index_raw : decimal(p->index, d);
        size_t a, b;
        if (!same_string(idx, strlen(idx), blob + o, len - o, &a) ||
            !same_string(p->text, p->text_len, blob + o + a, len - o - a, &b))
            break;
        o += a + b;
    }
    *bytes = o;
    return i;
}

int rt_pair_list_encodes_as(const struct rt_pair_list *l, const uint8_t *blob,
                            size_t len)
{
    size_t o, used;
    return blob && rt_pair_list_encoded_prefix(l, blob, len, &o) == l->n &&
           same_string("", 0, blob + o, len - o, &used) && o + used == len;
}

int rt_pair_list_copy(struct rt_pair_list *dst, const struct rt_pair_list *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->n)
        return 0;
    dst->v = calloc(src->n, sizeof *dst->v);
    if (!dst->v)
        return -1;
    dst->cap = src->n;
    for (size_t i = 0; i < src->n; i++) {
        if (rt_pair_copy(&dst->v[i], &src->v[i]) != 0) {
            rt_pair_list_free(dst);
            return -1;
        }
        dst->n++;
    }
    return 0;
}

const struct rt_pair *rt_pair_list_find(const struct rt_pair_list *l,
                                        uint32_t index)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].index == index)
            return &l->v[i];
    return NULL;
}

size_t rt_pair_list_find_text_all(const struct rt_pair_list *l,
                                  const char *name, size_t *out, size_t max)
{
    size_t len = strlen(name), found = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (rt_utf8_casecmp(l->v[i].text, l->v[i].text_len, name, len) == 0) {
            if (found < max)
                out[found] = i;
            found++;
        }
    }
    return found;
}

const struct rt_pair *rt_pair_list_find_text(const struct rt_pair_list *l,
                                             const char *name)
{
    size_t pos;
    return rt_pair_list_find_text_all(l, name, &pos, 1) ? &l->v[pos] : NULL;
}

uint32_t rt_pair_list_highest(const struct rt_pair_list *l)
{
    uint32_t h = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].index > h)
            h = l->v[i].index;
    return h;
}

uint32_t rt_name_table_highest(const struct rt_name_table *t)
{
    uint32_t a = rt_pair_list_highest(&t->counter);
    uint32_t b = rt_pair_list_highest(&t->help);
    return a > b ? a : b;
}

static int cmp_by_index_then_pos(const void *pa, const void *pb)
{
    const size_t *a = pa, *b = pb;   /* [index, position] */
    if (a[0] != b[0])
        return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

size_t rt_pair_list_duplicates(const struct rt_pair_list *l,
                               struct rt_duplicate **out)
{
    *out = NULL;
    if (l->n < 2)
        return 0;
    /* A list in rising order, as tables and backups are written, has
     * none: one pass, no sort (a restore reads a dozen languages' tens
     * of thousands of pairs each). */
    size_t up = 1;
    while (up < l->n && l->v[up - 1].index < l->v[up].index)
        up++;
    if (up == l->n)
        return 0;
    /* Sort (index, position) so each index's occurrences are adjacent:
     * O(n log n) on tables of tens of thousands of pairs. */
    size_t *keys = malloc(l->n * 2 * sizeof *keys);
    if (!keys)
        return (size_t)-1;
    for (size_t i = 0; i < l->n; i++) {
        keys[2 * i] = l->v[i].index;
        keys[2 * i + 1] = i;
    }
    qsort(keys, l->n, 2 * sizeof *keys, cmp_by_index_then_pos);
    /* Each later pair of a run of equal indices repeats the run's first:
     * one pass, the run's start carried along (a walk back from each
     * repeat to the start was quadratic in the run: 200,000 of one index
     * took 20 s). */
    size_t count = 0, cap = 0, run = 0;
    struct rt_duplicate *d = NULL;
    for (size_t i = 1; i < l->n; i++) {
        if (keys[2 * i] != keys[2 * run]) {
            run = i;
            continue;
        }
        if (count == cap) {
            size_t c = cap ? cap + cap / 2 : 16;
            struct rt_duplicate *nd = realloc(d, c * sizeof *d);
            if (!nd) {
                free(d);
                free(keys);
                return (size_t)-1;
            }
            d = nd;
            cap = c;
        }
        d[count].index = (uint32_t)keys[2 * i];
        d[count].first = keys[2 * run + 1];
        d[count].second = keys[2 * i + 1];
        count++;
    }
    free(keys);
    *out = d;
    return count;
}

int rt_pair_list_append(struct rt_pair_list *l, uint32_t index,
                        const char *text)
{
    size_t len = strlen(text);
    if (rt_utf8_validate(text, len, NULL) != 0)
        return -1;
    return rt_pair_list_append_valid(l, index, text, len);
}

/* A new pair at L's end for INDEX (its text not set yet), or NULL (index
 * 0 or above 2^31, out of memory). */
static struct rt_pair *new_pair(struct rt_pair_list *l, uint32_t index)
{
    /* A view's pairs are never freed: a text given to it would be lost. */
    if (index == 0 || index > RT_INDEX_MAX || l->texts == RT_TEXTS_BORROWED)
        return NULL;
    if (l->n == l->cap) {
        /* Half as much again: a list of millions of pairs is never twice
         * what it holds; from one, so that a list of one pair (each of
         * thousands of tiny sections) costs what one pair does. */
        size_t c = l->cap + l->cap / 2 + 1;
        struct rt_pair *v = realloc(l->v, c * sizeof *v);
        if (!v)
            return NULL;
        l->v = v;
        l->cap = c;
    }
    struct rt_pair *p = &l->v[l->n];
    p->index = index;
    p->index_raw = NULL;
    p->text = NULL;
    p->text_len = 0;
    return p;
}

int rt_pair_list_append_valid(struct rt_pair_list *l, uint32_t index,
                              const char *text, size_t len)
{
    struct rt_pair *p = new_pair(l, index);
    if (!p || !(p->text = malloc(len + 1)))
        return -1;
    p->text_len = (uint32_t)len;
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    l->n++;
    return 0;
}

int rt_pair_list_append_packed(struct rt_pair_list *l, uint32_t index,
                               const char *text, size_t len)
{
    struct rt_text_block *k = l->texts;
    if (k == RT_TEXTS_BORROWED)
        return -1;
    if (!k || k->size - k->used < len + 1) {
        /* The first block holds the first text alone (a section of one
         * pair, each of tens of thousands of tiny sections, costs what it
         * did with a heap block of its own); then from 256 bytes, twice
         * the last up to 1 MiB: what is left unused in a full block is a
         * text's length at most. */
        size_t size = !k ? 0 : k->size < 128 ? 256 : 2 * k->size;
        if (size > ((size_t)1 << 20))
            size = (size_t)1 << 20;
        if (size < len + 1)
            size = len + 1;
        struct rt_text_block *b = malloc(sizeof *b + size);
        if (!b)
            return -1;
        *b = (struct rt_text_block){k, size, 0};
        l->texts = k = b;
    }
    struct rt_pair *p = new_pair(l, index);
    if (!p)
        return -1;
    p->text = k->text + k->used;
    p->text_len = (uint32_t)len;
    memcpy(p->text, text, len);
    p->text[len] = '\0';
    k->used += len + 1;
    l->n++;
    return 0;
}

size_t rt_pair_list_remove_range(struct rt_pair_list *l, uint32_t first,
                                 uint32_t last)
{
    size_t w = 0, removed = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i].index >= first && l->v[i].index <= last) {
            rt_pair_list_free_pair(l, &l->v[i]);
            removed++;
        } else {
            l->v[w++] = l->v[i];
        }
    }
    l->n = w;
    return removed;
}

static int cmp_by_index(const void *x, const void *y)
{
    const struct rt_pair *a = *(const struct rt_pair *const *)x;
    const struct rt_pair *b = *(const struct rt_pair *const *)y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a < b ? -1 : a > b;
}


/* Orders pairs by index, then text bytes, then length: equal pairs are
 * neighbours. */
static int cmp_pairs(const struct rt_pair *a, const struct rt_pair *b)
{
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    size_t n = a->text_len < b->text_len ? a->text_len : b->text_len;
    int c = memcmp(a->text, b->text, n);
    if (c)
        return c;
    if (a->text_len != b->text_len)
        return a->text_len < b->text_len ? -1 : 1;
    return 0;
}

static int cmp_pair_ptrs(const void *x, const void *y)
{
    return cmp_pairs(*(const struct rt_pair *const *)x,
                     *(const struct rt_pair *const *)y);
}

int rt_pair_sorted_of(const struct rt_pair_list *a, struct rt_pair_sorted *s)
{
    s->n = a->n;
    if (!(s->v = malloc((a->n ? a->n : 1) * sizeof *s->v)))
        return -1;
    for (size_t i = 0; i < a->n; i++)
        s->v[i] = &a->v[i];
    qsort(s->v, s->n, sizeof *s->v, cmp_pair_ptrs);
    return 0;
}

void rt_pair_sorted_free(struct rt_pair_sorted *s)
{
    free(s->v);
    s->v = NULL;
    s->n = 0;
}

size_t rt_pair_list_agreement(const struct rt_pair_sorted *a,
                              const struct rt_pair_list *b)
{
    const struct rt_pair **v = malloc((b->n ? b->n : 1) * sizeof *v);
    if (!v)
        return (size_t)-1;
    for (size_t i = 0; i < b->n; i++)
        v[i] = &b->v[i];
    qsort(v, b->n, sizeof *v, cmp_by_index);
    size_t n = 0;
    for (size_t j = 0; j < b->n; j++) {
        if (j && v[j - 1]->index == v[j]->index)
            continue;
        size_t lo = 0, hi = a->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_pairs(a->v[mid], v[j]) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < a->n && !cmp_pairs(a->v[lo], v[j]); lo++)
            n++;
    }
    free(v);
    return n;
}

static int cmp_positions(uint32_t a, uint32_t b, const void *ctx)
{
    const struct rt_pair *v = ctx;
    int c = cmp_pairs(&v[a], &v[b]);
    return c ? c : (a > b) - (a < b);   /* table order among equal pairs */
}

/* L's positions in pair order, four bytes each, sorted in place (no
 * copy of the array as qsort's merge sort takes); NULL when out of
 * memory. A list holds fewer than 2^32 pairs: a table is under 4 GiB. */
static uint32_t *sorted_pairs(const struct rt_pair_list *l)
{
    uint32_t *v = malloc((l->n ? l->n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        v[i] = (uint32_t)i;
    rt_sort_positions(v, l->n, cmp_positions, l->v);
    return v;
}

/* Appends to OUT the pairs of L not marked in MATCHED, in L's order:
 * copies, or with TAKE, L's own pairs moved out of it (L's texts are
 * OUT's then; L is about to be freed: a table of millions of tiny pairs
 * is not held twice). */
static int append_unmatched(struct rt_pair_list *l,
                            const unsigned char *matched,
                            struct rt_pair_list *out, int take)
{
    for (size_t i = 0; i < l->n; i++) {
        if (matched[i])
            continue;
        if (out->n == out->cap) {
            size_t cap = out->cap ? out->cap * 2 : 16;
            struct rt_pair *v = realloc(out->v, cap * sizeof *v);
            if (!v)
                return -1;
            out->v = v;
            out->cap = cap;
        }
        if (take) {
            if (rt_pair_list_detach(l, &l->v[i]) != 0)
                return -1;
            out->v[out->n] = l->v[i];
            l->v[i].text = l->v[i].index_raw = NULL;
            l->v[i].text_len = 0;
        } else if (rt_pair_copy(&out->v[out->n], &l->v[i]) != 0)
            return -1;
        out->n++;
    }
    return 0;
}

/* With TAKE and REMOVED empty, OLD_PAIRS' unmatched pairs are compacted
 * where they lie and its array becomes REMOVED: a whole table replaced
 * whose pairs all go (millions of tiny duplicates) is held once, not in
 * two arrays. */
static int pair_list_diff(struct rt_pair_list *old_pairs,
                          const struct rt_pair_list *new_pairs,
                          struct rt_pair_list *added,
                          struct rt_pair_list *removed, int take)
{
    uint32_t *o = sorted_pairs(old_pairs);
    uint32_t *w = sorted_pairs(new_pairs);
    unsigned char *o_matched = calloc(old_pairs->n ? old_pairs->n : 1, 1);
    unsigned char *w_matched = calloc(new_pairs->n ? new_pairs->n : 1, 1);
    int rc = -1;
    if (!o || !w || !o_matched || !w_matched)
        goto out;
    /* One walk of both sorted lists: equal pairs meet, one for one. */
    for (size_t i = 0, j = 0; i < old_pairs->n && j < new_pairs->n;) {
        int c = cmp_pairs(&old_pairs->v[o[i]], &new_pairs->v[w[j]]);
        if (c == 0) {
            o_matched[o[i]] = 1;
            w_matched[w[j]] = 1;
            i++;
            j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
    free(o);
    free(w);
    o = w = NULL;
    rc = append_unmatched((struct rt_pair_list *)new_pairs, w_matched, added,
                          0);
    if (!rc && take && !removed->v) {
        size_t kept = 0;
        for (size_t i = 0; i < old_pairs->n; i++) {
            if (o_matched[i])
                rt_pair_list_free_pair(old_pairs, &old_pairs->v[i]);
            else
                old_pairs->v[kept++] = old_pairs->v[i];
        }
        *removed = *old_pairs;
        removed->n = kept;
        memset(old_pairs, 0, sizeof *old_pairs);
        if (kept < removed->cap / 2) {
            struct rt_pair *v = realloc(removed->v,
                                        (kept ? kept : 1) * sizeof *v);
            if (v) {
                removed->v = v;
                removed->cap = kept ? kept : 1;
            }
        }
    } else if (!rc) {
        rc = append_unmatched(old_pairs, o_matched, removed, take);
    }
out:
    free(o);
    free(w);
    free(o_matched);
    free(w_matched);
    return rc;
}

int rt_pair_list_diff(const struct rt_pair_list *old_pairs,
                      const struct rt_pair_list *new_pairs,
                      struct rt_pair_list *added, struct rt_pair_list *removed)
{
    return pair_list_diff((struct rt_pair_list *)old_pairs, new_pairs, added,
                          removed, 0);
}

int rt_pair_list_diff_take(struct rt_pair_list *old_pairs,
                           const struct rt_pair_list *new_pairs,
                           struct rt_pair_list *added,
                           struct rt_pair_list *removed)
{
    return pair_list_diff(old_pairs, new_pairs, added, removed, 1);
}

int rt_pair_list_equal(const struct rt_pair_list *a,
                       const struct rt_pair_list *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct rt_pair *x = &a->v[i], *y = &b->v[i];
        if (x->index != y->index || x->text_len != y->text_len ||
            memcmp(x->text, y->text, x->text_len) ||
            !x->index_raw != !y->index_raw ||
            (x->index_raw && strcmp(x->index_raw, y->index_raw)))
            return 0;
    }
    return 1;
}

int rt_table_load(struct rt_table *t, uint8_t *blob, size_t len,
                  struct rt_msz_error *err)
{
    memset(t, 0, sizeof *t);
    t->blob = blob;
    t->len = len;
    int r = rt_multi_sz_scan(blob, blob ? len : 0, 1, &t->v, &t->n, err);
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].index > t->highest)
            t->highest = t->v[i].index;
    return r;
}

void rt_table_free(struct rt_table *t)
{
    free(t->blob);
    free(t->v);
    memset(t, 0, sizeof *t);
}

void rt_table_set(struct rt_table *t, uint8_t *tail, size_t base, size_t len,
                  struct rt_msz_entry *v, size_t n)
{
    memset(t, 0, sizeof *t);
    t->blob = tail;
    t->base = base;
    t->len = len;
    t->v = v;
    t->n = n;
    for (size_t i = 0; i < n; i++)
        if (v[i].index > t->highest)
            t->highest = v[i].index;
}

int rt_table_keep_from(struct rt_table *t, size_t from)
{
    if (from <= t->base || !t->blob)
        return 0;
    if (from > t->len)
        from = t->len;
    uint8_t *tail = malloc(t->len - from + 1);
    if (!tail)
        return -1;
    memcpy(tail, t->blob + (from - t->base), t->len - from);
    free(t->blob);
    t->blob = tail;
    t->base = from;
    return 0;
}

const uint8_t *rt_table_at(const struct rt_table *t, size_t at)
{
    if (!t->blob || at < t->base || at > t->len)
        return NULL;
    return t->blob + (at - t->base);
}

const struct rt_msz_entry *rt_table_find(const struct rt_table *t,
                                         uint32_t index)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].index == index)
            return &t->v[i];
    return NULL;
}

int rt_table_text_equal(const struct rt_table *a, const struct rt_msz_entry *x,
                        const struct rt_table *b, const struct rt_msz_entry *y)
{
    const uint8_t *p = rt_table_at(a, x->text), *q = rt_table_at(b, y->text);
    return p && q && x->text_bytes == y->text_bytes &&
           !memcmp(p, q, x->text_bytes);
}

int rt_table_pairs(const struct rt_table *t, struct rt_pair_list *l)
{
    return rt_table_pairs_from(t, 0, l);
}

/* Decodes into L (emptied) the pairs of T from the FROM-th on whose
 * index lies in [A, B], the texts in L's block (one block, not one heap
 * block a pair, sized by rt_msz_entry_text_bound: one pass). */
static int pairs_within(const struct rt_table *t, size_t from, uint32_t a,
                        uint32_t b, struct rt_pair_list *l)
{
    memset(l, 0, sizeof *l);
    size_t n = 0, size = 0;
    for (size_t i = from; i < t->n; i++)
        if (t->v[i].index >= a && t->v[i].index <= b) {
            n++;
            size += rt_msz_entry_text_bound(&t->v[i]) + 1;
        }
    if (!n)
        return 0;
    if (t->base)      /* a tail only: no pairs to give */
        return -1;
    l->v = malloc(n * sizeof *l->v);
    l->texts = malloc(sizeof *l->texts + size);
    if (l->texts)
        *l->texts = (struct rt_text_block){NULL, size, 0};
    if (!l->v || !l->texts) {
        rt_pair_list_free(l);
        return -1;
    }
    l->cap = n;
    char *at = l->texts->text;
    for (size_t i = from; i < t->n; i++) {
        if (t->v[i].index < a || t->v[i].index > b)
            continue;
        if (rt_msz_entry_pair_in(t->blob, &t->v[i], &l->v[l->n], at) != 0) {
            rt_pair_list_free(l);
            return -1;
        }
        at += l->v[l->n].text_len + 1;
        l->n++;
    }
    l->texts->used = (size_t)(at - l->texts->text);
    return 0;
}

int rt_table_pairs_from(const struct rt_table *t, size_t from,
                        struct rt_pair_list *l)
{
    return pairs_within(t, from, 0, UINT32_MAX, l);
}

int rt_table_pairs_within(const struct rt_table *t, uint32_t a, uint32_t b,
                          struct rt_pair_list *l)
{
    return pairs_within(t, 0, a, b, l);
}

_Static_assert(sizeof(struct rt_pair) <= RT_PERMUTE_MAX,
               "a pair is moved through rt_permute's buffer");

void rt_pairs_permute(struct rt_pair *v, uint32_t *perm, size_t n)
{
    rt_permute(v, sizeof *v, perm, n);
}

int rt_pairs_by_index_then_position(uint32_t a, uint32_t b,
                                    const void *pairs)
{
    const struct rt_pair *v = pairs;
    if (v[a].index != v[b].index)
        return v[a].index < v[b].index ? -1 : 1;
    return (a > b) - (a < b);
}

void rt_pairs_sort_by_index(struct rt_pair *v, size_t n, uint32_t *perm)
{
    for (size_t i = 0; i < n; i++)
        perm[i] = (uint32_t)i;
    rt_sort_positions(perm, n, rt_pairs_by_index_then_position, v);
    rt_pairs_permute(v, perm, n);
}
