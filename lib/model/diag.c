/* Diagnostics collection and formatting. */
#include "model/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rt_diags_nomem(struct rt_diags *d)
{
    if (!d->out_of_memory)
        d->errors++;
    d->out_of_memory = 1;
}

/* FILE as D holds it, in *HELD (NULL for NULL): each name is copied once,
 * not once a diagnostic. 0, or -1 out of memory. */
static int held_file(struct rt_diags *d, const char *file, const char **held)
{
    *held = NULL;
    if (!file)
        return 0;
    /* Most recent first: a file's diagnostics come together. */
    for (size_t i = d->n_files; i-- > 0;)
        if (!strcmp(d->files[i], file)) {
            *held = d->files[i];
            return 0;
        }
    char **v = realloc(d->files, (d->n_files + 1) * sizeof *v);
    if (!v)
        return -1;
    d->files = v;
    if (!(v[d->n_files] = strdup(file)))
        return -1;
    *held = v[d->n_files++];
    return 0;
}

/* The kind of a diagnostic: its format, file and severity; NULL out of
 * memory. */
static struct rt_diag_kind *kind_of(struct rt_diags *d, const char *fmt,
                                    const char *file, enum rt_severity sev)
{
    for (size_t i = d->n_kinds; i-- > 0;) {
        struct rt_diag_kind *k = &d->kinds[i];
        if (k->fmt == fmt && k->file == file && k->severity == sev)
            return k;
    }
    struct rt_diag_kind *v = realloc(d->kinds, (d->n_kinds + 1) * sizeof *v);
    if (!v)
        return NULL;
    d->kinds = v;
    struct rt_diag_kind *k = &v[d->n_kinds++];
    *k = (struct rt_diag_kind){.fmt = fmt, .file = file, .severity = sev,
                               .more = SIZE_MAX};
    return k;
}

/* A new entry at the end of D->v, zeroed; NULL out of memory. */
static struct rt_diag *new_entry(struct rt_diags *d)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        struct rt_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return NULL;
        d->v = v;
        d->cap = cap;
    }
    struct rt_diag *x = &d->v[d->n++];
    memset(x, 0, sizeof *x);
    return x;
}

/* Counts a diagnostic of kind K past the first RT_DIAGS_KEPT, at LINE,
 * in the entry that follows them; 0, or -1 out of memory. */
static int count_more(struct rt_diags *d, struct rt_diag_kind *k,
                      unsigned line)
{
    if (k->more == SIZE_MAX) {
        struct rt_diag *x = new_entry(d);
        if (!x)
            return -1;
        x->severity = k->severity;
        x->file = k->file;
        x->line = k->last_line;     /* after the last one kept */
        x->low = x->high = line;
        x->kind = (size_t)(k - d->kinds);
        k->more = d->n - 1;
    }
    struct rt_diag *x = &d->v[k->more];
    x->more++;
    if (line < x->low)
        x->low = line;
    if (line > x->high)
        x->high = line;
    return 0;
}

void rt_diags_add(struct rt_diags *d, enum rt_severity sev, const char *file,
                  unsigned line, const char *symbol, const char *fmt, ...)
{
    const char *held;
    struct rt_diag_kind *k = NULL;
    if (held_file(d, file, &held) || !(k = kind_of(d, fmt, held, sev))) {
        rt_diags_nomem(d);
        return;
    }
    if (k->count >= RT_DIAGS_KEPT) {
        if (count_more(d, k, line)) {
            rt_diags_nomem(d);
            return;
        }
    } else {
        va_list ap;
        va_start(ap, fmt);
        char *msg = NULL;
        if (vasprintf(&msg, fmt, ap) < 0)
            msg = NULL;
        va_end(ap);
        char *symbol_copy = symbol ? strdup(symbol) : NULL;
        struct rt_diag *x = NULL;
        if (!msg || (symbol && !symbol_copy) || !(x = new_entry(d))) {
            free(msg);
            free(symbol_copy);
            rt_diags_nomem(d);
            return;
        }
        x->severity = sev;
        x->file = held;
        x->line = line;
        x->symbol = symbol_copy;
        x->message = msg;
        k->last_line = line;
    }
    k->count++;
    if (sev == RT_ERROR)
        d->errors++;
    else
        d->warnings++;
}

/* The text of a count of those left out, in *S: -1 out of memory. */
static int format_more(const struct rt_diag *d, char **s)
{
    const char *sev = d->severity == RT_ERROR ? "error" : "warning";
    char where[64] = "";
    if (d->low && d->low == d->high)
        snprintf(where, sizeof where, ", at line %u", d->low);
    else if (d->high)
        snprintf(where, sizeof where, ", between lines %u and %u", d->low,
                 d->high);
    char at[32] = "";
    if (d->file && d->line)
        snprintf(at, sizeof at, ":%u", d->line);
    return asprintf(s, "%s%s%s%s: ... and %zu more %s%s like this%s (only "
                    "the first %d of a kind are listed)",
                    d->file ? d->file : "", at, d->file ? ": " : "", sev,
                    d->more, sev, d->more == 1 ? "" : "s", where,
                    RT_DIAGS_KEPT);
}

char *rt_diag_format(const struct rt_diag *d)
{
    const char *sev = d->severity == RT_ERROR ? "error" : "warning";
    char *s = NULL;
    int r;
    if (!d->message)
        r = format_more(d, &s);
    else if (d->file && d->line)
        r = asprintf(&s, "%s:%u: %s: %s", d->file, d->line, sev, d->message);
    else if (d->file)
        r = asprintf(&s, "%s: %s: %s", d->file, sev, d->message);
    else
        r = asprintf(&s, "%s: %s", sev, d->message);
    return r < 0 ? NULL : s;
}

static int cmp_diag(const void *pa, const void *pb)
{
    const struct rt_diag *a = pa, *b = pb;
    int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return 0;
}

void rt_diags_sort(struct rt_diags *d)
{
    /* A merge sort: stable, and O(n log n) however the list came (an
     * insertion sort took n^2 moves for a symbol file's thousands of
     * diagnostics made before its INI's, sorting after them). */
    struct rt_diag *tmp = d->n > 1 ? malloc(d->n * sizeof *tmp) : NULL;
    if (d->n > 1 && !tmp) {
        rt_diags_nomem(d);
        return;
    }
    struct rt_diag *from = d->v, *to = tmp;
    for (size_t width = 1; width < d->n; width *= 2) {
        for (size_t lo = 0; lo < d->n; lo += 2 * width) {
            size_t mid = lo + width < d->n ? lo + width : d->n;
            size_t hi = mid + width < d->n ? mid + width : d->n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi)
                to[o++] = cmp_diag(&from[b], &from[a]) < 0 ? from[b++]
                                                           : from[a++];
            while (a < mid)
                to[o++] = from[a++];
            while (b < hi)
                to[o++] = from[b++];
        }
        struct rt_diag *t = from;
        from = to;
        to = t;
    }
    if (from != d->v)
        memcpy(d->v, from, d->n * sizeof *d->v);
    free(tmp);
    for (size_t i = 0; i < d->n; i++)       /* the counts have moved */
        if (!d->v[i].message)
            d->kinds[d->v[i].kind].more = i;
}

void rt_diags_free(struct rt_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].symbol);
        free(d->v[i].message);
    }
    for (size_t i = 0; i < d->n_files; i++)
        free(d->files[i]);
    free(d->files);
    free(d->kinds);
    free(d->v);
    memset(d, 0, sizeof *d);
}
