/* Platform layer: progress of a long verb (backup, restore, rebuild,
 * repair over thousands of languages or providers), told to whoever
 * asked. Process-wide, as catching interrupts is (os.h): the library's
 * loops say where they are, a program that shows a progress line (the
 * CLI on a terminal) listens; with no listener a report costs a call. */
#ifndef RT_PROGRESS_H
#define RT_PROGRESS_H

#include <stddef.h>

/* STAGE: what is being done, in a few words ("saving languages"), never
 * a text read from a store; DONE of its TOTAL steps are behind, the next
 * is starting (TOTAL 0: a stage of no steps to count). */
typedef void (*rt_progress_fn)(void *ctx, const char *stage, size_t done,
                               size_t total);

/* Sends every later report to FN (NULL: to no one). */
void rt_progress_listen(rt_progress_fn fn, void *ctx);
void rt_progress_report(const char *stage, size_t done, size_t total);

/* Whether the process's standard error is a terminal: a progress line is
 * for a person watching, never for a file or a pipe. */
int rt_progress_stderr_is_terminal(void);

#endif
