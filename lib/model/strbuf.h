/* Model layer: a growing string for text built piece by piece (dumps,
 * lists of indices), the same on every platform (open_memstream is not). */
#ifndef RT_STRBUF_H
#define RT_STRBUF_H

#include <stddef.h>

struct rt_strbuf {
    char *s;        /* NUL-terminated once anything was added */
    size_t len, cap;
    int failed;     /* an allocation failed: the text is incomplete */
};

/* Appends printf-style text; on failure sets FAILED and keeps the rest. */
void rt_strbuf_printf(struct rt_strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends N bytes of S (text or not: the buffer counts bytes). */
void rt_strbuf_append(struct rt_strbuf *b, const void *s, size_t n);
/* The text as a new string ("" when empty) that the caller frees, or NULL
 * when an allocation failed; B is empty afterwards. */
char *rt_strbuf_take(struct rt_strbuf *b);
void rt_strbuf_free(struct rt_strbuf *b);
/* Empties B for more text, keeping its buffer (and forgetting a failed
 * allocation): a parser that builds hundreds of thousands of strings in
 * one allocates it once. */
void rt_strbuf_clear(struct rt_strbuf *b);

/* The last component of PATH, after its last '/' or '\\' (Windows and
 * POSIX separators alike: paths here come from both); PATH itself when
 * it has neither. */
const char *rt_path_base_name(const char *path);

#endif
