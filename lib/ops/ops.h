/* Operations: one transaction on a store each. Read the database under
 * the store's lock, compute the change with the engine, apply it
 * atomically, then read back and verify (docs/design.md, "Install"). */
#ifndef RT_OPS_OPS_H
#define RT_OPS_OPS_H

#include <regtool.h>

/* What the operations take and give back, and so what the CLI prints:
 * the database as read, findings, plans and change sets, name tables,
 * .reg and PerfStringBackup files, diagnostics, the platform's calls. */
#include "engine/audit.h"
#include "engine/backup.h"
#include "engine/database.h"
#include "engine/diff.h"
#include "engine/engine.h"
#include "engine/provider_names.h"
#include "engine/rebuild.h"
#include "engine/rebuild_sources.h"
#include "engine/reg_patch.h"
#include "engine/repair.h"
#include "model/change_set.h"
#include "model/diag.h"
#include "model/error.h"
#include "model/lang_id.h"
#include "model/name_match.h"
#include "model/perfstats.h"
#include "model/printable.h"
#include "model/reg_file.h"
#include "model/size_caps.h"
#include "model/utf16.h"
#include "ops/reg_backup.h"
#include "platform/os.h"
#include "provider/provider_spec.h"
#include "store/store.h"

/* FLAGS of install and uninstall: RT_OP_DRY_RUN computes *CS and *PLAN
 * and writes nothing; RT_OP_WHOLE_TABLES gives back table changes as
 * whole tables (a .reg patch needs them), not as splices of the stored
 * bytes. On success the caller owns *CS and *PLAN. */
#define RT_OP_DRY_RUN 1
#define RT_OP_WHOLE_TABLES 2
int rt_op_install(struct rt_store *s, const struct rt_provider_spec *spec,
                  const struct rt_install_options *opt, int flags,
                  struct rt_change_set *cs, struct rt_install_plan *plan,
                  struct rt_error *e);

int rt_op_uninstall(struct rt_store *s, const char *drivername, int force,
                    int flags, struct rt_change_set *cs,
                    struct rt_uninstall_plan *plan, struct rt_error *e);

/* Sets or deletes a service's Disable Performance Counters (lodctr /D /E). */
int rt_op_set_disabled(struct rt_store *s, const char *drivername,
                       int disable, struct rt_error *e);

/* Applies CS inside begin/end: first the engine's table invariant against
 * the tables as stored (rt_engine_check_table_change; a change set that
 * breaks it is refused with RT_ERR_INTERNAL_ERROR and nothing written),
 * then the store's atomic apply, then a read-back of every table. */
int rt_op_apply(struct rt_store *s, const struct rt_change_set *cs,
                struct rt_error *e);
/* rt_op_apply for a dry run: the same checks, the store's commit's
 * included (store.h check_apply), nothing written. */
int rt_op_check(struct rt_store *s, const struct rt_change_set *cs,
                struct rt_error *e);
/* For a dry run that found nothing to change: what the writer's begin()
 * would refuse (the lock's file, a journal), checked as rt_op_check does
 * before a change. */
int rt_op_check_begin(struct rt_store *s, struct rt_error *e);

/* -1 with E naming them when S has key anomalies (store.h: a link key
 * or two keys of one name among Services or Perflib's subkeys): every
 * writer refuses such a tree before it reads or writes anything else. */
int rt_op_refuse_key_anomalies(struct rt_store *s, struct rt_error *e);

/* A restore's refusals, each RT_ERR_ALREADY_EXISTS ending in "nothing was
 * written (--force restores it anyway)"; each returns -1.
 * rt_op_refuse_forced: the sentence FMT gives.
 * rt_op_refuse_other_machine: another machine's backup, naming how many
 * of the base texts (DIFFER of COMPARED, the first FIRST_INDEX of
 * FIRST_LANG) differ.
 * rt_op_refuse_base_index: WHERE (the file's key or section) sets Base
 * Index to *VALUE (NULL: not a number) where the store's is OURS. */
int rt_op_refuse_forced(struct rt_error *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int rt_op_refuse_base_index(const char *where, const uint32_t *value,
                            uint32_t ours, struct rt_error *e);
int rt_op_refuse_other_machine(uint32_t base_index, size_t differ,
                               size_t compared, uint32_t first_index,
                               const char *first_lang, struct rt_error *e);

/* lodctr /R:file: restores the database from a backup file's content PSB
 * in one atomic commit (engine/backup.h). With DRY_RUN, computes *CS and
 * *PLAN and writes nothing; nothing is written either when nothing
 * differs. A file whose base texts differ from the database's (the
 * plan's base_differ: another machine's backup) is refused with
 * RT_ERR_ALREADY_EXISTS, naming how many differ and the first, nothing
 * written, unless FORCE (or DRY_RUN, whose plan says it). On success the
 * caller owns *CS and *PLAN. */
int rt_op_restore(struct rt_store *s, const struct rt_psb *psb, int force,
                  int dry_run, struct rt_change_set *cs,
                  struct rt_restore_plan *plan, struct rt_error *e);

/* Repair (engine/repair.h) in one atomic commit: the database is read
 * under the store's lock, and when anything is to change (and not
 * DRY_RUN), BEFORE_WRITE(DB, CTX) runs first (the CLI saves a backup
 * there); when it fails, nothing is written. On success the caller owns
 * *CS and *R (CS empty when nothing needed fixing). */
int rt_op_repair(struct rt_store *s, const struct rt_repair_options *opt,
                 int dry_run,
                 int (*before_write)(const struct rt_database *db, void *ctx),
                 void *ctx, struct rt_change_set *cs,
                 struct rt_repair_report *r, struct rt_error *e);

/* lodctr /R (engine/rebuild.h) in one atomic commit, PerfStringBackup.INI
 * rewritten in it: the sources are read under the lock (from FROM, a
 * Windows directory, or the store's own) into *SRC, which the plan
 * points into (free both, the plan first). When text would be lost
 * (PLAN->lost) and ACCEPT_LOSS is 0, nothing is written: -1 with
 * RT_ERR_FILE_NOT_FOUND, *REFUSED 1 and *PLAN filled for the caller to
 * print; a dry run plans and refuses nothing. When anything is to be
 * written (not DRY_RUN), BEFORE_WRITE(PLAN, CS, CTX), when not NULL, runs
 * first with the change set about to be committed (the CLI says there
 * what will be lost); when it fails, nothing is written. */
int rt_op_rebuild(struct rt_store *s, const char *from, int accept_loss,
                  int dry_run,
                  int (*before_write)(const struct rt_rebuild_plan *plan,
                                      const struct rt_change_set *cs,
                                      void *ctx),
                  void *ctx, struct rt_change_set *cs,
                  struct rt_rebuild_plan *plan, struct rt_rebuild_sources *src,
                  int *refused, struct rt_error *e);

/* A provider's INI as install, lodctr and check-ini load it (the
 * provider layer's parser and checks): CODEPAGE the code page of an
 * ANSI INI (NULL: none given), SYMBOL_DIR where its symbol file is (NULL:
 * beside the INI). With STRICT, an INI that loads with warnings is
 * refused (RT_INI_REFUSED_STRICT, *SPEC freed and zeroed). Every
 * diagnostic goes to D, unsorted, for the caller to print. *SPEC is the
 * caller's to free whatever the outcome. */
struct rt_ini_load_options {
    const char *codepage;
    const char *symbol_dir;
    int strict;
};
enum rt_ini_load {
    RT_INI_LOADED,
    RT_INI_INVALID,          /* errors, in D */
    RT_INI_UNREADABLE,       /* the INI or its symbol file cannot be read
                                (D says why) */
    RT_INI_REFUSED_STRICT,   /* loaded with D->warnings warnings */
    RT_INI_OUT_OF_MEMORY,    /* memory ran out reading or checking them:
                                D's diagnostics are no account of the
                                INI (D->out_of_memory) */
};
enum rt_ini_load rt_op_load_ini(const char *path,
                                const struct rt_ini_load_options *opt,
                                struct rt_provider_spec *spec,
                                struct rt_diags *d);

/* install's and lodctr's INI: rt_op_load_ini, keeping the INI's and its
 * symbol file's bytes as they were read and validated in *INF
 * (rt_provider_spec_load_files): what the INF copy holds is what was
 * checked, each file read once. Out of memory: RT_INI_OUT_OF_MEMORY, E
 * saying so, *SPEC and *INF empty. On RT_INI_LOADED the caller frees
 * *INF (rt_inf_files_free); otherwise it is empty. */
enum rt_ini_load rt_op_load_provider(const char *path,
                                     const struct rt_ini_load_options *opt,
                                     struct rt_provider_spec *spec,
                                     struct rt_inf_files *inf,
                                     struct rt_diags *d, struct rt_error *e);

/* repair --from-ini: the INIs of every provider that can be found, each
 * loaded (rt_op_load_ini): every *.ini of DIR (confined while it is read:
 * another machine's folder), then, when S reads a Windows tree, each
 * service's INF copy, WIN/INF/<service>/<four hex digits>/<PerfIniFile>
 * (names matched without regard to case), its symbol file beside it (as
 * install writes it) or in WIN/INF/<service> (as Windows does). An INI
 * that does not load is skipped and a service whose PerfIniFile or name
 * is no file name is not looked up: each told to NOTE, in the order
 * found, when NOTE is not NULL. */
struct rt_ini_set {
    struct rt_provider_spec **v;
    size_t n;
};
void rt_ini_set_free(struct rt_ini_set *l);
enum rt_ini_note_kind {
    RT_INI_NOTE_SKIPPED,      /* PATH did not load: WHY, its first error
                                 as rt_diag_format gives it, or NULL when
                                 it cannot be read */
    RT_INI_NOTE_NOT_A_NAME,   /* SERVICE's VALUE ("PerfIniFile" or
                                 "service name") SHOWN (as
                                 rt_side_name_shown gives it) is no file
                                 name: WHY */
};
struct rt_ini_note {
    enum rt_ini_note_kind kind;
    const char *path;
    const char *service, *value, *shown;
    const char *why;
};
/* 0 with *OUT (the caller frees it with rt_ini_set_free, whatever the
 * outcome); -1 out of memory; -2 DIR cannot be read or listed (E: "DIR:
 * why"); -3 S's services cannot be listed (E). */
int rt_op_find_inis(struct rt_store *s, const char *dir,
                    void (*note)(void *ctx, const struct rt_ini_note *n),
                    void *note_ctx, struct rt_ini_set *out,
                    struct rt_error *e);

/* A store spec as regtool_open and --store take it. */
enum rt_store_spec_kind {
    RT_SPEC_HIVE_TREE,      /* hive:DIR, a Windows tree */
    RT_SPEC_HIVE_FILES,     /* hive:SOFTWARE,SYSTEM, two hive files */
    RT_SPEC_PSB,            /* psb:FILE */
    RT_SPEC_REG,            /* reg:FILE */
    RT_SPEC_LIVE,           /* live, live:MACHINE */
};
struct rt_store_spec {
    enum rt_store_spec_kind kind;
    const char *arg;        /* what follows the prefix, within SPEC (the
                               machine's name for live:, NULL for live) */
};
/* Parses SPEC into *OUT: 0, or -1 when it names no kind of store. */
int rt_op_parse_spec(const char *spec, struct rt_store_spec *out);

/* Confines the folders the store SPEC would hold while open (a tree's
 * DIR, the folder of a psb: or reg: FILE, of each hive of
 * hive:SOFTWARE,SYSTEM), as its tree, for an output named beneath one of
 * them and written once the store is closed (audit --textfile): a link
 * its writer planted there is refused, as while the store is open. The
 * canonical forms go into HELD[0..1], *N of them, for
 * rt_op_release_spec_folders. A folder that is not there is skipped (the
 * store's own open says why); one that is and cannot be held (refused,
 * out of memory or descriptors) is -1 with errno, the others held left
 * in HELD: the caller writes nothing there then. 0 otherwise. */
int rt_op_hold_spec_folders(const char *spec, char *held[2], size_t *n);
void rt_op_release_spec_folders(char *held[2], size_t n);

/* Opens the store SPEC names (regtool_open's specs) with OPT (NULL:
 * defaults); READ_ONCE: the caller reads each table once, copying it (a
 * hive store's open then holds none of their pages). Warnings of the
 * opening (a dirty hive read without its logs) go to OPT->notice. NULL
 * with E set on failure, and *BAD_SPEC set to 1 when SPEC names no store
 * this build has (the CLI's usage error). */
struct rt_store *rt_op_open_store(const char *spec,
                                  const regtool_open_options *opt,
                                  int read_once, struct rt_error *e,
                                  int *bad_spec);

/* rt_op_open_store, then the database read from it as LOAD asks
 * (engine/database.h) into *DB, which the caller frees with
 * rt_database_free after closing nothing else: the store is returned
 * open. When the database cannot be read, the store is closed: NULL
 * with E set and *BAD_SPEC 0. */
struct rt_store *rt_op_open_database(const char *spec,
                                     const regtool_open_options *opt,
                                     int read_once,
                                     const struct rt_db_load_options *load,
                                     struct rt_database *db,
                                     struct rt_error *e, int *bad_spec);

/* regtool diff: the stores SPEC_A and SPEC_B opened (OPT, READ_ONCE as
 * rt_op_open_store takes them) and read whole in turn, each closed once
 * read, into DB[0] and DB[1], and compared into *D (engine/diff.h), which
 * points into them; all freed with rt_op_diff_free. Returns 0, or -1 with
 * E set, *WHICH the store that failed (0 or 1; -1 when the comparison
 * ran out of memory) and *BAD_SPEC 1 when its spec names no store; then
 * nothing is left to free. */
int rt_op_diff(const char *spec_a, const char *spec_b,
               const regtool_open_options *opt, int read_once,
               struct rt_database db[2], struct rt_diff *d,
               struct rt_error *e, int *which, int *bad_spec);
void rt_op_diff_free(struct rt_database db[2], struct rt_diff *d);
/* A differing pair's text in A (SIDE 0) or B (1), NULL in the one
 * without it (engine/diff.h, rt_diff_text). */
const struct rt_pair *rt_op_diff_text(const struct rt_diff *d,
                                      const struct rt_diff_pair *p, int side);

/* What rt_op_save_backup would refuse PATH for (FORCE: replacing it),
 * found with nothing written (a dry run's look at where its backup would
 * go): 0, or -1 with *ERR_NO the errno, rt_os_strerror's words. */
int rt_op_check_backup_path(const char *path, int force, int *err_no);

/* The PerfStringBackup of DB saved to PATH by RULE as it is made: each
 * language's tables read from S, written and freed in turn
 * (rt_engine_backup_to; with SALVAGE a damaged table's readable pairs,
 * each such table told to DAMAGED when not NULL). It is written to a
 * temporary file, each write counted (commit/io.h), and renamed to its
 * name only when whole: whatever fails, an interrupt included
 * (RT_ERR_CANCELLED), leaves no file. Returns 0 with *ST set, or -1 with
 * E set: E->code RT_ERR_WRITE_FAULT when the file could not be opened,
 * written or finished (*ERR_NO its errno: EEXIST when the rule found no
 * free name), else the backup's own refusal. *USED: the name written to
 * (rt_os_saving_open), also on failure; the caller frees it. */
int rt_op_save_backup(struct rt_store *s, const struct rt_database *db,
                      const char *path, enum rt_os_saving_rule rule,
                      int salvage,
                      void (*damaged)(void *ctx,
                                      const struct rt_backup_damage *d),
                      void *damaged_ctx, struct rt_backup_stats *st,
                      char **used, int *err_no, struct rt_error *e);

/* The .reg backup of DB (rt_engine_backup_reg: Version 5.00, UTF-16LE,
 * the tables' exact bytes read through S) saved to PATH by RULE as
 * rt_op_save_backup saves: each write counted, a temporary file renamed
 * to its name only when whole; an interrupt that came before then
 * (rt_os_interrupted) leaves no file. *USED: the name written to, also
 * on failure (the caller frees it); *LEN: the file's bytes. */
enum rt_reg_save {
    RT_REG_SAVE_OK,
    RT_REG_SAVE_REFUSED,        /* the database cannot be backed up (E) */
    RT_REG_SAVE_TOO_LARGE,      /* larger than RT_REG_FILE_MAX, which no
                                   restore reads: *TOO_LARGE at least its
                                   size; nothing written */
    RT_REG_SAVE_NO_TEXT,        /* the text could not be made (E) */
    RT_REG_SAVE_WRITE_FAILED,   /* not written (*ERR_NO; EEXIST: RULE
                                   found no free name), or interrupted */
};
enum rt_reg_save rt_op_save_reg_backup(struct rt_store *s,
                                       const struct rt_database *db,
                                       const char *path,
                                       enum rt_os_saving_rule rule,
                                       size_t *len, uint64_t *too_large,
                                       char **used, int *err_no,
                                       struct rt_error *e);

/* CS as text, one line per change and per pair, each line ending in a
 * newline: a new string, or NULL when out of memory. */
char *rt_op_change_set_text(const struct rt_change_set *cs);

/* The strings CS loses (rt_change_lost), read from the very change set
 * a commit writes: for each table change, each pair removed at an index
 * beyond those it adds there. With EACH not NULL, each is told to it
 * (LANG, TABLE, INDEX, TEXT as the table has it), in the change set's
 * order. Returns how many, or (size_t)-1 when out of memory. */
size_t rt_op_strings_lost(const struct rt_change_set *cs,
                          void (*each)(void *ctx, const char *lang,
                                       enum rt_table_kind table,
                                       uint32_t index, const char *text),
                          void *ctx);

/* The writes this process's commits and saved files have made so far
 * (--verbose): bytes, write calls, fsyncs. */
void rt_op_io_totals(uint64_t *bytes_written, unsigned *writes,
                     unsigned *fsyncs);
/* Whether this build reads INI files (built with inih). */
int rt_op_ini_available(void);

/* A backup file read for restore (lodctr /R:FILE, regtool restore): a
 * PerfStringBackup file parsed, or a .reg file parsed, told by its first
 * bytes. */
enum rt_backup_file_kind {
    RT_BACKUP_FILE_NONE,
    RT_BACKUP_FILE_PSB,
    RT_BACKUP_FILE_REG,
};
struct rt_backup_file {
    enum rt_backup_file_kind kind;
    struct rt_psb psb;              /* RT_BACKUP_FILE_PSB */
    enum rt_psb_encoding enc;
    struct rt_tree_key *reg;        /* RT_BACKUP_FILE_REG: the file read
                                       into a tree (rt_reg_parse_tree) */
    unsigned line;                  /* RT_BACKUP_READ_MALFORMED: where, */
    int with_line;                  /* when the reader knows it */
};
enum rt_backup_read {
    RT_BACKUP_READ_OK,
    RT_BACKUP_READ_TOO_LARGE,   /* E says the size and the cap (whole) */
    RT_BACKUP_READ_UNREADABLE,  /* E: the system's reason; E->code the
                                   Win32 code (file or path not found,
                                   access denied) */
    RT_BACKUP_READ_NO_MEMORY,   /* E */
    RT_BACKUP_READ_MALFORMED,   /* E: what is wrong, at F->line */
};
/* Reads FILE into *F; the caller frees it with rt_backup_file_free
 * (whatever the outcome). Nothing is written. Unless RT_BACKUP_READ_OK,
 * E holds the whole sentence for the user, naming FILE (and the line
 * where the reader knows it), and E->code the Win32 code. */
enum rt_backup_read rt_op_read_backup_file(const char *file,
                                           struct rt_backup_file *f,
                                           struct rt_error *e);
void rt_backup_file_free(struct rt_backup_file *f);

/* Queries on an open store, for the CLI to print. */

/* Closes S (NULL: nothing). */
void rt_op_close(struct rt_store *s);

/* Where S keeps the tables: registry values (every store but a hive
 * tree's from Vista on), or .dat files in System32, which no .reg file
 * reaches. */
enum rt_tables_layout {
    RT_TABLES_IN_VALUES,
    RT_TABLES_IN_FILES,
};
enum rt_tables_layout rt_op_tables_layout(struct rt_store *s);

/* One line on where the tables were found, for people (query, audit). */
const char *rt_op_layout_text(struct rt_store *s);

/* The Windows directory of S's tree as a path of this machine, or NULL
 * when S reads no tree (hive files given by name, psb:, reg:). */
const char *rt_op_windows_dir(struct rt_store *s);

/* 1 when S keeps side files (a provider's INF copy, PerfStringBackup.INI)
 * in a Windows directory, 0 when it has none to keep them in. */
int rt_op_keeps_side_files(struct rt_store *s);

/* 1 when PATH names one of S's own files, there or not (a hive tree's
 * hives and their logs, journal, lock and .dat tables; a .reg store's
 * file and lock; a PerfStringBackup store's file): an output saved there
 * (a backup, an audit's textfile, a .reg patch) would replace or plant
 * one of them. 0 otherwise, and for stores that keep no files. */
int rt_op_owns_file(struct rt_store *s, const char *path);
/* The same for a store SPEC that could not be opened, from the files it
 * names: a hive pair's or tree's hives and their logs, journal and lock
 * (and, a tree's, its tables and side files); a .reg store's file and
 * lock; a PerfStringBackup store's file (review 44 R44-8: an audit of a
 * store it could not read wrote its textfile over its hive); TABLES the
 * --tables folder or NULL. */
int rt_op_spec_names_file(const char *spec, const char *tables,
                          const char *path);

/* 0 when S is a PerfStringBackup file, which holds each provider's
 * ranges and strings but never its Library or procedures: who gets
 * loaded is not in it to check. 1 otherwise. */
int rt_op_holds_libraries(struct rt_store *s);

/* The services with a Performance key, in *NAMES (rt_strings_free). */
int rt_op_list_perf_services(struct rt_store *s, char ***names, size_t *n,
                             struct rt_error *e);

/* Service SVC's Performance value NAME as a string in *OUT (a new one;
 * NULL when absent or not a string). -1 with E when it cannot be read. */
int rt_op_service_string(struct rt_store *s, const char *svc,
                         const char *name, char **out, struct rt_error *e);

/* names: the positions of L sorted for name lookups (model/name_match.h:
 * rt_name_index_find, rt_name_match). 0, or -1 with E when out of
 * memory. */
int rt_op_name_index(struct rt_name_index *x, const struct rt_pair_list *l,
                     struct rt_error *e);

/* names --provider: SVC's counters in language L (engine/provider_names.h),
 * its range First Counter..Last Counter (First Counter alone when Last
 * Counter is absent; none when SVC has no range). 0, or -1 with E when
 * out of memory. */
int rt_op_provider_names(const struct rt_service_info *svc,
                         const struct rt_db_language *l,
                         struct rt_provider_names *out, struct rt_error *e);

/* init: the tree `regtool init` creates, and the benchmarks' trees
 * (bench/mkbench.c) at scale. SOFTWARE with Perflib's values and each
 * language's base tables (model/base_tables.h), SYSTEM with the base
 * providers (store/base_hive.h). */
struct rt_init_tree {
    char *const *langs;        /* language ids, or CurrentLanguage (which
                                  gets 009's tables in the registry layout,
                                  and a predefined-handle key in the files
                                  layout) */
    size_t n_langs;
    int files;                 /* tables in .dat files in DAT_DIRS (System32
                                  then SysWOW64), else registry values */
    const char *dat_dirs[2];   /* existing folders */
    int installed;             /* also the tables as installed, perfdLLL.dat
                                  and perfiLLL.dat, which lodctr /R rebuilds
                                  from (in System32, and SysWOW64 with the
                                  files layout) */
    unsigned extra;            /* providers above the built-in ones */
    size_t help_chars;         /* each help text cut to at most this many
                                  bytes; 0 whole */
};
struct rt_regf;
struct rt_init_hives {
    struct rt_regf *software, *system;    /* built in memory */
    size_t help_min, help_max;            /* of a language's Help table */
    size_t tables_bytes;                  /* every language's two tables */
};
/* Builds T's hives in *H and writes its .dat files (each new: an existing
 * one is refused). -1 with E when a file or a hive could not be made
 * (E names the file or hive and why); the .dat files written stay, for
 * the caller to remove. */
int rt_op_init_build(const struct rt_init_tree *t, struct rt_init_hives *h,
                     struct rt_error *e);
/* Saves H's hives to their paths. -1 with E naming the file. */
int rt_op_init_save(struct rt_init_hives *h, const char *software_path,
                    const char *system_path, struct rt_error *e);
void rt_op_init_free(struct rt_init_hives *h);
/* Writes the new file PATH (an existing one is refused) whole, as init
 * writes each file of its tree: 0, or -1 with errno (nothing left at
 * PATH). */
int rt_op_init_write_file(const char *path, const void *data, size_t len);

/* The PerfStringBackup.INI bytes of DB (a new buffer in *BYTES), as lodctr
 * /S writes them. -1 with E when DB cannot be backed up; 1 when out of
 * memory for the file's bytes. */
int rt_op_backup_image(const struct rt_database *db, uint8_t **bytes,
                       size_t *len, struct rt_error *e);

/* audit of S into F (unsorted): with RT_OP_AUDIT_TABLES the tables and
 * the store's other copies of them checked (engine/audit.h, OPT: NULL
 * for the defaults), with RT_OP_AUDIT_LIBRARIES who gets loaded; with
 * LOOK_AT_DISK each provider's DLL is looked up in S's Windows tree on
 * this machine (where S has one), one component at a time, ignoring case
 * as Windows does. What the store found in its journal's place is a
 * finding too (journal-refused: error, journal-pending: warning,
 * journal-unsealed: info). 0; 1 when the database could not be read (said as
 * the finding database-unreadable); -1 out of memory, F incomplete; -2
 * out of memory saying the database could not be read. */
#define RT_OP_AUDIT_TABLES 1u
#define RT_OP_AUDIT_LIBRARIES 2u
/* Appends to F audit's errors about S's key anomalies (store.h: link
 * keys, keys of one name among Services and Perflib's subkeys): 0, 1
 * with E set when the keys do not read, -1 when out of memory. */
int rt_op_key_findings(struct rt_store *s, struct rt_findings *f,
                       struct rt_error *e);
int rt_op_audit(struct rt_store *s, const struct rt_audit_options *opt,
                unsigned scope, int look_at_disk, struct rt_findings *f);

/* audit of the store SPEC names (opened with OPT and READ_ONCE as
 * rt_op_open_store opens it, then closed) into F, sorted: a store that
 * cannot be opened is the finding store-unreadable, not a failure. With
 * LIBRARIES_ONLY (--libraries) only who gets loaded is checked, else the
 * tables, and who gets loaded too unless OPT->language narrows the
 * audit to one language; a PerfStringBackup file holds no provider's
 * library (rt_op_holds_libraries), which with LIBRARIES_ONLY is the
 * finding libraries-not-in-store. Each provider's DLL is looked up in
 * the store's Windows tree (rt_op_audit's LOOK_AT_DISK). *LAYOUT: where
 * the tables were found (rt_op_layout_text, a new string), NULL when the
 * store could not be opened. 0; -1 out of memory, F incomplete; -2 out
 * of memory before anything was checked. */
int rt_op_audit_spec(const char *spec, const regtool_open_options *open,
                     int read_once, const struct rt_audit_options *opt,
                     int libraries_only, char **layout,
                     struct rt_findings *f);

/* The numbers of a name database a monitoring system follows (regtool
 * audit --format prometheus): Perflib's Last Counter, Last Help and Base
 * Index (as stored, or Windows' base when absent), the highest index in
 * any language's Counter and Help tables, the providers (services with a
 * Performance key) and the names of those whose Disable Performance
 * Counters is not 0. READ is 1 once they are set. */
struct rt_name_db_gauges {
    int read;
    uint32_t last_counter, last_help, base_index;
    uint32_t highest[2];            /* [RT_TABLE_COUNTER], [RT_TABLE_HELP] */
    size_t providers;
    char **disabled;
    size_t n_disabled;
};
void rt_name_db_gauges_free(struct rt_name_db_gauges *g);
/* S's gauges into *G (the tables read as blobs, nothing decoded): 0; 1
 * with E set when the database cannot be read; -1 out of memory. */
int rt_op_name_db_gauges(struct rt_store *s, struct rt_name_db_gauges *g,
                         struct rt_error *e);
/* rt_op_audit_spec, and with the same store open, once its checks are
 * done, *G read as rt_op_name_db_gauges reads it (G->read 0 when the
 * store or its database could not be read: a finding says why). OUTPUT,
 * when not NULL, a file the caller will write: *OWNS_OUTPUT 1 when it
 * names one of the store's own files (rt_op_owns_file). */
int rt_op_audit_spec_gauges(const char *spec, const regtool_open_options *open,
                            int read_once, const struct rt_audit_options *opt,
                            int libraries_only, char **layout,
                            struct rt_findings *f, struct rt_name_db_gauges *g,
                            const char *output, int *owns_output);

/* verify: the provider DRIVER's performance data, read as a consumer
 * reads it (QUERY: "Global", "Costly" or indices) from S's running
 * system, checked against DB (engine/verify.h) into *F, sorted. */
enum rt_verify_status {
    RT_VERIFY_DONE,         /* *F holds every finding */
    RT_VERIFY_INCOMPLETE,   /* out of memory while checking: *F holds
                               those found before */
    RT_VERIFY_NO_SYSTEM,    /* S is offline: no system runs providers
                               (E says which store and what to use) */
    RT_VERIFY_READ_FAILED,  /* the data could not be read (E) */
    RT_VERIFY_NO_MEMORY,    /* out of memory before checking (E) */
};
enum rt_verify_status rt_op_verify(struct rt_store *s,
                                   const struct rt_database *db,
                                   const char *driver, const char *query,
                                   struct rt_findings *f, struct rt_error *e);

#endif
