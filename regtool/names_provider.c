/* regtool names --provider: a provider's counters in one language, with
 * the indices of its range that have no name there. */
#include "cli.h"

#include <stdlib.h>

/* Runs of missing indices named on stderr before the rest are counted. */
#define RUNS_SHOWN 8

static void print_json(const struct rt_service_info *svc,
                       const struct rt_db_language *l,
                       const struct rt_provider_names *p)
{
    fputs("{\"provider\":", stdout);
    rt_json_string(stdout, svc->name);
    fputs(",\"language\":", stdout);
    rt_json_string(stdout, l->id);
    printf(",\"first_counter\":%u,\"last_counter\":", svc->first_counter);
    rt_json_u32_or_null(stdout, svc->has_last_counter, svc->last_counter);
    fputs(",\"first_help\":", stdout);
    rt_json_u32_or_null(stdout, svc->has_first_help, svc->first_help);
    fputs(",\"last_help\":", stdout);
    rt_json_u32_or_null(stdout, svc->has_last_help, svc->last_help);
    fputs(",\"counters\":[", stdout);
    for (size_t i = 0; i < p->n; i++) {
        printf("%s{\"index\":%u,\"name\":", i ? "," : "", p->v[i].index);
        rt_json_string(stdout, p->v[i].name);
        fputs(",\"help\":", stdout);
        rt_json_string_or_null(stdout, p->v[i].help);
        putchar('}');
    }
    fputs("],\"missing\":[", stdout);
    for (size_t i = 0; i < p->n_missing; i++)
        printf("%s{\"first\":%u,\"last\":%u}", i ? "," : "",
               p->missing[i].first, p->missing[i].last);
    printf("],\"missing_count\":%llu}\n",
           (unsigned long long)p->missing_count);
}

static void print_text(const struct rt_service_info *svc,
                       const struct rt_db_language *l,
                       const struct rt_provider_names *p)
{
    printf("provider %s: counters %u..", rt_cli_shown(svc->name),
           svc->first_counter);
    if (svc->has_last_counter)
        printf("%u", svc->last_counter);
    else
        putchar('-');
    fputs(", help ", stdout);
    if (svc->has_first_help)
        printf("%u", svc->first_help);
    else
        putchar('-');
    fputs("..", stdout);
    if (svc->has_last_help)
        printf("%u", svc->last_help);
    else
        putchar('-');
    printf(", language %s\n", rt_cli_shown(l->id));
    for (size_t i = 0; i < p->n; i++) {
        printf("%u\t%s\t", p->v[i].index, rt_cli_shown(p->v[i].name));
        printf("%s\n", p->v[i].help ? rt_cli_shown(p->v[i].help) : "");
    }
}

/* What the listing leaves out, on stderr: the range's indices with no
 * name (the first runs of them named), counters without help, repeated
 * indices. */
static void print_notes(const struct rt_service_info *svc,
                        const struct rt_db_language *l,
                        const struct rt_provider_names *p)
{
    if (p->missing_count) {
        fprintf(stderr, "regtool: %llu of %s's counter indices have no name "
                        "in %s:",
                (unsigned long long)p->missing_count, rt_cli_shown(svc->name),
                rt_cli_shown(l->id));
        for (size_t i = 0; i < p->n_missing && i < RUNS_SHOWN; i++) {
            const struct rt_index_run *r = &p->missing[i];
            fprintf(stderr, i ? ", %u" : " %u", r->first);
            if (r->last != r->first)
                fprintf(stderr, "..%u", r->last);
        }
        if (p->n_missing > RUNS_SHOWN)
            fprintf(stderr, " and %zu more runs", p->n_missing - RUNS_SHOWN);
        fputc('\n', stderr);
    }
    if (p->without_help)
        rt_cli_error("%zu of %s's counters have no help text in %s (at their "
                     "index + 1)",
                     p->without_help, svc->name, l->id);
    if (p->duplicates)
        rt_cli_error("warning: %zu pairs of %s's range in %s's Counter table "
                     "repeat an index; each index's first is shown (regtool "
                     "audit reports them)",
                     p->duplicates, svc->name, l->id);
}

/* The notes on the range itself: how the listing reads it. */
static void print_range_notes(const struct rt_service_info *svc)
{
    if (!svc->has_last_counter)
        rt_cli_error("warning: %s has no Last Counter: only its First "
                     "Counter %u is shown",
                     svc->name, svc->first_counter);
    if (svc->has_first_help && svc->first_help != svc->first_counter + 1u)
        rt_cli_error("warning: %s's First Help is %u, not First Counter + 1 "
                     "(%u + 1): each counter's help is shown from its index "
                     "+ 1",
                     svc->name, svc->first_help, svc->first_counter);
}

int rt_cli_names_provider(const struct rt_database *db,
                          const struct rt_db_language *l,
                          const char *provider, int json)
{
    const struct rt_service_info *svc = rt_database_service(db, provider);
    if (!svc) {
        rt_cli_error("no provider '%s': no service of that name has a "
                     "Performance key",
                     provider);
        return RT_EXIT_WARN;
    }
    if (!svc->has_range) {
        rt_cli_error("provider %s has no counters installed (no First "
                     "Counter)",
                     svc->name);
        return RT_EXIT_WARN;
    }
    if (svc->has_last_counter && svc->last_counter < svc->first_counter) {
        rt_cli_error("provider %s has no counters installed: its range is "
                     "inverted (First Counter %u, Last Counter %u)",
                     svc->name, svc->first_counter, svc->last_counter);
        return RT_EXIT_WARN;
    }
    print_range_notes(svc);
    struct rt_provider_names p;
    struct rt_error e = {0};
    if (rt_op_provider_names(svc, l, &p, &e) != 0) {
        rt_cli_error("%s", e.message);
        return RT_EXIT_FAILURE;
    }
    if (json)
        print_json(svc, l, &p);
    else
        print_text(svc, l, &p);
    print_notes(svc, l, &p);
    rt_provider_names_free(&p);
    return RT_EXIT_OK;
}
