/* Preloaded by tests/cli/crash_sweep.sh (LD_PRELOAD): ends the process,
 * as a power cut would (exit 99, nothing flushed or cleaned up), right
 * after the CRASH_OPEN_AT-th open() that creates or truncates a file
 * whose path holds CRASH_OPEN_MATCH: the journal's creation
 * ("regtool.journal"), the backup copies of a dirty hive (".regtool-").
 * Those opens are not writes regtool counts, so REGTOOL_FAULT_AFTER_WRITES
 * cannot stop there. A file of a confined tree is opened with openat()
 * by its last name alone, which is what is matched there; where the
 * kernel has openat2 it is opened through syscall(SYS_openat2), caught
 * here too. Built by the test with cc -shared. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

static int after_open(const char *path, int flags, int fd)
{
    static long seen;
    const char *match = getenv("CRASH_OPEN_MATCH");
    const char *at = getenv("CRASH_OPEN_AT");
    if (fd >= 0 && match && at && (flags & (O_CREAT | O_TRUNC)) &&
        strstr(path, match) && ++seen == atol(at))
        _exit(99);
    return fd;
}

static int call(const char *name, const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...) =
        (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
    if (!real)
        _exit(98);
    return after_open(path, flags, real(path, flags, mode));
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return call("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return call("open64", path, flags, mode);
}

static int call_at(const char *name, int dirfd, const char *path, int flags,
                   mode_t mode)
{
    int (*real)(int, const char *, int, ...) =
        (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, name);
    if (!real)
        _exit(98);
    return after_open(path, flags, real(dirfd, path, flags, mode));
}

int openat(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return call_at("openat", dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & O_CREAT) {
        va_list ap;
        va_start(ap, flags);
        mode = (mode_t)va_arg(ap, int);
        va_end(ap);
    }
    return call_at("openat64", dirfd, path, flags, mode);
}

#ifdef SYS_openat2
/* struct open_how's first member: the open flags (linux/openat2.h). */
struct how_flags {
    uint64_t flags;
};

long syscall(long number, ...)
{
    long (*real)(long, ...) = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (!real)
        _exit(98);
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    long r = real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (number == SYS_openat2 && r >= 0) {
        const struct how_flags *how = (const struct how_flags *)a[2];
        after_open((const char *)a[1], (int)how->flags, (int)r);
    }
    return r;
}
#endif
