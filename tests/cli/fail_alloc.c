/* Preloaded by tests/cli/check_ini_out_of_memory.sh (LD_PRELOAD): once a
 * file whose path holds FAIL_ALLOC_MATCH has been opened, the
 * FAIL_ALLOC_AT-th allocation from then on (malloc, calloc or realloc)
 * fails as out of memory, that one only, and the file FAIL_ALLOC_FIRED is
 * created to say it did; every other goes to the C library's. glibc only
 * (its __libc_ allocator entry points); not under AddressSanitizer, whose
 * allocator the blocks would bypass. Built by the test with cc -shared. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);

static int armed;

static int fails(void)
{
    static long seen;
    if (!armed)
        return 0;
    const char *at = getenv("FAIL_ALLOC_AT");
    if (!at || ++seen != atol(at))
        return 0;
    const char *fired = getenv("FAIL_ALLOC_FIRED");
    if (fired) {
        long fd = syscall(SYS_openat, AT_FDCWD, fired,
                          O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            close((int)fd);
    }
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return fails() ? NULL : __libc_realloc(p, n);
}

static void opened(const char *path, int fd)
{
    const char *match = getenv("FAIL_ALLOC_MATCH");
    if (fd >= 0 && match && strstr(path, match))
        armed = 1;
}

static int call(const char *name, const char *path, int flags, mode_t mode)
{
    int (*real)(const char *, int, ...) =
        (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
    if (!real)
        _exit(98);
    int fd = real(path, flags, mode);
    opened(path, fd);
    return fd;
}

static mode_t mode_of(int flags, va_list ap)
{
    return flags & O_CREAT ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return call("open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return call("open64", path, flags, mode);
}
