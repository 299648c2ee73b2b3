/* Transaction log parsing (regf layer): checks a log's base block, then
 * either the chain of new-format HvLE entries (fields, page references,
 * both Marvin32 hashes, consecutive sequence numbers) or the old-format
 * DIRT bitmap and its pages. Nothing here trusts a length it has not
 * checked against the file, and nothing is read past what the format
 * says the log holds: an entry is hashed a piece at a time, never held
 * whole, and the file after the last valid entry is not read at all. */
#include "regf/log_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/base_block.h"
#include "regf/marvin32.h"
#include "platform/os.h"

static void say(struct rt_regf_log_info *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct rt_regf_log_info *info, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->problem, sizeof info->problem, fmt, ap);
    va_end(ap);
}

static int invalid(struct rt_regf_log_info *info, struct regf_log_view *v)
{
    info->format = v->format = RT_REGF_LOG_INVALID;
    return 0;
}

int regf_log_read(const struct regf_log_source *src, uint64_t off, void *buf,
                  size_t len)
{
    if (off > src->size || len > src->size - off) {
        errno = EIO;
        return -1;
    }
    if (src->data) {
        memcpy(buf, src->data + off, len);
        return 0;
    }
    uint8_t *p = buf;
    while (len > 0) {
        long long r = rt_os_pread(src->fd, p, len, off);
        if (r < 0)
            return -1;
        if (r == 0) {           /* cut short since it was measured */
            errno = EIO;
            return -1;
        }
        p += r;
        off += (uint64_t)r;
        len -= (size_t)r;
    }
    return 0;
}

/* The base block checks both formats share (spec, "Base block" of the
 * old format and its notes: a log is valid when its base block is, and
 * its two sequence numbers are equal). V->base holds its first bytes. */
static int check_base_block(const struct regf_log_view *v,
                            struct rt_regf_log_info *info)
{
    const uint8_t *b = v->base;
    if (v->size < REGF_LOG_BASE_BLOCK_SIZE) {
        say(info, "file is %llu bytes, shorter than a log base block (512)",
            (unsigned long long)v->size);
        return -1;
    }
    if (memcmp(b, "regf", 4) != 0) {
        say(info, "no 'regf' signature at offset 0");
        return -1;
    }
    uint32_t stored = regf_le32(b + REGF_OFF_CHECKSUM);
    uint32_t computed = regf_base_checksum(b);
    if (stored != computed) {
        say(info, "base block checksum at offset 0x1fc is 0x%08x, computed "
            "0x%08x", stored, computed);
        return -1;
    }
    uint32_t s1 = regf_le32(b + REGF_OFF_SEQ1), s2 = regf_le32(b + REGF_OFF_SEQ2);
    if (s1 != s2) {
        say(info, "base block sequence numbers differ (%u/%u): the log was "
            "being written", s1, s2);
        return -1;
    }
    uint32_t type = regf_le32(b + REGF_OFF_FILE_TYPE);
    if (type != REGF_FILE_TYPE_LOG_NEW && type != REGF_FILE_TYPE_LOG_OLD &&
        type != REGF_FILE_TYPE_LOG_OLD2) {
        say(info, "file type %u at offset 0x1c is not a log (1, 2 or 6)", type);
        return -1;
    }
    uint32_t major = regf_le32(b + REGF_OFF_MAJOR), minor = regf_le32(b + REGF_OFF_MINOR);
    if (major != 1 || minor < 1 || minor > 6) {
        say(info, "hive version %u.%u is not supported (1.1 to 1.6)", major,
            minor);
        return -1;
    }
    uint32_t format = regf_le32(b + REGF_OFF_FILE_FORMAT);
    if (format != 1) {
        say(info, "file format %u at offset 0x20 is not 1 (direct memory "
            "load)", format);
        return -1;
    }
    uint32_t clustering = regf_le32(b + REGF_OFF_CLUSTERING);
    if (clustering != 1) {
        say(info, "clustering factor %u at offset 0x2c is not supported "
            "(only 1)", clustering);
        return -1;
    }
    uint32_t hbins = regf_le32(b + REGF_OFF_HBINS_SIZE);
    if (hbins == 0 || hbins % REGF_HBIN_ALIGN != 0 ||
        hbins > REGF_LOG_MAX_HBINS_SIZE) {
        say(info, "hive bins size 0x%x at offset 0x28 is not a multiple of "
            "4096 between 4096 and 0x%x", hbins, REGF_LOG_MAX_HBINS_SIZE);
        return -1;
    }
    return 0;
}

enum entry_verdict { ENTRY_OK, ENTRY_END, ENTRY_BAD, ENTRY_FAILED };

/* Hash-1 of the entry at POS (ESIZE bytes): its bytes after the header,
 * read a piece at a time through BUF (REGF_LOG_PIECE bytes, or the
 * file's size when smaller: no piece is larger than the entry). */
static int entry_hash1(const struct regf_log_view *v, uint64_t pos,
                       uint32_t esize, uint8_t *buf, uint64_t *hash)
{
    struct regf_marvin32 m;
    regf_marvin32_begin(&m, REGF_MARVIN32_LOG_SEED);
    /* ESIZE is a multiple of 512: every piece a multiple of 4. */
    for (uint64_t at = REGF_LOG_ENTRY_HEADER; at < esize;) {
        size_t n = esize - at < REGF_LOG_PIECE ? (size_t)(esize - at)
                                               : REGF_LOG_PIECE;
        if (regf_log_read(&v->src, pos + at, buf, n) != 0)
            return -1;
        regf_marvin32_blocks(&m, buf, n);
        at += n;
    }
    *hash = regf_marvin32_end(&m, NULL, 0);
    return 0;
}

/* Checks the entry at POS; on ENTRY_OK stores its size in *ESIZE. On
 * ENTRY_BAD the reason is in INFO->problem; ENTRY_END (no signature) is
 * the ordinary end of the entries: zero padding or remnants; ENTRY_FAILED:
 * the file could not be read (errno). BUF: as for entry_hash1. */
static enum entry_verdict check_entry(const struct regf_log_view *v,
                                      uint64_t pos, uint32_t expected_seq,
                                      int first, uint8_t *buf,
                                      struct rt_regf_log_info *info,
                                      uint32_t *esize_out)
{
    uint8_t e[REGF_LOG_ENTRY_HEADER];
    uint64_t left = v->size - pos;
    if (left < 4)
        return ENTRY_END;
    if (regf_log_read(&v->src, pos, e, left < sizeof e ? (size_t)left
                                                       : sizeof e) != 0)
        return ENTRY_FAILED;
    if (memcmp(e, "HvLE", 4) != 0)
        return ENTRY_END;
    if (left < REGF_LOG_ENTRY_HEADER) {
        say(info, "log entry at offset 0x%llx: header truncated (%llu bytes "
            "left in the file)", (unsigned long long)pos,
            (unsigned long long)left);
        return ENTRY_BAD;
    }
    uint32_t esize = regf_le32(e + REGF_LE_OFF_SIZE);
    if (esize < REGF_LOG_SECTOR || esize % REGF_LOG_SECTOR != 0) {
        say(info, "log entry at offset 0x%llx: size 0x%x is not a positive "
            "multiple of 512", (unsigned long long)pos, esize);
        return ENTRY_BAD;
    }
    if (esize > left) {
        say(info, "log entry at offset 0x%llx: size 0x%x runs past the end "
            "of the file (0x%llx bytes left)", (unsigned long long)pos, esize,
            (unsigned long long)left);
        return ENTRY_BAD;
    }
    uint32_t hbins = regf_le32(e + REGF_LE_OFF_HBINS_SIZE);
    if (hbins == 0 || hbins % REGF_HBIN_ALIGN != 0 ||
        hbins > REGF_LOG_MAX_HBINS_SIZE) {
        say(info, "log entry at offset 0x%llx: hive bins size 0x%x is not a "
            "multiple of 4096 between 4096 and 0x%x", (unsigned long long)pos,
            hbins, REGF_LOG_MAX_HBINS_SIZE);
        return ENTRY_BAD;
    }
    uint32_t count = regf_le32(e + REGF_LE_OFF_PAGE_COUNT);
    uint64_t refs_end = REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)count;
    if (count == 0 || refs_end > esize) {
        say(info, "log entry at offset 0x%llx: %u dirty page references do "
            "not fit in its size 0x%x", (unsigned long long)pos, count, esize);
        return ENTRY_BAD;
    }
    uint64_t h2 = regf_marvin32(e, 32, REGF_MARVIN32_LOG_SEED);
    if (h2 != regf_le64(e + REGF_LE_OFF_HASH2)) {
        say(info, "log entry at offset 0x%llx: Hash-2 is 0x%016llx, computed "
            "0x%016llx", (unsigned long long)pos,
            (unsigned long long)regf_le64(e + REGF_LE_OFF_HASH2),
            (unsigned long long)h2);
        return ENTRY_BAD;
    }
    uint64_t h1;
    if (entry_hash1(v, pos, esize, buf, &h1) != 0)
        return ENTRY_FAILED;
    if (h1 != regf_le64(e + REGF_LE_OFF_HASH1)) {
        say(info, "log entry at offset 0x%llx: Hash-1 is 0x%016llx, computed "
            "0x%016llx", (unsigned long long)pos,
            (unsigned long long)regf_le64(e + REGF_LE_OFF_HASH1),
            (unsigned long long)h1);
        return ENTRY_BAD;
    }
    uint32_t seq = regf_le32(e + REGF_LE_OFF_SEQUENCE);
    if (seq != expected_seq) {
        if (first)
            say(info, "log entry at offset 0x%llx: sequence number %u, but "
                "the log's base block says %u", (unsigned long long)pos, seq,
                expected_seq);
        else
            say(info, "log entry at offset 0x%llx: sequence number %u does "
                "not continue %u; the entries end here",
                (unsigned long long)pos, seq, expected_seq - 1);
        return ENTRY_BAD;
    }
    uint64_t pages = 0;
    for (uint32_t i = 0; i < count; i++) {
        /* The references, a piece of them at a time. */
        size_t in_piece = REGF_LOG_PIECE / 8;
        if (i % in_piece == 0) {
            uint32_t n = count - i < in_piece ? count - i : (uint32_t)in_piece;
            if (regf_log_read(&v->src, pos + REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)i,
                              buf, 8 * (size_t)n) != 0)
                return ENTRY_FAILED;
        }
        const uint8_t *ref = buf + 8 * (size_t)(i % in_piece);
        uint32_t off = regf_le32(ref), psz = regf_le32(ref + 4);
        if (psz == 0 || psz % REGF_LOG_SECTOR != 0 ||
            off % REGF_LOG_SECTOR != 0) {
            say(info, "log entry at offset 0x%llx: dirty page %u (hive "
                "offset 0x%x, 0x%x bytes) is not aligned to 512",
                (unsigned long long)pos, i, off, psz);
            return ENTRY_BAD;
        }
        if ((uint64_t)off + psz > hbins) {
            say(info, "log entry at offset 0x%llx: dirty page %u (hive "
                "offset 0x%x, 0x%x bytes) lies past the hive bins size 0x%x",
                (unsigned long long)pos, i, off, psz, hbins);
            return ENTRY_BAD;
        }
        pages += psz;
    }
    if (pages > esize - refs_end) {
        say(info, "log entry at offset 0x%llx: its dirty pages (0x%llx "
            "bytes) run past its size 0x%x", (unsigned long long)pos,
            (unsigned long long)pages, esize);
        return ENTRY_BAD;
    }
    *esize_out = esize;
    return ENTRY_OK;
}

static int parse_new(struct regf_log_view *v, struct rt_regf_log_info *info)
{
    size_t cap = 0;
    uint64_t pos = REGF_LOG_BASE_BLOCK_SIZE;
    uint32_t expected = v->sequence;
    /* No piece is larger than the file (a log in memory, the fuzzer's,
     * is often a few KB). */
    size_t piece = v->size < REGF_LOG_PIECE ? (size_t)v->size : REGF_LOG_PIECE;
    uint8_t *buf = malloc(piece ? piece : 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    int rc = 0;
    while (pos < v->size) {
        uint32_t esize;
        enum entry_verdict verdict = check_entry(
            v, pos, expected, v->n_entries == 0, buf, info, &esize);
        if (verdict == ENTRY_FAILED) {
            rc = -1;
            break;
        }
        if (verdict != ENTRY_OK)
            break;
        if (v->n_entries == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            uint64_t *n = realloc(v->entry_off, ncap * sizeof *n);
            if (!n) {
                errno = ENOMEM;
                rc = -1;
                break;
            }
            v->entry_off = n;
            cap = ncap;
        }
        v->entry_off[v->n_entries++] = pos;
        pos += esize;
        expected++;
    }
    free(buf);
    v->extent = pos;
    info->valid_entries = v->n_entries;
    return rc;
}

/* Old format (spec, "Dirty vector" and "Dirty pages"): one bit per
 * 512-byte page of the hive bins, pages stored from the sector after the
 * bitmap. A log missing some of its pages was not written completely, so
 * the primary was never touched from it: it is not used at all. So the
 * file is read at most to the base block, one dirty vector for its hive
 * bins size and one page per bit: never more than 512 bytes, the vector
 * and the hive's size, however large the file. */
static int parse_old(struct regf_log_view *v, struct rt_regf_log_info *info)
{
    v->bitmap_len = v->hbins_size / REGF_HBIN_ALIGN;
    uint64_t bitmap_off = REGF_LOG_BASE_BLOCK_SIZE + 4;
    if (v->size < bitmap_off + v->bitmap_len) {
        say(info, "dirty vector at offset 0x200 truncated: the file is %llu "
            "bytes, the bitmap for hive bins size 0x%x needs %llu",
            (unsigned long long)v->size, v->hbins_size,
            (unsigned long long)(bitmap_off + v->bitmap_len));
        return invalid(info, v);
    }
    uint8_t sig[4];
    if (regf_log_read(&v->src, REGF_LOG_BASE_BLOCK_SIZE, sig, 4) != 0)
        return -1;
    if (memcmp(sig, "DIRT", 4) != 0) {
        say(info, "no 'DIRT' signature at offset 0x200");
        return invalid(info, v);
    }
    v->bitmap = malloc(v->bitmap_len);
    if (!v->bitmap) {
        errno = ENOMEM;
        return -1;
    }
    if (regf_log_read(&v->src, bitmap_off, v->bitmap, v->bitmap_len) != 0)
        return -1;
    size_t dirty = 0;
    for (size_t i = 0; i < v->bitmap_len; i++)
        dirty += (size_t)__builtin_popcount(v->bitmap[i]);
    uint64_t end = bitmap_off + v->bitmap_len;
    v->pages_off = (end + REGF_LOG_SECTOR - 1) / REGF_LOG_SECTOR * REGF_LOG_SECTOR;
    if (v->pages_off > v->size ||
        (v->size - v->pages_off) / REGF_LOG_SECTOR < dirty) {
        say(info, "the bitmap lists %zu dirty pages from offset 0x%llx, the "
            "file holds only %llu", dirty, (unsigned long long)v->pages_off,
            v->pages_off > v->size
                ? 0ull
                : (unsigned long long)((v->size - v->pages_off) /
                                       REGF_LOG_SECTOR));
        return invalid(info, v);
    }
    if (dirty == 0) {
        say(info, "the dirty vector marks no page");
        return invalid(info, v);
    }
    info->dirty_pages = dirty;
    v->extent = v->pages_off + (uint64_t)dirty * REGF_LOG_SECTOR;
    return 0;
}

int regf_log_parse(const struct regf_log_source *src,
                   struct regf_log_view *v, struct rt_regf_log_info *info)
{
    memset(v, 0, sizeof *v);
    info->format = v->format = RT_REGF_LOG_ABSENT;
    if (!src)
        return 0;
    v->src = *src;
    v->size = src->size;
    if (v->size >= REGF_LOG_BASE_BLOCK_SIZE &&
        regf_log_read(src, 0, v->base, sizeof v->base) != 0)
        return -1;
    if (check_base_block(v, info) != 0)
        return invalid(info, v);
    const uint8_t *b = v->base;
    v->sequence = regf_le32(b + REGF_OFF_SEQ1);
    v->timestamp = regf_le64(b + REGF_OFF_TIMESTAMP);
    v->hbins_size = regf_le32(b + REGF_OFF_HBINS_SIZE);
    v->flags = regf_le32(b + REGF_OFF_FLAGS);
    info->sequence = v->sequence;
    info->timestamp = v->timestamp;
    info->hbins_size = v->hbins_size;
    /* The base block is a log's: it is worth keeping whatever follows. */
    v->extent = REGF_LOG_BASE_BLOCK_SIZE;
    if (regf_le32(b + REGF_OFF_FILE_TYPE) == REGF_FILE_TYPE_LOG_NEW) {
        info->format = v->format = RT_REGF_LOG_NEW;
        return parse_new(v, info);
    }
    info->format = v->format = RT_REGF_LOG_OLD;
    return parse_old(v, info);
}

void regf_log_view_free(struct regf_log_view *v)
{
    free(v->entry_off);
    v->entry_off = NULL;
    v->n_entries = 0;
    free(v->bitmap);
    v->bitmap = NULL;
}
