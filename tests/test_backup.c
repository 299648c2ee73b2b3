/* Backup and restore (engine/backup.h) as pure logic over a database read
 * from the in-memory store: what lodctr /S saves (services with a range in
 * the store's order, every language but CurrentLanguage, tables merged),
 * what lodctr /R:file changes (ranges set or deleted, Disable Performance
 * Counters restored too, tables spliced where they part or replaced,
 * Perflib's values, sections the store has nothing for reported),
 * refusals that plan nothing, and a backup -> damage -> restore round
 * trip through rt_op_restore. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#include "ops/ops.h"
#include "ops/reg_backup.h"
#include "model/size_caps.h"
#include "model/utf16.h"

#define BLOB(lit) ((const uint8_t *)(lit)), sizeof(lit)

static const char16_t c009[] = u"1\0" "1847\0" "2\0System\0" "4\0Memory\0"
                               "2000\0Mine\0";
static const char16_t h009[] = u"3\0System help\0" "5\0Memory help\0"
                               "2001\0Mine help\0";
static const char16_t c019[] = u"1\0" "1847\0" "2\0Система\0";
static const char16_t h019[] = u"3\0Справка\0";

static void put_dword(struct rt_store *s, const char *svc, const char *name,
                      uint32_t v)
{
    struct rt_value x;
    assert_int_equal(rt_value_from_dword(&x, v), 0);
    if (svc)
        assert_int_equal(rt_store_mem_put_service_value(s, svc, name, &x), 0);
    else
        assert_int_equal(rt_store_mem_put_perflib(s, name, &x), 0);
    rt_value_free(&x);
}

static void put_range(struct rt_store *s, const char *svc, uint32_t fc,
                      uint32_t lc)
{
    assert_int_equal(rt_store_mem_put_service(s, svc, 1), 0);
    put_dword(s, svc, "First Counter", fc);
    put_dword(s, svc, "First Help", fc + 1);
    put_dword(s, svc, "Last Counter", lc);
    put_dword(s, svc, "Last Help", lc + 1);
}

/* 009 and 019 and CurrentLanguage; Zeta (a range, disabled), Alpha (a
 * range), NoRange (a Performance key only). */
static struct rt_store *machine(void)
{
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            BLOB(c009)), 0);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP,
                                            BLOB(h009)), 0);
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_COUNTER,
                                            BLOB(c019)), 0);
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_HELP,
                                            BLOB(h019)), 0);
    assert_int_equal(rt_store_mem_put_table(s, "CurrentLanguage",
                                            RT_TABLE_COUNTER, BLOB(c009)), 0);
    put_dword(s, NULL, "Base Index", 1847);
    put_dword(s, NULL, "Last Counter", 2000);
    put_dword(s, NULL, "Last Help", 2001);
    put_range(s, "Zeta", 2000, 2000);
    put_dword(s, "Zeta", "Disable Performance Counters", 4);
    put_range(s, "Alpha", 1900, 1902);
    assert_int_equal(rt_store_mem_put_service(s, "NoRange", 1), 0);
    return s;
}

static char *backup_text(struct rt_store *s)
{
    struct rt_database db;
    struct rt_error e = {0};
    struct rt_psb p;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_backup(&db, &p, &e), 0);
    rt_database_free(&db);
    uint8_t *u;
    size_t n;
    assert_int_equal(rt_psb_write(&p, &u, &n), 0);
    rt_psb_free(&p);
    char *t = NULL;
    size_t tl;
    assert_int_equal(rt_utf16le_to_utf8(u, n, &t, &tl, NULL), 0);
    free(u);
    return t;
}

static void parse(const char *text, struct rt_psb *p)
{
    struct rt_psb_error err;
    if (rt_psb_parse((const uint8_t *)text, strlen(text), p, NULL, &err))
        fail_msg("line %u: %s", err.line, err.message);
}

static void test_backup(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    char *t = backup_text(s);
    /* Services in the store's order (the mem store keeps insertion
     * order); NoRange has no First Counter and no section;
     * CurrentLanguage has none either. */
    assert_string_equal(
        t, "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=2000\r\n"
           "Last Help=2001\r\n\r\n[PERF_Zeta]\r\nFirst Counter=2000\r\n"
           "First Help=2001\r\nLast Counter=2000\r\nLast Help=2001\r\n"
           "Disable Performance Counters=4\r\n\r\n[PERF_Alpha]\r\n"
           "First Counter=1900\r\nFirst Help=1901\r\nLast Counter=1902\r\n"
           "Last Help=1903\r\n\r\n[PerfStrings_009]\r\n1=1847\r\n2=System\r\n"
           "3=System help\r\n4=Memory\r\n5=Memory help\r\n2000=Mine\r\n"
           "2001=Mine help\r\n\r\n[PerfStrings_019]\r\n1=1847\r\n"
           "2=\xD0\xA1\xD0\xB8\xD1\x81\xD1\x82\xD0\xB5\xD0\xBC\xD0\xB0\r\n"
           "3=\xD0\xA1\xD0\xBF\xD1\x80\xD0\xB0\xD0\xB2\xD0\xBA\xD0\xB0");
    free(t);

    /* A damaged table is refused: the backup would lose strings. */
    static const uint8_t bad[] = {'2', 0, 0, 0, 'X'};
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_HELP, bad,
                                            sizeof bad), 0);
    struct rt_database db;
    struct rt_error e = {0};
    struct rt_psb p;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_backup(&db, &p, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, "Perflib\\019\\Help is damaged"));
    rt_database_free(&db);
    s->ops->close(s);
}

struct sink {
    uint8_t *v;
    size_t n, parts;
    size_t fail_at;             /* the part whose write fails (1-based) */
};

static int to_sink(void *ctx, const uint8_t *data, size_t len)
{
    struct sink *k = ctx;
    if (++k->parts == k->fail_at)
        return -1;
    k->v = realloc(k->v, k->n + len + 1);
    assert_non_null(k->v);
    memcpy(k->v + k->n, data, len);
    k->n += len;
    return 0;
}

/* rt_engine_backup_stream over a database read without its tables writes
 * exactly the bytes of the whole backup, a part per language after the
 * head, reading each language from the store; a damaged table and a
 * failing write stop it with their own codes. */
static void test_backup_stream(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    struct rt_database db;
    struct rt_error e = {0};
    struct rt_psb p;
    uint8_t *whole;
    size_t whole_len;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_backup(&db, &p, &e), 0);
    assert_int_equal(rt_psb_write(&p, &whole, &whole_len), 0);
    rt_psb_free(&p);
    rt_database_free(&db);

    static const struct rt_db_load_options none = {RT_DB_TABLES_NONE, NULL,
                                                   0, 0, NULL};
    assert_int_equal(rt_database_load_with(s, &db, &none, &e), 0);
    struct sink k = {0};
    struct rt_backup_stats st;
    assert_int_equal(rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st, &e),
                     0);
    assert_int_equal(k.n, whole_len);
    assert_memory_equal(k.v, whole, whole_len);
    assert_int_equal(k.parts, 3);       /* head, 009, 019 */
    assert_int_equal(st.n_langs, 2);
    assert_int_equal(st.n_services, 2);
    assert_int_equal(st.bytes, whole_len);
    /* Nothing of the tables stays with the database. */
    for (size_t i = 0; i < db.n_langs; i++) {
        assert_false(db.langs[i].loaded);
        assert_null(db.langs[i].tab[RT_TABLE_HELP].blob);
        assert_int_equal(db.langs[i].table.help.n, 0);
    }
    free(k.v);
    k = (struct sink){NULL, 0, 0, 2};
    assert_int_equal(rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st, &e),
                     -1);
    assert_int_equal(e.code, RT_ERR_WRITE_FAULT);
    assert_int_equal(k.parts, 2);
    free(k.v);
    rt_database_free(&db);

    static const uint8_t bad[] = {'2', 0, 0, 0, 'X'};
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_HELP, bad,
                                            sizeof bad), 0);
    assert_int_equal(rt_database_load_with(s, &db, &none, &e), 0);
    k = (struct sink){0};
    assert_int_equal(rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st, &e),
                     -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, "Perflib\\019\\Help is damaged"));
    assert_int_equal(k.parts, 2);       /* head and 009 went before */
    free(k.v);
    /* Salvaged: every readable pair of 019's Help, which holds none. */
    k = (struct sink){0};
    assert_int_equal(rt_engine_backup_stream(s, &db, 1, to_sink, &k, &st, &e),
                     0);
    assert_int_equal(st.n_langs, 2);
    assert_int_equal(st.n_damaged, 1);
    free(k.v);
    rt_database_free(&db);
    free(whole);
    s->ops->close(s);
}

struct damage_seen {
    size_t n;
    char what[64];
    size_t pairs, bytes;
};

static void seen(void *ctx, const struct rt_backup_damage *d)
{
    struct damage_seen *x = ctx;
    x->n++;
    snprintf(x->what, sizeof x->what, "%s %s", d->lang, d->table);
    x->pairs = d->pairs;
    x->bytes = d->bytes;
}

/* A text whose line breaks would be read back as a section or a string of
 * their own (a hostile tree's: "[PERF_Evil]" with a range, "2=" over
 * another index, "0=" that makes the file unreadable) is left out of the
 * backup and counted; a help text with line breaks that read as its
 * continuation (Windows writes such) is kept, both by the stream that
 * copies the tables' UTF-16 and by the salvage that decodes them (which
 * texts: tests/test_psb_text.c). */
static void test_backup_leaves_out_what_reads_back_otherwise(void **state)
{
    (void)state;
    static const char16_t c[] = u"1\0" "1847\0" "2\0System\0"
        "2000\0Evil\r\n\r\n[PERF_Evil]\r\nFirst Counter=3000\0"
        "2002\0Two\n2=Replaced\0" "2004\0Zero\n0=x\0"
        "2006\0Kept\n  , more [x\n tail\0" "2008\0Spaced\n  [PERF_X]  \0"
        "2010\0Trailing\n\0";
    static const char16_t h[] = u"3\0System help\0"
        "2001\0Line one\r\nline two\0";
    static const struct rt_db_load_options none = {RT_DB_TABLES_NONE, NULL,
                                                   0, 0, NULL};
    for (int damaged = 0; damaged < 2; damaged++) {
        struct rt_store *s = machine();
        assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                                BLOB(c)), 0);
        static const uint8_t cut[] = {'3', 0, 0, 0, 'X'};
        if (damaged)
            assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP,
                                                    cut, sizeof cut), 0);
        else
            assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP,
                                                    BLOB(h)), 0);
        struct rt_database db;
        struct rt_error e = {0};
        assert_int_equal(rt_database_load_with(s, &db, &none, &e), 0);
        struct sink k = {0};
        struct rt_backup_stats st;
        assert_int_equal(rt_engine_backup_stream(s, &db, damaged, to_sink, &k,
                                                 &st, &e), 0);
        assert_int_equal(st.left_out, 5);
        struct rt_psb p;
        struct rt_psb_error err;
        if (rt_psb_parse(k.v, k.n, &p, NULL, &err))
            fail_msg("line %u: %s", err.line, err.message);
        assert_null(rt_psb_service_find(&p, "Evil"));
        const struct rt_psb_language *l = rt_psb_language_find(&p, "009");
        assert_non_null(l);
        const char *want[][2] = {{"2", "System"}, {"2006", "Kept\n  , more [x\n tail"},
                                 {"2001", "Line one\r\nline two"}};
        for (size_t w = 0; w < 3 - (size_t)damaged; w++) {
            uint32_t index = (uint32_t)strtoul(want[w][0], NULL, 10);
            size_t at = l->strings.n;
            for (size_t i = 0; i < l->strings.n; i++)
                if (l->strings.v[i].index == index)
                    at = i;
            assert_true(at < l->strings.n);
            size_t len = strlen(want[w][1]);
            assert_int_equal(l->strings.v[at].text_len, len);
            assert_memory_equal(l->strings.v[at].text, want[w][1], len);
        }
        for (size_t i = 0; i < l->strings.n; i++)
            assert_true(l->strings.v[i].index < 2000 ||
                        l->strings.v[i].index == 2001 ||
                        l->strings.v[i].index == 2006);
        rt_psb_free(&p);
        free(k.v);
        rt_database_free(&db);
        s->ops->close(s);
    }
}

/* A table of T (UTF-16 literal pairs) with, when BIG, one more pair whose
 * text is BIG 'x' units: a text longer than a write piece. */
static uint8_t *table_with(const char16_t *t, size_t t_bytes, size_t big,
                           size_t *len)
{
    static const char16_t index[] = u"9001";
    size_t head = t_bytes - 2;      /* without the list's terminator */
    *len = head + (big ? sizeof index + (big + 1) * 2 : 0) + 2;
    uint8_t *b = calloc(1, *len);
    assert_non_null(b);
    memcpy(b, t, head);
    if (big) {
        memcpy(b + head, index, sizeof index);
        for (size_t i = 0; i < big; i++)
            b[head + sizeof index + 2 * i] = 'x';
    }
    return b;
}

/* The stream writes what the decoded backup (rt_engine_backup, whose
 * pairs rt_psb_merge merges) writes, for tables as Windows writes them
 * (in index order, merged in one pass) with an index in both and an
 * index twice in one, for tables out of index order (sorted), and with a
 * text longer than the pieces the stream writes in: the last of equal
 * indices wins, Help's over Counter's. */
static void test_backup_stream_merges_as_decoded(void **state)
{
    (void)state;
    static const char16_t in_order_c[] = u"1\0" "1847\0" "2\0System\0"
        "4\0Memory\0" "4\0Memory again\0" "2000\0Mine\0";
    static const char16_t in_order_h[] = u"3\0System help\0"
        "4\0Help at four\0" "5\0Memory help\0" "2001\0Mine help\0";
    static const char16_t any_c[] = u"2000\0Mine\0" "1\0" "1847\0"
        "4\0Memory\0" "2\0System\0" "4\0Memory again\0";
    static const char16_t any_h[] = u"2001\0Mine help\0" "4\0Help at four\0"
        "3\0System help\0" "5\0Memory help\0";
    static const struct rt_db_load_options none = {RT_DB_TABLES_NONE, NULL,
                                                   0, 0, NULL};
    for (int v = 0; v < 4; v++) {
        struct rt_store *s = machine();
        size_t clen, hlen, big = v & 2 ? 200000 : 0;
        uint8_t *c = v & 1 ? table_with(any_c, sizeof any_c, 0, &clen)
                           : table_with(in_order_c, sizeof in_order_c, 0,
                                        &clen);
        uint8_t *h = v & 1 ? table_with(any_h, sizeof any_h, big, &hlen)
                           : table_with(in_order_h, sizeof in_order_h, big,
                                        &hlen);
        assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                                c, clen), 0);
        assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP, h,
                                                hlen), 0);
        free(c);
        free(h);
        struct rt_database db;
        struct rt_error e = {0};
        struct rt_psb p;
        uint8_t *whole;
        size_t whole_len;
        assert_int_equal(rt_database_load(s, &db, &e), 0);
        assert_int_equal(rt_engine_backup(&db, &p, &e), 0);
        assert_int_equal(rt_psb_write(&p, &whole, &whole_len), 0);
        const struct rt_psb_language *l = rt_psb_language_find(&p, "009");
        assert_non_null(l);
        int four = 0;
        for (size_t i = 0; i < l->strings.n; i++)
            if (l->strings.v[i].index == 4) {
                four++;
                assert_int_equal(l->strings.v[i].text_len, 12);
                assert_memory_equal(l->strings.v[i].text, "Help at four", 12);
            }
        assert_int_equal(four, 1);
        rt_psb_free(&p);
        rt_database_free(&db);

        assert_int_equal(rt_database_load_with(s, &db, &none, &e), 0);
        struct sink k = {0};
        struct rt_backup_stats st;
        assert_int_equal(rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st,
                                                 &e), 0);
        assert_int_equal(k.n, whole_len);
        assert_memory_equal(k.v, whole, whole_len);
        /* The head, 009 (its pairs before the long text, then the long
         * text, the last pair, as a write of its own) and 019. */
        assert_int_equal(k.parts, big ? 4 : 3);
        free(k.v);
        free(whole);
        rt_database_free(&db);
        s->ops->close(s);
    }
}

/* A salvaged backup of a database read as repair reads it (every table,
 * its pairs not decoded) holds the undamaged tables' pairs too, not only
 * the salvaged ones, and names each damaged table to the sink. */
static void test_backup_salvaged_undecoded(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    static const char16_t damaged[] = u"3\0Справка\0" "5";
    /* No terminator: damaged; 3 still reads, "5" has no text. */
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_HELP,
                                            (const uint8_t *)damaged,
                                            sizeof damaged - 2), 0);
    static const struct rt_db_load_options as_stored = {RT_DB_TABLES_ALL,
                                                        NULL, 0, 0, NULL};
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load_with(s, &db, &as_stored, &e), 0);
    struct sink k = {0};
    struct damage_seen d = {0};
    const struct rt_backup_sink to = {to_sink, &k, seen, &d};
    struct rt_backup_stats st;
    assert_int_equal(rt_engine_backup_to(s, &db, 1, &to, &st, &e), 0);
    assert_int_equal(st.n_damaged, 1);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.what, "019 Help");
    assert_int_equal(d.bytes, sizeof damaged - 2);
    assert_int_equal(d.pairs, 1);
    char *t = NULL;
    size_t tn;
    assert_int_equal(rt_utf16le_to_utf8(k.v, k.n, &t, &tn, NULL), 0);
    /* 019's Counter from its bytes, and 3 salvaged from the Help. */
    assert_non_null(strstr(t, "[PerfStrings_019]\r\n1=1847\r\n"
                              "2=\xD0\xA1\xD0\xB8\xD1\x81\xD1\x82\xD0\xB5"
                              "\xD0\xBC\xD0\xB0\r\n3="));
    assert_non_null(strstr(t, "[PerfStrings_009]\r\n1=1847\r\n2=System\r\n"
                              "3=System help\r\n4=Memory\r\n"));
    free(t);
    free(k.v);
    rt_database_free(&db);
    s->ops->close(s);
}

static const struct rt_restore_service *svc(const struct rt_restore_plan *p,
                                            const char *name)
{
    for (size_t i = 0; i < p->n_services; i++)
        if (!strcmp(p->services[i].name, name))
            return &p->services[i];
    fail_msg("no service %s in the plan", name);
    return NULL;
}

static void test_restore_plan(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    struct rt_psb p;
    parse("[PerfStrings_00A]\r\n1=1847\r\n"
          "[PerfStrings_009]\r\n1=1847\r\n2=System\r\n3=System help\r\n"
          "2000=Mine\r\n2001=Mine help\r\n3000=New\r\n3001=New help\r\n"
          "[PERF_Zeta]\r\nFirst Counter=2000\r\nFirst Help=2001\r\n"
          "Last Counter=2000\r\nLast Help=2001\r\n"
          "[PERF_NoRange]\r\nFirst Counter=3000\r\nFirst Help=3001\r\n"
          "Last Counter=3000\r\nLast Help=3001\r\n"
          "Disable Performance Counters=1\r\n"
          "[PERF_Gone]\r\nFirst Counter=4000\r\nFirst Help=4001\r\n"
          "Last Counter=4000\r\nLast Help=4001\r\n"
          "[Perflib]\r\nLast Counter=3000\r\nLast Help=3001\r\n", &p);
    struct rt_database db;
    struct rt_error e = {0};
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_restore(&db, &p, &cs, &plan, &e), 0);

    /* Zeta: same range, Disable deleted (the section has none). */
    const struct rt_restore_service *z = svc(&plan, "Zeta");
    assert_int_equal(z->action, RT_RESTORE_SET);
    assert_int_equal(z->values_changed, 0);
    assert_true(z->disable_changed && !z->has_disable);
    /* Alpha: no section, its four values deleted. */
    const struct rt_restore_service *a = svc(&plan, "Alpha");
    assert_int_equal(a->action, RT_RESTORE_DELETE);
    assert_int_equal(a->values_changed, 4);
    assert_int_equal(a->line, 0);
    /* NoRange: a range and Disable from the file. */
    const struct rt_restore_service *n = svc(&plan, "NoRange");
    assert_int_equal(n->action, RT_RESTORE_SET);
    assert_int_equal(n->values_changed, 4);
    assert_false(n->had_range);
    assert_true(n->disable_changed && n->has_disable && n->disable == 1);
    /* Gone has no Performance key here; 00A is no language here. */
    assert_int_equal(plan.n_extra_services, 1);
    assert_string_equal(plan.extra_services[0]->name, "Gone");
    assert_int_equal(plan.n_extra_langs, 1);
    assert_string_equal(plan.extra_langs[0]->id, "00A");
    /* 009 replaced, 019 and CurrentLanguage kept. */
    for (size_t i = 0; i < plan.n_langs; i++) {
        const struct rt_restore_language *l = &plan.langs[i];
        if (!strcmp(l->id, "009")) {
            assert_string_equal(l->section, "009");
            assert_true(l->counter_changed && l->help_changed);
            assert_int_equal(l->names_before, 4);
            assert_int_equal(l->names_after, 4);
            assert_int_equal(l->helps_after, 3);
        } else {
            assert_null(l->section);
        }
    }
    /* Perflib: the two values the file has; Base Index kept. */
    assert_int_equal(plan.perflib[0].new_value, 3000);
    assert_int_equal(plan.perflib[1].new_value, 3001);
    assert_false(plan.perflib[2].in_file);
    /* Every First Counter of the file has its name. */
    assert_int_equal(plan.n_unnamed, 0);

    /* The change set: 4 deletes (Alpha), 1 delete (Zeta's Disable),
     * 5 sets (NoRange), 2 tables, 2 Perflib values. */
    size_t sets = 0, dels = 0, tables = 0, perflib = 0;
    for (size_t i = 0; i < cs.n; i++) {
        switch (cs.v[i].op) {
        case RT_CHANGE_SET_SERVICE: sets++; break;
        case RT_CHANGE_DELETE_SERVICE: dels++; break;
        case RT_CHANGE_SET_TABLE: tables++; break;
        case RT_CHANGE_SET_PERFLIB: perflib++; break;
        default: fail_msg("unexpected change %d", (int)cs.v[i].op);
        }
    }
    assert_int_equal(sets, 5);
    assert_int_equal(dels, 5);
    assert_int_equal(tables, 2);
    assert_int_equal(perflib, 2);

    /* Planned from a database read without its tables (each language's
     * read from the store in turn): the same plan, the same changes. */
    static const struct rt_db_load_options none = {RT_DB_TABLES_NONE, NULL,
                                                   0, 0, NULL};
    struct rt_database bare;
    struct rt_change_set cs2;
    struct rt_restore_plan plan2;
    assert_int_equal(rt_database_load_with(s, &bare, &none, &e), 0);
    assert_int_equal(rt_engine_restore_from(s, &bare, &p, &cs2, &plan2, &e),
                     0);
    assert_int_equal(plan2.n_langs, plan.n_langs);
    for (size_t i = 0; i < plan.n_langs; i++) {
        const struct rt_restore_language *x = &plan.langs[i], *y =
            &plan2.langs[i];
        assert_string_equal(x->id, y->id);
        assert_int_equal(x->names_before, y->names_before);
        assert_int_equal(x->helps_before, y->helps_before);
        assert_int_equal(x->names_after, y->names_after);
        assert_int_equal(x->helps_after, y->helps_after);
        assert_int_equal(x->counter_changed, y->counter_changed);
        assert_int_equal(x->help_changed, y->help_changed);
    }
    assert_int_equal(cs2.n, cs.n);
    for (size_t i = 0; i < cs.n; i++) {
        const struct rt_change *x = &cs.v[i], *y = &cs2.v[i];
        assert_int_equal(x->op, y->op);
        assert_int_equal(x->value.len, y->value.len);
        if (x->value.len)
            assert_memory_equal(x->value.data, y->value.data, x->value.len);
        assert_int_equal(x->before_len, y->before_len);
        assert_true(x->before_hash == y->before_hash);
    }
    for (size_t i = 0; i < bare.n_langs; i++)
        assert_false(bare.langs[i].loaded);
    rt_change_set_free(&cs2);
    rt_restore_plan_free(&plan2);
    rt_database_free(&bare);

    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    rt_psb_free(&p);

    /* An incomplete section: the four deleted, as lodctr does. */
    parse("[Perflib]\r\nLast Counter=3000\r\nLast Help=3001\r\n"
          "[PERF_Zeta]\r\nFirst Counter=2000\r\n"
          "[PerfStrings_009]\r\n1=1847\r\n3=Help\r\n", &p);
    assert_int_equal(rt_engine_restore(&db, &p, &cs, &plan, &e), 0);
    z = svc(&plan, "Zeta");
    assert_int_equal(z->action, RT_RESTORE_DELETE);
    assert_int_equal(z->values_changed, 4);
    assert_true(z->line > 0);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    rt_psb_free(&p);
    /* Any one of the four missing, the other three there: the same. */
    static const char *const four[] = {"First Counter=2000", "First Help=2001",
                                       "Last Counter=2000", "Last Help=2001"};
    for (int missing = 0; missing < 4; missing++) {
        char text[512];
        int o = snprintf(text, sizeof text, "[Perflib]\r\nLast Counter=3000\r\n"
                         "Last Help=3001\r\n[PERF_Zeta]\r\n");
        for (int k = 0; k < 4; k++)
            if (k != missing)
                o += snprintf(text + o, sizeof text - (size_t)o, "%s\r\n",
                              four[k]);
        snprintf(text + o, sizeof text - (size_t)o,
                 "[PerfStrings_009]\r\n1=1847\r\n3=Help\r\n");
        parse(text, &p);
        assert_int_equal(rt_engine_restore(&db, &p, &cs, &plan, &e), 0);
        z = svc(&plan, "Zeta");
        if (z->action != RT_RESTORE_DELETE)
            fail_msg("a section without %.*s taken for complete",
                     (int)(strchr(four[missing], '=') - four[missing]),
                     four[missing]);
        assert_int_equal(z->values_changed, 4);
        rt_change_set_free(&cs);
        rt_restore_plan_free(&plan);
        rt_psb_free(&p);
    }

    /* A truncated file: a service whose First Counter has no name. */
    parse("[Perflib]\r\nLast Counter=3000\r\nLast Help=3001\r\n"
          "[PERF_Alpha]\r\nFirst Counter=1900\r\nFirst Help=1901\r\n"
          "Last Counter=1902\r\nLast Help=1903\r\n"
          "[PerfStrings_009]\r\n1=1847\r\n2=System\r\n3=Help", &p);
    assert_int_equal(rt_engine_restore(&db, &p, &cs, &plan, &e), 0);
    assert_int_equal(plan.n_unnamed, 1);
    assert_string_equal(plan.unnamed[0], "Alpha");
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    rt_psb_free(&p);
    rt_database_free(&db);
    s->ops->close(s);
}

/* The change restore plans for 009's Counter from a section S, applied
 * through rt_op_restore: what it leaves is the section's names encoded.
 * Returns the change's shape: edits, pairs added and removed. */
static void restore_009(struct rt_store *s, const char *strings,
                        size_t *edits, size_t *added, size_t *removed)
{
    char text[512];
    snprintf(text, sizeof text,
             "[Perflib]\r\nLast Counter=3000\r\nLast Help=3001\r\n"
             "[PerfStrings_009]\r\n%s", strings);
    struct rt_psb p;
    parse(text, &p);
    struct rt_database db;
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    assert_int_equal(rt_engine_restore(&db, &p, &cs, &plan, &e), 0);
    const struct rt_change *c = NULL;
    for (size_t i = 0; i < cs.n; i++)
        if (cs.v[i].op == RT_CHANGE_SET_TABLE && !strcmp(cs.v[i].lang, "009")
            && cs.v[i].table == RT_TABLE_COUNTER)
            c = &cs.v[i];
    assert_non_null(c);
    *edits = c->n_edits;
    *added = c->added.n;
    *removed = c->removed.n;
    if (c->n_edits) {
        /* One edit, from where the first pairs stop agreeing to the end;
         * the value holds only the bytes it writes. */
        const struct rt_table *t = &db.langs[0].tab[RT_TABLE_COUNTER];
        assert_string_equal(db.langs[0].id, "009");
        assert_int_equal(c->n_edits, 1);
        assert_int_equal(c->edits[0].at + c->edits[0].cut, t->len);
        assert_int_equal(c->value.len, c->edits[0].ins_len);
        assert_true(c->value.len < rt_change_table_len(c));
    }
    struct rt_name_table want;
    assert_int_equal(rt_psb_split(&p.langs[0].strings, &want), 0);
    uint8_t *blob;
    size_t len;
    assert_int_equal(rt_pair_list_encode(&want.counter, &blob, &len), 0);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    rt_database_free(&db);

    /* Forced: the first name differing (1=1848) is a base text. */
    assert_int_equal(rt_op_restore(s, &p, 1, 0, &cs, &plan, &e), 0);
    struct rt_value v = {0};
    int present = 0;
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    assert_int_equal(v.len, len);
    assert_memory_equal(v.data, blob, len);
    rt_value_free(&v);
    free(blob);
    rt_name_table_free(&want);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    rt_psb_free(&p);
}

/* A restore costs what it changes: where the backup's tables begin as
 * the store's do, the table is spliced from where they part (pairs added
 * at the end, pairs cut from it, both); where they part early, or the
 * table is damaged, it is replaced whole. */
static void test_restore_splices(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    size_t edits, added, removed;
    static const char base[] = "1=1847\r\n2=System\r\n3=System help\r\n"
                               "4=Memory\r\n5=Memory help\r\n"
                               "2000=Mine\r\n2001=Mine help\r\n";
    char text[400];
    /* Two names added after the store's. */
    snprintf(text, sizeof text, "%s3000=New\r\n3001=New help\r\n"
             "3002=Newer\r\n", base);
    restore_009(s, text, &edits, &added, &removed);
    assert_int_equal(edits, 1);
    assert_int_equal(added, 2);
    assert_int_equal(removed, 0);
    /* Back: the two cut. */
    restore_009(s, base, &edits, &added, &removed);
    assert_int_equal(edits, 1);
    assert_int_equal(added, 0);
    assert_int_equal(removed, 2);
    /* The last pair's text changed, then grown by a character (the bytes
     * agree up to the old text's end): one cut, one added, each time. */
    static const char *last[] = {"Minf", "Minf2"};
    for (int i = 0; i < 2; i++) {
        snprintf(text, sizeof text, "1=1847\r\n2=System\r\n"
                 "3=System help\r\n4=Memory\r\n5=Memory help\r\n"
                 "2000=%s\r\n2001=Mine help\r\n", last[i]);
        restore_009(s, text, &edits, &added, &removed);
        assert_int_equal(edits, 1);
        assert_int_equal(added, 1);
        assert_int_equal(removed, 1);
    }
    /* The first name differs: replaced whole. */
    snprintf(text, sizeof text, "1=1848\r\n2=System\r\n3=System help\r\n"
             "4=Memory\r\n5=Memory help\r\n2000=Mine\r\n");
    restore_009(s, text, &edits, &added, &removed);
    assert_int_equal(edits, 0);
    /* A damaged table (no terminator after its last pair) is replaced
     * whole, though its pairs begin as the section's. */
    static const char16_t torn[] = u"1\0" "1847\0" "2\0System\0"
                                   "4\0Memory\0" "2000\0Mine";
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            (const uint8_t *)torn,
                                            sizeof torn - 2), 0);
    restore_009(s, base, &edits, &added, &removed);
    assert_int_equal(edits, 0);
    s->ops->close(s);
}

static void refused(struct rt_database *db, const char *text,
                    const char *words)
{
    struct rt_psb p;
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    parse(text, &p);
    assert_int_equal(rt_engine_restore(db, &p, &cs, &plan, &e), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    if (!strstr(e.message, words))
        fail_msg("want '%s', got '%s'", words, e.message);
    assert_int_equal(cs.n, 0);
    assert_int_equal(plan.n_services + plan.n_langs, 0);
    rt_psb_free(&p);
}

static void test_restore_refused(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    refused(&db, "[PerfStrings_009]\r\n1=1847\r\n", "no [Perflib] section");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\n[PerfStrings_009]\r\n1=1\r\n",
            "no [Perflib] section");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n",
            "strings for none of the database's languages");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n"
                 "[PerfStrings_00A]\r\n1=1847\r\n",
            "strings for none");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n"
                 "[PerfStrings_009]\r\n1=1847\r\n"
                 "2=System\r\n3=Help\r\n[PerfStrings_019]\r\n",
            "line 8: [PerfStrings_019] holds no strings");
    /* A repeated index, a section of names only or of help only:
     * each would leave a table audit calls damaged. */
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n"
                 "[PerfStrings_009]\r\n1=1847\r\n2=A\r\n3=B\r\n2=C\r\n",
            "line 4: [PerfStrings_009] has index 2 twice");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n"
                 "[PerfStrings_009]\r\n1=1847\r\n2=A\r\n",
            "holds no help texts (odd indices): restoring it would empty "
            "the Help table");
    refused(&db, "[Perflib]\r\nLast Counter=3\r\nLast Help=3\r\n"
                 "[PerfStrings_009]\r\n3=B\r\n",
            "holds no names (even indices)");
    rt_database_free(&db);
    s->ops->close(s);
}

/* backup -> damage -> restore gives the store back; restoring the same
 * file again changes nothing. */
static void test_round_trip(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    char *before_dump = rt_store_mem_dump(s);
    char *saved = backup_text(s);
    struct rt_psb p;
    parse(saved, &p);

    static const char16_t cut[] = u"1\0" "1847\0" "2\0System\0";
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            BLOB(cut)), 0);
    put_dword(s, "Alpha", "First Counter", 1234);
    put_dword(s, NULL, "Last Counter", 9999);

    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    assert_int_equal(rt_op_restore(s, &p, 0, 1, &cs, &plan, &e), 0);
    assert_int_equal(cs.n, 3);       /* dry run: the three changes */
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    char *dry = rt_store_mem_dump(s);
    assert_string_not_equal(dry, before_dump);

    assert_int_equal(rt_op_restore(s, &p, 0, 0, &cs, &plan, &e), 0);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    char *after = rt_store_mem_dump(s);
    assert_string_equal(after, before_dump);

    assert_int_equal(rt_op_restore(s, &p, 0, 0, &cs, &plan, &e), 0);
    assert_int_equal(cs.n, 0);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);

    free(dry);
    free(after);
    free(before_dump);
    free(saved);
    rt_psb_free(&p);
    s->ops->close(s);
}

/* The size of the backup of S through rt_engine_backup_stream, and of its
 * first part (the head). */
static size_t backup_size(struct rt_store *s, size_t *head)
{
    static const struct rt_db_load_options none = {RT_DB_TABLES_NONE, NULL,
                                                   0, 0, NULL};
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load_with(s, &db, &none, &e), 0);
    /* The head alone: a write past the first part fails (there is none
     * without languages). */
    struct sink k = {NULL, 0, 0, 2};
    struct rt_backup_stats st;
    int r = rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st, &e);
    assert_int_equal(r, db.n_langs ? -1 : 0);
    *head = k.n;
    free(k.v);
    k = (struct sink){0};
    assert_int_equal(rt_engine_backup_stream(s, &db, 0, to_sink, &k, &st, &e),
                     0);
    free(k.v);
    rt_database_free(&db);
    return k.n;
}

/* Every backup regtool writes of a tree within the .dat caps is one
 * restore reads: RT_BACKUP_FILE_MAX covers 4/3 of RT_DAT_TOTAL_MAX (a
 * 256 MiB cap refused the backup of a 316 MB database) and the head's
 * room; the tables that grow most in a backup (one-digit indices,
 * one-character texts) grow by no more than 4/3, a language's header
 * is under 64 bytes, and a provider with a 255-character name and its
 * five values takes at most 806 bytes (size_caps.h). */
static void test_backup_cap_holds_any_backup(void **state)
{
    (void)state;
    assert_true(RT_BACKUP_FILE_MAX >=
                RT_DAT_TOTAL_MAX * RT_BACKUP_PAIR_GROWTH_NUM /
                        RT_BACKUP_PAIR_GROWTH_DEN +
                    RT_BACKUP_HEAD_ROOM);
    assert_true(RT_BACKUP_HEAD_ROOM / 806 >= 200000);

    static const char16_t shortest_c[] = u"2\0x\0" "4\0x\0" "6\0x\0"
                                         "8\0x\0" "0010\0x\0";
    static const char16_t shortest_h[] = u"3\0y\0" "5\0y\0" "7\0y\0"
                                         "9\0y\0";
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    put_dword(s, NULL, "Base Index", 1847);
    put_dword(s, NULL, "Last Counter", 10);
    put_dword(s, NULL, "Last Help", 9);
    size_t head0, none = backup_size(s, &head0);
    assert_int_equal(none, head0);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            BLOB(shortest_c)), 0);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP,
                                            BLOB(shortest_h)), 0);
    size_t head, all = backup_size(s, &head);
    assert_int_equal(head, head0);
    size_t header = 2 * strlen("\r\n\r\n[PerfStrings_009]");
    assert_true(header < 64);
    size_t tables = sizeof shortest_c + sizeof shortest_h;
    size_t strings = all - head - header;
    /* 2=x ... 10=x: 8 pairs of 10 bytes, 10 of 12 (its table's 0010 is
     * 14 bytes). */
    assert_int_equal(strings, 8 * 10 + 12);
    assert_true(strings * RT_BACKUP_PAIR_GROWTH_DEN <=
                tables * RT_BACKUP_PAIR_GROWTH_NUM);

    char name[256];
    memset(name, 'N', 255);
    name[255] = 0;
    put_range(s, name, 2000000000, 2000000000);
    put_dword(s, name, "Disable Performance Counters", 4000000000u);
    size_t head1;
    backup_size(s, &head1);
    assert_int_equal(head1 - head0, 806);
    s->ops->close(s);
}

/* Another machine's backup: its base texts (1 to Base Index) differ from
 * the database's. Refused without FORCE, naming how many differ and the
 * first, nothing written; a dry run plans it and counts them; FORCE
 * restores it. A base text the file lacks (009's 5 here) or the database
 * lacks is no difference: a damaged database restored from its own
 * backup (test_round_trip) needs no FORCE. Before, the restore went
 * through with no word. */
static void test_restore_other_machine(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    char *before = rt_store_mem_dump(s);
    struct rt_psb p;
    parse("[Perflib]\r\nBase Index=1847\r\nLast Counter=2000\r\n"
          "Last Help=2001\r\n"
          "[PerfStrings_009]\r\n1=1847\r\n2=Sistema\r\n3=System help\r\n"
          "4=Memoria\r\n2000=Mine\r\n2001=Mine help\r\n"
          "[PerfStrings_019]\r\n1=1847\r\n2=Система\r\n3=Справка\r\n", &p);
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    assert_int_equal(rt_op_restore(s, &p, 0, 0, &cs, &plan, &e), -1);
    assert_int_equal(e.code, RT_ERR_ALREADY_EXISTS);
    static const char *const said[] = {
        "base texts (indices 1 to Base Index 1847) differ from the "
        "database's in 2 of the 7 they both have (the first: index 2 of "
        "language 009)",
        "another machine's backup", "nothing was written", "--force"};
    for (size_t i = 0; i < sizeof said / sizeof *said; i++)
        if (!strstr(e.message, said[i]))
            fail_msg("want '%s' in '%s'", said[i], e.message);
    assert_int_equal(cs.n, 0);
    char *now = rt_store_mem_dump(s);
    assert_string_equal(now, before);
    free(now);

    /* A dry run says what a restore would do, and how many differ. */
    assert_int_equal(rt_op_restore(s, &p, 0, 1, &cs, &plan, &e), 0);
    assert_int_equal(plan.base_differ, 2);
    assert_int_equal(plan.base_compared, 7);
    assert_int_equal(plan.langs[0].base_first_differ, 2);
    assert_true(cs.n > 0);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    now = rt_store_mem_dump(s);
    assert_string_equal(now, before);
    free(now);

    /* Forced: restored. */
    assert_int_equal(rt_op_restore(s, &p, 1, 0, &cs, &plan, &e), 0);
    assert_int_equal(plan.base_differ, 2);
    rt_change_set_free(&cs);
    rt_restore_plan_free(&plan);
    struct rt_value v = {0};
    int present = 0;
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    static const char16_t want[] = u"1\0" "1847\0" "2\0Sistema\0"
                                   "4\0Memoria\0" "2000\0Mine\0";
    assert_int_equal(v.len, sizeof want);
    assert_memory_equal(v.data, want, sizeof want);
    rt_value_free(&v);
    free(before);
    rt_psb_free(&p);
    s->ops->close(s);
}

/* A .reg backup of STORE (backup --format reg), as rt_reg_file. */
static void reg_backup_of(struct rt_store *store, struct rt_reg_file *f)
{
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load(store, &db, &e), 0);
    assert_int_equal(rt_engine_backup_reg(store, &db, RT_REG_V5_UTF16, f,
                                          &e), 0);
    rt_database_free(&db);
}

/* The .reg restore compares base texts as rt_op_restore does: a backup of
 * this store restores without --force; another machine's (009's names 2
 * and 4 in another language) is refused naming how many differ, nothing
 * written, and goes through with FORCE. */
static void test_restore_reg_other_machine(void **state)
{
    (void)state;
    struct rt_store *s = machine();
    char *before = rt_store_mem_dump(s);
    struct rt_reg_file own;
    reg_backup_of(s, &own);
    struct rt_change_set cs;
    struct rt_reg_restore_report r;
    struct rt_error e = {0};
    assert_int_equal(rt_op_restore_reg(s, &own, 0, 0, &cs, &r, &e), 0);
    assert_int_equal(r.base.differ, 0);
    assert_true(r.base.compared > 0);
    assert_int_equal(cs.n, 0);
    rt_change_set_free(&cs);
    rt_reg_restore_report_free(&r);
    rt_reg_file_free(&own);

    struct rt_store *other = machine();
    static const char16_t c009_other[] = u"1\0" "1847\0" "2\0Sistema\0"
                                         "4\0Memoria\0" "2000\0Mine\0";
    assert_int_equal(rt_store_mem_put_table(other, "009", RT_TABLE_COUNTER,
                                            BLOB(c009_other)), 0);
    struct rt_reg_file f;
    reg_backup_of(other, &f);
    other->ops->close(other);

    assert_int_equal(rt_op_restore_reg(s, &f, 0, 0, &cs, &r, &e), -1);
    assert_int_equal(e.code, RT_ERR_ALREADY_EXISTS);
    static const char *const said[] = {
        "base texts (indices 1 to Base Index 1847) differ from the "
        "database's in 2 of the 11 they both have (the first: index 2 of "
        "language 009)",
        "another machine's backup", "nothing was written", "--force"};
    for (size_t i = 0; i < sizeof said / sizeof *said; i++)
        if (!strstr(e.message, said[i]))
            fail_msg("want '%s' in '%s'", said[i], e.message);
    assert_int_equal(cs.n, 0);
    char *now = rt_store_mem_dump(s);
    assert_string_equal(now, before);
    free(now);

    /* A dry run reports the count and writes nothing. */
    assert_int_equal(rt_op_restore_reg(s, &f, 0, 1, &cs, &r, &e), 0);
    assert_int_equal(r.base.differ, 2);
    assert_int_equal(r.base.compared, 11);
    assert_int_equal(r.base.first_differ, 2);
    assert_string_equal(r.base_first_lang, "009");
    assert_true(cs.n > 0);
    rt_change_set_free(&cs);
    rt_reg_restore_report_free(&r);
    now = rt_store_mem_dump(s);
    assert_string_equal(now, before);
    free(now);

    /* Forced: restored. */
    assert_int_equal(rt_op_restore_reg(s, &f, 1, 0, &cs, &r, &e), 0);
    assert_int_equal(r.base.differ, 2);
    rt_change_set_free(&cs);
    rt_reg_restore_report_free(&r);
    struct rt_value v = {0};
    int present = 0;
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_int_equal(v.len, sizeof c009_other);
    assert_memory_equal(v.data, c009_other, sizeof c009_other);
    rt_value_free(&v);
    free(before);
    rt_reg_file_free(&f);
    s->ops->close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_backup),
        cmocka_unit_test(test_backup_stream),
        cmocka_unit_test(test_backup_leaves_out_what_reads_back_otherwise),
        cmocka_unit_test(test_backup_stream_merges_as_decoded),
        cmocka_unit_test(test_backup_salvaged_undecoded),
        cmocka_unit_test(test_restore_plan),
        cmocka_unit_test(test_restore_splices),
        cmocka_unit_test(test_restore_refused),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_backup_cap_holds_any_backup),
        cmocka_unit_test(test_restore_other_machine),
        cmocka_unit_test(test_restore_reg_other_machine),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
