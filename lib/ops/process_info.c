/* What the process has done and can do, for the CLI to say: the writes
 * counted so far, the counted write calls for a file it saves, whether
 * this build reads INIs. */
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

const struct rt_os_write_calls *rt_op_counted_writes(void)
{
    static const struct rt_os_write_calls counted = {
        rt_io_pwrite, rt_io_fsync, rt_io_rename, rt_io_fsync_dir_of};
    return &counted;
}

int rt_op_ini_available(void)
{
    return rt_ini_available();
}
