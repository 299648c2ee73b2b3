/* The platform layer's worker processes (rt_os_run_jobs, platform/os.h):
 * every job's result reaches the parent whole, however large and whatever
 * the number of workers; a worker that crashes, is killed or exits with
 * a status loses its own job only, said so by how it ended; nothing a job
 * changes in memory is seen by the next. POSIX only (fork). */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "platform/os.h"

#define N_JOBS 12
#define BIG_JOB 5               /* writes more than a pipe holds */
#define BIG_LEN (300 * 1000)

struct seen {
    int calls[N_JOBS];
    int ended[N_JOBS];
    size_t len[N_JOBS];
    int text_ok[N_JOBS];
};

static int touched;     /* set by jobs: a worker's copy, never ours */

static int work(void *ctx, size_t job, FILE *out)
{
    (void)ctx;
    touched++;
    if (job == 3)
        abort();
    if (job == 7)
        raise(SIGKILL);
    if (job == 9)
        return 5;
    if (job == BIG_JOB) {
        for (size_t i = 0; i < BIG_LEN; i++)
            fputc('a' + (int)(i % 26), out);
        return 0;
    }
    fprintf(out, "job %zu touched %d\n", job, touched);
    return 0;
}

static void done(void *ctx, size_t job, const char *data, size_t len,
                 int ended)
{
    struct seen *s = ctx;
    assert_true(job < N_JOBS);
    s->calls[job]++;
    s->ended[job] = ended;
    s->len[job] = len;
    if (job == BIG_JOB) {
        int ok = len == BIG_LEN;
        for (size_t i = 0; ok && i < len; i++)
            ok = data[i] == 'a' + (int)(i % 26);
        s->text_ok[job] = ok;
    } else {
        char want[64];
        snprintf(want, sizeof want, "job %zu touched 1\n", job);
        s->text_ok[job] = !strcmp(data, want) && strlen(data) == len;
    }
}

static void run_with(unsigned workers)
{
    struct seen s;
    memset(&s, 0, sizeof s);
    assert_int_equal(rt_os_run_jobs(N_JOBS, workers, work, done, &s), 0);
    assert_int_equal(touched, 0);
    for (size_t j = 0; j < N_JOBS; j++) {
        assert_int_equal(s.calls[j], 1);
        if (j == 3) {
            assert_int_equal(s.ended[j], SIGABRT);
        } else if (j == 7) {
            assert_int_equal(s.ended[j], SIGKILL);
        } else if (j == 9) {
            assert_int_equal(s.ended[j], -5);
        } else {
            assert_int_equal(s.ended[j], 0);
            assert_true(s.text_ok[j]);
        }
    }
}

static void one_worker(void **state)
{
    (void)state;
    run_with(1);
}

static void four_workers(void **state)
{
    (void)state;
    run_with(4);
}

static void more_workers_than_jobs(void **state)
{
    (void)state;
    run_with(64);
}

static void no_jobs(void **state)
{
    (void)state;
    struct seen s;
    memset(&s, 0, sizeof s);
    assert_int_equal(rt_os_run_jobs(0, 4, work, done, &s), 0);
    assert_int_equal(s.calls[0], 0);
    assert_true(rt_os_cpu_count() >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_worker),
        cmocka_unit_test(four_workers),
        cmocka_unit_test(more_workers_than_jobs),
        cmocka_unit_test(no_jobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
