/* Hive-file layer: the handle. Opens a hive from a file or a memory
 * image and validates its base block and bins, creates an empty hive,
 * seals the base block for saving, saves, and reports changed pages. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"
#include "regf/regf_internal.h"
#include "model/utf16.h"

int regf_fail(struct rt_regf *h, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(h->err, sizeof h->err, fmt, ap);
    va_end(ap);
    return code;
}

const char *rt_regf_errmsg(const struct rt_regf *h)
{
    return h ? h->err : "no hive";
}

uint64_t regf_now_filetime(void)
{
    return rt_os_filetime_now();
}

int regf_require_writable(struct rt_regf *h)
{
    if (!h->writable)
        return regf_fail(h, RT_REGF_EREADONLY,
                         "hive was opened read-only");
    return 0;
}

void rt_regf_close(struct rt_regf *h)
{
    if (!h)
        return;
    free(h->img);
    free(h->cellmap);
    free(h->bins);
    free(h->free);
    free(h->changed);
    free(h);
}

static void set_err(char *err, size_t errsize, const char *msg)
{
    if (err && errsize)
        snprintf(err, errsize, "%s", msg);
}

/* Validates the base block of IMG (LEN bytes, owned by H from now on)
 * and indexes the bins. */
static int load(struct rt_regf *h, uint64_t file_size, unsigned flags)
{
    const uint8_t *b = h->img;
    if (file_size < REGF_BASE_BLOCK_SIZE)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file is %llu bytes, shorter than the 4096-byte "
                         "base block", (unsigned long long)file_size);
    if (memcmp(b, "regf", 4))
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file offset 0x0: signature is not 'regf'");
    uint32_t major = regf_le32(b + REGF_OFF_MAJOR);
    uint32_t minor = regf_le32(b + REGF_OFF_MINOR);
    if (major != 1 || minor < 3 || minor > 6)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file offset 0x14: version %u.%u is not 1.3 to 1.6",
                         major, minor);
    uint32_t type = regf_le32(b + REGF_OFF_FILE_TYPE);
    if (type != REGF_FILE_TYPE_PRIMARY)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file offset 0x1c: file type %u is not a primary "
                         "hive (a transaction log?)", type);
    uint32_t hbins = regf_le32(b + REGF_OFF_HBINS_SIZE);
    if (hbins == 0 || hbins % REGF_HBIN_ALIGN)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file offset 0x28: hive bins size 0x%x is not a "
                         "non-zero multiple of 4096", hbins);
    if ((uint64_t)hbins > file_size - REGF_BASE_BLOCK_SIZE)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "file offset 0x28: hive bins size 0x%x but only "
                         "0x%llx bytes follow the base block (truncated)",
                         hbins,
                         (unsigned long long)(file_size -
                                              REGF_BASE_BLOCK_SIZE));
    h->file_size = file_size;
    h->minor = minor;
    h->len = REGF_BASE_BLOCK_SIZE + (size_t)hbins;
    h->checksum_ok_at_open =
        regf_le32(b + REGF_OFF_CHECKSUM) == regf_base_checksum(b);
    h->dirty_at_open = regf_base_is_dirty(b);
    int rc = regf_index_bins(h);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t nklen;
    if ((rc = regf_nk(h, regf_le32(b + REGF_OFF_ROOT_CELL), &nk, &nklen)))
        return rc;
    if (flags & RT_REGF_WRITE) {
        if (h->dirty_at_open && !(flags & RT_REGF_FORCE))
            return regf_fail(h, RT_REGF_EREADONLY,
                             "hive is dirty (%s): its transaction logs may "
                             "hold newer data; recover it first or force",
                             h->checksum_ok_at_open
                                 ? "sequence numbers differ"
                                 : "base block checksum is wrong");
        h->writable = 1;
    }
    return 0;
}

static int open_image(uint8_t *img, size_t len, uint64_t file_size,
                      unsigned flags, struct rt_regf **out, char *err,
                      size_t errsize)
{
    *out = NULL;
    struct rt_regf *h = calloc(1, sizeof *h);
    if (!h) {
        free(img);
        set_err(err, errsize, "out of memory");
        return RT_REGF_ENOMEM;
    }
    h->img = img;
    h->cap = len;
    h->len = len;
    int rc = load(h, file_size, flags);
    if (rc) {
        set_err(err, errsize, h->err);
        rt_regf_close(h);
        return rc;
    }
    *out = h;
    return 0;
}

int rt_regf_open_memory(const void *buf, size_t len, unsigned flags,
                        struct rt_regf **out, char *err, size_t errsize)
{
    uint8_t *img = malloc(len ? len : 1);
    if (!img) {
        *out = NULL;
        set_err(err, errsize, "out of memory");
        return RT_REGF_ENOMEM;
    }
    if (len)
        memcpy(img, buf, len);
    return open_image(img, len, len, flags, out, err, errsize);
}

int rt_regf_open(const char *path, unsigned flags, struct rt_regf **out,
                 char *err, size_t errsize)
{
    *out = NULL;
    char msg[512];
    uint8_t *img;
    size_t len;
    /* The format's 32-bit offsets bound a hive to 4 GB; Windows keeps them
     * under 2 GB. */
    if (rt_os_read_file_max(path, 0x80001000u, &img, &len) != 0) {
        if (errno == ENOMEM) {
            set_err(err, errsize, "out of memory");
            return RT_REGF_ENOMEM;
        }
        snprintf(msg, sizeof msg, "%s: %s", path,
                 errno == EFBIG ? "larger than 2 GB, not a hive"
                                : strerror(errno));
        set_err(err, errsize, msg);
        return RT_REGF_EIO;
    }
    return open_image(img, len, len, flags, out, err, errsize);
}

void rt_regf_get_info(const struct rt_regf *h, struct rt_regf_info *info)
{
    const uint8_t *b = h->img;
    info->major = regf_le32(b + REGF_OFF_MAJOR);
    info->minor = regf_le32(b + REGF_OFF_MINOR);
    info->seq1 = regf_le32(b + REGF_OFF_SEQ1);
    info->seq2 = regf_le32(b + REGF_OFF_SEQ2);
    info->timestamp = regf_le64(b + REGF_OFF_TIMESTAMP);
    info->hbins_size = regf_hbins_size(h);
    info->file_size = h->file_size;
    info->dirty = h->dirty_at_open;
    info->checksum_ok = h->checksum_ok_at_open;
    info->root = regf_le32(b + REGF_OFF_ROOT_CELL);
}

uint32_t rt_regf_root(const struct rt_regf *h)
{
    return regf_le32(h->img + REGF_OFF_ROOT_CELL);
}

int rt_regf_create(unsigned minor, const char *root_name, struct rt_regf **out,
                   char *err, size_t errsize)
{
    *out = NULL;
    if (minor == 0)
        minor = 5;
    if (minor < 3 || minor > 6) {
        set_err(err, errsize, "minor version must be 3 to 6");
        return RT_REGF_EINVAL;
    }
    struct rt_regf *h = calloc(1, sizeof *h);
    size_t len = REGF_BASE_BLOCK_SIZE + REGF_HBIN_ALIGN;
    if (!h || !(h->img = calloc(1, len))) {
        free(h);
        set_err(err, errsize, "out of memory");
        return RT_REGF_ENOMEM;
    }
    h->len = h->cap = h->file_size = len;
    h->minor = minor;
    h->writable = 1;
    uint64_t now = regf_now_filetime();
    uint8_t *b = h->img;
    memcpy(b, "regf", 4);
    regf_put32(b + REGF_OFF_SEQ1, 1);
    regf_put32(b + REGF_OFF_SEQ2, 1);
    regf_put64(b + REGF_OFF_TIMESTAMP, now);
    regf_put32(b + REGF_OFF_MAJOR, 1);
    regf_put32(b + REGF_OFF_MINOR, minor);
    regf_put32(b + REGF_OFF_FILE_TYPE, REGF_FILE_TYPE_PRIMARY);
    regf_put32(b + REGF_OFF_FILE_FORMAT, 1);
    regf_put32(b + REGF_OFF_HBINS_SIZE, REGF_HBIN_ALIGN);
    regf_put32(b + REGF_OFF_CLUSTERING, 1);
    uint8_t *bin = b + REGF_BASE_BLOCK_SIZE;
    memcpy(bin, "hbin", 4);
    regf_put32(bin + 8, REGF_HBIN_ALIGN);
    regf_put64(bin + 20, now);
    regf_put32(bin + REGF_HBIN_HEADER, REGF_HBIN_ALIGN - REGF_HBIN_HEADER);
    int rc = regf_index_bins(h);
    uint32_t sk = RT_REGF_NONE, root = RT_REGF_NONE;
    if (!rc)
        rc = regf_sk_new_default(h, &sk);
    if (!rc)
        rc = regf_nk_new(h, RT_REGF_NONE, root_name ? root_name : "ROOT",
                         KEY_HIVE_ENTRY | KEY_NO_DELETE, sk, &root);
    if (rc) {
        set_err(err, errsize, h->err);
        rt_regf_close(h);
        return rc;
    }
    regf_put32(h->img + REGF_OFF_ROOT_CELL, root);
    regf_base_seal(h->img);
    regf_touch(h, 0, h->len);
    *out = h;
    return 0;
}

int rt_regf_seal(struct rt_regf *h)
{
    int rc = regf_require_writable(h);
    if (rc)
        return rc;
    uint8_t *b = h->img;
    uint32_t s1 = regf_le32(b + REGF_OFF_SEQ1), s2 = regf_le32(b + REGF_OFF_SEQ2);
    uint32_t seq = (s1 > s2 ? s1 : s2) + 1;
    regf_put32(b + REGF_OFF_SEQ1, seq);
    regf_put32(b + REGF_OFF_SEQ2, seq);
    regf_put64(b + REGF_OFF_TIMESTAMP, regf_now_filetime());
    regf_put32(b + REGF_OFF_HBINS_SIZE, regf_hbins_size(h));
    regf_put32(b + REGF_OFF_FILE_TYPE, REGF_FILE_TYPE_PRIMARY);
    regf_put32(b + REGF_OFF_FILE_FORMAT, 1);
    regf_base_seal(b);
    regf_touch(h, 0, REGF_BASE_BLOCK_SIZE);
    return 0;
}

void rt_regf_image(const struct rt_regf *h, const uint8_t **data, size_t *len)
{
    *data = h->img;
    *len = h->len;
}

int rt_regf_save_as(struct rt_regf *h, const char *path)
{
    int rc = rt_regf_seal(h);
    if (rc)
        return rc;
    int fd = rt_os_open(path, RT_OS_WRITE_TRUNC);
    if (fd < 0)
        return regf_fail(h, RT_REGF_EIO, "%s: %s", path, strerror(errno));
    if (rt_os_pwrite(fd, h->img, h->len, 0) != 0) {
        int e = errno;
        rt_os_close(fd);
        return regf_fail(h, RT_REGF_EIO, "%s: write failed: %s", path,
                         strerror(e));
    }
    if (rt_os_fsync(fd) || rt_os_close(fd))
        return regf_fail(h, RT_REGF_EIO, "%s: %s", path, strerror(errno));
    return 0;
}

int rt_regf_changed_pages(const struct rt_regf *h,
                          int (*fn)(void *ctx, uint64_t offset, size_t len),
                          void *ctx)
{
    size_t pages = (h->len + REGF_PAGE - 1) / REGF_PAGE;
    for (size_t p = 0; p < pages; p++)
        if (h->changed[p / 64] >> (p % 64) & 1) {
            int r = fn(ctx, (uint64_t)p * REGF_PAGE, REGF_PAGE);
            if (r)
                return r;
        }
    return 0;
}

size_t rt_regf_changed_count(const struct rt_regf *h)
{
    size_t n = 0;
    for (size_t i = 0; i < h->changed_words; i++)
        n += (size_t)__builtin_popcountll(h->changed[i]);
    return n;
}

void rt_regf_changes_clear(struct rt_regf *h)
{
    memset(h->changed, 0, h->changed_words * sizeof *h->changed);
}
