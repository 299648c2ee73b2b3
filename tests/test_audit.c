/* Audit on the corruption generator's databases: a clean database gives
 * no error or warning; each class of damage, alone and combined with
 * others, gives its finding with its id, language and indices; findings
 * are sorted most severe first. Pure: the mem store and the engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corrupt.h"
#include "engine/audit.h"

static void audit_store(struct rt_store *s, struct rt_findings *f,
                        const char *lang)
{
    struct rt_database db;
    struct rt_error e;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    struct rt_audit_options o = {lang};
    memset(f, 0, sizeof *f);
    assert_int_equal(rt_audit(&db, &o, f), 0);
    rt_findings_sort(f);
    rt_database_free(&db);
}

static const struct rt_finding *find(const struct rt_findings *f,
                                     const char *id, const char *lang)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].id, id) &&
            (!lang ? !f->v[i].language
                   : f->v[i].language && !strcmp(f->v[i].language, lang)))
            return &f->v[i];
    return NULL;
}

static void print_findings(const struct rt_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        print_message("  %s %s [%s] %s\n",
                      rt_audit_severity_name(f->v[i].severity), f->v[i].id,
                      f->v[i].language ? f->v[i].language : "-",
                      f->v[i].message);
}

static void clean_database_has_no_error_or_warning(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_findings f;
    audit_store(s, &f, NULL);
    if (f.errors || f.warnings)
        print_findings(&f);
    assert_int_equal(f.errors, 0);
    assert_int_equal(f.warnings, 0);
    rt_findings_free(&f);
    s->ops->close(s);
}

static void each_class_is_found(void **state)
{
    (void)state;
    for (int c = 0; c < CG_COUNT; c++)
        for (uint32_t seed = 1; seed <= 3; seed++) {
            struct rt_store *s = cg_build((enum corruption)c, seed);
            struct rt_findings f;
            audit_store(s, &f, NULL);
            const struct rt_finding *x =
                find(&f, cg_expect[c].id, cg_expect[c].lang);
            if (!x) {
                print_message("class %d (%s, seed %u) not found; found:\n", c,
                              cg_expect[c].id, seed);
                print_findings(&f);
            }
            assert_non_null(x);
            assert_non_null(x->message);
            rt_findings_free(&f);
            s->ops->close(s);
        }
}

/* The evidence names the damage exactly: the duplicated index with both
 * texts, the byte offset of a damaged blob, the indices of orphans. */
static void findings_carry_their_evidence(void **state)
{
    (void)state;
    uint32_t seed = 2, probe = seed;
    uint32_t pick = CG_A_FIRST + 2 * (cg_next(&probe) % 4);
    struct rt_store *s = cg_build(CG_DUPLICATE, seed);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    const struct rt_finding *x = find(&f, "duplicate-index", "009");
    assert_non_null(x);
    assert_int_equal(x->severity, RT_AUDIT_ERROR);
    assert_int_equal(x->n_indices, 2);
    assert_int_equal(x->indices[0], pick);
    assert_int_equal(x->indices[1], pick);
    assert_int_equal(x->n_texts, 2);
    char want[64];
    snprintf(want, sizeof want, "English counter %u", pick);
    assert_string_equal(x->texts[0], want);
    assert_string_equal(x->texts[1], "Second text");
    assert_non_null(x->symptom);
    assert_string_equal(x->fix, "regtool repair");
    rt_findings_free(&f);
    s->ops->close(s);

    s = cg_build(CG_ODD_LENGTH, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "blob-odd-length", "019");
    assert_non_null(x);
    assert_non_null(strstr(x->message, "Perflib\\019\\Counter is damaged at byte"));
    rt_findings_free(&f);
    s->ops->close(s);

    s = cg_build(CG_ORPHANS, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "orphan-strings", "009");
    assert_non_null(x);
    assert_int_equal(x->severity, RT_AUDIT_WARNING);
    /* ProvB's names 1858-1862, one run. */
    assert_int_equal(x->n_indices, 3);
    assert_int_equal(x->indices[0], CG_B_FIRST);
    assert_int_equal(x->indices[2], CG_B_LAST);
    rt_findings_free(&f);
    s->ops->close(s);

    /* Disabled: the fix names the service. */
    s = cg_build(CG_DISABLED, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "counters-disabled", NULL);
    assert_non_null(x);
    assert_string_equal(x->fix, "regtool enable ProvB");
    rt_findings_free(&f);
    s->ops->close(s);
}

/* What SPEC 4.6 calls normal is info, never an error or a warning. */
static void normal_things_are_info(void **state)
{
    (void)state;
    struct rt_store *s = cg_build(CG_LAST_COUNTER_HIGH, 1);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    assert_int_equal(f.errors, 0);
    assert_int_equal(f.warnings, 0);
    const struct rt_finding *x = find(&f, "last-counter-above-highest", NULL);
    assert_non_null(x);
    assert_int_equal(x->severity, RT_AUDIT_INFO);
    rt_findings_free(&f);
    s->ops->close(s);
}

static void combined_and_sorted(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    enum corruption mix[] = {CG_DUPLICATE, CG_ODD_LENGTH, CG_DISABLED,
                             CG_LAST_COUNTER_LOW, CG_OBJECT_LIST_OUTSIDE};
    for (size_t i = 0; i < sizeof mix / sizeof *mix; i++)
        cg_inject(s, mix[i], 7);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    for (size_t i = 0; i < sizeof mix / sizeof *mix; i++)
        assert_non_null(find(&f, cg_expect[mix[i]].id, cg_expect[mix[i]].lang));
    for (size_t i = 1; i < f.n; i++)
        assert_true(f.v[i - 1].severity <= f.v[i].severity);
    assert_true(f.errors >= 3);
    rt_findings_free(&f);

    /* --lang: only that language's findings. */
    audit_store(s, &f, "019");
    for (size_t i = 0; i < f.n; i++) {
        assert_non_null(f.v[i].language);
        assert_string_equal(f.v[i].language, "019");
    }
    assert_non_null(find(&f, "blob-odd-length", "019"));
    rt_findings_free(&f);
    s->ops->close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_database_has_no_error_or_warning),
        cmocka_unit_test(each_class_is_found),
        cmocka_unit_test(findings_carry_their_evidence),
        cmocka_unit_test(normal_things_are_info),
        cmocka_unit_test(combined_and_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
