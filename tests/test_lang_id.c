/* Perflib language ids: three or four hex digits matched by value, and
 * CurrentLanguage; nothing else is a language. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "model/lang_id.h"

static void ids(void **state)
{
    (void)state;
    const char *yes[] = {"009", "00C", "00c", "804", "0804", "0416", "FFFF",
                         "CurrentLanguage", "currentlanguage"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        assert_true(rt_lang_is_id(yes[i]));
    const char *no[] = {"", "9", "09", "00804", "0x9", "00G", "_V2Providers",
                        "Current", "009 ", " 009"};
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        assert_false(rt_lang_is_id(no[i]));
    assert_false(rt_lang_is_id(NULL));
    unsigned v = 0;
    assert_int_equal(rt_lang_value("0804", &v), 0);
    assert_int_equal(v, 0x804);
    assert_int_equal(rt_lang_value("00c", &v), 0);
    assert_int_equal(v, 0xC);
    assert_int_equal(rt_lang_value("CurrentLanguage", &v), -1);
}

static void same_language(void **state)
{
    (void)state;
    assert_true(rt_lang_same("804", "0804"));
    assert_true(rt_lang_same("0416", "416"));
    assert_true(rt_lang_same("00c", "00C"));
    assert_true(rt_lang_same("CurrentLanguage", "CURRENTLANGUAGE"));
    assert_false(rt_lang_same("804", "404"));
    assert_false(rt_lang_same("009", "CurrentLanguage"));
    assert_false(rt_lang_same("_V2Providers", "_V2Providers"));
    assert_false(rt_lang_same("009", "0009x"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids),
        cmocka_unit_test(same_language),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
