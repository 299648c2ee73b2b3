/* A special file is refused before it is opened (review 38 F5): the open
 * of a device runs its driver, as root, whatever O_NONBLOCK (a watchdog
 * armed, a serial line's DTR raised), so rt_os_open looks at what stands
 * at a path first and opens only a regular file (or a folder, refused as
 * such). inotify says whether an open happened: the kernel reports every
 * open of an inode, a FIFO's and a device node's included. A FIFO stands
 * in for the device (making a device node needs root). POSIX only. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "platform/os.h"
#include "scratch.h"

/* How many opens of PATH inotify saw while each open mode was tried, in
 * the words rt_os_open refused it with (the last one) in WHY. */
static int opens_while_refused(const char *path, char *why, size_t size)
{
    int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    assert_true(in >= 0);
    assert_true(inotify_add_watch(in, path, IN_OPEN) >= 0);
    static const enum rt_os_open_mode modes[] = {
        RT_OS_READ, RT_OS_READ_AS_WRITE, RT_OS_WRITE, RT_OS_WRITE_CREATE,
        RT_OS_WRITE_TRUNC};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        errno = 0;
        assert_int_equal(rt_os_open(path, modes[i]), -1);
        assert_int_equal(errno, ENODEV);
        snprintf(why, size, "%s", rt_os_strerror(errno));
    }
    char buf[4096] __attribute__((aligned(8)));
    int opens = 0;
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const void *)p;
            opens += (ev->mask & IN_OPEN) != 0;
            p += sizeof *ev + ev->len;
        }
    close(in);
    return opens;
}

/* Outside any tree (a user's own path) and beneath a confined one: the
 * FIFO is refused by what it is, and never opened. */
static void a_fifo_is_refused_unopened(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtspecial");
    char path[600], why[1000];
    snprintf(path, sizeof path, "%s/perfc009.dat", dir);
    assert_int_equal(mkfifo(path, 0644), 0);
    assert_int_equal(opens_while_refused(path, why, sizeof why), 0);
    assert_non_null(strstr(why, "is a FIFO, not a regular file"));
    char *canon;
    assert_int_equal(rt_os_confine(dir, &canon), 0);
    snprintf(path, sizeof path, "%s/perfc009.dat", canon);
    assert_int_equal(opens_while_refused(path, why, sizeof why), 0);
    assert_non_null(strstr(why, path));
    rt_os_unconfine(canon);
    free(canon);
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

/* A regular file is opened as before, and a link to the FIFO from a
 * user's own path (followed: the user's) is refused by its target. */
static void a_file_opens_and_a_link_to_a_fifo_does_not(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtspecial");
    char file[600], fifo[600], link[600], why[1000];
    snprintf(file, sizeof file, "%s/file", dir);
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(link, sizeof link, "%s/link", dir);
    assert_int_equal(rt_os_write_new_file(file, "x", 1), 0);
    int fd = rt_os_open(file, RT_OS_READ);
    assert_true(fd >= 0);
    rt_os_close(fd);
    assert_int_equal(mkfifo(fifo, 0644), 0);
    assert_int_equal(symlink("fifo", link), 0);
    assert_int_equal(opens_while_refused(link, why, sizeof why), 0);
    assert_non_null(strstr(why, "FIFO"));
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_fifo_is_refused_unopened),
        cmocka_unit_test(a_file_opens_and_a_link_to_a_fifo_does_not),
    };
    return cmocka_run_group_tests_name("special files", tests, NULL, NULL);
}
