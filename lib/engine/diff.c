/* Engine layer: the difference of two name databases (engine/diff.h). */
#include "engine/diff.h"

#include <stdlib.h>
#include <string.h>

#include "model/sort_positions.h"
#include "model/utf16.h"

/* A provider's range in one database: the span of its counter and help
 * indices, and which owner it is. */
struct seg {
    uint32_t lo, hi, owner;
};

struct work {
    const struct rt_database *a, *b;
    struct rt_diff *d;
    struct seg *segs[2];        /* A's ranges, B's */
    size_t n_segs[2];
    /* The tables are compared twice: first counting the differing pairs
     * (COUNTING), then adding them to an array of exactly that many: one
     * grown by doubling held up to twice them, and a diff of millions of
     * tiny pairs came to 11.6 times its files (review 41 R41-9). */
    int counting;
    size_t counted;
};

/* SI's span (first index to last, counter and help), 0 when it has none
 * (no range, or an inverted one). */
static int span_of(const struct rt_service_info *si, uint32_t *lo,
                   uint32_t *hi)
{
    if (!si || !si->has_range)
        return 0;
    uint32_t l = si->first_counter, h = si->first_counter;
    if (si->has_last_counter && si->last_counter > h)
        h = si->last_counter;
    if (si->has_first_help && si->first_help < l)
        l = si->first_help;
    if (si->has_first_help && si->first_help > h)
        h = si->first_help;
    if (si->has_last_help && si->last_help > h)
        h = si->last_help;
    if ((si->has_last_counter && si->last_counter < si->first_counter) ||
        (si->has_first_help && si->has_last_help &&
         si->last_help < si->first_help))
        return 0;
    *lo = l;
    *hi = h;
    return 1;
}

static const struct rt_service_info *ranged(const struct rt_database *db,
                                            const char *name)
{
    const struct rt_service_info *si = rt_database_service(db, name);
    uint32_t lo, hi;
    return span_of(si, &lo, &hi) ? si : NULL;
}

static int owner_cmp(const void *x, const void *y)
{
    const struct rt_diff_owner *p = x, *q = y;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    return rt_name_casecmp(p->name, q->name);
}

static int seg_cmp(const void *x, const void *y)
{
    const struct seg *p = x, *q = y;
    if (p->lo != q->lo)
        return p->lo < q->lo ? -1 : 1;
    if (p->hi != q->hi)
        return p->hi > q->hi ? -1 : 1;  /* the wider first */
    return (p->owner > q->owner) - (p->owner < q->owner);
}

/* SEGS' N ranges sorted and made disjoint: each clipped to what those
 * before it left. Returns how many are left. */
static size_t disjoint(struct seg *segs, size_t n)
{
    qsort(segs, n, sizeof *segs, seg_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        struct seg s = segs[i];
        if (kept && s.lo <= segs[kept - 1].hi) {
            if (s.hi <= segs[kept - 1].hi)
                continue;
            s.lo = segs[kept - 1].hi + 1;
        }
        segs[kept++] = s;
    }
    return kept;
}

/* The owners (every service with a range in A or B, sorted by their
 * lowest index) and each database's ranges as disjoint segments in
 * ascending order. */
static int build_owners(struct work *w)
{
    const struct rt_database *a = w->a, *b = w->b;
    struct rt_diff *d = w->d;
    size_t max = a->n_services + b->n_services;
    d->owners = malloc((max ? max : 1) * sizeof *d->owners);
    w->segs[0] = malloc((a->n_services ? a->n_services : 1) * sizeof *w->segs[0]);
    w->segs[1] = malloc((b->n_services ? b->n_services : 1) * sizeof *w->segs[1]);
    if (!d->owners || !w->segs[0] || !w->segs[1])
        return -1;
    for (int side = 0; side < 2; side++) {
        const struct rt_database *db = side ? b : a;
        for (size_t i = 0; i < db->n_services; i++) {
            const struct rt_service_info *si = &db->services[i];
            uint32_t lo, hi, lo2, hi2;
            if (!span_of(si, &lo, &hi))
                continue;
            const struct rt_service_info *sa = side ? ranged(a, si->name) : si;
            if (side && sa)
                continue;       /* A's entry holds it */
            const struct rt_service_info *sb = side ? si : ranged(b, si->name);
            if (sb && span_of(sb, &lo2, &hi2) && lo2 < lo)
                lo = lo2;
            d->owners[d->n_owners++] =
                (struct rt_diff_owner){si->name, sa, sb, lo};
        }
    }
    qsort(d->owners, d->n_owners, sizeof *d->owners, owner_cmp);
    for (size_t i = 0; i < d->n_owners; i++) {
        const struct rt_diff_owner *o = &d->owners[i];
        uint32_t lo, hi;
        if (o->a && span_of(o->a, &lo, &hi))
            w->segs[0][w->n_segs[0]++] = (struct seg){lo, hi, (uint32_t)i};
        if (o->b && span_of(o->b, &lo, &hi))
            w->segs[1][w->n_segs[1]++] = (struct seg){lo, hi, (uint32_t)i};
    }
    w->n_segs[0] = disjoint(w->segs[0], w->n_segs[0]);
    w->n_segs[1] = disjoint(w->segs[1], w->n_segs[1]);
    return 0;
}

/* The owner of INDEX in database SIDE's ranges: a binary search of its
 * disjoint segments. */
static uint32_t owner_of(const struct work *w, int side, uint32_t index)
{
    const struct seg *v = w->segs[side];
    size_t lo = 0, hi = w->n_segs[side];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].lo <= index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo && index <= v[lo - 1].hi)
        return v[lo - 1].owner;
    return RT_DIFF_NO_PROVIDER;
}

static int add_pair(struct work *w, uint32_t lang, int kind, int cls,
                    const struct rt_pair_list *x, uint32_t at_a,
                    const struct rt_pair_list *y, uint32_t at_b)
{
    struct rt_diff *d = w->d;
    if (w->counting) {
        w->counted++;
        return 0;
    }
    if (d->n_pairs == w->counted)   /* (never: the count was of these) */
        return -1;
    uint32_t index = at_a != RT_DIFF_ABSENT ? x->v[at_a].index
                                            : y->v[at_b].index;
    d->pairs[d->n_pairs] = (struct rt_diff_pair){
        index, lang, owner_of(w, 0, index), owner_of(w, 1, index),
        at_a, at_b, (uint8_t)kind, (uint8_t)cls, index <= d->base_index};
    d->n_pairs++;
    d->langs[lang].n[cls][kind]++;
    d->n[cls][kind]++;
    return 0;
}

static int same_text(const struct rt_pair *x, const struct rt_pair *y)
{
    return x->text_len == y->text_len &&
           !memcmp(x->text, y->text, x->text_len);
}

/* Positions 0..N-1 of V sorted by index, one index's in table order. */
static uint32_t *by_index(const struct rt_pair_list *l)
{
    uint32_t *p = malloc((l->n ? l->n : 1) * sizeof *p);
    if (!p)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        p[i] = (uint32_t)i;
    rt_sort_positions(p, l->n, rt_pairs_by_index_then_position, l->v);
    return p;
}

/* The differing pairs of X (A's) and Y (B's), one table. */
static int diff_table(struct work *w, uint32_t lang, int kind,
                      const struct rt_pair_list *x, const struct rt_pair_list *y)
{
    if (x->n >= RT_DIFF_ABSENT || y->n >= RT_DIFF_ABSENT)
        return -1;
    uint32_t *px = by_index(x), *py = by_index(y);
    int rc = px && py ? 0 : -1;
    size_t i = 0, j = 0;
    while (!rc && (i < x->n || j < y->n)) {
        const struct rt_pair *p = i < x->n ? &x->v[px[i]] : NULL;
        const struct rt_pair *q = j < y->n ? &y->v[py[j]] : NULL;
        if (p && (!q || p->index < q->index)) {
            rc = add_pair(w, lang, kind, RT_DIFF_ONLY_A, x, px[i], y,
                          RT_DIFF_ABSENT);
            i++;
        } else if (!p || q->index < p->index) {
            rc = add_pair(w, lang, kind, RT_DIFF_ONLY_B, x, RT_DIFF_ABSENT,
                          y, py[j]);
            j++;
        } else {
            if (!same_text(p, q))
                rc = add_pair(w, lang, kind, RT_DIFF_OTHER_TEXT, x, px[i], y,
                              py[j]);
            i++;
            j++;
        }
    }
    free(px);
    free(py);
    return rc;
}

static int build_languages(struct work *w)
{
    const struct rt_database *a = w->a, *b = w->b;
    struct rt_diff *d = w->d;
    size_t max = a->n_langs + b->n_langs;
    d->langs = calloc(max ? max : 1, sizeof *d->langs);
    if (!d->langs)
        return -1;
    for (size_t i = 0; i < a->n_langs; i++) {
        struct rt_diff_language *l = &d->langs[d->n_langs++];
        l->id = a->langs[i].id;
        l->a = &a->langs[i];
        l->b = rt_database_language(b, l->id);
    }
    for (size_t i = 0; i < b->n_langs; i++)
        if (!rt_database_language(a, b->langs[i].id)) {
            struct rt_diff_language *l = &d->langs[d->n_langs++];
            l->id = b->langs[i].id;
            l->b = &b->langs[i];
        }
    for (w->counting = 1; w->counting >= 0; w->counting--) {
        if (!w->counting) {
            if (w->counted > UINT32_MAX)
                return -1;
            /* PAIRS stays NULL when none differ. */
            if (w->counted &&
                !(d->pairs = malloc(w->counted * sizeof *d->pairs)))
                return -1;
        }
        for (size_t i = 0; i < d->n_langs; i++) {
            const struct rt_diff_language *l = &d->langs[i];
            if (!l->a || !l->b)
                continue;
            if (diff_table(w, (uint32_t)i, RT_TABLE_COUNTER,
                           &l->a->table.counter, &l->b->table.counter) ||
                diff_table(w, (uint32_t)i, RT_TABLE_HELP, &l->a->table.help,
                           &l->b->table.help))
                return -1;
        }
    }
    return 0;
}

static uint32_t lower(uint32_t x, uint32_t y)
{
    return x < y ? x : y;
}

/* Pairs by group (language, base part first, providers by range: the
 * lower of A's and B's owner, then A's, then B's; none last), then kind
 * and index. */
static int pair_cmp(const void *x, const void *y)
{
    const struct rt_diff_pair *p = x, *q = y;
    if (p->lang != q->lang)
        return p->lang < q->lang ? -1 : 1;
    if (p->base != q->base)
        return p->base > q->base ? -1 : 1;
    uint32_t lp = lower(p->owner_a, p->owner_b);
    uint32_t lq = lower(q->owner_a, q->owner_b);
    if (lp != lq)
        return lp < lq ? -1 : 1;
    if (p->owner_a != q->owner_a)
        return p->owner_a < q->owner_a ? -1 : 1;
    if (p->owner_b != q->owner_b)
        return p->owner_b < q->owner_b ? -1 : 1;
    if (p->kind != q->kind)
        return p->kind < q->kind ? -1 : 1;
    return (p->index > q->index) - (p->index < q->index);
}

/* Equals in the order found: the pairs are still in it, so by place. */
static int pair_at_cmp(uint32_t x, uint32_t y, const void *ctx)
{
    const struct rt_diff_pair *v = ctx;
    int c = pair_cmp(&v[x], &v[y]);
    return c ? c : (x > y) - (x < y);
}

/* D's pairs sorted by pair_cmp with four bytes a pair beside them (qsort
 * took a copy of them all: 120 MB more for three million). 0, or -1 out
 * of memory. */
static int sort_pairs(struct rt_diff *d)
{
    size_t n = d->n_pairs;
    uint32_t *pos = malloc((n ? n : 1) * sizeof *pos);
    if (!pos)
        return -1;
    for (size_t i = 0; i < n; i++)
        pos[i] = (uint32_t)i;
    rt_sort_positions(pos, n, pair_at_cmp, d->pairs);
    _Static_assert(sizeof *d->pairs <= RT_PERMUTE_MAX,
                   "a differing pair is moved through rt_permute's buffer");
    rt_permute(d->pairs, sizeof *d->pairs, pos, n);
    free(pos);
    return 0;
}

static int same_group(const struct rt_diff_pair *p, uint32_t lang, int base,
                      uint32_t owner_a, uint32_t owner_b)
{
    return p->lang == lang && p->base == base && p->owner_a == owner_a &&
           p->owner_b == owner_b;
}

static int build_groups(struct rt_diff *d)
{
    if (sort_pairs(d) != 0)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < d->n_pairs; i++) {
        const struct rt_diff_pair *q = &d->pairs[i - (i > 0)];
        if (!i || !same_group(&d->pairs[i], q->lang, q->base, q->owner_a,
                              q->owner_b))
            n++;
    }
    d->groups = calloc(n ? n : 1, sizeof *d->groups);
    if (!d->groups)
        return -1;
    struct rt_diff_group *g = NULL;
    for (size_t i = 0; i < d->n_pairs; i++) {
        const struct rt_diff_pair *p = &d->pairs[i];
        if (!g || !same_group(p, g->lang, g->base, g->owner_a, g->owner_b)) {
            g = &d->groups[d->n_groups++];
            g->lang = p->lang;
            g->owner_a = p->owner_a;
            g->owner_b = p->owner_b;
            g->base = p->base;
            g->first = i;
            g->lowest = p->index;
        }
        g->n[p->cls][p->kind]++;
        g->n_pairs++;
        if (p->index < g->lowest)
            g->lowest = p->index;
        if (p->index > g->highest)
            g->highest = p->index;
    }
    return 0;
}

void rt_diff_add_value(struct rt_diff *d, const char *name, int has_a,
                       uint32_t a, int has_b, uint32_t b)
{
    if ((has_a == has_b && (!has_a || a == b)) ||
        d->n_values == RT_DIFF_MAX_VALUES)
        return;
    d->values[d->n_values++] = (struct rt_diff_value){name, has_a, has_b,
                                                      has_a ? a : 0,
                                                      has_b ? b : 0};
}

static int same_range(const struct rt_service_info *x,
                      const struct rt_service_info *y)
{
    return x->first_counter == y->first_counter &&
           x->has_last_counter == y->has_last_counter &&
           (!x->has_last_counter || x->last_counter == y->last_counter) &&
           x->has_first_help == y->has_first_help &&
           (!x->has_first_help || x->first_help == y->first_help) &&
           x->has_last_help == y->has_last_help &&
           (!x->has_last_help || x->last_help == y->last_help);
}

/* What differs about a service of A (X) or of B alone (Y). */
static unsigned provider_what(const struct rt_service_info *x,
                              const struct rt_service_info *y)
{
    uint32_t lo, hi;
    int rx = span_of(x, &lo, &hi), ry = span_of(y, &lo, &hi);
    unsigned what = 0;
    if (rx && !ry)
        what |= RT_DIFF_PROV_ONLY_A;
    else if (ry && !rx)
        what |= RT_DIFF_PROV_ONLY_B;
    else if (rx && ry && !same_range(x, y))
        what |= RT_DIFF_PROV_RANGE;
    int dx = x && x->has_disable, dy = y && y->has_disable;
    if (x && y && (dx != dy || (dx && x->disable != y->disable)))
        what |= RT_DIFF_PROV_DISABLE;
    return what;
}

static int provider_cmp(const void *x, const void *y)
{
    const struct rt_diff_provider *p = x, *q = y;
    return rt_name_casecmp(p->name, q->name);
}

static int build_providers(struct rt_diff *d, const struct rt_database *a,
                           const struct rt_database *b)
{
    size_t max = a->n_services + b->n_services;
    d->providers = malloc((max ? max : 1) * sizeof *d->providers);
    if (!d->providers)
        return -1;
    for (int side = 0; side < 2; side++) {
        const struct rt_database *db = side ? b : a;
        for (size_t i = 0; i < db->n_services; i++) {
            const struct rt_service_info *si = &db->services[i];
            const struct rt_service_info *other =
                rt_database_service(side ? a : b, si->name);
            if (side && other)
                continue;       /* compared from A's side */
            const struct rt_service_info *x = side ? NULL : si;
            const struct rt_service_info *y = side ? si : other;
            unsigned what = provider_what(x, y);
            if (what)
                d->providers[d->n_providers++] =
                    (struct rt_diff_provider){si->name, x, y, what};
        }
    }
    qsort(d->providers, d->n_providers, sizeof *d->providers, provider_cmp);
    return 0;
}

int rt_diff_databases(const struct rt_database *a, const struct rt_database *b,
                      struct rt_diff *out)
{
    memset(out, 0, sizeof *out);
    struct work w = {a, b, out, {NULL, NULL}, {0, 0}, 0, 0};
    out->base_index = a->base_index < b->base_index ? a->base_index
                                                     : b->base_index;
    rt_diff_add_value(out, "Last Counter", a->has_last_counter, a->last_counter,
              b->has_last_counter, b->last_counter);
    rt_diff_add_value(out, "Last Help", a->has_last_help, a->last_help,
              b->has_last_help, b->last_help);
    rt_diff_add_value(out, "Base Index", a->has_base_index, a->base_index,
              b->has_base_index, b->base_index);
    rt_diff_add_value(out, "Disable Performance Counters", a->has_perflib_disable,
              a->perflib_disable, b->has_perflib_disable, b->perflib_disable);
    int rc = build_owners(&w) || build_languages(&w) || build_groups(out) ||
             build_providers(out, a, b) ? -1 : 0;
    free(w.segs[0]);
    free(w.segs[1]);
    if (rc)
        rt_diff_free(out);
    return rc;
}

const struct rt_pair *rt_diff_text(const struct rt_diff *d,
                                   const struct rt_diff_pair *p, int side)
{
    uint32_t at = side ? p->at_b : p->at_a;
    const struct rt_db_language *l = side ? d->langs[p->lang].b
                                          : d->langs[p->lang].a;
    if (at == RT_DIFF_ABSENT || !l)
        return NULL;
    const struct rt_pair_list *t =
        p->kind == RT_TABLE_HELP ? &l->table.help : &l->table.counter;
    return at < t->n ? &t->v[at] : NULL;
}

void rt_diff_free(struct rt_diff *d)
{
    free(d->langs);
    free(d->providers);
    free(d->owners);
    free(d->pairs);
    free(d->groups);
    memset(d, 0, sizeof *d);
}

size_t rt_diff_languages_alone(const struct rt_diff *d)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_langs; i++)
        n += !d->langs[i].a || !d->langs[i].b;
    return n;
}

int rt_diff_same(const struct rt_diff *d)
{
    return !d->n_values && !d->n_providers && !d->n_pairs &&
           !rt_diff_languages_alone(d);
}
