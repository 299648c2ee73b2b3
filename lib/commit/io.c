/* Commit layer: counted, fault-injectable file writes. */
#include "commit/io.h"

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

int rt_io_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

int rt_io_read_file_max(const char *path, size_t max, uint8_t **data,
                        size_t *len)
{
    *data = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0)
        goto fail;
    if (S_ISDIR(st.st_mode)) {
        errno = EISDIR;
        goto fail;
    }
    /* The size is a hint only: devices and pipes report 0, and a file
     * may change while it is read. */
    size_t cap = st.st_size > 0 && (uint64_t)st.st_size <= max
                     ? (size_t)st.st_size + 1 : 4096;
    size_t got = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        errno = ENOMEM;
        goto fail;
    }
    for (;;) {
        if (got == cap) {
            if (cap > max) {
                free(buf);
                errno = EFBIG;
                goto fail;
            }
            size_t ncap = cap * 2 < cap ? (size_t)-1 : cap * 2;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + got, cap - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            free(buf);
            errno = err;
            goto fail;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got > max) {
        free(buf);
        errno = EFBIG;
        goto fail;
    }
    close(fd);
    *data = buf;
    *len = got;
    return 0;
fail:;
    int err = errno;
    close(fd);
    errno = err;
    return -2;
}

int rt_io_read_file(const char *path, uint8_t **data, size_t *len)
{
    return rt_io_read_file_max(path, (size_t)-1, data, len) == 0 ? 0 : -1;
}
