/* regtool hive check and hive recover: one hive file and the transaction
 * logs beside it, not a name database. The hive layer reads, checks and
 * replays them; these operations give back what it found as their own
 * types, for the CLI to print, so that nothing of the hive layer shows
 * through this header (tools/check-layers.sh holds it to that). */
#ifndef RT_OPS_HIVE_FILES_H
#define RT_OPS_HIVE_FILES_H

#include <stddef.h>
#include <stdint.h>

/* The three logs a hive may have beside it, in the order they are tried:
 * FILE.LOG1, FILE.LOG2, FILE.LOG. */
#define RT_OP_HIVE_LOG_SLOTS 3

enum rt_op_log_format {
    RT_OP_LOG_ABSENT,    /* no such file */
    RT_OP_LOG_INVALID,   /* not a usable log (see problem) */
    RT_OP_LOG_NEW,       /* HvLE entries (Windows 8.1 on) */
    RT_OP_LOG_OLD        /* a bitmap of dirty 512-byte pages */
};

/* What one log holds and what a replay took from it. */
struct rt_op_hive_log {
    const char *slot;               /* "LOG1", "LOG2", "LOG" */
    char *name;                     /* its path, NULL when absent */
    enum rt_op_log_format format;
    uint32_t sequence;              /* its base block's sequence number */
    size_t valid_entries;           /* new format: the unbroken chain */
    size_t dirty_pages;             /* old format */
    int used;                       /* something was applied from it */
    size_t entries_applied;
    char problem[200];              /* why invalid, cut short or unused;
                                       empty when there is nothing to say */
};

enum rt_op_replay_status {
    RT_OP_REPLAY_CLEAN,          /* the hive is not dirty: logs ignored */
    RT_OP_REPLAY_APPLIED,        /* logs applied: the result is clean */
    RT_OP_REPLAY_NO_USABLE_LOG,  /* dirty, but no log can be applied */
    RT_OP_REPLAY_BAD_PRIMARY,    /* not a primary hive file */
    RT_OP_REPLAY_IO_ERROR,       /* a file could not be read */
    RT_OP_REPLAY_NO_MEMORY
};

/* What replaying the logs onto the hive does, or would do. */
struct rt_op_hive_replay {
    enum rt_op_replay_status status;
    int primary_checksum_ok;
    uint32_t primary_seq1, primary_seq2;
    struct rt_op_hive_log log[RT_OP_HIVE_LOG_SLOTS];
    enum rt_op_log_format format_applied;     /* ABSENT when none */
    size_t entries_applied;                   /* new format */
    size_t pages_applied;                     /* both formats */
    uint32_t first_sequence, last_sequence;   /* new format, if applied */
    uint32_t result_sequence;                 /* of the result: both */
    uint32_t result_hbins_size;
    char message[300];      /* what is wrong, when neither CLEAN nor
                               APPLIED (without the hive's name) */
    /* The hive file's size and how much of it was read: less when it
     * runs more than 16 MiB past its hive bins, a tail nothing reads. */
    uint64_t primary_file_size;
    uint64_t primary_read;
};

enum rt_op_hive_severity { RT_OP_HIVE_WARNING, RT_OP_HIVE_ERROR };

struct rt_op_hive_finding {
    enum rt_op_hive_severity severity;
    uint64_t offset;        /* the file offset it is about */
    char *message;          /* may begin "file offset 0x..: " itself */
};

/* regtool hive check's report on one hive file. */
struct rt_op_hive_check {
    /* The base block's fields, read straight from the file so that even
     * a hive too broken to open shows them; HAVE_HEADER 0 when the file
     * does not start with a whole base block signed "regf". */
    int have_header;
    unsigned major, minor;
    uint32_t seq1, seq2;
    int dirty;
    long long size;             /* of the file; -1 when unknown */
    struct rt_op_hive_replay replay;   /* what a replay would apply */
    /* Structural findings, in the order the check met them; a hive that
     * cannot be opened gives one error, at the offset its message names. */
    struct rt_op_hive_finding *findings;
    size_t n_findings, errors, warnings;
    /* regtool.journal beside the hive: an unfinished regtool commit. */
    int journal_pending;
    uint64_t journal_bytes;
    char error[512];            /* why -1, see rt_op_hive_check */
};

/* Checks the hive file PATH, cell by cell and bounds-checked, reading
 * only: its base block, its logs and what replaying them would apply,
 * its structure, and a regtool journal beside it, into *OUT (free it with
 * rt_op_hive_check_free whatever the outcome). Returns 0, or -1 when the
 * file cannot be read or memory runs out (OUT->error says which). */
int rt_op_hive_check(const char *path, struct rt_op_hive_check *out);
void rt_op_hive_check_free(struct rt_op_hive_check *c);

/* What regtool hive recover did. */
enum rt_op_recover_outcome {
    RT_OP_RECOVER_WRITTEN,       /* OUT holds the hive's latest state:
                                    replay.status APPLIED, or CLEAN and
                                    OUT a copy of the hive */
    RT_OP_RECOVER_UNREADABLE,    /* the hive cannot be read (err_no) */
    RT_OP_RECOVER_OUT_IS_HIVE,   /* OUT is the hive file itself */
    RT_OP_RECOVER_NOT_REPLAYED,  /* no image to write: replay.status and
                                    replay.message say why */
    RT_OP_RECOVER_OUT_IS_LOG,    /* OUT is the log replay.log[out_log] */
    RT_OP_RECOVER_OUT_IS_TREE_FILE, /* OUT is another file of the tree
                                    the hive lies in
                                    (rt_store_hive_tree_names): its
                                    journal or lock, the other hive, a
                                    .dat table, PerfStringBackup.INI */
    RT_OP_RECOVER_OUT_EXISTS,    /* and FORCE was not given */
    RT_OP_RECOVER_UNWRITABLE,    /* OUT could not be written (err_no) */
};

struct rt_op_hive_recover {
    enum rt_op_recover_outcome outcome;
    int err_no;
    int out_log;
    struct rt_op_hive_replay replay;   /* from NOT_REPLAYED on */
};

/* Replays the transaction logs beside the hive PATH and writes the
 * result, a clean hive, to OUT (replacing it only with FORCE), with the
 * hive's read and write permission bits. PATH and its logs are never
 * written, nor is OUT when it is one of them; nothing is written unless
 * the outcome is WRITTEN. Returns R->outcome; free R with
 * rt_op_hive_recover_free whatever it is. */
enum rt_op_recover_outcome rt_op_hive_recover(const char *path,
                                              const char *out, int force,
                                              struct rt_op_hive_recover *r);
void rt_op_hive_recover_free(struct rt_op_hive_recover *r);

#endif
