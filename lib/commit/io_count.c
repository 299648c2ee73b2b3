/* Commit layer: the write counter and the fault hook, apart from the
 * file writes of io.c: the win32 store counts its registry writes here
 * without using io.c. */
#include "commit/io.h"

#include <stdlib.h>
#include <string.h>

#include "platform/os.h"

struct rt_io_stats rt_io_totals;

#if defined RT_COVERAGE && defined RT_TESTING
/* libgcov's: writes this process's counters (make coverage, COV=1). */
void __gcov_dump(void);
#endif

#ifdef RT_TESTING
/* The test hooks below are built only into the test programs and the
 * test build of the CLI (build/testing/regtool: the Makefile compiles
 * this file a second time with RT_TESTING and links that object before
 * the library). The product never reads REGTOOL_FAULT_AFTER_WRITES or
 * REGTOOL_SIGNAL_AT_WRITE: an installer that inherits them must not die
 * mid-commit. */

/* Ends the process once the number of writes reaches
 * REGTOOL_FAULT_AFTER_WRITES, as a power cut would: no cleanup, no flush. */
static long fault_limit = -1;

void rt_io_fault_after(unsigned long k)
{
    fault_limit = (long)(rt_io_totals.writes + k);
    if (!k)
        fault_limit = 0;
}

/* Test hook: REGTOOL_SIGNAL_AT_WRITE=k sends this process SIGINT (or
 * REGTOOL_SIGNAL=TERM: SIGTERM) right after its k-th write, as a Ctrl-C
 * at that point of a commit would. */
static void signal_hook(void)
{
    static long at = -1;
    if (at < 0) {
        const char *s = getenv("REGTOOL_SIGNAL_AT_WRITE");
        at = s && *s ? strtol(s, NULL, 10) : 0;
    }
    if (at > 0 && rt_io_totals.writes == (unsigned long)at) {
        const char *sig = getenv("REGTOOL_SIGNAL");
        rt_os_raise(sig && !strcmp(sig, "TERM") ? RT_OS_SIGTERM
                                                : RT_OS_SIGINT);
    }
}

static void fault_hooks(void)
{
    signal_hook();
    long limit = fault_limit;
    if (limit < 0) {
        const char *s = getenv("REGTOOL_FAULT_AFTER_WRITES");
        limit = s && *s ? strtol(s, NULL, 10) : 0;
        if (limit < 0)
            limit = 0;
        fault_limit = limit;
    }
    if (limit > 0 && rt_io_totals.writes >= (unsigned long)limit) {
#ifdef RT_COVERAGE
        /* _Exit skips the exit handlers that write the counters: without
         * this, what the crash tests run up to the cut would not count.
         * Only the .gcda files are written; the store's files are as the
         * cut leaves them. */
        __gcov_dump();
#endif
        /* Runs, but after the counters were written: never counted. */
        _Exit(99); /* LCOV_EXCL_LINE */
    }
}
#endif

void rt_io_count_write(void)
{
    rt_io_totals.writes++;
#ifdef RT_TESTING
    fault_hooks();
#endif
}
