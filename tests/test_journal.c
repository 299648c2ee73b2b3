/* Atomic commit: the journal's effect, its recovery after a crash at every
 * write, discarding unsealed journals, refusing journals that name what
 * is not the store's (a journal on a disk others wrote is data), and the
 * writer lock. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <malloc.h>
#endif

#include "under_valgrind.h"
#include "commit/crc32.h"
#include "commit/journal.h"
#include "platform/os.h"

static char dir[64], journal[128];

/* The files this test's commits write, as a store names its own: any
 * other path in a journal is refused. */
static int test_file(void *ctx, const char *rel)
{
    (void)ctx;
    return !strcmp(rel, "a.hive") || !strcmp(rel, "sub/b.dat") ||
           !strcmp(rel, "sub/c.dat") || !strncmp(rel, "sub/gone/", 9);
}
static const struct rt_journal_scope scope = {test_file, NULL, 1u << 20,
                                              NULL, 0};

static void write_file(const char *name, const void *data, size_t len)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Contents of a file, or NULL when absent. */
/* NAME's bytes read as the test sees them, by stdio: not through the
 * library, whose rules (a hard link of the tree is read only when it
 * cannot be a host file's) are what is tested. */
static uint8_t *slurp(const char *name, size_t *len)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    uint8_t *d = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len == cap) {
            uint8_t *g = realloc(d, cap = cap ? 2 * cap : 4096);
            if (!g) {
                free(d);
                fclose(f);
                return NULL;
            }
            d = g;
        }
        size_t got = fread(d + *len, 1, cap - *len, f);
        *len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return d;
}

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/rtjXXXXXX");
    if (!mkdtemp(dir))
        return -1;
    mkdir(strcat(strcpy(journal, dir), "/sub"), 0755);
    snprintf(journal, sizeof journal, "%s/regtool.journal", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

#if defined(__linux__) && defined(__GLIBC__)
/* Test hook: fstat of a.hive fails (EIO) at its FSTAT_FAIL_AT-th call
 * from when it was set (0: never), and the calls are counted in
 * fstat_calls: how a size that cannot be read is handled. The library
 * calls fstat64 (-D_FILE_OFFSET_BITS=64), which this definition takes
 * over in the test program; every other call goes to the C library's. */
static unsigned fstat_fail_at, fstat_calls;

int fstat64(int fd, struct stat64 *st);
int fstat64(int fd, struct stat64 *st)
{
    static int (*real)(int, struct stat64 *);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fstat64");
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 7 && !memcmp(target + n - 7, "/a.hive", 7)) {
        fstat_calls++;
        if (fstat_fail_at && fstat_calls == fstat_fail_at) {
            errno = EIO;
            return -1;
        }
    }
    return real(fd, st);
}
#define HAVE_FSTAT_HOOK 1
#endif

#if defined(__linux__) && defined(__GLIBC__)
/* Test hook: while TAIL_FOR_SIZE is not 0, every block malloc gives of
 * that size is TAIL_LEN bytes longer, those bytes holding TAIL: what lies
 * in memory after a buffer the library reads a file into, there made to
 * look like the file's continuation, so that a read past the file's end
 * changes what the library makes of it (and is seen without a
 * sanitizer). Counted in tail_planted. Every other call goes to the C
 * library's malloc (or a sanitizer's); under valgrind, whose allocator
 * replaces this one, nothing is planted (tests that need it skip). */
static size_t tail_for_size, tail_len;
static const uint8_t *tail;
static unsigned tail_planted;

void *malloc(size_t n)
{
    static void *(*next)(size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "malloc");
    if (!tail_for_size || n != tail_for_size)
        return next(n);
    uint8_t *p = next(n + tail_len);
    if (p) {
        memcpy(p + n - 1, tail, tail_len);
        tail_planted++;
    }
    return p;
}
#define HAVE_TAIL_HOOK 1
#endif

static uint8_t old_a[20000], new_a[24000], new_b[5000];
/* a.hive's last ZERO_TAIL bytes after the commit are zeros, which no
 * record writes: its size record gives them (as a hive's zero pages past
 * its old end are never written). */
#define ZERO_TAIL 2000
static int zero_tail;

static void make_before(void)
{
    for (size_t i = 0; i < sizeof old_a; i++)
        old_a[i] = (uint8_t)(i * 7);
    memcpy(new_a, old_a, sizeof old_a);
    memset(new_a + 4096, 0xAA, 100);           /* a changed page */
    memset(new_a + sizeof old_a, 0xBB, sizeof new_a - sizeof old_a); /* tail */
    if (zero_tail)
        memset(new_a + sizeof new_a - ZERO_TAIL, 0, ZERO_TAIL);
    memset(new_b, 0xCC, sizeof new_b);
    write_file("a.hive", old_a, sizeof old_a);
    char p[256];
    snprintf(p, sizeof p, "%s/sub/b.dat", dir);
    unlink(p);
}

/* With FRESH, the bytes past a.hive's old end are written once, ahead of
 * the journal, as the hive store does for appended bins. */
static struct rt_commit *make_commit_with(int fresh)
{
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_write(c, "a.hive", 4096, new_a + 4096, 4096), 0);
    assert_int_equal((fresh ? rt_commit_write_fresh : rt_commit_write)(
                         c, "a.hive", sizeof old_a, new_a + sizeof old_a,
                         sizeof new_a - sizeof old_a -
                             (zero_tail ? ZERO_TAIL : 0)), 0);
    assert_int_equal(rt_commit_set_size(c, "a.hive", sizeof new_a), 0);
    assert_int_equal(rt_commit_write(c, "sub/b.dat", 0, new_b, sizeof new_b), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/b.dat", sizeof new_b), 0);
    return c;
}

static struct rt_commit *make_commit(void)
{
    return make_commit_with(0);
}

/* 0: the before-state, 1: the after-state, -1: a mix. */
static int which_state(void)
{
    size_t la, lb;
    uint8_t *a = slurp("a.hive", &la), *b = slurp("sub/b.dat", &lb);
    int r = -1;
    if (a && la == sizeof old_a && !memcmp(a, old_a, la) && !b)
        r = 0;
    else if (a && la == sizeof new_a && !memcmp(a, new_a, la) && b &&
             lb == sizeof new_b && !memcmp(b, new_b, lb))
        r = 1;
    free(a);
    free(b);
    return r;
}

/* The CRC seals every journal: the standard check value, the sliced
 * steps equal to a byte at a time at every length and alignment, and a
 * CRC continued over parts equal to the CRC of the whole. */
static uint32_t crc_bytewise(const uint8_t *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    }
    return ~c;
}

static void crc_is_ieee(void **state)
{
    (void)state;
    assert_int_equal(rt_crc32(0, "123456789", 9), 0xCBF43926u);
    assert_int_equal(rt_crc32(0, "", 0), 0);
    uint8_t buf[300];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (uint8_t)(i * 131 + 7);
    for (size_t at = 0; at < 8; at++)
        for (size_t n = 0; at + n <= sizeof buf; n += 1 + n / 8) {
            assert_int_equal(rt_crc32(0, buf + at, n),
                             crc_bytewise(buf + at, n));
            size_t half = n / 3;
            assert_int_equal(
                rt_crc32(rt_crc32(0, buf + at, half), buf + at + half,
                         n - half),
                rt_crc32(0, buf + at, n));
        }
}

static void commit_applies_and_retires(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = make_commit();
    assert_int_equal(rt_commit_bytes(c), 4096 + 4000 + 5000);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    assert_int_equal(which_state(), 1);
    assert_int_not_equal(access(journal, F_OK), 0);
    /* Journal plus files: twice the change, not the file sizes. The
     * journal adds its magic, time, note length (20, no note here), intent
     * count and CRC (8), trailer (24) and per record 20 bytes and the
     * path. */
    assert_int_equal(rt_io_totals.bytes_written - before.bytes_written,
                     2 * (4096 + 4000 + 5000) + 28 + 24 + 5 * 20 +
                         3 * strlen("a.hive") + 2 * strlen("sub/b.dat"));
    assert_true(rt_io_totals.fsyncs - before.fsyncs >= 4);
}

/* A file a commit lengthens by a size record not in order (a hive whose
 * base block, which says how long its bins are, is written before the
 * record of its new size) is lengthened and made durable before any
 * record is written to it: a crash in between never leaves a header
 * promising bytes the file lacks. The fsyncs: the seal and its directory
 * (2), a.hive's lengthening (1), a.hive and the new sub/b.dat once their
 * records are in (2), the journal's removal (1). */
static void lengthened_file_is_durable_before_its_records(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = make_commit();
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    assert_int_equal(which_state(), 1);
    assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, 6);
}

static void fresh_bytes_are_written_once(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = make_commit_with(1);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    assert_int_equal(which_state(), 1);
    assert_int_not_equal(access(journal, F_OK), 0);
    /* The 4000 appended bytes once; the journal names a.hive in its
     * intent block (12 bytes and the path) instead of a record. */
    assert_int_equal(rt_io_totals.bytes_written - before.bytes_written,
                     2 * (4096 + 5000) + 4000 + 28 + 12 + strlen("a.hive") +
                         24 + 4 * 20 + 2 * strlen("a.hive") +
                         2 * strlen("sub/b.dat"));
}

/* The fsyncs a commit with fresh bytes costs: the intent block and its
 * directory (2), a.hive's fresh tail and its lengthening to its final
 * size together (1), the seal (1; the journal's name is durable
 * already), a.hive and the new sub/b.dat after it (2: neither needs
 * lengthening then, b.dat being the commit's own), the journal's removal
 * (1). The size record here reaches two pages past the fresh bytes
 * (zero pages never written), which land before the seal too. */
static void fresh_commit_fsyncs_each_file_once(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_write(c, "a.hive", 4096, new_a + 4096, 4096), 0);
    assert_int_equal(rt_commit_write_fresh(c, "a.hive", sizeof old_a,
                                           new_a + sizeof old_a,
                                           sizeof new_a - sizeof old_a), 0);
    assert_int_equal(rt_commit_set_size(c, "a.hive", sizeof new_a + 8192), 0);
    assert_int_equal(rt_commit_write(c, "sub/b.dat", 0, new_b, sizeof new_b), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/b.dat", sizeof new_b), 0);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, 7);
    size_t la;
    uint8_t *a = slurp("a.hive", &la);
    assert_non_null(a);
    assert_int_equal(la, sizeof new_a + 8192);
    assert_memory_equal(a, new_a, sizeof new_a);
    for (size_t i = sizeof new_a; i < la; i++)
        assert_int_equal(a[i], 0);
    free(a);
    assert_int_not_equal(access(journal, F_OK), 0);
}

/* A commit of more files than its first table of files has room for (36
 * new files, two records each): every file found again by its name, each
 * written with its own bytes. The table grows by doubling; grown by any
 * other factor, its mask (size - 1) reaches only some slots and the search
 * for a free one never ends. */
static void commit_of_many_files_writes_each(void **state)
{
    (void)state;
    enum { N_FILES = 36 };
    char p[256], name[32];
    snprintf(p, sizeof p, "%s/sub/gone", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    for (int i = 0; i < N_FILES; i++) {
        uint8_t data[3] = {(uint8_t)i, 0x5A, (uint8_t)(i * 3)};
        snprintf(name, sizeof name, "sub/gone/%02d.dat", i);
        assert_int_equal(rt_commit_write(c, name, 0, data, sizeof data), 0);
        assert_int_equal(rt_commit_set_size(c, name, sizeof data), 0);
    }
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    for (int i = 0; i < N_FILES; i++) {
        size_t len;
        snprintf(name, sizeof name, "sub/gone/%02d.dat", i);
        uint8_t *got = slurp(name, &len);
        assert_non_null(got);
        assert_int_equal(len, 3);
        assert_int_equal(got[0], i);
        assert_int_equal(got[1], 0x5A);
        assert_int_equal(got[2], (uint8_t)(i * 3));
        free(got);
    }
    assert_int_not_equal(access(journal, F_OK), 0);
}

/* Removals are made durable once per directory before the journal goes:
 * two files of sub/gone and the folder itself (pruned once empty) cost
 * one fsync of the directory above, not one per removal. */
static void removals_fsync_each_directory_once(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/sub/gone", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    write_file("sub/gone/x.ini", "x", 1);
    write_file("sub/gone/y.h", "y", 1);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_delete(c, "sub/gone/x.ini", 1), 0);
    assert_int_equal(rt_commit_delete(c, "sub/gone/y.h", 1), 0);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    /* Seal and its directory (2), sub (1), the journal's removal (1). */
    assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, 4);
    assert_int_not_equal(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/sub", dir);
    assert_int_equal(access(p, F_OK), 0);
    assert_int_not_equal(access(journal, F_OK), 0);
}

#ifdef HAVE_TAIL_HOOK
/* A journal cut inside its intent block's one entry (a name of 17 bytes
 * of which the file holds 13) has no whole intent block: nothing was
 * written before it, nothing is listed. Its bytes are never read past
 * the end of the file: the memory after the buffer it is read into is
 * made to hold the rest of the name and the CRC that would seal the
 * block, which a read past the end would take for the file's. */
static void journal_cut_inside_an_intent_is_read_no_further(void **state)
{
    (void)state;
    static const char name[] = "sub/gone/abcdefgh";
    const uint32_t fl = sizeof name - 1, kept = 13;
    uint8_t b[64] = "RTJOURN3";   /* time 0, no note */
    size_t len = 24;
    b[20] = 1;                    /* one intent */
    b[len] = (uint8_t)fl;         /* its name's length; its size 0 */
    len += 12;
    memcpy(b + len, name, fl);
    uint32_t crc = rt_crc32(0, b, len + fl);
    for (int i = 0; i < 4; i++)
        b[len + fl + i] = (uint8_t)(crc >> 8 * i);
    len += kept;
    write_file("regtool.journal", b, len);
    tail_len = fl - kept + 4;
    tail = b + len;
    tail_planted = 0;
    tail_for_size = len + 1;      /* the buffer: the file's size and 1 */
    struct rt_journal *j = NULL;
    struct rt_error e = {0};
    int r = rt_journal_load(journal, &scope, &j, &e);
    tail_for_size = 0;
    if (!tail_planted) {
        rt_journal_free(j);
        skip();                   /* another allocator serves malloc */
    }
    assert_int_equal(r, 1);
    assert_false(rt_journal_about(j)->sealed);
    const struct rt_journal_file *files;
    assert_int_equal(rt_journal_files(j, &files), 0);
    rt_journal_free(j);
}
#endif

/* A removed file's folder is fsynced even when an earlier removal's
 * path begins with that folder's path (sub/gone.bak, then sub/gone/x):
 * seal and its directory (2), sub (1), sub/gone (1), the journal's
 * removal (1). */
static void removals_fsync_a_folder_a_file_name_begins_with(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/sub/gone", dir);
    assert_int_equal(mkdir(p, 0755), 0);
    write_file("sub/gone.bak", "b", 1);
    write_file("sub/gone/x", "x", 1);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_delete(c, "sub/gone.bak", 0), 0);
    assert_int_equal(rt_commit_delete(c, "sub/gone/x", 0), 0);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, 5);
    assert_int_equal(access(p, F_OK), 0);
    snprintf(p, sizeof p, "%s/sub/gone/x", dir);
    assert_int_not_equal(access(p, F_OK), 0);
    assert_int_not_equal(access(journal, F_OK), 0);
}

/* Pruning stops at the first folder that is not empty: the folders
 * above it are neither removed nor fsynced (the commit costs what the
 * same removal without pruning does). */
static void pruning_stops_at_a_folder_not_empty(void **state)
{
    (void)state;
    char p[256];
    snprintf(p, sizeof p, "%s/a/b/c", dir);
    assert_int_equal(rt_os_mkdirs(p), 0);
    unsigned long fsyncs[2];
    for (unsigned prune = 0; prune < 2; prune++) {
        write_file("a/b/c/x", "x", 1);
        write_file("a/b/c/y", "y", 1);
        struct rt_commit *c = rt_commit_new(dir, journal);
        assert_non_null(c);
        assert_int_equal(rt_commit_delete(c, "a/b/c/x", prune ? 3 : 0), 0);
        struct rt_io_stats before = rt_io_totals;
        struct rt_error e = {0};
        assert_int_equal(rt_commit_run(c, &e), 0);
        rt_commit_free(c);
        fsyncs[prune] = rt_io_totals.fsyncs - before.fsyncs;
        assert_int_equal(access(p, F_OK), 0);
    }
    assert_int_equal(fsyncs[1], fsyncs[0]);
}

/* A removal may prune the folders above its file up to the tree, never
 * the tree itself or above: a commit asking for more is refused before
 * anything is written (sealed, its journal would be refused). */
static void commit_prunes_no_folder_above_its_tree(void **state)
{
    (void)state;
    static const char *const file[] = {"sub/x", "sub/x", "x"};
    static const unsigned prune[] = {2, 3, 1};
    char p[256];
    for (size_t i = 0; i < sizeof file / sizeof *file; i++) {
        write_file(file[i], "x", 1);
        struct rt_commit *c = rt_commit_new(dir, journal);
        assert_non_null(c);
        assert_int_equal(rt_commit_delete(c, file[i], prune[i]), 0);
        struct rt_io_stats before = rt_io_totals;
        struct rt_error e = {0};
        assert_int_equal(rt_commit_run(c, &e), -1);
        rt_commit_free(c);
        assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
        assert_non_null(strstr(e.message,
                               "a removal of folders above the tree"));
        assert_non_null(strstr(e.message, "nothing was written"));
        assert_int_equal(rt_io_totals.writes, before.writes);
        assert_int_equal(rt_io_totals.fsyncs, before.fsyncs);
        snprintf(p, sizeof p, "%s/%s", dir, file[i]);
        assert_int_equal(access(p, F_OK), 0);
        assert_int_not_equal(access(journal, F_OK), 0);
    }
}

/* Run with its standard input closed (regtool <&-), the files a commit
 * opens may get descriptor 0: each is still fsynced and closed, as with
 * it open. */
static void commit_with_standard_input_closed(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = make_commit();
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    unsigned open_fsyncs = rt_io_totals.fsyncs - before.fsyncs;
    assert_int_equal(which_state(), 1);

    make_before();
    c = make_commit();
    /* Closed already (the test run so), it stays closed. */
    int saved = fcntl(0, F_GETFD) != -1 ? dup(0) : -1;
    close(0);
    before = rt_io_totals;
    int r = rt_commit_run(c, &e);
    int still_open = fcntl(0, F_GETFD) != -1;
    if (still_open)
        close(0);
    if (saved >= 0) {
        assert_int_equal(dup2(saved, 0), 0);
        close(saved);
    }
    rt_commit_free(c);
    assert_int_equal(r, 0);
    assert_false(still_open);
    assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, open_fsyncs);
    assert_int_equal(which_state(), 1);
}

/* A .dat table's size record in order: the file is not lengthened (and
 * fsynced) ahead of the records, so the commit costs the seal and its
 * directory (2), the file (1) and the journal's removal (1); a sealed
 * journal with such a record, the process ended before applying it,
 * replays to the same bytes. */
static void in_order_size_costs_one_fsync(void **state)
{
    (void)state;
    static uint8_t old_c[3000], new_c[5000];
    for (size_t i = 0; i < sizeof new_c; i++)
        new_c[i] = (uint8_t)(i * 13 + 1);
    memcpy(old_c, new_c, sizeof old_c - 2);
    old_c[sizeof old_c - 2] = old_c[sizeof old_c - 1] = 0;
    for (int crash = 0; crash < 2; crash++) {
        write_file("sub/c.dat", old_c, sizeof old_c);
        struct rt_io_stats before = rt_io_totals;
        pid_t pid = crash ? fork() : 0;
        assert_true(pid >= 0);
        if (pid == 0) {
            if (crash)
                rt_io_fault_after(3);   /* body, trailer; ends at c.dat */
            struct rt_commit *c = rt_commit_new(dir, journal);
            assert_non_null(c);
            assert_int_equal(rt_commit_write(c, "sub/c.dat", sizeof old_c - 2,
                                             new_c + sizeof old_c - 2,
                                             sizeof new_c - sizeof old_c + 2),
                             0);
            assert_int_equal(rt_commit_set_size_in_order(c, "sub/c.dat",
                                                         sizeof new_c), 0);
            assert_int_equal(rt_commit_bytes(c), sizeof new_c - sizeof old_c + 2);
            struct rt_error e = {0};
            int r = rt_commit_run(c, &e);
            rt_commit_free(c);
            if (crash)
                _exit(r == 0 ? 0 : 1);
            assert_int_equal(r, 0);
            assert_int_equal(rt_io_totals.fsyncs - before.fsyncs, 4);
        } else {
            int status;
            waitpid(pid, &status, 0);
            assert_true(WIFEXITED(status));
            assert_int_equal(WEXITSTATUS(status), 99);
            struct rt_error e = {0};
            assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), 1);
        }
        size_t len;
        uint8_t *got = slurp("sub/c.dat", &len);
        assert_non_null(got);
        assert_int_equal(len, sizeof new_c);
        assert_memory_equal(got, new_c, sizeof new_c);
        free(got);
        assert_int_not_equal(access(journal, F_OK), 0);
    }
}

static void failed_fresh_write_leaves_files_untouched(void **state)
{
    (void)state;
    make_before();
    struct rt_commit *c = make_commit_with(1);
    /* A fresh write that cannot happen: its directory does not exist.
     * Every target is opened before anything is written, so this one
     * stops the commit before a byte reaches any file. */
    assert_int_equal(rt_commit_write_fresh(c, "nodir/x.hive", 0, "x", 1), 0);
    struct rt_error e = {0};
    struct rt_io_stats before = rt_io_totals;
    assert_int_equal(rt_commit_run(c, &e), -1);
    assert_int_equal(e.code, RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_io_totals.writes, before.writes);
    assert_non_null(strstr(e.message, "nodir/x.hive"));
    rt_commit_free(c);
    /* a.hive got its fresh tail before the failure: cut back, byte for
     * byte, and no journal is left. */
    assert_int_equal(which_state(), 0);
    assert_int_not_equal(access(journal, F_OK), 0);
}

static void crash_sweep(int fresh)
{
    /* Count the writes of a whole commit. */
    make_before();
    unsigned w0 = rt_io_totals.writes;
    struct rt_commit *c = make_commit_with(fresh);
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    unsigned total = rt_io_totals.writes - w0;
    assert_true(total >= 6);

    int seen[2] = {0, 0};
    for (unsigned k = 1; k <= total; k++) {
        make_before();
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            rt_io_fault_after(k);
            struct rt_commit *cc = make_commit_with(fresh);
            struct rt_error ee;
            _exit(rt_commit_run(cc, &ee) == 0 ? 0 : 1);
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 99);   /* ended by the hook */
        assert_true(rt_journal_recover(dir, journal, &scope, &e) >= 0);
        int st = which_state();
        assert_int_not_equal(st, -1);
        seen[st] = 1;
        assert_int_not_equal(access(journal, F_OK), 0);
    }
    /* Early crashes roll back, late ones roll forward. */
    assert_true(seen[0] && seen[1]);
}

static void crash_at_every_write_gives_before_or_after(void **state)
{
    (void)state;
    crash_sweep(0);
}

/* Fresh bytes land before the seal: a crash then is rolled back by
 * cutting a.hive to its old size, so "before" is byte-identical. */
static void crash_with_fresh_bytes_gives_before_or_after(void **state)
{
    (void)state;
    crash_sweep(1);
}

/* The same where a.hive's fresh bytes stop short of its new size: the
 * file is lengthened to it before the seal, under the intent block, so a
 * crash at that lengthening is rolled back too. */
static void crash_with_fresh_bytes_short_of_the_size(void **state)
{
    (void)state;
    zero_tail = 1;
    crash_sweep(1);
    zero_tail = 0;
}

/* A file longer than where a commit appends (a hive whose file runs past
 * its bins: the commit appends bins at their end, inside the file, and
 * sets a final size below the file's length). The fresh bytes land
 * before the seal, but the file is cut to its final size only after it:
 * a crash before the seal is rolled back to the file as long as it was,
 * every byte outside the appended range as it was; a crash after it
 * rolls forward to the new bytes and size. */
static void longer_file_is_cut_only_after_the_seal(void **state)
{
    (void)state;
    enum { OLD = 30000, AT = 20000, FRESH = 4000, FINAL = AT + FRESH };
    static uint8_t old[OLD], page[4096], fresh[FRESH];
    for (size_t i = 0; i < OLD; i++)
        old[i] = (uint8_t)(i * 11 + 3);
    memset(page, 0x5A, sizeof page);
    memset(fresh, 0xB7, sizeof fresh);
    unsigned total = 0;
    int seen[2] = {0, 0};
    for (unsigned k = 0; k == 0 || k <= total; k++) {
        write_file("a.hive", old, OLD);
        unsigned w0 = rt_io_totals.writes;
        pid_t pid = k ? fork() : 0;
        assert_true(pid >= 0);
        if (pid == 0) {
            if (k)
                rt_io_fault_after(k);
            struct rt_commit *c = rt_commit_new(dir, journal);
            assert_non_null(c);
            assert_int_equal(rt_commit_write(c, "a.hive", 4096, page,
                                             sizeof page), 0);
            assert_int_equal(rt_commit_write_fresh(c, "a.hive", AT, fresh,
                                                   FRESH), 0);
            assert_int_equal(rt_commit_set_size(c, "a.hive", FINAL), 0);
            struct rt_error e = {0};
            int r = rt_commit_run(c, &e);
            rt_commit_free(c);
            if (k)
                _exit(r == 0 ? 0 : 1);
            assert_int_equal(r, 0);
            total = rt_io_totals.writes - w0;
        } else {
            int status;
            waitpid(pid, &status, 0);
            assert_true(WIFEXITED(status));
            assert_int_equal(WEXITSTATUS(status), 99);
            struct rt_error e = {0};
            assert_true(rt_journal_recover(dir, journal, &scope, &e) >= 0);
        }
        size_t len;
        uint8_t *got = slurp("a.hive", &len);
        assert_non_null(got);
        if (len == OLD) {
            /* Rolled back: the appended range may hold the fresh bytes
             * (no reader looks past the old bins), nothing else changed. */
            assert_memory_equal(got, old, AT);
            assert_memory_equal(got + FINAL, old + FINAL, OLD - FINAL);
            seen[0] = 1;
        } else {
            assert_int_equal(len, FINAL);
            assert_memory_equal(got, old, 4096);
            assert_memory_equal(got + 4096, page, sizeof page);
            assert_memory_equal(got + 8192, old + 8192, AT - 8192);
            assert_memory_equal(got + AT, fresh, FRESH);
            seen[1] = 1;
        }
        free(got);
        assert_int_not_equal(access(journal, F_OK), 0);
        if (k == 0) {
            assert_int_equal(len, FINAL);
            seen[1] = 0;
        }
    }
    assert_true(total >= 4);
    assert_true(seen[0] && seen[1]);
}

/* The blocks a file holds on disk (512-byte units). */
static long long blocks_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (long long)st.st_blocks;
}

/* A commit refused after its preflight reserved the space a file's
 * growth needs (here: its journal cannot be made, a folder stands at its
 * path) gives that space back: the file holds the blocks it held, its
 * bytes and length as they were. Where the file system cannot reserve
 * past a file's end and give it back (fallocate with KEEP_SIZE, then a
 * cut to the file's own size), there is nothing to see. */
static void refused_commit_gives_back_the_space_it_reserved(void **state)
{
    (void)state;
    enum { GROW_AT = 4 << 20 };
    make_before();
    char path[256];
    snprintf(path, sizeof path, "%s/a.hive", dir);
    long long before = blocks_of(path);
#ifdef __linux__
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    int reserved = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, GROW_AT) == 0 &&
                   blocks_of(path) > before;
    int given_back = reserved && ftruncate(fd, sizeof old_a) == 0 &&
                     blocks_of(path) == before;
    close(fd);
    if (!given_back)
        skip();
#else
    skip();
#endif
    before = blocks_of(path);
    assert_int_equal(mkdir(journal, 0755), 0);
    static uint8_t page[4096];
    memset(page, 0x3C, sizeof page);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_write(c, "a.hive", GROW_AT, page, sizeof page), 0);
    assert_int_equal(rt_commit_set_size(c, "a.hive", GROW_AT + sizeof page), 0);
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), -1);
    rt_commit_free(c);
    assert_non_null(strstr(e.message, "regtool.journal"));
    assert_int_equal(rmdir(journal), 0);
    long long after = blocks_of(path);
    if (after != before)
        fail_msg("a.hive holds %lld blocks after the refused commit, %lld "
                 "before it", after, before);
    assert_int_equal(which_state(), 0);
}

#if defined(__linux__) && defined(__GLIBC__)
/* The bytes the C library's allocator has handed out and not had back
 * (0 where another allocator, a sanitizer's or valgrind's, serves
 * malloc). */
static size_t heap_in_use(void)
{
    struct mallinfo2 mi = mallinfo2();
    return mi.uordblks + mi.hblkhd;
}

/* A journal loaded and freed gives back all it took, its intent block
 * (the fresh bytes' files and old sizes) included: a writer or a reader
 * that loads the journal of each crashed commit it meets must not grow.
 * Loaded 200 times (after fifty), the heap in use ends where it began. */
static void loaded_journal_freed_whole(void **state)
{
    (void)state;
    /* A journal with an intent block, sealed: the commit with fresh
     * bytes, ended by the hook just after its seal's fsync. */
    make_before();
    unsigned w0 = rt_io_totals.writes;
    struct rt_commit *c = make_commit_with(1);
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    unsigned total = rt_io_totals.writes - w0;
    int found = 0;
    for (unsigned k = 1; k <= total && !found; k++) {
        make_before();
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            rt_io_fault_after(k);
            struct rt_commit *cc = make_commit_with(1);
            struct rt_error ee;
            _exit(rt_commit_run(cc, &ee) == 0 ? 0 : 1);
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        struct rt_journal *j;
        if (rt_journal_load(journal, &scope, &j, &e) == 1) {
            found = rt_journal_about(j)->sealed;
            rt_journal_free(j);
        }
    }
    assert_true(found);
    size_t start = heap_in_use();
    void *volatile probe = malloc(1000);
    size_t with_probe = heap_in_use();
    free(probe);
    if (with_probe == start)
        skip();     /* another allocator serves malloc */
    /* Fifty loads first: what the first take for good (the C library's
     * own buffers) and the freed blocks the allocator keeps at hand for
     * the next request (counted in use) reach the level where each load
     * ends as the one before it ended. */
    for (int round = 0; round < 2; round++) {
        if (round)
            start = heap_in_use();
        for (int i = 0; i < (round ? 200 : 50); i++) {
            struct rt_journal *j;
            assert_int_equal(rt_journal_load(journal, &scope, &j, &e), 1);
            rt_journal_free(j);
        }
    }
    size_t end = heap_in_use();
    if (end > start)
        fail_msg("200 journals loaded and freed left %zu bytes in use",
                 end - start);
    assert_true(rt_journal_recover(dir, journal, &scope, &e) >= 0);
}
#endif

#ifdef HAVE_FSTAT_HOOK
/* A file's size that cannot be read (fstat failing) while a commit
 * writes its fresh bytes is an error naming the file, never taken for 0:
 * taken for 0, the file (longer than its final size here) would be cut
 * to that size before the seal. Each fstat of a.hive in turn fails: the
 * commit stops with a.hive's name (no journal left before the seal), or
 * reports it after the seal and recovery rolls forward; either way the
 * file ends as before or as after, never another length. */
static void unreadable_size_stops_the_commit(void **state)
{
    (void)state;
    enum { OLD = 30000, AT = 20000, FRESH = 4000, FINAL = AT + FRESH };
    static uint8_t old[OLD], fresh[FRESH];
    for (size_t i = 0; i < OLD; i++)
        old[i] = (uint8_t)(i * 13 + 5);
    memset(fresh, 0xE1, sizeof fresh);
    unsigned calls = 0;
    for (unsigned k = 0; k == 0 || k <= calls; k++) {
        write_file("a.hive", old, OLD);
        struct rt_commit *c = rt_commit_new(dir, journal);
        assert_non_null(c);
        assert_int_equal(rt_commit_write_fresh(c, "a.hive", AT, fresh, FRESH),
                         0);
        assert_int_equal(rt_commit_set_size(c, "a.hive", FINAL), 0);
        struct rt_error e = {0};
        fstat_calls = 0;
        fstat_fail_at = k;
        int r = rt_commit_run(c, &e);
        fstat_fail_at = 0;
        rt_commit_free(c);
        if (k == 0) {
            assert_int_equal(r, 0);
            calls = fstat_calls;
            assert_true(calls >= 1);
        } else {
            if (r == 0)
                fail_msg("fstat %u of %u of a.hive failed unreported", k,
                         calls);
            if (!strstr(e.message, "a.hive"))
                fail_msg("fstat %u: %s", k, e.message);
            assert_true(rt_journal_recover(dir, journal, &scope, &e) >= 0);
        }
        size_t len;
        uint8_t *got = slurp("a.hive", &len);
        assert_non_null(got);
        if (len == OLD) {
            assert_memory_equal(got, old, AT);
            assert_memory_equal(got + FINAL, old + FINAL, OLD - FINAL);
        } else {
            assert_int_equal(len, FINAL);
            assert_memory_equal(got, old, AT);
            assert_memory_equal(got + AT, fresh, FRESH);
        }
        free(got);
        assert_int_not_equal(access(journal, F_OK), 0);
    }
}
#endif

/* A sealed journal whose last record is a data write (not a size record
 * that changes nothing), the process ended right after the seal: recovery
 * must replay every record, the last one included. */
static void recovery_replays_the_last_record(void **state)
{
    (void)state;
    static uint8_t tail[3000];
    memset(tail, 0xDD, sizeof tail);
    for (int late = 0; late < 2; late++) {
        make_before();
        write_file("sub/b.dat", new_b, sizeof new_b);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            /* Body (1), trailer (2), then the fsync (3) ends the process:
             * sealed, nothing applied. Late: one write later. */
            rt_io_fault_after(3 + (unsigned)late);
            struct rt_commit *c = rt_commit_new(dir, journal);
            rt_commit_write(c, "a.hive", 4096, new_a + 4096, 4096);
            rt_commit_set_size(c, "a.hive", sizeof old_a);
            rt_commit_write(c, "sub/b.dat", 1000, tail, sizeof tail);
            struct rt_error ee;
            _exit(rt_commit_run(c, &ee));
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 99);
        struct rt_error e = {0};
        struct rt_journal *j;
        assert_int_equal(rt_journal_load(journal, &scope, &j, &e), 1);
        assert_true(rt_journal_about(j)->sealed);
        assert_int_equal(rt_journal_finish(j, dir, &e), 1);
        rt_journal_free(j);
        assert_int_not_equal(access(journal, F_OK), 0);
        size_t la, lb;
        uint8_t *a = slurp("a.hive", &la), *b = slurp("sub/b.dat", &lb);
        assert_non_null(a);
        assert_non_null(b);
        assert_int_equal(la, sizeof old_a);
        assert_memory_equal(a, new_a, sizeof old_a);
        assert_int_equal(lb, sizeof new_b);
        assert_memory_equal(b, new_b, 1000);
        assert_memory_equal(b + 1000, tail, sizeof tail);
        assert_memory_equal(b + 4000, new_b + 4000, sizeof new_b - 4000);
        free(a);
        free(b);
    }
}

/* A commit of borrowed and taken bytes (the hive store's: a hive image,
 * a change's tables, a splice made for the commit) journals them as it
 * would copies: big records written straight from where they are, runs
 * of small ones gathered across the gathering buffer's 64 KB, and the
 * journal replayed after a crash at its seal gives the same file as the
 * commit run whole. WAY 0: copies; 1: borrowed; 2: taken. */
#define BIG_LEN 200000
#define SMALL_LEN 1000
#define SMALLS 100
#define TAKEN_LEN 5000
#define C_LEN (BIG_LEN + SMALLS * SMALL_LEN + TAKEN_LEN)
static uint8_t new_c[C_LEN];

static struct rt_commit *commit_of_c(int way)
{
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    int (*write)(struct rt_commit *, const char *, uint64_t, const void *,
                 size_t) = way ? rt_commit_write_borrowed : rt_commit_write;
    assert_int_equal(write(c, "sub/c.dat", 0, new_c, BIG_LEN), 0);
    for (size_t i = 0; i < SMALLS; i++) {
        size_t at = BIG_LEN + i * SMALL_LEN;
        assert_int_equal(write(c, "sub/c.dat", at, new_c + at, SMALL_LEN), 0);
    }
    size_t at = C_LEN - TAKEN_LEN;
    if (way == 2) {
        uint8_t *taken = malloc(TAKEN_LEN);
        assert_non_null(taken);
        memcpy(taken, new_c + at, TAKEN_LEN);
        assert_int_equal(rt_commit_write_taken(c, "sub/c.dat", at, taken,
                                               TAKEN_LEN), 0);
    } else {
        assert_int_equal(write(c, "sub/c.dat", at, new_c + at, TAKEN_LEN), 0);
    }
    assert_int_equal(rt_commit_set_size(c, "sub/c.dat", C_LEN), 0);
    return c;
}

static void borrowed_bytes_journal_as_copies(void **state)
{
    (void)state;
    static const struct rt_journal_scope big = {test_file, NULL, 1u << 22,
                                                NULL, 0};
    for (size_t i = 0; i < C_LEN; i++)
        new_c[i] = (uint8_t)(i * 31 + (i >> 9));
    uint64_t written[3];
    for (int way = 0; way < 3; way++) {
        char p[256];
        snprintf(p, sizeof p, "%s/sub/c.dat", dir);
        unlink(p);
        struct rt_commit *c = commit_of_c(way);
        assert_int_equal(rt_commit_bytes(c), C_LEN);
        struct rt_io_stats before = rt_io_totals;
        struct rt_error e = {0};
        assert_int_equal(rt_commit_run(c, &e), 0);
        rt_commit_free(c);
        written[way] = rt_io_totals.bytes_written - before.bytes_written;
        assert_int_equal(written[way], written[0]);
        size_t len;
        uint8_t *got = slurp("sub/c.dat", &len);
        assert_non_null(got);
        assert_int_equal(len, C_LEN);
        assert_memory_equal(got, new_c, C_LEN);
        free(got);
        assert_int_not_equal(access(journal, F_OK), 0);

        /* Ended right after the seal (body 1, trailer 2): the journal
         * read back replays to the same file. */
        unlink(p);
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            rt_io_fault_after(2);
            struct rt_commit *cc = commit_of_c(way);
            struct rt_error ee;
            _exit(rt_commit_run(cc, &ee));
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 99);
        assert_int_not_equal(access(p, F_OK), 0);
        struct rt_journal *j;
        assert_int_equal(rt_journal_load(journal, &big, &j, &e), 1);
        assert_true(rt_journal_about(j)->sealed);
        assert_int_equal(rt_journal_finish(j, dir, &e), 1);
        rt_journal_free(j);
        got = slurp("sub/c.dat", &len);
        assert_non_null(got);
        assert_int_equal(len, C_LEN);
        assert_memory_equal(got, new_c, C_LEN);
        free(got);
    }
}

static void unsealed_or_damaged_journal_is_discarded(void **state)
{
    (void)state;
    struct rt_error e = {0};
    make_before();
    write_file("regtool.journal", "RTJOURN3garbage", 15);
    assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), 0);
    assert_int_equal(which_state(), 0);
    assert_int_not_equal(access(journal, F_OK), 0);

    /* A sealed journal whose body was altered afterwards. */
    pid_t pid = fork();
    if (pid == 0) {
        rt_io_fault_after(3);   /* body, trailer written; ends at fsync+ */
        struct rt_commit *c = make_commit();
        struct rt_error ee;
        _exit(rt_commit_run(c, &ee));
    }
    int status;
    waitpid(pid, &status, 0);
    size_t len;
    uint8_t *j = slurp("regtool.journal", &len);
    assert_non_null(j);
    j[40] ^= 1;
    write_file("regtool.journal", j, len);
    free(j);
    make_before();
    assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), 0);
    assert_int_equal(which_state(), 0);
    /* Nothing to recover. */
    assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), 0);
}

/* A file in the journal's place that is no journal of this format (a
 * hive, an executable, random bytes, a journal of another format
 * version) is not an unfinished change: it is refused with a message
 * naming it and its first bytes, and left in place byte for byte. An
 * unfinished journal of ours, down to an empty file, part of the magic
 * or zeros a crash left, is still discarded. */
static void a_file_that_is_no_journal_is_refused(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        const char *said;   /* NULL: discarded */
    } cases[] = {
        {"regf\x01\0\0\0\x01\0\0\0", 12, "not a journal of regtool"},
        {"MZ\x90\0\x03\0\0\0\x04\0", 10, "not a journal of regtool"},
        {"\x8f\x13\xa7\x55\xe0\x01\x9c\x42\x7b\x3d", 10,
         "not a journal of regtool"},
        {"x", 1, "not a journal of regtool"},
        {"RTJOURN1garbage", 15, "a journal of another format version"},
        {"", 0, NULL},
        {"RTJOU", 5, NULL},
        {"RTJOURN3", 8, NULL},
        {"\0\0\0\0\0\0\0\0\0\0\0\0", 12, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        make_before();
        write_file("regtool.journal", cases[i].bytes, cases[i].len);
        struct rt_error e = {0};
        int r = rt_journal_recover(dir, journal, &scope, &e);
        assert_int_equal(which_state(), 0);
        size_t len;
        uint8_t *after = slurp("regtool.journal", &len);
        if (!cases[i].said) {
            assert_int_equal(r, 0);
            assert_null(after);
            continue;
        }
        assert_int_equal(r, -1);
        assert_int_equal(e.code, RT_ERR_BADDB);
        assert_non_null(strstr(e.message, journal));
        assert_non_null(strstr(e.message, cases[i].said));
        assert_non_null(strstr(e.message, "left where it is, not discarded"));
        assert_non_null(after);
        assert_int_equal(len, cases[i].len);
        assert_memory_equal(after, cases[i].bytes, len);
        free(after);
    }
    unlink(journal);
}

/* --- journals from a disk others wrote ------------------------------------ */

/* A journal as anyone can write one: the format of lib/commit/commit_build.c
 * with every CRC right, so that only what it names decides. */
struct forged {
    uint8_t b[32u << 20];
    size_t n;
    unsigned records;
};

static void f_put(struct forged *f, const void *p, size_t n)
{
    assert_true(f->n + n <= sizeof f->b);
    if (n)
        memcpy(f->b + f->n, p, n);
    f->n += n;
}

static void f_put32(struct forged *f, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    f_put(f, b, 4);
}

static void f_put64(struct forged *f, uint64_t v)
{
    f_put32(f, (uint32_t)v);
    f_put32(f, (uint32_t)(v >> 32));
}

/* The header and the intent block: N_INTENTS files (NAMES) that would be
 * cut back to 0 bytes. */
static void forge_start(struct forged *f, size_t n_intents,
                        const char *const *names)
{
    f->n = 0;
    f->records = 0;
    f_put(f, "RTJOURN3", 8);
    f_put64(f, 1700000000u);
    f_put32(f, 15);
    f_put(f, "install of Xfer", 15);
    f_put32(f, (uint32_t)n_intents);
    for (size_t i = 0; i < n_intents; i++) {
        f_put32(f, (uint32_t)strlen(names[i]));
        f_put64(f, 0);
        f_put(f, names[i], strlen(names[i]));
    }
    f_put32(f, rt_crc32(0, f->b, f->n));
}

/* A record naming the FL bytes at FILE (a NUL among them if need be). */
static void forge_record_named(struct forged *f, uint32_t kind,
                               const char *file, size_t fl, uint64_t offset,
                               const char *data)
{
    size_t dl = data ? strlen(data) : 0;
    f_put32(f, kind);
    f_put32(f, (uint32_t)fl);
    f_put64(f, offset);
    f_put32(f, (uint32_t)dl);
    f_put(f, file, fl);
    f_put(f, data, dl);
    f->records++;
}

static void forge_record(struct forged *f, uint32_t kind, const char *file,
                         uint64_t offset, const char *data)
{
    forge_record_named(f, kind, file, strlen(file), offset, data);
}

/* Seals F with a CRC that is valid, and writes it as the journal. */
static void forge_seal(struct forged *f)
{
    size_t body = f->n;
    f_put(f, "RTCOMMIT", 8);
    f_put64(f, body);
    f_put32(f, rt_crc32(0, f->b, body));
    f_put32(f, f->records);
    write_file("regtool.journal", f->b, f->n);
}

#define KIND_WRITE 1u
#define KIND_SIZE 2u
#define KIND_DELETE 4u

/* A victim beside the tree: its path, relative to the base and absolute. */
static char victim_rel[160], victim_abs[160];

static void make_victim(void)
{
    write_file("victim", "keep me\n", 8);
    snprintf(victim_abs, sizeof victim_abs, "%s/victim", dir);
    /* Out of the base and back: the way out of any tree. */
    snprintf(victim_rel, sizeof victim_rel, "../../../../../../..%s/victim",
             dir);
}

/* The journal is refused whole, with a message naming it, SHOWN (the
 * offending path) and what to do; nothing changed: a.hive, the victim
 * and the journal are as they were. */
static void expect_refused(const char *shown)
{
    size_t jl;
    uint8_t *before = slurp("regtool.journal", &jl);
    assert_non_null(before);
    struct rt_error e = {0};
    assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, journal));
    if (shown && !strstr(e.message, shown))
        print_message("refused as: %s\n", e.message);
    if (shown)
        assert_non_null(strstr(e.message, shown));
    assert_non_null(strstr(e.message, "refused whole"));
    assert_non_null(strstr(e.message, "move it aside"));
    size_t len;
    uint8_t *after = slurp("regtool.journal", &len);
    assert_non_null(after);
    assert_int_equal(len, jl);
    assert_memory_equal(after, before, jl);
    free(after);
    free(before);
    uint8_t *v = slurp("victim", &len);
    assert_non_null(v);
    assert_int_equal(len, 8);
    assert_memory_equal(v, "keep me\n", 8);
    free(v);
    assert_int_equal(which_state(), 0);
}

static void journal_paths_are_plain_names(void **state)
{
    (void)state;
    static const struct {
        const char *path, *problem;
    } cases[] = {
        {"a.hive", NULL},
        {"System32/config/SOFTWARE", NULL},
        {"INF/Xfer/0009/x.ini", NULL},
        {"..a/b..", NULL},
        {"", "an empty path"},
        {"/etc/cron.d/x", "an absolute path"},
        {"..", "a '..' component"},
        {"../../etc/passwd", "a '..' component"},
        {"INF/../../etc/passwd", "a '..' component"},
        {"INF/Xfer/..", "a '..' component"},
        {"./a.hive", "a '.' component"},
        {"INF/./x", "a '.' component"},
        {"INF//x", "an empty component"},
        {"INF/", "an empty component"},
        {"..\\..\\etc\\passwd", "a backslash"},
        {"C:/Windows/x", "a ':' (a drive letter or a stream)"},
        {"a.hive:evil", "a ':' (a drive letter or a stream)"},
        {"INF/x\x1b[2J/y", "a control character"},
        {"a\nb", "a control character"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = rt_journal_path_problem(cases[i].path);
        if (!cases[i].problem)
            assert_null(got);
        else
            assert_string_equal(got, cases[i].problem);
    }
    /* The longest path, of components of 200 bytes (255 is the most a file
     * system Linux mounts holds in a name: review 55 R55-2, one of 258
     * bytes failed past the commit point). */
    static char longest[RT_JOURNAL_NAME_MAX + 2];
    memset(longest, 'a', RT_JOURNAL_NAME_MAX);
    for (size_t i = 200; i + 1 < RT_JOURNAL_NAME_MAX; i += 201)
        longest[i] = '/';
    assert_null(rt_journal_path_problem(longest));
    longest[RT_JOURNAL_NAME_MAX] = 'a';
    assert_string_equal(rt_journal_path_problem(longest),
                        "a path longer than any a commit writes");
    char part[300];
    memset(part, 'a', sizeof part - 1);
    part[sizeof part - 1] = '\0';
    part[255] = '\0';
    assert_null(rt_journal_path_problem(part));
    part[255] = 'a';
    assert_string_equal(rt_journal_path_problem(part),
                        "a component longer than 255 bytes");
}

/* A journal cut short after its note (the time and "install of Xfer")
 * still says what it was for, whatever comes after the note: no more
 * (cut just past it), part of the intent block, or all of it; cut
 * inside the note it says nothing. Either way it is unsealed, and
 * finishing it discards it. */
static void journal_cut_after_its_note_still_names_it(void **state)
{
    (void)state;
    make_before();
    static struct forged f;
    forge_start(&f, 0, NULL);
    const size_t note_end = 20 + strlen("install of Xfer");
    for (size_t len = note_end - 2; len <= f.n; len++) {
        write_file("regtool.journal", f.b, len);
        struct rt_error e = {0};
        struct rt_journal *j;
        assert_int_equal(rt_journal_load(journal, &scope, &j, &e), 1);
        const struct rt_journal_info *ji = rt_journal_about(j);
        assert_false(ji->sealed);
        if (len >= note_end) {
            if (strcmp(ji->what, "install of Xfer"))
                fail_msg("cut at %zu of %zu: note '%s'", len, f.n, ji->what);
            assert_int_equal(ji->when, 1700000000);
        } else {
            assert_string_equal(ji->what, "");
        }
        assert_int_equal(rt_journal_finish(j, dir, &e), 0);
        rt_journal_free(j);
        assert_int_not_equal(access(journal, F_OK), 0);
        assert_int_equal(which_state(), 0);
    }
}

/* The CRC is no defence: anyone computes it. A forged sealed journal
 * naming only the store's files is replayed; the same with one record
 * naming a host file is refused whole, the good record before it not
 * applied either. */
static void forged_journal_with_valid_crc(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, "a.hive", 0, "forged");
    forge_seal(&f);
    struct rt_error e = {0};
    struct rt_journal *j;
    assert_int_equal(rt_journal_load(journal, &scope, &j, &e), 1);
    assert_true(rt_journal_about(j)->sealed);
    assert_string_equal(rt_journal_about(j)->what, "install of Xfer");
    const struct rt_journal_file *files;
    assert_int_equal(rt_journal_files(j, &files), 1);
    assert_string_equal(files[0].rel, "a.hive");
    assert_int_equal(files[0].bytes, 6);
    assert_int_equal(rt_journal_finish(j, dir, &e), 1);
    rt_journal_free(j);
    size_t la;
    uint8_t *a = slurp("a.hive", &la);
    assert_non_null(a);
    assert_memory_equal(a, "forged", 6);
    free(a);

    make_before();
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, "a.hive", 0, "forged");
    forge_record(&f, KIND_WRITE, victim_rel, 0, "* * * * * root evil\n");
    forge_seal(&f);
    expect_refused(victim_rel);
    struct rt_error e2 = {0};
    rt_journal_recover(dir, journal, &scope, &e2);
    assert_non_null(strstr(e2.message, "record 2 names"));
    assert_non_null(strstr(e2.message, "a '..' component"));
}

static void record_with_dotdot_is_refused(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, victim_rel, 0, "evil\n");
    forge_seal(&f);
    expect_refused(victim_rel);
    /* A name inside the base that climbs out of it again. */
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_SIZE, "sub/../victim", 0, NULL);
    forge_seal(&f);
    expect_refused("sub/../victim");
}

/* A record name with a NUL inside: read as a C string it would be
 * "a.hive", a store file, and the bytes behind the NUL would go unseen.
 * The whole journal is refused, naming the NUL, and nothing is applied. */
static void record_name_with_a_nul_is_refused(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    static const char name[] = "a.hive\0/../../victim";
    forge_start(&f, 0, NULL);
    forge_record_named(&f, KIND_WRITE, name, sizeof name - 1, 0, "evil\n");
    forge_seal(&f);
    expect_refused(NULL);
    struct rt_error e = {0};
    assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), -1);
    assert_non_null(strstr(e.message, "record 1 names"));
    assert_non_null(strstr(e.message, "a NUL byte"));
}

static void absolute_record_is_refused(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, victim_abs, 0, "evil\n");
    forge_seal(&f);
    expect_refused(victim_abs);
}

/* A removal of a host file, by '..' and by a plain name that is not one
 * of the store's files; a removal pruning folders above the base. */
static void delete_of_a_host_file_is_refused(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_DELETE, victim_rel, 0, NULL);
    forge_seal(&f);
    expect_refused(victim_rel);
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_DELETE, "victim", 0, NULL);
    forge_seal(&f);
    expect_refused("'victim': not a file this store's commits write");
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_DELETE, "sub/gone/x.ini", 3, NULL);
    forge_seal(&f);
    expect_refused("its removal would remove folders above the tree");
}

/* An unsealed journal is rolled back by cutting its intent block's files
 * to their sizes before: naming a host file, that would empty it. */
static void intent_block_naming_a_host_file_is_refused(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static struct forged f;
    const char *names[2] = {"a.hive", victim_rel};
    forge_start(&f, 2, names);
    write_file("regtool.journal", f.b, f.n);   /* never sealed */
    expect_refused(victim_rel);
    struct rt_error e = {0};
    rt_journal_recover(dir, journal, &scope, &e);
    assert_non_null(strstr(e.message, "the intent block's entry 2 names"));
    names[1] = victim_abs;
    forge_start(&f, 2, names);
    write_file("regtool.journal", f.b, f.n);
    expect_refused(victim_abs);
}

/* Bounds: a journal larger than the store's commits write is not read; a
 * record past 4 GiB, a size record with more than its flag byte, a kind
 * no commit writes and a record running past the body are refused. */
static void journal_sizes_are_bounded(void **state)
{
    (void)state;
    make_before();
    make_victim();
    char p[256];
    snprintf(p, sizeof p, "%s/regtool.journal", dir);
    FILE *fp = fopen(p, "wb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, (long)scope.max_bytes, SEEK_SET), 0);
    assert_int_equal(fputc(0, fp), 0);
    fclose(fp);
    expect_refused("more than the 1048576 any commit of this store writes");
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, "a.hive", ((uint64_t)1 << 32) - 2, "xyz");
    forge_seal(&f);
    expect_refused("it writes past 4 GiB");
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_SIZE, "a.hive", ((uint64_t)1 << 40), NULL);
    forge_seal(&f);
    expect_refused("larger than 4 GiB");
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_SIZE, "a.hive", 100, "ab");
    forge_seal(&f);
    expect_refused("more than its one byte of flags");
    /* Each named by its number and the byte it begins at. */
    char said[120];
    forge_start(&f, 0, NULL);
    size_t at = f.n;
    forge_record(&f, 3, "a.hive", 0, "x");
    forge_seal(&f);
    snprintf(said, sizeof said,
             "record 1 at byte %zu is of kind 3, which no commit writes", at);
    expect_refused(said);
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_WRITE, "a.hive", 0, "ab");
    at = f.n;
    forge_record(&f, KIND_WRITE, "a.hive", 0, "x");
    f.b[f.n - 1 - 6 - 4] = 0xff;   /* the data length, far past the end */
    forge_seal(&f);
    snprintf(said, sizeof said,
             "record 2 at byte %zu runs past the end of the journal", at);
    expect_refused(said);
}

/* What stands at a journal's paths is checked before any record is
 * applied or any file cut back: a journal whose second file is a link to
 * a host file (written or removed), a dangling link, a FIFO, a file of
 * two names, or whose folder is a link, is refused whole with a message
 * naming the journal and that file; the first file, a.hive, stays
 * byte-identical (before, it was written, or cut to 0 bytes by an
 * unsealed journal's intent block, and the refusal came at the second
 * file's turn), the victim too, and the journal stays. */
static void journal_targets_are_checked_before_any_record(void **state)
{
    (void)state;
    char *root = NULL;
    assert_int_equal(rt_os_confine(dir, &root), 0);
    char c[256], victim[256], gone[256];
    snprintf(c, sizeof c, "%s/sub/c.dat", dir);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    snprintf(gone, sizeof gone, "%s/sub/gone", dir);
    enum { LINK, DELETE_LINK, DANGLING, FIFO, HARD_LINK, FOLDER_LINK,
           FOLDER_FILE, REWRITE_IN_FOLDER_FILE, INTENT_LINK, CASES };
    for (int k = 0; k < CASES; k++) {
        make_before();
        make_victim();
        unlink(c);
        unlink(gone);
        int in_folder = k == FOLDER_LINK || k == FOLDER_FILE ||
                        k == REWRITE_IN_FOLDER_FILE;
        const char *second = in_folder ? "sub/gone/x.ini" : "sub/c.dat";
        switch (k) {
        case LINK:
        case DELETE_LINK:
        case INTENT_LINK:
            assert_int_equal(symlink(victim, c), 0);
            break;
        case DANGLING:
            assert_int_equal(symlink("/nonexistent/regtool-victim", c), 0);
            break;
        case FIFO:
            assert_int_equal(mkfifo(c, 0644), 0);
            break;
        case HARD_LINK:
            assert_int_equal(link(victim, c), 0);
            break;
        case FOLDER_LINK:
            assert_int_equal(symlink(dir, gone), 0);
            break;
        case FOLDER_FILE:
        case REWRITE_IN_FOLDER_FILE:
            /* A file where the write would make its folder: the write
             * would fail after the first record was replayed. */
            write_file("sub/gone", "a file\n", 7);
            break;
        }
        static struct forged f;
        if (k == INTENT_LINK) {
            /* Unsealed: its roll-back would cut both to 0 bytes. */
            const char *names[2] = {"a.hive", "sub/c.dat"};
            forge_start(&f, 2, names);
            write_file("regtool.journal", f.b, f.n);
        } else {
            forge_start(&f, 0, NULL);
            forge_record(&f, KIND_WRITE, "a.hive", 0, "forged");
            if (k == DELETE_LINK)
                forge_record(&f, KIND_DELETE, second, 0, NULL);
            else if (k == REWRITE_IN_FOLDER_FILE) {
                /* Removed, then written again: the write decides, and a
                 * write needs its folders checked like any other. */
                forge_record(&f, KIND_DELETE, second, 0, NULL);
                forge_record(&f, KIND_WRITE, second, 0, "new\n");
            } else
                forge_record(&f, KIND_WRITE, second, 0, "evil\n");
            forge_seal(&f);
        }
        size_t jl, len;
        uint8_t *before = slurp("regtool.journal", &jl);
        assert_non_null(before);
        struct rt_error e = {0};
        assert_int_equal(rt_journal_recover(dir, journal, &scope, &e), -1);
        assert_int_equal(e.code, RT_ERR_BADDB);
        assert_non_null(strstr(e.message, journal));
        assert_non_null(strstr(e.message, second));
        if (k == REWRITE_IN_FOLDER_FILE)
            assert_non_null(strstr(e.message, "it would write "));
        assert_non_null(strstr(e.message, "nothing was replayed, cut back "
                                          "or removed"));
        assert_int_equal(which_state(), 0);
        uint8_t *v = slurp("victim", &len);
        assert_non_null(v);
        assert_int_equal(len, 8);
        assert_memory_equal(v, "keep me\n", 8);
        free(v);
        uint8_t *after = slurp("regtool.journal", &len);
        assert_non_null(after);
        assert_int_equal(len, jl);
        assert_memory_equal(after, before, jl);
        free(after);
        free(before);
        struct stat st;
        assert_int_equal(lstat(in_folder ? gone : c, &st), 0);
        if (k == FIFO)
            assert_true(S_ISFIFO(st.st_mode));
        else if (k == HARD_LINK)
            assert_int_equal(st.st_nlink, 2);
        else if (k == FOLDER_FILE || k == REWRITE_IN_FOLDER_FILE)
            assert_true(S_ISREG(st.st_mode));
        else
            assert_true(S_ISLNK(st.st_mode));
    }
    unlink(c);
    unlink(gone);
    unlink(journal);
    rt_os_unconfine(root);
    free(root);
}

/* A file a sealed journal removes and then writes again ends written:
 * its account (hive_journal's list) must not call it removed, and its
 * write is checked as a write. */
static void file_removed_then_written_is_written(void **state)
{
    (void)state;
    make_before();
    static struct forged f;
    forge_start(&f, 0, NULL);
    forge_record(&f, KIND_DELETE, "sub/b.dat", 0, NULL);
    forge_record(&f, KIND_WRITE, "sub/b.dat", 0, "again");
    forge_seal(&f);
    struct rt_journal *j = NULL;
    struct rt_error e = {0};
    assert_int_equal(rt_journal_load(journal, &scope, &j, &e), 1);
    const struct rt_journal_file *files;
    assert_int_equal(rt_journal_files(j, &files), 1);
    assert_string_equal(files[0].rel, "sub/b.dat");
    assert_int_equal(files[0].removed, 0);
    assert_int_equal(files[0].bytes, 5);
    rt_journal_free(j);
    unlink(journal);
}

/* However many records a journal holds, it names at most 524288 files (a
 * commit touches a few dozen, and install on a tree of every language id
 * four for each): listing them is a look-up a record, and a journal
 * naming more is refused. */
static void journal_names_at_most_524288_files(void **state)
{
    (void)state;
    /* Half a million records: a bound, not a memory error, to find. */
    if (under_valgrind())
        skip();
    make_before();
    make_victim();
    static const struct rt_journal_scope roomy = {test_file, NULL, 64u << 20,
                                                  NULL, 0};
    for (unsigned extra = 0; extra < 2; extra++) {
        static struct forged f;
        forge_start(&f, 0, NULL);
        for (unsigned i = 0; i < 524288u + extra; i++) {
            char name[32];
            snprintf(name, sizeof name, "sub/gone/%u", i);
            forge_record(&f, KIND_DELETE, name, 0, NULL);
        }
        forge_seal(&f);
        struct rt_error e = {0};
        struct rt_journal *j = NULL;
        int r = rt_journal_load(journal, &roomy, &j, &e);
        if (!extra) {
            assert_int_equal(r, 1);
            const struct rt_journal_file *files;
            assert_int_equal(rt_journal_files(j, &files), 524288);
            assert_string_equal(files[524287].rel, "sub/gone/524287");
            assert_true(files[524287].removed);
            rt_journal_free(j);
        } else {
            assert_int_equal(r, -1);
            assert_non_null(strstr(e.message, "it names more than 524288 files"));
        }
    }
}

/* A commit naming a file outside its store is refused before anything is
 * written: sealed, nobody could finish it. */
static void commit_names_only_its_files(void **state)
{
    (void)state;
    make_before();
    make_victim();
    static const char *const bad[] = {"victim", "../victim", "/tmp/x",
                                      "sub/./b.dat"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct rt_commit *c = rt_commit_new(dir, journal);
        assert_non_null(c);
        rt_commit_set_scope(c, &scope);
        assert_int_equal(rt_commit_write(c, "a.hive", 0, "x", 1), 0);
        assert_int_equal(rt_commit_write(c, bad[i], 0, "x", 1), 0);
        struct rt_io_stats before = rt_io_totals;
        struct rt_error e = {0};
        assert_int_equal(rt_commit_run(c, &e), -1);
        rt_commit_free(c);
        assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
        assert_non_null(strstr(e.message, bad[i]));
        assert_int_equal(rt_io_totals.writes, before.writes);
        assert_int_not_equal(access(journal, F_OK), 0);
        assert_int_equal(which_state(), 0);
    }
}

/* A commit whose journal would be larger than the store lets a journal
 * be (the next writer refuses a larger one) is refused before anything
 * is written, as too large, not as an internal error. */
static void commit_larger_than_its_journal_may_be(void **state)
{
    (void)state;
    make_before();
    static const struct rt_journal_scope small = {test_file, NULL, 4096, NULL, 0};
    static uint8_t big[8192];
    memset(big, 'x', sizeof big);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &small);
    assert_int_equal(rt_commit_write(c, "a.hive", 0, big, sizeof big), 0);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), -1);
    rt_commit_free(c);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "too large for the store"));
    assert_non_null(strstr(e.message, "nothing was written"));
    assert_null(strstr(e.message, "internal error"));
    assert_int_equal(rt_io_totals.writes, before.writes);
    assert_int_not_equal(access(journal, F_OK), 0);
    assert_int_equal(which_state(), 0);
}

/* A commit whose journal is small but whose size records take its files
 * past the store's bound in all is refused before anything is written:
 * the next writer would refuse its journal, and nobody could finish it. */
static void commit_files_past_the_total_refused(void **state)
{
    (void)state;
    make_before();
    static const struct rt_journal_scope small = {test_file, NULL, 1 << 20,
                                                  NULL, 0};
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &small);
    assert_int_equal(rt_commit_set_size(c, "a.hive", 600 << 10), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/b.dat", 600 << 10), 0);
    struct rt_io_stats before = rt_io_totals;
    struct rt_error e = {0};
    assert_int_equal(rt_commit_run(c, &e), -1);
    rt_commit_free(c);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "would reach 1228800 bytes in all"));
    assert_non_null(strstr(e.message, "nothing was written"));
    assert_int_equal(rt_io_totals.writes, before.writes);
    assert_int_not_equal(access(journal, F_OK), 0);
    assert_int_equal(which_state(), 0);
    /* Each alone within the bound: committed. */
    c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &small);
    assert_int_equal(rt_commit_set_size(c, "a.hive", 600 << 10), 0);
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    /* A store whose files in all may be more than its journal (tables
     * kept as files beside small hives): the same two files committed
     * within that bound, three past it refused by it. */
    static const struct rt_journal_scope tables = {test_file, NULL, 1 << 20,
                                                   NULL, 2 << 20};
    c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &tables);
    assert_int_equal(rt_commit_set_size(c, "a.hive", 600 << 10), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/b.dat", 600 << 10), 0);
    assert_int_equal(rt_commit_run(c, &e), 0);
    rt_commit_free(c);
    c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &tables);
    assert_int_equal(rt_commit_set_size(c, "a.hive", 800 << 10), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/b.dat", 800 << 10), 0);
    assert_int_equal(rt_commit_set_size(c, "sub/c.dat", 800 << 10), 0);
    assert_int_equal(rt_commit_run(c, &e), -1);
    rt_commit_free(c);
    assert_non_null(strstr(e.message, "would reach 2457600 bytes in all, "
                                      "more than the 2097152"));
}

static void lock_serializes_writers(void **state)
{
    (void)state;
    char lock[160];
    snprintf(lock, sizeof lock, "%s/regtool.lock", dir);
    write_file("counter", "0", 1);
    for (int i = 0; i < 8; i++) {
        if (fork() == 0) {
            struct rt_lock *l;
            struct rt_error e;
            if (rt_lock_acquire(lock, NULL, &l, &e) != 0)
                _exit(1);
            size_t len;
            uint8_t *d = slurp("counter", &len);
            if (!d || len != 1)
                _exit(2);
            char buf[16];
            snprintf(buf, sizeof buf, "%d", d[0] - '0' + 1);
            free(d);
            usleep(2000);   /* widen the race a missing lock would lose */
            char p[256];
            snprintf(p, sizeof p, "%s/counter", dir);
            FILE *f = fopen(p, "wb");
            if (!f || fputs(buf, f) < 0 || fclose(f) != 0)
                _exit(3);
            rt_lock_release(l);
            _exit(0);
        }
    }
    for (int i = 0; i < 8; i++) {
        int status;
        wait(&status);
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    size_t len;
    uint8_t *d = slurp("counter", &len);
    assert_int_equal(len, 1);
    assert_int_equal(d[0], '8');
    free(d);
}

/* a.hive as make_before leaves it, in PATH, where the file system can
 * reserve blocks past a file's end up to GROW_AT and give them back
 * (fallocate with KEEP_SIZE); the test is skipped elsewhere. */
static void a_hive_that_can_be_reserved(long long grow_at, char *path,
                                        size_t size)
{
    make_before();
    snprintf(path, size, "%s/a.hive", dir);
#ifdef __linux__
    long long before = blocks_of(path);
    int fd = open(path, O_RDWR);
    assert_true(fd >= 0);
    int reserved = fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, grow_at) == 0 &&
                   blocks_of(path) > before;
    int given_back = reserved && ftruncate(fd, sizeof old_a) == 0 &&
                     blocks_of(path) == before;
    close(fd);
    if (!given_back)
        skip();
#else
    (void)grow_at;
    skip();
#endif
}

/* PATH holds blocks for its LEN bytes (none of it sparse). */
static void holds_blocks_for(const char *path, long long len)
{
    long long held = blocks_of(path) * 512;
    if (held < len)
        fail_msg("%s holds %lld bytes of blocks for its %lld bytes", path,
                 held, len);
}

/* A file a commit grows holds the blocks of its new length once the
 * commit is done: the preflight reserved them before the journal was
 * sealed, so a disk filling up meanwhile cannot stop the commit past its
 * commit point. Here a.hive grows from 20,000 bytes to past 4 MiB with
 * one page written at its new end: without the reservation the file
 * would be sparse, holding little more than the 24 KB written. Where
 * the file system cannot reserve past a file's end (fallocate with
 * KEEP_SIZE), there is nothing to see. */
static void grown_file_holds_the_blocks_reserved_for_it(void **state)
{
    (void)state;
    enum { GROW_AT = 4 << 20 };
    char path[256];
    a_hive_that_can_be_reserved(GROW_AT, path, sizeof path);
    static uint8_t page[4096];
    memset(page, 0x5A, sizeof page);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_write(c, "a.hive", GROW_AT, page, sizeof page), 0);
    assert_int_equal(rt_commit_set_size(c, "a.hive", GROW_AT + sizeof page), 0);
    struct rt_error e = {0};
    if (rt_commit_run(c, &e) != 0)
        fail_msg("%s", e.message);
    rt_commit_free(c);
    size_t len;
    uint8_t *a = slurp("a.hive", &len);
    assert_non_null(a);
    assert_int_equal(len, GROW_AT + sizeof page);
    assert_memory_equal(a, old_a, sizeof old_a);
    assert_memory_equal(a + GROW_AT, page, sizeof page);
    free(a);
    holds_blocks_for(path, GROW_AT + (long long)sizeof page);
}

/* Fresh bytes past a file's old end, then a page written further on, with
 * no size record: the file's size after the commit is the end of that
 * page, and the preflight reserves the blocks up to it, as for any growth
 * (a fresh record gives bytes, not the file's size). */
static void fresh_bytes_then_a_write_past_them_reserved(void **state)
{
    (void)state;
    enum { GROW_AT = 4 << 20 };
    char path[256];
    a_hive_that_can_be_reserved(GROW_AT, path, sizeof path);
    static uint8_t page[4096];
    memset(page, 0x5A, sizeof page);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    assert_int_equal(rt_commit_write_fresh(c, "a.hive", sizeof old_a, page,
                                           sizeof page), 0);
    assert_int_equal(rt_commit_write(c, "a.hive", GROW_AT, page, sizeof page), 0);
    struct rt_error e = {0};
    if (rt_commit_run(c, &e) != 0)
        fail_msg("%s", e.message);
    rt_commit_free(c);
    size_t len;
    uint8_t *a = slurp("a.hive", &len);
    assert_non_null(a);
    assert_int_equal(len, GROW_AT + sizeof page);
    assert_memory_equal(a, old_a, sizeof old_a);
    assert_memory_equal(a + sizeof old_a, page, sizeof page);
    assert_memory_equal(a + GROW_AT, page, sizeof page);
    free(a);
    holds_blocks_for(path, GROW_AT + (long long)sizeof page);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc_is_ieee),
        cmocka_unit_test_setup_teardown(commit_applies_and_retires, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            lengthened_file_is_durable_before_its_records, setup, teardown),
        cmocka_unit_test_setup_teardown(fresh_bytes_are_written_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fresh_commit_fsyncs_each_file_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(commit_of_many_files_writes_each, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(removals_fsync_each_directory_once,
                                        setup, teardown),
#ifdef HAVE_TAIL_HOOK
        cmocka_unit_test_setup_teardown(
            journal_cut_inside_an_intent_is_read_no_further, setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(removals_fsync_a_folder_a_file_name_begins_with,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(commit_prunes_no_folder_above_its_tree,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(pruning_stops_at_a_folder_not_empty,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(commit_with_standard_input_closed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(in_order_size_costs_one_fsync,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            failed_fresh_write_leaves_files_untouched, setup, teardown),
        cmocka_unit_test_setup_teardown(
            crash_at_every_write_gives_before_or_after, setup, teardown),
        cmocka_unit_test_setup_teardown(
            crash_with_fresh_bytes_gives_before_or_after, setup, teardown),
        cmocka_unit_test_setup_teardown(
            crash_with_fresh_bytes_short_of_the_size, setup, teardown),
        cmocka_unit_test_setup_teardown(longer_file_is_cut_only_after_the_seal,
                                        setup, teardown),
#ifdef HAVE_FSTAT_HOOK
        cmocka_unit_test_setup_teardown(
            refused_commit_gives_back_the_space_it_reserved, setup, teardown),
#if defined(__linux__) && defined(__GLIBC__)
        cmocka_unit_test_setup_teardown(loaded_journal_freed_whole, setup,
                                        teardown),
#endif
        cmocka_unit_test_setup_teardown(unreadable_size_stops_the_commit,
                                        setup, teardown),
#endif
        cmocka_unit_test_setup_teardown(recovery_replays_the_last_record,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(unsealed_or_damaged_journal_is_discarded,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_file_that_is_no_journal_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(borrowed_bytes_journal_as_copies,
                                        setup, teardown),
        cmocka_unit_test(journal_paths_are_plain_names),
        cmocka_unit_test_setup_teardown(journal_cut_after_its_note_still_names_it,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(forged_journal_with_valid_crc, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(record_with_dotdot_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(record_name_with_a_nul_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(absolute_record_is_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(delete_of_a_host_file_is_refused,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            intent_block_naming_a_host_file_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(journal_sizes_are_bounded, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            journal_targets_are_checked_before_any_record, setup, teardown),
        cmocka_unit_test_setup_teardown(
            file_removed_then_written_is_written, setup, teardown),
        cmocka_unit_test_setup_teardown(journal_names_at_most_524288_files,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(commit_names_only_its_files, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(commit_larger_than_its_journal_may_be, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(commit_files_past_the_total_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(lock_serializes_writers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            grown_file_holds_the_blocks_reserved_for_it, setup, teardown),
        cmocka_unit_test_setup_teardown(
            fresh_bytes_then_a_write_past_them_reserved, setup, teardown),
    };
    return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
