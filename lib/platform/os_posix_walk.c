/* Platform layer: the way to a path as the kernel takes it (POSIX), one
 * component at a time from the file system's root, so that the part of
 * it lying on a tree or a disk is found before any link beneath that
 * part is followed (os_posix_confine.c asks it where a path leads).
 * Where the walk cannot tell where the kernel goes (a way longer than
 * PATH_MAX, a link of /proc into another mount namespace, ".." after a
 * folder bound elsewhere) it refuses, never answering "no tree on the
 * way": the caller would then use the path as spelled, links and all. */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"
#include "platform/os_posix_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif

/* The kernel's own bound on links followed in one path. */
enum { MAX_LINKS = 40 };

/* Whether the first component of REST (after "/" and "." ones) is "..". */
static int next_is_dotdot(const char *rest)
{
    for (;;) {
        while (*rest == '/')
            rest++;
        if (rest[0] == '.' && (rest[1] == '/' || !rest[1])) {
            rest++;
            continue;
        }
        return rest[0] == '.' && rest[1] == '.' &&
               (rest[2] == '/' || !rest[2]);
    }
}

#ifdef __linux__
enum { PROC_MAGIC = 0x9fa0 };

/* Whether PATH (links followed) is the file ST is. */
static int same_file(const char *path, const struct stat *st)
{
    struct stat s;
    return stat(path, &s) == 0 && s.st_dev == st->st_dev &&
           s.st_ino == st->st_ino;
}

/* Where the process of /proc folder DIR (or of a folder within it: fd,
 * task/T, map_files) keeps its mount namespace's link, read into NS:
 * 1, or 0 when DIR is none of a process's (/proc itself). */
static int namespace_of(const char *dir, char *ns, size_t size)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (int up = 0; up < 3; up++) {
        char q[PATH_MAX + 8];
        snprintf(q, sizeof q, "%s/ns/mnt", p);
        ssize_t n = readlink(q, ns, size - 1);
        if (n > 0) {
            ns[n] = '\0';
            return 1;
        }
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            return 0;
        *slash = '\0';
    }
    return 0;
}

/* Whether link CAND, in folder CUR, is one of /proc's whose text does
 * not say where the kernel goes (a process's root, working directory or
 * open file): 0 when its text can be walked, else refused (-1). Another
 * mount namespace's (a container's root, the usual way to its files)
 * leads where this namespace's names do not; one of this namespace's is
 * walked by its text only where that text names the same file
 * (a deleted folder's, a pipe's do not). AS_FOLDER: more of the path
 * follows it. */
static int magic_link_refused(const char *cur, const char *cand,
                              const char *text, int as_folder)
{
    struct statfs fs;
    if (statfs(*cur ? cur : "/", &fs) != 0 || fs.f_type != PROC_MAGIC)
        return 0;
    char ns[128], own[128];
    if (!namespace_of(*cur ? cur : "/", ns, sizeof ns))
        return 0;
    ssize_t n = readlink("/proc/self/ns/mnt", own, sizeof own - 1);
    if (n <= 0 || (own[n] = '\0', strcmp(ns, own) != 0))
        return rt_os_refuse(EXDEV,
                            "%s leads into another mount namespace (%s), "
                            "whose files regtool cannot confine: name the "
                            "path as that namespace sees it, from inside it",
                            cand, ns);
    struct stat a;
    if (as_folder &&
        (stat(cand, &a) != 0 || text[0] != '/' || !same_file(text, &a)))
        return rt_os_refuse(EXDEV,
                            "%s does not lead where its text (%s) says: "
                            "regtool does not follow it",
                            cand, text);
    return 0;
}
#endif

/* A field of /proc/self/mountinfo in place, its octal escapes (\040 a
 * space, \011 a tab, \012 a newline, \134 a backslash) undone: the
 * kernel escapes those so that a field is one word. */
void os_posix_unescape_mount_field(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] >= '0' && p[1] <= '3' && p[2] >= '0' &&
            p[2] <= '7' && p[3] >= '0' && p[3] <= '7') {
            *o++ = (char)((p[1] - '0') * 64 + (p[2] - '0') * 8 + (p[3] - '0'));
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

#if defined(__linux__) && defined(STATX_MNT_ID)
/* A mount of /proc/self/mountinfo: its id, device, root within that
 * device's file system and mount point (octal escapes undone). */
struct mount_line {
    uint64_t id;
    char dev[32];
    char root[PATH_MAX];
    char point[PATH_MAX];
};

/* The next line of the table into M; 0 at its end. A line is read whole,
 * however long (each of its paths may be four times PATH_MAX, escaped),
 * split at its spaces (the kernel escapes those inside a field), and
 * passed over when a field, its escapes undone, does not fit: no path
 * regtool looks up is that long. LINE, CAP: getline's buffer, kept from
 * one call to the next. -1 when memory ran out (never taken for the
 * table's end: a bound folder's source would go unseen). */
static int read_mount(FILE *f, struct mount_line *m, char **line, size_t *cap)
{
    for (;;) {
        errno = 0;
        if (getline(line, cap, f) < 0)
            return errno == ENOMEM ? -1 : 0;
        char *save = NULL, *field[5];
        size_t n = 0;
        for (char *t = strtok_r(*line, " \n", &save); t && n < 5;
             t = strtok_r(NULL, " \n", &save))
            field[n++] = t;
        if (n < 5)
            continue;
        char *end;
        errno = 0;
        unsigned long long id = strtoull(field[0], &end, 10);
        if (errno || *end || end == field[0])
            continue;
        os_posix_unescape_mount_field(field[3]);
        os_posix_unescape_mount_field(field[4]);
        if (strlen(field[2]) >= sizeof m->dev ||
            strlen(field[3]) >= sizeof m->root ||
            strlen(field[4]) >= sizeof m->point)
            continue;
        m->id = id;
        strcpy(m->dev, field[2]);
        strcpy(m->root, field[3]);
        strcpy(m->point, field[4]);
        return 1;
    }
}

/* What the table of mounts said of a mount: its source's path here, or
 * none (a whole file system's mount, a source seen nowhere). Asked again
 * at every path through it (a tmpfs /tmp, a disk mounted at /mnt/win,
 * the volume a fleet's stores lie in), each would read the table again:
 * O(stores x mounts). The kernel gives a gone mount's id to a new one
 * (an automount expired, a bind made in its place), so an answer is
 * kept with the identity of the mount's root and used only for that
 * root; a source kept is checked again (stat) each time it is used. */
struct bound {
    uint64_t id;
    dev_t dev;
    ino_t ino;
    char *alias;
};
static struct bound bounds[32];
static unsigned bounds_next;
static pthread_mutex_t bounds_lock = PTHREAD_MUTEX_INITIALIZER;

/* 1 with a copy of the source kept for ID, whose root is ST, in *ALIAS
 * (NULL: none), 0 when nothing is kept, -1 out of memory. */
static int kept_bound(uint64_t id, const struct stat *st, char **alias)
{
    int r = 0;
    *alias = NULL;
    pthread_mutex_lock(&bounds_lock);
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds && !r; i++)
        if (bounds[i].id == id && bounds[i].dev == st->st_dev &&
            bounds[i].ino == st->st_ino) {
            r = 1;
            if (bounds[i].alias && !(*alias = strdup(bounds[i].alias)))
                r = -1;
        }
    pthread_mutex_unlock(&bounds_lock);
    return r;
}

static void keep_bound(uint64_t id, const struct stat *st, const char *alias)
{
    char *copy = alias ? strdup(alias) : NULL;
    if (alias && !copy)
        return;
    pthread_mutex_lock(&bounds_lock);
    /* An answer for ID already kept was a gone mount's, or a source since
     * moved: replaced, not kept beside (the first found would be used). */
    struct bound *b = NULL;
    for (size_t i = 0; i < sizeof bounds / sizeof *bounds && !b; i++)
        if (bounds[i].id == id)
            b = &bounds[i];
    if (!b)
        b = &bounds[bounds_next++ % (sizeof bounds / sizeof *bounds)];
    free(b->alias);
    b->id = id;
    b->dev = st->st_dev;
    b->ino = st->st_ino;
    b->alias = copy;
    pthread_mutex_unlock(&bounds_lock);
}

/* Whether PATH (links followed) is the file ST on another mount than ID:
 * the source of the bind mount ID, not the bound folder itself reached
 * again (its mount point, a link to it: an image's /data -> /mnt/data
 * beside a volume at /mnt/data whose source ends in "/data"), whose walk
 * would meet the same mount and answer again, a loop refused past
 * MAX_BINDS. */
static int is_source(const char *path, uint64_t id, const struct stat *st)
{
    struct statx sx;
    return same_file(path, st) &&
           statx(AT_FDCWD, path, 0, STATX_MNT_ID, &sx) == 0 &&
           (sx.stx_mask & STATX_MNT_ID) && sx.stx_mnt_id != id;
}

/* The folder the table of mounts names ROOT (a bound folder's root field,
 * its way from its file system's root) by a path of this namespace that
 * is ST, when no mount's point said where that file system's root is:
 * inside a chroot, whose own root is a folder of the file system the
 * table does not list, the source is the end of ROOT below the folder
 * the chroot stands in (".../base/tmp/disk/Users" is "/tmp/disk/Users").
 * Each end is tried, longest first; only the same file is taken, so no
 * name the tree chose can stand for the source. */
static char *source_below_root(const char *root, uint64_t id,
                               const struct stat *st, int *unreadable)
{
    for (const char *p = root; p; p = strchr(p + 1, '/'))
        if (is_source(p, id, st)) {
            char *alias = strdup(p);
            if (!alias)
                *unreadable = ENOMEM;
            return alias;
        }
    return NULL;
}

/* The source of mount ID as the table of mounts has it: the path of a
 * mount of its file system's root, or of a folder above it, and the rest
 * of the way, that is ST; NULL when ID is a whole file system's mount or
 * its source is seen nowhere. */
static char *read_bound(uint64_t id, const struct stat *st, int *unreadable)
{
    /* open, then fdopen: a test's preloaded allocator failure can tell
     * this file's opening (fopen's own open is out of its reach). */
    int fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "r");
    if (!f) {
        *unreadable = errno;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    struct mount_line *m = malloc(2 * sizeof *m), *o = m ? m + 1 : NULL;
    char *alias = NULL, *line = NULL;
    size_t cap = 0;
    int found = 0, r = 0;
    while (m && !found && (r = read_mount(f, m, &line, &cap)) > 0)
        found = m->id == id;
    if (!m || r < 0)
        *unreadable = ENOMEM;
    else if (!found)    /* (a table that does not list the mount) */
        *unreadable = ENOENT;
    if (found && strcmp(m->root, "/")) {
        rewind(f);
        while (!alias && !*unreadable &&
               (r = read_mount(f, o, &line, &cap)) > 0) {
            /* Only a mount of the file system's root or of a folder above
             * this one's: another bind of the very same folder would
             * send the walk back here. */
            size_t rl = strlen(o->root);
            if (o->id == id || strcmp(o->dev, m->dev) ||
                (strcmp(o->root, "/") &&
                 (strncmp(o->root, m->root, rl) || m->root[rl] != '/')))
                continue;
            const char *sub = strcmp(o->root, "/") ? m->root + rl : m->root;
            if (asprintf(&alias, "%s%s", strcmp(o->point, "/") ? o->point : "",
                         sub) < 0) {
                alias = NULL;
                *unreadable = ENOMEM;
            } else if (!is_source(alias, id, st)) {
                free(alias);
                alias = NULL;
            }
        }
        if (r < 0)
            *unreadable = ENOMEM;
        if (!alias && !*unreadable)
            alias = source_below_root(m->root, id, st, unreadable);
    }
    free(m);
    free(line);
    fclose(f);
    return alias;
}

/* Folder or file ST, the root of mount ID (a folder of a file system
 * bound there, a bind mount), by the path this namespace knows it by
 * through a mount of the file system's own root or of a folder above it:
 * a new string, NULL when ID is a whole file system's mount or its source
 * is seen nowhere else (a container's volume). A bind mount of a disk's
 * folder is the disk's as much as a link into it is. */
static char *bound_from(uint64_t id, const struct stat *st, int *unreadable)
{
    char *alias = NULL;
    *unreadable = 0;
    int kept = kept_bound(id, st, &alias);
    if (kept < 0) {
        *unreadable = ENOMEM;
        return NULL;
    }
    if (kept && (!alias || is_source(alias, id, st)))
        return alias;
    free(alias);
    alias = read_bound(id, st, unreadable);
    if (!*unreadable)
        keep_bound(id, st, alias);
    return alias;
}

/* Mount id of PATH itself (a link not followed); 0 when unknown. */
static uint64_t mount_id(const char *path)
{
    struct statx sx;
    if (statx(AT_FDCWD, *path ? path : "/", AT_SYMLINK_NOFOLLOW,
              STATX_MNT_ID, &sx) != 0 || !(sx.stx_mask & STATX_MNT_ID))
        return 0;
    return sx.stx_mnt_id;
}
#endif

/* CAND (a folder or file reached in folder CUR, not a link) by its
 * source, when it is the root of a bind mount whose source this
 * namespace names elsewhere: a new string, or NULL. *MNT holds CUR's
 * mount id (0: not known yet), and CAND's on return: the walk carries
 * it to the next step, one system call a component fewer. */
static int bind_source(const char *cur, const char *cand,
                       const struct stat *st, char **alias, uint64_t *mnt)
{
    *alias = NULL;
#if defined(__linux__) && defined(STATX_MNT_ID)
    uint64_t id = mount_id(cand), parent = *mnt ? *mnt : mount_id(cur);
    *mnt = id;
    if (!id || !parent || id == parent)
        return 0;
    int unreadable;
    *alias = bound_from(id, st, &unreadable);
    if (!*alias && unreadable == ENOMEM) {
        errno = ENOMEM;
        return -1;
    }
    struct stat up;
    if (!*alias && unreadable &&
        (lstat(*cur ? cur : "/", &up) != 0 || up.st_dev == st->st_dev))
        /* A mount of the file system its folder is on: a folder of it
         * bound there, from where only the table could say (a chroot or
         * a container without /proc). */
        return rt_os_refuse(EXDEV,
                            "%s is a folder bound there from another, and "
                            "where from cannot be read (/proc/self/mountinfo: "
                            "%s): regtool cannot tell whether it lies on "
                            "another machine's disk",
                            cand, strerror(unreadable));
    /* A folder bound over itself (a tree made a mount point of its own)
     * has no source: is_source takes no way back to the mount itself. */
    return 0;
#else
    (void)cur;
    (void)cand;
    (void)st;
    *mnt = 0;
    return 0;
#endif
}

/* Binds within binds looked through, at most: each look walks its
 * source's way (os_posix_walk_until within itself). */
enum { MAX_BINDS = 8 };

/* The walk's state: the path left to walk from POS and CUR, what of it
 * has been resolved (canonical, links resolved; a bound folder as the
 * mount point, where the kernel's ".." goes up from). */
struct walk {
    const char *spelled;    /* the path as the caller gave it */
    char *path;
    size_t pos;
    int links;
    int binds;              /* how deep in looks at binds' sources */
    uint64_t cur_mnt;       /* CUR's mount id, 0 when not known */
    int (*stop)(const char *);
    int read_only;          /* a bound folder on the way was reached
                               through a read-only mount */
    char *out;              /* found through a bind's source */
    size_t at;
    char cur[PATH_MAX];
};

static int walk(struct walk *w);

/* The walk goes on from TARGET (a link's text) and REST: 0, or -1 with
 * errno. */
static int walk_instead(struct walk *w, const char *target, const char *rest)
{
    if (++w->links > MAX_LINKS)
        return rt_os_refuse(ELOOP, "%s: more than %d links on the way",
                            w->spelled, MAX_LINKS);
    char *next = NULL;
    if (asprintf(&next, "%s%s%s%s", target[0] == '/' ? "" : w->cur,
                 target[0] == '/' ? "" : "/", target, rest) < 0)
        return -1;
    free(w->path);
    w->path = next;
    w->pos = 0;
    w->cur[0] = '\0';
    w->cur_mnt = 0;
    return 0;
}

/* Whether the source of a folder bound at CAND (ALIAS) is STOP or lies
 * beneath a part that is, walked by itself: 1 with that part and the
 * rest of the source's way and REST in W->out (the folder is the disk's,
 * or the tree's, as much as a link into it would be); 0 when it is not,
 * and the walk goes on through the mount point, as the kernel does (a
 * ".." out of the bound folder, spelled or in a link's text, goes up from
 * where it is bound, not from its source); -1 with errno. */
static int through_source(struct walk *w, const char *alias, const char *rest)
{
    if (w->binds >= MAX_BINDS)
        return rt_os_refuse(ELOOP, "%s: more than %d bound folders within "
                            "each other on the way", w->spelled, MAX_BINDS);
    struct walk in = {.spelled = w->spelled, .path = strdup(alias),
                      .binds = w->binds + 1, .stop = w->stop, .cur = ""};
    int r = walk(&in);
    free(in.path);
    w->read_only = w->read_only || in.read_only;
    if (r != 0 || !in.out)
        return r;
    r = asprintf(&w->out, "%s%s", in.out, rest) < 0 ? (w->out = NULL, -1) : 1;
    w->at = in.at;
    free(in.out);
    return r;
}

/* One step of the walk: the component of LEN bytes at W->pos. 1 when it
 * was taken (CUR now holds it), 0 when it was a link followed, 2 when it
 * is not there (the walk ends), 3 when a bind's source was STOP (W->out
 * set), -1 with errno. */
static int step(struct walk *w, size_t len)
{
    size_t clen = strlen(w->cur);
    const char *rest = w->path + w->pos + len;
    if (clen + 1 + len >= sizeof w->cur)
        return rt_os_refuse(ENAMETOOLONG,
                            "its way is longer than %d bytes once its links "
                            "are resolved, so regtool cannot tell whether it "
                            "lies on another machine's disk: %s",
                            PATH_MAX, w->spelled);
    char cand[PATH_MAX];
    memcpy(cand, w->cur, clen);
    cand[clen] = '/';
    memcpy(cand + clen + 1, w->path + w->pos, len);
    cand[clen + 1 + len] = '\0';
    struct stat st;
    if (lstat(cand, &st) != 0)
        return errno == ENOENT || errno == ENOTDIR ? 2 : -1;
    if (S_ISLNK(st.st_mode)) {
        char target[PATH_MAX];
        ssize_t n = readlink(cand, target, sizeof target - 1);
        if (n <= 0)
            return n == 0 ? (errno = ENOENT, -1) : -1;
        target[n] = '\0';
#ifdef __linux__
        if (magic_link_refused(w->cur, cand, target, *rest != '\0'))
            return -1;
#endif
        return walk_instead(w, target, rest);
    }
    /* Nothing lies beneath what is not a folder, as the kernel has it
     * (review 46 R46-5: "afile/../link" was taken up a folder from the
     * file, where every check's stat had said it was no path at all). */
    if (*rest && !S_ISDIR(st.st_mode))
        return rt_os_refuse(ENOTDIR,
                            "%s is not a folder, and the path goes on "
                            "beneath it: %s", cand, w->spelled);
    /* A ".." right after leaves the bound folder where it is bound, as
     * the kernel has it: its source does not matter then. */
    char *alias = NULL;
    uint64_t mnt = w->cur_mnt;
    if (next_is_dotdot(rest))
        mnt = 0;
    else if (bind_source(w->cur, cand, &st, &alias, &mnt) != 0)
        return -1;
    if (alias) {
        /* Walked on as its source, the folder is on the source's mount:
         * whether the user reached it through a read-only view is seen
         * here, at its mount point (a real folder, no link: nothing the
         * tree planted is followed, as statvfs of the path as typed
         * followed a link to an automount that never answered: review
         * 41 R41-8). */
        struct statvfs sv;
        if (statvfs(cand, &sv) == 0 && (sv.f_flag & ST_RDONLY))
            w->read_only = 1;
        int r = through_source(w, alias, rest);
        free(alias);
        if (r != 0)
            return r < 0 ? -1 : 3;
    }
    memcpy(w->cur, cand, clen + 2 + len);
    w->cur_mnt = mnt;
    w->pos += len;
    return 1;
}

/* W walked to its end or its first part that is W->stop: 0 (W->out NULL
 * when none is), -1 with errno. */
static int walk(struct walk *w)
{
    while (w->path) {
        while (w->path[w->pos] == '/')
            w->pos++;
        if (!w->path[w->pos])
            return 0;
        size_t len = strcspn(w->path + w->pos, "/");
        if (len == 1 && w->path[w->pos] == '.') {
            w->pos += len;
            continue;
        }
        if (len == 2 && !strncmp(w->path + w->pos, "..", 2)) {
            char *slash = strrchr(w->cur, '/');
            if (slash)
                *slash = '\0';
            w->cur_mnt = 0;
            w->pos += len;
            continue;
        }
        int r = step(w, len);
        if (r == 0)
            continue;
        if (r != 1)
            return r == 2 || r == 3 ? 0 : -1;
        const char *rest = w->path + w->pos;
        /* The user's own ".." right after: the folder is left before
         * anything beneath it is reached (CUR has no link, so going up is
         * exact). */
        if (!next_is_dotdot(rest) && w->stop(w->cur)) {
            if (asprintf(&w->out, "%s%s", w->cur, rest) < 0) {
                w->out = NULL;
                return -1;
            }
            w->at = strlen(w->cur);
            return 0;
        }
    }
    return -1;
}

int os_posix_walk_until(const char *abs, int (*stop)(const char *),
                        char **out, size_t *at, int *read_only)
{
    /* A path the kernel would not take in one call is not walked either:
     * what regtool checks before writing (its own files, by stat) could
     * not look at it, and the walk would (review 45 R45-6: "../u/" nine
     * hundred times then a link's name replaced the hive it leads to). */
    if (strlen(abs) >= PATH_MAX)
        return rt_os_refuse(ENAMETOOLONG,
                            "%s is longer than %d bytes, which the system "
                            "does not take as one path", abs, PATH_MAX);
    struct walk w = {.spelled = abs, .path = strdup(abs), .stop = stop,
                     .cur = ""};
    int rc = walk(&w);
    int err = errno;
    free(w.path);
    *out = rc == 0 ? w.out : NULL;
    *at = rc == 0 ? w.at : 0;
    if (read_only)
        *read_only = rc == 0 && w.read_only;
    if (rc != 0)
        free(w.out);
    errno = err;
    return rc;
}
#endif
