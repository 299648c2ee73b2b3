/* Commit layer: CRC-32 (IEEE), sealing both journals: the redo journal of
 * the file stores and the win32 store's journal of pre-images. Plain C,
 * so the Windows builds link it without the POSIX file code.
 *
 * Eight bytes a step through eight tables ("slicing by 8"): a commit
 * seals every byte it writes, and a byte at a time took a twentieth of a
 * small install's time. */
#include "commit/crc32.h"


static uint32_t table[8][256];
static int built;

static void make_tables(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = table[0][table[t - 1][i] & 0xFF] ^
                          (table[t - 1][i] >> 8);
}

uint32_t rt_crc32(uint32_t crc, const void *data, size_t len)
{
    /* Built once (every caller is on one thread: a commit). */
    if (!built) {
        make_tables();
        built = 1;
    }
    const uint8_t *p = data;
    crc = ~crc;
    for (; len >= 8; len -= 8, p += 8) {
        /* Little-endian loads of the two words, whatever the host. */
        uint32_t lo = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                      (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 |
                      (uint32_t)p[6] << 16 | (uint32_t)p[7] << 24;
        lo ^= crc;
        crc = table[7][lo & 0xFF] ^ table[6][lo >> 8 & 0xFF] ^
              table[5][lo >> 16 & 0xFF] ^ table[4][lo >> 24] ^
              table[3][hi & 0xFF] ^ table[2][hi >> 8 & 0xFF] ^
              table[1][hi >> 16 & 0xFF] ^ table[0][hi >> 24];
    }
    while (len--)
        crc = table[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
