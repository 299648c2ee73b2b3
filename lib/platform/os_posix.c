/* Platform layer: the POSIX implementation of os.h (Linux and the other
 * Unix systems regtool repairs Windows disks from). */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <iconv.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    int flags = O_CLOEXEC;
    switch (mode) {
    case RT_OS_READ: flags |= O_RDONLY; break;
    case RT_OS_WRITE: flags |= O_RDWR; break;
    case RT_OS_WRITE_CREATE: flags |= O_RDWR | O_CREAT; break;
    case RT_OS_WRITE_TRUNC: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
    case RT_OS_WRITE_NEW: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    return open(path, flags, 0644);
}

int rt_os_close(int fd)
{
    return close(fd);
}

long long rt_os_pread(int fd, void *buf, size_t len, uint64_t off)
{
    for (;;) {
        ssize_t r = pread(fd, buf, len, (off_t)off);
        if (r < 0 && errno == EINTR && !rt_os_interrupted())
            continue;
        return r;
    }
}

int rt_os_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    const uint8_t *p = buf;
    while (len > 0) {
        ssize_t w = pwrite(fd, p, len, (off_t)off);
        if (w < 0) {
            if (errno == EINTR && !rt_os_interrupted())
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
        off += (uint64_t)w;
    }
    return 0;
}

int rt_os_fsync(int fd)
{
    return fsync(fd);
}

int rt_os_ftruncate(int fd, uint64_t size)
{
    return ftruncate(fd, (off_t)size);
}

int rt_os_fsize(int fd, uint64_t *size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    *size = (uint64_t)st.st_size;
    return 0;
}

int rt_os_lock(int fd)
{
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR)
            return -1;
    }
    return 0;
}

int rt_os_trylock(int fd, int shared)
{
    while (flock(fd, (shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN)
            errno = EWOULDBLOCK;
        return -1;
    }
    return 0;
}

int rt_os_reserve(int fd, uint64_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
#ifdef __linux__
    /* Blocks reserved past the end, the size unchanged (FALLOC_FL_KEEP_SIZE
     * is 1); a file system without fallocate is checked below instead. */
    if (fallocate(fd, 1, 0, (off_t)size) == 0)
        return 0;
    if (errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL)
        return -1;
#endif
    uint64_t have = (uint64_t)st.st_blocks * 512;
    struct statvfs vs;
    if (size <= have || fstatvfs(fd, &vs) != 0)
        return 0;
    if ((uint64_t)vs.f_bavail * vs.f_frsize < size - have) {
        errno = ENOSPC;
        return -1;
    }
    return 0;
}

int rt_os_free_space(const char *path, uint64_t *bytes)
{
    struct statvfs vs;
    if (statvfs(path, &vs) != 0)
        return -1;
    *bytes = (uint64_t)vs.f_bavail * vs.f_frsize;
    return 0;
}

void rt_os_sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        if (rt_os_interrupted())
            break;
}

uint64_t rt_os_monotonic_ms(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
        return (uint64_t)time(NULL) * 1000u;
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

long rt_os_getpid(void)
{
    return (long)getpid();
}

int rt_os_fsync_dir_of(const char *path)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int err = errno;
    close(fd);
    errno = err;
    return r;
}

char *rt_os_user_path(const char *arg)
{
#ifdef __WINE__
    int drive = ((arg[0] | 0x20) >= 'a' && (arg[0] | 0x20) <= 'z') &&
                arg[1] == ':' && (arg[2] == '\\' || arg[2] == '/');
    int unc = arg[0] == '\\' && arg[1] == '\\';
    if (drive || unc) {
        char *u = rt_os_wine_unix_path(arg);
        if (u)
            return u;
    }
    char *r = strdup(arg);
    for (char *p = r; p && *p; p++)
        if (*p == '\\')
            *p = '/';
    return r;
#else
    return strdup(arg);
#endif
}

int rt_os_rename(const char *from, const char *to)
{
    return rename(from, to);
}

int rt_os_unlink(const char *path)
{
    return unlink(path);
}

int rt_os_rmdir(const char *path)
{
    return rmdir(path);
}

int rt_os_mkdir(const char *path)
{
    return mkdir(path, 0755);
}

int rt_os_stat(const char *path, struct rt_os_stat *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            out->kind = RT_OS_ABSENT;
            return 0;
        }
        return -1;
    }
    out->kind = S_ISREG(st.st_mode)   ? RT_OS_FILE
                : S_ISDIR(st.st_mode) ? RT_OS_DIR
                                      : RT_OS_OTHER;
    out->size = (uint64_t)st.st_size;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->mode = (unsigned)st.st_mode & 07777;
    out->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
                    (uint64_t)st.st_mtim.tv_nsec;
    return 0;
}

int rt_os_fstat(int fd, struct rt_os_stat *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (fstat(fd, &st) != 0)
        return -1;
    out->kind = S_ISREG(st.st_mode)   ? RT_OS_FILE
                : S_ISDIR(st.st_mode) ? RT_OS_DIR
                                      : RT_OS_OTHER;
    out->size = (uint64_t)st.st_size;
    out->dev = (uint64_t)st.st_dev;
    out->ino = (uint64_t)st.st_ino;
    out->mode = (unsigned)st.st_mode & 07777;
    out->mtime_ns = (uint64_t)st.st_mtim.tv_sec * 1000000000u +
                    (uint64_t)st.st_mtim.tv_nsec;
    return 0;
}

int rt_os_list_dir(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct rt_os_names l = {0};
    struct dirent *de;
    int err = 0;
    while ((errno = 0, de = readdir(d)) != NULL) {
        if (rt_os_names_add(&l, de->d_name) != 0) {
            err = ENOMEM;
            break;
        }
    }
    if (!err && errno)
        err = errno;
    closedir(d);
    return rt_os_names_finish(&l, err, names, n);
}

int rt_os_realpath(const char *path, char *buf, size_t size)
{
    char *r = realpath(path, NULL);
    if (!r)
        return -1;
    int ok = snprintf(buf, size, "%s", r) < (int)size;
    free(r);
    if (!ok) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

int rt_os_set_mode(int fd, unsigned mode)
{
    return fchmod(fd, (mode_t)mode);
}

int rt_os_map_file(const char *path, struct rt_os_map *m)
{
    memset(m, 0, sizeof *m);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : errno;
        close(fd);
        errno = err;
        return -1;
    }
    if (st.st_size == 0) {
        close(fd);
        m->data = (const uint8_t *)"";
        return 0;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int err = errno;
    close(fd);
    if (p == MAP_FAILED) {
        errno = err;
        return -1;
    }
    m->data = p;
    m->len = (size_t)st.st_size;
    m->priv = p;
    return 0;
}

void rt_os_unmap_file(struct rt_os_map *m)
{
    if (m->priv)
        munmap(m->priv, m->span ? m->span : m->len);
    memset(m, 0, sizeof *m);
}

void rt_os_map_release(const struct rt_os_map *m, size_t off, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t span = m->span ? m->span : m->len;
    if (!m->priv || page <= 0 || !len || off >= span)
        return;
    if (len > span - off)
        len = span - off;
    uintptr_t base = (uintptr_t)m->data, p = (uintptr_t)page;
    uintptr_t first = (base + off) / p * p;
    uintptr_t end = (base + off + len + p - 1) / p * p;
    (void)madvise((void *)first, end - first, MADV_DONTNEED);
}

static const char *map_fault_message;
static int map_fault_code;

static void on_map_fault(int sig)
{
    (void)sig;
    /* Only async-signal-safe calls here. */
    if (map_fault_message) {
        ssize_t r = write(2, map_fault_message, strlen(map_fault_message));
        (void)r;
    }
    _exit(map_fault_code);
}

void rt_os_report_map_faults(const char *message, int exit_code)
{
    map_fault_message = message;
    map_fault_code = exit_code;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_map_fault;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static const char *end_message;

static void on_interrupt_end(int sig)
{
    if (end_message) {
        ssize_t w = write(2, end_message, strlen(end_message));
        (void)w;
    }
    _exit(128 + sig);
}

void rt_os_end_on_interrupts(const char *message)
{
    end_message = message;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt_end;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void *rt_os_alloc_bulk(size_t n)
{
#ifdef MADV_HUGEPAGE
    const size_t huge = (size_t)2 << 20;
    if (n >= huge) {
        void *p;
        if (posix_memalign(&p, huge, n) != 0)
            return NULL;
        /* Only a hint: without huge pages the buffer is as good. */
        (void)madvise(p, n & ~(huge - 1), MADV_HUGEPAGE);
        return p;
    }
#endif
    return malloc(n ? n : 1);
}

int rt_os_map_cow(const char *path, size_t len, size_t spare,
                  struct rt_os_map *m)
{
    memset(m, 0, sizeof *m);
    long page = sysconf(_SC_PAGESIZE);
    if (len == 0 || page <= 0 || len % (size_t)page || spare % (size_t)page ||
        len > SIZE_MAX - spare) {
        errno = EINVAL;
        return -1;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    int serr = 0;
    if (fstat(fd, &st) != 0)
        serr = errno;
    else if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < len)
        serr = EINVAL;
    if (serr) {
        close(fd);
        errno = serr;
        return -1;
    }
    /* The whole range as zeros first, then the file over its start: one
     * range, so the data grows into the zeros in place. It starts on a
     * 2 MB boundary: the page cache holds a file in large pages where it
     * can, and a view aligned like the file maps them a large page per
     * fault; unaligned, each fault maps 64 KB, and a walk over a cold
     * hive's cells spent three times as long (14 MB: 1.8 ms, not 0.56). */
    size_t span = len + spare;
    const size_t align = (size_t)2 << 20;
    if (span > SIZE_MAX - align) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    uint8_t *r = mmap(NULL, span + align, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    uint8_t *p = r + (align - (uintptr_t)r % align) % align;
    if (p > r)
        munmap(r, (size_t)(p - r));
    if (p + span < r + span + align)
        munmap(p + span, (size_t)(r + span + align - (p + span)));
    void *f = mmap(p, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED,
                   fd, 0);
    int err = errno;
    close(fd);
    if (f == MAP_FAILED) {
        munmap(p, span);
        errno = err;
        return -1;
    }
    m->data = p;
    m->len = len;
    m->priv = p;
    m->span = span;
    return 0;
}

uint64_t rt_os_filetime_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* 11644473600 s from 1601-01-01 to 1970-01-01. */
    return ((uint64_t)ts.tv_sec + 11644473600ull) * 10000000ull +
           (uint64_t)ts.tv_nsec / 100;
}
/* One iconv conversion of the whole input; FROM and TO are iconv names. */
static int convert(const char *to, const char *from, const uint8_t *in,
                   size_t len, char **out, size_t *out_len, size_t *err_off)
{
    iconv_t cd = iconv_open(to, from);
    if (cd == (iconv_t)-1)
        return -3;
    size_t cap = len * 4 + 16;
    char *buf = malloc(cap);
    if (!buf) {
        iconv_close(cd);
        return -2;
    }
    char *inp = (char *)in, *outp = buf;
    size_t inleft = len, outleft = cap - 1;
    int rc = 0;
    while (inleft > 0) {
        if (iconv(cd, &inp, &inleft, &outp, &outleft) != (size_t)-1)
            continue;
        if (errno == E2BIG) {
            size_t used = (size_t)(outp - buf);
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                rc = -2;
                break;
            }
            cap *= 2;
            buf = nb;
            outp = buf + used;
            outleft = cap - used - 1;
            continue;
        }
        *err_off = (size_t)((const uint8_t *)inp - in);
        /* EINVAL: the input ends inside a multibyte character. */
        rc = errno == EINVAL ? -4 : -1;
        break;
    }
    /* Stateful encodings flush their shift state here. */
    if (rc == 0 && iconv(cd, NULL, NULL, &outp, &outleft) == (size_t)-1) {
        *err_off = len;
        rc = -1;
    }
    iconv_close(cd);
    if (rc) {
        free(buf);
        return rc;
    }
    *outp = '\0';
    *out = buf;
    *out_len = (size_t)(outp - buf);
    return 0;
}

/* glibc names Windows code pages CPnnnn; a name without a number
 * ("ASCII", "KOI8-R") is given to iconv as it is. */
static int iconv_name(const char *codepage, char *name, size_t size)
{
    unsigned n = rt_os_codepage_number(codepage);
    if (n)
        snprintf(name, size, "CP%u", n);
    else if (*codepage && strlen(codepage) < size)
        snprintf(name, size, "%s", codepage);
    else
        return -3;
    return 0;
}

int rt_os_codepage_to_utf8(const char *codepage, const uint8_t *in,
                           size_t len, char **out, size_t *out_len,
                           size_t *err_off)
{
    char name[64];
    if (iconv_name(codepage, name, sizeof name) != 0)
        return -3;
    return convert("UTF-8", name, in, len, out, out_len, err_off);
}

int rt_os_utf8_to_codepage(const char *codepage, const char *in, size_t len,
                           uint8_t **out, size_t *out_len, size_t *err_off)
{
    char name[64];
    if (iconv_name(codepage, name, sizeof name) != 0)
        return -3;
    char *o;
    int r = convert(name, "UTF-8", (const uint8_t *)in, len, &o, out_len,
                    err_off);
    if (r == 0)
        *out = (uint8_t *)o;
    return r;
}
#endif
