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

/* X's message, as the audit's reader makes it (a buffer kept per call). */
static const char *message_of(const struct rt_perfstats_finding *x)
{
    static char buf[4][300];
    static unsigned k;
    char *b = buf[k++ % 4];
    rt_perfstats_finding_message(x, b, sizeof buf[0]);
    return b;
}

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
    /* kernel\THREADS repeats KERNEL\Threads: one key on import, its Name
     * the first section's, its Differentiate the second's. */
    assert_int_equal(n, 3);
    assert_string_equal(x[0].id, "stat-duplicate");
    assert_int_equal(x[0].line, 15);
    assert_non_null(strstr(message_of(&x[0]), "first at line 6"));
    assert_string_equal(x[1].id, "stat-bad-differentiate");
    assert_string_equal(x[2].id, "server-no-stats");
    assert_string_equal(x[2].server->key, "EMPTY");
    free(x);
    rt_perfstats_free(&p);

    /* The file again, section by section, the server's sections (in any
     * case, wherever they lie) left out and the rest as read; a server
     * the file lacks makes nothing; a cap under the file's size is
     * refused. */
    struct rt_reg_file patch;
    uint8_t *out;
    size_t len, left;
    assert_int_equal(rt_perfstats_remove_text((const uint8_t *)text,
                                              sizeof text - 1, NULL, "KERN",
                                              0, &out, &len, &left, &patch,
                                              &e), 1);
    assert_null(out);
    assert_int_equal(rt_perfstats_remove_text((const uint8_t *)text,
                                              sizeof text - 1, NULL,
                                              "Kernel", 0, &out, &len, &left,
                                              &patch, &e), 0);
    static const char want[] =
        "REGEDIT4\r\n\r\n"
        ENUM "\\VFAT\\BReadsSec]\r\n\"Name\"=\"Bytes read/second\"\r\n"
        "\"Description\"=\"Bytes read.\"\r\n\"Differentiate\"=\"TRUE\"\r\n\r\n"
        ENUM "\\EMPTY]\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\Software\\Other]\r\n\r\n";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(out, want, len);
    assert_int_equal(left, 3);
    assert_int_equal(patch.n_keys, 1);
    assert_true(patch.keys[0].del);
    assert_string_equal(patch.keys[0].path, RT_PERFSTATS_ENUM "\\Kernel");
    assert_int_equal(patch.format, RT_REG_V4);
    free(out);
    rt_reg_file_free(&patch);
    assert_int_equal(rt_perfstats_remove_text((const uint8_t *)text,
                                              sizeof text - 1, NULL,
                                              "Kernel", len - 1, &out, &len,
                                              &left, &patch, &e), -1);
    assert_true(e.too_large > 0);
    assert_null(out);
    /* A file malformed after the server's sections: nothing made, the
     * line named. */
    static const char bad[] =
        "REGEDIT4\r\n\r\n" ENUM "\\KERNEL]\r\n\"Name\"=\"Kernel\"\r\n"
        "\"broken\r\n";
    assert_int_equal(rt_perfstats_remove_text((const uint8_t *)bad,
                                              sizeof bad - 1, NULL, "Kernel",
                                              0, &out, &len, &left, &patch,
                                              &e), -1);
    assert_null(out);
    assert_int_equal(e.line, 5);
    assert_int_equal(patch.n_keys, 0);
    rt_reg_file_free(&f);
}

/* Many servers, keys of one server in any case and anywhere in the file,
 * and a stat exported three times: each key joins its server (the first
 * seen, in file order), and the repeats are one finding, naming the
 * first's line and how many there are. */
static void servers_and_repeats_by_key(void **state)
{
    (void)state;
    static const char many[] =
        "REGEDIT4\r\n\r\n"
        ENUM "\\A\\X]\r\n\"Name\"=\"x\"\r\n\r\n"           /* line 3 */
        ENUM "\\B]\r\n\r\n"                                   /* 6 */
        ENUM "\\C\\Y]\r\n\"Name\"=\"y\"\r\n\r\n"           /* 8 */
        ENUM "\\a\\x]\r\n\"Name\"=\"x\"\r\n\r\n"           /* 11 */
        ENUM "\\D]\r\n\r\n"                                   /* 14 */
        ENUM "\\A\\Z]\r\n\"Name\"=\"z\"\r\n\r\n"           /* 16 */
        ENUM "\\A\\X]\r\n\"Name\"=\"x\"\r\n\r\n"           /* 19 */
        ENUM "\\c]\r\n\"Name\"=\"Cee\"\r\n\r\n";             /* 22 */
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)many, sizeof many - 1,
                                  NULL, &f, &e), 0);
    struct rt_perfstats p;
    assert_int_equal(rt_perfstats_read(&f, &p), 0);
    assert_int_equal(p.n_servers, 4);
    static const char *const order[] = {"A", "B", "C", "D"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(p.servers[i].key, order[i]);
    assert_int_equal(p.servers[0].n_stats, 4);
    assert_int_equal(p.servers[2].n_stats, 1);
    assert_string_equal(p.servers[2].name, "Cee");
    assert_int_equal(p.servers[2].line, 22);

    struct rt_perfstats_finding *x;
    size_t n;
    assert_int_equal(rt_perfstats_audit(&p, &x, &n), 0);
    /* x at 11 and X at 19 repeat X at 3: one finding for the key, at
     * its second section, counting the three; B and D have no stats. */
    assert_int_equal(n, 3);
    assert_string_equal(x[0].id, "stat-duplicate");
    assert_int_equal(x[0].line, 11);
    assert_int_equal(x[0].times, 3);
    assert_non_null(strstr(message_of(&x[0]),
                           "statistic A\\X is exported 3 times (first at "
                           "line 3)"));
    assert_string_equal(x[1].id, "server-no-stats");
    assert_string_equal(x[1].server->key, "B");
    assert_string_equal(x[2].server->key, "D");
    free(x);
    rt_perfstats_free(&p);
    rt_reg_file_free(&f);
}

/* Differentiate is TRUE or FALSE in any letter case, as Windows 95 read
 * it: an export saying "false" or "True" is a count or a rate, with no
 * stat-bad-differentiate warning. */
static void differentiate_in_any_case(void **state)
{
    (void)state;
    static const char any[] =
        "REGEDIT4\r\n\r\n"
        ENUM "\\K]\r\n\"Name\"=\"Kernel\"\r\n\r\n"
        ENUM "\\K\\Lower]\r\n\"Name\"=\"lower\"\r\n"
        "\"Differentiate\"=\"false\"\r\n\r\n"
        ENUM "\\K\\Mixed]\r\n\"Name\"=\"mixed\"\r\n"
        "\"Differentiate\"=\"True\"\r\n\r\n"
        ENUM "\\K\\Title]\r\n\"Name\"=\"title\"\r\n"
        "\"Differentiate\"=\"False\"\r\n\r\n";
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)any, sizeof any - 1,
                                  NULL, &f, &e), 0);
    struct rt_perfstats p;
    assert_int_equal(rt_perfstats_read(&f, &p), 0);
    const struct rt_perfstats_server *k = rt_perfstats_server(&p, "K");
    assert_non_null(k);
    assert_int_equal(k->n_stats, 3);
    assert_int_equal(k->stats[0].kind, RT_STAT_COUNT);
    assert_int_equal(k->stats[1].kind, RT_STAT_RATE);
    assert_int_equal(k->stats[2].kind, RT_STAT_COUNT);
    struct rt_perfstats_finding *x;
    size_t n;
    assert_int_equal(rt_perfstats_audit(&p, &x, &n), 0);
    assert_int_equal(n, 0);
    free(x);
    rt_perfstats_free(&p);
    rt_reg_file_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_audits_and_removes),
        cmocka_unit_test(servers_and_repeats_by_key),
        cmocka_unit_test(differentiate_in_any_case),
    };
    return cmocka_run_group_tests_name("perfstats", tests, NULL, NULL);
}
