/* UTF-16LE <-> UTF-8 conversion and Windows-style case folding.
 *
 * Everything the registry stores as text is UTF-16LE; the rest of regtool
 * works in UTF-8. Conversions are strict: an unpaired surrogate or invalid
 * UTF-8 is an error with the byte offset, never silently replaced, so that
 * decoding and re-encoding untouched text gives back the same bytes. */
#ifndef RT_UTF16_H
#define RT_UTF16_H

#include <stddef.h>
#include <stdint.h>

/* rt_utf8_decode_one, rt_upcase16, rt_utf8_casecmp, rt_name_casecmp,
 * rt_utf8_casehash: below, where the platform layer compares a tree's
 * names with them too. */
#include "platform/name_case.h"

/* Converts LEN bytes of UTF-16LE (LEN even) to NUL-terminated UTF-8 in a
 * new buffer. Returns 0, or -1 with *ERR_OFF the byte offset of the bad
 * code unit (unpaired surrogate), or -2 when out of memory. */
int rt_utf16le_to_utf8(const uint8_t *in, size_t len, char **out,
                       size_t *out_len, size_t *err_off);
/* The same into BUF (room for LEN / 2 * 3 bytes), no terminator: *OUT_LEN
 * bytes written. For text converted a piece at a time (a piece must not
 * end between the two units of a surrogate pair). 0 or -1 as above. */
int rt_utf16le_to_utf8_into(const uint8_t *in, size_t len, char *buf,
                            size_t *out_len, size_t *err_off);

/* Whether LEN bytes of UTF-16LE (LEN even) are well-formed: 0, or -1 with
 * *ERR_OFF at the byte offset of the first unpaired surrogate (the offset
 * rt_utf16le_to_utf8 reports). Converts nothing: tables stay UTF-16. */
int rt_utf16le_check(const uint8_t *in, size_t len, size_t *err_off);

/* Converts LEN bytes of UTF-8 to UTF-16LE (no terminator added). Returns
 * 0, -1 with *ERR_OFF at the first invalid byte, or -2 when out of memory. */
int rt_utf8_to_utf16le(const char *in, size_t len, uint8_t **out,
                       size_t *out_len, size_t *err_off);
/* The same into BUF, which has room for 2 * LEN bytes (no UTF-8 form is
 * shorter than half its UTF-16LE): no allocation per string when a
 * table is encoded pair by pair. Returns 0, or -1 (invalid UTF-8 at
 * *ERR_OFF). */
int rt_utf8_to_utf16le_into(const char *restrict in, size_t len,
                            uint8_t *restrict buf,
                            size_t *out_len, size_t *err_off);

/* A UTF-8 string as a new NUL-terminated UTF-16 string (what the Windows
 * W functions take); NULL on invalid UTF-8 or when out of memory. */
uint16_t *rt_utf8_to_utf16z(const char *s);

/* Length of the valid UTF-8 prefix check: returns 0 when S[0..LEN) is valid
 * UTF-8 (no overlongs, no surrogates), else -1 with *ERR_OFF set. */
int rt_utf8_validate(const char *s, size_t len, size_t *err_off);

/* How many UTF-16 code units the NUL-ended UTF-8 text S is: the length
 * Windows measures a key or file name in (255 at most), a character
 * past the BMP two (review 55 R55-2: 200 emoji passed as 200). */
size_t rt_utf8_utf16_units(const char *s);

#endif
