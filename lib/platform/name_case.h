/* Platform layer: names compared as Windows compares them, letter case
 * folded by its table (RtlUpcaseUnicodeChar), for the layers above and
 * for this one's own look-ups of a tree's entries (review 50 R50-8: a
 * folder's names compared by ASCII case alone let a Greek service name's
 * INF folder stand beside the same name in other letter cases). */
#ifndef RT_NAME_CASE_H
#define RT_NAME_CASE_H

#include <stddef.h>
#include <stdint.h>

/* Decodes one UTF-8 sequence at S (N bytes left). Returns its length and
 * the code point in *CP, or 0 when the sequence is invalid (a stray
 * continuation byte, an overlong form, a surrogate, past U+10FFFF, or
 * cut short by N). */
size_t rt_utf8_decode_one(const unsigned char *s, size_t n, uint32_t *cp);

/* Upper-case mapping of one UTF-16 code unit, as Windows compares registry
 * key and value names and performance-counter names
 * (RtlUpcaseUnicodeChar): the generated table of unicode_tables.h,
 * every script of the BMP Windows' table covers (Latin, Greek, Cyrillic,
 * Armenian, Georgian, Coptic, Glagolitic, fullwidth, ...). A unit with no
 * upper case maps to itself. */
uint16_t rt_upcase16(uint16_t c);

/* Compares two UTF-8 strings case-insensitively by rt_upcase16 of their
 * UTF-16 code units. Returns <0, 0, >0. Invalid UTF-8 compares bytewise. */
int rt_utf8_casecmp(const char *a, size_t alen, const char *b, size_t blen);

/* rt_utf8_casecmp of two NUL-terminated names: how Windows compares
 * service, key and value names (strcasecmp folds ASCII alone: "PERFOS" is
 * PerfOS to both, but "ΌΜΙΚΡΟΝ" is Όμικρον only to Windows). */
int rt_name_casecmp(const char *a, const char *b);

/* A hash of a UTF-8 string that rt_utf8_casecmp calls equal to another
 * only when theirs are equal: of the rt_upcase16 of its code units, from
 * SEED. */
uint64_t rt_utf8_casehash(const char *s, size_t n, uint64_t seed);

#endif
