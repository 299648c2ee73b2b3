/* The win32 store: the live registry through advapi32, on this machine or
 * on another one through RegConnectRegistry. Built on Windows (mingw-w64)
 * and as a Winelib program; elsewhere rt_store_win32_open fails with
 * RT_ERR_NOT_SUPPORTED. */
#ifndef RT_STORE_WIN32_H
#define RT_STORE_WIN32_H

#include <stddef.h>

#include "model/error.h"
#include "store/store.h"

/* Opens the registry of MACHINE ("NAME" or "\\NAME"; NULL for this
 * machine) and rolls back a commit a crashed writer left behind.
 *
 * Commits use a KTM transaction where the system has one; otherwise
 * (Wine, a remote registry) a journal of pre-images in
 * %ProgramData%\regtool, or in the directory named by
 * REGTOOL_WIN32_JOURNAL_DIR, rolled back on the next open or begin. */
struct rt_store *rt_store_win32_open(const char *machine, struct rt_error *e);

/* Like rt_store_win32_open, with every key under HKLM\ROOT instead of
 * HKLM (ROOT\SOFTWARE\...\Perflib, ROOT\SYSTEM\...\Services): a
 * sandbox for tests, away from keys the system reserves. */
struct rt_store *rt_store_win32_open_at(const char *machine, const char *root,
                                        struct rt_error *e);

/* Test hook: the next apply() stops after K registry writes, then rolls
 * back through the journal as after a crash. 0 disables. */
void rt_store_win32_fail_after(struct rt_store *s, size_t k);

/* Test hook: commit through the journal even where KTM is available, so
 * the journal is exercised on Windows too. */
void rt_store_win32_force_journal(struct rt_store *s, int on);

/* A canonical text dump of every key and value under Perflib and under
 * Services\NAME for each of the N SERVICES (type and bytes in hex, values
 * sorted by name), to compare two states exactly. New string, or NULL
 * with E set. */
char *rt_store_win32_dump(struct rt_store *s, const char *const *services,
                          size_t n, struct rt_error *e);

/* Where the journal of this store lives (UTF-8), for tests and messages. */
const char *rt_store_win32_journal_path(struct rt_store *s);

#endif
