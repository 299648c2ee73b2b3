/* CLI: JSON output helpers. Strings are UTF-8 and pass through unchanged,
 * so text reads back byte for byte; only what RFC 8259 requires (and DEL)
 * is escaped. */
#include "regtool.h"

void rt_json_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7F)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
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
