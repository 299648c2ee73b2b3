/* The hive base block ("regf" header, the file's first 4096 bytes).
 * Layout from the "Windows registry file format specification"
 * (M. Suhanov) and libregf's REGF documentation. Shared by the reader,
 * the writer and the log replayer. */
#ifndef REGF_BASE_BLOCK_H
#define REGF_BASE_BLOCK_H

#include <stddef.h>
#include <stdint.h>

#define REGF_BASE_BLOCK_SIZE   4096u
#define REGF_HBIN_ALIGN        4096u

/* Field offsets in the base block. */
#define REGF_OFF_SIGNATURE     0    /* "regf" */
#define REGF_OFF_SEQ1          4    /* primary sequence number */
#define REGF_OFF_SEQ2          8    /* secondary sequence number */
#define REGF_OFF_TIMESTAMP     12   /* FILETIME of last write */
#define REGF_OFF_MAJOR         20   /* 1 */
#define REGF_OFF_MINOR         24   /* 3..6 */
#define REGF_OFF_FILE_TYPE     28   /* 0 primary, 1/2 old log, 6 new log */
#define REGF_OFF_FILE_FORMAT   32   /* 1: direct memory load */
#define REGF_OFF_ROOT_CELL     36   /* offset relative to the first hbin */
#define REGF_OFF_HBINS_SIZE    40   /* bytes of hive bins data */
#define REGF_OFF_CLUSTERING    44   /* 1 */
#define REGF_OFF_FILE_NAME     48   /* 64 bytes, UTF-16LE, informational */
#define REGF_OFF_CHECKSUM      508  /* XOR-32 of bytes 0..507 */
#define REGF_OFF_BOOT_TYPE     4088
#define REGF_OFF_BOOT_RECOVER  4092

#define REGF_FILE_TYPE_PRIMARY 0u
#define REGF_FILE_TYPE_LOG_OLD 1u
#define REGF_FILE_TYPE_LOG_OLD2 2u
#define REGF_FILE_TYPE_LOG_NEW 6u

static inline uint32_t regf_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static inline uint16_t regf_le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint64_t regf_le64(const uint8_t *p)
{
    return (uint64_t)regf_le32(p) | (uint64_t)regf_le32(p + 4) << 32;
}
static inline void regf_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void regf_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8);
}
static inline void regf_put64(uint8_t *p, uint64_t v)
{
    regf_put32(p, (uint32_t)v);
    regf_put32(p + 4, (uint32_t)(v >> 32));
}

/* XOR-32 checksum of the first 508 bytes, with Windows' two special
 * cases (0xFFFFFFFF becomes 0xFFFFFFFE, 0 becomes 1). */
uint32_t regf_base_checksum(const uint8_t *base);

/* Recomputes and stores the checksum. */
void regf_base_seal(uint8_t *base);

/* A primary is dirty when its checksum is wrong or its two sequence
 * numbers differ (spec, "Dirty state of a hive"). */
int regf_base_is_dirty(const uint8_t *base);

#endif
