/* Platform layer: tables of Unicode character properties, generated from the
 * Unicode Character Database by tools/gen-unicode-tables.sh
 * (unicode_tables.c; the generator names the version). */
#ifndef RT_UNICODE_TABLES_H
#define RT_UNICODE_TABLES_H

#include <stddef.h>
#include <stdint.h>

/* The code points FIRST..LAST, both included. */
struct rt_unicode_range {
    uint32_t first, last;
};

/* The characters that reorder, hide or join text without a glyph of their
 * own: format characters (Cf), line and paragraph separators (Zl, Zp) and
 * default-ignorable code points; sorted, disjoint ranges. */
extern const struct rt_unicode_range rt_unicode_hidden[];
extern const size_t rt_unicode_hidden_count;

/* The code units FIRST..LAST (every one, or every other one: STRIDE 1 or
 * 2) whose upper case is the unit plus DELTA. */
struct rt_unicode_case_range {
    uint16_t first, last;
    int16_t delta;
    uint16_t stride;
};

/* The upper case of a UTF-16 code unit as Windows compares registry names
 * (RtlUpcaseUnicodeChar): Unicode's simple uppercase mapping of the
 * letters Unicode had by version 5.0, one to one (the generator says
 * which it leaves out, and why); sorted, disjoint ranges. */
extern const struct rt_unicode_case_range rt_unicode_upcase[];
extern const size_t rt_unicode_upcase_count;

/* Whether C is in one of the COUNT sorted, disjoint RANGES (binary search). */
int rt_unicode_in_ranges(const struct rt_unicode_range *ranges, size_t count,
                         uint32_t c);

#endif
