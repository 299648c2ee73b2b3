/* Model layer: the REG_MULTI_SZ codec for Counter and Help tables. */
#include "model/multi_sz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

/* X as read from little-endian bytes (the lanes above are units). */
static uint64_t le64(uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap64(x);
#else
    return x;
#endif
}

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
                                      uint32_t *index)
{
    uint64_t v = 0;
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
    *index = (uint32_t)v;
    return RT_MSZ_OK;
}

/* "0012" as written, so an untouched blob re-encodes exactly; NULL (and
 * 0) for a canonical index. Returns -1 when out of memory. */
static int index_raw(const uint8_t *s, size_t units, char **raw)
{
    *raw = NULL;
    if (units == 0 || unit_at(s, 0) != '0')
        return 0;
    *raw = malloc(units + 1);
    if (!*raw)
        return -1;
    for (size_t i = 0; i < units; i++)
        (*raw)[i] = (char)unit_at(s, i);
    (*raw)[units] = '\0';
    return 0;
}

/* Byte offset of the NUL unit ending the string at byte offset POS, or
 * LEN when the string runs to the end. */
static size_t find_nul(const uint8_t *blob, size_t len, size_t pos)
{
    while (pos + 1 < len && (blob[pos] | blob[pos + 1]))
        pos += 2;
    return pos + 1 < len ? pos : len;
}

/* As find_nul, eight bytes (four UTF-16 units) at a time, and setting
 * *SURROGATE when a unit before the NUL may be a surrogate (0xD800-
 * 0xDFFF; the caller then checks exactly). Tables are tens of megabytes
 * scanned on every install: this loop is most of the scan. */
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* Sixteen UTF-16 units a step where the compiler has vector types (SSE2
 * on any x86-64, NEON on ARM): three times the eight-byte steps below. */
typedef uint16_t rt_u16x8 __attribute__((vector_size(16)));
typedef uint64_t rt_u64x2 __attribute__((vector_size(16)));
#define RT_WIDE_SCAN 1
#endif

static size_t find_nul_fast(const uint8_t *blob, size_t len, size_t pos,
                            int *surrogate)
{
    const uint64_t ones = 0x0001000100010001ull, highs = 0x8000800080008000ull;
    const uint64_t mask = 0xF800F800F800F800ull, sur = 0xD800D800D800D800ull;
    for (;;) {
#ifdef RT_WIDE_SCAN
        const rt_u16x8 zero = {0}, top5 = zero + 0xF800, d8 = zero + 0xD800;
        while (pos + 32 <= len) {
            rt_u16x8 a, b;
            memcpy(&a, blob + pos, 16);
            memcpy(&b, blob + pos + 16, 16);
            rt_u64x2 hit = (rt_u64x2)((a == zero) | ((a & top5) == d8) |
                                      (b == zero) | ((b & top5) == d8));
            if (hit[0] | hit[1])
                break;
            pos += 32;
        }
#endif
        while (pos + 8 <= len) {
            uint64_t x;
            memcpy(&x, blob + pos, 8);
            x = le64(x);
            /* A zero lane is a NUL unit; a lane whose top five bits are
             * 11011 is a surrogate. Either stops the wide steps. */
            uint64_t y = (x & mask) ^ sur;
            if (((x - ones) & ~x & highs) | ((y - ones) & ~y & highs))
                break;
            pos += 8;
        }
        if (pos + 1 >= len || !(blob[pos] | blob[pos + 1]))
            break;
        if ((blob[pos + 1] & 0xF8) == 0xD8)
            *surrogate = 1;
        pos += 2;
    }
    return pos + 1 < len ? pos : len;
}

static int push_pair(struct rt_pair **pairs, size_t *n, size_t *cap,
                     const struct rt_pair *p)
{
    if (*n == *cap) {
        /* From one: a table of one pair costs what one pair does. */
        size_t c = *cap ? *cap * 2 : 1;
        struct rt_pair *v = realloc(*pairs, c * sizeof *v);
        if (!v)
            return -1;
        *pairs = v;
        *cap = c;
    }
    (*pairs)[(*n)++] = *p;
    return 0;
}

static int push_entry(struct rt_msz_entry **v, size_t *n, size_t *cap,
                      const struct rt_msz_entry *x)
{
    if (*n == *cap) {
        /* Half as much again: never twice what a big table needs; from
         * one, so that thousands of tables of one pair each (a hostile
         * store's) cost in proportion to their bytes. */
        size_t c = *cap + *cap / 2 + 1;
        struct rt_msz_entry *w = realloc(*v, c * sizeof *w);
        if (!w)
            return -1;
        *v = w;
        *cap = c;
    }
    (*v)[(*n)++] = *x;
    return 0;
}

/* Locates the pairs of the even-length prefix; stops at the first damage. */
static struct rt_msz_error scan_pairs(const uint8_t *blob, size_t len,
                                      struct rt_msz_entry **v, size_t *n)
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
        struct rt_msz_entry x = {0};
        e.status = parse_index(blob + pos, (idx_end - pos) / 2, &x.index);
        if (e.status != RT_MSZ_OK) {
            e.offset = pos;
            return e;
        }
        size_t text = idx_end + 2;
        int surrogate = 0;
        size_t text_end = text < len ? find_nul_fast(blob, len, text,
                                                     &surrogate)
                                     : len;
        if (text >= len || (text_end == text && text + 2 == len)) {
            /* The index is the last string: its text is missing. */
            e.status = RT_MSZ_ODD_COUNT;
            e.offset = pos;
            return e;
        }
        if (text_end == len) {
            e.status = RT_MSZ_NO_TERMINATOR;
            e.offset = text;
            return e;
        }
        size_t bad;
        if (surrogate &&
            rt_utf16le_check(blob + text, text_end - text, &bad) != 0) {
            e.status = RT_MSZ_BAD_SURROGATE;
            e.offset = text + bad;
            return e;
        }
        x.at = pos;
        x.text = text;
        x.text_bytes = text_end - text;
        if (push_entry(v, n, &cap, &x) != 0) {
            e.status = RT_MSZ_NOMEM;
            e.offset = pos;
            return e;
        }
        pos = text_end + 2;
    }
}

/* The pairs of a region of a table in pieces (rt_multi_sz_scan_pieces):
 * BLOB holds LEN bytes at byte BASE of a table of TOTAL bytes. Locates
 * every pair that ends within the region, checking what scan_pairs
 * checks; *USED gets where the first pair that does not end in it
 * begins. Returns 0, 1 at the list terminator (then *USED is just past
 * it), 2 on damage or anything scan_pairs would report, -1 when out of
 * memory. */
static int scan_region(const uint8_t *blob, size_t len, size_t base,
                       size_t total, struct rt_msz_entry **v, size_t *n,
                       size_t *cap, size_t *used)
{
    size_t pos = 0;
    for (;;) {
        *used = pos;
        if (pos >= len)
            return 0;
        size_t idx_end = find_nul(blob, len, pos);
        if (idx_end == len)
            return 0;
        if (idx_end == pos) {
            *used = pos + 2;
            return base + pos + 2 == total ? 1 : 2;
        }
        struct rt_msz_entry x = {0};
        if (parse_index(blob + pos, (idx_end - pos) / 2, &x.index) !=
            RT_MSZ_OK)
            return 2;
        size_t text = idx_end + 2;
        if (text >= len)
            return 0;
        int surrogate = 0;
        size_t text_end = find_nul_fast(blob, len, text, &surrogate);
        if (text_end == len)
            return 0;
        size_t bad;
        if ((text_end == text && base + text + 2 == total) ||
            (surrogate &&
             rt_utf16le_check(blob + text, text_end - text, &bad) != 0))
            return 2;
        x.at = base + pos;
        x.text = base + text;
        x.text_bytes = text_end - text;
        if (push_entry(v, n, cap, &x) != 0)
            return -1;
        pos = text_end + 2;
    }
}

/* Appends to CARRY the bytes from piece *I, offset *O on, up to and with
 * the NUL unit ending the string there (pieces hold whole UTF-16 units);
 * advances *I and *O past them. Returns 0, 1 when the pieces end first,
 * -1 when out of memory. */
static int carry_string(const uint8_t *const *piece, const size_t *piece_len,
                        size_t n_pieces, size_t *i, size_t *o, uint8_t **carry,
                        size_t *len, size_t *cap)
{
    for (;;) {
        if (*i == n_pieces)
            return 1;
        const uint8_t *p = piece[*i];
        size_t plen = piece_len[*i];
        size_t end = find_nul(p, plen, *o);
        size_t take = (end == plen ? plen : end + 2) - *o;
        if (*len + take > *cap) {
            size_t c = (*len + take) * 2;
            uint8_t *b = realloc(*carry, c);
            if (!b)
                return -1;
            *carry = b;
            *cap = c;
        }
        memcpy(*carry + *len, p + *o, take);
        *len += take;
        *o += take;
        if (*o == plen) {
            (*i)++;
            *o = 0;
        }
        if (end != plen)
            return 0;
    }
}

size_t rt_msz_pairs_end(const struct rt_msz_entry *v, size_t n)
{
    return n ? v[n - 1].text + v[n - 1].text_bytes + 2 : 0;
}

void rt_pieces_copy(const uint8_t *const *piece, const size_t *piece_len,
                    size_t n_pieces, size_t from, uint8_t *out, size_t n)
{
    size_t at = 0;      /* where piece I begins */
    for (size_t i = 0; i < n_pieces && n; at += piece_len[i], i++) {
        if (from >= at + piece_len[i])
            continue;
        size_t skip = from - at, take = piece_len[i] - skip;
        if (take > n)
            take = n;
        memcpy(out, piece[i] + skip, take);
        out += take;
        from += take;
        n -= take;
    }
}

int rt_multi_sz_scan_pieces(const uint8_t *const *piece,
                            const size_t *piece_len, size_t n_pieces,
                            struct rt_msz_entry **entries, size_t *n)
{
    size_t total = 0, cap = 0, i = 0, o = 0, g = 0, used;
    *entries = NULL;
    *n = 0;
    for (size_t k = 0; k < n_pieces; k++) {
        if (piece_len[k] % 2)
            return 1;       /* units split across pieces: not for here */
        total += piece_len[k];
    }
    if (total > UINT32_MAX)
        return 1;           /* rt_multi_sz_scan refuses it */
    uint8_t *carry = NULL;
    size_t carry_cap = 0;
    int r = 2;
    while (i < n_pieces) {
        /* The pairs that lie whole in this piece, in place. */
        r = scan_region(piece[i] + o, piece_len[i] - o, g, total, entries, n,
                        &cap, &used);
        g += used;
        o += used;
        if (r != 0)
            break;
        if (o == piece_len[i]) {
            i++;
            o = 0;
            continue;
        }
        /* A pair across pieces: its two strings gathered, then scanned. */
        size_t clen = 0;
        int c = carry_string(piece, piece_len, n_pieces, &i, &o, &carry,
                             &clen, &carry_cap);
        if (c == 0 && clen > 2)
            c = carry_string(piece, piece_len, n_pieces, &i, &o, &carry,
                             &clen, &carry_cap);
        if (c != 0) {
            r = c < 0 ? -1 : 2;
            break;
        }
        r = scan_region(carry, clen, g, total, entries, n, &cap, &used);
        g += used;
        /* The carry is one pair, its index string not empty (an empty one
         * at a pair's start, the list's terminator, is found in its
         * piece): anything but the pair whole is damage. */
        if (r != 0 || used != clen) {
            r = r < 0 ? -1 : 2;
            break;
        }
    }
    free(carry);
    if (r == 1 && g == total)
        return 0;
    free(*entries);
    *entries = NULL;
    *n = 0;
    return r < 0 ? -1 : 1;
}

int rt_multi_sz_scan(const uint8_t *blob, size_t len, int lenient,
                     struct rt_msz_entry **entries, size_t *n,
                     struct rt_msz_error *err)
{
    struct rt_msz_error e = {RT_MSZ_OK, 0};
    *entries = NULL;
    *n = 0;
    /* Entries hold 32-bit offsets (rt_msz_entry); the size caps keep
     * every table far below this. */
    if (len > UINT32_MAX) {
        if (err)
            *err = (struct rt_msz_error){RT_MSZ_NOMEM, 0};
        return -1;
    }
    if (len % 2) {
        e.status = RT_MSZ_ODD_LENGTH;
        e.offset = len - 1;
    }
    if (e.status == RT_MSZ_OK || lenient) {
        size_t even = len & ~(size_t)1;
        if (even > 0) {
            struct rt_msz_error d = scan_pairs(blob, even, entries, n);
            /* The room grown for more entries given back: a table's
             * entries are kept while it is read, and its grown array is
             * half as much again as it needs. */
            struct rt_msz_entry *fit =
                *n ? realloc(*entries, *n * sizeof **entries) : NULL;
            if (fit)
                *entries = fit;
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
        free(*entries);
        *entries = NULL;
        *n = 0;
    }
    return -1;
}

int rt_msz_entry_pair(const uint8_t *blob, const struct rt_msz_entry *x,
                      struct rt_pair *p)
{
    memset(p, 0, sizeof *p);
    p->index = x->index;
    size_t text_len = 0;
    if (index_raw(blob + x->at, (x->text - 2 - x->at) / 2, &p->index_raw) ||
        rt_utf16le_to_utf8(blob + x->text, x->text_bytes, &p->text,
                           &text_len, NULL) != 0) {
        rt_pair_free(p);
        return -1;
    }
    p->text_len = (uint32_t)text_len;
    return 0;
}

size_t rt_msz_entry_text_bound(const struct rt_msz_entry *x)
{
    return x->text_bytes / 2 * 3;
}

int rt_msz_entry_pair_in(const uint8_t *blob, const struct rt_msz_entry *x,
                         struct rt_pair *p, char *buf)
{
    memset(p, 0, sizeof *p);
    p->index = x->index;
    size_t text_len = 0;
    if (index_raw(blob + x->at, (x->text - 2 - x->at) / 2, &p->index_raw) ||
        rt_utf16le_to_utf8_into(blob + x->text, x->text_bytes, buf,
                                &text_len, NULL) != 0) {
        free(p->index_raw);
        p->index_raw = NULL;
        return -1;
    }
    buf[text_len] = '\0';
    p->text = buf;
    p->text_len = (uint32_t)text_len;
    return 0;
}

int rt_multi_sz_decode(const uint8_t *blob, size_t len, int lenient,
                       struct rt_pair **pairs, size_t *n_pairs,
                       struct rt_msz_error *err)
{
    struct rt_msz_entry *x = NULL;
    size_t n = 0;
    struct rt_msz_error e;
    int r = rt_multi_sz_scan(blob, len, lenient, &x, &n, &e);
    *pairs = NULL;
    *n_pairs = 0;
    if (n) {
        *pairs = malloc(n * sizeof **pairs);
        if (!*pairs)
            goto nomem;
        for (size_t i = 0; i < n; i++, ++*n_pairs)
            if (rt_msz_entry_pair(blob, &x[i], &(*pairs)[i]) != 0)
                goto nomem;
    }
    free(x);
    if (err)
        *err = e;
    return r;
nomem:
    free(x);
    rt_pairs_free(*pairs, *n_pairs);
    *pairs = NULL;
    *n_pairs = 0;
    if (err)
        *err = (struct rt_msz_error){RT_MSZ_NOMEM, 0};
    return -1;
}

/* Appends UTF-16LE of a UTF-8 string plus its NUL to BUF at *POS. */
static int put_string(uint8_t **buf, size_t *pos, size_t *cap, const char *s,
                      size_t len)
{
    /* Room for the worst case (two bytes of UTF-16 a byte of UTF-8) and
     * the terminator; converted in place. */
    if (*pos + 2 * len + 4 > *cap) {
        size_t c = (*cap + 2 * len + 4) * 2;
        uint8_t *b = realloc(*buf, c);
        if (!b)
            return -1;
        *buf = b;
        *cap = c;
    }
    size_t n = 0;
    if (len && rt_utf8_to_utf16le_into(s, len, *buf + *pos, &n, NULL) != 0)
        return -1;
    *pos += n;
    (*buf)[(*pos)++] = 0;
    (*buf)[(*pos)++] = 0;
    return 0;
}

int rt_multi_sz_encode(const struct rt_pair *pairs, size_t n_pairs,
                       uint8_t **blob, size_t *len)
{
    return rt_multi_sz_encode_after(NULL, 0, pairs, n_pairs, blob, len);
}

int rt_multi_sz_encode_after(const uint8_t *head, size_t head_len,
                             const struct rt_pair *pairs, size_t n_pairs,
                             uint8_t **blob, size_t *len)
{
    /* From a few bytes past HEAD, doubling: a table of one short pair
     * takes what its bytes do. */
    size_t cap = head_len + 16, pos = head_len;
    uint8_t *buf = malloc(cap);
    if (!buf)
        return -1;
    if (head_len)
        memcpy(buf, head, head_len);
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
                        size_t *dropped, uint32_t *cut_index)
{
    *pairs = NULL;
    *n_pairs = 0;
    *dropped = 0;
    if (cut_index)
        *cut_index = 0;
    /* A valid blob gives exactly what strict decoding gives. The string by
     * string reading below drops an index whose text is empty, which a
     * valid table may hold ("12","" decodes as a pair): without this, a
     * backup or repair of such a table lost the pair. */
    if (rt_multi_sz_decode(blob, len, 0, pairs, n_pairs, NULL) == 0)
        return 0;
    size_t cap = 0, even = len & ~(size_t)1, pos = 0;
    /* The strings of the blob, a string at a time. A string that runs to
     * the end without its NUL was cut by the damage (a table cut short,
     * a .dat file truncated): it is never kept, as what remains of it is
     * not the text that was stored. */
    while (pos < even) {
        size_t idx_end = find_nul(blob, even, pos);
        if (idx_end == pos) {           /* an empty string: noise or the end */
            pos += 2;
            continue;
        }
        struct rt_pair p = {0};
        size_t next = idx_end + 2;
        enum rt_msz_status st = parse_index(blob + pos, (idx_end - pos) / 2,
                                            &p.index);
        if (st == RT_MSZ_OK &&
            index_raw(blob + pos, (idx_end - pos) / 2, &p.index_raw) != 0)
            goto nomem;
        if (st != RT_MSZ_OK || next >= even) {
            /* Not an index, or an index with nothing after it: whole, its
             * text cut away. */
            if (st == RT_MSZ_OK && idx_end < even && cut_index)
                *cut_index = p.index;
            free(p.index_raw);
            (*dropped)++;
            pos = next;
            continue;
        }
        size_t text_end = find_nul(blob, even, next);
        if (text_end >= even) {
            /* The text was cut: the index and what is left of its text. */
            if (cut_index)
                *cut_index = p.index;
            free(p.index_raw);
            (*dropped) += 2;
            break;
        }
        if (text_end == next) {
            /* An index followed by an empty string: its text is lost. */
            free(p.index_raw);
            (*dropped)++;
            pos = next;
            continue;
        }
        size_t bad, text_len = 0;
        int r = rt_utf16le_to_utf8(blob + next, text_end - next, &p.text,
                                   &text_len, &bad);
        p.text_len = (uint32_t)text_len;
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
