/* CLI: JSON output helpers. Strings are UTF-8 and pass through unchanged,
 * so text reads back byte for byte; what RFC 8259 requires is escaped, and
 * so is every other character a terminal acts on or that hides or reorders
 * text (DEL, the C1 controls, the bidirectional marks, overrides and
 * isolates, the zero-width and other format characters, the line and
 * paragraph separators: model/printable.h), as \uXXXX (a surrogate pair
 * past the BMP: \udb40\udc41), which a JSON reader decodes to the same
 * character: a --json output shown on a terminal is as
 * harmless as the text one. A byte that begins no UTF-8 sequence (no text
 * regtool reads makes one) passes through. */
#include "cli.h"

void rt_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    size_t used;
    for (const char *p = s; *p; p += used) {
        uint32_t c;
        used = 1;
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (rt_printable_unsafe(p, &c, &used) &&
                !(c & RT_PRINTABLE_BAD_BYTE)) {
                if (c > 0xFFFF)
                    fprintf(f, "\\u%04x\\u%04x",
                            (unsigned)(0xD800 + ((c - 0x10000) >> 10)),
                            (unsigned)(0xDC00 + ((c - 0x10000) & 0x3FF)));
                else
                    fprintf(f, "\\u%04x", (unsigned)c);
            } else
                fwrite(p, 1, used, f);
        }
    }
    fputc('"', f);
}

void rt_json_string_or_null(FILE *f, const char *s)
{
    if (s)
        rt_json_string(f, s);
    else
        fputs("null", f);
}

void rt_json_u32_or_null(FILE *f, int present, uint32_t v)
{
    if (present)
        fprintf(f, "%u", (unsigned)v);
    else
        fputs("null", f);
}
