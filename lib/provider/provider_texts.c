/* INI layer: the texts of an INI's symbols (see provider_texts.h), and
 * looking one up in a spec's symbol. */
#include "provider/provider_texts.h"

#include <stdlib.h>
#include <string.h>

static size_t entry_hash(size_t sym, size_t lang)
{
    return sym * 0x10003u + lang;
}

struct rt_provider_text *rt_provider_texts_get(struct rt_provider_texts *x,
                                               size_t sym, size_t lang)
{
    size_t h = entry_hash(sym, lang), cursor = 0, pos1;
    while ((pos1 = rt_pos_index_next(&x->by_key, h, &cursor))) {
        struct rt_text_entry *e = &x->entries[pos1 - 1];
        if (e->sym == sym && e->t.lang == lang)
            return &e->t;
    }
    if (x->n_entries == x->cap_entries) {
        /* Half as much again: an INI near its cap holds a million keys,
         * and the grouping below copies them beside these (12 times
         * the INI at its peak when doubled, review 35 F4). */
        size_t cap = x->cap_entries ? x->cap_entries + x->cap_entries / 2
                                    : 16;
        struct rt_text_entry *v = realloc(x->entries, cap * sizeof *v);
        if (!v)
            return NULL;
        x->entries = v;
        x->cap_entries = cap;
    }
    if (rt_pos_index_add(&x->by_key, h, x->n_entries))
        return NULL;
    struct rt_text_entry *e = &x->entries[x->n_entries++];
    memset(e, 0, sizeof *e);
    e->sym = sym;
    e->t.lang = (unsigned)lang;
    return &e->t;
}

static int cmp_text_lang(const void *pa, const void *pb)
{
    const struct rt_provider_text *a = pa, *b = pb;
    return (a->lang > b->lang) - (a->lang < b->lang);
}

int rt_provider_texts_group(struct rt_provider_texts *x, size_t n_syms)
{
    /* Lookups are over once the texts are grouped: the index goes
     * before the grouped copy is made beside the entries. */
    rt_pos_index_free(&x->by_key);
    struct rt_provider_text *text = calloc(x->n_entries ? x->n_entries : 1,
                                           sizeof *text);
    size_t *first = calloc(n_syms + 2, sizeof *first);
    if (!text || !first) {
        free(text);
        free(first);
        return -1;
    }
    /* Counted at first[sym + 2], summed to the starts at first[sym + 1],
     * which the scatter moves to first[sym]. */
    for (size_t k = 0; k < x->n_entries; k++)
        first[x->entries[k].sym + 2]++;
    for (size_t i = 2; i < n_syms + 2; i++)
        first[i] += first[i - 1];
    for (size_t k = 0; k < x->n_entries; k++)
        text[first[x->entries[k].sym + 1]++] = x->entries[k].t;
    for (size_t i = 0; i < n_syms; i++)
        if (first[i + 1] - first[i] > 1)
            qsort(text + first[i], first[i + 1] - first[i], sizeof *text,
                  cmp_text_lang);
    free(x->entries);
    x->entries = NULL;
    x->n_entries = x->cap_entries = 0;
    x->text = text;
    x->first = first;
    return 0;
}

const struct rt_provider_text *
rt_provider_texts_of(const struct rt_provider_texts *x, size_t sym,
                     size_t *n)
{
    *n = x->first[sym + 1] - x->first[sym];
    return x->text + x->first[sym];
}

void rt_provider_texts_free(struct rt_provider_texts *x)
{
    free(x->entries);
    rt_pos_index_free(&x->by_key);
    free(x->text);
    free(x->first);
    memset(x, 0, sizeof *x);
}

const struct rt_provider_text *
rt_provider_symbol_text(const struct rt_provider_symbol *sym, size_t lang)
{
    size_t lo = 0, hi = sym->n_text;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sym->text[mid].lang < lang)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sym->n_text && sym->text[lo].lang == lang ? &sym->text[lo]
                                                          : NULL;
}
