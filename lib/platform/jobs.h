/* Platform layer: independent jobs run in worker processes. The library
 * keeps process-wide state (the interrupt flag, confinements, kept
 * listings, allocation hooks), so jobs that must not disturb each other
 * run in processes, not threads: on POSIX each job in a child forked for
 * it (at most WORKERS at a time), its result written to a pipe the
 * parent reads; a child that dies (a crash, a kill, memory exhausted)
 * loses its own job only. A native Windows build has no fork: the jobs
 * run one after the other in this process, each result written to a
 * temporary file and read back, so a crash there ends the run. */
#ifndef RT_PLATFORM_JOBS_H
#define RT_PLATFORM_JOBS_H

#include <stddef.h>
#include <stdio.h>

/* Runs job JOB, writing its result to OUT; returns 0, or a status the
 * parent sees as the job having exited with it. Runs in a child process
 * on POSIX: what it changes in memory is gone when it returns. */
typedef int (*rt_jobs_work_fn)(void *ctx, size_t job, FILE *out);
/* In the calling process, as each job ends (in the order they end): the
 * bytes its WORK wrote (LEN of them at DATA, NUL-terminated), and how it
 * ended: 0 when WORK returned 0; a signal's number when the worker was
 * killed by it; -STATUS when it exited with STATUS (WORK's non-zero
 * return, or the worker's own failure); -1000 - errno when no worker
 * could be started for it. */
typedef void (*rt_jobs_done_fn)(void *ctx, size_t job, const char *data,
                                size_t len, int ended);

/* Runs jobs 0 .. N-1, started in that order, WORKERS at a time (at least
 * one). Returns 0 when every job has ended (DONE called for each), -1
 * with errno when the pool itself failed (no pipe, out of memory), or
 * RT_OS_SIGINT / RT_OS_SIGTERM when an interrupt came (the caller set
 * rt_os_catch_interrupts): the running workers are then ended with
 * SIGTERM and waited for, and no further job is started; DONE is not
 * called for the jobs cut short. Standard output and error are flushed
 * before each worker starts. */
int rt_os_run_jobs(size_t n, unsigned workers, rt_jobs_work_fn work,
                   rt_jobs_done_fn done, void *ctx);

/* The number of processors online (at least 1). */
unsigned rt_os_cpu_count(void);
/* 1 when standard error is a terminal (a person watching), else 0. */
int rt_os_stderr_is_terminal(void);

#endif
