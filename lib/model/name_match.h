/* Matching a name asked for against a table's texts the way `names`
 * resolves it: letter case ignored as Windows ignores it (rt_utf8_casecmp)
 * and trailing blanks ignored, with how close each match is, so that a
 * match an exact lookup would miss is said. Pure model: no I/O. */
#ifndef RT_NAME_MATCH_H
#define RT_NAME_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"

/* How a table text matches a name asked for. Blanks are spaces and tabs
 * at the end of either string: lodctr keeps a text's trailing spaces
 * (Microsoft's own SDK samples ship names with them), and a table text
 * "Processor " is then a different name to every lookup that compares
 * texts as they are (a script's, an exact-case one), as is a name asked
 * for with a trailing blank. */
enum rt_name_match {
    RT_NAME_MATCH_NONE,
    RT_NAME_MATCH_EXACT,        /* byte for byte */
    RT_NAME_MATCH_CASE,         /* equal but for letter case */
    RT_NAME_MATCH_BLANKS,       /* equal once trailing blanks are dropped */
    RT_NAME_MATCH_BLANKS_CASE   /* ... and then equal but for case */
};

/* The length of S (N bytes) without its trailing blanks. */
size_t rt_name_trimmed_len(const char *s, size_t n);

/* How TEXT (a table's, TEXT_LEN bytes) matches NAME (NAME_LEN bytes). */
enum rt_name_match rt_name_match(const char *text, size_t text_len,
                                 const char *name, size_t name_len);

/* "exact", "case", "trailing-blanks" (both blank kinds), "none". */
const char *rt_name_match_word(enum rt_name_match m);

/* A table's positions sorted by their texts as rt_name_match compares
 * them (trailing blanks dropped, any case), then by position, so that
 * each name costs a binary search and one name's matches come in table
 * order. LIST is the caller's and must outlive the index. */
struct rt_name_index {
    const struct rt_pair_list *list;
    uint32_t *by;           /* positions into LIST, sorted */
    size_t n;
};

/* Builds X over L: 0, or -1 when out of memory or L holds more pairs
 * than 32-bit positions reach (X then empty). */
int rt_name_index_build(struct rt_name_index *x, const struct rt_pair_list *l);

/* The first slot of X->by whose pair matches NAME (any rt_name_match but
 * NONE); *COUNT how many slots from it do. */
size_t rt_name_index_find(const struct rt_name_index *x, const char *name,
                          size_t *count);

void rt_name_index_free(struct rt_name_index *x);

#endif
