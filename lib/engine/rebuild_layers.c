/* Engine: a rebuilt table as layers (engine/rebuild_layers.h). */
#include "engine/rebuild_layers.h"

#include <stdlib.h>
#include <string.h>

#include "model/multi_sz.h"
#include "model/sort_positions.h"

static int entries_by_index_then_position(uint32_t a, uint32_t b,
                                          const void *entries)
{
    const struct rt_msz_entry *v = entries;
    if (v[a].index != v[b].index)
        return v[a].index < v[b].index ? -1 : 1;
    return (a > b) - (a < b);
}

static uint32_t source_index_at(const struct rt_rb_source *s, size_t p)
{
    return s->pairs ? s->pairs[p].index : s->table->v[p].index;
}

/* The J-th of S's pairs by index: its position. */
static size_t source_pos(const struct rt_rb_source *s, size_t j)
{
    return s->pos ? s->pos[j] : j;
}

static uint32_t source_index(const struct rt_rb_source *s, size_t j)
{
    return source_index_at(s, source_pos(s, j));
}

/* S's N positions sorted by CMP over V; none kept when already in order,
 * as a table read mostly is (no memory beside it then). */
static int source_sort(struct rt_rb_source *s, size_t n,
                       int (*cmp)(uint32_t, uint32_t, const void *),
                       const void *v)
{
    s->n = n;
    size_t i = 1;
    while (i < n && source_index_at(s, i) >= source_index_at(s, i - 1))
        i++;
    if (i >= n)
        return 0;
    s->pos = malloc(n * sizeof *s->pos);
    if (!s->pos)
        return -1;
    for (i = 0; i < n; i++)
        s->pos[i] = (uint32_t)i;
    rt_sort_positions(s->pos, n, cmp, v);
    return 0;
}

int rt_rb_source_of_pairs(struct rt_rb_source *s, const struct rt_pair_list *l)
{
    memset(s, 0, sizeof *s);
    s->pairs = l->v;
    return source_sort(s, l->n, rt_pairs_by_index_then_position, l->v);
}

int rt_rb_source_of_table(struct rt_rb_source *s, const struct rt_table *t)
{
    memset(s, 0, sizeof *s);
    s->table = t;
    return source_sort(s, t->n, entries_by_index_then_position, t->v);
}

void rt_rb_source_free(struct rt_rb_source *s)
{
    free(s->pos);
    memset(s, 0, sizeof *s);
}

/* The first of S's pairs (by index) at or above X. */
static size_t source_bound(const struct rt_rb_source *s, uint64_t x)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (source_index(s, mid) < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t rt_rb_source_count(const struct rt_rb_source *s, uint32_t a, uint32_t b)
{
    if (!s || a > b)
        return 0;
    return source_bound(s, (uint64_t)b + 1) - source_bound(s, a);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return (a > b) - (a < b);
}

int rt_rb_table_init(struct rt_rb_table *t, const uint32_t (*ranges)[2],
                     size_t n)
{
    memset(t, 0, sizeof *t);
    t->x = malloc((2 * n + 2) * sizeof *t->x);
    if (!t->x)
        return -1;
    size_t m = 0;
    t->x[m++] = 0;
    t->x[m++] = (uint64_t)UINT32_MAX + 1;
    for (size_t k = 0; k < n; k++) {
        if (ranges[k][0] > ranges[k][1])
            continue;
        t->x[m++] = ranges[k][0];
        t->x[m++] = (uint64_t)ranges[k][1] + 1;
    }
    qsort(t->x, m, sizeof *t->x, cmp_u64);
    size_t w = 1;
    for (size_t k = 1; k < m; k++)
        if (t->x[k] != t->x[w - 1])
            t->x[w++] = t->x[k];
    t->segs = w - 1;
    for (int s = 0; s < RT_RB_LAYERS; s++)
        if (!(t->pre[s] = malloc(w * sizeof *t->pre[s])))
            goto nomem;
    t->sum = malloc(4 * t->segs * sizeof *t->sum);
    t->tag = malloc(4 * t->segs * sizeof *t->tag);
    if (!t->sum || !t->tag)
        goto nomem;
    return 0;
nomem:
    rt_rb_table_free(t);
    return -1;
}

static int inf_by_index_then_order(uint32_t a, uint32_t b, const void *pairs)
{
    return rt_pairs_by_index_then_position(a, b, pairs);
}

static void free_inf(struct rt_rb_table *t)
{
    free(t->inf_pos);
    free(t->inf_idx);
    free(t->inf_rank);
    free(t->fen);
    free(t->inf_held);
    t->inf_pos = t->inf_idx = t->inf_rank = t->fen = NULL;
    t->inf_held = NULL;
    t->inf = NULL;
}

static int start_inf(struct rt_rb_table *t, const struct rt_pair_list *inf)
{
    free_inf(t);
    t->inf = inf;
    size_t n = inf ? inf->n : 0;
    t->inf_pos = malloc((n ? n : 1) * sizeof *t->inf_pos);
    t->inf_idx = malloc((n ? n : 1) * sizeof *t->inf_idx);
    t->inf_rank = malloc((n ? n : 1) * sizeof *t->inf_rank);
    t->fen = calloc(n + 1, sizeof *t->fen);
    t->inf_held = calloc(n ? n : 1, 1);
    if (!t->inf_pos || !t->inf_idx || !t->inf_rank || !t->fen ||
        !t->inf_held)
        return -1;
    for (size_t i = 0; i < n; i++)
        t->inf_pos[i] = (uint32_t)i;
    if (n)
        rt_sort_positions(t->inf_pos, n, inf_by_index_then_order, inf->v);
    for (size_t i = 0; i < n; i++) {
        t->inf_idx[i] = inf->v[t->inf_pos[i]].index;
        t->inf_rank[t->inf_pos[i]] = (uint32_t)i;
    }
    return 0;
}

int rt_rb_table_start(struct rt_rb_table *t, const struct rt_rb_source *base,
                      uint32_t base_last, const struct rt_rb_source *stored,
                      const struct rt_rb_source *backup,
                      const struct rt_pair_list *inf)
{
    t->src[RT_RB_NONE] = NULL;
    t->src[RT_RB_BASE] = base;
    t->src[RT_RB_STORED] = stored;
    t->src[RT_RB_BACKUP] = backup;
    for (int s = 0; s < RT_RB_LAYERS; s++)
        for (size_t k = 0; k <= t->segs; k++) {
            uint64_t x = t->x[k];
            if (s == RT_RB_BASE && x > (uint64_t)base_last + 1)
                x = (uint64_t)base_last + 1;
            t->pre[s][k] = t->src[s] ? (uint32_t)source_bound(t->src[s], x) : 0;
        }
    /* The whole table the base's; nodes below the root are written
     * when the root's layer is pushed down to them. */
    t->tag[1] = RT_RB_BASE;
    t->sum[1] = t->pre[RT_RB_BASE][t->segs];
    return start_inf(t, inf);
}

/* LAYER's pairs in segments LO .. HI. */
static size_t layer_pairs(const struct rt_rb_table *t, int layer, size_t lo,
                          size_t hi)
{
    return t->pre[layer][hi + 1] - t->pre[layer][lo];
}

static void paint(struct rt_rb_table *t, size_t node, size_t lo, size_t hi,
                  int layer)
{
    t->tag[node] = (signed char)layer;
    t->sum[node] = (uint32_t)layer_pairs(t, layer, lo, hi);
}

static void push_down(struct rt_rb_table *t, size_t node, size_t lo,
                      size_t hi)
{
    if (t->tag[node] < 0)
        return;
    size_t mid = lo + (hi - lo) / 2;
    paint(t, 2 * node, lo, mid, t->tag[node]);
    paint(t, 2 * node + 1, mid + 1, hi, t->tag[node]);
    t->tag[node] = -1;
}

static void assign(struct rt_rb_table *t, size_t node, size_t lo, size_t hi,
                   size_t a, size_t b, int layer)
{
    if (b < lo || a > hi)
        return;
    if (a <= lo && hi <= b) {
        paint(t, node, lo, hi, layer);
        return;
    }
    push_down(t, node, lo, hi);
    size_t mid = lo + (hi - lo) / 2;
    assign(t, 2 * node, lo, mid, a, b, layer);
    assign(t, 2 * node + 1, mid + 1, hi, a, b, layer);
    t->sum[node] = t->sum[2 * node] + t->sum[2 * node + 1];
}

static size_t query(const struct rt_rb_table *t, size_t node, size_t lo,
                    size_t hi, size_t a, size_t b)
{
    if (b < lo || a > hi)
        return 0;
    if (a <= lo && hi <= b)
        return t->sum[node];
    if (t->tag[node] >= 0)
        return layer_pairs(t, t->tag[node], a > lo ? a : lo, b < hi ? b : hi);
    size_t mid = lo + (hi - lo) / 2;
    return query(t, 2 * node, lo, mid, a, b) +
           query(t, 2 * node + 1, mid + 1, hi, a, b);
}

/* Segments A .. B for the range FIRST .. LAST, one of init's. */
static void segments(const struct rt_rb_table *t, uint32_t first,
                     uint32_t last, size_t *a, size_t *b)
{
    *a = rt_lower_bound_u64(t->x, t->segs + 1, first);
    *b = rt_lower_bound_u64(t->x, t->segs + 1, (uint64_t)last + 1) - 1;
}

static void fen_add(struct rt_rb_table *t, size_t i, int d)
{
    for (size_t k = i + 1; k <= t->inf->n; k += k & (~k + 1))
        t->fen[k] += (uint32_t)d;
}

/* INF pairs held among the first I (by index). */
static size_t fen_prefix(const struct rt_rb_table *t, size_t i)
{
    size_t s = 0;
    for (size_t k = i; k > 0; k -= k & (~k + 1))
        s += t->fen[k];
    return s;
}

/* The position (by index) of the K-th held INF pair (K from 1). */
static size_t fen_kth(const struct rt_rb_table *t, size_t k)
{
    size_t n = t->inf->n, at = 0, step = 1;
    while (step * 2 <= n)
        step *= 2;
    for (; step; step /= 2)
        if (at + step <= n && t->fen[at + step] < k) {
            at += step;
            k -= t->fen[at];
        }
    return at;
}

void rt_rb_table_cut(struct rt_rb_table *t, uint32_t a, uint32_t b,
                     enum rt_rb_layer layer)
{
    if (a > b)
        return;
    size_t sa, sb;
    segments(t, a, b, &sa, &sb);
    assign(t, 1, 0, t->segs - 1, sa, sb, (int)layer);
    if (!t->inf || !t->inf->n)
        return;
    size_t lo = rt_lower_bound_u32(t->inf_idx, t->inf->n, a);
    size_t hi = rt_lower_bound_u32(t->inf_idx, t->inf->n, (uint64_t)b + 1);
    size_t before = fen_prefix(t, lo);
    while (fen_prefix(t, hi) > before) {
        size_t at = fen_kth(t, before + 1);
        t->inf_held[at] = 0;
        fen_add(t, at, -1);
    }
}

void rt_rb_table_put_inf(struct rt_rb_table *t, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++) {
        size_t at = t->inf_rank[i];
        t->inf_held[at] = 1;
        fen_add(t, at, 1);
    }
}

size_t rt_rb_table_count(const struct rt_rb_table *t, uint32_t a, uint32_t b)
{
    if (a > b)
        return 0;
    size_t sa, sb;
    segments(t, a, b, &sa, &sb);
    size_t n = query(t, 1, 0, t->segs - 1, sa, sb);
    if (t->inf && t->inf->n)
        n += fen_prefix(t, rt_lower_bound_u32(t->inf_idx, t->inf->n,
                                         (uint64_t)b + 1)) -
             fen_prefix(t, rt_lower_bound_u32(t->inf_idx, t->inf->n, a));
    return n;
}

/* Each segment's layer into LAYER (the tree's layers pushed down). */
static void layers_of(struct rt_rb_table *t, size_t node, size_t lo,
                      size_t hi, unsigned char *layer)
{
    if (t->tag[node] >= 0) {
        memset(layer + lo, t->tag[node], hi - lo + 1);
        return;
    }
    size_t mid = lo + (hi - lo) / 2;
    layers_of(t, 2 * node, lo, mid, layer);
    layers_of(t, 2 * node + 1, mid + 1, hi, layer);
}

/* Walks the pairs held in order: each segment's layer's, then the INF
 * pairs held at those indices. With OUT NULL only counts them and the
 * bytes the texts of a table as stored take (*SIZE); else writes them
 * to OUT, those texts at *AT (a table's text counted by its bound,
 * rt_msz_entry_text_bound: it is read once, when it is decoded). */
static int walk(const struct rt_rb_table *t, const unsigned char *layer,
                struct rt_pair_list *out, size_t *n, size_t *size, char **at)
{
    size_t j = 0, inf_n = t->inf ? t->inf->n : 0;
    for (size_t k = 0; k < t->segs; k++) {
        const struct rt_rb_source *s = t->src[layer[k]];
        size_t from = s ? t->pre[layer[k]][k] : 0;
        size_t to = s ? t->pre[layer[k]][k + 1] : 0;
        for (size_t i = from; i <= to; i++) {
            /* INF pairs before this pair's index (or the segment's end) */
            uint64_t upto = i < to ? source_index(s, i) : t->x[k + 1];
            for (; j < inf_n && t->inf_idx[j] < upto; j++) {
                if (!t->inf_held[j])
                    continue;
                if (out)
                    out->v[out->n++] = t->inf->v[t->inf_pos[j]];
                (*n)++;
            }
            if (i == to)
                break;
            size_t p = source_pos(s, i);
            (*n)++;
            if (s->pairs) {
                if (out)
                    out->v[out->n++] = s->pairs[p];
                continue;
            }
            if (s->table->base)     /* a tail only: no pairs to give */
                return -1;
            if (!out) {
                *size += rt_msz_entry_text_bound(&s->table->v[p]) + 1;
                continue;
            }
            struct rt_pair *q = &out->v[out->n];
            if (rt_msz_entry_pair_in(s->table->blob, &s->table->v[p], q,
                                     *at) != 0)
                return -1;
            *at += q->text_len + 1;
            out->n++;
        }
    }
    return 0;
}

int rt_rb_table_result(struct rt_rb_table *t, struct rt_pair_list *out)
{
    memset(out, 0, sizeof *out);
    unsigned char *layer = malloc(t->segs);
    if (!layer)
        return -1;
    layers_of(t, 1, 0, t->segs - 1, layer);
    size_t n = 0, size = 0;
    char *at = NULL;
    if (walk(t, layer, NULL, &n, &size, &at) != 0)
        goto fail;
    out->v = malloc((n ? n : 1) * sizeof *out->v);
    out->texts = size ? malloc(sizeof *out->texts + size) : NULL;
    if (!out->v || (size && !out->texts))
        goto fail;
    if (out->texts)
        *out->texts = (struct rt_text_block){NULL, size, 0};
    out->cap = n;
    at = out->texts ? out->texts->text : NULL;
    if (walk(t, layer, out, &n, &size, &at) != 0)
        goto fail;
    if (out->texts)
        out->texts->used = (size_t)(at - out->texts->text);
    free(layer);
    return 0;
fail:
    free(layer);
    rt_rb_table_result_free(out);
    return -1;
}

void rt_rb_table_result_free(struct rt_pair_list *out)
{
    /* Pairs decoded here own their index digits; the others are the
     * sources'. */
    const char *t0 = out->texts ? out->texts->text : NULL;
    for (size_t i = 0; t0 && i < out->n; i++)
        if (out->v[i].text >= t0 && out->v[i].text < t0 + out->texts->size)
            free(out->v[i].index_raw);
    free(out->v);
    free(out->texts);
    memset(out, 0, sizeof *out);
}

void rt_rb_table_free(struct rt_rb_table *t)
{
    free(t->x);
    for (int s = 0; s < RT_RB_LAYERS; s++)
        free(t->pre[s]);
    free(t->sum);
    free(t->tag);
    free_inf(t);
    memset(t, 0, sizeof *t);
}
