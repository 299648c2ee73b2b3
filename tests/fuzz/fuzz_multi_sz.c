/* libFuzzer harness: the Counter/Help blob codec (model/multi_sz.c).
 *
 * Asserts what multi_sz.h promises: a blob that decodes strictly encodes
 * back to the same bytes; the scanner reports exactly the decoder's
 * status and offset, in both modes, and locates the same pairs; salvage
 * of a valid blob gives exactly what decoding gives; lenient decoding of
 * a valid blob is the strict result; the scanner of tables in pieces
 * (big-data segments) accepts exactly the well-formed blobs, with the
 * same entries, wherever the pieces are cut. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/multi_sz.h"

static int same_pairs(const struct rt_pair *a, size_t na,
                      const struct rt_pair *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++) {
        if (a[i].index != b[i].index || a[i].text_len != b[i].text_len ||
            memcmp(a[i].text, b[i].text, a[i].text_len) != 0)
            return 0;
        if (!a[i].index_raw != !b[i].index_raw ||
            (a[i].index_raw && strcmp(a[i].index_raw, b[i].index_raw)))
            return 0;
    }
    return 1;
}

/* The scanner's entries, decoded one by one, are the decoder's pairs. */
static void check_scan(const uint8_t *data, size_t size, int lenient,
                       int dec_r, const struct rt_msz_error *dec_err,
                       const struct rt_pair *pairs, size_t n_pairs)
{
    struct rt_msz_entry *e = NULL;
    size_t n = 0;
    struct rt_msz_error err = {0};
    int r = rt_multi_sz_scan(data, size, lenient, &e, &n, &err);
    FUZZ_ASSERT(r == dec_r);
    if (r != 0) {
        FUZZ_ASSERT(err.status == dec_err->status);
        FUZZ_ASSERT(err.offset == dec_err->offset);
    }
    FUZZ_ASSERT(n == n_pairs);
    for (size_t i = 0; i < n; i++) {
        struct rt_pair p = {0};
        FUZZ_ASSERT(rt_msz_entry_pair(data, &e[i], &p) == 0);
        FUZZ_ASSERT(same_pairs(&p, 1, &pairs[i], 1));
        rt_pair_free(&p);
    }
    free(e);
}

/* The blob cut into pieces of even lengths taken from its own bytes
 * (as a hive's segments cut a big value): rt_multi_sz_scan_pieces says
 * well-formed exactly when the strict scan does, with its entries. */
static void check_pieces(const uint8_t *data, size_t size, int strict_r)
{
    const uint8_t *piece[64];
    size_t len[64], n = 0, at = 0;
    while (at < size && n < 64) {
        size_t l = 2 + 2 * (size_t)(data[at] % 24);
        if (n == 63 || l > size - at)
            l = size - at;
        piece[n] = data + at;
        len[n++] = l;
        at += l;
    }
    struct rt_msz_entry *pe = NULL, *se = NULL;
    size_t pn = 0, sn = 0;
    struct rt_msz_error err;
    int r = rt_multi_sz_scan_pieces(piece, len, n, &pe, &pn);
    FUZZ_ASSERT(r == 0 || r == 1);
    if (size % 2 == 0)
        FUZZ_ASSERT((r == 0) == (strict_r == 0 && size > 0));
    else
        FUZZ_ASSERT(r == 1);
    if (r == 0) {
        FUZZ_ASSERT(rt_multi_sz_scan(data, size, 0, &se, &sn, &err) == 0);
        FUZZ_ASSERT(pn == sn);
        for (size_t i = 0; i < pn; i++)
            FUZZ_ASSERT(pe[i].index == se[i].index && pe[i].at == se[i].at &&
                        pe[i].text == se[i].text &&
                        pe[i].text_bytes == se[i].text_bytes);
    } else {
        FUZZ_ASSERT(pe == NULL && pn == 0);
    }
    free(pe);
    free(se);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_pair *strict = NULL, *lenient = NULL, *salvaged = NULL;
    size_t n_strict = 0, n_lenient = 0, n_salvaged = 0, dropped = 0;
    struct rt_msz_error serr = {0}, lerr = {0};

    int rs = rt_multi_sz_decode(data, size, 0, &strict, &n_strict, &serr);
    int rl = rt_multi_sz_decode(data, size, 1, &lenient, &n_lenient, &lerr);
    FUZZ_ASSERT(rs == 0 || n_strict == 0);
    FUZZ_ASSERT(rs == rl);
    if (rs == 0)
        FUZZ_ASSERT(same_pairs(strict, n_strict, lenient, n_lenient));
    else if (size % 2 == 0)
        FUZZ_ASSERT(serr.status == lerr.status && serr.offset == lerr.offset);
    else
        /* Strict mode stops at an odd length; lenient mode still scans
         * the even prefix and reports whichever damage comes first. */
        FUZZ_ASSERT(serr.status == RT_MSZ_ODD_LENGTH);
    FUZZ_ASSERT(rs != 0 || serr.status == RT_MSZ_OK);
    /* Every status has a text. */
    FUZZ_ASSERT(rt_msz_strerror(serr.status) != NULL);

    check_scan(data, size, 0, rs, &serr, strict, n_strict);
    check_scan(data, size, 1, rl, &lerr, lenient, n_lenient);
    check_pieces(data, size, rs);

    FUZZ_ASSERT(rt_multi_sz_salvage(data, size, &salvaged, &n_salvaged,
                                    &dropped, NULL) == 0);
    if (rs == 0) {
        FUZZ_ASSERT(same_pairs(strict, n_strict, salvaged, n_salvaged));
        FUZZ_ASSERT(dropped == 0);

        /* The round trip. An empty table (no bytes at all) encodes as the
         * lone list NUL, so only a non-empty input must come back. */
        uint8_t *blob = NULL;
        size_t blen = 0;
        FUZZ_ASSERT(rt_multi_sz_encode(strict, n_strict, &blob, &blen) == 0);
        if (size > 0) {
            FUZZ_ASSERT(blen == size);
            FUZZ_ASSERT(memcmp(blob, data, size) == 0);
        }
        free(blob);
    }
    /* Copies are deep. */
    for (size_t i = 0; i < n_lenient; i++) {
        struct rt_pair c;
        FUZZ_ASSERT(rt_pair_copy(&c, &lenient[i]) == 0);
        FUZZ_ASSERT(same_pairs(&c, 1, &lenient[i], 1));
        rt_pair_free(&c);
    }
    rt_pairs_free(strict, n_strict);
    rt_pairs_free(lenient, n_lenient);
    rt_pairs_free(salvaged, n_salvaged);
    return 0;
}
