/* Commit layer: the file steps of a commit and of a replay (the file
 * being written, directory syncs, removals) and what a failing one needs. */
#include "commit/journal_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rt_journal_full_path(char *buf, size_t size, const char *base,
                         const char *rel)
{
    int n = snprintf(buf, size, "%s/%s", base, rel);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Opens PATH for writing, created when missing with the directories
 * above it: a commit may write a file in folders of its own (an INF
 * copy), made only from its commit point on, so a commit that never gets
 * there leaves no folder behind. */
static int open_create(const char *path)
{
    int fd = rt_os_open(path, RT_OS_WRITE_CREATE);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return -1;
    *slash = '\0';
    if (rt_os_mkdirs(dir) != 0)
        return -1;
    return rt_os_open(path, RT_OS_WRITE_CREATE);
}

/* Fsyncs and closes the current file. */
int rt_target_finish(struct target *t, struct rt_error *e)
{
    if (t->fd < 0)
        return 0;
    int r = rt_io_fsync(t->fd);
    int err = errno;
    rt_os_close(t->fd);
    t->fd = -1;
    return r ? rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", t->path,
                            rt_os_strerror(err))
             : 0;
}

/* Makes BASE/REL the current file, finishing the previous one. */
int rt_target_switch(struct target *t, const char *base, const char *rel,
                     struct rt_error *e)
{
    char path[PATH_MAX];
    if (rt_journal_full_path(path, sizeof path, base, rel) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s/%s: path too long",
                            base, rel);
    if (t->fd >= 0 && !strcmp(path, t->path))
        return 0;
    if (rt_target_finish(t, e) != 0)
        return -1;
    t->fd = open_create(path);
    if (t->fd < 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            rt_os_strerror(errno));
    snprintf(t->path, sizeof t->path, "%s", path);
    return 0;
}

static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static int dirs_note(struct dir_syncs *d, const char *path)
{
    size_t dl = dir_len(path);
    for (size_t i = 0; i < d->n; i++)
        if (dir_len(d->paths[i]) == dl && !memcmp(d->paths[i], path, dl))
            return 0;
    char **v = realloc(d->paths, (d->n + 1) * sizeof *v);
    if (!v)
        return -1;
    d->paths = v;
    if (!(v[d->n] = strdup(path)))
        return -1;
    d->n++;
    return 0;
}

void rt_dir_syncs_free(struct dir_syncs *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->paths[i]);
    free(d->paths);
    d->paths = NULL;
    d->n = 0;
}

/* Fsyncs each noted directory; one removed since is no error (its
 * removal is made durable in the directory above, which is noted too). */
int rt_dir_syncs_flush(struct dir_syncs *d, struct rt_error *e)
{
    int r = 0;
    for (size_t i = 0; i < d->n && !r; i++)
        if (rt_io_fsync_dir_of(d->paths[i]) != 0 && errno != ENOENT)
            r = rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", d->paths[i],
                             rt_os_strerror(errno));
    rt_dir_syncs_free(d);
    return r;
}

/* Removes BASE/REL (a missing file is no error: a replay after a crash
 * may find it gone), then up to PRUNE of its parent directories that it
 * leaves empty: an uninstall's INF copy goes with its folders. Each
 * removal's directory is noted in DIRS, to be fsynced. */
int rt_journal_delete_file(const char *base, const char *rel, uint64_t prune,
                           struct dir_syncs *dirs, struct rt_error *e)
{
    char path[PATH_MAX];
    if (rt_journal_full_path(path, sizeof path, base, rel) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s/%s: path too long",
                            base, rel);
    if (rt_io_unlink(path) != 0 && errno != ENOENT)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            rt_os_strerror(errno));
    if (dirs_note(dirs, path) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (uint64_t i = 0; i < prune; i++) {
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            break;
        *slash = '\0';
        /* Not empty, or gone already: left as it is. */
        if (rt_os_rmdir(path) != 0)
            break;
        if (dirs_note(dirs, path) != 0)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "out of memory");
    }
    return 0;
}

/* Reports a failed write to the current file and closes it. */
int rt_target_fail(struct target *t, struct rt_error *e)
{
    int err = errno;
    rt_os_close(t->fd);
    t->fd = -1;
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", t->path,
                        rt_os_strerror(err));
}

/* The directory holding PATH, for messages about its file system. */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", (int)(slash == path ? 1 : slash - path),
                 path);
}

/* Whether ERR is a refusal of what stands at a path (a link, a mount
 * point, a special file, a folder, a hard link), not a failure of the
 * system: the tree's writer put it there. */
int rt_is_refusal(int err)
{
    return err == ELOOP || err == EXDEV || err == ENODEV || err == EISDIR ||
           err == ENOTDIR;
}

/* What a commit failing with ERR on PATH needs, in a few words. */
void rt_failure_needs(int err, const char *path, uint64_t bytes, char *buf,
                      size_t size)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
#ifndef _WIN32
    if (err == EPERM)
        /* Refused even to root: an inode flag (lsattr's i or a), or a
         * permission a user lacks. */
        snprintf(buf, size, "run as a user who can write %s, and clear "
                 "its immutable or append-only flag if it has one "
                 "(lsattr, chattr -i -a)", path);
    else
#endif
    if (err == EACCES || err == EPERM)
        snprintf(buf, size, "run as a user who can write %s", path);
    else if (err == EROFS)
        snprintf(buf, size, "%s is on a read-only file system: make it "
                 "writable", path);
    else if (err == ENOSPC) {
        uint64_t free_b = 0;
        if (rt_os_free_space(dir, &free_b) != 0)
            free_b = 0;
        if (bytes > free_b)
            snprintf(buf, size, "free %llu bytes on the file system of %s "
                     "(it needs %llu, %llu are free)",
                     (unsigned long long)(bytes - free_b), dir,
                     (unsigned long long)bytes, (unsigned long long)free_b);
        else
            snprintf(buf, size, "free space on the file system of %s (it "
                     "needs %llu bytes)", dir, (unsigned long long)bytes);
    } else
        snprintf(buf, size, "%s to be writable (%s)", path, rt_os_strerror(err));
}

/* Whether the directory holding PATH exists. */
int rt_parent_exists(const char *path)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    return rt_os_is_dir(dir);
}

/* A file the commit creates in folders it makes from its commit point
 * on: what is there of those folders must be folders, reached without a
 * link (a planted INF\<driver> link would otherwise fail the commit
 * after its commit point). 0, or -1 with E set. */
int rt_folders_ok(const char *path, struct rt_error *e)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    for (;;) {
        struct rt_os_stat st;
        if (rt_os_stat(dir, &st) != 0)
            return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                                "%s: %s; nothing was written", dir,
                                rt_os_strerror(errno));
        if (st.kind == RT_OS_DIR)
            return 0;
        if (st.kind != RT_OS_ABSENT)
            return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                                "%s is not a folder (a file, a link or a "
                                "device stands where the commit makes one); "
                                "nothing was written", dir);
        char up[PATH_MAX];
        dir_of(dir, up, sizeof up);
        if (!strcmp(up, dir))
            return 0;
        snprintf(dir, sizeof dir, "%s", up);
    }
}

/* E for a commit that could not open PATH for writing (ERR, from
 * rt_os_open, whose words for a refusal are taken now). */
int rt_open_refused(const char *path, int err, struct rt_error *e)
{
    char reason[700], why[PATH_MAX + 200];
    snprintf(reason, sizeof reason, "%s", rt_os_strerror(err));
    int named = rt_os_refusal_named(err);
    rt_failure_needs(err, path, 0, why, sizeof why);
    /* A refusal's words name the path and what stands there; a folder
     * where the file is ("Is a directory") is named here. */
    if (rt_is_refusal(err))
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s%s%s; nothing was "
                            "written", named ? "" : path, named ? "" : ": ",
                            reason);
    return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                         : RT_ERR_ACCESS_DENIED,
                        "%s: %s; nothing was written: %s", path, reason, why);
}
