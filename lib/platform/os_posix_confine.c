/* Platform layer: confinement on POSIX systems (os.h, rt_os_confine):
 * every path beneath a confined directory resolved from that directory's
 * descriptor, component by component or by openat2, refusing a symbolic
 * link, a mount point, "." and ".."; os_posix.c's calls on paths go
 * through it (platform/os_posix_internal.h). */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"
#include "platform/os_posix_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#endif

/* The confined directories: a store or two, or every store of a fleet's
 * audit held for its --textfile (a list that grows: a fixed table of 16
 * had left the 17th store's folder unheld, and its planted link was
 * followed for the write); each holds a descriptor. */
struct confined {
    char *path;
    size_t len;
    int fd;
    unsigned refs;
    int input;      /* only ever confined as a folder of the user's input */
    char *disk;     /* the disk an input folder lies on, confined with it */
    int read_only;  /* named through a read-only mount */
};
static struct confined *roots;
static size_t n_roots;
static pthread_mutex_t roots_lock = PTHREAD_MUTEX_INITIALIZER;

/* DIR opened when it lies beneath a directory already confined (a folder
 * of the tree, confined again for one file's read): resolved from that
 * directory, links refused, where realpath would follow a link planted
 * there out of the tree; *REAL a copy of DIR (built on the confined
 * directory's canonical form, it is one). -2 when DIR lies beneath none,
 * -1 with errno. */
static int confined_dir(const char *dir, char **real)
{
    *real = NULL;
    struct beneath b;
    if (os_posix_resolve(dir, &b) != 0)
        return -1;
    if (b.dir < 0)
        return -2;
    int fd;
    if (!b.leaf[0]) {
        fd = fcntl(b.dir, F_DUPFD_CLOEXEC, 0);
    } else {
        fd = os_posix_open_beneath(b.dir, b.leaf, O_RDONLY | O_DIRECTORY |
                                                      O_NONBLOCK | O_CLOEXEC,
                                   0);
        if (fd < 0)
            os_posix_walk_failed(b.dir, b.leaf, dir, strlen(dir), errno);
    }
    os_posix_resolved_done(&b);
    if (fd >= 0 && !(*real = strdup(dir))) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    return fd;
}

/* DIR from the file system's root in *USE: DIR itself when absolute,
 * else the working directory (getcwd's, links resolved) and DIR, its
 * leading "./" taken off, a new string also in *OWNED (else NULL) for the
 * caller to free. 0, or -1 with errno (a working directory too long to
 * name is refused: walked from "/", the path would not be seen on the
 * disk it lies on). No allocation for an absolute DIR: every call on a
 * path comes here, and memory running out there must not read as a file
 * not found. The confined directories are absolute: a relative
 * path beneath one (an output file named in a tree's folder) would
 * otherwise not be seen as beneath it, and realpath would follow a link
 * of the tree. */
static int absolute(const char *dir, const char **use, char **owned)
{
    char cwd[PATH_MAX];
    *use = dir;
    *owned = NULL;
    if (dir[0] == '/')
        return 0;
    if (!getcwd(cwd, sizeof cwd)) {
        if (errno == ERANGE || errno == ENAMETOOLONG)
            rt_os_refuse(ENAMETOOLONG,
                         "the working directory is longer than %d bytes: "
                         "name %s from the file system's root",
                         PATH_MAX, dir);
        return -1;
    }
    /* The working directory as the user's shell reached it ($PWD, when
     * it is that very folder): after a cd through a link a disk planted
     * (its Users/Public/Temp to a host folder), getcwd names the host
     * folder, and a relative output there was written on the host; the
     * way the user took is walked instead, the disk's link refused. */
    const char *pwd = getenv("PWD");
    struct stat here, there;
    if (pwd && pwd[0] == '/' && strlen(pwd) < sizeof cwd &&
        strcmp(pwd, cwd) && stat(".", &here) == 0 &&
        stat(pwd, &there) == 0 && here.st_dev == there.st_dev &&
        here.st_ino == there.st_ino)
        snprintf(cwd, sizeof cwd, "%s", pwd);
    while (dir[0] == '.' && dir[1] == '/')
        dir += 2;
    int n = !strcmp(dir, ".") || !*dir
                ? asprintf(owned, "%s", cwd)
                : asprintf(owned, "%s%s%s", cwd, strcmp(cwd, "/") ? "/" : "",
                           dir);
    if (n < 0) {
        *owned = NULL;
        return -1;
    }
    *use = *owned;
    return 0;
}

/* What a look for a disk wants of a folder's entries: each of these
 * names in any letter case (Windows' file system does not tell case
 * apart, and disks upgraded from XP have WINDOWS/System32). */
enum { MARK_WINDOWS, MARK_SYSTEM32, MARK_CONFIG, MARK_SOFTWARE, MARK_SYSTEM,
       N_MARKS };
static const char *const mark_names[N_MARKS] = {"Windows", "System32",
                                                "config", "SOFTWARE",
                                                "SYSTEM"};

/* A folder's marks as its last listing found them, kept while the folder
 * is unchanged (the same device, inode and modification time, which any
 * entry made, removed or renamed in it changes): opening each of N files
 * of one folder would otherwise list that folder N times. */
struct marks {
    dev_t dev;
    ino_t ino;
    struct timespec mtime;
    char name[N_MARKS][NAME_MAX + 1];   /* "" where it has none */
    /* More than one entry of the mark's name in different cases: which
     * one Windows would see cannot be told, so the folder counts as
     * holding the mark whatever each is (a decoy file "Windows" listed
     * before the real "windows" folder would hide the disk). */
    unsigned char twins[N_MARKS];
    unsigned long used;     /* when last found here: the least recent goes */
};
/* Kept least recently used first out: the folders every path shares (the
 * parents of a fleet's machines) stay while each machine's own come and
 * go (round robin, they were listed again every 32 stores). */
static struct marks marks_seen[32];
static unsigned long marks_tick;
static pthread_mutex_t marks_lock = PTHREAD_MUTEX_INITIALIZER;

/* DIR's entries named as the marks are, in any case (M->name), listed or
 * from the last listing of DIR unchanged since; -1 when DIR cannot be
 * listed. */
static int folder_marks(const char *dir, struct marks *m)
{
    /* Never through a link: DIR is a way already resolved, and a mark
     * that is a link is the tree's, whose target the look must not open
     * (a host folder listed, an automount made or hung on). */
    struct stat st;
    if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return -1;
    pthread_mutex_lock(&marks_lock);
    for (size_t i = 0; i < sizeof marks_seen / sizeof *marks_seen; i++) {
        const struct marks *k = &marks_seen[i];
        if (k->used && k->ino == st.st_ino && k->dev == st.st_dev &&
            k->mtime.tv_sec == st.st_mtim.tv_sec &&
            k->mtime.tv_nsec == st.st_mtim.tv_nsec) {
            marks_seen[i].used = ++marks_tick;
            *m = *k;
            pthread_mutex_unlock(&marks_lock);
            return 0;
        }
    }
    pthread_mutex_unlock(&marks_lock);
    memset(m, 0, sizeof *m);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK |
                           O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        for (int k = 0; k < N_MARKS; k++)
            if (!strcasecmp(e->d_name, mark_names[k])) {
                if (m->name[k][0])
                    m->twins[k] = 1;
                else
                    snprintf(m->name[k], sizeof m->name[k], "%s", e->d_name);
            }
    closedir(d);
    m->dev = st.st_dev;
    m->ino = st.st_ino;
    m->mtime = st.st_mtim;
    /* A name a listing found is looked at again each time (holds_mark
     * stats it), so a mark removed since is seen; one added within the
     * same tick of the file system's clock as the listing is not, which
     * only a folder changing under this very process could show. */
    pthread_mutex_lock(&marks_lock);
    size_t oldest = 0;
    for (size_t i = 1; i < sizeof marks_seen / sizeof *marks_seen; i++)
        if (marks_seen[i].used < marks_seen[oldest].used)
            oldest = i;
    m->used = ++marks_tick;
    marks_seen[oldest] = *m;
    pthread_mutex_unlock(&marks_lock);
    return 0;
}

/* Whether DIR holds mark K as a folder (WANT_DIR) or a file: 1, with its
 * path in *AT when AT; 2 when it holds several entries of that name in
 * different cases (twins: taken as the disk's, failing closed, *AT
 * untouched); 0. A link of that name is no mark and is not followed: its
 * target is whoever wrote the link's choice (a host folder to list, an
 * automount), and a user's own folder holding one (WSL's ~/Windows ->
 * /mnt/c/Windows) is no disk. */
static int holds_mark(const char *dir, int k, int want_dir, char **at)
{
    struct marks m;
    if (folder_marks(dir, &m) != 0 || !m.name[k][0])
        return 0;
    if (m.twins[k])
        return 2;
    char *q = NULL;
    struct stat st;
    if (asprintf(&q, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "",
                 m.name[k]) < 0)
        return 0;
    int found = lstat(q, &st) == 0 &&
                (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
    if (found && at)
        *at = q;
    else
        free(q);
    return found;
}

/* Whether folder P is laid out as a tree the hive store opens: it holds
 * Windows/System32, System32/config, config with a SOFTWARE or SYSTEM
 * hive, or the SOFTWARE and SYSTEM hives themselves (store_hive.c's
 * layouts), each name in any letter case; or a folder on the way holds
 * two spellings of one of those names. */
static int looks_like_disk(const char *p)
{
    char *sub = NULL;
    int disk = 0;
    /* A mark's twins (2) make P a disk at once: nothing beneath them can
     * be trusted to say otherwise. */
    int w = holds_mark(p, MARK_WINDOWS, 1, &sub);
    if (w)
        disk = w == 2 || holds_mark(sub, MARK_SYSTEM32, 1, NULL);
    free(sub);
    sub = NULL;
    if (!disk && (w = holds_mark(p, MARK_SYSTEM32, 1, &sub)) != 0)
        disk = w == 2 || holds_mark(sub, MARK_CONFIG, 1, NULL);
    free(sub);
    sub = NULL;
    if (!disk && (w = holds_mark(p, MARK_CONFIG, 1, &sub)) != 0)
        disk = w == 2 || holds_mark(sub, MARK_SOFTWARE, 0, NULL) ||
               holds_mark(sub, MARK_SYSTEM, 0, NULL);
    free(sub);
    return disk || (holds_mark(p, MARK_SOFTWARE, 0, NULL) &&
                    holds_mark(p, MARK_SYSTEM, 0, NULL));
}

/* The outermost of ABS's folders, ABS itself included, laid out as a
 * tree (looks_like_disk): the disk a file the user names lies on,
 * written by whoever wrote that disk. NULL when none is (the file
 * system's root is never one). The outermost, as the path is spelled:
 * a link planted beneath the disk, to another disk or to a folder
 * laid out as one (another machine's disk mounted beside it, root's
 * Wine prefix), would be taken for the disk if the nearest were, and
 * followed; beneath the outermost, every link is the disk's, refused
 * as the tree's are. */
/* ABS on the disk it lies on: the disk's path (canonical) in *DISK and
 * ABS as resolved to it in *ON (its rest as spelled), both new strings;
 * NULL when no disk is on the way. -1 out of memory. */
static int in_or_a_root(const char *path);

/* A disk, or a tree confined already (a store's folder, an input's): the
 * walk stops at either, so that no link beneath a tree is followed to
 * look for a disk (a tree's link to another machine's disk mounted here,
 * WSL's /mnt/c, was followed, and the path written there). */
static int disk_or_tree(const char *p)
{
    return in_or_a_root(p) || looks_like_disk(p);
}

static int disk_of(const char *abs, char **disk, char **on, int *read_only)
{
    size_t at = 0;
    *disk = NULL;
    if (os_posix_walk_until(abs, disk_or_tree, on, &at, read_only) != 0)
        return -1;
    if (*on && !(*disk = strndup(*on, at))) {
        free(*on);
        *on = NULL;
        return -1;
    }
    return 0;
}

static int confine_one(const char *dir, int named_ro, int input,
                       char **canonical);

/* PATH, named whole to confine or rt_os_hold_disk_of (a store, an input
 * or an output the user typed, however spelled: "$DISK/Windows/.", a
 * relative disk/./Windows/Temp/b.ini), with each "." component dropped,
 * as the walk drops "//": a new string in *OWNED, else PATH itself and
 * *OWNED NULL (no allocation when PATH has none, as in absolute()). "."
 * names the folder before it, wherever that lies, and leads nowhere
 * out; ".." is kept (beneath a tree it is refused: past a link it leads
 * elsewhere than the text says). Every other call on a path beneath a
 * tree still refuses "." (resolve_absolute): a path built from names
 * read in the tree has each name checked where it is read (a journal's,
 * an INI's, a service's: no "." or ".." there), and none reaches here
 * made of one. 0, or -1 with errno. */
static int typed_without_dots(const char *path, const char **use,
                              char **owned)
{
    *use = path;
    *owned = NULL;
    const char *s = path;
    int any = 0;
    while (*s && !any) {
        size_t n = strcspn(s, "/");
        any = n == 1 && s[0] == '.';
        s += n;
        s += strspn(s, "/");
    }
    if (!any)
        return 0;
    char *out = malloc(strlen(path) + 2);
    if (!out) {
        errno = ENOMEM;
        return -1;
    }
    size_t o = strspn(path, "/"), lead = o, last = 0;
    memcpy(out, path, o);
    for (s = path + o; *s;) {
        size_t n = strcspn(s, "/"), gap;
        last = n == 1 && s[0] == '.';
        if (!last)
            memcpy(out + o, s, n), o += n;
        s += n;
        gap = strspn(s, "/");
        if (!last)
            memcpy(out + o, s, gap), o += gap;
        s += gap;
    }
    /* "DIR/." is DIR: the separator before the "." goes with it. */
    while (last && o > lead && out[o - 1] == '/')
        o--;
    if (!o)
        out[o++] = '.';
    out[o] = '\0';
    *use = *owned = out;
    return 0;
}

int rt_os_hold_disk_of(const char *path, char **held, char **canon)
{
    *held = NULL;
    if (canon)
        *canon = NULL;
    const char *abs;
    char *owned, *typed;
    if (typed_without_dots(path, &path, &typed) != 0)
        return -1;
    if (absolute(path, &abs, &owned) != 0) {
        int err = errno;
        free(typed);
        errno = err;
        return -1;
    }
    char *disk = NULL, *on = NULL;
    int ro = 0;
    /* Confined (again, when it is: one more reference) whatever the
     * spelling: through the user's own link above it (or into it), or
     * with "//" on the way (its "." steps are dropped above), the path
     * would not be seen beneath the disk's canonical form, and a link of
     * the disk would be followed. */
    int r = disk_of(abs, &disk, &on, &ro) != 0 ? -1
            : disk ? confine_one(disk, ro, 0, held) : 0;
    int err = errno;
    if (r == 0 && *held && canon &&
        asprintf(canon, "%s%s", *held, on + strlen(disk)) < 0) {
        *canon = NULL;
        rt_os_unconfine(*held);
        free(*held);
        *held = NULL;
        r = -1;
        err = ENOMEM;
    }
    free(owned);
    free(typed);
    free(disk);
    free(on);
    errno = err;
    return r;
}

void rt_os_release_disk(char *held)
{
    if (!held)
        return;
    int err = errno;
    rt_os_unconfine(held);
    free(held);
    errno = err;
}

/* DIR (its "." steps dropped: confine) confined, as a folder of the
 * user's INPUT or as a tree; with HOLD_DISK, the disk it lies on
 * (rt_os_hold_disk_of) held with it. */
static int confine_spelled(const char *dir, int input, int hold_disk,
                           char **canonical)
{
    if (!hold_disk)
        return confine_one(dir, 0, input, canonical);
    /* A folder of the user's input on another machine's disk (a backup
     * in its Windows\Temp, an INI in its Program Files, a hive named by
     * its file): the disk is confined as a tree first, so the folder is
     * resolved with its links refused, a hard link in it is read only
     * where the tree's would be, and an output file named on the same
     * disk keeps the tree's rules while the input is held. */
    char *held = NULL, *on_disk = NULL;
    /* Beneath a confined tree already (an INF copy's folder read by
     * rebuild), the tree's rules hold: the disk is not looked for again
     * (each look lists the folders above, INF's thousands among them). */
    if (!rt_os_is_confined(dir) &&
        rt_os_hold_disk_of(dir, &held, &on_disk) != 0)
        return -1;
    int r = confine_one(on_disk ? on_disk : dir, 0, input, canonical);
    int err = errno;
    free(on_disk);
    if (held) {
        int kept = 0;
        pthread_mutex_lock(&roots_lock);
        for (size_t i = 0; r == 0 && canonical && *canonical &&
                           i < n_roots; i++)
            if (roots[i].path && !strcmp(roots[i].path, *canonical) &&
                roots[i].refs == 1 && !roots[i].disk) {
                roots[i].disk = held;
                kept = 1;
            }
        pthread_mutex_unlock(&roots_lock);
        if (!kept) {
            rt_os_unconfine(held);
            free(held);
        }
    }
    errno = err;
    return r;
}

/* DIR confined as confine_spelled does, the "." steps the user typed in
 * it dropped (typed_without_dots): a store named hive:disk/Windows/. or
 * an input disk/./Windows/Temp/b.ini is the folder its text names. */
static int confine(const char *dir, int input, int hold_disk, char **canonical)
{
    const char *use;
    char *typed;
    if (typed_without_dots(dir, &use, &typed) != 0)
        return -1;
    int r = confine_spelled(use, input, hold_disk, canonical);
    int err = errno;
    free(typed);
    errno = err;
    return r;
}

/* Whether FD, a folder held, lies on a read-only mount. */
static int on_read_only_mount(int fd)
{
    struct statvfs sv;
    return fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_RDONLY) != 0;
}

/* DIR confined (its folder held, its canonical form to *CANONICAL);
 * NAMED_RO: the walk to it went through a read-only view of a folder it
 * then took by its source, on a mount that may be written (review 40):
 * what the user named read-only stays so, as a folder held on a
 * read-only mount is. */
static int confine_one(const char *dir, int named_ro, int input,
                       char **canonical)
{
    if (canonical)
        *canonical = NULL;
    const char *abs;
    char *real, *owned;
    if (absolute(dir, &abs, &owned) != 0)
        return -1;
    int fd = confined_dir(abs, &real);
    free(owned);
    if (fd == -2) {
        real = realpath(dir, NULL);
        if (!real)
            return -1;
        fd = open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd < 0) {
        int err = errno;
        free(real);
        errno = err;
        return -1;
    }
    int read_only = named_ro || on_read_only_mount(fd);
    pthread_mutex_lock(&roots_lock);
    struct confined *slot = NULL;
    for (size_t i = 0; i < n_roots; i++) {
        if (roots[i].path && !strcmp(roots[i].path, real)) {
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
    struct stat was, now;
    if (!slot) {
        errno = ENOMEM;
        r = -1;
    } else if (slot->path) {
        /* The same path, confined again: by now it may name another
         * directory (the first removed, a new one made), which is what
         * the path means from now on. */
        slot->refs++;
        slot->input = slot->input && input;
        slot->read_only = slot->read_only || read_only;
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
            slot->input = input;
            slot->read_only = read_only;
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

int rt_os_confine(const char *dir, char **canonical)
{
    return confine(dir, 0, 0, canonical);
}

int rt_os_confine_input(const char *dir, char **canonical)
{
    return confine(dir, 1, 1, canonical);
}

int rt_os_confine_on_disk(const char *dir, char **canonical)
{
    return confine(dir, 0, 1, canonical);
}

void rt_os_unconfine(const char *canonical)
{
    if (!canonical)
        return;
    int held = 0;
    char *disk = NULL;
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < n_roots; i++) {
        struct confined *c = &roots[i];
        if (c->path && !strcmp(c->path, canonical)) {
            held = 1;
            if (--c->refs == 0) {
                close(c->fd);
                free(c->path);
                disk = c->disk;
                memset(c, 0, sizeof *c);
            }
            break;
        }
    }
    pthread_mutex_unlock(&roots_lock);
    if (held)
        rt_os_listings_scope(-1);
    if (disk) {
        rt_os_unconfine(disk);
        free(disk);
    }
}

/* A new descriptor of the outermost confined directory PATH lies beneath
 * (every component past it is then checked), with the part of PATH after
 * it in *REL, the directory's path in ROOT and whether it is only a
 * folder of the user's input in *INPUT; -2 when PATH lies beneath none,
 * -1 with errno. */
static int root_of(const char *path, const char **rel, char *root,
                   size_t size, int *input, int *read_only)
{
    int ro = 0;
    int fd = -2, all_input = 1;
    size_t best = 0;
    rt_os_refusal_clear();
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < n_roots; i++) {
        const char *r;
        if (!roots[i].path ||
            !rt_os_beneath(roots[i].path, roots[i].len, path, &r))
            continue;
        /* A user's input folder holding a tree (a store's folder in a
         * fleet's): the tree's rules hold beneath it. */
        all_input = all_input && roots[i].input;
        /* Read-only when any folder held above it was named so. */
        ro = ro || roots[i].read_only;
        if (fd != -2 && roots[i].len >= best)
            continue;
        if (fd >= 0)
            close(fd);
        fd = fcntl(roots[i].fd, F_DUPFD_CLOEXEC, 0);
        best = roots[i].len;
        *rel = r;
        snprintf(root, size, "%s", roots[i].path);
        if (fd < 0)
            break;
    }
    *input = fd == -2 ? 0 : all_input;
    if (read_only)
        *read_only = fd >= 0 && ro;
    pthread_mutex_unlock(&roots_lock);
    return fd;
}

int rt_os_is_confined(const char *path)
{
    const char *rel;
    char root[PATH_MAX];
    int input;
    int fd = root_of(path, &rel, root, sizeof root, &input, NULL);
    if (fd >= 0)
        close(fd);
    return fd != -2;
}

/* Why opening COMP (the path PATH up to it) beneath DIRFD failed with ERR:
 * a link or a mount point is refused by name; anything else keeps its
 * errno. */
int os_posix_walk_failed(int dirfd, const char *comp, const char *path,
                         size_t upto, int err)
{
    struct stat st;
    /* ELOOP is a link met where no link is followed (O_NOFOLLOW,
     * RESOLVE_NO_SYMLINKS), even when a racing writer has put a file
     * back in its place by the time it is looked at; ENOTDIR and EMLINK
     * are one only when the name is a link still. */
    if (err == ELOOP ||
        ((err == ENOTDIR || err == EMLINK) &&
         fstatat(dirfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
         S_ISLNK(st.st_mode)))
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
 * -1 with errno on failure, the reason not yet recorded
 * (os_posix_walk_failed). */
int os_posix_open_beneath(int dirfd, const char *name, int flags, mode_t mode)
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

/* Resolves PATH: B->dir -1 when it is not confined (0 returned; the
 * caller uses PATH as it is), else the open parent; -1 with errno when a
 * component is a link, "." or "..", or cannot be opened. */
static int resolve_absolute(const char *path, struct beneath *b)
{
    const char *rel;
    char root[PATH_MAX];
    b->dir = -1;
    b->leaf = "";
    b->read_only = 0;
    int fd = root_of(path, &rel, root, sizeof root, &b->input,
                     &b->read_only);
    if (fd == -2)
        return 0;
    if (fd < 0)
        return -1;
    struct stat rst;
    if (fstat(fd, &rst) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    b->root_uid = rst.st_uid;
    if (strlen(rel) >= sizeof b->buf) {
        close(fd);
        errno = ENAMETOOLONG;
        return -1;
    }
    if ((size_t)snprintf(b->canon, sizeof b->canon, "%s/%s", root, rel) >=
        sizeof b->canon) {
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
        /* A path the user named has its "." dropped before
         * (typed_without_dots): one here was built from the tree's names,
         * none of which may be a path step. */
        if (!strcmp(p, ".")) {
            close(fd);
            return rt_os_refuse(EXDEV,
                                "%s: the name \".\" in it is refused beneath "
                                "%s, the tree regtool works in, where no "
                                "name it reads may be a path step (name the "
                                "path without it)",
                                path, root);
        }
        if (!strcmp(p, "..")) {
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
        int nfd = os_posix_open_beneath(fd, p, O_RDONLY | O_DIRECTORY |
                                                   O_NONBLOCK | O_CLOEXEC,
                                        0);
        if (nfd < 0) {
            int err = errno;
            os_posix_walk_failed(fd, p, path,
                                 base + (size_t)(p - b->buf) + strlen(p), err);
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

/* Whether any directory is confined. */
static int any_root(void)
{
    int any = 0;
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < n_roots && !any; i++)
        any = roots[i].path != NULL;
    pthread_mutex_unlock(&roots_lock);
    return any;
}

/* ABS (not beneath a confined directory as spelled) on the canonical
 * form of its shortest leading part whose canonical form is a confined
 * directory or beneath one, and the rest as spelled: a new string in
 * *OUT, or NULL when no part leads into one; -1 with errno when where it
 * leads cannot be told (os_posix_walk_until). The user's own links above a tree
 * (a mount alias: mnt -> the fleet's uploads) would otherwise hide that
 * the path lies in it, and its links beneath would be followed. The
 * rest is not resolved here: the walk beneath the directory refuses its
 * links. */
/* The confined directory that is folder PATH itself, however PATH is
 * spelled (a bind mount's source and its mount point, which no compare
 * of strings joins): its path into ROOT (SIZE bytes) and 1, or 0. */
static int root_by_identity(const char *path, char *root, size_t size)
{
    struct stat st, r;
    if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return 0;
    int found = 0;
    pthread_mutex_lock(&roots_lock);
    for (size_t i = 0; i < n_roots && !found; i++)
        if (roots[i].path && fstat(roots[i].fd, &r) == 0 &&
            r.st_dev == st.st_dev && r.st_ino == st.st_ino) {
            found = 1;
            if (root)
                snprintf(root, size, "%s", roots[i].path);
        }
    pthread_mutex_unlock(&roots_lock);
    return found;
}

static int in_or_a_root(const char *path)
{
    return rt_os_is_confined(path) || root_by_identity(path, NULL, 0);
}

static int into_a_root(const char *abs, char **out)
{
    size_t at = 0;
    if (os_posix_walk_until(abs, in_or_a_root, out, &at, NULL) != 0)
        return -1;
    char *part = *out ? strndup(*out, at) : NULL, root[PATH_MAX];
    if (*out && !part)
        return -1;
    if (part && !rt_os_is_confined(part) &&
        root_by_identity(part, root, sizeof root)) {
        /* The same folder by another spelling: by the root's. */
        char *on = NULL;
        if (asprintf(&on, "%s%s", root, *out + at) < 0) {
            free(part);
            return -1;
        }
        free(*out);
        *out = on;
    }
    free(part);
    return 0;
}

int os_posix_resolve(const char *path, struct beneath *b)
{
    b->dir = -1;
    const char *abs;
    char *owned;
    if (absolute(path, &abs, &owned) != 0)
        return -1;
    int r = resolve_absolute(abs, b);
    if (r == 0 && b->dir < 0 && any_root()) {
        char *canon = NULL;
        r = into_a_root(abs, &canon);
        if (r == 0 && canon)
            r = resolve_absolute(canon, b);
        free(canon);
    }
    int err = errno;
    free(owned);
    errno = err;
    return r;
}

void os_posix_resolved_done(struct beneath *b)
{
    if (b->dir >= 0) {
        int err = errno;
        close(b->dir);
        errno = err;
        b->dir = -1;
    }
}
#endif
