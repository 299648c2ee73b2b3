/* What the files of the commit layer's journal share (commit_build.c,
 * commit_run.c, journal_files.c, journal_read.c, journal_replay.c,
 * writer_lock.c): the journal's format, a commit and a journal read
 * back as structures, and the steps more than one of them takes. Not
 * for other layers: they use commit/journal.h. */
#ifndef RT_JOURNAL_INTERNAL_H
#define RT_JOURNAL_INTERNAL_H

#include "commit/journal.h"
#include "platform/os.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define JOURNAL_MAGIC  "RTJOURN3"
#define COMMIT_MAGIC   "RTCOMMIT"
#define TRAILER_SIZE   24      /* magic, u64 body length, u32 crc, u32 count */
#define REC_WRITE      1u
#define REC_SIZE       2u
#define REC_FRESH      3u      /* never in the journal: written before it */
#define REC_DELETE     4u      /* the file is removed; OFFSET: how many of
                                  its parent directories to remove too
                                  when that leaves them empty */
/* A size record's data, when it has any, is one byte of flags (journals
 * without it, as earlier versions wrote them, mean no flag). */
#define SIZE_IN_ORDER  0x01u   /* set where the record stands: the file is
                                  not lengthened ahead of the records */
/* No file a commit writes reaches past 4 GiB (a hive's bins size and a
 * table's value length are 32-bit): a record saying more is no commit's,
 * and replayed it would make a sparse file of terabytes. */
#define MAX_FILE_END   ((uint64_t)1 << 32)
/* Nor does a commit touch more files than this: two hives, four tables
 * a language (install writes every language's, and a Perflib key names
 * up to 69,632 ids of three or four digits), the backup and the INF
 * copies of each language folder. */
#define MAX_FILES      (1u << 19)

struct record {
    uint32_t kind;
    char *file;
    uint64_t offset;    /* REC_WRITE: where; REC_SIZE: the final size;
                           REC_DELETE: parents to prune */
    const uint8_t *data;
    size_t len;
    uint8_t *owned;     /* DATA when the commit frees it; NULL when it
                           is the caller's (borrowed) */
    size_t file_no;     /* its file in the commit's files (index_files) */
    size_t next;        /* the next record of its file, + 1; 0 */
};

/* A file the commit's records name, as index_files found it: where its
 * records start, and its size after the commit. */
struct commit_file {
    const char *name;   /* the first record's */
    size_t first;       /* its first record */
    uint64_t end;
    int sized;
    int has_intent;
};

/* How a record holds the bytes it is given. */
enum hold { COPY, BORROW, TAKE };

/* A file that gets fresh bytes, and its size before the commit: an
 * unsealed journal is rolled back by cutting the file to that size. */
struct intent {
    char *file;
    uint64_t size;
};

struct rt_commit {
    char *base, *journal;
    char *what;             /* "install of Xfer", for whoever finds it */
    struct intent *intents;
    size_t n_intents;
    struct record *v;
    size_t n, cap;
    /* The files the records name, each found by name through SLOTS (an
     * index of FILES + 1, 0 for none): a commit over thousands of
     * tables finds each record's file at once, not by a pass over the
     * records. Made by rt_commit_run, once every record is in. */
    struct commit_file *files;
    size_t n_files;
    size_t *slots, n_slots;
    uint64_t bytes;
    struct rt_journal_scope scope;
    int scoped;
};

/* The journal of a commit, as it is written: the header and the intent
 * block (count, then per file path length, size before, path; a CRC of
 * everything so far), then per record kind, path length, offset, data
 * length, path, data; then the trailer. Only what frames the records is
 * made here: their data is written from where the records hold it (the
 * change's own bytes, mostly borrowed), so a commit's bytes are held
 * once, not twice. */
struct journal_image {
    uint8_t *head;              /* header and intent block: ILEN bytes */
    size_t ilen;
    uint8_t *frames;            /* each record's kind, lengths, offset and
                                   path, one after another */
    /* The body: HEAD, then each record's frame and data. */
    struct rt_io_piece *pieces;
    size_t n_pieces;
    uint8_t trailer[TRAILER_SIZE];
    size_t len;                 /* the whole journal */
};

/* The file records are being written to. A file's records come together,
 * so each file is opened once and fsynced when the next one begins. */
struct target {
    char path[PATH_MAX];
    int fd;
};

/* Directories whose entries a pass removed, fsynced once each when the
 * pass ends (before the journal is retired, which is all the removals'
 * durability needs): an uninstall removing an INF copy's two files and
 * its two folders fsyncs the folder above them once, not four times.
 * Each is named by a path inside it, as rt_io_fsync_dir_of takes it. */
struct dir_syncs {
    char **paths;
    size_t n;
};

/* A record of a journal body, checked: FILE a plain name of the store,
 * DATA inside the journal's buffer. */
struct jrec {
    uint32_t kind;
    int in_order;           /* REC_SIZE: SIZE_IN_ORDER */
    const char *file;
    uint64_t offset;
    const uint8_t *data;
    uint32_t len;
};

struct rt_journal {
    char *path;
    uint8_t *buf;
    size_t len;
    struct rt_journal_info info;
    /* The intent block, when it is whole: what rolls an unsealed journal
     * back. FILE points into NAMES. */
    struct intent *intents;
    size_t n_intents;
    struct jrec *recs;      /* a sealed journal's records */
    size_t n_recs;
    struct rt_journal_file *files;
    size_t n_files;
    /* Per file (as FILES): the largest size a record not in order gives
     * it, which the first pass of a replay lengthens it to; 0: none. */
    uint64_t *grow_to;
    /* FILES by name: a hash table of indexes + 1 (0: free), so that
     * listing them costs a look-up per record, whatever the journal. */
    uint32_t *slots;
    size_t n_slots, max_files;
    char *names;            /* every name, NUL-ended, one after another */
    size_t names_used;
};

/* --- building (commit_build.c) -------------------------------------------- */

/* rt_journal_path_problem for the LEN bytes at NAME (not NUL-ended: a
 * NUL inside is a problem too). */
const char *rt_journal_name_problem(const char *name, size_t len);
/* Frames C's journal into IM (rt_journal_image_free frees it): 0, or -1
 * out of memory. */
int rt_journal_image_make(const struct rt_commit *c, struct journal_image *im);
void rt_journal_image_free(struct journal_image *im);

/* --- file steps (journal_files.c) ----------------------------------------- */

/* BASE/REL into BUF (SIZE bytes): 0, or -1 when it does not fit. */
int rt_journal_full_path(char *buf, size_t size, const char *base,
                         const char *rel);
/* Fsyncs and closes the current file. */
int rt_target_finish(struct target *t, struct rt_error *e);
/* Makes BASE/REL the current file, finishing the previous one. */
int rt_target_switch(struct target *t, const char *base, const char *rel,
                     struct rt_error *e);
/* Reports a failed write to the current file and closes it. */
int rt_target_fail(struct target *t, struct rt_error *e);
void rt_dir_syncs_free(struct dir_syncs *d);
/* Fsyncs each noted directory, then frees D. */
int rt_dir_syncs_flush(struct dir_syncs *d, struct rt_error *e);
/* Removes BASE/REL and up to PRUNE of the parent directories it leaves
 * empty, noting each removal's directory in DIRS. */
int rt_journal_delete_file(const char *base, const char *rel, uint64_t prune,
                           struct dir_syncs *dirs, struct rt_error *e);
/* Whether ERR refuses what stands at a path (a link, a mount point, a
 * special file, a folder, a hard link) rather than a system failure. */
int rt_is_refusal(int err);
/* What a commit failing with ERR on PATH (needing BYTES) needs, in a few
 * words, into BUF. */
void rt_failure_needs(int err, const char *path, uint64_t bytes, char *buf,
                      size_t size);
/* E for a writer that could not open PATH for writing (ERR, from
 * rt_os_open): a refusal in its own words (they name the path), else the
 * system's reason and what the writer needs. -1. */
int rt_open_refused(const char *path, int err, struct rt_error *e);
/* Whether the directory holding PATH exists. */
int rt_parent_exists(const char *path);
/* What there is of the folders above PATH are folders, reached without a
 * link: 0, or -1 with E set. */
int rt_folders_ok(const char *path, struct rt_error *e);

/* --- reading and replaying (journal_read.c, journal_replay.c) ------------- */

/* Lists the files J's records act on (J->files, J->grow_to). */
int rt_journal_list_files(struct rt_journal *j, struct rt_error *e);
/* What the files of J reach in all once its sealed records are
 * replayed: the sum of their extents (rt_journal_list_files). */
uint64_t rt_journal_extent_total(const struct rt_journal *j);
/* Cuts each file of the intent block V (N entries) back to its size
 * before the commit. */
int rt_journal_roll_back_fresh(const char *base, const struct intent *v,
                               size_t n, struct rt_error *e);

#endif
