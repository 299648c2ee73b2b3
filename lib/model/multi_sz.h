/* The Counter/Help blob codec: REG_MULTI_SZ bytes (UTF-16LE strings, each
 * NUL-terminated, the list ended by one more NUL) <-> (index, text) pairs.
 *
 * Strict decoding rejects every malformation with its own error and the
 * byte offset where it starts; lenient decoding keeps every valid pair
 * before the damage, which is what repair needs. Decoding then encoding an
 * untouched valid blob gives back the same bytes. */
#ifndef RT_MULTI_SZ_H
#define RT_MULTI_SZ_H

#include <stddef.h>
#include <stdint.h>

/* Highest index Windows accepts in a name table (2^31). */
#define RT_INDEX_MAX 0x80000000u

/* Twenty-four bytes: a table of millions of tiny pairs decoded costs
 * this and its texts' heap blocks a pair (a text is under the 4 GiB of
 * a table). */
struct rt_pair {
    uint32_t index;
    uint32_t text_len;   /* bytes, without the NUL */
    char *text;          /* UTF-8, NUL-terminated */
    char *index_raw;     /* the index's digits when not canonical (leading
                            zeros), so re-encoding keeps them; else NULL */
};

enum rt_msz_status {
    RT_MSZ_OK = 0,
    RT_MSZ_ODD_LENGTH,      /* byte length is odd */
    RT_MSZ_NO_TERMINATOR,   /* last string or the list not NUL-terminated */
    RT_MSZ_EMPTY_INDEX,     /* an index string is empty */
    RT_MSZ_BAD_INDEX,       /* an index string is not decimal digits */
    RT_MSZ_INDEX_ZERO,      /* index 0 */
    RT_MSZ_INDEX_RANGE,     /* index above 2^31 */
    RT_MSZ_ODD_COUNT,       /* an index without its text */
    RT_MSZ_BAD_SURROGATE,   /* unpaired UTF-16 surrogate */
    RT_MSZ_EMPTY,           /* no bytes at all: a table is never empty */
    RT_MSZ_NOMEM,
};

struct rt_msz_error {
    enum rt_msz_status status;
    size_t offset;          /* byte offset in the blob where it starts */
};

/* Decodes LEN bytes. Strict (LENIENT 0): any damage is an error and no
 * pairs are returned. Lenient: returns the valid pairs before the first
 * damage and still reports that damage in *ERR (status != RT_MSZ_OK).
 * Returns 0 when no damage was found, -1 otherwise (lenient mode may still
 * have produced pairs). An empty blob (0 bytes, or the lone list NUL)
 * is an empty table. */
int rt_multi_sz_decode(const uint8_t *blob, size_t len, int lenient,
                       struct rt_pair **pairs, size_t *n_pairs,
                       struct rt_msz_error *err);

/* One pair located in its blob, not decoded: what the database keeps of
 * each table (text is converted only where a person or JSON reads it).
 * Sixteen bytes: a table of millions of short pairs is indexed in less
 * than its own size. Offsets fit 32 bits: no table is over 4 GiB (a hive
 * is refused past 2 GB, a .dat table past 256 MiB, a backup past
 * 1536 MiB), and the
 * scans refuse a blob that is. */
struct rt_msz_entry {
    uint32_t index;
    uint32_t at;            /* byte offset of its index string */
    uint32_t text;          /* byte offset of its text (UTF-16LE) */
    uint32_t text_bytes;    /* the text's length in bytes, without NUL */
};

/* The byte just past the N pairs at V (their last text's NUL): where a
 * table's list terminator begins; 0 for no pairs. */
size_t rt_msz_pairs_end(const struct rt_msz_entry *v, size_t n);

/* Locates every pair of LEN bytes in one pass, checking exactly what
 * rt_multi_sz_decode checks (the same statuses and offsets) but
 * converting nothing. Lenient mode keeps the entries before the first
 * damage. Returns 0, or -1 with *ERR set. */
int rt_multi_sz_scan(const uint8_t *blob, size_t len, int lenient,
                     struct rt_msz_entry **entries, size_t *n,
                     struct rt_msz_error *err);

/* rt_multi_sz_scan of a table held in N_PIECES pieces (a hive's big data
 * segments, read where they lie), each of even length: the same entries,
 * offsets in the whole table, with no copy of it. A fast path only: it
 * returns 0 for a well-formed table, 1 for anything else (damage, odd
 * pieces; the caller then scans a copy for the exact report), -1 when
 * out of memory. */
int rt_multi_sz_scan_pieces(const uint8_t *const *piece,
                            const size_t *piece_len, size_t n_pieces,
                            struct rt_msz_entry **entries, size_t *n);

/* Copies N bytes from byte FROM of data held in N_PIECES pieces into OUT
 * (the bytes must be there). */
void rt_pieces_copy(const uint8_t *const *piece, const size_t *piece_len,
                    size_t n_pieces, size_t from, uint8_t *out, size_t n);

/* The pair at entry X of BLOB, decoded into P (new strings). Returns 0
 * or -1 when out of memory. */
int rt_msz_entry_pair(const uint8_t *blob, const struct rt_msz_entry *x,
                      struct rt_pair *p);
/* At least the UTF-8 length of X's text (what rt_msz_entry_pair makes of
 * it, without its NUL), found without reading the text: three
 * bytes a unit (a surrogate pair takes four for two). A block of texts
 * sized so is decoded in one pass; what it does not use is never
 * touched, so costs no memory that is resident. */
size_t rt_msz_entry_text_bound(const struct rt_msz_entry *x);
/* rt_msz_entry_pair with the text written to BUF (room for
 * rt_msz_entry_text_bound + 1 bytes), not a new string: P->text is BUF. */
int rt_msz_entry_pair_in(const uint8_t *blob, const struct rt_msz_entry *x,
                         struct rt_pair *p, char *buf);

/* Every valid pair of a damaged blob, for repair: reads string by string
 * to the end (an odd last byte and a missing list terminator are
 * ignored), takes a string that is a valid index with the non-empty
 * string after it as a pair, and drops what cannot be one (counted in
 * *DROPPED, in strings), then goes on: a pair after the damage is kept
 * too. A text that runs to the end without its NUL was cut by the damage
 * and is dropped with its index (two strings in *DROPPED); *CUT_INDEX
 * (when not NULL) is that index, 0 when no text was cut. A valid blob
 * gives exactly what rt_multi_sz_decode gives. Returns 0, or -1 when out
 * of memory. */
int rt_multi_sz_salvage(const uint8_t *blob, size_t len,
                        struct rt_pair **pairs, size_t *n_pairs,
                        size_t *dropped, uint32_t *cut_index);

/* Encodes pairs into a new blob; an empty table is the lone list NUL
 * (2 bytes). Returns 0, or -1 when out of memory or a text is invalid
 * UTF-8. */
/* rt_multi_sz_encode of PAIRS after HEAD_LEN bytes of HEAD (pairs
 * encoded already, as a table being kept begins): one new blob. */
int rt_multi_sz_encode_after(const uint8_t *head, size_t head_len,
                             const struct rt_pair *pairs, size_t n_pairs,
                             uint8_t **blob, size_t *len);
int rt_multi_sz_encode(const struct rt_pair *pairs, size_t n_pairs,
                       uint8_t **blob, size_t *len);

/* A short description of a status, e.g. "index is not decimal". */
const char *rt_msz_strerror(enum rt_msz_status status);

void rt_pair_free(struct rt_pair *p);
void rt_pairs_free(struct rt_pair *pairs, size_t n_pairs);

/* Deep copy of one pair; returns 0 or -1 when out of memory. */
int rt_pair_copy(struct rt_pair *dst, const struct rt_pair *src);

#endif
