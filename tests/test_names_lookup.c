/* names' lookups: how close a table text is to a name asked for
 * (model/name_match.h), the index that finds every match of a name, and
 * a provider's counters in one language (engine/provider_names.h), walked
 * by the table's pairs, never by the range's integers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/provider_names.h"
#include "model/name_match.h"
#include "ops/ops.h"

static enum rt_name_match match(const char *text, const char *name)
{
    return rt_name_match(text, strlen(text), name, strlen(name));
}

static void match_kinds(void **state)
{
    (void)state;
    assert_int_equal(match("Processor", "Processor"), RT_NAME_MATCH_EXACT);
    assert_int_equal(match("Processor", "processor"), RT_NAME_MATCH_CASE);
    assert_int_equal(match("Processor ", "Processor"), RT_NAME_MATCH_BLANKS);
    assert_int_equal(match("Processor", "Processor \t"), RT_NAME_MATCH_BLANKS);
    assert_int_equal(match("Processor ", "Processor  "), RT_NAME_MATCH_BLANKS);
    assert_int_equal(match("Processor ", "PROCESSOR"),
                     RT_NAME_MATCH_BLANKS_CASE);
    /* Both with the same trailing blank: as they are. */
    assert_int_equal(match("Processor ", "Processor "), RT_NAME_MATCH_EXACT);
    /* Leading blanks and inner ones count. */
    assert_int_equal(match(" Processor", "Processor"), RT_NAME_MATCH_NONE);
    assert_int_equal(match("Pro cessor", "Processor"), RT_NAME_MATCH_NONE);
    assert_int_equal(match("Processor Time", "Processor"),
                     RT_NAME_MATCH_NONE);
    /* Case as Windows folds it, beyond ASCII: Όμικρον / όΜΙΚΡΟΝ. */
    assert_int_equal(match("\316\214\316\274\316\271\316\272\317\201\316\277"
                           "\316\275",
                           "\317\214\316\234\316\231\316\232\316\241\316\237"
                           "\316\235"),
                     RT_NAME_MATCH_CASE);
    assert_string_equal(rt_name_match_word(RT_NAME_MATCH_BLANKS_CASE),
                        "trailing-blanks");
    assert_string_equal(rt_name_match_word(RT_NAME_MATCH_CASE), "case");
    assert_int_equal(rt_name_trimmed_len("ab \t ", 5), 2);
    assert_int_equal(rt_name_trimmed_len("   ", 3), 0);
}

static void append(struct rt_pair_list *l, uint32_t index, const char *text)
{
    assert_int_equal(rt_pair_list_append(l, index, text), 0);
}

/* Every match of a name, any case and any trailing blanks, in table
 * order, and nothing else. */
static void index_finds_every_near_match(void **state)
{
    (void)state;
    struct rt_pair_list l = {0};
    append(&l, 2, "System");
    append(&l, 5000, "processor ");
    append(&l, 238, "Processor");
    append(&l, 6, "Processor Time");
    append(&l, 4, "Processo");
    append(&l, 7000, "PROCESSOR");
    struct rt_name_index x;
    assert_int_equal(rt_name_index_build(&x, &l), 0);
    size_t n, first = rt_name_index_find(&x, "Processor ", &n);
    assert_int_equal(n, 3);
    assert_int_equal(l.v[x.by[first]].index, 5000);
    assert_int_equal(l.v[x.by[first + 1]].index, 238);
    assert_int_equal(l.v[x.by[first + 2]].index, 7000);
    first = rt_name_index_find(&x, "system", &n);
    assert_int_equal(n, 1);
    assert_int_equal(l.v[x.by[first]].index, 2);
    rt_name_index_find(&x, "Processors", &n);
    assert_int_equal(n, 0);
    rt_name_index_find(&x, "", &n);
    assert_int_equal(n, 0);
    rt_name_index_free(&x);
    rt_pair_list_free(&l);
}

/* Over a table of 3,000 texts, variants of 500 names in case and
 * trailing blanks, each name's slots are exactly the pairs a scan with
 * rt_name_match finds, in table order. */
static void index_agrees_with_a_scan(void **state)
{
    (void)state;
    static const char *const tails[] = {"", " ", "  ", "\t", " \t"};
    struct rt_pair_list l = {0};
    char text[64];
    for (unsigned i = 0; i < 3000; i++) {
        unsigned k = (i * 7919u) % 500;
        snprintf(text, sizeof text, "%s %u%s", i % 3 ? "Counter" : "COUNTER",
                 k, tails[i % 5]);
        append(&l, 2 * i + 2, text);
    }
    struct rt_name_index x;
    assert_int_equal(rt_name_index_build(&x, &l), 0);
    for (unsigned k = 0; k < 510; k += 3) {
        snprintf(text, sizeof text, "counter %u%s", k, k % 2 ? " " : "");
        size_t n, first = rt_name_index_find(&x, text, &n), seen = 0;
        for (size_t i = 0; i < l.n; i++) {
            if (rt_name_match(l.v[i].text, l.v[i].text_len, text,
                              strlen(text)) == RT_NAME_MATCH_NONE)
                continue;
            assert_true(seen < n);
            assert_int_equal(x.by[first + seen], i);
            seen++;
        }
        assert_int_equal(seen, n);
        assert_true(k >= 500 ? n == 0 : n == 6);
    }
    rt_name_index_free(&x);
    rt_pair_list_free(&l);
}

static void provider_counters_with_help_and_gaps(void **state)
{
    (void)state;
    struct rt_pair_list c = {0}, h = {0};
    append(&c, 1, "1847");
    append(&c, 3998, "Before");        /* another provider's */
    append(&c, 4006, "Third");
    append(&c, 4000, "First");
    append(&c, 4001, "Odd");           /* not a name index */
    append(&c, 4002, "Second");
    append(&c, 4000, "First again");   /* repeated: the first is shown */
    append(&c, 4014, "After");
    append(&h, 4001, "First's help");
    append(&h, 4007, "Third's help");
    append(&h, 4003, "");
    struct rt_provider_names p;
    assert_int_equal(rt_provider_names(&c, &h, 4000, 4012, &p), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.v[0].index, 4000);
    assert_string_equal(p.v[0].name, "First");
    assert_string_equal(p.v[0].help, "First's help");
    assert_int_equal(p.v[1].index, 4002);
    assert_string_equal(p.v[1].help, "");
    assert_int_equal(p.v[2].index, 4006);
    assert_string_equal(p.v[2].help, "Third's help");
    assert_int_equal(p.without_help, 0);
    assert_int_equal(p.duplicates, 1);
    assert_int_equal(p.n_missing, 2);
    assert_int_equal(p.missing[0].first, 4004);
    assert_int_equal(p.missing[0].last, 4004);
    assert_int_equal(p.missing[1].first, 4008);
    assert_int_equal(p.missing[1].last, 4012);
    assert_int_equal(p.missing_count, 4);
    rt_provider_names_free(&p);

    /* An odd range reads its even indices; help missing is counted. */
    assert_int_equal(rt_provider_names(&c, &h, 3999, 4003, &p), 0);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.v[0].index, 4000);
    assert_int_equal(p.v[1].index, 4002);
    assert_int_equal(p.n_missing, 0);
    rt_provider_names_free(&p);
    assert_int_equal(rt_provider_names(&c, &h, 4014, 4014, &p), 0);
    assert_int_equal(p.n, 1);
    assert_null(p.v[0].help);
    assert_int_equal(p.without_help, 1);
    rt_provider_names_free(&p);

    /* An inverted range holds nothing. */
    assert_int_equal(rt_provider_names(&c, &h, 4012, 4000, &p), 0);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.missing_count, 0);
    rt_provider_names_free(&p);
    rt_pair_list_free(&c);
    rt_pair_list_free(&h);
}

/* A hostile range costs what the table holds: 2^31 indices would take
 * seconds to walk one by one and a missing list of a billion entries;
 * the gaps come back as runs, counted exactly, up to the top index. */
static void provider_huge_range_is_runs(void **state)
{
    (void)state;
    struct rt_pair_list c = {0}, h = {0};
    append(&c, 10, "Ten");
    append(&c, 0x80000000u, "Top");          /* RT_INDEX_MAX */
    append(&h, 11, "Ten's help");
    struct rt_provider_names p;
    assert_int_equal(rt_provider_names(&c, &h, 2, 0x7fffffffu, &p), 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.n_missing, 2);
    assert_int_equal(p.missing[0].first, 2);
    assert_int_equal(p.missing[0].last, 8);
    assert_int_equal(p.missing[1].first, 12);
    assert_int_equal(p.missing[1].last, 0x7ffffffeu);
    assert_true(p.missing_count == 4 + (0x7ffffffeull - 12) / 2 + 1);
    rt_provider_names_free(&p);
    /* A range to the top of a DWORD, without wrapping. */
    assert_int_equal(rt_provider_names(&c, &h, 0, 0xffffffffu, &p), 0);
    assert_int_equal(p.n, 2);
    assert_string_equal(p.v[0].help, "Ten's help");
    assert_null(p.v[1].help);
    assert_int_equal(p.n_missing, 3);
    assert_int_equal(p.missing[0].first, 0);
    assert_int_equal(p.missing[1].last, 0x7ffffffeu);
    assert_int_equal(p.missing[2].first, 0x80000002u);
    assert_int_equal(p.missing[2].last, 0xfffffffeu);
    assert_true(p.missing_count == 0x80000000ull - 2);
    rt_provider_names_free(&p);
    rt_pair_list_free(&c);
    rt_pair_list_free(&h);
}

/* names --provider reads a service's range as the registry holds it:
 * First Counter..Last Counter, First Counter alone without Last Counter,
 * nothing without First Counter (whatever Last Counter says). */
static void service_range_as_stored(void **state)
{
    (void)state;
    struct rt_db_language l = {0};
    append(&l.table.counter, 4000, "Bytes");
    append(&l.table.counter, 4002, "Files");
    append(&l.table.counter, 4004, "Errors");
    append(&l.table.help, 4001, "Bytes moved");
    struct rt_service_info svc = {0};
    svc.has_range = 1;
    svc.first_counter = 4000;
    svc.has_last_counter = 1;
    svc.last_counter = 4002;
    struct rt_provider_names p;
    struct rt_error e = {0};
    assert_int_equal(rt_op_provider_names(&svc, &l, &p, &e), 0);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.v[1].index, 4002);
    assert_string_equal(p.v[0].help, "Bytes moved");
    assert_int_equal(p.without_help, 1);
    rt_provider_names_free(&p);
    svc.has_last_counter = 0;
    assert_int_equal(rt_op_provider_names(&svc, &l, &p, &e), 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0].index, 4000);
    rt_provider_names_free(&p);
    svc.has_range = 0;
    svc.has_last_counter = 1;
    svc.last_counter = 4004;
    assert_int_equal(rt_op_provider_names(&svc, &l, &p, &e), 0);
    assert_int_equal(p.n, 0);
    assert_int_equal(p.missing_count, 0);
    rt_provider_names_free(&p);
    rt_pair_list_free(&l.table.counter);
    rt_pair_list_free(&l.table.help);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(match_kinds),
        cmocka_unit_test(index_finds_every_near_match),
        cmocka_unit_test(index_agrees_with_a_scan),
        cmocka_unit_test(provider_counters_with_help_and_gaps),
        cmocka_unit_test(provider_huge_range_is_runs),
        cmocka_unit_test(service_range_as_stored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
