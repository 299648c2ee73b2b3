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
#include <pthread.h>
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
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

/* --- confinement ----------------------------------------------------------- */

/* The confined directories: few (a store or two), so a list. */
struct confined {
    char *path;
    size_t len;
    int fd;
    unsigned refs;
};
static struct confined roots[16];
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;

int rt_os_confine(const char *dir, char **canonical)
{
    if (canonical)
        *canonical = NULL;
    char *real = realpath(dir, NULL);
    if (!real)
        return -1;
    int fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        free(real);
        errno = err;
        return -1;
    }
    pthread_mutex_lock(&roots_lock);
    struct confined *slot = NULL;
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        if (roots[i].path && !strcmp(roots[i].path, real)) {
            slot = &roots[i];
            break;
        }
        if (!roots[i].path && !slot)
            slot = &roots[i];
    }
    int r = 0;
    struct stat was, now;
    if (!slot) {
        errno = EMFILE;
        r = -1;
    } else if (slot->path) {
        /* The same path, confined again: by now it may name another
         * directory (the first removed, a new one made), which is what
         * the path means from now on. */
        slot->refs++;
        if (fstat(slot->fd, &was) == 0 && fstat(fd, &now) == 0 &&
            (was.st_dev != now.st_dev || was.st_ino != now.st_ino)) {
            int old = slot->fd;
            slot->fd = fd;
            fd = old;
        }
        close(fd);
    } else {
        slot->path = strdup(real);
        if (!slot->path) {
            errno = ENOMEM;
            r = -1;
        } else {
            slot->len = strlen(real);
            slot->fd = fd;
            slot->refs = 1;
        }
    }
    pthread_mutex_unlock(&roots_lock);
    if (r != 0) {
        int err = errno;
        close(fd);
        errno = err;
    } else {
        rt_os_listings_scope(+1);
    }
    if (r == 0 && canonical)
        *canonical = real;
    else
        free(real);
    return r;
}

void rt_os_unconfine(const char *canonical)
{
    if (!canonical)
        return;
    int held = 0;
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        struct confined *c = &roots[i];
        if (c->path && !strcmp(c->path, canonical)) {
            held = 1;
            if (--c->refs == 0) {
                close(c->fd);
                free(c->path);
                memset(c, 0, sizeof *c);
            }
            break;
        }
    }
    pthread_mutex_unlock(&roots_lock);
    if (held)
        rt_os_listings_scope(-1);
}

/* A new descriptor of the outermost confined directory PATH lies beneath
 * (every component past it is then checked), with the part of PATH after
 * it in *REL and the directory's path in ROOT; -2 when PATH lies beneath
 * none, -1 with errno. */
static int root_of(const char *path, const char **rel, char *root,
                   size_t size)
{
    int fd = -2;
    size_t best = 0;
    rt_os_refusal_clear();
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++) {
        const char *r;
        if (roots[i].path && (fd == -2 || roots[i].len < best) &&
            rt_os_beneath(roots[i].path, roots[i].len, path, &r)) {
            if (fd >= 0)
                close(fd);
            fd = fcntl(roots[i].fd, F_DUPFD_CLOEXEC, 0);
            best = roots[i].len;
            *rel = r;
            snprintf(root, size, "%s", roots[i].path);
            if (fd < 0)
                break;
        }
    }
    pthread_mutex_unlock(&roots_lock);
    return fd;
}

int rt_os_is_confined(const char *path)
{
    const char *rel;
    char root[PATH_MAX];
    int fd = root_of(path, &rel, root, sizeof root);
    if (fd >= 0)
        close(fd);
    return fd != -2;
}

/* Why opening COMP (the path PATH up to it) beneath DIRFD failed with ERR:
 * a link or a mount point is refused by name; anything else keeps its
 * errno. */
static int walk_failed(int dirfd, const char *comp, const char *path,
                       size_t upto, int err)
{
    struct stat st;
    if ((err == ELOOP || err == ENOTDIR || err == EMLINK) &&
        fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
        S_ISLNK(st.st_mode))
        return rt_os_refuse(ELOOP,
                            "%.*s is a symbolic link, which regtool does "
                            "not follow inside a tree it did not write",
                            (int)upto, path);
    if (err == EXDEV)
        return rt_os_refuse(EXDEV,
                            "%.*s is a mount point: refused (regtool does "
                            "not cross into another mount inside a tree it "
                            "did not write)",
                            (int)upto, path);
    errno = err;
    return -1;
}

/* 1 when FD and DIRFD (the directory FD was opened from) lie on one
 * mount, 0 when FD is another mount's (a file system, or a folder or
 * file bound there), -1 with errno. st_dev tells file systems apart; a
 * bind mount of a folder of the same file system shares its st_dev, and
 * only the mount id (statx, Linux 5.8) tells it apart. */
static int same_mount(int dirfd, int fd)
{
    struct stat a, b;
    if (fstat(dirfd, &a) != 0 || fstat(fd, &b) != 0)
        return -1;
    if (a.st_dev != b.st_dev)
        return 0;
#if defined(__linux__) && defined(STATX_MNT_ID)
    struct statx sa, sb;
    if (statx(dirfd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sa) == 0 &&
        statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sb) == 0 &&
        (sa.stx_mask & sb.stx_mask & STATX_MNT_ID) &&
        sa.stx_mnt_id != sb.stx_mnt_id)
        return 0;
#endif
    return 1;
}

/* 1 until a kernel says it has no openat2 (ENOSYS: before Linux 5.6, or
 * a sandbox that filters it so); then every open walks by components. */
static volatile int use_openat2 = 1;

void rt_os_walk_by_components(int on)
{
    use_openat2 = !on;
}

/* NAME (one component: no '/', no "." or "..") opened beneath DIRFD with
 * FLAGS (O_NOFOLLOW added) and MODE, refusing what leads elsewhere: a
 * symbolic link (ELOOP) or a mount point (EXDEV), which a tree on a disk
 * cannot make but the machine regtool runs on can (a host folder bound
 * into a container's copy of the tree). With openat2 the kernel refuses
 * both as it resolves NAME (RESOLVE_NO_XDEV); without it, O_NOFOLLOW
 * refuses the link and the opened file's mount is compared with DIRFD's.
 * -1 with errno on failure, the reason not yet recorded (walk_failed). */
static int open_beneath(int dirfd, const char *name, int flags, mode_t mode)
{
    flags |= O_NOFOLLOW;
#if defined(__linux__) && defined(SYS_openat2)
    if (use_openat2) {
        struct open_how how;
        memset(&how, 0, sizeof how);
        how.flags = (uint64_t)flags;
        how.mode = (flags & O_CREAT) ? (uint64_t)mode : 0;
        how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
                      RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV;
        long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof how);
        /* EPERM: some container sandboxes answer a system call they do
         * not know so; the walk below then decides (a file that may not
         * be opened gives EPERM there too). */
        if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
            return (int)fd;
        if (errno == ENOSYS)
            use_openat2 = 0;
    }
#endif
    int fd = openat(dirfd, name, flags, mode);
    if (fd < 0)
        return -1;
    int same = same_mount(dirfd, fd);
    if (same != 1) {
        int err = same < 0 ? errno : EXDEV;
        /* Nothing was created on the other mount: O_CREAT there opened
         * the mount's root, which exists. */
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

/* A path resolved beneath a confined directory: the directory holding its
 * last component (a descriptor) and that component's name. */
struct beneath {
    int dir;           /* -1: the path is not confined */
    const char *leaf;  /* "" when the path is the confined directory */
    char buf[PATH_MAX];
};

/* Resolves PATH: B->dir -1 when it is not confined (0 returned; the
 * caller uses PATH as it is), else the open parent; -1 with errno when a
 * component is a link, "." or "..", or cannot be opened. */
static int resolve(const char *path, struct beneath *b)
{
    const char *rel;
    char root[PATH_MAX];
    b->dir = -1;
    b->leaf = "";
    int fd = root_of(path, &rel, root, sizeof root);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    if (strlen(rel) >= sizeof b->buf) {
        close(fd);
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(b->buf, rel);
    size_t base = (size_t)(rel - path);
    char *p = b->buf;
    for (;;) {
        while (*p == '/')
            p++;
        char *end = strchr(p, '/');
        char *next = end;
        while (next && *next == '/')
            next++;
        if (end)
            *end = '\0';
        if (!strcmp(p, ".") || !strcmp(p, "..")) {
            close(fd);
            return rt_os_refuse(EXDEV,
                                "%s: the name \"%s\" in it would lead out of "
                                "%s, the tree regtool works in",
                                path, p, root);
        }
        if (!next || !*next) {
            b->dir = fd;
            b->leaf = p;
            return 0;
        }
        int nfd = open_beneath(fd, p, O_RDONLY | O_DIRECTORY | O_NONBLOCK |
                                          O_CLOEXEC, 0);
        if (nfd < 0) {
            int err = errno;
            walk_failed(fd, p, path, base + (size_t)(p - b->buf) + strlen(p),
                        err);
            err = errno;
            close(fd);
            errno = err;
            return -1;
        }
        close(fd);
        fd = nfd;
        p = next;
    }
}

static void resolved_done(struct beneath *b)
{
    if (b->dir >= 0) {
        int err = errno;
        close(b->dir);
        errno = err;
        b->dir = -1;
    }
}

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

int rt_os_open(const char *path, enum rt_os_open_mode mode)
{
    /* O_NONBLOCK: a FIFO or device opens at once (and is refused below)
     * instead of waiting for a writer that never comes. */
    int flags = O_CLOEXEC | O_NONBLOCK;
    switch (mode) {
    case RT_OS_READ: flags |= O_RDONLY; break;
    case RT_OS_WRITE: flags |= O_RDWR; break;
    case RT_OS_WRITE_CREATE: flags |= O_RDWR | O_CREAT; break;
    case RT_OS_WRITE_TRUNC: flags |= O_RDWR | O_CREAT | O_TRUNC; break;
    case RT_OS_WRITE_NEW: flags |= O_RDWR | O_CREAT | O_EXCL; break;
    }
    struct beneath b;
    if (resolve(path, &b) != 0)
        return -1;
    int fd;
    if (b.dir < 0) {
        fd = open(path, flags, 0644);
    } else {
        if (!*b.leaf) {
            resolved_done(&b);
            errno = EISDIR;
            return -1;
        }
        /* O_TRUNC waits until the file is known to be a regular file of
         * one name: a hard link's other name must not lose its bytes. */
        fd = open_beneath(b.dir, b.leaf, flags & ~O_TRUNC, 0644);
        if (fd < 0)
            walk_failed(b.dir, b.leaf, path, strlen(path), errno);
    }
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) != 0) {
        int err = errno;
        close(fd);
        fd = -1;
        errno = err;
    }
    if (fd >= 0) {
        int refused = 0;
        if (S_ISDIR(st.st_mode)) {
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
    resolved_done(&b);
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

/* Opens directory PATH for reading its entries or syncing it. */
static int open_dir(const char *path)
{
    struct beneath b;
    if (resolve(path, &b) != 0)
        return -1;
    if (b.dir < 0)
        return open(path, O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC);
    /* The confined directory itself is opened anew, not duplicated: a
     * duplicate shares the directory's read position with every other. */
    int fd = open_beneath(b.dir, *b.leaf ? b.leaf : ".",
                          O_RDONLY | O_DIRECTORY | O_NONBLOCK | O_CLOEXEC, 0);
    if (fd < 0)
        walk_failed(b.dir, b.leaf, path, strlen(path), errno);
    resolved_done(&b);
    return fd;
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
    if (resolve(from, &bf) != 0)
        return -1;
    if (resolve(to, &bt) != 0) {
        resolved_done(&bf);
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
    resolved_done(&bf);
    resolved_done(&bt);
    rt_os_listings_forget();
    return r;
}

/* unlinkat(FLAGS) of PATH; a link beneath a confined directory is
 * refused, not removed, as anything else there that is not what the
 * caller takes it for. */
static int remove_path(const char *path, int flags)
{
    struct beneath b;
    if (resolve(path, &b) != 0)
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
        r = walk_failed(b.dir, b.leaf, path, strlen(path), ELOOP);
    else
        r = unlinkat(b.dir, b.leaf, flags);
    resolved_done(&b);
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
    if (resolve(path, &b) != 0)
        return -1;
    int r = b.dir < 0  ? mkdir(path, 0755)
            : *b.leaf ? mkdirat(b.dir, b.leaf, 0755)
                      : (errno = EEXIST, -1);
    resolved_done(&b);
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
    out->mode = (unsigned)st->st_mode & 07777;
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
    if (resolve(path, &b) != 0)
        r = -1;
    else if (b.dir < 0)
        r = stat(path, &st);
    else if (!*b.leaf)
        r = fstat(b.dir, &st);
    else
        /* A link is not followed: it is reported as what it is (OTHER). */
        r = fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW);
    resolved_done(&b);
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
    if (resolve(path, &b) != 0)
        return -1;
    if (b.dir >= 0) {
        /* Beneath a confined directory the path is already canonical
         * once every component is known to be no link: "." and ".." are
         * refused, so only repeated separators are to be dropped. */
        struct stat st;
        int r = *b.leaf ? fstatat(b.dir, b.leaf, &st, AT_SYMLINK_NOFOLLOW)
                        : fstat(b.dir, &st);
        if (r == 0 && S_ISLNK(st.st_mode))
            r = walk_failed(b.dir, b.leaf, path, strlen(path), ELOOP);
        resolved_done(&b);
        if (r != 0)
            return -1;
        size_t o = 0;
        for (const char *p = path; *p; p++) {
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
    return fchmod(fd, (mode_t)mode);
}

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
