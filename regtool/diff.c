/* regtool diff: what differs between two name databases. Read-only. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "Usage: regtool diff [--json] [--pairs] A B\n"
    "       regtool --store A diff [--json] [--pairs] B\n"
    "\n"
    "Compares the name databases of two stores (hive:DIR, hive:SOFTWARE,SYSTEM,\n"
    "psb:FILE, reg:FILE, live): Perflib's values (Last Counter, Last Help,\n"
    "Base Index, Disable Performance Counters; Version where both have it);\n"
    "the providers (services with a range) in one only, with other ranges or\n"
    "another Disable Performance Counters; languages in one only; and, per\n"
    "language in both, the Counter and Help pairs only in A, only in B, or at\n"
    "the same index with other text. Differing pairs are counted by group:\n"
    "language, part (base: at or below Base Index, Windows' own; extensible:\n"
    "above it) and the providers whose ranges hold their index in A and in B.\n"
    "A summary comes first, then the details; the pairs themselves only with\n"
    "--pairs. Writes nothing.\n"
    "\n"
    "  --pairs  list every differing pair under its group\n"
    "  --json   {\"a\",\"b\",\"same\",\"summary\",\"perflib\",\"languages\",\n"
    "           \"providers\",\"groups\":[{\"language\",\"part\",\"provider_a\",\n"
    "           \"provider_b\",...}]} (each group's \"pairs\" with --pairs)\n"
    "\n"
    "Exit status: 0 the same; 1 different; 2 a store's database is invalid;\n"
    "3 I/O failure; 4 a store that does not exist; 64 bad command line.\n";

static const char *const class_key[RT_DIFF_CLASSES] = {"only_a", "only_b",
                                                       "other_text"};
static const char *const kind_name[2] = {"Counter", "Help"};

/* "F-L" of a service's counters and its help, in BUF. */
static const char *range_text(const struct rt_service_info *si, char *buf,
                              size_t size)
{
    if (!si || !si->has_range) {
        snprintf(buf, size, "no range");
        return buf;
    }
    char lc[16] = "?", fh[16] = "?", lh[16] = "?";
    if (si->has_last_counter)
        snprintf(lc, sizeof lc, "%u", si->last_counter);
    if (si->has_first_help)
        snprintf(fh, sizeof fh, "%u", si->first_help);
    if (si->has_last_help)
        snprintf(lh, sizeof lh, "%u", si->last_help);
    snprintf(buf, size, "%u-%s, help %s-%s", si->first_counter, lc, fh, lh);
    return buf;
}

static const char *owner_name(const struct rt_diff *d, uint32_t owner)
{
    return owner == RT_DIFF_NO_PROVIDER ? NULL : d->owners[owner].name;
}

static size_t sum_pairs(const size_t n[RT_DIFF_CLASSES][2])
{
    size_t t = 0;
    for (int c = 0; c < RT_DIFF_CLASSES; c++)
        t += n[c][0] + n[c][1];
    return t;
}

/* Up to 8 names of the providers whose WHAT has BIT, after LABEL. */
static void summary_providers(const struct rt_diff *d, unsigned bit,
                              const char *label)
{
    size_t n = 0;
    for (size_t i = 0; i < d->n_providers; i++) {
        if (!(d->providers[i].what & bit))
            continue;
        if (n < 8)
            printf("%s %s", n ? "," : label, rt_cli_shown(d->providers[i].name));
        n++;
    }
    if (n > 8)
        printf(" and %zu more", n - 8);
    if (n)
        putchar('\n');
}

/* The pairs' line of the summary: how many in each part, and the
 * providers whose ranges (A's or B's) hold them, with how many each. */
static void summary_pairs(const struct rt_diff *d)
{
    size_t base = 0, ext = 0, none = 0, shown = 0, owners = 0;
    size_t *per = calloc(d->n_owners ? d->n_owners : 1, sizeof *per);
    for (size_t i = 0; i < d->n_groups; i++) {
        const struct rt_diff_group *g = &d->groups[i];
        if (g->base)
            base += g->n_pairs;
        else if (g->owner_a == RT_DIFF_NO_PROVIDER &&
                 g->owner_b == RT_DIFF_NO_PROVIDER)
            none += g->n_pairs;
        else
            ext += g->n_pairs;
        if (per && g->owner_a != RT_DIFF_NO_PROVIDER)
            per[g->owner_a] += g->n_pairs;
        if (per && g->owner_b != RT_DIFF_NO_PROVIDER &&
            g->owner_b != g->owner_a)
            per[g->owner_b] += g->n_pairs;
    }
    printf("  pairs: %zu in the base part (1-%u), %zu in the extensible part "
           "in providers' ranges, %zu in no provider's range\n",
           base, d->base_index, ext, none);
    for (size_t i = 0; per && i < d->n_owners; i++) {
        if (!per[i])
            continue;
        if (shown < 8)
            printf("%s %s (%zu)", shown ? "," : "  pairs differ in the ranges of:",
                   rt_cli_shown(d->owners[i].name), per[i]);
        shown += shown < 8;
        owners++;
    }
    if (owners > shown)
        printf(" and %zu more", owners - shown);
    if (owners)
        putchar('\n');
    free(per);
}

static void print_summary(const struct rt_diff *d)
{
    size_t alone = rt_diff_languages_alone(d);
    if (rt_diff_same(d)) {
        puts("same: no difference in Perflib's values, the providers or "
             "the tables");
        return;
    }
    printf("different: %zu Perflib value%s, %zu language%s in one only, "
           "%zu provider%s, %zu pair%s in %zu group%s\n",
           d->n_values, d->n_values == 1 ? "" : "s", alone,
           alone == 1 ? "" : "s", d->n_providers,
           d->n_providers == 1 ? "" : "s", d->n_pairs,
           d->n_pairs == 1 ? "" : "s", d->n_groups,
           d->n_groups == 1 ? "" : "s");
    summary_providers(d, RT_DIFF_PROV_ONLY_A, "  providers only in A:");
    summary_providers(d, RT_DIFF_PROV_ONLY_B, "  providers only in B:");
    summary_providers(d, RT_DIFF_PROV_RANGE, "  providers with other ranges:");
    summary_providers(d, RT_DIFF_PROV_DISABLE,
                      "  providers with another Disable Performance Counters:");
    if (d->n_pairs)
        summary_pairs(d);
}

static void print_value(const char *side, int has, uint32_t v)
{
    if (has)
        printf("  %s %-10u", side, v);
    else
        printf("  %s %-10s", side, "(absent)");
}

static void print_details(const struct rt_diff *d)
{
    char ra[64], rb[64];
    if (d->n_values)
        puts("\nPerflib:");
    for (size_t i = 0; i < d->n_values; i++) {
        const struct rt_diff_value *v = &d->values[i];
        printf("  %-30s", v->name);
        print_value("A", v->has_a, v->a);
        print_value("B", v->has_b, v->b);
        putchar('\n');
    }
    int head = 0;
    for (size_t i = 0; i < d->n_langs; i++) {
        const struct rt_diff_language *l = &d->langs[i];
        const struct rt_db_language *one = l->a ? l->a : l->b;
        if (l->a && l->b && !sum_pairs(l->n))
            continue;
        if (!head++)
            puts("\nLanguages (pairs: Counter, Help):");
        if (!l->a || !l->b)
            printf("  %-16s only in %s: %zu, %zu\n", rt_cli_shown(l->id),
                   l->a ? "A" : "B", one->table.counter.n,
                   one->table.help.n);
        else
            printf("  %-16s %zu, %zu in A; %zu, %zu in B; %zu differ\n",
                   rt_cli_shown(l->id), l->a->table.counter.n,
                   l->a->table.help.n, l->b->table.counter.n,
                   l->b->table.help.n, sum_pairs(l->n));
    }
    if (d->n_providers)
        puts("\nProviders:");
    for (size_t i = 0; i < d->n_providers; i++) {
        const struct rt_diff_provider *p = &d->providers[i];
        printf("  %s:", rt_cli_shown(p->name));
        if (p->what & (RT_DIFF_PROV_ONLY_A | RT_DIFF_PROV_ONLY_B))
            printf(" only in %s (%s)", p->what & RT_DIFF_PROV_ONLY_A ? "A" : "B",
                   range_text(p->what & RT_DIFF_PROV_ONLY_A ? p->a : p->b, ra,
                              sizeof ra));
        if (p->what & RT_DIFF_PROV_RANGE)
            printf(" range A %s, B %s", range_text(p->a, ra, sizeof ra),
                   range_text(p->b, rb, sizeof rb));
        if (p->what & RT_DIFF_PROV_DISABLE) {
            printf(" Disable Performance Counters A ");
            p->a->has_disable ? printf("%u", p->a->disable)
                              : printf("(absent)");
            printf(", B ");
            p->b->has_disable ? printf("%u", p->b->disable)
                              : printf("(absent)");
        }
        putchar('\n');
    }
}

static void print_text_pair(const struct rt_diff *d,
                            const struct rt_diff_pair *p)
{
    const struct rt_pair *a = rt_op_diff_text(d, p, 0);
    const struct rt_pair *b = rt_op_diff_text(d, p, 1);
    printf("    %-7s %-10u ", kind_name[p->kind], p->index);
    if (p->cls == RT_DIFF_ONLY_A) {
        printf("only in A: ");
        rt_cli_put_shown(stdout, a->text);
    } else if (p->cls == RT_DIFF_ONLY_B) {
        printf("only in B: ");
        rt_cli_put_shown(stdout, b->text);
    } else {
        printf("A: ");
        rt_cli_put_shown(stdout, a->text);
        printf("\n    %-18s B: ", "");
        rt_cli_put_shown(stdout, b->text);
    }
    putchar('\n');
}

/* "LO-HI": the span of SI's counter and help indices. */
static const char *span_text(const struct rt_service_info *si, char *buf,
                             size_t size)
{
    uint32_t lo = si->first_counter, hi = si->first_counter;
    if (si->has_last_counter && si->last_counter > hi)
        hi = si->last_counter;
    if (si->has_first_help && si->first_help < lo)
        lo = si->first_help;
    if (si->has_last_help && si->last_help > hi)
        hi = si->last_help;
    snprintf(buf, size, "%u-%u", lo, hi);
    return buf;
}

/* Who a group's indices belong to: one provider (its span in A and B
 * when they differ), A's and B's when not the same, or none. */
static void print_owners(const struct rt_diff *d, const struct rt_diff_group *g)
{
    char x[32], y[32];
    if (g->owner_a == RT_DIFF_NO_PROVIDER && g->owner_b == RT_DIFF_NO_PROVIDER) {
        printf("%s", g->base ? "(Windows' own)" : "(no provider's range)");
        return;
    }
    if (g->owner_a == g->owner_b) {
        const struct rt_diff_owner *o = &d->owners[g->owner_a];
        printf("%s (", rt_cli_shown(o->name));
        if (o->a && o->b &&
            strcmp(span_text(o->a, x, sizeof x), span_text(o->b, y, sizeof y)))
            printf("A %s, B %s)", x, y);
        else
            printf("%s)", span_text(o->a ? o->a : o->b, x, sizeof x));
        return;
    }
    for (int s = 0; s < 2; s++) {
        uint32_t id = s ? g->owner_b : g->owner_a;
        printf("%s%s ", s ? " / " : "", s ? "B" : "A");
        if (id == RT_DIFF_NO_PROVIDER) {
            printf("none");
            continue;
        }
        const struct rt_diff_owner *o = &d->owners[id];
        printf("%s (%s)", rt_cli_shown(o->name),
               span_text(s ? o->b : o->a, x, sizeof x));
    }
}

static void print_groups(const struct rt_diff *d, int pairs)
{
    if (d->n_groups)
        puts("\nPairs by group (only in A/only in B/other text):");
    for (size_t i = 0; i < d->n_groups; i++) {
        const struct rt_diff_group *g = &d->groups[i];
        printf("  %s %s ", rt_cli_shown(d->langs[g->lang].id),
               g->base ? "base" : "extensible");
        print_owners(d, g);
        printf(": Counter %zu/%zu/%zu, Help %zu/%zu/%zu; indices %u-%u\n",
               g->n[0][0], g->n[1][0], g->n[2][0], g->n[0][1], g->n[1][1],
               g->n[2][1], g->lowest, g->highest);
        for (size_t k = 0; pairs && k < g->n_pairs; k++)
            print_text_pair(d, &d->pairs[g->first + k]);
    }
}

/* {"counter":N,"help":N} */
static void json_counts(const size_t n[2])
{
    printf("{\"counter\":%zu,\"help\":%zu}", n[0], n[1]);
}

static void json_classes(const size_t n[RT_DIFF_CLASSES][2])
{
    for (int c = 0; c < RT_DIFF_CLASSES; c++) {
        printf(",\"%s\":", class_key[c]);
        json_counts(n[c]);
    }
}

static void json_service(const struct rt_service_info *si)
{
    if (!si) {
        fputs("null", stdout);
        return;
    }
    printf("{\"first_counter\":");
    rt_json_u32_or_null(stdout, si->has_range, si->first_counter);
    printf(",\"last_counter\":");
    rt_json_u32_or_null(stdout, si->has_range && si->has_last_counter, si->last_counter);
    printf(",\"first_help\":");
    rt_json_u32_or_null(stdout, si->has_range && si->has_first_help, si->first_help);
    printf(",\"last_help\":");
    rt_json_u32_or_null(stdout, si->has_range && si->has_last_help, si->last_help);
    printf(",\"disable\":");
    rt_json_u32_or_null(stdout, si->has_disable, si->disable);
    putchar('}');
}

static void json_head(const struct rt_diff *d, const char *a, const char *b)
{
    printf("{\"a\":");
    rt_json_string(stdout, a);
    printf(",\"b\":");
    rt_json_string(stdout, b);
    printf(",\"same\":%s,\"summary\":{\"perflib_values\":%zu,"
           "\"languages_alone\":%zu,\"providers\":%zu,\"pairs\":%zu,"
           "\"groups\":%zu,\"base_index\":%u",
           rt_diff_same(d) ? "true" : "false", d->n_values,
           rt_diff_languages_alone(d), d->n_providers, d->n_pairs,
           d->n_groups, d->base_index);
    json_classes(d->n);
    printf("},\"perflib\":[");
    for (size_t i = 0; i < d->n_values; i++) {
        const struct rt_diff_value *v = &d->values[i];
        printf("%s{\"name\":\"%s\",\"a\":", i ? "," : "", v->name);
        rt_json_u32_or_null(stdout, v->has_a, v->a);
        printf(",\"b\":");
        rt_json_u32_or_null(stdout, v->has_b, v->b);
        putchar('}');
    }
    printf("],\"languages\":[");
    for (size_t i = 0; i < d->n_langs; i++) {
        const struct rt_diff_language *l = &d->langs[i];
        printf("%s{\"id\":", i ? "," : "");
        rt_json_string(stdout, l->id);
        for (int s = 0; s < 2; s++) {
            const struct rt_db_language *x = s ? l->b : l->a;
            printf(",\"%s\":", s ? "b" : "a");
            if (x)
                printf("{\"counter\":%zu,\"help\":%zu}", x->table.counter.n,
                       x->table.help.n);
            else
                fputs("null", stdout);
        }
        json_classes(l->n);
        putchar('}');
    }
}

static void json_providers(const struct rt_diff *d)
{
    static const char *const bit_name[] = {"only_a", "only_b", "range",
                                           "disable"};
    printf("],\"providers\":[");
    for (size_t i = 0; i < d->n_providers; i++) {
        const struct rt_diff_provider *p = &d->providers[i];
        printf("%s{\"name\":", i ? "," : "");
        rt_json_string(stdout, p->name);
        printf(",\"differs\":[");
        for (unsigned b = 0, n = 0; b < 4; b++)
            if (p->what & (1u << b))
                printf("%s\"%s\"", n++ ? "," : "", bit_name[b]);
        printf("],\"a\":");
        json_service(p->a);
        printf(",\"b\":");
        json_service(p->b);
        putchar('}');
    }
}

static void json_groups(const struct rt_diff *d, int pairs)
{
    printf("],\"groups\":[");
    for (size_t i = 0; i < d->n_groups; i++) {
        const struct rt_diff_group *g = &d->groups[i];
        printf("%s{\"language\":", i ? "," : "");
        rt_json_string(stdout, d->langs[g->lang].id);
        printf(",\"part\":\"%s\",\"provider_a\":",
               g->base ? "base" : "extensible");
        rt_json_string_or_null(stdout, owner_name(d, g->owner_a));
        printf(",\"provider_b\":");
        rt_json_string_or_null(stdout, owner_name(d, g->owner_b));
        printf(",\"lowest\":%u,\"highest\":%u,\"pair_count\":%zu", g->lowest,
               g->highest, g->n_pairs);
        json_classes(g->n);
        if (pairs) {
            printf(",\"pairs\":[");
            for (size_t k = 0; k < g->n_pairs; k++) {
                const struct rt_diff_pair *p = &d->pairs[g->first + k];
                printf("%s{\"table\":\"%s\",\"index\":%u,\"class\":\"%s\","
                       "\"a\":", k ? "," : "", p->kind ? "help" : "counter",
                       p->index, class_key[p->cls]);
                const struct rt_pair *a = rt_op_diff_text(d, p, 0);
                const struct rt_pair *b = rt_op_diff_text(d, p, 1);
                rt_json_string_or_null(stdout, a ? a->text : NULL);
                printf(",\"b\":");
                rt_json_string_or_null(stdout, b ? b->text : NULL);
                putchar('}');
            }
            putchar(']');
        }
        putchar('}');
    }
    puts("]}");
}

int cmd_diff(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"pairs", no_argument, 0, 'p'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int json = 0, pairs = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'p': pairs = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    const char *spec[2];
    if (argc - optind == 2) {
        spec[0] = argv[optind];
        spec[1] = argv[optind + 1];
    } else if (argc - optind == 1 && rt_cli_store_spec()) {
        spec[0] = rt_cli_store_spec();
        spec[1] = argv[optind];
    } else {
        rt_cli_error("diff: give two stores, A and B (or --store A and B)");
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    rt_cli_options()->read_once = 1;    /* each table read once */
    regtool_open_options o = rt_cli_open_options();
    struct rt_database db[2];
    struct rt_diff d;
    struct rt_error e = {0};
    int which, bad_spec;
    if (rt_op_diff(spec[0], spec[1], &o, 1, db, &d, &e, &which,
                   &bad_spec) != 0) {
        if (which >= 0)
            rt_cli_error("diff: %s %s: %s", which ? "B" : "A", spec[which],
                         e.message);
        else
            rt_cli_error("diff: %s", e.message);
        return bad_spec ? RT_EXIT_USAGE : rt_cli_exit_for(e.code);
    }
    if (json) {
        json_head(&d, spec[0], spec[1]);
        json_providers(&d);
        json_groups(&d, pairs);
    } else {
        printf("A: %s\nB: %s\n", rt_cli_shown(spec[0]), rt_cli_shown(spec[1]));
        print_summary(&d);
        if (!rt_diff_same(&d)) {
            print_details(&d);
            print_groups(&d, pairs);
        }
    }
    int rc = rt_diff_same(&d) ? RT_EXIT_OK : RT_EXIT_WARN;
    rt_op_diff_free(db, &d);
    return rc;
}
