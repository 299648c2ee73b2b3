/* Model layer: the REG_MULTI_SZ codec for Counter and Help tables. */
#include "model/multi_sz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

static uint16_t unit_at(const uint8_t *s, size_t i)
{
    return (uint16_t)(s[2 * i] | s[2 * i + 1] << 8);
}

const char *rt_msz_strerror(enum rt_msz_status s)
{
    switch (s) {
    case RT_MSZ_OK: return "no error";
    case RT_MSZ_ODD_LENGTH: return "odd byte length";
    case RT_MSZ_NO_TERMINATOR: return "missing final NUL terminator";
    case RT_MSZ_EMPTY_INDEX: return "empty index";
    case RT_MSZ_BAD_INDEX: return "index is not decimal";
    case RT_MSZ_INDEX_ZERO: return "index 0";
    case RT_MSZ_INDEX_RANGE: return "index above 2^31";
    case RT_MSZ_ODD_COUNT: return "odd number of strings (index without text)";
    case RT_MSZ_BAD_SURROGATE: return "unpaired UTF-16 surrogate";
    case RT_MSZ_EMPTY: return "empty: not a single byte";
    case RT_MSZ_NOMEM: return "out of memory";
    }
    return "unknown error";
}

void rt_pair_free(struct rt_pair *p)
{
    free(p->text);
    free(p->index_raw);
    p->text = p->index_raw = NULL;
}

void rt_pairs_free(struct rt_pair *pairs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        rt_pair_free(&pairs[i]);
    free(pairs);
}

int rt_pair_copy(struct rt_pair *dst, const struct rt_pair *src)
{
    *dst = *src;
    dst->text = malloc(src->text_len + 1);
    dst->index_raw = src->index_raw ? strdup(src->index_raw) : NULL;
    if (!dst->text || (src->index_raw && !dst->index_raw)) {
        rt_pair_free(dst);
        return -1;
    }
    memcpy(dst->text, src->text, src->text_len + 1);
    return 0;
}

/* Parses the index string of UNITS UTF-16 code units at S. */
static enum rt_msz_status parse_index(const uint8_t *s, size_t units,
                                      uint32_t *index, char **raw)
{
    uint64_t v = 0;
    *raw = NULL;
    if (units == 0)
        return RT_MSZ_EMPTY_INDEX;
    for (size_t i = 0; i < units; i++) {
        uint16_t c = unit_at(s, i);
        if (c < '0' || c > '9')
            return RT_MSZ_BAD_INDEX;
        v = v * 10 + (c - '0');
        if (v > RT_INDEX_MAX)
            return RT_MSZ_INDEX_RANGE;
    }
    if (v == 0)
        return RT_MSZ_INDEX_ZERO;
    if (unit_at(s, 0) == '0') {
        /* Keep "0012" as written so an untouched blob re-encodes exactly. */
        *raw = malloc(units + 1);
        if (!*raw)
            return RT_MSZ_NOMEM;
        for (size_t i = 0; i < units; i++)
            (*raw)[i] = (char)unit_at(s, i);
        (*raw)[units] = '\0';
    }
    *index = (uint32_t)v;
    return RT_MSZ_OK;
}

/* Byte offset of the NUL unit ending the string at byte offset POS, or
 * LEN when the string runs to the end. */
static size_t find_nul(const uint8_t *blob, size_t len, size_t pos)
{
    while (pos + 1 < len && (blob[pos] | blob[pos + 1]))
        pos += 2;
    return pos + 1 < len ? pos : len;
}

static int push_pair(struct rt_pair **pairs, size_t *n, size_t *cap,
                     const struct rt_pair *p)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct rt_pair *v = realloc(*pairs, c * sizeof *v);
        if (!v)
            return -1;
        *pairs = v;
        *cap = c;
    }
    (*pairs)[(*n)++] = *p;
    return 0;
}

/* Decodes pairs from the even-length prefix; stops at the first damage. */
static struct rt_msz_error decode_pairs(const uint8_t *blob, size_t len,
                                        struct rt_pair **pairs, size_t *n)
{
    struct rt_msz_error e = {RT_MSZ_OK, 0};
    size_t cap = 0, pos = 0;
    for (;;) {
        if (pos >= len) {
            /* The last string ended the blob with no list NUL after it. */
            e.status = RT_MSZ_NO_TERMINATOR;
            e.offset = len;
            return e;
        }
        size_t idx_end = find_nul(blob, len, pos);
        if (idx_end == len) {
            e.status = RT_MSZ_NO_TERMINATOR;
            e.offset = pos;
            return e;
        }
        if (idx_end == pos) {
            if (pos + 2 == len)
                return e;       /* the list terminator: done */
            e.status = RT_MSZ_EMPTY_INDEX;
            e.offset = pos;
            return e;
        }
        struct rt_pair p = {0};
        e.status = parse_index(blob + pos, (idx_end - pos) / 2, &p.index,
                               &p.index_raw);
        if (e.status != RT_MSZ_OK) {
            e.offset = pos;
            return e;
        }
        size_t text = idx_end + 2;
        size_t text_end = text < len ? find_nul(blob, len, text) : len;
        if (text >= len || (text_end == text && text + 2 == len)) {
            /* The index is the last string: its text is missing. */
            free(p.index_raw);
            e.status = RT_MSZ_ODD_COUNT;
            e.offset = pos;
            return e;
        }
        if (text_end == len) {
            free(p.index_raw);
            e.status = RT_MSZ_NO_TERMINATOR;
            e.offset = text;
            return e;
        }
        size_t bad;
        int r = rt_utf16le_to_utf8(blob + text, text_end - text, &p.text,
                                   &p.text_len, &bad);
        if (r != 0) {
            free(p.index_raw);
            e.status = r == -1 ? RT_MSZ_BAD_SURROGATE : RT_MSZ_NOMEM;
            e.offset = text + bad;
            return e;
        }
        if (push_pair(pairs, n, &cap, &p) != 0) {
            rt_pair_free(&p);
            e.status = RT_MSZ_NOMEM;
            e.offset = pos;
            return e;
        }
        pos = text_end + 2;
    }
}

int rt_multi_sz_decode(const uint8_t *blob, size_t len, int lenient,
                       struct rt_pair **pairs, size_t *n_pairs,
                       struct rt_msz_error *err)
{
    struct rt_msz_error e = {RT_MSZ_OK, 0};
    *pairs = NULL;
    *n_pairs = 0;
    if (len % 2) {
        e.status = RT_MSZ_ODD_LENGTH;
        e.offset = len - 1;
    }
    if (e.status == RT_MSZ_OK || lenient) {
        size_t even = len & ~(size_t)1;
        if (even > 0) {
            struct rt_msz_error d = decode_pairs(blob, even, pairs, n_pairs);
            /* Report the damage that comes first in the blob. */
            if (d.status != RT_MSZ_OK &&
                (e.status == RT_MSZ_OK || d.offset < e.offset))
                e = d;
        }
    }
    if (err)
        *err = e;
    if (e.status == RT_MSZ_OK)
        return 0;
    if (!lenient || e.status == RT_MSZ_NOMEM) {
        rt_pairs_free(*pairs, *n_pairs);
        *pairs = NULL;
        *n_pairs = 0;
    }
    return -1;
}

/* Appends UTF-16LE of a UTF-8 string plus its NUL to BUF at *POS. */
static int put_string(uint8_t **buf, size_t *pos, size_t *cap, const char *s,
                      size_t len)
{
    uint8_t *u16 = NULL;
    size_t n = 0;
    if (len && rt_utf8_to_utf16le(s, len, &u16, &n, NULL) != 0)
        return -1;
    if (*pos + n + 4 > *cap) {
        size_t c = (*cap + n + 4) * 2;
        uint8_t *b = realloc(*buf, c);
        if (!b) {
            free(u16);
            return -1;
        }
        *buf = b;
        *cap = c;
    }
    if (n)
        memcpy(*buf + *pos, u16, n);
    free(u16);
    *pos += n;
    (*buf)[(*pos)++] = 0;
    (*buf)[(*pos)++] = 0;
    return 0;
}

int rt_multi_sz_encode(const struct rt_pair *pairs, size_t n_pairs,
                       uint8_t **blob, size_t *len)
{
    size_t cap = 256, pos = 0;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -1;
    for (size_t i = 0; i < n_pairs; i++) {
        char digits[16];
        const char *idx = pairs[i].index_raw;
        if (!idx) {
            snprintf(digits, sizeof digits, "%u", (unsigned)pairs[i].index);
            idx = digits;
        }
        if (put_string(&buf, &pos, &cap, idx, strlen(idx)) != 0 ||
            put_string(&buf, &pos, &cap, pairs[i].text, pairs[i].text_len) != 0) {
            free(buf);
            return -1;
        }
    }
    if (put_string(&buf, &pos, &cap, "", 0) != 0) {
        free(buf);
        return -1;
    }
    *blob = buf;
    *len = pos;
    return 0;
}

int rt_multi_sz_salvage(const uint8_t *blob, size_t len,
                        struct rt_pair **pairs, size_t *n_pairs,
                        size_t *dropped)
{
    *pairs = NULL;
    *n_pairs = 0;
    *dropped = 0;
    size_t cap = 0, even = len & ~(size_t)1, pos = 0;
    /* The strings of the blob, a string at a time; a string that runs to
     * the end without its NUL still counts. */
    while (pos < even) {
        size_t idx_end = find_nul(blob, even, pos);
        if (idx_end == pos) {           /* an empty string: noise or the end */
            pos += 2;
            continue;
        }
        struct rt_pair p = {0};
        size_t next = idx_end + 2;
        enum rt_msz_status st = parse_index(blob + pos, (idx_end - pos) / 2,
                                            &p.index, &p.index_raw);
        if (st == RT_MSZ_NOMEM)
            goto nomem;
        if (st != RT_MSZ_OK || next >= even) {
            /* Not an index, or an index with nothing after it. */
            free(p.index_raw);
            (*dropped)++;
            pos = next;
            continue;
        }
        size_t text_end = find_nul(blob, even, next);
        if (text_end == next) {
            /* An index followed by an empty string: its text is lost. */
            free(p.index_raw);
            (*dropped)++;
            pos = next;
            continue;
        }
        size_t bad;
        int r = rt_utf16le_to_utf8(blob + next, text_end - next, &p.text,
                                   &p.text_len, &bad);
        if (r == -2) {
            free(p.index_raw);
            goto nomem;
        }
        if (r != 0) {
            free(p.index_raw);
            (*dropped) += 2;
            pos = text_end + 2;
            continue;
        }
        if (push_pair(pairs, n_pairs, &cap, &p) != 0) {
            rt_pair_free(&p);
            goto nomem;
        }
        pos = text_end + 2;
    }
    return 0;
nomem:
    rt_pairs_free(*pairs, *n_pairs);
    *pairs = NULL;
    *n_pairs = 0;
    return -1;
}
