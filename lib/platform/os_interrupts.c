/* Platform layer, both systems: SIGINT and SIGTERM caught (C standard
 * signals), so that a blocked read or wait ends and a commit finishes or
 * stops cleanly (platform/os.h). */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_posix_internal.h"
#endif

#include <signal.h>

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
