/* lodctr /R as pure logic (engine/rebuild.h), on a database and sources
 * built in memory, no store: each provider's strings from its first
 * source (INF copy, current tables, PerfStringBackup.INI, tables as
 * installed) at its own indices, what is lost counted, strings no
 * provider owns dropped, tables sorted by index, a second rebuild of the
 * result changing nothing, CurrentLanguage taking English's base, and
 * Last Counter raised but never lowered; and the sources read from a
 * Windows directory (engine/rebuild_sources.h), out of memory at each
 * allocation in turn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "engine/rebuild.h"
#include "engine/rebuild_layers.h"
#include "model/utf16.h"
#include "engine/rebuild_sources.h"
#include "scratch.h"

#define ALLOC_HOOK_MALLOC
#include "alloc_hook.h"

static void add(struct rt_pair_list *l, uint32_t i, const char *text)
{
    assert_int_equal(rt_pair_list_append(l, i, text), 0);
}

/* The tables as installed: the base range. */
static void installed(struct rt_name_table *t)
{
    memset(t, 0, sizeof *t);
    add(&t->counter, 1, "1847");
    add(&t->counter, 2, "System");
    add(&t->counter, 4, "Memory");
    add(&t->help, 3, "System help");
    add(&t->help, 5, "Memory help");
}

static void service(struct rt_service_info *si, const char *name,
                    uint32_t fc, uint32_t lc)
{
    memset(si, 0, sizeof *si);
    si->name = strdup(name);
    si->exists = si->has_perf = si->has_range = 1;
    si->first_counter = fc;
    si->last_counter = lc;
    si->first_help = fc + 1;
    si->last_help = lc + 1;
    si->has_last_counter = si->has_first_help = si->has_last_help = 1;
}

/* L's tables as rebuild's load reads them: their pairs (table) encoded
 * and indexed (tab), and not kept decoded (a table of millions of pairs
 * was held decoded twice, here and in the change that replaces it): the
 * engine takes every pair from the tables as stored. */
static void tables_of_pairs(struct rt_db_language *l)
{
    for (int k = 0; k < 2; k++) {
        uint8_t *blob;
        size_t len;
        struct rt_msz_error err;
        assert_int_equal(rt_pair_list_encode(k ? &l->table.help
                                               : &l->table.counter,
                                             &blob, &len), 0);
        rt_table_free(&l->tab[k]);
        assert_int_equal(rt_table_load(&l->tab[k], blob, len, &err), 0);
        l->bytes[k] = len;
    }
    rt_name_table_free(&l->table);
}

/* 009 (and CurrentLanguage when CUR) holding the base, B's strings, a
 * stale string in A's range and an orphan; providers A (INF copy), B
 * (current tables), C (backup), D (nowhere). */
static void database(struct rt_database *db, int cur)
{
    memset(db, 0, sizeof *db);
    db->n_langs = cur ? 2 : 1;
    db->langs = calloc(2, sizeof *db->langs);
    for (size_t i = 0; i < db->n_langs; i++) {
        struct rt_db_language *l = &db->langs[i];
        l->id = strdup(i ? "CurrentLanguage" : "009");
        l->loaded = l->has_counter = l->has_help = 1;
        installed(&l->table);
        add(&l->table.counter, 2000, "Old A");
        add(&l->table.counter, 2004, "B name");
        add(&l->table.help, 2005, "B help");
        add(&l->table.counter, 2100, "Orphan");
        tables_of_pairs(l);
    }
    db->has_last_counter = db->has_last_help = db->has_base_index = 1;
    db->last_counter = 2100;
    db->last_help = 2009;
    db->base_index = 1847;
    db->n_services = 4;
    db->services = calloc(4, sizeof *db->services);
    service(&db->services[0], "A", 2000, 2002);
    service(&db->services[1], "B", 2004, 2004);
    service(&db->services[2], "C", 2006, 2006);
    service(&db->services[3], "D", 2008, 2008);
}

/* A's INI: two symbols at offsets 0 and 2, English only. */
static void spec_a(struct rt_provider_spec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->drivername = strdup("A");
    sp->n_languages = 1;
    sp->languages = calloc(1, sizeof *sp->languages);
    strcpy(sp->languages[0].id, "009");
    sp->n_symbols = 2;
    sp->symbols = calloc(2, sizeof *sp->symbols);
    const char *names[] = {"A object", "A counter"};
    const char *helps[] = {"A object help", "A counter help"};
    for (int k = 0; k < 2; k++) {
        sp->symbols[k].symbol = strdup(k ? "CNT" : "OBJ");
        sp->symbols[k].offset = 2 * k;
        sp->symbols[k].text = calloc(1, sizeof *sp->symbols[k].text);
        sp->symbols[k].n_text = 1;
        sp->symbols[k].text[0].name = strdup(names[k]);
        sp->symbols[k].text[0].help = strdup(helps[k]);
    }
}

struct fixture {
    struct rt_database db;
    struct rt_name_table inst;
    struct rt_rebuild_base base;
    struct rt_provider_spec spec;
    struct rt_rebuild_inf inf[2];
    struct rt_psb psb;
    struct rt_rebuild_input in;
};

static void fixture(struct fixture *f, int cur)
{
    database(&f->db, cur);
    installed(&f->inst);
    f->base = (struct rt_rebuild_base){"009", &f->inst, NULL};
    spec_a(&f->spec);
    f->inf[0] = (struct rt_rebuild_inf){"A", &f->spec, "INF/A/0009/a.ini", NULL};
    f->inf[1] = (struct rt_rebuild_inf){"B", NULL, "INF/B/0009/b.ini",
                                        "not found"};
    memset(&f->psb, 0, sizeof f->psb);
    f->psb.n_langs = 1;
    f->psb.langs = calloc(1, sizeof *f->psb.langs);
    f->psb.langs[0].id = strdup("009");
    add(&f->psb.langs[0].strings, 2006, "C name");
    add(&f->psb.langs[0].strings, 2007, "C help");
    f->in = (struct rt_rebuild_input){&f->base, 1, f->inf, 2, &f->psb,
                                      "PerfStringBackup.INI", NULL};
}

static void fixture_free(struct fixture *f)
{
    rt_database_free(&f->db);
    rt_name_table_free(&f->inst);
    rt_provider_spec_free(&f->spec);
    rt_psb_free(&f->psb);
}

static const struct rt_change *table_change(const struct rt_change_set *cs,
                                            const char *lang,
                                            enum rt_table_kind k)
{
    for (size_t i = 0; i < cs->n; i++)
        if (cs->v[i].op == RT_CHANGE_SET_TABLE && cs->v[i].table == k &&
            !strcmp(cs->v[i].lang, lang))
            return &cs->v[i];
    return NULL;
}

/* The pairs a change of DB's table writes, as "index=text;" in order
 * (a splice made whole first). */
static char *pairs_text(const struct rt_database *db,
                        const struct rt_change *c)
{
    struct rt_name_table t;
    struct rt_msz_error err;
    int which;
    uint8_t *blob = c->value.data;
    size_t len = c->value.len;
    if (c->n_edits) {
        const struct rt_table *old =
            &rt_database_language(db, c->lang)->tab[c->table];
        assert_int_equal(rt_change_splice(c, old->blob, old->len, &blob,
                                          &len), 0);
    }
    assert_int_equal(rt_name_table_decode(&t, blob, len, NULL, 0, 0, &err,
                                          &which), 0);
    if (blob != c->value.data)
        free(blob);
    char *out = calloc(1, 4096);
    for (size_t i = 0; i < t.counter.n; i++)
        sprintf(out + strlen(out), "%u=%s;", t.counter.v[i].index,
                t.counter.v[i].text);
    rt_name_table_free(&t);
    return out;
}

static void each_provider_from_its_first_source(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 0);
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.n_providers, 4);
    assert_int_equal(p.providers[0].langs[0].source, RT_REBUILD_INF);
    assert_int_equal(p.providers[1].langs[0].source, RT_REBUILD_TABLES);
    assert_int_equal(p.providers[2].langs[0].source, RT_REBUILD_BACKUP);
    assert_int_equal(p.providers[3].langs[0].source, RT_REBUILD_LOST);
    assert_int_equal(p.providers[3].lost, 1);
    assert_int_equal(p.lost, 1);
    assert_int_equal(p.langs[0].base, RT_REBUILD_INSTALLED);
    /* The orphan goes; A's stale string is replaced by its INI's. */
    assert_int_equal(p.langs[0].dropped, 1);
    char *c = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_COUNTER));
    assert_string_equal(c, "1=1847;2=System;4=Memory;2000=A object;"
                           "2002=A counter;2004=B name;2006=C name;");
    free(c);
    char *h = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_HELP));
    assert_string_equal(h, "3=System help;5=Memory help;2001=A object help;"
                           "2003=A counter help;2005=B help;2007=C help;");
    free(h);
    /* Last Counter stays above what the tables hold: never lowered. */
    assert_int_equal(p.last_counter, 2100);
    assert_int_equal(p.last_help, 2009);
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    fixture_free(&f);
}

/* Ranges that overlap are placed in service order, each provider's cut
 * taking what the ones before put there: D (2001-2003, in neither the
 * current tables nor the backup) finds in the tables as installed the
 * string A's INI put in its range, and is counted as taken from there,
 * without a cut; E (2002-2004, whose indices 2004 and 2005 the current
 * tables hold) then cuts A's second strings and puts those again. Its sources sorted once and its cuts
 * as layers, the rebuild gives what placing each provider in turn on a
 * list gave. */
static void overlapping_ranges_placed_in_order(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 0);
    free((char *)f.db.services[3].name);
    service(&f.db.services[3], "D", 2001, 2003);
    f.db.services = realloc(f.db.services, 5 * sizeof *f.db.services);
    service(&f.db.services[4], "E", 2002, 2004);
    f.db.n_services = 5;
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.n_providers, 5);
    const struct rt_rebuild_choice *d = &p.providers[3].langs[0];
    assert_int_equal(d->source, RT_REBUILD_INSTALLED);
    assert_int_equal(d->names, 1);      /* A's 2002 */
    assert_int_equal(d->helps, 1);      /* A's 2003 */
    assert_int_equal(p.providers[4].langs[0].source, RT_REBUILD_TABLES);
    assert_int_equal(p.lost, 0);
    char *c = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_COUNTER));
    assert_string_equal(c, "1=1847;2=System;4=Memory;2000=A object;"
                           "2004=B name;2006=C name;");
    free(c);
    char *h = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_HELP));
    assert_string_equal(h, "3=System help;5=Memory help;2001=A object help;"
                           "2005=B help;2007=C help;");
    free(h);
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    fixture_free(&f);
}

/* L as "index=text;" in order. */
static char *list_text(const struct rt_pair_list *l)
{
    char *out = calloc(1, 4096);
    for (size_t i = 0; i < l->n; i++)
        sprintf(out + strlen(out), "%u=%s;", l->v[i].index, l->v[i].text);
    return out;
}

static void assert_list(const struct rt_pair_list *l, const char *want)
{
    char *got = list_text(l);
    assert_string_equal(got, want);
    free(got);
}


/* A table stored out of index order (as a hand-edited or damaged one may
 * be) rebuilds to what the same pairs in order give: the sources are
 * taken in index order whatever order they are stored in. */
static void table_out_of_order_rebuilds_the_same(void **state)
{
    (void)state;
    char *want[2], *got[2];
    for (int reorder = 0; reorder < 2; reorder++) {
        struct fixture f;
        fixture(&f, 0);
        struct rt_db_language *l = &f.db.langs[0];
        if (reorder) {
            static const char blob[] = "2100\0Orphan\0" "4\0Memory\0"
                                       "2004\0B name\0" "1\0" "1847\0"
                                       "2000\0Old A\0" "2\0System\0";
            uint8_t *u;
            size_t n, bad;
            assert_int_equal(rt_utf8_to_utf16le(blob, sizeof blob, &u, &n,
                                                &bad), 0);
            struct rt_msz_error err;
            rt_table_free(&l->tab[0]);
            assert_int_equal(rt_table_load(&l->tab[0], u, n, &err), 0);
            l->bytes[0] = n;
        }
        struct rt_change_set cs;
        struct rt_rebuild_plan p;
        struct rt_error e = {0};
        assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
        char **out = reorder ? got : want;
        out[0] = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_COUNTER));
        out[1] = pairs_text(&f.db, table_change(&cs, "009", RT_TABLE_HELP));
        rt_change_set_free(&cs);
        rt_rebuild_plan_free(&p);
        fixture_free(&f);
    }
    for (int k = 0; k < 2; k++) {
        assert_string_equal(got[k], want[k]);
        free(got[k]);
        free(want[k]);
    }
}
/* The pairs a change removes and does not give back, whatever the order
 * of what it adds: an index added back keeps as many of its removed pairs
 * as it adds. */
static void change_loses_what_it_does_not_add_back(void **state)
{
    (void)state;
    struct rt_change c;
    memset(&c, 0, sizeof c);
    c.op = RT_CHANGE_SET_TABLE;
    add(&c.removed, 10, "ten");
    add(&c.removed, 20, "twenty");
    add(&c.removed, 30, "thirty");
    add(&c.removed, 30, "thirty again");
    add(&c.added, 40, "forty");
    add(&c.added, 30, "thirty, new");
    add(&c.added, 10, "ten, new");
    add(&c.added, 5, "five");
    struct rt_pair_list lost = {0};
    assert_int_equal(rt_change_lost(&c, &lost), 2);
    assert_list(&lost, "20=twenty;30=thirty again;");
    rt_pair_list_free(&lost);
    rt_pair_list_free(&c.added);
    rt_pair_list_free(&c.removed);
}

/* What a table change says it adds and removes is the true difference of
 * the tables (the preview --dry-run prints), and what it loses is the
 * orphan alone: a stale text replaced at its index is not lost. The
 * same whether the table is replaced whole (the fixture's short tables)
 * or spliced (a long base that stays), and a splice's lists keep the
 * invariant checked before every commit. Before, a whole replacement
 * said "+0 -0" and a splice listed every pair from the first that
 * differs, and the loss was counted apart from the change. */
static void change_says_what_it_adds_removes_and_loses(void **state)
{
    (void)state;
    for (int long_base = 0; long_base < 2; long_base++) {
        struct fixture f;
        fixture(&f, 0);
        if (long_base) {
            struct rt_db_language *l = &f.db.langs[0];
            struct rt_name_table old;
            assert_int_equal(rt_table_pairs(&l->tab[0], &old.counter), 0);
            assert_int_equal(rt_table_pairs(&l->tab[1], &old.help), 0);
            rt_name_table_free(&f.inst);
            installed(&f.inst);
            for (uint32_t i = 6; i < 206; i += 2) {
                add(&f.inst.counter, i, "A long base name that stays");
                add(&f.inst.help, i + 1, "A long base help that stays");
            }
            assert_int_equal(rt_pair_list_copy(&l->table.counter,
                                               &f.inst.counter), 0);
            assert_int_equal(rt_pair_list_copy(&l->table.help,
                                               &f.inst.help), 0);
            for (size_t i = 3; i < old.counter.n; i++)
                add(&l->table.counter, old.counter.v[i].index,
                    old.counter.v[i].text);
            for (size_t i = 2; i < old.help.n; i++)
                add(&l->table.help, old.help.v[i].index, old.help.v[i].text);
            rt_name_table_free(&old);
            tables_of_pairs(l);
        }
        struct rt_change_set cs;
        struct rt_rebuild_plan p;
        struct rt_error e = {0};
        assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
        const struct rt_change *cc = table_change(&cs, "009",
                                                  RT_TABLE_COUNTER);
        const struct rt_change *hc = table_change(&cs, "009", RT_TABLE_HELP);
        assert_non_null(cc);
        assert_non_null(hc);
        assert_int_equal(cc->n_edits != 0, long_base);
        assert_list(&cc->added, "2000=A object;2002=A counter;2006=C name;");
        assert_list(&cc->removed, "2000=Old A;2100=Orphan;");
        assert_list(&hc->added, "2001=A object help;2003=A counter help;"
                                "2007=C help;");
        assert_list(&hc->removed, "");
        struct rt_pair_list lost = {0};
        assert_int_equal(rt_change_lost(cc, &lost), 1);
        assert_list(&lost, "2100=Orphan;");
        rt_pair_list_free(&lost);
        assert_int_equal(rt_change_lost(hc, NULL), 0);
        assert_int_equal(p.langs[0].dropped, 1);
        const struct rt_db_language *l = &f.db.langs[0];
        for (int k = 0; k < 2; k++) {
            const struct rt_change *c = k ? hc : cc;
            if (c->n_edits)
                assert_int_equal(rt_engine_check_table_splice(c, &l->tab[k],
                                                              1, &e), 0);
        }
        rt_change_set_free(&cs);
        rt_rebuild_plan_free(&p);
        fixture_free(&f);
    }
}

/* The result rebuilt again (every source still there) changes nothing. */
static void rebuilding_the_result_changes_nothing(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 0);
    struct rt_change_set cs, cs2;
    struct rt_rebuild_plan p, p2;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    struct rt_db_language *l = &f.db.langs[0];
    rt_name_table_free(&l->table);
    struct rt_msz_error err;
    int which;
    const struct rt_change *cc = table_change(&cs, "009", RT_TABLE_COUNTER);
    const struct rt_change *hc = table_change(&cs, "009", RT_TABLE_HELP);
    assert_false(cc->n_edits || hc->n_edits);
    assert_int_equal(rt_name_table_decode(&l->table, cc->value.data,
                                          cc->value.len, hc->value.data,
                                          hc->value.len, 0, &err, &which), 0);
    tables_of_pairs(l);
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs2, &p2, &e), 0);
    assert_null(table_change(&cs2, "009", RT_TABLE_COUNTER));
    assert_null(table_change(&cs2, "009", RT_TABLE_HELP));
    assert_int_equal(p2.langs[0].dropped, 0);
    /* C's strings are now in the tables: the second source is enough. */
    assert_int_equal(p2.providers[2].langs[0].source, RT_REBUILD_TABLES);
    rt_change_set_free(&cs);
    rt_change_set_free(&cs2);
    rt_rebuild_plan_free(&p);
    rt_rebuild_plan_free(&p2);
    fixture_free(&f);
}

/* CurrentLanguage has no tables as installed: English's are its base. */
static void current_language_takes_english_base(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 1);
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.langs[1].base, RT_REBUILD_INSTALLED);
    assert_ptr_equal(p.langs[1].installed, &f.base);
    /* No backup section for it: C is lost there as D is everywhere. */
    assert_int_equal(p.providers[2].langs[1].source, RT_REBUILD_LOST);
    assert_int_equal(p.lost, 3);
    char *c = pairs_text(&f.db, table_change(&cs, "CurrentLanguage",
                                      RT_TABLE_COUNTER));
    assert_string_equal(c, "1=1847;2=System;4=Memory;2000=A object;"
                           "2002=A counter;2004=B name;");
    free(c);
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    fixture_free(&f);
}

/* Without tables as installed, the base range comes from the current
 * tables; with neither nor a backup, the language's base is lost. */
static void base_from_tables_or_lost(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 0);
    f.base.t = NULL;
    f.base.missing = "System32/perfd009.dat: not found";
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.langs[0].base, RT_REBUILD_TABLES);
    assert_int_equal(p.lost, 1);
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    /* Tables emptied and no backup: nothing holds the base. */
    tables_of_pairs(&f.db.langs[0]);
    f.in.psb = NULL;
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.langs[0].base, RT_REBUILD_LOST);
    assert_int_equal(p.providers[1].langs[0].source, RT_REBUILD_LOST);
    assert_int_equal(p.providers[2].langs[0].source, RT_REBUILD_LOST);
    assert_int_equal(p.lost, 4);   /* the base, B, C and D */
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    fixture_free(&f);
}

/* A Last Counter below the highest index written is raised. */
static void last_counter_raised(void **state)
{
    (void)state;
    struct fixture f;
    fixture(&f, 0);
    f.db.last_counter = 1846;
    f.db.last_help = 1847;
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    assert_int_equal(p.last_counter, 2006);
    assert_int_equal(p.last_help, 2007);
    int seen = 0;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.v[i].op == RT_CHANGE_SET_PERFLIB) {
            uint32_t v;
            assert_int_equal(rt_value_dword(&cs.v[i].value, &v), 0);
            assert_int_equal(v, strcmp(cs.v[i].name, "Last Counter") ? 2007
                                                                      : 2006);
            seen++;
        }
    assert_int_equal(seen, 2);
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    fixture_free(&f);
}

/* Writes LEN bytes of DATA as DIR/NAME. */
static void put_file(const char *dir, const char *name, const void *data,
                     size_t len)
{
    char path[700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* A base table that is there but cannot be decoded (its first index is
 * not a number) is the base missing, named with the byte where it broke:
 * the read goes on without it rather than failing. */
static void damaged_base_is_missing_and_named(void **state)
{
    (void)state;
    struct rt_database db;
    database(&db, 0);
    char *from = scratch_dir_new("rtrb");
    char sys32[600];
    snprintf(sys32, sizeof sys32, "%s/System32", from);
    assert_int_equal(rt_os_mkdirs(sys32), 0);
    static const uint8_t names[] = {'x', 0, 0, 0, 'S', 0, 0, 0, 0, 0};
    static const uint8_t helps[] = {'3', 0, 0, 0, 'H', 0, 0, 0, 0, 0};
    put_file(sys32, "perfd009.dat", names, sizeof names);
    put_file(sys32, "perfi009.dat", helps, sizeof helps);
    struct rt_store *s = rt_store_mem_new();
    struct rt_rebuild_sources src;
    struct rt_error e = {0};
    assert_int_equal(rt_rebuild_sources_read(s, &db, from, &src, &e), 0);
    assert_int_equal(src.in.n_base, 1);
    assert_null(src.in.base[0].t);
    assert_non_null(src.in.base[0].missing);
    if (!strstr(src.in.base[0].missing, "System32/perfd009.dat: damaged at "
                                        "byte 0"))
        fail_msg("base: %s", src.in.base[0].missing);
    rt_rebuild_sources_free(&src);
    assert_int_equal(scratch_remove(from), 0);
    free(from);
    s->ops->close(s);
    rt_database_free(&db);
}

/* An INI without English is copied to the first of its languages the
 * machine has, here the tree's last (019): rebuild must still find that
 * copy, or the provider's strings lost from the tables stay lost. */
static void inf_copy_found_in_the_last_languages_folder(void **state)
{
    (void)state;
    struct rt_database db;
    database(&db, 1);
    free(db.langs[1].id);
    db.langs[1].id = strdup("019");
    db.services[0].ini_file = strdup("a.ini");
    char *from = scratch_dir_new("rtrb");
    char dir[600];
    snprintf(dir, sizeof dir, "%s/INF/A/0019", from);
    assert_int_equal(rt_os_mkdirs(dir), 0);
    static const char sym[] = "#define OBJ 0\n#define CNT 2\n";
    static const char ini[] =
        "[info]\ndrivername=A\nsymbolfile=a.h\n[languages]\n019=Russian\n"
        "[objects]\nOBJ_019_NAME=\n[text]\nOBJ_019_NAME=A object 019\n"
        "OBJ_019_HELP=A object help\nCNT_019_NAME=A counter 019\n"
        "CNT_019_HELP=A counter help\n";
    put_file(dir, "a.h", sym, sizeof sym - 1);
    put_file(dir, "a.ini", ini, sizeof ini - 1);
    struct rt_store *s = rt_store_mem_new();
    struct rt_rebuild_sources src;
    struct rt_error e = {0};
    assert_int_equal(rt_rebuild_sources_read(s, &db, from, &src, &e), 0);
    assert_true(src.in.n_inf >= 1);
    const struct rt_rebuild_inf *a = &src.in.inf[0];
    assert_string_equal(a->service, "A");
    if (!a->spec || !strstr(a->path, "INF/A/0019/a.ini"))
        fail_msg("A's INF copy: %s: %s", a->path, a->why ? a->why : "");
    assert_int_equal(a->spec->n_symbols, 2);
    rt_rebuild_sources_free(&src);
    assert_int_equal(scratch_remove(from), 0);
    free(from);
    s->ops->close(s);
    rt_database_free(&db);
}

/* Sources read from a Windows directory without perfd009.dat, whose
 * PerfStringBackup.INI does not parse, out of memory at each malloc and
 * realloc in turn: the read fails as out of memory, or gives what it
 * gives with memory (the base recorded as missing, with the file it
 * lacks; the backup with the line it broke at), never a base neither
 * found nor missing; LeakSanitizer sees no file's bytes left behind. */
static void sources_out_of_memory_fail_whole(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    struct rt_database db;
    database(&db, 0);
    char *from = scratch_dir_new("rtrb");
    char sys32[600];
    snprintf(sys32, sizeof sys32, "%s/System32", from);
    assert_int_equal(rt_os_mkdirs(sys32), 0);
    static const char broken[] = "not a backup\r\n";
    put_file(sys32, "PerfStringBackup.INI", broken, sizeof broken - 1);
    struct rt_store *s = rt_store_mem_new();
    struct rt_rebuild_sources src;
    struct rt_error e = {0};
    alloc_calls = 0;
    assert_int_equal(rt_rebuild_sources_read(s, &db, from, &src, &e), 0);
    unsigned long calls = alloc_calls;
    assert_int_equal(src.in.n_base, 1);
    assert_null(src.in.base[0].t);
    assert_non_null(src.in.base[0].missing);
    char *want = strdup(src.in.base[0].missing);
    assert_non_null(strstr(want, "System32/perfd009.dat: not found"));
    assert_null(src.in.psb);
    assert_non_null(src.in.psb_why);
    char *want_psb = strdup(src.in.psb_why);
    assert_non_null(strstr(want_psb, "line 1: "));
    rt_rebuild_sources_free(&src);
    /* Under valgrind, whose allocator takes realloc over in every object
     * (this hook's included), no call reaches the hook: nothing to fail. */
    if (calls == 0) {
        free(want);
        free(want_psb);
        scratch_remove(from);
        free(from);
        s->ops->close(s);
        rt_database_free(&db);
        skip();
    }
    for (unsigned long k = 1; k <= calls; k++) {
        struct rt_error ek = {0};
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_rebuild_sources_read(s, &db, from, &src, &ek);
        alloc_fail_at = 0;
        if (r != 0) {
            if (ek.code != RT_ERR_NOT_ENOUGH_MEMORY)
                fail_msg("allocation %lu of %lu failed: %s", k, calls,
                         ek.message);
            continue;
        }
        const struct rt_rebuild_base *b = &src.in.base[0];
        if (src.in.n_base != 1 || b->t || !b->missing ||
            strcmp(b->missing, want))
            fail_msg("allocation %lu of %lu failed, and the read succeeded "
                     "with English's base %s", k, calls,
                     b->missing ? b->missing : "neither found nor missing");
        if (src.in.psb || !src.in.psb_why || strcmp(src.in.psb_why, want_psb))
            fail_msg("allocation %lu of %lu failed, and the read succeeded "
                     "with the backup %s", k, calls,
                     src.in.psb_why ? src.in.psb_why : "read");
        rt_rebuild_sources_free(&src);
    }
    free(want);
    free(want_psb);
    assert_int_equal(scratch_remove(from), 0);
    free(from);
    s->ops->close(s);
    rt_database_free(&db);
#else
    skip();
#endif
}

/* Out of memory anywhere in planning a rebuild (malloc's and realloc's
 * calls: the tables' pairs, their encoding as it grows): the plan fails
 * whole as out of memory, or it is the plan with both tables whole. Never
 * a change that writes a table it could not build (an empty Counter table
 * would lose every name). */
static void rebuild_out_of_memory_fails_whole(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    static const char counter[] = "1=1847;2=System;4=Memory;2000=A object;"
                                  "2002=A counter;2004=B name;2006=C name;";
    static const char help[] = "3=System help;5=Memory help;"
                               "2001=A object help;2003=A counter help;"
                               "2005=B help;2007=C help;";
    struct fixture f;
    fixture(&f, 0);
    struct rt_change_set cs;
    struct rt_rebuild_plan p;
    struct rt_error e = {0};
    alloc_calls = 0;
    assert_int_equal(rt_engine_rebuild(&f.db, &f.in, &cs, &p, &e), 0);
    unsigned long calls = alloc_calls;
    rt_change_set_free(&cs);
    rt_rebuild_plan_free(&p);
    /* Under valgrind no call reaches the hook: nothing to fail. */
    if (calls == 0) {
        fixture_free(&f);
        skip();
    }
    for (unsigned long k = 1; k <= calls; k++) {
        struct rt_error ek = {0};
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_engine_rebuild(&f.db, &f.in, &cs, &p, &ek);
        alloc_fail_at = 0;
        if (r != 0) {
            if (ek.code != RT_ERR_NOT_ENOUGH_MEMORY)
                fail_msg("allocation %lu of %lu failed: %s", k, calls,
                         ek.message);
            continue;
        }
        const struct rt_change *tc =
            table_change(&cs, "009", RT_TABLE_COUNTER);
        const struct rt_change *th = table_change(&cs, "009", RT_TABLE_HELP);
        if (!tc || !th)
            fail_msg("allocation %lu of %lu failed, and the plan changes "
                     "no %s table", k, calls, tc ? "Help" : "Counter");
        char *c = pairs_text(&f.db, tc), *h = pairs_text(&f.db, th);
        if (strcmp(c, counter) || strcmp(h, help))
            fail_msg("allocation %lu of %lu failed, and the plan writes "
                     "Counter '%s', Help '%s'", k, calls, c, h);
        free(c);
        free(h);
        rt_change_set_free(&cs);
        rt_rebuild_plan_free(&p);
    }
    fixture_free(&f);
#else
    skip();
#endif
}

/* One index held by a layer and by an INF pair put over it: the layer's
 * pair first, the INF pair after it (the last of two equal indices is
 * the one Windows shows), at a range's first index as at its last
 * segment's end: ranges 10-19 and 20-29, the base holding 10 and 20, the
 * INF pairs 10 and 20 put over them. */
static void inf_pair_comes_after_a_layer_pair_of_its_index(void **state)
{
    (void)state;
    struct rt_pair_list stored = {0}, inf = {0}, out = {0};
    assert_int_equal(rt_pair_list_append(&stored, 10, "s10"), 0);
    assert_int_equal(rt_pair_list_append(&stored, 20, "s20"), 0);
    assert_int_equal(rt_pair_list_append(&inf, 10, "i10"), 0);
    assert_int_equal(rt_pair_list_append(&inf, 20, "i20"), 0);
    struct rt_rb_source src;
    assert_int_equal(rt_rb_source_of_pairs(&src, &stored), 0);
    static const uint32_t ranges[2][2] = {{10, 19}, {20, 29}};
    struct rt_rb_table t;
    assert_int_equal(rt_rb_table_init(&t, ranges, 2), 0);
    assert_int_equal(rt_rb_table_start(&t, &src, UINT32_MAX, &src, NULL,
                                       &inf), 0);
    rt_rb_table_put_inf(&t, 0, 2);
    assert_int_equal(rt_rb_table_count(&t, 10, 19), 2);
    assert_int_equal(rt_rb_table_result(&t, &out), 0);
    static const char *const want[] = {"s10", "i10", "s20", "i20"};
    assert_int_equal(out.n, 4);
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(out.v[i].text, want[i]);
    rt_rb_table_result_free(&out);
    rt_rb_table_free(&t);
    rt_rb_source_free(&src);
    rt_pair_list_free(&stored);
    rt_pair_list_free(&inf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_provider_from_its_first_source),
        cmocka_unit_test(inf_pair_comes_after_a_layer_pair_of_its_index),
        cmocka_unit_test(overlapping_ranges_placed_in_order),
        cmocka_unit_test(table_out_of_order_rebuilds_the_same),
        cmocka_unit_test(change_says_what_it_adds_removes_and_loses),
        cmocka_unit_test(change_loses_what_it_does_not_add_back),
        cmocka_unit_test(rebuilding_the_result_changes_nothing),
        cmocka_unit_test(current_language_takes_english_base),
        cmocka_unit_test(base_from_tables_or_lost),
        cmocka_unit_test(last_counter_raised),
        cmocka_unit_test(sources_out_of_memory_fail_whole),
        cmocka_unit_test(damaged_base_is_missing_and_named),
        cmocka_unit_test(inf_copy_found_in_the_last_languages_folder),
        cmocka_unit_test(rebuild_out_of_memory_fails_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
