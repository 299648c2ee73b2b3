/* Provider spec at the size of generated providers: 20,000 symbols in two
 * languages, with the problems placed after everything else, so that the
 * checks must find the earlier key, symbol or language among tens of
 * thousands and name it exactly (line, symbol, message, order). Lookups
 * by name are case-insensitive, as lodctr's are. Times are not measured
 * here (bench/ does that). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/diag.h"
#include "provider/pos_index.h"
#include "provider/provider_spec.h"
#include "scratch.h"

#define N_SYMBOLS 20000u
/* Lines before the first [text] key, and [text] lines per symbol. */
#define TEXT_FIRST_LINE 11u
#define LINES_PER_SYMBOL 4u
/* The symbol whose key is repeated at the end. */
#define LATE 19990u

static char dir[512];

static char *path_of(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static int setup(void **state)
{
    (void)state;
    char *d = scratch_dir_new("rt-scale");
    snprintf(dir, sizeof dir, "%s", d);
    free(d);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove(dir);
}

/* Line of SYM_i's first [text] key (its 009 NAME). */
static unsigned text_line(unsigned i)
{
    return TEXT_FIRST_LINE + LINES_PER_SYMBOL * i;
}

/* Writes s.h: SYM_00000 .. at offsets 0, 2, ...; MIXED_CASE after them;
 * LATE_A and Late_A, which an INI naming late_a cannot tell apart. */
static void write_symbols(void)
{
    char *p = path_of("s.h");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fprintf(f, "/* s.h: offsets of the scale provider */\n");
    for (unsigned i = 0; i < N_SYMBOLS; i++)
        fprintf(f, "#define SYM_%05u %u\n", i, 2 * i);
    fprintf(f, "#define MIXED_CASE %u\n", 2 * N_SYMBOLS);
    fprintf(f, "#define LATE_A %u\n", 2 * N_SYMBOLS + 2);
    fprintf(f, "#define Late_A %u\n", 2 * N_SYMBOLS + 4);
    assert_int_equal(fclose(f), 0);
    free(p);
}

/* Writes NAME (p.ini): N_SYMBOLS symbols with NAME and HELP in 009 and
 * 007, every third HELP key in lower case (it must still join its NAME),
 * then Mixed_Case, whose header spells it MIXED_CASE, then TAIL; returns
 * the line TAIL starts on. With BAD_LANGUAGE, [languages] lists 009 a
 * second time as 0009 (line 7). */
static unsigned write_ini(const char *tail, int bad_language)
{
    char *p = path_of("p.ini");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fprintf(f, "[info]\n"                       /* 1 */
               "drivername=Scale\n"             /* 2 */
               "symbolfile=s.h\n"               /* 3 */
               "[languages]\n"                  /* 4 */
               "009=English\n"                  /* 5 */
               "007=German\n"                   /* 6 */
               "%s\n"                           /* 7 */
               "[objects]\n"                    /* 8 */
               "SYM_00000_009_NAME=\n"          /* 9 */
               "[text]\n",                      /* 10 */
            bad_language ? "0009=English again" : "; no more languages");
    unsigned line = TEXT_FIRST_LINE;
    for (unsigned i = 0; i < N_SYMBOLS; i++) {
        const char *help = i % 3 ? "HELP" : "help";
        assert_int_equal(line, text_line(i));
        fprintf(f, "SYM_%05u_009_NAME=Name %u\n", i, i);
        fprintf(f, "SYM_%05u_009_%s=Help %u\n", i, help, i);
        fprintf(f, "SYM_%05u_007_NAME=Name %u\n", i, i);
        fprintf(f, "SYM_%05u_007_%s=Hilfe %u\n", i, help, i);
        line += LINES_PER_SYMBOL;
    }
    fprintf(f, "Mixed_Case_009_NAME=Mixed\nMixed_Case_009_HELP=Mixed help\n"
               "Mixed_Case_007_NAME=Gemischt\n"
               "Mixed_Case_007_HELP=Gemischte Hilfe\n");
    line += 4;
    fputs(tail, f);
    assert_int_equal(fclose(f), 0);
    free(p);
    return line;
}

struct want {
    unsigned line;
    const char *symbol;
    const char *message;
    int warning;        /* 1: a warning, not an error */
};

/* Loads p.ini and checks that exactly the errors WANT were reported,
 * against p.ini, in this order (the order of the report, not sorted). */
static void load_expect_errors(const struct want *want, size_t n)
{
    char *ini = path_of("p.ini");
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    assert_int_equal(rt_provider_spec_load(ini, NULL, &spec, &d), -1);
    for (size_t i = 0; d.n != n && i < d.n && i < 20; i++) {
        char *m = rt_diag_format(&d.v[i]);
        print_message("  got: %s\n", m);
        free(m);
    }
    assert_int_equal(d.n, n);
    size_t warnings = 0;
    for (size_t i = 0; i < n; i++)
        warnings += want[i].warning;
    assert_int_equal(d.errors, n - warnings);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(d.v[i].severity,
                         want[i].warning ? RT_WARNING : RT_ERROR);
        assert_string_equal(d.v[i].file, ini);
        assert_int_equal(d.v[i].line, want[i].line);
        assert_string_equal(d.v[i].symbol, want[i].symbol);
        assert_string_equal(d.v[i].message, want[i].message);
    }
    assert_null(spec.symbols);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    free(ini);
}

/* A key given again at the very end, once in other case and once as
 * first written: both repeats name the first one's line. */
static void late_duplicate_key_names_its_first_line(void **state)
{
    (void)state;
    write_symbols();
    char tail[256];
    snprintf(tail, sizeof tail,
             "sym_%05u_009_help=again\nSYM_%05u_009_HELP=and again\n",
             LATE, LATE);
    unsigned line = write_ini(tail, 0);
    /* LATE % 3 != 0: its HELP key was written in upper case. */
    assert_true(LATE % 3 != 0);
    char m1[128], m2[128], s1[64], s2[64];
    snprintf(s1, sizeof s1, "sym_%05u_009_help", LATE);
    snprintf(s2, sizeof s2, "SYM_%05u_009_HELP", LATE);
    snprintf(m1, sizeof m1, "duplicate key %s (first at line %u)", s1,
             text_line(LATE) + 1);
    snprintf(m2, sizeof m2, "duplicate key %s (first at line %u)", s2,
             text_line(LATE) + 1);
    const struct want want[] = {
        {line, s1, m1, 0},
        {line + 1, s2, m2, 0},
    };
    load_expect_errors(want, 2);
}

/* Several problems found by different lookups, reported in the loader's
 * order: keys as parsed, then languages, then symbols. */
static void late_problems_reported_in_order(void **state)
{
    (void)state;
    write_symbols();
    char tail[256];
    snprintf(tail, sizeof tail,
             "late_a_009_NAME=Late\n"
             "late_a_009_HELP=Late help\n"
             "SYM_%05u_007_name=again\n", LATE);
    unsigned line = write_ini(tail, 1);
    char m[128], s[64];
    snprintf(s, sizeof s, "SYM_%05u_007_name", LATE);
    snprintf(m, sizeof m, "duplicate key %s (first at line %u)", s,
             text_line(LATE) + 2);
    const struct want want[] = {
        {line + 2, s, m, 0},
        {7, "0009", "language '0009' is language '009' of line 5 again", 0},
        {line, "late_a", "late_a is not defined in s.h; its keys are "
                         "skipped, as lodctr skips them", 1},
    };
    load_expect_errors(want, 3);
}

/* Without the problems the same INI loads: every symbol once, its
 * lower-case HELP joined to its NAME, Mixed_Case found as MIXED_CASE. */
static void large_provider_loads(void **state)
{
    (void)state;
    write_symbols();
    write_ini("", 0);
    char *ini = path_of("p.ini");
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    assert_int_equal(rt_provider_spec_load(ini, NULL, &spec, &d), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(spec.n_languages, 2);
    assert_int_equal(spec.n_symbols, N_SYMBOLS + 1);
    for (unsigned i = 0; i < N_SYMBOLS; i += 997) {
        const struct rt_provider_symbol *s = &spec.symbols[i];
        char name[32], help[32];
        snprintf(name, sizeof name, "Name %u", i);
        snprintf(help, sizeof help, "Help %u", i);
        assert_int_equal(s->offset, 2 * (long)i);
        /* SYM_00000 is named first in [objects]. */
        assert_int_equal(s->first_line, i == 0 ? 9 : text_line(i));
        assert_string_equal(s->text[0].name, name);
        assert_string_equal(s->text[0].help, help);
        assert_int_equal(s->text[0].help_line, text_line(i) + 1);
        assert_int_equal(s->is_object, i == 0);
    }
    const struct rt_provider_symbol *last = &spec.symbols[N_SYMBOLS];
    assert_string_equal(last->symbol, "Mixed_Case");
    assert_int_equal(last->offset, 2 * (long)N_SYMBOLS);
    assert_int_equal(last->define_line, N_SYMBOLS + 2);
    assert_string_equal(last->text[1].help, "Gemischte Hilfe");
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    free(ini);
}

/* An INI of thousands of keys that each draw a warning of one kind: the
 * first RT_DIAGS_KEPT are kept, each naming its line, and one more
 * counts the rest exactly; a warning of another kind after them is kept.
 * The file's name is held once, for all of them. */
static void many_warnings_of_a_kind_are_counted(void **state)
{
    (void)state;
    write_symbols();
    size_t n = 2500, len = 0;
    char *tail = malloc(n * 16 + 64);
    assert_non_null(tail);
    for (size_t k = 0; k < n; k++)
        len += (size_t)sprintf(tail + len, "junk%zu=\n", k);
    sprintf(tail + len, "no equals sign\n");
    unsigned first = write_ini(tail, 0);
    free(tail);
    char *ini = path_of("p.ini");
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    assert_int_equal(rt_provider_spec_load(ini, NULL, &spec, &d), 0);
    assert_int_equal(d.errors, 0);
    assert_int_equal(d.warnings, n + 1);
    rt_diags_sort(&d);
    assert_int_equal(d.n, RT_DIAGS_KEPT + 2);
    for (size_t k = 0; k < RT_DIAGS_KEPT; k++) {
        assert_int_equal(d.v[k].line, first + k);
        assert_ptr_equal(d.v[k].file, d.v[0].file);
    }
    char want[512], *got = rt_diag_format(&d.v[RT_DIAGS_KEPT]);
    snprintf(want, sizeof want, "%s:%u: warning: ... and %zu more warnings "
             "like this, between lines %u and %u (only the first %d of a "
             "kind are listed)", ini, first + RT_DIAGS_KEPT - 1,
             n - RT_DIAGS_KEPT, first + RT_DIAGS_KEPT, first + (unsigned)n - 1,
             RT_DIAGS_KEPT);
    assert_string_equal(got, want);
    free(got);
    assert_int_equal(d.v[RT_DIAGS_KEPT + 1].line, first + n);
    assert_non_null(d.v[RT_DIAGS_KEPT + 1].message);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    free(ini);
}

/* A count of one left out, of diagnostics about no file. */
static void one_left_out_without_a_file(void **state)
{
    (void)state;
    struct rt_diags d = {0};
    for (int k = 0; k <= RT_DIAGS_KEPT; k++)
        rt_diags_add(&d, RT_ERROR, NULL, 0, NULL, "bad %d", k);
    assert_int_equal(d.errors, RT_DIAGS_KEPT + 1);
    assert_int_equal(d.n, RT_DIAGS_KEPT + 1);
    char *got = rt_diag_format(&d.v[RT_DIAGS_KEPT]);
    assert_string_equal(got, "error: ... and 1 more error like this (only "
                        "the first 1000 of a kind are listed)");
    free(got);
    rt_diags_free(&d);
}

/* Sorted by file, then line, those of one file and line in the order
 * they came, however they came: a file's diagnostics made after another's
 * that sorts after it, lines backwards, a count of those left out after
 * the last one kept (which it follows, and which a later one of its kind
 * still adds to). */
static void diagnostics_sort_stably_by_file_then_line(void **state)
{
    (void)state;
    struct rt_diags d = {0};
    rt_diags_add(&d, RT_ERROR, "b.ini", 5, NULL, "b5");
    rt_diags_add(&d, RT_WARNING, "b.ini", 3, NULL, "b3 first");
    rt_diags_add(&d, RT_ERROR, "b.ini", 3, NULL, "b3 second");
    rt_diags_add(&d, RT_WARNING, "b.ini", 1, NULL, "b1");
    rt_diags_add(&d, RT_WARNING, NULL, 0, NULL, "no file");
    for (unsigned k = 0; k <= RT_DIAGS_KEPT; k++)
        rt_diags_add(&d, RT_WARNING, "a.h", 5000 - k, NULL, "w %u", k);
    rt_diags_add(&d, RT_ERROR, "a.h", 2, NULL, "a2");
    assert_int_equal(d.n, 5 + RT_DIAGS_KEPT + 2);
    rt_diags_sort(&d);
    /* Then one more of the kind counted: its count, wherever it went. */
    rt_diags_add(&d, RT_WARNING, "a.h", 1, NULL, "w %u", 9999u);
    assert_int_equal(d.n, 5 + RT_DIAGS_KEPT + 2);
    static const char *const want[] = {
        "warning: no file", "a.h:2: error: a2", NULL /* the kept w's */,
        "b.ini:1: warning: b1", "b.ini:3: warning: b3 first",
        "b.ini:3: error: b3 second", "b.ini:5: error: b5"};
    size_t i = 0;
    for (size_t w = 0; w < sizeof want / sizeof *want; w++) {
        if (want[w]) {
            char *m = rt_diag_format(&d.v[i++]);
            assert_string_equal(m, want[w]);
            free(m);
            continue;
        }
        /* Lines 5000 down to 4001, read back rising; the count follows
         * the last one kept (line 4001), and now counts two. */
        for (unsigned k = 0; k < RT_DIAGS_KEPT; k++, i++) {
            assert_int_equal(d.v[i].line, 4001 + k);
            assert_non_null(d.v[i].message);
            if (k == 0) {
                assert_null(d.v[i + 1].message);
                char *m = rt_diag_format(&d.v[++i]);
                assert_non_null(strstr(m, "and 2 more warnings like this"));
                free(m);
            }
        }
    }
    assert_int_equal(i, d.n);
    rt_diags_free(&d);
}

/* The slot FNV-1a from its own basis gave NAME in an index of 2^16
 * slots (pos_index.c's mix of the hash, cut to 32 bits, and masked). */
static uint32_t fnv_slot(const char *name)
{
    unsigned long long h = 14695981039346656037ull;
    for (const char *c = name; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h & 0xffff;
}

/* Names an INI or symbol file may hold, chosen (offline, as anyone can)
 * to land in one window of 256 slots under FNV-1a's own basis: looked up
 * through the index by the hashes the INI reader uses, they cost a few
 * probes each, as names at random do, not a walk of the window's whole
 * cluster (100,000 of them took 32 s, review 34 F2). */
static void names_chosen_to_collide_are_spread(void **state)
{
    (void)state;
    enum { N = 20000 };
    char (*names)[16] = malloc(N * sizeof *names);
    assert_non_null(names);
    size_t n = 0;
    for (unsigned long k = 0; n < N; k++) {
        snprintf(names[n], sizeof names[n], "s%lx", k);
        if (fnv_slot(names[n]) < 256)
            n++;
    }
    struct rt_pos_index exact = {0}, folded = {0};
    for (size_t i = 0; i < N; i++) {
        assert_int_equal(rt_pos_index_add(&exact, rt_hash_exact(names[i]), i),
                         0);
        assert_int_equal(rt_pos_index_add(&folded, rt_hash_ci(names[i]), i),
                         0);
    }
    size_t probes = 0;
    for (size_t i = 0; i < N; i++) {
        size_t cursor = 0, pos1, found = 0;
        while ((pos1 = rt_pos_index_next(&exact, rt_hash_exact(names[i]),
                                         &cursor)))
            found |= pos1 == i + 1;
        assert_true(found);
        probes += cursor;
        cursor = 0;
        while (rt_pos_index_next(&folded, rt_hash_ci(names[i]), &cursor))
            ;
        probes += cursor;
    }
    /* Under FNV's own basis: about N / 2 probes a lookup. */
    assert_true(probes < (size_t)16 * N);
    rt_pos_index_free(&exact);
    rt_pos_index_free(&folded);
    free(names);
}

/* The fixed mix pos_index once picked slots with alone (the murmur
 * finalizer's first half), for keys chosen against it. */
static uint32_t fixed_tag(size_t hash)
{
    unsigned long long h = hash;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (uint32_t)h;
}

/* Keys that are numbers an INI's author orders (the texts index's
 * symbol x 0x10003 + language), chosen so that the fixed mix put them in
 * one window of 2^20 slots, spread all the same: the slot is keyed by
 * this process's basis whatever hash a user gives (review 35 F1: 128k
 * such [text] keys, check-ini 10.9 s for 0.07). */
static void numbers_chosen_to_collide_are_spread(void **state)
{
    (void)state;
    enum { N = 20000 };
    size_t *keys = malloc(N * sizeof *keys);
    assert_non_null(keys);
    size_t n = 0;
    for (size_t k = 0; n < N; k++)
        if ((fixed_tag(k) & ((1u << 20) - 1)) < 256)
            keys[n++] = k;
    struct rt_pos_index x = {0};
    for (size_t i = 0; i < N; i++)
        assert_int_equal(rt_pos_index_add(&x, keys[i], i), 0);
    size_t probes = 0;
    for (size_t i = 0; i < N; i++) {
        size_t cursor = 0, pos1, found = 0;
        while ((pos1 = rt_pos_index_next(&x, keys[i], &cursor)))
            found |= pos1 == i + 1;
        assert_true(found);
        probes += cursor;
    }
    /* Under the fixed mix: about N / 2 probes a lookup. */
    assert_true(probes < (size_t)8 * N);
    rt_pos_index_free(&x);
    free(keys);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(late_duplicate_key_names_its_first_line),
        cmocka_unit_test(late_problems_reported_in_order),
        cmocka_unit_test(large_provider_loads),
        cmocka_unit_test(many_warnings_of_a_kind_are_counted),
        cmocka_unit_test(one_left_out_without_a_file),
        cmocka_unit_test(diagnostics_sort_stably_by_file_then_line),
        cmocka_unit_test(names_chosen_to_collide_are_spread),
        cmocka_unit_test(numbers_chosen_to_collide_are_spread),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
