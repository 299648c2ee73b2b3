/* A change set as text for people: --dry-run shows exactly what would be
 * written, in the CLI and through the API's report lines alike, and the
 * strings it loses. Every
 * name, value and table text in it is escaped (model/printable.h): the
 * tree and the INI chose them, and one holding a newline or an ESC
 * sequence must neither forge a line nor act on the terminal. */
#include "ops/ops.h"

#include <stdlib.h>
#include <string.h>

#include "model/printable.h"
#include "model/strbuf.h"

static void print_value(struct rt_strbuf *f, const struct rt_value *v)
{
    uint32_t d;
    char *s = NULL;
    if (rt_value_to_string(v, &s) != 0) {
        f->failed = 1;  /* not "N bytes": the text would lie */
    } else if (rt_value_dword(v, &d) == 0) {
        free(s);
        rt_strbuf_printf(f, "%u (REG_DWORD)", d);
    } else if (s) {
        rt_strbuf_append(f, "\"", 1);
        rt_strbuf_append_printable(f, s);
        rt_strbuf_printf(f, "\" (%s)",
                v->type == RT_REG_EXPAND_SZ ? "REG_EXPAND_SZ" : "REG_SZ");
        free(s);
    } else {
        rt_strbuf_printf(f, "%zu bytes (type %u)", v->len, v->type);
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
static void print_pair(struct rt_strbuf *f, char sign, uint32_t index,
                       const char *raw)
{
    /* Folded as shown: an escape is as wide as its characters. */
    char *shown = rt_text_printable_dup(raw);
    if (!shown) {
        f->failed = 1;
        return;
    }
    const char *text = shown;
    size_t before = f->len;
    rt_strbuf_printf(f, "      %c %u ", sign, index);
    size_t col = f->len - before, start_col = col;
    const char *p = text;
    int first = 1;
    while (*p) {
        size_t sp = strspn(p, " ");
        const char *w = p + sp;
        size_t wl = strcspn(w, " ");
        size_t need = columns(p, sp) + columns(w, wl);
        if (!first && col + need > FOLD_WIDTH && wl) {
            rt_strbuf_printf(f, "\n%*s", (int)start_col, "");
            col = start_col;
            p = w;      /* the spaces at a fold are the line break */
            sp = 0;
            need = columns(w, wl);
        }
        rt_strbuf_append(f, p, sp + wl);
        col += need;
        p = w + wl;
        first = 0;
    }
    rt_strbuf_append(f, "\n", 1);
    free(shown);
}

static void print_pairs(struct rt_strbuf *f, char sign, const struct rt_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        print_pair(f, sign, l->v[i].index, l->v[i].text);
}

/* Text from the tree or the INI, escaped. */
static void put(struct rt_strbuf *f, const char *text)
{
    rt_strbuf_append_printable(f, text);
}

char *rt_op_change_set_text(const struct rt_change_set *cs)
{
    struct rt_strbuf buf = {0}, *f = &buf;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        switch (c->op) {
        case RT_CHANGE_CREATE_LANGUAGE:
            rt_strbuf_printf(f, "  create key Perflib\\");
            put(f, c->lang);
            rt_strbuf_append(f, "\n", 1);
            break;
        case RT_CHANGE_SET_TABLE:
            rt_strbuf_printf(f, "  Perflib\\");
            put(f, c->lang);
            rt_strbuf_printf(f, "\\%s: +%zu -%zu pairs (%zu bytes)\n",
                    c->table == RT_TABLE_HELP ? "Help" : "Counter",
                    c->added.n, c->removed.n, rt_change_table_len(c));
            print_pairs(f, '-', &c->removed);
            print_pairs(f, '+', &c->added);
            break;
        case RT_CHANGE_SET_PERFLIB:
            rt_strbuf_printf(f, "  Perflib: ");
            put(f, c->name);
            rt_strbuf_printf(f, " = ");
            print_value(f, &c->value);
            rt_strbuf_append(f, "\n", 1);
            break;
        case RT_CHANGE_CREATE_PERF_KEY:
            rt_strbuf_printf(f, "  create key Services\\");
            put(f, c->service);
            rt_strbuf_printf(f, "\\Performance\n");
            break;
        case RT_CHANGE_SET_SERVICE:
            rt_strbuf_printf(f, "  Services\\");
            put(f, c->service);
            rt_strbuf_printf(f, "\\Performance: ");
            put(f, c->name);
            rt_strbuf_printf(f, " = ");
            print_value(f, &c->value);
            rt_strbuf_append(f, "\n", 1);
            break;
        case RT_CHANGE_DELETE_SERVICE:
            rt_strbuf_printf(f, "  Services\\");
            put(f, c->service);
            rt_strbuf_printf(f, "\\Performance: delete ");
            put(f, c->name);
            rt_strbuf_append(f, "\n", 1);
            break;
        case RT_CHANGE_WRITE_FILE:
            rt_strbuf_printf(f, "  file ");
            put(f, c->name);
            rt_strbuf_printf(f, ": %zu bytes\n", c->value.len);
            break;
        case RT_CHANGE_DELETE_FILE:
            rt_strbuf_printf(f, "  file ");
            put(f, c->name);
            rt_strbuf_printf(f, ": removed\n");
            break;
        }
    }
    return rt_strbuf_take(f);
}

size_t rt_op_strings_lost(const struct rt_change_set *cs,
                          void (*each)(void *ctx, const char *lang,
                                       enum rt_table_kind table,
                                       uint32_t index, const char *text),
                          void *ctx)
{
    size_t n = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        unsigned char *is_lost;
        size_t k = rt_change_lost_marks(c, &is_lost);
        if (k == (size_t)-1)
            return k;
        for (size_t j = 0; each && is_lost && j < c->removed.n; j++)
            if (is_lost[j])
                each(ctx, c->lang, c->table, c->removed.v[j].index,
                     c->removed.v[j].text);
        free(is_lost);
        n += k;
    }
    return n;
}
