/* Hive-store fixtures for tests: an empty offline Windows tree (SOFTWARE
 * with only its root, SYSTEM with Select\\Current and ControlSet001), and
 * an exact digest of every file in it. */
#ifndef TEST_HIVE_FIXTURE_H
#define TEST_HIVE_FIXTURE_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commit/io.h"
#include "platform/os.h"
#include "commit/journal.h"
#include "regf/regf.h"
#include "store/store_hive.h"

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

static struct rt_store *hive_fixture_open(struct fixture_ctx *c)
{
    make_empty_tree(c);
    struct rt_hive_options o = {c->files_layout ? c->tables : NULL, 0};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    return s;
}

static void hive_fixture_remove(struct fixture_ctx *c)
{
    char cmd[256];
    if (c->dir[0]) {
        snprintf(cmd, sizeof cmd, "rm -rf %s", c->dir);
        if (system(cmd) != 0)
            fail_msg("cannot remove %s", c->dir);
        c->dir[0] = '\0';
    }
}

/* Every file under DIR but the lock, with its size and CRC. */
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
        if (rt_os_read_file(p, &data, &len) == 0) {
            fprintf(f, "%s %zu %08x\n", p, len, rt_crc32(0, data, len));
            free(data);
        }
    }
    if (d)
        closedir(d);
}

#endif
