/* Base block checksum and dirty-state rules. */
#include "regf/base_block.h"

uint32_t regf_base_checksum(const uint8_t *base)
{
    uint32_t x = 0;
    for (size_t i = 0; i < REGF_OFF_CHECKSUM; i += 4)
        x ^= regf_le32(base + i);
    if (x == 0xFFFFFFFFu)
        return 0xFFFFFFFEu;
    if (x == 0)
        return 1;
    return x;
}

void regf_base_seal(uint8_t *base)
{
    regf_put32(base + REGF_OFF_CHECKSUM, regf_base_checksum(base));
}

int regf_base_is_dirty(const uint8_t *base)
{
    return regf_le32(base + REGF_OFF_CHECKSUM) != regf_base_checksum(base) ||
           regf_le32(base + REGF_OFF_SEQ1) != regf_le32(base + REGF_OFF_SEQ2);
}
