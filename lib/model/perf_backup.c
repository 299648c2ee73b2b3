/* Model layer: the PerfStringBackup codec (docs/design.md, "The backup
 * store"). The layout rules come from the six real files in
 * ../shared/research-real/perfstringbackup (README there): records written
 * as CR LF then text, [Perflib] first, [PERF_] sections, [PerfStrings_]
 * sections of merged sorted strings. */
#include "model/perf_backup.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/lang_id.h"
#include "model/sort_positions.h"
#include "model/strbuf.h"
#include "model/utf16.h"

/* Positions of the sections, sorted: services by name as
 * rt_utf8_casecmp orders them, languages by id value (CurrentLanguage
 * first); equals in file order, so that a search finds the first. Four
 * bytes a service, sixteen a language: a file of hundreds of thousands of
 * tiny sections is indexed in less than its own size. */
struct rt_psb_index {
    const struct rt_psb_service *services;
    size_t n_services;
    const struct rt_psb_language *langs;
    size_t n_langs;
    struct psb_at {
        const char *name;
        uint32_t key;           /* a language's: 0 CurrentLanguage, else
                                   its id value + 1 */
        uint32_t at;            /* position in the file's sections (a
                                   backup is under 256 MiB: fewer than
                                   2^32 sections) */
    } *lang;
    uint32_t *service;          /* positions in services, sorted in place
                                   (rt_sort_positions) */
};

void rt_psb_free(struct rt_psb *p)
{
    /* A parsed backup's names are in its pool. */
    if (!p->service_names.head)
        for (size_t i = 0; i < p->n_services; i++)
            free(p->services[i].name);
    free(p->services);
    rt_str_pool_free(&p->service_names);
    for (size_t i = 0; i < p->n_langs; i++) {
        free(p->langs[i].id);
        rt_pair_list_free(&p->langs[i].strings);
    }
    free(p->langs);
    if (p->index) {
        free(p->index->service);
        free(p->index->lang);
        free(p->index);
    }
    memset(p, 0, sizeof *p);
}

/* --- reading ------------------------------------------------------------ */

static int fail(struct rt_psb_error *err, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct rt_psb_error *err, unsigned line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err->line = line;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return -1;
}

static int nomem(struct rt_psb_error *err, unsigned line)
{
    err->nomem = 1;
    return fail(err, line, "out of memory");
}

/* The line (1-based) holding byte OFF of UTF-8 text T. */
static unsigned line_of8(const char *t, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i < off; i++)
        if (t[i] == '\n')
            line++;
    return line;
}

/* The line holding byte OFF of UTF-16LE data D. */
static unsigned line_of16(const uint8_t *d, size_t off)
{
    unsigned line = 1;
    for (size_t i = 0; i + 2 <= off; i += 2)
        if (d[i] == '\n' && d[i + 1] == 0)
            line++;
    return line;
}

/* Who is told of the bytes of the file the reader is done with. */
struct done_fn {
    void (*fn)(void *ctx, size_t off, size_t n);
    void *ctx;
};

static void done_with(const struct done_fn *d, size_t off, size_t n)
{
    if (d && d->fn && n)
        d->fn(d->ctx, off, n);
}

#define DECODE_PIECE ((size_t)1 << 20)

enum section_kind { SEC_NONE, SEC_PERFLIB, SEC_SERVICE, SEC_STRINGS };

struct parser {
    struct rt_psb *p;
    struct rt_psb_error *err;
    enum section_kind kind;
    size_t sec;                 /* index into services or langs */
    unsigned sec_line;
    unsigned seen;              /* keys seen in this section (bits) */
    /* The string being read: continued by lines without N=. */
    int cur;
    uint32_t cur_index;
    unsigned cur_line;
    struct rt_strbuf cur_text;
    struct rt_strbuf pending;   /* line ends (and empty lines) since */
    unsigned line;              /* lines read so far */
    size_t services_cap, langs_cap;
};

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

static void trim(const char **s, const char **e)
{
    while (*s < *e && blank(**s))
        (*s)++;
    while (*e > *s && blank((*e)[-1]))
        (*e)--;
}

static int finish_string(struct parser *ps)
{
    if (!ps->cur)
        return 0;
    ps->cur = 0;
    rt_strbuf_clear(&ps->pending);
    if (ps->cur_text.failed)
        return nomem(ps->err, ps->cur_line);
    struct rt_pair_list *l = &ps->p->langs[ps->sec].strings;
    /* The file was decoded from UTF-16 or checked as UTF-8 whole, and
     * the text is cut from it at ASCII bytes: valid UTF-8. */
    int r = rt_pair_list_append_packed(l, ps->cur_index,
                                       ps->cur_text.s ? ps->cur_text.s : "",
                                       ps->cur_text.len);
    rt_strbuf_clear(&ps->cur_text);
    return r ? nomem(ps->err, ps->cur_line) : 0;
}

static int parse_dword(const char *s, const char *e, uint32_t *out)
{
    trim(&s, &e);
    if (s == e)
        return -1;
    uint64_t v = 0;
    for (; s < e; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > 0xFFFFFFFFu)
            return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static char *dup_range(const char *s, const char *e)
{
    char *r = malloc((size_t)(e - s) + 1);
    if (r) {
        memcpy(r, s, (size_t)(e - s));
        r[e - s] = '\0';
    }
    return r;
}

/* The next capacity of the section arrays: half as much again (cut to
 * size once the file is read, shrink_sections). */
static size_t grown(size_t cap)
{
    return cap ? cap + cap / 2 : 16;
}

static const char *section_name(struct parser *ps, char *buf, size_t size)
{
    if (ps->kind == SEC_PERFLIB)
        snprintf(buf, size, "[Perflib]");
    else if (ps->kind == SEC_SERVICE)
        snprintf(buf, size, "[PERF_%s]", ps->p->services[ps->sec].name);
    else
        snprintf(buf, size, "[PerfStrings_%s]", ps->p->langs[ps->sec].id);
    return buf;
}

static int header(struct parser *ps, const char *s, const char *e,
                  unsigned line)
{
    struct rt_psb *p = ps->p;
    char *name = dup_range(s, e);
    if (!name)
        return nomem(ps->err, line);
    ps->seen = 0;
    ps->sec_line = line;
    if (!strcasecmp(name, "Perflib")) {
        free(name);
        if (p->has_perflib)
            return fail(ps->err, line, "a second [Perflib] section (the "
                        "first is on line %u)", p->perflib_line);
        p->has_perflib = 1;
        p->perflib_line = line;
        ps->kind = SEC_PERFLIB;
        return 0;
    }
    if (!strncasecmp(name, "PERF_", 5)) {
        const char *svc = name + 5;
        if (!*svc || strchr(svc, '\\')) {
            free(name);
            return fail(ps->err, line, "[PERF_] section without a service "
                        "name, or with a '\\' in it");
        }
        /* A second section of a service is found once all are read
         * (index_sections), not by comparing each with those before. */
        struct rt_psb_service *v = p->services;
        if (p->n_services == ps->services_cap) {
            size_t cap = grown(ps->services_cap);
            if ((v = realloc(p->services, cap * sizeof *v))) {
                p->services = v;
                ps->services_cap = cap;
            }
        }
        char *n = v ? rt_str_pool_add(&p->service_names, svc, strlen(svc))
                    : NULL;
        free(name);
        if (!n)
            return nomem(ps->err, line);
        memset(&v[p->n_services], 0, sizeof *v);
        v[p->n_services].name = n;
        v[p->n_services].line = line;
        ps->sec = p->n_services++;
        ps->kind = SEC_SERVICE;
        return 0;
    }
    if (!strncasecmp(name, "PerfStrings_", 12)) {
        const char *id = name + 12;
        if (!rt_lang_is_id(id)) {
            fail(ps->err, line, "[PerfStrings_%s]: '%s' is not a language "
                 "id (three or four hex digits)", id, id);
            free(name);
            return -1;
        }
        struct rt_psb_language *v = p->langs;
        if (p->n_langs == ps->langs_cap) {
            size_t cap = grown(ps->langs_cap);
            if ((v = realloc(p->langs, cap * sizeof *v))) {
                p->langs = v;
                ps->langs_cap = cap;
            }
        }
        char *n = strdup(id);
        free(name);
        if (!v || !n) {
            free(n);
            return nomem(ps->err, line);
        }
        memset(&v[p->n_langs], 0, sizeof *v);
        v[p->n_langs].id = n;
        v[p->n_langs].line = line;
        ps->sec = p->n_langs++;
        ps->kind = SEC_STRINGS;
        return 0;
    }
    fail(ps->err, line, "unknown section [%s] (expected [Perflib], "
         "[PERF_service] or [PerfStrings_language])", name);
    free(name);
    return -1;
}

struct key {
    const char *name;
    size_t off_has, off_val;
};

#define PKEY(n, f) {n, offsetof(struct rt_psb, has_##f), offsetof(struct rt_psb, f)}
#define SKEY(n, f) {n, offsetof(struct rt_psb_service, has_##f), \
                    offsetof(struct rt_psb_service, f)}

static const struct key perflib_keys[] = {
    PKEY("Base Index", base_index),
    PKEY("Last Counter", last_counter),
    PKEY("Last Help", last_help),
};
static const struct key service_keys[] = {
    SKEY("First Counter", first_counter),
    SKEY("First Help", first_help),
    SKEY("Last Counter", last_counter),
    SKEY("Last Help", last_help),
    SKEY("Disable Performance Counters", disable),
};

static int key_value(struct parser *ps, const char *s, const char *e,
                     unsigned line)
{
    char sec[300];
    const char *eq = memchr(s, '=', (size_t)(e - s));
    if (!eq)
        return fail(ps->err, line, "%s: a line without '=' (expected "
                    "Name=number)", section_name(ps, sec, sizeof sec));
    const char *ks = s, *ke = eq;
    trim(&ks, &ke);
    const struct key *keys = ps->kind == SEC_PERFLIB ? perflib_keys
                                                     : service_keys;
    size_t nk = ps->kind == SEC_PERFLIB
                    ? sizeof perflib_keys / sizeof *perflib_keys
                    : sizeof service_keys / sizeof *service_keys;
    char *base = ps->kind == SEC_PERFLIB
                     ? (char *)ps->p
                     : (char *)&ps->p->services[ps->sec];
    for (size_t i = 0; i < nk; i++) {
        if (strlen(keys[i].name) != (size_t)(ke - ks) ||
            strncasecmp(keys[i].name, ks, (size_t)(ke - ks)))
            continue;
        if (ps->seen & (1u << i))
            return fail(ps->err, line, "%s: %s a second time",
                        section_name(ps, sec, sizeof sec), keys[i].name);
        uint32_t v;
        if (parse_dword(eq + 1, e, &v) != 0)
            return fail(ps->err, line, "%s: %s is not a decimal number "
                        "from 0 to 4294967295",
                        section_name(ps, sec, sizeof sec), keys[i].name);
        ps->seen |= 1u << i;
        if (ps->kind == SEC_PERFLIB)
            *(int *)(base + keys[i].off_has) = 1;
        else
            *(bool *)(base + keys[i].off_has) = true;
        *(uint32_t *)(base + keys[i].off_val) = v;
        return 0;
    }
    int n = (int)(ke - ks);
    return fail(ps->err, line, "%s: unknown name '%.*s'",
                section_name(ps, sec, sizeof sec), n > 80 ? 80 : n, ks);
}

/* A string record "N=text": 1 with the index and where the text starts;
 * 0 when the line does not start with decimal digits and '='; -1 on an
 * index out of range (reported). */
static int string_record(struct parser *ps, const char *s, const char *e,
                         unsigned line, uint32_t *index, const char **text)
{
    const char *d = s;
    uint64_t v = 0;
    while (d < e && *d >= '0' && *d <= '9') {
        if (v <= RT_INDEX_MAX)
            v = v * 10 + (uint64_t)(*d - '0');
        d++;
    }
    if (d == s || d == e || *d != '=')
        return 0;
    if (v == 0 || v > RT_INDEX_MAX)
        return fail(ps->err, line, "string index %.*s is out of range (1 "
                    "to 2147483648)", (int)(d - s > 20 ? 20 : d - s), s);
    *index = (uint32_t)v;
    *text = d + 1;
    return 1;
}

static int strings_line(struct parser *ps, const char *s, const char *e,
                        const char *term, unsigned line)
{
    uint32_t index = 0;
    const char *text = NULL;
    int r = string_record(ps, s, e, line, &index, &text);
    if (r < 0)
        return -1;
    if (r == 1) {
        if (finish_string(ps) != 0)
            return -1;
        ps->cur = 1;
        ps->cur_index = index;
        ps->cur_line = line;
        rt_strbuf_append(&ps->cur_text, text, (size_t)(e - text));
        rt_strbuf_append(&ps->pending, term, strlen(term));
        return 0;
    }
    if (s == e) {
        /* An empty line: the section's end, or an empty line inside a
         * text when a continuation follows. */
        if (ps->cur)
            rt_strbuf_append(&ps->pending, term, strlen(term));
        return 0;
    }
    if (!ps->cur) {
        const char *hs = s, *he = e;
        trim(&hs, &he);
        if (hs == he)
            return 0;
        char sec[300];
        return fail(ps->err, line, "%s: text without an index (expected "
                    "index=text)", section_name(ps, sec, sizeof sec));
    }
    /* A continuation: the line ends between are part of the text. */
    rt_strbuf_append(&ps->cur_text, ps->pending.s ? ps->pending.s : "",
                     ps->pending.len);
    rt_strbuf_append(&ps->cur_text, s, (size_t)(e - s));
    rt_strbuf_clear(&ps->pending);
    rt_strbuf_append(&ps->pending, term, strlen(term));
    return ps->pending.failed ? nomem(ps->err, line) : 0;
}

/* Reads the lines of T (N bytes: whole lines, but for the file's last). */
static int parse_lines(struct parser *ps, const char *t, size_t n)
{
    size_t pos = 0;
    unsigned line = ps->line;
    while (pos < n) {
        const char *s = t + pos;
        const char *lf = memchr(s, '\n', n - pos);
        const char *e = lf ? lf : t + n;
        const char *term = lf ? "\n" : "";
        if (lf && e > s && e[-1] == '\r') {
            e--;
            term = "\r\n";
        }
        pos = lf ? (size_t)(lf - t) + 1 : n;
        ps->line = ++line;
        const char *hs = s, *he = e;
        trim(&hs, &he);
        if (he - hs >= 2 && *hs == '[' && he[-1] == ']') {
            if (finish_string(ps) != 0 || header(ps, hs + 1, he - 1, line))
                return -1;
            continue;
        }
        switch (ps->kind) {
        case SEC_NONE:
        case SEC_PERFLIB:
        case SEC_SERVICE:
            /* "[Perflib" alone: said as what it is, not as stray text or
             * a line without '='. Not in a strings section, where a line
             * that does not start with N= continues a text. */
            if (hs != he && *hs == '[')
                return fail(ps->err, line, "a section header without its "
                            "closing ']'");
            if (ps->kind != SEC_NONE) {
                if (hs != he && key_value(ps, s, e, line) != 0)
                    return -1;
                break;
            }
            if (hs != he)
                return fail(ps->err, line, "text before the first section "
                            "(expected [Perflib])");
            break;
        case SEC_STRINGS:
            if (strings_line(ps, s, e, term, line) != 0)
                return -1;
            break;
        }
        if (ps->cur_text.failed || ps->pending.failed)
            return nomem(ps->err, line);
    }
    return 0;
}

/* The line of the NUL at byte AT of the text T (AT into it), the lines
 * before T being PS's. */
static int nul_in_text(struct parser *ps, const char *t, size_t at)
{
    return fail(ps->err, ps->line + line_of8(t, at),
                "a NUL character in the text");
}

/* DATA (LEN bytes; AT bytes into the file), UTF-16LE (UTF16: LEN even)
 * decoded or UTF-8 checked, and read a piece at a time, each piece's
 * bytes said done once taken: the file is never held whole, nor its
 * text, only the lines of a piece and what they make, and a NUL stops
 * the read where it is (a sparse file of zeros costs a piece of it, not
 * its size: review 42 R42-6, review 43 R43-10 for UTF-8). Errors name
 * the line as a whole read would: byte offsets into DATA. */
static int parse_pieces(struct parser *ps, const uint8_t *data, size_t len,
                        size_t at, int utf16, const struct done_fn *done)
{
    char *buf = NULL;
    size_t used = 0, cap = 0;
    int rc = -1;
    for (size_t p = 0; p < len;) {
        size_t n = len - p < DECODE_PIECE ? len - p : DECODE_PIECE;
        /* A piece ends at a whole character: not inside a surrogate
         * pair, nor before a UTF-8 continuation byte. */
        if (utf16 && p + n < len && data[p + n - 1] >= 0xD8 &&
            data[p + n - 1] <= 0xDB)
            n -= 2;
        while (!utf16 && p + n < len && n > 1 && (data[p + n] & 0xC0) == 0x80)
            n--;
        size_t most = utf16 ? n / 2 * 3 : n;
        if (used + most + 1 > cap) {
            /* A line longer than a piece grows the buffer. */
            size_t c = (used + most + 1) * 2;
            char *b = realloc(buf, c);
            if (!b) {
                nomem(ps->err, ps->line + 1);
                goto out;
            }
            buf = b;
            cap = c;
        }
        size_t got = n, off;
        if (utf16 &&
            rt_utf16le_to_utf8_into(data + p, n, buf + used, &got, &off)) {
            fail(ps->err, line_of16(data, p + off),
                 "unpaired UTF-16 surrogate at byte %zu", p + off);
            goto out;
        }
        if (!utf16) {
            if (rt_utf8_validate((const char *)data + p, n, &off) != 0) {
                fail(ps->err, line_of8((const char *)data, p + off),
                     "invalid UTF-8 at byte %zu", p + off);
                goto out;
            }
            memcpy(buf + used, data + p, n);
        }
        const char *nul = memchr(buf + used, '\0', got);
        if (nul) {
            nul_in_text(ps, buf, (size_t)(nul - buf));
            goto out;
        }
        size_t fresh = used;            /* where this piece's text starts */
        used += got;
        done_with(done, at + p, n);
        p += n;
        /* Whole lines are read now; the last one, unless it is the
         * file's, waits for the rest of it. What waits holds no line end,
         * so only this piece's text is looked through for one, and
         * nothing is moved while a line runs on (review 44 R44-4: the
         * whole carried line was scanned and moved each piece, a line of
         * 256 MB read in 24 s). */
        size_t whole = used;
        if (p < len) {
            while (whole > fresh && buf[whole - 1] != '\n')
                whole--;
            if (whole == fresh)
                whole = 0;
        }
        if (!whole)
            continue;
        if (parse_lines(ps, buf, whole) != 0)
            goto out;
        memmove(buf, buf + whole, used - whole);
        used -= whole;
    }
    rc = finish_string(ps);
out:
    free(buf);
    return rc;
}

/* Reads DATA into PS: its encoding found (*ENC), then its text decoded
 * and read; DONE is told of the bytes of DATA decoded. */
static int read_data(struct parser *ps, const uint8_t *data, size_t len,
                     enum rt_psb_encoding *enc, const struct done_fn *done)
{
    struct rt_psb_error *err = ps->err;
    const uint8_t *start = data;
    if (len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) {
        *enc = RT_PSB_UTF8_BOM;
        data += 3;
        len -= 3;
    } else if (len >= 2 && data[0] == 0xFF && data[1] == 0xFE) {
        *enc = RT_PSB_UTF16LE_BOM;
        data += 2;
        len -= 2;
    } else if (len >= 2 && data[0] == 0xFE && data[1] == 0xFF) {
        return fail(err, 1, "UTF-16 big-endian text: Windows writes "
                            "these files in UTF-16LE");
    } else {
        /* No mark: UTF-16LE, as Windows writes it, when its first
         * characters hold a NUL byte (ASCII in UTF-16LE always does;
         * UTF-8 text never does). */
        *enc = RT_PSB_UTF8;
        for (size_t i = 0; i < len && i < 512; i++)
            if (!data[i]) {
                *enc = RT_PSB_UTF16LE;
                break;
            }
    }
    if (*enc == RT_PSB_UTF16LE || *enc == RT_PSB_UTF16LE_BOM) {
        if (len % 2)
            return fail(err, line_of16(data, len),
                        "the file ends in the middle of a UTF-16 "
                        "character (an odd number of bytes): truncated?");
        return parse_pieces(ps, data, len, (size_t)(data - start), 1, done);
    }
    /* UTF-8 (an edited file), checked as it is read. */
    return parse_pieces(ps, data, len, (size_t)(data - start), 0, done);
}

static int service_at_cmp(uint32_t a, uint32_t b, const void *ctx)
{
    const struct rt_psb_service *v = ctx;
    int c = rt_utf8_casecmp(v[a].name, strlen(v[a].name), v[b].name,
                            strlen(v[b].name));
    return c ? c : a < b ? -1 : a > b;
}

/* The key of language id ID: 0 for CurrentLanguage, else its value + 1
 * (ids are at most four hex digits), so that CurrentLanguage sorts
 * first. */
static uint32_t lang_key(const char *id)
{
    unsigned value = 0;
    if (rt_lang_is_current(id))
        return 0;
    if (rt_lang_value(id, &value) != 0)
        value = 0;
    return (uint32_t)value + 1;
}

static int lang_at_cmp(const void *a, const void *b)
{
    const struct psb_at *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* Cuts P's section arrays to their size: what the parse grew them to
 * ahead is not held while the index is built, nor after. */
static void shrink_sections(struct rt_psb *p)
{
    if (p->n_services) {
        struct rt_psb_service *v =
            realloc(p->services, p->n_services * sizeof *v);
        if (v)
            p->services = v;
    }
    if (p->n_langs) {
        struct rt_psb_language *v = realloc(p->langs, p->n_langs * sizeof *v);
        if (v)
            p->langs = v;
    }
}

/* Sorts P's sections into its index and refuses a second section of a
 * service or a language, at the second's line: the first such in the
 * file, unless the parse already failed at an earlier line (FAILED_AT; 0
 * when it did not fail, or failed for want of memory). */
static int index_sections(struct rt_psb *p, unsigned failed_at,
                          struct rt_psb_error *err)
{
    struct rt_psb_index *x = calloc(1, sizeof *x);
    if (x) {
        x->service = malloc((p->n_services + 1) * sizeof *x->service);
        x->lang = malloc((p->n_langs + 1) * sizeof *x->lang);
    }
    if (!x || !x->service || !x->lang) {
        if (x) {
            free(x->service);
            free(x->lang);
        }
        free(x);
        return failed_at || err->nomem ? 0 : nomem(err, 0);
    }
    for (size_t i = 0; i < p->n_services; i++)
        x->service[i] = (uint32_t)i;
    for (size_t i = 0; i < p->n_langs; i++)
        x->lang[i] = (struct psb_at){p->langs[i].id, lang_key(p->langs[i].id),
                                     (uint32_t)i};
    rt_sort_positions(x->service, p->n_services, service_at_cmp, p->services);
    qsort(x->lang, p->n_langs, sizeof *x->lang, lang_at_cmp);
    /* The earliest second section: in a run of equals (in file order)
     * the second is the earliest repeat, and the first is what it
     * repeats. */
    /* DUP and FIRST: positions in services, or in langs with DUP_LANG. */
    int found = 0, dup_lang = 0;
    uint32_t dup = 0, first = 0;
    for (size_t i = 1; i < p->n_services; i++) {
        const struct rt_psb_service *a = &p->services[x->service[i - 1]],
                                    *b = &p->services[x->service[i]];
        if (rt_utf8_casecmp(a->name, strlen(a->name), b->name,
                            strlen(b->name)))
            continue;
        if (!found || b->line < p->services[dup].line)
            found = 1, dup = x->service[i], first = x->service[i - 1];
    }
    for (size_t i = 1; i < p->n_langs; i++) {
        const struct psb_at *a = &x->lang[i - 1], *b = &x->lang[i];
        if (a->key != b->key)
            continue;
        unsigned line = p->langs[b->at].line;
        if (!found || line < (dup_lang ? p->langs[dup].line
                                       : p->services[dup].line))
            found = 1, dup = b->at, first = a->at, dup_lang = 1;
    }
    x->services = p->services;
    x->n_services = p->n_services;
    x->langs = p->langs;
    x->n_langs = p->n_langs;
    p->index = x;
    if (!found)
        return 0;
    unsigned line = dup_lang ? p->langs[dup].line : p->services[dup].line;
    if (failed_at && failed_at < line)
        return 0;
    if (dup_lang)
        return fail(err, line, "language %s a second time (as %s on line %u)",
                    p->langs[dup].id, p->langs[first].id,
                    p->langs[first].line);
    return fail(err, line, "a second section for service '%s' (the first is "
                "on line %u)", p->services[dup].name,
                p->services[first].line);
}

/* Parses DATA; with TAKE, DATA is freed once read; DONE told of the bytes
 * decoded. */
static int parse(const uint8_t *data, size_t len, int take,
                 const struct done_fn *done, struct rt_psb *out,
                 enum rt_psb_encoding *enc, struct rt_psb_error *err)
{
    enum rt_psb_encoding e0;
    memset(out, 0, sizeof *out);
    memset(err, 0, sizeof *err);
    struct parser ps = {0};
    ps.p = out;
    ps.err = err;
    int r = read_data(&ps, data, len, enc ? enc : &e0, done);
    shrink_sections(out);
    if (index_sections(out, r != 0 && !err->nomem ? err->line : 0, err) != 0)
        r = -1;
    if (take)
        free((void *)data);
    rt_strbuf_free(&ps.cur_text);
    rt_strbuf_free(&ps.pending);
    if (r != 0)
        rt_psb_free(out);
    return r;
}

int rt_psb_parse(const uint8_t *data, size_t len, struct rt_psb *out,
                 enum rt_psb_encoding *enc, struct rt_psb_error *err)
{
    return parse(data, len, 0, NULL, out, enc, err);
}

int rt_psb_parse_view(const uint8_t *data, size_t len,
                      void (*done)(void *ctx, size_t off, size_t n), void *ctx,
                      struct rt_psb *out, enum rt_psb_encoding *enc,
                      struct rt_psb_error *err)
{
    struct done_fn d = {done, ctx};
    return parse(data, len, 0, &d, out, enc, err);
}

int rt_psb_parse_take(uint8_t *data, size_t len, struct rt_psb *out,
                      enum rt_psb_encoding *enc, struct rt_psb_error *err)
{
    return parse(data, len, 1, NULL, out, enc, err);
}

/* --- writing ------------------------------------------------------------ */

/* B (UTF-8) as UTF-16LE in a new buffer; frees B. */
static int finish_utf16(struct rt_strbuf *b, uint8_t **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (b->failed) {
        rt_strbuf_free(b);
        return -1;
    }
    int r = rt_utf8_to_utf16le(b->s ? b->s : "", b->len, out, len, NULL);
    rt_strbuf_free(b);
    if (r == 0 && !*out && !(*out = malloc(1)))
        return -1;
    return r == 0 ? 0 : -1;
}

/* Every record is CR LF, then its text; a section is an empty record, its
 * header, its lines. */
int rt_psb_write_head(const struct rt_psb *p, uint8_t **out, size_t *len)
{
    struct rt_strbuf b = {0};
    if (p->has_perflib) {
        rt_strbuf_printf(&b, "\r\n\r\n[Perflib]");
        if (p->has_base_index)
            rt_strbuf_printf(&b, "\r\nBase Index=%u", p->base_index);
        if (p->has_last_counter)
            rt_strbuf_printf(&b, "\r\nLast Counter=%u", p->last_counter);
        if (p->has_last_help)
            rt_strbuf_printf(&b, "\r\nLast Help=%u", p->last_help);
    }
    for (size_t i = 0; i < p->n_services; i++) {
        const struct rt_psb_service *s = &p->services[i];
        rt_strbuf_printf(&b, "\r\n\r\n[PERF_%s]", s->name);
        if (s->has_first_counter)
            rt_strbuf_printf(&b, "\r\nFirst Counter=%u", s->first_counter);
        if (s->has_first_help)
            rt_strbuf_printf(&b, "\r\nFirst Help=%u", s->first_help);
        if (s->has_last_counter)
            rt_strbuf_printf(&b, "\r\nLast Counter=%u", s->last_counter);
        if (s->has_last_help)
            rt_strbuf_printf(&b, "\r\nLast Help=%u", s->last_help);
        if (s->has_disable)
            rt_strbuf_printf(&b, "\r\nDisable Performance Counters=%u",
                             s->disable);
    }
    return finish_utf16(&b, out, len);
}

int rt_psb_write_language(const struct rt_psb_language *l, uint8_t **out,
                          size_t *len)
{
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "\r\n\r\n[PerfStrings_%s]", l->id);
    for (size_t j = 0; j < l->strings.n; j++) {
        rt_strbuf_printf(&b, "\r\n%u=", l->strings.v[j].index);
        rt_strbuf_append(&b, l->strings.v[j].text, l->strings.v[j].text_len);
    }
    return finish_utf16(&b, out, len);
}

int rt_psb_write(const struct rt_psb *p, uint8_t **out, size_t *len)
{
    struct rt_strbuf all = {0};
    uint8_t *part;
    size_t n;
    *out = NULL;
    *len = 0;
    for (size_t i = 0; i <= p->n_langs; i++) {
        if ((i ? rt_psb_write_language(&p->langs[i - 1], &part, &n)
               : rt_psb_write_head(p, &part, &n)) != 0) {
            rt_strbuf_free(&all);
            return -1;
        }
        rt_strbuf_append(&all, (const char *)part, n);
        free(part);
    }
    size_t total = all.len;
    if (!(*out = (uint8_t *)rt_strbuf_take(&all)))
        return -1;
    *len = total;
    return 0;
}

static const struct rt_psb_index *current_index(const struct rt_psb *p)
{
    const struct rt_psb_index *x = p->index;
    return x && x->services == p->services &&
                   x->n_services == p->n_services && x->langs == p->langs &&
                   x->n_langs == p->n_langs
               ? x
               : NULL;
}

const struct rt_psb_service *rt_psb_service_find(const struct rt_psb *p,
                                                 const char *name)
{
    size_t n = strlen(name);
    const struct rt_psb_index *x = current_index(p);
    if (x) {
        size_t lo = 0, hi = p->n_services;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const char *m = p->services[x->service[mid]].name;
            if (rt_utf8_casecmp(m, strlen(m), name, n) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < p->n_services) {
            const struct rt_psb_service *v = &p->services[x->service[lo]];
            if (!rt_utf8_casecmp(v->name, strlen(v->name), name, n))
                return v;
        }
        return NULL;
    }
    for (size_t i = 0; i < p->n_services; i++)
        if (!rt_utf8_casecmp(p->services[i].name,
                             strlen(p->services[i].name), name, n))
            return &p->services[i];
    return NULL;
}

const struct rt_psb_language *rt_psb_language_find(const struct rt_psb *p,
                                                   const char *id)
{
    const struct rt_psb_index *x = current_index(p);
    if (x) {
        if (!rt_lang_is_id(id))
            return NULL;
        uint32_t key = lang_key(id);
        size_t lo = 0, hi = p->n_langs;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (x->lang[mid].key < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < p->n_langs && x->lang[lo].key == key)
            return &p->langs[x->lang[lo].at];
        return NULL;
    }
    for (size_t i = 0; i < p->n_langs; i++)
        if (rt_lang_same(p->langs[i].id, id))
            return &p->langs[i];
    return NULL;
}
