/* Windows 95 System Monitor registrations: servers and statistics read
 * from an export, the audit's findings, removal of a server. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/perfstats.h"

#define ENUM "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\control\\PerfStats\\Enum"

static const char text[] =
    "REGEDIT4\r\n\r\n"
    ENUM "\\KERNEL]\r\n\"Name\"=\"Kernel\"\r\n\r\n"
    ENUM "\\KERNEL\\Threads]\r\n\"Name\"=\"Threads\"\r\n"
    "\"Differentiate\"=\"FALSE\"\r\n\r\n"
    ENUM "\\VFAT\\BReadsSec]\r\n\"Name\"=\"Bytes read/second\"\r\n"
    "\"Description\"=\"Bytes read.\"\r\n\"Differentiate\"=\"TRUE\"\r\n\r\n"
    ENUM "\\kernel\\THREADS]\r\n\"Differentiate\"=\"maybe\"\r\n\r\n"
    ENUM "\\EMPTY]\r\n\r\n"
    "[HKEY_LOCAL_MACHINE\\Software\\Other]\r\n\r\n";

static void reads_audits_and_removes(void **state)
{
    (void)state;
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)text, sizeof text - 1,
                                  NULL, &f, &e), 0);
    struct rt_perfstats p;
    assert_int_equal(rt_perfstats_read(&f, &p), 0);
    assert_int_equal(p.n_servers, 3);
    const struct rt_perfstats_server *k = rt_perfstats_server(&p, "kernel");
    assert_non_null(k);
    assert_string_equal(k->name, "Kernel");
    assert_int_equal(k->n_stats, 2);
    assert_int_equal(k->stats[0].kind, RT_STAT_COUNT);
    const struct rt_perfstats_server *v = rt_perfstats_server(&p, "VFAT");
    assert_int_equal(v->line, 0);
    assert_int_equal(v->stats[0].kind, RT_STAT_RATE);
    assert_string_equal(v->stats[0].description, "Bytes read.");

    struct rt_perfstats_finding *x;
    size_t n;
    assert_int_equal(rt_perfstats_audit(&p, &x, &n), 0);
    assert_int_equal(n, 4);
    assert_string_equal(x[0].id, "stat-no-name");
    assert_int_equal(x[0].line, 15);
    assert_string_equal(x[1].id, "stat-duplicate");
    assert_int_equal(x[1].line, 15);
    assert_non_null(strstr(x[1].message, "first at line 6"));
    assert_string_equal(x[2].id, "stat-bad-differentiate");
    assert_string_equal(x[3].id, "server-no-stats");
    assert_string_equal(x[3].server, "EMPTY");
    free(x);
    rt_perfstats_free(&p);

    struct rt_reg_file out, patch;
    assert_int_equal(rt_perfstats_remove(&f, "Kernel", &out, &patch), 0);
    assert_int_equal(out.n_keys, 3);
    assert_non_null(strstr(out.keys[0].path, "\\VFAT\\BReadsSec"));
    assert_int_equal(patch.n_keys, 1);
    assert_true(patch.keys[0].del);
    assert_int_equal(patch.format, RT_REG_V4);
    rt_reg_file_free(&out);
    rt_reg_file_free(&patch);
    assert_int_equal(rt_perfstats_remove(&f, "KERN", &out, &patch), 1);
    rt_reg_file_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_audits_and_removes),
    };
    return cmocka_run_group_tests_name("perfstats", tests, NULL, NULL);
}
