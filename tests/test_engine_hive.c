/* The install/uninstall suite on the hive store, in both layouts. Set-up,
 * installs and uninstalls go through real hive files and .dat tables;
 * "exact" snapshots compare every byte of every file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_suite.h"
#include "hive_fixture.h"

static struct fixture_ctx registry_ctx = {.files_layout = 0},
                          files_ctx = {.files_layout = 1};

static struct rt_store *hive_open(void *ctx)
{
    return hive_fixture_open(ctx);
}

static char *hive_exact(struct rt_store *s, void *ctx)
{
    (void)s;
    struct fixture_ctx *c = ctx;
    struct rt_strbuf b = {0};
    snap_dir_digest(&b, c->dir);
    return snap_take(&b);
}

static int use_registry(void **state)
{
    (void)state;
    efx = (struct engine_fixture){hive_open, hive_exact, 1, &registry_ctx, 0};
    return 0;
}

static int use_files(void **state)
{
    (void)state;
    efx = (struct engine_fixture){hive_open, hive_exact, 0, &files_ctx, 1};
    return 0;
}

static int cleanup(void **state)
{
    (void)state;
    hive_fixture_remove(&registry_ctx);
    hive_fixture_remove(&files_ctx);
    return 0;
}

/* Offline there is no CurrentControlSet: the services live in the control
 * set Select\\Current names, here ControlSet002, while ControlSet001 holds
 * a decoy Transfer that looks installed. Everything the store reads and
 * writes about services is ControlSet002's, and ControlSet001 is left
 * as it was. */
static uint32_t system_dword(const char *dir, const char *key,
                             const char *name)
{
    char path[700], err[256];
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", dir);
    struct rt_regf *h;
    assert_int_equal(rt_regf_open(path, 0, &h, err, sizeof err), 0);
    uint32_t k, type;
    uint8_t *d;
    size_t len;
    if (rt_regf_lookup(h, rt_regf_root(h), key, &k) != 0)
        fail_msg("SYSTEM has no %s", key);
    assert_int_equal(rt_regf_get_value(h, k, name, &type, &d, &len), 0);
    assert_int_equal(len, 4);
    uint32_t x = (uint32_t)d[0] | (uint32_t)d[1] << 8 |
                 (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
    free(d);
    rt_regf_close(h);
    return x;
}

static struct fixture_ctx cs2_ctx[2] = {{.files_layout = 0, .control_set = 2},
                                        {.files_layout = 1, .control_set = 2}};

static void services_in_current_control_set(void **state)
{
    (void)state;
    for (int layout = 0; layout < 2; layout++) {
        efx = (struct engine_fixture){hive_open, hive_exact, !layout,
                                      &cs2_ctx[layout], layout};
        struct rt_store *s = base_store();
        struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
        struct rt_install_plan plan;
        struct rt_error e = {0};
        assert_int_equal(install(s, sp, 0, &plan, &e), 0);
        assert_int_equal(plan.first_counter, 1848);
        rt_install_plan_free(&plan);
        struct rt_database db = load(s);
        const struct rt_service_info *svc = rt_database_service(&db, "Transfer");
        assert_non_null(svc);
        assert_int_equal(svc->first_counter, 1848);
        assert_int_equal(svc->last_help, 1853);
        rt_database_free(&db);
        s->ops->close(s);
        const char *dir = cs2_ctx[layout].dir;
        assert_int_equal(system_dword(dir, "ControlSet002\\Services\\Transfer\\Performance",
                                      "First Counter"), 1848);
        assert_int_equal(system_dword(dir, "ControlSet002\\Services\\Transfer\\Performance",
                                      "Last Help"), 1853);
        assert_int_equal(system_dword(dir, "ControlSet001\\Services\\Transfer\\Performance",
                                      "First Counter"), 5000);
        assert_int_equal(system_dword(dir, "ControlSet001\\Services\\Transfer\\Performance",
                                      "Last Help"), 5005);

        free_spec(sp);
        hive_fixture_remove(&cs2_ctx[layout]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {ENGINE_SUITE_TESTS};
    int failed = cmocka_run_group_tests_name("engine (hive store, registry layout)",
                                             tests, use_registry, NULL);
    failed += cmocka_run_group_tests_name("engine (hive store, files layout)",
                                          tests, use_files, cleanup);
    const struct CMUnitTest cs_tests[] = {
        cmocka_unit_test(services_in_current_control_set)};
    failed += cmocka_run_group_tests_name("engine (hive store, ControlSet002)",
                                          cs_tests, NULL, NULL);
    return failed;
}
