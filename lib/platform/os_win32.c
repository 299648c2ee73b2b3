/* Platform layer: the Win32 implementation of os.h, for the native
 * Windows build (mingw-w64). Paths arrive as UTF-8 and go to the wide
 * (UTF-16) calls, so names outside the ANSI code page work; descriptors
 * are the C runtime's, always binary, with positional I/O and flushing
 * done on their Win32 handles. */
#include "platform/os.h"
#ifdef RT_OS_WIN32
#include "platform/compat.h"
#include "platform/os_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>

/* errno for the calling thread's last Win32 error. */
static int set_errno_from_win32(void)
{
    switch (GetLastError()) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
    case ERROR_INVALID_DRIVE:
    case ERROR_BAD_NETPATH:
        errno = ENOENT; break;
    case ERROR_ACCESS_DENIED:
    case ERROR_WRITE_PROTECT:
        errno = EACCES; break;
    case ERROR_SHARING_VIOLATION:
    case ERROR_LOCK_VIOLATION:
        errno = EBUSY; break;
    case ERROR_ALREADY_EXISTS:
    case ERROR_FILE_EXISTS:
        errno = EEXIST; break;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        errno = ENOSPC; break;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        errno = ENOMEM; break;
    case ERROR_DIR_NOT_EMPTY:
        errno = ENOTEMPTY; break;
    case ERROR_FILENAME_EXCED_RANGE:
        errno = ENAMETOOLONG; break;
    case ERROR_INVALID_NAME:
    case ERROR_INVALID_PARAMETER:
        errno = EINVAL; break;
    default:
        errno = EIO; break;
    }
    return -1;
}

/* UTF-8 to a new wide string; NULL with errno on bad UTF-8. */
static wchar_t *wide(const char *s)
{
    int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
    if (n <= 0) {
        errno = EINVAL;
        return NULL;
    }
    wchar_t *w = malloc((size_t)n * sizeof *w);
    if (!w) {
        errno = ENOMEM;
        return NULL;
    }
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
    return w;
}

/* A wide string to UTF-8 in BUF; -1 with errno when it does not fit. */
static int narrow_into(const wchar_t *w, char *buf, size_t size)
{
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, buf, (int)size, NULL, NULL);
    if (n <= 0) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}

static HANDLE handle_of(int fd)
{
    return (HANDLE)_get_osfhandle(fd);
}

/* --- confinement ----------------------------------------------------------
 * Windows has no openat with O_NOFOLLOW; every component beneath a
 * confined directory is checked for a reparse point (symbolic link,
 * junction, mount point) before the path is used, and "." and ".." are
 * refused by name. The check and the use are two calls, so a writer
 * racing regtool on the same disk could swap a folder for a junction
 * between them: the offline case the POSIX build serves has no such
 * writer, and on a live system the tree is the system's own. */

struct confined {
    char *path;
    size_t len;
    unsigned refs;
};
static struct confined roots[16];
static SRWLOCK roots_lock = SRWLOCK_INIT;

int rt_os_confine(const char *dir, char **canonical)
{
    char buf[4096];
    if (canonical)
        *canonical = NULL;
    if (!rt_os_is_dir(dir)) {
        errno = rt_os_exists(dir) ? ENOTDIR : ENOENT;
        return -1;
    }
    if (rt_os_realpath(dir, buf, sizeof buf) != 0)
        return -1;
    AcquireSRWLockExclusive(&roots_lock);
    struct confined *slot = NULL;
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        if (roots[i].path && !strcasecmp(roots[i].path, buf)) {
            slot = &roots[i];
            break;
        }
        if (!roots[i].path && !slot)
            slot = &roots[i];
    }
    int r = 0;
    if (!slot)
        r = (errno = EMFILE, -1);
    else if (slot->path)
        slot->refs++;
    else if (!(slot->path = strdup(buf)))
        r = (errno = ENOMEM, -1);
    else {
        slot->len = strlen(buf);
        slot->refs = 1;
    }
    ReleaseSRWLockExclusive(&roots_lock);
    if (r == 0 && canonical && !(*canonical = strdup(buf)))
        return errno = ENOMEM, -1;
    return r;
}

void rt_os_unconfine(const char *canonical)
{
    if (!canonical)
        return;
    AcquireSRWLockExclusive(&roots_lock);
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        struct confined *c = &roots[i];
        if (c->path && !strcasecmp(c->path, canonical) && --c->refs == 0) {
            free(c->path);
            memset(c, 0, sizeof *c);
            break;
        }
    }
    ReleaseSRWLockExclusive(&roots_lock);
}

/* The length of the outermost confined directory PATH lies beneath, 0
 * when none. */
static size_t confined_len(const char *path)
{
    size_t best = 0;
    AcquireSRWLockShared(&roots_lock);
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        const char *rel;
        if (roots[i].path && (!best || roots[i].len < best) &&
            rt_os_beneath(roots[i].path, roots[i].len, path, &rel))
            best = roots[i].len;
    }
    ReleaseSRWLockShared(&roots_lock);
    return best;
}

int rt_os_is_confined(const char *path)
{
    return confined_len(path) != 0;
}

/* 0 when PATH may be used: not confined, or every component beneath the
 * confined directory a plain name and no reparse point (a missing one
 * ends the check: what does not exist cannot lead out). */
static int check_confined(const char *path)
{
    rt_os_refusal_clear();
    size_t base = confined_len(path);
    if (!base)
        return 0;
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    if (!buf)
        return errno = ENOMEM, -1;
    memcpy(buf, path, n + 1);
    int r = 0;
    for (size_t i = base; i < n && r == 0;) {
        while (i < n && (buf[i] == '/' || buf[i] == '\\'))
            i++;
        size_t end = i;
        while (end < n && buf[end] != '/' && buf[end] != '\\')
            end++;
        if (end == i)
            break;
        size_t len = end - i;
        if ((len == 1 && buf[i] == '.') ||
            (len == 2 && buf[i] == '.' && buf[i + 1] == '.')) {
            r = rt_os_refuse(EXDEV,
                             "%s: the name \"%.*s\" in it would lead out of "
                             "the tree regtool works in",
                             path, (int)len, buf + i);
            break;
        }
        char c = buf[end];
        buf[end] = '\0';
        wchar_t *w = wide(buf);
        DWORD a = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
        free(w);
        if (a == INVALID_FILE_ATTRIBUTES) {
            buf[end] = c;
            break;
        }
        if (a & FILE_ATTRIBUTE_REPARSE_POINT)
            r = rt_os_refuse(ELOOP,
                             "%s is a symbolic link or junction, which "
                             "regtool does not follow inside a tree it did "
                             "not write",
                             buf);
        buf[end] = c;
        i = end;
    }
    free(buf);
    return r;
}

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    int flags = _O_BINARY | _O_NOINHERIT;
    switch (mode) {
    case RT_OS_READ: flags |= _O_RDONLY; break;
    case RT_OS_WRITE: flags |= _O_RDWR; break;
    case RT_OS_WRITE_CREATE: flags |= _O_RDWR | _O_CREAT; break;
    case RT_OS_WRITE_TRUNC: flags |= _O_RDWR | _O_CREAT | _O_TRUNC; break;
    case RT_OS_WRITE_NEW: flags |= _O_RDWR | _O_CREAT | _O_EXCL; break;
    }
    if (check_confined(path) != 0)
        return -1;
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    int fd = _wopen(w, flags, _S_IREAD | _S_IWRITE);
    free(w);
    if (fd < 0)
        return fd;
    /* Only files on disk: a pipe, console or device is refused. */
    BY_HANDLE_FILE_INFORMATION info;
    HANDLE h = handle_of(fd);
    int refused = 0;
    if (GetFileType(h) != FILE_TYPE_DISK)
        refused = rt_os_refuse(ENODEV, "%s is not a regular file: refused",
                               path);
    else if (mode != RT_OS_READ && confined_len(path) &&
             GetFileInformationByHandle(h, &info) &&
             info.nNumberOfLinks > 1)
        refused = rt_os_refuse(ENODEV,
                               "%s has %lu names (hard links): regtool writes "
                               "no file of a tree that another name shares",
                               path, (unsigned long)info.nNumberOfLinks);
    if (refused) {
        int err = errno;
        _close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int rt_os_close(int fd)
{
    return _close(fd);
}

long long rt_os_pread(int fd, void *buf, size_t len, uint64_t off)
{
    HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    OVERLAPPED ov = {0};
    ov.Offset = (DWORD)off;
    ov.OffsetHigh = (DWORD)(off >> 32);
    DWORD got = 0;
    DWORD want = len > 0x40000000u ? 0x40000000u : (DWORD)len;
    if (!ReadFile(h, buf, want, &got, &ov)) {
        if (GetLastError() == ERROR_HANDLE_EOF)
            return 0;
        return set_errno_from_win32();
    }
    return (long long)got;
}

int rt_os_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    const uint8_t *p = buf;
    while (len > 0) {
        OVERLAPPED ov = {0};
        ov.Offset = (DWORD)off;
        ov.OffsetHigh = (DWORD)(off >> 32);
        DWORD chunk = len > 0x40000000u ? 0x40000000u : (DWORD)len, done = 0;
        if (!WriteFile(h, p, chunk, &done, &ov))
            return set_errno_from_win32();
        if (done == 0) {
            errno = EIO;
            return -1;
        }
        p += done;
        len -= done;
        off += done;
    }
    return 0;
}

int rt_os_fsync(int fd)
{
    HANDLE h = handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    /* A handle opened read-only cannot be flushed; nothing of it is
     * dirty then. */
    if (!FlushFileBuffers(h) && GetLastError() != ERROR_ACCESS_DENIED)
        return set_errno_from_win32();
    return 0;
}

int rt_os_ftruncate(int fd, uint64_t size)
{
    HANDLE h = handle_of(fd);
    FILE_END_OF_FILE_INFO eof;
    eof.EndOfFile.QuadPart = (LONGLONG)size;
    if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof eof))
        return set_errno_from_win32();
    return 0;
}

int rt_os_fsize(int fd, uint64_t *size)
{
    LARGE_INTEGER li;
    if (!GetFileSizeEx(handle_of(fd), &li))
        return set_errno_from_win32();
    *size = (uint64_t)li.QuadPart;
    return 0;
}

/* Windows byte-range locks are mandatory: the lock covers one byte at
 * 2^62, far past the holder's note at the start of the file, which others
 * must read. */
static int lock_range(int fd, DWORD flags)
{
    OVERLAPPED ov = {0};
    ov.OffsetHigh = 0x40000000u;
    if (!LockFileEx(handle_of(fd), flags, 0, 1, 0, &ov)) {
        DWORD err = GetLastError();
        set_errno_from_win32();
        if (err == ERROR_LOCK_VIOLATION || err == ERROR_IO_PENDING)
            errno = EWOULDBLOCK;
        return -1;
    }
    return 0;
}

int rt_os_lock(int fd)
{
    return lock_range(fd, LOCKFILE_EXCLUSIVE_LOCK);
}

int rt_os_trylock(int fd, int shared)
{
    return lock_range(fd, LOCKFILE_FAIL_IMMEDIATELY |
                              (shared ? 0 : LOCKFILE_EXCLUSIVE_LOCK));
}

int rt_os_reserve(int fd, uint64_t size)
{
    HANDLE h = handle_of(fd);
    LARGE_INTEGER cur;
    if (!GetFileSizeEx(h, &cur))
        return set_errno_from_win32();
    if (size <= (uint64_t)cur.QuadPart)
        return 0;
    /* The allocation grows, the size does not; NTFS frees what is past
     * the end when the last handle closes. */
    FILE_ALLOCATION_INFO ai;
    ai.AllocationSize.QuadPart = (LONGLONG)size;
    if (SetFileInformationByHandle(h, FileAllocationInfo, &ai, sizeof ai))
        return 0;
    DWORD err = GetLastError();
    if (err == ERROR_DISK_FULL || err == ERROR_HANDLE_DISK_FULL) {
        errno = ENOSPC;
        return -1;
    }
    return 0;   /* not supported here: nothing reserved, nothing refused */
}

int rt_os_unreserve(int fd)
{
    /* NTFS frees the allocation past the end when the last handle closes,
     * which rt_os_reserve's caller has done by now. */
    (void)fd;
    return 0;
}

int rt_os_free_space(const char *path, uint64_t *bytes)
{
    wchar_t *w = wide(path);
    ULARGE_INTEGER avail;
    if (!w)
        return -1;
    BOOL ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
    free(w);
    if (!ok)
        return set_errno_from_win32();
    *bytes = avail.QuadPart;
    return 0;
}

void rt_os_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

char *rt_os_user_path(const char *arg)
{
    char *r = _strdup(arg);
    for (char *p = r; p && *p; p++)
        if (*p == '\\')
            *p = '/';
    return r;
}

uint64_t rt_os_monotonic_ms(void)
{
    return (uint64_t)GetTickCount64();
}

long rt_os_getpid(void)
{
    return (long)GetCurrentProcessId();
}

int rt_os_fsync_dir_of(const char *path)
{
    /* NTFS journals its directory changes, and rt_os_rename asks for
     * write-through; a directory cannot be flushed as a file can. */
    (void)path;
    return 0;
}

int rt_os_rename(const char *from, const char *to)
{
    if (check_confined(from) != 0 || check_confined(to) != 0)
        return -1;
    wchar_t *wf = wide(from), *wt = wide(to);
    int r = 0;
    if (!wf || !wt)
        r = -1;
    else if (!MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING |
                                      MOVEFILE_WRITE_THROUGH))
        r = set_errno_from_win32();
    free(wf);
    free(wt);
    return r;
}

int rt_os_unlink(const char *path)
{
    if (check_confined(path) != 0)
        return -1;
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    int r = DeleteFileW(w) ? 0 : set_errno_from_win32();
    free(w);
    return r;
}

int rt_os_rmdir(const char *path)
{
    if (check_confined(path) != 0)
        return -1;
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    int r = RemoveDirectoryW(w) ? 0 : set_errno_from_win32();
    free(w);
    return r;
}

int rt_os_mkdir(const char *path)
{
    if (check_confined(path) != 0)
        return -1;
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    int r = CreateDirectoryW(w, NULL) ? 0 : set_errno_from_win32();
    free(w);
    return r;
}

int rt_os_set_mode(int fd, unsigned mode)
{
    (void)fd;
    (void)mode;
    return 0;
}

/* rt_os_stat's WHAT for KIND (a reparse point beneath a confined folder
 * never gets here: check_confined refuses it by name). */
static const char *kind_words(enum rt_os_kind kind)
{
    return kind == RT_OS_DIR    ? "a folder"
           : kind == RT_OS_FILE ? "a regular file"
                                : "a device";
}

int rt_os_fstat(int fd, struct rt_os_stat *st)
{
    memset(st, 0, sizeof *st);
    HANDLE h = handle_of(fd);
    st->mode = 0666;
    if (GetFileType(h) != FILE_TYPE_DISK) {
        st->kind = RT_OS_OTHER;   /* a pipe, a console, a device */
        st->what = "a device";
        return 0;
    }
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi))
        return set_errno_from_win32();
    st->kind = fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? RT_OS_DIR
               : fi.dwFileAttributes & FILE_ATTRIBUTE_DEVICE  ? RT_OS_OTHER
                                                              : RT_OS_FILE;
    st->what = kind_words(st->kind);
    st->size = ((uint64_t)fi.nFileSizeHigh << 32) | fi.nFileSizeLow;
    st->dev = fi.dwVolumeSerialNumber;
    st->ino = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
    st->mode = fi.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0666;
    st->mtime_ns = (((uint64_t)fi.ftLastWriteTime.dwHighDateTime << 32) |
                    fi.ftLastWriteTime.dwLowDateTime) * 100u;
    return 0;
}

int rt_os_stat(const char *path, struct rt_os_stat *st)
{
    memset(st, 0, sizeof *st);
    if (check_confined(path) != 0)
        return -1;
    memset(st, 0, sizeof *st);
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    WIN32_FILE_ATTRIBUTE_DATA a;
    if (!GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
        DWORD err = GetLastError();
        free(w);
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ||
            err == ERROR_INVALID_NAME) {
            st->kind = RT_OS_ABSENT;
            return 0;
        }
        SetLastError(err);
        return set_errno_from_win32();
    }
    st->kind = a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? RT_OS_DIR
               : a.dwFileAttributes & FILE_ATTRIBUTE_DEVICE  ? RT_OS_OTHER
                                                             : RT_OS_FILE;
    st->what = kind_words(st->kind);
    st->size = ((uint64_t)a.nFileSizeHigh << 32) | a.nFileSizeLow;
    st->mode = a.dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0666;
    /* FILETIME: 100 ns units. */
    st->mtime_ns = (((uint64_t)a.ftLastWriteTime.dwHighDateTime << 32) |
                    a.ftLastWriteTime.dwLowDateTime) * 100u;
    /* The identity: volume serial number and file index. */
    HANDLE h = CreateFileW(w, 0, FILE_SHARE_READ | FILE_SHARE_WRITE |
                                     FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS,
                           NULL);
    free(w);
    if (h != INVALID_HANDLE_VALUE) {
        BY_HANDLE_FILE_INFORMATION info;
        if (GetFileInformationByHandle(h, &info)) {
            st->dev = info.dwVolumeSerialNumber;
            st->ino = ((uint64_t)info.nFileIndexHigh << 32) |
                      info.nFileIndexLow;
        }
        CloseHandle(h);
    }
    return 0;
}

int rt_os_list_dir(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    if (check_confined(dir) != 0)
        return -1;
    *names = NULL;
    *n = 0;
    size_t len = strlen(dir);
    char *pattern = malloc(len + 3);
    if (!pattern) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(pattern, dir, len);
    /* A drive's root already ends in its separator. */
    if (len && (dir[len - 1] == '\\' || dir[len - 1] == '/'))
        memcpy(pattern + len, "*", 2);
    else
        memcpy(pattern + len, "\\*", 3);
    wchar_t *w = wide(pattern);
    free(pattern);
    if (!w)
        return -1;
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        return set_errno_from_win32();
    struct rt_os_names l = {0};
    int err = 0;
    do {
        char name[MAX_PATH * 3];
        if (narrow_into(fd.cFileName, name, sizeof name) != 0) {
            err = errno;
            break;
        }
        if (rt_os_names_add(&l, name) != 0) {
            err = ENOMEM;
            break;
        }
    } while (FindNextFileW(h, &fd));
    if (!err && GetLastError() != ERROR_NO_MORE_FILES) {
        set_errno_from_win32();
        err = errno;
    }
    FindClose(h);
    return rt_os_names_finish(&l, err, names, n);
}

int rt_os_realpath(const char *path, char *buf, size_t size)
{
    if (!rt_os_exists(path)) {
        errno = ENOENT;
        return -1;
    }
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    wchar_t full[32768];
    DWORD n = GetFullPathNameW(w, 32768, full, NULL);
    free(w);
    if (n == 0 || n >= 32768)
        return set_errno_from_win32();
    /* Forward slashes, which Windows takes as well: the layers above
     * split and join paths at '/' on every system. */
    for (wchar_t *c = full; *c; c++)
        if (*c == L'\\')
            *c = L'/';
    return narrow_into(full, buf, size);
}

int rt_os_map_file(const char *path, struct rt_os_map *m)
{
    memset(m, 0, sizeof *m);
    if (check_confined(path) != 0)
        return -1;
    memset(m, 0, sizeof *m);
    wchar_t *w = wide(path);
    if (!w)
        return -1;
    HANDLE f = CreateFileW(w, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
                           NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    free(w);
    if (f == INVALID_HANDLE_VALUE)
        return set_errno_from_win32();
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size)) {
        set_errno_from_win32();
        CloseHandle(f);
        return -1;
    }
    if (size.QuadPart == 0) {
        CloseHandle(f);
        m->data = (const uint8_t *)"";
        return 0;
    }
    HANDLE map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
    CloseHandle(f);
    if (!map)
        return set_errno_from_win32();
    void *p = MapViewOfFile(map, FILE_MAP_READ, 0, 0, 0);
    CloseHandle(map);   /* the view keeps the mapping alive */
    if (!p)
        return set_errno_from_win32();
    m->data = p;
    m->len = (size_t)size.QuadPart;
    m->priv = p;
    return 0;
}

void rt_os_unmap_file(struct rt_os_map *m)
{
    if (m->priv)
        UnmapViewOfFile(m->priv);
    memset(m, 0, sizeof *m);
}

void rt_os_map_release(const struct rt_os_map *m, size_t off, size_t len)
{
    /* Unlocking pages that are not locked takes them out of the working
     * set (documented for VirtualUnlock); the call then fails, as it
     * says, with ERROR_NOT_LOCKED. */
    if (m->priv && len && off < m->len)
        (void)VirtualUnlock((void *)(m->data + off),
                            len < m->len - off ? len : m->len - off);
}

void rt_os_report_map_faults(const char *message, int exit_code)
{
    (void)message;
    (void)exit_code;
}

static const char *end_message;

static void on_interrupt_end(int sig)
{
    if (end_message)
        _write(2, end_message, (unsigned)strlen(end_message));
    _exit(128 + sig);
}

void rt_os_end_on_interrupts(const char *message)
{
    end_message = message;
    signal(SIGINT, on_interrupt_end);
    signal(SIGTERM, on_interrupt_end);
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

uint64_t rt_os_filetime_now(void)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    return ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
}
/* Where a conversion from code page CP failed: MultiByteToWideChar does
 * not say, so the input is walked a character at a time (one byte, or two
 * from a lead byte) on this error path only. -4 when the input ends after
 * a lead byte; -1 with *ERR_OFF at the first byte that does not convert
 * (0 where the walk cannot tell: code pages of more than two bytes). */
static int find_bad_byte(unsigned cp, const uint8_t *in, size_t len,
                         size_t *err_off)
{
    CPINFO info;
    *err_off = 0;
    if (!GetCPInfo(cp, &info) || info.MaxCharSize > 2)
        return -1;
    wchar_t w[2];
    for (size_t i = 0; i < len;) {
        int n = info.MaxCharSize == 2 && IsDBCSLeadByteEx(cp, in[i]) ? 2 : 1;
        if (i + (size_t)n > len)
            return *err_off = i, -4;
        if (MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS,
                                (const char *)in + i, n, w, 2) <= 0) {
            *err_off = i;
            return -1;
        }
        i += (size_t)n;
    }
    return -1;
}

/* Both directions go through UTF-16, as Windows converts. A character
 * with no mapping fails (MB_ERR_INVALID_CHARS, WC_NO_BEST_FIT_CHARS and
 * the default-character check) instead of turning into '?'. Windows
 * knows code pages by number only. */
int rt_os_codepage_to_utf8(const char *codepage, const uint8_t *in,
                           size_t len, char **out, size_t *out_len,
                           size_t *err_off)
{
    unsigned cp = rt_os_codepage_number(codepage);
    if (!cp || !IsValidCodePage(cp))
        return -3;
    if (len > 0x3fffffff)
        return -2;
    *err_off = 0;
    int wn = len ? MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS,
                                       (const char *)in, (int)len, NULL, 0)
                 : 0;
    if (len && wn <= 0)
        return find_bad_byte(cp, in, len, err_off);
    wchar_t *w = malloc(((size_t)wn + 1) * sizeof *w);
    if (!w)
        return -2;
    if (len)
        MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS, (const char *)in,
                            (int)len, w, wn);
    int un = wn ? WideCharToMultiByte(CP_UTF8, 0, w, wn, NULL, 0, NULL, NULL)
                : 0;
    char *u = malloc((size_t)un + 1);
    if (!u) {
        free(w);
        return -2;
    }
    if (wn)
        WideCharToMultiByte(CP_UTF8, 0, w, wn, u, un, NULL, NULL);
    free(w);
    u[un] = '\0';
    *out = u;
    *out_len = (size_t)un;
    return 0;
}

int rt_os_utf8_to_codepage(const char *codepage, const char *in, size_t len,
                           uint8_t **out, size_t *out_len, size_t *err_off)
{
    unsigned cp = rt_os_codepage_number(codepage);
    if (!cp || !IsValidCodePage(cp))
        return -3;
    if (len > 0x3fffffff)
        return -2;
    *err_off = 0;
    int wn = len ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, in,
                                       (int)len, NULL, 0)
                 : 0;
    if (len && wn <= 0)
        return -1;
    wchar_t *w = malloc(((size_t)wn + 1) * sizeof *w);
    if (!w)
        return -2;
    if (len)
        MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, in, (int)len, w,
                            wn);
    /* UTF-8 takes neither the flag nor the default-character check. */
    BOOL lossy = FALSE;
    DWORD flags = cp == CP_UTF8 ? 0 : WC_NO_BEST_FIT_CHARS;
    int an = wn ? WideCharToMultiByte(cp, flags, w, wn, NULL, 0, NULL,
                                      cp == CP_UTF8 ? NULL : &lossy)
                : 0;
    if (wn && (an <= 0 || lossy)) {
        free(w);
        return -1;
    }
    uint8_t *a = malloc((size_t)an + 1);
    if (!a) {
        free(w);
        return -2;
    }
    if (wn)
        WideCharToMultiByte(cp, flags, w, wn, (char *)a, an, NULL, NULL);
    free(w);
    *out = a;
    *out_len = (size_t)an;
    return 0;
}

char *strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *r = malloc(len + 1);
    if (!r)
        return NULL;
    memcpy(r, s, len);
    r[len] = '\0';
    return r;
}
#endif
