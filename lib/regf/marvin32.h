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

#endif
