/* Repair on the corruption generator's databases: each class that needs no
 * guessing is fixed (audit is clean of it afterwards), a second repair
 * changes nothing, no valid pair of the damaged database is lost, and
 * what repair cannot fix is reported with its reason. Pure: mem store and
 * engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corrupt.h"
#include "engine/audit.h"
#include "engine/ops.h"
#include "engine/repair.h"

static void load(struct rt_store *s, struct rt_database *db)
{
    struct rt_error e;
    assert_int_equal(rt_database_load(s, db, &e), 0);
}

static int has_finding(struct rt_store *s, const char *id)
{
    struct rt_database db;
    load(s, &db);
    struct rt_findings f = {0};
    assert_int_equal(rt_audit(&db, NULL, &f), 0);
    int found = 0;
    for (size_t i = 0; i < f.n; i++)
        found |= !strcmp(f.v[i].id, id);
    rt_findings_free(&f);
    rt_database_free(&db);
    return found;
}

static size_t repair_once(struct rt_store *s, const struct rt_repair_options *o,
                          struct rt_repair_report *r)
{
    struct rt_database db;
    load(s, &db);
    struct rt_change_set cs;
    struct rt_error e;
    assert_int_equal(rt_engine_repair(&db, o, &cs, r, &e), 0);
    size_t n = cs.n;
    if (n) {
        /* Through the engine's invariant, as the CLI applies it. */
        assert_int_equal(s->ops->begin(s, &e), 0);
        if (rt_op_apply(s, &cs, &e) != 0)
            fail_msg("repair refused: %s", e.message);
        s->ops->end(s);
    }
    rt_change_set_free(&cs);
    rt_database_free(&db);
    return n;
}

/* Every index readable in the damaged database is still there. */
static void assert_nothing_valid_lost(const struct rt_database *before,
                                      struct rt_store *after)
{
    struct rt_database db;
    load(after, &db);
    for (size_t i = 0; i < before->n_langs; i++) {
        const struct rt_db_language *b = &before->langs[i];
        const struct rt_db_language *a = rt_database_language(&db, b->id);
        assert_non_null(a);
        for (int k = 0; k < 2; k++) {
            struct rt_pair *p = NULL;
            size_t n = 0, dropped;
            if (b->raw[k].data)
                assert_int_equal(rt_multi_sz_salvage(b->raw[k].data,
                                                     b->raw[k].len, &p, &n,
                                                     &dropped), 0);
            const struct rt_pair_list *was = k ? &b->table.help : &b->table.counter;
            const struct rt_pair_list *now = k ? &a->table.help : &a->table.counter;
            for (size_t j = 0; j < (p ? n : was->n); j++) {
                uint32_t x = p ? p[j].index : was->v[j].index;
                if (!rt_pair_list_find(now, x))
                    fail_msg("%s %s: index %u lost", b->id, k ? "Help" : "Counter", x);
            }
            rt_pairs_free(p, n);
        }
    }
    rt_database_free(&db);
}

static const enum corruption fixable[] = {
    CG_ODD_LENGTH, CG_NO_TERMINATOR, CG_ODD_COUNT, CG_BAD_INDEX,
    CG_ZERO_INDEX, CG_NOT_MULTI_SZ, CG_DUPLICATE, CG_LAST_COUNTER_LOW,
    CG_BASE_INDEX_MISSING, CG_CURRENT_DIFFERS, CG_LANGUAGE_MISSING_ENTRIES,
};

static void fixes_what_needs_no_guessing(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fixable / sizeof *fixable; i++)
        for (uint32_t seed = 1; seed <= 2; seed++) {
            enum corruption c = fixable[i];
            struct rt_store *s = cg_build(c, seed);
            assert_true(has_finding(s, cg_expect[c].id));
            struct rt_database before;
            load(s, &before);
            struct rt_repair_report r;
            assert_true(repair_once(s, NULL, &r) > 0);
            assert_true(r.fixed.n > 0);
            rt_repair_report_free(&r);
            if (has_finding(s, cg_expect[c].id))
                fail_msg("class %s still found after repair", cg_expect[c].id);
            assert_nothing_valid_lost(&before, s);
            rt_database_free(&before);
            /* Idempotent. */
            assert_int_equal(repair_once(s, NULL, &r), 0);
            assert_int_equal(r.fixed.n, 0);
            rt_repair_report_free(&r);
            s->ops->close(s);
        }
}

static void options_prune_and_enable(void **state)
{
    (void)state;
    struct rt_repair_options prune = {1, 0}, enable = {0, 1};
    struct rt_repair_report r;
    struct rt_store *s = cg_build(CG_ORPHANS, 1);
    /* Without the option the orphans stay, said so. */
    repair_once(s, NULL, &r);
    assert_true(has_finding(s, "orphan-strings"));
    int said = 0;
    for (size_t i = 0; i < r.left.n; i++)
        said |= !strcmp(r.left.v[i].id, "orphan-strings") &&
                strstr(r.left.v[i].message, "--prune-orphans") != NULL;
    assert_true(said);
    rt_repair_report_free(&r);
    assert_true(repair_once(s, &prune, &r) > 0);
    rt_repair_report_free(&r);
    assert_false(has_finding(s, "orphan-strings"));
    s->ops->close(s);

    enum corruption dis[] = {CG_DISABLED, CG_PERFLIB_DISABLED};
    for (int i = 0; i < 2; i++) {
        s = cg_build(dis[i], 1);
        assert_int_equal(repair_once(s, NULL, &r), 0);
        rt_repair_report_free(&r);
        assert_true(has_finding(s, cg_expect[dis[i]].id));
        assert_true(repair_once(s, &enable, &r) > 0);
        rt_repair_report_free(&r);
        assert_false(has_finding(s, cg_expect[dis[i]].id));
        s->ops->close(s);
    }
}

/* What needs a decision stays, reported with why; the rest is untouched. */
static void reports_what_it_cannot_fix(void **state)
{
    (void)state;
    enum corruption left[] = {CG_PROVIDER_INVERTED, CG_PROVIDER_OVERLAP,
                              CG_ENGLISH_OVERWRITTEN, CG_EMPTY_TABLE,
                              CG_NAME_AT_ODD};
    for (size_t i = 0; i < sizeof left / sizeof *left; i++) {
        struct rt_store *s = cg_build(left[i], 1);
        struct rt_repair_report r;
        repair_once(s, NULL, &r);
        int reported = 0;
        /* An emptied Help gets English above Base Index; that its base
         * range's text is gone is what stays. */
        const char *id = left[i] == CG_EMPTY_TABLE ? "help-missing-base"
                                                   : cg_expect[left[i]].id;
        for (size_t k = 0; k < r.left.n; k++)
            reported |= !strcmp(r.left.v[k].id, id);
        if (!reported)
            fail_msg("%s not reported as left", id);
        rt_repair_report_free(&r);
        /* An emptied table gets English above Base Index; the base
         * range's text is gone, which the report said. */
        if (left[i] != CG_EMPTY_TABLE && !has_finding(s, cg_expect[left[i]].id))
            fail_msg("%s no longer found after repair", cg_expect[left[i]].id);
        /* And a second run changes nothing. */
        assert_int_equal(repair_once(s, NULL, &r), 0);
        rt_repair_report_free(&r);
        s->ops->close(s);
    }
}

static void clean_database_needs_nothing(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_repair_report r;
    assert_int_equal(repair_once(s, NULL, &r), 0);
    assert_int_equal(r.fixed.n, 0);
    assert_int_equal(r.left.n, 0);
    rt_repair_report_free(&r);
    s->ops->close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_database_needs_nothing),
        cmocka_unit_test(fixes_what_needs_no_guessing),
        cmocka_unit_test(options_prune_and_enable),
        cmocka_unit_test(reports_what_it_cannot_fix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
