/* Diagnostics: errors and warnings collected in one pass, each naming the
 * file, line and symbol it is about, so a user sees every problem at once. */
#ifndef RT_DIAG_H
#define RT_DIAG_H

#include <stddef.h>

enum rt_severity { RT_WARNING, RT_ERROR };

struct rt_diag {
    enum rt_severity severity;
    char *file;      /* may be NULL */
    unsigned line;   /* 0 when not about a line */
    char *symbol;    /* may be NULL */
    char *message;
};

struct rt_diags {
    struct rt_diag *v;
    size_t n, cap;
    size_t errors, warnings;
};

/* Adds a diagnostic; FILE and SYMBOL may be NULL, LINE 0. Out of memory
 * aborts: a diagnostic lost would be a silent success. */
void rt_diags_add(struct rt_diags *d, enum rt_severity sev, const char *file,
                  unsigned line, const char *symbol, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* "FILE:LINE: error: MESSAGE" (file and line omitted when unknown), in a
 * new string. */
char *rt_diag_format(const struct rt_diag *d);

/* Stable-sorts by file, then line, keeping the order of equal lines. */
void rt_diags_sort(struct rt_diags *d);

void rt_diags_free(struct rt_diags *d);

#endif
