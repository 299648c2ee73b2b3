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
#include <unistd.h>
#else
#include <windows.h>
#endif

#include <signal.h>
#include <string.h>

/* --- temporaries in flight ----------------------------------------------
 * Fixed slots, each written whole before it is marked in use and marked
 * free before it is reused, so that a handler running between two
 * statements sees a whole name or none. The name is ours, made a moment
 * before (NAME.tmp.<time><serial>). POSIX removes it in the folder it was
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

void rt_os_temporary_gone(const char *path)
{
    for (int i = 0; i < TEMPORARY_SLOTS; i++)
        if (temporaries[i].used && !strcmp(temporaries[i].path, path)) {
            temporaries[i].used = 0;
#ifdef RT_OS_POSIX
            close(temporaries[i].dir);
#endif
        }
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
