/* Transaction log parsing (regf layer): checks a log's base block, then
 * either the chain of new-format HvLE entries (fields, page references,
 * both Marvin32 hashes, consecutive sequence numbers) or the old-format
 * DIRT bitmap and its pages. Nothing here trusts a length it has not
 * checked against the file. */
#include "regf/log_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/base_block.h"
#include "regf/marvin32.h"

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

/* The base block checks both formats share (spec, "Base block" of the
 * old format and its notes: a log is valid when its base block is, and
 * its two sequence numbers are equal). */
static int check_base_block(const struct regf_log_view *v,
                            struct rt_regf_log_info *info)
{
    const uint8_t *b = v->data;
    if (v->size < REGF_LOG_BASE_BLOCK_SIZE) {
        say(info, "file is %zu bytes, shorter than a log base block (512)",
            v->size);
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

enum entry_verdict { ENTRY_OK, ENTRY_END, ENTRY_BAD };

/* Checks the entry at POS; on ENTRY_OK stores its size in *ESIZE. On
 * ENTRY_BAD the reason is in INFO->problem; ENTRY_END (no signature) is
 * the ordinary end of the entries: zero padding or remnants. */
static enum entry_verdict check_entry(const struct regf_log_view *v, size_t pos,
                                      uint32_t expected_seq, int first,
                                      struct rt_regf_log_info *info,
                                      uint32_t *esize_out)
{
    const uint8_t *e = v->data + pos;
    size_t left = v->size - pos;
    if (left < 4 || memcmp(e, "HvLE", 4) != 0)
        return ENTRY_END;
    if (left < REGF_LOG_ENTRY_HEADER) {
        say(info, "log entry at offset 0x%zx: header truncated (%zu bytes "
            "left in the file)", pos, left);
        return ENTRY_BAD;
    }
    uint32_t esize = regf_le32(e + REGF_LE_OFF_SIZE);
    if (esize < REGF_LOG_SECTOR || esize % REGF_LOG_SECTOR != 0) {
        say(info, "log entry at offset 0x%zx: size 0x%x is not a positive "
            "multiple of 512", pos, esize);
        return ENTRY_BAD;
    }
    if (esize > left) {
        say(info, "log entry at offset 0x%zx: size 0x%x runs past the end of "
            "the file (0x%zx bytes left)", pos, esize, left);
        return ENTRY_BAD;
    }
    uint32_t hbins = regf_le32(e + REGF_LE_OFF_HBINS_SIZE);
    if (hbins == 0 || hbins % REGF_HBIN_ALIGN != 0 ||
        hbins > REGF_LOG_MAX_HBINS_SIZE) {
        say(info, "log entry at offset 0x%zx: hive bins size 0x%x is not a "
            "multiple of 4096 between 4096 and 0x%x", pos, hbins,
            REGF_LOG_MAX_HBINS_SIZE);
        return ENTRY_BAD;
    }
    uint32_t count = regf_le32(e + REGF_LE_OFF_PAGE_COUNT);
    uint64_t refs_end = REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)count;
    if (count == 0 || refs_end > esize) {
        say(info, "log entry at offset 0x%zx: %u dirty page references do "
            "not fit in its size 0x%x", pos, count, esize);
        return ENTRY_BAD;
    }
    uint64_t h2 = regf_marvin32(e, 32, REGF_MARVIN32_LOG_SEED);
    if (h2 != regf_le64(e + REGF_LE_OFF_HASH2)) {
        say(info, "log entry at offset 0x%zx: Hash-2 is 0x%016llx, computed "
            "0x%016llx", pos,
            (unsigned long long)regf_le64(e + REGF_LE_OFF_HASH2),
            (unsigned long long)h2);
        return ENTRY_BAD;
    }
    uint64_t h1 = regf_marvin32(e + REGF_LOG_ENTRY_HEADER,
                                esize - REGF_LOG_ENTRY_HEADER,
                                REGF_MARVIN32_LOG_SEED);
    if (h1 != regf_le64(e + REGF_LE_OFF_HASH1)) {
        say(info, "log entry at offset 0x%zx: Hash-1 is 0x%016llx, computed "
            "0x%016llx", pos,
            (unsigned long long)regf_le64(e + REGF_LE_OFF_HASH1),
            (unsigned long long)h1);
        return ENTRY_BAD;
    }
    uint32_t seq = regf_le32(e + REGF_LE_OFF_SEQUENCE);
    if (seq != expected_seq) {
        if (first)
            say(info, "log entry at offset 0x%zx: sequence number %u, but the "
                "log's base block says %u", pos, seq, expected_seq);
        else
            say(info, "log entry at offset 0x%zx: sequence number %u does not "
                "continue %u; the entries end here", pos, seq,
                expected_seq - 1);
        return ENTRY_BAD;
    }
    uint64_t pages = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t off = regf_le32(e + REGF_LOG_ENTRY_HEADER + 8 * (size_t)i);
        uint32_t psz = regf_le32(e + REGF_LOG_ENTRY_HEADER + 8 * (size_t)i + 4);
        if (psz == 0 || psz % REGF_LOG_SECTOR != 0 ||
            off % REGF_LOG_SECTOR != 0) {
            say(info, "log entry at offset 0x%zx: dirty page %u (hive offset "
                "0x%x, 0x%x bytes) is not aligned to 512", pos, i, off, psz);
            return ENTRY_BAD;
        }
        if ((uint64_t)off + psz > hbins) {
            say(info, "log entry at offset 0x%zx: dirty page %u (hive offset "
                "0x%x, 0x%x bytes) lies past the hive bins size 0x%x", pos,
                i, off, psz, hbins);
            return ENTRY_BAD;
        }
        pages += psz;
    }
    if (pages > esize - refs_end) {
        say(info, "log entry at offset 0x%zx: its dirty pages (0x%llx bytes) "
            "run past its size 0x%x", pos, (unsigned long long)pages, esize);
        return ENTRY_BAD;
    }
    *esize_out = esize;
    return ENTRY_OK;
}

static int parse_new(struct regf_log_view *v, struct rt_regf_log_info *info)
{
    size_t cap = 0;
    size_t pos = REGF_LOG_BASE_BLOCK_SIZE;
    uint32_t expected = v->sequence;
    while (pos < v->size) {
        uint32_t esize;
        enum entry_verdict verdict =
            check_entry(v, pos, expected, v->n_entries == 0, info, &esize);
        if (verdict != ENTRY_OK)
            break;
        if (v->n_entries == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            size_t *n = realloc(v->entry_off, ncap * sizeof *n);
            if (!n)
                return -1;
            v->entry_off = n;
            cap = ncap;
        }
        v->entry_off[v->n_entries++] = pos;
        pos += esize;
        expected++;
    }
    info->valid_entries = v->n_entries;
    if (v->n_entries) {
        info->first_sequence = v->sequence;
        info->last_sequence = expected - 1;
    }
    return 0;
}

/* Old format (spec, "Dirty vector" and "Dirty pages"): one bit per
 * 512-byte page of the hive bins, pages stored from the sector after the
 * bitmap. A log missing some of its pages was not written completely, so
 * the primary was never touched from it: it is not used at all. */
static int parse_old(struct regf_log_view *v, struct rt_regf_log_info *info)
{
    v->bitmap_off = REGF_LOG_BASE_BLOCK_SIZE + 4;
    v->bitmap_len = v->hbins_size / REGF_HBIN_ALIGN;
    if (v->size < v->bitmap_off + v->bitmap_len) {
        say(info, "dirty vector at offset 0x200 truncated: the file is %zu "
            "bytes, the bitmap for hive bins size 0x%x needs %zu", v->size,
            v->hbins_size, v->bitmap_off + v->bitmap_len);
        return invalid(info, v);
    }
    if (memcmp(v->data + REGF_LOG_BASE_BLOCK_SIZE, "DIRT", 4) != 0) {
        say(info, "no 'DIRT' signature at offset 0x200");
        return invalid(info, v);
    }
    size_t dirty = 0;
    for (size_t i = 0; i < v->bitmap_len; i++)
        dirty += (size_t)__builtin_popcount(v->data[v->bitmap_off + i]);
    size_t end = v->bitmap_off + v->bitmap_len;
    v->pages_off = (end + REGF_LOG_SECTOR - 1) / REGF_LOG_SECTOR * REGF_LOG_SECTOR;
    if (v->pages_off > v->size ||
        (v->size - v->pages_off) / REGF_LOG_SECTOR < dirty) {
        say(info, "the bitmap lists %zu dirty pages from offset 0x%zx, the "
            "file holds only %zu", dirty, v->pages_off,
            v->pages_off > v->size ? (size_t)0
                                   : (v->size - v->pages_off) / REGF_LOG_SECTOR);
        return invalid(info, v);
    }
    if (dirty == 0) {
        say(info, "the dirty vector marks no page");
        return invalid(info, v);
    }
    info->dirty_pages = dirty;
    return 0;
}

int regf_log_parse(const struct rt_regf_log_input *log,
                   struct regf_log_view *v, struct rt_regf_log_info *info)
{
    memset(v, 0, sizeof *v);
    info->format = v->format = RT_REGF_LOG_ABSENT;
    if (!log || !log->data)
        return 0;
    v->data = log->data;
    v->size = log->size;
    if (check_base_block(v, info) != 0)
        return invalid(info, v);
    const uint8_t *b = v->data;
    v->sequence = regf_le32(b + REGF_OFF_SEQ1);
    v->timestamp = regf_le64(b + REGF_OFF_TIMESTAMP);
    v->hbins_size = regf_le32(b + REGF_OFF_HBINS_SIZE);
    v->flags = regf_le32(b + REGF_OFF_FLAGS);
    info->sequence = v->sequence;
    info->timestamp = v->timestamp;
    info->hbins_size = v->hbins_size;
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
}
