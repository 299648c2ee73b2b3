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
 * Win32 has no openat with O_NOFOLLOW. Beneath a confined directory each
 * folder on a path is opened as itself (FILE_FLAG_OPEN_REPARSE_POINT:
 * a symbolic link, junction or mount point is opened, not followed) and
 * checked on that handle; the handle is held, without FILE_SHARE_DELETE,
 * until the call on the path is done, so no folder checked can be
 * renamed, removed and replaced by a junction meanwhile (one emptied
 * and turned into a junction in place is caught by checking the held
 * handles again once the file is open). The file or folder the call
 * acts on is opened the same way and checked on the handle that is then
 * used; "." and ".." are refused by name. */

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
    if (r == 0)
        rt_os_listings_scope(+1);
    if (r == 0 && canonical && !(*canonical = strdup(buf)))
        return errno = ENOMEM, -1;
    return r;
}

void rt_os_unconfine(const char *canonical)
{
    if (!canonical)
        return;
    int held = 0;
    AcquireSRWLockExclusive(&roots_lock);
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        struct confined *c = &roots[i];
        if (c->path && !strcasecmp(c->path, canonical)) {
            held = 1;
            if (--c->refs == 0) {
                free(c->path);
                memset(c, 0, sizeof *c);
            }
            break;
        }
    }
    ReleaseSRWLockExclusive(&roots_lock);
    if (held)
        rt_os_listings_scope(-1);
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

/* The folders of a path beneath a confined directory, held open while a
 * call uses the path (hold_beneath). */
#define HELD_MAX 64
struct held {
    int confined;      /* 0: the path is the caller's, used as it is */
    size_t n;
    HANDLE h[HELD_MAX];
};

static void release(struct held *hd)
{
    DWORD err = GetLastError();
    int e = errno;
    for (size_t i = 0; i < hd->n; i++)
        CloseHandle(hd->h[i]);
    hd->n = 0;
    SetLastError(err);
    errno = e;
}

/* -1 with a refusal naming PATH when handle H (opened with
 * FILE_FLAG_OPEN_REPARSE_POINT) is a reparse point: what regtool opened
 * is what it checked, whatever the path names by now. */
static int refuse_reparse(HANDLE h, const char *path)
{
    FILE_ATTRIBUTE_TAG_INFO tag;
    if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag,
                                      sizeof tag))
        return set_errno_from_win32();
    if (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
        return rt_os_refuse(ELOOP,
                            "%s is a symbolic link or junction, which "
                            "regtool does not follow inside a tree it did "
                            "not write",
                            path);
    return 0;
}

/* Opens PATH as itself, never through a reparse point, with ACCESS,
 * SHARE, DISPOSITION and FLAGS (FILE_FLAG_OPEN_REPARSE_POINT and
 * FILE_FLAG_BACKUP_SEMANTICS added: a folder opens too). */
static HANDLE open_as_itself(const char *path, DWORD access, DWORD share,
                             DWORD disposition, DWORD flags)
{
    wchar_t *w = wide(path);
    if (!w)
        return INVALID_HANDLE_VALUE;
    HANDLE h = CreateFileW(w, access, share, NULL, disposition,
                           flags | FILE_FLAG_OPEN_REPARSE_POINT |
                               FILE_FLAG_BACKUP_SEMANTICS,
                           NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        set_errno_from_win32();
    return h;
}

/* -1 with a refusal naming PATH when a folder held for it has become a
 * reparse point since it was checked: a held folder cannot be renamed
 * or removed, but one emptied meanwhile can be turned into a junction
 * in place, and the path, opened by name, would have gone through it. */
static int held_still_plain(const struct held *hd, const char *path)
{
    for (size_t i = 0; i < hd->n; i++) {
        FILE_ATTRIBUTE_TAG_INFO tag;
        if (!GetFileInformationByHandleEx(hd->h[i], FileAttributeTagInfo,
                                          &tag, sizeof tag))
            return set_errno_from_win32();
        if (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)
            return rt_os_refuse(ELOOP,
                                "%s: a folder on its way became a symbolic "
                                "link or junction while regtool used it",
                                path);
    }
    return 0;
}

/* Holds the folders of PATH beneath its confined directory: with
 * WHOLE, PATH's last component too (a folder to be listed). Each is
 * opened as itself, refused when a reparse point, and held without
 * FILE_SHARE_DELETE; "." and ".." are refused by name. A component that
 * does not exist ends the walk: what does not exist cannot lead out,
 * and the call on the path then fails as it would anyway. 0, or -1 with
 * errno (nothing held). */
static int hold_beneath(const char *path, int whole, struct held *hd)
{
    rt_os_refusal_clear();
    hd->n = 0;
    size_t base = confined_len(path);
    hd->confined = base != 0;
    if (!base)
        return 0;
    size_t n = strlen(path);
    char *buf = malloc(n + 1);
    if (!buf)
        return errno = ENOMEM, -1;
    memcpy(buf, path, n + 1);
    int r = 0, missing = 0;
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
        size_t next = end;
        while (next < n && (buf[next] == '/' || buf[next] == '\\'))
            next++;
        int last = next >= n;
        if (missing || (last && !whole)) {
            i = end;
            continue;
        }
        char c = buf[end];
        buf[end] = '\0';
        HANDLE h = open_as_itself(buf, FILE_READ_ATTRIBUTES,
                                  FILE_SHARE_READ | FILE_SHARE_WRITE,
                                  OPEN_EXISTING, 0);
        if (h == INVALID_HANDLE_VALUE) {
            DWORD err = GetLastError();
            if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
                missing = 1;
            else
                r = -1;
        } else if (hd->n == HELD_MAX) {
            CloseHandle(h);
            r = (errno = ENAMETOOLONG, -1);
        } else {
            hd->h[hd->n++] = h;
            r = refuse_reparse(h, buf);
        }
        buf[end] = c;
        i = end;
    }
    free(buf);
    if (r != 0)
        release(hd);
    return r;
}

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    DWORD access = GENERIC_READ | GENERIC_WRITE, disposition = OPEN_EXISTING;
    int flags = _O_BINARY | _O_RDWR;
    switch (mode) {
    case RT_OS_READ:
        access = GENERIC_READ;
        flags = _O_BINARY | _O_RDONLY;
        break;
    case RT_OS_WRITE: break;
    /* A truncation waits until the file is known to be a regular file
     * of one name: a hard link's other name must not lose its bytes. */
    case RT_OS_WRITE_CREATE:
    case RT_OS_WRITE_TRUNC: disposition = OPEN_ALWAYS; break;
    case RT_OS_WRITE_NEW: disposition = CREATE_NEW; break;
    }
    struct held hd;
    if (hold_beneath(path, 0, &hd) != 0)
        return -1;
    HANDLE h;
    if (hd.confined) {
        h = open_as_itself(path, access, FILE_SHARE_READ | FILE_SHARE_WRITE,
                           disposition, FILE_ATTRIBUTE_NORMAL);
    } else {
        wchar_t *w = wide(path);
        h = w ? CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            NULL, disposition, FILE_ATTRIBUTE_NORMAL, NULL)
              : INVALID_HANDLE_VALUE;
        if (w && h == INVALID_HANDLE_VALUE)
            set_errno_from_win32();
        free(w);
    }
    if (h == INVALID_HANDLE_VALUE) {
        release(&hd);
        return -1;
    }
    /* Only files on disk: a pipe, console, device or folder is refused;
     * beneath a confined directory, a reparse point and, for writing, a
     * file of more than one name. All of it on the handle used below. */
    BY_HANDLE_FILE_INFORMATION info;
    int refused = 0;
    if (GetFileType(h) != FILE_TYPE_DISK)
        refused = rt_os_refuse(ENODEV, "%s is not a regular file: refused",
                               path);
    else if (!GetFileInformationByHandle(h, &info))
        refused = set_errno_from_win32();
    else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        refused = (errno = EISDIR, -1);
    else if (hd.confined && (refuse_reparse(h, path) != 0 ||
                             held_still_plain(&hd, path) != 0))
        refused = -1;
    else if (mode != RT_OS_READ && hd.confined && info.nNumberOfLinks > 1)
        refused = rt_os_refuse(ENODEV,
                               "%s is a hard link (%lu links): refused "
                               "(regtool writes no file of a tree that "
                               "another name shares)",
                               path, (unsigned long)info.nNumberOfLinks);
    else if (mode == RT_OS_WRITE_TRUNC && !SetEndOfFile(h))
        refused = set_errno_from_win32();
    release(&hd);
    /* A file it may have made leaves every kept listing old. */
    if (disposition != OPEN_EXISTING)
        rt_os_listings_forget();
    int fd = -1;
    if (!refused && (fd = _open_osfhandle((intptr_t)h, flags)) < 0)
        refused = (errno = EMFILE, -1);
    if (refused) {
        int err = errno;
        CloseHandle(h);
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
/* A lock taken: another process's changes, made before, are seen from
 * now on, so no listing kept from before is used (rt_os_path_ci). */
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
    rt_os_listings_forget();
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
    /* The folders of both held: the name moved is the one in the folder
     * checked (a link there is moved as itself, never followed). */
    struct held hf, ht;
    if (hold_beneath(from, 0, &hf) != 0)
        return -1;
    if (hold_beneath(to, 0, &ht) != 0) {
        release(&hf);
        return -1;
    }
    wchar_t *wf = wide(from), *wt = wide(to);
    int r = 0;
    if (!wf || !wt)
        r = -1;
    else if (!MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING |
                                      MOVEFILE_WRITE_THROUGH))
        r = set_errno_from_win32();
    free(wf);
    free(wt);
    release(&hf);
    release(&ht);
    rt_os_listings_forget();
    return r;
}

/* Removes PATH, a folder when DIR: beneath a confined directory the
 * file or folder is opened as itself, checked on that handle (a link or
 * junction is refused, not removed, as anything that is not what the
 * caller takes it for) and removed through it. */
static int remove_path_once(const char *path, int dir);

static int remove_path(const char *path, int dir)
{
    int r = remove_path_once(path, dir);
    rt_os_listings_forget();
    return r;
}

static int remove_path_once(const char *path, int dir)
{
    struct held hd;
    if (hold_beneath(path, 0, &hd) != 0)
        return -1;
    int r = 0;
    if (!hd.confined) {
        wchar_t *w = wide(path);
        if (!w)
            return -1;
        BOOL ok = dir ? RemoveDirectoryW(w) : DeleteFileW(w);
        free(w);
        return ok ? 0 : set_errno_from_win32();
    }
    HANDLE h = open_as_itself(path, DELETE | FILE_READ_ATTRIBUTES,
                              FILE_SHARE_READ | FILE_SHARE_WRITE |
                                  FILE_SHARE_DELETE,
                              OPEN_EXISTING, 0);
    BY_HANDLE_FILE_INFORMATION info;
    FILE_DISPOSITION_INFO gone = {TRUE};
    if (h == INVALID_HANDLE_VALUE)
        r = -1;
    else if (refuse_reparse(h, path) != 0)
        r = -1;
    else if (!GetFileInformationByHandle(h, &info))
        r = set_errno_from_win32();
    else if (!(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != !dir)
        r = (errno = dir ? ENOTDIR : EISDIR, -1);
    else if (!SetFileInformationByHandle(h, FileDispositionInfo, &gone,
                                         sizeof gone))
        r = set_errno_from_win32();
    if (h != INVALID_HANDLE_VALUE) {
        int err = errno;
        CloseHandle(h);
        errno = err;
    }
    release(&hd);
    return r;
}

int rt_os_unlink(const char *path)
{
    return remove_path(path, 0);
}

int rt_os_rmdir(const char *path)
{
    return remove_path(path, 1);
}

int rt_os_mkdir(const char *path)
{
    struct held hd;
    if (hold_beneath(path, 0, &hd) != 0)
        return -1;
    wchar_t *w = wide(path);
    int r = !w ? -1 : CreateDirectoryW(w, NULL) ? 0 : set_errno_from_win32();
    free(w);
    release(&hd);
    rt_os_listings_forget();
    return r;
}

int rt_os_set_mode(int fd, unsigned mode)
{
    (void)fd;
    (void)mode;
    return 0;
}

/* rt_os_stat's WHAT for KIND (a reparse point beneath a confined folder
 * is said by rt_os_stat itself). */
static const char *kind_words(enum rt_os_kind kind)
{
    return kind == RT_OS_DIR    ? "a folder"
           : kind == RT_OS_FILE ? "a regular file"
                                : "a device";
}

/* What rt_os_stat and rt_os_fstat report of a file's information. */
static void from_info(const BY_HANDLE_FILE_INFORMATION *fi,
                      struct rt_os_stat *st)
{
    st->kind = fi->dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? RT_OS_DIR
               : fi->dwFileAttributes & FILE_ATTRIBUTE_DEVICE  ? RT_OS_OTHER
                                                               : RT_OS_FILE;
    st->what = kind_words(st->kind);
    st->size = ((uint64_t)fi->nFileSizeHigh << 32) | fi->nFileSizeLow;
    st->dev = fi->dwVolumeSerialNumber;
    st->ino = ((uint64_t)fi->nFileIndexHigh << 32) | fi->nFileIndexLow;
    st->mode = fi->dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0666;
    /* FILETIME: 100 ns units. */
    st->mtime_ns = (((uint64_t)fi->ftLastWriteTime.dwHighDateTime << 32) |
                    fi->ftLastWriteTime.dwLowDateTime) * 100u;
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
    from_info(&fi, st);
    return 0;
}

int rt_os_stat(const char *path, struct rt_os_stat *st)
{
    memset(st, 0, sizeof *st);
    struct held hd;
    if (hold_beneath(path, 0, &hd) != 0)
        return -1;
    /* Beneath a confined directory a link is not followed: it is
     * reported as what it is (OTHER). */
    DWORD flags = hd.confined ? FILE_FLAG_OPEN_REPARSE_POINT : 0;
    wchar_t *w = wide(path);
    HANDLE h = w ? CreateFileW(w, FILE_READ_ATTRIBUTES,
                               FILE_SHARE_READ | FILE_SHARE_WRITE |
                                   FILE_SHARE_DELETE,
                               NULL, OPEN_EXISTING,
                               FILE_FLAG_BACKUP_SEMANTICS | flags, NULL)
                 : INVALID_HANDLE_VALUE;
    DWORD err = GetLastError();
    free(w);
    release(&hd);
    if (!w)
        return -1;
    if (h == INVALID_HANDLE_VALUE) {
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ||
            err == ERROR_INVALID_NAME) {
            st->kind = RT_OS_ABSENT;
            return 0;
        }
        SetLastError(err);
        return set_errno_from_win32();
    }
    BY_HANDLE_FILE_INFORMATION fi;
    FILE_ATTRIBUTE_TAG_INFO tag;
    int r = 0;
    if (!GetFileInformationByHandle(h, &fi))
        r = set_errno_from_win32();
    else
        from_info(&fi, st);
    if (r == 0 && flags &&
        GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag,
                                     sizeof tag) &&
        (tag.FileAttributes & FILE_ATTRIBUTE_REPARSE_POINT)) {
        st->kind = RT_OS_OTHER;
        st->what = "a reparse point (a link or junction)";
    }
    CloseHandle(h);
    return r;
}

int rt_os_list_dir(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    /* The folder and those above it held while it is read: none of them
     * can be replaced by a junction meanwhile. */
    struct held hd;
    if (hold_beneath(dir, 1, &hd) != 0)
        return -1;
    size_t len = strlen(dir);
    char *pattern = malloc(len + 3);
    if (!pattern) {
        release(&hd);
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
    if (!w) {
        release(&hd);
        return -1;
    }
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        set_errno_from_win32();
        release(&hd);
        return -1;
    }
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
    if (!err && held_still_plain(&hd, dir) != 0)
        err = errno;
    release(&hd);
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
    /* Opened as every file is (rt_os_open: beneath a confined directory
     * no reparse point, only a regular file), and mapped from that
     * handle; the mapping keeps its own reference to the file. */
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    HANDLE f = handle_of(fd);
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size)) {
        set_errno_from_win32();
        _close(fd);
        return -1;
    }
    if (size.QuadPart == 0) {
        _close(fd);
        m->data = (const uint8_t *)"";
        return 0;
    }
    HANDLE map = CreateFileMappingW(f, NULL, PAGE_READONLY, 0, 0, NULL);
    if (!map)
        set_errno_from_win32();
    int err = errno;
    _close(fd);
    errno = err;
    if (!map)
        return -1;
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
