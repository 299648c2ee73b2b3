/* The regtool CLI: one file per subcommand, dispatched from main.c. */
#ifndef REGTOOL_CLI_H
#define REGTOOL_CLI_H

/* Exit codes, documented in docs/reference.md ("Exit codes"). */
#define RT_EXIT_OK       0  /* success */
#define RT_EXIT_WARN     1  /* warnings only (with --strict), not found, dirty */
#define RT_EXIT_INVALID  2  /* invalid input or structural errors; nothing written */
#define RT_EXIT_FAILURE  3  /* I/O or system failure */
#define RT_EXIT_CONFLICT 4  /* the database's state forbids it: already
                               installed, not installed, no such service */
#define RT_EXIT_USAGE    64 /* bad command line */

struct rt_command {
    const char *name;
    int (*run)(int argc, char **argv);  /* argv[0] is the command name */
    const char *usage;                  /* one line, after "regtool " */
};

int cmd_version(int argc, char **argv);
int cmd_hive(int argc, char **argv);
int cmd_init(int argc, char **argv);
int cmd_install(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);
int cmd_names(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
int cmd_backup(int argc, char **argv);
int cmd_restore(int argc, char **argv);
int cmd_rebuild(int argc, char **argv);
int hive_recover_main(int argc, char **argv);
int cmd_check_ini(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_perfstats(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_repair(int argc, char **argv);
int hive_check_main(int argc, char **argv);
/* The hive FILE's folder confined (rt_os_confine): its logs and journal
 * lie beside it, written by whoever wrote the disk. FILE on the folder's
 * canonical form, a new string, and the folder in *ROOT (for
 * rt_os_unconfine); NULL with the error printed. */
char *rt_cli_hive_confine(const char *file, char **root);

/* Global options, given before the command. */
struct rt_cli_options {
    const char *store;      /* --store SPEC */
    const char *tables;     /* --tables DIR */
    int verbose;            /* --verbose: bytes written, fsyncs */
    int force_dirty;        /* --force-dirty */
    int wait_seconds;       /* --wait SECONDS: for another regtool's lock */
    int wait_set;
    /* Set by a command that reads each table once, copying it (backup,
     * restore, audit, repair): the store's hives are opened to give every
     * page back as their open passes it (RT_REGF_READ_ONCE). */
    int read_once;
};
struct rt_cli_options *rt_cli_options(void);
/* Consumes the global options at the start of ARGV (after argv[0]). */
int rt_cli_parse_global(int *argc, char ***argv);

#include <stdio.h>

/* The operations the verbs call, and the types they print. */
#include "ops/ops.h"

/* Opens the chosen store, or prints why not and sets *EXIT_CODE. */
struct rt_store *rt_cli_open_store(int *exit_code);
/* A file a writer names: an output it writes (--emit-reg, --backup) or
 * an input it reads (the INI, the backup restored). */
struct rt_cli_file {
    const char *what;       /* "--emit-reg", "the INI" */
    const char *name;       /* NULL: not given */
    int input;
    int numbered;           /* an output saved as NAME or, that taken,
                               NAME_001 to NAME_999 (lodctr /S's rule) */
};
/* rt_cli_open_store for a writer whose outputs FILES (N of them) are
 * written once its change is committed or its backup saved: one naming
 * a file of the store's, or two naming one file (an output over an
 * input or over another output), is refused before the store is read,
 * said, NULL and *EXIT_CODE RT_EXIT_USAGE, nothing written (the patch
 * was refused after the commit, exit 64 with the change made). */
struct rt_store *rt_cli_open_store_writing(const struct rt_cli_file *files,
                                           size_t n, int *exit_code);
/* 1, said as a refusal with nothing written, when output OUT and F (an
 * input or another output) name one file; 0 when either is not given or
 * they name two. */
int rt_cli_refuse_one_file(const struct rt_cli_file *out,
                           const struct rt_cli_file *f);
/* The library's options for opening a store, from the global options
 * (--tables, --force-dirty, --wait; the store's notices on stderr). */
regtool_open_options rt_cli_open_options(void);
/* Opens the chosen store and reads its database, or prints why not, sets
 * *EXIT_CODE and returns NULL. */
struct rt_database;
struct rt_db_load_options;
struct rt_store *rt_cli_open_database(struct rt_database *db, int *exit_code);
/* The same, reading only what O asks (query reads no table, names one). */
struct rt_store *rt_cli_open_database_with(struct rt_database *db,
                                           const struct rt_db_load_options *o,
                                           int *exit_code);
/* Findings of SPEC (LAYOUT: the store's, or NULL) in audit's formats:
 * one JSON object, or text for people with a summary line. */
struct rt_findings;
void rt_cli_findings_json(const char *spec, const char *layout,
                          const struct rt_findings *f);
/* The same to OUT, with a "machine" member first when MACHINE is given
 * (audit --fleet). */
void rt_cli_findings_json_to(FILE *out, const char *machine, const char *spec,
                             const char *layout, const struct rt_findings *f);
/* audit --fleet DIR (audit_fleet.c): every machine under DIR audited, JOBS
 * at a time (0: one per processor); the exit status. */
struct rt_audit_options;
int rt_cli_audit_fleet(const char *dir, unsigned jobs, int json,
                       int libraries, const struct rt_audit_options *opt);
void rt_cli_findings_text(const char *spec, const char *layout,
                          const struct rt_findings *f);
/* audit --format prometheus: SPECS (N_SPECS; MANY: given as arguments,
 * each then labelled store="SPEC") audited as audit audits them, written
 * in Prometheus' text exposition format to stdout, or over TEXTFILE
 * through a temporary file renamed to it. Returns audit's exit status
 * (0, 1 or 2 by the worst severity), or RT_EXIT_FAILURE when the text
 * could not be written (TEXTFILE then left as it was). */
struct rt_audit_options;
int rt_cli_audit_prometheus(char **specs, size_t n_specs, int many,
                            const struct rt_audit_options *opt, int libraries,
                            const char *textfile);
/* Writers: SIGINT and SIGTERM no longer end the process at once; a
 * commit rolls back before its commit point, or finishes after it. */
void rt_cli_catch_interrupts(void);
/* What an interrupt did to a writer whose operation returned OP_RC: its
 * words ("interrupted: nothing changed" when it failed, or wrote nothing
 * as when there was nothing to change; "interrupted after the commit
 * point: the change is complete" when it committed). */
const char *rt_cli_interrupt_said(int op_rc);
/* After a writer's operation (OP_RC 0 or -1 with E): prints "WHAT: E"
 * on failure and, when an interrupt came, which way it went ("interrupted:
 * nothing changed" / "interrupted after the commit point: the change is
 * complete"). Returns the exit status: 128 + the signal when interrupted,
 * else 0 or rt_cli_exit_for(E). WHAT NULL: E's message says it all (the
 * API's messages name the operation). */
struct rt_error;
int rt_cli_report_error(const char *what, int op_rc, const struct rt_error *e);
/* The API's report lines (regtool_line_fn) where the CLI prints them: the
 * report on stdout, INI diagnostics as they are and other lines after the
 * program's name on stderr. CTX: NULL, or install's line counter. */
void rt_cli_print_line(void *ctx, int kind, const char *line);
/* The regtool exit code for a Win32 error code from the library. */
int rt_cli_exit_for(int win32_code);
/* The Win32 code of the last failure rt_cli_exit_for mapped, 0 when none:
 * lodctr's modes run regtool's commands and return the code itself, not
 * regtool's coarser exit status. */
int rt_cli_last_error(void);
/* With --verbose, prints the bytes written and fsyncs made. */
void rt_cli_report_io(int ok);
/* Prints a change set, one line per change and per pair. */
void rt_cli_print_change_set(FILE *f, const struct rt_change_set *cs);
struct rt_inf_files;
/* Prints D's diagnostics to stderr, sorted, the INI's names quoted as
 * shown; 0, or -1 when memory ran out for one (said in its place). */
int rt_cli_print_diags(struct rt_diags *d);
/* One line on stdout when S keeps no side files (no INF copy, no
 * PerfStringBackup.INI). */
void rt_cli_side_note(struct rt_store *s);
/* Loads and validates an INI, printing its diagnostics, and reads it
 * and its symbol file again into *INF for the INF copy
 * (rt_op_load_provider); returns an exit code (RT_EXIT_OK when the spec
 * is usable; the caller frees SPEC whatever the outcome, INF on
 * RT_EXIT_OK). STRICT: a warning refuses the INI too (RT_EXIT_INVALID),
 * for authors who want it clean: what lodctr loads with a key skipped is
 * then refused. Files that cannot be read: RT_EXIT_FAILURE. */
int rt_cli_load_spec(const char *ini, const char *codepage, int strict,
                     struct rt_provider_spec *spec, struct rt_inf_files *inf);
void rt_json_string(FILE *f, const char *s);
void rt_json_string_or_null(FILE *f, const char *s);
/* V as a JSON number, or null when not PRESENT. */
void rt_json_u32_or_null(FILE *f, int present, uint32_t v);

/* backup and restore (lodctr /S:FILE, /R:FILE): return a regtool exit
 * code and set *WIN32 to lodctr's. QUIET: one line, no plan. */
int rt_cli_backup(const char *file, int force, int *win32);
/* The same, as a .reg file with REG. */
int rt_cli_backup_as(const char *file, int force, int reg, int *win32);
struct rt_store;
struct rt_change_set;
/* --emit-reg FILE: writes CS as a .reg patch over FILE (replacing it
 * through a temporary file) and says what it holds; on a store keeping its
 * tables in .dat files, only the registry part, said so. Returns a regtool
 * exit code. */
/* The flags of rt_op_install/rt_op_uninstall for --dry-run and an
 * --emit-reg FILE (NULL when not given: the patch needs whole tables). */
int rt_cli_op_flags(int dry_run, const char *emit_reg);
/* Whether FILE, an output the user named (WHAT: "--emit-reg", "backup"),
 * names one of S's own files (rt_op_owns_file): then said, as a refusal
 * with nothing written, and 1 (the caller exits RT_EXIT_USAGE). 0 when
 * S is NULL or FILE is no file of S's. */
int rt_cli_refuse_own_file(struct rt_store *s, const char *file,
                           const char *what);
/* The refusal rt_cli_refuse_own_file says. */
void rt_cli_say_own_file(const char *what, const char *file);
/* Has S's commit write CS as a .reg patch to FILE: its temporary file
 * before anything of the change is written (a failure refuses the
 * change), put in place after it; rt_cli_open_store_writing calls it for
 * the --emit-reg it is given. */
void rt_cli_stage_emit_reg(const char *file, struct rt_store *s);
/* A run that failed once its change was committed (its journal finishes
 * it): the --emit-reg patch written with that commit is said all the
 * same (review 49 R49-4). Nothing when no commit wrote one. */
void rt_cli_said_committed_patch(void);
/* Writes CS as a .reg patch to FILE, which the caller named to
 * rt_cli_open_store_writing (refused there over the store's files), or
 * says what the commit's staging did with it. */
int rt_cli_emit_reg(const char *file, struct rt_store *s,
                    const struct rt_change_set *cs);
/* Saves DB as a PerfStringBackup file (FILE, or FILE_001... unless FORCE;
 * with SALVAGE a damaged table's readable pairs); prints the name used.
 * The languages whose tables DB does not hold are read from S one at a
 * time (S may be NULL when DB holds them all). */
struct rt_database;
struct rt_store;
int rt_cli_write_backup(struct rt_store *s, const struct rt_database *db,
                        const char *file, int force, int salvage, int *win32);
/* Why a backup to FILE (USED: the name it was written to, or NULL) was
 * not saved, from its errno EN: every name taken (EEXIST, FORCE_HINT:
 * the verb has --force to say), or the system's reason. */
void rt_cli_say_backup_unsaved(const char *file, const char *used, int en,
                               int force_hint);
/* FORCE: restore another machine's backup (lodctr /R:FILE always does,
 * as Windows' does, with a warning line). EMIT_REG: a file to write the
 * change to as a .reg patch (--emit-reg), or NULL. PSB_ONLY: a .reg file
 * is refused (lodctr /R:FILE reads PerfStringBackup files, as Windows'
 * does: its FORCE must not let a .reg file change a provider's Library). */
int rt_cli_restore(const char *file, int force, int dry_run, int quiet,
                   int psb_only, const char *emit_reg, int *win32);
/* rebuild (lodctr /R): FROM a Windows directory or NULL; QUIET prints the
 * plan only when text would be lost. */
int rt_cli_rebuild(const char *from, int dry_run, int accept_loss, int quiet,
                   int *win32);

/* names --provider: PROVIDER's (a service, any case) counters in DB's
 * language L, as text or JSON. A regtool exit code: 1 when PROVIDER has no
 * Performance key or no range. */
struct rt_db_language;
int rt_cli_names_provider(const struct rt_database *db,
                          const struct rt_db_language *l,
                          const char *provider, int json);

/* Sets (DISABLE) or removes Disable Performance Counters of DRIVER in the
 * chosen store, printing the outcome; VERB names it in a failure's
 * message. A regtool exit code (regtool enable/disable, lodctr /E /D). */
int rt_cli_set_disabled(const char *verb, const char *driver, int disable);

/* Drop-in modes: 1 for lodctr, 2 for unlodctr, 0 otherwise. */
int rt_dropin_mode(const char *argv0);
int rt_lodctr_main(int argc, char **argv);
int rt_unlodctr_main(int argc, char **argv);
/* The exit status for a drop-in mode's Win32 CODE: on Windows the code
 * itself; on POSIX, where exit statuses are 8 bits, the code when under
 * 256, else as the table of docs/reference.md says (after a line naming the code). */
int rt_dropin_exit(int code);

/* TEXT (a name or value from the tree, an INI or a journal, or a message
 * holding one) as the terminal may show it: TEXT itself when it has no
 * character a terminal acts on, else its escaped form (model/printable.h),
 * valid until RT_CLI_SHOWN_SLOTS more calls; so one printf may show at
 * most that many. NULL for NULL. */
#define RT_CLI_SHOWN_SLOTS 16
const char *rt_cli_shown(const char *text);
/* Writes TEXT's escaped form to F, however long it is. */
void rt_cli_put_shown(FILE *f, const char *text);
/* Writes PREFIX (NULL: none), TEXT's escaped form and a line end to F:
 * one write for a line of up to a kilobyte (stderr is unbuffered, and a
 * write a character cost 13 s for 100,000 warnings of an INI). */
void rt_cli_put_shown_line(FILE *f, const char *prefix, const char *text);

/* A progress line for VERB on stderr while the library reports progress
 * (platform/progress.h), only when stderr is a terminal; _end erases it
 * before the verb prints anything. */
void rt_cli_progress_begin(const char *verb);
void rt_cli_progress_end(void);
/* Erases the line (if shown) before a message or a result is printed; the
 * next report shows it again. */
void rt_cli_progress_clear(void);

/* Prints "regtool: " and the message to stderr, the message escaped as
 * rt_cli_shown does: the names in it may come from the tree. */
void rt_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The name messages begin with: "regtool", or "lodctr"/"unlodctr" in the
 * drop-in modes. */
void rt_cli_set_program(const char *name);
const char *rt_cli_program(void);
/* The store the command line or REGTOOL_STORE chose; in the drop-in modes
 * of a Windows build, "live" when none was (lodctr's own default). NULL
 * when there is none. */
const char *rt_cli_store_spec(void);
/* The folders of the chosen store held (rt_op_hold_spec_folders) while
 * FILE, read before the store is opened and maybe beneath one of them
 * (restore's backup, an INI beside a reg: store's file), is read by the
 * tree's rules: a hard link there to a host file is not read. 0, or -1
 * said ("... cannot be held while FILE is read: NOTHING"), nothing held.
 * rt_op_release_spec_folders(HELD, *N) once FILE is read. */
int rt_cli_hold_store_folders(const char *file, const char *nothing,
                              char *held[2], size_t *n);

#endif
