/* libFuzzer harness: a lodctr INI and its symbol file, through
 * rt_provider_spec_load, the entry `regtool check-ini` and `install` use
 * (decoding, the inih line reader, validation, the symbol-file lookup).
 *
 * Input: one byte choosing the code page (none, 1252, 1251: the ANSI
 * paths go through iconv), then the INI, then optionally FUZZ_SPLIT and
 * the symbol file. The loader reads files, so both are written to a
 * directory of our own under $TMPDIR, as p.ini and s.h; the seeds name
 * s.h as their symbolfile. Nothing is written anywhere else. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "model/diag.h"
#include "provider/provider_spec.h"

static char dir[4096], ini_path[4200], sym_path[4200];

static void cleanup(void)
{
    unlink(ini_path);
    unlink(sym_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/regtool-fuzz-ini.XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_ini: mkdtemp");
        exit(1);
    }
    snprintf(ini_path, sizeof ini_path, "%s/p.ini", dir);
    snprintf(sym_path, sizeof sym_path, "%s/s.h", dir);
    atexit(cleanup);
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const codepages[] = {NULL, "1252", "1251"};
    if (size < 1)
        return 0;
    const char *cp = codepages[data[0] % 3];
    const uint8_t *part[2];
    size_t len[2];
    size_t n = fuzz_split(data + 1, size - 1, part, len, 2);
    write_file(ini_path, part[0], len[0]);
    if (n > 1)
        write_file(sym_path, part[1], len[1]);
    else
        unlink(sym_path);

    struct rt_diags d = {0};
    struct rt_provider_spec spec;
    int r = rt_provider_spec_load(ini_path, cp, &spec, &d);
    if (r == 0) {
        /* A valid spec: its languages are found by their own ids, and its
         * symbols are sorted by unique offsets (provider_spec.h). */
        for (size_t i = 0; i < spec.n_languages; i++)
            FUZZ_ASSERT(rt_provider_spec_language(
                            &spec, spec.languages[i].id) == (int)i);
        for (size_t i = 1; i < spec.n_symbols; i++)
            FUZZ_ASSERT(spec.symbols[i - 1].offset < spec.symbols[i].offset);
        FUZZ_ASSERT(d.errors == 0);
    } else {
        FUZZ_ASSERT(r == -2 || d.errors > 0);
    }
    /* Formatting is what the CLI prints: exercise it too. */
    for (size_t i = 0; i < d.n; i++)
        free(rt_diag_format(&d.v[i]));
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    return 0;
}
