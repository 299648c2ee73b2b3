/* INI layer: the lodctr symbol file, a C header of "#define NAME value"
 * lines giving each object and counter its offset.
 *
 * Only what the C preprocessor would make of object-like #defines is read:
 * values in decimal, octal or hex (with U/L suffixes), in parentheses,
 * names of other #defines (aliases, resolved through chains, cycles
 * detected), '+' and '-', and one ';' at the end (.NET writes
 * "#define OBJECT_1 0;", which lodctr accepts). Comments (also
 * multi-line), include guards and every other line are skipped. A
 * #define whose value is not a number is not an error in itself: it
 * becomes one only when the INI uses it, since headers often hold
 * unrelated macros. */
#ifndef RT_SYMBOL_FILE_H
#define RT_SYMBOL_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/diag.h"
#include "provider/pos_index.h"

struct rt_symbol_def {
    char *name;
    char *expr;         /* the value as written, comments removed; "" for
                           a #define without value (an include guard);
                           it lies in NAME's allocation, after its NUL */
    long long value;
    size_t ref;         /* private: with WHY, where the trouble is: the
                           definition it starts at, the cycle, or the
                           undefined name's offset in EXPR */
    size_t fold_count;  /* private: on the first of names equal but for
                           ASCII case, how many there are */
    unsigned line;      /* of the #define */
    unsigned problem_line;  /* when !ok: where its problem is reported
                               (rt_symbol_problem says what it is) */
    bool ok;            /* VALUE holds the resolved number */
    unsigned char why;  /* private: when !ok, what kind of trouble */
};

/* A cycle of aliases, described once for all its members (private). */
struct rt_symbol_cycle {
    size_t first;       /* the definition the walk met it by */
    size_t n;           /* names on it */
    char *chain;        /* "alias cycle A -> B -> A" (a few names) */
};

struct rt_symbol_table {
    char *path;
    struct rt_symbol_def *v;    /* in file order, one per name */
    size_t n;
    size_t cap;                 /* private: allocated entries of V */
    struct rt_pos_index exact;  /* private: V by name */
    struct rt_pos_index folded; /* private: V by name, any case; only the
                                   first of names equal but for case */
    struct rt_symbol_cycle *cycles;     /* private */
    size_t n_cycles;
};

/* Parses LEN bytes of a symbol file (ASCII-compatible, or UTF-16LE with a
 * byte-order mark or without one as rt_text_sniff tells; a DOS end-of-file
 * mark at the end is dropped). Errors that make the whole file unreadable
 * (a comment never closed, a NUL byte, bad UTF-16, an encoding that cannot
 * be told) are added to D, naming PATH and the line, and make it return
 * -1; otherwise it returns 0. */
int rt_symbol_file_parse(const char *path, const void *data, size_t len,
                         struct rt_symbol_table *t, struct rt_diags *d);

/* Reads PATH (beneath its folder: a link as its name is refused) and
 * parses it. Returns 0, -1 on errors in D. */
int rt_symbol_file_load(const char *path, struct rt_symbol_table *t,
                        struct rt_diags *d);
/* The same, giving the file's bytes as read (a new buffer) to *RAW and
 * *RAW_LEN when it returns 0. */
int rt_symbol_file_load_kept(const char *path, struct rt_symbol_table *t,
                             uint8_t **raw, size_t *raw_len,
                             struct rt_diags *d);

/* The definition of NAME: an exact match, else the only one equal but for
 * ASCII case (lodctr compares symbol names case-insensitively). NULL when
 * there is none. */
const struct rt_symbol_def *rt_symbol_find(const struct rt_symbol_table *t,
                                           const char *name);

/* Why DEF, of T, has no value (!DEF->ok), as a complete message naming
 * it, to report at DEF->problem_line: a new string, NULL when memory runs
 * out. It is made when asked for, not kept for every definition: a
 * header of many broken or cyclic definitions the INI never names would
 * hold a message for each. */
char *rt_symbol_problem(const struct rt_symbol_table *t,
                        const struct rt_symbol_def *def);

void rt_symbol_table_free(struct rt_symbol_table *t);

#endif
