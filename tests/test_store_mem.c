/* The store contract on the in-memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "store_contract.h"

static struct rt_store *mem_open(void *ctx)
{
    (void)ctx;
    return rt_store_mem_new();
}

static void mem_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_mem_fail_after(s, k);
}

static char *mem_snapshot(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return rt_store_mem_dump(s);
}

/* The mem store's keys are named as the registry names them, without
 * regard to case: its API cannot make two services, or two languages,
 * whose names differ only in case (which the hive store reports as
 * service-keys-differ-in-case): each second name reaches the first key,
 * and a value set through one name is read through the other. */
static void names_differing_in_case_are_one_key(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_error e = {0};
    assert_int_equal(rt_store_mem_put_service(s, "Foo", 1), 0);
    assert_int_equal(rt_store_mem_put_service(s, "fOO", 1), 0);
    struct rt_value v = {RT_REG_SZ, (uint8_t *)"a\0\0", 4};
    assert_int_equal(rt_store_mem_put_service_value(s, "FOO", "Library", &v), 0);
    char **names;
    size_t n;
    assert_int_equal(s->ops->list_perf_services(s, &names, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "Foo");
    rt_strings_free(names, n);
    struct rt_value got = {0};
    int present = 0;
    assert_int_equal(s->ops->read_service(s, "foo", "LIBRARY", &got, &present,
                                          &e), 0);
    assert_true(present);
    assert_int_equal(got.len, 4);
    rt_value_free(&got);
    assert_int_equal(rt_store_mem_put_language(s, "00a"), 0);
    assert_int_equal(rt_store_mem_put_language(s, "00A"), 0);
    char **langs;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 1);
    rt_strings_free(langs, n);
    assert_null(s->ops->key_anomalies);
    s->ops->close(s);
}

int main(void)
{
    contract = (struct contract_fixture){mem_open, mem_fail, mem_snapshot, NULL, 0};
    const struct CMUnitTest tests[] = {
        STORE_CONTRACT_TESTS,
        cmocka_unit_test(names_differing_in_case_are_one_key),
    };
    return cmocka_run_group_tests_name("store_mem", tests, NULL, NULL);
}
