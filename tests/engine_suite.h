/* The install/uninstall suite, run unchanged on every store (mem, hive in
 * both layouts): exact removal, allocation that never trusts Last Counter,
 * every language served, refusals that change nothing. The engine is pure;
 * these run it through rt_op_* as the CLI does. A test file defines the
 * fixture (efx) and runs ENGINE_SUITE_TESTS. */
#ifndef TEST_ENGINE_SUITE_H
#define TEST_ENGINE_SUITE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>

#include "ops/ops.h"
#include "store_snapshot.h"

/* --- fixtures ---------------------------------------------------------- */

/* How a store under test is made and compared: the suite runs unchanged
 * on every store. SNAPSHOT_EXACT must change whenever any byte the store
 * keeps changes; SNAPSHOT_CONTENT whenever anything a reader sees does. */
struct engine_fixture {
    struct rt_store *(*open_empty)(void *ctx);
    char *(*snapshot_exact)(struct rt_store *s, void *ctx);
    int has_current_language;   /* CurrentLanguage holds its own tables */
    void *ctx;
    /* Every language must have both its tables before a commit (.dat
     * files): a language key alone is refused. */
    int languages_need_tables;
};
static struct engine_fixture efx;

static const char16_t base_counter_009[] =
    u"1\0" "1847\0" "2\0System\0" "4\0Memory\0" "1846\0End Marker\0";
static const char16_t base_help_009[] =
    u"3\0System help.\0" "5\0Memory help.\0" "1847\0End Marker\0";
static const char16_t base_counter_019[] =
    u"1\0" "1847\0" "2\0\x0421\x0438\x0441\x0442\x0435\x043c\x0430\0"
    "4\0\x041f\x0430\x043c\x044f\x0442\x044c\0" "1846\0End Marker\0";
static const char16_t base_help_019[] =
    u"3\0\x0421.\0" "5\0\x041f.\0" "1847\0End Marker\0";

/* Set-up goes through the store interface, as one change set each. */
static void apply_set(struct rt_store *s, struct rt_change_set *cs)
{
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, cs, &e) != 0)
        fail_msg("set-up apply: %s", e.message);
    s->ops->end(s);
    rt_change_set_free(cs);
}

static void put_dword(struct rt_store *s, const char *name, uint32_t x)
{
    struct rt_change_set cs = {0};
    struct rt_value v;
    rt_value_from_dword(&v, x);
    assert_int_equal(rt_change_set_perflib(&cs, name, &v), 0);
    rt_value_free(&v);
    apply_set(s, &cs);
}

static void put_service_value(struct rt_store *s, const char *svc,
                              const char *name, const struct rt_value *v)
{
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_service(&cs, svc, name, v), 0);
    apply_set(s, &cs);
}

static void put_service(struct rt_store *s, const char *name)
{
    struct rt_change_set cs = {0};
    struct rt_value v;
    assert_int_equal(rt_change_set_create_perf_key(&cs, name), 0);
    rt_value_from_string(&v, RT_REG_EXPAND_SZ, "%SystemRoot%\\prov.dll");
    assert_int_equal(rt_change_set_service(&cs, name, "Library", &v), 0);
    rt_value_free(&v);
    apply_set(s, &cs);
}

/* A provider's range as lodctr leaves it in its Performance key. */
static void put_range(struct rt_store *s, const char *svc, uint32_t fc,
                      uint32_t lc, uint32_t fh, uint32_t lh)
{
    static const char *const names[] = {"First Counter", "Last Counter",
                                        "First Help", "Last Help"};
    const uint32_t x[] = {fc, lc, fh, lh};
    for (size_t i = 0; i < 4; i++) {
        struct rt_value v;
        rt_value_from_dword(&v, x[i]);
        put_service_value(s, svc, names[i], &v);
        rt_value_free(&v);
    }
}

static void put_language(struct rt_store *s, const char *lang)
{
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, lang), 0);
    apply_set(s, &cs);
}

static void put_table(struct rt_store *s, const char *lang,
                      enum rt_table_kind t, const void *blob, size_t len)
{
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, lang), 0);
    assert_int_equal(rt_change_set_table(&cs, lang, t, blob, len, NULL, NULL),
                     0);
    apply_set(s, &cs);
}

#define PUT(s, l, t, b) put_table(s, l, t, b, sizeof(b))

/* Both tables of a language in one change set: a store that keeps them
 * in files wants both before its next commit. */
static void put_tables(struct rt_store *s, const char *lang, const void *c,
                       size_t clen, const void *h, size_t hlen)
{
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, lang), 0);
    assert_int_equal(rt_change_set_table(&cs, lang, RT_TABLE_COUNTER, c, clen,
                                         NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(&cs, lang, RT_TABLE_HELP, h, hlen,
                                         NULL, NULL), 0);
    apply_set(s, &cs);
}
#define PUT2(s, l, c, h) put_tables(s, l, c, sizeof(c), h, sizeof(h))

/* 009, 019, 00C (00C with English base tables), the Perflib values, and
 * services Transfer and Peer with Performance keys. */
static struct rt_store *base_store(void)
{
    struct rt_store *s = efx.open_empty(efx.ctx);
    PUT2(s, "009", base_counter_009, base_help_009);
    PUT2(s, "019", base_counter_019, base_help_019);
    PUT2(s, "00C", base_counter_009, base_help_009);
    put_dword(s, "Last Counter", 1846);
    put_dword(s, "Last Help", 1847);
    put_dword(s, "Base Index", 1847);
    put_service(s, "Transfer");
    put_service(s, "Peer");
    return s;
}

/* A real machine's Perflib, as a real PerfStringBackup.INI has it
 * (psb-C-009 in ../shared/research-real, docs/design.md, "What real
 * machines look like"): Last Counter 11174 and Last Help 11175 while the
 * highest index present is 6137, the end of the highest provider's range
 * (.NET CLR Networking 4.0.0.0, names 6110-6136, help 6111-6137; "Net"
 * here), in every language. */
static struct rt_store *real_machine_store(void)
{
    struct rt_store *s = base_store();
    struct rt_database db;
    struct rt_error e;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    for (size_t i = 0; i < db.n_langs; i++) {
        struct rt_db_language *l = &db.langs[i];
        for (uint32_t x = 6110; x <= 6136; x += 2) {
            char t[64];
            snprintf(t, sizeof t, "Net %s %u", l->id, x);
            assert_int_equal(rt_pair_list_append(&l->table.counter, x, t), 0);
            snprintf(t, sizeof t, "Net %s help %u", l->id, x + 1);
            assert_int_equal(rt_pair_list_append(&l->table.help, x + 1, t), 0);
        }
        uint8_t *c, *h;
        size_t clen, hlen;
        assert_int_equal(rt_pair_list_encode(&l->table.counter, &c, &clen), 0);
        assert_int_equal(rt_pair_list_encode(&l->table.help, &h, &hlen), 0);
        put_tables(s, l->id, c, clen, h, hlen);
        free(c);
        free(h);
    }
    rt_database_free(&db);
    put_service(s, "Net");
    put_range(s, "Net", 6110, 6136, 6111, 6137);
    put_dword(s, "Last Counter", 11174);
    put_dword(s, "Last Help", 11175);
    return s;
}

/* Everything a reader of the store sees, through the store interface. */
static char *snapshot_content(struct rt_store *s)
{
    struct rt_strbuf b = {0};
    snap_store_content(&b, s);
    return snap_take(&b);
}

static char *snapshot_exact(struct rt_store *s)
{
    return efx.snapshot_exact(s, efx.ctx);
}

/* A provider spec built by hand, as the INI loader would fill it. */
struct spec_builder {
    struct rt_provider_spec spec;
};

static struct rt_provider_spec *make_spec(const char *driver,
                                          const char *const *langs,
                                          size_t n_langs, size_t n_symbols)
{
    struct rt_provider_spec *sp = calloc(1, sizeof *sp);
    sp->ini_path = strdup("/x/prov.ini");
    sp->drivername = strdup(driver);
    sp->languages = calloc(n_langs, sizeof *sp->languages);
    sp->n_languages = n_langs;
    for (size_t i = 0; i < n_langs; i++)
        strcpy(sp->languages[i].id, langs[i]);
    sp->symbols = calloc(n_symbols, sizeof *sp->symbols);
    sp->n_symbols = n_symbols;
    for (size_t k = 0; k < n_symbols; k++) {
        struct rt_provider_symbol *sym = &sp->symbols[k];
        char buf[64];
        snprintf(buf, sizeof buf, "SYM%zu", k);
        sym->symbol = strdup(buf);
        sym->offset = (long)(2 * k);
        sym->is_object = k == 0;
        sym->text = calloc(n_langs, sizeof *sym->text);
        sym->n_text = n_langs;
        for (size_t i = 0; i < n_langs; i++) {
            sym->text[i].lang = (unsigned)i;
            snprintf(buf, sizeof buf, "%s %s name %zu", driver, langs[i], k);
            sym->text[i].name = strdup(buf);
            snprintf(buf, sizeof buf, "%s %s help %zu", driver, langs[i], k);
            sym->text[i].help = strdup(buf);
        }
    }
    return sp;
}

static void free_spec(struct rt_provider_spec *sp)
{
    rt_provider_spec_free(sp);
    free(sp);
}

static const char *const en_ru[] = {"009", "019"};

static int install(struct rt_store *s, const struct rt_provider_spec *sp,
                   int replace, struct rt_install_plan *plan,
                   struct rt_error *e)
{
    struct rt_install_options opt = {.replace = replace};
    struct rt_change_set cs;
    struct rt_install_plan p;
    int r = rt_op_install(s, sp, &opt, 0, &cs, plan ? plan : &p, e);
    if (r == 0) {
        rt_change_set_free(&cs);
        if (!plan)
            rt_install_plan_free(&p);
    }
    return r;
}

static int uninstall_plan(struct rt_store *s, const char *drv, int force,
                          int dry_run, struct rt_uninstall_plan *plan,
                          struct rt_error *e)
{
    struct rt_change_set cs;
    int r = rt_op_uninstall(s, drv, force, dry_run, &cs, plan, e);
    if (r == 0)
        rt_change_set_free(&cs);
    return r;
}

static int uninstall(struct rt_store *s, const char *drv, int force,
                     struct rt_error *e)
{
    struct rt_uninstall_plan p;
    return uninstall_plan(s, drv, force, 0, &p, e);
}

static struct rt_database load(struct rt_store *s)
{
    struct rt_database db;
    struct rt_error e;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    return db;
}

static void assert_no_duplicates(const struct rt_database *db)
{
    for (size_t i = 0; i < db->n_langs; i++) {
        struct rt_duplicate *d;
        assert_int_equal(rt_pair_list_duplicates(&db->langs[i].table.counter, &d), 0);
        assert_int_equal(rt_pair_list_duplicates(&db->langs[i].table.help, &d), 0);
    }
}

/* --- tests ------------------------------------------------------------- */

static void install_then_uninstall_restores_everything(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    char *before = snapshot_content(s);
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    assert_int_equal(plan.first_counter, 1848);
    assert_int_equal(plan.last_counter, 1852);
    assert_int_equal(plan.first_help, 1849);
    assert_int_equal(plan.last_help, 1853);
    rt_install_plan_free(&plan);

    struct rt_database db = load(s);
    assert_int_equal(db.last_counter, 1852);
    assert_int_equal(db.last_help, 1853);
    const struct rt_service_info *svc = rt_database_service(&db, "Transfer");
    assert_non_null(svc);
    assert_int_equal(svc->first_counter, 1848);
    assert_string_equal(svc->object_list, "1848");
    assert_string_equal(svc->ini_file, "prov.ini");
    const struct rt_db_language *ru = rt_database_language(&db, "019");
    assert_string_equal(rt_pair_list_find(&ru->table.counter, 1850)->text,
                        "Transfer 019 name 1");
    assert_string_equal(rt_pair_list_find(&ru->table.help, 1853)->text,
                        "Transfer 019 help 2");
    rt_database_free(&db);

    assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
    char *after = snapshot_content(s);
    assert_string_equal(after, before);
    free(before);
    free(after);
    free_spec(sp);
    s->ops->close(s);
}

static void uninstalling_first_leaves_second_untouched(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 2);
    struct rt_provider_spec *b = make_spec("Peer", en_ru, 2, 3);
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);
    assert_int_equal(install(s, b, 0, NULL, &e), 0);
    struct rt_database db1 = load(s);
    assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
    struct rt_database db2 = load(s);
    const struct rt_service_info *peer = rt_database_service(&db2, "Peer");
    assert_int_equal(peer->first_counter, 1852);
    for (size_t i = 0; i < db2.n_langs; i++) {
        const struct rt_db_language *l1 = &db1.langs[i], *l2 = &db2.langs[i];
        /* Transfer's 2 names gone, Peer's 3 in place, in order. */
        assert_int_equal(l2->table.counter.n, l1->table.counter.n - 2);
        for (uint32_t idx = 1852; idx <= 1856; idx += 2) {
            const struct rt_pair *p1 = rt_pair_list_find(&l1->table.counter, idx);
            const struct rt_pair *p2 = rt_pair_list_find(&l2->table.counter, idx);
            assert_non_null(p2);
            assert_string_equal(p1->text, p2->text);
        }
        assert_null(rt_pair_list_find(&l2->table.counter, 1848));
        assert_null(rt_pair_list_find(&l2->table.help, 1851));
    }
    /* Peer stays on top: Last Counter unchanged. */
    assert_int_equal(db2.last_counter, 1856);
    rt_database_free(&db1);
    rt_database_free(&db2);
    free_spec(a);
    free_spec(b);
    s->ops->close(s);
}

static void low_last_counter_gives_no_duplicates(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 4);
    struct rt_provider_spec *b = make_spec("Peer", en_ru, 2, 4);
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);
    put_dword(s, "Last Counter", 10);      /* damaged: far too low */
    put_dword(s, "Last Help", 11);
    struct rt_install_plan plan;
    assert_int_equal(install(s, b, 0, &plan, &e), 0);
    assert_int_equal(plan.first_counter, 1856);
    assert_int_equal(plan.first_help, 1857);
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    assert_no_duplicates(&db);
    assert_int_equal(db.last_counter, 1862);
    rt_database_free(&db);
    free_spec(a);
    free_spec(b);
    s->ops->close(s);
}

static void language_missing_from_ini_gets_english(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 2);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    assert_int_equal(plan.n_langs, 3);
    const struct rt_language_source *fr_src = NULL;
    for (size_t i = 0; i < plan.n_langs; i++)
        if (!strcmp(plan.langs[i].lang, "00C"))
            fr_src = &plan.langs[i];
    assert_non_null(fr_src);
    assert_string_equal(fr_src->source, "009");
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    const struct rt_db_language *fr = rt_database_language(&db, "00C");
    assert_string_equal(rt_pair_list_find(&fr->table.counter, 1848)->text,
                        "Transfer 009 name 0");
    assert_string_equal(rt_pair_list_find(&fr->table.help, 1851)->text,
                        "Transfer 009 help 1");
    rt_database_free(&db);
    free_spec(sp);

    /* Without English in the INI: its first language. */
    static const char *const ru_only[] = {"019"};
    sp = make_spec("Peer", ru_only, 1, 1);
    assert_int_equal(install(s, sp, 0, NULL, &e), 0);
    db = load(s);
    assert_string_equal(
        rt_pair_list_find(&rt_database_language(&db, "009")->table.counter,
                          1852)->text,
        "Peer 019 name 0");
    rt_database_free(&db);
    free_spec(sp);
    s->ops->close(s);
}

static void ini_language_absent_from_machine_changes_nothing_else(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    static const char *const langs[] = {"009", "011"};
    struct rt_provider_spec *sp = make_spec("Transfer", langs, 2, 2);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    assert_int_equal(plan.n_missing, 1);
    assert_string_equal(plan.missing[0], "011");
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    assert_null(rt_database_language(&db, "011"));
    assert_int_equal(db.n_langs, 3);
    assert_int_equal(db.last_counter, 1850);   /* never reset (Q128404) */
    assert_int_equal(db.last_help, 1851);
    rt_database_free(&db);
    free_spec(sp);
    s->ops->close(s);
}

static void replace_keeps_first_index(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 3);
    struct rt_provider_spec *peer = make_spec("Peer", en_ru, 2, 1);
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);
    assert_int_equal(install(s, peer, 0, NULL, &e), 0);
    /* A smaller new version fits in the old place. */
    struct rt_provider_spec *a2 = make_spec("Transfer", en_ru, 2, 2);
    free(a2->symbols[1].text[0].name);
    a2->symbols[1].text[0].name = strdup("Renamed");
    struct rt_install_plan plan;
    assert_int_equal(install(s, a2, 1, &plan, &e), 0);
    assert_true(plan.replaced && plan.kept_position);
    assert_int_equal(plan.first_counter, 1848);
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    const struct rt_db_language *en = rt_database_language(&db, "009");
    assert_string_equal(rt_pair_list_find(&en->table.counter, 1850)->text,
                        "Renamed");
    assert_null(rt_pair_list_find(&en->table.counter, 1852));
    assert_no_duplicates(&db);
    assert_int_equal(rt_database_service(&db, "Transfer")->last_counter, 1850);
    rt_database_free(&db);
    /* A larger one moves to the top. */
    struct rt_provider_spec *a3 = make_spec("Transfer", en_ru, 2, 5);
    assert_int_equal(install(s, a3, 1, &plan, &e), 0);
    assert_false(plan.kept_position);
    assert_int_equal(plan.first_counter, 1856);
    rt_install_plan_free(&plan);
    db = load(s);
    assert_no_duplicates(&db);
    assert_null(rt_pair_list_find(&rt_database_language(&db, "009")->table.counter, 1848));
    rt_database_free(&db);
    free_spec(a);
    free_spec(a2);
    free_spec(a3);
    free_spec(peer);
    s->ops->close(s);
}

/* --replace into its own slot: the provider keeps its First Counter and
 * First Help when the new version has as many counters as the old or
 * fewer, and Perflib's Last Counter and Last Help never go down (indices
 * the old version used may be cached by consumers, docs/design.md,
 * "Allocating indices"). */
static void assert_range(struct rt_store *s, uint32_t fc, uint32_t lc,
                         uint32_t fh, uint32_t lh, uint32_t perflib_lc,
                         uint32_t perflib_lh)
{
    struct rt_database db = load(s);
    const struct rt_service_info *t = rt_database_service(&db, "Transfer");
    assert_non_null(t);
    assert_int_equal(t->first_counter, fc);
    assert_int_equal(t->last_counter, lc);
    assert_int_equal(t->first_help, fh);
    assert_int_equal(t->last_help, lh);
    assert_int_equal(db.last_counter, perflib_lc);
    assert_int_equal(db.last_help, perflib_lh);
    assert_no_duplicates(&db);
    rt_database_free(&db);
}

static void replace_in_own_slot_keeps_indices(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 3);
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);
    assert_range(s, 1848, 1852, 1849, 1853, 1852, 1853);

    /* The same number of counters: the same slot, to the last pair. */
    struct rt_provider_spec *same = make_spec("Transfer", en_ru, 2, 3);
    free(same->symbols[2].text[0].help);
    same->symbols[2].text[0].help = strdup("New last help");
    struct rt_install_plan plan;
    assert_int_equal(install(s, same, 1, &plan, &e), 0);
    assert_true(plan.replaced && plan.kept_position);
    assert_int_equal(plan.first_counter, 1848);
    assert_int_equal(plan.first_help, 1849);
    rt_install_plan_free(&plan);
    assert_range(s, 1848, 1852, 1849, 1853, 1852, 1853);
    struct rt_database db = load(s);
    assert_string_equal(
        rt_pair_list_find(&rt_database_language(&db, "009")->table.help, 1853)
            ->text,
        "New last help");
    rt_database_free(&db);

    /* Fewer: the same first indices; Perflib's Last Counter and Last
     * Help stay where the old version's range ended. */
    struct rt_provider_spec *one = make_spec("Transfer", en_ru, 2, 1);
    assert_int_equal(install(s, one, 1, &plan, &e), 0);
    assert_true(plan.kept_position);
    rt_install_plan_free(&plan);
    assert_range(s, 1848, 1848, 1849, 1849, 1852, 1853);
    db = load(s);
    const struct rt_db_language *en = rt_database_language(&db, "009");
    assert_null(rt_pair_list_find(&en->table.counter, 1850));
    assert_null(rt_pair_list_find(&en->table.help, 1853));
    rt_database_free(&db);
    free_spec(a);
    free_spec(same);
    free_spec(one);
    s->ops->close(s);
}

static void refusals_leave_store_identical(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 2);
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, NULL, &e), 0);
    char *before = snapshot_exact(s);

    assert_int_equal(install(s, sp, 0, NULL, &e), -1);
    assert_int_equal(e.code, RT_ERR_ALREADY_EXISTS);
    assert_non_null(strstr(e.message, "'Transfer' is already installed"));

    struct rt_provider_spec *ghost = make_spec("NoSuchService", en_ru, 2, 1);
    assert_int_equal(install(s, ghost, 0, NULL, &e), -1);
    assert_int_equal(e.code, RT_ERR_FILE_NOT_FOUND);
    assert_non_null(strstr(e.message, "service 'NoSuchService' does not exist"));

    assert_int_equal(uninstall(s, "Peer", 0, &e), -1);
    assert_int_equal(e.code, RT_ERR_FILE_NOT_FOUND);
    assert_non_null(strstr(e.message, "'Peer' is not installed"));

    /* Peer claims a range overlapping Transfer's: refused without --force. */
    put_service(s, "Rogue");
    put_range(s, "Rogue", 1850, 1852, 1851, 1853);
    free(before);
    before = snapshot_exact(s);
    assert_int_equal(uninstall(s, "Rogue", 0, &e), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_non_null(strstr(e.message, "overlaps provider 'Transfer'"));
    char *after = snapshot_exact(s);
    assert_string_equal(after, before);
    free(after);
    /* Names alone overlapping Transfer's, or helps alone: refused alike
     * (either table would lose Transfer's strings). */
    struct rt_service_info tr;
    assert_int_equal(rt_service_load(s, "Transfer", &tr, &e), 0);
    const uint32_t lc = tr.last_counter, lh = tr.last_help;
    rt_service_info_free(&tr);
    const uint32_t lone[2][4] = {{lc, lc, lh + 2, lh + 2},
                                 {lc + 2, lc + 2, lh, lh}};
    for (int k = 0; k < 2; k++) {
        put_range(s, "Rogue", lone[k][0], lone[k][1], lone[k][2], lone[k][3]);
        free(before);
        before = snapshot_exact(s);
        assert_int_equal(uninstall(s, "Rogue", 0, &e), -1);
        assert_int_equal(e.code, RT_ERR_INVALID_DATA);
        assert_non_null(strstr(e.message, "overlaps provider 'Transfer'"));
        after = snapshot_exact(s);
        assert_string_equal(after, before);
        free(after);
    }
    put_range(s, "Rogue", 1850, 1852, 1851, 1853);
    assert_int_equal(uninstall(s, "Rogue", 1, &e), 0);

    /* --replace of a provider whose recorded range lies on the base
     * range (one of the system's providers: install's trust check), or on
     * another provider's: refused, as uninstall is. */
    put_service(s, "Squat");
    put_range(s, "Squat", 2, 4, 3, 5);
    free(before);
    before = snapshot_exact(s);
    struct rt_provider_spec *squat = make_spec("Squat", en_ru, 2, 2);
    assert_int_equal(install(s, squat, 1, NULL, &e), -1);
    assert_int_equal(e.code, RT_ERR_ALREADY_EXISTS);
    assert_non_null(strstr(e.message, "onto service 'Squat': it is one of "
                                      "the system's providers: its range"));
    put_range(s, "Squat", 1850, 1852, 1851, 1853);
    free(before);
    before = snapshot_exact(s);
    assert_int_equal(install(s, squat, 1, NULL, &e), -1);
    assert_non_null(strstr(e.message, "overlaps provider 'Transfer'"));
    after = snapshot_exact(s);
    assert_string_equal(after, before);
    free(after);
    free_spec(squat);
    assert_int_equal(uninstall(s, "Squat", 1, &e), 0);

    /* Names that are no Services subkey (a path below another service,
     * Services itself, a path step): refused for every writer. */
    free(before);
    before = snapshot_exact(s);
    static const char *const escapes[] = {"..\\Transfer", "Transfer\\x", "",
                                          "..", "Transfer/x"};
    for (size_t i = 0; i < sizeof escapes / sizeof *escapes; i++) {
        assert_int_equal(uninstall(s, escapes[i], 1, &e), -1);
        assert_int_equal(e.code, RT_ERR_INVALID_PARAMETER);
        assert_non_null(strstr(e.message, "is not a service name"));
        assert_int_equal(rt_op_set_disabled(s, escapes[i], 1, &e), -1);
        assert_int_equal(e.code, RT_ERR_INVALID_PARAMETER);
    }
    after = snapshot_exact(s);
    assert_string_equal(after, before);
    free(after);

    /* A damaged table: install refused, nothing written. */
    static const uint8_t bad[] = {'2', 0, 0, 0, 'x'};
    put_table(s, "019", RT_TABLE_HELP, bad, sizeof bad);
    free(before);
    before = snapshot_exact(s);
    struct rt_provider_spec *peer = make_spec("Peer", en_ru, 2, 1);
    assert_int_equal(install(s, peer, 0, NULL, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, "Perflib\\019\\Help is damaged at byte 0 (odd number of strings"));
    after = snapshot_exact(s);
    assert_string_equal(after, before);
    free(after);
    free(before);
    free_spec(sp);
    free_spec(ghost);
    free_spec(peer);
    s->ops->close(s);
}

static void fresh_database_gets_base_values_and_english(void **state)
{
    (void)state;
    /* A fresh Wine prefix: Perflib with 019 only, no values at all. */
    struct rt_store *s = efx.open_empty(efx.ctx);
    put_language(s, "019");
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 2);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    if (!efx.languages_need_tables)
        put_service(s, "Transfer");
    else {
        /* A language whose .dat files are missing: refused, nothing
         * written (its tables exist somewhere we do not look). */
        char *before = snapshot_exact(s);
        assert_int_equal(install(s, sp, 0, &plan, &e), -1);
        assert_int_equal(e.code, RT_ERR_BADDB);
        assert_non_null(strstr(e.message, "perfc019.dat is missing"));
        char *after = snapshot_exact(s);
        assert_string_equal(after, before);
        free(before);
        free(after);
        free_spec(sp);
        s->ops->close(s);
        return;
    }
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    assert_int_equal(plan.first_counter, 1848);
    int created_009 = 0;
    for (size_t i = 0; i < plan.n_langs; i++)
        created_009 |= !strcmp(plan.langs[i].lang, "009") && plan.langs[i].created;
    assert_true(created_009);
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    assert_true(db.has_last_counter && db.has_last_help && db.has_base_index);
    assert_int_equal(db.base_index, 1847);
    assert_int_equal(db.last_counter, 1850);
    const struct rt_db_language *en = rt_database_language(&db, "009");
    assert_non_null(en);
    assert_int_equal(en->table.counter.n, 2);
    rt_database_free(&db);
    free_spec(sp);
    s->ops->close(s);
}

static void current_language_follows_its_language(void **state)
{
    (void)state;
    if (!efx.has_current_language)
        skip();   /* with .dat tables it is served from the UI language's */
    struct rt_store *s = base_store();
    PUT(s, "CurrentLanguage", RT_TABLE_COUNTER, base_counter_019);
    PUT(s, "CurrentLanguage", RT_TABLE_HELP, base_help_019);
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 1);
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, NULL, &e), 0);
    struct rt_database db = load(s);
    const struct rt_db_language *cur = rt_database_language(&db, "CurrentLanguage");
    assert_string_equal(rt_pair_list_find(&cur->table.counter, 1848)->text,
                        "Transfer 019 name 0");
    rt_database_free(&db);
    free_spec(sp);
    s->ops->close(s);
}

/* .NET's INIs carry CurrentLanguage as a language of their own: its text
 * goes to the CurrentLanguage key, whatever language that mirrors. */
static void ini_current_language_text_goes_to_current_language(void **state)
{
    (void)state;
    if (!efx.has_current_language)
        skip();
    struct rt_store *s = base_store();
    PUT(s, "CurrentLanguage", RT_TABLE_COUNTER, base_counter_019);
    PUT(s, "CurrentLanguage", RT_TABLE_HELP, base_help_019);
    static const char *const langs[] = {"009", "019", "CurrentLanguage"};
    struct rt_provider_spec *sp = make_spec("Transfer", langs, 3, 1);
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(install(s, sp, 0, &plan, &e), 0);
    assert_int_equal(plan.n_missing, 0);
    const struct rt_language_source *cur_src = NULL;
    for (size_t i = 0; i < plan.n_langs; i++)
        if (!strcmp(plan.langs[i].lang, "CurrentLanguage"))
            cur_src = &plan.langs[i];
    assert_non_null(cur_src);
    assert_string_equal(cur_src->source, "CurrentLanguage");
    rt_install_plan_free(&plan);
    struct rt_database db = load(s);
    const struct rt_db_language *cur = rt_database_language(&db, "CurrentLanguage");
    assert_string_equal(rt_pair_list_find(&cur->table.counter, 1848)->text,
                        "Transfer CurrentLanguage name 0");
    assert_string_equal(rt_pair_list_find(&cur->table.help, 1849)->text,
                        "Transfer CurrentLanguage help 0");
    const struct rt_db_language *ru = rt_database_language(&db, "019");
    assert_string_equal(rt_pair_list_find(&ru->table.counter, 1848)->text,
                        "Transfer 019 name 0");
    rt_database_free(&db);
    free_spec(sp);
    s->ops->close(s);
}

static void dry_run_writes_nothing(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    char *before = snapshot_exact(s);
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 2);
    struct rt_install_options opt = {0};
    struct rt_change_set cs;
    struct rt_install_plan plan;
    struct rt_error e = {0};
    assert_int_equal(rt_op_install(s, sp, &opt, 1, &cs, &plan, &e), 0);
    /* 3 languages x 2 tables, Last Counter, Last Help, 4 range values,
     * Object List, PerfIniFile. */
    assert_int_equal(cs.n, 6 + 2 + 4 + 2);
    assert_int_equal(cs.v[0].added.n, 2);
    char *after = snapshot_exact(s);
    assert_string_equal(after, before);
    free(before);
    free(after);
    rt_change_set_free(&cs);
    rt_install_plan_free(&plan);
    free_spec(sp);
    s->ops->close(s);
}

static void assert_perflib(struct rt_store *s, uint32_t lc, uint32_t lh)
{
    struct rt_database db = load(s);
    assert_int_equal(db.last_counter, lc);
    assert_int_equal(db.last_help, lh);
    rt_database_free(&db);
}

static void assert_last(const struct rt_last_change *c, int on_top,
                        enum rt_last_rule rule, uint32_t old, uint32_t now)
{
    assert_int_equal(c->on_top, on_top);
    assert_int_equal(c->rule, rule);
    assert_int_equal(c->old_value, old);
    assert_int_equal(c->new_value, now);
}

/* Uninstall's rules (docs/design.md, "Uninstall") on a real machine's
 * values (docs/design.md, "What real machines look like"): install then
 * uninstall leaves every table and Perflib value as before, a second
 * install gets the same indices, and the highest range on the machine, far
 * below Last Counter, is not on top. */
static void real_machine_install_uninstall_restores_last_counter(void **state)
{
    (void)state;
    struct rt_store *s = real_machine_store();
    char *before = snapshot_content(s);
    struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
    struct rt_install_plan plan;
    struct rt_uninstall_plan up;
    struct rt_error e = {0};
    for (int round = 0; round < 2; round++) {
        assert_int_equal(install(s, sp, 0, &plan, &e), 0);
        assert_int_equal(plan.first_counter, 11176);
        assert_int_equal(plan.last_counter, 11180);
        assert_int_equal(plan.first_help, 11177);
        assert_int_equal(plan.last_help, 11181);
        rt_install_plan_free(&plan);
        assert_perflib(s, 11180, 11181);

        /* --dry-run says the same and writes nothing. */
        char *installed = snapshot_exact(s);
        assert_int_equal(uninstall_plan(s, "Transfer", 0, 1, &up, &e), 0);
        assert_last(&up.counter, 1, RT_LAST_FOUND, 11180, 11174);
        assert_last(&up.help, 1, RT_LAST_FOUND, 11181, 11175);
        assert_string_equal(up.counter.why,
                            "Last Counter 11180 -> 11174: 'Transfer' was on "
                            "top (Last Counter 11180 is within its names "
                            "11176-11180), back to where its install found "
                            "it (First Counter 11176 - 2)");
        char *after = snapshot_exact(s);
        assert_string_equal(after, installed);
        free(after);
        free(installed);

        assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &up, &e), 0);
        assert_last(&up.counter, 1, RT_LAST_FOUND, 11180, 11174);
        assert_last(&up.help, 1, RT_LAST_FOUND, 11181, 11175);
        after = snapshot_content(s);
        assert_string_equal(after, before);
        free(after);
    }

    /* Net has the highest range, but Last Counter is far above it. */
    assert_int_equal(uninstall_plan(s, "Net", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 0, RT_LAST_KEPT, 11174, 11174);
    assert_last(&up.help, 0, RT_LAST_KEPT, 11175, 11175);
    assert_string_equal(up.counter.why,
                        "Last Counter 11174 unchanged: 'Net' is not on top "
                        "(Last Counter 11174 is above its names 6110-6136)");
    assert_perflib(s, 11174, 11175);
    free(before);
    free_spec(sp);
    s->ops->close(s);
}

/* Two providers: the lower one's uninstall leaves Last Counter/Last Help
 * alone; the top one's, then the other's, give the original values. */
static void two_providers_give_back_last_counter_top_first(void **state)
{
    (void)state;
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 2);
    struct rt_provider_spec *b = make_spec("Peer", en_ru, 2, 3);
    struct rt_uninstall_plan up;
    struct rt_error e = {0};

    /* Lower first: nothing moves; then the top one goes back to where
     * its install found the values, above the lower one's old range,
     * which stays handed out. */
    struct rt_store *s = real_machine_store();
    assert_int_equal(install(s, a, 0, NULL, &e), 0);   /* 11176-11178 */
    assert_int_equal(install(s, b, 0, NULL, &e), 0);   /* 11180-11184 */
    assert_perflib(s, 11184, 11185);
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 0, RT_LAST_KEPT, 11184, 11184);
    assert_last(&up.help, 0, RT_LAST_KEPT, 11185, 11185);
    assert_perflib(s, 11184, 11185);
    assert_int_equal(uninstall_plan(s, "Peer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_FOUND, 11184, 11178);
    assert_perflib(s, 11178, 11179);
    s->ops->close(s);

    /* Top first, then the other: the original values. */
    s = real_machine_store();
    char *before = snapshot_content(s);
    assert_int_equal(install(s, a, 0, NULL, &e), 0);
    assert_int_equal(install(s, b, 0, NULL, &e), 0);
    assert_int_equal(uninstall_plan(s, "Peer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_FOUND, 11184, 11178);
    assert_last(&up.help, 1, RT_LAST_FOUND, 11185, 11179);
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_FOUND, 11178, 11174);
    assert_last(&up.help, 1, RT_LAST_FOUND, 11179, 11175);
    char *after = snapshot_content(s);
    assert_string_equal(after, before);
    free(after);
    free(before);
    free_spec(a);
    free_spec(b);
    s->ops->close(s);
}

static void assert_not_below_highest(struct rt_store *s)
{
    struct rt_database db = load(s);
    assert_true(db.last_counter >= rt_database_highest(&db, RT_TABLE_COUNTER));
    assert_true(db.last_help >= rt_database_highest(&db, RT_TABLE_HELP));
    assert_true(db.last_counter >= 1846 && db.last_help >= 1847);
    rt_database_free(&db);
}

/* The first index of a new range is the next even index at least two
 * above the top (Last Counter, or Last Help - 1, whichever is higher):
 * names even, help odd, from odd and even tops alike. */
static void allocation_from_odd_and_even_tops(void **state)
{
    (void)state;
    static const struct {
        uint32_t lc, lh, first;
    } cases[] = {
        {1846, 1847, 1848},   /* even top */
        {1849, 1850, 1852},   /* odd Last Counter */
        {1850, 1851, 1852},
        {1851, 1852, 1854},
        {1846, 1853, 1854},   /* Last Help on top */
        {1846, 1854, 1856},   /* even Last Help: top 1853, odd */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct rt_store *s = base_store();
        put_dword(s, "Last Counter", cases[i].lc);
        put_dword(s, "Last Help", cases[i].lh);
        struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
        struct rt_install_plan plan;
        struct rt_error e = {0};
        assert_int_equal(install(s, sp, 0, &plan, &e), 0);
        assert_int_equal(plan.first_counter, cases[i].first);
        assert_int_equal(plan.first_help, cases[i].first + 1);
        assert_int_equal(plan.last_counter, cases[i].first + 4);
        rt_install_plan_free(&plan);
        struct rt_database db = load(s);
        assert_int_equal(db.last_counter, cases[i].first + 4);
        assert_int_equal(db.last_help, cases[i].first + 5);
        assert_non_null(rt_pair_list_find(
            &rt_database_language(&db, "009")->table.counter, cases[i].first));
        assert_non_null(rt_pair_list_find(
            &rt_database_language(&db, "019")->table.help, cases[i].first + 1));
        rt_database_free(&db);
        free_spec(sp);
        s->ops->close(s);
    }
}

/* An odd index in the Counter table at the top (1851: a name where help
 * belongs), with Last Counter there or lying below it: the new range
 * starts at the next even index above it, never on or below it. */
static void allocation_above_an_odd_index_in_counter(void **state)
{
    (void)state;
    static const char16_t c009[] = u"1\0" "1847\0" "2\0System\0" "4\0Memory\0"
                                   "1846\0End Marker\0" "1851\0Odd One\0";
    static const uint32_t last_counter[] = {1851, 1847};
    for (size_t i = 0; i < 2; i++) {
        struct rt_store *s = base_store();
        PUT2(s, "009", c009, base_help_009);
        put_dword(s, "Last Counter", last_counter[i]);
        put_dword(s, "Last Help", 1848);
        struct rt_provider_spec *sp = make_spec("Transfer", en_ru, 2, 3);
        struct rt_install_plan plan;
        struct rt_error e = {0};
        assert_int_equal(install(s, sp, 0, &plan, &e), 0);
        assert_int_equal(plan.first_counter, 1854);
        assert_int_equal(plan.first_help, 1855);
        rt_install_plan_free(&plan);
        struct rt_database db = load(s);
        const struct rt_db_language *en = rt_database_language(&db, "009");
        assert_string_equal(rt_pair_list_find(&en->table.counter, 1851)->text,
                            "Odd One");
        assert_non_null(rt_pair_list_find(&en->table.counter, 1854));
        assert_int_equal(db.last_counter, 1858);
        assert_no_duplicates(&db);
        rt_database_free(&db);
        free_spec(sp);
        s->ops->close(s);
    }
}

/* A Last Counter that lies, below the highest index present: after any
 * uninstall the values are never below the highest index still present. */
static void lying_last_counter_never_ends_below_highest(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 3);
    struct rt_provider_spec *b = make_spec("Peer", en_ru, 2, 3);
    struct rt_uninstall_plan up;
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);   /* 1848-1852 */
    assert_int_equal(install(s, b, 0, NULL, &e), 0);   /* 1854-1858 */

    /* Within the lower range while the other lies above it. */
    put_dword(s, "Last Counter", 1850);
    put_dword(s, "Last Help", 1851);
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 1, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_HIGHEST, 1850, 1858);
    assert_last(&up.help, 1, RT_LAST_HIGHEST, 1851, 1859);

    /* Far too low: the lower provider is not on top, and the values rise
     * to the highest index still present. */
    put_dword(s, "Last Counter", 10);
    put_dword(s, "Last Help", 11);
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 0, RT_LAST_HIGHEST, 10, 1858);
    assert_last(&up.help, 0, RT_LAST_HIGHEST, 11, 1859);
    assert_string_equal(up.counter.why,
                        "Last Counter 10 -> 1858: 'Transfer' is not on top "
                        "(provider 'Peer' ends at 1858, above its names "
                        "1848-1852), and it is never below the highest name "
                        "index still present (1858)");
    assert_not_below_highest(s);

    /* Below the highest range, nothing above it (Transfer is gone): that
     * provider is on top, the values are not raised to where its install
     * found them (1852: an uninstall never raises a value to its range)
     * but to the highest index still present, the base range's. */
    put_dword(s, "Last Counter", 10);
    put_dword(s, "Last Help", 11);
    assert_int_equal(uninstall_plan(s, "Peer", 0, 0, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_HIGHEST, 10, 1846);
    assert_last(&up.help, 1, RT_LAST_HIGHEST, 11, 1847);
    assert_not_below_highest(s);
    free_spec(a);
    free_spec(b);
    s->ops->close(s);
}

/* Where the install found them may lie below the base range (a Base
 * Index raised since): never below it, names even, help odd. */
static void last_counter_never_below_base_index(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_provider_spec *a = make_spec("Transfer", en_ru, 2, 3);
    struct rt_uninstall_plan up;
    struct rt_error e = {0};
    assert_int_equal(install(s, a, 0, NULL, &e), 0);   /* 1848-1852 */
    put_dword(s, "Base Index", 1851);
    assert_int_equal(uninstall_plan(s, "Transfer", 0, 0, &up, &e), -1);
    assert_int_equal(uninstall_plan(s, "Transfer", 1, 0, &up, &e), 0);
    assert_last(&up.counter, 1, RT_LAST_BASE, 1852, 1850);
    assert_last(&up.help, 1, RT_LAST_BASE, 1853, 1851);
    assert_perflib(s, 1850, 1851);
    free_spec(a);
    s->ops->close(s);
}

/* The engine's invariant before every commit: a change set whose table is
 * not the stored one plus its added pairs minus its removed ones is
 * refused as an internal error, and nothing is written. The first case is
 * a user's hive given as SOFTWARE: a change computed from no table at
 * all, which would replace the machine's whole table with one provider. */
static void broken_invariant_is_refused(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    char *before = snapshot_exact(s);
    static const char16_t only_new[] = u"1848\0Transfer\0";
    struct rt_pair_list added = {0}, removed = {0};
    assert_int_equal(rt_pair_list_append(&added, 1848, "Transfer"), 0);
    struct rt_error e = {0};
    for (int kind = 0; kind < 3; kind++) {
        struct rt_change_set cs = {0};
        if (kind == 0) {
            /* The whole table replaced by the new pair. */
            assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                                 (const uint8_t *)only_new,
                                                 sizeof only_new, &added,
                                                 NULL), 0);
        } else {
            /* The stored table plus the pair, but claiming to remove one
             * the table lacks (1), or adding nothing (2). */
            struct rt_database db;
            assert_int_equal(rt_database_load(s, &db, &e), 0);
            struct rt_pair_list t = {0};
            assert_int_equal(rt_pair_list_copy(&t, &rt_database_language(&db, "009")->table.counter), 0);
            assert_int_equal(rt_pair_list_append(&t, 1848, "Transfer"), 0);
            uint8_t *blob;
            size_t len;
            assert_int_equal(rt_pair_list_encode(&t, &blob, &len), 0);
            if (kind == 1)
                assert_int_equal(rt_pair_list_append(&removed, 6, "Nothing"), 0);
            assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                                 blob, len,
                                                 kind == 1 ? &added : NULL,
                                                 kind == 1 ? &removed : NULL), 0);
            free(blob);
            rt_pair_list_free(&t);
            rt_pair_list_free(&removed);
            rt_database_free(&db);
        }
        assert_int_equal(s->ops->begin(s, &e), 0);
        assert_int_equal(rt_op_apply(s, &cs, &e), -1);
        s->ops->end(s);
        assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
        assert_non_null(strstr(e.message, "internal error"));
        assert_non_null(strstr(e.message, "Perflib\\009\\Counter"));
        assert_non_null(strstr(e.message, "nothing was written"));
        char *after = snapshot_exact(s);
        assert_string_equal(after, before);
        free(after);
        rt_change_set_free(&cs);
    }
    rt_pair_list_free(&added);
    free(before);
    s->ops->close(s);
}

/* One splice of 009's Counter as DB holds it: EDIT, inserting INS (a
 * UTF-16 multi-string of INS_LEN bytes), adding ADDED and removing
 * REMOVED (NULL: none); checked against the table, or LEN instead of its
 * length. Returns the check's result (E set). */
static int check_splice(const struct rt_db_language *l, struct rt_table_edit ed,
                        const void *ins, size_t ins_len, size_t len,
                        const struct rt_pair_list *added,
                        const struct rt_pair_list *removed, struct rt_error *e,
                        uint8_t **made, size_t *made_len)
{
    struct rt_change_set cs = {0};
    struct rt_pair_list a = {0}, r = {0};
    if (added)
        assert_int_equal(rt_pair_list_copy(&a, added), 0);
    if (removed)
        assert_int_equal(rt_pair_list_copy(&r, removed), 0);
    struct rt_table_edit *edits = malloc(sizeof *edits);
    uint8_t *bytes = malloc(ins_len + 1);
    *edits = ed;
    memcpy(bytes, ins, ins_len);
    assert_int_equal(rt_change_set_table_splice(&cs, "009", RT_TABLE_COUNTER,
                                                1, len, edits, 1, bytes,
                                                ins_len, &a, &r), 0);
    int rc = rt_engine_check_table_splice(&cs.v[0], &l->tab[0], 1, e);
    if (made)
        assert_int_equal(rt_change_splice(&cs.v[0], l->tab[0].blob,
                                          l->tab[0].len, made, made_len), 0);
    rt_change_set_free(&cs);
    return rc;
}

/* The invariant of a splice (what install and uninstall hand a store
 * that writes only what changes): an append of the added pairs passes and
 * makes the stored table plus them; an edit off the pairs' boundaries, a
 * cut of pairs other than the removed ones, inserted bytes that are no
 * pairs and a table of another length are each refused as internal
 * errors. */
static void broken_splice_is_refused(void **state)
{
    (void)state;
    struct rt_store *s = base_store();
    struct rt_database db = load(s);
    const struct rt_db_language *l = rt_database_language(&db, "009");
    const struct rt_table *t = &l->tab[0];
    size_t len = t->len, first_end = t->v[0].text + t->v[0].text_bytes + 2;
    size_t tail = t->v[t->n - 1].text + t->v[t->n - 1].text_bytes + 2;
    static const char16_t add[] = u"1848\0Transfer\0";   /* with the list NUL */
    struct rt_pair_list added = {0}, removed = {0}, wrong = {0};
    assert_int_equal(rt_pair_list_append(&added, 1848, "Transfer"), 0);
    assert_int_equal(rt_pair_list_append(&wrong, t->v[0].index, "Not it"), 0);
    struct rt_error e = {0};

    uint8_t *made;
    size_t made_len;
    struct rt_table_edit append = {tail, len - tail, 0, sizeof add};
    assert_int_equal(check_splice(l, append, add, sizeof add, len, &added,
                                  NULL, &e, &made, &made_len), 0);
    struct rt_pair_list all = {0};
    assert_int_equal(rt_pair_list_copy(&all, &l->table.counter), 0);
    assert_int_equal(rt_pair_list_append(&all, 1848, "Transfer"), 0);
    uint8_t *want;
    size_t want_len;
    assert_int_equal(rt_pair_list_encode(&all, &want, &want_len), 0);
    assert_int_equal(made_len, want_len);
    assert_memory_equal(made, want, want_len);
    free(made);
    free(want);
    rt_pair_list_free(&all);

    /* The first pair cut, as the removed list says: passes. */
    struct rt_pair_list first = {0};
    assert_int_equal(rt_pair_list_append(&first, t->v[0].index,
                                         l->table.counter.v[0].text), 0);
    struct rt_table_edit cut_first = {0, first_end, 0, 0};
    assert_int_equal(check_splice(l, cut_first, "", 0, len, NULL, &first, &e,
                                  NULL, NULL), 0);

    struct {
        struct rt_table_edit ed;
        const void *ins;
        size_t ins_len, len;
        const struct rt_pair_list *added, *removed;
        const char *says;
    } bad[] = {
        /* Begins inside the first index string. */
        {{2, len - 2, 0, sizeof add}, add, sizeof add, len, &added, NULL,
         "does not lie on the table's pairs"},
        /* Cuts the first pair, claiming another text for it. */
        {cut_first, "", 0, len, NULL, &wrong, "which the table as stored"},
        /* Cuts the first pair, saying nothing of it. */
        {cut_first, "", 0, len, NULL, NULL, "would leave"},
        /* Inserts an index without its text. */
        {{tail, len - tail, 0, 12}, u"1848\0\0", 12, len, &added, NULL,
         "malformed"},
        /* Computed from a table two bytes longer. */
        {append, add, sizeof add, len + 2, &added, NULL,
         "not the table the change was computed from"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        memset(&e, 0, sizeof e);
        assert_int_equal(check_splice(l, bad[i].ed, bad[i].ins,
                                      bad[i].ins_len, bad[i].len,
                                      bad[i].added, bad[i].removed, &e, NULL,
                                      NULL), -1);
        assert_int_equal(e.code, RT_ERR_INTERNAL_ERROR);
        if (!strstr(e.message, bad[i].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", i, e.message,
                     bad[i].says);
    }
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    rt_pair_list_free(&wrong);
    rt_pair_list_free(&first);
    rt_database_free(&db);
    s->ops->close(s);
}

/* A provider whose pairs lie apart in the stored tables (another
 * provider's pair between them, as a tool that sorts tables can leave
 * them): uninstall cuts each run and keeps the pair between, in both
 * tables, whatever part of them the load kept. */
static void uninstall_cuts_pairs_lying_apart(void **state)
{
    (void)state;
    struct rt_store *s = efx.open_empty(efx.ctx);
    static const char16_t counter[] =
        u"2\0System\0" "1848\0A\0" "1860\0Z\0" "1850\0B\0" "1847\0End\0";
    static const char16_t help[] =
        u"3\0System.\0" "1849\0a.\0" "1861\0z.\0" "1851\0b.\0";
    static const char16_t counter_after[] =
        u"2\0System\0" "1860\0Z\0" "1847\0End\0";
    static const char16_t help_after[] = u"3\0System.\0" "1861\0z.\0";
    PUT2(s, "009", counter, help);
    put_dword(s, "Last Counter", 1860);
    put_dword(s, "Last Help", 1861);
    put_dword(s, "Base Index", 1847);
    put_service(s, "Transfer");
    put_range(s, "Transfer", 1848, 1850, 1849, 1851);
    put_service(s, "Peer");
    put_range(s, "Peer", 1860, 1860, 1861, 1861);
    struct rt_error e = {0};
    assert_int_equal(uninstall(s, "Transfer", 0, &e), 0);
    struct rt_value v = {0};
    int present;
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_int_equal(v.len, sizeof counter_after);
    assert_memory_equal(v.data, counter_after, v.len);
    rt_value_free(&v);
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_HELP, &v, &present,
                                        &e), 0);
    assert_int_equal(v.len, sizeof help_after);
    assert_memory_equal(v.data, help_after, v.len);
    rt_value_free(&v);
    s->ops->close(s);
}

#define ENGINE_SUITE_TESTS \
cmocka_unit_test(broken_invariant_is_refused), \
cmocka_unit_test(install_then_uninstall_restores_everything), \
        cmocka_unit_test(uninstalling_first_leaves_second_untouched), \
        cmocka_unit_test(low_last_counter_gives_no_duplicates), \
        cmocka_unit_test(allocation_from_odd_and_even_tops), \
        cmocka_unit_test(allocation_above_an_odd_index_in_counter), \
        cmocka_unit_test(language_missing_from_ini_gets_english), \
        cmocka_unit_test(ini_language_absent_from_machine_changes_nothing_else), \
        cmocka_unit_test(replace_keeps_first_index), \
        cmocka_unit_test(refusals_leave_store_identical), \
        cmocka_unit_test(fresh_database_gets_base_values_and_english), \
        cmocka_unit_test(current_language_follows_its_language), \
        cmocka_unit_test(dry_run_writes_nothing), \
        cmocka_unit_test(ini_current_language_text_goes_to_current_language), \
        cmocka_unit_test(real_machine_install_uninstall_restores_last_counter), \
        cmocka_unit_test(two_providers_give_back_last_counter_top_first), \
        cmocka_unit_test(lying_last_counter_never_ends_below_highest), \
        cmocka_unit_test(last_counter_never_below_base_index), \
        cmocka_unit_test(broken_splice_is_refused), \
        cmocka_unit_test(uninstall_cuts_pairs_lying_apart), \
        /* Last: test_store_reg picks each store's dialect by its serial \
         * number, and refusals_leave_store_identical's damaged table \
         * cannot be written in REGEDIT4. */ \
        cmocka_unit_test(replace_in_own_slot_keeps_indices),

#endif
