/* Commit layer: the writer lock. */
#include "commit/journal_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rt_lock {
    int fd;
    int exclusive;
};

/* The holder's note at the start of the lock file: "pid N started T". */
static void holder(int fd, const char *lock_path, char *buf, size_t size)
{
    char note[128] = "";
    long long got = rt_os_pread(fd, note, sizeof note - 1, 0);
    long pid = 0;
    long long when = 0;
    note[got > 0 ? got : 0] = '\0';
    if (sscanf(note, "pid %ld started %lld", &pid, &when) == 2 && pid > 0) {
        char t[64] = "?";
        time_t tt = (time_t)when;
        struct tm *tm = gmtime(&tt);
        if (tm)
            strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S UTC", tm);
        snprintf(buf, size, "another regtool (pid %ld, started %s) holding %s",
                 pid, t, lock_path);
    } else {
        snprintf(buf, size, "another regtool (reading) holding %s", lock_path);
    }
}

int rt_flags_refused(int fd, const char *path, const char *who,
                     struct rt_error *e)
{
    int r = fd >= 0 ? rt_os_fd_replaceable(fd, path)
                    : rt_os_name_replaceable(path);
    if (r != 0 && errno == EPERM)
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s is immutable or append-only (chattr +i, "
                            "+a): %s; nothing was written", path, who);
    return 0;
}

int rt_lock_check(const char *lock_path, struct rt_error *e)
{
    if (!rt_os_exists(lock_path))
        return 0;
    int fd = rt_os_open(lock_path, RT_OS_READ_AS_WRITE);
    if (fd < 0)
        return rt_open_refused(lock_path, errno, e);
    /* The writer opens it for writing, which an immutable or append-only
     * file refuses (review 53 R53-6: the dry run said nothing). */
    int r = rt_flags_refused(fd, lock_path, "no writer can take it", e);
    rt_os_close(fd);
    return r;
}

static int take(const char *lock_path, int shared, const struct rt_lock_wait *w,
                struct rt_lock **out, struct rt_error *e)
{
    struct rt_lock *l = calloc(1, sizeof *l);
    if (!l)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    l->exclusive = !shared;
    /* A reader never creates the lock file, and does without a lock where
     * it cannot open it for writing (read-only media, another user's). */
    l->fd = rt_os_open(lock_path, shared ? RT_OS_WRITE : RT_OS_WRITE_CREATE);
    if (l->fd < 0) {
        int err = errno;
        free(l);
        if (shared) {
            *out = NULL;
            return 0;
        }
        if (err == EPERM &&
            rt_flags_refused(-1, lock_path, "no writer can take it", e) != 0)
            return -1;
        return rt_open_refused(lock_path, err, e);
    }
    /* The holder's note truncates and writes the file: never anything
     * but a regular file (a FIFO or device planted there is not ours to
     * write, and could block). */
    struct rt_os_stat st;
    if (rt_os_fstat(l->fd, &st) != 0 || st.kind != RT_OS_FILE) {
        rt_os_close(l->fd);
        free(l);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s is not a regular file, so it cannot be the "
                            "writer lock; nothing was written (remove it "
                            "after checking what it is)", lock_path);
    }
    uint64_t start = rt_os_monotonic_ms();
    int said = 0;
    char who[PATH_MAX + 160] = "";
    while (rt_os_trylock(l->fd, shared) != 0) {
        int err = errno;
        if (err != EWOULDBLOCK && err != EBUSY) {
            rt_os_close(l->fd);
            free(l);
            return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                                "%s: %s; nothing was written", lock_path,
                                rt_os_strerror(err));
        }
        holder(l->fd, lock_path, who, sizeof who);
        int limit = w ? w->seconds : -1;
        if (!said && limit != 0 && w && w->notice) {
            char line[PATH_MAX + 200];
            snprintf(line, sizeof line, "waiting for %s", who);
            w->notice(w->ctx, line);
        }
        said = 1;
        if (rt_os_interrupted() ||
            (limit >= 0 &&
             rt_os_monotonic_ms() - start >= (uint64_t)limit * 1000u)) {
            rt_os_close(l->fd);
            free(l);
            if (rt_os_interrupted())
                return rt_error_set(e, RT_ERR_CANCELLED,
                                    "interrupted while waiting for %s: "
                                    "nothing changed", who);
            return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                                "gave up after %d s waiting for %s; nothing "
                                "was written ('regtool --wait SECONDS' waits "
                                "longer)",
                                limit, who);
        }
        rt_os_sleep_ms(100);
    }
    if (!shared) {
        char note[96];
        int n = snprintf(note, sizeof note, "pid %ld started %lld\n",
                         rt_os_getpid(), (long long)time(NULL));
        /* Who holds it, for those who wait; not a commit write. */
        if (rt_os_ftruncate(l->fd, 0) != 0 ||
            rt_os_pwrite(l->fd, note, (size_t)n, 0) != 0) {
            /* The lock holds without the note. */
        }
    }
    *out = l;
    return 0;
}

int rt_lock_acquire(const char *lock_path, const struct rt_lock_wait *w,
                    struct rt_lock **out, struct rt_error *e)
{
    return take(lock_path, 0, w, out, e);
}

int rt_lock_acquire_shared(const char *lock_path, const struct rt_lock_wait *w,
                           struct rt_lock **out, struct rt_error *e)
{
    return take(lock_path, 1, w, out, e);
}

void rt_lock_release(struct rt_lock *l)
{
    if (!l)
        return;
    if (l->exclusive)
        rt_os_ftruncate(l->fd, 0);   /* no holder any more */
    rt_os_close(l->fd);   /* closing drops the lock */
    free(l);
}
