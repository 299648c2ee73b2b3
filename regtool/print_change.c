/* CLI: printing a change set (--dry-run shows exactly what would be
 * written). */
#include "regtool.h"

#include <stdlib.h>
#include <string.h>

static void print_value(FILE *f, const struct rt_value *v)
{
    uint32_t d;
    char *s;
    if (rt_value_dword(v, &d) == 0) {
        fprintf(f, "%u (REG_DWORD)", d);
    } else if ((s = rt_value_string(v))) {
        fprintf(f, "\"%s\" (%s)", s,
                v->type == RT_REG_EXPAND_SZ ? "REG_EXPAND_SZ" : "REG_SZ");
        free(s);
    } else {
        fprintf(f, "%zu bytes (type %u)", v->len, v->type);
    }
}

/* Columns of UTF-8 text: one per character, as a terminal shows most. */
static size_t columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

/* "      + INDEX TEXT", TEXT folded at spaces to fit WIDTH columns, the
 * following lines indented under its first character. A word longer than
 * a line stays whole. */
#define FOLD_WIDTH 79
static void print_pair(FILE *f, char sign, uint32_t index, const char *text)
{
    int indent = fprintf(f, "      %c %u ", sign, index);
    size_t col = indent > 0 ? (size_t)indent : 0, start_col = col;
    const char *p = text;
    int first = 1;
    while (*p) {
        size_t sp = strspn(p, " ");
        const char *w = p + sp;
        size_t wl = strcspn(w, " ");
        size_t need = columns(p, sp) + columns(w, wl);
        if (!first && col + need > FOLD_WIDTH && wl) {
            fprintf(f, "\n%*s", (int)start_col, "");
            col = start_col;
            p = w;      /* the spaces at a fold are the line break */
            sp = 0;
            need = columns(w, wl);
        }
        fwrite(p, 1, sp + wl, f);
        col += need;
        p = w + wl;
        first = 0;
    }
    fputc('\n', f);
}

static void print_pairs(FILE *f, char sign, const struct rt_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        print_pair(f, sign, l->v[i].index, l->v[i].text);
}

void rt_cli_print_change_set(FILE *f, const struct rt_change_set *cs)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        switch (c->op) {
        case RT_CHANGE_CREATE_LANGUAGE:
            fprintf(f, "  create key Perflib\\%s\n", c->lang);
            break;
        case RT_CHANGE_SET_TABLE:
            fprintf(f, "  Perflib\\%s\\%s: +%zu -%zu pairs (%zu bytes)\n",
                    c->lang, c->table == RT_TABLE_HELP ? "Help" : "Counter",
                    c->added.n, c->removed.n, c->value.len);
            print_pairs(f, '-', &c->removed);
            print_pairs(f, '+', &c->added);
            break;
        case RT_CHANGE_SET_PERFLIB:
            fprintf(f, "  Perflib: %s = ", c->name);
            print_value(f, &c->value);
            fputc('\n', f);
            break;
        case RT_CHANGE_CREATE_PERF_KEY:
            fprintf(f, "  create key Services\\%s\\Performance\n", c->service);
            break;
        case RT_CHANGE_SET_SERVICE:
            fprintf(f, "  Services\\%s\\Performance: %s = ", c->service,
                    c->name);
            print_value(f, &c->value);
            fputc('\n', f);
            break;
        case RT_CHANGE_DELETE_SERVICE:
            fprintf(f, "  Services\\%s\\Performance: delete %s\n", c->service,
                    c->name);
            break;
        }
    }
}
