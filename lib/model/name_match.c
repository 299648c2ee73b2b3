/* Name lookups with how close each match is (name_match.h). */
#include "model/name_match.h"

#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

size_t rt_name_trimmed_len(const char *s, size_t n)
{
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n;
}

/* The order the index sorts by and searches in: trailing blanks dropped,
 * any case. */
static int loose_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    return rt_utf8_casecmp(a, rt_name_trimmed_len(a, alen), b,
                           rt_name_trimmed_len(b, blen));
}

enum rt_name_match rt_name_match(const char *text, size_t text_len,
                                 const char *name, size_t name_len)
{
    if (text_len == name_len && !memcmp(text, name, text_len))
        return RT_NAME_MATCH_EXACT;
    if (!rt_utf8_casecmp(text, text_len, name, name_len))
        return RT_NAME_MATCH_CASE;
    size_t t = rt_name_trimmed_len(text, text_len);
    size_t n = rt_name_trimmed_len(name, name_len);
    if (t == n && !memcmp(text, name, t))
        return RT_NAME_MATCH_BLANKS;
    if (!rt_utf8_casecmp(text, t, name, n))
        return RT_NAME_MATCH_BLANKS_CASE;
    return RT_NAME_MATCH_NONE;
}

const char *rt_name_match_word(enum rt_name_match m)
{
    switch (m) {
    case RT_NAME_MATCH_EXACT: return "exact";
    case RT_NAME_MATCH_CASE: return "case";
    case RT_NAME_MATCH_BLANKS:
    case RT_NAME_MATCH_BLANKS_CASE: return "trailing-blanks";
    case RT_NAME_MATCH_NONE: break;
    }
    return "none";
}

/* A pair's place in the sort: its text beside it, trailing blanks
 * dropped, so that a comparison reads the two texts and nothing else (a
 * sort of the positions alone loads each pair from the table, a cache
 * miss apiece in a table of 200,000 names). */
struct sort_key {
    const char *text;
    uint32_t len, pos;
};

/* K before L: by text as loose_cmp compares, then by position. */
static int before(const struct sort_key *k, const struct sort_key *l)
{
    int c = rt_utf8_casecmp(k->text, k->len, l->text, l->len);
    return c ? c < 0 : k->pos < l->pos;
}

/* Sorts the N keys at V by before(), through TMP (room for N): a merge
 * sort, bottom up. */
static void sort_keys(struct sort_key *v, struct sort_key *tmp, size_t n)
{
    struct sort_key *src = v, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = before(&src[j], &src[i]) ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        struct sort_key *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

int rt_name_index_build(struct rt_name_index *x, const struct rt_pair_list *l)
{
    memset(x, 0, sizeof *x);
    x->list = l;
    size_t n = l->n ? l->n : 1;
    if (l->n > UINT32_MAX)
        return -1;
    struct sort_key *keys = malloc(2 * n * sizeof *keys);
    x->by = keys ? malloc(n * sizeof *x->by) : NULL;
    if (!x->by) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        keys[i].text = l->v[i].text;
        keys[i].len = (uint32_t)rt_name_trimmed_len(l->v[i].text,
                                                    l->v[i].text_len);
        keys[i].pos = (uint32_t)i;
    }
    sort_keys(keys, keys + n, l->n);
    for (size_t i = 0; i < l->n; i++)
        x->by[i] = keys[i].pos;
    free(keys);
    x->n = l->n;
    return 0;
}

size_t rt_name_index_find(const struct rt_name_index *x, const char *name,
                          size_t *count)
{
    const struct rt_pair *v = x->list->v;
    size_t len = strlen(name), lo = 0, hi = x->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rt_pair *p = &v[x->by[mid]];
        if (loose_cmp(p->text, p->text_len, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < x->n &&
           !loose_cmp(v[x->by[end]].text, v[x->by[end]].text_len, name, len))
        end++;
    *count = end - lo;
    return lo;
}

void rt_name_index_free(struct rt_name_index *x)
{
    free(x->by);
    memset(x, 0, sizeof *x);
}
