/* Text from a hostile tree as a terminal may show it (model/printable.h):
 * every character a terminal acts on becomes a visible escape, every
 * other character, ASCII or not, is kept; the bounded forms cut at whole
 * escapes; escaping twice changes nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/printable.h"
#include "model/strbuf.h"

static void expect_shown(const char *raw, const char *shown)
{
    char *d = rt_text_printable_dup(raw);
    assert_non_null(d);
    assert_string_equal(d, shown);
    assert_int_equal(rt_text_is_printable(raw), strcmp(raw, shown) == 0);
    /* Its own escaped form. */
    assert_true(rt_text_is_printable(d));
    char *again = rt_text_printable_dup(d);
    assert_string_equal(again, d);
    free(again);
    free(d);
}

static void control_characters_are_escaped(void **state)
{
    (void)state;
    expect_shown("Evil\x1b]0;pwned\x07", "Evil\\x1b]0;pwned\\x07");
    expect_shown("a\x1b[2Jb", "a\\x1b[2Jb");
    expect_shown("x\n0 errors, 0 warnings", "x\\n0 errors, 0 warnings");
    expect_shown("\r\t\x01\x7f", "\\r\\t\\x01\\x7f");
    /* C1 controls, as UTF-8: U+009B is the one-byte CSI. */
    expect_shown("\xc2\x9b" "2J\xc2\x80\xc2\x9f", "\\u009b2J\\u0080\\u009f");
}

static void bidi_overrides_and_separators_are_escaped(void **state)
{
    (void)state;
    /* U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LRI, U+2069 PDI, U+202A LRE,
     * U+2028 LINE SEPARATOR. */
    expect_shown("exe.\xe2\x80\xae" "txt", "exe.\\u202etxt");
    expect_shown("\xe2\x81\xa6x\xe2\x81\xa9\xe2\x80\xaa\xe2\x80\xa8",
                 "\\u2066x\\u2069\\u202a\\u2028");
    expect_shown("\xe2\x80\xa9", "\\u2029");
    /* Their neighbours are ordinary text: U+2027 HYPHENATION POINT,
     * U+202F NARROW NO-BREAK SPACE, U+2070 SUPERSCRIPT ZERO. */
    expect_shown("\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xb0",
                 "\xe2\x80\xa7\xe2\x80\xaf\xe2\x81\xb0");
}

static void hidden_format_characters_are_escaped(void **state)
{
    (void)state;
    /* The marks that reorder text: U+200E LRM, U+200F RLM, U+061C ALM. */
    expect_shown("a\xe2\x80\x8e" "b\xe2\x80\x8f" "c\xd8\x9c",
                 "a\\u200eb\\u200fc\\u061c");
    /* The zero-width ones, which make "Perf<ZWSP>OS" look like "PerfOS":
     * U+200B..U+200D, U+2060 WORD JOINER, U+FEFF, U+00AD SOFT HYPHEN. */
    expect_shown("Perf\xe2\x80\x8bOS", "Perf\\u200bOS");
    expect_shown("\xe2\x80\x8c\xe2\x80\x8d\xe2\x81\xa0\xef\xbb\xbf\xc2\xad",
                 "\\u200c\\u200d\\u2060\\ufeff\\u00ad");
    /* Other format characters and default-ignorables: U+206A, U+FFF9
     * (interlinear annotation), U+FE0F VARIATION SELECTOR-16, U+3164
     * HANGUL FILLER, U+180E. */
    expect_shown("\xe2\x81\xaa\xef\xbf\xb9\xef\xb8\x8f\xe3\x85\xa4\xe1\xa0\x8e",
                 "\\u206a\\ufff9\\ufe0f\\u3164\\u180e");
    /* Past the BMP: U+E0041 TAG LATIN CAPITAL LETTER A (hides ASCII
     * text), U+1D173 MUSICAL SYMBOL BEGIN BEAM. */
    expect_shown("x\xf3\xa0\x81\x81y\xf0\x9d\x85\xb3",
                 "x\\U000e0041y\\U0001d173");
    /* Their neighbours are ordinary text: U+00AC, U+00AE, U+200A HAIR
     * SPACE, U+2010 HYPHEN, U+FEFE, U+FFFC, U+E1000 (unassigned). */
    const char *kept = "\xc2\xac\xc2\xae\xe2\x80\x8a\xe2\x80\x90\xef\xbb\xbe"
                       "\xef\xbf\xbc\xf3\xa1\x80\x80";
    expect_shown(kept, kept);
}

static void ordinary_text_is_kept(void **state)
{
    (void)state;
    /* French, Russian, Chinese, Greek, Hebrew, Arabic, Japanese counter
     * names, a Windows path, an emoji, U+00A0 just past the C1 block. */
    const char *kept[] = {
        "Caf\xc3\xa9 \xc3\xa0 d\xc3\xa9" "bit",
        "\xd0\xa1\xd1\x87\xd1\x91\xd1\x82\xd1\x87\xd0\xb8\xd0\xba",
        "\xe8\xae\xa1\xe6\x95\xb0\xe5\x99\xa8",
        "C:\\Windows\\System32\\perfos.dll",
        "\xf0\x9f\x98\x80 \xc2\xa0",
        "\xce\x95\xcf\x80\xce\xb5\xce\xbe\xce\xb5\xcf\x81\xce\xb3\xce\xb1\xcf\x83\xcf\x84\xce\xae\xcf\x82",
        "\xd7\x9e\xd7\xa2\xd7\x91\xd7\x93",
        "\xd9\x85\xd8\xb9\xd8\xa7\xd9\x84\xd8\xac",
        "\xe3\x83\x97\xe3\x83\xad\xe3\x82\xbb\xe3\x83\x83\xe3\x82\xb5",
        "",
    };
    for (size_t i = 0; i < sizeof kept / sizeof kept[0]; i++)
        expect_shown(kept[i], kept[i]);
}

static void bytes_of_no_utf8_sequence_are_escaped(void **state)
{
    (void)state;
    /* A lone CSI byte, a stray continuation, an overlong '/', an encoded
     * surrogate, a sequence cut by the end: each byte alone. */
    expect_shown("\x9b" "2J", "\\x9b2J");
    expect_shown("a\x80", "a\\x80");
    expect_shown("\xc0\xaf", "\\xc0\\xaf");
    expect_shown("\xed\xa0\x80", "\\xed\\xa0\\x80");
    expect_shown("x\xe2\x80", "x\\xe2\\x80");
    expect_shown("\xff\xfe", "\\xff\\xfe");
}

static void each_character_alone(void **state)
{
    (void)state;
    char out[RT_PRINTABLE_MAX];
    size_t used;
    assert_int_equal(rt_printable_char("\x1b[", out, &used), 4);
    assert_int_equal(used, 1);
    assert_memory_equal(out, "\\x1b", 4);
    assert_int_equal(rt_printable_char("\xe2\x80\xae!", out, &used), 6);
    assert_int_equal(used, 3);
    assert_memory_equal(out, "\\u202e", 6);
    assert_int_equal(rt_printable_char("\xf3\xa0\x81\x81", out, &used), 10);
    assert_int_equal(used, 4);
    assert_memory_equal(out, "\\U000e0041", 10);
    assert_int_equal(rt_printable_char("\xe8\xae\xa1", out, &used), 3);
    assert_int_equal(used, 3);
    assert_memory_equal(out, "\xe8\xae\xa1", 3);
    uint32_t cp;
    assert_int_equal(rt_printable_unsafe("\xc2\x9b", &cp, &used), 1);
    assert_int_equal(cp, 0x9B);
    assert_int_equal(rt_printable_unsafe("\x9b", &cp, &used), 1);
    assert_int_equal(cp, RT_PRINTABLE_BAD_BYTE | 0x9B);
    assert_int_equal(rt_printable_unsafe("\xc3\xa9", &cp, &used), 0);
    assert_int_equal(cp, 0xE9);
    assert_int_equal(used, 2);
}

static void bounded_form_cuts_at_whole_escapes(void **state)
{
    (void)state;
    char buf[8];
    /* "ab\x1b" + "cd": "ab\\x1bcd" is 8 bytes; 7 fit with the NUL. */
    assert_int_equal(rt_text_printable(buf, sizeof buf, "ab\x1b" "cd"), 8);
    assert_string_equal(buf, "ab\\x1bc");
    /* An escape that does not fit is left out whole, and nothing after. */
    assert_int_equal(rt_text_printable(buf, 5, "ab\x1b" "c"), 7);
    assert_string_equal(buf, "ab");
    assert_int_equal(rt_text_printable(buf, 4, "\xe8\xae\xa1x"), 4);
    assert_string_equal(buf, "\xe8\xae\xa1");
    assert_int_equal(rt_text_printable(buf, 3, "\xe8\xae\xa1"), 3);
    assert_string_equal(buf, "");
    /* CAP 0: nothing written, the length told. */
    assert_int_equal(rt_text_printable(NULL, 0, "\xe2\x80\xae"), 6);
    /* At most RT_PRINTABLE_MAX bytes for each byte of the text. */
    char worst[64];
    memset(worst, '\x1b', sizeof worst - 1);
    worst[sizeof worst - 1] = '\0';
    assert_true(rt_text_printable(NULL, 0, worst) <=
                RT_PRINTABLE_MAX * strlen(worst));
}

static void appended_to_a_strbuf(void **state)
{
    (void)state;
    struct rt_strbuf b = {0};
    rt_strbuf_append(&b, "[", 1);
    rt_strbuf_append_printable(&b, "Caf\xc3\xa9\n\x1b]0;x\x07");
    rt_strbuf_append(&b, "]", 1);
    char *s = rt_strbuf_take(&b);
    assert_string_equal(s, "[Caf\xc3\xa9\\n\\x1b]0;x\\x07]");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(control_characters_are_escaped),
        cmocka_unit_test(bidi_overrides_and_separators_are_escaped),
        cmocka_unit_test(hidden_format_characters_are_escaped),
        cmocka_unit_test(ordinary_text_is_kept),
        cmocka_unit_test(bytes_of_no_utf8_sequence_are_escaped),
        cmocka_unit_test(each_character_alone),
        cmocka_unit_test(bounded_form_cuts_at_whole_escapes),
        cmocka_unit_test(appended_to_a_strbuf),
    };
    return cmocka_run_group_tests_name("printable", tests, NULL, NULL);
}
