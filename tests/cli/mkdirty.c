/* mkdirty HIVE: makes the clean hive HIVE dirty as Windows leaves one
 * whose last write is only in its transaction log: the primary's sequence
 * numbers become S+1/S, and HIVE.LOG1 holds one new-format entry
 * (sequence S+1) rewriting the first bins page, its hbin header's
 * timestamp changed. Built by tests/cli/crash_sweep.sh with
 * lib/regf/marvin32.c and lib/regf/base_block.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/base_block.h"
#include "regf/marvin32.h"

#define PAGE 4096u

static int die(const char *what, const char *path)
{
    fprintf(stderr, "mkdirty: %s: %s\n", path, what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return die("usage: mkdirty HIVE", "mkdirty");
    FILE *f = fopen(argv[1], "r+b");
    if (!f)
        return die("cannot open", argv[1]);
    static uint8_t base[REGF_BASE_BLOCK_SIZE], page[PAGE];
    if (fread(base, 1, sizeof base, f) != sizeof base ||
        fread(page, 1, sizeof page, f) != sizeof page)
        return die("shorter than a base block and a page", argv[1]);
    uint32_t s = regf_le32(base + REGF_OFF_SEQ2);
    if (regf_base_is_dirty(base) || memcmp(page, "hbin", 4))
        return die("not a clean hive", argv[1]);

    /* The log: its base block, then the entry. */
    static uint8_t log[512 + 4608];
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
    regf_put32(e + 44, PAGE);
    memcpy(e + 48, page, PAGE);
    regf_put64(e + 48 + 20, regf_le64(page + 20) + 10000000u);
    regf_put64(e + 24, regf_marvin32(e + 40, 4608 - 40, REGF_MARVIN32_LOG_SEED));
    regf_put64(e + 32, regf_marvin32(e, 32, REGF_MARVIN32_LOG_SEED));

    char path[4096];
    snprintf(path, sizeof path, "%s.LOG1", argv[1]);
    FILE *l = fopen(path, "wb");
    if (!l || fwrite(log, 1, sizeof log, l) != sizeof log || fclose(l) != 0)
        return die("cannot write", path);

    /* The primary: dirty. */
    regf_put32(base + REGF_OFF_SEQ1, s + 1);
    regf_base_seal(base);
    if (fseek(f, 0, SEEK_SET) != 0 || fwrite(base, 1, 512, f) != 512 ||
        fclose(f) != 0)
        return die("cannot write", argv[1]);
    return 0;
}
