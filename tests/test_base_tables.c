/* The generated base database has a real system's shape and size, with
 * the benchmarks' extra providers too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/base_tables.h"

static void english_has_real_shape_and_size(void **state)
{
    (void)state;
    struct rt_name_table t;
    assert_int_equal(rt_base_tables_generate("009", &t), 0);
    assert_int_equal(t.counter.v[0].index, 1);
    assert_string_equal(t.counter.v[0].text, "1847");
    assert_string_equal(rt_pair_list_find(&t.counter, 1846)->text, "End Marker");
    assert_string_equal(rt_pair_list_find(&t.help, 1847)->text, "End Marker");
    assert_true(t.counter.n >= 1900 && t.counter.n <= 2100);
    assert_int_equal(rt_pair_list_highest(&t.counter), rt_base_last_counter());
    assert_int_equal(rt_pair_list_highest(&t.help), rt_base_last_help());
    struct rt_duplicate *d;
    assert_int_equal(rt_pair_list_duplicates(&t.counter, &d), 0);
    assert_int_equal(rt_pair_list_duplicates(&t.help, &d), 0);
    uint8_t *blob;
    size_t len;
    assert_int_equal(rt_pair_list_encode(&t.help, &blob, &len), 0);
    assert_true(len > 1024 * 1024);
    free(blob);
    /* Every provider's range is filled, names even, help odd. */
    size_t n;
    const struct rt_base_provider *p = rt_base_providers(&n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(p[i].first_counter % 2, 0);
        assert_int_equal(p[i].first_help, p[i].first_counter + 1);
        assert_non_null(rt_pair_list_find(&t.counter, p[i].last_counter));
        assert_non_null(rt_pair_list_find(&t.help, p[i].first_help));
    }
    rt_name_table_free(&t);
}

static void generation_is_deterministic_and_localized(void **state)
{
    (void)state;
    struct rt_name_table a, b, ru;
    assert_int_equal(rt_base_tables_generate("009", &a), 0);
    assert_int_equal(rt_base_tables_generate("009", &b), 0);
    assert_int_equal(rt_base_tables_generate("019", &ru), 0);
    uint8_t *ba, *bb;
    size_t la, lb;
    rt_pair_list_encode(&a.help, &ba, &la);
    rt_pair_list_encode(&b.help, &bb, &lb);
    assert_int_equal(la, lb);
    assert_memory_equal(ba, bb, la);
    free(ba);
    free(bb);
    /* Russian text is Cyrillic (UTF-8 lead bytes D0/D1), same indices. */
    assert_int_equal(ru.counter.n, a.counter.n);
    const char *text = rt_pair_list_find(&ru.counter, 2)->text;
    assert_true((unsigned char)text[0] == 0xD0 || (unsigned char)text[0] == 0xD1);
    rt_name_table_free(&a);
    rt_name_table_free(&b);
    rt_name_table_free(&ru);
}

/* The benchmarks' extra providers follow the built-in ones without a gap
 * or an overlap, each a range of RT_BASE_EXTRA_NAMES names at even
 * indices, its help at the odd one above each, and the last of them ends
 * where the scaled Last Counter and Last Help say: a database whose
 * Perflib values tell the truth, as a real system's do. */
static void extra_providers_end_at_the_scaled_last_counter(void **state)
{
    (void)state;
    const unsigned extra = 3;
    struct rt_name_table t;
    assert_int_equal(rt_base_tables_generate_scaled("009", extra, &t), 0);
    assert_int_equal(rt_pair_list_highest(&t.counter),
                     rt_base_last_counter_scaled(extra));
    assert_int_equal(rt_pair_list_highest(&t.help),
                     rt_base_last_help_scaled(extra));
    struct rt_duplicate *d;
    assert_int_equal(rt_pair_list_duplicates(&t.counter, &d), 0);
    assert_int_equal(rt_pair_list_duplicates(&t.help, &d), 0);
    uint32_t next = rt_base_last_counter() + 2;
    for (unsigned i = 0; i < extra; i++) {
        struct rt_base_provider p;
        char service[32];
        rt_base_extra_provider(i, &p, service, sizeof service);
        assert_int_equal(p.first_counter, next);
        assert_int_equal(p.last_counter,
                         p.first_counter + 2 * (RT_BASE_EXTRA_NAMES - 1));
        assert_int_equal(p.first_help, p.first_counter + 1);
        assert_int_equal(p.last_help, p.last_counter + 1);
        for (uint32_t x = p.first_counter; x <= p.last_counter; x += 2) {
            assert_non_null(rt_pair_list_find(&t.counter, x));
            assert_non_null(rt_pair_list_find(&t.help, x + 1));
        }
        next = p.last_counter + 2;
    }
    assert_int_equal(next - 2, rt_base_last_counter_scaled(extra));
    rt_name_table_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(english_has_real_shape_and_size),
        cmocka_unit_test(generation_is_deterministic_and_localized),
        cmocka_unit_test(extra_providers_end_at_the_scaled_last_counter),
    };
    return cmocka_run_group_tests_name("base_tables", tests, NULL, NULL);
}
