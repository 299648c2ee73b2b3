/* Atomic commit across several files (both hives and the .dat tables), in
 * the spirit of SQLite's atomic commit: the new bytes of every changed
 * range are first written to a redo journal, which is fsynced and sealed
 * with a checksummed commit record; only then are the files changed,
 * fsynced, and the journal retired. A crash before the seal leaves the
 * files untouched (the journal is discarded on the next open); a crash
 * after it is finished by replaying the journal on the next open. So the
 * next run sees the old state or the new one, never a mix. The bytes
 * written grow with the change, not with the files.
 *
 * File paths in the journal are relative to a base directory, so a disk
 * mounted elsewhere after a crash still recovers. Whoever wrote the disk
 * wrote the journal too: recovery acts on no path the store does not
 * name as its own (struct rt_journal_scope). */
#ifndef RT_JOURNAL_H
#define RT_JOURNAL_H

#include <stddef.h>
#include <stdint.h>

#include "commit/crc32.h"
#include "model/error.h"
#include "commit/io.h"

struct rt_commit;

/* A new, empty commit; BASE_DIR is the directory paths are relative to,
 * JOURNAL_PATH where the journal is written (usually inside BASE_DIR). */
struct rt_commit *rt_commit_new(const char *base_dir, const char *journal_path);

/* Records that FILE (relative to the base) gets DATA at OFFSET. */
int rt_commit_write(struct rt_commit *c, const char *file, uint64_t offset,
                    const void *data, size_t len);
/* The same, DATA borrowed, not copied: it stays the caller's, unchanged
 * until rt_commit_run returns (or C is freed). The journal is written
 * from it, so a commit of bytes the caller holds anyway (a hive's image,
 * a change's tables) holds them once. */
int rt_commit_write_borrowed(struct rt_commit *c, const char *file,
                             uint64_t offset, const void *data, size_t len);
/* The same, DATA (from malloc) taken over: C frees it, even when this
 * fails. */
int rt_commit_write_taken(struct rt_commit *c, const char *file,
                          uint64_t offset, void *data, size_t len);
/* Records that FILE gets DATA at OFFSET where nothing the files hold
 * before the commit is read: past the end of a hive's bins, which its
 * base block (written through the journal) does not yet cover. Such
 * bytes are written once, straight to FILE, which is lengthened to its
 * recorded size with them (one fsync for both), before the journal is
 * sealed: a crash before the seal leaves only bytes no reader
 * looks at (the next commit overwrites or truncates them), a crash after
 * it finds them durable. So appended data costs its size, not twice it. */
int rt_commit_write_fresh(struct rt_commit *c, const char *file,
                          uint64_t offset, const void *data, size_t len);
/* rt_commit_write_fresh with DATA borrowed (rt_commit_write_borrowed). */
int rt_commit_write_fresh_borrowed(struct rt_commit *c, const char *file,
                                   uint64_t offset, const void *data,
                                   size_t len);
/* Records FILE's size after the commit (it is created when absent, with
 * the directories above it). */
int rt_commit_set_size(struct rt_commit *c, const char *file, uint64_t size);
/* The same for a file whose bytes promise nothing about its length (a
 * .dat table, unlike a hive's base block): it is not lengthened ahead of
 * the other records when the journal is applied, but where this record
 * stands, which spares it an fsync. */
int rt_commit_set_size_in_order(struct rt_commit *c, const char *file,
                                uint64_t size);

/* Records that FILE is removed, and then up to PRUNE of its parent
 * directories that this leaves empty (none is made before the commit
 * point; a missing FILE is no error, as a replay may find it gone). */
int rt_commit_delete(struct rt_commit *c, const char *file, unsigned prune);

/* Journal, fsync, apply, fsync, retire. Returns 0, or -1 with E set; if
 * the failure came after the seal, the journal stays for recovery. The
 * journal is written, and the files then changed, from the bytes C's
 * records hold (nothing copies them all at once). Once called, C is only
 * to be freed. */
int rt_commit_run(struct rt_commit *c, struct rt_error *e);
/* What rt_commit_run checks before it writes (the journal's size and
 * files as the next writer checks them, what stands at each path), with
 * nothing written: a dry run refuses where its commit would, in the
 * commit's words. Returns 0, or -1 with E set; C is only to be freed. */
int rt_commit_check(struct rt_commit *c, struct rt_error *e);
/* What stands at PATH, a file a commit (or the writer's lock) would
 * open for writing, checked read only: absent with its folders possible,
 * or a regular file of one name reached without a link. 0, or -1 with E
 * in the words the write's refusal would have. */
int rt_commit_check_path(const char *path, struct rt_error *e);
void rt_commit_free(struct rt_commit *c);

/* Number of recorded ranges and their bytes (for --dry-run and tests). */
size_t rt_commit_records(const struct rt_commit *c);
uint64_t rt_commit_bytes(const struct rt_commit *c);

/* What the commit does, in a few words ("install of Xfer"): recorded in
 * the journal with the time, for whoever finds it unfinished. */
int rt_commit_set_note(struct rt_commit *c, const char *what);

/* Which files a journal may name. A journal on a disk others wrote is
 * data, not a command: its paths are checked before anything acts on it.
 * Every path must be a plain relative name (rt_journal_path_problem), and
 * IS_STORE_FILE(CTX, REL) must say 1 for it: REL is one of the files the
 * store's commits write (its hives, tables, side files). MAX_BYTES: the
 * largest journal the store's commits can write; a larger file is not
 * read. */
struct rt_journal_scope {
    int (*is_store_file)(void *ctx, const char *rel);
    void *ctx;
    uint64_t max_bytes;
    /* The largest REL (a store file) may be after a commit: a record that
     * writes past it or sizes the file beyond it is refused (a planted
     * journal would otherwise leave a hive too large to read). NULL: 4
     * GiB, the format's bound. */
    uint64_t (*file_max)(void *ctx, const char *rel);
    /* The most the files a commit names may reach in all once it is done
     * (each capped alone by FILE_MAX, a planted journal of a few hundred
     * bytes could still size hundreds of them to their caps): the hives'
     * bound, the tables' and side files' caps in all. 0: MAX_BYTES. */
    uint64_t max_total;
};

/* SCOPE's bound on a commit's files in all (max_total, else max_bytes;
 * 0: none). */
uint64_t rt_journal_scope_total(const struct rt_journal_scope *scope);

/* Why REL cannot be a path in a journal ("a '..' component", "an
 * absolute path", ...), or NULL when it is a plain relative name: parts
 * joined by '/', none empty, "." or "..", no backslash, ':', control
 * character or NUL, at most RT_JOURNAL_NAME_MAX bytes. */
#define RT_JOURNAL_NAME_MAX 1024
const char *rt_journal_path_problem(const char *rel);

/* The commit names only files of SCOPE (copied; its CTX must outlive C):
 * rt_commit_run refuses, before writing anything, a commit whose journal
 * the next writer would refuse. */
void rt_commit_set_scope(struct rt_commit *c,
                         const struct rt_journal_scope *scope);

/* A journal found on disk. */
struct rt_journal_info {
    int sealed;             /* past its commit point: to be finished */
    int64_t when;           /* when it was written (seconds since 1970) */
    char what[256];         /* "install of Xfer", escaped (model/printable.h) */
};
/* "the install of Xfer committed at 2024-05-01 10:00:00 UTC" and the like. */
void rt_journal_describe(const struct rt_journal_info *ji, char *buf,
                         size_t size);

/* A journal read whole and checked whole (rt_journal_load). */
struct rt_journal;

/* What the journal does to one file: BYTES written over it; with SIZED,
 * its length made SIZE (for an unsealed journal: cut back to SIZE, the
 * roll-back of its fresh bytes); REMOVED when its last record removes
 * it. REL is relative to the base directory. */
struct rt_journal_file {
    const char *rel;
    uint64_t bytes;
    int sized;
    uint64_t size;
    int removed;
    /* The furthest the sealed records make the file reach: the end of
     * its furthest write or its largest size. */
    uint64_t extent;
};

/* Reads JOURNAL_PATH (a regular file of at most SCOPE->max_bytes) and
 * checks every path, count, length and offset in it against SCOPE before
 * anything acts on it: 0 when there is none (*OUT NULL), 1 with *OUT.
 * A journal that names anything outside SCOPE, or whose sealed records do
 * not parse, is refused whole: -1 with E (RT_ERR_BADDB) naming the
 * journal, the offending path and what the user can do; nothing is
 * changed, the journal included. A journal cut short before its commit
 * point is no error: it is unsealed, and finishing it discards it. */
int rt_journal_load(const char *journal_path,
                    const struct rt_journal_scope *scope,
                    struct rt_journal **out, struct rt_error *e);
void rt_journal_free(struct rt_journal *j);
const struct rt_journal_info *rt_journal_about(const struct rt_journal *j);
/* The files J changes (sealed) or cuts back (unsealed), each once, in
 * the order of the journal. */
size_t rt_journal_files(const struct rt_journal *j,
                        const struct rt_journal_file **files);
/* Finishes J: a sealed one is replayed, an unsealed one's fresh bytes
 * are cut back; then the journal is removed. 1 when replayed, 0 when
 * discarded, -1 with E (the journal then stays for the next writer). */
int rt_journal_finish(struct rt_journal *j, const char *base_dir,
                      struct rt_error *e);
/* What finishing the sealed journal J needs, found without writing
 * anything ("run as a user who can write FILE", "FILE is on a read-only
 * file system: ..."); empty when nothing stands in the way. */
void rt_journal_needs(const struct rt_journal *j, const char *base_dir,
                      char *buf, size_t size);

/* rt_journal_load, then rt_journal_finish: 1 replayed, 0 nothing to do
 * or discarded, -1 (refused, or it could not be finished). */
int rt_journal_recover(const char *base_dir, const char *journal_path,
                       const struct rt_journal_scope *scope,
                       struct rt_error *e);

/* What rt_lock_acquire would refuse LOCK_PATH for (a folder, a FIFO, a
 * link, a file of several names there), found read only, in its words:
 * a dry run, which takes no lock, refuses where its writer would. */
int rt_lock_check(const char *lock_path, struct rt_error *e);

/* 0, or -1 with E set (saying WHO cannot change it) when the file PATH
 * is immutable or append-only: what the writer's open or rename would
 * refuse, said by a dry run too. Asked of FD where PATH is open there,
 * else (FD -1) of the name. */
int rt_flags_refused(int fd, const char *path, const char *who,
                     struct rt_error *e);

/* One writer at a time: an exclusive lock on LOCK_PATH (created when
 * missing). While another process holds it, NOTICE is called once with
 * "waiting for another regtool (pid N, started T) holding FILE", and the
 * wait ends after SECONDS (-1: never; 0: at once) with
 * RT_ERR_LOCK_VIOLATION, or at an interrupt with RT_ERR_CANCELLED. The
 * holder's pid and start are written into the lock file for waiters.
 * Taken before anything is written, so every refusal's message says
 * nothing was written (or changed): callers add no words of their own. */
struct rt_lock;
struct rt_lock_wait {
    int seconds;
    void (*notice)(void *ctx, const char *line);
    void *ctx;
};
int rt_lock_acquire(const char *lock_path, const struct rt_lock_wait *w,
                    struct rt_lock **out, struct rt_error *e);
/* A shared lock for readers, taken only where LOCK_PATH exists and can be
 * opened for writing: a reader never creates it and works on read-only
 * media (*OUT NULL then, and 0 returned). */
int rt_lock_acquire_shared(const char *lock_path, const struct rt_lock_wait *w,
                           struct rt_lock **out, struct rt_error *e);
void rt_lock_release(struct rt_lock *l);


#endif
