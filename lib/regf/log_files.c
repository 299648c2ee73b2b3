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
#define MAX_FILE_SIZE ((uint64_t)1 << 32)

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

/* What the entry FULL is when it is no regular file, in words; "" when it
 * is gone; NULL for a regular file. Not followed: beneath a confined
 * folder a link is reported as one (and on Windows refused by name,
 * ELOOP). */
static const char *entry_kind(const char *full)
{
    struct rt_os_stat st;
    if (rt_os_stat(full, &st) != 0)
        return errno == ELOOP ? "a symbolic link or junction"
                              : "an entry that cannot be looked at";
    if (st.kind == RT_OS_ABSENT)
        return "";
    if (st.kind != RT_OS_FILE)
        return st.what ? st.what : "not a regular file";
    return NULL;
}

/* NAME (of RANK) taken as C when better than C's. With TWIN (regular
 * files), a second name for one log is kept there, the one passed over
 * (the first two seen are all a refusal names). 0, or -1 when out of
 * memory. */
static int keep(struct candidate *c, char **twin, const char *name, int rank)
{
    int take = better(c, name, rank);
    if (twin && c->name && !*twin &&
        !(*twin = strdup(take ? c->name : name)))
        return -1;
    if (!take)
        return 0;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    free(c->name);
    c->name = copy;
    c->rank = rank;
    return 0;
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
    struct candidate odd[RT_REGF_LOG_SLOTS] = {{NULL, 0}};
    char *twin[RT_REGF_LOG_SLOTS] = {NULL};
    const char *odd_what[RT_REGF_LOG_SLOTS] = {NULL};
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
            if (!full) {
                err = ENOMEM;
                break;
            }
            const char *what = entry_kind(full);
            free(full);
            if (what && !*what)
                continue;
            int rank = rank_of(name, base, log_ext[s]);
            if (keep(what ? &odd[s] : &best[s], what ? NULL : &twin[s], name,
                     rank) != 0) {
                err = ENOMEM;
                break;
            }
            if (what && odd[s].name && !strcmp(odd[s].name, name))
                odd_what[s] = what;
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
        if (!err && odd[s].name) {
            out->not_file[s] = join(primary_path,
                                    (size_t)(base - primary_path),
                                    odd[s].name);
            out->not_file_what[s] = odd_what[s];
            if (!out->not_file[s])
                err = ENOMEM;
        }
        free(odd[s].name);
        if (!err && twin[s]) {
            out->twin[s] = join(primary_path, (size_t)(base - primary_path),
                                twin[s]);
            if (!out->twin[s])
                err = ENOMEM;
        }
        free(twin[s]);
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
        free(paths->not_file[s]);
        free(paths->twin[s]);
        paths->path[s] = paths->not_file[s] = paths->twin[s] = NULL;
        paths->not_file_what[s] = NULL;
    }
}

static void io_error(struct rt_regf_replay_report *r, const char *path,
                     const char *what, int err)
{
    r->status = RT_REGF_REPLAY_IO_ERROR;
    snprintf(r->message, sizeof r->message, "cannot %s '%s': %s", what, path,
             rt_os_strerror(err));
}

/* Opens PATH for reading and checks, on the descriptor, that it is a
 * regular file no larger than MAX_FILE_SIZE: what was opened is what is
 * read, whatever the name names by now. A descriptor, or -1 with the
 * status and message set in R. */
static int open_regular(const char *path, struct rt_os_stat *st,
                        struct rt_regf_replay_report *r)
{
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0) {
        io_error(r, path, "read", errno);
        return -1;
    }
    if (rt_os_fstat(fd, st) != 0)
        io_error(r, path, "read", errno);
    else if (st->kind != RT_OS_FILE)
        snprintf(r->message, sizeof r->message, "cannot read '%s': not a "
                 "regular file", path);
    else if (st->size > MAX_FILE_SIZE)
        io_error(r, path, "read", EFBIG);
    else
        return fd;
    r->status = RT_REGF_REPLAY_IO_ERROR;
    rt_os_close(fd);
    return -1;
}

/* How much of a primary file of SIZE bytes, its base block BASE (the
 * first bytes of the file, HAVE of them), a replay reads: the base block
 * and the bins it covers, and the tail Windows leaves after them when it
 * is no longer than REGF_SLACK_MAX; a file running further is read only
 * as far as its bins. */
static uint64_t primary_extent(const uint8_t *base, size_t have, uint64_t size)
{
    if (have < REGF_BASE_BLOCK_SIZE || memcmp(base, "regf", 4) != 0)
        return size < REGF_BASE_BLOCK_SIZE ? size : REGF_BASE_BLOCK_SIZE;
    uint64_t covered = REGF_BASE_BLOCK_SIZE +
                       (uint64_t)regf_le32(base + REGF_OFF_HBINS_SIZE);
    if (size <= covered + REGF_SLACK_MAX)
        return size;
    return covered;
}

static int all_zero(const uint8_t *p, size_t n)
{
    return n == 0 || (p[0] == 0 && memcmp(p, p + 1, n - 1) == 0);
}

/* Reads the part of the primary at FD (SIZE bytes) that a replay reads
 * into a new buffer. Pieces of zeros are not copied into it, so the
 * pages of a sparse stretch are never touched. */
static int read_primary(int fd, uint64_t size, uint8_t **out, size_t *len)
{
    uint8_t base[REGF_BASE_BLOCK_SIZE];
    long long got = rt_os_pread(fd, base, sizeof base, 0);
    if (got < 0)
        return -1;
    uint64_t want = primary_extent(base, (size_t)got, size);
    uint8_t *buf = calloc(1, want ? (size_t)want : 1);
    uint8_t *piece = malloc(REGF_LOG_PIECE);
    if (!buf || !piece) {
        free(buf);
        free(piece);
        errno = ENOMEM;
        return -1;
    }
    struct regf_log_source src = {NULL, fd, size};
    for (uint64_t at = 0; at < want;) {
        size_t n = want - at < REGF_LOG_PIECE ? (size_t)(want - at)
                                              : REGF_LOG_PIECE;
        if (regf_log_read(&src, at, piece, n) != 0) {
            int e = errno;
            free(buf);
            free(piece);
            errno = e;
            return -1;
        }
        if (!all_zero(piece, n))
            memcpy(buf + at, piece, n);
        at += n;
    }
    free(piece);
    *out = buf;
    *len = (size_t)want;
    return 0;
}

/* Entries named like a log that are not regular files (PATHS' NOT_FILE),
 * in R: a slot with no log of its own says what its entry is. A dirty
 * primary needs its logs, and one of them is a link, a FIFO or a folder
 * where Windows keeps a file: what the others replayed is not used
 * (their entries may continue the refused one's), the first such entry
 * is named in R's message, and the status becomes NO_USABLE_LOG; 1
 * then. A clean primary's logs are ignored, as Windows ignores them: 0. */
static int say_not_files(const struct rt_regf_log_paths *paths,
                         struct rt_regf_replay_report *r)
{
    int first = -1, twin = -1;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        if (paths->twin[s] && twin < 0)
            twin = s;
        if (!paths->not_file[s])
            continue;
        if (first < 0)
            first = s;
        struct rt_regf_log_info *l = &r->log[s];
        if (l->name)
            continue;
        l->name = strdup(paths->not_file[s]);
        l->format = RT_REGF_LOG_INVALID;
        snprintf(l->problem, sizeof l->problem, "%s, not a regular file: "
                 "not read", paths->not_file_what[s]);
    }
    if ((first < 0 && twin < 0) || !r->primary_dirty ||
        (r->status != RT_REGF_REPLAY_APPLIED &&
         r->status != RT_REGF_REPLAY_NO_USABLE_LOG))
        return 0;
    r->status = RT_REGF_REPLAY_NO_USABLE_LOG;
    if (first >= 0)
        snprintf(r->message, sizeof r->message,
                 "%s is %s, not a regular file: refused",
                 paths->not_file[first], paths->not_file_what[first]);
    else
        snprintf(r->message, sizeof r->message,
                 "%s and %s both name one log of the hive, in two letter "
                 "cases: which one Windows wrote is not known; refused",
                 paths->path[twin] ? paths->path[twin] : "",
                 paths->twin[twin]);
    return 1;
}

int rt_regf_replay_file(const char *path, uint8_t **image, size_t *image_size,
                        struct rt_regf_replay_report *r)
{
    struct rt_regf_log_paths paths;
    struct regf_log_source in[RT_REGF_LOG_SLOTS];
    const struct regf_log_source *src[RT_REGF_LOG_SLOTS] = {NULL};
    uint8_t *primary = NULL;
    size_t primary_size = 0;
    uint64_t file_size = 0;
    int ret = -1;
    memset(r, 0, sizeof *r);
    memset(&paths, 0, sizeof paths);
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        in[s] = (struct regf_log_source){NULL, -1, 0};
    if (image)
        *image = NULL;
    if (image_size)
        *image_size = 0;
    /* Without IMAGE (hive check asks what a replay would apply) only the
     * bins are needed, and not even those past the last real one: a base
     * block claiming 2 GB of sparse zeros is not read whole. With IMAGE
     * (hive recover, a store's replay) the file is read as the hive it
     * is: its bins and Windows' unused tail, never gigabytes past them. */
    if (image) {
        struct rt_os_stat st;
        int fd = open_regular(path, &st, r);
        if (fd < 0)
            goto out;
        if (read_primary(fd, st.size, &primary, &primary_size) != 0) {
            io_error(r, path, "read", errno);
            rt_os_close(fd);
            goto out;
        }
        rt_os_close(fd);
        file_size = st.size;
    } else if (regf_read_hive(path, MAX_FILE_SIZE, &primary, &primary_size,
                              &file_size) != 0) {
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
        struct rt_os_stat st;
        in[s].fd = open_regular(paths.path[s], &st, r);
        if (in[s].fd < 0)
            goto out;
        in[s].size = st.size;
        src[s] = &in[s];
    }
    uint8_t *handed = primary;
    primary = NULL;
    ret = regf_replay_sources(handed, primary_size, 1, path, src,
                              (const char *const *)paths.path, image,
                              image_size, r);
    r->primary_file_size = file_size;
    r->primary_read = primary_size;
    if (say_not_files(&paths, r) != 0 && ret == 0 && image) {
        free(*image);
        *image = NULL;
        if (image_size)
            *image_size = 0;
    }
    if (r->status == RT_REGF_REPLAY_NO_USABLE_LOG)
        ret = -1;
out:
    if (r->status == RT_REGF_REPLAY_IO_ERROR && !r->primary_name)
        r->primary_name = strdup(path);
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        if (in[s].fd >= 0)
            rt_os_close(in[s].fd);
    rt_regf_log_paths_free(&paths);
    free(primary);
    return ret;
}

/* Copies [0, EXTENT) of SRC (SIZE bytes) to the new file DEST, a piece at
 * a time, pieces of zeros left as holes; DEST gets MODE before a byte is
 * written. */
static int copy_extent(int src, uint64_t size, uint64_t extent,
                       const char *dest, unsigned mode)
{
    struct regf_log_source in = {NULL, src, size};
    uint8_t *piece = malloc(REGF_LOG_PIECE);
    if (!piece) {
        errno = ENOMEM;
        return -1;
    }
    int fd = rt_os_open(dest, RT_OS_WRITE_NEW);
    if (fd < 0) {
        int e = errno;
        free(piece);
        errno = e;
        return -1;
    }
    /* The source's bits, never more than the umask leaves a new file. */
    int rc = rt_os_set_mode(fd, rt_os_creation_mode(mode));
    for (uint64_t at = 0; rc == 0 && at < extent;) {
        size_t n = extent - at < REGF_LOG_PIECE ? (size_t)(extent - at)
                                                : REGF_LOG_PIECE;
        if (rt_os_interrupted()) {
            errno = EINTR;
            rc = -1;
        } else if (regf_log_read(&in, at, piece, n) != 0 ||
                   (!all_zero(piece, n) &&
                    rt_os_pwrite(fd, piece, n, at) != 0)) {
            rc = -1;
        }
        at += n;
    }
    /* The holes at the end make the size, then the bytes reach the disk. */
    if (rc == 0 && (rt_os_ftruncate(fd, extent) != 0 || rt_os_fsync(fd) != 0))
        rc = -1;
    int e = errno;
    if (rt_os_close(fd) != 0 && rc == 0) {
        e = errno;
        rc = -1;
    }
    if (rc != 0)
        rt_os_unlink(dest);
    free(piece);
    errno = e;
    return rc;
}

int rt_regf_copy_aside(const char *path, int log, const char *dest,
                       int *made)
{
    *made = 0;
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    struct rt_os_stat st;
    int rc = rt_os_fstat(fd, &st);
    if (rc == 0 && st.kind != RT_OS_FILE) {
        /* A file the replay read as a regular one is not one any more:
         * nothing of it is copied, and the caller writes nothing. */
        errno = st.kind == RT_OS_DIR ? EISDIR : ENODEV;
        rc = -1;
    }
    if (rc != 0) {
        int e = errno;
        rt_os_close(fd);
        errno = e;
        return -1;
    }
    uint64_t extent;
    if (log) {
        struct regf_log_source in = {NULL, fd, st.size};
        struct regf_log_view v;
        struct rt_regf_log_info info;
        memset(&info, 0, sizeof info);
        rc = regf_log_parse(&in, &v, &info);
        extent = v.extent;
        regf_log_view_free(&v);
    } else {
        uint8_t base[REGF_BASE_BLOCK_SIZE];
        long long got = rt_os_pread(fd, base, sizeof base, 0);
        rc = got < 0 ? -1 : 0;
        extent = rc == 0 ? primary_extent(base, (size_t)got, st.size) : 0;
    }
    if (rc == 0 && extent > 0) {
        rc = copy_extent(fd, st.size, extent, dest, st.mode & 0666);
        *made = rc == 0;
    }
    int e = errno;
    rt_os_close(fd);
    errno = e;
    return rc;
}
