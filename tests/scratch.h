/* Scratch directories for tests, on the platform layer so that the same
 * tests build natively and for Windows: a fresh directory under TMPDIR (or
 * TEMP), and its removal with everything in it. */
#ifndef TEST_SCRATCH_H
#define TEST_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "platform/os.h"

/* A new, empty directory named PREFIX-...; a malloc'd path. Aborts when
 * none can be made. */
static inline char *scratch_dir_new(const char *prefix)
{
    const char *base = getenv("TMPDIR");
    if (!base || !*base)
        base = getenv("TEMP");
    static unsigned serial;
    for (int tries = 0; tries < 100; tries++) {
        char *dir;
        if (asprintf(&dir, "%s/%s-%lx-%x-%x", base && *base ? base : "/tmp",
                     prefix, (unsigned long)time(NULL), (unsigned)rand(),
                     ++serial) < 0)
            abort();
        if (rt_os_mkdir(dir) == 0)
            return dir;
        free(dir);
    }
    abort();
}

/* Removes PATH and everything under it; 0, or -1 when something stayed. */
static inline int scratch_remove(const char *path)
{
    int rc = 0;
    if (!rt_os_is_dir(path))
        return rt_os_unlink(path) == 0 || !rt_os_exists(path) ? 0 : -1;
    char **names;
    size_t n;
    if (rt_os_list_dir(path, &names, &n) == 0) {
        for (size_t i = 0; i < n; i++) {
            char *p;
            if (asprintf(&p, "%s/%s", path, names[i]) < 0)
                abort();
            rc |= scratch_remove(p);
            free(p);
        }
        rt_os_free_list(names, n);
    }
    return rt_os_rmdir(path) == 0 ? rc : -1;
}

#endif
