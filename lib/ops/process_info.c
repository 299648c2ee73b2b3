/* What the process has done and can do, for the CLI to say: the writes
 * counted so far, whether this build reads INIs. */
#include "ops/ops.h"

#include "commit/io.h"
#include "provider/ini_reader.h"

void rt_op_io_totals(uint64_t *bytes_written, unsigned *writes,
                     unsigned *fsyncs)
{
    *bytes_written = rt_io_totals.bytes_written;
    *writes = rt_io_totals.writes;
    *fsyncs = rt_io_totals.fsyncs;
}

int rt_op_ini_available(void)
{
    return rt_ini_available();
}
