/* Model layer: .reg files (model/reg_file.h). The reader takes the whole
 * file to UTF-8 first (from UTF-16LE, or from the ANSI code page of a
 * REGEDIT4 file), so that the line grammar is parsed once; value data
 * goes back to what the registry stores. The writer builds UTF-8 text the
 * same way and encodes it last. */
#include "model/reg_file.h"
#include "model/reg_file_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/reg_types.h"
#include "model/size_caps.h"
#include "model/strbuf.h"
#include "model/utf16.h"
#include "platform/compat.h"
#include "platform/os.h"

const char rt_reg_header5[] = "Windows Registry Editor Version 5.00";
const char rt_reg_header4[] = "REGEDIT4";

int rt_reg_fail(struct rt_reg_error *e, unsigned line, const char *fmt, ...)
{
    if (!e)
        return -1;
    e->line = line;
    e->nomem = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->message, sizeof e->message, fmt, ap);
    va_end(ap);
    return -1;
}

int rt_reg_nomem(struct rt_reg_error *e)
{
    if (e) {
        e->line = 0;
        e->nomem = 1;
        snprintf(e->message, sizeof e->message, "out of memory");
    }
    return -1;
}

static void key_free(struct rt_reg_key *k, int borrowed)
{
    for (size_t j = 0; j < k->n_vals && !borrowed; j++) {
        free(k->vals[j].name);
        rt_value_free(&k->vals[j].v);
    }
    free(k->vals);
    free(k->path);
}

void rt_reg_key_free(struct rt_reg_key *k)
{
    key_free(k, 0);
}

void rt_reg_file_free(struct rt_reg_file *f)
{
    for (size_t i = 0; i < f->n_keys; i++)
        key_free(&f->keys[i], f->borrowed);
    free(f->keys);
    f->keys = NULL;
    f->n_keys = 0;
}

/* The room an array of N entries has, when only the functions here have
 * grown it: doubled at each power of two, so that appending n entries
 * copies O(n) bytes (a file of 100,000 sections). */
static size_t room_for(size_t n)
{
    size_t cap = 4;
    while (cap < n)
        cap *= 2;
    return cap;
}

struct rt_reg_key *rt_reg_add_key(struct rt_reg_file *f, const char *path,
                                  int del)
{
    struct rt_reg_key *v = f->keys;
    if (!v || f->n_keys == room_for(f->n_keys)) {
        v = realloc(f->keys, 2 * room_for(f->n_keys) * sizeof *v);
        if (!v)
            return NULL;
        f->keys = v;
    }
    struct rt_reg_key *k = &v[f->n_keys];
    memset(k, 0, sizeof *k);
    if (!(k->path = strdup(path)))
        return NULL;
    k->del = del;
    f->n_keys++;
    return k;
}

/* Appends a value taking NAME and the value's data. */
static int add_value_take(struct rt_reg_key *k, char *name, int del,
                          struct rt_value *v, unsigned line)
{
    struct rt_reg_value *nv = k->vals;
    if (!nv || k->n_vals == room_for(k->n_vals)) {
        nv = realloc(k->vals, 2 * room_for(k->n_vals) * sizeof *nv);
        if (!nv) {
            free(name);
            rt_value_free(v);
            return -1;
        }
        k->vals = nv;
    }
    nv[k->n_vals] = (struct rt_reg_value){name, *v, del, line};
    k->n_vals++;
    memset(v, 0, sizeof *v);
    return 0;
}

int rt_reg_add_value(struct rt_reg_key *k, const char *name,
                     const struct rt_value *v)
{
    struct rt_value copy = {0};
    char *n = strdup(name);
    if (!n || (v && rt_value_copy(&copy, v) != 0)) {
        free(n);
        return -1;
    }
    return add_value_take(k, n, v == NULL, &copy, 0);
}

int rt_reg_is_root(const char *name)
{
    static const char *const roots[] = {
        "HKEY_LOCAL_MACHINE", "HKEY_CURRENT_USER", "HKEY_CLASSES_ROOT",
        "HKEY_USERS", "HKEY_CURRENT_CONFIG", "HKEY_DYN_DATA",
    };
    for (size_t i = 0; i < sizeof roots / sizeof *roots; i++)
        if (rt_utf8_casecmp(name, strlen(name), roots[i],
                            strlen(roots[i])) == 0)
            return 1;
    return 0;
}

/* ---- reading ---------------------------------------------------------- */

int rt_reg_sniff(const uint8_t *d, size_t len)
{
    static const char *const heads[] = {"Windows Registry Editor", rt_reg_header4};
    size_t skip = len >= 3 && !memcmp(d, "\xEF\xBB\xBF", 3) ? 3
                  : len >= 2 && d[0] == 0xFF && d[1] == 0xFE ? 2 : 0;
    int wide = len >= skip + 2 && d[skip] && !d[skip + 1];
    for (size_t h = 0; h < 2; h++) {
        size_t n = strlen(heads[h]), i = 0;
        for (; i < n; i++) {
            size_t at = skip + (wide ? 2 * i : i);
            if (at + (size_t)wide >= len || d[at] != (uint8_t)heads[h][i] ||
                (wide && d[at + 1]))
                break;
        }
        if (i == n)
            return 1;
    }
    return 0;
}

/* The line (1-based) holding byte OFF of UTF-16LE text. */
static unsigned line_of_utf16(const uint8_t *d, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i + 1 < off; i += 2)
        if (d[i] == '\n' && d[i + 1] == 0)
            line++;
    return line;
}

static unsigned line_of_bytes(const uint8_t *d, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        if (d[i] == '\n')
            line++;
    return line;
}

/* The file as UTF-8 text, its format and its header checked. */
static int decode(const uint8_t *d, size_t len, const char *codepage,
                  char **text, size_t *tlen, enum rt_reg_format *fmt,
                  struct rt_reg_error *e)
{
    size_t off;
    if ((len >= 2 && d[0] == 0xFF && d[1] == 0xFE) ||
        (len >= 2 && d[0] != 0 && d[1] == 0)) {
        /* reg export writes a BOM; UTF-16LE without one is known by the
         * NUL high byte of the header's first character. */
        size_t skip = d[0] == 0xFF ? 2 : 0;
        if ((len - skip) % 2)
            return rt_reg_fail(e, line_of_utf16(d, len), "the file ends in half a "
                        "UTF-16 character: it is truncated");
        int r = rt_utf16le_to_utf8(d + skip, len - skip, text, tlen, &off);
        if (r == -2)
            return rt_reg_nomem(e);
        if (r != 0)
            return rt_reg_fail(e, line_of_utf16(d + skip, off), "a UTF-16 surrogate "
                        "without its pair (byte %zu)", off + skip);
        *fmt = RT_REG_V5_UTF16;
        return 0;
    }
    if (len >= 3 && d[0] == 0xEF && d[1] == 0xBB && d[2] == 0xBF) {
        d += 3;
        len -= 3;
        *fmt = RT_REG_V5_UTF8_BOM;
    } else if (len >= sizeof rt_reg_header4 - 1 &&
               !memcmp(d, rt_reg_header4, sizeof rt_reg_header4 - 1)) {
        /* Line by line, so that an error names its line whatever the
         * system says of its offset: no ANSI code page has '\n' as the
         * second byte of a character. */
        const char *cp = codepage ? codepage : RT_REG_DEFAULT_CODEPAGE;
        struct rt_strbuf b = {0};
        unsigned line = 1;
        for (size_t at = 0; at < len; line++) {
            const uint8_t *nl = memchr(d + at, '\n', len - at);
            size_t n = nl ? (size_t)(nl - (d + at)) + 1 : len - at;
            char *u;
            size_t ul;
            int r = rt_os_codepage_to_utf8(cp, d + at, n, &u, &ul, &off);
            if (r != 0) {
                rt_strbuf_free(&b);
                if (r == -2)
                    return rt_reg_nomem(e);
                if (r == -3)
                    return rt_reg_fail(e, 0, "unknown code page '%s'", cp);
                return rt_reg_fail(e, line, "not valid text in code page %s (the "
                            "code page of a REGEDIT4 file)", cp);
            }
            rt_strbuf_append(&b, u, ul);
            free(u);
            at += n;
        }
        rt_strbuf_append(&b, "", 0);
        if (b.failed) {
            rt_strbuf_free(&b);
            return rt_reg_nomem(e);
        }
        *tlen = b.len;
        *text = rt_strbuf_take(&b);
        *fmt = RT_REG_V4;
        return 0;
    } else {
        *fmt = RT_REG_V5_UTF8;
    }
    if (rt_utf8_validate((const char *)d, len, &off) != 0)
        return rt_reg_fail(e, line_of_bytes(d, off), "not UTF-8 (byte %zu): a "
                    "Version 5.00 file is UTF-16LE or UTF-8", off);
    if (!(*text = malloc(len + 1)))
        return rt_reg_nomem(e);
    memcpy(*text, d, len);
    (*text)[len] = '\0';
    *tlen = len;
    return 0;
}

struct cursor {
    const char *t, *end;
    const char *line;       /* the current line */
    size_t len;             /* its length, without the line end */
    unsigned no;            /* its number */
};

/* Moves to the next line; 0 at the end of the text. */
static int next_line(struct cursor *c)
{
    if (c->line) {
        const char *p = c->line + c->len;
        if (p >= c->end)
            return 0;
        if (*p == '\r')
            p++;
        if (p < c->end && *p == '\n')
            p++;
        if (p >= c->end)
            return 0;
        c->t = p;
    }
    c->line = c->t;
    c->no++;
    const char *nl = memchr(c->t, '\n', (size_t)(c->end - c->t));
    const char *stop = nl ? nl : c->end;
    if (stop > c->t && stop[-1] == '\r')
        stop--;
    c->len = (size_t)(stop - c->t);
    return 1;
}

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

static void trim(const char **s, size_t *n)
{
    while (*n && is_blank(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_blank((*s)[*n - 1]))
        (*n)--;
}

/* Whether nothing but blanks or a ; comment follows. */
static int rest_is_empty(const char *s, size_t n)
{
    trim(&s, &n);
    return n == 0 || *s == ';';
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* A quoted string at S (after its opening quote) up to its closing quote,
 * unescaped into B; *USED the characters taken, the closing quote
 * included. -1 when there is no closing quote. */
static int unquote(const char *s, size_t n, struct rt_strbuf *b, size_t *used)
{
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch == '"') {
            *used = i + 1;
            rt_strbuf_append(b, "", 0);
            return 0;
        }
        if (ch == '\\' && i + 1 < n) {
            char x = s[++i];
            /* \n and \r as Wine's regedit writes them; any other escape
             * keeps its backslash, as Windows' regedit reads it. */
            const char *out = x == '\\' ? "\\" : x == '"' ? "\"" :
                              x == 'n' ? "\n" : x == 'r' ? "\r" : NULL;
            if (out)
                rt_strbuf_append(b, out, 1);
            else {
                rt_strbuf_append(b, "\\", 1);
                rt_strbuf_append(b, &x, 1);
            }
            continue;
        }
        rt_strbuf_append(b, &ch, 1);
    }
    return -1;
}

/* Parses one line's worth of hex bytes "xx,xx,..." into B. *MORE is set
 * when it ends in a continuation backslash. */
static int hex_segment(const char *s, size_t n, struct rt_strbuf *b,
                       int *more, unsigned line, struct rt_reg_error *e)
{
    trim(&s, &n);
    *more = n && s[n - 1] == '\\';
    if (*more) {
        n--;
        trim(&s, &n);
    }
    size_t i = 0;
    while (i < n) {
        while (i < n && is_blank(s[i]))
            i++;
        size_t start = i;
        int v = 0;
        while (i < n && hexval(s[i]) >= 0 && i - start < 2)
            v = v * 16 + hexval(s[i++]);
        size_t digits = i - start;
        while (i < n && is_blank(s[i]))
            i++;
        if (digits == 0 || (i < n && s[i] != ',')) {
            size_t bad = start;
            size_t bl = 0;
            while (bad + bl < n && s[bad + bl] != ',' && bl < 8)
                bl++;
            return rt_reg_fail(e, line, "bad hex byte '%.*s': hex data is bytes "
                        "of two hex digits separated by commas", (int)bl,
                        s + bad);
        }
        uint8_t byte = (uint8_t)v;
        rt_strbuf_append(b, &byte, 1);
        if (i < n)
            i++;        /* the comma; one may end the line */
    }
    return 0;
}

/* UTF-8 text to a registry string: UTF-16LE plus its terminator. */
static int to_reg_sz(const char *s, size_t n, struct rt_value *v,
                     uint32_t type)
{
    uint8_t *u;
    size_t ul, off;
    if (rt_utf8_to_utf16le(s, n, &u, &ul, &off) != 0)
        return -1;
    uint8_t *d = realloc(u, ul + 2);
    if (!d) {
        free(u);
        return -1;
    }
    d[ul] = d[ul + 1] = 0;
    *v = (struct rt_value){type, d, ul + 2};
    return 0;
}

/* The data of a value line after "NAME=" (S, N); continuation lines are
 * taken from C. */
static int parse_data(struct cursor *c, const char *s, size_t n,
                      enum rt_reg_format fmt, const char *codepage,
                      struct rt_value *v, int *del, struct rt_reg_error *e)
{
    unsigned line = c->no;
    memset(v, 0, sizeof *v);
    *del = 0;
    trim(&s, &n);
    if (n >= 1 && s[0] == '-' && rest_is_empty(s + 1, n - 1)) {
        *del = 1;
        return 0;
    }
    if (n >= 1 && s[0] == '"') {
        struct rt_strbuf b = {0};
        size_t used;
        if (unquote(s + 1, n - 1, &b, &used) != 0) {
            rt_strbuf_free(&b);
            return rt_reg_fail(e, line, "string value without its closing quote");
        }
        if (!rest_is_empty(s + 1 + used, n - 1 - used)) {
            rt_strbuf_free(&b);
            return rt_reg_fail(e, line, "text after the string's closing quote");
        }
        if (b.failed) {
            rt_strbuf_free(&b);
            return rt_reg_nomem(e);
        }
        int r = to_reg_sz(b.s ? b.s : "", b.len, v, RT_REG_SZ);
        rt_strbuf_free(&b);
        return r == 0 ? 0 : rt_reg_nomem(e);
    }
    if (n >= 6 && !strncasecmp(s, "dword:", 6)) {
        size_t i = 6;
        uint32_t x = 0;
        while (i < n && hexval(s[i]) >= 0 && i - 6 < 8)
            x = x * 16 + (uint32_t)hexval(s[i++]);
        if (i == 6 || !rest_is_empty(s + i, n - i))
            return rt_reg_fail(e, line, "dword: takes 1 to 8 hex digits");
        return rt_value_from_dword(v, x) == 0 ? 0 : rt_reg_nomem(e);
    }
    uint32_t type;
    size_t i;
    if (n >= 4 && !strncasecmp(s, "hex:", 4)) {
        type = RT_REG_BINARY;
        i = 4;
    } else if (n >= 4 && !strncasecmp(s, "hex(", 4)) {
        type = 0;
        i = 4;
        while (i < n && hexval(s[i]) >= 0 && i - 4 < 8)
            type = type * 16 + (uint32_t)hexval(s[i++]);
        if (i == 4 || i + 1 >= n || s[i] != ')' || s[i + 1] != ':')
            return rt_reg_fail(e, line, "hex(TYPE): takes the type in 1 to 8 hex "
                        "digits");
        i += 2;
    } else {
        return rt_reg_fail(e, line, "unknown value data: expected \"string\", "
                    "dword:, hex:, hex(TYPE): or -");
    }
    struct rt_strbuf b = {0};
    int more;
    if (hex_segment(s + i, n - i, &b, &more, c->no, e) != 0) {
        rt_strbuf_free(&b);
        return -1;
    }
    while (more) {
        if (!next_line(c)) {
            rt_strbuf_free(&b);
            return rt_reg_fail(e, c->no, "the file ends inside a value continued "
                        "with '\\' (line %u)", line);
        }
        if (hex_segment(c->line, c->len, &b, &more, c->no, e) != 0) {
            rt_strbuf_free(&b);
            return -1;
        }
    }
    if (b.failed) {
        rt_strbuf_free(&b);
        return rt_reg_nomem(e);
    }
    v->type = type;
    v->len = b.len;
    v->data = b.s ? (uint8_t *)b.s : malloc(1);
    if (!v->data)
        return rt_reg_nomem(e);
    /* REGEDIT4 keeps these two types' text in the ANSI code page. */
    if (fmt == RT_REG_V4 &&
        (type == RT_REG_EXPAND_SZ || type == RT_REG_MULTI_SZ) && v->len) {
        char *u;
        size_t ul, off;
        const char *cp = codepage ? codepage : RT_REG_DEFAULT_CODEPAGE;
        int r = rt_os_codepage_to_utf8(cp, v->data, v->len, &u, &ul, &off);
        if (r == 0) {
            uint8_t *w;
            size_t wl;
            r = rt_utf8_to_utf16le(u, ul, &w, &wl, &off);
            free(u);
            if (r == 0) {
                free(v->data);
                v->data = w;
                v->len = wl;
            }
        }
        if (r != 0) {
            rt_value_free(v);
            return r == -2 ? rt_reg_nomem(e)
                           : rt_reg_fail(e, line, "hex(%x) text is not valid in "
                                  "code page %s", type, cp);
        }
    }
    return 0;
}

/* Checks a key path: a root key, then names that are not empty. */
static int check_path(const char *p, size_t n, unsigned line,
                      struct rt_reg_error *e)
{
    if (n == 0)
        return rt_reg_fail(e, line, "a key without a name: []");
    const char *sep = memchr(p, '\\', n);
    size_t rl = sep ? (size_t)(sep - p) : n;
    char root[32];
    if (rl >= sizeof root || (memcpy(root, p, rl), root[rl] = 0,
                              !rt_reg_is_root(root)))
        return rt_reg_fail(e, line, "unknown root key '%.*s': a key starts with "
                    "HKEY_LOCAL_MACHINE, HKEY_CURRENT_USER, "
                    "HKEY_CLASSES_ROOT, HKEY_USERS, HKEY_CURRENT_CONFIG or "
                    "HKEY_DYN_DATA", (int)(rl > 40 ? 40 : rl), p);
    size_t names = 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\\') {
            if (i + 1 == n || p[i + 1] == '\\')
                return rt_reg_fail(e, line, "key path '%.*s' has an empty key name",
                            (int)(n > 200 ? 200 : n), p);
            if (++names > RT_REG_MAX_KEY_NAMES)
                return rt_reg_fail(e, line, "key path '%.*s...' is more than %u "
                            "keys deep: the registry holds %u levels below "
                            "a hive's key", 80, p, RT_REG_MAX_KEY_NAMES,
                            RT_REG_MAX_KEY_NAMES - 1);
        }
    return 0;
}

static int parse_text(const char *t, size_t tl, enum rt_reg_format fmt,
                      const char *codepage, struct rt_reg_file *f,
                      const struct rt_reg_sink *sink, struct rt_reg_error *e)
{
    if (memchr(t, '\0', tl))
        return rt_reg_fail(e, line_of_bytes((const uint8_t *)t,
                                     (size_t)((const char *)memchr(t, 0, tl) - t)),
                    "a NUL character in the text");
    struct cursor c = {t, t + tl, NULL, 0, 0};
    if (tl == 0 || !next_line(&c))
        return rt_reg_fail(e, 1, "empty file: a .reg file starts with '%s' or "
                    "'%s'", rt_reg_header5, rt_reg_header4);
    const char *h = c.line;
    size_t hl = c.len;
    trim(&h, &hl);
    const char *want = fmt == RT_REG_V4 ? rt_reg_header4 : rt_reg_header5;
    if (hl != strlen(want) || memcmp(h, want, hl))
        return rt_reg_fail(e, 1, "not a .reg file: the first line must be '%s'%s",
                    want, fmt == RT_REG_V4 ? "" : " (or REGEDIT4 in an ANSI "
                    "file)");
    struct rt_reg_key *k = NULL;
    while (next_line(&c)) {
        const char *s = c.line;
        size_t n = c.len;
        trim(&s, &n);
        if (n == 0 || *s == ';' || *s == '#')
            continue;
        if (*s == '[') {
            const char *close = NULL;
            for (size_t i = n; i > 1; i--)
                if (s[i - 1] == ']') {
                    close = s + i - 1;
                    break;
                }
            if (!close)
                return rt_reg_fail(e, c.no, "key line without its closing ']'");
            const char *p = s + 1;
            int del = *p == '-';
            p += del;
            size_t pl = (size_t)(close - p);
            if (!rest_is_empty(close + 1, n - (size_t)(close + 1 - s)))
                return rt_reg_fail(e, c.no, "text after the key's closing ']'");
            if (check_path(p, pl, c.no, e) != 0)
                return -1;
            char *path = strndup(p, pl);
            if (!path || !(k = rt_reg_add_key(f, path, del))) {
                free(path);
                return rt_reg_nomem(e);
            }
            free(path);
            k->line = c.no;
            if (sink && sink->key(sink->ctx, f, f->n_keys - 1) != 0)
                return rt_reg_nomem(e);
            continue;
        }
        if (*s != '"' && *s != '@')
            return rt_reg_fail(e, c.no, "expected [KEY], \"NAME\"=, @= or a ; "
                        "comment");
        if (!k)
            return rt_reg_fail(e, c.no, "a value before any [KEY]");
        if (k->del)
            return rt_reg_fail(e, c.no, "a value under a deleted key [-%s]",
                        k->path);
        struct rt_strbuf nb = {0};
        size_t used = 1;
        if (*s == '"') {
            if (unquote(s + 1, n - 1, &nb, &used) != 0) {
                rt_strbuf_free(&nb);
                return rt_reg_fail(e, c.no, "value name without its closing quote");
            }
            used++;
        }
        rt_strbuf_append(&nb, "", 0);
        /* Of its own length: a file of millions of short names is not
         * held at the buffer's 64 bytes a name. */
        char *name = nb.failed ? NULL : strndup(nb.s, nb.len);
        rt_strbuf_free(&nb);
        if (!name)
            return rt_reg_nomem(e);
        size_t i = used;
        while (i < n && is_blank(s[i]))
            i++;
        if (i >= n || s[i] != '=') {
            free(name);
            return rt_reg_fail(e, c.no, "expected '=' after the value name");
        }
        i++;
        struct rt_value v;
        int del;
        unsigned line = c.no;
        if (parse_data(&c, s + i, n - i, fmt, codepage, &v, &del, e) != 0) {
            free(name);
            return -1;
        }
        if (sink ? sink->value(sink->ctx, f, f->n_keys - 1, name, del, &v,
                               line) != 0
                 : add_value_take(k, name, del, &v, line) != 0)
            return rt_reg_nomem(e);
    }
    return 0;
}

int rt_reg_parse(const uint8_t *data, size_t len, const char *codepage,
                 struct rt_reg_file *f, struct rt_reg_error *e)
{
    return rt_reg_parse_to(data, len, codepage, f, NULL, e);
}

int rt_reg_parse_to(const uint8_t *data, size_t len, const char *codepage,
                    struct rt_reg_file *f, const struct rt_reg_sink *sink,
                    struct rt_reg_error *e)
{
    memset(f, 0, sizeof *f);
    if (e)
        memset(e, 0, sizeof *e);
    char *text;
    size_t tl;
    enum rt_reg_format fmt = RT_REG_V5_UTF8;
    if (decode(data, len, codepage, &text, &tl, &fmt, e) != 0)
        return -1;
    f->format = fmt;
    int r = parse_text(text, tl, fmt, codepage, f, sink, e);
    free(text);
    if (r != 0)
        rt_reg_file_free(f);
    return r;
}
