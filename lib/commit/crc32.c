/* Commit layer: CRC-32 (IEEE), sealing both journals: the redo journal of
 * the file stores and the win32 store's journal of pre-images. Plain C,
 * so the Windows builds link it without the POSIX file code. */
#include "commit/crc32.h"

uint32_t rt_crc32(uint32_t crc, const void *data, size_t len)
{
    static uint32_t table[256];
    if (!table[1])
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++)
                c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[i] = c;
        }
    const uint8_t *p = data;
    crc = ~crc;
    while (len--)
        crc = table[(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
