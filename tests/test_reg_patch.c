/* Change sets as .reg patches: every kind of change under its key, one
 * [KEY] for consecutive changes of a key, tables left out on request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#include "ops/reg_backup.h"
#include "engine/reg_patch.h"

static const char16_t table[] = u"1\0" "1847\0";

static void build(struct rt_change_set *cs)
{
    memset(cs, 0, sizeof *cs);
    assert_int_equal(rt_change_set_create_language(cs, "019"), 0);
    assert_int_equal(rt_change_set_table(cs, "019", RT_TABLE_COUNTER,
                                         (const uint8_t *)table, sizeof table,
                                         NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(cs, "019", RT_TABLE_HELP,
                                         (const uint8_t *)table, sizeof table,
                                         NULL, NULL), 0);
    assert_int_equal(rt_change_set_dword(cs, NULL, "Last Counter", 1850), 0);
    assert_int_equal(rt_change_set_create_perf_key(cs, "Svc"), 0);
    assert_int_equal(rt_change_set_dword(cs, "Svc", "First Counter", 1848), 0);
    assert_int_equal(rt_change_set_delete_service(cs, "Svc", "Object List"),
                     0);
}

static void every_change_under_its_key(void **state)
{
    (void)state;
    struct rt_change_set cs;
    build(&cs);
    struct rt_reg_file f;
    size_t left;
    assert_int_equal(rt_reg_patch(&cs, RT_REG_V5_UTF8, 1, &f, &left), 0);
    assert_int_equal(left, 0);
    assert_int_equal(f.n_keys, 4);
    assert_string_equal(f.keys[0].path, RT_REG_PERFLIB_KEY "\\019");
    assert_int_equal(f.keys[0].n_vals, 2);
    assert_string_equal(f.keys[0].vals[0].name, "Counter");
    assert_int_equal(f.keys[0].vals[0].v.type, RT_REG_MULTI_SZ);
    assert_int_equal(f.keys[0].vals[0].v.len, sizeof table);
    assert_memory_equal(f.keys[0].vals[0].v.data, table, sizeof table);
    assert_string_equal(f.keys[0].vals[1].name, "Help");
    assert_string_equal(f.keys[1].path, RT_REG_PERFLIB_KEY);
    assert_string_equal(f.keys[1].vals[0].name, "Last Counter");
    assert_string_equal(f.keys[2].path, RT_REG_SERVICES_KEY "\\Svc");
    assert_int_equal(f.keys[2].n_vals, 0);
    assert_string_equal(f.keys[3].path, RT_REG_SERVICES_KEY "\\Svc\\Performance");
    assert_int_equal(f.keys[3].n_vals, 2);
    assert_false(f.keys[3].vals[0].del);
    assert_string_equal(f.keys[3].vals[1].name, "Object List");
    assert_true(f.keys[3].vals[1].del);
    rt_reg_file_free(&f);

    assert_int_equal(rt_reg_patch(&cs, RT_REG_V5_UTF8, 0, &f, &left), 0);
    assert_int_equal(left, 2);
    assert_int_equal(f.keys[0].n_vals, 0);
    rt_reg_file_free(&f);
    rt_change_set_free(&cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_change_under_its_key),
    };
    return cmocka_run_group_tests_name("reg_patch", tests, NULL, NULL);
}
