/* Atomic commit: the journal's effect, its recovery after a crash at every
 * write, discarding unsealed journals, and the writer lock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "commit/crc32.h"
#include "commit/journal.h"
#include "platform/os.h"

static char dir[64], journal[128];

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
static uint8_t *slurp(const char *name, size_t *len)
{
    char p[256];
    uint8_t *d;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return rt_os_read_file(p, &d, len) == 0 ? d : NULL;
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
            assert_int_equal(rt_journal_recover(dir, journal, &e), 1);
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
        assert_true(rt_journal_recover(dir, journal, &e) >= 0);
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
        struct rt_journal_info ji;
        struct rt_error e = {0};
        assert_int_equal(rt_journal_inspect(journal, &ji, &e), 1);
        assert_true(ji.sealed);
        assert_int_equal(rt_journal_recover(dir, journal, &e), 1);
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

static void unsealed_or_damaged_journal_is_discarded(void **state)
{
    (void)state;
    struct rt_error e = {0};
    make_before();
    write_file("regtool.journal", "RTJOURN1garbage", 15);
    assert_int_equal(rt_journal_recover(dir, journal, &e), 0);
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
    assert_int_equal(rt_journal_recover(dir, journal, &e), 0);
    assert_int_equal(which_state(), 0);
    /* Nothing to recover. */
    assert_int_equal(rt_journal_recover(dir, journal, &e), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(crc_is_ieee),
        cmocka_unit_test_setup_teardown(commit_applies_and_retires, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fresh_bytes_are_written_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(fresh_commit_fsyncs_each_file_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(removals_fsync_each_directory_once,
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
        cmocka_unit_test_setup_teardown(recovery_replays_the_last_record,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(unsealed_or_damaged_journal_is_discarded,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(lock_serializes_writers, setup,
                                        teardown),
    };
    return cmocka_run_group_tests_name("journal", tests, NULL, NULL);
}
