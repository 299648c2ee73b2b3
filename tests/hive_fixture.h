/* Hive-store fixtures for tests: an empty offline Windows tree (SOFTWARE
 * with only its Perflib key, SYSTEM with Select\\Current and ControlSet001), and
 * its removal; store_snapshot.h digests its files. With control_set N > 1,
 * Select\\Current is N and ControlSet001 is a decoy the store must not
 * touch: its Services\\Transfer looks installed at 5000-5005. */
#ifndef TEST_HIVE_FIXTURE_H
#define TEST_HIVE_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/journal.h"
#include "platform/os.h"
#include "regf/regf.h"
#include "scratch.h"
#include "store/store_hive.h"
#include "store_snapshot.h"

struct fixture_ctx {
    int files_layout;
    unsigned control_set;   /* Select\\Current; 0 means 1 */
    char dir[512];
    char tables[600];
};

static void make_empty_tree(struct fixture_ctx *c)
{
    char path[700];
    if (c->dir[0])
        assert_int_equal(scratch_remove(c->dir), 0);
    char *dir = scratch_dir_new("rths");
    snprintf(c->dir, sizeof c->dir, "%s", dir);
    free(dir);
    snprintf(path, sizeof path, "%s/Windows/System32/config", c->dir);
    assert_int_equal(rt_os_mkdirs(path), 0);
    snprintf(c->tables, sizeof c->tables, "%s/Windows/System32", c->dir);
    struct rt_regf *h;
    char err[256];
    uint32_t key;
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    /* A SOFTWARE hive has its Perflib key (only init creates one): the
     * hive store refuses a hive without it. */
    assert_int_equal(rt_regf_key_create_path(
                         h, rt_regf_root(h),
                         "Microsoft\\Windows NT\\CurrentVersion\\Perflib", &key),
                     0);
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), "Select", &key), 0);
    unsigned cs = c->control_set ? c->control_set : 1;
    uint8_t current[4] = {(uint8_t)cs, 0, 0, 0};
    assert_int_equal(rt_regf_value_set(h, key, "Current", RT_REG_DWORD, current, 4), 0);
    snprintf(path, sizeof path, "ControlSet%03u\\Services", cs);
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), path, &key), 0);
    if (cs != 1) {
        static const char *const names[] = {"First Counter", "Last Counter",
                                            "First Help", "Last Help"};
        assert_int_equal(rt_regf_key_create_path(
                             h, rt_regf_root(h),
                             "ControlSet001\\Services\\Transfer\\Performance",
                             &key), 0);
        for (int i = 0; i < 4; i++) {
            uint32_t x = 5000 + (uint32_t)(i == 1 ? 4 : i == 2 ? 1 : i == 3 ? 5 : 0);
            uint8_t d[4] = {(uint8_t)x, (uint8_t)(x >> 8), 0, 0};
            assert_int_equal(rt_regf_value_set(h, key, names[i], RT_REG_DWORD,
                                               d, 4), 0);
        }
    }
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", c->dir);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
}

static struct rt_store *hive_fixture_open(struct fixture_ctx *c)
{
    make_empty_tree(c);
    struct rt_hive_options o = {.tables_dir = c->files_layout ? c->tables : NULL,
                                .wait_seconds = -1};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    return s;
}

static void hive_fixture_remove(struct fixture_ctx *c)
{
    if (c->dir[0]) {
        if (scratch_remove(c->dir) != 0)
            fail_msg("cannot remove %s", c->dir);
        c->dir[0] = '\0';
    }
}

#endif
