/* Runs a command and reports its wall time and peak resident set size,
 * for bench/run.sh (getrusage of the child: no /usr/bin/time needed).
 *
 *   timeit OUT CMD [ARG...]
 *
 * Writes "SECONDS PEAK_RSS_KB" to OUT and exits with CMD's status (127
 * when it cannot be run, 128+N when killed by signal N). */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: timeit OUT CMD [ARG...]\n", stderr);
        return 64;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("timeit: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) {
        perror("timeit: wait4");
        return 127;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) +
               (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "%.6f %ld\n", s, ru.ru_maxrss) < 0 || fclose(f)) {
        perror(argv[1]);
        return 127;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status)
                             : 128 + WTERMSIG(status);
}
