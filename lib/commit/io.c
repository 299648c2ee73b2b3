/* Commit layer: counted, fault-injectable file writes on top of the
 * platform layer. */
#include "commit/io.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/error.h"
#include "platform/os.h"

/* Test hook: the K-th write from now (counted as rt_io_totals.writes
 * counts them) fails with EIO instead of being made, once; 0: none. The
 * tests that use it declare it: a failing disk mid-commit, where
 * REGTOOL_FAULT_AFTER_WRITES is a crash. */
void rt_io_fail_at_write(unsigned long k);

static unsigned long fail_at;

void rt_io_fail_at_write(unsigned long k)
{
    fail_at = k ? rt_io_totals.writes + k : 0;
}

static int injected_failure(void)
{
    if (!fail_at || rt_io_totals.writes + 1 != fail_at)
        return 0;
    fail_at = 0;
    errno = EIO;
    return 1;
}

int rt_io_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    if (injected_failure() || rt_os_pwrite(fd, buf, len, off) != 0)
        return -1;
    rt_io_totals.bytes_written += len;
    rt_io_count_write();
    return 0;
}

#define GATHER_SIZE ((size_t)64 << 10)

int rt_io_pwrite_pieces(int fd, const struct rt_io_piece *v, size_t n,
                        uint64_t off)
{
    if (injected_failure())
        return -1;
    uint8_t *gather = malloc(GATHER_SIZE);
    if (!gather)
        return -1;
    size_t held = 0, total = 0;
    int r = 0;
    /* GATHER holds the bytes of [OFF - HELD, OFF), not yet written. */
    for (size_t i = 0; i < n && r == 0; i++) {
        const struct rt_io_piece *p = &v[i];
        if (held + p->len <= GATHER_SIZE) {
            if (p->len)
                memcpy(gather + held, p->data, p->len);
            held += p->len;
        } else {
            if (held)
                r = rt_os_pwrite(fd, gather, held, off - held);
            held = 0;
            if (r == 0 && p->len < GATHER_SIZE) {
                memcpy(gather, p->data, p->len);
                held = p->len;
            } else if (r == 0) {
                r = rt_os_pwrite(fd, p->data, p->len, off);
            }
        }
        off += p->len;
        total += p->len;
    }
    if (r == 0 && held)
        r = rt_os_pwrite(fd, gather, held, off - held);
    int err = errno;
    free(gather);
    errno = err;
    if (r != 0)
        return -1;
    rt_io_totals.bytes_written += total;
    rt_io_count_write();
    return 0;
}

int rt_io_ftruncate(int fd, uint64_t size)
{
    if (injected_failure() || rt_os_ftruncate(fd, size) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_fsync(int fd)
{
    rt_io_totals.fsyncs++;
    return rt_os_fsync(fd);
}

int rt_io_fsync_dir_of(const char *path)
{
    /* A directory that is gone is not fsynced, so not counted. */
    int r = rt_os_fsync_dir_of(path);
    if (r == 0 || errno != ENOENT)
        rt_io_totals.fsyncs++;
    return r;
}

int rt_io_rename(const char *from, const char *to)
{
    if (injected_failure() || rt_os_rename(from, to) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_unlink(const char *path)
{
    if (injected_failure() || rt_os_unlink(path) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_interrupted(struct rt_error *e)
{
    if (!rt_os_interrupted())
        return 0;
    return rt_error_set(e, RT_ERR_CANCELLED, "interrupted: nothing changed");
}

/* The rename is a replacement's commit point: an interrupt noted before
 * it (while the new bytes were written and synced) leaves the file as it
 * was (review 38 F4). */
static int rename_unless_interrupted(const char *from, const char *to)
{
    if (rt_os_interrupted()) {
        errno = EINTR;
        return -1;
    }
    return rt_io_rename(from, to);
}

int rt_io_replace_file(const char *path, const void *data, size_t len,
                       unsigned mode)
{
    /* The platform's replace, each of its writes counted (and stopped
     * where a test says). */
    static const struct rt_os_write_calls counted = {
        rt_io_pwrite, rt_io_fsync, rename_unless_interrupted,
        rt_io_fsync_dir_of};
    return rt_os_replace_file_via(path, data, len, mode, &counted);
}
