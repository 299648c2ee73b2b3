/* regtool: install and remove performance-counter providers in the
 * Windows Perflib name database, safely, from a program (an installer).
 *
 * The public interface of libregtool, kept small and stable: every
 * function returns 0 or a Win32 error code (REGTOOL_ERR_*, what lodctr
 * would return) and, on failure, fills the caller's regtool_error with
 * the message the regtool command prints. Handles are opaque; nothing of
 * the library's own structures shows here. C89 and C++ compatible.
 *
 *     regtool *rt;
 *     regtool_error err;
 *     if (regtool_open("hive:/mnt/win", NULL, &rt, &err) == 0) {
 *         if (regtool_install(rt, "provider.ini", NULL, NULL, &err))
 *             fprintf(stderr, "%s\n", err.message);
 *         regtool_close(rt);
 *     }
 */
#ifndef REGTOOL_H
#define REGTOOL_H

#include <stddef.h>

/* The version of this header: MAJOR changes break callers, MINOR adds.
 * Before 1.0 a minor version may change a structure (0.2 added
 * regtool_install_options.strict), so the shared library's soname is
 * libregtool.so.0.MINOR: a program is linked against the minor it was
 * built for. */
#define REGTOOL_VERSION_MAJOR 0
#define REGTOOL_VERSION_MINOR 2
#define REGTOOL_VERSION "0.2"

/* Functions are exported from regtool.dll when the library itself is
 * compiled (REGTOOL_BUILD); callers need nothing, as mingw and MSVC
 * import functions through the import library. Only compilers that make
 * PE files know dllexport: a Winelib build (_WIN32, ELF) does not. */
#if defined(REGTOOL_BUILD) && (defined(_MSC_VER) || defined(__MINGW32__))
#define REGTOOL_API __declspec(dllexport)
#else
#define REGTOOL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Win32 error codes the functions return. */
#define REGTOOL_OK                    0
#define REGTOOL_ERR_FILE_NOT_FOUND    2    /* no such file, service, provider */
#define REGTOOL_ERR_PATH_NOT_FOUND    3
#define REGTOOL_ERR_ACCESS_DENIED     5
#define REGTOOL_ERR_NOT_ENOUGH_MEMORY 8
#define REGTOOL_ERR_INVALID_DATA      13   /* a bad INI, backup or range */
#define REGTOOL_ERR_WRITE_PROTECT     19   /* a read-only store */
#define REGTOOL_ERR_WRITE_FAULT       29
#define REGTOOL_ERR_LOCK_VIOLATION    33
#define REGTOOL_ERR_NOT_SUPPORTED     50   /* a store this build lacks */
#define REGTOOL_ERR_FILE_EXISTS       80
#define REGTOOL_ERR_INVALID_PARAMETER 87   /* a bad argument or store spec */
#define REGTOOL_ERR_DISK_FULL         112
#define REGTOOL_ERR_CALL_NOT_IMPLEMENTED 120
#define REGTOOL_ERR_ALREADY_EXISTS    183  /* installed already; another
                                              machine's backup */
#define REGTOOL_ERR_BADDB             1009 /* a damaged table: repair first */
#define REGTOOL_ERR_BADKEY            1010
#define REGTOOL_ERR_CANCELLED         1223
#define REGTOOL_ERR_INTERNAL_ERROR    1359

#define REGTOOL_MESSAGE_SIZE 1024

typedef struct regtool_error {
    int code;                           /* REGTOOL_ERR_*, 0 when none */
    char message[REGTOOL_MESSAGE_SIZE]; /* one line, NUL-terminated */
} regtool_error;

/* The library's version ("0.1"): compare with REGTOOL_VERSION when the
 * shared library may be newer than the header a program was built with. */
REGTOOL_API const char *regtool_version(void);

/* An open name database. */
typedef struct regtool regtool;

/* What a handle reports while it works, as the regtool command prints it:
 * REPORT lines (what was done, or would be with dry_run) go to its
 * standard output; WARNING and NOTICE lines to its standard error after
 * "regtool: "; INI_WARNING and INI_ERROR lines ("FILE:LINE: error: ...")
 * to its standard error as they are. LINE has no newline. */
#define REGTOOL_LINE_REPORT      0
#define REGTOOL_LINE_WARNING     1
#define REGTOOL_LINE_NOTICE      2
#define REGTOOL_LINE_INI_WARNING 3
#define REGTOOL_LINE_INI_ERROR   4
typedef void (*regtool_line_fn)(void *ctx, int kind, const char *line);

typedef struct regtool_open_options {
    const char *tables;     /* hive stores: the directory of .dat tables
                               (regtool --tables), or NULL */
    int force_dirty;        /* write a dirty hive whose logs cannot be
                               replayed (regtool --force-dirty) */
    int wait_seconds;       /* how long to wait for another writer's lock:
                               0 the default (60 s), negative not at all */
    /* The store's notices (waiting for the lock, an unfinished commit
     * finished or discarded), or NULL. It has no context argument: the
     * stores call it outside any handle. */
    void (*notice)(const char *line);
} regtool_open_options;

/* Opens the database SPEC names, as regtool's --store takes it:
 *   hive:DIR              an offline Windows tree (a disk's root, its
 *                         Windows or Windows/System32/config directory)
 *   hive:SOFTWARE,SYSTEM  two hive files
 *   live, live:MACHINE    the registry (Windows and Wine builds)
 *   psb:FILE              a PerfStringBackup file, read-only
 * OPT may be NULL. Unknown specs fail with REGTOOL_ERR_INVALID_PARAMETER,
 * specs of a store this build lacks with REGTOOL_ERR_NOT_SUPPORTED. */
REGTOOL_API int regtool_open(const char *spec,
                             const regtool_open_options *opt,
                             regtool **out, regtool_error *err);

/* Where the handle's lines go (NULL: nowhere, the default). */
REGTOOL_API void regtool_set_output(regtool *rt, regtool_line_fn fn,
                                    void *ctx);

REGTOOL_API void regtool_close(regtool *rt);

/* A provider's indices (First/Last Counter, First/Last Help). */
typedef struct regtool_ranges {
    unsigned long first_counter, last_counter;
    unsigned long first_help, last_help;
} regtool_ranges;

typedef struct regtool_install_options {
    int replace;            /* reinstall an installed provider */
    int dry_run;            /* compute and report, write nothing */
    const char *codepage;   /* of an ANSI INI ("1252"), or NULL */
    /* Create Services\DRIVER\Performance with these values (all four
     * given), instead of refusing a service without one. */
    int create_service;
    const char *library, *open, *collect, *close;
    /* Refuse an INI with any warning (regtool install --strict), with
     * REGTOOL_ERR_INVALID_DATA, writing nothing. Without it an INI loads
     * as Windows' lodctr loads it: a key lodctr skips (a symbol the symbol
     * file lacks, a language [languages] does not list) is skipped,
     * trailing blanks and enclosing quotes are dropped, each reported as
     * an INI_WARNING line, and the install goes on. Since 0.2. */
    int strict;
} regtool_install_options;

/* Validates the lodctr INI (and its symbol file, beside it) and installs
 * the provider's names and help texts into every language of the
 * database, in one atomic commit (regtool install). OPT and RANGES may be
 * NULL; RANGES receives the indices given. An invalid INI fails with
 * REGTOOL_ERR_INVALID_DATA, its diagnostics reported as INI_ERROR lines
 * and the first in ERR; its warnings are INI_WARNING lines, and with
 * OPT->strict they fail it too (REGTOOL_ERR_INVALID_DATA, ERR saying how
 * many warnings refused it). Memory running out reading or checking them
 * fails with REGTOOL_ERR_NOT_ENOUGH_MEMORY, no INI line reported and
 * nothing written: the library never aborts its host process. */
REGTOOL_API int regtool_install(regtool *rt, const char *ini,
                                const regtool_install_options *opt,
                                regtool_ranges *ranges, regtool_error *err);

/* Flags of regtool_uninstall, regtool_backup, regtool_restore. */
#define REGTOOL_DRY_RUN 1   /* compute and report, write nothing */
#define REGTOOL_FORCE   2   /* uninstall: remove a damaged range;
                               backup: overwrite the file;
                               restore: another machine's backup */

/* Removes exactly the provider's ranges from every language and its
 * service's values (regtool uninstall). RANGES (or NULL) receives what
 * was removed. Not installed: REGTOOL_ERR_FILE_NOT_FOUND. */
REGTOOL_API int regtool_uninstall(regtool *rt, const char *drivername,
                                  int flags, regtool_ranges *ranges,
                                  regtool_error *err);

/* The provider's installed ranges; REGTOOL_ERR_FILE_NOT_FOUND when its
 * service has no Performance key or no First Counter. */
REGTOOL_API int regtool_query(regtool *rt, const char *drivername,
                              regtool_ranges *ranges, regtool_error *err);

/* Audit (regtool audit): the findings about the database, most severe
 * first. Free with regtool_findings_free. */
typedef struct regtool_findings regtool_findings;
#define REGTOOL_SEVERITY_ERROR   0
#define REGTOOL_SEVERITY_WARNING 1
#define REGTOOL_SEVERITY_INFO    2
REGTOOL_API int regtool_audit(regtool *rt, regtool_findings **out,
                              regtool_error *err);
REGTOOL_API size_t regtool_findings_count(const regtool_findings *f);
/* Of finding I (< count): a stable id ("duplicate-index"), its severity,
 * its language (NULL when about none), what was found, what programs
 * reading the counters show (or NULL), the regtool command that fixes it
 * (or NULL). Strings live as long as F. */
REGTOOL_API const char *regtool_finding_id(const regtool_findings *f,
                                           size_t i);
REGTOOL_API int regtool_finding_severity(const regtool_findings *f, size_t i);
REGTOOL_API const char *regtool_finding_language(const regtool_findings *f,
                                                 size_t i);
REGTOOL_API const char *regtool_finding_message(const regtool_findings *f,
                                                size_t i);
REGTOOL_API const char *regtool_finding_symptom(const regtool_findings *f,
                                                size_t i);
REGTOOL_API const char *regtool_finding_fix(const regtool_findings *f,
                                            size_t i);
REGTOOL_API void regtool_findings_free(regtool_findings *f);

/* Saves the whole database as a PerfStringBackup file (lodctr /S). An
 * existing FILE is refused (REGTOOL_ERR_FILE_EXISTS) unless REGTOOL_FORCE,
 * which replaces it atomically. */
REGTOOL_API int regtool_backup(regtool *rt, const char *file, int flags,
                               regtool_error *err);

/* Restores the database from a PerfStringBackup file (lodctr /R) in one
 * atomic commit; REGTOOL_DRY_RUN writes nothing. A file whose base texts
 * (indices 1 to Base Index) differ from the database's is another
 * machine's backup: refused (REGTOOL_ERR_ALREADY_EXISTS, the message
 * naming how many differ), nothing written, unless REGTOOL_FORCE. */
REGTOOL_API int regtool_restore(regtool *rt, const char *file, int flags,
                                regtool_error *err);

#ifdef __cplusplus
}
#endif

#endif
