/* Model layer: Perflib language ids. */
#include "model/lang_id.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

int rt_lang_is_current(const char *s)
{
    return s && !strcasecmp(s, "CurrentLanguage");
}

int rt_lang_value(const char *s, unsigned *v)
{
    size_t n = s ? strlen(s) : 0;
    if (n != 3 && n != 4)
        return -1;
    unsigned x = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (!isxdigit(c))
            return -1;
        x = x * 16 + (unsigned)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *v = x;
    return 0;
}

int rt_lang_is_id(const char *s)
{
    unsigned v;
    return rt_lang_is_current(s) || rt_lang_value(s, &v) == 0;
}

int rt_lang_is_folder_id(const char *s, size_t len)
{
    if (len != 4)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789abcdefABCDEF", s[i]) || !s[i])
            return 0;
    return 1;
}

int rt_lang_same(const char *a, const char *b)
{
    unsigned va, vb;
    if (rt_lang_is_current(a) || rt_lang_is_current(b))
        return rt_lang_is_current(a) && rt_lang_is_current(b);
    return rt_lang_value(a, &va) == 0 && rt_lang_value(b, &vb) == 0 &&
           va == vb;
}

int rt_lang_key(const char *s, uint32_t *key)
{
    unsigned v;
    if (rt_lang_is_current(s))
        *key = UINT32_MAX;
    else if (rt_lang_value(s, &v) == 0)
        *key = v;
    else
        return 0;
    return 1;
}

int rt_lang_pos_cmp(const void *a, const void *b)
{
    const struct rt_lang_pos *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

size_t rt_lang_pos_find(const struct rt_lang_pos *v, size_t n, uint32_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo].key == key ? lo : n;
}
