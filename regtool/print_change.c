/* CLI: printing a change set (--dry-run shows exactly what would be
 * written). */
#include "regtool.h"

#include <stdlib.h>

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

static void print_pairs(FILE *f, char sign, const struct rt_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        fprintf(f, "      %c %u %s\n", sign, l->v[i].index, l->v[i].text);
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
