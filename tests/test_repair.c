/* Repair on the corruption generator's databases: each class that needs no
 * guessing is fixed (audit is clean of it afterwards), a second repair
 * changes nothing, no valid pair of the damaged database is lost, and
 * what repair cannot fix is reported with its reason. Pure: mem store and
 * engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif
#include <cmocka.h>
#include "under_valgrind.h"

#include "corrupt.h"
#include "engine/audit.h"
#include "ops/ops.h"
#include "engine/owned_ranges.h"
#include "engine/repair.h"
#include "model/utf16.h"
#include "platform/os.h"
#include "finding_message.h"

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
        found |= !strcmp(rt_finding_id(&f.v[i]), id);
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
                                                     &dropped, NULL), 0);
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
    CG_ZERO_INDEX, CG_NOT_MULTI_SZ, CG_DUPLICATE, CG_DUPLICATE_HELP,
    CG_LAST_COUNTER_LOW,
    CG_BASE_INDEX_MISSING, CG_CURRENT_DIFFERS, CG_LANGUAGE_MISSING_ENTRIES,
};

static void fixes_what_needs_no_guessing(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof fixable / sizeof *fixable; i++)
        for (uint32_t seed = 1; seed <= repetitions(2, 1); seed++) {
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
    struct rt_repair_options prune = {.prune_orphans = 1},
                             enable = {.enable_disabled = 1};
    struct rt_repair_report r;
    struct rt_store *s = cg_build(CG_ORPHANS, 1);
    /* Without the option the orphans stay, said so. */
    repair_once(s, NULL, &r);
    assert_true(has_finding(s, "orphan-strings"));
    int said = 0;
    for (size_t i = 0; i < r.left.n; i++)
        said |= !strcmp(rt_finding_id(&r.left.v[i]), "orphan-strings") &&
                strstr(message_of(&r.left.v[i]), "--prune-orphans") != NULL;
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

/* --prune-orphans: a range's ends are its own (Last Counter and Last Help
 * inclusive): ProvA's last pair (4000/4001) stays in every language, and
 * the pair just past it (4002/4003, ProvB's, whose registration is gone)
 * is an orphan and goes, to the last orphan (4006/4007). */
static void prune_keeps_last_pair_of_a_range(void **state)
{
    (void)state;
    struct rt_repair_options prune = {.prune_orphans = 1};
    struct rt_repair_report r;
    struct rt_store *s = cg_build(CG_ORPHANS, 1);
    assert_true(repair_once(s, &prune, &r) > 0);
    rt_repair_report_free(&r);
    struct rt_database db;
    load(s, &db);
    static const char *const langs[] = {"009", "019", "CurrentLanguage"};
    for (size_t i = 0; i < 3; i++) {
        const struct rt_db_language *l = rt_database_language(&db, langs[i]);
        assert_non_null(l);
        const struct rt_pair_list *c = &l->table.counter, *h = &l->table.help;
        if (!rt_pair_list_find(c, CG_A_LAST) ||
            !rt_pair_list_find(h, CG_A_LAST + 1))
            fail_msg("%s: ProvA's last pair %u/%u pruned", langs[i],
                     CG_A_LAST, CG_A_LAST + 1);
        assert_non_null(rt_pair_list_find(c, CG_A_FIRST));
        assert_non_null(rt_pair_list_find(h, CG_A_FIRST + 1));
        for (uint32_t x = CG_B_FIRST; x <= CG_B_LAST; x += 2)
            if (rt_pair_list_find(c, x) || rt_pair_list_find(h, x + 1))
                fail_msg("%s: orphan pair %u/%u kept", langs[i], x, x + 1);
    }
    rt_database_free(&db);
    assert_false(has_finding(s, "orphan-strings"));
    s->ops->close(s);
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
            reported |= !strcmp(rt_finding_id(&r.left.v[k]), id);
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

/* LANG's Help table is byte for byte English's. */
static void help_is_english(struct rt_store *s, const char *lang)
{
    struct rt_value a = {0}, b = {0};
    struct rt_error e;
    int present;
    assert_int_equal(s->ops->read_table(s, lang, RT_TABLE_HELP, &a, &present,
                                        &e), 0);
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_HELP, &b,
                                        &present, &e), 0);
    assert_true(rt_value_equal(&a, &b));
    rt_value_free(&a);
    rt_value_free(&b);
}

/* CurrentLanguage's Help differing from English's in one character (the
 * same length, the same pairs but for a text) is made English's again;
 * its Counter, the same, is left alone. */
static void current_language_help_mirrored(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_pair_list h;
    cg_get_list(s, "CurrentLanguage", RT_TABLE_HELP, &h);
    assert_true(h.n > 0);
    char *t = h.v[h.n - 1].text;
    t[0] = t[0] == 'x' ? 'y' : 'x';
    cg_put_list(s, "CurrentLanguage", RT_TABLE_HELP, &h);
    rt_pair_list_free(&h);
    struct rt_repair_report r;
    assert_int_equal(repair_once(s, NULL, &r), 1);
    int mirrored = 0;
    for (size_t i = 0; i < r.fixed.n; i++)
        mirrored += !strcmp(rt_finding_id(&r.fixed.v[i]), "current-language-mirrored");
    assert_int_equal(mirrored, 1);
    rt_repair_report_free(&r);
    help_is_english(s, "CurrentLanguage");
    assert_int_equal(repair_once(s, NULL, &r), 0);
    rt_repair_report_free(&r);
    s->ops->close(s);
}

/* CurrentLanguage agreeing as much with two languages (English and a
 * second English, 809, whose Help differs) mirrors the first of them in
 * the database's order, English: never the one that merely came last. */
static void current_language_tie_mirrors_the_first(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_language(s, "809", "009", "English");
    struct rt_pair_list h;
    cg_get_list(s, "809", RT_TABLE_HELP, &h);
    char *t = h.v[0].text;
    t[0] = t[0] == 'q' ? 'r' : 'q';
    cg_put_list(s, "809", RT_TABLE_HELP, &h);
    rt_pair_list_free(&h);
    cg_get_list(s, "CurrentLanguage", RT_TABLE_HELP, &h);
    t = h.v[h.n - 1].text;
    t[0] = t[0] == 'x' ? 'y' : 'x';
    cg_put_list(s, "CurrentLanguage", RT_TABLE_HELP, &h);
    rt_pair_list_free(&h);
    struct rt_repair_report r;
    assert_int_equal(repair_once(s, NULL, &r), 1);
    rt_repair_report_free(&r);
    help_is_english(s, "CurrentLanguage");
    s->ops->close(s);
}

/* Perflib's values from tables repair never decodes: a database without
 * CurrentLanguage (nothing to mirror), Last Counter and Last Help below
 * the highest indices and Base Index of the wrong type. Repair raises the
 * two to the tables' highest and takes Base Index from English's "1"
 * (1900 here, not the default). */
static void perflib_values_from_undecoded_tables(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    cg_language(s, "009", "009", "English");
    cg_language(s, "019", "019", "Russian");
    /* English's "1" says 1900: what Base Index is taken from. */
    cg_remove(s, "009", RT_TABLE_COUNTER, 1, 1);
    cg_append(s, "009", RT_TABLE_COUNTER, 1, "1900");
    cg_dword(s, NULL, "Last Counter", CG_A_LAST);
    cg_dword(s, NULL, "Last Help", CG_A_LAST + 1);
    struct rt_value v;
    assert_int_equal(rt_value_from_string(&v, 1, "1847"), 0);
    assert_int_equal(rt_store_mem_put_perflib(s, "Base Index", &v), 0);
    rt_value_free(&v);
    struct rt_database db;
    load(s, &db);
    struct rt_change_set cs;
    struct rt_repair_report r;
    struct rt_error e;
    assert_int_equal(rt_engine_repair(&db, NULL, &cs, &r, &e), 0);
    uint32_t want[3] = {CG_B_LAST, CG_B_LAST + 1, 1900}, got[3] = {0, 0, 0};
    static const char *names[3] = {"Last Counter", "Last Help", "Base Index"};
    for (size_t i = 0; i < cs.n; i++)
        for (int k = 0; k < 3; k++)
            if (cs.v[i].op == RT_CHANGE_SET_PERFLIB &&
                !strcmp(cs.v[i].name, names[k]))
                assert_int_equal(rt_value_dword(&cs.v[i].value, &got[k]), 0);
    for (int k = 0; k < 3; k++)
        assert_int_equal(got[k], want[k]);
    rt_change_set_free(&cs);
    rt_repair_report_free(&r);
    rt_database_free(&db);
    s->ops->close(s);
}

/* --- --from-ini ---------------------------------------------------------- */

/* A provider as its INI describes it, made in memory: N symbols at
 * offsets 0, 2, ..., English text "INI name K" / "INI help K", and with
 * RUSSIAN a 019 text for the first symbol only. */
static struct rt_provider_spec *ini_spec(const char *driver, const char *path,
                                         size_t n, int russian)
{
    struct rt_provider_spec *sp = calloc(1, sizeof *sp);
    assert_non_null(sp);
    sp->ini_path = strdup(path);
    sp->drivername = strdup(driver);
    sp->symbolfile = strdup("o.h");
    sp->symbol_path = strdup("o.h");
    sp->n_languages = russian ? 2 : 1;
    sp->languages = calloc(sp->n_languages, sizeof *sp->languages);
    strcpy(sp->languages[0].id, "009");
    if (russian)
        strcpy(sp->languages[1].id, "019");
    sp->n_symbols = n;
    sp->symbols = calloc(n, sizeof *sp->symbols);
    for (size_t i = 0; i < n; i++) {
        struct rt_provider_symbol *y = &sp->symbols[i];
        char buf[64];
        snprintf(buf, sizeof buf, "SYM%zu", i);
        y->symbol = strdup(buf);
        y->offset = (long)(2 * i);
        y->text = calloc(sp->n_languages, sizeof *y->text);
        y->n_text = russian && i == 0 ? 2 : 1;
        if (russian)
            y->text[1].lang = 1;
        snprintf(buf, sizeof buf, "INI name %zu", i);
        y->text[0].name = strdup(buf);
        snprintf(buf, sizeof buf, "INI help %zu", i);
        y->text[0].help = strdup(buf);
        if (russian && i == 0) {
            y->text[1].name = strdup("Имя");
            y->text[1].help = strdup("Помощь");
        }
    }
    return sp;
}

static void spec_drop(struct rt_provider_spec *sp)
{
    rt_provider_spec_free(sp);
    free(sp);
}

/* Repair's options for --from-ini with the N INIs of V. */
static struct rt_repair_options from_inis(
    const struct rt_provider_spec *const *v, size_t n)
{
    struct rt_repair_options o = {0};
    o.from_ini = 1;
    o.inis = v;
    o.n_inis = n;
    return o;
}

static const char *text_at(struct rt_store *s, const char *lang,
                           enum rt_table_kind k, uint32_t index, char *buf,
                           size_t size)
{
    struct rt_pair_list l;
    cg_get_list(s, lang, k, &l);
    const struct rt_pair *p = rt_pair_list_find(&l, index);
    snprintf(buf, size, "%s", p ? p->text : "(none)");
    rt_pair_list_free(&l);
    return buf;
}

static int report_has(const struct rt_findings *f, const char *id,
                      const char *lang, const char *needle)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id) &&
            (!lang || (f->v[i].language && !strcmp(f->v[i].language, lang))) &&
            (!needle || strstr(message_of(&f->v[i]), needle)))
            return 1;
    return 0;
}

/* Provider A's strings gone from every language: its INI brings them back
 * at First Counter/First Help + the offsets, in 019 with the INI's Russian
 * text where it has one and English elsewhere, CurrentLanguage mirrors
 * English again; audit is clean; a second repair changes nothing. */
static void from_ini_restores_missing_strings(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    const char *langs[] = {"009", "019", "CurrentLanguage"};
    for (size_t i = 0; i < 3; i++) {
        cg_remove(s, langs[i], RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
        cg_remove(s, langs[i], RT_TABLE_HELP, CG_A_FIRST + 1, CG_A_LAST + 1);
    }
    assert_true(has_finding(s, "provider-strings-missing"));
    struct rt_provider_spec *a = ini_spec("PROVA", "/ini/a.ini", 5, 1);
    const struct rt_provider_spec *v[] = {a};
    struct rt_repair_options o = from_inis(v, 1);
    struct rt_repair_report r;
    assert_true(repair_once(s, &o, &r) > 0);
    assert_true(report_has(&r.fixed, "strings-restored", "009",
                           "ProvA: Perflib\\009: 5 names and 5 help texts "
                           "restored from /ini/a.ini"));
    assert_true(report_has(&r.fixed, "strings-restored", "019", NULL));
    assert_false(report_has(&r.left, "ini-not-found", NULL, NULL));
    rt_repair_report_free(&r);
    char buf[64];
    assert_string_equal(text_at(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, buf,
                                sizeof buf), "INI name 0");
    assert_string_equal(text_at(s, "009", RT_TABLE_HELP, CG_A_LAST + 1, buf,
                                sizeof buf), "INI help 4");
    assert_string_equal(text_at(s, "019", RT_TABLE_COUNTER, CG_A_FIRST, buf,
                                sizeof buf), "Имя");
    assert_string_equal(text_at(s, "019", RT_TABLE_HELP, CG_A_FIRST + 1, buf,
                                sizeof buf), "Помощь");
    assert_string_equal(text_at(s, "019", RT_TABLE_COUNTER, CG_A_FIRST + 2,
                                buf, sizeof buf), "INI name 1");
    assert_string_equal(text_at(s, "CurrentLanguage", RT_TABLE_COUNTER,
                                CG_A_LAST, buf, sizeof buf), "INI name 4");
    assert_false(has_finding(s, "provider-strings-missing"));
    assert_int_equal(repair_once(s, &o, &r), 0);
    assert_int_equal(r.fixed.n, 0);
    rt_repair_report_free(&r);
    /* One language lacking one name: that one pair, nothing else. */
    cg_remove(s, "019", RT_TABLE_COUNTER, CG_A_FIRST + 4, CG_A_FIRST + 4);
    assert_int_equal(repair_once(s, &o, &r), 1);
    assert_true(report_has(&r.fixed, "strings-restored", "019",
                           "1 names and 0 help texts"));
    rt_repair_report_free(&r);
    assert_string_equal(text_at(s, "019", RT_TABLE_COUNTER, CG_A_FIRST + 4,
                                buf, sizeof buf), "INI name 2");
    spec_drop(a);
    s->ops->close(s);
}

/* An INI in French only (no English, nothing in 009 or 019): repair gives
 * each language the French text, as install wrote it, not a loss. */
static void from_ini_falls_back_to_the_inis_only_language(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    const char *langs[] = {"009", "019", "CurrentLanguage"};
    for (size_t i = 0; i < 3; i++) {
        cg_remove(s, langs[i], RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
        cg_remove(s, langs[i], RT_TABLE_HELP, CG_A_FIRST + 1, CG_A_LAST + 1);
    }
    struct rt_provider_spec *a = ini_spec("PROVA", "/ini/a.ini", 5, 0);
    strcpy(a->languages[0].id, "00C");
    const struct rt_provider_spec *v[] = {a};
    struct rt_repair_options o = from_inis(v, 1);
    struct rt_repair_report r;
    assert_true(repair_once(s, &o, &r) > 0);
    assert_false(report_has(&r.left, "strings-not-in-ini", NULL, NULL));
    rt_repair_report_free(&r);
    char buf[64];
    for (size_t i = 0; i < 2; i++) {
        assert_string_equal(text_at(s, langs[i], RT_TABLE_COUNTER, CG_A_FIRST,
                                    buf, sizeof buf), "INI name 0");
        assert_string_equal(text_at(s, langs[i], RT_TABLE_HELP, CG_A_LAST + 1,
                                    buf, sizeof buf), "INI help 4");
    }
    assert_false(has_finding(s, "provider-strings-missing"));
    spec_drop(a);
    s->ops->close(s);
}

/* A provider installed high (past a million: a broken installer once
 * raised Last Counter that far): its strings, gone, come back from its
 * INI as any provider's do; only a range longer than an INI can fill is
 * left to audit. */
static void from_ini_restores_a_range_high_up(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_provider(s, "ProvH", 1200000, 1200008);
    cg_dword(s, NULL, "Last Counter", 1200008);
    cg_dword(s, NULL, "Last Help", 1200009);
    struct rt_provider_spec *h = ini_spec("PROVH", "/ini/h.ini", 5, 0);
    const struct rt_provider_spec *v[] = {h};
    struct rt_repair_options o = from_inis(v, 1);
    struct rt_repair_report r;
    assert_true(repair_once(s, &o, &r) > 0);
    assert_true(report_has(&r.fixed, "strings-restored", "009",
                           "ProvH: Perflib\\009: 5 names and 5 help texts "
                           "restored from /ini/h.ini"));
    rt_repair_report_free(&r);
    char buf[64];
    assert_string_equal(text_at(s, "009", RT_TABLE_COUNTER, 1200000, buf,
                                sizeof buf), "INI name 0");
    assert_string_equal(text_at(s, "019", RT_TABLE_HELP, 1200009, buf,
                                sizeof buf), "INI help 4");
    spec_drop(h);
    s->ops->close(s);
}

/* Two providers installed over one range (a hostile or broken tree),
 * each with its INI: the strings missing are given once, by the first
 * provider, never an index twice; CurrentLanguage mirrors English. */
static void from_ini_gives_overlapping_ranges_each_index_once(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_provider(s, "ProvC", CG_A_FIRST, CG_A_LAST);
    const char *langs[] = {"009", "019", "CurrentLanguage"};
    for (size_t i = 0; i < 3; i++)
        cg_remove(s, langs[i], RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
    struct rt_provider_spec *a = ini_spec("PROVA", "/ini/a.ini", 5, 0);
    struct rt_provider_spec *c = ini_spec("PROVC", "/ini/c.ini", 5, 0);
    const struct rt_provider_spec *v[] = {c, a};
    struct rt_repair_options o = from_inis(v, 2);
    struct rt_repair_report r;
    assert_true(repair_once(s, &o, &r) > 0);
    assert_true(report_has(&r.fixed, "strings-restored", "009",
                           "ProvA: Perflib\\009: 5 names and 0 help texts "
                           "restored from /ini/a.ini"));
    assert_false(report_has(&r.fixed, "strings-restored", "009", "ProvC"));
    rt_repair_report_free(&r);
    for (size_t i = 0; i < 3; i++) {
        struct rt_pair_list l;
        cg_get_list(s, langs[i], RT_TABLE_COUNTER, &l);
        for (uint32_t x = CG_A_FIRST; x <= CG_A_LAST; x += 2) {
            size_t n = 0;
            for (size_t j = 0; j < l.n; j++)
                n += l.v[j].index == x;
            if (n != 1)
                fail_msg("%s: index %u given %zu times", langs[i], x, n);
        }
        rt_pair_list_free(&l);
    }
    spec_drop(a);
    spec_drop(c);
    s->ops->close(s);
}

/* A caller that catches SIGTERM (the CLI's writers) is heard while the
 * INIs are matched: the repair stops, cancelled, nothing in its change
 * set. In a child process: the interrupt stays noted for good. */
static void from_ini_stops_on_sigterm(void **state)
{
    (void)state;
#ifdef _WIN32
    skip(); /* no fork: the Windows build's interrupts are tested by hand */
#else
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rt_store *s = cg_clean();
        cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
        struct rt_database db;
        load(s, &db);
        struct rt_provider_spec *a = ini_spec("PROVA", "/ini/a.ini", 5, 0);
        const struct rt_provider_spec *v[] = {a};
        struct rt_repair_options o = from_inis(v, 1);
        rt_os_catch_interrupts();
        raise(SIGTERM);
        struct rt_change_set cs;
        struct rt_repair_report r;
        struct rt_error e = {0};
        int rc = rt_engine_repair(&db, &o, &cs, &r, &e);
        int ok = rc == -1 && e.code == RT_ERR_CANCELLED &&
                 strstr(e.message, "interrupted") && cs.n == 0;
        /* All freed: under valgrind a leak at exit is a failure too. */
        rt_database_free(&db);
        spec_drop(a);
        s->ops->close(s);
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
#endif
}

/* What cannot be restored: no INI of the provider (reported, nothing
 * written), and an INI whose offsets do not end at the installed range
 * (refused, naming the INI and the symbol; the provider is left as it
 * is while another provider is restored in the same repair). */
static void from_ini_refuses_what_does_not_fit(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    /* From English and from CurrentLanguage, which mirrors it. */
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
    cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
    struct rt_repair_options o = {0};
    o.from_ini = 1;
    struct rt_repair_report r;
    char *dump = rt_store_mem_dump(s);
    assert_int_equal(repair_once(s, &o, &r), 0);
    assert_true(report_has(&r.left, "ini-not-found", NULL,
                           "ProvA: strings missing (in 009), and no INI"));
    rt_repair_report_free(&r);
    char *after = rt_store_mem_dump(s);
    assert_string_equal(after, dump);
    free(after);
    free(dump);

    /* Four symbols where five were installed; five from 0 at B's range,
     * which is three names long. */
    struct rt_provider_spec *a = ini_spec("ProvA", "/ini/short.ini", 4, 0);
    struct rt_provider_spec *b = ini_spec("ProvB", "/ini/long.ini", 5, 0);
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_B_FIRST, CG_B_LAST);
    cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, CG_B_FIRST, CG_B_LAST);
    dump = rt_store_mem_dump(s);
    const struct rt_provider_spec *v[] = {a, b};
    o.inis = v;
    o.n_inis = 2;
    assert_int_equal(repair_once(s, &o, &r), 0);
    assert_true(report_has(&r.left, "ini-range-mismatch", NULL,
                           "ProvA: not restored from /ini/short.ini: its "
                           "symbol SYM3 (offset 6) is its last, at index "
                           "3998/3999"));
    assert_true(report_has(&r.left, "ini-range-mismatch", NULL,
                           "ProvB: not restored from /ini/long.ini: its "
                           "symbol SYM3 (offset 6) would be at index 4008"));
    rt_repair_report_free(&r);
    after = rt_store_mem_dump(s);
    assert_string_equal(after, dump);
    free(after);
    free(dump);
    /* With A's own INI beside them, A comes back; B stays refused. */
    struct rt_provider_spec *a5 = ini_spec("ProvA", "/ini/a.ini", 5, 0);
    const struct rt_provider_spec *w[] = {a5, b};
    o.inis = w;
    assert_true(repair_once(s, &o, &r) > 0);
    assert_true(report_has(&r.fixed, "strings-restored", "009", "ProvA"));
    assert_false(report_has(&r.fixed, "strings-restored", NULL, "ProvB"));
    assert_true(report_has(&r.left, "ini-range-mismatch", NULL, "ProvB"));
    rt_repair_report_free(&r);
    spec_drop(a);
    spec_drop(a5);
    spec_drop(b);
    s->ops->close(s);
}

/* An INI fits only when it ends at both installed ends: one whose last
 * symbol lands on Last Counter but not on Last Help (here two below the
 * INI's end) is refused, naming the first symbol past the help range,
 * and nothing is restored. */
static void from_ini_refuses_an_ini_that_fits_only_the_counters(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_dword(s, "ProvA", "Last Help", CG_A_LAST - 1);
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
    cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_LAST);
    struct rt_provider_spec *a5 = ini_spec("ProvA", "/ini/a.ini", 5, 0);
    const struct rt_provider_spec *v[] = {a5};
    struct rt_repair_options o = from_inis(v, 1);
    struct rt_repair_report r;
    char *dump = rt_store_mem_dump(s);
    repair_once(s, &o, &r);
    assert_true(report_has(&r.left, "ini-range-mismatch", NULL,
                           "ProvA: not restored from /ini/a.ini: its symbol "
                           "SYM4 (offset 8) would be at index 4000/4001, but "
                           "the installed range is 3992-4000 (help "
                           "3993-3999)"));
    assert_false(report_has(&r.fixed, "strings-restored", NULL, "ProvA"));
    rt_repair_report_free(&r);
    char buf[64];
    assert_string_equal(text_at(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, buf,
                                sizeof buf), "(none)");
    char *after = rt_store_mem_dump(s);
    assert_string_equal(after, dump);
    free(after);
    free(dump);
    spec_drop(a5);
    s->ops->close(s);
}

/* --- copies of the tables ------------------------------------------------ */

/* The store's other copies of a table that differ (SysWOW64's .dat, a
 * stale hive value, as rt_database_load_copies records them): audit
 * reports each with its language and first differing index; repair writes
 * the table again as it is, bytes unchanged, so that the store writes
 * every copy; audit of the repaired view is clean of it. */
static void copies_reported_and_rewritten(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_database db;
    load(s, &db);
    db.copy_diffs = calloc(2, sizeof *db.copy_diffs);
    assert_non_null(db.copy_diffs);
    db.copy_diffs[0] = (struct rt_db_copy_diff){strdup("019"), RT_TABLE_HELP,
                                                RT_COPY_WOW64, 3995, 100, 98};
    db.copy_diffs[1] = (struct rt_db_copy_diff){strdup("009"),
                                                RT_TABLE_COUNTER, RT_COPY_HIVE,
                                                0, 100, 102};
    db.n_copy_diffs = 2;
    struct rt_findings f = {0};
    assert_int_equal(rt_audit(&db, NULL, &f), 0);
    int wow = 0, hive = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (!strcmp(rt_finding_id(&f.v[i]), "table-copy-wow64-differs")) {
            wow++;
            assert_int_equal(rt_finding_severity(&f.v[i]), RT_AUDIT_ERROR);
            assert_string_equal(f.v[i].language, "019");
            assert_int_equal(rt_finding_n_indices(&f.v[i]), 1);
            assert_int_equal(rt_finding_index(&f.v[i], 0), 3995);
            assert_non_null(strstr(message_of(&f.v[i]), "SysWOW64\\perfh019.dat"));
            assert_non_null(strstr(message_of(&f.v[i]), "System32\\perfh019.dat"));
            assert_non_null(rt_finding_symptom(&f.v[i]));
            assert_string_equal(rt_finding_fix(&f.v[i]), "regtool repair");
        }
        if (!strcmp(rt_finding_id(&f.v[i]), "table-copy-hive-differs")) {
            hive++;
            assert_int_equal(rt_finding_severity(&f.v[i]), RT_AUDIT_WARNING);
            assert_non_null(strstr(message_of(&f.v[i]), "after the last pair"));
            assert_non_null(strstr(message_of(&f.v[i]), "Windows serves the .dat"));
        }
    }
    assert_int_equal(wow, 1);
    assert_int_equal(hive, 1);
    rt_findings_free(&f);
    /* --lang keeps a language's own. */
    struct rt_audit_options only = {"019"};
    assert_int_equal(rt_audit(&db, &only, &f), 0);
    for (size_t i = 0; i < f.n; i++)
        assert_string_not_equal(rt_finding_id(&f.v[i]), "table-copy-hive-differs");
    rt_findings_free(&f);

    struct rt_change_set cs;
    struct rt_repair_report r;
    struct rt_error e;
    assert_int_equal(rt_engine_repair(&db, NULL, &cs, &r, &e), 0);
    assert_int_equal(cs.n, 2);
    for (size_t i = 0; i < cs.n; i++) {
        const struct rt_change *c = &cs.v[i];
        const struct rt_db_language *l = rt_database_language(&db, c->lang);
        assert_int_equal(c->op, RT_CHANGE_SET_TABLE);
        assert_true(c->replace);
        assert_int_equal(c->value.len, l->tab[c->table].len);
        assert_memory_equal(c->value.data, l->tab[c->table].blob,
                            c->value.len);
    }
    assert_true(report_has(&r.fixed, "table-copy-wow64-rewritten", "019",
                           "SysWOW64\\perfh019.dat rewritten"));
    assert_true(report_has(&r.fixed, "table-copy-hive-rewritten", "009",
                           NULL));
    assert_false(report_has(&r.left, "table-copy-wow64-differs", NULL, NULL));
    /* Applied through the engine's invariant: the tables are unchanged. */
    char *before = rt_store_mem_dump(s);
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (rt_op_apply(s, &cs, &e) != 0)
        fail_msg("refused: %s", e.message);
    s->ops->end(s);
    char *after = rt_store_mem_dump(s);
    assert_string_equal(before, after);
    free(before);
    free(after);
    rt_change_set_free(&cs);
    rt_repair_report_free(&r);
    rt_database_free(&db);
    s->ops->close(s);
}

/* The union of the ranges --prune-orphans looks each string up in: out
 * of order, overlapping, nested and touching ranges merge; an inverted
 * range, one without First Counter and (for help) one without First Help
 * own nothing; one without its Last owns its First alone. */
static void owned_spans_merge_ranges(void **state)
{
    (void)state;
    struct rt_service_info sv[] = {
        {.has_range = 1, .first_counter = 3000, .last_counter = 3010,
         .first_help = 3001, .last_help = 3011, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 1, .first_counter = 2000, .last_counter = 2020,
         .first_help = 2001, .last_help = 2021, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 1, .first_counter = 2010, .last_counter = 2030,
         .first_help = 2011, .last_help = 2031, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 1, .first_counter = 2004, .last_counter = 2006,
         .first_help = 2005, .last_help = 2007, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 1, .first_counter = 3010, .last_counter = 3020,
         .first_help = 3011, .last_help = 3021, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 1, .first_counter = 5000, .last_counter = 4000,
         .first_help = 5001, .last_help = 4001, .has_last_counter = 1,
         .has_first_help = 1, .has_last_help = 1},
        {.has_range = 0, .first_counter = 6000, .last_counter = 6010,
         .has_last_counter = 1},
        {.has_range = 1, .first_counter = 7000, .first_help = 7001,
         .has_first_help = 1},
        {.has_range = 1, .first_counter = 8000, .last_counter = 8010,
         .has_last_counter = 1},
    };
    struct rt_database db = {.services = sv,
                             .n_services = sizeof sv / sizeof *sv};
    static const struct rt_span want[2][4] = {
        {{2000, 2030}, {3000, 3020}, {7000, 7000}, {8000, 8010}},
        {{2001, 2031}, {3001, 3021}, {7001, 7001}, {0, 0}},
    };
    static const size_t want_n[2] = {4, 3};
    for (int k = 0; k < 2; k++) {
        size_t n;
        struct rt_span *v = rt_owned_spans(&db, k, &n);
        assert_non_null(v);
        assert_int_equal(n, want_n[k]);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(v[i].lo, want[k][i].lo);
            assert_int_equal(v[i].hi, want[k][i].hi);
        }
        uint32_t inside[] = {2000, 2015, 2030, 3000, 3015, 3020, 7000};
        uint32_t outside[] = {1999, 2032, 2999, 3022, 4500, 6004, 6999, 7002};
        for (size_t i = 0; i < sizeof inside / sizeof *inside; i++)
            assert_true(rt_spans_have(v, n, inside[i] + (uint32_t)k));
        for (size_t i = 0; i < sizeof outside / sizeof *outside; i++)
            assert_false(rt_spans_have(v, n, outside[i] + (uint32_t)k));
        assert_int_equal(rt_spans_have(v, n, 8004), !k);
        free(v);
    }
}

/* An INI's symbols against an installed range: exact when its last lands
 * on Last Counter and Last Help, short when before, past naming the first
 * symbol beyond either (not the last: the symbols are sorted by offset). */
static void spec_fit_names_the_first_symbol_past(void **state)
{
    (void)state;
    struct rt_provider_symbol sym[5] = {
        {.symbol = "A", .offset = 0}, {.symbol = "B", .offset = 2},
        {.symbol = "C", .offset = 4}, {.symbol = "D", .offset = 6},
        {.symbol = "E", .offset = 8}};
    struct rt_provider_spec sp = {.symbols = sym, .n_symbols = 5};
    struct rt_service_info si = {.first_counter = 3000, .last_counter = 3008,
                                 .first_help = 3001, .last_help = 3009};
    struct rt_spec_fit f;
    rt_spec_fit(&sp, &si, &f);
    assert_int_equal(f.fit, RT_FIT_EXACT);
    assert_string_equal(f.symbol->symbol, "E");
    assert_true(f.counter == 3008 && f.help == 3009);
    si.last_counter = 3010;
    rt_spec_fit(&sp, &si, &f);
    assert_int_equal(f.fit, RT_FIT_SHORT);
    assert_string_equal(f.symbol->symbol, "E");
    /* The help range ends first: C (help 3005) is the first past it. */
    si.last_help = 3003;
    rt_spec_fit(&sp, &si, &f);
    assert_int_equal(f.fit, RT_FIT_PAST);
    assert_string_equal(f.symbol->symbol, "C");
    assert_true(f.counter == 3004 && f.help == 3005);
    si = (struct rt_service_info){.first_counter = 0xfffffffe,
                                  .last_counter = 0xfffffffe,
                                  .first_help = 0xffffffff,
                                  .last_help = 0xffffffff};
    rt_spec_fit(&sp, &si, &f);
    assert_int_equal(f.fit, RT_FIT_PAST);
    assert_string_equal(f.symbol->symbol, "B");
    assert_true(f.counter == 0x100000000ull);
}

/* A small database (009 and 019, Base Index 21, help texts up to 41) for
 * the cut sweep: every cut length is a repair. */
static struct rt_store *small_database(void)
{
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    static const char *const langs[2][3] = {{"009", "Name", "Help text"},
                                            {"019", "Имя", "Текст помощи"}};
    for (int l = 0; l < 2; l++) {
        struct rt_name_table t = {0};
        char text[64];
        for (uint32_t i = 2; i <= 40; i += 2) {
            snprintf(text, sizeof text, "%s %u", langs[l][1], i);
            assert_int_equal(rt_pair_list_append(&t.counter, i, text), 0);
            snprintf(text, sizeof text, "%s %u", langs[l][2], i + 1);
            assert_int_equal(rt_pair_list_append(&t.help, i + 1, text), 0);
        }
        rt_store_mem_put_language(s, langs[l][0]);
        cg_put_list(s, langs[l][0], RT_TABLE_COUNTER, &t.counter);
        cg_put_list(s, langs[l][0], RT_TABLE_HELP, &t.help);
        rt_name_table_free(&t);
    }
    cg_dword(s, NULL, "Last Counter", 40);
    cg_dword(s, NULL, "Last Help", 41);
    cg_dword(s, NULL, "Base Index", 21);
    return s;
}

/* 019's Help or Counter (K) cut short (a perfh019.dat truncated, a value cut) at every
 * length from its second pair to its list terminator: repair keeps every
 * pair whose text ended before the cut, never keeps what is left of the
 * cut text (above Base Index English's text takes its place, else the
 * index is gone), and names the cut index once its index string is whole.
 * Before, the cut text was kept as if whole ("0 unreadable strings
 * dropped"). */
static void cut_text_in(int k)
{
    struct rt_store *s = small_database();
    uint8_t *whole;
    size_t whole_len;
    cg_raw(s, "019", k, &whole, &whole_len);
    struct rt_pair_list en;
    cg_get_list(s, "009", k, &en);
    struct rt_msz_entry *v;
    size_t n;
    struct rt_msz_error err;
    assert_int_equal(rt_multi_sz_scan(whole, whole_len, 0, &v, &n, &err), 0);
    assert_int_equal(n, 20);
    for (size_t len = v[1].at; len < whole_len; len++) {
        assert_int_equal(rt_store_mem_put_table(s, "019", k,
                                                whole, len), 0);
        struct rt_repair_report r;
        repair_once(s, NULL, &r);
        struct rt_pair_list now;
        cg_get_list(s, "019", k, &now);
        /* The pairs the cut left whole are kept as they were. */
        size_t j = 0;
        while (j < n && v[j].text + v[j].text_bytes + 2 <= len) {
            const struct rt_pair *p = rt_pair_list_find(&now, v[j].index);
            assert_non_null(p);
            uint8_t *u16;
            size_t u16_len;
            assert_int_equal(rt_utf8_to_utf16le(p->text, p->text_len, &u16,
                                                &u16_len, NULL), 0);
            assert_int_equal(u16_len, v[j].text_bytes);
            assert_memory_equal(u16, whole + v[j].text, u16_len);
            free(u16);
            j++;
        }
        int named = report_has(&r.fixed, "blob-salvaged", "019",
                               "whose text the damage cut");
        if (j == n) {
            /* Only the list terminator was cut. */
            assert_false(named);
        } else {
            /* Pair J was cut: never kept; named once its index is whole. */
            uint32_t cut = v[j].index;
            const struct rt_pair *p = rt_pair_list_find(&now, cut);
            if (cut > 21)
                assert_string_equal(p ? p->text : "(none)",
                                    rt_pair_list_find(&en, cut)->text);
            else if (p)
                fail_msg("cut at %zu: index %u kept as \"%s\"", len,
                         (unsigned)cut, p->text);
            char said[96];
            snprintf(said, sizeof said, "index %u, whose text the damage cut: %s",
                     (unsigned)cut, cut > 21 ? "English's text takes its place"
                                             : "it is no longer in the table");
            int want = (len & ~(size_t)1) >= v[j].text;
            if (want != report_has(&r.fixed, "blob-salvaged", "019", said) ||
                want != named)
                fail_msg("cut at %zu in index %u: %s", len, (unsigned)cut,
                         want ? "not named" : "named though its index was cut");
        }
        rt_pair_list_free(&now);
        rt_repair_report_free(&r);
    }
    free(v);
    rt_pair_list_free(&en);
    free(whole);
    s->ops->close(s);
}

static void cut_text_is_never_kept(void **state)
{
    (void)state;
    cut_text_in(RT_TABLE_HELP);
    /* Counter too: its first index above Base Index (22) is English's to
     * fill, said so. */
    cut_text_in(RT_TABLE_COUNTER);
}

/* An index twice in English's Counter, the first text damaged and the
 * second the one CurrentLanguage holds: repair keeps the confirmed second,
 * not the first in table order. */
static void duplicate_keeps_the_confirmed_text(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_pair_list l;
    cg_get_list(s, "009", RT_TABLE_COUNTER, &l);
    const struct rt_pair *p = rt_pair_list_find(&l, CG_A_FIRST);
    assert_non_null(p);
    char *was = strdup(p->text);
    assert_non_null(was);
    rt_pair_list_free(&l);
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_A_FIRST);
    cg_append(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, "Damaged text");
    cg_append(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, was);
    struct rt_repair_report r;
    assert_true(repair_once(s, NULL, &r) > 0);
    assert_true(report_has(&r.fixed, "duplicate-resolved", "009", was));
    rt_repair_report_free(&r);
    cg_get_list(s, "009", RT_TABLE_COUNTER, &l);
    p = rt_pair_list_find(&l, CG_A_FIRST);
    assert_non_null(p);
    assert_string_equal(p->text, was);
    rt_pair_list_free(&l);
    assert_false(has_finding(s, "duplicate-index"));
    free(was);
    s->ops->close(s);
}

/* The lowest index of a table twice (first in the table's order and
 * again at its end, with another text): found like any other duplicate
 * and resolved to the text CurrentLanguage confirms. */
static void duplicate_of_the_lowest_index_resolved(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_pair_list l;
    cg_get_list(s, "009", RT_TABLE_COUNTER, &l);
    assert_true(l.n > 2);
    const struct rt_pair *low = &l.v[0];
    for (size_t i = 1; i < l.n; i++)
        if (l.v[i].index < low->index)
            low = &l.v[i];
    uint32_t index = low->index;
    char *was = strdup(low->text);
    assert_non_null(was);
    rt_pair_list_free(&l);
    cg_append(s, "009", RT_TABLE_COUNTER, index, "Damaged text");
    assert_true(has_finding(s, "duplicate-index"));
    struct rt_repair_report r;
    assert_true(repair_once(s, NULL, &r) > 0);
    assert_true(report_has(&r.fixed, "duplicate-resolved", "009", was));
    rt_repair_report_free(&r);
    cg_get_list(s, "009", RT_TABLE_COUNTER, &l);
    size_t times = 0;
    for (size_t i = 0; i < l.n; i++)
        if (l.v[i].index == index) {
            times++;
            assert_string_equal(l.v[i].text, was);
        }
    assert_int_equal(times, 1);
    rt_pair_list_free(&l);
    assert_false(has_finding(s, "duplicate-index"));
    free(was);
    s->ops->close(s);
}

/* Duplicates in every language, resolved one language after another,
 * each looking the others up: 019's pairs move when its own duplicates
 * go (index 2's second text, before index X in its table), and
 * CurrentLanguage, resolved after it, still finds the text 019 kept at
 * X, not the pair that now lies where it was. */
static void duplicate_confirmed_by_a_language_resolved_before(void **state)
{
    (void)state;
    enum { X = 900000, Z = 900002 };
    struct rt_store *s = cg_clean();
    cg_append(s, "009", RT_TABLE_COUNTER, X, "P");
    cg_append(s, "009", RT_TABLE_COUNTER, X, "Q");
    cg_append(s, "019", RT_TABLE_COUNTER, 2, "Damaged text");
    cg_append(s, "019", RT_TABLE_COUNTER, X, "T");
    cg_append(s, "019", RT_TABLE_COUNTER, X, "U");
    cg_append(s, "019", RT_TABLE_COUNTER, Z, "V");
    cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, X, "S");
    cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, X, "T");
    struct rt_repair_report r;
    assert_true(repair_once(s, NULL, &r) > 0);
    assert_true(report_has(&r.fixed, "duplicate-resolved", "009",
                           "index 900000 held 2 times; kept \"P\" (the first; "
                           "no other language decides)"));
    assert_true(report_has(&r.fixed, "duplicate-resolved", "019",
                           "index 900000 held 2 times; kept \"T\" (the first; "
                           "no other language decides)"));
    assert_true(report_has(&r.fixed, "duplicate-resolved", "019",
                           "index 2 held 2 times"));
    if (!report_has(&r.fixed, "duplicate-resolved", "CurrentLanguage",
                    "index 900000 held 2 times; kept \"T\" (the text "
                    "another language has there)")) {
        for (size_t i = 0; i < r.fixed.n; i++)
            print_message("%s\n", message_of(&r.fixed.v[i]));
        fail_msg("CurrentLanguage's index %u not resolved to 019's text",
                 (unsigned)X);
    }
    rt_repair_report_free(&r);
    s->ops->close(s);
}

/* Base Index missing (a value of the wrong type) and English's "1"
 * twice, a damaged text first in the table and the one CurrentLanguage
 * confirms after it: Base Index is read from English's table as
 * repaired (1847), kept until Perflib's values are made, never from the
 * table as stored, whose first "1" is the damaged 9999. */
static void base_index_from_english_as_repaired(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_remove(s, "009", RT_TABLE_COUNTER, 1, 1);
    cg_append(s, "009", RT_TABLE_COUNTER, 1, "9999");
    cg_append(s, "009", RT_TABLE_COUNTER, 1, "1847");
    struct rt_value v;
    assert_int_equal(rt_value_from_string(&v, 1, "1847"), 0);
    assert_int_equal(rt_store_mem_put_perflib(s, "Base Index", &v), 0);
    rt_value_free(&v);
    struct rt_database db;
    load(s, &db);
    assert_false(db.has_base_index);
    struct rt_change_set cs;
    struct rt_repair_report r;
    struct rt_error e;
    assert_int_equal(rt_engine_repair(&db, NULL, &cs, &r, &e), 0);
    uint32_t base = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.v[i].op == RT_CHANGE_SET_PERFLIB &&
            !strcmp(cs.v[i].name, "Base Index"))
            assert_int_equal(rt_value_dword(&cs.v[i].value, &base), 0);
    assert_int_equal(base, 1847);
    assert_true(report_has(&r.fixed, "base-index-restored", NULL,
                           "Base Index: set to 1847"));
    rt_change_set_free(&cs);
    rt_repair_report_free(&r);
    rt_database_free(&db);
    s->ops->close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_database_needs_nothing),
        cmocka_unit_test(current_language_help_mirrored),
        cmocka_unit_test(current_language_tie_mirrors_the_first),
        cmocka_unit_test(perflib_values_from_undecoded_tables),
        cmocka_unit_test(base_index_from_english_as_repaired),
        cmocka_unit_test(fixes_what_needs_no_guessing),
        cmocka_unit_test(options_prune_and_enable),
        cmocka_unit_test(prune_keeps_last_pair_of_a_range),
        cmocka_unit_test(owned_spans_merge_ranges),
        cmocka_unit_test(spec_fit_names_the_first_symbol_past),
        cmocka_unit_test(reports_what_it_cannot_fix),
        cmocka_unit_test(from_ini_restores_missing_strings),
        cmocka_unit_test(from_ini_falls_back_to_the_inis_only_language),
        cmocka_unit_test(from_ini_restores_a_range_high_up),
        cmocka_unit_test(from_ini_refuses_what_does_not_fit),
        cmocka_unit_test(from_ini_gives_overlapping_ranges_each_index_once),
        cmocka_unit_test(from_ini_stops_on_sigterm),
        cmocka_unit_test(from_ini_refuses_an_ini_that_fits_only_the_counters),
        cmocka_unit_test(copies_reported_and_rewritten),
        cmocka_unit_test(cut_text_is_never_kept),
        cmocka_unit_test(duplicate_keeps_the_confirmed_text),
        cmocka_unit_test(duplicate_confirmed_by_a_language_resolved_before),
        cmocka_unit_test(duplicate_of_the_lowest_index_resolved),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
