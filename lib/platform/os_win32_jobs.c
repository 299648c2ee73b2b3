/* Platform layer: jobs on Windows (os.h): no fork, so the jobs run one
 * after the other in this process, each result written to a temporary
 * file and read back; a crash in one ends the run. */
#include "platform/os.h"
#ifdef RT_OS_WIN32

#include <errno.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void run_here(size_t job, rt_jobs_work_fn work, rt_jobs_done_fn done,
                     void *ctx)
{
    FILE *t = tmpfile();
    if (!t) {
        done(ctx, job, "", 0, -1000 - errno);
        return;
    }
    int rc = work(ctx, job, t);
    long size = fflush(t) == 0 ? ftell(t) : -1;
    char *buf = size >= 0 ? malloc((size_t)size + 1) : NULL;
    size_t len = 0;
    if (buf) {
        rewind(t);
        len = fread(buf, 1, (size_t)size, t);
        buf[len] = '\0';
    } else if (rc == 0) {
        rc = 125;
    }
    fclose(t);
    done(ctx, job, buf ? buf : "", len, rc ? -(rc & 0xff) : 0);
    free(buf);
}

int rt_os_run_jobs(size_t n, unsigned workers, rt_jobs_work_fn work,
                   rt_jobs_done_fn done, void *ctx)
{
    (void)workers;
    for (size_t i = 0; i < n; i++) {
        if (rt_os_interrupted())
            return rt_os_interrupted();
        fflush(stdout);
        fflush(stderr);
        run_here(i, work, done, ctx);
    }
    return 0;
}

unsigned rt_os_cpu_count(void)
{
    return 1;   /* the jobs run in turn here, whatever the processors */
}

int rt_os_stderr_is_terminal(void)
{
    return _isatty(_fileno(stderr)) ? 1 : 0;
}
#endif
