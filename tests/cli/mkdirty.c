/* mkdirty HIVE: makes the clean hive HIVE dirty as Windows leaves one
 * whose last write is only in its transaction log: the primary's sequence
 * numbers become S+1/S, and HIVE.LOG1 holds one new-format entry
 * (sequence S+1) rewriting the first bins page, its hbin header's
 * timestamp changed. Built by tests/cli/crash_sweep.sh with
 * lib/regf/marvin32.c and lib/regf/base_block.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dirty_log.h"

#define PAGE DIRTY_LOG_PAGE

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
    if (regf_base_is_dirty(base) || memcmp(page, "hbin", 4))
        return die("not a clean hive", argv[1]);

    /* The log, and the primary's base block made dirty. */
    static uint8_t log[DIRTY_LOG_SIZE];
    dirty_log_build(base, page, log);

    char path[4096];
    snprintf(path, sizeof path, "%s.LOG1", argv[1]);
    FILE *l = fopen(path, "wb");
    if (!l || fwrite(log, 1, sizeof log, l) != sizeof log || fclose(l) != 0)
        return die("cannot write", path);

    /* The primary: dirty. */
    if (fseek(f, 0, SEEK_SET) != 0 || fwrite(base, 1, 512, f) != 512 ||
        fclose(f) != 0)
        return die("cannot write", argv[1]);
    return 0;
}
