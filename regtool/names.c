/* regtool names: list a language's table, resolve indices and names, or
 * list a provider's counters (names_provider.c). */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] names [--lang L] [--help-text] [--json] "
    "[INDEX|NAME ...]\n"
    "       regtool [--store SPEC] names --provider DRIVER [--lang L] "
    "[--json]\n"
    "\n"
    "Lists a language's Counter table, or resolves each INDEX to its text\n"
    "and each NAME to every index that has it, in any case and with any\n"
    "trailing blanks; a name found only so is said on stderr (a lookup\n"
    "that compares texts as they are misses it). Exit 1 when an index or\n"
    "name asked for is not there.\n"
    "With --provider, DRIVER's range and each counter of it the language\n"
    "has: index, name and help text (at index + 1); indices of the range\n"
    "without a name are counted on stderr. Exit 1 when DRIVER has no\n"
    "Performance key or no range.\n"
    "\n"
    "  --lang L       the language (009 by default; 804 and 0804 are one)\n"
    "  --help-text    the Help table instead of the Counter table\n"
    "  --provider D   the counters of the provider (service) D\n"
    "  --json         [{\"index\":N,\"text\":S}], with \"match\" (\"exact\",\n"
    "                 \"case\", \"trailing-blanks\") for a NAME's; with\n"
    "                 --provider {\"provider\",\"language\",\"first_counter\",\n"
    "                 \"last_counter\",\"first_help\",\"last_help\",\n"
    "                 \"counters\":[{\"index\",\"name\",\"help\"}],\n"
    "                 \"missing\":[{\"first\",\"last\"}],\"missing_count\"}\n";

struct out {
    int json, first;
};

/* One pair; MATCH is a NAME's match kind, NULL for an index or listing. */
static void emit(struct out *o, uint32_t index, const char *text,
                 const char *match)
{
    if (o->json) {
        printf("%s{\"index\":%u,\"text\":", o->first ? "" : ",", index);
        rt_json_string(stdout, text);
        if (match)
            printf(",\"match\":\"%s\"", match);
        putchar('}');
    } else {
        printf("%u\t%s\n", index, rt_cli_shown(text));
    }
    o->first = 0;
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

/* NAME's matches, slots FIRST..FIRST+N of X, in table order (equal texts
 * sort by position). When none is exact, each is said on stderr with
 * how it differs: the exact lookup a script or a consumer makes fails. */
static void emit_name(struct out *o, const struct rt_name_index *x,
                      size_t first, size_t n, const char *name)
{
    size_t len = strlen(name);
    int exact = 0;
    for (size_t i = first; i < first + n; i++) {
        const struct rt_pair *p = &x->list->v[x->by[i]];
        enum rt_name_match m = rt_name_match(p->text, p->text_len, name, len);
        exact |= m == RT_NAME_MATCH_EXACT;
        emit(o, p->index, p->text, rt_name_match_word(m));
    }
    for (size_t i = first; !exact && i < first + n; i++) {
        const struct rt_pair *p = &x->list->v[x->by[i]];
        enum rt_name_match m = rt_name_match(p->text, p->text_len, name, len);
        rt_cli_error("names: '%s' matches '%s' (index %u) only %s", name,
                     p->text, p->index,
                     m == RT_NAME_MATCH_CASE     ? "in another case"
                     : m == RT_NAME_MATCH_BLANKS ? "with trailing blanks"
                                                 : "with trailing blanks and "
                                                   "in another case");
    }
}

/* Resolves ARGV[0..ARGC) in T (LANG's, the Help table when HELP). */
static int lookup(struct out *o, const struct rt_pair_list *t,
                  const char *lang, int help, int argc, char **argv)
{
    struct rt_name_index x = {0};
    struct rt_error e = {0};
    int rc = RT_EXIT_OK;
    if (rt_op_name_index(&x, t, &e) != 0) {
        rt_cli_error("%s", e.message);
        return RT_EXIT_FAILURE;
    }
    for (int a = 0; a < argc; a++) {
        int found;
        if (is_index(argv[a])) {
            unsigned long idx = strtoul(argv[a], NULL, 10);
            const struct rt_pair *p =
                idx <= RT_INDEX_MAX ? rt_pair_list_find(t, (uint32_t)idx) : NULL;
            if ((found = p != NULL))
                emit(o, p->index, p->text, NULL);
        } else {
            size_t n, first = rt_name_index_find(&x, argv[a], &n);
            if ((found = n != 0))
                emit_name(o, &x, first, n, argv[a]);
        }
        if (!found) {
            fprintf(stderr,
                    is_index(argv[a]) ? "regtool: index %s"
                                      : "regtool: name '%s'",
                    rt_cli_shown(argv[a]));
            fprintf(stderr, " not found in %s %s\n", rt_cli_shown(lang),
                    help ? "Help" : "Counter");
            rc = RT_EXIT_WARN;
        }
    }
    rt_name_index_free(&x);
    return rc;
}

int cmd_names(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"lang", required_argument, 0, 'l'},
        {"help-text", no_argument, 0, 't'},
        {"provider", required_argument, 0, 'p'},
        {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *lang = "009", *provider = NULL;
    int help = 0, c;
    struct out o = {0, 1};
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': lang = optarg; break;
        case 't': help = 1; break;
        case 'p': provider = optarg; break;
        case 'j': o.json = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (provider && (help || optind < argc)) {
        rt_cli_error("names --provider takes neither --help-text nor "
                     "INDEX or NAME arguments");
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int rc;
    struct rt_database db;
    /* One language's one table is read; both for a provider's counters. */
    const struct rt_db_load_options load = {
        RT_DB_TABLES_ONE, lang, 1,
        provider ? 0u : 1u << (help ? RT_TABLE_HELP : RT_TABLE_COUNTER),
        NULL};
    struct rt_store *s = rt_cli_open_database_with(&db, &load, &rc);
    if (!s)
        return rc;
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
    if (provider) {
        rc = rt_cli_names_provider(&db, l, provider, o.json);
        goto out;
    }
    const struct rt_pair_list *t = help ? &l->table.help : &l->table.counter;
    if (o.json)
        putchar('[');
    if (optind == argc)
        for (size_t i = 0; i < t->n; i++)
            emit(&o, t->v[i].index, t->v[i].text, NULL);
    else
        rc = lookup(&o, t, lang, help, argc - optind, argv + optind);
    if (o.json)
        puts("]");
out:
    rt_database_free(&db);
    rt_op_close(s);
    return rc;
}
