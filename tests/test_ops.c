/* The operations layer's queries (ops/ops.h) on the in-memory store: the
 * layout as a type (no store but a hive tree's .dat layout keeps tables
 * in files; tests/test_store_hive.c checks both of its layouts), a
 * service's string value, and verify refusing an offline store with the
 * CLI's message before it reads anything. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ops/ops.h"

static void store_queries_typed(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    assert_int_equal(rt_op_tables_layout(s), RT_TABLES_IN_VALUES);
    assert_int_equal(rt_op_holds_libraries(s), 1);
    assert_non_null(rt_op_layout_text(s));

    assert_int_equal(rt_store_mem_put_service(s, "Svc", 1), 0);
    struct rt_value v;
    assert_int_equal(rt_value_from_string(&v, RT_REG_SZ, "svc.ini"), 0);
    assert_int_equal(rt_store_mem_put_service_value(s, "Svc", "PerfIniFile",
                                                    &v), 0);
    rt_value_free(&v);
    struct rt_error e = {0};
    char *ini = NULL;
    assert_int_equal(rt_op_service_string(s, "Svc", "PerfIniFile", &ini, &e),
                     0);
    assert_string_equal(ini, "svc.ini");
    free(ini);
    assert_int_equal(rt_op_service_string(s, "Svc", "Library", &ini, &e), 0);
    assert_null(ini);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(rt_op_list_perf_services(s, &names, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "Svc");
    rt_strings_free(names, n);
    rt_op_close(s);
}

static void verify_refuses_offline_store(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_database db = {0};
    struct rt_findings f = {0};
    struct rt_error e = {0};
    assert_int_equal(rt_op_verify(s, &db, "Svc", "Global", &f, &e),
                     RT_VERIFY_NO_SYSTEM);
    assert_int_equal(e.code, RT_ERR_NOT_SUPPORTED);
    assert_string_equal(e.message,
                        "the mem store has no running system to load "
                        "providers; use --store live (on Windows or under "
                        "Wine)");
    assert_int_equal(f.n, 0);
    rt_op_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(store_queries_typed),
        cmocka_unit_test(verify_refuses_offline_store),
    };
    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
