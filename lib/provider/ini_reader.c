/* INI layer: decoding of lodctr INI files to UTF-8 lines, and the line
 * reader through which inih parses them without truncating or altering any
 * value (see ini_reader.h). */
#include "provider/ini_reader.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <stdarg.h>
#include <ini.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/size_caps.h"
#include "model/utf16.h"
#include "provider/text_encoding.h"

/* Providers' INI files are a few hundred kilobytes at most (every
 * language's text of the largest, UTF-16, stays under 2 MB). Parsing
 * holds about 9 bytes per byte of the file, so the limit is what bounds
 * an INI's memory (about 150 MB at the limit); it also keeps every size
 * computation below far from overflow. */
#define MAX_INI_BYTES ((unsigned)RT_PROVIDER_FILE_MAX)

/* Lines end at LF, CR LF or a CR alone, as Windows' profile reader ends
 * them (kernel32's BaseDllAdvanceTextPointer; Wine's PROFILE_Load too). */
static unsigned line_of_byte(const unsigned char *p, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        if (p[i] == '\n' || (p[i] == '\r' && i + 1 < off && p[i + 1] != '\n'))
            line++;
    return line;
}

static unsigned line_of_utf16_offset(const unsigned char *p, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i + 1 < off; i += 2)
        if (p[i + 1] == 0 &&
            (p[i] == '\n' || (p[i] == '\r' && i + 3 < off &&
                               (p[i + 2] != '\n' || p[i + 3] != 0))))
            line++;
    return line;
}

/* Converts from an ANSI code page to UTF-8, through the system's tables
 * (rt_os_codepage_to_utf8: iconv here, MultiByteToWideChar on Windows). */
static int decode_codepage(const char *path, const unsigned char *in,
                           size_t len, const char *codepage, char **out,
                           size_t *out_len, struct rt_diags *d)
{
    size_t off = 0;
    int r = rt_os_codepage_to_utf8(codepage, in, len, out, out_len, &off);
    if (r == 0)
        return 0;
    if (r == -2)
        rt_diags_nomem(d);
    else if (r == -3)
        rt_diags_add(d, RT_ERROR, path, 0, NULL, "unknown code page '%s'",
                     codepage);
    else if (r == -4 || off >= len)
        rt_diags_add(d, RT_ERROR, path, line_of_byte(in, len), NULL,
                     "file ends inside a multibyte character of code "
                     "page %s", codepage);
    else
        rt_diags_add(d, RT_ERROR, path, line_of_byte(in, off), NULL,
                     "byte 0x%02X (offset %zu) is not valid in code page %s",
                     in[off], off, codepage);
    return -1;
}

/* Splits BUF (NUL-terminated UTF-8 of LEN bytes, no NUL inside) into lines
 * in place; OUT takes ownership of BUF. 0, or -1 out of memory (said in
 * D; BUF freed, OUT left empty). */
static int split_lines(char *buf, size_t len, const char *path,
                       struct rt_ini_text *out, struct rt_diags *d)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (buf[i] == '\n' || (buf[i] == '\r' && buf[i + 1] != '\n'))
            n++;
    if (len && buf[len - 1] != '\n' && buf[len - 1] != '\r')
        n++;
    out->path = strdup(path);
    out->lines = malloc((n ? n : 1) * sizeof *out->lines);
    if (!out->path || !out->lines) {
        free(out->path);
        free(out->lines);
        free(buf);
        memset(out, 0, sizeof *out);
        rt_diags_nomem(d);
        return -1;
    }
    out->n_lines = n;
    out->buf = buf;
    char *s = buf;
    for (size_t k = 0; k < n; k++) {
        char *end = s + strcspn(s, "\r\n");
        char *next = end + (*end == '\r' && end[1] == '\n' ? 2 : 1);
        *end = '\0';
        out->lines[k] = s;
        s = next;
    }
    return 0;
}

/* Decodes BLEN bytes of UTF-16LE at BODY, which starts SKIP bytes into
 * the file (after its byte-order mark, if any). */
static int decode_utf16(const char *path, const unsigned char *body,
                        size_t blen, size_t skip, char **utf8, size_t *ulen,
                        struct rt_diags *d)
{
    size_t err_off = 0;
    if (blen % 2) {
        rt_diags_add(d, RT_ERROR, path,
                     line_of_utf16_offset(body, blen - 1), NULL,
                     "UTF-16LE file has an odd number of bytes");
        return -1;
    }
    blen = rt_text_strip_dos_eof(body, blen, 1);
    int r = rt_utf16le_to_utf8(body, blen, utf8, ulen, &err_off);
    if (r == -2) {
        rt_diags_nomem(d);
        return -1;
    }
    if (r) {
        rt_diags_add(d, RT_ERROR, path, line_of_utf16_offset(body, err_off),
                     NULL, "invalid UTF-16LE: unpaired surrogate at byte %zu",
                     err_off + skip);
        return -1;
    }
    return 0;
}

int rt_ini_decode(const char *path, const void *data, size_t len,
                  const char *codepage, struct rt_ini_text *out,
                  struct rt_diags *d)
{
    const unsigned char *p = data;
    char *utf8 = NULL;
    size_t ulen = 0, err_off = 0;
    memset(out, 0, sizeof *out);

    if (len > MAX_INI_BYTES) {
        rt_diags_add(d, RT_ERROR, path, 0, NULL,
                     "file is larger than %u MiB", MAX_INI_BYTES >> 20);
        return -1;
    }
    enum rt_text_encoding enc = RT_TEXT_8BIT;
    if (!(len >= 2 && ((p[0] == 0xFF && p[1] == 0xFE) ||
                       (p[0] == 0xFE && p[1] == 0xFF))) &&
        !(len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF))
        enc = rt_text_sniff(p, len);
    if (len >= 2 && p[0] == 0xFF && p[1] == 0xFE) {
        if (decode_utf16(path, p + 2, len - 2, 2, &utf8, &ulen, d))
            return -1;
    } else if (enc == RT_TEXT_UTF16LE) {
        /* No mark, but the NUL after every byte of the first lines that
         * every such real file has (rt_text_sniff). */
        if (decode_utf16(path, p, len, 0, &utf8, &ulen, d))
            return -1;
    } else if ((len >= 2 && p[0] == 0xFE && p[1] == 0xFF) ||
               enc == RT_TEXT_UTF16BE) {
        rt_diags_add(d, RT_ERROR, path, 0, NULL,
                     "file is UTF-16 big-endian; save it as UTF-16LE or "
                     "UTF-8");
        return -1;
    } else if (enc == RT_TEXT_AMBIGUOUS) {
        rt_diags_add(d, RT_ERROR, path, 1, NULL, "%s",
                     RT_TEXT_AMBIGUOUS_MSG);
        return -1;
    } else if (len >= 3 && p[0] == 0xEF && p[1] == 0xBB && p[2] == 0xBF) {
        size_t blen = rt_text_strip_dos_eof(p + 3, len - 3, 0);
        if (rt_utf8_validate((const char *)p + 3, blen, &err_off)) {
            rt_diags_add(d, RT_ERROR, path, line_of_byte(p, err_off + 3),
                         NULL, "invalid UTF-8 at byte %zu", err_off + 3);
            return -1;
        }
        ulen = blen;
        utf8 = malloc(ulen + 1);
        if (!utf8) {
            rt_diags_nomem(d);
            return -1;
        }
        memcpy(utf8, p + 3, ulen);
        utf8[ulen] = '\0';
    } else if (codepage) {
        len = rt_text_strip_dos_eof(p, len, 0);
        if (decode_codepage(path, p, len, codepage, &utf8, &ulen, d))
            return -1;
    } else {
        len = rt_text_strip_dos_eof(p, len, 0);
        const void *nul = memchr(p, 0, len);
        if (!nul && rt_utf8_validate((const char *)p, len, &err_off)) {
            rt_diags_add(d, RT_ERROR, path, line_of_byte(p, err_off), NULL,
                         "invalid UTF-8 at byte %zu; for an ANSI file, give "
                         "its code page", err_off);
            return -1;
        }
        utf8 = malloc(len + 1);
        if (!utf8) {
            rt_diags_nomem(d);
            return -1;
        }
        memcpy(utf8, p, len);
        utf8[len] = '\0';
        ulen = len;
    }
    const char *nul = memchr(utf8, 0, ulen);
    if (nul) {
        rt_diags_add(d, RT_ERROR, path,
                     line_of_byte((const unsigned char *)utf8,
                                  (size_t)(nul - utf8)),
                     NULL, "NUL character in the file");
        free(utf8);
        return -1;
    }
    return split_lines(utf8, ulen, path, out, d);
}

int rt_ini_load(const char *path, const char *codepage,
                struct rt_ini_text *out, struct rt_diags *d)
{
    return rt_ini_load_kept(path, codepage, out, NULL, NULL, d);
}

int rt_ini_load_kept(const char *path, const char *codepage,
                     struct rt_ini_text *out, uint8_t **raw, size_t *raw_len,
                     struct rt_diags *d)
{
    memset(out, 0, sizeof *out);
    uint8_t *data;
    size_t len;
    int r = rt_os_read_file_beneath(path, MAX_INI_BYTES, &data, &len);
    if (r == 0)
        d->bytes_read += len;
    if (r == -2 && errno == EFBIG) {
        rt_diags_add(d, RT_ERROR, path, 0, NULL, "file is larger than %u MiB",
                     MAX_INI_BYTES >> 20);
        return -1;
    }
    if (r != 0 && errno == ENOMEM) {
        rt_diags_nomem(d);
        return -1;
    }
    if (r != 0) {
        rt_diags_add(d, RT_ERROR, path, 0, NULL, "cannot %s: %s",
                     r == -1 ? "open" : "read", rt_os_strerror(errno));
        return -2;
    }
    r = rt_ini_decode(path, data, len, codepage, out, d);
    if (r == 0 && raw) {
        *raw = data;
        *raw_len = len;
    } else {
        free(data);
    }
    return r;
}

void rt_ini_text_free(struct rt_ini_text *t)
{
    free(t->path);
    free(t->lines);
    free(t->buf);
    memset(t, 0, sizeof *t);
}

/* ---- the reader inih parses through ---- */

enum line_kind { LINE_OTHER, LINE_KEY };

struct feed {
    struct rt_ini_text *t;
    size_t next;            /* index of the next line to hand to inih */
    unsigned line;          /* number of the line handed last */
    enum line_kind kind;    /* what that line was */
    const char *name;       /* for a key line: its name part ... */
    size_t name_len;        /* ... and length, whitespace trimmed */
    bool delivered;         /* inih called the handler for that key line */
    unsigned section_line;
    unsigned char *bad;     /* per line: an error was reported there */
    rt_ini_entry_fn fn;
    void *user;
    struct rt_diags *d;
};

static void line_error(struct feed *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void line_error(struct feed *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (msg)
        rt_diags_add(f->d, RT_ERROR, f->t->path, f->line, NULL, "%s", msg);
    else
        rt_diags_nomem(f->d);
    free(msg);
    f->bad[f->line - 1] = 1;
}

/* A key line inih did not take as the pair we handed it: its name holds
 * ':' or " ;", which inih reads as a separator or a comment. */
static void check_delivered(struct feed *f)
{
    if (f->kind == LINE_KEY && !f->delivered) {
        char *name = strndup(f->name, f->name_len);
        if (name)
            line_error(f, "'%s' is not a valid key name", name);
        else
            rt_diags_nomem(f->d);
        free(name);
    }
    f->kind = LINE_OTHER;
}

/* A character Windows' profile API (GetPrivateProfileString and
 * GetPrivateProfileSection, through which lodctr reads INIs) strips at a
 * line's start, around a section's name, before a key's '=' and around
 * its value: every one up to ' ' (kernel32's BaseDllAdvanceTextPointer
 * and BaseDllReadKeywordValue: review 53 R53-9). Wine's PROFILE_Load
 * strips fewer (space, tab, CR, LF, VT, FF, 0x1A); the INI is read as
 * Windows' lodctr reads it, and a control character only Windows strips
 * is said. */
static bool profile_blank(unsigned char c)
{
    return c != 0 && c <= ' ';
}

/* Keeps in *CONTROL the first control character C that Wine's reader
 * would keep where Windows' strips it (anything but space, tab, VT, FF
 * and 0x1A: CR and LF end lines). */
static void note_control(unsigned char c, unsigned char *control)
{
    if (!*control && c < ' ' && c != '\t' && c != '\v' && c != '\f' &&
        c != 0x1A)
        *control = c;
}

static const char *skip_blanks(const char *s, unsigned char *control)
{
    for (; profile_blank((unsigned char)*s); s++)
        note_control((unsigned char)*s, control);
    return s;
}

static void warn_control(struct feed *f, unsigned char control)
{
    if (control)
        rt_diags_add(f->d, RT_WARNING, f->t->path, f->line, NULL,
                     "control character 0x%02X taken for a blank, as "
                     "Windows' lodctr reads it (Wine's keeps it): the line "
                     "reads otherwise there", control);
}

static char *hand(char *str, const char *text, size_t len)
{
    memcpy(str, text, len);
    str[len] = '\n';
    str[len + 1] = '\0';
    return str;
}

static char *feed_line(char *str, int num, void *stream)
{
    struct feed *f = stream;
    check_delivered(f);
    if (f->next >= f->t->n_lines)
        return NULL;
    if (num < 8) {
        /* No inih is built this small; stop rather than mangle lines. */
        rt_diags_add(f->d, RT_ERROR, f->t->path, (unsigned)f->next + 1, NULL,
                     "inih line buffer of %d bytes is too small", num);
        return NULL;
    }
    /* What fits in inih's buffer besides "\n" and the terminator. */
    size_t room = (size_t)num - 2;
    const char *s = f->t->lines[f->next++];
    f->line = (unsigned)f->next;
    /* No leading blank reaches inih: lodctr has no continuation lines,
     * and an indented key is a key. */
    unsigned char control = 0;
    s = skip_blanks(s, &control);
    size_t len = strlen(s);
    while (len && profile_blank((unsigned char)s[len - 1]))
        len--;

    if (len == 0)
        return hand(str, "", 0);
    if (*s == ';' || *s == '#' || (s[0] == '/' && s[1] == '/'))
        return hand(str, ";", 1);
    if (*s == '[') {
        f->section_line = f->line;
        /* Bad headers become an unnamed section, so that their keys land
         * nowhere rather than in the section before. */
        const char *close = memchr(s, ']', len);
        if (!close) {
            line_error(f, "section header has no closing ']'");
            return hand(str, "[]", 2);
        }
        /* The name between the brackets, blanks trimmed at both ends as
         * Windows' profile reader trims them ("[ info ]" is [info]);
         * inih ignores what follows ']', so a long comment there is no
         * reason to reject the header. */
        const char *name = skip_blanks(s + 1, &control);
        size_t nlen = (size_t)(close - name);
        while (nlen && profile_blank((unsigned char)name[nlen - 1]))
            note_control((unsigned char)name[--nlen], &control);
        if (nlen + 2 > room) {
            line_error(f, "section header is longer than %zu bytes", room);
            return hand(str, "[]", 2);
        }
        warn_control(f, control);
        str[0] = '[';
        memcpy(str + 1, name, nlen);
        str[nlen + 1] = ']';
        str[nlen + 2] = '\n';
        str[nlen + 3] = '\0';
        return str;
    }
    const char *eq = memchr(s, '=', len);
    if (!eq) {
        /* The profile API keeps it as a key without a value, which
         * lodctr never asks for: skipped, as lodctr skips it. */
        rt_diags_add(f->d, RT_WARNING, f->t->path, f->line, NULL,
                     "line is not a [section], a name=value pair or a "
                     "comment; skipped, as lodctr skips it");
        return hand(str, ";", 1);
    }
    size_t nlen = (size_t)(eq - s);
    while (nlen && profile_blank((unsigned char)s[nlen - 1]))
        note_control((unsigned char)s[--nlen], &control);
    warn_control(f, control);
    if (nlen + 1 > room) {
        line_error(f, "key name is longer than %zu bytes", room - 1);
        return hand(str, ";", 1);
    }
    f->kind = LINE_KEY;
    f->name = s;
    f->name_len = nlen;
    f->delivered = false;
    /* The name and '=' only: the value, however long, stays with us. */
    memcpy(str, s, nlen);
    str[nlen] = '=';
    str[nlen + 1] = '\n';
    str[nlen + 2] = '\0';
    return str;
}

static int on_pair(void *user, const char *section, const char *name,
                   const char *value)
{
    struct feed *f = user;
    (void)value;
    if (f->kind != LINE_KEY || f->delivered)
        return 1;
    f->delivered = true;
    if (strlen(name) != f->name_len || memcmp(name, f->name, f->name_len)) {
        f->delivered = false;   /* reported by check_delivered */
        return 1;
    }
    char *line = f->t->lines[f->line - 1];
    char *v = strchr(line, '=') + 1;
    unsigned char control = 0;
    v = (char *)skip_blanks(v, &control);
    /* The value as the profile API returns it to lodctr: blanks at both
     * ends go (kernel32's BaseDllReadKeywordValue; Wine's PROFILE_Load
     * trims the line, then around the '=').
     * Name and value are handed as they lie in the line, the name cut
     * there with a NUL (at its trailing blank or the '=', both before the
     * value) and the value at its trailing blanks, so that a caller keeps
     * a big INI's keys without a copy. */
    size_t vlen = strlen(v);
    bool tab = false, space = false;
    while (vlen && profile_blank((unsigned char)v[vlen - 1])) {
        if (v[vlen - 1] == '\t')
            tab = true;
        else
            space = true;
        note_control((unsigned char)v[--vlen], &control);
    }
    warn_control(f, control);
    /* GetPrivateProfileString, through which lodctr reads a key's value,
     * then drops one pair of enclosing quotes: a value of two characters
     * or more that starts with ' or " and ends with the same character
     * loses both (Wine's PROFILE_GetString calls PROFILE_CopyEntry with
     * strip_quote; Microsoft's documentation of GetPrivateProfileString:
     * "the marks are discarded"). Blanks inside the quotes stay. */
    bool unquoted = false;
    if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
        v++;
        vlen -= 2;
        unquoted = true;
    }
    v[vlen] = '\0';
    char *own_name = (char *)f->name;
    own_name[f->name_len] = '\0';
    struct rt_ini_entry e = {
        .section = section,
        .section_line = f->section_line,
        .name = own_name,
        .value = v,
        .line = f->line,
        .trimmed_tab = tab,
        .trimmed_space = space && !tab,
        .unquoted = unquoted,
    };
    f->fn(f->user, &e);
    return 1;
}

int rt_ini_parse(struct rt_ini_text *t, rt_ini_entry_fn fn, void *user,
                 struct rt_diags *d)
{
    struct feed f = {.t = t, .fn = fn, .user = user, .d = d};
    size_t errors_before = d->errors;
    f.bad = calloc(t->n_lines ? t->n_lines : 1, 1);
    if (!f.bad) {
        rt_diags_nomem(d);
        return -1;
    }
    /* The same struct is the reader's stream and the handler's user
     * pointer: the handler learns which line inih is on from the reader,
     * as Debian's inih passes no line number. */
    int r = ini_parse_stream(feed_line, &f, on_pair, &f);
    check_delivered(&f);
    if (r == -2)
        rt_diags_nomem(d);  /* inih's own line buffer */
    else if (r > 0 && (size_t)r <= t->n_lines && !f.bad[r - 1])
        rt_diags_add(d, RT_ERROR, t->path, (unsigned)r, NULL,
                     "line is not valid INI syntax");
    else if (r > 0 && (size_t)r > t->n_lines)
        rt_diags_add(d, RT_ERROR, t->path, 0, NULL,
                     "INI parser failed at line %d", r);
    free(f.bad);
    /* Out of memory is counted once: set before, it adds no error. */
    return d->errors > errors_before || d->out_of_memory ? -1 : 0;
}

int rt_ini_available(void)
{
    return 1;
}

