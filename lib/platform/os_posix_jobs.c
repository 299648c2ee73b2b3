/* Platform layer: jobs in worker processes on POSIX (os.h): a child
 * forked per job, so a job's memory is given back when it ends and a
 * crash or a kill is that job's alone; its result comes back through a
 * pipe the parent polls with the others'. */
#include "platform/os.h"
#ifdef RT_OS_POSIX

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef RT_COVERAGE
/* libgcov's: writes this process's counters (make coverage, COV=1). */
void __gcov_dump(void);
#endif

struct slot {
    pid_t pid;          /* 0: free */
    int fd;             /* the read end of the job's result pipe */
    size_t job;
    char *buf;
    size_t len, cap;
};

struct pool {
    struct slot *slots;
    unsigned n_slots;
    rt_jobs_work_fn work;
    rt_jobs_done_fn done;
    void *ctx;
};

/* In the child: the job, its result into the pipe, and the child's end.
 * Never returns; _exit, so that nothing the parent had buffered is
 * written twice. */
static void run_child(struct pool *p, size_t job, int wfd)
{
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    for (unsigned i = 0; i < p->n_slots; i++)
        if (p->slots[i].pid > 0)
            close(p->slots[i].fd);
    FILE *out = fdopen(wfd, "w");
    int rc = out ? p->work(p->ctx, job, out) : 126;
    if (out && fclose(out) != 0 && rc == 0)
        rc = 125;
    fflush(stdout);
    fflush(stderr);
#ifdef RT_COVERAGE
    /* _exit skips the handler that writes the counters: without this,
     * what a job runs (a fleet audit's every audit) would never count. */
    __gcov_dump();
#endif
    _exit(rc & 0xff); /* LCOV_EXCL_LINE: runs after the counters' write */
}

/* Starts JOB in slot S; -1 with errno when no worker could be made. */
static int start(struct pool *p, struct slot *s, size_t job)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        run_child(p, job, fds[1]);
    }
    close(fds[1]);
    s->pid = pid;
    s->fd = fds[0];
    s->job = job;
    s->len = 0;
    return 0;
}

static int wait_for(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    if (WIFSIGNALED(st))
        return WTERMSIG(st);
    return WIFEXITED(st) ? -WEXITSTATUS(st) : -1;
}

/* S's worker closed its pipe: its result, how it ended, to DONE. */
static void finish(struct pool *p, struct slot *s)
{
    close(s->fd);
    int ended = wait_for(s->pid);
    s->pid = 0;
    p->done(p->ctx, s->job, s->buf ? s->buf : "", s->len, ended);
}

/* Reads what S's worker wrote so far; 1 at the end of it, 0 for more to
 * come, -1 out of memory. */
static int take(struct slot *s)
{
    if (s->cap - s->len < 4097) {
        size_t cap = s->cap ? s->cap * 2 : 16384;
        char *b = realloc(s->buf, cap);
        if (!b)
            return -1;
        s->buf = b;
        s->cap = cap;
    }
    ssize_t r = read(s->fd, s->buf + s->len, s->cap - s->len - 1);
    if (r < 0)
        return errno == EINTR || errno == EAGAIN ? 0 : 1;
    s->len += (size_t)r;
    s->buf[s->len] = '\0';
    return r == 0;
}

static void stop_all(struct pool *p)
{
    for (unsigned i = 0; i < p->n_slots; i++)
        if (p->slots[i].pid > 0)
            kill(p->slots[i].pid, SIGTERM);
    for (unsigned i = 0; i < p->n_slots; i++)
        if (p->slots[i].pid > 0) {
            close(p->slots[i].fd);
            wait_for(p->slots[i].pid);
            p->slots[i].pid = 0;
        }
}

/* Fills the free slots with the next jobs. When no worker can be made
 * (the system's process limit), the job waits for a running one to end;
 * with none running, it ends at once, said so to DONE. */
static void fill(struct pool *p, size_t n, size_t *next)
{
    for (unsigned i = 0; i < p->n_slots && *next < n; i++) {
        if (p->slots[i].pid > 0 || rt_os_interrupted())
            continue;
        if (start(p, &p->slots[i], *next) == 0) {
            (*next)++;
            continue;
        }
        int err = errno, running = 0;
        for (unsigned k = 0; k < p->n_slots; k++)
            running |= p->slots[k].pid > 0;
        if (running)
            return;
        p->done(p->ctx, (*next)++, "", 0, -1000 - err);
    }
}

static int run(struct pool *p, size_t n)
{
    struct pollfd *pfd = calloc(p->n_slots, sizeof *pfd);
    unsigned *of = calloc(p->n_slots, sizeof *of);
    size_t next = 0;
    int rc = 0;
    if (!pfd || !of) {
        rc = -1;
        goto out;
    }
    for (;;) {
        fill(p, n, &next);
        if (rt_os_interrupted()) {
            stop_all(p);
            rc = rt_os_interrupted();
            break;
        }
        nfds_t k = 0;
        for (unsigned i = 0; i < p->n_slots; i++)
            if (p->slots[i].pid > 0) {
                pfd[k].fd = p->slots[i].fd;
                pfd[k].events = POLLIN;
                pfd[k].revents = 0;
                of[k++] = i;
            }
        /* None running, jobs left: the last pass could start none of
         * them (each it tried was told so), and the next pass goes on
         * with the rest. */
        if (k == 0) {
            if (next < n)
                continue;
            break;
        }
        /* A timeout, so that an interrupt between the check above and
         * the poll is seen soon all the same. */
        if (poll(pfd, k, 200) < 0 && errno != EINTR) {
            stop_all(p);
            rc = -1;
            break;
        }
        for (nfds_t j = 0; j < k; j++) {
            if (!pfd[j].revents)
                continue;
            struct slot *s = &p->slots[of[j]];
            int t = take(s);
            if (t < 0) {
                stop_all(p);
                errno = ENOMEM;
                rc = -1;
                goto out;
            }
            if (t > 0)
                finish(p, s);
        }
    }
out:
    free(pfd);
    free(of);
    return rc;
}

int rt_os_run_jobs(size_t n, unsigned workers, rt_jobs_work_fn work,
                   rt_jobs_done_fn done, void *ctx)
{
    if (workers < 1)
        workers = 1;
    if (workers > n)
        workers = n ? (unsigned)n : 1;
    struct pool p = {calloc(workers, sizeof(struct slot)), workers, work,
                     done, ctx};
    if (!p.slots)
        return -1;
    int rc = run(&p, n);
    for (unsigned i = 0; i < workers; i++)
        free(p.slots[i].buf);
    free(p.slots);
    return rc;
}

unsigned rt_os_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int rt_os_stderr_is_terminal(void)
{
    return isatty(2) ? 1 : 0;
}

#endif
