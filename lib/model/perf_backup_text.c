/* Model layer: whether a text written into a PerfStringBackup file
 * reads back as itself (perf_backup.h rt_psb_text_reads_back). */
#include "model/perf_backup.h"

#include <string.h>

/* The length of the line break at P (before END) as any reader may end
 * a line there: LF, CR, VT, FF, NEL, LS, PS; 0 when none. */
static size_t line_break_at(const char *p, const char *end)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t left = (size_t)(end - p);
    if (*u == '\n' || *u == '\r' || *u == '\v' || *u == '\f')
        return 1;
    if (*u == 0xC2 && left >= 2 && u[1] == 0x85)
        return 2;
    if (*u == 0xE2 && left >= 3 && u[1] == 0x80 &&
        (u[2] == 0xA8 || u[2] == 0xA9))
        return 3;
    return 0;
}

/* The length of the blank at P (before END) as any reader may trim it:
 * space, tab, ^Z, FS to US, NBSP, U+1680, U+180E, U+2000 to U+200B,
 * U+202F, U+205F, U+3000, BOM; 0 when none. */
static size_t lenient_blank_at(const char *p, const char *end)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t left = (size_t)(end - p);
    /* ^Z too, which Windows' profile reader counts a blank (a DOS end of
     * file: review 51 R51-6), and the C library's other spaces. */
    if (*u == ' ' || *u == '\t' || *u == 0x1A || (*u >= 0x1C && *u <= 0x1F))
        return 1;
    if (*u == 0xC2 && left >= 2 && u[1] == 0xA0)
        return 2;
    if (left < 3)
        return 0;
    unsigned c = (unsigned)(u[0] & 0x0F) << 12 | (unsigned)(u[1] & 0x3F) << 6 |
                 (u[2] & 0x3F);
    if ((u[0] & 0xF0) != 0xE0 || (u[1] & 0xC0) != 0x80 ||
        (u[2] & 0xC0) != 0x80)
        return 0;
    return (c >= 0x2000 && c <= 0x200B) || c == 0x202F || c == 0x205F ||
                   c == 0x3000 || c == 0xFEFF || c == 0x1680 || c == 0x180E
               ? 3 : 0;
}

static int is_alnum_ascii(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z');
}

/* Whether the line from S to E, blanks trimmed as the most lenient
 * reader trims them, reads as a section header ('[' up to a ']') or a
 * record of a number ("4242=", " 4242 =", "+4242=", "0x10="). */
static int line_stands_alone(const char *s, const char *e)
{
    for (size_t b; s < e && (b = lenient_blank_at(s, e));)
        s += b;
    if (s < e && *s == '[')
        return memchr(s, ']', (size_t)(e - s)) != NULL;
    if (s < e && (*s == '+' || *s == '-'))
        s++;
    if (s >= e || *s < '0' || *s > '9')
        return 0;
    while (s < e && is_alnum_ascii(*s))
        s++;
    for (size_t b; s < e && (b = lenient_blank_at(s, e));)
        s += b;
    return s < e && *s == '=';
}

int rt_psb_text_reads_back(const char *text, size_t n)
{
    /* Judged by the most lenient reader, not regtool's own alone (review
     * 49 R49-9: " 4242=EVIL", "[PERFLIB] x" and a line after a bare CR
     * passed into a backup, records and headers to a reader that trims
     * blanks or ends lines at any break). */
    const char *end = text + n;
    for (const char *p = text; p < end;) {
        size_t b = line_break_at(p, end);
        if (!b) {
            p++;
            continue;
        }
        const char *s = p + b, *e = s;
        while (e < end && !line_break_at(e, end))
            e++;
        if (line_stands_alone(s, e))
            return 0;
        p = e;
    }
    return 1;
}
