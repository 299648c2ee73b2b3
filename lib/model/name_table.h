/* One language's name tables: the Counter (names) and Help (descriptions)
 * pair lists of Perflib\LLL. Pure model: no I/O.
 *
 * Pairs keep their original order; operations that change a table append
 * at the end or remove, never reorder, so untouched pairs re-encode to the
 * same bytes. */
#ifndef RT_NAME_TABLE_H
#define RT_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "model/multi_sz.h"

/* A list decoded from a table (rt_table_pairs) keeps its pairs' texts in
 * one block, TEXTS (owned; NULL for a list made otherwise), and a list
 * appended to with rt_pair_list_append_packed in a chain of blocks: a
 * pair of a few bytes then costs its bytes, not a heap block of at least
 * 32 (a Counter of millions of tiny pairs), and the list is freed a
 * block at a time. Other pairs own their text. A pair leaves the list or
 * is freed alone only through the helpers below, which know the blocks. */
struct rt_text_block {
    struct rt_text_block *next;     /* an older block of the same list */
    size_t size;        /* bytes of TEXT */
    size_t used;        /* of them taken (rt_pair_list_append_packed) */
    char text[];
};

struct rt_pair_list {
    struct rt_pair *v;
    size_t n, cap;
    /* RT_TEXTS_BORROWED: a view whose texts another list owns
     * (rt_psb_split_view): none is freed with it, it takes no new pair,
     * and it must not outlive that list. (A mark in this pointer, not a
     * field of its own: tens of thousands of lists of a psb: store's
     * tiny sections would each grow by it.) */
    struct rt_text_block *texts;
};
extern struct rt_text_block rt_texts_borrowed;
#define RT_TEXTS_BORROWED (&rt_texts_borrowed)

struct rt_name_table {
    struct rt_pair_list counter;   /* names */
    struct rt_pair_list help;      /* descriptions */
};

/* Decodes a table from its two blobs (either may be NULL/0: empty).
 * Strict unless LENIENT. Returns 0, or -1 with *ERR and *WHICH (0 counter,
 * 1 help) describing the first damage; in lenient mode the valid pairs
 * before the damage are kept in T even when -1 is returned. */
int rt_name_table_decode(struct rt_name_table *t, const uint8_t *counter,
                         size_t counter_len, const uint8_t *help,
                         size_t help_len, int lenient,
                         struct rt_msz_error *err, int *which);

/* Encodes one list into a new REG_MULTI_SZ blob. */
int rt_pair_list_encode(const struct rt_pair_list *l, uint8_t **blob,
                        size_t *len);
/* 1 when rt_pair_list_encode would give L as exactly the LEN bytes at
 * BLOB, found without encoding it; 0 when it would not, and also where L
 * holds text outside the plain forms the comparison knows (four-byte
 * UTF-8, anything not valid): encode L then to know. */
int rt_pair_list_encodes_as(const struct rt_pair_list *l, const uint8_t *blob,
                            size_t len);
/* How many of L's first pairs rt_pair_list_encode gives as the bytes
 * BLOB begins with (the same forms as rt_pair_list_encodes_as), and in
 * *BYTES how many bytes they take: a table restored or rebuilt over one
 * that differs only after them keeps those bytes, and only the rest is
 * encoded (rt_multi_sz_encode_after). */
size_t rt_pair_list_encoded_prefix(const struct rt_pair_list *l,
                                   const uint8_t *blob, size_t len,
                                   size_t *bytes);

void rt_name_table_free(struct rt_name_table *t);
void rt_pair_list_free(struct rt_pair_list *l);
/* Puts the pair at PERM[I] at position I of V (N pairs), moving each
 * cycle of the permutation once: a sort by 4-byte positions
 * (rt_sort_positions) applied without a second array of pairs. PERM is
 * left the identity. */
void rt_pairs_permute(struct rt_pair *v, uint32_t *perm, size_t n);
/* rt_sort_positions' order of positions into a pair array (PAIRS): by
 * index, then by position, so that one index's pairs keep their order. */
int rt_pairs_by_index_then_position(uint32_t a, uint32_t b,
                                    const void *pairs);
/* Sorts the N pairs at V by index, one index's pairs keeping their
 * order, through PERM (room for N positions, the caller's: the sort
 * itself allocates nothing and cannot fail). */
void rt_pairs_sort_by_index(struct rt_pair *v, size_t n, uint32_t *perm);
/* Frees pair P of L (its text unless it lies in L's block). */
void rt_pair_list_free_pair(const struct rt_pair_list *l, struct rt_pair *p);
/* Gives pair P of L a text of its own (a copy, when its text lies in L's
 * block), before P is moved to another list: 0, or -1 when out of memory
 * (P unchanged). */
int rt_pair_list_detach(const struct rt_pair_list *l, struct rt_pair *p);

/* Deep copy; returns 0 or -1 when out of memory. */
int rt_pair_list_copy(struct rt_pair_list *dst, const struct rt_pair_list *src);

/* The first pair with INDEX, or NULL. */
const struct rt_pair *rt_pair_list_find(const struct rt_pair_list *l,
                                        uint32_t index);

/* The first pair whose text equals NAME case-insensitively (Windows' upper
 * case), or NULL. */
const struct rt_pair *rt_pair_list_find_text(const struct rt_pair_list *l,
                                             const char *name);

/* All pairs whose text equals NAME case-insensitively: stores up to MAX
 * positions in OUT and returns how many there are in all. */
size_t rt_pair_list_find_text_all(const struct rt_pair_list *l,
                                  const char *name, size_t *out, size_t max);

/* Highest index in the list, 0 when empty. */
uint32_t rt_pair_list_highest(const struct rt_pair_list *l);

/* Highest index in either list of the table. */
uint32_t rt_name_table_highest(const struct rt_name_table *t);

/* A duplicated index: the positions of its first and of a later pair. */
struct rt_duplicate {
    uint32_t index;
    size_t first, second;
};

/* Finds every pair whose index already appeared earlier in the list.
 * Returns the number found (each later occurrence counts once) and a new
 * array in *OUT (NULL when none), or (size_t)-1 when out of memory. */
size_t rt_pair_list_duplicates(const struct rt_pair_list *l,
                               struct rt_duplicate **out);

/* A list's pairs sorted by index, then text: made once for a list
 * compared with many (CurrentLanguage with every language). */
struct rt_pair_sorted {
    const struct rt_pair **v;
    size_t n;
};
int rt_pair_sorted_of(const struct rt_pair_list *a, struct rt_pair_sorted *s);
void rt_pair_sorted_free(struct rt_pair_sorted *s);

/* How many pairs of A have their index in B with the same text (B's
 * first pair of that index): over B's indices, each once, A's pairs of
 * that index and text found by a search. O(m log m + m log n), whatever
 * A's size (a scan of A for each language it was compared with was A's
 * size x languages, review 35 F8). Returns (size_t)-1 when out of
 * memory. */
size_t rt_pair_list_agreement(const struct rt_pair_sorted *a,
                              const struct rt_pair_list *b);

/* The difference of two tables as multisets of (index, text) pairs: the
 * pairs of NEW that OLD lacks are appended to ADDED, those of OLD that
 * NEW lacks to REMOVED, each in its own table's order (copies). A text
 * replaced at an index is one pair removed and one added; a pair that
 * only moves is neither. O((n + m) log(n + m)). Returns 0, or -1 when out
 * of memory (the lists then hold what was appended). */
int rt_pair_list_diff(const struct rt_pair_list *old_pairs,
                      const struct rt_pair_list *new_pairs,
                      struct rt_pair_list *added, struct rt_pair_list *removed);

/* The same, the pairs of OLD_PAIRS that go to REMOVED moved there, not
 * copied (OLD_PAIRS is left to be freed, maybe emptied; an empty REMOVED
 * takes its array): the pairs a whole table replaced removes are not
 * held twice. */
int rt_pair_list_diff_take(struct rt_pair_list *old_pairs,
                           const struct rt_pair_list *new_pairs,
                           struct rt_pair_list *added,
                           struct rt_pair_list *removed);

/* Whether A and B hold the same pairs in the same order (index, text and
 * the index's digits as written). */
int rt_pair_list_equal(const struct rt_pair_list *a,
                       const struct rt_pair_list *b);

/* A table as stored: its REG_MULTI_SZ blob, kept UTF-16, and where each
 * pair lies in it, found in one scan. Install and uninstall work on this
 * and splice bytes; text is converted only where a person or JSON reads
 * it (rt_table_pairs). */
struct rt_table {
    uint8_t *blob;              /* owned; NULL when the value is absent */
    size_t len;
    size_t base;                /* BLOB holds the bytes from BASE on (0
                                   but after rt_table_keep_from) */
    struct rt_msz_entry *v;     /* the pairs before any damage, in order */
    size_t n;
    uint32_t highest;           /* highest index among them, 0 if none */
};

/* Takes ownership of BLOB (LEN bytes) and indexes it, leniently: on damage
 * the pairs before it are kept and *ERR tells the damage. Returns 0 when
 * the blob is well-formed, -1 on damage or when out of memory
 * (ERR->status RT_MSZ_NOMEM). */
int rt_table_load(struct rt_table *t, uint8_t *blob, size_t len,
                  struct rt_msz_error *err);
void rt_table_free(struct rt_table *t);

/* A table indexed elsewhere (rt_multi_sz_scan_pieces): its N entries V
 * (taken), LEN bytes in all, of which TAIL (taken) holds those from BASE
 * on. */
void rt_table_set(struct rt_table *t, uint8_t *tail, size_t base, size_t len,
                  struct rt_msz_entry *v, size_t n);

/* Keeps only the bytes from FROM on (a lean load: what a change to the
 * table's end can touch), the index of every pair staying. Returns 0 or
 * -1 when out of memory (T unchanged). */
int rt_table_keep_from(struct rt_table *t, size_t from);
/* The byte at offset AT of T's table, NULL when T does not hold it (past
 * its end, or before the bytes it kept). */
const uint8_t *rt_table_at(const struct rt_table *t, size_t at);

/* The first entry with INDEX, or NULL. */
const struct rt_msz_entry *rt_table_find(const struct rt_table *t,
                                         uint32_t index);

/* Whether two entries' texts are the same bytes. */
int rt_table_text_equal(const struct rt_table *a, const struct rt_msz_entry *x,
                        const struct rt_table *b, const struct rt_msz_entry *y);

/* Decodes every indexed pair into L, the texts in L's block. Returns 0 or
 * -1. */
int rt_table_pairs(const struct rt_table *t, struct rt_pair_list *l);
/* The same from the FROM-th pair on. */
int rt_table_pairs_from(const struct rt_table *t, size_t from,
                        struct rt_pair_list *l);
/* The same, only the pairs with A <= index <= B (in table order). */
int rt_table_pairs_within(const struct rt_table *t, uint32_t a, uint32_t b,
                          struct rt_pair_list *l);

/* Appends a copy of (INDEX, TEXT). Returns 0 or -1 (out of memory, text
 * not valid UTF-8, index 0 or above 2^31). */
int rt_pair_list_append(struct rt_pair_list *l, uint32_t index,
                        const char *text);
/* The same for TEXT of LEN bytes known to be valid UTF-8 already: a
 * pair's text of another list, or text decoded from UTF-16 (or checked
 * whole) and cut at ASCII bytes. Checking it again was a third of a
 * restore's time. */
int rt_pair_list_append_valid(struct rt_pair_list *l, uint32_t index,
                              const char *text, size_t len);
/* The same, the text kept in L's blocks (a new one, twice the last up to
 * 1 MiB, when the newest is full): a backup's hundreds of thousands of
 * texts are neither allocated nor freed one by one. */
int rt_pair_list_append_packed(struct rt_pair_list *l, uint32_t index,
                               const char *text, size_t len);

/* Removes every pair with FIRST <= index <= LAST, keeping the others in
 * order. Returns how many were removed. */
size_t rt_pair_list_remove_range(struct rt_pair_list *l, uint32_t first,
                                 uint32_t last);

#endif
