/* Platform layer: the progress listener (progress.h). */
#include "platform/progress.h"
#include "platform/os.h"

#include <stdio.h>
#ifdef RT_OS_WIN32
#include <io.h>
#else
#include <unistd.h>
#endif

static rt_progress_fn listener;
static void *listener_ctx;

void rt_progress_listen(rt_progress_fn fn, void *ctx)
{
    listener = fn;
    listener_ctx = ctx;
}

void rt_progress_report(const char *stage, size_t done, size_t total)
{
    if (listener)
        listener(listener_ctx, stage, done, total);
}

int rt_progress_stderr_is_terminal(void)
{
#ifdef RT_OS_WIN32
    return _isatty(_fileno(stderr)) != 0;
#else
    return isatty(STDERR_FILENO) == 1;
#endif
}
