/* Model layer: change sets and registry values. */
#include "model/change_set.h"

#include <stdlib.h>
#include <string.h>

#include "model/sort_positions.h"
#include "model/utf16.h"

void rt_value_free(struct rt_value *v)
{
    free(v->data);
    v->data = NULL;
    v->len = 0;
}

int rt_value_dword(const struct rt_value *v, uint32_t *out)
{
    if (v->type != RT_REG_DWORD || v->len != 4)
        return -1;
    *out = (uint32_t)v->data[0] | (uint32_t)v->data[1] << 8 |
           (uint32_t)v->data[2] << 16 | (uint32_t)v->data[3] << 24;
    return 0;
}

char *rt_value_string(const struct rt_value *v)
{
    char *s;
    return rt_value_to_string(v, &s) == 0 ? s : NULL;
}

int rt_value_to_string(const struct rt_value *v, char **out)
{
    *out = NULL;
    if (v->type != RT_REG_SZ && v->type != RT_REG_EXPAND_SZ)
        return 0;
    size_t len = v->len & ~(size_t)1;
    /* Stop at the first NUL: what follows is not part of the string. */
    for (size_t i = 0; i + 1 < len; i += 2)
        if (!v->data[i] && !v->data[i + 1]) {
            len = i;
            break;
        }
    int r = rt_utf16le_to_utf8(v->data, len, out, NULL, NULL);
    if (r != 0)
        *out = NULL;
    return r == -2 ? -1 : 0;
}

int rt_value_from_dword(struct rt_value *v, uint32_t x)
{
    v->type = RT_REG_DWORD;
    v->len = 4;
    v->data = malloc(4);
    if (!v->data)
        return -1;
    v->data[0] = (uint8_t)x;
    v->data[1] = (uint8_t)(x >> 8);
    v->data[2] = (uint8_t)(x >> 16);
    v->data[3] = (uint8_t)(x >> 24);
    return 0;
}

int rt_value_from_string(struct rt_value *v, uint32_t type, const char *utf8)
{
    uint8_t *u = NULL;
    size_t n = 0;
    size_t len = strlen(utf8);
    if (len && rt_utf8_to_utf16le(utf8, len, &u, &n, NULL) != 0)
        return -1;
    v->type = type;
    v->len = n + 2;
    v->data = malloc(v->len);
    if (!v->data) {
        free(u);
        return -1;
    }
    if (n)
        memcpy(v->data, u, n);
    v->data[n] = v->data[n + 1] = 0;
    free(u);
    return 0;
}

int rt_value_copy(struct rt_value *dst, const struct rt_value *src)
{
    dst->type = src->type;
    dst->len = src->len;
    dst->data = malloc(src->len ? src->len : 1);
    if (!dst->data)
        return -1;
    if (src->len)
        memcpy(dst->data, src->data, src->len);
    return 0;
}

int rt_value_equal(const struct rt_value *a, const struct rt_value *b)
{
    return a->type == b->type && a->len == b->len &&
           (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static struct rt_change *push(struct rt_change_set *cs, enum rt_change_op op)
{
    if (cs->n == cs->cap) {
        size_t c = cs->cap ? cs->cap * 2 : 16;
        struct rt_change *v = realloc(cs->v, c * sizeof *v);
        if (!v)
            return NULL;
        cs->v = v;
        cs->cap = c;
    }
    struct rt_change *c = &cs->v[cs->n];
    memset(c, 0, sizeof *c);
    c->op = op;
    return c;
}

static void change_free(struct rt_change *c)
{
    free(c->lang);
    free(c->service);
    free(c->name);
    rt_value_free(&c->value);
    free(c->edits);
    rt_pair_list_free(&c->added);
    rt_pair_list_free(&c->removed);
}

/* Commits the change at the end of CS when every copy succeeded. */
static int finish(struct rt_change_set *cs, struct rt_change *c, int ok)
{
    if (!ok) {
        change_free(c);
        return -1;
    }
    cs->n++;
    return 0;
}

static int dup_ok(char **dst, const char *src)
{
    if (!src)
        return 1;
    *dst = strdup(src);
    return *dst != NULL;
}

int rt_change_set_create_language(struct rt_change_set *cs, const char *lang)
{
    struct rt_change *c = push(cs, RT_CHANGE_CREATE_LANGUAGE);
    return c ? finish(cs, c, dup_ok(&c->lang, lang)) : -1;
}

int rt_change_set_table(struct rt_change_set *cs, const char *lang,
                        enum rt_table_kind table, const uint8_t *blob,
                        size_t len, const struct rt_pair_list *added,
                        const struct rt_pair_list *removed)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_TABLE);
    if (!c)
        return -1;
    c->table = table;
    struct rt_value v = {RT_REG_MULTI_SZ, (uint8_t *)blob, len};
    int ok = dup_ok(&c->lang, lang) && rt_value_copy(&c->value, &v) == 0 &&
             (!added || rt_pair_list_copy(&c->added, added) == 0) &&
             (!removed || rt_pair_list_copy(&c->removed, removed) == 0);
    return finish(cs, c, ok);
}

int rt_change_set_table_take(struct rt_change_set *cs, const char *lang,
                             enum rt_table_kind table, uint8_t *blob,
                             size_t len, struct rt_pair_list *added,
                             struct rt_pair_list *removed)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_TABLE);
    if (!c) {
        free(blob);
        return -1;
    }
    c->table = table;
    c->value = (struct rt_value){RT_REG_MULTI_SZ, blob, len};
    if (!dup_ok(&c->lang, lang))
        return finish(cs, c, 0);
    c->added = *added;
    c->removed = *removed;
    memset(added, 0, sizeof *added);
    memset(removed, 0, sizeof *removed);
    return finish(cs, c, 1);
}

int rt_change_set_table_splice(struct rt_change_set *cs, const char *lang,
                               enum rt_table_kind table, int before_present,
                               size_t before_len, struct rt_table_edit *edits,
                               size_t n, uint8_t *ins, size_t ins_len,
                               struct rt_pair_list *added,
                               struct rt_pair_list *removed)
{
    if (rt_change_set_table_take(cs, lang, table, ins, ins_len, added,
                                 removed) != 0) {
        free(edits);
        return -1;
    }
    struct rt_change *c = &cs->v[cs->n - 1];
    c->edits = edits;
    c->n_edits = n;
    c->before_present = before_present;
    c->before_len = before_len;
    return 0;
}

size_t rt_change_table_len(const struct rt_change *c)
{
    if (!c->n_edits)
        return c->value.len;
    size_t len = c->before_len;
    for (size_t i = 0; i < c->n_edits; i++)
        len = len - c->edits[i].cut + c->edits[i].ins_len;
    return len;
}

/* Calls FN for each run of the new table in order, from its byte FROM
 * on: a run of the table kept, or an edit's inserted bytes. BEFORE holds
 * the table's bytes from byte ORIGIN on (ORIGIN <= FROM, and no run kept
 * before the first edit is wanted below ORIGIN). Stops at FN's first
 * non-zero return. */
static int each_run(const struct rt_change *c, const uint8_t *before,
                    size_t origin, size_t from,
                    int (*fn)(void *ctx, const uint8_t *p, size_t n),
                    void *ctx)
{
    size_t at = 0, out = 0;     /* in the table before, in the new one */
    for (size_t i = 0; i <= c->n_edits; i++) {
        const struct rt_table_edit *x = i < c->n_edits ? &c->edits[i] : NULL;
        size_t end = x ? x->at : c->before_len;
        /* The kept run [AT, END), of which only what lies at or past FROM
         * in the new table is wanted. */
        if (end > at && out + (end - at) > from) {
            size_t skip = from > out ? from - out : 0;
            int r;
            if (at + skip < origin)
                return -1;
            if ((r = fn(ctx, before + (at + skip - origin), end - at - skip)))
                return r;
        }
        out += end - at;
        if (!x)
            break;
        if (x->ins_len && out + x->ins_len > from) {
            size_t skip = from > out ? from - out : 0;
            int r = fn(ctx, c->value.data + x->ins + skip, x->ins_len - skip);
            if (r)
                return r;
        }
        out += x->ins_len;
        at = x->at + x->cut;
    }
    return 0;
}

/* The edits lie within the table, ascending and disjoint, and take their
 * bytes from within VALUE. */
int rt_change_edits_fit(const struct rt_change *c, size_t len)
{
    if (len != c->before_len)
        return 0;
    size_t at = 0;
    for (size_t i = 0; i < c->n_edits; i++) {
        const struct rt_table_edit *x = &c->edits[i];
        if (x->at < at || x->cut > len - x->at || x->ins > c->value.len ||
            x->ins_len > c->value.len - x->ins)
            return 0;
        at = x->at + x->cut;
    }
    return 1;
}

static int put_run(void *ctx, const uint8_t *p, size_t n)
{
    uint8_t **o = ctx;
    memcpy(*o, p, n);
    *o += n;
    return 0;
}

int rt_change_splice_from(const struct rt_change *c, const uint8_t *before,
                          size_t len, size_t from, uint8_t **out,
                          size_t *out_len)
{
    size_t n = rt_change_table_len(c);
    if (!rt_change_edits_fit(c, len) || from > n)
        return 1;
    uint8_t *buf = malloc(n - from + 1), *o = buf;
    if (!buf)
        return -1;
    each_run(c, before, 0, from, put_run, &o);
    *out = buf;
    *out_len = n - from;
    return 0;
}

int rt_change_splice(const struct rt_change *c, const uint8_t *before,
                     size_t len, uint8_t **out, size_t *out_len)
{
    return rt_change_splice_from(c, before, len, 0, out, out_len);
}

int rt_change_materialize(struct rt_change *c, const uint8_t *before,
                          size_t len)
{
    if (!c->n_edits)
        return 0;
    uint8_t *buf;
    size_t n;
    int r = rt_change_splice(c, before, len, &buf, &n);
    if (r != 0)
        return r;
    free(c->value.data);
    c->value.data = buf;
    c->value.len = n;
    free(c->edits);
    c->edits = NULL;
    c->n_edits = 0;
    return 0;
}

struct cmp_ctx {
    const uint8_t *got;
    size_t left;
};

static int cmp_run(void *ctx, const uint8_t *p, size_t n)
{
    struct cmp_ctx *x = ctx;
    if (n > x->left || memcmp(x->got, p, n) != 0)
        return 1;
    x->got += n;
    x->left -= n;
    return 0;
}

int rt_change_splice_equal_from(const struct rt_change *c,
                                const uint8_t *before, size_t origin,
                                size_t len, size_t from, const uint8_t *got,
                                size_t got_len, size_t total)
{
    if (!rt_change_edits_fit(c, len) || total != rt_change_table_len(c) ||
        from > total || got_len != total - from || origin > from)
        return 0;
    struct cmp_ctx x = {got, got_len};
    return each_run(c, before, origin, from, cmp_run, &x) == 0 && x.left == 0;
}

int rt_change_splice_equal(const struct rt_change *c, const uint8_t *before,
                           size_t len, const uint8_t *got, size_t got_len)
{
    return rt_change_splice_equal_from(c, before, 0, len, 0, got, got_len,
                                       got_len);
}

int rt_change_set_table_replace(struct rt_change_set *cs, const char *lang,
                                enum rt_table_kind table, const uint8_t *blob,
                                size_t len, int before_present,
                                size_t before_len, uint64_t before_hash,
                                const struct rt_pair_list *added,
                                const struct rt_pair_list *removed)
{
    if (rt_change_set_table(cs, lang, table, blob, len, added, removed) != 0)
        return -1;
    struct rt_change *c = &cs->v[cs->n - 1];
    c->replace = 1;
    c->before_present = before_present;
    c->before_len = before_len;
    c->before_hash = before_hash;
    return 0;
}

uint64_t rt_blob_hash(const uint8_t *data, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= 1099511628211ull;
    }
    return h;
}

int rt_change_set_perflib(struct rt_change_set *cs, const char *name,
                          const struct rt_value *v)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_PERFLIB);
    return c ? finish(cs, c, dup_ok(&c->name, name) &&
                                 rt_value_copy(&c->value, v) == 0)
             : -1;
}

int rt_change_set_create_perf_key(struct rt_change_set *cs,
                                  const char *service)
{
    struct rt_change *c = push(cs, RT_CHANGE_CREATE_PERF_KEY);
    return c ? finish(cs, c, dup_ok(&c->service, service)) : -1;
}

int rt_change_set_service(struct rt_change_set *cs, const char *service,
                          const char *name, const struct rt_value *v)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_SERVICE);
    return c ? finish(cs, c, dup_ok(&c->service, service) &&
                                 dup_ok(&c->name, name) &&
                                 rt_value_copy(&c->value, v) == 0)
             : -1;
}

int rt_change_set_delete_service(struct rt_change_set *cs,
                                 const char *service, const char *name)
{
    struct rt_change *c = push(cs, RT_CHANGE_DELETE_SERVICE);
    return c ? finish(cs, c, dup_ok(&c->service, service) &&
                                 dup_ok(&c->name, name))
             : -1;
}

int rt_change_set_write_file(struct rt_change_set *cs, const char *rel,
                             const uint8_t *data, size_t len)
{
    struct rt_change *c = push(cs, RT_CHANGE_WRITE_FILE);
    if (!c)
        return -1;
    c->value.type = RT_REG_BINARY;
    c->value.len = len;
    c->value.data = malloc(len ? len : 1);
    if (c->value.data && len)
        memcpy(c->value.data, data, len);
    return finish(cs, c, c->value.data && dup_ok(&c->name, rel));
}

int rt_change_set_write_file_take(struct rt_change_set *cs, const char *rel,
                                  uint8_t *data, size_t len)
{
    struct rt_change *c = push(cs, RT_CHANGE_WRITE_FILE);
    if (!c) {
        free(data);
        return -1;
    }
    c->value = (struct rt_value){RT_REG_BINARY, data, len};
    return finish(cs, c, dup_ok(&c->name, rel));
}

int rt_change_set_delete_file(struct rt_change_set *cs, const char *rel)
{
    struct rt_change *c = push(cs, RT_CHANGE_DELETE_FILE);
    return c ? finish(cs, c, dup_ok(&c->name, rel)) : -1;
}

int rt_change_set_dword(struct rt_change_set *cs, const char *svc,
                        const char *name, uint32_t x)
{
    struct rt_value v;
    if (rt_value_from_dword(&v, x) != 0)
        return -1;
    int r = svc ? rt_change_set_service(cs, svc, name, &v)
                : rt_change_set_perflib(cs, name, &v);
    rt_value_free(&v);
    return r;
}

int rt_change_set_string(struct rt_change_set *cs, const char *svc,
                         const char *name, uint32_t type, const char *utf8)
{
    struct rt_value v;
    if (rt_value_from_string(&v, type, utf8) != 0)
        return -1;
    int r = rt_change_set_service(cs, svc, name, &v);
    rt_value_free(&v);
    return r;
}

void rt_change_set_free(struct rt_change_set *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        change_free(&cs->v[i]);
    free(cs->v);
    memset(cs, 0, sizeof *cs);
}

static int cmp_values(uint32_t a, uint32_t b, const void *ctx)
{
    (void)ctx;
    return (a > b) - (a < b);
}


/* The first of the N sorted values V that is X or above (ABOVE 0), or
 * above X (ABOVE 1). */
static size_t bound(const uint32_t *v, size_t n, uint32_t x, int above)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid] < x || (above && v[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int append_copy(struct rt_pair_list *l, const struct rt_pair *p)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        struct rt_pair *v = realloc(l->v, cap * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = cap;
    }
    if (rt_pair_copy(&l->v[l->n], p) != 0)
        return -1;
    l->n++;
    return 0;
}

size_t rt_change_lost_marks(const struct rt_change *c,
                            unsigned char **is_lost)
{
    *is_lost = NULL;
    if (c->op != RT_CHANGE_SET_TABLE || !c->removed.n)
        return 0;
    const struct rt_pair_list *rm = &c->removed, *ad = &c->added;
    /* The added pairs' indices, and the removed pairs' positions by
     * index, four bytes each, sorted in place (qsort's merge sort takes
     * a copy of its array: a table of millions of tiny pairs replaced
     * whole was counted in 33 bytes a pair, more than the change holds
     * of it). A list holds fewer than 2^32 pairs: a table is under
     * 4 GiB. */
    uint32_t *a = malloc((ad->n ? ad->n : 1) * sizeof *a);
    uint32_t *r = malloc(rm->n * sizeof *r);
    unsigned char *marks = calloc(rm->n, 1);
    size_t n = (size_t)-1;
    if (!a || !r || !marks)
        goto out;
    for (size_t i = 0; i < ad->n; i++)
        a[i] = ad->v[i].index;
    rt_sort_positions(a, ad->n, cmp_values, NULL);
    for (size_t i = 0; i < rm->n; i++)
        r[i] = (uint32_t)i;
    rt_sort_positions(r, rm->n, rt_pairs_by_index_then_position, rm->v);
    n = 0;
    for (size_t i = 0; i < rm->n;) {
        uint32_t x = rm->v[r[i]].index;
        size_t j = i;
        while (j < rm->n && rm->v[r[j]].index == x)
            j++;
        size_t given = bound(a, ad->n, x, 1) - bound(a, ad->n, x, 0);
        for (size_t k = i + given; k < j; k++) {
            marks[r[k]] = 1;
            n++;
        }
        i = j;
    }
    *is_lost = marks;
    marks = NULL;
out:
    free(a);
    free(r);
    free(marks);
    return n;
}

size_t rt_change_lost(const struct rt_change *c, struct rt_pair_list *lost)
{
    unsigned char *is_lost;
    size_t n = rt_change_lost_marks(c, &is_lost);
    for (size_t i = 0; lost && is_lost && i < c->removed.n; i++)
        if (is_lost[i] && append_copy(lost, &c->removed.v[i]) != 0) {
            n = (size_t)-1;
            break;
        }
    free(is_lost);
    return n;
}
