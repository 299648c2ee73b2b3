/* The store contract on the hive store, in both layouts: tables as values
 * in the SOFTWARE hive (NT 4 to 2003, Wine) and tables in .dat files
 * (Vista and later). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hive_fixture.h"
#include "store_contract.h"

static struct rt_store *hive_open(void *ctx)
{
    return hive_fixture_open(ctx);
}

static void hive_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_hive_fail_after(s, k);
}

/* Every byte of every file, and what a reader sees through the store. */
static char *hive_snapshot(struct rt_store *s, void *ctx)
{
    struct fixture_ctx *c = ctx;
    struct rt_strbuf b = {0};
    snap_dir_digest(&b, c->dir);
    snap_store_content(&b, s);
    return snap_take(&b);
}

static struct fixture_ctx registry_ctx = {.files_layout = 0},
                          files_ctx = {.files_layout = 1};

static int use_registry(void **state)
{
    (void)state;
    contract = (struct contract_fixture){hive_open, hive_fail, hive_snapshot,
                                         &registry_ctx, 0};
    return 0;
}

static int use_files(void **state)
{
    (void)state;
    contract = (struct contract_fixture){hive_open, hive_fail, hive_snapshot,
                                         &files_ctx, 1};
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
    const struct CMUnitTest tests[] = {STORE_CONTRACT_TESTS};
    int failed = cmocka_run_group_tests_name("store_hive (registry layout)",
                                             tests, use_registry, NULL);
    failed += cmocka_run_group_tests_name("store_hive (files layout)", tests,
                                          use_files, cleanup);
    return failed;
}
