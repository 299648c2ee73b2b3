/* Out of memory at each allocation in turn (tests/oom_sweep.h) where the
 * store is an offline Windows tree: opening it and loading its database
 * (the hive reader, the registry-layout tables, the .dat tables), and an
 * install and an uninstall committed to it (the hive writer, the journal,
 * the commit protocol), in both layouts. Each failure says out of memory
 * and leaves the tree as it was: a fresh writer finds nothing to finish,
 * no file is left over; or, when memory ran out past the commit point,
 * it says that the next writer finishes the change, and a fresh writer
 * then leaves the tree as the run with memory did. And the hive
 * writer's subkey lists, a key added and another deleted in memory.
 * LeakSanitizer, in the sanitizer build, checks at exit that no failure
 * leaked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <unistd.h>
#include <cmocka.h>

#include "oom_sweep.h"

#ifdef HAVE_ALLOC_HOOK
#include "hive_fixture.h"

struct hive_ctx {
    struct fixture_ctx fx;
    struct rt_store *s;
    struct rt_database db;
    int has_db;
    struct rt_provider_spec *spec;
    struct rt_change_set cs;
    int has_cs, has_install;
    struct rt_install_plan install;
    struct rt_uninstall_plan uninstall;
};

static struct rt_store *open_tree(struct hive_ctx *c)
{
    struct rt_hive_options o = {
        .tables_dir = c->fx.files_layout ? c->fx.tables : NULL,
        .wait_seconds = -1};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->fx.dir, &o, NULL, &e);
    if (!s)
        fail_msg("open %s: %s", c->fx.dir, e.message);
    return s;
}

/* A fresh tree holding the small database, closed. */
static void tree_setup(void *ctx)
{
    struct hive_ctx *c = ctx;
    struct rt_store *s = hive_fixture_open(&c->fx);
    small_database(s);
    s->ops->close(s);
}

/* The small database's tree and the provider to install (the run opens
 * the store: a reader's lock, shared, would keep STATE's writer
 * waiting). */
static void spec_setup(void *ctx)
{
    struct hive_ctx *c = ctx;
    tree_setup(ctx);
    c->spec = make_spec("Transfer");
}

static void hive_teardown(void *ctx)
{
    struct hive_ctx *c = ctx;
    if (c->has_db)
        rt_database_free(&c->db);
    if (c->spec)
        free_spec(c->spec);
    if (c->has_cs)
        rt_change_set_free(&c->cs);
    if (c->has_install)
        rt_install_plan_free(&c->install);
    if (c->s)
        c->s->ops->close(c->s);
    hive_fixture_remove(&c->fx);
    struct fixture_ctx fx = c->fx;
    memset(c, 0, sizeof *c);
    c->fx = fx;
}

/* Every name under DIR, its folders' first, in name order. */
static void tree_names(struct rt_strbuf *b, const char *dir, size_t skip)
{
    char **names;
    size_t n;
    if (rt_os_list_dir(dir, &names, &n) != 0)
        fail_msg("cannot list %s", dir);
    qsort(names, n, sizeof *names, snap_cmp_names);
    for (size_t i = 0; i < n; i++) {
        char *p;
        if (asprintf(&p, "%s/%s", dir, names[i]) < 0)
            abort();
        rt_strbuf_printf(b, "%s\n", p + skip);
        if (rt_os_is_dir(p))
            tree_names(b, p, skip);
        free(p);
    }
    rt_os_free_list(names, n);
}

/* The tree as a fresh writer leaves it (begin() finishes a committed
 * change a journal holds): its database through the store and the name
 * of every file (nothing left over: no journal, no temporary file). */
static char *tree_state(void *ctx)
{
    struct hive_ctx *c = ctx;
    struct rt_store *s = open_tree(c);
    struct rt_error e = {0};
    if (s->ops->begin(s, &e) != 0)
        fail_msg("a fresh writer: %s", e.message);
    s->ops->end(s);
    struct rt_strbuf b = {0};
    snap_store_content(&b, s);
    s->ops->close(s);
    tree_names(&b, c->fx.dir, strlen(c->fx.dir));
    return snap_take(&b);
}

static int open_run(struct hive_ctx *c, struct rt_error *e)
{
    struct rt_hive_options o = {
        .tables_dir = c->fx.files_layout ? c->fx.tables : NULL,
        .wait_seconds = -1};
    return (c->s = rt_store_hive_open(c->fx.dir, &o, NULL, e)) ? 0 : -1;
}

static int load_run(void *ctx, struct rt_error *e)
{
    struct hive_ctx *c = ctx;
    if (open_run(c, e) != 0)
        return -1;
    if (rt_database_load(c->s, &c->db, e) != 0)
        return -1;
    c->has_db = 1;
    return 0;
}

static char *load_result(void *ctx)
{
    return database_text(&((struct hive_ctx *)ctx)->db);
}

/* The store is closed after a writer's run, for STATE's writer. */
static int close_after(struct hive_ctx *c, int r)
{
    c->s->ops->close(c->s);
    c->s = NULL;
    return r;
}

static int install_run(void *ctx, struct rt_error *e)
{
    struct hive_ctx *c = ctx;
    struct rt_install_options opt = {0};
    if (open_run(c, e) != 0)
        return -1;
    if (rt_op_install(c->s, c->spec, &opt, 0, &c->cs, &c->install, e))
        return close_after(c, -1);
    c->has_cs = c->has_install = 1;
    return close_after(c, 0);
}

static char *install_result(void *ctx)
{
    struct hive_ctx *c = ctx;
    return install_text(&c->install, &c->cs);
}

static int uninstall_run(void *ctx, struct rt_error *e)
{
    struct hive_ctx *c = ctx;
    if (open_run(c, e) != 0)
        return -1;
    if (rt_op_uninstall(c->s, "Peer", 0, 0, &c->cs, &c->uninstall, e))
        return close_after(c, -1);
    c->has_cs = 1;
    return close_after(c, 0);
}

static char *uninstall_result(void *ctx)
{
    struct hive_ctx *c = ctx;
    const struct rt_uninstall_plan *p = &c->uninstall;
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "%u-%u %u-%u removed %zu %zu\n", p->first_counter,
                     p->last_counter, p->first_help, p->last_help,
                     p->removed_names, p->removed_helps);
    char *t = change_set_text(&c->cs);
    rt_strbuf_printf(&b, "%s", t);
    free(t);
    return rt_strbuf_take(&b);
}

/* A hive of five keys under its root, in memory. */
static struct rt_regf *five_keys(void)
{
    struct rt_regf *h;
    char err[128];
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    static const char *const names[] = {"Alpha", "Beta", "Delta", "Echo",
                                        "Gamma"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        uint32_t key;
        assert_int_equal(rt_regf_key_create(h, rt_regf_root(h), names[i],
                                            &key), 0);
    }
    return h;
}

/* A key added to the root's subkey list and another deleted from it. */
static int subkey_list_change(struct rt_regf *h)
{
    uint32_t key;
    int rc = rt_regf_key_create(h, rt_regf_root(h), "Charlie", &key);
    if (rc == 0)
        rc = rt_regf_lookup(h, rt_regf_root(h), "Delta", &key);
    return rc ? rc : rt_regf_key_delete(h, key, 0);
}

/* The root's subkeys' names, each followed by a space. */
static char *subkey_names(struct rt_regf *h)
{
    uint32_t *keys;
    size_t n;
    struct rt_strbuf b = {0};
    assert_int_equal(rt_regf_subkeys(h, rt_regf_root(h), &keys, &n), 0);
    for (size_t i = 0; i < n; i++) {
        struct rt_regf_key_info info;
        assert_int_equal(rt_regf_key_info(h, keys[i], &info), 0);
        rt_strbuf_printf(&b, "%s ", info.name);
        rt_regf_key_info_free(&info);
    }
    free(keys);
    return rt_strbuf_take(&b);
}
#endif /* HAVE_ALLOC_HOOK */

/* The hive writer's subkey lists, memory failing at each allocation of a
 * key's insertion and of another's deletion in turn (the install and
 * uninstall above change values only, no list): out of memory said as
 * such, or the list whole, the new key in its place, the deleted one
 * gone and every other key kept. */
OOM_TEST(subkey_list_insert_and_delete, {
    struct rt_regf *h = five_keys();
    alloc_calls = 0;
    assert_int_equal(subkey_list_change(h), 0);
    unsigned long calls = alloc_calls;
    char *want = subkey_names(h);
    assert_string_equal(want, "Alpha Beta Charlie Echo Gamma ");
    rt_regf_close(h);
    if (calls == 0) {
        free(want);
        skip(); /* valgrind: no call reaches the hook */
    }
    for (unsigned long k = 1; k <= calls; k++) {
        h = five_keys();
        alloc_calls = 0;
        alloc_fail_at = k;
        int rc = subkey_list_change(h);
        alloc_fail_at = 0;
        if (rc != 0 && rc != RT_REGF_ENOMEM)
            fail_msg("allocation %lu of %lu failed, and the change failed "
                     "with %d: %s", k, calls, rc, rt_regf_errmsg(h));
        if (rc == 0) {
            char *got = subkey_names(h);
            if (strcmp(got, want))
                fail_msg("allocation %lu of %lu failed, and the change "
                         "left '%s', not '%s'", k, calls, got, want);
            free(got);
        }
        rt_regf_close(h);
    }
    free(want);
})

#ifdef HAVE_ALLOC_HOOK
static void run_hive_case(const struct oom_case *c, int files_layout)
{
    struct hive_ctx ctx = {.fx = {.files_layout = files_layout}};
    if (sweep(c, &ctx) == 0)
        skip(); /* valgrind: no call reaches the hook */
}
#endif /* HAVE_ALLOC_HOOK */

/* Each case: the layout, its name, set-up, operation, result, state.
 * Every allocation of the first 40, then every 13th: a commit's
 * allocations repeat per file and per table. */
#define HIVE_CASE(test, files, ...)                                            \
    OOM_TEST(test, {                                                           \
        static const struct oom_case c = {__VA_ARGS__, hive_teardown, 40,     \
                                          13};                                 \
        run_hive_case(&c, files);                                              \
    })

HIVE_CASE(open_and_load, 0, "rt_store_hive_open, rt_database_load",
          tree_setup, load_run, load_result, NULL)
HIVE_CASE(open_and_load_dat, 1, "rt_store_hive_open, rt_database_load (.dat)",
          tree_setup, load_run, load_result, NULL)
HIVE_CASE(install, 0, "rt_op_install on hives", spec_setup, install_run,
          install_result, tree_state)
HIVE_CASE(install_dat, 1, "rt_op_install on hives and .dat tables",
          spec_setup, install_run, install_result, tree_state)
HIVE_CASE(uninstall, 0, "rt_op_uninstall on hives", spec_setup,
          uninstall_run, uninstall_result, tree_state)

int main(void)
{
#ifdef HAVE_ALLOC_HOOK
    /* Some 600 trees are made and committed to: on a disk their fsyncs
     * take three times the test's own time, on a tmpfs none. */
    if (access("/dev/shm", W_OK | X_OK) == 0)
        setenv("TMPDIR", "/dev/shm", 1);
#endif
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(open_and_load),
        cmocka_unit_test(open_and_load_dat),
        cmocka_unit_test(install),
        cmocka_unit_test(install_dat),
        cmocka_unit_test(uninstall),
        cmocka_unit_test(subkey_list_insert_and_delete),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
