/* Model layer: growing strings. */
#include "model/strbuf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reserve(struct rt_strbuf *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1) {
        if (cap > (size_t)-1 / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *s = realloc(b->s, cap);
    if (!s) {
        b->failed = 1;
        return -1;
    }
    b->s = s;
    b->cap = cap;
    return 0;
}

void rt_strbuf_append(struct rt_strbuf *b, const void *s, size_t n)
{
    if (reserve(b, n) != 0)
        return;
    if (n)
        memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

void rt_strbuf_printf(struct rt_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *rt_strbuf_take(struct rt_strbuf *b)
{
    char *s = NULL;
    if (!b->failed) {
        s = b->s ? b->s : strdup("");
        b->s = NULL;
    }
    rt_strbuf_free(b);
    return s;
}

void rt_strbuf_free(struct rt_strbuf *b)
{
    free(b->s);
    memset(b, 0, sizeof *b);
}

void rt_strbuf_clear(struct rt_strbuf *b)
{
    b->len = 0;
    b->failed = 0;
    if (b->s)
        b->s[0] = '\0';
}

const char *rt_path_base_name(const char *path)
{
    const char *b = path;
    for (const char *s = path; *s; s++)
        if (*s == '\\' || *s == '/')
            b = s + 1;
    return b;
}
