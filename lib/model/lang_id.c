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

int rt_lang_same(const char *a, const char *b)
{
    unsigned va, vb;
    if (rt_lang_is_current(a) || rt_lang_is_current(b))
        return rt_lang_is_current(a) && rt_lang_is_current(b);
    return rt_lang_value(a, &va) == 0 && rt_lang_value(b, &vb) == 0 &&
           va == vb;
}
