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
    h->err_code = code;
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
    if (h->map.priv)
        rt_os_unmap_file(&h->map);
    else
        free(h->img);
    free(h->cellmap);
    free(h->bins);
    free(h->free);
    free(h->changed);
    regf_subidx_drop_all(h);
    regf_validx_drop_all(h);
    regf_claims_forget(h);
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
    h->read_once = (flags & RT_REGF_READ_ONCE) != 0;
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

/* Opens IMG (LEN bytes), owned from now on: malloc'd, or MAP's view when
 * MAP is not NULL (CAP bytes in all). */
static int open_image(uint8_t *img, size_t len, size_t cap,
                      struct rt_os_map *map, uint64_t file_size,
                      unsigned flags, struct rt_regf **out, char *err,
                      size_t errsize)
{
    *out = NULL;
    struct rt_regf *h = calloc(1, sizeof *h);
    if (!h) {
        if (map)
            rt_os_unmap_file(map);
        else
            free(img);
        set_err(err, errsize, "out of memory");
        return RT_REGF_ENOMEM;
    }
    h->img = img;
    h->cap = cap;
    h->len = len;
    if (map)
        h->map = *map;
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
    return open_image(img, len, len, NULL, len, flags, out, err, errsize);
}

/* Reads what of the hive file PATH is the hive: the base block and the
 * bins its hive bins size covers, which is all load() looks at. A file
 * longer than that (a real hive with 2 GB of sparse zeros behind it) is
 * not read whole; one that is not a hive, or is shorter than its bins,
 * is read whole for load() to say so. *FILE_SIZE is the file's size.
 * Returns 0, or -1 with errno set (EFBIG past MAX). */
int regf_read_hive(const char *path, uint64_t max, uint8_t **img,
                   size_t *len, uint64_t *file_size)
{
    if (rt_os_is_dir(path)) {
        errno = EISDIR;
        return -1;
    }
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    uint64_t size = 0, want;
    uint8_t base[REGF_BASE_BLOCK_SIZE];
    int e = 0;
    if (rt_os_fsize(fd, &size) != 0)
        e = errno;
    else if (size > max)
        e = EFBIG;
    if (e) {
        rt_os_close(fd);
        errno = e;
        return -1;
    }
    want = size;
    uint64_t stop = size;   /* what is read; zeros from there to WANT */
    if (size >= sizeof base &&
        rt_os_pread(fd, base, sizeof base, 0) == (long long)sizeof base &&
        !memcmp(base, "regf", 4)) {
        uint32_t hbins = regf_le32(base + REGF_OFF_HBINS_SIZE);
        uint64_t covered = REGF_BASE_BLOCK_SIZE + (uint64_t)hbins;
        if (covered <= size) {
            want = stop = covered;
            /* The bins' headers first, 32 bytes each: where they stop
             * being bins (a base block claiming 2 GB of sparse zeros),
             * nothing past that bin is read; the image is zeros there,
             * never touched, and regf_index_bins refuses it at the same
             * bin, with the same message. */
            uint8_t hb[32];
            for (uint64_t off = 0; off < hbins;) {
                uint32_t bs;
                if (rt_os_pread(fd, hb, sizeof hb, REGF_BASE_BLOCK_SIZE + off)
                        != (long long)sizeof hb ||
                    memcmp(hb, "hbin", 4) ||
                    (bs = regf_le32(hb + 8)) < REGF_HBIN_ALIGN ||
                    bs % REGF_HBIN_ALIGN || bs > hbins - off) {
                    uint64_t end = REGF_BASE_BLOCK_SIZE + off + REGF_HBIN_ALIGN;
                    stop = end < covered ? end : covered;
                    break;
                }
                off += bs;
            }
        }
    }
    uint8_t *buf = stop < want ? calloc(1, (size_t)want)
                               : malloc(want ? (size_t)want : 1);
    size_t got = 0;
    while (buf && got < stop) {
        long long r = rt_os_pread(fd, buf + got, (size_t)(stop - got), got);
        if (r < 0) {
            e = errno;
            break;
        }
        if (r == 0)
            break;   /* shorter than it said: the file is what was read */
        got += (size_t)r;
    }
    rt_os_close(fd);
    if (!buf || e) {
        free(buf);
        errno = buf ? e : ENOMEM;
        return -1;
    }
    *img = buf;
    if (got < stop) {   /* the file shrank while it was read */
        *len = got;
        *file_size = got;
    } else {
        *len = (size_t)want;
        *file_size = size;
    }
    return 0;
}

/* Maps the hive file PATH copy-on-write where it is a plain hive whose
 * bins the file holds (a view of just those bytes, pages read only when
 * touched, growth room behind them). Returns 0 with *MAP, *LEN and
 * *FILE_SIZE set; -1 when the file is to be read instead (any doubt, or
 * a system without such views), which then says what is wrong with it. */
static int map_hive(const char *path, struct rt_os_map *map, size_t *len,
                    uint64_t *file_size)
{
    if (rt_os_is_dir(path))
        return -1;
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    uint8_t base[REGF_BASE_BLOCK_SIZE];
    uint64_t size = 0;
    int ok = rt_os_fsize(fd, &size) == 0 && size >= sizeof base &&
             size <= 0x80001000u &&
             rt_os_pread(fd, base, sizeof base, 0) == (long long)sizeof base &&
             !memcmp(base, "regf", 4);
    rt_os_close(fd);
    uint32_t hbins = ok ? regf_le32(base + REGF_OFF_HBINS_SIZE) : 0;
    uint64_t covered = REGF_BASE_BLOCK_SIZE + (uint64_t)hbins;
    if (!ok || hbins == 0 || hbins % REGF_HBIN_ALIGN || covered > size)
        return -1;
    /* Room to grow by a quarter (at least 16 MB) without moving: address
     * space only, no memory until a bin is appended there. */
    size_t spare = ((size_t)covered / 4 + ((size_t)16 << 20)) &
                   ~(size_t)(REGF_HBIN_ALIGN - 1);
    if (rt_os_map_cow(path, (size_t)covered, spare, map) != 0)
        return -1;
    /* The file may have changed between the read and the view: the view's
     * base block must be the one measured. */
    if (memcmp(map->data, base, sizeof base)) {
        rt_os_unmap_file(map);
        return -1;
    }
    *len = (size_t)covered;
    *file_size = size;
    return 0;
}

int rt_regf_open(const char *path, unsigned flags, struct rt_regf **out,
                 char *err, size_t errsize)
{
    *out = NULL;
    char msg[512];
    uint8_t *img;
    size_t len;
    uint64_t file_size;
    struct rt_os_map map;
    if (map_hive(path, &map, &len, &file_size) == 0)
        return open_image((uint8_t *)map.data, len, map.span, &map, file_size,
                          flags, out, err, errsize);
    /* The format's 32-bit offsets bound a hive to 4 GB; Windows keeps them
     * under 2 GB. */
    if (regf_read_hive(path, 0x80001000u, &img, &len, &file_size) != 0) {
        if (errno == ENOMEM) {
            set_err(err, errsize, "out of memory");
            return RT_REGF_ENOMEM;
        }
        snprintf(msg, sizeof msg, "%s: %s", path,
                 errno == EFBIG ? "larger than 2 GB, not a hive"
                                : rt_os_strerror(errno));
        set_err(err, errsize, msg);
        return RT_REGF_EIO;
    }
    return open_image(img, len, len, NULL, file_size, flags, out, err,
                      errsize);
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

/* Makes a mapped image a malloc'd copy: a file written whole may be the
 * one the image maps, and truncating it would pull the pages away. */
static int detach(struct rt_regf *h)
{
    if (!h->map.priv)
        return 0;
    uint8_t *img = malloc(h->len);
    if (!img)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    memcpy(img, h->img, h->len);
    rt_os_unmap_file(&h->map);
    h->img = img;
    h->cap = h->len;
    return 0;
}

int rt_regf_save_as(struct rt_regf *h, const char *path)
{
    int rc = rt_regf_seal(h);
    if (rc || (rc = detach(h)))
        return rc;
    int fd = rt_os_open(path, RT_OS_WRITE_TRUNC);
    if (fd < 0)
        return regf_fail(h, RT_REGF_EIO, "%s: %s", path, rt_os_strerror(errno));
    if (rt_os_pwrite(fd, h->img, h->len, 0) != 0) {
        int e = errno;
        rt_os_close(fd);
        return regf_fail(h, RT_REGF_EIO, "%s: write failed: %s", path,
                         rt_os_strerror(e));
    }
    if (rt_os_fsync(fd) || rt_os_close(fd))
        return regf_fail(h, RT_REGF_EIO, "%s: %s", path, rt_os_strerror(errno));
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
