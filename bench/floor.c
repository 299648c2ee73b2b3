/* The benchmark's floor: what rewriting the database costs at the least.
 * Reads each FILE whole (SOFTWARE, SYSTEM and, in the files layout, the
 * .dat tables), writes a copy of it beside it (FILE.floor) and fsyncs
 * the copy. bench/run.sh times it in the same run as regtool's
 * operations, on the same fresh copies, and reports each operation's
 * time over it.
 *
 *   floor FILE...
 *
 * Plain POSIX on purpose: no regtool code, nothing clever. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int copy_one(const char *path)
{
    char out[4200];
    struct stat st;
    int in = open(path, O_RDONLY);
    if (in < 0 || fstat(in, &st) != 0) {
        fprintf(stderr, "floor: %s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t len = (size_t)st.st_size, got = 0;
    char *buf = malloc(len ? len : 1);
    while (buf && got < len) {
        ssize_t r = read(in, buf + got, len - got);
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(in);
    if (!buf || got != len) {
        fprintf(stderr, "floor: reading %s failed\n", path);
        free(buf);
        return -1;
    }
    snprintf(out, sizeof out, "%s.floor", path);
    int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    size_t done = 0;
    while (fd >= 0 && done < len) {
        ssize_t w = write(fd, buf + done, len - done);
        if (w <= 0)
            break;
        done += (size_t)w;
    }
    free(buf);
    if (fd < 0 || done != len || fsync(fd) != 0 || close(fd) != 0) {
        fprintf(stderr, "floor: %s: %s\n", out, strerror(errno));
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: floor FILE...\n", stderr);
        return 64;
    }
    for (int i = 1; i < argc; i++)
        if (copy_one(argv[i]) != 0)
            return 3;
    return 0;
}
