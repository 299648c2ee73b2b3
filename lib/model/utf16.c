/* UTF-16LE <-> UTF-8 conversion and the upper-case mapping Windows uses
 * for name comparisons. */
#include "model/utf16.h"


#include <stdlib.h>
#include <string.h>

/* The four UTF-16LE units at P (8 bytes) as four ASCII bytes, unit K in
 * bits 8K..8K+7, or UINT64_MAX when any unit is 0x80 or above: the
 * decoder's fast path, as counter names and help texts are mostly
 * ASCII. */
static uint64_t ascii_units(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    if (x & 0xFF80FF80FF80FF80ull)
        return UINT64_MAX;
    x = (x | x >> 8) & 0x0000FFFF0000FFFFull;
    return (x | x >> 16) & 0xFFFFFFFFull;
}

/* The four ASCII bytes of X (ascii_units) written at B in order. */
static void put4(char *b, uint64_t x)
{
    uint32_t v = (uint32_t)x;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap32(v);
#endif
    memcpy(b, &v, sizeof v);
}

int rt_utf16le_to_utf8_into(const uint8_t *in, size_t len, char *buf,
                            size_t *out_len, size_t *err_off)
{
    size_t units = len / 2, o = 0, i = 0;
    while (i < units) {
        uint32_t c = (uint32_t)in[2 * i] | (uint32_t)in[2 * i + 1] << 8;
        if (c < 0x80) {
            /* Counter names and help texts are mostly ASCII: four units
             * a step while every unit is below 0x80 (every verb decodes
             * whole tables; this is most of a database's load). Four,
             * not more: the accented letters of most languages come
             * every few words, and a step is only tried from an ASCII
             * unit, so a text in another script pays nothing for it. */
            uint64_t a;
            while (i + 4 <= units &&
                   (a = ascii_units(in + 2 * i)) != UINT64_MAX) {
                put4(buf + o, a);
                o += 4;
                i += 4;
            }
            if (i == units)
                break;
            c = (uint32_t)in[2 * i] | (uint32_t)in[2 * i + 1] << 8;
            if (c < 0x80) {
                buf[o++] = (char)c;
                i++;
                continue;
            }
        }
        if (c < 0x800) {
            buf[o] = (char)(0xC0 | c >> 6);
            buf[o + 1] = (char)(0x80 | (c & 0x3F));
            o += 2;
            i++;
            continue;
        }
        if (c - 0xD800 >= 0x800) {     /* not a surrogate */
            buf[o] = (char)(0xE0 | c >> 12);
            buf[o + 1] = (char)(0x80 | (c >> 6 & 0x3F));
            buf[o + 2] = (char)(0x80 | (c & 0x3F));
            o += 3;
            i++;
            continue;
        }
        uint32_t d = 0;
        if (c <= 0xDBFF && i + 1 < units)
            d = (uint32_t)in[2 * i + 2] | (uint32_t)in[2 * i + 3] << 8;
        if (d < 0xDC00 || d > 0xDFFF) {     /* unpaired */
            if (err_off)
                *err_off = 2 * i;
            return -1;
        }
        c = 0x10000 + ((c - 0xD800) << 10) + (d - 0xDC00);
        buf[o] = (char)(0xF0 | c >> 18);
        buf[o + 1] = (char)(0x80 | (c >> 12 & 0x3F));
        buf[o + 2] = (char)(0x80 | (c >> 6 & 0x3F));
        buf[o + 3] = (char)(0x80 | (c & 0x3F));
        o += 4;
        i += 2;
    }
    *out_len = o;
    return 0;
}

int rt_utf16le_to_utf8(const uint8_t *in, size_t len, char **out,
                       size_t *out_len, size_t *err_off)
{
    /* Each UTF-16 unit yields at most 3 UTF-8 bytes (a pair yields 4).
     * A table is decoded pair by pair, and its texts are short: those
     * are converted on the stack and given one allocation of their exact
     * size (a worst-case buffer trimmed by realloc is twice the
     * allocator's work, and without the trim a table would hold half as
     * much again as its UTF-16). */
    char small[768];
    size_t worst = len / 2 * 3 + 1, o;
    char *buf = worst <= sizeof small ? small : malloc(worst);
    if (!buf)
        return -2;
    if (rt_utf16le_to_utf8_into(in, len, buf, &o, err_off) != 0) {
        if (buf != small)
            free(buf);
        return -1;
    }
    buf[o] = '\0';
    if (buf == small) {
        buf = malloc(o + 1);
        if (!buf)
            return -2;
        memcpy(buf, small, o + 1);
    } else if (o + 1 < worst) {
        char *fit = realloc(buf, o + 1);
        if (fit)
            buf = fit;
    }
    *out = buf;
    if (out_len)
        *out_len = o;
    return 0;
}

int rt_utf16le_check(const uint8_t *in, size_t len, size_t *err_off)
{
    size_t units = len / 2;
    for (size_t i = 0; i < units; i++) {
        /* The high byte alone tells a surrogate (0xD8-0xDF): most text
         * never gets further than this test. */
        uint8_t hi = in[2 * i + 1];
        if ((hi & 0xF8) != 0xD8)
            continue;
        if (hi <= 0xDB && i + 1 < units && (in[2 * i + 3] & 0xFC) == 0xDC) {
            i++;
            continue;
        }
        if (err_off)
            *err_off = 2 * i;
        return -1;
    }
    return 0;
}

/* Bytes of ASCII from U[I] on, up to LEN, taken eight at a time: INI
 * files and most text in them are ASCII, and a byte at a time through
 * rt_utf8_decode_one made validating a 2 MB INI a tenth of reading it. */
static size_t ascii_run(const unsigned char *u, size_t i, size_t len)
{
    size_t from = i;
    while (len - i >= 8) {
        uint64_t w;
        memcpy(&w, u + i, 8);
        if (w & 0x8080808080808080u)
            break;
        i += 8;
    }
    while (i < len && u[i] < 0x80)
        i++;
    return i - from;
}

int rt_utf8_validate(const char *s, size_t len, size_t *err_off)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        i += ascii_run(u, i, len);
        if (i == len)
            break;
        uint32_t cp;
        size_t k = rt_utf8_decode_one(u + i, len - i, &cp);
        if (!k) {
            if (err_off)
                *err_off = i;
            return -1;
        }
        i += k;
    }
    return 0;
}

int rt_utf8_to_utf16le(const char *in, size_t len, uint8_t **out,
                       size_t *out_len, size_t *err_off)
{
    uint8_t *buf = malloc(len * 2 + 2);
    if (!buf)
        return -2;
    if (rt_utf8_to_utf16le_into(in, len, buf, out_len, err_off) != 0) {
        free(buf);
        return -1;
    }
    *out = buf;
    return 0;
}

int rt_utf8_to_utf16le_into(const char *restrict in, size_t len,
                            uint8_t *restrict buf,
                            size_t *out_len, size_t *err_off)
{
    const unsigned char *u = (const unsigned char *)in;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        /* Eight ASCII bytes a step (most text); then the two- and
         * three-byte forms of every other script a table holds decoded
         * in place, and only the rest (four bytes, or not valid) through
         * rt_utf8_decode_one: a call a character was a third of a
         * restore's time on a twelve-language database. */
        while (len - i >= 8) {
            uint64_t w;
            memcpy(&w, u + i, 8);
            if (w & 0x8080808080808080u)
                break;
            for (int b = 0; b < 8; b++) {
                buf[o + 2 * b] = u[i + b];
                buf[o + 2 * b + 1] = 0;
            }
            i += 8;
            o += 16;
        }
        if (i == len)
            break;
        uint32_t c = u[i];
        if (c < 0x80) {
            buf[o++] = (uint8_t)c;
            buf[o++] = 0;
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF && len - i >= 2 &&
            (u[i + 1] & 0xC0) == 0x80) {
            c = (c & 0x1F) << 6 | (u[i + 1] & 0x3Fu);
            buf[o++] = (uint8_t)c;
            buf[o++] = (uint8_t)(c >> 8);
            i += 2;
            continue;
        }
        if ((c & 0xF0) == 0xE0 && len - i >= 3 &&
            (u[i + 1] & 0xC0) == 0x80 && (u[i + 2] & 0xC0) == 0x80) {
            uint32_t v = (c & 0x0F) << 12 | (u[i + 1] & 0x3Fu) << 6 |
                         (u[i + 2] & 0x3Fu);
            if (v >= 0x800 && (v < 0xD800 || v > 0xDFFF)) {
                buf[o++] = (uint8_t)v;
                buf[o++] = (uint8_t)(v >> 8);
                i += 3;
                continue;
            }
        }
        uint32_t cp;
        size_t k = rt_utf8_decode_one(u + i, len - i, &cp);
        if (!k) {
            if (err_off)
                *err_off = i;
            return -1;
        }
        i += k;
        if (cp >= 0x10000) {
            uint32_t v = cp - 0x10000;
            uint16_t hi = (uint16_t)(0xD800 + (v >> 10));
            uint16_t lo = (uint16_t)(0xDC00 + (v & 0x3FF));
            buf[o++] = (uint8_t)hi; buf[o++] = (uint8_t)(hi >> 8);
            buf[o++] = (uint8_t)lo; buf[o++] = (uint8_t)(lo >> 8);
        } else {
            buf[o++] = (uint8_t)cp; buf[o++] = (uint8_t)(cp >> 8);
        }
    }
    *out_len = o;
    return 0;
}

uint16_t *rt_utf8_to_utf16z(const char *s)
{
    uint8_t *u = NULL;
    size_t n = 0;
    if (rt_utf8_to_utf16le(s, strlen(s), &u, &n, NULL) != 0)
        return NULL;
    uint16_t *w = malloc(n + sizeof *w);
    if (w) {
        /* Little-endian hosts only (x86, ARM as Windows runs them): the
         * bytes are the units. */
        memcpy(w, u, n);
        w[n / 2] = 0;
    }
    free(u);
    return w;
}

size_t rt_utf8_utf16_units(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        n += (*p & 0xc0) != 0x80 ? (*p >= 0xf0 ? 2 : 1) : 0;
    return n;
}
