/* Audit on the corruption generator's databases: a clean database gives
 * no error or warning; each class of damage, alone and combined with
 * others, gives its finding with its id, language and indices; findings
 * are sorted most severe first. Pure: the mem store and the engine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include "under_valgrind.h"

#include "corrupt.h"
#include "engine/audit.h"
#include "finding_message.h"

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
        if (!strcmp(rt_finding_id(&f->v[i]), id) &&
            (!lang ? !f->v[i].language
                   : f->v[i].language && !strcmp(f->v[i].language, lang)))
            return &f->v[i];
    return NULL;
}

static void print_findings(const struct rt_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        print_message("  %s %s [%s] %s\n",
                      rt_audit_severity_name(rt_finding_severity(&f->v[i])), rt_finding_id(&f->v[i]),
                      f->v[i].language ? f->v[i].language : "-",
                      message_of(&f->v[i]));
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
    const uint32_t seeds = repetitions(3, 1);
    for (int c = 0; c < CG_COUNT; c++)
        for (uint32_t seed = 1; seed <= seeds; seed++) {
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
            assert_non_null(message_of(x));
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
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
    assert_int_equal(rt_finding_n_indices(x), 2);
    assert_int_equal(rt_finding_index(x, 0), pick);
    assert_int_equal(rt_finding_index(x, 1), pick);
    assert_int_equal(rt_finding_n_texts(x), 2);
    char want[64];
    snprintf(want, sizeof want, "English counter %u", pick);
    assert_string_equal(rt_finding_text(x, 0), want);
    assert_string_equal(rt_finding_text(x, 1), "Second text");
    assert_non_null(rt_finding_symptom(x));
    assert_string_equal(rt_finding_fix(x), "regtool repair");
    rt_findings_free(&f);
    s->ops->close(s);

    /* The same in a Help table: its index (odd) and both its texts. */
    s = cg_build(CG_DUPLICATE_HELP, seed);
    audit_store(s, &f, NULL);
    x = find(&f, "duplicate-index", "009");
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
    assert_non_null(strstr(message_of(x), "Perflib\\009\\Help has index"));
    assert_int_equal(rt_finding_n_indices(x), 2);
    assert_int_equal(rt_finding_index(x, 0), pick + 1);
    assert_int_equal(rt_finding_index(x, 1), pick + 1);
    snprintf(want, sizeof want, "English help %u", pick + 1);
    assert_string_equal(rt_finding_text(x, 0), want);
    assert_string_equal(rt_finding_text(x, 1), "Second help text");
    rt_findings_free(&f);
    s->ops->close(s);

    s = cg_build(CG_ODD_LENGTH, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "blob-odd-length", "019");
    assert_non_null(x);
    assert_non_null(strstr(message_of(x), "Perflib\\019\\Counter is damaged at byte"));
    rt_findings_free(&f);
    s->ops->close(s);

    s = cg_build(CG_ORPHANS, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "orphan-strings", "009");
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_WARNING);
    /* ProvB's names 1858-1862, one run. */
    assert_int_equal(rt_finding_n_indices(x), 3);
    assert_int_equal(rt_finding_index(x, 0), CG_B_FIRST);
    assert_int_equal(rt_finding_index(x, 2), CG_B_LAST);
    rt_findings_free(&f);
    s->ops->close(s);

    /* Disabled: the fix names the service. */
    s = cg_build(CG_DISABLED, 1);
    audit_store(s, &f, NULL);
    x = find(&f, "counters-disabled", NULL);
    assert_non_null(x);
    assert_string_equal(rt_finding_fix(x), "regtool enable ProvB");
    rt_findings_free(&f);
    s->ops->close(s);
}

/* A message of each length around the one the finding is first
 * formatted into (512 bytes, its NUL included): kept whole, its last
 * character too. */
static void messages_at_the_first_buffers_length_kept_whole(void **state)
{
    (void)state;
    char text[520];
    for (size_t len = 508; len <= 515; len++) {
        struct rt_findings f = {0};
        for (size_t k = 0; k < len; k++)
            text[k] = (char)('a' + k % 26);
        text[len] = '\0';
        assert_int_equal(rt_findings_add(&f, "edge", RT_AUDIT_INFO, NULL, NULL,
                                         NULL, "%s", text), 0);
        if (strcmp(message_of(&f.v[0]), text))
            fail_msg("a message of %zu bytes kept as %zu", len,
                     strlen(message_of(&f.v[0])));
        rt_findings_free(&f);
    }
}

/* Findings added one by one keep their texts and evidence whatever comes
 * after them: a long list of evidence, texts longer than the formatting
 * buffer, a language and a fix repeated (kept once) or changed. */
static void findings_keep_what_they_were_given(void **state)
{
    (void)state;
    struct rt_findings f = {0};
    char fix[64], lang[16];
    char *long_text = malloc(3000);
    assert_non_null(long_text);
    memset(long_text, 'L', 2999);
    long_text[2999] = '\0';
    enum { N = 3000, EVIDENCE_N = 1000 };
    for (int i = 0; i < N; i++) {
        snprintf(fix, sizeof fix, "regtool fix %d", i % 3);
        snprintf(lang, sizeof lang, "%04x", i % 7);
        assert_int_equal(rt_findings_add(&f, "some-id", (enum rt_audit_severity)(i % 3),
                                         i % 5 ? lang : NULL, NULL, fix,
                                         "finding %d %s", i,
                                         i == 17 ? long_text : ""),
                         0);
        int evidence = i == 100 ? EVIDENCE_N : i % 4;
        for (int k = 0; k < evidence; k++) {
            char text[32];
            snprintf(text, sizeof text, "text %d.%d", i, k);
            assert_int_equal(rt_findings_evidence(&f, (uint32_t)(i * 10000 + k),
                                                  k % 2 ? NULL : text), 0);
        }
    }
    assert_int_equal(f.n, N);
    assert_int_equal(f.errors + f.warnings + f.infos, N);
    for (int i = 0; i < N; i++) {
        const struct rt_finding *x = &f.v[i];
        char want[64];
        snprintf(want, sizeof want, "finding %d ", i);
        assert_memory_equal(message_of(x), want, strlen(want));
        if (i == 17)
            assert_string_equal(message_of(x) + strlen(want), long_text);
        else
            assert_int_equal(strlen(message_of(x)), strlen(want));
        snprintf(fix, sizeof fix, "regtool fix %d", i % 3);
        assert_string_equal(rt_finding_fix(x), fix);
        if (i % 5) {
            snprintf(lang, sizeof lang, "%04x", i % 7);
            assert_string_equal(x->language, lang);
        } else {
            assert_null(x->language);
        }
        size_t evidence = i == 100 ? EVIDENCE_N : (size_t)(i % 4);
        assert_int_equal(rt_finding_n_indices(x), evidence);
        assert_int_equal(rt_finding_n_texts(x), (evidence + 1) / 2);
        if (!evidence)
            assert_null(x->evidence);
        for (size_t k = 0; k < evidence; k++)
            assert_int_equal(rt_finding_index(x, k), i * 10000 + (int)k);
        for (size_t k = 0; k < rt_finding_n_texts(x); k++) {
            /* Texts belong to the indices that came with one: 0, 2, 4... */
            char text[32];
            snprintf(text, sizeof text, "text %d.%zu", i, 2 * k);
            assert_string_equal(rt_finding_text(x, k), text);
        }
    }
    /* The same fix for every third finding is one copy. */
    assert_ptr_equal(rt_finding_fix(&f.v[0]), rt_finding_fix(&f.v[3]));
    assert_ptr_equal(f.v[1].language, f.v[8].language);
    rt_findings_sort(&f);
    assert_int_equal(rt_finding_severity(&f.v[0]), RT_AUDIT_ERROR);
    rt_findings_free(&f);
    assert_int_equal(f.n, 0);
    free(long_text);
}

/* The same words about thousands of languages are kept once: each
 * finding costs its 32-byte record, not its message's bytes (an audit of
 * 65536 tiny languages held 9 MB of messages beside 7 MB of 56-byte
 * records: tests/cli/hostile_memory.sh), and each message reads back
 * byte for byte, wherever and however often the language's id stands in
 * it, and whatever else it holds. */
static void same_words_are_kept_once(void **state)
{
    (void)state;
    assert_int_equal(sizeof(struct rt_finding), 4 * sizeof(void *));
    struct rt_findings f = {0};
    enum { N = 4096 };
    char lang[16];
    for (int i = 0; i < N; i++) {
        snprintf(lang, sizeof lang, "%04x", i);
        assert_int_equal(rt_findings_add(&f, "table-empty", RT_AUDIT_ERROR,
                                         lang, NULL, "regtool repair",
                                         "Perflib\\%s\\Help holds no strings "
                                         "(2 bytes)", lang),
                         0);
    }
    for (int i = 0; i < N; i++) {
        char want[64];
        snprintf(want, sizeof want,
                 "Perflib\\%04x\\Help holds no strings (2 bytes)", i);
        assert_string_equal(message_of(&f.v[i]), want);
        assert_ptr_equal(f.v[i].said, f.v[0].said);
        assert_ptr_equal(f.v[i].kind, f.v[0].kind);
        assert_null(rt_finding_message_kept(&f.v[i]));
    }
    /* Messages that read back as they were given. */
    static const struct {
        const char *language, *message;
    } odd[] = {
        {"009", "009 and 009 and 0009 and 00"},  /* twice, within another */
        {"00", "000"},                            /* overlapping */
        {"009", "\x01 009 \x02"},                 /* the marks' own bytes */
        {"009", "no language here"},
        {NULL, "009 without a language"},
        {"x", "x"},
    };
    size_t first = f.n;
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        assert_int_equal(rt_findings_add(&f, "odd", RT_AUDIT_INFO,
                                         odd[i].language, NULL, NULL, "%s",
                                         odd[i].message),
                         0);
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        assert_string_equal(message_of(&f.v[first + i]), odd[i].message);
    /* Spelt out, every message is kept whole, as the library's API hands
     * it out. */
    assert_int_equal(rt_findings_spell_out(&f), 0);
    for (size_t i = 0; i < sizeof odd / sizeof *odd; i++)
        assert_string_equal(rt_finding_message_kept(&f.v[first + i]),
                            odd[i].message);
    assert_string_equal(rt_finding_message_kept(&f.v[N - 1]),
                        "Perflib\\0fff\\Help holds no strings (2 bytes)");
    rt_findings_free(&f);
}

/* Thousands of languages each lacking English's names give thousands of
 * findings with the same evidence: the list and its texts are kept once
 * (each its own copy: 211 MB for a 6 MB tree), and a list that differs
 * by one index or one text is its own; evidence added to a finding after
 * a sort goes to it alone. */
static void same_evidence_is_kept_once(void **state)
{
    (void)state;
    struct rt_findings f = {0};
    enum { LANGS = 200, NAMES = 1000 };
    for (int i = 0; i < LANGS; i++) {
        char lang[8];
        snprintf(lang, sizeof lang, "%04x", 0x1000 + i);
        assert_int_equal(rt_findings_add(&f, "language-missing-entries",
                                         RT_AUDIT_INFO, lang, NULL, NULL,
                                         "Perflib\\%s lacks names", lang), 0);
        for (int k = 0; k < NAMES; k++) {
            char text[32];
            /* The last language lacks one name fewer; the one before
             * has another text for its last one. */
            if (i == LANGS - 1 && k == NAMES - 1)
                break;
            snprintf(text, sizeof text, "Name %d%s", k,
                     i == LANGS - 2 && k == NAMES - 1 ? "'" : "");
            assert_int_equal(rt_findings_evidence(&f, (uint32_t)(1848 + 2 * k),
                                                  text), 0);
        }
    }
    /* Read before the next add or a sort: the open list is whole. */
    assert_int_equal(rt_finding_n_indices(&f.v[LANGS - 1]), NAMES - 1);
    assert_string_equal(rt_finding_text(&f.v[LANGS - 1], NAMES - 2),
                        "Name 998");
    assert_int_equal(rt_findings_add(&f, "other", RT_AUDIT_ERROR, NULL, NULL,
                                     NULL, "last"), 0);
    for (int i = 1; i < LANGS - 2; i++)
        assert_ptr_equal(f.v[i].evidence, f.v[0].evidence);
    assert_ptr_not_equal(f.v[LANGS - 2].evidence, f.v[0].evidence);
    assert_ptr_not_equal(f.v[LANGS - 1].evidence, f.v[0].evidence);
    assert_string_equal(rt_finding_text(&f.v[LANGS - 2], NAMES - 1), "Name 999'");
    assert_string_equal(rt_finding_text(&f.v[0], NAMES - 1), "Name 999");
    /* A text shown by several lists is one copy. */
    assert_ptr_equal(rt_finding_text(&f.v[LANGS - 1], 5),
                     rt_finding_text(&f.v[0], 5));
    for (int i = 0; i < LANGS; i++)
        for (int k = 0; k < (i == LANGS - 1 ? NAMES - 1 : NAMES); k++)
            assert_int_equal(rt_finding_index(&f.v[i], (size_t)k), 1848 + 2 * k);
    rt_findings_sort(&f);
    /* "other" (an error) sorts first, the languages after it in order;
     * evidence for the last of them now is its own. */
    assert_string_equal(rt_finding_id(&f.v[0]), "other");
    assert_int_equal(rt_findings_evidence(&f, 7, "seven"), 0);
    assert_int_equal(rt_finding_n_indices(&f.v[LANGS]), NAMES);
    assert_int_equal(rt_finding_index(&f.v[LANGS], NAMES - 1), 7);
    assert_int_equal(rt_finding_n_indices(&f.v[1]), NAMES);
    assert_int_equal(rt_finding_index(&f.v[1], NAMES - 1), 1848 + 2 * 999);
    rt_findings_sort(&f);
    assert_int_equal(rt_finding_index(&f.v[LANGS], NAMES - 1), 7);
    assert_string_equal(rt_finding_text(&f.v[LANGS], NAMES - 1), "seven");
    rt_findings_free(&f);
}

/* What is normal on real machines (docs/design.md, "What real machines look
 * like") is info, never an error or a warning. */
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
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_INFO);
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
        assert_true(rt_finding_severity(&f.v[i - 1]) <= rt_finding_severity(&f.v[i]));
    assert_true(f.errors >= 3);
    rt_findings_free(&f);

    /* --lang: that language's findings, and the providers' that concern
     * every language (a disabled provider), none of another language's. */
    audit_store(s, &f, "019");
    for (size_t i = 0; i < f.n; i++)
        if (f.v[i].language)
            assert_string_equal(f.v[i].language, "019");
    assert_non_null(find(&f, "blob-odd-length", "019"));
    assert_non_null(find(&f, "counters-disabled", NULL));
    assert_non_null(find(&f, cg_expect[CG_LAST_COUNTER_LOW].id, NULL));
    rt_findings_free(&f);
    s->ops->close(s);
}

/* --- each finding class and its severity -------------------------------
 * Every id (and, where one id has two severities, each of them) rt_audit
 * can emit, produced from a crafted database, with its exact severity and
 * language. rt_audit's finding ids, from lib/engine/audit_checks.c; the one it
 * cannot be made to emit here: "blob-damaged" (blob_id's default), which
 * only RT_MSZ_NOMEM reaches, and the load fails on that before audit.
 * audit_libraries.c's findings are asserted in test_audit_libraries.c. */

/* A UTF-16LE blob of N code units. */
static void put_units(struct rt_store *s, const char *lang,
                      enum rt_table_kind k, const uint16_t *u, size_t n)
{
    uint8_t b[64];
    assert_true(2 * n <= sizeof b);
    for (size_t i = 0; i < n; i++) {
        b[2 * i] = (uint8_t)(u[i] & 0xff);
        b[2 * i + 1] = (uint8_t)(u[i] >> 8);
    }
    assert_int_equal(rt_store_mem_put_table(s, lang, k, b, 2 * n), 0);
}

static void mk_table_missing(struct rt_store *s)
{
    /* 007 has a Counter table and no Help table. */
    struct rt_pair_list c;
    cg_get_list(s, "019", RT_TABLE_COUNTER, &c);
    rt_store_mem_put_language(s, "007");
    cg_put_list(s, "007", RT_TABLE_COUNTER, &c);
    rt_pair_list_free(&c);
}

static void mk_blob_empty(struct rt_store *s)
{
    static const uint8_t none[1];
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_HELP, none, 0),
                     0);
}

static void mk_blob_empty_index(struct rt_store *s)
{
    /* "2" "a" "" "4" "b" "": an empty string before the list's end. */
    static const uint16_t u[] = {'2', 0, 'a', 0, 0, '4', 0, 'b', 0, 0};
    put_units(s, "019", RT_TABLE_COUNTER, u, sizeof u / sizeof *u);
}

static void mk_blob_index_range(struct rt_store *s)
{
    static const uint16_t u[] = {'9', '9', '9', '9', '9', '9', '9', '9', '9',
                                 '9', '9', 0, 'a', 0, 0};
    put_units(s, "019", RT_TABLE_COUNTER, u, sizeof u / sizeof *u);
}

static void mk_blob_bad_surrogate(struct rt_store *s)
{
    static const uint16_t u[] = {'2', 0, 0xD800, 'a', 0, 0};
    put_units(s, "019", RT_TABLE_COUNTER, u, sizeof u / sizeof *u);
}

static void mk_help_even_above(struct rt_store *s)
{
    cg_append(s, "009", RT_TABLE_HELP, CG_B_LAST + 2, "Help at even");
}

static void mk_help_even_below(struct rt_store *s)
{
    cg_append(s, "009", RT_TABLE_HELP, 1000, "Help at even");
}

static void mk_name_odd_below(struct rt_store *s)
{
    cg_append(s, "009", RT_TABLE_COUNTER, 1001, "Name at odd");
}

static void mk_help_without_name_orphan(struct rt_store *s)
{
    /* Above every provider's range, and its name not there. */
    cg_append(s, "009", RT_TABLE_HELP, CG_B_LAST + 3, "Lone help");
}

static void mk_help_missing_base(struct rt_store *s)
{
    /* 019's help texts of the base range gone. */
    cg_remove(s, "019", RT_TABLE_HELP, 2, CG_BASE_LAST + 1);
}

static void mk_name_without_help_base(struct rt_store *s)
{
    cg_remove(s, "019", RT_TABLE_HELP, 3, 3);
}

static void mk_help_without_name_base(struct rt_store *s)
{
    cg_remove(s, "019", RT_TABLE_COUNTER, 2, 2);
}

static void mk_language_smaller_base(struct rt_store *s)
{
    cg_remove(s, "019", RT_TABLE_COUNTER, 4, 4);
}

static void mk_last_help_low(struct rt_store *s)
{
    cg_dword(s, NULL, "Last Help", CG_A_LAST + 1);
}

static void mk_last_help_high(struct rt_store *s)
{
    cg_dword(s, NULL, "Last Help", CG_B_LAST + 101);
}

static void mk_perfinifile_invalid(struct rt_store *s)
{
    cg_string(s, "ProvA", "PerfIniFile", "..\\evil.ini");
}

static void mk_range_incomplete(struct rt_store *s)
{
    struct rt_change_set cs = {0};
    struct rt_error e;
    assert_int_equal(rt_change_set_delete_service(&cs, "ProvA", "Last Help"), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    rt_change_set_free(&cs);
}

static void mk_english_strings_missing(struct rt_store *s)
{
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_B_FIRST, CG_B_LAST);
}

static void mk_overlap_many(struct rt_store *s)
{
    /* 50 providers over one range: 1225 pairs, above the 1000 listed. */
    char name[16];
    for (int i = 0; i < 50; i++) {
        snprintf(name, sizeof name, "Over%02d", i);
        cg_provider(s, name, CG_A_FIRST, CG_A_LAST);
    }
}

static void mk_fixed(struct rt_store *s)
{
    rt_store_mem_set_fixed(s, "019");
}

/* The copies of a table are the hive store's (System32 and SysWOW64 .dat
 * files, the SOFTWARE hive's value); here they are put into the loaded
 * database as that store's load would. */
static void add_copy_diff(struct rt_database *db, int which)
{
    struct rt_db_copy_diff *d =
        realloc(db->copy_diffs, (db->n_copy_diffs + 1) * sizeof *d);
    assert_non_null(d);
    db->copy_diffs = d;
    d[db->n_copy_diffs] = (struct rt_db_copy_diff){
        strdup("019"), RT_TABLE_COUNTER, which, CG_A_FIRST, 1000, 990};
    assert_non_null(d[db->n_copy_diffs].lang);
    db->n_copy_diffs++;
}

static void db_wow64_differs(struct rt_database *db)
{
    add_copy_diff(db, RT_COPY_WOW64);
}

static void db_hive_differs(struct rt_database *db)
{
    add_copy_diff(db, RT_COPY_HIVE);
}

#define NO_CG (-1)

static const struct severity_case {
    const char *id, *lang;          /* lang NULL: the finding has none */
    enum rt_audit_severity severity;
    int cg;                         /* a class of corrupt.h, or NO_CG */
    void (*make)(struct rt_store *);
    void (*edit)(struct rt_database *);
} severity_cases[] = {
    {"table-missing", "007", RT_AUDIT_ERROR, NO_CG, mk_table_missing, NULL},
    {"blob-not-multi-sz", "019", RT_AUDIT_ERROR, CG_NOT_MULTI_SZ, NULL, NULL},
    {"blob-odd-length", "019", RT_AUDIT_ERROR, CG_ODD_LENGTH, NULL, NULL},
    {"blob-no-terminator", "019", RT_AUDIT_ERROR, CG_NO_TERMINATOR, NULL, NULL},
    {"blob-empty-index", "019", RT_AUDIT_ERROR, NO_CG, mk_blob_empty_index,
     NULL},
    {"blob-bad-index", "019", RT_AUDIT_ERROR, CG_BAD_INDEX, NULL, NULL},
    {"blob-index-zero", "019", RT_AUDIT_ERROR, CG_ZERO_INDEX, NULL, NULL},
    {"blob-index-range", "019", RT_AUDIT_ERROR, NO_CG, mk_blob_index_range,
     NULL},
    {"blob-odd-count", "019", RT_AUDIT_ERROR, CG_ODD_COUNT, NULL, NULL},
    {"blob-bad-surrogate", "019", RT_AUDIT_ERROR, NO_CG,
     mk_blob_bad_surrogate, NULL},
    {"blob-empty", "019", RT_AUDIT_ERROR, NO_CG, mk_blob_empty, NULL},
    {"table-empty", "019", RT_AUDIT_ERROR, CG_EMPTY_TABLE, NULL, NULL},
    {"duplicate-index", "009", RT_AUDIT_ERROR, CG_DUPLICATE, NULL, NULL},
    {"duplicate-index", "009", RT_AUDIT_ERROR, CG_DUPLICATE_HELP, NULL, NULL},
    {"name-at-odd-index", "009", RT_AUDIT_WARNING, CG_NAME_AT_ODD, NULL, NULL},
    {"name-at-odd-index", "009", RT_AUDIT_INFO, NO_CG, mk_name_odd_below,
     NULL},
    {"help-at-even-index", "009", RT_AUDIT_WARNING, NO_CG, mk_help_even_above,
     NULL},
    {"help-at-even-index", "009", RT_AUDIT_INFO, NO_CG, mk_help_even_below,
     NULL},
    {"name-without-help", "009", RT_AUDIT_WARNING, CG_NAME_WITHOUT_HELP, NULL,
     NULL},
    /* In a provider's range (its names lost) and outside every range. */
    {"help-without-name", "009", RT_AUDIT_WARNING, CG_HELP_WITHOUT_NAME, NULL,
     NULL},
    {"help-without-name", "009", RT_AUDIT_WARNING, NO_CG,
     mk_help_without_name_orphan, NULL},
    {"help-missing-base", "019", RT_AUDIT_WARNING, NO_CG, mk_help_missing_base,
     NULL},
    {"name-without-help-base", "019", RT_AUDIT_INFO, NO_CG,
     mk_name_without_help_base, NULL},
    {"help-without-name-base", "019", RT_AUDIT_INFO, NO_CG,
     mk_help_without_name_base, NULL},
    {"orphan-strings", "009", RT_AUDIT_WARNING, CG_ORPHANS, NULL, NULL},
    {"english-missing", "009", RT_AUDIT_ERROR, CG_ENGLISH_MISSING, NULL, NULL},
    {"english-overwritten", "009", RT_AUDIT_ERROR, CG_ENGLISH_OVERWRITTEN, NULL,
     NULL},
    {"current-language-differs", "CurrentLanguage", RT_AUDIT_WARNING,
     CG_CURRENT_DIFFERS, NULL, NULL},
    {"language-missing-entries", "019", RT_AUDIT_INFO,
     CG_LANGUAGE_MISSING_ENTRIES, NULL, NULL},
    {"language-extra-entries", "019", RT_AUDIT_WARNING,
     CG_LANGUAGE_EXTRA_ENTRIES, NULL, NULL},
    {"language-smaller-base", "019", RT_AUDIT_INFO, NO_CG,
     mk_language_smaller_base, NULL},
    {"last-counter-below-highest", NULL, RT_AUDIT_ERROR, CG_LAST_COUNTER_LOW,
     NULL, NULL},
    {"last-counter-above-highest", NULL, RT_AUDIT_INFO, CG_LAST_COUNTER_HIGH,
     NULL, NULL},
    {"last-help-below-highest", NULL, RT_AUDIT_ERROR, NO_CG, mk_last_help_low,
     NULL},
    {"last-help-above-highest", NULL, RT_AUDIT_INFO, NO_CG, mk_last_help_high,
     NULL},
    {"base-index-missing", NULL, RT_AUDIT_WARNING, CG_BASE_INDEX_MISSING, NULL,
     NULL},
    {"base-index-mismatch", "009", RT_AUDIT_WARNING, CG_BASE_INDEX_MISMATCH,
     NULL, NULL},
    {"perflib-disabled", NULL, RT_AUDIT_WARNING, CG_PERFLIB_DISABLED, NULL,
     NULL},
    {"counters-disabled", NULL, RT_AUDIT_WARNING, CG_DISABLED, NULL, NULL},
    {"perfinifile-invalid", NULL, RT_AUDIT_WARNING, NO_CG,
     mk_perfinifile_invalid, NULL},
    {"provider-range-incomplete", NULL, RT_AUDIT_ERROR, NO_CG,
     mk_range_incomplete, NULL},
    {"provider-range-inverted", NULL, RT_AUDIT_ERROR, CG_PROVIDER_INVERTED,
     NULL, NULL},
    {"provider-range-parity", NULL, RT_AUDIT_ERROR, CG_PROVIDER_PARITY, NULL,
     NULL},
    {"provider-overlaps-base", NULL, RT_AUDIT_ERROR, CG_PROVIDER_OVERLAPS_BASE,
     NULL, NULL},
    {"provider-above-last-counter", NULL, RT_AUDIT_ERROR,
     CG_PROVIDER_ABOVE_LAST, NULL, NULL},
    /* One pair, and more pairs than are listed. */
    {"provider-overlap", NULL, RT_AUDIT_WARNING, CG_PROVIDER_OVERLAP, NULL,
     NULL},
    {"provider-overlap", NULL, RT_AUDIT_WARNING, NO_CG, mk_overlap_many, NULL},
    /* English must have a provider's names; another language need not. */
    {"provider-strings-missing", "009", RT_AUDIT_ERROR, NO_CG,
     mk_english_strings_missing, NULL},
    {"provider-strings-missing", "019", RT_AUDIT_INFO,
     CG_PROVIDER_STRINGS_MISSING, NULL, NULL},
    {"object-list-outside-range", NULL, RT_AUDIT_WARNING,
     CG_OBJECT_LIST_OUTSIDE, NULL, NULL},
    {"table-copy-wow64-differs", "019", RT_AUDIT_ERROR, NO_CG, NULL,
     db_wow64_differs},
    {"table-copy-hive-differs", "019", RT_AUDIT_WARNING, NO_CG, NULL,
     db_hive_differs},
    {"language-fixed", "019", RT_AUDIT_INFO, NO_CG, mk_fixed, NULL},
};

static int same_lang(const struct rt_finding *x, const char *lang)
{
    return !lang ? !x->language : x->language && !strcmp(x->language, lang);
}

static void each_class_has_its_severity(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof severity_cases / sizeof *severity_cases;
         c++) {
        const struct severity_case *k = &severity_cases[c];
        struct rt_store *s = k->cg == NO_CG
                                 ? cg_clean()
                                 : cg_build((enum corruption)k->cg, 1);
        if (k->make)
            k->make(s);
        struct rt_database db;
        struct rt_error e;
        assert_int_equal(rt_database_load(s, &db, &e), 0);
        if (k->edit)
            k->edit(&db);
        struct rt_findings f = {0};
        assert_int_equal(rt_audit(&db, NULL, &f), 0);
        size_t seen = 0, right = 0;
        for (size_t i = 0; i < f.n; i++)
            if (!strcmp(rt_finding_id(&f.v[i]), k->id) && same_lang(&f.v[i], k->lang)) {
                seen++;
                right += rt_finding_severity(&f.v[i]) == k->severity;
            }
        if (!seen || right != seen) {
            print_message("case %zu: %s [%s] as %s: %zu found, %zu of that "
                          "severity; found:\n", c, k->id,
                          k->lang ? k->lang : "-",
                          rt_audit_severity_name(k->severity), seen, right);
            print_findings(&f);
        }
        assert_true(seen > 0);
        assert_int_equal(right, seen);
        rt_findings_free(&f);
        rt_database_free(&db);
        s->ops->close(s);
    }
}

/* Each check of a provider's range and of Perflib's Last Counter / Last
 * Help at its edge: one value past it gives the finding (at its
 * severity), the value at it gives none. The clean database (corrupt.h):
 * ProvA names 3992-4000, help 3993-4001; ProvB 4002-4006/4003-4007; Last
 * Counter 4006, Last Help 4007 (the highest in use); Base Index 1847.
 * Where a check tests two values (names or help, First Counter or First
 * Help), each is taken alone: a check that wanted both to be wrong
 * passes neither. */
static const struct edge_case {
    const char *id;
    enum rt_audit_severity severity;
    const char *service; /* NULL: Perflib's value */
    const char *name;
    uint32_t holds, fails;               /* a DWORD value's */
    const char *holds_text, *fails_text; /* or a string's */
} edge_cases[] = {
    {"provider-range-inverted", RT_AUDIT_ERROR, "ProvA", "Last Counter",
     CG_A_FIRST - 1, CG_A_FIRST, NULL, NULL},
    {"provider-range-inverted", RT_AUDIT_ERROR, "ProvA", "Last Help",
     CG_A_FIRST, CG_A_FIRST + 1, NULL, NULL},
    {"provider-range-parity", RT_AUDIT_ERROR, "ProvA", "First Counter",
     CG_A_FIRST + 1, CG_A_FIRST + 2, NULL, NULL},
    {"provider-range-parity", RT_AUDIT_ERROR, "ProvA", "First Help",
     CG_A_FIRST + 2, CG_A_FIRST + 3, NULL, NULL},
    {"provider-overlaps-base", RT_AUDIT_ERROR, "ProvA", "First Counter", 1847,
     1848, NULL, NULL},
    {"provider-overlaps-base", RT_AUDIT_ERROR, "ProvA", "First Help", 1847,
     1848, NULL, NULL},
    {"provider-above-last-counter", RT_AUDIT_ERROR, "ProvB", "Last Counter",
     CG_B_LAST + 1, CG_B_LAST, NULL, NULL},
    {"provider-above-last-counter", RT_AUDIT_ERROR, "ProvB", "Last Help",
     CG_B_LAST + 2, CG_B_LAST + 1, NULL, NULL},
    {"object-list-outside-range", RT_AUDIT_WARNING, "ProvA", "Object List", 0,
     0, "3991", "3992"},
    {"object-list-outside-range", RT_AUDIT_WARNING, "ProvA", "Object List", 0,
     0, "4001", "4000"},
    {"last-counter-below-highest", RT_AUDIT_ERROR, NULL, "Last Counter",
     CG_B_LAST - 1, CG_B_LAST, NULL, NULL},
    {"last-counter-above-highest", RT_AUDIT_INFO, NULL, "Last Counter",
     CG_B_LAST + 3, CG_B_LAST + 2, NULL, NULL},
    {"last-help-below-highest", RT_AUDIT_ERROR, NULL, "Last Help", CG_B_LAST,
     CG_B_LAST + 1, NULL, NULL},
    {"last-help-above-highest", RT_AUDIT_INFO, NULL, "Last Help",
     CG_B_LAST + 4, CG_B_LAST + 3, NULL, NULL},
    {"last-counter-out-of-range", RT_AUDIT_ERROR, NULL, "Last Counter",
     RT_INDEX_MAX + 1, RT_INDEX_MAX, NULL, NULL},
    {"last-help-out-of-range", RT_AUDIT_ERROR, NULL, "Last Help",
     RT_INDEX_MAX + 1, RT_INDEX_MAX, NULL, NULL},
};

/* How many findings ID (of no language) the clean database with K's
 * value set to its HOLDS (or FAILS) value gives; *RIGHT: how many of
 * them have K's severity. */
static size_t edge_findings(const struct edge_case *k, int holds,
                            size_t *right)
{
    struct rt_store *s = cg_clean();
    const char *text = holds ? k->holds_text : k->fails_text;
    if (text)
        cg_string(s, k->service, k->name, text);
    else
        cg_dword(s, k->service, k->name, holds ? k->holds : k->fails);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    size_t seen = 0;
    *right = 0;
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(rt_finding_id(&f.v[i]), k->id) && !f.v[i].language) {
            seen++;
            *right += rt_finding_severity(&f.v[i]) == k->severity;
        }
    if (seen != *right || !seen != !holds) {
        print_message("%s %s set to %s:\n", k->service ? k->service
                                                         : "Perflib",
                      k->name, holds ? "hold" : "just fail");
        print_findings(&f);
    }
    rt_findings_free(&f);
    s->ops->close(s);
    return seen;
}

static void each_range_check_at_its_edge(void **state)
{
    (void)state;
    for (size_t c = 0; c < sizeof edge_cases / sizeof *edge_cases; c++) {
        const struct edge_case *k = &edge_cases[c];
        size_t right;
        if (edge_findings(k, 1, &right) == 0)
            fail_msg("case %zu: %s not found with %s %s past its edge", c,
                     k->id, k->service ? k->service : "Perflib", k->name);
        if (edge_findings(k, 1, &right) != right)
            fail_msg("case %zu: %s not all %s", c, k->id,
                     rt_audit_severity_name(k->severity));
        if (edge_findings(k, 0, &right) != 0)
            fail_msg("case %zu: %s found with %s %s at its edge", c, k->id,
                     k->service ? k->service : "Perflib", k->name);
    }
}

/* How many findings ID of LANG the audit of S gives (S closed after);
 * *RIGHT: how many of them at SEVERITY. The findings are printed when
 * some are not at SEVERITY, or when there are some and EXPECT_NONE. */
static size_t count_findings(struct rt_store *s, const char *id,
                             const char *lang,
                             enum rt_audit_severity severity, int expect_none,
                             size_t *right)
{
    struct rt_findings f;
    audit_store(s, &f, NULL);
    size_t seen = 0;
    *right = 0;
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(rt_finding_id(&f.v[i]), id) && same_lang(&f.v[i], lang)) {
            seen++;
            *right += rt_finding_severity(&f.v[i]) == severity;
        }
    if (seen != *right || (expect_none && seen))
        print_findings(&f);
    rt_findings_free(&f);
    s->ops->close(s);
    return seen;
}

static void expect_finding(struct rt_store *s, const char *id,
                           const char *lang, enum rt_audit_severity severity,
                           const char *what)
{
    size_t right, seen = count_findings(s, id, lang, severity, 0, &right);
    if (!seen || right != seen)
        fail_msg("%s: %zu %s finding(s) [%s], %zu of them %s", what, seen, id,
                 lang ? lang : "-", right, rt_audit_severity_name(severity));
}

static void expect_no_finding(struct rt_store *s, const char *id,
                              const char *lang, const char *what)
{
    size_t right,
        seen = count_findings(s, id, lang, RT_AUDIT_INFO, 1, &right);
    if (seen)
        fail_msg("%s: %zu %s finding(s) [%s], none expected", what, seen, id,
                 lang ? lang : "-");
}

/* A name at an odd index, a help text at an even one: a warning above
 * Base Index (1847), info at or below it, where Windows' own tables have
 * some. */
static void misplaced_string_severity_at_base_index(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_append(s, "009", RT_TABLE_COUNTER, 1847, "Name at Base Index");
    expect_finding(s, "name-at-odd-index", "009", RT_AUDIT_INFO,
                   "a name at 1847");
    s = cg_clean();
    cg_append(s, "009", RT_TABLE_COUNTER, 1849, "Name above Base Index");
    expect_finding(s, "name-at-odd-index", "009", RT_AUDIT_WARNING,
                   "a name at 1849");
    s = cg_clean();
    cg_append(s, "009", RT_TABLE_HELP, 1846, "Help below Base Index");
    expect_finding(s, "help-at-even-index", "009", RT_AUDIT_INFO,
                   "a help text at 1846");
    s = cg_clean();
    cg_append(s, "009", RT_TABLE_HELP, 1848, "Help above Base Index");
    expect_finding(s, "help-at-even-index", "009", RT_AUDIT_WARNING,
                   "a help text at 1848");
}

/* 009 with its names from 2 to Base Index: the first KEEP of them (all
 * if KEEP is 0), the first FOREIGN of those in Cyrillic; the rest of the
 * table as it was. */
static struct rt_store *english_partly_foreign(size_t keep, size_t foreign,
                                               size_t *base_names)
{
    struct rt_store *s = cg_clean();
    struct rt_pair_list old, now = {0};
    cg_get_list(s, "009", RT_TABLE_COUNTER, &old);
    size_t in_base = 0;
    for (size_t i = 0; i < old.n; i++) {
        const struct rt_pair *p = &old.v[i];
        int base = p->index >= 2 && p->index <= 1847;
        if (base && keep && in_base == keep)
            continue;
        const char *text = base && in_base < foreign
                               ? "\xd0\xa1\xd1\x87\xd1\x91\xd1\x82\xd1\x87\xd0"
                                 "\xb8\xd0\xba"
                               : p->text;
        in_base += base;
        assert_int_equal(rt_pair_list_append(&now, p->index, text), 0);
    }
    cg_put_list(s, "009", RT_TABLE_COUNTER, &now);
    rt_pair_list_free(&old);
    rt_pair_list_free(&now);
    *base_names = in_base;
    return s;
}

/* English overwritten: of at least 10 names in the base range, more than
 * half not ASCII. Half is not enough, nor are 9 names all foreign. */
static void english_overwritten_at_its_edge(void **state)
{
    (void)state;
    size_t base;
    struct rt_store *s = english_partly_foreign(0, 0, &base);
    s->ops->close(s);
    assert_true(base >= 20);
    /* An even number of them, so that half is exactly half. */
    size_t even = base - base % 2;
    s = english_partly_foreign(even, even / 2 + 1, &base);
    assert_int_equal(base, even);
    expect_finding(s, "english-overwritten", "009", RT_AUDIT_ERROR,
                   "more than half the base names foreign");
    s = english_partly_foreign(even, even / 2, &base);
    expect_no_finding(s, "english-overwritten", "009",
                      "half the base names foreign");
    s = english_partly_foreign(10, 10, &base);
    assert_int_equal(base, 10);
    expect_finding(s, "english-overwritten", "009", RT_AUDIT_ERROR,
                   "10 base names, all foreign");
    s = english_partly_foreign(9, 9, &base);
    assert_int_equal(base, 9);
    expect_no_finding(s, "english-overwritten", "009",
                      "9 base names, all foreign");
}

/* 019 with its first KEEP names (all if KEEP is 0) and its help texts,
 * less those of the first DROP names in the base range (even, 2 to Base
 * Index) that have one. *WHOLE: its names; *BELOW: its names in the
 * base range without a help text after. */
static struct rt_store *help_lost_below_base(size_t keep, size_t drop,
                                             size_t *whole, size_t *below)
{
    struct rt_store *s = cg_clean();
    struct rt_pair_list c, h, names = {0}, helps = {0};
    cg_get_list(s, "019", RT_TABLE_COUNTER, &c);
    cg_get_list(s, "019", RT_TABLE_HELP, &h);
    static unsigned char had_help[1849], dropped[1849];
    memset(had_help, 0, sizeof had_help);
    memset(dropped, 0, sizeof dropped);
    for (size_t i = 0; i < h.n; i++)
        if (h.v[i].index <= 1848)
            had_help[h.v[i].index] = 1;
    size_t n = keep ? keep : c.n;
    *below = 0;
    for (size_t i = 0; i < c.n && i < n; i++) {
        uint32_t x = c.v[i].index;
        assert_int_equal(rt_pair_list_append(&names, x, c.v[i].text), 0);
        if (x < 2 || x % 2 || x > 1847)
            continue;
        if (had_help[x + 1] && drop) {
            dropped[x + 1] = 1;
            drop--;
        }
        *below += !had_help[x + 1] || dropped[x + 1];
    }
    assert_int_equal(drop, 0);
    for (size_t i = 0; i < h.n; i++)
        if (h.v[i].index > 1848 || !dropped[h.v[i].index])
            assert_int_equal(rt_pair_list_append(&helps, h.v[i].index,
                                                 h.v[i].text), 0);
    cg_put_list(s, "019", RT_TABLE_COUNTER, &names);
    cg_put_list(s, "019", RT_TABLE_HELP, &helps);
    *whole = names.n;
    rt_pair_list_free(&c);
    rt_pair_list_free(&h);
    rt_pair_list_free(&names);
    rt_pair_list_free(&helps);
    return s;
}

/* A Help table that lost its text: more than 50 of the names in the base
 * range without a help text, and more than a tenth of all names; at
 * the edge it is the info Windows' own tables give. Both edges: the
 * table's first names, a multiple of ten of them (a tenth of them the
 * larger, exactly a tenth at the edge), and its first 400 (50 the
 * larger). */
static void help_missing_base_at_its_edge(void **state)
{
    (void)state;
    size_t all, unused;
    struct rt_store *whole_table = help_lost_below_base(0, 0, &all, &unused);
    whole_table->ops->close(whole_table);
    size_t keeps[] = {all - all % 10, 400};
    for (size_t t = 0; t < 2; t++) {
        size_t whole, below0, whole_now, below;
        struct rt_store *s = help_lost_below_base(keeps[t], 0, &whole,
                                                  &below0);
        s->ops->close(s);
        size_t edge = whole / 10 > 50 ? whole / 10 : 50;
        if (t == 0)
            assert_true(whole / 10 > 50);
        else
            assert_true(whole / 10 < 50);
        assert_true(below0 < edge);
        s = help_lost_below_base(keeps[t], edge - below0, &whole_now, &below);
        assert_int_equal(below, edge);
        expect_no_finding(s, "help-missing-base", "019",
                          "help texts lost at the edge");
        s = help_lost_below_base(keeps[t], edge - below0, &whole_now, &below);
        expect_finding(s, "name-without-help-base", "019", RT_AUDIT_INFO,
                       "help texts lost at the edge");
        s = help_lost_below_base(keeps[t], edge + 1 - below0, &whole_now,
                                 &below);
        assert_int_equal(below, edge + 1);
        expect_finding(s, "help-missing-base", "019", RT_AUDIT_WARNING,
                       "help texts lost one past the edge");
    }
}

/* A language other than English that lacks several providers' names is
 * said once, naming the first and counting the others: one finding per
 * provider and language would be services x languages (a million for a
 * tree of 1,000 of each). English's lack stays an error per provider. */
static void other_languages_lacking_providers_said_once(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_remove(s, "019", RT_TABLE_COUNTER, CG_A_FIRST, CG_B_LAST);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    size_t in019 = 0;
    const struct rt_finding *x = NULL;
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(rt_finding_id(&f.v[i]), "provider-strings-missing")) {
            assert_non_null(f.v[i].language);
            assert_string_equal(f.v[i].language, "019");
            in019++;
            x = &f.v[i];
        }
    assert_int_equal(in019, 1);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_INFO);
    assert_non_null(strstr(message_of(x), "ProvA: Perflib\\019 has no name "
                                          "in its range 3992-4000 and in "
                                          "another provider's (consumers "
                                          "show the English names)"));
    rt_findings_free(&f);
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_B_LAST);
    audit_store(s, &f, NULL);
    size_t errors = 0;
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(rt_finding_id(&f.v[i]), "provider-strings-missing") &&
            rt_finding_severity(&f.v[i]) == RT_AUDIT_ERROR)
            errors++;
    assert_int_equal(errors, 2);
    rt_findings_free(&f);
    s->ops->close(s);

    /* Three providers lacking 019's names: the first named, "those of 2
     * other providers" (planted set 34: the count said 3). */
    s = cg_clean();
    cg_provider(s, "ProvC", CG_B_LAST + 2, CG_B_LAST + 4);
    cg_dword(s, NULL, "Last Counter", CG_B_LAST + 4);
    cg_dword(s, NULL, "Last Help", CG_B_LAST + 5);
    for (uint32_t i = CG_B_LAST + 2; i <= CG_B_LAST + 4; i += 2) {
        cg_append(s, "009", RT_TABLE_COUNTER, i, "C");
        cg_append(s, "009", RT_TABLE_HELP, i + 1, "C help");
    }
    cg_remove(s, "019", RT_TABLE_COUNTER, CG_A_FIRST, CG_B_LAST + 4);
    audit_store(s, &f, NULL);
    x = find(&f, "provider-strings-missing", "019");
    assert_non_null(x);
    assert_non_null(strstr(message_of(x), "ProvA: Perflib\\019 has no name "
                                          "in its range 3992-4000 and in "
                                          "those of 2 other providers "));
    rt_findings_free(&f);
    s->ops->close(s);
}


/* audit --lang L keeps L's findings of the providers' checks (a provider
 * without its names in L among them: it hid English's errors under
 * --lang 009) and drops the rest; a language Perflib lacks is an error,
 * never a clean audit. */
static void one_language_keeps_its_provider_findings(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    cg_remove(s, "009", RT_TABLE_COUNTER, CG_A_FIRST, CG_B_LAST);
    cg_remove(s, "019", RT_TABLE_COUNTER, CG_A_FIRST, CG_B_LAST);
    struct rt_findings f;
    audit_store(s, &f, "009");
    size_t en = 0;
    for (size_t i = 0; i < f.n; i++) {
        assert_non_null(f.v[i].language);
        assert_string_equal(f.v[i].language, "009");
        en += !strcmp(rt_finding_id(&f.v[i]), "provider-strings-missing");
    }
    assert_int_equal(en, 2);
    assert_true(f.errors >= 2);
    rt_findings_free(&f);
    audit_store(s, &f, "019");
    const struct rt_finding *x = find(&f, "provider-strings-missing", "019");
    assert_non_null(x);
    assert_null(find(&f, "provider-strings-missing", "009"));
    rt_findings_free(&f);
    audit_store(s, &f, "0C0C");
    x = find(&f, "language-absent", "0C0C");
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
    assert_int_equal(f.n, 1);
    rt_findings_free(&f);
    s->ops->close(s);
    /* What concerns every language (a provider's range past Last
     * Counter) stays under any --lang. */
    s = cg_build(CG_PROVIDER_ABOVE_LAST, 1);
    audit_store(s, &f, "019");
    x = find(&f, "provider-above-last-counter", NULL);
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
    rt_findings_free(&f);
    s->ops->close(s);
}
/* Each key anomaly of a store (store.h) is an error of its own id, naming
 * both keys (the link's target), so that an audit of such a tree is
 * never clean; a writer's refusal names the first and writes nothing. */
static void key_anomalies_are_errors(void **state)
{
    (void)state;
    struct rt_key_anomaly v[] = {
        {RT_KEY_LINK, 0, "SYSTEM\\S\\Linky", "\\REGISTRY\\X"},
        {RT_KEY_LINK, 1, "SOFTWARE\\P\\Linked", NULL},
        {RT_KEY_CASE_TWINS, 0, "SYSTEM\\S\\PERFOS", "SYSTEM\\S\\PerfOS"},
        {RT_KEY_CASE_TWINS, 1, "SOFTWARE\\P\\cURRENTlANGUAGE",
         "SOFTWARE\\P\\CurrentLanguage"},
        {RT_KEY_MISPARENTED, 0, "SYSTEM\\S\\Stray", NULL},
        {RT_KEY_MISPARENTED, 1, "SOFTWARE\\P\\Stray", NULL},
    };
    static const char *const ids[] = {
        "service-key-is-link", "perflib-key-is-link",
        "service-keys-differ-in-case", "perflib-keys-differ-in-case",
        "service-key-misparented", "perflib-key-misparented"};
    struct rt_findings f;
    memset(&f, 0, sizeof f);
    assert_int_equal(rt_audit_key_anomalies(v, 6, &f), 0);
    assert_int_equal(f.n, 6);
    assert_int_equal(f.errors, 6);
    for (size_t i = 0; i < 6; i++) {
        const struct rt_finding *x = find(&f, ids[i], NULL);
        assert_non_null(x);
        assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
        assert_non_null(strstr(message_of(x), v[i].key));
        if (v[i].other)
            assert_non_null(strstr(message_of(x), v[i].other));
    }
    rt_findings_free(&f);
    struct rt_error e = {0};
    assert_int_equal(rt_refuse_key_anomalies(v, 0, &e), 0);
    assert_int_equal(rt_refuse_key_anomalies(v + 2, 2, &e), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, "SYSTEM\\S\\PERFOS and SYSTEM\\S\\PerfOS"));
    assert_non_null(strstr(e.message, "nothing was written"));
    /* More than one: the first named, the rest left to audit; one alone
     * is not said to have others. */
    assert_non_null(strstr(e.message, ", and more: regtool audit lists them"));
    memset(&e, 0, sizeof e);
    assert_int_equal(rt_refuse_key_anomalies(v + 2, 1, &e), -1);
    assert_non_null(strstr(e.message, "service-keys-differ-in-case); "));
    assert_null(strstr(e.message, "and more"));
}

/* One provider whose counter and help ranges both overlap two others':
 * each pair is told once, the two in database order, every one named. */
static void one_provider_overlapping_two_told_once_each(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    /* After ProvA in database order, each within its counter range and
     * its help range (first + 1 to last + 1), apart from each other. */
    cg_provider(s, "InnerLow", CG_A_FIRST, CG_A_FIRST + 2);
    cg_provider(s, "InnerHigh", CG_A_LAST - 2, CG_A_LAST);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    const char *said[4];
    size_t n = 0;
    for (size_t i = 0; i < f.n; i++)
        if (!strcmp(rt_finding_id(&f.v[i]), "provider-overlap") && n < 4)
            said[n++] = message_of(&f.v[i]);
    if (n != 2)
        print_findings(&f);
    assert_int_equal(n, 2);
    char want[2][300];
    snprintf(want[0], sizeof want[0], "ProvA (counter %u-%u) and InnerLow "
             "(counter %u-%u) share indices", CG_A_FIRST, CG_A_LAST,
             CG_A_FIRST, CG_A_FIRST + 2);
    snprintf(want[1], sizeof want[1], "ProvA (counter %u-%u) and InnerHigh "
             "(counter %u-%u) share indices", CG_A_FIRST, CG_A_LAST,
             CG_A_LAST - 2, CG_A_LAST);
    assert_non_null(strstr(said[0], want[0]));
    assert_non_null(strstr(said[1], want[1]));
    rt_findings_free(&f);
    s->ops->close(s);
}

/* Providers whose ranges make the sweep's heap of open ranges take its
 * right child on the way down (a range that ends earlier than its left
 * sibling): the range of SiftR, ended before SiftX2 starts, is closed by
 * then, and only the ranges that share indices are told. */
static void overlaps_closed_in_order_of_their_ends(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    const uint32_t b = 10000;
    static const struct {
        const char *name;
        uint32_t first, last;
    } prov[] = {
        {"SiftM", 2, 10},   {"SiftL", 4, 100},   {"SiftR", 6, 20},
        {"SiftLast", 8, 120}, {"SiftX1", 14, 200}, {"SiftX2", 40, 60},
    };
    for (size_t i = 0; i < sizeof prov / sizeof *prov; i++)
        cg_provider(s, prov[i].name, b + prov[i].first, b + prov[i].last);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    size_t told = 0;
    for (size_t i = 0; i < f.n; i++) {
        if (strcmp(rt_finding_id(&f.v[i]), "provider-overlap"))
            continue;
        const char *m = message_of(&f.v[i]);
        if (!strstr(m, "Sift"))
            continue;
        told++;
        if (strstr(m, "SiftR ") && strstr(m, "SiftX2 ")) {
            print_findings(&f);
            fail_msg("SiftR and SiftX2 share no index: %s", m);
        }
    }
    /* M-L, M-R, M-Last, L-R, L-Last, L-X1, L-X2, R-Last, R-X1, Last-X1,
     * Last-X2, X1-X2. */
    if (told != 12)
        print_findings(&f);
    assert_int_equal(told, 12);
    rt_findings_free(&f);
    s->ops->close(s);
}

/* CurrentLanguage against the language it mirrors: every pair of
 * CurrentLanguage whose index English has with English's text counts,
 * a duplicate of it too, whichever side is walked. English's N names;
 * CurrentLanguage has one of them stale and one twice (the copy agreeing):
 * N of N + 1 names agree. */
static void current_language_agreement_counts_each_pair(void **state)
{
    (void)state;
    struct rt_store *s = cg_clean();
    struct rt_pair_list en;
    cg_get_list(s, "009", RT_TABLE_COUNTER, &en);
    const struct rt_pair *two = rt_pair_list_find(&en, 2);
    assert_non_null(two);
    cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, 4, 4);
    cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, 4, "Stale name");
    cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, 2, two->text);
    struct rt_findings f;
    audit_store(s, &f, NULL);
    const struct rt_finding *x = find(&f, "current-language-differs",
                                      "CurrentLanguage");
    assert_non_null(x);
    char want[160];
    snprintf(want, sizeof want, "CurrentLanguage differs from 009, the "
             "language it mirrors: %zu of %zu names", en.n, en.n + 1);
    if (!strstr(message_of(x), want))
        fail_msg("\"%s\" does not say \"%s\"", message_of(x), want);
    rt_findings_free(&f);
    rt_pair_list_free(&en);
    s->ops->close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(clean_database_has_no_error_or_warning),
        cmocka_unit_test(each_class_is_found),
        cmocka_unit_test(current_language_agreement_counts_each_pair),
        cmocka_unit_test(findings_carry_their_evidence),
        cmocka_unit_test(findings_keep_what_they_were_given),
        cmocka_unit_test(messages_at_the_first_buffers_length_kept_whole),
        cmocka_unit_test(same_evidence_is_kept_once),
        cmocka_unit_test(same_words_are_kept_once),
        cmocka_unit_test(normal_things_are_info),
        cmocka_unit_test(combined_and_sorted),
        cmocka_unit_test(each_class_has_its_severity),
        cmocka_unit_test(each_range_check_at_its_edge),
        cmocka_unit_test(misplaced_string_severity_at_base_index),
        cmocka_unit_test(english_overwritten_at_its_edge),
        cmocka_unit_test(help_missing_base_at_its_edge),
        cmocka_unit_test(key_anomalies_are_errors),
        cmocka_unit_test(other_languages_lacking_providers_said_once),
        cmocka_unit_test(one_language_keeps_its_provider_findings),
        cmocka_unit_test(one_provider_overlapping_two_told_once_each),
        cmocka_unit_test(overlaps_closed_in_order_of_their_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
