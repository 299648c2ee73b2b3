/* The install/uninstall suite on the in-memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_suite.h"
#include "engine/audit.h"

static struct rt_store *mem_open(void *ctx)
{
    (void)ctx;
    return rt_store_mem_new();
}

static char *mem_exact(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return rt_store_mem_dump(s);
}

static int has_finding(const struct rt_findings *f, const char *id,
                       const char *lang)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].id, id) &&
            (!lang || (f->v[i].language && !strcmp(f->v[i].language, lang))))
            return 1;
    return 0;
}

/* A language the store serves fixed (Wine's Perflib\009 stub) is left
 * alone by install and uninstall, which write every other language and
 * say why that one was not; audit says so once (info) instead of taking
 * its missing strings for damage. */
static void fixed_language_is_left_alone(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    rt_store_mem_set_fixed(s, "009");
    struct rt_database db = load(s);
    const struct rt_db_language *en = rt_database_language(&db, "009");
    assert_true(en->fixed);
    assert_non_null(strstr(en->fixed_why, "served fixed"));
    size_t en_counter = en->tab[0].len, en_help = en->tab[1].len;
    rt_database_free(&db);
    char *before = snapshot_content(s);

    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    int seen_fixed = 0, seen_ru = 0;
    for (size_t i = 0; i < plan.n_langs; i++) {
        if (!strcmp(plan.langs[i].lang, "009")) {
            assert_non_null(strstr(plan.langs[i].fixed, "served fixed"));
            seen_fixed = 1;
        } else {
            assert_string_equal(plan.langs[i].fixed, "");
            seen_ru |= !strcmp(plan.langs[i].lang, "019");
        }
    }
    assert_true(seen_fixed && seen_ru);
    db = load(s);
    en = rt_database_language(&db, "009");
    assert_int_equal(en->tab[0].len, en_counter);
    assert_int_equal(en->tab[1].len, en_help);
    assert_null(rt_pair_list_find(&en->table.counter, plan.first_counter));
    assert_non_null(rt_pair_list_find(
        &rt_database_language(&db, "019")->table.counter, plan.first_counter));
    struct rt_findings f = {0};
    assert_int_equal(rt_audit(&db, NULL, &f), 0);
    assert_true(has_finding(&f, "language-fixed", "009"));
    assert_false(has_finding(&f, "english-missing", NULL));
    assert_false(has_finding(&f, "provider-strings-missing", NULL));
    assert_int_equal(f.errors, 0);
    rt_findings_free(&f);
    rt_database_free(&db);
    rt_install_plan_free(&plan);

    assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
    char *after = snapshot_content(s);
    assert_string_equal(before, after);
    free(before);
    free(after);
    free_spec(sp);
    s->ops->close(s);
}

int main(void)
{
    efx = (struct engine_fixture){mem_open, mem_exact, 1, NULL, 0};
    const struct CMUnitTest tests[] = {ENGINE_SUITE_TESTS
        cmocka_unit_test(fixed_language_is_left_alone),
    };
    return cmocka_run_group_tests_name("engine (mem store)", tests, NULL, NULL);
}
