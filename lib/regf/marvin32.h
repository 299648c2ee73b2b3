/* Marvin32, the keyed 64-bit hash Windows uses for the two checksums of
 * each log entry of a new-format transaction log (regf layer, internal). */
#ifndef REGF_MARVIN32_H
#define REGF_MARVIN32_H

#include <stddef.h>
#include <stdint.h>

/* The seed Windows uses for registry log entries (spec, "Log entries"). */
#define REGF_MARVIN32_LOG_SEED 0x82EF4D887A4E55C5ull

/* The 64-bit Marvin32 hash of LEN bytes at DATA under SEED: the high
 * state word in the upper 32 bits, the low word in the lower 32 bits. */
uint64_t regf_marvin32(const uint8_t *data, size_t len, uint64_t seed);

/* The same hash over data that arrives in pieces (a log entry read from
 * its file a piece at a time): begin, then blocks with every piece but
 * the last a multiple of 4 bytes long, then end with the last 0 to 3. */
struct regf_marvin32 {
    uint32_t lo, hi;
};
void regf_marvin32_begin(struct regf_marvin32 *m, uint64_t seed);
void regf_marvin32_blocks(struct regf_marvin32 *m, const uint8_t *data,
                          size_t len);
uint64_t regf_marvin32_end(struct regf_marvin32 *m, const uint8_t *tail,
                           size_t len);

#endif
