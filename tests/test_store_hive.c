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
#include <sys/stat.h>
#include <dirent.h>
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

static void dump_value(FILE *f, const char *what, const struct rt_value *v)
{
    fprintf(f, "%s type=%u len=%zu crc=%08x\n", what, v->type, v->len,
            rt_crc32(0, v->data, v->len));
}

static char *hive_snapshot(struct rt_store *s, void *ctx)
{
    struct fixture_ctx *c = ctx;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    digest_dir(f, c->dir);
    char **langs, **svcs;
    size_t n, ns;
    struct rt_error e;
    struct rt_value v;
    int present;
    s->ops->list_languages(s, &langs, &n, &e);
    for (size_t i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            s->ops->read_table(s, langs[i], t, &v, &present, &e);
            if (present)
                dump_value(f, langs[i], &v);
            rt_value_free(&v);
        }
    rt_strings_free(langs, n);
    static const char *const names[] = {"Last Counter", "Last Help"};
    for (int i = 0; i < 2; i++) {
        s->ops->read_perflib(s, names[i], &v, &present, &e);
        if (present)
            dump_value(f, names[i], &v);
        rt_value_free(&v);
    }
    s->ops->list_perf_services(s, &svcs, &ns, &e);
    static const char *const vals[] = {"Library", "Open", "Depends",
                                       "Open Timeout", "First Counter"};
    for (size_t i = 0; i < ns; i++)
        for (int k = 0; k < 5; k++) {
            s->ops->read_service(s, svcs[i], vals[k], &v, &present, &e);
            if (present)
                dump_value(f, vals[k], &v);
            rt_value_free(&v);
        }
    rt_strings_free(svcs, ns);
    fclose(f);
    return buf;
}

static struct fixture_ctx registry_ctx = {.files_layout = 0},
                          files_ctx = {.files_layout = 1};

static int use_registry(void **state)
{
    (void)state;
    contract = (struct contract_fixture){hive_open, hive_fail, hive_snapshot,
                                         &registry_ctx};
    return 0;
}

static int use_files(void **state)
{
    (void)state;
    contract = (struct contract_fixture){hive_open, hive_fail, hive_snapshot,
                                         &files_ctx};
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
