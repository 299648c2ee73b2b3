/* Platform layer: the Win32 implementation of os.h, for the native
 * Windows build (mingw-w64): files, folders, locks, time and signals.
 * Paths arrive as UTF-8 and go to the wide (UTF-16) calls, so names
 * outside the ANSI code page work; descriptors are the C runtime's,
 * always binary, with positional I/O and flushing done on their Win32
 * handles. Paths beneath a confined directory are held by
 * os_win32_confine.c; mapped files are os_win32_map.c's, code pages
 * os_win32_codepage.c's. */
#include "platform/os.h"
#ifdef RT_OS_WIN32
#include "platform/os_internal.h"
#include "platform/os_win32_internal.h"
#include "platform/compat.h"

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <windows.h>
#include <shellapi.h>

/* errno for the calling thread's last Win32 error. */
int os_win32_set_errno(void)
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
wchar_t *os_win32_wide(const char *s)
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

HANDLE os_win32_handle_of(int fd)
{
    return (HANDLE)_get_osfhandle(fd);
}

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    DWORD access = GENERIC_READ | GENERIC_WRITE, disposition = OPEN_EXISTING;
    int flags = _O_BINARY | _O_RDWR;
    switch (mode) {
    case RT_OS_READ:
    case RT_OS_READ_AS_WRITE:
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
    if (os_win32_hold_beneath(path, 0, &hd) != 0)
        return -1;
    HANDLE h;
    if (hd.confined) {
        h = os_win32_open_as_itself(path, access,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE,
                                    disposition, FILE_ATTRIBUTE_NORMAL);
    } else {
        wchar_t *w = os_win32_wide(path);
        h = w ? CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE,
                            NULL, disposition, FILE_ATTRIBUTE_NORMAL, NULL)
              : INVALID_HANDLE_VALUE;
        if (w && h == INVALID_HANDLE_VALUE)
            os_win32_set_errno();
        free(w);
    }
    if (h == INVALID_HANDLE_VALUE) {
        os_win32_release(&hd);
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
        refused = os_win32_set_errno();
    else if (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY)
        refused = (errno = EISDIR, -1);
    else if (hd.confined && (os_win32_refuse_reparse(h, path) != 0 ||
                             os_win32_held_still_plain(&hd, path) != 0))
        refused = -1;
    else if (mode != RT_OS_READ && hd.confined && info.nNumberOfLinks > 1)
        refused = rt_os_refuse(ENODEV,
                               "%s is a hard link (%lu links): refused "
                               "(regtool writes no file of a tree that "
                               "another name shares)",
                               path, (unsigned long)info.nNumberOfLinks);
    else if (mode == RT_OS_WRITE_TRUNC && !SetEndOfFile(h))
        refused = os_win32_set_errno();
    os_win32_release(&hd);
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
    HANDLE h = os_win32_handle_of(fd);
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
        return os_win32_set_errno();
    }
    return (long long)got;
}

int rt_os_pwrite(int fd, const void *buf, size_t len, uint64_t off)
{
    HANDLE h = os_win32_handle_of(fd);
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
            return os_win32_set_errno();
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

void rt_os_start_writeback(int fd, uint64_t off, uint64_t len)
{
    /* The cache manager writes behind on its own. */
    (void)fd;
    (void)off;
    (void)len;
}

int rt_os_fsync(int fd)
{
    HANDLE h = os_win32_handle_of(fd);
    if (h == INVALID_HANDLE_VALUE) {
        errno = EBADF;
        return -1;
    }
    /* A handle opened read-only cannot be flushed; nothing of it is
     * dirty then. */
    if (!FlushFileBuffers(h) && GetLastError() != ERROR_ACCESS_DENIED)
        return os_win32_set_errno();
    return 0;
}

int rt_os_ftruncate(int fd, uint64_t size)
{
    HANDLE h = os_win32_handle_of(fd);
    FILE_END_OF_FILE_INFO eof;
    eof.EndOfFile.QuadPart = (LONGLONG)size;
    if (!SetFileInformationByHandle(h, FileEndOfFileInfo, &eof, sizeof eof))
        return os_win32_set_errno();
    return 0;
}

int rt_os_fsize(int fd, uint64_t *size)
{
    LARGE_INTEGER li;
    if (!GetFileSizeEx(os_win32_handle_of(fd), &li))
        return os_win32_set_errno();
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
    if (!LockFileEx(os_win32_handle_of(fd), flags, 0, 1, 0, &ov)) {
        DWORD err = GetLastError();
        os_win32_set_errno();
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
    HANDLE h = os_win32_handle_of(fd);
    LARGE_INTEGER cur;
    if (!GetFileSizeEx(h, &cur))
        return os_win32_set_errno();
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

int rt_os_free_inodes(const char *path, uint64_t *inodes)
{
    /* NTFS grows its file table as files are made: no count to run out. */
    (void)path;
    (void)inodes;
    errno = ENOSYS;
    return -1;
}

int rt_os_free_space(const char *path, uint64_t *bytes)
{
    wchar_t *w = os_win32_wide(path);
    ULARGE_INTEGER avail;
    if (!w)
        return -1;
    BOOL ok = GetDiskFreeSpaceExW(w, &avail, NULL, NULL);
    free(w);
    if (!ok)
        return os_win32_set_errno();
    *bytes = avail.QuadPart;
    return 0;
}

int rt_os_folder_takes_files(const char *dir)
{
    wchar_t *w = os_win32_wide(dir);
    DWORD flags = 0;
    if (!w)
        return -1;
    /* The folder's own volume, asked by a handle for its flags alone (a
     * volume's label is not read: Wine's root "drive" has none and says
     * so on standard error). */
    HANDLE h = CreateFileW(w, FILE_READ_ATTRIBUTES,
                           FILE_SHARE_READ | FILE_SHARE_WRITE |
                               FILE_SHARE_DELETE,
                           NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS |
                               FILE_FLAG_OPEN_REPARSE_POINT,
                           NULL);
    free(w);
    BOOL ok = h != INVALID_HANDLE_VALUE &&
              GetVolumeInformationByHandleW(h, NULL, 0, NULL, NULL, &flags,
                                            NULL, 0);
    if (h != INVALID_HANDLE_VALUE)
        CloseHandle(h);
    if (ok && (flags & FILE_READ_ONLY_VOLUME))
        return rt_os_refuse(EROFS, "%s is on a read-only volume: no file "
                                   "can be saved there", dir);
    return 0;
}

int rt_os_fd_replaceable(int fd, const char *path)
{
    /* No immutable or append-only flag on Windows. */
    (void)fd;
    (void)path;
    return 0;
}

int rt_os_folder_flags_ok(const char *dir)
{
    /* Windows has no immutable or append-only flag: a read-only
     * attribute on a folder does not stop files being made in it. */
    (void)dir;
    return 0;
}

int rt_os_name_replaceable(const char *path)
{
    wchar_t *w = os_win32_wide(path);
    if (!w)
        return -1;
    DWORD a = GetFileAttributesW(w);
    free(w);
    /* MoveFileEx does not replace a read-only file. */
    if (a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_READONLY))
        return rt_os_refuse(EPERM, "%s is read-only (attrib +r): regtool "
                                   "writes a file whole, then puts it in "
                                   "place of the name, which cannot be done "
                                   "there", path);
    return 0;
}

void rt_os_sleep_ms(unsigned ms)
{
    Sleep(ms);
}

int rt_os_args_utf8(int *argc, char ***argv)
{
    int n = 0;
    LPWSTR *w = CommandLineToArgvW(GetCommandLineW(), &n);
    char **v = w && n > 0 ? calloc((size_t)n + 1, sizeof *v) : NULL;
    for (int i = 0; v && i < n; i++) {
        int len = WideCharToMultiByte(CP_UTF8, 0, w[i], -1, NULL, 0, NULL,
                                      NULL);
        if (len <= 0 || !(v[i] = malloc((size_t)len))) {
            while (i-- > 0)
                free(v[i]);
            free(v);
            v = NULL;
            break;
        }
        WideCharToMultiByte(CP_UTF8, 0, w[i], -1, v[i], len, NULL, NULL);
    }
    if (w)
        LocalFree(w);
    if (!v)
        return -1;
    *argc = n;
    *argv = v;
    return 0;
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
    if (os_win32_hold_beneath(from, 0, &hf) != 0)
        return -1;
    if (os_win32_hold_beneath(to, 0, &ht) != 0) {
        os_win32_release(&hf);
        return -1;
    }
    wchar_t *wf = os_win32_wide(from), *wt = os_win32_wide(to);
    int r = 0;
    if (!wf || !wt)
        r = -1;
    else if (!MoveFileExW(wf, wt, MOVEFILE_REPLACE_EXISTING |
                                      MOVEFILE_WRITE_THROUGH))
        r = os_win32_set_errno();
    free(wf);
    free(wt);
    os_win32_release(&hf);
    os_win32_release(&ht);
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
    if (os_win32_hold_beneath(path, 0, &hd) != 0)
        return -1;
    int r = 0;
    if (!hd.confined) {
        wchar_t *w = os_win32_wide(path);
        if (!w)
            return -1;
        BOOL ok = dir ? RemoveDirectoryW(w) : DeleteFileW(w);
        free(w);
        return ok ? 0 : os_win32_set_errno();
    }
    HANDLE h = os_win32_open_as_itself(path, DELETE | FILE_READ_ATTRIBUTES,
                                       FILE_SHARE_READ | FILE_SHARE_WRITE |
                                           FILE_SHARE_DELETE,
                                       OPEN_EXISTING, 0);
    BY_HANDLE_FILE_INFORMATION info;
    FILE_DISPOSITION_INFO gone = {TRUE};
    if (h == INVALID_HANDLE_VALUE)
        r = -1;
    else if (os_win32_refuse_reparse(h, path) != 0)
        r = -1;
    else if (!GetFileInformationByHandle(h, &info))
        r = os_win32_set_errno();
    else if (!(info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != !dir)
        r = (errno = dir ? ENOTDIR : EISDIR, -1);
    else if (!SetFileInformationByHandle(h, FileDispositionInfo, &gone,
                                         sizeof gone))
        r = os_win32_set_errno();
    if (h != INVALID_HANDLE_VALUE) {
        int err = errno;
        CloseHandle(h);
        errno = err;
    }
    os_win32_release(&hd);
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
    if (os_win32_hold_beneath(path, 0, &hd) != 0)
        return -1;
    wchar_t *w = os_win32_wide(path);
    int r = !w ? -1 : CreateDirectoryW(w, NULL) ? 0 : os_win32_set_errno();
    free(w);
    os_win32_release(&hd);
    rt_os_listings_forget();
    return r;
}

int rt_os_set_mode(int fd, unsigned mode)
{
    (void)fd;
    (void)mode;
    return 0;
}

void rt_os_keep_owner(int fd, unsigned uid, unsigned gid)
{
    (void)fd;
    (void)uid;
    (void)gid;
}

unsigned rt_os_creation_mode(unsigned mode)
{
    return mode;
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
    st->links = fi->nNumberOfLinks ? fi->nNumberOfLinks : 1;
    st->mode = fi->dwFileAttributes & FILE_ATTRIBUTE_READONLY ? 0444 : 0666;
    /* FILETIME: 100 ns units. */
    st->mtime_ns = (((uint64_t)fi->ftLastWriteTime.dwHighDateTime << 32) |
                    fi->ftLastWriteTime.dwLowDateTime) * 100u;
}

int rt_os_fstat(int fd, struct rt_os_stat *st)
{
    memset(st, 0, sizeof *st);
    HANDLE h = os_win32_handle_of(fd);
    st->mode = 0666;
    if (GetFileType(h) != FILE_TYPE_DISK) {
        st->kind = RT_OS_OTHER;   /* a pipe, a console, a device */
        st->what = "a device";
        return 0;
    }
    BY_HANDLE_FILE_INFORMATION fi;
    if (!GetFileInformationByHandle(h, &fi))
        return os_win32_set_errno();
    from_info(&fi, st);
    return 0;
}

int rt_os_is_link(const char *path)
{
    wchar_t *w = os_win32_wide(path);
    DWORD attrs = w ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;
    free(w);
    return attrs != INVALID_FILE_ATTRIBUTES &&
           (attrs & FILE_ATTRIBUTE_REPARSE_POINT);
}

int rt_os_stat(const char *path, struct rt_os_stat *st)
{
    memset(st, 0, sizeof *st);
    struct held hd;
    if (os_win32_hold_beneath(path, 0, &hd) != 0)
        return -1;
    /* Beneath a confined directory a link is not followed: it is
     * reported as what it is (OTHER). */
    DWORD flags = hd.confined ? FILE_FLAG_OPEN_REPARSE_POINT : 0;
    wchar_t *w = os_win32_wide(path);
    HANDLE h = w ? CreateFileW(w, FILE_READ_ATTRIBUTES,
                               FILE_SHARE_READ | FILE_SHARE_WRITE |
                                   FILE_SHARE_DELETE,
                               NULL, OPEN_EXISTING,
                               FILE_FLAG_BACKUP_SEMANTICS | flags, NULL)
                 : INVALID_HANDLE_VALUE;
    DWORD err = GetLastError();
    free(w);
    os_win32_release(&hd);
    if (!w)
        return -1;
    if (h == INVALID_HANDLE_VALUE) {
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND ||
            err == ERROR_INVALID_NAME) {
            st->kind = RT_OS_ABSENT;
            return 0;
        }
        SetLastError(err);
        return os_win32_set_errno();
    }
    BY_HANDLE_FILE_INFORMATION fi;
    FILE_ATTRIBUTE_TAG_INFO tag;
    int r = 0;
    if (!GetFileInformationByHandle(h, &fi))
        r = os_win32_set_errno();
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
    if (os_win32_hold_beneath(dir, 1, &hd) != 0)
        return -1;
    size_t len = strlen(dir);
    char *pattern = malloc(len + 3);
    if (!pattern) {
        os_win32_release(&hd);
        errno = ENOMEM;
        return -1;
    }
    memcpy(pattern, dir, len);
    /* A drive's root already ends in its separator. */
    if (len && (dir[len - 1] == '\\' || dir[len - 1] == '/'))
        memcpy(pattern + len, "*", 2);
    else
        memcpy(pattern + len, "\\*", 3);
    wchar_t *w = os_win32_wide(pattern);
    free(pattern);
    if (!w) {
        os_win32_release(&hd);
        return -1;
    }
    WIN32_FIND_DATAW fd;
    HANDLE h = FindFirstFileW(w, &fd);
    free(w);
    if (h == INVALID_HANDLE_VALUE) {
        os_win32_set_errno();
        os_win32_release(&hd);
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
        os_win32_set_errno();
        err = errno;
    }
    FindClose(h);
    if (!err && os_win32_held_still_plain(&hd, dir) != 0)
        err = errno;
    os_win32_release(&hd);
    return rt_os_names_finish(&l, err, names, n);
}

int rt_os_realpath(const char *path, char *buf, size_t size)
{
    if (!rt_os_exists(path)) {
        errno = ENOENT;
        return -1;
    }
    wchar_t *w = os_win32_wide(path);
    if (!w)
        return -1;
    wchar_t full[32768];
    DWORD n = GetFullPathNameW(w, 32768, full, NULL);
    free(w);
    if (n == 0 || n >= 32768)
        return os_win32_set_errno();
    /* Forward slashes, which Windows takes as well: the layers above
     * split and join paths at '/' on every system. */
    for (wchar_t *c = full; *c; c++)
        if (*c == L'\\')
            *c = L'/';
    return narrow_into(full, buf, size);
}

uint64_t rt_os_filetime_now(void)
{
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    return ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime;
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
