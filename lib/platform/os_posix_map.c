/* Platform layer: memory on POSIX systems (os.h): files mapped for
 * reading, their pages given back, a fault in a mapped file reported
 * instead of a crash, bulk buffers in huge pages, and the copy-on-write
 * view a hive is edited in. */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_os_map_file(const char *path, struct rt_os_map *m)
{
    memset(m, 0, sizeof *m);
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    if (st.st_size == 0) {
        close(fd);
        m->data = (const uint8_t *)"";
        return 0;
    }
    if ((uint64_t)st.st_size <= RT_OS_MAP_SMALL) {
        int r = rt_os_map_small(fd, (size_t)st.st_size, m);
        int err = errno;
        close(fd);
        errno = err;
        return r;
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
    if (m->heap)
        free(m->priv);
    else if (m->priv)
        munmap(m->priv, m->span ? m->span : m->len);
    memset(m, 0, sizeof *m);
}

void rt_os_map_release(const struct rt_os_map *m, size_t off, size_t len)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t span = m->span ? m->span : m->len;
    if (!m->priv || m->heap || page <= 0 || !len || off >= span)
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
    int fd = rt_os_open(path, RT_OS_READ);
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
#endif
