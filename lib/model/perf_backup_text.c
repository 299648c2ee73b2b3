/* Model layer: whether a text written into a PerfStringBackup file
 * reads back as itself (perf_backup.h rt_psb_text_reads_back). */
#include "model/perf_backup.h"
#include "model/utf16.h"

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

/* The zeros of the decimal digits of the BMP's scripts, each followed by
 * nine more: what the C library's wcstoul reads as digits on Windows
 * (review 52 R52-2: "\n４２４２=" passed into a backup). */
static const uint16_t digit_zeros[] = {
    0x0660, 0x06F0, 0x07C0, 0x0966, 0x09E6, 0x0A66, 0x0AE6, 0x0B66,
    0x0BE6, 0x0C66, 0x0CE6, 0x0D66, 0x0DE6, 0x0E50, 0x0ED0, 0x0F20,
    0x1040, 0x1090, 0x17E0, 0x1810, 0x1946, 0x19D0, 0x1A80, 0x1A90,
    0x1B50, 0x1BB0, 0x1C40, 0x1C50, 0xA620, 0xA8D0, 0xA900, 0xA9D0,
    0xA9F0, 0xAA50, 0xABF0, 0xFF10,
};

/* The length of the character at P (before END) when it is a decimal
 * digit of any script, else 0. */
static size_t digit_at(const char *p, const char *end)
{
    if (*p >= '0' && *p <= '9')
        return 1;
    uint32_t c;
    size_t k = rt_utf8_decode_one((const unsigned char *)p,
                                  (size_t)(end - p), &c);
    for (size_t i = 0; k && i < sizeof digit_zeros / sizeof *digit_zeros; i++)
        if (c >= digit_zeros[i] && c <= digit_zeros[i] + 9u)
            return k;
    return 0;
}

/* The length of a sign at P: + or -, fullwidth or not; else 0. */
static size_t sign_at(const char *p, const char *end)
{
    if (*p == '+' || *p == '-')
        return 1;
    return end - p >= 3 && !memcmp(p, "\xEF\xBC", 2) &&
                   ((unsigned char)p[2] == 0x8B || (unsigned char)p[2] == 0x8D)
               ? 3 : 0;
}

/* Whether the line from S to E, blanks trimmed as the most lenient
 * reader trims them, reads as a section header ('[' up to a ']') or a
 * record of a number ("4242=", " 4242 =", "+4242=", "0x10=", in any
 * script's digits). */
static int line_stands_alone(const char *s, const char *e)
{
    for (size_t b; s < e && (b = lenient_blank_at(s, e));)
        s += b;
    if (s < e && *s == '[')
        return memchr(s, ']', (size_t)(e - s)) != NULL;
    if (s < e)
        s += sign_at(s, e);
    if (s >= e || !digit_at(s, e))
        return 0;
    for (size_t d; s < e && (d = is_alnum_ascii(*s) ? 1 : digit_at(s, e));)
        s += d;
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
