/* File I/O for commits: every write that changes a store's files goes
 * through here, so that bytes written and fsyncs are counted (--verbose)
 * and tests can end the process after the k-th write
 * (REGTOOL_FAULT_AFTER_WRITES=k, in the test build only: io_count.c) to
 * prove that a crash at any point leaves the old state or the new one. */
#ifndef RT_IO_H
#define RT_IO_H

#include <stddef.h>
#include <stdint.h>

struct rt_io_stats {
    uint64_t bytes_written;
    unsigned writes;         /* write, truncate, rename and unlink calls */
    unsigned fsyncs;
};

/* Process-wide counters of this run (the fault hook counts across every
 * file, as a crash would). */
extern struct rt_io_stats rt_io_totals;

/* Test hook: end the process at the K-th write from now (0: never),
 * overriding REGTOOL_FAULT_AFTER_WRITES. Defined only in the test build
 * of io_count.c (RT_TESTING), which the test programs link. */
void rt_io_fault_after(unsigned long k);

/* Counts one write made outside this file (a registry write by the win32
 * store), so the fault hook covers it too; may end the process. */
void rt_io_count_write(void);

/* pwrite of all LEN bytes; -1 with errno on failure. Counts one write. */
int rt_io_pwrite(int fd, const void *buf, size_t len, uint64_t off);
/* A run of bytes of a write made of pieces. */
struct rt_io_piece {
    const void *data;
    size_t len;
};
/* The N pieces one after another from OFF, counted as one write, as
 * rt_io_pwrite counts its one buffer: what is written whole from bytes
 * held in many places (a journal's records) needs no copy of them all
 * first. Small pieces are gathered into a buffer of a few KB, so a run of
 * them costs one system call, not one each. -1 with errno on failure. */
int rt_io_pwrite_pieces(int fd, const struct rt_io_piece *v, size_t n,
                        uint64_t off);
int rt_io_ftruncate(int fd, uint64_t size);
int rt_io_fsync(int fd);
/* fsync of the directory holding PATH, so a rename or unlink is durable. */
int rt_io_fsync_dir_of(const char *path);
int rt_io_rename(const char *from, const char *to);
struct rt_error;
/* -1 with E (RT_ERR_CANCELLED, "interrupted: nothing changed") once an
 * interrupt is noted (rt_os_interrupted), else 0: what a commit checks
 * before its commit point, where stopping leaves the store as it was. */
int rt_io_interrupted(struct rt_error *e);
int rt_io_unlink(const char *path);
/* rt_os_replace_file (a new file beside PATH, written, fsynced, renamed
 * over it) with its write and its rename counted: a store that replaces
 * a whole file (the .reg store) can be stopped at either. An interrupt
 * noted before the rename leaves PATH as it was: -1 with errno EINTR. */
int rt_io_replace_file(const char *path, const void *data, size_t len,
                       unsigned mode);

#endif
