/* Preloaded by tests/cli/check_ini_out_of_memory.sh, out_of_memory_verbs.sh
 * and prometheus.sh (LD_PRELOAD): once a
 * file whose path holds FAIL_ALLOC_MATCH has been opened, the
 * FAIL_ALLOC_AT-th allocation from then on (malloc, calloc or realloc)
 * fails as out of memory, that one only, and the file FAIL_ALLOC_FIRED is
 * created to say it did; every other goes to the C library's, and every
 * one once exit has begun. glibc only
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

/* Once exit has begun nothing fails: what runs then is not the code
 * under test (a gcov build writes its counters there, with allocations of
 * its own, which crashed when failed). */
static void disarm(void)
{
    armed = 0;
}

static void opened(const char *path, int fd)
{
    const char *match = getenv("FAIL_ALLOC_MATCH");
    if (fd >= 0 && match && strstr(path, match) && !armed) {
        atexit(disarm);
        armed = 1;
    }
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

/* Files beneath a confined folder are opened relative to its descriptor:
 * openat, or openat2 through syscall(2) where the kernel has it
 * (lib/platform/os_posix_confine.c); PATH is then the name beneath. */
static int call_at(const char *name, int dir, const char *path, int flags,
                   mode_t mode)
{
    int (*real)(int, const char *, int, ...) =
        (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, name);
    if (!real)
        _exit(98);
    int fd = real(dir, path, flags, mode);
    opened(path, fd);
    return fd;
}

int openat(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return call_at("openat", dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return call_at("openat64", dir, path, flags, mode);
}

/* syscall(2) with up to six arguments, as the x86-64 and AArch64 calling
 * conventions pass them: each taken as a long and handed on. The C
 * library's is looked up before main: fails() calls syscall to say it
 * fired, from inside an allocation, where dlsym must not allocate. */
static long (*real_syscall)(long, ...);

__attribute__((constructor)) static void find_syscall(void)
{
    real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
}

long syscall(long number, ...)
{
    va_list ap;
    va_start(ap, number);
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    if (!real_syscall)
        _exit(98);
    long r = real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
#ifdef SYS_openat2
    if (number == SYS_openat2)
        opened((const char *)a[1], (int)r);
#endif
    return r;
}
