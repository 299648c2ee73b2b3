/* CRC-32 (IEEE 802.3, as zlib computes it). */
#ifndef RT_CRC32_H
#define RT_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues CRC (0 to start) over LEN bytes of DATA. */
uint32_t rt_crc32(uint32_t crc, const void *data, size_t len);

#endif
