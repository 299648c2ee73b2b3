/* INI layer: the texts of an INI's symbols as the loader collects them,
 * one for each (symbol, language) that has a [text] key: they cost by
 * the keys, not by symbols x the languages [languages] lists (an INI
 * listing 4,096 languages cost 96 KB a symbol; review 34 F5). */
#ifndef RT_PROVIDER_TEXTS_H
#define RT_PROVIDER_TEXTS_H

#include <stddef.h>

#include "provider/pos_index.h"
#include "provider/provider_spec.h"

struct rt_text_entry {
    size_t sym;             /* the symbol's position in the caller's list */
    struct rt_provider_text t;
};

struct rt_provider_texts {
    struct rt_text_entry *entries;  /* in key order, while collecting */
    size_t n_entries, cap_entries;
    struct rt_pos_index by_key;     /* of ENTRIES, by (sym, lang) */
    /* After rt_provider_texts_group: the texts by symbol, each symbol's
     * by language; symbol I's are text[first[I] .. first[I + 1]). */
    struct rt_provider_text *text;
    size_t *first;
};

/* The text of symbol SYM in language LANG (an index in the languages),
 * added empty when new. NULL out of memory (X as it was). */
struct rt_provider_text *rt_provider_texts_get(struct rt_provider_texts *x,
                                               size_t sym, size_t lang);

/* Lays the texts out by symbol (of N_SYMS), each one's by language, and
 * frees the entries and their index (no text is looked up after). 0, or
 * -1 out of memory (X then only to be freed). */
int rt_provider_texts_group(struct rt_provider_texts *x, size_t n_syms);

/* After grouping: symbol SYM's texts, *N of them. */
const struct rt_provider_text *
rt_provider_texts_of(const struct rt_provider_texts *x, size_t sym,
                     size_t *n);

void rt_provider_texts_free(struct rt_provider_texts *x);

#endif
