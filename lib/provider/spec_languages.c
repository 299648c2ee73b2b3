/* INI layer: a provider spec's languages found by value (provider_spec.h):
 * an index the loader makes, so that a tree of thousands of languages
 * looks each up in an INI listing thousands in time of a search. */
#include "provider/provider_spec.h"

#include <stdint.h>
#include <stdlib.h>

static int cmp_lang_slot(const void *a, const void *b)
{
    const struct rt_lang_slot *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The key rt_provider_spec_language finds ID by: its value, CurrentLanguage
 * above every value; 0 when ID is neither (it matches nothing). */
static int lang_key(const char *id, uint32_t *key)
{
    unsigned v;
    if (rt_lang_is_current(id))
        *key = UINT32_MAX;
    else if (rt_lang_value(id, &v) == 0)
        *key = v;
    else
        return 0;
    return 1;
}

int rt_provider_spec_index_languages(struct rt_provider_spec *spec)
{
    size_t n = spec->n_languages;
    struct rt_lang_slot *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (lang_key(spec->languages[i].id, &v[m].key))
            v[m++].pos = (uint32_t)i;
    qsort(v, m, sizeof *v, cmp_lang_slot);
    spec->lang_index = v;
    spec->n_lang_index = m;
    return 0;
}

int rt_provider_spec_language(const struct rt_provider_spec *spec,
                              const char *id)
{
    if (spec->lang_index) {
        uint32_t key;
        if (!lang_key(id, &key))
            return -1;
        size_t lo = 0, hi = spec->n_lang_index;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (spec->lang_index[mid].key < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < spec->n_lang_index && spec->lang_index[lo].key == key
                   ? (int)spec->lang_index[lo].pos
                   : -1;
    }
    for (size_t i = 0; i < spec->n_languages; i++)
        if (rt_lang_same(spec->languages[i].id, id))
            return (int)i;
    return -1;
}
