/* Bounds met exactly: a size at its limit is within it, one byte more is
 * past it. A commit may write a store file up to its cap; a hive may run
 * up to HIVE_SLACK_MAX past its bins and still be read quietly and
 * written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#ifndef _WIN32
#include <sys/stat.h>
#include <unistd.h>
#endif

#include "commit/journal.h"
#include "hive_fixture.h"
#include "model/change_set.h"
#include "model/diag.h"
#include "model/size_caps.h"
#include "ops/ops.h"
#include "scratch.h"
#include "store/hive_internal.h"

/* --- a commit's file cap -------------------------------------------- */

#define CAP 64u

static int only_t_dat(void *ctx, const char *rel)
{
    (void)ctx;
    return !strcmp(rel, "t.dat");
}

static uint64_t cap_of(void *ctx, const char *rel)
{
    (void)ctx;
    (void)rel;
    return CAP;
}

static const struct rt_journal_scope capped = {only_t_dat, NULL, 1u << 20,
                                               cap_of, 0};

/* Commits LEN bytes of BYTE to t.dat at OFFSET under CAPPED: 0, or -1
 * with E set. */
static int commit_at(const char *dir, uint64_t offset, size_t len, int byte,
                     struct rt_error *e)
{
    char journal[600];
    snprintf(journal, sizeof journal, "%s/regtool.journal", dir);
    uint8_t data[2 * CAP];
    assert_true(len <= sizeof data);
    memset(data, byte, len);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &capped);
    assert_int_equal(rt_commit_write(c, "t.dat", offset, data, len), 0);
    int r = rt_commit_run(c, e);
    rt_commit_free(c);
    return r;
}

static uint64_t file_size(const char *path)
{
    int fd = rt_os_open(path, RT_OS_READ);
    assert_true(fd >= 0);
    uint64_t n;
    assert_int_equal(rt_os_fsize(fd, &n), 0);
    rt_os_close(fd);
    return n;
}

/* PATH made SIZE bytes long (holes past its end). */
static void resize(const char *path, uint64_t size)
{
    int fd = rt_os_open(path, RT_OS_WRITE);
    assert_true(fd >= 0);
    assert_int_equal(rt_os_ftruncate(fd, size), 0);
    rt_os_close(fd);
}

/* The end of the hive bins PATH's base block covers. */
static uint64_t bins_end_of(const char *path)
{
    struct rt_regf *h;
    char err[256];
    if (rt_regf_open(path, 0, &h, err, sizeof err) != 0)
        fail_msg("%s", err);
    struct rt_regf_info info;
    rt_regf_get_info(h, &info);
    rt_regf_close(h);
    return (uint64_t)REGF_BASE_BLOCK_SIZE + info.hbins_size;
}

/* A table or INF copy exactly as large as the store lets it be is
 * written, as reading it is allowed: only a byte past the cap is refused,
 * before anything is written. */
static void commit_writes_a_file_up_to_exactly_its_cap(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtcap");
    char path[600];
    snprintf(path, sizeof path, "%s/t.dat", dir);
    struct rt_error e = {0};
    if (commit_at(dir, 0, CAP, 'a', &e) != 0)
        fail_msg("a file of exactly its cap refused: %s", e.message);
    assert_int_equal(file_size(path), CAP);
    if (commit_at(dir, CAP - 4, 4, 'b', &e) != 0)
        fail_msg("a write ending at the cap refused: %s", e.message);
    assert_int_equal(file_size(path), CAP);
    assert_int_equal(commit_at(dir, CAP, 1, 'c', &e), -1);
    assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
    assert_non_null(strstr(e.message, "larger than the store lets it be"));
    assert_non_null(strstr(e.message, "nothing was written"));
    assert_int_equal(file_size(path), CAP);
    assert_int_equal(commit_at(dir, 0, CAP + 1, 'd', &e), -1);
    assert_int_equal(file_size(path), CAP);
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

/* --- a commit checked, not run (a dry run) ---------------------------- */

/* rt_commit_check of LEN bytes to t.dat under SCOPE: its result, E set. */
static int check_at(const char *dir, const struct rt_journal_scope *scope,
                    size_t len, struct rt_error *e)
{
    char journal[600];
    snprintf(journal, sizeof journal, "%s/regtool.journal", dir);
    uint8_t data[2 * CAP] = {0};
    assert_true(len <= sizeof data);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, scope);
    assert_int_equal(rt_commit_write(c, "t.dat", 0, data, len), 0);
    int r = rt_commit_check(c, e);
    rt_commit_free(c);
    return r;
}

/* A commit checked refuses what running it would refuse (a journal past
 * the store's cap, a file past its own), in the same words, and writes
 * nothing either way: no journal, no file made (a dry run on read-only
 * media, review 37 F3). */
static void commit_check_refuses_as_its_run_would(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtchk");
    char path[600], journal[600];
    snprintf(path, sizeof path, "%s/t.dat", dir);
    snprintf(journal, sizeof journal, "%s/regtool.journal", dir);
    struct rt_error e = {0};
    if (check_at(dir, &capped, CAP, &e) != 0)
        fail_msg("a commit within its caps refused: %s", e.message);
    assert_false(rt_os_exists(path));
    assert_false(rt_os_exists(journal));
    assert_int_equal(check_at(dir, &capped, CAP + 1, &e), -1);
    assert_non_null(strstr(e.message, "larger than the store lets it be"));
    /* A journal cap the commit's journal passes. */
    struct rt_journal_scope small = capped;
    small.max_bytes = CAP;
    assert_int_equal(check_at(dir, &small, CAP, &e), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "this change is too large for the "
                                      "store: its journal would be"));
    struct rt_error run = {0};
    assert_int_equal(rt_os_write_new_file(path, "x", 1), 0);
    struct rt_commit *c = rt_commit_new(dir, journal);
    assert_non_null(c);
    rt_commit_set_scope(c, &small);
    uint8_t data[CAP] = {0};
    assert_int_equal(rt_commit_write(c, "t.dat", 0, data, CAP), 0);
    assert_int_equal(rt_commit_run(c, &run), -1);
    rt_commit_free(c);
    assert_string_equal(run.message, e.message);
    assert_int_equal(file_size(path), 1);
    assert_false(rt_os_exists(journal));
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

#ifndef _WIN32
/* What stands where a commit writes, found by its check as by its run:
 * a FIFO, a symbolic link, a second name of a file (in a confined tree)
 * each refused with exit code ACCESS_DENIED and nothing written, and
 * the check never blocks on the FIFO. */
static void commit_check_refuses_what_stands_in_the_way(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtchk");
    char *canon;
    assert_int_equal(rt_os_confine(dir, &canon), 0);
    char path[600], other[600];
    snprintf(path, sizeof path, "%s/t.dat", canon);
    snprintf(other, sizeof other, "%s/other", canon);
    struct rt_error e = {0};
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(check_at(canon, &capped, 8, &e), -1);
    assert_int_equal(e.code, RT_ERR_ACCESS_DENIED);
    assert_non_null(strstr(e.message, "FIFO"));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("other", path), 0);
    assert_int_equal(check_at(canon, &capped, 8, &e), -1);
    assert_int_equal(e.code, RT_ERR_ACCESS_DENIED);
    assert_non_null(strstr(e.message, "symbolic link"));
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rt_os_write_new_file(other, "x", 1), 0);
    assert_int_equal(link(other, path), 0);
    assert_int_equal(check_at(canon, &capped, 8, &e), -1);
    assert_int_equal(e.code, RT_ERR_ACCESS_DENIED);
    assert_non_null(strstr(e.message, "hard link"));
    struct rt_os_stat st;
    assert_int_equal(rt_os_stat(other, &st), 0);
    assert_int_equal(st.size, 1);
    rt_os_unconfine(canon);
    free(canon);
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}
#endif

/* --- a hive's slack past its bins ----------------------------------- */

/* The store opened on C's tree: 1 when it warned that SOFTWARE runs past
 * its bins, and whether a change (Perflib's Last Counter) was written in
 * *WROTE. */
static int slack_warned(struct fixture_ctx *c, int *wrote)
{
    struct rt_hive_options o = {.wait_seconds = -1};
    struct rt_diags d = {0};
    struct rt_error e = {0};
    struct rt_store *s = rt_store_hive_open(c->dir, &o, &d, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    int warned = 0;
    for (size_t i = 0; i < d.n; i++)
        if (d.v[i].message && strstr(d.v[i].message, "past the hive bins"))
            warned = 1;
    assert_int_equal(d.n, (size_t)warned);
    rt_diags_free(&d);
    struct rt_change_set cs = {0};
    struct rt_value v;
    assert_int_equal(rt_value_from_dword(&v, 1900), 0);
    assert_int_equal(rt_change_set_perflib(&cs, "Last Counter", &v), 0);
    rt_value_free(&v);
    assert_int_equal(s->ops->begin(s, &e), 0);
    *wrote = s->ops->apply(s, &cs, &e) == 0;
    if (!*wrote)
        assert_non_null(strstr(e.message, "past the hive bins"));
    s->ops->end(s);
    rt_change_set_free(&cs);
    s->ops->close(s);
    return warned;
}

/* A hive exactly HIVE_SLACK_MAX past its bins is within the slack: read
 * without a warning and written; one byte more is warned of as not to be
 * written, and is not. The warning says what the writer then does. */
static void hive_slack_up_to_exactly_its_max_is_quiet(void **state)
{
    (void)state;
    struct fixture_ctx c = {0};
    struct rt_store *fresh = hive_fixture_open(&c);
    fresh->ops->close(fresh);
    char path[700];
    snprintf(path, sizeof path, "%s/Windows/System32/config/SOFTWARE", c.dir);
    int wrote;
    resize(path, bins_end_of(path) + HIVE_SLACK_MAX);
    assert_int_equal(slack_warned(&c, &wrote), 0);
    assert_true(wrote);
    /* Written, the file was cut back to its bins: the slack made anew. */
    uint64_t bins_end = bins_end_of(path);
    assert_int_equal(file_size(path), bins_end);
    resize(path, bins_end + HIVE_SLACK_MAX + 1);
    assert_int_equal(slack_warned(&c, &wrote), 1);
    assert_false(wrote);
    assert_int_equal(file_size(path), bins_end + HIVE_SLACK_MAX + 1);
    hive_fixture_remove(&c);
}

#ifndef _WIN32
/* --- restore's .reg cap, on the reading side --------------------------- */

/* What restore's reader makes of a .reg file of SIZE bytes (holes after
 * its first line): its outcome, E's message kept. */
static enum rt_backup_read read_reg_of(const char *dir, uint64_t size,
                                       struct rt_error *e)
{
    char path[600];
    snprintf(path, sizeof path, "%s/backup.reg", dir);
    static const char head[] = "REGEDIT4\r\n\r\n";
    rt_os_unlink(path);
    assert_int_equal(rt_os_write_new_file(path, head, sizeof head - 1), 0);
    resize(path, size);
    struct rt_backup_file f;
    enum rt_backup_read r = rt_op_read_backup_file(path, &f, e);
    rt_backup_file_free(&f);
    return r;
}

/* A .reg file exactly RT_REG_FILE_MAX bytes long is read (what it holds
 * then judged: NULs are no key, a malformed file); one byte more is
 * refused by its size, naming the cap, before a byte is parsed. Sparse:
 * no page of either is written. */
static void reg_backup_read_up_to_exactly_its_cap(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtregcap");
    struct rt_error e = {0};
    assert_int_equal(read_reg_of(dir, RT_REG_FILE_MAX, &e),
                     RT_BACKUP_READ_MALFORMED);
    assert_null(strstr(e.message, "larger than"));
    memset(&e, 0, sizeof e);
    assert_int_equal(read_reg_of(dir, RT_REG_FILE_MAX + 1, &e),
                     RT_BACKUP_READ_TOO_LARGE);
    assert_non_null(strstr(e.message, "a .reg file"));
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(commit_writes_a_file_up_to_exactly_its_cap),
        cmocka_unit_test(commit_check_refuses_as_its_run_would),
#ifndef _WIN32
        cmocka_unit_test(commit_check_refuses_what_stands_in_the_way),
        cmocka_unit_test(reg_backup_read_up_to_exactly_its_cap),
#endif
        cmocka_unit_test(hive_slack_up_to_exactly_its_max_is_quiet),
    };
    return cmocka_run_group_tests_name("exact bounds", tests, NULL, NULL);
}
