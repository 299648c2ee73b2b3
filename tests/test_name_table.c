/* The name-table model: lookups, highest index, duplicates, append and
 * remove-range keeping untouched pairs in order and byte-identical. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#include "model/name_table.h"

#define BLOB(lit) ((const uint8_t *)(lit)), sizeof(lit)

static const char16_t counter_blob[] =
    u"1\0" "1847\0" "2\0System\0" "4\0Memory\0" "6\0% Processor Time\0"
    "1846\0End Marker\0" "2000\0Bytes Sent\0" "2002\0BYTES SENT\0"
    "4\0Memory (dup)\0";
static const char16_t help_blob[] =
    u"3\0The System object.\0" "5\0The Memory object.\0"
    "1847\0End Marker\0" "2001\0Bytes sent.\0";

static int setup(void **state)
{
    struct rt_name_table *t = malloc(sizeof *t);
    struct rt_msz_error e;
    int which;
    if (rt_name_table_decode(t, BLOB(counter_blob), BLOB(help_blob), 0, &e,
                             &which) != 0)
        return -1;
    *state = t;
    return 0;
}

static int teardown(void **state)
{
    rt_name_table_free(*state);
    free(*state);
    return 0;
}

static void lookup_by_index(void **state)
{
    struct rt_name_table *t = *state;
    assert_string_equal(rt_pair_list_find(&t->counter, 4)->text, "Memory");
    assert_string_equal(rt_pair_list_find(&t->help, 5)->text,
                        "The Memory object.");
    assert_null(rt_pair_list_find(&t->counter, 3));
    assert_null(rt_pair_list_find(&t->counter, 9999));
}

static void lookup_by_name_case_insensitive(void **state)
{
    struct rt_name_table *t = *state;
    const struct rt_pair *p = rt_pair_list_find_text(&t->counter, "bytes sent");
    assert_non_null(p);
    assert_int_equal(p->index, 2000);
    size_t pos[4];
    assert_int_equal(rt_pair_list_find_text_all(&t->counter, "Bytes Sent",
                                                pos, 4), 2);
    assert_int_equal(t->counter.v[pos[0]].index, 2000);
    assert_int_equal(t->counter.v[pos[1]].index, 2002);
    /* MAX limits what is stored, not what is counted. */
    assert_int_equal(rt_pair_list_find_text_all(&t->counter, "BYTES sent",
                                                pos, 1), 2);
    assert_null(rt_pair_list_find_text(&t->counter, "Bytes"));
}

static void highest_index(void **state)
{
    struct rt_name_table *t = *state;
    assert_int_equal(rt_pair_list_highest(&t->counter), 2002);
    assert_int_equal(rt_pair_list_highest(&t->help), 2001);
    assert_int_equal(rt_name_table_highest(t), 2002);
    struct rt_pair_list empty = {0};
    assert_int_equal(rt_pair_list_highest(&empty), 0);
}

static void duplicates_found_with_positions(void **state)
{
    struct rt_name_table *t = *state;
    struct rt_duplicate *d;
    assert_int_equal(rt_pair_list_duplicates(&t->counter, &d), 1);
    assert_int_equal(d[0].index, 4);
    assert_int_equal(d[0].first, 2);
    assert_int_equal(d[0].second, 7);
    free(d);
    assert_int_equal(rt_pair_list_duplicates(&t->help, &d), 0);
    assert_null(d);

    /* Three occurrences: two duplicates, each pointing at the first. */
    struct rt_pair_list l = {0};
    assert_int_equal(rt_pair_list_append(&l, 10, "a"), 0);
    assert_int_equal(rt_pair_list_append(&l, 12, "b"), 0);
    assert_int_equal(rt_pair_list_append(&l, 10, "c"), 0);
    assert_int_equal(rt_pair_list_append(&l, 10, "d"), 0);
    assert_int_equal(rt_pair_list_duplicates(&l, &d), 2);
    assert_int_equal(d[0].first, 0);
    assert_int_equal(d[0].second, 2);
    assert_int_equal(d[1].first, 0);
    assert_int_equal(d[1].second, 3);
    free(d);
    /* Runs of two indices side by side once sorted (10 then 12): each
     * repeat points at its own index's first, not the other's. */
    assert_int_equal(rt_pair_list_append(&l, 12, "e"), 0);
    assert_int_equal(rt_pair_list_append(&l, 12, "f"), 0);
    assert_int_equal(rt_pair_list_duplicates(&l, &d), 4);
    assert_int_equal(d[2].index, 12);
    assert_int_equal(d[2].first, 1);
    assert_int_equal(d[2].second, 4);
    assert_int_equal(d[3].first, 1);
    assert_int_equal(d[3].second, 5);
    free(d);
    rt_pair_list_free(&l);

    /* A list rising until its last pair, which repeats the one before
     * it (a rising list is passed over without a sort: its end counts
     * too), and one rising throughout, which has none. */
    struct rt_pair_list r = {0};
    for (uint32_t i = 2; i <= 8; i += 2)
        assert_int_equal(rt_pair_list_append(&r, i, "x"), 0);
    assert_int_equal(rt_pair_list_duplicates(&r, &d), 0);
    assert_null(d);
    assert_int_equal(rt_pair_list_append(&r, 8, "y"), 0);
    assert_int_equal(rt_pair_list_duplicates(&r, &d), 1);
    assert_int_equal(d[0].index, 8);
    assert_int_equal(d[0].first, 3);
    assert_int_equal(d[0].second, 4);
    free(d);
    rt_pair_list_free(&r);
}

static void append_then_remove_restores_bytes(void **state)
{
    struct rt_name_table *t = *state;
    assert_int_equal(rt_pair_list_append(&t->counter, 2004, "Transfer"), 0);
    assert_int_equal(rt_pair_list_append(&t->counter, 2006,
                                         "\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82"),
                     0);
    assert_int_equal(t->counter.n, 10);
    assert_string_equal(t->counter.v[9].text, "\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82");
    assert_int_equal(rt_pair_list_remove_range(&t->counter, 2004, 2006), 2);
    uint8_t *b;
    size_t len;
    assert_int_equal(rt_pair_list_encode(&t->counter, &b, &len), 0);
    assert_int_equal(len, sizeof counter_blob);
    assert_memory_equal(b, counter_blob, len);
    free(b);
}

static void remove_range_keeps_order(void **state)
{
    struct rt_name_table *t = *state;
    /* Removes 1846 and both 2000/2002 from the middle and end. */
    assert_int_equal(rt_pair_list_remove_range(&t->counter, 1846, 2002), 3);
    assert_int_equal(t->counter.n, 5);
    static const uint32_t want[] = {1, 2, 4, 6, 4};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(t->counter.v[i].index, want[i]);
    assert_string_equal(t->counter.v[4].text, "Memory (dup)");
    assert_int_equal(rt_pair_list_remove_range(&t->counter, 5000, 6000), 0);
}

static void append_rejects_bad_pairs(void **state)
{
    struct rt_name_table *t = *state;
    assert_int_equal(rt_pair_list_append(&t->counter, 0, "zero"), -1);
    assert_int_equal(rt_pair_list_append(&t->counter, RT_INDEX_MAX + 1u, "x"),
                     -1);
    assert_int_equal(rt_pair_list_append(&t->counter, 10, "bad \xff utf8"), -1);
    assert_int_equal(t->counter.n, 8);
}

static void copy_is_deep(void **state)
{
    struct rt_name_table *t = *state;
    struct rt_pair_list c;
    assert_int_equal(rt_pair_list_copy(&c, &t->counter), 0);
    t->counter.v[1].text[0] = 's';
    assert_string_equal(c.v[1].text, "System");
    rt_pair_list_free(&c);
}

/* The difference of two tables as multisets of (index, text): a pair
 * that moves is neither added nor removed, a text replaced is one of
 * each, and of an index's repeated pairs only those in excess count;
 * each list in its own table's order. */
static void diff_is_the_multiset_difference(void **state)
{
    struct rt_name_table *t = *state;
    struct rt_pair_list now = {0}, added = {0}, removed = {0};
    /* The table reordered, System's text replaced, one "4" pair of two
     * gone, 2002 gone, a new pair and a second 2000. */
    assert_int_equal(rt_pair_list_append(&now, 2000, "Bytes Sent"), 0);
    assert_int_equal(rt_pair_list_append(&now, 1, "1847"), 0);
    assert_int_equal(rt_pair_list_append(&now, 2, "The System"), 0);
    assert_int_equal(rt_pair_list_append(&now, 4, "Memory"), 0);
    assert_int_equal(rt_pair_list_append(&now, 6, "% Processor Time"), 0);
    assert_int_equal(rt_pair_list_append(&now, 1846, "End Marker"), 0);
    assert_int_equal(rt_pair_list_append(&now, 3000, "New"), 0);
    assert_int_equal(rt_pair_list_append(&now, 2000, "Bytes Sent"), 0);
    assert_int_equal(rt_pair_list_diff(&t->counter, &now, &added, &removed),
                     0);
    assert_int_equal(added.n, 3);
    assert_int_equal(added.v[0].index, 2);
    assert_string_equal(added.v[0].text, "The System");
    assert_int_equal(added.v[1].index, 3000);
    assert_int_equal(added.v[2].index, 2000);
    assert_int_equal(removed.n, 3);
    assert_string_equal(removed.v[0].text, "System");
    assert_string_equal(removed.v[1].text, "BYTES SENT");
    assert_string_equal(removed.v[2].text, "Memory (dup)");
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    /* Equal tables: nothing either way. */
    assert_int_equal(rt_pair_list_diff(&now, &now, &added, &removed), 0);
    assert_int_equal(added.n + removed.n, 0);
    rt_pair_list_free(&now);
}

static void damaged_table_reports_which_blob(void **state)
{
    (void)state;
    struct rt_name_table t;
    struct rt_msz_error e;
    int which = -1;
    assert_int_equal(rt_name_table_decode(&t, BLOB(u"2\0A\0"),
                                          BLOB(u"3\0a\0" "x\0b\0"), 0, &e,
                                          &which), -1);
    assert_int_equal(which, 1);
    assert_int_equal(e.status, RT_MSZ_BAD_INDEX);
    assert_int_equal(e.offset, 8);
    /* Lenient keeps what is valid in both. */
    assert_int_equal(rt_name_table_decode(&t, BLOB(u"2\0A\0"),
                                          BLOB(u"3\0a\0" "x\0b\0"), 1, &e,
                                          &which), -1);
    assert_int_equal(t.counter.n, 1);
    assert_int_equal(t.help.n, 1);
    rt_name_table_free(&t);
    /* Missing values are empty tables. */
    assert_int_equal(rt_name_table_decode(&t, NULL, 0, NULL, 0, 0, &e, &which),
                     0);
    assert_int_equal(t.counter.n + t.help.n, 0);
    rt_name_table_free(&t);
}

/* The pairs of a range decoded keep their texts in one block of exactly
 * their bytes, in table order (what rebuild takes of a table of millions
 * of tiny pairs); a range holding none gives an empty list, no block. */
static void range_decoded_into_one_block(void **state)
{
    (void)state;
    static const char16_t blob[] = u"8\0eight\0" "2\0System\0" "4\0Gr\u00f6\u00dfe\0"
                                   "6\0six\0" "4\0again\0" "10\0x\0";
    const char *want[] = {"eight", "Gr\xc3\xb6\xc3\x9f" "e", "six", "again"};
    const uint32_t want_index[] = {8, 4, 6, 4};
    uint8_t *copy = malloc(sizeof blob);
    memcpy(copy, blob, sizeof blob);
    struct rt_table t;
    struct rt_msz_error e;
    assert_int_equal(rt_table_load(&t, copy, sizeof blob, &e), 0);
    struct rt_pair_list l;
    assert_int_equal(rt_table_pairs_within(&t, 4, 8, &l), 0);
    assert_int_equal(l.n, 4);
    assert_non_null(l.texts);
    size_t bytes = 0;
    for (size_t i = 0; i < l.n; i++) {
        assert_int_equal(l.v[i].index, want_index[i]);
        assert_string_equal(l.v[i].text, want[i]);
        assert_ptr_equal(l.v[i].text, l.texts->text + bytes);
        bytes += l.v[i].text_len + 1;
    }
    assert_int_equal(l.texts->used, bytes);
    assert_true(l.texts->size >= bytes);
    rt_pair_list_free(&l);
    assert_int_equal(rt_table_pairs_within(&t, 11, 100, &l), 0);
    assert_int_equal(l.n, 0);
    assert_null(l.texts);
    rt_pair_list_free(&l);
    rt_table_free(&t);
}

/* A table indexed elsewhere and set into a struct that held anything (a
 * fresh one on the stack): its highest index is its pairs' own, and it
 * decodes as the same table loaded whole. */
static void table_set_over_whatever_the_struct_held(void **state)
{
    (void)state;
    static const char16_t blob[] = u"8\0eight\0" "2\0System\0" "10\0x\0";
    const uint8_t *piece[1] = {(const uint8_t *)blob};
    size_t piece_len[1] = {sizeof blob};
    struct rt_msz_entry *v;
    size_t n;
    assert_int_equal(rt_multi_sz_scan_pieces(piece, piece_len, 1, &v, &n), 0);
    assert_int_equal(n, 3);
    uint8_t *copy = malloc(sizeof blob);
    assert_non_null(copy);
    memcpy(copy, blob, sizeof blob);
    struct rt_table t;
    memset(&t, 0xff, sizeof t);
    rt_table_set(&t, copy, 0, sizeof blob, v, n);
    assert_int_equal(t.highest, 10);
    assert_int_equal(t.n, 3);
    struct rt_pair_list l;
    assert_int_equal(rt_table_pairs_within(&t, 1, 100, &l), 0);
    assert_int_equal(l.n, 3);
    assert_string_equal(l.v[2].text, "x");
    rt_pair_list_free(&l);
    rt_table_free(&t);
}

/* A list sized to the one pair it holds (a copy: cap 1) takes appends:
 * growing by half of 1 gave room for none, and the append wrote past the
 * array (found by the sanitizer build of test_repair's cut sweep, where
 * a salvage kept one pair and English filled the rest). */
/* A table's pairs decoded keep their texts in one block of exactly their
 * bytes (UTF-8 of one to four bytes a character); a pair moved to another
 * list takes a copy of its text, so the list it came from is freed
 * without it, and a range removed frees nothing of the block. */
static void decoded_texts_share_one_block(void **state)
{
    (void)state;
    static const char16_t blob[] = u"2\0System\0" "4\0Gr\u00f6\u00dfe \u20ac\0"
                                   "6\0\U0001F600\0" "8\0\0" "10\0x\0";
    const char *want[] = {"System", "Gr\xc3\xb6\xc3\x9f" "e \xe2\x82\xac",
                          "\xf0\x9f\x98\x80", "", "x"};
    uint8_t *copy = malloc(sizeof blob);
    memcpy(copy, blob, sizeof blob);
    struct rt_table t;
    struct rt_msz_error e;
    assert_int_equal(rt_table_load(&t, copy, sizeof blob, &e), 0);
    struct rt_pair_list l;
    assert_int_equal(rt_table_pairs(&t, &l), 0);
    assert_int_equal(l.n, 5);
    assert_non_null(l.texts);
    size_t bytes = 0;
    for (size_t i = 0; i < l.n; i++) {
        assert_string_equal(l.v[i].text, want[i]);
        assert_int_equal(l.v[i].text_len, strlen(want[i]));
        assert_ptr_equal(l.v[i].text, l.texts->text + bytes);
        bytes += l.v[i].text_len + 1;
    }
    assert_int_equal(l.texts->used, bytes);
    assert_true(l.texts->size >= bytes);
    /* Index 10 removed: its text stays in the block, which is freed once. */
    assert_int_equal(rt_pair_list_remove_range(&l, 10, 10), 1);
    /* Every other pair moved to a list that already holds one. */
    struct rt_pair_list none = {0}, added = {0}, removed = {0};
    assert_int_equal(rt_pair_list_append(&removed, 1, "first"), 0);
    assert_int_equal(rt_pair_list_diff_take(&l, &none, &added, &removed), 0);
    rt_pair_list_free(&l);
    assert_int_equal(removed.n, 5);
    assert_null(removed.texts);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(removed.v[i + 1].text, want[i]);
    rt_pair_list_free(&removed);
    rt_pair_list_free(&added);
    rt_table_free(&t);
}

static void append_after_copy_of_one(void **state)
{
    (void)state;
    struct rt_pair_list one = {0}, c;
    assert_int_equal(rt_pair_list_append(&one, 2, "System"), 0);
    assert_int_equal(rt_pair_list_copy(&c, &one), 0);
    assert_int_equal(c.cap, 1);
    for (uint32_t i = 4; i <= 400; i += 2)
        assert_int_equal(rt_pair_list_append(&c, i, "x"), 0);
    assert_int_equal(c.n, 200);
    assert_true(c.cap >= c.n);
    assert_string_equal(c.v[0].text, "System");
    assert_int_equal(c.v[199].index, 400);
    rt_pair_list_free(&c);
    rt_pair_list_free(&one);
}

/* rt_pair_list_agreement of A (sorted here) and B. */
static size_t agreement(const struct rt_pair_list *a,
                        const struct rt_pair_list *b)
{
    struct rt_pair_sorted s;
    assert_int_equal(rt_pair_sorted_of(a, &s), 0);
    size_t n = rt_pair_list_agreement(&s, b);
    rt_pair_sorted_free(&s);
    return n;
}

/* How far two tables agree (repair's choice among the copies of a table):
 * each pair of A whose index B holds with the same text, B's first pair
 * of that index the one compared, whatever order either table is in. */
static void agreement_whatever_the_order(void **state)
{
    (void)state;
    static const char *const text[] = {"", "One", "Two", "Three", "Four",
                                       "Five", "Six", "Seven", "Eight",
                                       "Nine"};
    struct rt_pair_list a = {0}, b = {0};
    for (uint32_t i = 9; i >= 1; i--) {
        assert_int_equal(rt_pair_list_append(&b, i, text[i]), 0);
        if (i == 5)
            assert_int_equal(rt_pair_list_append(&b, 5, "Five again"), 0);
    }
    for (uint32_t i = 1; i <= 9; i++)
        assert_int_equal(rt_pair_list_append(&a, i, text[i]), 0);
    assert_int_equal(agreement(&a, &b), 9);
    /* Another text for 3, and B's second 5 (not its first): 7 agree. */
    struct rt_pair_list c = {0};
    for (uint32_t i = 1; i <= 9; i++)
        assert_int_equal(rt_pair_list_append(&c, i, i == 3 ? "Drei"
                                                   : i == 5 ? "Five again"
                                                            : text[i]), 0);
    assert_int_equal(agreement(&c, &b), 7);
    assert_int_equal(agreement(&b, &a), 9);
    /* A pair of A twice, both agreeing: each counts. */
    assert_int_equal(rt_pair_list_append(&a, 2, "Two"), 0);
    assert_int_equal(agreement(&a, &b), 10);
    rt_pair_list_free(&a);
    rt_pair_list_free(&b);
    rt_pair_list_free(&c);
}

/* rt_pairs_permute puts the pair at PERM[I] at position I, through
 * cycles of every length (a fixed point, a swap, a cycle of three), and
 * leaves PERM the identity. */
static void pairs_permuted_by_positions(void **state)
{
    (void)state;
    struct rt_pair v[6] = {{.index = 10}, {.index = 11}, {.index = 12},
                           {.index = 13}, {.index = 14}, {.index = 15}};
    uint32_t perm[6] = {0, 2, 1, 4, 5, 3};
    rt_pairs_permute(v, perm, 6);
    const uint32_t want[6] = {10, 12, 11, 14, 15, 13};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(v[i].index, want[i]);
        assert_int_equal(perm[i], i);
    }
}

/* rt_pair_list_encodes_as says 1 exactly for the bytes rt_pair_list_encode
 * gives (ASCII texts long and short, two- and three-byte UTF-8, an empty
 * text, an index as written), 0 for any byte changed, a byte missing or
 * added, and 0 where the text has a form it does not compare (four-byte
 * UTF-8: the caller encodes then). */
static void encodes_as_the_encoding(void **state)
{
    (void)state;
    const char *texts[] = {"System", "A text longer than eight bytes, mostly",
                           "", "Réseau Éléments", "Система", "处理器时间",
                           "12345678abcdefgh", "mixé 12345678 ascii é"};
    struct rt_pair_list l = {0};
    for (uint32_t i = 0; i < sizeof texts / sizeof *texts; i++)
        assert_int_equal(rt_pair_list_append(&l, 2 * i + 2, texts[i]), 0);
    l.v[1].index_raw = strdup("0004");
    assert_non_null(l.v[1].index_raw);
    uint8_t *b;
    size_t len;
    assert_int_equal(rt_pair_list_encode(&l, &b, &len), 0);
    assert_int_equal(rt_pair_list_encodes_as(&l, b, len), 1);
    for (size_t i = 0; i < len; i++) {
        b[i] ^= 0x20;
        assert_int_equal(rt_pair_list_encodes_as(&l, b, len), 0);
        b[i] ^= 0x20;
    }
    assert_int_equal(rt_pair_list_encodes_as(&l, b, len - 1), 0);
    assert_int_equal(rt_pair_list_encodes_as(&l, b, len - 2), 0);
    uint8_t *more = malloc(len + 2);
    assert_non_null(more);
    memcpy(more, b, len);
    more[len] = more[len + 1] = 0;
    assert_int_equal(rt_pair_list_encodes_as(&l, more, len + 2), 0);
    free(more);
    free(b);
    rt_pair_list_free(&l);

    /* Bytes that are no UTF-8 against the units a lax reading gives
     * them (an overlong form, an encoded surrogate, a lead byte cut off
     * by the text's end): never the same. */
    static const struct { const char *text; uint16_t unit; } lax[] = {
        {"\xC1\xBF", 0x7F}, {"\xE0\x81\xBF", 0x7F},
        {"\xE0\x9F\xBF", 0x7FF}, {"\xED\xA0\x80", 0xD800},
        {"\xED\xBF\xBF", 0xDFFF}, {"\xC2", 0x80}, {"\xE2\x82", 0x20AC},
    };
    for (size_t k = 0; k < sizeof lax / sizeof *lax; k++) {
        const uint8_t one[] = {'2', 0, (uint8_t)lax[k].unit,
                               (uint8_t)(lax[k].unit >> 8), 0, 0, 0, 0};
        assert_int_equal(rt_pair_list_append_valid(&l, 2, lax[k].text,
                                                   strlen(lax[k].text)),
                         0);
        assert_int_equal(rt_pair_list_encodes_as(&l, one, sizeof one), 0);
        rt_pair_list_free(&l);
    }
    for (uint32_t i = 0; i < sizeof texts / sizeof *texts; i++)
        assert_int_equal(rt_pair_list_append(&l, 2 * i + 2, texts[i]), 0);
    assert_int_equal(rt_pair_list_append(&l, 40, "smile \xF0\x9F\x98\x80"), 0);
    assert_int_equal(rt_pair_list_encode(&l, &b, &len), 0);
    assert_int_equal(rt_pair_list_encodes_as(&l, b, len), 0);
    free(b);
    rt_pair_list_free(&l);
}

/* A table's bytes changed anywhere: the pairs kept are those before the
 * change (their bytes end at or before it), and the kept bytes followed
 * by the rest encoded are the whole encoding, byte for byte; so too
 * past a text the comparison does not know (four-byte UTF-8), and over
 * no table at all. */
static void encoded_prefix_and_the_rest_are_the_encoding(void **state)
{
    (void)state;
    const char *texts[] = {"System", "A text longer than eight bytes, mostly",
                           "", "Réseau Éléments", "smile \xF0\x9F\x98\x80",
                           "处理器时间", "12345678abcdefgh"};
    struct rt_pair_list l = {0};
    for (uint32_t i = 0; i < sizeof texts / sizeof *texts; i++)
        assert_int_equal(rt_pair_list_append(&l, 2 * i + 2, texts[i]), 0);
    l.v[1].index_raw = strdup("0004");
    assert_non_null(l.v[1].index_raw);
    uint8_t *b, *again;
    size_t len, n, bytes;
    assert_int_equal(rt_pair_list_encode(&l, &b, &len), 0);
    /* The four-byte text (pair 4) stops the comparison there. */
    assert_int_equal(rt_pair_list_encoded_prefix(&l, b, len, &bytes), 4);
    for (size_t i = 0; i <= len; i++) {
        if (i < len)
            b[i] ^= 0x20;
        size_t kept = rt_pair_list_encoded_prefix(&l, b, len, &bytes);
        assert_true(bytes <= i);
        assert_true(kept <= 4);
        assert_int_equal(rt_multi_sz_encode_after(b, bytes, l.v + kept,
                                                  l.n - kept, &again, &n), 0);
        if (i < len)
            b[i] ^= 0x20;
        assert_int_equal(n, len);
        assert_memory_equal(again, b, len);
        free(again);
    }
    assert_int_equal(rt_pair_list_encoded_prefix(&l, NULL, 0, &bytes), 0);
    assert_int_equal(bytes, 0);
    free(b);
    rt_pair_list_free(&l);
}

/* Texts kept in a list's chain of blocks: each pair's text as given
 * (short, empty, one larger than any block), in order, across many
 * blocks; a range removed and a pair detached (a copy of its own) leave
 * the others' texts whole; the list freed a block at a time (the
 * sanitizers' build and valgrind see a text freed twice or lost). */
static void packed_texts_live_in_blocks(void **state)
{
    (void)state;
    struct rt_pair_list l = {0};
    static char big[(1 << 20) + 100];
    char text[64];
    memset(big, 'b', sizeof big);
    for (uint32_t i = 1; i <= 20000; i++) {
        int n = snprintf(text, sizeof text, "text %u", i);
        if (i == 5000)
            assert_int_equal(rt_pair_list_append_packed(&l, i, big, sizeof big), 0);
        else
            assert_int_equal(rt_pair_list_append_packed(&l, i, text,
                                                        i % 7 ? (size_t)n : 0), 0);
    }
    assert_int_equal(rt_pair_list_append_packed(&l, 0, "x", 1), -1);
    assert_int_equal(l.n, 20000);
    size_t blocks = 0;
    for (const struct rt_text_block *k = l.texts; k; k = k->next)
        blocks++;
    assert_true(blocks > 2);
    assert_int_equal(rt_pair_list_remove_range(&l, 100, 199), 100);
    struct rt_pair moved = l.v[0];
    assert_int_equal(rt_pair_list_detach(&l, &moved), 0);
    assert_ptr_not_equal(moved.text, l.v[0].text);
    assert_string_equal(moved.text, "text 1");
    for (size_t i = 0; i < l.n; i++) {
        uint32_t x = l.v[i].index;
        assert_true(x < 100 || x > 199);
        if (x == 5000) {
            assert_int_equal(l.v[i].text_len, sizeof big);
            assert_memory_equal(l.v[i].text, big, sizeof big);
            assert_int_equal(l.v[i].text[sizeof big], '\0');
            continue;
        }
        int n = snprintf(text, sizeof text, "text %u", x);
        if (x % 7 == 0)
            n = 0, text[0] = '\0';
        assert_int_equal(l.v[i].text_len, (uint32_t)n);
        assert_string_equal(l.v[i].text, text);
    }
    rt_pair_free(&moved);
    rt_pair_list_free(&l);
    assert_null(l.texts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lookup_by_index, setup, teardown),
        cmocka_unit_test_setup_teardown(lookup_by_name_case_insensitive, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(highest_index, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicates_found_with_positions, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(append_then_remove_restores_bytes,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(remove_range_keeps_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(append_rejects_bad_pairs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(copy_is_deep, setup, teardown),
        cmocka_unit_test_setup_teardown(diff_is_the_multiset_difference,
                                        setup, teardown),
        cmocka_unit_test(damaged_table_reports_which_blob),
        cmocka_unit_test(append_after_copy_of_one),
        cmocka_unit_test(decoded_texts_share_one_block),
        cmocka_unit_test(range_decoded_into_one_block),
        cmocka_unit_test(table_set_over_whatever_the_struct_held),
        cmocka_unit_test(pairs_permuted_by_positions),
        cmocka_unit_test(agreement_whatever_the_order),
        cmocka_unit_test(encodes_as_the_encoding),
        cmocka_unit_test(encoded_prefix_and_the_rest_are_the_encoding),
        cmocka_unit_test(packed_texts_live_in_blocks),
    };
    return cmocka_run_group_tests_name("name_table", tests, NULL, NULL);
}
