/* INI layer: encoding of lodctr inputs without a byte-order mark, and the
 * DOS end-of-file mark (see text_encoding.h). */
#include "provider/text_encoding.h"

#include <stdbool.h>

enum rt_text_encoding rt_text_sniff(const void *data, size_t len)
{
    const unsigned char *p = data;
    size_t units = 0, le = 0, be = 0, line_ends = 0;
    bool nul = false;
    for (size_t i = 0; i + 1 < len && units < RT_TEXT_SNIFF_UNITS &&
                       line_ends < 4; i += 2) {
        unsigned char lo = p[i], hi = p[i + 1];
        units++;
        nul |= lo == 0 || hi == 0;
        if (lo && !hi)
            le++;
        else if (!lo && hi)
            be++;
        /* A line end in either byte order, or 8-bit text's. */
        if (lo == '\n' || hi == '\n')
            line_ends++;
    }
    if (!nul)
        return RT_TEXT_8BIT;
    if (le == units)
        return RT_TEXT_UTF16LE;
    if (be == units)
        return RT_TEXT_UTF16BE;
    /* Most units hold one NUL byte: 16-bit text, but not ASCII. A few
     * NULs in 8-bit text are reported as such by the 8-bit reading. */
    if (2 * (le + be) >= units)
        return RT_TEXT_AMBIGUOUS;
    return RT_TEXT_8BIT;
}

size_t rt_text_strip_dos_eof(const void *data, size_t len, int utf16)
{
    const unsigned char *p = data;
    if (utf16) {
        if (len % 2)
            return len;
        size_t end = len;
        while (end >= 2 && (p[end - 2] == '\r' || p[end - 2] == '\n') &&
               p[end - 1] == 0)
            end -= 2;
        if (end >= 2 && p[end - 2] == 0x1A && p[end - 1] == 0)
            return end - 2;
        return len;
    }
    size_t end = len;
    while (end && (p[end - 1] == '\r' || p[end - 1] == '\n'))
        end--;
    if (end && p[end - 1] == 0x1A)
        return end - 1;
    return len;
}
