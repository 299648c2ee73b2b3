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

int main(void)
{
    const struct CMUnitTest tests[] = {ENGINE_SUITE_TESTS};
    int failed = cmocka_run_group_tests_name("engine (hive store, registry layout)",
                                             tests, use_registry, NULL);
    failed += cmocka_run_group_tests_name("engine (hive store, files layout)",
                                          tests, use_files, cleanup);
    return failed;
}
