/* Diagnostics: errors and warnings collected in one pass, each naming the
 * file, line and symbol it is about, so a user sees every problem at once. */
#ifndef RT_DIAG_H
#define RT_DIAG_H

#include <stddef.h>
#include <stdint.h>

enum rt_severity { RT_WARNING, RT_ERROR };

struct rt_diag {
    enum rt_severity severity;
    const char *file;   /* may be NULL; held by the list, shared by its
                           diagnostics about one file */
    unsigned line;      /* 0 when not about a line */
    char *symbol;       /* may be NULL */
    char *message;      /* NULL for a count of those left out (MORE) */
    size_t more;        /* the count: diagnostics of one kind left out,
                           between lines LOW and HIGH; LINE is that of the
                           last one kept, which it follows */
    unsigned low, high;
    size_t kind;        /* private: of a count, its kind */
};

/* Of each kind (one call's format, severity and file) the first
 * RT_DIAGS_KEPT are kept; the rest are counted, in one more diagnostic
 * after them: an INI of a million keys that each draw a warning holds a
 * thousand, not a heap block or three for each. */
#define RT_DIAGS_KEPT 1000

struct rt_diags {
    struct rt_diag *v;
    size_t n, cap;
    size_t errors, warnings;    /* all of them, those left out too */
    /* Memory ran out collecting them or doing the work they are about:
     * counted once in ERRORS, so that a caller that checks ERRORS fails,
     * and the whole list is then no account of the input (the library is
     * loaded into installers: out of memory is an error, never abort). */
    int out_of_memory;
    /* Bytes of the files read for the work (an INI and its symbol file):
     * a caller that loads many counts them against a total. */
    uint64_t bytes_read;
    /* Private: the files named, each once, and the kinds seen. */
    char **files;
    size_t n_files;
    struct rt_diag_kind {
        const char *fmt, *file;
        enum rt_severity severity;
        size_t count;           /* diagnostics of it added */
        size_t more;            /* index in V of the count of the rest */
        unsigned last_line;     /* of the last one kept */
    } *kinds;
    size_t n_kinds;
};

/* Adds a diagnostic; FILE and SYMBOL may be NULL, LINE 0. When memory
 * runs out the diagnostic is lost and D says out of memory instead
 * (rt_diags_nomem): a diagnostic lost is never a silent success. */
void rt_diags_add(struct rt_diags *d, enum rt_severity sev, const char *file,
                  unsigned line, const char *symbol, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Records that memory ran out (D->out_of_memory, one error). */
void rt_diags_nomem(struct rt_diags *d);

/* "FILE:LINE: error: MESSAGE" (file and line omitted when unknown), in a
 * new string; NULL when memory runs out. A count of those left out says
 * "FILE:LINE: warning: ... and N more warnings like this, between lines
 * A and B (only the first 1000 of a kind are listed)". */
char *rt_diag_format(const struct rt_diag *d);

/* Stable-sorts by file, then line, keeping the order of equal lines. */
void rt_diags_sort(struct rt_diags *d);

void rt_diags_free(struct rt_diags *d);

#endif
