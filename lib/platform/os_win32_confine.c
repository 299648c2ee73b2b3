/* Platform layer: confinement on Windows (os.h, rt_os_confine). Win32
 * has no openat with O_NOFOLLOW. Beneath a confined directory each
 * folder on a path is opened as itself (FILE_FLAG_OPEN_REPARSE_POINT:
 * a symbolic link, junction or mount point is opened, not followed) and
 * checked on that handle; the handle is held, without FILE_SHARE_DELETE,
 * until the call on the path is done, so no folder checked can be
 * renamed, removed and replaced by a junction meanwhile (one emptied
 * and turned into a junction in place is caught by checking the held
 * handles again once the file is open). The file or folder the call
 * acts on is opened the same way and checked on the handle that is then
 * used; "." and ".." are refused by name. os_win32.c's calls on paths
 * go through it (platform/os_win32_internal.h). */
#include "platform/os.h"
#ifdef RT_OS_WIN32
#include "platform/os_internal.h"
#include "platform/os_win32_internal.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <windows.h>


struct confined {
    char *path;
    size_t len;
    unsigned refs;
};
/* A list that grows: every store of a fleet's audit is held at once for
 * its --textfile. */
static struct confined *roots;
static size_t n_roots;
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
    /* A folder beneath a directory already confined (confined again for
     * one file's read) is walked from it first, each folder held and
     * refused when a reparse point, so that the real path taken is not
     * one a junction planted there leads out of the tree to. */
    struct held hd;
    if (os_win32_hold_beneath(dir, 1, &hd) != 0)
        return -1;
    int real = rt_os_realpath(dir, buf, sizeof buf);
    os_win32_release(&hd);
    if (real != 0)
        return -1;
    AcquireSRWLockExclusive(&roots_lock);
    struct confined *slot = NULL;
    for (size_t i = 0; i < n_roots; i++) {
        if (roots[i].path && !strcasecmp(roots[i].path, buf)) {
            slot = &roots[i];
            break;
        }
        if (!roots[i].path && !slot)
            slot = &roots[i];
    }
    size_t had = n_roots;
    struct confined *grown =
        slot ? NULL : rt_os_grow_table(roots, &n_roots, sizeof *roots);
    if (grown) {
        roots = grown;
        slot = &roots[had];
    }
    int r = 0;
    if (!slot)
        r = (errno = ENOMEM, -1);
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

/* A file with several names is read here wherever it lies: the POSIX
 * build's rule (its owner, the file system of /) has no counterpart yet,
 * as docs/threat-model.md says. */
/* A mounted disk's Windows folder is not told apart from the live
 * system's own: no disk is held. */
int rt_os_hold_disk_of(const char *path, char **held, char **canon)
{
    (void)path;
    *held = NULL;
    if (canon)
        *canon = NULL;
    return 0;
}

void rt_os_release_disk(char *held)
{
    free(held);
}

int rt_os_confine_input(const char *dir, char **canonical)
{
    return rt_os_confine(dir, canonical);
}

int rt_os_confine_on_disk(const char *dir, char **canonical)
{
    return rt_os_confine(dir, canonical);
}

void rt_os_unconfine(const char *canonical)
{
    if (!canonical)
        return;
    int held = 0;
    AcquireSRWLockExclusive(&roots_lock);
    for (size_t i = 0; i < n_roots; i++) {
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
    for (size_t i = 0; i < n_roots; i++) {
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


void os_win32_release(struct held *hd)
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
int os_win32_refuse_reparse(HANDLE h, const char *path)
{
    FILE_ATTRIBUTE_TAG_INFO tag;
    if (!GetFileInformationByHandleEx(h, FileAttributeTagInfo, &tag,
                                      sizeof tag))
        return os_win32_set_errno();
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
HANDLE os_win32_open_as_itself(const char *path, DWORD access, DWORD share,
                               DWORD disposition, DWORD flags)
{
    wchar_t *w = os_win32_wide(path);
    if (!w)
        return INVALID_HANDLE_VALUE;
    HANDLE h = CreateFileW(w, access, share, NULL, disposition,
                           flags | FILE_FLAG_OPEN_REPARSE_POINT |
                               FILE_FLAG_BACKUP_SEMANTICS,
                           NULL);
    free(w);
    if (h == INVALID_HANDLE_VALUE)
        os_win32_set_errno();
    return h;
}

/* -1 with a refusal naming PATH when a folder held for it has become a
 * reparse point since it was checked: a held folder cannot be renamed
 * or removed, but one emptied meanwhile can be turned into a junction
 * in place, and the path, opened by name, would have gone through it. */
int os_win32_held_still_plain(const struct held *hd, const char *path)
{
    for (size_t i = 0; i < hd->n; i++) {
        FILE_ATTRIBUTE_TAG_INFO tag;
        if (!GetFileInformationByHandleEx(hd->h[i], FileAttributeTagInfo,
                                          &tag, sizeof tag))
            return os_win32_set_errno();
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
int os_win32_hold_beneath(const char *path, int whole, struct held *hd)
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
        /* A path spelled beneath the tree is built on its canonical
         * form (from names read in it, or by the user from there): a
         * "." is no folder's name, and none the tree's names may make. */
        if (len == 1 && buf[i] == '.') {
            r = rt_os_refuse(EXDEV,
                             "%s: the name \".\" in it is refused beneath "
                             "the tree regtool works in, where no name it "
                             "reads may be a path step (name the path "
                             "without it)",
                             path);
            break;
        }
        if (len == 2 && buf[i] == '.' && buf[i + 1] == '.') {
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
        HANDLE h = os_win32_open_as_itself(buf, FILE_READ_ATTRIBUTES,
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
            r = os_win32_refuse_reparse(h, buf);
        }
        buf[end] = c;
        i = end;
    }
    free(buf);
    if (r != 0)
        os_win32_release(hd);
    return r;
}
#endif
