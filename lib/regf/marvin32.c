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

void regf_marvin32_begin(struct regf_marvin32 *m, uint64_t seed)
{
    m->lo = (uint32_t)seed;
    m->hi = (uint32_t)(seed >> 32);
}

void regf_marvin32_blocks(struct regf_marvin32 *m, const uint8_t *data,
                          size_t len)
{
    for (size_t i = 0; i + 4 <= len; i += 4)
        mix(&m->lo, &m->hi, (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                                (uint32_t)data[i + 2] << 16 |
                                (uint32_t)data[i + 3] << 24);
}

uint64_t regf_marvin32_end(struct regf_marvin32 *m, const uint8_t *tail,
                           size_t len)
{
    /* The tail bytes sit below the marker, in their little-endian places. */
    uint32_t last = 0x80;
    for (size_t k = len; k-- > 0;)
        last = (last << 8) | tail[k];
    mix(&m->lo, &m->hi, last);
    mix(&m->lo, &m->hi, 0);
    return (uint64_t)m->hi << 32 | m->lo;
}

uint64_t regf_marvin32(const uint8_t *data, size_t len, uint64_t seed)
{
    struct regf_marvin32 m;
    regf_marvin32_begin(&m, seed);
    size_t whole = len & ~(size_t)3;
    regf_marvin32_blocks(&m, data, whole);
    return regf_marvin32_end(&m, data + whole, len - whole);
}
