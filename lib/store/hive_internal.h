/* Store layer, internal: what the pieces of the hive store share.
 * store_hive.c (paths, locating and confining the tree, opening and
 * closing, the store operations), hive_image.c (a hive file's image:
 * read, its logs replayed, kept while the file is unchanged),
 * hive_layout.c (where the tables live: values of Perflib\LLL or .dat
 * files), hive_dat.c (the .dat tables kept mapped, found by path),
 * hive_read.c (the store's reads), hive_journal.c (what the journal may
 * name, a reader's notice of one, a writer's recovery: begin and end),
 * hive_stage.c (a change set applied to the images, the files to write
 * staged) and hive_commit.c (the commit: a hive's changed pages, the
 * .dat bytes that differ, side files, the backup of replayed hives)
 * each keep their own helpers static; this header holds the store's
 * state and the few helpers that cross between them. Not for use
 * outside lib/store/: other layers use store/store_hive.h. */
#ifndef RT_STORE_HIVE_INTERNAL_H
#define RT_STORE_HIVE_INTERNAL_H

#include "store/store_hive.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "commit/journal.h"
#include "platform/grow.h"
#include "platform/os.h"
#include "regf/base_block.h"
#include "regf/regf.h"

#define PERFLIB_PATH "Microsoft\\Windows NT\\CurrentVersion\\Perflib"

struct hive_file {
    char *path;
    struct rt_regf *h;
    int replayed;          /* the image came from its logs */
    uint64_t file_end;     /* size of the file as opened */
    uint64_t bins_end;     /* end of the hive bins as opened: what the
                              file's base block covers */
    int dirty_unusable;    /* dirty, no usable logs, not forced */
    char dirty_why[300];   /* why its logs cannot be replayed */
    /* The file as the image was read from it (or as our last commit left
     * it): its identity, size and time, and its base block. Every commit
     * writes a new base block (new sequence numbers), and ours write it
     * last, so a file whose base block, size and time are still these
     * holds what the image holds: begin() and a second look at open keep
     * the image instead of reading 80 MB again. */
    int seen_valid;
    struct rt_os_stat seen;
    uint8_t seen_base[REGF_BASE_BLOCK_SIZE];
};

/* A .dat table as read_table read it: mapped, with the file's identity
 * and time when it was mapped. The engine reads each table several times
 * in one install (to load, to check the change, to verify it), and the
 * commit needs the old bytes to write only what differs: all served from
 * this one view instead of reading the file again. */
struct dat_seen {
    char *path;
    struct rt_os_stat st;
    struct rt_os_map map;
    size_t next;        /* the next in its bucket (dats_by_path), + 1; 0 */
};

struct hive_store {
    struct rt_store base;
    struct rt_hive_options opt;
    struct hive_file software, system;
    char *system32;        /* holds perfcLLL.dat, NULL in registry layout */
    char *syswow64;        /* second copy of the .dat tables, or NULL */
    int files_layout;
    char *base_dir, *journal, *lock_path;
    /* What was found in the journal's place when the store was opened
     * (hive_say_pending_journal): the line said, and RT_JOURNAL_*. */
    char *journal_line;
    int journal_kind;
    char *windows_dir;     /* the tree's Windows directory, or NULL */
    /* The directories confined (rt_os_confine) for this store: every path
     * beneath them is resolved without following links or "..". */
    char *roots[5];
    char *tables_canon;    /* --tables DIR, canonical */
    struct rt_lock *lock;          /* the writer's, between begin and end */
    struct rt_lock *shared;        /* a reader's, from open to begin/close */
    char services[64];     /* "ControlSet001\\Services" */
    /* Select's Current (the set read and written) and Default (the set
     * the next boot uses; 0 when absent): a tree whose two differ is
     * said as a key anomaly. */
    uint32_t select_current, select_default;
    int select_default_odd;    /* there, but no 4-byte REG_DWORD */
    char layout[PATH_MAX + 128];
    size_t fail_after;
    struct rt_lock_wait wait;
    struct rt_diags *diags;
    /* The .dat tables read_table read, kept mapped (read_dat), found by
     * path through DAT_BUCKETS (each an index of DATS + 1, 0 for none):
     * a tree has thousands of tables, each looked for several times. */
    struct dat_seen *dats;
    size_t n_dats, cap_dats;
    size_t *dat_buckets, n_dat_buckets;
    uint64_t dats_held;    /* the bytes of their maps together */
};

static inline struct hive_store *hs(struct rt_store *s)
{
    return (struct hive_store *)s;
}



/* Windows grows a hive file in steps of a few hundred KB, so real files
 * run past their bins by that much (442,368 bytes in the samples). Far
 * more than that is no file Windows wrote: a base block whose bins size
 * is too small, or a hive padded with gigabytes of sparse zeros. A
 * commit writes the file up to its bins and cuts the rest, so such a
 * file is read (as far as the bins) but never written. */
#define HIVE_SLACK_MAX (16u << 20)

/* A .dat file's new content, gathered during apply: the change set's
 * own value, which outlives the apply (no copy). */
struct dat_write {
    char *path;
    const struct rt_value *v;
    /* A .dat table spliced instead (SPLICE's edits, made to the table
     * BEFORE holds: System32's, for a SysWOW64 copy; NULL: PATH's own). */
    const struct rt_change *splice;
    char *before;
    size_t next;        /* the next in its bucket (pending_bucket), + 1; 0 */
};

struct pending {
    /* The tables to write, found by path through BUCKETS (each an index
     * of DATS + 1, 0 for none): a commit over thousands of languages
     * stages thousands, each looked for among those before. */
    struct dat_write *dats;
    size_t n_dats, cap_dats;
    size_t *buckets, n_buckets;
    /* Side files: written whole (as .dat files are, bytes that differ)
     * or, with V NULL, removed. */
    struct dat_write *files;
    size_t n_files, cap_files;
};

/* --- store_hive.c: paths, notices, the Windows directory ----------------- */

/* One line for the user through the store's notice, escaped
 * (model/printable.h): it names the journal's files and the tree's, which
 * whoever wrote the disk chose. */
void hive_notice(struct hive_store *s, const char *line);
/* DIR/NAME, matching NAME without regard to case; see hive_ambiguous(). */
char *hive_find_ci(const char *dir, const char *name);
/* After a lookup gave NULL: 1, with E set, when a folder held two names
 * that differ only in case; else 0 (the file is absent). */
int hive_ambiguous(struct rt_error *e);
/* The folder P lies in, as a new string. */
char *hive_parent_dir(const char *p);
/* PATH relative to BASE (a directory prefix of it). */
const char *hive_relative(const char *base, const char *path);
/* P canonical, as a new string; NULL with errno. */
char *hive_absolute(const char *p);
/* Whether PATH's last component is NAME, ignoring case. */
int hive_base_is(const char *path, const char *name);
/* The tree's Windows directory, NULL when the hives were given by name
 * outside one (store op windows_dir). */
const char *hive_windows_dir(struct rt_store *st);

/* --- hive_image.c: a hive file's image ----------------------------------- */

void hive_file_close(struct hive_file *hf);
/* Whether HF's file still holds what its image came from. */
int hive_file_unchanged(const struct hive_file *hf);
/* After our commit: the file holds the image, sealed, as it is now. */
void hive_file_committed(struct hive_file *hf);
/* Reads HF's image following the writing policy (replays usable logs;
 * a dirty hive without them is read, not written, unless forced). */
int hive_file_open(struct hive_store *s, struct hive_file *hf,
                   struct rt_error *e);

/* --- hive_layout.c: where the tables live -------------------------------- */

/* Key PATH beneath H's root into *KEY: 0, or the regf error. */
int hive_lookup(struct rt_regf *h, const char *path, uint32_t *key);
/* Key PATH beneath HF's root into *KEY: 0; 1 when there is no such key
 * (or PATH names none: a name that is no key name); -1 with E when the
 * lookup failed (out of memory, a subkey list on the way that does not
 * read). A lookup that failed is never an absent key: readers would
 * otherwise report less than the hive holds, and say nothing. */
int hive_find(const struct hive_file *hf, const char *path, uint32_t *key,
              struct rt_error *e);
/* The longest key path the store builds from a name the hive holds: a
 * service's key and its Performance key below ControlSet00N\Services,
 * the name up to 255 UTF-16 units (765 bytes of UTF-8). */
#define HIVE_PATH_MAX 1024
/* Formats a key path into BUF (SIZE bytes): 0, or -1 with E set when it
 * does not fit, a name longer than Windows allows (a path cut short
 * named another key, one the disk's author planted: review 55 R55-3). */
int hive_key_path(char *buf, size_t size, struct rt_error *e,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* -1 with E for the regf error R met at PATH of HF: out of memory as
 * such, anything else the hive's damage, named with its file. */
int hive_regf_error(const struct hive_file *hf, const char *path, int r,
                    struct rt_error *e);
/* Reads both hives afresh and finds the tables; CHECK: and checks that
 * they are all there. */
int hive_load_all(struct hive_store *s, int check, struct rt_error *e);
/* hive_load_all, keeping the images when neither file changed. */
int hive_reload_if_changed(struct hive_store *s, struct rt_error *e);

/* --- hive_dat.c: the .dat tables, mapped --------------------------------- */

/* Unmaps every .dat table kept. */
void hive_dats_drop(struct hive_store *s);
/* The view of PATH kept since it was mapped, if the file is unchanged. */
struct dat_seen *hive_dat_seen_find(struct hive_store *s, const char *path);
/* Maps PATH and keeps the view; NULL with errno. */
struct dat_seen *hive_dat_seen_map(struct hive_store *s, const char *path);
/* DIR's .dat file of LANG's table T, as spelled there if it exists. */
char *hive_dat_path(const char *dir, const char *lang, enum rt_table_kind t);
/* LANG's table T from its .dat file in DIR, copied into OUT. */
int hive_read_dat(struct hive_store *s, const char *dir, const char *lang,
                  enum rt_table_kind t, struct rt_value *out, int *present,
                  struct rt_error *e);

/* --- hive_read.c: the store's reads -------------------------------------- */

/* Names of the subkeys of PATH in HF, filtered by KEEP (NULL: all),
 * which returns 1 to keep a name, 0 to pass it over, or a regf error
 * (out of memory) that ends the listing. */
int hive_list_subkeys(const struct hive_file *hf, const char *path,
                      int (*keep)(struct rt_regf *, uint32_t, const char *,
                                  void *),
                      void *ctx, char ***out, size_t *n, struct rt_error *e);
/* The value in Perflib\LLL that holds table T (registry layout). */
const char *hive_table_value_name(enum rt_table_kind t);
int hive_list_languages(struct rt_store *st, char ***langs, size_t *n,
                        struct rt_error *e);
int hive_read_table(struct rt_store *st, const char *lang,
                    enum rt_table_kind t, struct rt_value *out,
                    int *present, struct rt_error *e);
int hive_read_table_pieces(struct rt_store *st, const char *lang,
                           enum rt_table_kind t,
                           struct rt_table_pieces *out, int *present,
                           struct rt_error *e);
int hive_read_table_from(struct rt_store *st, const char *lang,
                         enum rt_table_kind t, size_t from,
                         struct rt_value *out, size_t *len, int *present,
                         struct rt_error *e);
int hive_read_table_copy(struct rt_store *st, const char *lang,
                         enum rt_table_kind t, int which,
                         struct rt_value *out, int *present,
                         struct rt_error *e);
int hive_read_perflib(struct rt_store *st, const char *name,
                      struct rt_value *out, int *present,
                      struct rt_error *e);
int hive_list_perf_services(struct rt_store *st, char ***names, size_t *n,
                            struct rt_error *e);
int hive_service_state(struct rt_store *st, const char *service,
                       int *exists, int *has_perf, struct rt_error *e);
int hive_read_service(struct rt_store *st, const char *service,
                      const char *name, struct rt_value *out, int *present,
                      struct rt_error *e);
/* store_ops.read_machine. */
int hive_read_machine(struct rt_store *st, int system, const char *key,
                      const char *name, struct rt_value *out, int *present,
                      struct rt_error *e);
int hive_key_anomalies(struct rt_store *st, struct rt_key_anomaly **out,
                       size_t *n, struct rt_error *e);
int hive_has_win_files(struct rt_store *st);
int hive_read_win_file(struct rt_store *st, const char *rel,
                       struct rt_value *out, int *present,
                       struct rt_error *e);

/* --- hive_journal.c: the journal, begin and end -------------------------- */

/* What this store's journal may name, and how large it may be. */
struct rt_journal_scope hive_journal_scope(struct hive_store *s);
/* The store op own_file: the hives and their logs, the journal, the
 * lock, a .dat table (current or as installed) in System32 or SysWOW64,
 * the tree's PerfStringBackup.INI. */
int hive_own_file(struct rt_store *s, const char *path);
/* A reader's one line about a journal it finds (it never acts on it). */
void hive_say_pending_journal(struct hive_store *s);
int hive_begin(struct rt_store *st, struct rt_error *e);
void hive_end(struct rt_store *st);

/* --- hive_stage.c and hive_commit.c: writing ----------------------------- */

/* Applies change C to the images in memory, staging the files it
 * writes in P. */
int hive_apply_one(struct hive_store *s, const struct rt_change *c,
                   struct pending *p, struct rt_error *e);
void hive_pending_free(struct pending *p);
int hive_apply(struct rt_store *st, const struct rt_change_set *cs,
               struct rt_error *e);
/* What hive_apply would refuse CS for, found with nothing written. */
int hive_check_apply(struct rt_store *st, const struct rt_change_set *cs,
                     struct rt_error *e);

#endif
