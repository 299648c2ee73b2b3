/* The comparison of two name databases (engine/diff.h) on the corruption
 * generator's clean database in the mem store, B changed from A in each
 * way diff knows: pairs only in A, only in B, other text; providers in
 * one only, with other ranges, disabled; Perflib's values; a language in
 * one only; and the grouping of pairs by language, part and provider.
 * Pure: the mem store and the engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corrupt.h"
#include "engine/diff.h"

#define ALLOC_HOOK_MALLOC
#define ALLOC_HOOK_CALLOC
#include "alloc_hook.h"

static void load(struct rt_store *s, struct rt_database *db)
{
    struct rt_error e;
    assert_int_equal(rt_database_load(s, db, &e), 0);
    s->ops->close(s);
}

static const char *owner_name(const struct rt_diff *d, uint32_t owner)
{
    return owner == RT_DIFF_NO_PROVIDER ? NULL : d->owners[owner].name;
}

static int is(const char *name, const char *want)
{
    return !want ? !name : name && !strcmp(name, want);
}

/* The group of LANG, part BASE and the providers OWNER_A and OWNER_B
 * (NULL: none). */
static const struct rt_diff_group *group(const struct rt_diff *d,
                                         const char *lang, int base,
                                         const char *owner_a,
                                         const char *owner_b)
{
    for (size_t i = 0; i < d->n_groups; i++) {
        const struct rt_diff_group *g = &d->groups[i];
        if (!strcmp(d->langs[g->lang].id, lang) && g->base == base &&
            is(owner_name(d, g->owner_a), owner_a) &&
            is(owner_name(d, g->owner_b), owner_b))
            return g;
    }
    return NULL;
}

static const struct rt_diff_provider *provider(const struct rt_diff *d,
                                               const char *name)
{
    for (size_t i = 0; i < d->n_providers; i++)
        if (!strcmp(d->providers[i].name, name))
            return &d->providers[i];
    return NULL;
}

static void same_database(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    load(cg_clean(), &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_true(rt_diff_same(&d));
    assert_int_equal(d.n_pairs, 0);
    assert_int_equal(d.n_groups, 0);
    assert_int_equal(d.n_providers, 0);
    assert_int_equal(d.n_values, 0);
    assert_int_equal(d.n_langs, 3);
    assert_int_equal(rt_diff_languages_alone(&d), 0);
    /* Every ranged service is an owner: the base ones, ProvA, ProvB. */
    assert_true(d.n_owners >= 2);
    /* A value the caller reads (Version): added only when it differs. */
    rt_diff_add_value(&d, "Version", 1, 7, 1, 7);
    rt_diff_add_value(&d, "Version", 0, 0, 0, 0);
    assert_true(rt_diff_same(&d));
    rt_diff_add_value(&d, "Version", 1, 7, 0, 0);
    assert_int_equal(d.n_values, 1);
    assert_false(rt_diff_same(&d));
    assert_int_equal(d.values[0].a, 7);
    assert_false(d.values[0].has_b);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* Replaces LANG's pair INDEX of table K with TEXT. */
static void retext(struct rt_store *s, const char *lang, enum rt_table_kind k,
                   uint32_t index, const char *text)
{
    cg_remove(s, lang, k, index, index);
    cg_append(s, lang, k, index, text);
}

static void pair_classes_and_groups(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_remove(s, "009", RT_TABLE_COUNTER, 3994, 3994);      /* only A */
    cg_append(s, "009", RT_TABLE_COUNTER, 5000, "Stray");   /* only B */
    retext(s, "009", RT_TABLE_COUNTER, 2, "System (other)");  /* base */
    retext(s, "019", RT_TABLE_HELP, 4003, "other help");    /* ProvB */
    retext(s, "019", RT_TABLE_HELP, 4005, "other help 2");
    load(s, &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_false(rt_diff_same(&d));
    assert_int_equal(d.n_pairs, 5);
    assert_int_equal(d.n[RT_DIFF_ONLY_A][RT_TABLE_COUNTER], 1);
    assert_int_equal(d.n[RT_DIFF_ONLY_B][RT_TABLE_COUNTER], 1);
    assert_int_equal(d.n[RT_DIFF_OTHER_TEXT][RT_TABLE_COUNTER], 1);
    assert_int_equal(d.n[RT_DIFF_OTHER_TEXT][RT_TABLE_HELP], 2);
    assert_int_equal(d.n_providers, 0);
    assert_int_equal(d.n_values, 0);

    const struct rt_diff_group *g = group(&d, "009", 0, "ProvA", "ProvA");
    assert_non_null(g);
    assert_int_equal(g->n_pairs, 1);
    assert_int_equal(g->n[RT_DIFF_ONLY_A][RT_TABLE_COUNTER], 1);
    assert_int_equal(d.pairs[g->first].index, 3994);
    assert_non_null(rt_diff_text(&d, &d.pairs[g->first], 0));
    assert_null(rt_diff_text(&d, &d.pairs[g->first], 1));

    g = group(&d, "009", 0, NULL, NULL);      /* above every range */
    assert_non_null(g);
    assert_int_equal(g->n[RT_DIFF_ONLY_B][RT_TABLE_COUNTER], 1);
    assert_string_equal(rt_diff_text(&d, &d.pairs[g->first], 1)->text,
                        "Stray");

    g = group(&d, "009", 1, NULL, NULL);      /* Windows' own */
    assert_non_null(g);
    assert_int_equal(g->n[RT_DIFF_OTHER_TEXT][RT_TABLE_COUNTER], 1);
    assert_string_equal(rt_diff_text(&d, &d.pairs[g->first], 1)->text,
                        "System (other)");
    assert_string_not_equal(rt_diff_text(&d, &d.pairs[g->first], 0)->text,
                            "System (other)");

    g = group(&d, "019", 0, "ProvB", "ProvB");
    assert_non_null(g);
    assert_int_equal(g->n[RT_DIFF_OTHER_TEXT][RT_TABLE_HELP], 2);
    assert_int_equal(g->lowest, 4003);
    assert_int_equal(g->highest, 4005);
    assert_int_equal(d.n_groups, 4);
    /* Ordered: 009 before 019; base part first; providers by range, the
     * pairs in no range last; by index within. */
    assert_int_equal(d.groups[0].base, 1);
    assert_string_equal(owner_name(&d, d.groups[1].owner_b), "ProvA");
    assert_int_equal(d.groups[2].owner_a, RT_DIFF_NO_PROVIDER);
    assert_int_equal(d.groups[2].owner_b, RT_DIFF_NO_PROVIDER);
    assert_string_equal(d.langs[d.groups[3].lang].id, "019");
    assert_int_equal(d.pairs[d.groups[3].first].index, 4003);
    assert_int_equal(d.pairs[d.groups[3].first + 1].index, 4005);
    assert_int_equal(d.langs[0].n[RT_DIFF_OTHER_TEXT][RT_TABLE_COUNTER], 1);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* A duplicated index meets its partner in order: the second copy in B
 * alone is one pair only in B. */
static void duplicates_pair_in_order(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_append(s, "009", RT_TABLE_COUNTER, 3992, "English counter 3992");
    load(s, &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_int_equal(d.n_pairs, 1);
    assert_int_equal(d.pairs[0].cls, RT_DIFF_ONLY_B);
    assert_int_equal(d.pairs[0].index, 3992);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

static void providers_and_values(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_dword(s, "ProvB", "Last Counter", CG_B_LAST - 2);        /* range */
    cg_dword(s, "ProvA", "Disable Performance Counters", 1);    /* disable */
    cg_provider(s, "ProvC", 4010, 4012);                        /* only B */
    cg_dword(s, NULL, "Last Counter", 4012);
    cg_dword(s, NULL, "Last Help", 4013);
    cg_append(s, "009", RT_TABLE_COUNTER, 4010, "C counter");
    cg_append(s, "009", RT_TABLE_HELP, 4011, "C help");
    load(s, &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_int_equal(d.n_providers, 3);
    assert_string_equal(d.providers[0].name, "ProvA");
    assert_int_equal(d.providers[0].what, RT_DIFF_PROV_DISABLE);
    assert_int_equal(d.providers[0].b->disable, 1);
    assert_non_null(provider(&d, "ProvB"));
    assert_int_equal(provider(&d, "ProvB")->what, RT_DIFF_PROV_RANGE);
    assert_int_equal(provider(&d, "ProvC")->what, RT_DIFF_PROV_ONLY_B);
    assert_null(provider(&d, "ProvC")->a);

    assert_int_equal(d.n_values, 2);
    assert_string_equal(d.values[0].name, "Last Counter");
    assert_int_equal(d.values[0].a, CG_B_LAST);
    assert_int_equal(d.values[0].b, 4012);
    assert_string_equal(d.values[1].name, "Last Help");

    /* ProvC's pairs fall in its range, which only B's services hold. */
    const struct rt_diff_group *g = group(&d, "009", 0, NULL, "ProvC");
    assert_non_null(g);
    assert_int_equal(g->n[RT_DIFF_ONLY_B][RT_TABLE_COUNTER], 1);
    assert_int_equal(g->n[RT_DIFF_ONLY_B][RT_TABLE_HELP], 1);
    assert_null(d.owners[g->owner_b].a);
    assert_non_null(d.owners[g->owner_b].b);
    assert_int_equal(d.n_groups, 1);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* A language in one database only is said whole, not pair by pair. */
static void language_alone(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    load(cg_clean_lang(1), &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_false(rt_diff_same(&d));
    assert_int_equal(rt_diff_languages_alone(&d), 1);
    assert_int_equal(d.n_pairs, 0);
    const struct rt_diff_language *l = &d.langs[0];
    assert_string_equal(l->id, "009");
    assert_non_null(l->a);
    assert_null(l->b);
    rt_diff_free(&d);
    /* And the other way round: B's alone comes after A's languages. */
    assert_int_equal(rt_diff_databases(&b, &a, &d), 0);
    assert_int_equal(rt_diff_languages_alone(&d), 1);
    assert_string_equal(d.langs[d.n_langs - 1].id, "009");
    assert_null(d.langs[d.n_langs - 1].a);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* Each database's ranges place an index: where B's new ProvWide (as
 * wide as ProvA and ProvB, and starting with ProvA) holds what A gives
 * to ProvA, a pair there is in ProvA's range in A and ProvWide's in B;
 * one above A's ranges is in ProvWide's alone. */
static void ranges_of_each_database(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_provider(s, "ProvWide", CG_A_FIRST, CG_B_LAST + 2);
    cg_append(s, "009", RT_TABLE_COUNTER, CG_A_FIRST + 2, "extra");
    cg_append(s, "009", RT_TABLE_COUNTER, CG_B_LAST + 2, "wide's own");
    /* Its last index, Last Help, is its range's too. */
    cg_append(s, "009", RT_TABLE_HELP, CG_B_LAST + 3, "wide's last help");
    load(s, &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_int_equal(d.n_groups, 2);
    assert_int_equal(d.groups[1].n_pairs, 2);
    assert_int_equal(d.groups[1].highest, CG_B_LAST + 3);
    assert_string_equal(owner_name(&d, d.groups[0].owner_a), "ProvA");
    assert_string_equal(owner_name(&d, d.groups[0].owner_b), "ProvWide");
    assert_int_equal(d.pairs[d.groups[0].first].index, CG_A_FIRST + 2);
    assert_null(owner_name(&d, d.groups[1].owner_a));
    assert_string_equal(owner_name(&d, d.groups[1].owner_b), "ProvWide");
    assert_int_equal(d.pairs[d.groups[1].first].index, CG_B_LAST + 2);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* Base Index itself is in the base part; the index above it is not. */
static void base_part_boundary(void **state)
{
    (void)state;
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_append(s, "009", RT_TABLE_HELP, 1847, "at Base Index");
    cg_append(s, "009", RT_TABLE_COUNTER, 1848, "above Base Index");
    load(s, &b);
    struct rt_diff d;
    assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
    assert_int_equal(d.base_index, 1847);
    assert_int_equal(d.n_groups, 2);
    assert_int_equal(d.groups[0].base, 1);
    assert_int_equal(d.groups[0].lowest, 1847);
    assert_int_equal(d.groups[1].base, 0);
    assert_int_equal(d.groups[1].lowest, 1848);
    rt_diff_free(&d);
    rt_database_free(&a);
    rt_database_free(&b);
}

/* The generator's damage seen as a difference from the clean database:
 * a disabled provider, Perflib disabled, a provider's registration lost
 * (its strings stay: ProvB only in A, nothing in its pairs). */
static void generated_damage(void **state)
{
    (void)state;
    static const struct {
        enum corruption c;
        size_t values, providers;
        unsigned what;
    } cases[] = {
        {CG_DISABLED, 0, 1, RT_DIFF_PROV_DISABLE},
        {CG_PERFLIB_DISABLED, 1, 0, 0},
        {CG_ORPHANS, 0, 1, RT_DIFF_PROV_ONLY_A},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rt_database a, b;
        load(cg_clean(), &a);
        load(cg_build(cases[i].c, 1), &b);
        struct rt_diff d;
        assert_int_equal(rt_diff_databases(&a, &b, &d), 0);
        assert_false(rt_diff_same(&d));
        assert_int_equal(d.n_values, cases[i].values);
        assert_int_equal(d.n_providers, cases[i].providers);
        if (cases[i].providers) {
            assert_string_equal(d.providers[0].name, "ProvB");
            assert_int_equal(d.providers[0].what, cases[i].what);
        }
        assert_int_equal(d.n_pairs, 0);
        rt_diff_free(&d);
        rt_database_free(&a);
        rt_database_free(&b);
    }
}

#ifdef HAVE_ALLOC_HOOK
/* Whether X and Y are the same result: counts, and every pair's place. */
static int same_result(const struct rt_diff *x, const struct rt_diff *y)
{
    if (x->n_pairs != y->n_pairs || x->n_groups != y->n_groups ||
        x->n_providers != y->n_providers || x->n_values != y->n_values ||
        x->n_langs != y->n_langs || x->n_owners != y->n_owners)
        return 0;
    for (size_t i = 0; i < x->n_pairs; i++) {
        const struct rt_diff_pair *p = &x->pairs[i], *q = &y->pairs[i];
        if (p->index != q->index || p->cls != q->cls || p->kind != q->kind ||
            p->lang != q->lang || p->owner_a != q->owner_a ||
            p->owner_b != q->owner_b || p->at_a != q->at_a || p->at_b != q->at_b)
            return 0;
    }
    return 1;
}
#endif

/* Out of memory at each allocation in turn (malloc, calloc, realloc:
 * tests/alloc_hook.h): the comparison fails whole, its result empty, or
 * gives the result it gives with memory (the C library's qsort does
 * without its buffer). */
static void out_of_memory_fails_whole(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    struct rt_database a, b;
    load(cg_clean(), &a);
    struct rt_store *s = cg_clean();
    cg_remove(s, "009", RT_TABLE_COUNTER, 3994, 3994);
    retext(s, "019", RT_TABLE_HELP, 4003, "other help");
    cg_provider(s, "ProvC", 4010, 4012);
    cg_append(s, "009", RT_TABLE_COUNTER, 4010, "C counter");
    cg_dword(s, "ProvA", "Disable Performance Counters", 1);
    load(s, &b);
    struct rt_diff want, d;
    alloc_calls = 0;
    assert_int_equal(rt_diff_databases(&a, &b, &want), 0);
    unsigned long calls = alloc_calls;
    if (calls == 0) {       /* valgrind's allocator: nothing reaches it */
        rt_diff_free(&want);
        rt_database_free(&a);
        rt_database_free(&b);
        skip();
    }
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_diff_databases(&a, &b, &d);
        alloc_fail_at = 0;
        if (r != 0) {
            if (d.pairs || d.n_pairs || d.groups || d.langs || d.owners ||
                d.providers || d.n_values)
                fail_msg("allocation %lu of %lu failed: a result left", k,
                         calls);
            continue;
        }
        if (!same_result(&d, &want))
            fail_msg("allocation %lu of %lu failed, and the comparison "
                     "succeeded with another result", k, calls);
        rt_diff_free(&d);
    }
    rt_diff_free(&want);
    rt_database_free(&a);
    rt_database_free(&b);
#else
    skip();
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(same_database),
        cmocka_unit_test(pair_classes_and_groups),
        cmocka_unit_test(duplicates_pair_in_order),
        cmocka_unit_test(providers_and_values),
        cmocka_unit_test(language_alone),
        cmocka_unit_test(ranges_of_each_database),
        cmocka_unit_test(base_part_boundary),
        cmocka_unit_test(generated_damage),
        cmocka_unit_test(out_of_memory_fails_whole),
    };
    return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
