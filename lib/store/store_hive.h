/* The hive store: an offline Windows installation (a mounted disk, a copy
 * of one) whose name database is in its SOFTWARE and SYSTEM hive files,
 * and, from Vista on, in System32\perfcLLL.dat / perfhLLL.dat. */
#ifndef RT_STORE_HIVE_H
#define RT_STORE_HIVE_H

#include "model/diag.h"
#include "store/store.h"

/* The commit's files beside SYSTEM (config/): its journal and the
 * writers' lock. */
#define RT_HIVE_JOURNAL_NAME "regtool.journal"
#define RT_HIVE_LOCK_NAME "regtool.lock"

struct rt_hive_options {
    const char *tables_dir;   /* --tables: where the .dat tables are */
    int force_dirty;          /* --force-dirty: write a dirty hive whose
                                 logs cannot be replayed */
    int wait_seconds;         /* --wait: how long a writer (or a reader,
                                 behind a writer) waits for the lock;
                                 -1 forever, 0 not at all */
    /* One line for the user: waiting for the lock, an unfinished commit
     * found, finished or discarded. NULL: say nothing. */
    void (*notice)(const char *line);
    /* Each table is read once, copied (RT_REGF_READ_ONCE): a restore, a
     * backup, an audit. */
    int read_once;
};

/* Opens SPEC: "DIR" (a Windows tree: the disk's root, its Windows
 * directory, or Windows/System32/config) or "SOFTWARE,SYSTEM" (the two
 * hive files). Warnings (a dirty hive read without its logs) go to D.
 * Returns NULL with E set on failure. Opening writes nothing: a reader's
 * shared lock is taken only where config/regtool.lock exists and can be
 * opened for writing, and a journal found is never read as the database:
 * the files are read as they are, and what the journal would change is
 * said through the notice; begin() checks it whole and finishes it, or
 * refuses it when it names anything but the store's files. */
struct rt_store *rt_store_hive_open(const char *spec,
                                    const struct rt_hive_options *opt,
                                    struct rt_diags *d, struct rt_error *e);

/* Whether PATH names a file a hive store of the tree the hive file HIVE
 * lies in would write: HIVE, SOFTWARE, SYSTEM and their logs, the
 * journal and lock beside HIVE; where HIVE's folder is System32/config, the .dat
 * tables of System32 and SysWOW64, PerfStringBackup.INI and INF copies
 * (as a store's own files: any letter case, any way there, another name
 * of one that exists); with TABLES (--tables, or NULL) the .dat tables
 * there rather than System32's. For an output named outside a store
 * (hive recover -o) or beside one that cannot be opened: 1 or 0, -1 out
 * of memory. */
int rt_store_hive_tree_names(const char *hive, const char *tables,
                             const char *path);
/* Whether PATH, as the file it leads to or where its folder puts it,
 * lies below folder ROOT (with BESIDE, in it) and bears the name of a
 * hive store's file (any
 * letter case: a hive or its log, the journal, the lock, a .dat table,
 * PerfStringBackup.INI) or is a file of an INF copy (INF/X/Y/NAME): for
 * a store that could not be opened, whose folders' spellings may be
 * what made it so (two folders of one name in two letter cases: review
 * 46 R46-1). 1 or 0. */
int rt_store_hive_root_holds(const char *root, int beside, const char *path);

/* Test hook: the next apply fails after K changes were made in memory,
 * before anything reaches the files. */
void rt_store_hive_fail_after(struct rt_store *s, size_t k);

/* Bytes written and fsyncs made by this process's commits so far. */
struct rt_io_stats;
void rt_store_hive_stats(struct rt_io_stats *out);

#endif
