/* Model layer: the visible form of text from a tree (printable.h). */
#include "model/printable.h"

#include <stdlib.h>
#include <string.h>

#include "model/strbuf.h"
#include "platform/unicode_tables.h"
#include "model/utf16.h"

/* The code point of the UTF-8 sequence at S and its length, or 0 when S
 * begins none; the NUL ending the string ends a sequence cut short. */
static size_t utf8_sequence(const unsigned char *s, uint32_t *cp)
{
    return rt_utf8_decode_one(s, strnlen((const char *)s, 4), cp);
}

static int acted_on(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) ||
           (c >= 0xAD && rt_unicode_in_ranges(rt_unicode_hidden,
                                              rt_unicode_hidden_count, c));
}

int rt_printable_unsafe(const char *s, uint32_t *cp, size_t *used)
{
    const unsigned char *u = (const unsigned char *)s;
    if (u[0] >= 0x20 && u[0] < 0x7F) {     /* most text stops here */
        *cp = u[0];
        *used = 1;
        return 0;
    }
    size_t n = utf8_sequence(u, cp);
    if (!n) {
        *cp = RT_PRINTABLE_BAD_BYTE | u[0];
        *used = 1;
        return 1;
    }
    *used = n;
    return acted_on(*cp);
}

size_t rt_printable_char(const char *s, char out[RT_PRINTABLE_MAX],
                         size_t *used)
{
    static const char hex[] = "0123456789abcdef";
    uint32_t c;
    if (!rt_printable_unsafe(s, &c, used)) {
        memcpy(out, s, *used);
        return *used;
    }
    out[0] = '\\';
    if (c == '\n' || c == '\r' || c == '\t') {
        out[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        return 2;
    }
    if (c < 0x80 || c & RT_PRINTABLE_BAD_BYTE) {
        unsigned b = c & 0xFF;
        out[1] = 'x';
        out[2] = hex[b >> 4];
        out[3] = hex[b & 15];
        return 4;
    }
    /* \uXXXX in the BMP, \UXXXXXXXX past it (the tag characters). */
    int digits = c > 0xFFFF ? 8 : 4;
    out[1] = c > 0xFFFF ? 'U' : 'u';
    for (int k = 0; k < digits; k++)
        out[2 + k] = hex[(c >> (4 * (digits - 1 - k))) & 15];
    return 2 + (size_t)digits;
}

int rt_text_is_printable(const char *s)
{
    uint32_t c;
    size_t used;
    for (; *s; s += used)
        if (rt_printable_unsafe(s, &c, &used))
            return 0;
    return 1;
}

size_t rt_text_printable(char *buf, size_t cap, const char *s)
{
    size_t len = 0, written = 0, used;
    int cut = 0;
    char one[RT_PRINTABLE_MAX];
    for (; *s; s += used) {
        size_t n = rt_printable_char(s, one, &used);
        /* Once a form does not fit, none after it is written: the text
         * is cut at a whole character, never resumed after a gap. */
        if (!cut && written + n < cap) {
            memcpy(buf + written, one, n);
            written += n;
        } else {
            cut = 1;
        }
        len += n;
    }
    if (cap)
        buf[written] = '\0';
    return len;
}

char *rt_text_printable_dup(const char *s)
{
    size_t n = rt_text_printable(NULL, 0, s);
    char *r = malloc(n + 1);
    if (r)
        rt_text_printable(r, n + 1, s);
    return r;
}

void rt_strbuf_append_printable(struct rt_strbuf *b, const char *s)
{
    char one[RT_PRINTABLE_MAX];
    size_t used;
    while (*s) {
        /* Runs that need nothing are appended whole. */
        const char *from = s;
        uint32_t c;
        while (*s && !rt_printable_unsafe(s, &c, &used))
            s += used;
        if (s > from)
            rt_strbuf_append(b, from, (size_t)(s - from));
        if (*s) {
            size_t n = rt_printable_char(s, one, &used);
            rt_strbuf_append(b, one, n);
            s += used;
        }
    }
}
