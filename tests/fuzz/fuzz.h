/* Shared by the libFuzzer harnesses in tests/fuzz/: cutting one fuzz input
 * into the several files some parsers read together (an INI and its
 * symbol file, a hive and its logs), and the checks a harness asserts.
 *
 * The parts are separated by FUZZ_SPLIT rather than prefixed by lengths:
 * a mutation then rarely turns every part into garbage at once, and the
 * separator is in the dictionaries so the fuzzer can add or drop a part. */
#ifndef RT_FUZZ_H
#define RT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_SPLIT "\n--regtool-fuzz-split--\n"

/* Cuts DATA at each FUZZ_SPLIT into at most MAX parts (the last part keeps
 * any further separators). Returns the number of parts, at least 1. */
static inline size_t fuzz_split(const uint8_t *data, size_t size,
                                const uint8_t **part, size_t *len, size_t max)
{
    const size_t sep = sizeof FUZZ_SPLIT - 1;
    size_t n = 0;
    while (n + 1 < max) {
        const uint8_t *s = size ? memmem(data, size, FUZZ_SPLIT, sep) : NULL;
        if (!s)
            break;
        part[n] = data;
        len[n++] = (size_t)(s - data);
        size -= (size_t)(s - data) + sep;
        data = s + sep;
    }
    part[n] = data;
    len[n++] = size;
    return n;
}

/* A property the code documents does not hold: abort, so libFuzzer keeps
 * the input as a crash. */
#define FUZZ_ASSERT(cond)                                                    \
    do {                                                                     \
        if (!(cond)) {                                                       \
            fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__,        \
                    __LINE__, #cond);                                        \
            abort();                                                         \
        }                                                                    \
    } while (0)

#endif
