/* Commit layer: the write counter and the fault hook, apart from the
 * file writes of io.c: the win32 store counts its registry writes here
 * without using io.c. */
#include "commit/io.h"

#include <stdlib.h>

struct rt_io_stats rt_io_totals;

/* Ends the process once the number of writes reaches
 * REGTOOL_FAULT_AFTER_WRITES, as a power cut would: no cleanup, no flush. */
static long fault_limit = -1;

void rt_io_fault_after(unsigned long k)
{
    fault_limit = (long)(rt_io_totals.writes + k);
    if (!k)
        fault_limit = 0;
}

void rt_io_count_write(void)
{
    rt_io_totals.writes++;
    long limit = fault_limit;
    if (limit < 0) {
        const char *s = getenv("REGTOOL_FAULT_AFTER_WRITES");
        limit = s && *s ? strtol(s, NULL, 10) : 0;
        if (limit < 0)
            limit = 0;
        fault_limit = limit;
    }
    if (limit > 0 && rt_io_totals.writes >= (unsigned long)limit)
        _Exit(99);
}
