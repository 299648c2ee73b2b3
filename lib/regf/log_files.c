/* Transaction log files on disk (regf layer): finds NAME.LOG1, NAME.LOG2
 * and NAME.LOG beside a primary file whatever their letter case, and
 * reads the primary and its logs for a replay. */
#include "regf/log_internal.h"
#include "regf/regf_internal.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

/* Larger than any hive or log Windows writes; a bigger file is not one. */
#define MAX_FILE_SIZE ((size_t)1 << 32)

static const char *const log_ext[RT_REGF_LOG_SLOTS] = {".LOG1", ".LOG2",
                                                        ".LOG"};

struct candidate {
    char *name;
    int rank;       /* 0 exact with upper-case extension, 1 lower, 2 other */
};

static int better(const struct candidate *c, const char *name, int rank)
{
    if (!c->name)
        return 1;
    if (rank != c->rank)
        return rank < c->rank;
    return strcmp(name, c->name) < 0;
}

static int rank_of(const char *name, const char *base, const char *ext)
{
    size_t bl = strlen(base);
    if (strncmp(name, base, bl) != 0)
        return 2;
    if (strcmp(name + bl, ext) == 0)
        return 0;
    for (size_t i = 0; ext[i]; i++)
        if (name[bl + i] != (ext[i] >= 'A' && ext[i] <= 'Z' ? ext[i] + 32 : ext[i]))
            return 2;
    return 1;
}

/* PREFIX: the primary's path up to and including its last '/'. */
static char *join(const char *prefix, size_t prefixlen, const char *name)
{
    char *p = malloc(prefixlen + strlen(name) + 1);
    if (!p)
        return NULL;
    memcpy(p, prefix, prefixlen);
    strcpy(p + prefixlen, name);
    return p;
}

int rt_regf_log_find(const char *primary_path, struct rt_regf_log_paths *out)
{
    memset(out, 0, sizeof *out);
    const char *slash = strrchr(primary_path, '/');
    const char *base = slash ? slash + 1 : primary_path;
    size_t dirlen = slash ? (size_t)(slash - primary_path) : 0;
    if (!*base) {
        errno = EISDIR;
        return -1;
    }
    char *dir = slash ? strndup(primary_path, dirlen ? dirlen : 1)
                      : strdup(".");
    size_t baselen = strlen(base);
    char *want = malloc(baselen + 6);
    if (!dir || !want) {
        free(dir);
        free(want);
        errno = ENOMEM;
        return -1;
    }
    char **names;
    size_t n_names;
    if (rt_os_list_dir(dir, &names, &n_names) != 0) {
        int e = errno;
        free(dir);
        free(want);
        errno = e;
        return -1;
    }
    struct candidate best[RT_REGF_LOG_SLOTS] = {{NULL, 0}};
    int err = 0;
    for (size_t i = 0; !err && i < n_names; i++) {
        const char *name = names[i];
        size_t nl = strlen(name);
        for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
            size_t el = strlen(log_ext[s]);
            if (nl != baselen + el)
                continue;
            memcpy(want, base, baselen);
            memcpy(want + baselen, log_ext[s], el + 1);
            if (rt_utf8_casecmp(name, nl, want, nl) != 0)
                continue;
            char *full = join(primary_path, (size_t)(base - primary_path), name);
            struct rt_os_stat st;
            int regular = full && rt_os_stat(full, &st) == 0 &&
                          st.kind == RT_OS_FILE;
            free(full);
            if (!regular)
                continue;
            int rank = rank_of(name, base, log_ext[s]);
            if (!better(&best[s], name, rank))
                continue;
            char *copy = strdup(name);
            if (!copy) {
                err = ENOMEM;
                break;
            }
            free(best[s].name);
            best[s].name = copy;
            best[s].rank = rank;
        }
    }
    rt_os_free_list(names, n_names);
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        if (!err && best[s].name) {
            out->path[s] = join(primary_path, (size_t)(base - primary_path),
                                best[s].name);
            if (!out->path[s])
                err = ENOMEM;
        }
        free(best[s].name);
    }
    free(dir);
    free(want);
    if (err) {
        rt_regf_log_paths_free(out);
        errno = err;
        return -1;
    }
    return 0;
}

void rt_regf_log_paths_free(struct rt_regf_log_paths *paths)
{
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        free(paths->path[s]);
        paths->path[s] = NULL;
    }
}

/* Reads a whole regular file. Returns 0, or -1 with errno set. */
static void io_error(struct rt_regf_replay_report *r, const char *path,
                     const char *what, int err)
{
    r->status = RT_REGF_REPLAY_IO_ERROR;
    snprintf(r->message, sizeof r->message, "cannot %s '%s': %s", what, path,
             strerror(err));
}

int rt_regf_replay_file(const char *path, uint8_t **image, size_t *image_size,
                        struct rt_regf_replay_report *r)
{
    struct rt_regf_log_paths paths;
    struct rt_regf_log_input in[RT_REGF_LOG_SLOTS];
    uint8_t *primary = NULL;
    size_t primary_size = 0;
    int ret = -1;
    memset(r, 0, sizeof *r);
    memset(in, 0, sizeof in);
    memset(&paths, 0, sizeof paths);
    if (image)
        *image = NULL;
    if (image_size)
        *image_size = 0;
    /* Without IMAGE (hive check asks what a replay would apply) only
     * the part of the primary that is the hive is needed: a hive with
     * 2 GB of sparse zeros behind it is not read whole. With IMAGE the
     * file is copied as it is (hive recover of a clean hive). */
    uint64_t file_size;
    if ((image ? rt_os_read_file_max(path, MAX_FILE_SIZE, &primary,
                                     &primary_size)
               : regf_read_hive(path, MAX_FILE_SIZE, &primary, &primary_size,
                                &file_size)) != 0) {
        io_error(r, path, "read", errno);
        goto out;
    }
    if (rt_regf_log_find(path, &paths) != 0) {
        io_error(r, path, "list the directory of", errno);
        goto out;
    }
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        if (!paths.path[s])
            continue;
        uint8_t *d;
        size_t n;
        if (rt_os_read_file_max(paths.path[s], MAX_FILE_SIZE, &d, &n) != 0) {
            io_error(r, paths.path[s], "read", errno);
            goto out;
        }
        in[s].name = paths.path[s];
        in[s].data = d;
        in[s].size = n;
    }
    ret = rt_regf_replay(primary, primary_size, path, in, image, image_size, r);
out:
    if (r->status == RT_REGF_REPLAY_IO_ERROR && !r->primary_name)
        r->primary_name = strdup(path);
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        free((void *)in[s].data);
    rt_regf_log_paths_free(&paths);
    free(primary);
    return ret;
}
