/* regtool names: list a language's table, or resolve indices and names. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] names [--lang L] [--help-text] [--json] "
    "[INDEX|NAME ...]\n"
    "\n"
    "Lists a language's Counter table, or resolves each INDEX to its text\n"
    "and each NAME (any case) to every index that has it. Exit 1 when an\n"
    "index or name asked for is not there.\n"
    "\n"
    "  --lang L     the language (009 by default; 804 and 0804 are one)\n"
    "  --help-text  the Help table instead of the Counter table\n"
    "  --json       [{\"index\":N,\"text\":S}]\n";

struct out {
    int json, first;
};

static void emit(struct out *o, uint32_t index, const char *text)
{
    if (o->json) {
        printf("%s{\"index\":%u,\"text\":", o->first ? "" : ",", index);
        rt_json_string(stdout, text);
        putchar('}');
    } else {
        printf("%u\t%s\n", index, rt_cli_shown(text));
    }
    o->first = 0;
}

/* Name lookups: the table's positions sorted by text as Windows compares
 * names (rt_utf8_casecmp), so each name costs a binary search. */
static const struct rt_pair_list *sort_list;

static int by_text(const void *a, const void *b)
{
    const struct rt_pair *x = &sort_list->v[*(const size_t *)a];
    const struct rt_pair *y = &sort_list->v[*(const size_t *)b];
    int c = rt_utf8_casecmp(x->text, x->text_len, y->text, y->text_len);
    if (c)
        return c;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* The first of the N sorted positions BY whose text is NAME's, any case;
 * *COUNT how many are. */
static size_t find_name(const struct rt_pair_list *t, const size_t *by,
                        const char *name, size_t *count)
{
    size_t len = strlen(name), lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rt_pair *p = &t->v[by[mid]];
        if (rt_utf8_casecmp(p->text, p->text_len, name, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < t->n &&
           !rt_utf8_casecmp(t->v[by[end]].text, t->v[by[end]].text_len, name,
                            len))
        end++;
    *count = end - lo;
    return lo;
}

static int is_index(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

int cmd_names(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"lang", required_argument, 0, 'l'},
        {"help-text", no_argument, 0, 't'},
        {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *lang = "009";
    int help = 0, c;
    struct out o = {0, 1};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': lang = optarg; break;
        case 't': help = 1; break;
        case 'j': o.json = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    int rc;
    struct rt_database db;
    /* One language's one table is read. */
    const struct rt_db_load_options load = {
        RT_DB_TABLES_ONE, lang, 1,
        1u << (help ? RT_TABLE_HELP : RT_TABLE_COUNTER), NULL};
    struct rt_store *s = rt_cli_open_database_with(&db, &load, &rc);
    if (!s)
        return rc;
    size_t *by = NULL;
    rc = RT_EXIT_OK;
    const struct rt_db_language *l = rt_database_language(&db, lang);
    if (!l) {
        rt_cli_error("language %s is not in the database", lang);
        rc = RT_EXIT_WARN;
        goto out;
    }
    if (l->damaged)
        fprintf(stderr,
                "regtool: warning: Perflib\\%s\\%s is damaged at byte %zu "
                "(%s); showing the pairs before the damage\n",
                l->id, l->damage_in_help ? "Help" : "Counter",
                l->damage.offset, rt_msz_strerror(l->damage.status));
    const struct rt_pair_list *t = help ? &l->table.help : &l->table.counter;
    if (o.json)
        putchar('[');
    if (optind == argc) {
        for (size_t i = 0; i < t->n; i++)
            emit(&o, t->v[i].index, t->v[i].text);
    } else {
        by = malloc((t->n ? t->n : 1) * sizeof *by);
        if (!by) {
            rt_cli_error("out of memory");
            rc = RT_EXIT_FAILURE;
            goto out;
        }
        for (size_t i = 0; i < t->n; i++)
            by[i] = i;
        sort_list = t;
        qsort(by, t->n, sizeof *by, by_text);
    }
    for (int a = optind; a < argc; a++) {
        if (is_index(argv[a])) {
            unsigned long idx = strtoul(argv[a], NULL, 10);
            const struct rt_pair *p =
                idx <= RT_INDEX_MAX ? rt_pair_list_find(t, (uint32_t)idx) : NULL;
            if (p) {
                emit(&o, p->index, p->text);
            } else {
                fprintf(stderr, "regtool: index %s not found in %s %s\n",
                        rt_cli_shown(argv[a]), rt_cli_shown(lang),
                        help ? "Help" : "Counter");
                rc = RT_EXIT_WARN;
            }
            continue;
        }
        size_t n, first = find_name(t, by, argv[a], &n);
        if (!n) {
            fprintf(stderr, "regtool: name '%s' not found in %s %s\n",
                    rt_cli_shown(argv[a]), rt_cli_shown(lang),
                    help ? "Help" : "Counter");
            rc = RT_EXIT_WARN;
            continue;
        }
        /* Equal names sort by position: table order, as listed. */
        for (size_t i = first; i < first + n; i++)
            emit(&o, t->v[by[i]].index, t->v[by[i]].text);
    }
    if (o.json)
        puts("]");
out:
    free(by);
    rt_database_free(&db);
    rt_op_close(s);
    return rc;
}
