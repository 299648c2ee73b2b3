/* Platform layer: the POSIX implementation of os.h (Linux and the other
 * Unix systems regtool repairs Windows disks from): files, folders,
 * locks, time and signals. Paths beneath a confined directory are
 * resolved by os_posix_confine.c; mapped files are os_posix_map.c's,
 * code pages os_posix_codepage.c's. */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"
#include "platform/os_posix_internal.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <time.h>
#include <unistd.h>

/* What a file of mode M is, in words (rt_os_stat's WHAT). */
static const char *kind_name(mode_t m)
{
    return S_ISREG(m)    ? "a regular file"
           : S_ISDIR(m)  ? "a folder"
           : S_ISFIFO(m) ? "a FIFO"
           : S_ISSOCK(m) ? "a socket"
           : S_ISCHR(m)  ? "a character device"
           : S_ISBLK(m)  ? "a block device"
           : S_ISLNK(m)  ? "a symbolic link"
                         : "not a regular file";
}

/* Whether a file of a tree with several names, ST, may share its bytes
 * with a file outside the tree: Windows itself links files of its disk
 * (the component store's, perfd009.dat among them), all of one owner on
 * a disk mounted here; a host file linked into a tree has another owner
 * than the tree (a user's link to root's file), or lies on the host's
 * own file system, where any of its files may be the other name. */
static int shared_with_host(const struct stat *st, uid_t tree_owner)
{
    static dev_t host_dev;
    static int have_host_dev;
    struct stat rs;
    if (!have_host_dev && stat("/", &rs) == 0) {
        host_dev = rs.st_dev;
        have_host_dev = 1;
    }
    return st->st_uid != tree_owner || !have_host_dev ||
           st->st_dev == host_dev;
}

/* A path resolved in B refused for a write when the folder it lies in
 * was named through a read-only mount (held by the source of that view,
 * on a mount that may be written: review 40): -1 with errno EROFS and
 * the reason, B let go; else 0. */
static int refused_read_only(struct beneath *b)
{
    if (b->dir < 0 || !b->read_only)
        return 0;
    os_posix_resolved_done(b);
    return rt_os_refuse(EROFS, "Read-only file system (the folder holding "
                        "it was named through a read-only mount)");
}

/* What rt_os_open refuses once its path is resolved in B, before anything
 * is looked at: the confined folder itself (EISDIR), and for a write
 * (WRITES) one beneath a folder named read-only. -1 with B let go. */
static int refused_at_once(struct beneath *b, int writes)
{
    if (b->dir >= 0 && !*b->leaf) {
        os_posix_resolved_done(b);
        errno = EISDIR;
        return -1;
    }
    return writes ? refused_read_only(b) : 0;
}

/* Where the last RT_OS_WRITE_NEW open made its file (MADE_FD): the
 * folder it was made in, held from before the file was made, and its
 * name there, for os_posix_folder_of_made. Found again by path after
 * the open, a folder moved in between was not found, and the temporary
 * it holds was left (review 43 R43-6). */
static int made_dir = -1, made_fd = -1;
static char made_leaf[NAME_MAX + 1];

/* Keeps DIR (a folder held: duplicated) and LEAF as where FD was made. */
static void made_in(int dir, const char *leaf, int fd)
{
    if (made_dir >= 0)
        close(made_dir);
    made_dir = -1;
    if (fd < 0 || dir < 0 || strlen(leaf) > NAME_MAX)
        return;
    made_dir = fcntl(dir, F_DUPFD_CLOEXEC, 0);
    strcpy(made_leaf, leaf);
    made_fd = fd;
}

/* PATH made new outside any tree: in its folder, held first (as beneath
 * a tree), and kept (made_in). */
static int open_new_outside(const char *path, int flags)
{
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    char *folder = rt_os_folder_of(path);
    if (!folder)
        return -1;
    int dir = open(folder, O_PATH | O_DIRECTORY | O_CLOEXEC);
    int err = errno;
    free(folder);
    if (dir < 0) {
        errno = err;
        return -1;
    }
    int fd = openat(dir, name, flags, 0644);
    err = errno;
    made_in(dir, name, fd);
    close(dir);
    errno = err;
    return fd;
}

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    /* O_NONBLOCK: a FIFO or device opens at once (and is refused below)
     * instead of waiting for a writer that never comes. */
    int flags = O_CLOEXEC | O_NONBLOCK;
    switch (mode) {
    case RT_OS_READ:
    case RT_OS_READ_AS_WRITE: flags |= O_RDONLY; break;
    case RT_OS_WRITE: flags |= O_RDWR; break;
    case RT_OS_WRITE_CREATE: flags |= O_RDWR | O_CREAT; break;
    case RT_OS_WRITE_TRUNC: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
    case RT_OS_WRITE_NEW: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0 ||
        refused_at_once(&b, (flags & O_ACCMODE) != O_RDONLY) != 0)
        return -1;
    /* What stands there is looked at before it is opened: the open of a
     * device runs its driver, as root, whatever O_NONBLOCK (a watchdog
     * armed, a serial line's DTR raised: review 38 F5). Beneath a tree a
     * link is left to the open, which refuses it naming it. */
    struct stat pre;
    int have_pre = (b.dir < 0 ? stat(path, &pre)
                              : fstatat(b.dir, b.leaf, &pre,
                                        AT_SYMLINK_NOFOLLOW)) == 0;
    if (have_pre && !S_ISREG(pre.st_mode) && !S_ISDIR(pre.st_mode) &&
        !S_ISLNK(pre.st_mode)) {
        rt_os_refuse(ENODEV, "%s is %s, not a regular file: refused", path,
                     kind_name(pre.st_mode));
        os_posix_resolved_done(&b);
        return -1;
    }
    int fd;
    if (b.dir < 0 && mode == RT_OS_WRITE_NEW) {
        fd = open_new_outside(path, flags);
    } else if (b.dir < 0) {
        fd = open(path, flags, 0644);
    } else {
        /* O_TRUNC waits until the file is known to be a regular file of
         * one name: a hard link's other name must not lose its bytes. */
        fd = os_posix_open_beneath(b.dir, b.leaf, flags & ~O_TRUNC, 0644);
        if (fd < 0)
            os_posix_walk_failed(b.dir, b.leaf, path, strlen(path), errno);
        else if (mode == RT_OS_WRITE_NEW)
            made_in(b.dir, b.leaf, fd);
    }
    struct stat st;
    /* A socket (ENXIO) or a device without a driver (ENXIO, ENODEV) cannot
     * be opened at all: refused in the words a FIFO, which opens, is
     * refused in below, not taken for a file that is not there. */
    if (fd < 0 && (errno == ENXIO || errno == ENODEV || errno == EOPNOTSUPP)) {
        int err = errno;
        int r = b.dir < 0 ? stat(path, &st)
                          : fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW);
        if (r == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
            rt_os_refuse(ENODEV, "%s is %s, not a regular file: refused",
                         path, kind_name(st.st_mode));
        else
            errno = err;
    }
    if (fd >= 0 && fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        fd = -1;
        errno = err;
    }
    if (fd >= 0) {
        int refused = 0;
        /* Another file put there since it was looked at: refused, not
         * taken for the one checked. */
        if (have_pre && S_ISREG(pre.st_mode) &&
            (pre.st_dev != st.st_dev || pre.st_ino != st.st_ino)) {
            rt_os_refuse(ENODEV, "%s changed while it was opened: refused",
                         path);
            refused = 1;
        } else if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            refused = 1;
        } else if (!S_ISREG(st.st_mode)) {
            rt_os_refuse(ENODEV, "%s is %s, not a regular file: refused",
                         path, kind_name(st.st_mode));
            refused = 1;
        } else if (b.dir >= 0 && mode != RT_OS_READ && st.st_nlink > 1) {
            rt_os_refuse(ENODEV,
                         "%s is a hard link (%lu links): refused (regtool "
                         "writes no file of a tree that another name "
                         "shares)",
                         path, (unsigned long)st.st_nlink);
            refused = 1;
        } else if (b.dir >= 0 && !b.input && st.st_nlink > 1 &&
                   shared_with_host(&st, b.root_uid)) {
            rt_os_refuse(ENODEV,
                         "%s is a hard link (%lu links) %s: refused (its "
                         "other name may be any file there; a copy of the "
                         "tree without hard links is read)",
                         path, (unsigned long)st.st_nlink,
                         st.st_uid != b.root_uid
                             ? "whose owner is not the tree's"
                             : "on the file system of /");
            refused = 1;
        } else if (b.dir >= 0 && (flags & O_TRUNC) && ftruncate(fd, 0) != 0) {
            refused = 1;
        }
        if (refused) {
            int err = errno;
            close(fd);
            fd = -1;
            errno = err;
        } else {
            /* Regular files ignore O_NONBLOCK; cleared all the same. */
            (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        }
    }
    os_posix_resolved_done(&b);
    /* A file it may have made leaves every kept listing old. */
    if (flags & O_CREAT)
        rt_os_listings_forget();
    return fd;
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

void rt_os_start_writeback(int fd, uint64_t off, uint64_t len)
{
#ifdef __linux__
    (void)sync_file_range(fd, (off_t)off, (off_t)len, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    (void)off;
    (void)len;
#endif
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

/* A lock taken: another process's changes, made before, are seen from
 * now on, so no listing kept from before is used (rt_os_path_ci). */
int rt_os_lock(int fd)
{
    while (flock(fd, LOCK_EX) != 0) {
        if (errno != EINTR)
            return -1;
    }
    rt_os_listings_forget();
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
    rt_os_listings_forget();
    return 0;
}

int rt_os_reserve(int fd, uint64_t size)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
#ifdef __linux__
    /* Blocks reserved past the end, the size unchanged (FALLOC_FL_KEEP_SIZE
     * is 1); a file system without fallocate is checked below instead.
     * The modification time stays: no byte changed. */
    if (fallocate(fd, 1, 0, (off_t)size) == 0) {
        struct timespec times[2] = {st.st_atim, st.st_mtim};
        (void)futimens(fd, times);
        return 0;
    }
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

int rt_os_unreserve(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0)
        return -1;
    /* Cutting a file to its own size frees the blocks reserved past its
     * end (tmpfs, ext4); the times it sets are put back. */
    if (ftruncate(fd, st.st_size) != 0)
        return -1;
    struct timespec times[2] = {st.st_atim, st.st_mtim};
    return futimens(fd, times);
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

/* Opens directory PATH for reading its entries or syncing it. */
static int open_dir(const char *path)
{
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0)
        return -1;
    if (b.dir < 0)
        return open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    /* The confined directory itself is opened anew, not duplicated: a
     * duplicate shares the directory's read position with every other. */
    int fd = os_posix_open_beneath(b.dir, *b.leaf ? b.leaf : ".",
                                   O_RDONLY | O_DIRECTORY | O_NONBLOCK |
                                       O_CLOEXEC,
                                   0);
    if (fd < 0)
        os_posix_walk_failed(b.dir, b.leaf, path, strlen(path), errno);
    os_posix_resolved_done(&b);
    return fd;
}

/* Of directory PATH's file system, opened as open_dir opens it: beneath
 * a confined tree, a link planted as PATH is refused, not followed to
 * another file system (whose free space would be told, or which could
 * hang). */
static int dir_statvfs(const char *path, struct statvfs *vs)
{
    int fd = open_dir(path);
    if (fd < 0)
        return -1;
    int r = fstatvfs(fd, vs);
    int err = errno;
    close(fd);
    errno = err;
    return r != 0 ? -1 : 0;
}

int rt_os_free_space(const char *path, uint64_t *bytes)
{
    struct statvfs vs;
    if (dir_statvfs(path, &vs) != 0)
        return -1;
    *bytes = (uint64_t)vs.f_bavail * vs.f_frsize;
    return 0;
}

int rt_os_free_inodes(const char *path, uint64_t *inodes)
{
    struct statvfs vs;
    if (dir_statvfs(path, &vs) != 0)
        return -1;
    /* A file system without a fixed count of them (btrfs) says none. */
    if (vs.f_files == 0) {
        errno = ENOSYS;
        return -1;
    }
    *inodes = (uint64_t)vs.f_favail;
    return 0;
}

/* What the kernel says of NAME at DIRFD (FLAGS as statx's) that forbids
 * putting a file in its place: FD_ bits, 0 where nothing does or the
 * kernel does not say. */
enum { FD_IMMUTABLE = 1, FD_APPEND = 2, FD_MOUNT_ROOT = 4 };
static unsigned fd_attributes(int dirfd, const char *name, int flags)
{
    unsigned out = 0;
#if defined(__linux__) && defined(STATX_ATTR_IMMUTABLE)
    struct statx sx;
    if (statx(dirfd, name, flags, STATX_TYPE, &sx) != 0)
        return 0;
    uint64_t on = sx.stx_attributes & sx.stx_attributes_mask;
    out |= on & STATX_ATTR_IMMUTABLE ? FD_IMMUTABLE : 0;
    out |= on & STATX_ATTR_APPEND ? FD_APPEND : 0;
#ifdef STATX_ATTR_MOUNT_ROOT
    out |= on & STATX_ATTR_MOUNT_ROOT ? FD_MOUNT_ROOT : 0;
#endif
#else
    (void)dirfd;
    (void)name;
    (void)flags;
#endif
    return out;
}

int rt_os_folder_takes_files(const char *dir)
{
    /* The kernel's own: proc, sysfs. */
    enum { PROC_FS = 0x9fa0, SYS_FS = 0x62656572 };
    int fd = open_dir(dir);
    if (fd < 0)
        return -1;
    struct statvfs vs;
    int err = 0;
    const char *why = NULL;
#ifdef __linux__
    struct statfs fs;
    int kernel = fstatfs(fd, &fs) == 0 &&
                 (fs.f_type == PROC_FS || fs.f_type == SYS_FS);
#else
    int kernel = 0;
#endif
    if (fstatvfs(fd, &vs) == 0 && (vs.f_flag & ST_RDONLY)) {
        err = EROFS;
        why = "is on a read-only file system";
    } else if (kernel) {
        err = EACCES;
        why = "is on one of the kernel's file systems (proc, sysfs)";
    } else if (fd_attributes(fd, "", AT_EMPTY_PATH) &
               (FD_IMMUTABLE | FD_APPEND)) {
        /* Root may write it, but no entry of it may be renamed or removed
         * (review 46 R46-2: a patch refused only after the commit). */
        err = EPERM;
        why = "is immutable or append-only (chattr +i, +a)";
    } else if (faccessat(fd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
        err = errno;
        why = "cannot be written by this user";
    }
    close(fd);
    if (!err)
        return 0;
    return rt_os_refuse(err, "%s %s: no file can be saved there", dir, why);
}

int rt_os_folder_flags_ok(const char *dir)
{
    int fd = open_dir(dir);
    if (fd < 0)
        return -1;
    unsigned a = fd_attributes(fd, "", AT_EMPTY_PATH);
    close(fd);
    if (a & (FD_IMMUTABLE | FD_APPEND))
        return rt_os_refuse(EPERM, "%s is immutable or append-only (chattr "
                                   "+i, +a): no file can be saved there",
                            dir);
    return 0;
}

int rt_os_fd_replaceable(int fd, const char *path)
{
    if (fd_attributes(fd, "", AT_EMPTY_PATH) & (FD_IMMUTABLE | FD_APPEND))
        return rt_os_refuse(EPERM, "%s is immutable or append-only (chattr "
                                   "+i, +a): regtool cannot change it",
                            path);
    return 0;
}

int rt_os_name_replaceable(const char *path)
{
    /* Beneath a confined tree, asked of the name in its folder opened
     * there: a link the tree planted on the way is refused, never
     * followed (review 54 R54-3: one into an automount that never
     * answers hung a writer past SIGTERM). */
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0)
        return -1;
#ifndef AT_NO_AUTOMOUNT
#define AT_NO_AUTOMOUNT 0
#endif
    unsigned a = b.dir < 0 ? fd_attributes(AT_FDCWD, path,
                                           AT_SYMLINK_NOFOLLOW |
                                               AT_NO_AUTOMOUNT)
                 : *b.leaf ? fd_attributes(b.dir, b.leaf,
                                           AT_SYMLINK_NOFOLLOW |
                                               AT_NO_AUTOMOUNT)
                           : fd_attributes(b.dir, "", AT_EMPTY_PATH);
    os_posix_resolved_done(&b);
    if (a & (FD_IMMUTABLE | FD_APPEND))
        return rt_os_refuse(EPERM, "%s is immutable or append-only (chattr "
                                   "+i, +a): regtool writes a file whole, "
                                   "then puts it in place of the name, "
                                   "which cannot be done there", path);
    if (a & FD_MOUNT_ROOT)
        return rt_os_refuse(EBUSY, "%s is a mount point (a file mounted "
                                   "there): regtool writes a file whole, "
                                   "then puts it in place of the name, "
                                   "which cannot be done there", path);
    return 0;
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
    int fd = open_dir(dir);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int err = errno;
    close(fd);
    errno = err;
    return r;
}

int rt_os_args_utf8(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
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
    struct beneath bf, bt;
    if (os_posix_resolve(from, &bf) != 0)
        return -1;
    if (os_posix_resolve(to, &bt) != 0) {
        os_posix_resolved_done(&bf);
        return -1;
    }
    if (refused_read_only(&bf) != 0) {
        os_posix_resolved_done(&bt);
        return -1;
    }
    if (refused_read_only(&bt) != 0) {
        os_posix_resolved_done(&bf);
        return -1;
    }
    int r;
    if (bf.dir < 0 && bt.dir < 0)
        r = rename(from, to);
    else if ((bf.dir >= 0 && !*bf.leaf) || (bt.dir >= 0 && !*bt.leaf))
        r = (errno = EBUSY, -1);
    else
        r = renameat(bf.dir < 0 ? AT_FDCWD : bf.dir, bf.dir < 0 ? from : bf.leaf,
                     bt.dir < 0 ? AT_FDCWD : bt.dir, bt.dir < 0 ? to : bt.leaf);
    os_posix_resolved_done(&bf);
    os_posix_resolved_done(&bt);
    rt_os_listings_forget();
    return r;
}

/* unlinkat(FLAGS) of PATH; a link beneath a confined directory is
 * refused, not removed, as anything else there that is not what the
 * caller takes it for. */
static int remove_path(const char *path, int flags)
{
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0 || refused_read_only(&b) != 0)
        return -1;
    int r;
    if (b.dir < 0) {
        r = flags ? rmdir(path) : unlink(path);
        rt_os_listings_forget();
        return r;
    }
    struct stat st;
    if (!*b.leaf)
        r = (errno = EBUSY, -1);
    else if (fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
        r = -1;
    else if (S_ISLNK(st.st_mode))
        r = os_posix_walk_failed(b.dir, b.leaf, path, strlen(path), ELOOP);
    else
        r = unlinkat(b.dir, b.leaf, flags);
    os_posix_resolved_done(&b);
    rt_os_listings_forget();
    return r;
}

int rt_os_unlink(const char *path)
{
    return remove_path(path, 0);
}

int rt_os_rmdir(const char *path)
{
    return remove_path(path, AT_REMOVEDIR);
}

int rt_os_mkdir(const char *path)
{
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0 || refused_read_only(&b) != 0)
        return -1;
    int r = b.dir < 0  ? mkdir(path, 0755)
            : *b.leaf ? mkdirat(b.dir, b.leaf, 0755)
                      : (errno = EEXIST, -1);
    os_posix_resolved_done(&b);
    rt_os_listings_forget();
    return r;
}

/* What rt_os_stat and rt_os_fstat report of ST. */
static void from_stat(const struct stat *st, struct rt_os_stat *out)
{
    out->kind = S_ISREG(st->st_mode)   ? RT_OS_FILE
                : S_ISDIR(st->st_mode) ? RT_OS_DIR
                                       : RT_OS_OTHER;
    out->size = (uint64_t)st->st_size;
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->links = (uint64_t)st->st_nlink;
    out->mode = (unsigned)st->st_mode & 07777;
    out->uid = (unsigned)st->st_uid;
    out->gid = (unsigned)st->st_gid;
    out->mtime_ns = (uint64_t)st->st_mtim.tv_sec * 1000000000u +
                    (uint64_t)st->st_mtim.tv_nsec;
    out->what = kind_name(st->st_mode);
}

int rt_os_stat(const char *path, struct rt_os_stat *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    struct beneath b;
    int r;
    if (os_posix_resolve(path, &b) != 0)
        r = -1;
    else if (b.dir < 0)
        r = stat(path, &st);
    else if (!*b.leaf)
        r = fstat(b.dir, &st);
    else
        /* A link is not followed: it is reported as what it is (OTHER). */
        r = fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW);
    os_posix_resolved_done(&b);
    if (r != 0) {
        if (errno == ENOENT || errno == ENOTDIR) {
            out->kind = RT_OS_ABSENT;
            return 0;
        }
        return -1;
    }
    from_stat(&st, out);
    return 0;
}

int rt_os_is_link(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISLNK(st.st_mode);
}

int rt_os_fstat(int fd, struct rt_os_stat *out)
{
    struct stat st;
    memset(out, 0, sizeof *out);
    if (fstat(fd, &st) != 0)
        return -1;
    from_stat(&st, out);
    return 0;
}

int rt_os_list_dir(const char *dir, char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    int fd = open_dir(dir);
    if (fd < 0)
        return -1;
    DIR *d = fdopendir(fd);
    if (!d) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
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
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0)
        return -1;
    if (b.dir >= 0) {
        /* Beneath a confined directory the path is canonical once every
         * component is known to be no link ("." and ".." are refused)
         * and it is taken from the directory's canonical path (a relative
         * one would be relative still): only repeated separators are to
         * be dropped. */
        struct stat st;
        int r = *b.leaf ? fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW)
                        : fstat(b.dir, &st);
        if (r == 0 && S_ISLNK(st.st_mode))
            r = os_posix_walk_failed(b.dir, b.leaf, path, strlen(path), ELOOP);
        os_posix_resolved_done(&b);
        if (r != 0)
            return -1;
        size_t o = 0;
        for (const char *p = b.canon; *p; p++) {
            if (*p == '/' && (p[1] == '/' || (!p[1] && o > 0)))
                continue;
            if (o + 1 >= size) {
                errno = ENAMETOOLONG;
                return -1;
            }
            buf[o++] = *p;
        }
        buf[o] = '\0';
        return 0;
    }
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
    return fchmod(fd, (mode_t)(mode & 0777));
}

void rt_os_keep_owner(int fd, unsigned uid, unsigned gid)
{
    /* Root gives both; another user only a group it is in (the kernel
     * refuses the rest, and the file stays its maker's). */
    if (geteuid() == 0 && fchown(fd, (uid_t)uid, (gid_t)gid) == 0)
        return;
    if (fchown(fd, (uid_t)-1, (gid_t)gid) != 0)
        return;     /* not a group of ours: the file stays ours */
}

static mode_t process_umask;
static pthread_once_t umask_once = PTHREAD_ONCE_INIT;

/* umask can only be read by setting it: once, before any file of ours
 * is created through a mode of our own. */
static void read_umask(void)
{
    process_umask = umask(022);
    umask(process_umask);
}

unsigned rt_os_creation_mode(unsigned mode)
{
    pthread_once(&umask_once, read_umask);
    return mode & ~(unsigned)process_umask & 0777;
}

void os_posix_catch(void (*handler)(int))
{
    /* Without SA_RESTART: glibc's signal() restarts an interrupted
     * open() of a FIFO, which then waits for a writer forever. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    /* A terminal or ssh session closed under a save: the same end, its
     * temporary removed, not a whole copy left beside the output. */
    sigaction(SIGHUP, &sa, NULL);
}

int os_posix_folder_of_made(const char *path, int fd, int *dir, char *leaf)
{
    struct stat made, there;
    /* Where rt_os_open made it, held since: wherever that folder is now. */
    if (made_dir >= 0 && made_fd == fd && fstat(fd, &made) == 0 &&
        fstatat(made_dir, made_leaf, &there, AT_SYMLINK_NOFOLLOW) == 0 &&
        made.st_dev == there.st_dev && made.st_ino == there.st_ino) {
        *dir = made_dir;
        made_dir = -1;
        strcpy(leaf, made_leaf);
        return 0;
    }
    struct beneath b;
    if (os_posix_resolve(path, &b) != 0)
        return -1;
    const char *name;
    int d;
    if (b.dir >= 0) {
        d = b.dir;          /* kept: os_posix_resolved_done not called */
        name = b.leaf;
    } else {
        const char *slash = strrchr(path, '/');
        name = slash ? slash + 1 : path;
        /* Its folder: "." for a bare name, "/" for one in the root. */
        size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
        if (n >= sizeof b.buf)
            return -1;
        if (slash)
            memcpy(b.buf, path, n);
        else
            b.buf[n++] = '.';
        b.buf[n] = '\0';
        d = open(b.buf, O_PATH | O_DIRECTORY | O_CLOEXEC);
    }
    if (d < 0 || strlen(name) > NAME_MAX || fstat(fd, &made) != 0 ||
        fstatat(d, name, &there, AT_SYMLINK_NOFOLLOW) != 0 ||
        made.st_dev != there.st_dev || made.st_ino != there.st_ino) {
        if (d >= 0)
            close(d);
        return -1;
    }
    strcpy(leaf, name);
    *dir = d;
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
#endif
