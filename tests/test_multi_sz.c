/* The Counter/Help blob codec: every error class with its offset, lenient
 * recovery, and the byte-identity properties. */
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#include "model/multi_sz.h"

#include "alloc_hook.h"

#ifdef HAVE_ALLOC_HOOK
/* Test hook: the STRDUP_FAIL_AT-th strdup from when it was set fails as
 * out of memory (0: never); the others copy with malloc. */
static unsigned long strdup_fail_at, strdup_calls;

char *strdup(const char *s)
{
    if (strdup_fail_at && ++strdup_calls == strdup_fail_at) {
        errno = ENOMEM;
        return NULL;
    }
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
#endif

/* A u"" literal's bytes, its implicit final NUL included: u"2\0A\0" is
 * the blob "2", "A", list end. Tests run on little-endian hosts, where
 * char16_t arrays are UTF-16LE. */
#define BLOB(lit) ((const uint8_t *)(lit)), sizeof(lit)

static void expect_error(const uint8_t *b, size_t len, enum rt_msz_status st,
                         size_t offset)
{
    struct rt_pair *p = (void *)1;
    size_t n = 99;
    struct rt_msz_error e;
    assert_int_equal(rt_multi_sz_decode(b, len, 0, &p, &n, &e), -1);
    assert_int_equal(e.status, st);
    assert_int_equal(e.offset, offset);
    assert_null(p);
    assert_int_equal(n, 0);
}

static void decodes_pairs(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n;
    struct rt_msz_error e;
    assert_int_equal(rt_multi_sz_decode(BLOB(u"1\0" "1847\0" "2\0System\0"
                                             "4\0\x0420\x0430\x043c\x044f\x0442\x044c\0"),
                                        0, &p, &n, &e), 0);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].index, 1);
    assert_string_equal(p[0].text, "1847");
    assert_int_equal(p[1].index, 2);
    assert_string_equal(p[1].text, "System");
    assert_int_equal(p[2].index, 4);
    assert_string_equal(p[2].text, "\xd0\xa0\xd0\xb0\xd0\xbc\xd1\x8f\xd1\x82\xd1\x8c");
    assert_int_equal(p[2].text_len, 12);
    rt_pairs_free(p, n);
}

static void empty_blobs_are_empty_tables(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n = 7;
    struct rt_msz_error e;
    assert_int_equal(rt_multi_sz_decode(NULL, 0, 0, &p, &n, &e), 0);
    assert_int_equal(n, 0);
    assert_int_equal(rt_multi_sz_decode(BLOB(u""), 0, &p, &n, &e), 0);
    assert_int_equal(n, 0);
    uint8_t *b;
    size_t len;
    assert_int_equal(rt_multi_sz_encode(NULL, 0, &b, &len), 0);
    assert_int_equal(len, 2);
    assert_int_equal(b[0] | b[1], 0);
    free(b);
}

static void each_error_class_has_its_offset(void **state)
{
    (void)state;
    /* Odd byte length: the stray byte is the last. */
    uint8_t odd[] = {'2', 0, 0, 0, 'A', 0, 0, 0, 0, 0, 0};
    expect_error(odd, sizeof odd, RT_MSZ_ODD_LENGTH, 10);

    /* The last string is not terminated. */
    static const char16_t unterminated[] = {'2', 0, 'A', 'B'};
    expect_error((const uint8_t *)unterminated, sizeof unterminated,
                 RT_MSZ_NO_TERMINATOR, 4);
    /* Strings terminated, list terminator missing: offset is the end. */
    static const char16_t no_list_nul[] = {'2', 0, 'A', 0};
    expect_error((const uint8_t *)no_list_nul, sizeof no_list_nul,
                 RT_MSZ_NO_TERMINATOR, 8);

    /* An empty string where an index belongs, before the list end. */
    expect_error(BLOB(u"2\0A\0\0" "4\0B\0"), RT_MSZ_EMPTY_INDEX, 8);
    expect_error(BLOB(u"2\0A\0" "4x\0B\0"), RT_MSZ_BAD_INDEX, 8);
    expect_error(BLOB(u"2\0A\0" "-4\0B\0"), RT_MSZ_BAD_INDEX, 8);
    expect_error(BLOB(u"2\0A\0" " 4\0B\0"), RT_MSZ_BAD_INDEX, 8);
    expect_error(BLOB(u"0\0Zero\0"), RT_MSZ_INDEX_ZERO, 0);
    expect_error(BLOB(u"2\0A\0" "000\0B\0"), RT_MSZ_INDEX_ZERO, 8);
    expect_error(BLOB(u"2\0A\0" "2147483649\0B\0"), RT_MSZ_INDEX_RANGE, 8);
    expect_error(BLOB(u"2\0A\0" "99999999999999999999\0B\0"),
                 RT_MSZ_INDEX_RANGE, 8);
    /* An index without its text. */
    expect_error(BLOB(u"2\0A\0" "4\0"), RT_MSZ_ODD_COUNT, 8);
    /* Unpaired surrogates, high and low, offset of the unit. */
    static const char16_t hi[] = {'2', 0, 'A', 0xD800, 'B', 0, 0};
    expect_error((const uint8_t *)hi, sizeof hi, RT_MSZ_BAD_SURROGATE, 6);
    static const char16_t lo[] = {'2', 0, 0xDC00, 0, 0};
    expect_error((const uint8_t *)lo, sizeof lo, RT_MSZ_BAD_SURROGATE, 4);

    /* Each status has its own description. */
    for (int a = RT_MSZ_OK; a <= RT_MSZ_NOMEM; a++)
        for (int b = a + 1; b <= RT_MSZ_NOMEM; b++)
            assert_string_not_equal(rt_msz_strerror(a), rt_msz_strerror(b));
}

static void largest_index_accepted(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n;
    assert_int_equal(rt_multi_sz_decode(BLOB(u"2147483648\0Top\0"), 0, &p, &n,
                                        NULL), 0);
    assert_int_equal(p[0].index, RT_INDEX_MAX);
    rt_pairs_free(p, n);
}

static void lenient_keeps_pairs_before_damage(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n;
    struct rt_msz_error e;
    /* Truncated in the middle of the third pair's text. */
    static const char16_t trunc[] = {'2', 0, 'A', 0, '4', 0, 'B', 0,
                                     '6', 0, 'C', 'C'};
    assert_int_equal(rt_multi_sz_decode((const uint8_t *)trunc, sizeof trunc,
                                        1, &p, &n, &e), -1);
    assert_int_equal(e.status, RT_MSZ_NO_TERMINATOR);
    assert_int_equal(e.offset, 20);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].text, "B");
    rt_pairs_free(p, n);

    /* Odd length plus garbage: pairs before still recovered. */
    uint8_t odd[] = {'2', 0, 0, 0, 'A', 0, 0, 0, 'x'};
    assert_int_equal(rt_multi_sz_decode(odd, sizeof odd, 1, &p, &n, &e), -1);
    assert_int_equal(n, 1);
    assert_int_equal(e.status, RT_MSZ_ODD_LENGTH);
    assert_int_equal(e.offset, 8);
    rt_pairs_free(p, n);

    assert_int_equal(rt_multi_sz_decode(BLOB(u"2\0A\0" "x\0B\0" "6\0C\0"), 1,
                                        &p, &n, &e), -1);
    assert_int_equal(e.status, RT_MSZ_BAD_INDEX);
    assert_int_equal(n, 1);
    rt_pairs_free(p, n);
}

static void assert_reencodes_identically(const uint8_t *b, size_t len)
{
    struct rt_pair *p;
    size_t n;
    assert_int_equal(rt_multi_sz_decode(b, len, 0, &p, &n, NULL), 0);
    uint8_t *out;
    size_t out_len;
    assert_int_equal(rt_multi_sz_encode(p, n, &out, &out_len), 0);
    assert_int_equal(out_len, len);
    assert_memory_equal(out, b, len);
    free(out);
    rt_pairs_free(p, n);
}

static void decode_encode_is_byte_identity(void **state)
{
    (void)state;
    assert_reencodes_identically(BLOB(u"1\0" "1847\0" "2\0System\0"
                                      "0010\0Leading zeros kept\0"
                                      "12\0\0"      /* empty text */
                                      "6\0\xD83D\xDE00 astral\0"));
}

/* A fixed-seed generator, so failures reproduce. */
static uint32_t rng_state = 12345;
static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

static void encode_decode_is_identity(void **state)
{
    (void)state;
    static const char *const words[] = {
        "Bytes Sent", "% Processor Time", "\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82",
        "\xe4\xb8\xad\xe6\x96\x87", "x;y=z", "", "\xf0\x9f\x98\x80"};
    for (int round = 0; round < 200; round++) {
        size_t n = rng() % 50;
        struct rt_pair *in = calloc(n ? n : 1, sizeof *in);
        for (size_t i = 0; i < n; i++) {
            in[i].index = 1 + rng() % RT_INDEX_MAX;
            in[i].text = strdup(words[rng() % 7]);
            in[i].text_len = strlen(in[i].text);
        }
        uint8_t *b;
        size_t len;
        assert_int_equal(rt_multi_sz_encode(in, n, &b, &len), 0);
        struct rt_pair *out;
        size_t m;
        assert_int_equal(rt_multi_sz_decode(b, len, 0, &out, &m, NULL), 0);
        assert_int_equal(m, n);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(out[i].index, in[i].index);
            assert_int_equal(out[i].text_len, in[i].text_len);
            assert_string_equal(out[i].text, in[i].text);
        }
        free(b);
        rt_pairs_free(in, n);
        rt_pairs_free(out, m);
    }
}

/* Random damage: strict decoding either fails cleanly or gives pairs that
 * re-encode to the very same bytes; lenient never crashes. The sanitizer
 * build catches out-of-range reads. */
static void mutated_blobs_never_crash(void **state)
{
    (void)state;
    static const char16_t base[] = u"1\0" "1847\0" "2\0System\0" "4\0Memory\0"
                                   "6\0% Processor Time\0";
    for (int round = 0; round < 5000; round++) {
        size_t len = sizeof base - (rng() % 4 == 0 ? rng() % 8 : 0);
        uint8_t *b = malloc(len ? len : 1);
        memcpy(b, base, len);
        int flips = 1 + rng() % 3;
        for (int f = 0; f < flips && len; f++) {
            static const uint8_t vals[] = {0, '0', '9', 'a', 0xD8, 0xDC, 0xFF};
            b[rng() % len] = vals[rng() % sizeof vals];
        }
        struct rt_pair *p;
        size_t n;
        struct rt_msz_error e;
        if (rt_multi_sz_decode(b, len, 0, &p, &n, &e) == 0) {
            assert_int_equal(e.status, RT_MSZ_OK);
            uint8_t *out;
            size_t out_len;
            assert_int_equal(rt_multi_sz_encode(p, n, &out, &out_len), 0);
            if (len > 0) {
                assert_int_equal(out_len, len);
                assert_memory_equal(out, b, len);
            }
            free(out);
            rt_pairs_free(p, n);
        } else {
            assert_true(e.offset <= len);
            assert_int_not_equal(e.status, RT_MSZ_OK);
        }
        assert_int_equal(rt_multi_sz_decode(b, len, 1, &p, &n, &e) == 0,
                         e.status == RT_MSZ_OK);
        rt_pairs_free(p, n);
        free(b);
    }
}

/* Tables held in pieces (a hive's big-data segments) scan as the whole
 * blob does: the mutated blobs above, each cut at random even offsets,
 * give the strict scan's entries when it accepts them and a refusal when
 * it does not; a piece of odd length is never scanned in place. */
static void pieces_scan_as_the_whole(void **state)
{
    (void)state;
    static const char16_t base[] = u"1\0" "1847\0" "2\0System\0" "4\0Memory\0"
                                   "6\0% Processor Time\0" "8\0\0";
    for (int round = 0; round < 5000; round++) {
        size_t len = sizeof base;
        uint8_t b[sizeof base];
        memcpy(b, base, len);
        for (int f = 0; f < (int)(rng() % 3); f++) {
            static const uint8_t vals[] = {0, '0', '9', 'a', 0xD8, 0xDC};
            b[rng() % len] = vals[rng() % sizeof vals];
        }
        const uint8_t *piece[sizeof base];
        size_t plen[sizeof base], n = 0;
        for (size_t at = 0; at < len; n++) {
            size_t l = 2 * (1 + rng() % 12);
            if (l > len - at)
                l = len - at;
            piece[n] = b + at;
            plen[n] = l;
            at += l;
        }
        struct rt_msz_entry *pe, *se;
        size_t pn, sn;
        struct rt_msz_error e;
        int whole = rt_multi_sz_scan(b, len, 0, &se, &sn, &e);
        int cut = rt_multi_sz_scan_pieces(piece, plen, n, &pe, &pn);
        assert_int_equal(cut, whole == 0 ? 0 : 1);
        if (cut == 0) {
            assert_int_equal(pn, sn);
            for (size_t i = 0; i < pn; i++) {
                assert_int_equal(pe[i].index, se[i].index);
                assert_int_equal(pe[i].at, se[i].at);
                assert_int_equal(pe[i].text, se[i].text);
                assert_int_equal(pe[i].text_bytes, se[i].text_bytes);
            }
        }
        free(pe);
        free(se);
    }
    const uint8_t *odd[] = {(const uint8_t *)base, (const uint8_t *)base + 3};
    size_t odd_len[] = {3, sizeof base - 3};
    struct rt_msz_entry *pe;
    size_t pn;
    assert_int_equal(rt_multi_sz_scan_pieces(odd, odd_len, 2, &pe, &pn), 1);
}

/* The scanner steps over long texts several units at a time: an unpaired
 * surrogate, a paired one, and a NUL are each found at every position and
 * alignment of a long text, with the offset a unit-by-unit reading gives;
 * the entries locate each pair's text exactly. */
static void long_texts_checked_at_every_alignment(void **state)
{
    (void)state;
    enum { UNITS = 40 };
    for (size_t at = 0; at < UNITS; at++)
        for (int kind = 0; kind < 4; kind++) {
            /* "2", a text of UNITS units, "4", "B", list end */
            uint16_t u[2 + UNITS + 1 + 4 + 1];
            size_t k = 0;
            u[k++] = '2';
            u[k++] = 0;
            size_t text = k;
            for (size_t i = 0; i < UNITS; i++)
                u[k++] = (uint16_t)('a' + i % 26);
            u[k++] = 0;
            u[k++] = '4'; u[k++] = 0; u[k++] = 'B'; u[k++] = 0;
            u[k++] = 0;
            size_t text_units = UNITS;
            if (kind == 0)
                u[text + at] = 0xDC00;                  /* lone low */
            else if (kind == 1)
                u[text + at] = 0xD801;                  /* lone high */
            else if (kind == 2 && at + 1 < UNITS) {
                u[text + at] = 0xD83D;                  /* a pair */
                u[text + at + 1] = 0xDE00;
            } else if (kind == 3 && at > 0) {
                u[text + at] = 0;                       /* cut short */
                text_units = at;
            }
            uint8_t b[sizeof u];
            for (size_t i = 0; i < k; i++) {
                b[2 * i] = (uint8_t)u[i];
                b[2 * i + 1] = (uint8_t)(u[i] >> 8);
            }
            struct rt_msz_entry *x = NULL;
            size_t n = 0;
            struct rt_msz_error e;
            int r = rt_multi_sz_scan(b, 2 * k, 0, &x, &n, &e);
            int lone = kind == 0 || (kind == 1 && at + 1 <= UNITS);
            if (lone) {
                assert_int_equal(r, -1);
                assert_int_equal(e.status, RT_MSZ_BAD_SURROGATE);
                assert_int_equal(e.offset, 2 * (text + at));
            } else if (kind == 3 && at > 0) {
                /* The NUL ends the text early: the rest reads as a pair
                 * whose index is not decimal (or empty, when the rest is
                 * the text's own NUL). */
                assert_int_equal(r, -1);
                assert_int_equal(e.status, at + 1 == UNITS
                                               ? RT_MSZ_EMPTY_INDEX
                                               : RT_MSZ_BAD_INDEX);
                assert_int_equal(e.offset, 2 * (text + at + 1));
            } else {
                assert_int_equal(r, 0);
                assert_int_equal(n, 2);
                assert_int_equal(x[0].index, 2);
                assert_int_equal(x[0].text, 2 * text);
                assert_int_equal(x[0].text_bytes, 2 * text_units);
                assert_int_equal(x[1].index, 4);
                assert_int_equal(x[1].text_bytes, 2);
            }
            free(x);
        }
}

/* Salvage keeps every valid pair, also after the damage, and gives what
 * strict decoding gives for a valid blob. */
static void salvage_keeps_pairs_after_damage(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n, dropped;
    /* A garbage string, an index without text, an embedded NUL that
     * splits a text, a last text cut (no NUL): the good pairs around
     * them, and never the cut text, whose index is named. */
    static const char16_t b1[] = u"2\0System\0" "junk\0" "4\0Memory\0"
                                 "6\0\0" "8\0Pro\0cessor\0" "10\0Disk";
    uint32_t cut;
    assert_int_equal(rt_multi_sz_salvage(BLOB(b1) - 2, &p, &n, &dropped, &cut),
                     0);
    assert_int_equal(n, 3);
    assert_int_equal(p[0].index, 2);
    assert_string_equal(p[0].text, "System");
    assert_int_equal(p[1].index, 4);
    assert_int_equal(p[2].index, 8);
    assert_string_equal(p[2].text, "Pro");
    /* "junk", the 6 without text, "cessor", and 10 with its cut text. */
    assert_int_equal(dropped, 5);
    assert_int_equal(cut, 10);
    rt_pairs_free(p, n);

    /* Cut within the index's NUL, and just after it: not named, named. */
    static const char16_t b5[] = u"2\0A\0" "14\0";
    assert_int_equal(rt_multi_sz_salvage(BLOB(b5) - 3, &p, &n, &dropped, &cut),
                     0);
    assert_int_equal(n, 1);
    assert_int_equal(cut, 0);
    rt_pairs_free(p, n);
    assert_int_equal(rt_multi_sz_salvage(BLOB(b5) - 2, &p, &n, &dropped, &cut),
                     0);
    assert_int_equal(n, 1);
    assert_int_equal(cut, 14);
    rt_pairs_free(p, n);

    /* Odd length: the last byte is ignored. */
    static const char16_t b2[] = u"2\0A\0" "4\0B\0";
    uint8_t odd[sizeof b2 + 1];
    memcpy(odd, b2, sizeof b2);
    odd[sizeof b2] = 'x';
    assert_int_equal(rt_multi_sz_salvage(odd, sizeof odd, &p, &n, &dropped, NULL), 0);
    assert_int_equal(n, 2);
    assert_string_equal(p[1].text, "B");
    rt_pairs_free(p, n);

    /* Valid blobs: the same pairs as strict decoding. */
    static const char16_t b3[] = u"1\0" "1847\0" "2\0System\0" "004\0M\0";
    struct rt_pair *q;
    size_t m;
    struct rt_msz_error e;
    assert_int_equal(rt_multi_sz_decode(BLOB(b3), 0, &q, &m, &e), 0);
    assert_int_equal(rt_multi_sz_salvage(BLOB(b3), &p, &n, &dropped, NULL), 0);
    assert_int_equal(n, m);
    assert_int_equal(dropped, 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].index, q[i].index);
        assert_string_equal(p[i].text, q[i].text);
    }
    rt_pairs_free(p, n);
    rt_pairs_free(q, m);

    /* An index with an empty text is a valid pair: kept, as decoding keeps
     * it (found by fuzz_multi_sz). */
    static const char16_t b4[] = u"2\0\0" "4\0B\0";
    assert_int_equal(rt_multi_sz_salvage(BLOB(b4), &p, &n, &dropped, NULL), 0);
    assert_int_equal(n, 2);
    assert_int_equal(dropped, 0);
    assert_int_equal(p[0].index, 2);
    assert_string_equal(p[0].text, "");
    assert_string_equal(p[1].text, "B");
    rt_pairs_free(p, n);

    /* Random damage never crashes salvage, and what it keeps re-encodes. */
    static const char16_t base[] = u"1\0" "1847\0" "2\0System\0" "4\0Memory\0";
    for (int round = 0; round < 3000; round++) {
        size_t len = sizeof base - rng() % 6;
        uint8_t *b = malloc(len);
        memcpy(b, base, len);
        for (int f = 0; f < 1 + (int)(rng() % 3); f++)
            b[rng() % len] = (uint8_t)(rng() % 3 ? 0 : 0xD8);
        assert_int_equal(rt_multi_sz_salvage(b, len, &p, &n, &dropped, NULL), 0);
        uint8_t *out;
        size_t out_len;
        assert_int_equal(rt_multi_sz_encode(p, n, &out, &out_len), 0);
        free(out);
        rt_pairs_free(p, n);
        free(b);
    }
}

#ifdef HAVE_ALLOC_HOOK
/* Memory running out while a table's pairs are listed is reported as out
 * of memory, strict or lenient, with no pairs: never a table cut short
 * at the pair where it ran out and taken for the whole (a table read so
 * and written back would lose every pair after it). Each growth of the
 * list fails in turn. */
static void out_of_memory_is_reported_not_a_shorter_table(void **state)
{
    (void)state;
    enum { PAIRS = 200 };
    uint8_t blob[PAIRS * 32 + 2];
    size_t len = 0;
    for (unsigned i = 0; i < PAIRS; i++) {
        char text[32];
        int tl = snprintf(text, sizeof text, "%u%cName %u%c", 2 * i + 2, 0,
                          i, 0);
        for (int k = 0; k < tl; k++) {
            blob[len++] = (uint8_t)text[k];
            blob[len++] = 0;
        }
    }
    blob[len++] = 0;
    blob[len++] = 0;
    struct rt_msz_entry *x;
    size_t n;
    struct rt_msz_error e;
    alloc_calls = 0;
    assert_int_equal(rt_multi_sz_scan(blob, len, 0, &x, &n, &e), 0);
    assert_int_equal(n, PAIRS);
    free(x);
    unsigned long growths = alloc_calls;
    /* Under valgrind, whose allocator takes realloc over in every object
     * (this hook's included), no call reaches the hook: nothing to fail.
     * The plain and sanitizer builds run it. */
    if (growths == 0)
        skip();
    /* The last call gives back the room grown beyond the entries; its
     * failure costs nothing: the table as it is, whole, in the array as
     * grown. */
    assert_true(growths >= 3);
    growths--;
    for (int lenient = 0; lenient < 2; lenient++) {
        alloc_calls = 0;
        alloc_fail_at = growths + 1;
        int r = rt_multi_sz_scan(blob, len, lenient, &x, &n, &e);
        alloc_fail_at = 0;
        assert_int_equal(r, 0);
        assert_int_equal(n, PAIRS);
        assert_int_equal(x[PAIRS - 1].index, 2 * PAIRS);
        free(x);
    }
    for (unsigned long k = 1; k <= growths; k++)
        for (int lenient = 0; lenient < 2; lenient++) {
            x = (void *)1;
            n = 99;
            alloc_calls = 0;
            alloc_fail_at = k;
            int r = rt_multi_sz_scan(blob, len, lenient, &x, &n, &e);
            alloc_fail_at = 0;
            if (r != -1 || e.status != RT_MSZ_NOMEM)
                fail_msg("growth %lu of %lu failed%s: returned %d, %s, %zu "
                         "pairs", k, growths, lenient ? " (lenient)" : "", r,
                         rt_msz_strerror(e.status), n);
            assert_null(x);
            assert_int_equal(n, 0);
            struct rt_pair *p = (void *)1;
            alloc_calls = 0;
            alloc_fail_at = k;
            r = rt_multi_sz_decode(blob, len, lenient, &p, &n, &e);
            alloc_fail_at = 0;
            assert_int_equal(r, -1);
            assert_int_equal(e.status, RT_MSZ_NOMEM);
            assert_null(p);
            assert_int_equal(n, 0);
        }
}
#endif

#ifdef HAVE_ALLOC_HOOK
/* A pair whose index is spelled otherwise than its value ("0012") keeps
 * that spelling when copied (a table written back keeps its bytes); when
 * there is no memory for it, the copy fails as out of memory rather than
 * giving a pair that would be written "12". */
static void pair_copy_keeps_the_index_spelling_or_fails(void **state)
{
    (void)state;
    struct rt_pair *p;
    size_t n;
    struct rt_msz_error e;
    assert_int_equal(rt_multi_sz_decode(BLOB(u"0012\0Twelve\0"), 0, &p, &n,
                                        &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(p[0].index, 12);
    assert_string_equal(p[0].index_raw, "0012");
    struct rt_pair copy;
    assert_int_equal(rt_pair_copy(&copy, &p[0]), 0);
    assert_string_equal(copy.index_raw, "0012");
    assert_string_equal(copy.text, "Twelve");
    rt_pair_free(&copy);
    strdup_calls = 0;
    strdup_fail_at = 1;
    int r = rt_pair_copy(&copy, &p[0]);
    strdup_fail_at = 0;
    assert_int_equal(strdup_calls, 1);
    if (r == 0)
        fail_msg("copied without its index's spelling: '%s'",
                 copy.index_raw ? copy.index_raw : "(none)");
    rt_pairs_free(p, n);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(decodes_pairs),
        cmocka_unit_test(empty_blobs_are_empty_tables),
        cmocka_unit_test(each_error_class_has_its_offset),
        cmocka_unit_test(largest_index_accepted),
        cmocka_unit_test(lenient_keeps_pairs_before_damage),
        cmocka_unit_test(decode_encode_is_byte_identity),
        cmocka_unit_test(encode_decode_is_identity),
        cmocka_unit_test(mutated_blobs_never_crash),
        cmocka_unit_test(salvage_keeps_pairs_after_damage),
        cmocka_unit_test(long_texts_checked_at_every_alignment),
        cmocka_unit_test(pieces_scan_as_the_whole),
#ifdef HAVE_ALLOC_HOOK
        cmocka_unit_test(out_of_memory_is_reported_not_a_shorter_table),
        cmocka_unit_test(pair_copy_keeps_the_index_spelling_or_fails),
#endif
    };
    return cmocka_run_group_tests_name("multi_sz", tests, NULL, NULL);
}
