/* Transaction logs of a hive file (regf layer, public API): finding the
 * logs beside a primary file, describing them, and replaying them onto an
 * in-memory image of the primary so that its latest state is recovered.
 *
 * Both log formats of the "Windows registry file format specification"
 * are handled: the new one (NAME.LOG1/NAME.LOG2, HvLE entries checked by
 * two Marvin32 hashes, Windows 8.1 and later) and the old one (a DIRT
 * bitmap of dirty 512-byte pages). A hive whose primary file is not dirty
 * gets nothing applied, as Windows ignores its logs then. */
#ifndef RT_REGF_LOG_H
#define RT_REGF_LOG_H

#include <stddef.h>
#include <stdint.h>

/* The three log files a primary may have, in the order they are tried. */
enum rt_regf_log_slot {
    RT_REGF_LOG1,
    RT_REGF_LOG2,
    RT_REGF_LOG,
    RT_REGF_LOG_SLOTS
};

/* "LOG1", "LOG2", "LOG". */
const char *rt_regf_log_slot_name(enum rt_regf_log_slot slot);

/* Paths of the logs found beside a primary; NULL where none exists. */
struct rt_regf_log_paths {
    char *path[RT_REGF_LOG_SLOTS];
    /* An entry named like the slot's log that is not a regular file (a
     * link, a FIFO, a folder, a device): its path, and what it is in
     * words ("a FIFO"); NULL where there is none. Never opened. */
    char *not_file[RT_REGF_LOG_SLOTS];
    const char *not_file_what[RT_REGF_LOG_SLOTS];
    /* A second regular file named like the slot's log in another letter
     * case (SOFTWARE.LOG1 and SOFTWARE.log1): its path; NULL where there
     * is none. Which of the two Windows wrote is not known: a dirty
     * primary's replay is refused. */
    char *twin[RT_REGF_LOG_SLOTS];
};

/* Looks in the primary's directory for regular files named like the
 * primary plus ".LOG1", ".LOG2" and ".LOG", comparing whole names without
 * regard to letter case (a disk copied from Windows keeps whatever case
 * Windows created). When several names match one slot, the one spelled
 * exactly like the primary with an upper-case extension wins, then the
 * primary's spelling with a lower-case extension, then the first in byte
 * order. A matching entry that is not a regular file is not taken for a
 * log but noted in NOT_FILE (by the same order), for the caller to
 * refuse by name. Returns 0, or -1 with errno set when the directory
 * cannot be read or memory runs out. */
int rt_regf_log_find(const char *primary_path, struct rt_regf_log_paths *out);
void rt_regf_log_paths_free(struct rt_regf_log_paths *paths);

/* One log given to the replay: NAME is used in messages; DATA NULL (or
 * SIZE 0 with NAME NULL) means the log does not exist. */
struct rt_regf_log_input {
    const char *name;
    const uint8_t *data;
    size_t size;
};

enum rt_regf_log_format {
    RT_REGF_LOG_ABSENT,   /* no such file */
    RT_REGF_LOG_INVALID,  /* not a usable log (see problem) */
    RT_REGF_LOG_NEW,      /* HvLE entries */
    RT_REGF_LOG_OLD       /* DIRT bitmap and 512-byte pages */
};

/* What one log holds and what was taken from it. */
struct rt_regf_log_info {
    char *name;                     /* copy of the input name, or NULL */
    enum rt_regf_log_format format;
    uint32_t sequence;              /* its base block's sequence number */
    uint64_t timestamp;             /* its base block's FILETIME */
    uint32_t hbins_size;            /* its base block's hive bins size */
    /* New format: entries forming an unbroken chain from the log's
     * sequence number, each with good hashes and sane fields. Old format:
     * 0. */
    size_t valid_entries;           /* the chain's: SEQUENCE on */
    size_t dirty_pages;             /* old format: pages in the bitmap */
    int used;                       /* something was applied from it */
    size_t entries_applied;
    /* Why the log is invalid, why its chain ends before the end of the
     * file, or why it was not used; empty when there is nothing to say.
     * Offsets are file offsets in the log. */
    char problem[200];
};

enum rt_regf_replay_status {
    RT_REGF_REPLAY_CLEAN,        /* primary not dirty: image is a copy */
    RT_REGF_REPLAY_APPLIED,      /* logs applied: image is clean */
    RT_REGF_REPLAY_NO_USABLE_LOG,/* dirty, but no log can be applied */
    RT_REGF_REPLAY_BAD_PRIMARY,  /* not a primary hive file */
    RT_REGF_REPLAY_IO_ERROR,     /* rt_regf_replay_file only */
    RT_REGF_REPLAY_NO_MEMORY
};

struct rt_regf_replay_report {
    enum rt_regf_replay_status status;
    char *primary_name;             /* copy of the name given, or NULL */
    int primary_dirty;
    int primary_checksum_ok;
    uint32_t primary_seq1, primary_seq2;
    struct rt_regf_log_info log[RT_REGF_LOG_SLOTS];
    enum rt_regf_log_format format_applied;   /* ABSENT when none */
    size_t entries_applied;         /* new format: HvLE entries */
    size_t pages_applied;           /* dirty pages written, both formats */
    uint32_t first_sequence, last_sequence;   /* new format, if applied */
    /* Of the image: sequence numbers (both equal after a replay) and
     * hive bins size. */
    uint32_t result_sequence;
    uint32_t result_hbins_size;
    /* What is wrong, when status is neither CLEAN nor APPLIED (the
     * primary's name is not repeated in it). */
    char message[300];
    /* rt_regf_replay_file: the primary file's size, and how much of it
     * was read (less when it runs past its bins further than Windows'
     * unused tail: see rt_regf_replay_file). */
    uint64_t primary_file_size;
    uint64_t primary_read;
};

/* Replays the logs onto the primary image PRIMARY (PRIMARY_SIZE bytes).
 * LOGS is indexed by enum rt_regf_log_slot. On success returns 0 and,
 * when IMAGE is not NULL, stores a new malloc'd image in *IMAGE and its
 * size in *IMAGE_SIZE: the recovered hive (status APPLIED: not dirty, both
 * sequence numbers equal to the last entry applied, hive bins size and
 * checksum updated) or a copy of the primary (status CLEAN). With IMAGE
 * NULL nothing is kept: the report alone says what a replay would do.
 * Returns -1 when no image can be made (status and message say why).
 * The report is always filled in; free it with rt_regf_replay_report_free.
 * Every length and offset read from the inputs is checked: damaged logs
 * end a replay cleanly at the first bad entry. */
int rt_regf_replay(const uint8_t *primary, size_t primary_size,
                   const char *primary_name,
                   const struct rt_regf_log_input logs[RT_REGF_LOG_SLOTS],
                   uint8_t **image, size_t *image_size,
                   struct rt_regf_replay_report *report);

/* Reads the primary file at PATH and the logs rt_regf_log_find finds
 * beside it, then replays as rt_regf_replay does. Every file is opened
 * once and checked on its descriptor to be a regular file of at most
 * 4 GiB. Of the primary, only the base block, the bins it covers and the
 * unused tail Windows leaves after them (up to 16 MiB) are read: the
 * image of a file running further past its bins ends with them. A log is
 * read only as far as its format says, a piece at a time: its base
 * block, then its valid entries (new format), or its dirty vector and
 * the pages it marks (old format); the rest of the file is never read,
 * and a log is never held whole. A file that cannot be read gives -1
 * with status IO_ERROR (a log left out silently could hold the only copy
 * of recent changes). An entry named like a log that is not a regular
 * file (rt_regf_log_find's NOT_FILE) is never opened: its slot's info
 * says what it is ("a FIFO, not a regular file: not read", format
 * INVALID), and beside a dirty primary it makes the replay -1 with
 * status NO_USABLE_LOG and a message naming it ("PATH is a FIFO, not a
 * regular file: refused"). */
int rt_regf_replay_file(const char *path, uint8_t **image, size_t *image_size,
                        struct rt_regf_replay_report *report);

/* Copies aside, as DEST (which must not exist), what a replay of the
 * hive file PATH reads of it (see rt_regf_replay_file): with LOG 0, PATH
 * is a primary (its base block, its bins and Windows' unused tail); with
 * LOG 1, a transaction log (its base block and the entries or pages its
 * format records; nothing when its base block is no log's). PATH is
 * opened once and checked on that descriptor: a file that is not a
 * regular file is refused (-1, EISDIR or ENODEV), nothing of it copied.
 * The copy has PATH's permission bits (read and write bits only) from
 * before its first byte, is written a piece at a time (never held whole)
 * with pieces of zeros left as holes, and is synced. *MADE says whether
 * a copy was made. Returns 0, or -1 with errno (DEST removed; EINTR after
 * an interrupt). */
int rt_regf_copy_aside(const char *path, int log, const char *dest,
                       int *made);

void rt_regf_replay_report_free(struct rt_regf_replay_report *report);

#endif
