/* A provider's counters in one language (provider_names.h). */
#include "engine/provider_names.h"

#include <stdlib.h>
#include <string.h>

#include "model/sort_positions.h"

/* The positions of L's pairs whose index is in LO..HI and has PARITY,
 * sorted by index, one index's pairs in table order; *N how many. NULL
 * when out of memory. */
static uint32_t *positions_in(const struct rt_pair_list *l, uint64_t lo,
                              uint64_t hi, unsigned parity, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].index >= lo && l->v[i].index <= hi &&
            (l->v[i].index & 1u) == parity)
            k++;
    uint32_t *v = malloc((k ? k : 1) * sizeof *v);
    if (!v || l->n > UINT32_MAX) {
        free(v);
        return NULL;
    }
    k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].index >= lo && l->v[i].index <= hi &&
            (l->v[i].index & 1u) == parity)
            v[k++] = (uint32_t)i;
    rt_sort_positions(v, k, rt_pairs_by_index_then_position, l->v);
    *n = k;
    return v;
}

/* The text of the first pair of INDEX among the N sorted positions AT
 * into L, or NULL. */
static const char *text_at(const struct rt_pair_list *l, const uint32_t *at,
                           size_t n, uint64_t index)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->v[at[mid]].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && l->v[at[lo]].index == index ? l->v[at[lo]].text : NULL;
}

/* Records the even indices FROM..TO (FROM <= TO) as missing. */
static void add_run(struct rt_provider_names *p, uint64_t from, uint64_t to)
{
    p->missing[p->n_missing].first = (uint32_t)from;
    p->missing[p->n_missing].last = (uint32_t)to;
    p->n_missing++;
    p->missing_count += (to - from) / 2 + 1;
}

int rt_provider_names(const struct rt_pair_list *counter,
                      const struct rt_pair_list *help, uint32_t first,
                      uint32_t last, struct rt_provider_names *out)
{
    memset(out, 0, sizeof *out);
    if (first > last)
        return 0;
    /* The range's even indices: FROM..TO, none when FROM > TO. */
    uint64_t from = first + (first & 1u), to = last - (last & 1u);
    size_t nc = 0, nh = 0;
    uint32_t *c = positions_in(counter, from, to, 0, &nc);
    uint32_t *h = c ? positions_in(help, from + 1, to + 1, 1, &nh) : NULL;
    out->v = h ? malloc((nc ? nc : 1) * sizeof *out->v) : NULL;
    out->missing = out->v ? malloc((nc + 1) * sizeof *out->missing) : NULL;
    if (!out->missing) {
        free(c);
        free(h);
        rt_provider_names_free(out);
        return -1;
    }
    uint64_t next = from;       /* the lowest even index not yet seen */
    for (size_t i = 0; i < nc; i++) {
        const struct rt_pair *p = &counter->v[c[i]];
        if (out->n && out->v[out->n - 1].index == p->index) {
            out->duplicates++;
            continue;
        }
        if (p->index > next)
            add_run(out, next, p->index - 2u);
        next = (uint64_t)p->index + 2;
        struct rt_provider_counter *pc = &out->v[out->n++];
        pc->index = p->index;
        pc->name = p->text;
        pc->help = text_at(help, h, nh, (uint64_t)p->index + 1);
        if (!pc->help)
            out->without_help++;
    }
    if (next <= to)
        add_run(out, next, to);
    free(c);
    free(h);
    return 0;
}

void rt_provider_names_free(struct rt_provider_names *p)
{
    free(p->v);
    free(p->missing);
    memset(p, 0, sizeof *p);
}
