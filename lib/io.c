/* Commit layer: counted, fault-injectable file writes. */
#include "io.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_io_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
        rt_io_totals.bytes_written += (uint64_t)w;
    }
    rt_io_count_write();
    return 0;
}

int rt_io_ftruncate(int fd, uint64_t size)
{
    if (ftruncate(fd, (off_t)size) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_fsync(int fd)
{
    rt_io_totals.fsyncs++;
    return fsync(fd);
}

int rt_io_fsync_dir_of(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int r = rt_io_fsync(fd);
    close(fd);
    return r;
}

int rt_io_rename(const char *from, const char *to)
{
    if (rename(from, to) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_unlink(const char *path)
{
    if (unlink(path) != 0)
        return -1;
    rt_io_count_write();
    return 0;
}

int rt_io_read_file(const char *path, uint8_t **data, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size, got = 0;
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    while (got < size) {
        ssize_t r = read(fd, buf + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int err = r < 0 ? errno : EIO;
            free(buf);
            close(fd);
            errno = err;
            return -1;
        }
        got += (size_t)r;
    }
    close(fd);
    *data = buf;
    *len = size;
    return 0;
}
