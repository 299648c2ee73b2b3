/* Platform layer: names compared as Windows compares them
 * (name_case.h). */
#include "platform/name_case.h"
#include "platform/unicode_tables.h"

#include <string.h>

size_t rt_utf8_decode_one(const unsigned char *s, size_t n, uint32_t *cp)
{
    uint32_t c = s[0];
    size_t need;
    uint32_t min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xE0) == 0xC0) {
        need = 2; c &= 0x1F; min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 3; c &= 0x0F; min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 4; c &= 0x07; min = 0x10000;
    } else {
        return 0;
    }
    if (n < need)
        return 0;
    for (size_t k = 1; k < need; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        c = c << 6 | (s[k] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
        return 0;
    *cp = c;
    return need;
}

uint16_t rt_upcase16(uint16_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') ? (uint16_t)(c - 32) : c;
    size_t lo = 0, hi = rt_unicode_upcase_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rt_unicode_case_range *r = &rt_unicode_upcase[mid];
        if (c < r->first)
            hi = mid;
        else if (c > r->last)
            lo = mid + 1;
        else
            return (r->stride == 1 || (c - r->first) % 2 == 0)
                       ? (uint16_t)(c + r->delta)
                       : c;
    }
    return c;
}

/* Next UTF-16 code unit of a UTF-8 string, for comparisons; invalid bytes
 * come through as themselves so that comparison stays total. */
static size_t next_unit(const char *s, size_t n, size_t i, uint16_t *u,
                        uint16_t *pending)
{
    if (*pending) {
        *u = *pending;
        *pending = 0;
        return i;
    }
    uint32_t cp;
    size_t k = rt_utf8_decode_one((const unsigned char *)s + i, n - i, &cp);
    if (!k) {
        *u = (unsigned char)s[i];
        return i + 1;
    }
    if (cp >= 0x10000) {
        *u = (uint16_t)(0xD800 + ((cp - 0x10000) >> 10));
        *pending = (uint16_t)(0xDC00 + ((cp - 0x10000) & 0x3FF));
    } else {
        *u = (uint16_t)cp;
    }
    return i + k;
}

uint64_t rt_utf8_casehash(const char *s, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ 0xcbf29ce484222325u;
    uint16_t pending = 0;
    for (size_t i = 0; i < n || pending;) {
        uint16_t u;
        i = next_unit(s, n, i, &u, &pending);
        u = rt_upcase16(u);
        h = (h ^ (u & 0xFF)) * 0x100000001b3u;
        h = (h ^ (u >> 8)) * 0x100000001b3u;
    }
    return h ^ h >> 29;
}

int rt_name_casecmp(const char *a, const char *b)
{
    return rt_utf8_casecmp(a, strlen(a), b, strlen(b));
}

int rt_utf8_casecmp(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j = 0;
    uint16_t pa = 0, pb = 0;
    /* ASCII first, a byte at a time (most counter names are ASCII; this
     * is the inner loop of every name lookup); the rest by code unit. */
    while (i < alen && j < blen) {
        unsigned char ca = (unsigned char)a[i], cb = (unsigned char)b[j];
        if ((ca | cb) & 0x80)
            break;
        if (ca != cb) {
            uint16_t ua = rt_upcase16(ca), ub = rt_upcase16(cb);
            if (ua != ub)
                return ua < ub ? -1 : 1;
        }
        i++;
        j++;
    }
    while ((i < alen || pa) && (j < blen || pb)) {
        uint16_t ua, ub;
        i = next_unit(a, alen, i, &ua, &pa);
        j = next_unit(b, blen, j, &ub, &pb);
        ua = rt_upcase16(ua);
        ub = rt_upcase16(ub);
        if (ua != ub)
            return ua < ub ? -1 : 1;
    }
    int a_more = i < alen || pa, b_more = j < blen || pb;
    return a_more - b_more;
}
