/* Platform layer, both systems: SIGINT and SIGTERM caught (C standard
 * signals), so that a blocked read or wait ends and a commit finishes or
 * stops cleanly (platform/os.h). */
#include "platform/os.h"
#include "platform/os_internal.h"
#ifdef RT_OS_POSIX
#include "platform/os_posix_internal.h"
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
 * before (NAME.tmp.<time><serial>): removed by that name, as the abandon
 * path removes it. */
#define TEMPORARY_SLOTS 4
#define TEMPORARY_PATH 4096

static struct {
    char path[TEMPORARY_PATH];      /* as made, and as POSIX removes it */
#ifndef RT_OS_POSIX
    wchar_t wide[TEMPORARY_PATH];   /* converted now: a handler cannot */
#endif
    volatile sig_atomic_t used;
} temporaries[TEMPORARY_SLOTS];

void rt_os_temporary_made(const char *path)
{
    size_t n = strlen(path);
    if (n >= TEMPORARY_PATH)
        return;
    for (int i = 0; i < TEMPORARY_SLOTS; i++) {
        if (temporaries[i].used)
            continue;
        memcpy(temporaries[i].path, path, n + 1);
#ifndef RT_OS_POSIX
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
        if (temporaries[i].used && !strcmp(temporaries[i].path, path))
            temporaries[i].used = 0;
}

void rt_os_temporaries_unlink_all(void)
{
    for (int i = 0; i < TEMPORARY_SLOTS; i++)
        if (temporaries[i].used) {
#ifdef RT_OS_POSIX
            unlink(temporaries[i].path);
#else
            DeleteFileW(temporaries[i].wide);
#endif
        }
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    if (!interrupted)
        interrupted = sig == SIGTERM ? RT_OS_SIGTERM : RT_OS_SIGINT;
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
    raise(sig == RT_OS_SIGTERM ? SIGTERM : SIGINT);
}
