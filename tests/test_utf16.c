/* UTF-16LE <-> UTF-8 conversion and case folding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/multi_sz.h"
#include "model/utf16.h"
#include "under_valgrind.h"

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>

/* Test hook: the size last asked of malloc or realloc, and the block it
 * gave. These definitions take the C library's malloc and realloc over
 * in the test program (and the library linked into it) and hand every
 * call to the next one (the C library's, or a sanitizer's). */
static volatile size_t last_size;
static void *volatile last_block;

void *malloc(size_t n)
{
    static void *(*next)(size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "malloc");
    void *p = next(n);
    last_size = n;
    last_block = p;
    return p;
}

void *realloc(void *p, size_t n)
{
    static void *(*next)(void *, size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "realloc");
    void *q = next(p, n);
    last_size = n;
    last_block = q;
    return q;
}
#define HAVE_REALLOC_HOOK 1
#endif

static void roundtrip_bmp_and_astral(void **state)
{
    (void)state;
    const char *s = "Bytes \xd0\x9f\xd1\x80\xd0\xb8 \xe4\xb8\xad \xf0\x9f\x98\x80";
    uint8_t *u16; size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(s, strlen(s), &u16, &n, &off), 0);
    assert_int_equal(n, 2 * (6 + 3 + 1 + 1 + 1 + 2));
    char *back; size_t blen;
    assert_int_equal(rt_utf16le_to_utf8(u16, n, &back, &blen, &off), 0);
    assert_int_equal(blen, strlen(s));
    assert_string_equal(back, s);
    free(u16);
    free(back);
}

static void unpaired_surrogates_rejected_with_offset(void **state)
{
    (void)state;
    const uint8_t lone_high[] = {'a', 0, 0x00, 0xD8, 'b', 0};
    const uint8_t lone_low[] = {'a', 0, 'b', 0, 0x00, 0xDC};
    char *out; size_t off = 99;
    assert_int_equal(rt_utf16le_to_utf8(lone_high, 6, &out, NULL, &off), -1);
    assert_int_equal(off, 2);
    assert_int_equal(rt_utf16le_to_utf8(lone_low, 6, &out, NULL, &off), -1);
    assert_int_equal(off, 4);
    const uint8_t high_at_end[] = {0x3D, 0xD8};
    assert_int_equal(rt_utf16le_to_utf8(high_at_end, 2, &out, NULL, &off), -1);
    assert_int_equal(off, 0);
}

static void invalid_utf8_rejected(void **state)
{
    (void)state;
    uint8_t *o; size_t n, off = 99;
    assert_int_equal(rt_utf8_to_utf16le("ab\xc0\xaf", 4, &o, &n, &off), -1);
    assert_int_equal(off, 2);                       /* overlong */
    assert_int_equal(rt_utf8_to_utf16le("\xed\xa0\x80", 3, &o, &n, &off), -1);
    assert_int_equal(off, 0);                       /* encoded surrogate */
    assert_int_equal(rt_utf8_to_utf16le("x\xe4\xb8", 3, &o, &n, &off), -1);
    assert_int_equal(off, 1);                       /* truncated */
}

/* The last code point, U+10FFFF, is text; U+110000, one past it (a
 * four-byte form UTF-8 does not allow), is not, nor is a surrogate's
 * neighbour counted wrongly: each edge exactly. */
static void code_point_edges(void **state)
{
    (void)state;
    static const struct {
        const char *s;
        uint32_t cp;                /* 0: invalid */
    } cases[] = {
        {"\xf4\x8f\xbf\xbf", 0x10FFFF}, {"\xf4\x90\x80\x80", 0},
        {"\xed\x9f\xbf", 0xD7FF},       {"\xed\xa0\x80", 0},
        {"\xed\xbf\xbf", 0},            {"\xee\x80\x80", 0xE000},
        {"\xf0\x90\x80\x80", 0x10000},  {"\xf0\x8f\xbf\xbf", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const unsigned char *u = (const unsigned char *)cases[i].s;
        size_t len = strlen(cases[i].s);
        uint32_t cp = 0;
        size_t got = rt_utf8_decode_one(u, len, &cp);
        if (cases[i].cp) {
            assert_int_equal(got, len);
            assert_int_equal(cp, cases[i].cp);
        } else if (got != 0) {
            fail_msg("case %zu decoded to U+%04X", i, (unsigned)cp);
        }
        uint8_t *o;
        size_t n, off = 99;
        int r = rt_utf8_to_utf16le(cases[i].s, len, &o, &n, &off);
        assert_int_equal(r, cases[i].cp ? 0 : -1);
        if (r == 0)
            free(o);
    }
}

/* ASCII is taken eight bytes (and eight UTF-16 units) at a time: a
 * character beyond ASCII, and an invalid sequence, after every length of
 * ASCII before it (across and within the steps) and with every length
 * after it, give the same UTF-16 (and back the same UTF-8, of the length
 * a table's decoder reserves for it) and the same offset as a character
 * at a time would. */
static void ascii_runs_at_every_alignment(void **state)
{
    (void)state;
    static const struct {
        const char *utf8;
        uint8_t u16[4];
        size_t n16;
    } other[] = {{"\xc3\xa9", {0xE9, 0}, 2},
                 {"\xe2\x82\xac", {0xAC, 0x20}, 2},
                 {"\xf0\x90\x90\xb7", {0x01, 0xD8, 0x37, 0xDC}, 4}};
    char buf[64];
    uint8_t want[128];
    for (size_t c = 0; c < sizeof other / sizeof *other; c++)
        for (size_t pre = 0; pre <= 24; pre++)
            for (size_t post = 0; post <= 17; post++) {
                size_t cl = strlen(other[c].utf8), len = 0, wn = 0;
                for (size_t i = 0; i < pre; i++, wn += 2) {
                    buf[len++] = (char)('a' + i % 26);
                    want[wn] = (uint8_t)('a' + i % 26);
                    want[wn + 1] = 0;
                }
                memcpy(buf + len, other[c].utf8, cl);
                len += cl;
                memcpy(want + wn, other[c].u16, other[c].n16);
                wn += other[c].n16;
                for (size_t i = 0; i < post; i++, wn += 2) {
                    buf[len++] = (char)('0' + i % 10);
                    want[wn] = (uint8_t)('0' + i % 10);
                    want[wn + 1] = 0;
                }
                uint8_t *u16;
                size_t n, off = 99;
                assert_int_equal(rt_utf8_validate(buf, len, &off), 0);
                assert_int_equal(rt_utf8_to_utf16le(buf, len, &u16, &n, &off), 0);
                assert_int_equal(n, wn);
                assert_memory_equal(u16, want, wn);
                free(u16);
                char *back;
                size_t blen = 0;
                assert_int_equal(rt_utf16le_to_utf8(want, wn, &back, &blen, &off), 0);
                assert_int_equal(blen, len);
                assert_memory_equal(back, buf, len);
                free(back);
                struct rt_msz_entry e = {.text = 0, .text_bytes = (uint32_t)wn};
                assert_true(rt_msz_entry_text_bound(&e) >= len);
                /* A lone low surrogate in the character's place. */
                uint8_t lone[128];
                memcpy(lone, want, wn);
                lone[2 * pre] = 0x00;
                lone[2 * pre + 1] = 0xDC;
                off = 99;
                assert_int_equal(rt_utf16le_to_utf8(lone, wn, &back, &blen, &off), -1);
                assert_int_equal(off, 2 * pre);
                /* The character cut short, and an overlong form in its
                 * place: refused at its first byte. */
                assert_int_equal(rt_utf8_validate(buf, pre + cl - 1, &off), -1);
                assert_int_equal(off, pre);
                memcpy(buf + pre, "\xc0\xaf", 2);
                assert_int_equal(rt_utf8_validate(buf, len, &off), -1);
                assert_int_equal(off, pre);
                off = 99;
                assert_int_equal(rt_utf8_to_utf16le(buf, len, &u16, &n, &off), -1);
                assert_int_equal(off, pre);
                /* A byte that starts nothing, alone among ASCII. */
                buf[pre] = '\xff';
                memset(buf + pre + 1, 'x', cl - 1);
                assert_int_equal(rt_utf8_validate(buf, len, &off), -1);
                assert_int_equal(off, pre);
                off = 99;
                assert_int_equal(rt_utf8_to_utf16le(buf, len, &u16, &n, &off), -1);
                assert_int_equal(off, pre);
            }
}

/* The encoder decodes two- and three-byte forms in place, apart from
 * rt_utf8_decode_one: every two-byte sequence, and every three-byte one
 * of the E0-EF leads with the continuation bytes' edges, must give what
 * the one-character decoder says (the same character, or refused at
 * the same byte), with ASCII before it and after. */
static void short_forms_match_the_one_character_decoder(void **state)
{
    (void)state;
    static const uint8_t edges[] = {0x00, 0x41, 0x7F, 0x80, 0x81, 0x9F,
                                    0xA0, 0xBF, 0xC0, 0xE0, 0xFF};
    uint8_t out[32];
    for (unsigned lead = 0x80; lead <= 0xEF; lead++)
        for (unsigned b1 = 0; b1 < 256; b1++)
            for (size_t e = 0; e < (lead >= 0xE0 ? sizeof edges : 1); e++) {
                char in[16] = "ab";
                size_t len = 2;
                in[len++] = (char)lead;
                in[len++] = (char)b1;
                if (lead >= 0xE0)
                    in[len++] = (char)edges[e];
                size_t body = len - 2;
                memcpy(in + len, "yz", 2);
                len += 2;
                uint32_t cp = 0;
                size_t k = rt_utf8_decode_one((const unsigned char *)in + 2,
                                              body, &cp);
                size_t n = 0, off = 99;
                int r = rt_utf8_to_utf16le_into(in, len, out, &n, &off);
                if (k != body || cp >= 0x10000) {
                    /* Refused, or a form the test does not build whole:
                     * the decoder's answer on the first character. */
                    if (!k) {
                        assert_int_equal(r, -1);
                        assert_int_equal(off, 2);
                    }
                    continue;
                }
                assert_int_equal(r, 0);
                assert_int_equal(n, 10);
                assert_int_equal(out[4] | out[5] << 8, cp);
                assert_memory_equal(out, "a\0b\0", 4);
                assert_memory_equal(out + 6, "y\0z\0", 4);
            }
}

static void case_insensitive_compare(void **state)
{
    (void)state;
    assert_int_equal(rt_utf8_casecmp("Bytes Sent", 10, "BYTES SENT", 10), 0);
    /* Cyrillic: "Байт" vs "БАЙТ" */
    const char *a = "\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82";
    const char *b = "\xd0\x91\xd0\x90\xd0\x99\xd0\xa2";
    assert_int_equal(rt_utf8_casecmp(a, strlen(a), b, strlen(b)), 0);
    assert_true(rt_utf8_casecmp("abc", 3, "abd", 3) < 0);
    assert_true(rt_utf8_casecmp("ab", 2, "abc", 3) < 0);
    assert_int_equal(rt_upcase16(0x451), 0x401);    /* ё -> Ё */
    assert_int_equal(rt_upcase16(0xE9), 0xC9);      /* é -> É */
    assert_int_equal(rt_upcase16(0x4E2D), 0x4E2D);  /* CJK unchanged */
}

/* The upper case Windows gives each UTF-16 unit (RtlUpcaseUnicodeChar):
 * every script of its table, not Latin-1, Latin Extended-A, Greek and
 * Cyrillic alone; the letters it leaves in their own case stay. */
static void upcase_covers_windows_scripts(void **state)
{
    (void)state;
    static const uint16_t pairs[][2] = {
        {0x3CC, 0x38C},     /* ό -> Ό (tonos) */
        {0x3CE, 0x38F},     /* ώ -> Ώ */
        {0x3C2, 0x3A3},     /* ς -> Σ: final sigma as sigma */
        {0x1F00, 0x1F08},   /* ἀ -> Ἀ (Greek Extended) */
        {0x1EA1, 0x1EA0},   /* ạ -> Ạ (Vietnamese) */
        {0x1EF9, 0x1EF8},   /* ỹ -> Ỹ */
        {0x1C6, 0x1C4},     /* ǆ -> Ǆ */
        {0x253, 0x181},     /* ɓ -> Ɓ */
        {0x561, 0x531},     /* ա -> Ա (Armenian) */
        {0x2D00, 0x10A0},   /* ⴀ -> Ⴀ (Georgian Nuskhuri) */
        {0x2C30, 0x2C00},   /* Glagolitic */
        {0x2C81, 0x2C80},   /* Coptic */
        {0x4D1, 0x4D0},     /* ӑ -> Ӑ */
        {0x50F, 0x50E},     /* Cyrillic Supplement */
        {0x24D0, 0x24B6},   /* ⓐ -> Ⓐ */
        {0x2170, 0x2160},   /* ⅰ -> Ⅰ */
        {0xFF41, 0xFF21},   /* ａ -> Ａ */
        {0xFF, 0x178},      /* ÿ -> Ÿ */
        {0x23A, 0x2C65},    /* Windows keeps the small ⱥ as the common form */
        {0x2C65, 0x2C65},
        /* Their own case in Windows' table: */
        {0xB5, 0xB5},       /* µ (not Μ) */
        {0x131, 0x131},     /* ı (not I) */
        {0x17F, 0x17F},     /* ſ (not S) */
        {0x1C5, 0x1C5},     /* ǅ titlecase */
        {0x3D0, 0x3D0},     /* ϐ */
        {0x10D0, 0x10D0},   /* ა: Mkhedruli has no capitals in it */
        {0xAB70, 0xAB70},   /* Cherokee small letters: later than it */
        {0x212A, 0x212A},   /* Kelvin sign */
        {0xDF, 0xDF},       /* ß */
        {0x4E2D, 0x4E2D},
        {0xD800, 0xD800},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (rt_upcase16(pairs[i][0]) != pairs[i][1])
            fail_msg("U+%04X -> U+%04X, want U+%04X", pairs[i][0],
                     rt_upcase16(pairs[i][0]), pairs[i][1]);
    /* Over the whole BMP: upper-casing twice changes nothing more, and
     * 874 units change (as many as in Windows' table). */
    unsigned changed = 0;
    for (uint32_t c = 0; c < 0x10000; c++) {
        uint16_t u = rt_upcase16((uint16_t)c);
        assert_int_equal(rt_upcase16(u), u);
        changed += u != c;
    }
    assert_int_equal(changed, 874);
    /* Names that differ in the case of such letters compare equal:
     * "όνομα ạ" and "ΌΝΟΜΑ Ạ". */
    const char *a = "\xcf\x8c\xce\xbd\xce\xbf\xce\xbc\xce\xb1 \xe1\xba\xa1";
    const char *b = "\xce\x8c\xce\x9d\xce\x9f\xce\x9c\xce\x91 \xe1\xba\xa0";
    assert_int_equal(rt_utf8_casecmp(a, strlen(a), b, strlen(b)), 0);
    assert_int_equal(rt_utf8_casehash(a, strlen(a), 0),
                     rt_utf8_casehash(b, strlen(b), 0));
}

/* The comparison by definition: both strings as UTF-16 code units,
 * each through rt_upcase16, compared unit by unit, then by length. */
static int casecmp_reference(const char *a, size_t alen, const char *b,
                             size_t blen)
{
    uint8_t *ua, *ub;
    size_t na, nb, off;
    assert_int_equal(rt_utf8_to_utf16le(a, alen, &ua, &na, &off), 0);
    assert_int_equal(rt_utf8_to_utf16le(b, blen, &ub, &nb, &off), 0);
    int r = 0;
    size_t i;
    for (i = 0; i + 1 < na && i + 1 < nb && !r; i += 2) {
        uint16_t x = rt_upcase16((uint16_t)(ua[i] | ua[i + 1] << 8));
        uint16_t y = rt_upcase16((uint16_t)(ub[i] | ub[i + 1] << 8));
        r = x == y ? 0 : x < y ? -1 : 1;
    }
    if (!r)
        r = (na > nb) - (na < nb);
    free(ua);
    free(ub);
    return r;
}

/* Random names of ASCII letters, digits and spaces with a few non-ASCII
 * letters (Latin, Cyrillic, CJK, astral) mixed in at random places:
 * rt_utf8_casecmp (with its ASCII fast path) orders them as the
 * definition does. */
static void case_insensitive_compare_matches_definition(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "a", "A", "b", "B", "z", "Z", "0", "9", " ", "_", "\xc3\xa9", "\xc3\x89",
        "\xd0\xb1", "\xd0\x91", "\xe4\xb8\xad", "\xf0\x9f\x98\x80", "\xc3\xbf",
        "\xc5\xb8", "\x7f", "~"};
    const size_t np = sizeof pieces / sizeof *pieces;
    srand(7);
    for (int round = 0; round < 20000; round++) {
        char a[64] = "", b[64] = "";
        int la = rand() % 7, lb = rand() % 7;
        for (int k = 0; k < la; k++)
            strcat(a, pieces[rand() % np]);
        /* Often a prefix of A, changed at one place, to reach deep. */
        if (rand() % 2) {
            strcpy(b, a);
            if (lb && strlen(b))
                b[rand() % strlen(b)] = (char)("aAzZ "[rand() % 5]);
            /* A changed byte inside a multi-byte character makes invalid
             * UTF-8; the definition does not cover it. */
            uint8_t *u;
            size_t n, off;
            if (rt_utf8_to_utf16le(b, strlen(b), &u, &n, &off) != 0)
                continue;
            free(u);
        } else {
            for (int k = 0; k < lb; k++)
                strcat(b, pieces[rand() % np]);
        }
        int got = rt_utf8_casecmp(a, strlen(a), b, strlen(b));
        int want = casecmp_reference(a, strlen(a), b, strlen(b));
        if ((got > 0) - (got < 0) != want)
            fail_msg("'%s' vs '%s': %d, by definition %d", a, b, got, want);
    }
}

/* The case-insensitive hash (of the name lookups in key trees and
 * perfstats) gives names equal ignoring case (rt_utf8_casecmp) one hash,
 * astral characters and invalid bytes included, and tells these
 * different names apart: a hash of the seed alone would put every name
 * in one bucket, each lookup then a scan. */
static void case_hash_follows_the_comparison(void **state)
{
    (void)state;
    static const char *const same[][2] = {
        {"Transfer", "TRANSFER"}, {"\xd0\xbf\xd0\xb0\xd0\xbc", "\xd0\x9f\xd0\x90\xd0\x9c"},
        {"x\xf0\x9f\x98\x80", "X\xf0\x9f\x98\x80"}, {"a\xff", "A\xff"},
    };
    for (size_t i = 0; i < sizeof same / sizeof *same; i++) {
        size_t la = strlen(same[i][0]), lb = strlen(same[i][1]);
        assert_int_equal(rt_utf8_casecmp(same[i][0], la, same[i][1], lb), 0);
        assert_true(rt_utf8_casehash(same[i][0], la, 7) ==
                    rt_utf8_casehash(same[i][1], lb, 7));
    }
    static const char *const names[] = {"", "Transfer", "Peer", "009", "019",
                                        "Perflib", "Performance", "a", "b",
                                        "\xf0\x9f\x98\x80"};
    const size_t n = sizeof names / sizeof *names;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (rt_utf8_casehash(names[i], strlen(names[i]), 7) ==
                rt_utf8_casehash(names[j], strlen(names[j]), 7))
                fail_msg("'%s' and '%s' hash alike", names[i], names[j]);
}

/* Comparison is in UTF-16 code unit order, as Windows compares names: a
 * character beyond U+FFFF (a surrogate pair, 0xD83D 0xDE00 for U+1F600)
 * sorts after U+D7FF and before U+E000, and U+10000 before U+1F600. And
 * a length that ends inside a character ends the text there, whatever
 * bytes follow in memory: "x\xc3" of "x\xc3\xa9" (é) and of "x\xc3\xa8"
 * (è) are the same text, compared and hashed alike. */
static void compared_by_utf16_units_within_the_length(void **state)
{
    (void)state;
    const char *astral = "\xf0\x9f\x98\x80", *d7ff = "\xed\x9f\xbf",
               *e000 = "\xee\x80\x80", *first_astral = "\xf0\x90\x80\x80";
    assert_true(rt_utf8_casecmp(astral, 4, d7ff, 3) > 0);
    assert_true(rt_utf8_casecmp(d7ff, 3, astral, 4) < 0);
    assert_true(rt_utf8_casecmp(astral, 4, e000, 3) < 0);
    assert_true(rt_utf8_casecmp(first_astral, 4, astral, 4) < 0);
    assert_true(rt_utf8_casecmp(first_astral, 4, d7ff, 3) > 0);
    const char *e_acute = "x\xc3\xa9", *e_grave = "x\xc3\xa8";
    assert_true(rt_utf8_casecmp(e_acute, 3, e_grave, 3) != 0);
    assert_int_equal(rt_utf8_casecmp(e_acute, 2, e_grave, 2), 0);
    assert_true(rt_utf8_casehash(e_acute, 2, 7) ==
                rt_utf8_casehash(e_grave, 2, 7));
    assert_true(rt_utf8_casecmp(e_acute, 2, "x", 1) > 0);
}

#ifdef HAVE_REALLOC_HOOK
/* A decoded text holds what it uses and no more (a table is decoded
 * pair by pair: a worst-case buffer of 3 bytes a unit kept would hold
 * half as much again as the UTF-16): short texts, long ones (past the
 * stack buffer), ASCII and three-byte characters alike. */
static void expect_exact_block(const uint8_t *in, size_t len, size_t want)
{
    char *out;
    size_t n;
    last_block = NULL;
    assert_int_equal(rt_utf16le_to_utf8(in, len, &out, &n, NULL), 0);
    assert_int_equal(n, want);
    assert_int_equal(strlen(out), want);
    /* The block given back is the last one asked for, of n + 1 bytes. */
    assert_ptr_equal(last_block, out);
    assert_int_equal(last_size, want + 1);
    free(out);
}

static void decoded_text_holds_only_what_it_uses(void **state)
{
    (void)state;
    const uint8_t ascii[] = {'a', 0, 'b', 0, 'c', 0, 'd', 0};
    const uint8_t cjk[] = {0x2D, 0x4E, 0x87, 0x65, 0x2D, 0x4E};
    /* Under valgrind, whose allocator takes malloc over in the library
     * linked here (this file's own calls may still reach the hook), the
     * hook sees nothing; the plain and sanitizer runs assert this. */
    last_block = NULL;
    void *volatile probe = malloc(1);
    free(probe);
    if (!last_block || under_valgrind())
        skip();
    expect_exact_block(ascii, sizeof ascii, 4);
    expect_exact_block(cjk, sizeof cjk, 9);
    static uint8_t long_ascii[2 * 1000], long_cjk[2 * 1000];
    for (size_t i = 0; i < 1000; i++) {
        long_ascii[2 * i] = (uint8_t)('a' + i % 26);
        long_cjk[2 * i] = 0x2D;
        long_cjk[2 * i + 1] = 0x4E;
    }
    expect_exact_block(long_ascii, sizeof long_ascii, 1000);
    expect_exact_block(long_cjk, sizeof long_cjk, 3000);
    expect_exact_block(long_ascii, 2 * 255, 255);
    expect_exact_block(long_ascii, 2 * 256, 256);
}
#endif

/* A byte 0x80 alone (a continuation byte with no lead) is not text,
 * wherever it falls among ASCII: in an eight-byte step or in the bytes
 * after the last one. Validating and converting refuse it at its offset. */
static void lone_continuation_byte_rejected(void **state)
{
    (void)state;
    char buf[24];
    for (size_t pre = 0; pre < 12; pre++)
        for (size_t post = 0; post < 3; post++) {
            memset(buf, 'a', sizeof buf);
            buf[pre] = (char)0x80;
            size_t len = pre + 1 + post, off = 99;
            assert_int_equal(rt_utf8_validate(buf, len, &off), -1);
            assert_int_equal(off, pre);
            uint8_t *o;
            size_t n;
            off = 99;
            assert_int_equal(rt_utf8_to_utf16le(buf, len, &o, &n, &off), -1);
            assert_int_equal(off, pre);
        }
}

/* A character cut off by the length given is refused at its first byte,
 * even when the bytes that would complete it follow in memory (a text
 * read as a slice of a longer one): nothing past the length is decoded. */
static void character_cut_by_the_length_rejected(void **state)
{
    (void)state;
    static const char whole[] = "ab\xc3\xa9\xe2\x82\xac";   /* ab, e-acute, euro */
    static const struct { size_t len, off; } cuts[] = {
        {3, 2}, {5, 4}, {6, 4},
    };
    for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
        uint8_t *o = NULL;
        size_t n = 0, off = 99;
        assert_int_equal(rt_utf8_to_utf16le(whole, cuts[k].len, &o, &n, &off),
                         -1);
        assert_int_equal(off, cuts[k].off);
        off = 99;
        assert_int_equal(rt_utf8_validate(whole, cuts[k].len, &off), -1);
        assert_int_equal(off, cuts[k].off);
    }
    uint8_t *o = NULL;
    size_t n = 0, off = 99;
    assert_int_equal(rt_utf8_to_utf16le(whole, 4, &o, &n, &off), 0);
    assert_int_equal(n, 6);
    assert_memory_equal(o, "a\0b\0\xe9\0", 6);
    free(o);
}

/* A run of 40 ASCII units with one unit at each place in turn replaced
 * by one the fast paths must not take for ASCII (0x80, 0xFF, 0x100,
 * 0x7FF, 0x800, 0x8000, 0xFFFD, 0xFFFF: signed, saturating and masked
 * readings of a unit differ there): the whole decoded at once is the
 * units decoded one by one, byte for byte. */
static void fast_paths_decode_as_unit_by_unit(void **state)
{
    (void)state;
    static const uint16_t odd[] = {0x80,   0xFF,   0x100,  0x7FF,
                                   0x800,  0x8000, 0xFFFD, 0xFFFF};
    enum { N = 40 };
    for (size_t k = 0; k < sizeof odd / sizeof *odd; k++)
        for (size_t at = 0; at <= N; at++) {
            uint8_t in[2 * N];
            for (size_t i = 0; i < N; i++) {
                uint16_t c = i == at ? odd[k] : (uint16_t)('A' + i % 26);
                in[2 * i] = (uint8_t)c;
                in[2 * i + 1] = (uint8_t)(c >> 8);
            }
            char whole[3 * N + 1], one[3 * N + 1];
            size_t n, m = 0, got;
            assert_int_equal(rt_utf16le_to_utf8_into(in, sizeof in, whole, &n,
                                                     NULL), 0);
            for (size_t i = 0; i < N; i++) {
                assert_int_equal(rt_utf16le_to_utf8_into(in + 2 * i, 2,
                                                         one + m, &got, NULL),
                                 0);
                m += got;
            }
            assert_int_equal(n, m);
            assert_memory_equal(whole, one, n);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fast_paths_decode_as_unit_by_unit),
        cmocka_unit_test(roundtrip_bmp_and_astral),
        cmocka_unit_test(unpaired_surrogates_rejected_with_offset),
        cmocka_unit_test(invalid_utf8_rejected),
        cmocka_unit_test(lone_continuation_byte_rejected),
        cmocka_unit_test(character_cut_by_the_length_rejected),
        cmocka_unit_test(code_point_edges),
        cmocka_unit_test(short_forms_match_the_one_character_decoder),
        cmocka_unit_test(case_hash_follows_the_comparison),
        cmocka_unit_test(ascii_runs_at_every_alignment),
        cmocka_unit_test(case_insensitive_compare),
        cmocka_unit_test(upcase_covers_windows_scripts),
        cmocka_unit_test(case_insensitive_compare_matches_definition),
        cmocka_unit_test(compared_by_utf16_units_within_the_length),
#ifdef HAVE_REALLOC_HOOK
        cmocka_unit_test(decoded_text_holds_only_what_it_uses),
#endif
    };
    return cmocka_run_group_tests_name("utf16", tests, NULL, NULL);
}
