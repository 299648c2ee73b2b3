/* Marvin32 hash (regf layer): the checksum of new-format log entries.
 *
 * The state is two 32-bit words seeded from the 64-bit key; each 32-bit
 * little-endian block of input is added to the low word and mixed by a
 * fixed sequence of add/xor/rotate steps. The 0..3 trailing bytes are
 * padded with a 0x80 marker byte, and a final zero block ends the hash. */
#include "regf/marvin32.h"

static uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

static void mix(uint32_t *lo, uint32_t *hi, uint32_t block)
{
    *lo += block;
    *hi ^= *lo;
    *lo = rotl32(*lo, 20) + *hi;
    *hi = rotl32(*hi, 9) ^ *lo;
    *lo = rotl32(*lo, 27) + *hi;
    *hi = rotl32(*hi, 19);
}

uint64_t regf_marvin32(const uint8_t *data, size_t len, uint64_t seed)
{
    uint32_t lo = (uint32_t)seed, hi = (uint32_t)(seed >> 32);
    size_t i = 0;
    for (; len - i >= 4; i += 4)
        mix(&lo, &hi, (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                      (uint32_t)data[i + 2] << 16 |
                      (uint32_t)data[i + 3] << 24);
    /* The tail bytes sit below the marker, in their little-endian places. */
    uint32_t last = 0x80;
    for (size_t k = len - i; k-- > 0;)
        last = (last << 8) | data[i + k];
    mix(&lo, &hi, last);
    mix(&lo, &hi, 0);
    return (uint64_t)hi << 32 | lo;
}
