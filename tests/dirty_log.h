/* Test helper: the log a dirty hive has, as Windows leaves one whose last
 * write is only in its transaction log. Shared by tests/cli/mkdirty.c
 * (the CLI scripts' dirty hives) and the unit tests that make one. */
#ifndef RT_TEST_DIRTY_LOG_H
#define RT_TEST_DIRTY_LOG_H

#include <stdint.h>
#include <string.h>

#include "regf/base_block.h"
#include "regf/marvin32.h"

#define DIRTY_LOG_PAGE 4096u
#define DIRTY_LOG_SIZE (512u + 4608u)

/* Fills LOG with the .LOG1 of the clean hive whose base block is BASE and
 * whose first bins page is PAGE: its base block (sequence numbers S+1,
 * S the primary's second), then one new-format entry of sequence S+1
 * rewriting that page, its hbin header's timestamp changed. Then makes
 * BASE the dirty primary's base block (sequence numbers S+1/S, sealed). */
static void dirty_log_build(uint8_t *base, const uint8_t *page,
                            uint8_t log[DIRTY_LOG_SIZE])
{
    uint32_t s = regf_le32(base + REGF_OFF_SEQ2);
    memset(log, 0, DIRTY_LOG_SIZE);
    memcpy(log, base, 512);
    regf_put32(log + REGF_OFF_SEQ1, s + 1);
    regf_put32(log + REGF_OFF_SEQ2, s + 1);
    regf_put32(log + REGF_OFF_FILE_TYPE, REGF_FILE_TYPE_LOG_NEW);
    regf_base_seal(log);
    uint8_t *e = log + 512;
    memcpy(e, "HvLE", 4);
    regf_put32(e + 4, 4608);
    regf_put32(e + 12, s + 1);
    regf_put32(e + 16, regf_le32(base + REGF_OFF_HBINS_SIZE));
    regf_put32(e + 20, 1);
    regf_put32(e + 40, 0);
    regf_put32(e + 44, DIRTY_LOG_PAGE);
    memcpy(e + 48, page, DIRTY_LOG_PAGE);
    regf_put64(e + 48 + 20, regf_le64(page + 20) + 10000000u);
    regf_put64(e + 24, regf_marvin32(e + 40, 4608 - 40, REGF_MARVIN32_LOG_SEED));
    regf_put64(e + 32, regf_marvin32(e, 32, REGF_MARVIN32_LOG_SEED));
    regf_put32(base + REGF_OFF_SEQ1, s + 1);
    regf_base_seal(base);
}

#endif
