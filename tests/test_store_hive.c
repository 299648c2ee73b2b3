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

#include "store_contract.h"
#include "store_hive.h"
#include "journal.h"
#include "io.h"
#include "regf/regf.h"

struct fixture_ctx {
    int files_layout;
    char dir[64];
    char tables[96];
};

static void make_empty_tree(struct fixture_ctx *c)
{
    char cmd[256], path[160];
    if (c->dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", c->dir);
        assert_int_equal(system(cmd), 0);
    }
    strcpy(c->dir, "/tmp/rthsXXXXXX");
    assert_non_null(mkdtemp(c->dir));
    snprintf(cmd, sizeof cmd, "mkdir -p %s/Windows/System32/config", c->dir);
    assert_int_equal(system(cmd), 0);
    snprintf(c->tables, sizeof c->tables, "%s/Windows/System32", c->dir);
    struct rt_regf *h;
    char err[256];
    uint32_t key;
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), "Select", &key), 0);
    uint8_t one[4] = {1, 0, 0, 0};
    assert_int_equal(rt_regf_value_set(h, key, "Current", RT_REG_DWORD, one, 4), 0);
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h),
                                             "ControlSet001\\Services", &key), 0);
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", c->dir);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
}

static struct rt_store *hive_open(void *ctx)
{
    struct fixture_ctx *c = ctx;
    make_empty_tree(c);
    struct rt_hive_options o = {c->files_layout ? c->tables : NULL, 0};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    return s;
}

static void hive_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_hive_fail_after(s, k);
}

/* Every file under DIR (size and CRC), then everything the store reads. */
static void digest_dir(FILE *f, const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        if (de->d_name[0] == '.' || !strcmp(de->d_name, "regtool.lock"))
            continue;
        char p[512];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        stat(p, &st);
        if (S_ISDIR(st.st_mode)) {
            digest_dir(f, p);
            continue;
        }
        uint8_t *data;
        size_t len;
        if (rt_io_read_file(p, &data, &len) == 0) {
            fprintf(f, "%s %zu %08x\n", p, len, rt_crc32(0, data, len));
            free(data);
        }
    }
    if (d)
        closedir(d);
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
    char cmd[256];
    struct fixture_ctx *cs[] = {&registry_ctx, &files_ctx};
    for (int i = 0; i < 2; i++)
        if (cs[i]->dir[0]) {
            snprintf(cmd, sizeof cmd, "rm -rf %s", cs[i]->dir);
            if (system(cmd) != 0)
                return -1;
        }
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
