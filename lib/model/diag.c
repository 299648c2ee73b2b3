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

/* A copy of S in *COPY (NULL for NULL); 0, or -1 out of memory. */
static int dup_or_null(const char *s, char **copy)
{
    *copy = s ? strdup(s) : NULL;
    return s && !*copy ? -1 : 0;
}

void rt_diags_add(struct rt_diags *d, enum rt_severity sev, const char *file,
                  unsigned line, const char *symbol, const char *fmt, ...)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        struct rt_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v) {
            rt_diags_nomem(d);
            return;
        }
        d->v = v;
        d->cap = cap;
    }
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    char *file_copy = NULL, *symbol_copy = NULL;
    if (!msg || dup_or_null(file, &file_copy) ||
        dup_or_null(symbol, &symbol_copy)) {
        free(msg);
        free(file_copy);
        free(symbol_copy);
        rt_diags_nomem(d);
        return;
    }
    struct rt_diag *x = &d->v[d->n++];
    x->severity = sev;
    x->file = file_copy;
    x->line = line;
    x->symbol = symbol_copy;
    x->message = msg;
    if (sev == RT_ERROR)
        d->errors++;
    else
        d->warnings++;
}

char *rt_diag_format(const struct rt_diag *d)
{
    const char *sev = d->severity == RT_ERROR ? "error" : "warning";
    char *s = NULL;
    int r;
    if (d->file && d->line)
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
    /* Insertion sort: stable, and diagnostic lists are short. */
    for (size_t i = 1; i < d->n; i++) {
        struct rt_diag x = d->v[i];
        size_t j = i;
        while (j > 0 && cmp_diag(&d->v[j - 1], &x) > 0) {
            d->v[j] = d->v[j - 1];
            j--;
        }
        d->v[j] = x;
    }
}

void rt_diags_free(struct rt_diags *d)
{
    for (size_t i = 0; i < d->n; i++) {
        free(d->v[i].file);
        free(d->v[i].symbol);
        free(d->v[i].message);
    }
    free(d->v);
    memset(d, 0, sizeof *d);
}
