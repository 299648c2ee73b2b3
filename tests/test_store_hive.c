/* The store contract on the hive store, in both layouts: tables as values
 * in the SOFTWARE hive (NT 4 to 2003, Wine) and tables in .dat files
 * (Vista and later). */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "commit/crc32.h"
#include "commit/io.h"
#include "engine/database.h"
#include "hive_fixture.h"
#include "ops/ops.h"
#include "regf/base_block.h"
#include "regf/marvin32.h"
#include "regf/regf_internal.h"
#include "store/hive_internal.h"
#include "store_contract.h"
#include "commit/io.h"

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

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>

/* Test hook: calls of realloc are counted in realloc_calls, and those
 * of 16 KB or more in realloc_large (an array of thousands of entries
 * growing; a path or a message is far smaller). This definition takes
 * the C library's realloc over in the test program (and the library
 * linked into it) and hands every call to the next one (the C library's,
 * or a sanitizer's). */
static unsigned long realloc_calls, realloc_large;

void *realloc(void *p, size_t n)
{
    static void *(*next)(void *, size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "realloc");
    realloc_calls++;
    realloc_large += n >= 16384;
    return next(p, n);
}
#define COUNTS_REALLOC 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && \
    !(defined(_FORTIFY_SOURCE) && _FORTIFY_SOURCE > 0)
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

/* Test hook: while ASPRINTF_FAIL_FORMAT is set, an asprintf call with
 * that format fails as out of memory (counted in asprintf_failed), its
 * *STRP left as it was; every other call is the C library's. This
 * definition takes asprintf over in the test program and the library
 * linked into it. */
static const char *asprintf_fail_format;
static unsigned long asprintf_failed;

int asprintf(char **strp, const char *fmt, ...)
{
    if (asprintf_fail_format && !strcmp(fmt, asprintf_fail_format)) {
        asprintf_failed++;
        errno = ENOMEM;
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    int r = vasprintf(strp, fmt, ap);
    va_end(ap);
    return r;
}
#define FAILS_ASPRINTF 1
#endif

/* lib/commit/io.c's test hook: the K-th write from now fails with EIO. */
void rt_io_fail_at_write(unsigned long k);

static struct rt_store *try_reopen(struct fixture_ctx *c, struct rt_error *e)
{
    struct rt_hive_options o = {.tables_dir = c->files_layout ? c->tables : NULL,
                                .wait_seconds = -1};
    return rt_store_hive_open(c->dir, &o, NULL, e);
}

static struct rt_store *reopen(struct fixture_ctx *c)
{
    struct rt_error e = {0};
    struct rt_store *s = try_reopen(c, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    return s;
}

/* Copies the tree SRC to DST (which must not exist), through the
 * platform layer: the test runs natively on Windows too. */
static void tree_copy(const char *src, const char *dst)
{
    char **names;
    size_t n;
    assert_int_equal(rt_os_mkdirs(dst), 0);
    if (rt_os_list_dir(src, &names, &n) != 0)
        fail_msg("cannot list %s", src);
    for (size_t i = 0; i < n; i++) {
        char *from, *to;
        assert_true(asprintf(&from, "%s/%s", src, names[i]) > 0);
        assert_true(asprintf(&to, "%s/%s", dst, names[i]) > 0);
        if (rt_os_is_dir(from)) {
            tree_copy(from, to);
        } else {
            uint8_t *data;
            size_t len;
            if (rt_os_read_file(from, &data, &len) != 0 ||
                rt_os_write_new_file(to, data, len) != 0)
                fail_msg("cannot copy %s to %s", from, to);
            free(data);
        }
        free(from);
        free(to);
    }
    rt_os_free_list(names, n);
}

/* DST becomes a copy of SRC. */
static void tree_replace(const char *dst, const char *src)
{
    if (rt_os_exists(dst) && scratch_remove(dst) != 0)
        fail_msg("cannot remove %s", dst);
    tree_copy(src, dst);
}

/* The snapshot without the hive files' bytes: their key times differ
 * from one commit to the next; their content is in the rest of it (the
 * tables, the Perflib and service values as the store reads them). */
static char *without_hive_bytes(char *snap)
{
    char *w = snap;
    for (char *l = snap; *l;) {
        char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) + 1 : strlen(l);
        if (!strstr(l, "/config/SOFTWARE ") && !strstr(l, "/config/SYSTEM ")) {
            memmove(w, l, n);
            w += n;
        }
        l += n;
    }
    *w = '\0';
    return snap;
}

/* Fails with WHAT and the first line where GOT and WANT differ. */
static void expect_state(const char *got, const char *want, const char *what,
                         unsigned k, unsigned writes)
{
    if (!strcmp(got, want))
        return;
    size_t i = 0, line = 0;
    while (got[i] == want[i]) {
        if (got[i] == '\n')
            line = i + 1;
        i++;
    }
    fail_msg("write %u of %u failed: %s; first difference:\n got: %.200s\n"
             "want: %.200s", k, writes, what, got + line, want + line);
}

/* A disk write that fails in the middle of a commit, at each of its
 * writes in turn: after bytes of it reached the files (the fresh bytes
 * of a growing hive, the journal), not only in memory. A failure before
 * the commit point leaves every file byte-identical to before (the
 * commit rolls back through its journal); one after it leaves a sealed
 * journal, which the next writer finishes: the state is then exactly
 * the one a commit without failure gives (the .dat files' bytes, the
 * hives' content). */
static void failing_write_mid_commit(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_open(c);
    struct rt_change_set base = {0}, more = {0};
    struct rt_error e = {0};
    contract_base_set(&base);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &base, &e), 0);
    s->ops->end(s);
    char *before = hive_snapshot(s, c), *saved;
    s->ops->close(s);
    assert_true(asprintf(&saved, "%s.saved", c->dir) > 0);
    tree_replace(saved, c->dir);

    /* 40 KB of names: big data in SOFTWARE, appended past the end of the
     * hive (fresh bytes ahead of the journal), or a longer .dat file. */
    struct rt_strbuf t = {0};
    for (int i = 0; i < 400; i++) {
        char line[64];
        int n = snprintf(line, sizeof line, "%d", 1850 + 2 * i);
        rt_strbuf_append(&t, line, (size_t)n + 1);
        n = snprintf(line, sizeof line, "A counter name number %03d", i);
        rt_strbuf_append(&t, line, (size_t)n + 1);
    }
    rt_strbuf_append(&t, "", 1);
    size_t n8 = t.len;
    char *text = rt_strbuf_take(&t);
    uint8_t *u16 = calloc(2, n8);
    for (size_t i = 0; i < n8; i++)
        u16[2 * i] = (uint8_t)text[i];
    free(text);
    struct rt_value v;
    assert_int_equal(rt_change_set_table(&more, "009", RT_TABLE_COUNTER, u16,
                                         2 * n8, NULL, NULL), 0);
    free(u16);
    rt_value_from_dword(&v, 2648);
    assert_int_equal(rt_change_set_perflib(&more, "Last Counter", &v), 0);
    assert_int_equal(rt_change_set_service(&more, "Transfer", "First Counter",
                                           &v), 0);
    rt_value_free(&v);
    assert_int_equal(rt_change_set_delete_service(&more, "Transfer", "Open"),
                     0);

    /* Without a failure: the state after, and how many writes it takes. */
    s = reopen(c);
    unsigned w0 = rt_io_totals.writes;
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &more, &e), 0);
    s->ops->end(s);
    unsigned writes = rt_io_totals.writes - w0;
    char *after = without_hive_bytes(hive_snapshot(s, c)), *journal;
    s->ops->close(s);
    assert_string_not_equal(after, before);
    assert_true(asprintf(&journal, "%s/Windows/System32/config/regtool.journal",
                         c->dir) > 0);

    unsigned back = 0, forward = 0;
    for (unsigned k = 1; k <= writes; k++) {
        tree_replace(c->dir, saved);
        s = reopen(c);
        rt_io_fail_at_write(k);
        assert_int_equal(s->ops->begin(s, &e), 0);
        e.committed = 0;
        if (s->ops->apply(s, &more, &e) == 0)
            fail_msg("apply went through a failing write %u of %u", k, writes);
        rt_io_fail_at_write(0);
        assert_int_not_equal(e.code, 0);
        s->ops->end(s);
        char *got;
        if (!rt_os_exists(journal)) {
            got = hive_snapshot(s, c);
            expect_state(got, before, "no journal left, and not the state "
                         "before", k, writes);
            if (e.committed)
                fail_msg("write %u of %u: said committed, nothing written",
                         k, writes);
            back++;
        } else {
            /* Said to stand (review 49 R49-4); the next writer finishes
             * the sealed commit. */
            if (!e.committed)
                fail_msg("write %u of %u: failed past the commit point, "
                         "not said committed", k, writes);
            s->ops->close(s);
            struct rt_error oe = {0};
            s = try_reopen(c, &oe);
            if (!s)
                fail_msg("write %u of %u: open: %s", k, writes, oe.message);
            assert_int_equal(s->ops->begin(s, &e), 0);
            s->ops->end(s);
            assert_false(rt_os_exists(journal));
            got = without_hive_bytes(hive_snapshot(s, c));
            expect_state(got, after, "after the commit point, and the next "
                         "writer did not finish it", k, writes);
            forward++;
        }
        free(got);
        s->ops->close(s);
    }
    /* Both outcomes; with tables as values the rollbacks include failures
     * after fresh bytes went into SOFTWARE (intents, fresh pages, body,
     * seal: more than two writes before the commit point). */
    assert_true(forward > 0);
    assert_true(back >= (c->files_layout ? 2u : 3u));
    if (scratch_remove(saved) != 0)
        fail_msg("cannot remove %s", saved);
    free(journal);
    free(saved);
    free(before);
    free(after);
    rt_change_set_free(&base);
    rt_change_set_free(&more);
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

/* A second handle on the fixture's tree, opened as it is. */
static struct rt_store *open_again(struct fixture_ctx *c)
{
    struct rt_hive_options o = {.tables_dir = c->files_layout ? c->tables : NULL,
                                .wait_seconds = -1};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    return s;
}

static uint32_t last_counter(struct rt_store *s)
{
    struct rt_value v;
    int present = 0;
    struct rt_error e = {0};
    assert_int_equal(s->ops->read_perflib(s, "Last Counter", &v, &present, &e),
                     0);
    assert_true(present);
    assert_int_equal(v.len, 4);
    uint32_t x = (uint32_t)v.data[0] | (uint32_t)v.data[1] << 8 |
                 (uint32_t)v.data[2] << 16 | (uint32_t)v.data[3] << 24;
    rt_value_free(&v);
    return x;
}

static void set_last_counter(struct rt_store *s, uint32_t x)
{
    struct rt_change_set cs = {0};
    struct rt_value v;
    struct rt_error e = {0};
    rt_value_from_dword(&v, x);
    assert_int_equal(rt_change_set_perflib(&cs, "Last Counter", &v), 0);
    rt_value_free(&v);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);
}

static void table_eq(struct rt_store *s, const void *want, size_t len)
{
    struct rt_value v;
    int present = 0;
    struct rt_error e = {0};
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    assert_int_equal(v.len, len);
    assert_memory_equal(v.data, want, len);
    rt_value_free(&v);
}

/* The store keeps the hives it read (and the state its own commits leave)
 * from one transaction to the next, but a file another writer changed
 * meanwhile is read again: each handle sees the other's commits. */
static void hive_sees_other_writers(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *a = hive_fixture_open(c);
    /* No lock file yet, so B's open takes no reader's lock: A can write
     * while B holds images read before A's commit. */
    struct rt_store *b = open_again(c);
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(a->ops->begin(a, &e), 0);
    assert_int_equal(a->ops->apply(a, &cs, &e), 0);
    a->ops->end(a);
    rt_change_set_free(&cs);

    assert_int_equal(b->ops->begin(b, &e), 0);
    assert_int_equal(last_counter(b), 1847);
    table_eq(b, contract_counter, sizeof contract_counter);
    b->ops->end(b);
    set_last_counter(b, 2000);

    /* A's images are its own commit's: B's is seen all the same. */
    assert_int_equal(a->ops->begin(a, &e), 0);
    assert_int_equal(last_counter(a), 2000);
    a->ops->end(a);
    /* And its own commits, one after the other, without reading. */
    set_last_counter(a, 2001);
    set_last_counter(a, 2002);
    assert_int_equal(last_counter(a), 2002);
    assert_int_equal(b->ops->begin(b, &e), 0);
    assert_int_equal(last_counter(b), 2002);
    b->ops->end(b);
    a->ops->close(a);
    b->ops->close(b);
}

/* A big table that gains a pair is written as the bytes that differ: the
 * commit costs the appended pair (twice: journal and file), not the
 * table; and a .dat file changed behind the store after read_table
 * still ends up exactly as the change says. */
static void table_append_writes_the_tail(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);

    /* 200 KB of pairs, then the same with one more. */
    size_t n = 200000 / 2, len = 0;
    uint16_t *big = calloc(n + 64, 2);
    assert_non_null(big);
    while (len + 40 < n) {
        char pair[40];
        int k = snprintf(pair, sizeof pair, "%zu", len * 2 + 2);
        for (int i = 0; i <= k; i++)
            big[len++] = (uint16_t)pair[i];
        k = snprintf(pair, sizeof pair, "Counter %zu", len);
        for (int i = 0; i <= k; i++)
            big[len++] = (uint16_t)pair[i];
    }
    big[len++] = 0;
    size_t old_len = len;
    static const char tail[] = "999999\0Appended\0";
    memcpy(big + old_len - 1, u"999999\0Appended\0", sizeof tail * 2);
    size_t new_len = old_len - 1 + sizeof tail;
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)big, old_len * 2,
                                         NULL, NULL), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);

    struct rt_io_stats before, after;
    assert_int_equal(s->ops->begin(s, &e), 0);
    table_eq(s, big, old_len * 2);
    rt_store_hive_stats(&before);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)big, new_len * 2,
                                         NULL, NULL), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);
    rt_store_hive_stats(&after);
    table_eq(s, big, new_len * 2);
    /* The pair is 34 bytes; a hive page or two of cell headers, the base
     * block and the journal's records come with it. */
    assert_in_range(after.bytes_written - before.bytes_written, 1,
                    c->files_layout ? 2048 : 24576);

    if (c->files_layout) {
        /* Read, then changed behind the store: other bytes at its start,
         * written in place (Windows refuses to replace or resize a file
         * the store has mapped). */
        char path[700];
        snprintf(path, sizeof path, "%s/perfc009.dat", c->tables);
        assert_int_equal(s->ops->begin(s, &e), 0);
        table_eq(s, big, new_len * 2);
        int fd = rt_os_open(path, RT_OS_WRITE);
        assert_true(fd >= 0);
        assert_int_equal(rt_os_pwrite(fd, "x\0y\0z\0\0\0", 8, 0), 0);
        assert_int_equal(rt_os_close(fd), 0);
        assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                             (const uint8_t *)big, old_len * 2,
                                             NULL, NULL), 0);
        assert_int_equal(s->ops->apply(s, &cs, &e), 0);
        s->ops->end(s);
        rt_change_set_free(&cs);
        uint8_t *data;
        size_t got;
        assert_int_equal(rt_os_read_file(path, &data, &got), 0);
        assert_int_equal(got, old_len * 2);
        assert_memory_equal(data, big, got);
        free(data);
    }
    free(big);
    s->ops->close(s);
}

/* The tables' other copies (store.h, read_table_copy): with .dat tables,
 * SysWOW64's file and a Counter value Perflib\009 still holds in the hive,
 * each read as it is and compared by rt_database_load_copies; a table
 * change then writes every copy. In the registry layout there are none. */
static void table_copies_read_and_written(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);
    s->ops->close(s);

    /* SysWOW64: System32's files, 009's names replaced by other ones. */
    static const char other[] = "2\0Other\0";
    char wow[700], path[900];
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", c->dir);
    assert_int_equal(rt_os_mkdirs(wow), 0);
    char **names;
    size_t n;
    assert_int_equal(rt_os_list_dir(c->tables, &names, &n), 0);
    for (size_t i = 0; i < n; i++) {
        if (strncmp(names[i], "perf", 4))
            continue;
        uint8_t *data;
        size_t len;
        snprintf(path, sizeof path, "%s/%s", c->tables, names[i]);
        assert_int_equal(rt_os_read_file(path, &data, &len), 0);
        snprintf(path, sizeof path, "%s/%s", wow, names[i]);
        if (!strcmp(names[i], "perfc009.dat"))
            assert_int_equal(rt_os_write_new_file(path, other, sizeof other), 0);
        else
            assert_int_equal(rt_os_write_new_file(path, data, len), 0);
        free(data);
    }
    rt_os_free_list(names, n);
    /* The hive: a Counter value under Perflib\009 with the same bytes. */
    struct rt_regf *h;
    char err[256];
    uint32_t key;
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "Microsoft\\Windows NT\\CurrentVersion\\"
                                    "Perflib\\009", &key), 0);
    assert_int_equal(rt_regf_value_set(h, key, "Counter", RT_REG_MULTI_SZ,
                                       (const uint8_t *)other, sizeof other), 0);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);

    s = open_again(c);
    struct rt_database db;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_database_load_copies(s, &db, &e), 0);
    if (!c->files_layout) {
        /* The tables are the hive's values; .dat files beside them are
         * not copies of them. */
        assert_int_equal(db.n_copy_diffs, 0);
        rt_database_free(&db);
        s->ops->close(s);
        return;
    }
    assert_int_equal(db.n_copy_diffs, 2);
    int seen = 0;
    for (size_t i = 0; i < db.n_copy_diffs; i++) {
        const struct rt_db_copy_diff *d = &db.copy_diffs[i];
        assert_string_equal(d->lang, "009");
        assert_int_equal(d->kind, RT_TABLE_COUNTER);
        assert_int_equal(d->copy_bytes, sizeof other);
        assert_true(d->first_index > 0);
        seen |= d->which;
    }
    assert_int_equal(seen, RT_COPY_WOW64 | RT_COPY_HIVE);
    rt_database_free(&db);
    /* Repair plans the copies back, from the copies read under the lock
     * (and freed: the leak checker of the unit tests sees them). */
    {
        static const struct rt_repair_options ro = {0};
        struct rt_change_set rcs = {0};
        struct rt_repair_report rr = {0};
        assert_int_equal(rt_op_repair(s, &ro, 1, NULL, NULL, &rcs, &rr, &e), 0);
        int copies = 0;
        for (size_t i = 0; i < rr.fixed.n; i++)
            copies += strstr(rt_finding_id(&rr.fixed.v[i]), "cop") != NULL;
        assert_true(copies > 0);
        rt_repair_report_free(&rr);
        rt_change_set_free(&rcs);
    }

    /* A table change writes System32's file, SysWOW64's and the value. */
    static const char now[] = "1\0" "1847\0" "2\0Now\0";
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)now, sizeof now,
                                         NULL, NULL), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);
    static const int which[] = {0, RT_COPY_WOW64, RT_COPY_HIVE};
    for (int w = 0; w < 3; w++) {
        struct rt_value v;
        int present = 0;
        if (!which[w])
            assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER,
                                                &v, &present, &e), 0);
        else
            assert_int_equal(s->ops->read_table_copy(s, "009",
                                                     RT_TABLE_COUNTER,
                                                     which[w], &v, &present,
                                                     &e), 0);
        assert_true(present);
        assert_int_equal(v.len, sizeof now);
        assert_memory_equal(v.data, now, sizeof now);
        rt_value_free(&v);
    }
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_database_load_copies(s, &db, &e), 0);
    assert_int_equal(db.n_copy_diffs, 0);
    rt_database_free(&db);
    s->ops->close(s);
}

/* The layout as the operations layer gives it (ops/ops.h), typed: .dat
 * files or registry values, as the fixture laid the tables out. */
static void layout_is_typed(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    assert_int_equal(rt_op_tables_layout(s), c->files_layout
                                                 ? RT_TABLES_IN_FILES
                                                 : RT_TABLES_IN_VALUES);
    rt_op_close(s);
}

/* An apply that stages thousands of side files grows its list of them
 * by doubling: a few reallocs of it in all, not one a file (4096 files of
 * 40 bytes each: past 16 KB, the list grew 3,700 times). The apply is
 * made to stop after staging them (rt_store_hive_fail_after), before
 * anything is written. */
static void staging_many_files_grows_by_doubling(void **state)
{
    (void)state;
#ifdef COUNTS_REALLOC
    enum { FILES = 4096 };
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    struct rt_change_set cs = {0};
    for (int i = 0; i < FILES; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "INF/Svc%d/0009/Svc%d.ini", i, i);
        assert_int_equal(rt_change_set_write_file(&cs, rel,
                                                  (const uint8_t *)"x", 1),
                         0);
    }
    /* Never staged: the apply stops before it. */
    assert_int_equal(rt_change_set_dword(&cs, NULL, "Last Counter", 2), 0);
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    rt_store_hive_fail_after(s, FILES);
    realloc_calls = realloc_large = 0;
    assert_int_equal(s->ops->apply(s, &cs, &e), -1);
    unsigned long calls = realloc_calls, growths = realloc_large;
    assert_non_null(strstr(e.message, "injected failure"));
    s->ops->end(s);
    s->ops->close(s);
    rt_change_set_free(&cs);
    /* Under valgrind, whose allocator takes realloc over in every object
     * (this hook's included), no call reaches the hook. */
    if (calls == 0)
        skip();
    if (growths > 64)
        fail_msg("%lu reallocs of 16 KB or more staging %d side files",
                 growths, FILES);
#else
    skip();
#endif
}

/* An INF copy's INI and symbol file (install writes them, uninstall
 * deletes them) are the store's own files however a path spells its
 * folder: "." and ".." in the parts not made yet (review 43: the patch
 * of install --emit-reg INF/T/./0009/x.ini replaced the INI the install
 * had just copied), another letter case and a short name of the tree
 * where the file system takes them as the same folder (Windows, whose
 * realpath resolves neither), either separator there. Nothing else
 * below the Windows folder is. */
static void inf_copy_is_its_own_however_spelled(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    static const char *const own[] = {
        "Windows/INF/TransferPerf/0009/transfer.ini",
        "Windows/INF/TransferPerf/./0009/x.h",
        "Windows/INF/X/../TransferPerf//0009/x.h",
        "Windows/System32/../INF/T/0009/x.ini",
        "Windows/System32/config/../../INF/T/0c0a/x.ini",
    };
    static const char *const other[] = {
        "Windows/INF/T/0009/sub/x.ini",
        "Windows/INF/T/00G9/x.ini",
        "Windows/INF/T/009/x.ini",
        "Windows/System32/INF/T/0009/x.ini",
        "INF/T/0009/x.ini",
        "Windows/INF/T/0009/../x.ini",
        "Windows/INF/../../Windows2/INF/T/0009/x.ini",
    };
    char path[1400], win[1400];
    for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
        snprintf(path, sizeof path, "%s/%s", c->dir, own[i]);
        if (!rt_store_owns_file(s, path))
            fail_msg("%s: not taken as the store's own", own[i]);
    }
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        snprintf(path, sizeof path, "%s/%s", c->dir, other[i]);
        if (rt_store_owns_file(s, path))
            fail_msg("%s: taken as the store's own", other[i]);
    }
    /* One folder in two letter cases where the file system says so. */
    snprintf(path, sizeof path, "%s/WINDOWS", c->dir);
    snprintf(win, sizeof win, "%s/Windows", c->dir);
    int one_name = rt_os_same_file(path, win);
    snprintf(path, sizeof path, "%s/WINDOWS/inf/T/0009/x.ini", c->dir);
    assert_int_equal(rt_store_owns_file(s, path) != 0, one_name);
#ifdef _WIN32
    assert_true(one_name);
    snprintf(path, sizeof path, "%s\\Windows\\INF\\T\\0009\\x.ini", c->dir);
    assert_true(rt_store_owns_file(s, path));
    snprintf(path, sizeof path, "%s\\Windows\\INF\\T\\.\\0009\\x.ini", c->dir);
    assert_true(rt_store_owns_file(s, path));
    /* The tree's short name (rths-... is longer than 8.3), where the
     * volume makes them. */
    char shortened[1200];
    DWORD k = GetShortPathNameA(c->dir, shortened, sizeof shortened);
    if (k && k < sizeof shortened && strcasecmp(shortened, c->dir)) {
        snprintf(path, sizeof path, "%s/Windows/INF/T/0009/x.ini", shortened);
        if (!rt_store_owns_file(s, path))
            fail_msg("%s: the tree by its short name not taken as the "
                     "store's own", path);
    }
#endif
    s->ops->close(s);
}

/* A file of the store that exists is its own by any name the file
 * system gives it: on Windows a short name (SOFTWA~1.LOG for
 * SOFTWARE.LOG1, PERFST~1.INI, REGTOO~1.JOU), which no spelling of the
 * long name matches; a second link to it anywhere. */
static void store_file_is_its_own_by_another_name(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    static const char *const files[] = {
        "Windows/System32/config/SOFTWARE.LOG1",
        "Windows/System32/PerfStringBackup.INI",
        "Windows/System32/config/regtool.journal",
    };
    char path[1400], other[1400];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", c->dir, files[i]);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fclose(f);
        assert_true(rt_store_owns_file(s, path));
#ifdef _WIN32
        DWORD k = GetShortPathNameA(path, other, sizeof other);
        assert_true(k > 0 && k < sizeof other);
        if (!strcasecmp(other, path))
            continue;       /* a volume without short names */
#else
        snprintf(other, sizeof other, "%s/second-name", c->dir);
        assert_int_equal(link(path, other), 0);
#endif
        if (!rt_store_owns_file(s, other))
            fail_msg("%s, %s by another name, not taken as the store's own",
                     other, files[i]);
#ifndef _WIN32
        assert_int_equal(unlink(other), 0);
#endif
        assert_int_equal(rt_os_unlink(path), 0);
    }
    s->ops->close(s);
}

/* A tree at the file system's (or a drive's) root, as in a chroot whose
 * "/" is the disk (review 48 R48-6: nothing was below "/", and a twin's
 * fallback refused no output): every file bearing a store file's name
 * below it is the store's, another is not. */
static void root_of_the_file_system_holds_its_files(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    char root[8], path[1400];
#ifdef _WIN32
    snprintf(root, sizeof root, "%.2s\\", c->dir);
#else
    snprintf(root, sizeof root, "/");
#endif
    snprintf(path, sizeof path, "%s/Windows/System32/perfc009.dat", c->dir);
    assert_true(rt_store_hive_root_holds(root, 0, path));
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    assert_true(rt_store_hive_root_holds(root, 0, path));
    snprintf(path, sizeof path, "%s/Windows/notes.txt", c->dir);
    assert_false(rt_store_hive_root_holds(root, 0, path));
}

/* Config holding SYSTEM and system (Windows sees one name there; which
 * file it would use is not known): the tree is refused at open, as a
 * store that is not what it claims, naming both; not passed over as a
 * tree where no hive was found. */
static void system_hive_twice_is_refused(void **state)
{
    (void)state;
#ifdef RT_OS_WIN32
    /* Windows' file names ignore case: "system" is SYSTEM itself. */
    skip();
#endif
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char from[700], to[700];
    snprintf(from, sizeof from, "%s/Windows/System32/config/SYSTEM", c->dir);
    snprintf(to, sizeof to, "%s/Windows/System32/config/system", c->dir);
    uint8_t *data;
    size_t len;
    assert_int_equal(rt_os_read_file(from, &data, &len), 0);
    assert_int_equal(rt_os_write_new_file(to, data, len), 0);
    free(data);
    struct rt_error e = {0};
    struct rt_store *s = try_reopen(c, &e);
    if (s)
        fail_msg("a tree with SYSTEM and system was opened");
    assert_int_equal(e.code, RT_ERR_BADDB);
    if (!strstr(e.message, "SYSTEM") || !strstr(e.message, "system") ||
        !strstr(e.message, "differ only in letter case"))
        fail_msg("the refusal does not name SYSTEM and system: %s",
                 e.message);
    assert_int_equal(rt_os_unlink(to), 0);
}

/* Sets FLAGS on KEY's key node and, NAME not NULL, rewrites its name
 * (a compressed name of the same length): what no writer makes, as a
 * hand-made hive holds it. */
static void patch_key(struct rt_regf *h, uint32_t key, uint16_t flags,
                      const char *name)
{
    uint8_t *nk;
    uint32_t len;
    assert_int_equal(regf_nk(h, key, &nk, &len), 0);
    uint16_t f = regf_le16(nk + NK_FLAGS) | flags;
    nk[NK_FLAGS] = f & 0xFF;
    nk[NK_FLAGS + 1] = f >> 8;
    if (name) {
        assert_true(f & KEY_COMP_NAME);
        assert_int_equal(regf_le16(nk + NK_NAMELEN), strlen(name));
        memcpy(nk + NK_NAME, name, strlen(name));
    }
}

/* Flips a bit of the hash Session Manager's subkey list (one lh entry)
 * holds beside ENV, its Environment key. */
static void flip_environment_hash(struct rt_regf *h, uint32_t env)
{
    uint32_t key, len, list_len;
    uint8_t *nk, *list;
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control\\Session Manager",
                                    &key), 0);
    assert_int_equal(regf_nk(h, key, &nk, &len), 0);
    assert_int_equal(regf_cell(h, regf_le32(nk + NK_SUBLIST), "subkey list",
                               &list, &list_len), 0);
    assert_memory_equal(list, "lh", 2);
    assert_int_equal(regf_le16(list + 2), 1);
    assert_int_equal(regf_le32(list + 4), env);
    list[8] ^= 1;
}

/* Swaps the first two entries (and their hashes) of KEY's subkey list,
 * one lh leaf. */
static void swap_first_two_subkeys(struct rt_regf *h, uint32_t key)
{
    uint32_t len, list_len;
    uint8_t *nk, *list, entry[8];
    assert_int_equal(regf_nk(h, key, &nk, &len), 0);
    assert_int_equal(regf_cell(h, regf_le32(nk + NK_SUBLIST), "subkey list",
                               &list, &list_len), 0);
    assert_memory_equal(list, "lh", 2);
    assert_true(regf_le16(list + 2) >= 2);
    memcpy(entry, list + 4, 8);
    memmove(list + 4, list + 12, 8);
    memcpy(list + 12, entry, 8);
}

/* Reads NAME of the control set's Session Manager\Environment through
 * the store of C: 0 and *PRESENT, or -1 with E's words in WHY. */
static int read_environment(struct fixture_ctx *c, const char *name,
                            int *present, char *why, size_t size)
{
    struct rt_hive_options o = {.wait_seconds = -1};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    struct rt_value v;
    int r = s->ops->read_machine(s, 1, "Control\\Session Manager\\Environment",
                                 name, &v, present, &e);
    if (r == 0 && *present > 0)
        rt_value_free(&v);
    snprintf(why, size, "%s", e.message);
    rt_op_close(s);
    return r;
}

/* A machine value is read where Windows reads it or not at all (review
 * 48 R48-2, review 49 R49-10, R49-2): windir held again as "windir<NUL>x"
 * (which Windows' session manager sets as windir), Environment listed
 * beside a hash that is not its name's, or Session Manager held twice in
 * letter cases that differ on the way, is refused, naming why, where the
 * first found was taken. */
static void machine_values_read_only_where_windows_reads_them(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char path[700], err[256], why[1100];
    struct rt_regf *h;
    uint32_t key, env, val;
    static const uint8_t windows[] = {'C', 0, ':', 0, '\\', 0, 'W', 0, 0, 0};
    /* A key that is not there is told from a value that is not (review
     * 49 R49-11: an Environment key without windir leaves %windir%
     * unexpanded, where a tree without the key is setup's). */
    int present = 0;
    assert_int_equal(read_environment(c, "windir", &present, why, sizeof why),
                     0);
    assert_int_equal(present, -1);
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", c->dir);
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "ControlSet001", &key),
                     0);
    assert_int_equal(rt_regf_key_create(h, key, "Control", &key), 0);
    assert_int_equal(rt_regf_key_create(h, key, "Session Manager", &key), 0);
    assert_int_equal(rt_regf_key_create(h, key, "Environment", &env), 0);
    assert_int_equal(rt_regf_value_set(h, env, "windir", RT_REG_EXPAND_SZ,
                                       windows, sizeof windows), 0);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(
        read_environment(c, "windir", &present, why, sizeof why), 0);
    assert_int_equal(present, 1);
    assert_int_equal(
        read_environment(c, "TEMP", &present, why, sizeof why), 0);
    assert_int_equal(present, 0);
    /* "windir<NUL>x" beside it. */
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control\\Session Manager"
                                    "\\Environment", &env), 0);
    assert_int_equal(rt_regf_value_set(h, env, "windirQx", RT_REG_EXPAND_SZ,
                                       windows, sizeof windows), 0);
    assert_int_equal(rt_regf_value_find(h, env, "windirQx", &val), 0);
    uint8_t *vk;
    uint32_t len;
    assert_int_equal(regf_vk(h, val, &vk, &len), 0);
    vk[VK_NAME + 6] = 0;
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(
        read_environment(c, "windir", &present, why, sizeof why), -1);
    assert_non_null(strstr(why, "followed by a NUL"));
    /* Session Manager twice on the way (the NUL name taken away). */
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control\\Session Manager"
                                    "\\Environment", &env), 0);
    assert_int_equal(regf_vk(h, val, &vk, &len), 0);
    vk[VK_NAME + 6] = 'Q';
    /* Environment listed beside a hash that is not its name's, which
     * Windows' lookup compares first and passes over (R49-2). */
    flip_environment_hash(h, env);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(
        read_environment(c, "windir", &present, why, sizeof why), -1);
    assert_non_null(strstr(why, "Environment is listed beside a hash"));
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    flip_environment_hash(h, env);
    /* Session Manager's list out of Windows' order, each hash right
     * (review 51 R51-7: Windows' binary search misses Environment). */
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control\\Session Manager",
                                    &key), 0);
    uint32_t zzz;
    assert_int_equal(rt_regf_key_create(h, key, "Zzz", &zzz), 0);
    swap_first_two_subkeys(h, key);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(
        read_environment(c, "windir", &present, why, sizeof why), -1);
    assert_non_null(strstr(why, "out of Windows' order"));
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control\\Session Manager",
                                    &key), 0);
    swap_first_two_subkeys(h, key);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Control", &key), 0);
    assert_int_equal(rt_regf_key_create(h, key, "SESSION MANAGES", &key), 0);
    patch_key(h, key, 0, "SESSION MANAGER");
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    assert_int_equal(
        read_environment(c, "windir", &present, why, sizeof why), -1);
    assert_non_null(strstr(why, "two keys whose names differ only"));
}

/* A SYSTEM without a Services key has no key anomalies there: the
 * children of a key that is not there are none, not a failure (a
 * mutation-score survivor: scan_children returning 1 for it made every
 * audit of such a tree fail). */
static void no_services_key_has_no_anomalies(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char path[700], err[256];
    struct rt_regf *h;
    uint32_t svcs;
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", c->dir);
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "ControlSet001\\Services",
                                    &svcs), 0);
    assert_int_equal(rt_regf_key_delete(h, svcs, RT_REGF_RECURSIVE), 0);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    struct rt_store *s = reopen(c);
    assert_non_null(s);
    struct rt_key_anomaly *v = NULL;
    size_t n = 1;
    struct rt_error e = {0};
    assert_int_equal(s->ops->key_anomalies(s, &v, &n, &e), 0);
    assert_int_equal(n, 0);
    rt_key_anomalies_free(v, n);
    rt_op_close(s);
}

/* Link keys (a service's key, a service's Performance key, a Perflib
 * subkey) and subkeys equal but for case (two services, two Perflib
 * languages) are each listed by key_anomalies, with the link's target;
 * a plain tree has none. Before, the store had no way to say so and
 * such a tree audited clean (issue 37). */
static void link_keys_and_case_twins_are_listed(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    struct rt_key_anomaly *v;
    size_t n;
    struct rt_error e = {0};
    assert_non_null(s->ops->key_anomalies);
    assert_int_equal(s->ops->key_anomalies(s, &v, &n, &e), 0);
    assert_int_equal(n, 0);
    rt_key_anomalies_free(v, n);
    rt_op_close(s);

    char path[700], err[256];
    struct rt_regf *h;
    uint32_t svcs, key, sub;
    uint8_t target[64];
    size_t tlen = 0;
    for (const char *t = "\\REGISTRY\\MACHINE\\SYSTEM\\Hidden"; *t; t++) {
        target[tlen++] = (uint8_t)*t;
        target[tlen++] = 0;
    }
    snprintf(path, sizeof path, "%s/Windows/System32/config/SYSTEM", c->dir);
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "ControlSet001\\Services",
                                    &svcs), 0);
    assert_int_equal(rt_regf_key_create(h, svcs, "Linky", &key), 0);
    assert_int_equal(rt_regf_value_set(h, key, "SymbolicLinkValue",
                                       RT_REG_LINK, target, tlen), 0);
    patch_key(h, key, RT_REGF_KEY_SYM_LINK, NULL);
    assert_int_equal(rt_regf_key_create(h, svcs, "Sneaky", &key), 0);
    assert_int_equal(rt_regf_key_create(h, key, "Performance", &sub), 0);
    patch_key(h, sub, RT_REGF_KEY_SYM_LINK, NULL);
    assert_int_equal(rt_regf_key_create(h, svcs, "PerfOS", &key), 0);
    assert_int_equal(rt_regf_key_create(h, svcs, "PERFOT", &key), 0);
    patch_key(h, key, 0, "PERFOS");
    /* Listed under Services, its parent the root: a key in two lists, or
     * (had the root been listed) a loop. */
    assert_int_equal(rt_regf_key_create(h, svcs, "Stray", &key), 0);
    {
        uint8_t *nk;
        uint32_t len, root = rt_regf_root(h);
        assert_int_equal(regf_nk(h, key, &nk, &len), 0);
        for (int i = 0; i < 4; i++)
            nk[NK_PARENT + i] = (uint8_t)(root >> (8 * i));
    }
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "Microsoft\\Windows NT\\CurrentVersion\\Perflib",
                                    &svcs), 0);
    assert_int_equal(rt_regf_key_create(h, svcs, "CurrentLanguage", &key), 0);
    assert_int_equal(rt_regf_key_create(h, svcs, "CURRENTLANGUAGF", &key), 0);
    patch_key(h, key, 0, "CURRENTLANGUAGE");
    assert_int_equal(rt_regf_key_create(h, svcs, "Linked", &key), 0);
    patch_key(h, key, RT_REGF_KEY_SYM_LINK, NULL);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);

    s = reopen(c);
    assert_int_equal(s->ops->key_anomalies(s, &v, &n, &e), 0);
    static const struct {
        enum rt_key_anomaly_kind kind;
        int in_perflib;
        const char *key, *other;
    } want[] = {
        {RT_KEY_LINK, 0, "SYSTEM\\ControlSet001\\Services\\Linky",
         "\\REGISTRY\\MACHINE\\SYSTEM\\Hidden"},
        {RT_KEY_LINK, 0, "SYSTEM\\ControlSet001\\Services\\Sneaky\\Performance",
         NULL},
        {RT_KEY_CASE_TWINS, 0, "SYSTEM\\ControlSet001\\Services\\PERFOS",
         "SYSTEM\\ControlSet001\\Services\\PerfOS"},
        {RT_KEY_MISPARENTED, 0, "SYSTEM\\ControlSet001\\Services\\Stray", NULL},
        {RT_KEY_LINK, 1,
         "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\Linked", NULL},
        {RT_KEY_CASE_TWINS, 1,
         "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\CURRENTLANGUAGE",
         "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\CurrentLanguage"},
    };
    assert_int_equal(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++) {
        size_t k = 0;
        while (k < n && strcmp(want[k].key, v[i].key))
            k++;
        if (k == n)
            fail_msg("unexpected anomaly %s", v[i].key);
        assert_int_equal(v[i].kind, want[k].kind);
        assert_int_equal(v[i].in_perflib, want[k].in_perflib);
        if (want[k].other)
            assert_string_equal(v[i].other, want[k].other);
        else
            assert_null(v[i].other);
    }
    /* A writer refuses the tree, naming the first. */
    assert_int_equal(rt_op_refuse_key_anomalies(s, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, "nothing was written"));
    rt_key_anomalies_free(v, n);
    rt_op_close(s);
}

struct journal_bytes {
    uint8_t b[4096];
    size_t n;
};

static void jb_put(struct journal_bytes *j, const void *p, size_t k)
{
    assert_true(j->n + k <= sizeof j->b);
    memcpy(j->b + j->n, p, k);
    j->n += k;
}

static void jb_put32(struct journal_bytes *j, uint32_t x)
{
    uint8_t q[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
                    (uint8_t)(x >> 24)};
    jb_put(j, q, 4);
}

/* Writes an unsealed journal (a commit cut before its commit point) in
 * C's config folder, as commit_build.c lays one out: header, note and an
 * intent block of N files (NAMES, relative to the store's base, each
 * SIZES[i] bytes before), with its checksum, and no record after. */
static char *plant_unsealed_journal(struct fixture_ctx *c, size_t n,
                                    const char *const *names,
                                    const uint64_t *sizes)
{
    static struct journal_bytes j;
    j.n = 0;
    jb_put(&j, "RTJOURN3", 8);
    jb_put32(&j, 1700000000u);      /* the time, 64 bits */
    jb_put32(&j, 0);
    jb_put32(&j, 15);
    jb_put(&j, "install of Xfer", 15);
    jb_put32(&j, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        jb_put32(&j, (uint32_t)strlen(names[i]));
        jb_put32(&j, (uint32_t)sizes[i]);
        jb_put32(&j, (uint32_t)(sizes[i] >> 32));
        jb_put(&j, names[i], strlen(names[i]));
    }
    jb_put32(&j, rt_crc32(0, j.b, j.n));
    char *path;
    assert_true(asprintf(&path, "%s/Windows/System32/config/regtool.journal",
                         c->dir) > 0);
    assert_int_equal(rt_os_write_new_file(path, j.b, j.n), 0);
    return path;
}

static char notices[8192];

static void keep_notice(const char *line)
{
    size_t at = strlen(notices);
    snprintf(notices + at, sizeof notices - at, "%s\n", line);
}

/* A writer that finds an unsealed journal discards it (its fresh bytes
 * cut off, here none) and goes on with its own commit, saying so. */
static void unsealed_journal_is_discarded_by_the_next_writer(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char sw[700];
    snprintf(sw, sizeof sw, "%s/Windows/System32/config/SOFTWARE", c->dir);
    struct rt_os_stat st;
    assert_int_equal(rt_os_stat(sw, &st), 0);
    /* SOFTWARE at its present size: cutting it back changes nothing. */
    const char *names[] = {"System32/config/SOFTWARE"};
    const uint64_t sizes[] = {st.size};
    char *journal = plant_unsealed_journal(c, 1, names, sizes);
    notices[0] = '\0';
    struct rt_hive_options o = {.tables_dir = c->files_layout ? c->tables : NULL,
                                .wait_seconds = -1, .notice = keep_notice};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    if (s->ops->begin(s, &e) != 0)
        fail_msg("begin: %s\n%s", e.message, notices);
    s->ops->end(s);
    assert_false(rt_os_exists(journal));
    if (!strstr(notices, "discarded an unfinished install of Xfer"))
        fail_msg("no notice of the discarded journal:\n%s", notices);
    set_last_counter(s, 1900);
    assert_int_equal(last_counter(s), 1900);
    s->ops->close(s);
    free(journal);
}

/* A journal may name a .dat table only in the tables' folder (or
 * SysWOW64's copy): perfc009.dat in a folder above System32, whose path
 * System32's begins with, is outside the store and refused whole, the
 * journal left where it is. */
static void journal_naming_a_table_above_system32_is_refused(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    const char *names[] = {"perfc009.dat"};
    const uint64_t sizes[] = {0};
    char *journal = plant_unsealed_journal(c, 1, names, sizes);
    struct rt_store *s = open_again(c);
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), -1);
    if (!strstr(e.message, "perfc009.dat"))
        fail_msg("the refusal does not name perfc009.dat: %s", e.message);
    assert_true(rt_os_exists(journal));
    char wrong[700];
    snprintf(wrong, sizeof wrong, "%s/Windows/perfc009.dat", c->dir);
    assert_false(rt_os_exists(wrong));
    s->ops->close(s);
    assert_int_equal(rt_os_unlink(journal), 0);
    free(journal);
}

/* A side file given the bytes it already holds costs the commit nothing:
 * no write to it and no fsync of it (a commit of the same change without
 * it does as many of each). */
static void unchanged_side_file_is_not_touched(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    struct rt_store *s = hive_fixture_open(c);
    static const char rel[] = "INF/Xfer/0009/xfer.ini";
    static const char ini[] = "[info]\r\ndrivername=Xfer\r\n";
    unsigned writes[2], fsyncs[2];
    for (int round = 0; round < 3; round++) {
        struct rt_change_set cs = {0};
        struct rt_value v;
        rt_value_from_dword(&v, 1900 + 2 * (uint32_t)round);
        assert_int_equal(rt_change_set_perflib(&cs, "Last Counter", &v), 0);
        rt_value_free(&v);
        if (round != 1)
            assert_int_equal(rt_change_set_write_file(
                                 &cs, rel, (const uint8_t *)ini,
                                 sizeof ini - 1), 0);
        struct rt_error e = {0};
        unsigned w0 = rt_io_totals.writes, f0 = rt_io_totals.fsyncs;
        assert_int_equal(s->ops->begin(s, &e), 0);
        if (s->ops->apply(s, &cs, &e) != 0)
            fail_msg("round %d: %s", round, e.message);
        s->ops->end(s);
        rt_change_set_free(&cs);
        if (round) {
            writes[round - 1] = rt_io_totals.writes - w0;
            fsyncs[round - 1] = rt_io_totals.fsyncs - f0;
        }
    }
    if (writes[1] != writes[0] || fsyncs[1] != fsyncs[0])
        fail_msg("the unchanged side file cost %u writes and %u fsyncs more",
                 writes[1] - writes[0], fsyncs[1] - fsyncs[0]);
    assert_int_equal(last_counter(s), 1904);
    s->ops->close(s);
}

/* A .dat table that grows past the page its old end lies in, the bytes
 * it gains zeros up to the end of the next page: they are written, into
 * the journal and the file, the commit costing them (twice) and little
 * more, and the file ends up as the change says. Each page is compared
 * with the old file's view only up to the old end: compared beyond it,
 * the view's zero padding past the end would pass for the new zeros and
 * they would go unwritten (left to the file's growth), or the comparison
 * would run past the view and the new bytes (a sanitizer's overflow,
 * or a fault). */
static void dat_growth_past_its_old_page_is_written(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    if (!c->files_layout)
        skip();
    enum { PAGE = 4096, OLD = PAGE + 100, NEW = 2 * PAGE };
    static uint8_t old_table[OLD], new_table[NEW];
    for (size_t i = 0; i < OLD; i++)
        old_table[i] = (uint8_t)('a' + i % 23);
    memcpy(new_table, old_table, OLD);
    memset(new_table + OLD, 0, NEW - OLD);
    struct rt_store *s = hive_fixture_open(c);
    char path[700];
    snprintf(path, sizeof path, "%s/perfc009.dat", c->tables);
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         old_table, OLD, NULL, NULL), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);

    struct rt_io_stats before, after;
    assert_int_equal(s->ops->begin(s, &e), 0);
    table_eq(s, old_table, OLD);
    rt_store_hive_stats(&before);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         new_table, NEW, NULL, NULL), 0);
    if (s->ops->apply(s, &cs, &e) != 0)
        fail_msg("apply: %s", e.message);
    s->ops->end(s);
    rt_change_set_free(&cs);
    rt_store_hive_stats(&after);
    uint64_t cost = after.bytes_written - before.bytes_written;
    if (cost < 2 * (NEW - OLD) || cost > 2 * (NEW - OLD) + 2048)
        fail_msg("growing the table by %d bytes wrote %llu bytes, not "
                 "twice those and a little more", NEW - OLD,
                 (unsigned long long)cost);
    uint8_t *data;
    size_t got;
    if (rt_os_read_file(path, &data, &got) != 0)
        fail_msg("%s: %s", path, rt_os_strerror(errno));
    assert_int_equal(got, NEW);
    assert_memory_equal(data, new_table, NEW);
    free(data);
    table_eq(s, new_table, NEW);
    s->ops->close(s);
}

/* A .dat table mapped once is kept while its file is as it was (a tree's
 * thousands of tables are each looked for several times in one install)
 * and forgotten once the file is written. */
static void dat_view_kept_while_its_file_is_unchanged(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtdat");
    char path[600];
    snprintf(path, sizeof path, "%s/perfc009.dat", dir);
    static const uint8_t t1[] = {'1', 0, 0, 0, '1', 0, '8', 0, 0, 0, 0, 0};
    static const uint8_t t2[] = {'1', 0, 0, 0, '2', 0, 0, 0, 0, 0};
    assert_int_equal(rt_os_replace_file(path, t1, sizeof t1, 0644), 0);
    struct hive_store s;
    memset(&s, 0, sizeof s);
    struct dat_seen *d = hive_dat_seen_map(&s, path);
    assert_non_null(d);
    assert_int_equal(d->map.len, sizeof t1);
    assert_ptr_equal(hive_dat_seen_find(&s, path), d);
    assert_ptr_equal(hive_dat_seen_map(&s, path), d);
    assert_int_equal(s.n_dats, 1);
    assert_int_equal(s.dats_held, sizeof t1);
    assert_int_equal(rt_os_replace_file(path, t2, sizeof t2, 0644), 0);
    assert_null(hive_dat_seen_find(&s, path));
    assert_int_equal(s.n_dats, 0);
    assert_int_equal(s.dats_held, 0);
    hive_dats_drop(&s);
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

/* A .dat table that stands in the tree but cannot be read (a folder in
 * its place, put there by another program after the store was opened):
 * reading the table from a given byte on fails naming the file, as a
 * whole read does, never takes the table for absent. */
static void unreadable_dat_table_read_from_is_an_error(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    if (!c->files_layout)
        skip();
    struct rt_store *s = hive_fixture_open(c);
    char path[700], aside[720];
    snprintf(path, sizeof path, "%s/perfh009.dat", c->tables);
    snprintf(aside, sizeof aside, "%s.aside", path);
    static const uint8_t help[] = {'1', 0, 0, 0, 'H', 0, 0, 0, 0, 0};
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_HELP, help,
                                         sizeof help, NULL, NULL), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, &cs, &e) != 0)
        fail_msg("apply: %s", e.message);
    s->ops->end(s);
    rt_change_set_free(&cs);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(rt_os_rename(path, aside), 0);
    assert_int_equal(rt_os_mkdir(path), 0);
    struct rt_value v = {0};
    size_t len = 0;
    int present = 0;
    int r = s->ops->read_table_from(s, "009", RT_TABLE_HELP, 1, &v, &len,
                                    &present, &e);
    assert_int_equal(rt_os_rmdir(path), 0);
    assert_int_equal(rt_os_rename(aside, path), 0);
    s->ops->end(s);
    s->ops->close(s);
    assert_int_equal(r, -1);
    if (!strstr(e.message, "perfh009.dat"))
        fail_msg("the error names no file: %s", e.message);
    rt_value_free(&v);
}

#if defined(__linux__) && defined(__GLIBC__)
#include <fcntl.h>
#include <sys/stat.h>

/* Test hook: while STAT_SHRINK names a file, a stat of it (by path, or
 * by a folder and its name) reports it one byte shorter than it is; its
 * descriptor's fstat tells the truth. So the file looks as if it grew by
 * a byte between the two, as a writer that ignores the lock could make
 * it. The library calls stat64 and fstatat64 (-D_FILE_OFFSET_BITS=64),
 * which these definitions take over in the test program. */
static const char *stat_shrink;

static void shrink(const char *path, int r, struct stat64 *st)
{
    if (r || !stat_shrink || st->st_size < 1)
        return;
    size_t n = strlen(path), k = strlen(stat_shrink);
    if (n >= k && !strcmp(path + n - k, stat_shrink) &&
        (n == k || path[n - k - 1] == '/'))
        st->st_size--;
}

int stat64(const char *path, struct stat64 *st);
int stat64(const char *path, struct stat64 *st)
{
    static int (*real)(const char *, struct stat64 *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "stat64");
    int r = real(path, st);
    shrink(path, r, st);
    return r;
}

int fstatat64(int dir, const char *path, struct stat64 *st, int flags);
int fstatat64(int dir, const char *path, struct stat64 *st, int flags)
{
    static int (*real)(int, const char *, struct stat64 *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fstatat64");
    int r = real(dir, path, st, flags);
    shrink(path, r, st);
    return r;
}

static void sparse_file(const char *dir, const char *name, off_t size)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, size), 0);
    assert_int_equal(close(fd), 0);
}

/* The .dat tables a tree's views hold together are capped: four tables
 * of 256 MiB (the cap for one) are held, then a fifth that looked empty
 * when its size was read but is a byte long when it is mapped is refused
 * as over the cap, not read. The tables are sparse files, never read. */
static void dat_table_grown_past_the_total_cap_is_refused(void **state)
{
    (void)state;
    struct fixture_ctx *c = contract.ctx;
    if (!c->files_layout)
        skip();
    struct rt_store *s = hive_fixture_open(c);
    s->ops->close(s);
    char path[700], err[256];
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c->dir);
    struct rt_regf *h;
    uint32_t key;
    assert_int_equal(rt_regf_open(path, RT_REGF_WRITE, &h, err, sizeof err), 0);
    static const char *const langs[] = {"009", "007", "00A"};
    for (int i = 0; i < 3; i++) {
        char k[80];
        snprintf(k, sizeof k, "Microsoft\\Windows NT\\CurrentVersion\\Perflib\\%s",
                 langs[i]);
        assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), k, &key),
                         0);
    }
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
    const off_t cap = (off_t)256 << 20;
    sparse_file(c->tables, "perfc009.dat", cap);
    sparse_file(c->tables, "perfh009.dat", cap);
    sparse_file(c->tables, "perfc007.dat", cap);
    sparse_file(c->tables, "perfh007.dat", cap);
    sparse_file(c->tables, "perfc00a.dat", 1);
    sparse_file(c->tables, "perfh00a.dat", 0);
    stat_shrink = "perfc00a.dat";
    s = reopen(c);
    struct rt_error e = {0};
    if (s->ops->begin(s, &e) != 0)
        fail_msg("begin: %s", e.message);
    for (int i = 0; i < 2; i++)
        for (int t = 0; t < 2; t++) {
            struct rt_table_pieces p;
            int present = 0;
            assert_int_equal(s->ops->read_table_pieces(
                                 s, langs[i], t ? RT_TABLE_HELP : RT_TABLE_COUNTER,
                                 &p, &present, &e), 0);
            assert_true(present);
            assert_int_equal(p.total, (size_t)cap);
            rt_table_pieces_free(&p);
        }
    struct rt_value v = {0};
    int present = 0;
    int r = s->ops->read_table(s, "00A", RT_TABLE_COUNTER, &v, &present, &e);
    stat_shrink = NULL;
    s->ops->end(s);
    s->ops->close(s);
    rt_value_free(&v);
    assert_int_equal(r, -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    if (!strstr(e.message, "perfc00a.dat") ||
        !strstr(e.message, "the .dat tables of a tree may be together"))
        fail_msg("not refused as over the cap: %s", e.message);
}
#define HAS_STAT_HOOK 1
#endif

#ifdef FAILS_ASPRINTF
#include "dirty_log.h"

/* Makes the clean hive at PATH dirty as Windows leaves one whose last
 * write is only in its transaction log (tests/cli/mkdirty.c): sequence
 * numbers S+1/S, and PATH.LOG1 holding one entry of sequence S+1 that
 * rewrites the first bins page, its timestamp changed. */
static void make_dirty(const char *path)
{
    uint8_t *hive;
    size_t len;
    assert_int_equal(rt_os_read_file(path, &hive, &len), 0);
    assert_true(len >= REGF_BASE_BLOCK_SIZE + DIRTY_LOG_PAGE);
    assert_false(regf_base_is_dirty(hive));
    static uint8_t log[DIRTY_LOG_SIZE];
    dirty_log_build(hive, hive + REGF_BASE_BLOCK_SIZE, log);
    char log_path[900];
    snprintf(log_path, sizeof log_path, "%s.LOG1", path);
    assert_int_equal(rt_os_write_new_file(log_path, log, sizeof log), 0);
    assert_int_equal(rt_os_replace_file(path, hive, len, 0644), 0);
    free(hive);
}

/* The names in DIR that hold ".regtool-" (the copies a replay keeps). */
static size_t copies_aside(const char *dir)
{
    char **names;
    size_t n, k = 0;
    assert_int_equal(rt_os_list_dir(dir, &names, &n), 0);
    for (size_t i = 0; i < n; i++)
        k += strstr(names[i], ".regtool-") != NULL;
    rt_os_free_list(names, n);
    return k;
}

#endif

/* A dirty SOFTWARE is replayed from its log by the writer, which first
 * copies the hive and the log aside (FILE.regtool-STAMP). A copy whose
 * name cannot be made (out of memory) stops the commit before anything
 * is written: the error says so, the hive and its log keep their bytes,
 * no copy is left; with memory the same commit is made, the copies
 * beside the files. */
static void replay_copies_out_of_memory_stop_the_commit(void **state)
{
    (void)state;
#ifdef FAILS_ASPRINTF
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char config[700], sw[800], log1[800];
    snprintf(config, sizeof config, "%s/Windows/System32/config", c->dir);
    snprintf(sw, sizeof sw, "%s/SOFTWARE", config);
    snprintf(log1, sizeof log1, "%s/SOFTWARE.LOG1", config);
    make_dirty(sw);
    uint8_t *hive0, *log0, *now;
    size_t hive0_len, log0_len, len;
    assert_int_equal(rt_os_read_file(sw, &hive0, &hive0_len), 0);
    assert_int_equal(rt_os_read_file(log1, &log0, &log0_len), 0);

    struct rt_change_set cs = {0};
    struct rt_value v;
    rt_value_from_dword(&v, 1900);
    assert_int_equal(rt_change_set_perflib(&cs, "Last Counter", &v), 0);
    rt_value_free(&v);
    struct rt_error e = {0};
    /* In a child: a commit that went on without its copy's name could
     * end the process, and with it this test program. Exit 0: refused
     * as out of memory; 1: it was not; 3: the hook was never reached
     * (the library does not call this asprintf). */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* A fault ends the child here, not in cmocka's handler, which
         * would go on to the next test in this copy of the program. */
        static const int faults[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE,
                                     SIGABRT};
        for (size_t i = 0; i < sizeof faults / sizeof *faults; i++)
            signal(faults[i], SIG_DFL);
        struct rt_error ce = {0};
        struct rt_store *child = rt_store_hive_open(
            c->dir,
            &(struct rt_hive_options){.tables_dir = c->files_layout
                                                        ? c->tables
                                                        : NULL,
                                      .wait_seconds = -1},
            NULL, &ce);
        if (!child || child->ops->begin(child, &e) != 0)
            _exit(1);
        asprintf_fail_format = "%s.regtool-%s";
        int r = child->ops->apply(child, &cs, &e);
        asprintf_fail_format = NULL;
        if (!asprintf_failed)
            _exit(3);
        if (r != -1 || e.code != RT_ERR_NOT_ENOUGH_MEMORY) {
            fprintf(stderr, "apply: %d, %s\n", r, e.message);
            _exit(1);
        }
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        rt_change_set_free(&cs);
        free(hive0);
        free(log0);
        skip();
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("the commit without its copy's name was not refused as "
                 "out of memory (%s %d)",
                 WIFEXITED(status) ? "exit" : "signal",
                 WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    assert_int_equal(copies_aside(config), 0);
    assert_int_equal(rt_os_read_file(sw, &now, &len), 0);
    assert_int_equal(len, hive0_len);
    assert_memory_equal(now, hive0, len);
    free(now);
    assert_int_equal(rt_os_read_file(log1, &now, &len), 0);
    assert_int_equal(len, log0_len);
    assert_memory_equal(now, log0, len);
    free(now);

    struct rt_store *s = open_again(c);
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, &cs, &e) != 0)
        fail_msg("with memory: %s", e.message);
    s->ops->end(s);
    assert_int_equal(copies_aside(config), 2);
    assert_int_equal(last_counter(s), 1900);
    rt_change_set_free(&cs);
    s->ops->close(s);
    free(hive0);
    free(log0);
#else
    skip();
#endif
}

/* A dirty SOFTWARE replayed and written by one commit is a clean hive
 * from then on: a second commit of the same session writes only what it
 * changes, copying nothing aside again (the copies of the first stay the
 * only ones). */
static void replayed_hive_is_clean_after_its_commit(void **state)
{
    (void)state;
#ifdef FAILS_ASPRINTF
    struct fixture_ctx *c = contract.ctx;
    rt_op_close(hive_fixture_open(c));
    char config[700], sw[800];
    snprintf(config, sizeof config, "%s/Windows/System32/config", c->dir);
    snprintf(sw, sizeof sw, "%s/SOFTWARE", config);
    make_dirty(sw);
    struct rt_store *s = open_again(c);
    struct rt_error e = {0};
    for (uint32_t last = 1900; last <= 1901; last++) {
        struct rt_change_set cs = {0};
        struct rt_value v;
        rt_value_from_dword(&v, last);
        assert_int_equal(rt_change_set_perflib(&cs, "Last Counter", &v), 0);
        rt_value_free(&v);
        assert_int_equal(s->ops->begin(s, &e), 0);
        if (s->ops->apply(s, &cs, &e) != 0)
            fail_msg("commit %u: %s", last - 1899, e.message);
        s->ops->end(s);
        rt_change_set_free(&cs);
        assert_int_equal(copies_aside(config), 2);
        assert_int_equal(last_counter(s), last);
    }
    s->ops->close(s);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        STORE_CONTRACT_TESTS,
        cmocka_unit_test(hive_sees_other_writers),
        cmocka_unit_test(table_append_writes_the_tail),
        cmocka_unit_test(failing_write_mid_commit),
        cmocka_unit_test(table_copies_read_and_written),
        cmocka_unit_test(layout_is_typed),
        cmocka_unit_test(staging_many_files_grows_by_doubling),
        cmocka_unit_test(system_hive_twice_is_refused),
        cmocka_unit_test(inf_copy_is_its_own_however_spelled),
        cmocka_unit_test(store_file_is_its_own_by_another_name),
        cmocka_unit_test(root_of_the_file_system_holds_its_files),
        cmocka_unit_test(machine_values_read_only_where_windows_reads_them),
        cmocka_unit_test(link_keys_and_case_twins_are_listed),
        cmocka_unit_test(no_services_key_has_no_anomalies),
        cmocka_unit_test(unsealed_journal_is_discarded_by_the_next_writer),
        cmocka_unit_test(journal_naming_a_table_above_system32_is_refused),
        cmocka_unit_test(unchanged_side_file_is_not_touched),
        cmocka_unit_test(dat_growth_past_its_old_page_is_written),
        cmocka_unit_test(unreadable_dat_table_read_from_is_an_error),
        cmocka_unit_test(dat_view_kept_while_its_file_is_unchanged),
#ifdef HAS_STAT_HOOK
        cmocka_unit_test(dat_table_grown_past_the_total_cap_is_refused),
#endif
        cmocka_unit_test(replay_copies_out_of_memory_stop_the_commit),
        cmocka_unit_test(replayed_hive_is_clean_after_its_commit),
    };
    int failed = cmocka_run_group_tests_name("store_hive (registry layout)",
                                             tests, use_registry, NULL);
    failed += cmocka_run_group_tests_name("store_hive (files layout)", tests,
                                          use_files, cleanup);
    return failed;
}
