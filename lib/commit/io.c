/* Commit layer: counted, fault-injectable file writes on top of the
 * platform layer. */
#include "commit/io.h"

#include "platform/os.h"

int rt_io_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    if (rt_os_pwrite(fd, buf, len, off) != 0)
        return -1;
    rt_io_totals.bytes_written += len;
    rt_io_count_write();
    return 0;
}

int rt_io_ftruncate(int fd, uint64_t size)
{
    if (rt_os_ftruncate(fd, size) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_fsync(int fd)
{
    rt_io_totals.fsyncs++;
    return rt_os_fsync(fd);
}

int rt_io_fsync_dir_of(const char *path)
{
    rt_io_totals.fsyncs++;
    return rt_os_fsync_dir_of(path);
}

int rt_io_rename(const char *from, const char *to)
{
    if (rt_os_rename(from, to) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_unlink(const char *path)
{
    if (rt_os_unlink(path) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}
