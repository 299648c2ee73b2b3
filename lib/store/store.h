/* The store interface: where the Perflib name database lives. A struct of
 * function pointers per backend, as libgit2 does for its object-database
 * backends, so the engine never knows which store it has nor where a
 * store keeps its tables (values in a hive, .dat files, the live
 * registry, memory).
 *
 * A store is used in one transaction at a time: begin() takes the writer
 * lock and brings the store to a consistent state (recovering an
 * interrupted commit), reads see that state, apply() writes a whole change
 * set or nothing, end() releases the lock. Reads outside begin/end are
 * allowed for read-only commands. */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "model/change_set.h"
#include "model/error.h"
#include "model/str_pool.h"

struct rt_store;

/* A table as the store holds it: N pieces of bytes, TOTAL in all. */
struct rt_table_pieces {
    const uint8_t **piece;
    size_t *len;
    size_t n, total;
    uint32_t type;
};
void rt_table_pieces_free(struct rt_table_pieces *p);

/* A key of the database's part of the registry that a plain listing
 * misreads (a hostile tree's): a symbolic link key (KEY_SYM_LINK), which
 * Windows follows to another key and regtool does not, or two subkeys
 * whose names differ only in letter case, of which Windows reaches one
 * by either name. KEY and OTHER name the keys with their hive ("SYSTEM\
 * ControlSet001\Services\Linky"). */
enum rt_key_anomaly_kind {
    RT_KEY_LINK,            /* KEY is a link; OTHER its target, or NULL
                               when its SymbolicLinkValue names none */
    RT_KEY_CASE_TWINS,      /* KEY and OTHER differ only in case */
    RT_KEY_MISPARENTED,     /* KEY is listed there, but its own parent is
                               another key: a loop in the key tree, or a
                               key listed in two places (OTHER NULL) */
    RT_KEY_NUMBERED_SET,    /* a .reg file's provider key under a
                               numbered control set (KEY, with its file
                               and line; OTHER: "N more"), which regtool
                               does not read as CurrentControlSet's */
    RT_KEY_SELECT_DIFFERS,  /* SYSTEM's Select\Current (KEY, the control
                               set read and written) and Select\Default
                               (OTHER, the set the next boot uses) name
                               two sets: what Windows loads next is not
                               what is checked */
};
struct rt_key_anomaly {
    enum rt_key_anomaly_kind kind;
    int in_perflib;         /* under Perflib (else under Services) */
    char *key, *other;
};
void rt_key_anomalies_free(struct rt_key_anomaly *v, size_t n);

struct rt_store_ops {
    const char *kind;                   /* "mem", "hive", "win32" */

    /* Takes the writer lock (waiting for other writers) and recovers an
     * interrupted commit. */
    int (*begin)(struct rt_store *s, struct rt_error *e);
    /* Releases the lock. */
    void (*end)(struct rt_store *s);

    /* Perflib's language subkeys (three hex digits, and CurrentLanguage),
     * in the store's order, as a new array of new strings. */
    int (*list_languages)(struct rt_store *s, char ***langs, size_t *n,
                          struct rt_error *e);
    /* A language's Counter or Help blob; *PRESENT 0 when absent. */
    int (*read_table)(struct rt_store *s, const char *lang,
                      enum rt_table_kind table, struct rt_value *out,
                      int *present, struct rt_error *e);
    /* Optional: a table where the store holds it, without a copy (the
     * bulk of what install and uninstall read): returns 0 with *OUT set
     * (valid until the store next changes; rt_table_pieces_free), 1 when
     * this store cannot here (read_table then), -1 with E set. */
    int (*read_table_pieces)(struct rt_store *s, const char *lang,
                             enum rt_table_kind table,
                             struct rt_table_pieces *out, int *present,
                             struct rt_error *e);
    /* Optional: the bytes of a table from byte FROM on, and its whole
     * length in *LEN, reading nothing before FROM where the store can:
     * for checking a splice after it is made. */
    int (*read_table_from)(struct rt_store *s, const char *lang,
                           enum rt_table_kind table, size_t from,
                           struct rt_value *out, size_t *len, int *present,
                           struct rt_error *e);
    /* A Perflib value (Last Counter, Last Help, Base Index, ...). */
    int (*read_perflib)(struct rt_store *s, const char *name,
                        struct rt_value *out, int *present,
                        struct rt_error *e);

    /* Services with a Performance key, as a new array of new strings. */
    int (*list_perf_services)(struct rt_store *s, char ***names, size_t *n,
                              struct rt_error *e);
    /* Optional: the same names, each added to POOL (the caller's: it
     * frees them, whatever this returns), listed in *NAMES, an array
     * freed with free(). For a store of hundreds of thousands of
     * services, whose names a heap block each would cost several times
     * their bytes. */
    int (*list_perf_services_into)(struct rt_store *s,
                                   struct rt_str_pool *pool, char ***names,
                                   size_t *n, struct rt_error *e);
    /* Whether Services\NAME exists, and whether it has a Performance key. */
    int (*service_state)(struct rt_store *s, const char *service,
                         int *exists, int *has_perf, struct rt_error *e);
    /* A value of Services\NAME\Performance. */
    int (*read_service)(struct rt_store *s, const char *service,
                        const char *name, struct rt_value *out, int *present,
                        struct rt_error *e);

    /* Optional (NULL: the store's keys can be neither links nor two of
     * one name): the link keys among Services (a service's key or its
     * Performance key) and among Perflib's subkeys, and the subkeys of
     * Services and of Perflib whose names differ only in case, as a new
     * array (rt_key_anomalies_free). */
    int (*key_anomalies)(struct rt_store *s, struct rt_key_anomaly **out,
                         size_t *n, struct rt_error *e);

    /* Applies every change of CS, or none (inside begin/end). */
    int (*apply)(struct rt_store *s, const struct rt_change_set *cs,
                 struct rt_error *e);
    /* Optional (NULL: apply() refuses nothing a plan has not): what
     * apply() would refuse CS for, found without writing (a file past
     * its cap, a journal past the store's, a text its code page cannot
     * hold, a link or a FIFO where a file is to be written), in its
     * words: a dry run refuses where its commit would. An empty CS
     * checks what begin() would refuse (its lock file, a journal): a
     * dry run with nothing to change refuses where the real run, which
     * takes the lock all the same, would. The store reads as before
     * afterwards. */
    int (*check_apply)(struct rt_store *s, const struct rt_change_set *cs,
                       struct rt_error *e);
    /* Optional: non-zero when apply() takes table splices (table changes
     * with edits, change_set.h) and writes only the bytes they change;
     * other stores are given whole tables. */
    int (*splices)(struct rt_store *s);

    /* One line on where the tables were found, for `query`. */
    const char *(*layout)(struct rt_store *s);
    /* Optional (NULL: registry values): non-zero when the tables are
     * .dat files (perfcLLL.dat, perfhLLL.dat) rather than registry
     * values, which a .reg file cannot reach. */
    int (*tables_in_files)(struct rt_store *s);
    /* Optional (NULL: no bound but memory): the most bytes of tables one
     * change may write, below what the store's commit would refuse (its
     * journal's cap, its file's). A change whose new pairs alone come to
     * more is refused before it is made (rt_change_budget): a tree of a
     * thousand planted languages would otherwise have a provider's texts
     * copied into each, gigabytes, before the commit refused them. */
    uint64_t (*change_max)(struct rt_store *s);

    /* Optional (NULL in stores that keep no files: the live registry,
     * memory): whether PATH names a file this store reads or writes
     * itself, there or not (rt_os_names_file): a file saved there
     * (a backup, a textfile, a patch) would replace or plant one. */
    int (*own_file)(struct rt_store *s, const char *path);

    void (*close)(struct rt_store *s);

    /* Optional (NULL in stores that do not read a Windows tree): the
     * tree's Windows directory, as a path of this machine, or NULL when
     * the store's files are not inside one (hive files given by name).
     * audit --libraries checks the providers' DLLs against it. */
    const char *(*windows_dir)(struct rt_store *s);
    /* Optional (NULL: the store holds nothing of the machine beyond
     * Perflib and Services): a value of the machine's registry that
     * audit --libraries must know (the environment strings the machine
     * defines): KEY below HKLM\SOFTWARE, or with SYSTEM below HKLM\SYSTEM's
     * current control set. *PRESENT 1 when it is there, 0 when KEY is
     * there without it, -1 when KEY is not there: Windows leaves a
     * variable its machine's key does not set unexpanded, where a tree
     * without the key is one setup has not written (review 49 R49-11). */
    int (*read_machine)(struct rt_store *s, int system, const char *key,
                        const char *name, struct rt_value *out, int *present,
                        struct rt_error *e);

    /* Optional (NULL where no system runs the providers: every offline
     * store): the performance data for QUERY ("Global", "Costly", or
     * indices) as a consumer reads it, through HKEY_PERFORMANCE_DATA:
     * *LEN bytes in a new buffer of *CAP bytes. The first buffer is
     * short on purpose; *MORE_DATA is 1 when it was answered with
     * ERROR_MORE_DATA, 0 when with success and more bytes than it holds,
     * -1 when the data fit it. */
    int (*perf_data)(struct rt_store *s, const char *query, uint8_t **buf,
                     size_t *len, size_t *cap, int *more_data,
                     struct rt_error *e);
    /* Optional (NULL: every language is the store's to write): 1 when the
     * tables of LANG are a fixed table the system serves and nothing can
     * change (Wine's Perflib\009 stub, "1 1847 1846 End Marker"), with a
     * phrase for people in WHY; 0 otherwise. The engine leaves such a
     * language alone and says so. */
    int (*language_fixed)(struct rt_store *s, const char *lang,
                          char *why, size_t why_size);

    /* Side files: optional, both or neither (NULL where the store has no
     * Windows directory: .reg and psb stores; the win32 store for now).
     * Files under the Windows directory that belong with the database:
     * a provider's INF copy (INF\<service>\<LLLL>\<PerfIniFile>), the
     * base tables as installed (System32\perfdLLL.dat, perfiLLL.dat) and
     * System32\PerfStringBackup.INI, which Windows' own lodctr /R reads.
     * A change set writes and removes them (RT_CHANGE_WRITE_FILE,
     * RT_CHANGE_DELETE_FILE) in the same atomic commit as the rest.
     * HAS_WIN_FILES: 1 when this store has such a directory (hive files
     * given by name have none). READ_WIN_FILE: REL relative to it, '/'
     * between components, matched ignoring case as Windows does, as
     * committed; *PRESENT 0 when absent. OUT NULL: whether it is there,
     * nothing read (a file about to be removed or rewritten whole). */
    int (*has_win_files)(struct rt_store *s);
    int (*read_win_file)(struct rt_store *s, const char *rel,
                         struct rt_value *out, int *present,
                         struct rt_error *e);

    /* Optional (NULL where a store keeps each table once): another copy
     * of LANG's table T that the store keeps beside the one read_table
     * reads, and that other readers see. WHICH: RT_COPY_WOW64, the
     * SysWOW64 .dat file 32-bit programs read (files layout);
     * RT_COPY_HIVE, Perflib\LANG's value in the SOFTWARE hive when the
     * tables Windows serves are .dat files. *PRESENT 0 when there is no
     * such copy. apply() writes every copy a table change's table. */
#define RT_COPY_WOW64 1
#define RT_COPY_HIVE 2
    int (*read_table_copy)(struct rt_store *s, const char *lang,
                           enum rt_table_kind t, int which,
                           struct rt_value *out, int *present,
                           struct rt_error *e);

    /* Optional (NULL where a store keeps no journal): what the store
     * found in its journal's place when it was opened, as one line for
     * the user, or NULL when nothing is there. *KIND: RT_JOURNAL_REFUSED
     * (not a journal of this store's, or one naming other files: no
     * writer goes on until someone looks at it), RT_JOURNAL_PENDING (a
     * committed change the files do not hold yet: the next writer
     * finishes it) or RT_JOURNAL_UNSEALED (a change that never reached
     * its commit point: the next writer discards it). The files are read
     * as they are, whatever the journal says. */
#define RT_JOURNAL_REFUSED 1
#define RT_JOURNAL_PENDING 2
#define RT_JOURNAL_UNSEALED 3
    const char *(*journal_state)(struct rt_store *s, int *kind);
};

/* Every backend's handle starts with this. */
/* What a caller runs around a store's commit (rt_store's HOOKS), for an
 * output that belongs with the change: BEFORE gets the change set as it
 * will be committed, under the writer's lock, before anything of it is
 * written (a failure, E set, writes nothing); AFTER is told whether it
 * was committed. The CLI's --emit-reg writes its patch's temporary file
 * before and puts it in place after, so that a full disk refuses the
 * change rather than lose the patch after it (review 46 R46-2). */
struct rt_commit_hooks {
    int (*before)(void *ctx, struct rt_store *s,
                  const struct rt_change_set *cs, struct rt_error *e);
    void (*after)(void *ctx, int committed);
    void *ctx;
};

struct rt_store {
    const struct rt_store_ops *ops;
    const struct rt_commit_hooks *hooks;   /* NULL: none */
};

/* Frees an array returned by list_languages / list_perf_services. */
void rt_strings_free(char **v, size_t n);

/* Whether S keeps side files (has_win_files, above). */
int rt_store_win_files(struct rt_store *s);

/* S's change_max, or 0 (no bound) where it has none. */
uint64_t rt_store_change_max(struct rt_store *s);

/* S's own_file: 0 where it keeps no files. */
int rt_store_owns_file(struct rt_store *s, const char *path);

/* Reads PATH, the side file REL of a Windows folder (rebuild's sources, a
 * file an uninstall keeps or removes), whole into OUT within
 * rt_win_file_max(REL): 0, or -1 with E set (over the cap: its size
 * named and nothing read, as a sparse file of gigabytes once was). */
int rt_store_read_side_file(const char *path, const char *rel,
                            struct rt_value *out, struct rt_error *e);

/* Whether NAME is a language subkey: three or four hex digits, or
 * CurrentLanguage (model/lang_id.h). */
int rt_is_language_key(const char *name);

/* The in-memory store, for tests: empty (no Perflib key at all). */
struct rt_store *rt_store_mem_new(void);

/* Test hook: the next apply() fails after writing K changes, then rolls
 * them back, as a real store must after a failure midway. 0 disables. */
void rt_store_mem_fail_after(struct rt_store *s, size_t k);
/* Test hook: the store's change_max (0: none, as by default). */
void rt_store_mem_set_change_max(struct rt_store *s, uint64_t bytes);
/* Test hook: LANG's tables are served fixed (store op language_fixed),
 * as Wine serves Perflib\009; NULL for none. */
void rt_store_mem_set_fixed(struct rt_store *s, const char *lang);

/* Direct set-up for tests (outside any change set): create a language,
 * set a table, a Perflib value, a service's Performance key/value. */
int rt_store_mem_put_table(struct rt_store *s, const char *lang,
                           enum rt_table_kind t, const uint8_t *blob,
                           size_t len);
/* The same with a value type of the caller's (a damaged database). */
int rt_store_mem_put_table_typed(struct rt_store *s, const char *lang,
                                 enum rt_table_kind t, uint32_t type,
                                 const uint8_t *blob, size_t len);
int rt_store_mem_put_perflib(struct rt_store *s, const char *name,
                             const struct rt_value *v);
int rt_store_mem_put_service(struct rt_store *s, const char *service,
                             int with_perf_key);
int rt_store_mem_put_service_value(struct rt_store *s, const char *service,
                                   const char *name, const struct rt_value *v);
int rt_store_mem_put_language(struct rt_store *s, const char *lang);

/* A side file under the mem store's Windows directory (read_win_file). */
int rt_store_mem_put_file(struct rt_store *s, const char *rel,
                          const uint8_t *data, size_t len);

/* A canonical text dump of the whole store (every key and value, the
 * bytes in hex), to compare two states exactly. New string. */
char *rt_store_mem_dump(struct rt_store *s);

#endif
