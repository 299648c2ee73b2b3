/* Perflib language ids: three or four hex digits matched by value, and
 * CurrentLanguage; nothing else is a language. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
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
    /* An INF copy's language folder: four hex digits, counted. */
    assert_true(rt_lang_is_folder_id("0009", 4));
    assert_true(rt_lang_is_folder_id("0aBf/x", 4));
    assert_false(rt_lang_is_folder_id("009", 3));
    assert_false(rt_lang_is_folder_id("0009x", 5));
    assert_false(rt_lang_is_folder_id("00g9", 4));
    assert_false(rt_lang_is_folder_id("00\0009", 4));
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

/* Languages sorted by key and found by a search agree with rt_lang_same:
 * every spelling of a value one key, CurrentLanguage above every value,
 * anything else no key; a key found at its first position in the list. */
static void found_by_key(void **state)
{
    (void)state;
    static const char *const list[] = {"0804", "_V2Providers", "009",
                                       "CurrentLanguage", "FFFF", "804",
                                       "00C"};
    enum { N = sizeof list / sizeof *list };
    struct rt_lang_pos v[N];
    size_t n = 0;
    for (size_t i = 0; i < N; i++)
        if (rt_lang_key(list[i], &v[n].key))
            v[n++].pos = (uint32_t)i;
    assert_int_equal(n, N - 1);
    qsort(v, n, sizeof *v, rt_lang_pos_cmp);
    static const char *const probe[] = {"9", "009", "0009", "804", "0804",
                                        "00c", "ffff", "currentlanguage",
                                        "007", "0", "_V2Providers", "FFFE"};
    for (size_t j = 0; j < sizeof probe / sizeof *probe; j++) {
        uint32_t key = 0;
        size_t want = N, at = n;
        for (size_t i = 0; i < N && want == N; i++)
            if (rt_lang_same(list[i], probe[j]))
                want = i;
        if (rt_lang_key(probe[j], &key))
            at = rt_lang_pos_find(v, n, key);
        if (want == N)
            assert_int_equal(at, n);
        else {
            assert_true(at < n);
            assert_int_equal(v[at].pos, want);
        }
    }
    uint32_t key = 0;
    assert_int_equal(rt_lang_key("CurrentLanguage", &key), 1);
    assert_int_equal(key, UINT32_MAX);
    assert_int_equal(rt_lang_key("FFFF", &key), 1);
    assert_int_equal(key, 0xFFFF);
    assert_int_equal(rt_lang_key("0x9", &key), 0);
    assert_int_equal(rt_lang_pos_find(v, 0, 9), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ids),
        cmocka_unit_test(same_language),
        cmocka_unit_test(found_by_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
