/* UTF-16LE <-> UTF-8 conversion and case folding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/utf16.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(roundtrip_bmp_and_astral),
        cmocka_unit_test(unpaired_surrogates_rejected_with_offset),
        cmocka_unit_test(invalid_utf8_rejected),
        cmocka_unit_test(case_insensitive_compare),
    };
    return cmocka_run_group_tests_name("utf16", tests, NULL, NULL);
}
