/* Transaction logs (regf layer, internal): the parsed view of one log
 * file shared by the parser and the replay. */
#ifndef REGF_LOG_INTERNAL_H
#define REGF_LOG_INTERNAL_H

#include "regf/log.h"

#define REGF_LOG_BASE_BLOCK_SIZE  512u
#define REGF_LOG_ENTRY_HEADER     40u
#define REGF_LOG_SECTOR           512u
/* Windows never lets a hive's storage reach 2 GiB; a larger size in a log
 * is damage, and honouring it would mean a huge allocation. */
#define REGF_LOG_MAX_HBINS_SIZE   0x7FFFF000u

/* Offsets in a new-format log entry ("HvLE"). */
#define REGF_LE_OFF_SIZE          4
#define REGF_LE_OFF_FLAGS         8
#define REGF_LE_OFF_SEQUENCE      12
#define REGF_LE_OFF_HBINS_SIZE    16
#define REGF_LE_OFF_PAGE_COUNT    20
#define REGF_LE_OFF_HASH1         24
#define REGF_LE_OFF_HASH2         32

/* The base block field Windows 10 uses for KTM state; bit 0 is saved in
 * each log entry and restored from it. */
#define REGF_OFF_FLAGS            144

struct regf_log_view {
    const uint8_t *data;
    size_t size;
    enum rt_regf_log_format format;
    uint32_t sequence;
    uint64_t timestamp;
    uint32_t hbins_size;
    uint32_t flags;
    /* New format: file offsets of the entries of the valid chain. */
    size_t *entry_off;
    size_t n_entries;
    /* Old format: where the bitmap and the dirty pages start. */
    size_t bitmap_off, bitmap_len, pages_off;
};

/* Parses LOG (may be absent) into VIEW and fills INFO's format, base
 * block fields, chain and problem. Returns 0, or -1 when out of memory. */
int regf_log_parse(const struct rt_regf_log_input *log,
                   struct regf_log_view *view, struct rt_regf_log_info *info);

void regf_log_view_free(struct regf_log_view *view);

/* a - b as a signed distance, so that sequence numbers that wrapped past
 * 0xFFFFFFFF still compare in the order they were written. */
static inline int32_t regf_seq_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b);
}

#endif
