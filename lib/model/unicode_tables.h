/* Model layer: tables of Unicode character properties, generated from the
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

/* Whether C is in one of the COUNT sorted, disjoint RANGES (binary search). */
int rt_unicode_in_ranges(const struct rt_unicode_range *ranges, size_t count,
                         uint32_t c);

#endif
