/* Platform layer, both systems: SIGINT and SIGTERM caught (C standard
 * signals; SIGHUP too on POSIX), so that a blocked read or wait ends and a commit finishes or
 * stops cleanly (platform/os.h). */
#include "platform/os.h"
#include "platform/os_internal.h"
#ifdef RT_OS_POSIX
#include "platform/os_posix_internal.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <unistd.h>
#else
#include <io.h>
#include <windows.h>
#endif

#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* --- temporaries in flight ----------------------------------------------
 * Fixed slots, each written whole before it is marked in use and marked
 * free before it is reused, so that a handler running between two
 * statements sees a whole name or none. The name is ours, made a moment
 * before (NAME.tmp.<16 hex digits>). POSIX removes it in the folder it was
 * made in, held open since (a folder on the way swapped for a link would
 * lead a removal by its path out of the tree); Windows by its path, as
 * no folder holding a file open can be renamed there. */
#define TEMPORARY_SLOTS 4
#define TEMPORARY_PATH 4096

static struct {
    char path[TEMPORARY_PATH];      /* as made: what rt_os_temporary_gone
                                       names */
#ifdef RT_OS_POSIX
    int dir;                        /* the folder it lies in, held */
    char leaf[NAME_MAX + 1];        /* its name there */
#else
    wchar_t wide[TEMPORARY_PATH];   /* converted now: a handler cannot */
#endif
    volatile sig_atomic_t used;
} temporaries[TEMPORARY_SLOTS];

#ifdef RT_OS_POSIX
static _Thread_local sigset_t held_mask;

void rt_os_interrupts_held(int hold)
{
    if (hold) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGINT);
        sigaddset(&s, SIGTERM);
        sigaddset(&s, SIGHUP);
        pthread_sigmask(SIG_BLOCK, &s, &held_mask);
    } else {
        pthread_sigmask(SIG_SETMASK, &held_mask, NULL);
    }
}
#else
void rt_os_interrupts_held(int hold)
{
    (void)hold;
}
#endif

void rt_os_temporary_made(const char *path, int fd)
{
    size_t n = strlen(path);
    if (n >= TEMPORARY_PATH)
        return;
    for (int i = 0; i < TEMPORARY_SLOTS; i++) {
        if (temporaries[i].used)
            continue;
        memcpy(temporaries[i].path, path, n + 1);
#ifdef RT_OS_POSIX
        if (os_posix_folder_of_made(path, fd, &temporaries[i].dir,
                                    temporaries[i].leaf) != 0)
            return;
#else
        (void)fd;
        if (!MultiByteToWideChar(CP_UTF8, 0, path, -1, temporaries[i].wide,
                                 TEMPORARY_PATH))
            return;
#endif
        temporaries[i].used = 1;
        return;
    }
}

/* The slot recording temporary PATH, or -1. */
static int slot_of(const char *path)
{
    for (int i = 0; i < TEMPORARY_SLOTS; i++)
        if (temporaries[i].used && !strcmp(temporaries[i].path, path))
            return i;
    return -1;
}

void rt_os_temporary_gone(const char *path)
{
    int i = slot_of(path);
    if (i < 0)
        return;
    temporaries[i].used = 0;
#ifdef RT_OS_POSIX
    close(temporaries[i].dir);
#endif
}

void rt_os_temporary_remove(const char *path)
{
    int i = slot_of(path);
    if (i < 0) {
        rt_os_unlink(path);
        return;
    }
#ifdef RT_OS_POSIX
    unlinkat(temporaries[i].dir, temporaries[i].leaf, 0);
#else
    DeleteFileW(temporaries[i].wide);
#endif
    rt_os_temporary_gone(path);
}

#ifdef RT_OS_POSIX
/* The slot of temporary TMP, with NAME's name in its folder (*LEAF),
 * when NAME lies in the folder TMP was made in, spelled alike; -1
 * otherwise. */
static int beside(const char *tmp, const char *name, const char **leaf)
{
    int i = slot_of(tmp);
    const char *ts = rt_os_last_separator(tmp);
    const char *ns = rt_os_last_separator(name);
    if (i < 0 || !ts || !ns || ts - tmp != ns - name ||
        strncmp(tmp, name, (size_t)(ts - tmp)) != 0)
        return -1;
    *leaf = ns + 1;
    return i;
}
#endif

/* NAME, beside the temporary TMP, made new and empty (MAKE) or removed. */
static int claim_or_unclaim(const char *tmp, const char *name, int make)
{
#ifdef RT_OS_POSIX
    const char *leaf;
    int i = beside(tmp, name, &leaf);
    if (i >= 0 && !make)
        return unlinkat(temporaries[i].dir, leaf, 0);
    if (i >= 0) {
        int fd = openat(temporaries[i].dir, leaf,
                        O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC |
                            O_NONBLOCK,
                        0644);
        return fd < 0 ? -1 : close(fd);
    }
#else
    (void)tmp;
#endif
    if (!make)
        return rt_os_unlink(name);
    int fd = rt_os_open(name, RT_OS_WRITE_NEW);
    return fd < 0 ? -1 : rt_os_close(fd);
}

int rt_os_temporary_claim(const char *tmp, const char *name)
{
    return claim_or_unclaim(tmp, name, 1);
}

void rt_os_temporary_unclaim(const char *tmp, const char *name)
{
    (void)claim_or_unclaim(tmp, name, 0);
}

int rt_os_temporary_rename(const char *tmp, const char *name)
{
#ifdef RT_OS_POSIX
    const char *leaf;
    int i = beside(tmp, name, &leaf);
    if (i >= 0)
        return renameat(temporaries[i].dir, temporaries[i].leaf,
                        temporaries[i].dir, leaf);
#endif
    return rt_os_rename(tmp, name);
}

int rt_os_temporaries_unlink_all(void)
{
    int found = 0;
    for (int i = 0; i < TEMPORARY_SLOTS; i++)
        if (temporaries[i].used) {
#ifdef RT_OS_POSIX
            int gone = unlinkat(temporaries[i].dir, temporaries[i].leaf, 0) == 0;
            int placed = !gone && errno == ENOENT;
#else
            int gone = DeleteFileW(temporaries[i].wide) != 0;
            int placed = !gone && GetLastError() == ERROR_FILE_NOT_FOUND;
#endif
            found |= gone ? RT_OS_SAVE_LEFT : placed ? RT_OS_SAVE_PLACED : 0;
        }
    return found;
}

/* --- ending at once -----------------------------------------------------
 * The words said when an interrupt ends a verb that did not take
 * interrupts over: [0] nothing was being saved, [1] a temporary removed
 * (its file left as it was), [2] one renamed into place just before. */
static const char *end_message[3];

static void on_interrupt_end(int sig)
{
    int found = rt_os_temporaries_unlink_all();
    const char *m = end_message[found & RT_OS_SAVE_LEFT    ? 1
                                : found & RT_OS_SAVE_PLACED ? 2
                                                            : 0];
    if (m) {
#ifdef RT_OS_POSIX
        ssize_t w = write(2, m, strlen(m));
        (void)w;
#else
        _write(2, m, (unsigned)strlen(m));
#endif
    }
    _exit(128 + sig);
}

void rt_os_end_on_interrupts(const char *message, const char *saving_left,
                             const char *saving_placed)
{
    end_message[0] = message;
    end_message[1] = saving_left;
    end_message[2] = saving_placed;
#ifdef RT_OS_POSIX
    os_posix_catch(on_interrupt_end);
#else
    signal(SIGINT, on_interrupt_end);
    signal(SIGTERM, on_interrupt_end);
#endif
}

/* --- taken over ---------------------------------------------------------- */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    if (!interrupted)
        interrupted = sig == SIGTERM ? RT_OS_SIGTERM
#ifdef SIGHUP
                      : sig == SIGHUP ? RT_OS_SIGHUP
#endif
                                      : RT_OS_SIGINT;
#ifndef RT_OS_POSIX
    signal(sig, on_interrupt);   /* the C library may have reset it */
#endif
}

void rt_os_catch_interrupts(void)
{
#ifdef RT_OS_POSIX
    os_posix_catch(on_interrupt);
#else
    signal(SIGINT, on_interrupt);
    signal(SIGTERM, on_interrupt);
#endif
}

int rt_os_interrupted(void)
{
    return interrupted;
}

void rt_os_raise(int sig)
{
#ifdef SIGHUP
    if (sig == RT_OS_SIGHUP) {
        raise(SIGHUP);
        return;
    }
#endif
    raise(sig == RT_OS_SIGTERM ? SIGTERM : SIGINT);
}
