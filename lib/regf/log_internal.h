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

/* Where a log's bytes are: a buffer (rt_regf_replay's inputs), or an open
 * regular file (rt_regf_replay_file) read a piece at a time as the format
 * asks, so that a log is never held whole and a file far larger than
 * its entries (3 GB of sparse zeros behind one entry) costs what the
 * entries cost. */
struct regf_log_source {
    const uint8_t *data;    /* the bytes, or NULL: read from FD */
    int fd;
    uint64_t size;
};

/* LEN bytes at OFF of SRC into BUF (OFF + LEN within SRC->size). 0, or -1
 * with errno (EIO when the file holds fewer bytes than it did). */
int regf_log_read(const struct regf_log_source *src, uint64_t off, void *buf,
                  size_t len);

/* The piece a log is read in: entries and pages are hashed and copied
 * through a buffer of this size, whatever their own size. */
#define REGF_LOG_PIECE (1u << 20)

struct regf_log_view {
    struct regf_log_source src;
    uint64_t size;
    enum rt_regf_log_format format;
    uint32_t sequence;
    uint64_t timestamp;
    uint32_t hbins_size;
    uint32_t flags;
    uint8_t base[REGF_LOG_BASE_BLOCK_SIZE];   /* its base block */
    /* New format: file offsets of the entries of the valid chain. */
    uint64_t *entry_off;
    size_t n_entries;
    /* Old format: the dirty vector's bitmap (a copy) and where the dirty
     * pages start. */
    uint8_t *bitmap;
    size_t bitmap_len;
    uint64_t pages_off;
    /* How far into the file the format reaches: the base block and the
     * valid entries, or the base block, dirty vector and dirty pages; 0
     * when the base block is no log's. Nothing past it is ever read. */
    uint64_t extent;
};

/* Parses the log in SRC (NULL: absent) into VIEW and fills INFO's format,
 * base block fields, chain and problem. Returns 0, or -1 with errno
 * (ENOMEM, or the file could not be read). */
int regf_log_parse(const struct regf_log_source *src,
                   struct regf_log_view *view, struct rt_regf_log_info *info);

void regf_log_view_free(struct regf_log_view *view);

/* rt_regf_replay over log sources (SRC[s] NULL: that log is absent;
 * NAMES[s] its name in messages). OWNED: PRIMARY is a malloc'd buffer
 * handed over, used as the image and freed (no second copy of the hive). */
int regf_replay_sources(const uint8_t *primary, size_t primary_size,
                        int owned, const char *primary_name,
                        const struct regf_log_source *const src[RT_REGF_LOG_SLOTS],
                        const char *const names[RT_REGF_LOG_SLOTS],
                        uint8_t **image_out, size_t *image_size,
                        struct rt_regf_replay_report *r);

/* a - b as a signed distance, so that sequence numbers that wrapped past
 * 0xFFFFFFFF still compare in the order they were written. */
static inline int32_t regf_seq_diff(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b);
}

#endif
