/* Model: .reg files written as regedit writes them (model/reg_file.h):
 * a key at a time, so that a tree is written without a copy of it as a
 * file's keys. Pure: no I/O (the code-page tables are the platform's). */
#include "model/reg_file.h"
#include "model/reg_file_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/reg_types.h"
#include "model/utf16.h"
#include "platform/os.h"

/* regedit (and Wine's, which copies it) breaks a hex line once it reaches
 * this many characters, so lines stay within 80 columns. */
#define MAX_HEX_CHARS 77

/* Characters as regedit counts them for wrapping: UTF-16 code units. */
static size_t units(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xC0) != 0x80)
            n += *p >= 0xF0 ? 2 : 1;
    return n;
}

static void put_escaped(struct rt_strbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *x = s[i] == '\\' ? "\\\\" : s[i] == '"' ? "\\\"" :
                        s[i] == '\n' ? "\\n" : s[i] == '\r' ? "\\r" : NULL;
        if (x)
            rt_strbuf_append(b, x, 2);
        else
            rt_strbuf_append(b, &s[i], 1);
    }
}

/* A REG_SZ that reads back as the same bytes from a quoted string: its
 * text as UTF-8 in a new string in *OUT, else *OUT NULL (written as hex).
 * 0, or -1 out of memory: never hex for want of memory, which would make
 * what is written depend on it. */
static int quotable(const struct rt_value *v, enum rt_reg_format fmt,
                    const char *codepage, char **out)
{
    *out = NULL;
    if (v->type != RT_REG_SZ || v->len < 2 || v->len % 2 ||
        v->data[v->len - 1] || v->data[v->len - 2])
        return 0;
    for (size_t i = 0; i + 2 < v->len; i += 2) {
        uint16_t u = (uint16_t)(v->data[i] | v->data[i + 1] << 8);
        if (u == 0 || u == '\r' || u == '\n')
            return 0;
    }
    char *s;
    size_t sl, off;
    int r = rt_utf16le_to_utf8(v->data, v->len - 2, &s, &sl, &off);
    if (r != 0)
        return r == -2 ? -1 : 0;
    if (fmt == RT_REG_V4) {
        /* The round trip through the code page must give the same text. */
        uint8_t *a;
        size_t al;
        r = rt_os_utf8_to_codepage(codepage, s, sl, &a, &al, &off);
        if (r != 0) {
            free(s);
            return r == -2 ? -1 : 0;
        }
        char *back;
        size_t bl;
        r = rt_os_codepage_to_utf8(codepage, a, al, &back, &bl, &off);
        int same = r == 0 && bl == sl && !memcmp(back, s, sl);
        if (r == 0)
            free(back);
        free(a);
        if (!same) {
            free(s);
            return r == -2 ? -1 : 0;
        }
    }
    *out = s;
    return 0;
}

/* The least bytes W's file takes so far, in its encoding: UTF-16 two a
 * code unit, a code page at least one a character. */
static uint64_t size_so_far(struct rt_reg_writer *w)
{
    const unsigned char *p = (const unsigned char *)w->text.s;
    for (; w->counted < w->text.len; w->counted++)
        if ((p[w->counted] & 0xC0) != 0x80)
            w->units += p[w->counted] >= 0xF0 ? 2 : 1;
    switch (w->format) {
    case RT_REG_V5_UTF16:
        return 2 + 2 * w->units;
    case RT_REG_V5_UTF8_BOM:
        return 3 + (uint64_t)w->text.len;
    case RT_REG_V5_UTF8:
        return w->text.len;
    default:
        return w->units;
    }
}

/* Whether W may take MORE code units of text (ASCII but for a quoted
 * string's own characters): -1 with E->too_large set when its file would
 * then pass W->max. Checked before a value's data is made, so that one
 * value of hundreds of megabytes is refused by its size, not its text. */
static int admit(struct rt_reg_writer *w, uint64_t more,
                 struct rt_reg_error *e)
{
    if (!w->max)
        return 0;
    uint64_t n = size_so_far(w) + (w->format == RT_REG_V5_UTF16 ? 2 : 1) * more;
    if (n <= w->max)
        return 0;
    rt_reg_fail(e, 0, "the .reg file would be %llu bytes or more, larger "
                "than the %llu MiB a .reg file may be",
                (unsigned long long)n, (unsigned long long)(w->max >> 20));
    if (e)
        e->too_large = n;
    return -1;
}

static int put_value(struct rt_reg_writer *w, const char *name,
                     const struct rt_value *v, int del,
                     struct rt_reg_error *e)
{
    struct rt_strbuf *b = &w->text;
    const char *key = w->key, *codepage = w->codepage;
    enum rt_reg_format fmt = w->format;
    size_t line_len;
    if (*name) {
        rt_strbuf_append(b, "\"", 1);
        size_t before = b->len;
        put_escaped(b, name, strlen(name));
        rt_strbuf_append(b, "", 0);
        line_len = units(b->s + before) + 3;
        rt_strbuf_append(b, "\"=", 2);
    } else {
        rt_strbuf_append(b, "@=", 2);
        line_len = 2;
    }
    if (del) {
        rt_strbuf_append(b, "-\r\n", 3);
        return 0;
    }
    char *str;
    if (quotable(v, fmt, codepage, &str) != 0)
        return rt_reg_nomem(e);
    if (str && admit(w, units(str), e) != 0) {
        free(str);
        return -1;
    }
    if (str) {
        rt_strbuf_append(b, "\"", 1);
        put_escaped(b, str, strlen(str));
        rt_strbuf_append(b, "\"\r\n", 3);
        free(str);
        return 0;
    }
    uint32_t x;
    if (v->type == RT_REG_DWORD && rt_value_dword(v, &x) == 0) {
        rt_strbuf_printf(b, "dword:%08x\r\n", x);
        return 0;
    }
    const uint8_t *data = v->data;
    size_t len = v->len;
    uint8_t *ansi = NULL;
    if (fmt == RT_REG_V4 && len &&
        (v->type == RT_REG_EXPAND_SZ || v->type == RT_REG_MULTI_SZ)) {
        char *u;
        size_t ul, off;
        int r = len % 2 ? -1 : rt_utf16le_to_utf8(data, len, &u, &ul, &off);
        if (r == 0) {
            r = rt_os_utf8_to_codepage(codepage, u, ul, &ansi, &len, &off);
            free(u);
        }
        if (r == -2)
            return rt_reg_nomem(e);
        if (r != 0)
            return rt_reg_fail(e, 0, "[%s] value \"%s\": its text cannot be "
                        "written in code page %s (REGEDIT4)", key, name,
                        codepage);
        data = ansi;
    }
    if (len && admit(w, 3 * (uint64_t)len - 1, e) != 0) {
        free(ansi);
        return -1;
    }
    char head[16];
    if (v->type == RT_REG_BINARY)
        snprintf(head, sizeof head, "hex:");
    else
        snprintf(head, sizeof head, "hex(%x):", v->type);
    rt_strbuf_append(b, head, strlen(head));
    line_len += strlen(head);
    for (size_t i = 0; i < len; i++) {
        rt_strbuf_printf(b, "%02x", data[i]);
        if (i + 1 == len)
            break;
        rt_strbuf_append(b, ",", 1);
        line_len += 3;
        if (line_len >= MAX_HEX_CHARS) {
            rt_strbuf_append(b, "\\\r\n  ", 5);
            line_len = 2;
        }
    }
    rt_strbuf_append(b, "\r\n", 2);
    free(ansi);
    return 0;
}

void rt_reg_writer_start(struct rt_reg_writer *w, enum rt_reg_format format,
                         const char *codepage)
{
    memset(w, 0, sizeof *w);
    w->format = format;
    w->codepage = codepage ? codepage : RT_REG_DEFAULT_CODEPAGE;
    rt_strbuf_printf(&w->text, "%s\r\n\r\n",
                     format == RT_REG_V4 ? rt_reg_header4 : rt_reg_header5);
}

int rt_reg_writer_key(struct rt_reg_writer *w, const char *path, int del,
                      struct rt_reg_error *e)
{
    if (strpbrk(path, "\r\n"))
        return rt_reg_fail(e, 0, "key '%s' has a line break in its name: a "
                           ".reg file cannot hold it", path);
    if (w->key)
        rt_strbuf_append(&w->text, "\r\n", 2);  /* the blank line after one */
    rt_strbuf_printf(&w->text, "[%s%s]\r\n", del ? "-" : "", path);
    w->key = path;
    return admit(w, 0, e);
}

int rt_reg_writer_value(struct rt_reg_writer *w, const char *name,
                        const struct rt_value *v, int del,
                        struct rt_reg_error *e)
{
    if (put_value(w, name, v, del, e) != 0)
        return -1;
    return admit(w, 0, e);
}

/* The text, as UTF-8 in *TEXT (TL bytes), in the file's encoding: 0, -1
 * with E set, or -2 out of memory. TEXT is taken. */
static int encode(const struct rt_reg_writer *w, char *text, size_t tl,
                  uint8_t **out, size_t *out_len, struct rt_reg_error *e)
{
    int r = 0;
    size_t off;
    switch (w->format) {
    case RT_REG_V5_UTF16: {
        uint8_t *u;
        size_t ul;
        r = rt_utf8_to_utf16le(text, tl, &u, &ul, &off);
        free(text);
        text = NULL;
        if (r != 0)
            break;
        /* The byte-order mark in front, by growing the one copy (a file
         * of millions of values is not held three times over). */
        uint8_t *grown = realloc(u, ul + 2);
        if (!grown) {
            free(u);
            r = -2;
            break;
        }
        memmove(grown + 2, grown, ul);
        grown[0] = 0xFF;
        grown[1] = 0xFE;
        *out = grown;
        *out_len = ul + 2;
        break;
    }
    case RT_REG_V5_UTF8_BOM: {
        char *grown = realloc(text, tl + 3);
        if (!grown) {
            r = -2;
            break;
        }
        memmove(grown + 3, grown, tl);
        memcpy(grown, "\xEF\xBB\xBF", 3);
        *out = (uint8_t *)grown;
        *out_len = tl + 3;
        text = NULL;
        break;
    }
    case RT_REG_V5_UTF8:
        *out = (uint8_t *)text;
        *out_len = tl;
        text = NULL;
        break;
    case RT_REG_V4:
        r = rt_os_utf8_to_codepage(w->codepage, text, tl, out, out_len, &off);
        if (r == -1 || r == -3 || r == -4) {
            free(text);
            return rt_reg_fail(e, 0, r == -3 ? "unknown code page '%s'"
                               : "a key or value name cannot be written in "
                                 "code page %s (REGEDIT4)", w->codepage);
        }
        break;
    }
    free(text);
    if (r == -2)
        return rt_reg_nomem(e);
    if (r != 0)
        return rt_reg_fail(e, 0, "a name is not valid UTF-8");
    return 0;
}

int rt_reg_writer_finish(struct rt_reg_writer *w, uint8_t **out,
                         size_t *out_len, struct rt_reg_error *e)
{
    if (w->key)
        rt_strbuf_append(&w->text, "\r\n", 2);
    if (w->text.failed) {
        rt_strbuf_free(&w->text);
        return rt_reg_nomem(e);
    }
    if (admit(w, 0, e) != 0) {
        rt_strbuf_free(&w->text);
        return -1;
    }
    size_t tl = w->text.len;
    char *text = rt_strbuf_take(&w->text);
    if (!text)
        return rt_reg_nomem(e);
    if (encode(w, text, tl, out, out_len, e) != 0)
        return -1;
    /* A code page of two bytes a character is known only now. */
    if (w->max && *out_len > w->max) {
        free(*out);
        *out = NULL;
        rt_reg_fail(e, 0, "the .reg file would be %zu bytes, larger than "
                    "the %llu MiB a .reg file may be", *out_len,
                    (unsigned long long)(w->max >> 20));
        if (e)
            e->too_large = *out_len;
        *out_len = 0;
        return -1;
    }
    return 0;
}

void rt_reg_writer_abandon(struct rt_reg_writer *w)
{
    rt_strbuf_free(&w->text);
}

int rt_reg_write_max(const struct rt_reg_file *f, const char *codepage,
                     uint64_t max, uint8_t **out, size_t *out_len,
                     struct rt_reg_error *e)
{
    if (e)
        memset(e, 0, sizeof *e);
    struct rt_reg_writer w;
    rt_reg_writer_start(&w, f->format, codepage);
    w.max = max;
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        if (rt_reg_writer_key(&w, k->path, k->del, e) != 0)
            goto fail;
        for (size_t j = 0; j < k->n_vals; j++)
            if (rt_reg_writer_value(&w, k->vals[j].name, &k->vals[j].v,
                                    k->vals[j].del, e) != 0)
                goto fail;
    }
    return rt_reg_writer_finish(&w, out, out_len, e);
fail:
    rt_reg_writer_abandon(&w);
    return -1;
}

int rt_reg_write(const struct rt_reg_file *f, const char *codepage,
                 uint8_t **out, size_t *out_len, struct rt_reg_error *e)
{
    return rt_reg_write_max(f, codepage, 0, out, out_len, e);
}
