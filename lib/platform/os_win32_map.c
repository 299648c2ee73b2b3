/* Platform layer: memory on Windows (os.h): files mapped for reading
 * (through rt_os_open's checks) and their pages given back; no
 * copy-on-write view and no huge pages here (rt_os_map_cow says ENOSYS,
 * and the hive is read into memory instead). */
#include "platform/os.h"
#ifdef RT_OS_WIN32
#include "platform/os_internal.h"
#include "platform/os_win32_internal.h"
#include <errno.h>
#include <io.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>

int rt_os_map_file(const char *path, struct rt_os_map *m)
{
    memset(m, 0, sizeof *m);
    /* Opened as every file is (rt_os_open: beneath a confined directory
     * no reparse point, only a regular file), and mapped from that
     * handle; the mapping keeps its own reference to the file. */
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    HANDLE f = os_win32_handle_of(fd);
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size)) {
        os_win32_set_errno();
        _close(fd);
        return -1;
    }
    if (size.QuadPart == 0) {
        _close(fd);
        m->data = (const uint8_t *)"";
        return 0;
    }
    if ((uint64_t)size.QuadPart <= RT_OS_MAP_SMALL) {
        int r = rt_os_map_small(fd, (size_t)size.QuadPart, m);
        int err = errno;
        _close(fd);
        errno = err;
        return r;
    }
    HANDLE map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!map)
        os_win32_set_errno();
    int err = errno;
    _close(fd);
    errno = err;
    if (!map)
        return -1;
    void *p = MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(map);   /* the view keeps the mapping alive */
    if (!p)
        return os_win32_set_errno();
    m->data = p;
    m->len = (size_t)size.QuadPart;
    m->priv = p;
    return 0;
}

void rt_os_unmap_file(struct rt_os_map *m)
{
    if (m->heap)
        free(m->priv);
    else if (m->priv)
        UnmapViewOfFile(m->priv);
    memset(m, 0, sizeof *m);
}

void rt_os_map_release(const struct rt_os_map *m, size_t off, size_t len)
{
    /* Unlocking pages that are not locked takes them out of the working
     * set (documented for VirtualUnlock); the call then fails, as it
     * says, with ERROR_NOT_LOCKED. */
    if (m->priv && !m->heap && len && off < m->len)
        (void)VirtualUnlock((void *)(m->data + off),
                            len < m->len - off ? len : m->len - off);
}

void rt_os_report_map_faults(const char *message, int exit_code)
{
    (void)message;
    (void)exit_code;
}

void *rt_os_alloc_bulk(size_t n)
{
    return malloc(n ? n : 1);
}

int rt_os_map_cow(const char *path, size_t len, size_t spare,
                  struct rt_os_map *m)
{
    (void)path;
    (void)len;
    (void)spare;
    memset(m, 0, sizeof *m);
    errno = ENOSYS;
    return -1;
}
#endif
