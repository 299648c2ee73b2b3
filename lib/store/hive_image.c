/* Store layer: a hive file of the hive store as an image in memory:
 * read (a dirty hive's logs replayed when they can be, a dirty hive
 * without usable logs read but not written), checked unchanged before it
 * is read again, and taken as the file's content after our commit. */
#include "store/hive_internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/log.h"

void hive_file_close(struct hive_file *hf)
{
    rt_regf_close(hf->h);
    hf->h = NULL;
    hf->replayed = hf->dirty_unusable = hf->seen_valid = 0;
}

/* Whether HF's file still holds what its image came from: same file,
 * size and modification time, and the same base block. */
int hive_file_unchanged(const struct hive_file *hf)
{
    struct rt_os_stat st;
    uint8_t base[REGF_BASE_BLOCK_SIZE];
    if (!hf->h || !hf->seen_valid || rt_os_stat(hf->path, &st) != 0 ||
        st.kind != RT_OS_FILE || st.size != hf->seen.size ||
        st.dev != hf->seen.dev || st.ino != hf->seen.ino ||
        st.mtime_ns != hf->seen.mtime_ns)
        return 0;
    int fd = rt_os_open(hf->path, RT_OS_READ);
    if (fd < 0)
        return 0;
    long long got = rt_os_pread(fd, base, sizeof base, 0);
    rt_os_close(fd);
    return got == (long long)sizeof base &&
           !memcmp(base, hf->seen_base, sizeof base);
}

/* After our commit: the file holds the image, sealed, as it is now. */
void hive_file_committed(struct hive_file *hf)
{
    const uint8_t *img;
    size_t len;
    rt_regf_changes_clear(hf->h);
    rt_regf_image(hf->h, &img, &len);
    hf->bins_end = len;
    hf->file_end = len;
    hf->replayed = 0;
    memcpy(hf->seen_base, img, sizeof hf->seen_base);
    hf->seen_valid = rt_os_stat(hf->path, &hf->seen) == 0 &&
                     hf->seen.kind == RT_OS_FILE && hf->seen.size == len;
}

/* Reads the base block of PATH into BASE (REGF_BASE_BLOCK_SIZE bytes). */
static int is_dirty_file(const char *path, uint8_t *base, int *dirty,
                         struct rt_error *e)
{
    int fd = rt_os_open(path, RT_OS_READ);
    /* A folder, FIFO, device or link where a hive should be: the store is
     * not what it claims (exit 2), as for a file that is no hive. */
    if (fd < 0 && errno == EISDIR)
        return rt_error_set(e, RT_ERR_BADDB, "%s: not a registry hive file",
                            path);
    if (fd < 0)
        return rt_error_set(e,
                            errno == ENODEV || errno == ELOOP || errno == EXDEV
                                ? RT_ERR_BADDB
                                : RT_ERR_FILE_NOT_FOUND,
                            "%s: %s", path, rt_os_strerror(errno));
    long long got = rt_os_pread(fd, base, REGF_BASE_BLOCK_SIZE, 0);
    rt_os_close(fd);
    if (got != (long long)REGF_BASE_BLOCK_SIZE || memcmp(base, "regf", 4) != 0)
        return rt_error_set(e, RT_ERR_BADDB, "%s: not a registry hive file",
                            path);
    *dirty = regf_base_is_dirty(base);
    return 0;
}

/* A hive that does not open: the reader's structural messages ("file
 * offset 0x1000: hive bin signature is not 'hbin'") do not say which of
 * the store's hives they are about, its I/O messages do: the path is
 * added where it is missing. */
static int hive_open_error(struct rt_error *e, const char *path,
                           const char *err, int rc)
{
    /* Memory running out is the machine's failure (exit 3), not a hive
     * that is bad (exit 2). */
    int code = rc == RT_REGF_ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY : RT_ERR_BADDB;
    size_t n = strlen(path);
    if (!strncmp(err, path, n) && err[n] == ':')
        return rt_error_set(e, code, "%s", err);
    return rt_error_set(e, code, "%s: %s", path, err);
}

/* Opens a hive following the writing policy: a dirty hive with usable
 * logs is replayed (and later written whole, its originals backed up); a
 * dirty hive without them is read with a warning and never written
 * unless --force-dirty. */
static int open_hive_image(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e);

int hive_file_open(struct hive_store *s, struct hive_file *hf,
                   struct rt_error *e)
{
    int r = open_hive_image(s, hf, e);
    if (r == 0) {
        struct rt_regf_info info;
        rt_regf_get_info(hf->h, &info);
        hf->bins_end = (uint64_t)REGF_BASE_BLOCK_SIZE + info.hbins_size;
        if (!hf->replayed || hf->file_end < info.file_size)
            hf->file_end = info.file_size;
        if (hf->file_end > hf->bins_end + HIVE_SLACK_MAX && s->diags)
            rt_diags_add(s->diags, RT_WARNING, hf->path, 0, NULL,
                         "the file runs %llu bytes past the hive bins its "
                         "base block covers (%llu bytes); read as far as "
                         "the bins, and it will not be written",
                         (unsigned long long)(hf->file_end - hf->bins_end),
                         (unsigned long long)hf->bins_end);
    }
    return r;
}

static unsigned once(const struct hive_store *s)
{
    return s->opt.read_once ? RT_REGF_READ_ONCE : 0;
}

static int open_hive_image(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e)
{
    char err[512] = "";
    int dirty = 0;
    /* Looked at before reading: a write after this point changes what
     * hive_file_unchanged() sees. */
    hf->seen_valid = rt_os_stat(hf->path, &hf->seen) == 0 &&
                     hf->seen.kind == RT_OS_FILE;
    if (is_dirty_file(hf->path, hf->seen_base, &dirty, e) != 0)
        return -1;
    if (!dirty) {
        int rc = rt_regf_open(hf->path, RT_REGF_WRITE | once(s), &hf->h,
                              err, sizeof err);
        if (rc)
            return hive_open_error(e, hf->path, err, rc);
        /* The base block the image was built from (the file may have
         * changed between the two reads; then they differ and the next
         * look reads it again). */
        const uint8_t *img;
        size_t len;
        rt_regf_image(hf->h, &img, &len);
        memcpy(hf->seen_base, img, sizeof hf->seen_base);
        return 0;
    }
    uint8_t *img = NULL;
    size_t len = 0;
    struct rt_regf_replay_report rep;
    int r = rt_regf_replay_file(hf->path, &img, &len, &rep);
    if (r == 0 && rep.status == RT_REGF_REPLAY_APPLIED) {
        r = rt_regf_open_memory(img, len, RT_REGF_WRITE, &hf->h, err,
                                sizeof err);
        free(img);
        rt_regf_replay_report_free(&rep);
        if (r)
            return rt_error_set(e, r == RT_REGF_ENOMEM
                                       ? RT_ERR_NOT_ENOUGH_MEMORY
                                       : RT_ERR_BADDB,
                                "%s (after log replay): %s", hf->path, err);
        hf->replayed = 1;
        /* The replay read the bins only of a file running far past them:
         * the file's own size says so (hive_file_open). */
        hf->file_end = rep.primary_file_size;
        return 0;
    }
    free(img);
    char why[300];
    snprintf(why, sizeof why, "%s", rep.message);
    rt_regf_replay_report_free(&rep);
    unsigned flags = (s->opt.force_dirty ? RT_REGF_WRITE | RT_REGF_FORCE : 0) |
                     once(s);
    int rc = rt_regf_open(hf->path, flags, &hf->h, err, sizeof err);
    if (rc)
        return hive_open_error(e, hf->path, err, rc);
    if (!s->opt.force_dirty) {
        hf->dirty_unusable = 1;
        snprintf(hf->dirty_why, sizeof hf->dirty_why, "%s",
                 *why ? why : "no logs");
        if (s->diags)
            rt_diags_add(s->diags, RT_WARNING, hf->path, 0, NULL,
                         "hive is dirty and its logs cannot be replayed (%s); "
                         "read as it is, and it will not be written unless "
                         "--force-dirty is given",
                         *why ? why : "no logs");
    }
    return 0;
}
