/* Engine layer: the union of the providers' ranges (owned_ranges.h). */
#include "engine/owned_ranges.h"

#include <stdlib.h>

static int span_cmp(const void *a, const void *b)
{
    const struct rt_span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

struct rt_span *rt_owned_spans(const struct rt_database *db, int k,
                               size_t *n)
{
    struct rt_span *v = malloc((db->n_services + 1) * sizeof *v);
    *n = 0;
    if (!v)
        return NULL;
    for (size_t s = 0; s < db->n_services; s++) {
        const struct rt_service_info *si = &db->services[s];
        if (!si->has_range)
            continue;
        uint32_t lo = k ? si->first_help : si->first_counter;
        uint32_t hi = k ? (si->has_last_help ? si->last_help : lo)
                        : (si->has_last_counter ? si->last_counter : lo);
        if ((k && !si->has_first_help) || lo > hi)
            continue;
        v[(*n)++] = (struct rt_span){lo, hi};
    }
    qsort(v, *n, sizeof *v, span_cmp);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++) {
        if (m && v[i].lo <= v[m - 1].hi) {
            if (v[i].hi > v[m - 1].hi)
                v[m - 1].hi = v[i].hi;
        } else {
            v[m++] = v[i];
        }
    }
    *n = m;
    return v;
}

int rt_spans_have(const struct rt_span *v, size_t n, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {       /* the first span ending at or after X */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].hi < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].lo <= x;
}

static int past(const struct rt_service_info *si, long offset)
{
    return (uint64_t)si->first_counter + (uint64_t)offset > si->last_counter ||
           (uint64_t)si->first_help + (uint64_t)offset > si->last_help;
}

void rt_spec_fit(const struct rt_provider_spec *sp,
                 const struct rt_service_info *si, struct rt_spec_fit *out)
{
    size_t lo = 0, hi = sp->n_symbols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (past(si, sp->symbols[mid].offset))
            hi = mid;
        else
            lo = mid + 1;
    }
    const struct rt_provider_symbol *last = &sp->symbols[sp->n_symbols - 1];
    out->symbol = lo < sp->n_symbols ? &sp->symbols[lo] : last;
    out->counter = (uint64_t)si->first_counter + (uint64_t)out->symbol->offset;
    out->help = (uint64_t)si->first_help + (uint64_t)out->symbol->offset;
    if (lo < sp->n_symbols)
        out->fit = RT_FIT_PAST;
    else if (out->counter == si->last_counter && out->help == si->last_help)
        out->fit = RT_FIT_EXACT;
    else
        out->fit = RT_FIT_SHORT;
}
