/* INI layer: a provider spec's languages found by value (provider_spec.h):
 * an index the loader makes, so that a tree of thousands of languages
 * looks each up in an INI listing thousands in time of a search. */
#include "provider/provider_spec.h"

#include <stdint.h>
#include <stdlib.h>

int rt_provider_spec_index_languages(struct rt_provider_spec *spec)
{
    size_t n = spec->n_languages;
    struct rt_lang_pos *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (rt_lang_key(spec->languages[i].id, &v[m].key))
            v[m++].pos = (uint32_t)i;
    qsort(v, m, sizeof *v, rt_lang_pos_cmp);
    spec->lang_index = v;
    spec->n_lang_index = m;
    return 0;
}

int rt_provider_spec_language(const struct rt_provider_spec *spec,
                              const char *id)
{
    if (spec->lang_index) {
        uint32_t key;
        if (!rt_lang_key(id, &key))
            return -1;
        size_t at = rt_lang_pos_find(spec->lang_index, spec->n_lang_index,
                                     key);
        return at < spec->n_lang_index ? (int)spec->lang_index[at].pos : -1;
    }
    for (size_t i = 0; i < spec->n_languages; i++)
        if (rt_lang_same(spec->languages[i].id, id))
            return (int)i;
    return -1;
}
