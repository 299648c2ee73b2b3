/* Provider spec: loading a lodctr INI + symbol file into the model, and
 * every validation error and warning with its exact message, file, line
 * and symbol. Fixtures are written into a fresh temporary directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifndef _WIN32
#include <sys/stat.h>
#endif
#include <cmocka.h>

#include "model/diag.h"
#include "provider/provider_spec.h"
#include "scratch.h"
#include "model/utf16.h"

static char dir[512];

static const char *symbols_h =
    "// s.h: offsets of the test provider\n"  /* 1 */
    "#ifndef S_H\n"                           /* 2 */
    "#define S_H\n"                           /* 3 */
    "#define OBJ 0\n"                         /* 4 */
    "#define CTR_A 2\n"                       /* 5 */
    "#define CTR_B (CTR_A + 2)\n"             /* 6 */
    "#define NEG -2\n"                        /* 7 */
    "#define ODD 3\n"                         /* 8 */
    "#define SAME_AS_A CTR_A\n"               /* 9 */
    "#define WORD \"x\"\n"                    /* 10 */
    "#define GAP 10\n"                        /* 11 */
    "#define CTR_C 6\n"                       /* 12 */
    "#endif\n";                               /* 13 */

static char *path_of(const char *name)
{
    char *p = NULL;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    return p;
}

static void write_file(const char *name, const char *content)
{
    char *p = path_of(name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(content, 1, strlen(content), f), strlen(content));
    assert_int_equal(fclose(f), 0);
    free(p);
}

static int setup(void **state)
{
    (void)state;
    char *d = scratch_dir_new("rt-spec");
    snprintf(dir, sizeof dir, "%s", d);
    free(d);
    write_file("s.h", symbols_h);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return scratch_remove(dir);
}

/* An expected diagnostic; FILE is the name inside DIR, or NULL. */
struct want {
    enum rt_severity sev;
    const char *file;
    unsigned line;
    const char *symbol;
    const char *message;
};

#define E(file, line, sym, msg) {RT_ERROR, file, line, sym, msg}
#define W(file, line, sym, msg) {RT_WARNING, file, line, sym, msg}

/* Loads INI (written as t.ini) and checks that exactly WANT, in order of
 * file and line, was reported. Returns the loader's result. */
static int load_expect(const char *ini, const struct want *want, size_t n,
                       struct rt_provider_spec *spec)
{
    write_file("t.ini", ini);
    char *path = path_of("t.ini");
    struct rt_diags d = {0};
    int r = rt_provider_spec_load(path, NULL, spec, &d);
    rt_diags_sort(&d);
    for (size_t i = 0; d.n != n && i < d.n; i++) {
        char *m = rt_diag_format(&d.v[i]);
        print_message("  got: %s [%s]\n", m, d.v[i].symbol ? d.v[i].symbol
                                                             : "-");
        free(m);
    }
    assert_int_equal(d.n, n);
    for (size_t i = 0; i < n; i++) {
        const struct rt_diag *g = &d.v[i];
        assert_int_equal(g->severity, want[i].sev);
        if (want[i].file) {
            char *f = path_of(want[i].file);
            assert_string_equal(g->file, f);
            free(f);
        } else {
            assert_null(g->file);
        }
        assert_int_equal(g->line, want[i].line);
        if (want[i].symbol)
            assert_string_equal(g->symbol, want[i].symbol);
        else
            assert_null(g->symbol);
        assert_string_equal(g->message, want[i].message);
    }
    rt_diags_free(&d);
    free(path);
    return r;
}

static void load_fails(const char *ini, const struct want *want, size_t n)
{
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, n, &spec), -1);
    assert_null(spec.symbols);
    assert_null(spec.drivername);
    rt_provider_spec_free(&spec);
}

#define N(a) (sizeof(a) / sizeof(a)[0])

static void valid_provider_loads(void **state)
{
    (void)state;
    const char *ini =
        "\xef\xbb\xbf// A provider in two languages\r\n"            /* 1 */
        "[info]\r\n"                                                 /* 2 */
        "drivername=Prov      ; the Services key\r\n"                /* 3 */
        "symbolfile=s.h\t; a comment after a tab\r\n"                /* 4 */
        "trusted=\r\n"                                               /* 5 */
        "[languages]\r\n"                                            /* 6 */
        "00c=French\r\n"                                             /* 7 */
        "009=English\r\n"                                            /* 8 */
        "[objects]\r\n"                                              /* 9 */
        "OBJ_009_NAME=\r\n"                                          /* 10 */
        "[text]\r\n"                                                 /* 11 */
        "CTR_B_009_NAME=B\r\n"                                       /* 12 */
        "CTR_B_009_HELP=Counts b; also c.\r\n"                       /* 13 */
        "OBJ_009_NAME=Object\r\n"                                    /* 14 */
        "OBJ_009_HELP=The object.\r\n"                               /* 15 */
        "  obj_00C_name = Objet \r\n"                                /* 16 */
        "OBJ_00C_HELP=L'objet.\r\n"                                  /* 17 */
        "CTR_A_009_NAME=A\r\n"                                       /* 18 */
        "CTR_A_009_HELP=Counts a.\r\n"                               /* 19 */
        "CTR_A_00C_NAME=\xc3\x80\r\n"                                /* 20 */
        "CTR_A_00C_HELP=Compte \xc3\xa0.\r\n";                       /* 21 */
    /* Spaces after the text go, as the profile API lodctr reads the
     * INI through drops them: a warning. */
    const struct want want[] = {
        W("t.ini", 16, "obj_00C_name",
          "obj_00C_name ends in spaces; they are dropped, as the profile "
          "API drops them"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_string_equal(spec.drivername, "Prov");
    assert_int_equal(spec.drivername_line, 3);
    assert_string_equal(spec.symbolfile, "s.h");
    assert_int_equal(spec.symbolfile_line, 4);
    char *sp = path_of("s.h");
#ifdef RT_OS_WIN32
    /* There the system finds it under the name given. */
    assert_int_equal(strcasecmp(spec.symbol_path, sp), 0);
#else
    assert_string_equal(spec.symbol_path, sp);
#endif
    free(sp);
    assert_true(spec.trusted);
    assert_int_equal(spec.n_languages, 2);
    assert_string_equal(spec.languages[0].id, "00C");
    assert_int_equal(spec.languages[0].line, 7);
    assert_string_equal(spec.languages[1].id, "009");
    assert_int_equal(rt_provider_spec_language(&spec, "00c"), 0);
    assert_int_equal(rt_provider_spec_language(&spec, "009"), 1);
    assert_int_equal(rt_provider_spec_language(&spec, "019"), -1);
    /* Found through the loader's index by value, in any spelling. */
    assert_non_null(spec.lang_index);
    assert_int_equal(rt_provider_spec_language(&spec, "0009"), 1);
    assert_int_equal(rt_provider_spec_language(&spec, "000C"), 0);
    assert_int_equal(rt_provider_spec_language(&spec, "00A"), -1);
    assert_int_equal(rt_provider_spec_language(&spec, "00D"), -1);
    assert_int_equal(rt_provider_spec_language(&spec, "CurrentLanguage"), -1);
    assert_int_equal(rt_provider_spec_language(&spec, "x9"), -1);

    assert_int_equal(spec.n_symbols, 3);
    const struct rt_provider_symbol *o = &spec.symbols[0];
    const struct rt_provider_symbol *a = &spec.symbols[1];
    const struct rt_provider_symbol *b = &spec.symbols[2];
    assert_string_equal(o->symbol, "OBJ");
    assert_int_equal(o->offset, 0);
    assert_true(o->is_object);
    assert_int_equal(o->object_line, 10);
    assert_int_equal(o->first_line, 10);
    assert_int_equal(o->define_line, 4);
    assert_string_equal(o->text[0].name, "Objet");
    assert_int_equal(o->text[0].name_line, 16);
    assert_string_equal(o->text[0].help, "L'objet.");
    assert_string_equal(o->text[1].name, "Object");
    assert_string_equal(o->text[1].help, "The object.");
    assert_int_equal(o->text[1].help_line, 15);

    assert_string_equal(a->symbol, "CTR_A");
    assert_int_equal(a->offset, 2);
    assert_false(a->is_object);
    assert_int_equal(a->object_line, 0);
    assert_string_equal(a->text[0].name, "\xc3\x80");
    assert_string_equal(a->text[0].help, "Compte \xc3\xa0.");

    assert_string_equal(b->symbol, "CTR_B");
    assert_int_equal(b->offset, 4);
    assert_int_equal(b->define_line, 6);
    assert_int_equal(b->first_line, 12);
    /* Its texts are those of the languages it has keys in: 009 only. */
    assert_int_equal(b->n_text, 1);
    assert_string_equal(rt_provider_symbol_text(b, 1)->help,
                        "Counts b; also c.");
    assert_null(rt_provider_symbol_text(b, 0));
    rt_provider_spec_free(&spec);
    assert_null(spec.symbols);
}

static const char *good_head =
    "[info]\n"              /* 1 */
    "drivername=Prov\n"     /* 2 */
    "symbolfile=s.h\n"      /* 3 */
    "[languages]\n"         /* 4 */
    "009=English\n"         /* 5 */
    "[objects]\n"           /* 6 */
    "OBJ_009_NAME=\n"       /* 7 */
    "[text]\n"              /* 8 */
    "OBJ_009_NAME=Object\n" /* 9 */
    "OBJ_009_HELP=Help\n";  /* 10 */

/* GOOD_HEAD followed by TAIL (its lines start at 11). */
static char *with_head(const char *tail)
{
    char *s = NULL;
    assert_true(asprintf(&s, "%s%s", good_head, tail) > 0);
    return s;
}

static void offsets_negative_odd_duplicate_undefined(void **state)
{
    (void)state;
    char *ini = with_head("NEG_009_NAME=n\nNEG_009_HELP=h\n"
                          "ODD_009_NAME=o\nODD_009_HELP=h\n"
                          "CTR_A_009_NAME=a\nCTR_A_009_HELP=h\n"
                          "SAME_AS_A_009_NAME=s\nSAME_AS_A_009_HELP=h\n"
                          "MISSING_009_NAME=m\nMISSING_009_HELP=h\n"
                          "WORD_009_NAME=w\nWORD_009_HELP=h\n");
    const struct want want[] = {
        E("s.h", 7, "NEG", "offset of NEG is negative (-2)"),
        E("s.h", 8, "ODD", "offset of ODD is odd (3)"),
        E("s.h", 9, "SAME_AS_A",
          "SAME_AS_A has offset 2, as does CTR_A (line 5)"),
        E("s.h", 10, "WORD", "WORD: value '\"x\"' is not a number"),
        W("t.ini", 19, "MISSING", "MISSING is not defined in s.h; its keys "
                                  "are skipped, as lodctr skips them"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

/* pywin32's perf_install.ini has THREADS_* keys its perf_install.h never
 * defines; lodctr skips them and loads the rest, and so does the loader. */
static void undefined_symbol_is_skipped(void **state)
{
    (void)state;
    char *ini = with_head("MISSING_009_NAME=m\n"       /* 11 */
                          "CTR_A_009_NAME=a\n"         /* 12 */
                          "CTR_A_009_HELP=h\n"         /* 13 */
                          "MISSING_009_HELP=h\n");     /* 14 */
    const struct want want[] = {
        W("t.ini", 11, "MISSING", "MISSING is not defined in s.h; its keys "
                                  "are skipped, as lodctr skips them"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_int_equal(spec.n_symbols, 2);
    assert_string_equal(spec.symbols[0].symbol, "OBJ");
    assert_string_equal(spec.symbols[1].symbol, "CTR_A");
    rt_provider_spec_free(&spec);
    free(ini);

    /* Only undefined symbols: nothing would be installed, an error. */
    const struct want none[] = {
        E("t.ini", 0, NULL, "every [text] key is skipped: nothing would "
                            "be installed"),
        W("t.ini", 7, "ONLY", "ONLY is not defined in s.h; its keys are "
                              "skipped, as lodctr skips them"),
    };
    load_fails("[info]\ndrivername=P\nsymbolfile=s.h\n[languages]\n009=\n"
               "[objects]\nONLY_009_NAME=\n[text]\nONLY_009_NAME=o\n"
               "ONLY_009_HELP=h\n", none, N(none));
}

static void language_errors(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_00C_NAME=a\n"      /* 11 */
                          "CTR_A_9_HELP=h\n"        /* 12 */
                          "CTR_A_009_NAME=a\n"      /* 13 */
                          "CTR_A_009_HELP=h\n"      /* 14 */
                          "[languages]\n"           /* 15 */
                          "09=English\n"            /* 16 */
                          "0x9=English\n");         /* 17 */
    const struct want want[] = {
        W("t.ini", 11, "CTR_A_00C_NAME",
          "CTR_A_00C_NAME: language 00C is not in [languages]; skipped, as "
          "lodctr skips it"),
        W("t.ini", 12, "CTR_A_9_HELP",
          "language id '9' in CTR_A_9_HELP is not 3 hex digits; skipped, "
          "as lodctr skips it"),
        E("t.ini", 16, "09", "language id '09' is not 3 hex digits"),
        E("t.ini", 17, "0x9", "language id '0x9' is not 3 hex digits"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

/* WiX's INI has keys of languages its [languages] does not list; lodctr
 * skips them. A symbol left without any text takes no index. */
static void unlisted_language_keys_are_skipped(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=a\n"     /* 11 */
                          "CTR_A_009_HELP=h\n"     /* 12 */
                          "CTR_A_054_NAME=x\n"     /* 13 */
                          "CTR_B_028_NAME=b\n"     /* 14 */
                          "CTR_B_028_HELP=h\n");   /* 15 */
    const struct want want[] = {
        W("t.ini", 13, "CTR_A_054_NAME",
          "CTR_A_054_NAME: language 054 is not in [languages]; skipped, as "
          "lodctr skips it"),
        W("t.ini", 14, "CTR_B_028_NAME",
          "CTR_B_028_NAME: language 028 is not in [languages]; skipped, as "
          "lodctr skips it"),
        W("t.ini", 15, "CTR_B_028_HELP",
          "CTR_B_028_HELP: language 028 is not in [languages]; skipped, as "
          "lodctr skips it"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_int_equal(spec.n_symbols, 2);
    assert_string_equal(spec.symbols[1].symbol, "CTR_A");
    assert_string_equal(spec.symbols[1].text[0].name, "a");
    rt_provider_spec_free(&spec);
    free(ini);
}

/* [objects] naming a symbol without text, or keys that name no symbol:
 * skipped, the provider loads. */
static void objects_without_text_are_skipped(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=a\n"     /* 11 */
                          "CTR_A_009_HELP=h\n"     /* 12 */
                          "[objects]\n"            /* 13 */
                          "CTR_B_009_NAME=\n"      /* 14 */
                          "CTR_A_054_NAME=\n");    /* 15 */
    const struct want want[] = {
        W("t.ini", 14, "CTR_B",
          "[objects] names CTR_B, which has no [text] entries; it is not "
          "installed"),
        W("t.ini", 15, "CTR_A_054_NAME",
          "CTR_A_054_NAME: language 054 is not in [languages]; the object "
          "is listed all the same"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_int_equal(spec.n_symbols, 2);
    assert_true(spec.symbols[0].is_object);
    assert_true(spec.symbols[1].is_object);
    rt_provider_spec_free(&spec);
    free(ini);
}

static void objects_and_names(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_HELP=only help\n"   /* 11 */
                          "CTR_B_009_NAME=only name\n"   /* 12 */
                          "[objects]\n"                  /* 13 */
                          "NOPE_009_NAME=\n"             /* 14 */
                          "CTR_B_009_HELP=\n"            /* 15 */
                          "JUSTASYMBOL=\n");             /* 16 */
    const struct want want[] = {
        W("t.ini", 11, "CTR_A",
          "CTR_A has a HELP but no NAME in language 009"),
        E("t.ini", 11, "CTR_A", "CTR_A has no NAME in any language"),
        W("t.ini", 12, "CTR_B",
          "CTR_B has a NAME but no HELP in language 009"),
        W("t.ini", 14, "NOPE",
          "[objects] names NOPE, which has no [text] entries; it is not "
          "installed"),
        W("t.ini", 15, "CTR_B_009_HELP",
          "[objects] key CTR_B_009_HELP is not SYMBOL_LLL_NAME; skipped, as "
          "lodctr skips it"),
        W("t.ini", 16, "JUSTASYMBOL",
          "[objects] key JUSTASYMBOL is not SYMBOL_LLL_NAME; skipped, as "
          "lodctr skips it"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

static void name_without_help_is_a_warning(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=a\n");
    const struct want want[] = {
        W("t.ini", 11, "CTR_A",
          "CTR_A has a NAME but no HELP in language 009"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_int_equal(spec.n_symbols, 2);
    assert_null(spec.symbols[1].text[0].help);
    rt_provider_spec_free(&spec);
    free(ini);
}

static void control_characters_in_text(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=a\tb\n"
                          "CTR_A_009_HELP=bell\x07 here\n"
                          "CTR_B_009_NAME=next line\xc2\x85 here\n"
                          "CTR_B_009_HELP=del\x7f\n"
                          "CTR_C_009_NAME=\tleading tab skipped, not "
                          "trailing\t\n"
                          "CTR_C_009_HELP=cr\r in the middle\n");
    /* A CR alone ends a line, as Windows' profile reader ends it: the
     * rest is a line of its own, without '='. */
    const struct want want[] = {
        W("t.ini", 11, "CTR_A_009_NAME",
          "CTR_A_009_NAME contains a tab; it is kept, as lodctr keeps it"),
        E("t.ini", 12, "CTR_A_009_HELP",
          "CTR_A_009_HELP contains control character U+0007"),
        E("t.ini", 13, "CTR_B_009_NAME",
          "CTR_B_009_NAME contains control character U+0085"),
        E("t.ini", 14, "CTR_B_009_HELP",
          "CTR_B_009_HELP contains control character U+007F"),
        W("t.ini", 15, "CTR_C_009_NAME",
          "CTR_C_009_NAME ends in a tab; the blanks at its end are "
          "dropped, as the profile API drops them"),
        W("t.ini", 17, NULL,
          "line is not a [section], a name=value pair or a comment; "
          "skipped, as lodctr skips it"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

/* .NET 2.0's corperfmonsymbols.ini has a Greek name ending in a tab:
 * lodctr loads it, the tab gone with the profile API's trimming; a tab
 * inside text stays. */
static void tabs_in_text_load(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=Exceptions \t\r\n"   /* 11 */
                          "CTR_A_009_HELP=a\tb\t\n");          /* 12 */
    const struct want want[] = {
        W("t.ini", 11, "CTR_A_009_NAME",
          "CTR_A_009_NAME ends in a tab; the blanks at its end are "
          "dropped, as the profile API drops them"),
        W("t.ini", 12, "CTR_A_009_HELP",
          "CTR_A_009_HELP contains a tab; it is kept, as lodctr keeps it"),
        W("t.ini", 12, "CTR_A_009_HELP",
          "CTR_A_009_HELP ends in a tab; the blanks at its end are "
          "dropped, as the profile API drops them"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_string_equal(spec.symbols[1].text[0].name, "Exceptions");
    assert_string_equal(spec.symbols[1].text[0].help, "a\tb");
    rt_provider_spec_free(&spec);
    free(ini);
}

static void info_errors(void **state)
{
    (void)state;
    const char *tail = "[languages]\n009=\n[text]\nOBJ_009_NAME=O\n"
                       "OBJ_009_HELP=H\n";
    char *ini = NULL;

    assert_true(asprintf(&ini, "// no info\n[info]\ntrusted=\n%s", tail) > 0);
    const struct want none[] = {
        E("t.ini", 2, "drivername", "[info] has no drivername"),
        E("t.ini", 2, "symbolfile", "[info] has no symbolfile"),
    };
    load_fails(ini, none, N(none));
    free(ini);

    const struct want no_info[] = {
        E("t.ini", 0, "drivername", "[info] has no drivername"),
        E("t.ini", 0, "symbolfile", "[info] has no symbolfile"),
    };
    load_fails(tail, no_info, N(no_info));

    assert_true(asprintf(&ini, "[info]\ndrivername= ; nothing\n"
                         "symbolfile=s.h\n%s", tail) > 0);
    const struct want empty[] = {
        E("t.ini", 2, "drivername", "drivername is empty"),
    };
    load_fails(ini, empty, N(empty));
    free(ini);

    assert_true(asprintf(&ini, "[info]\ndrivername=Sys\\Prov\n"
                         "symbolfile=s.h\n%s", tail) > 0);
    const struct want backslash[] = {
        E("t.ini", 2, "drivername", "drivername 'Sys\\Prov' contains '\\'"),
    };
    load_fails(ini, backslash, N(backslash));
    free(ini);

    assert_true(asprintf(&ini, "[info]\ndrivername=a/b\n"
                         "symbolfile=s.h\n%s", tail) > 0);
    const struct want slash[] = {
        E("t.ini", 2, "drivername", "drivername 'a/b' contains '/'"),
    };
    load_fails(ini, slash, N(slash));
    free(ini);

    assert_true(asprintf(&ini, "[info]\ndrivername=a\x01" "b\n"
                         "symbolfile=s.h\n%s", tail) > 0);
    const struct want control[] = {
        E("t.ini", 2, "drivername",
          "drivername contains control character U+0001"),
    };
    load_fails(ini, control, N(control));
    free(ini);

    assert_true(asprintf(&ini, "[info]\ndrivername=..\n"
                         "symbolfile=s.h\n%s", tail) > 0);
    const struct want dotdot[] = {
        E("t.ini", 2, "drivername",
          "drivername '..' is a path step, not a service name"),
    };
    load_fails(ini, dotdot, N(dotdot));
    free(ini);

    assert_true(asprintf(&ini, "[info]\ndrivername=%0300d\n"
                         "symbolfile=s.h\n%s", 0, tail) > 0);
    const struct want long_name[] = {
        E("t.ini", 2, "drivername", "drivername is 300 characters long, "
          "longer than a registry key name (255)"),
    };
    load_fails(ini, long_name, N(long_name));
    free(ini);
}

static void symbol_file_location(void **state)
{
    (void)state;
    const char *tail = "[languages]\n009=\n[text]\nOBJ_009_NAME=O\n"
                       "OBJ_009_HELP=H\n";
    char *ini = NULL;

    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=nope.h\n%s",
                         tail) > 0);
    char *msg = NULL;
    char *nope = path_of("nope.h");
    assert_true(asprintf(&msg, "symbol file %s does not exist", nope) > 0);
    const struct want missing[] = {E("t.ini", 3, "nope.h", msg)};
    load_fails(ini, missing, N(missing));
    free(ini);
    free(msg);
    free(nope);

    const char *outside[] = {"../s.h", "sub/s.h", "..\\s.h", "C:\\s.h",
                             "/etc/passwd", ".."};
    for (size_t i = 0; i < N(outside); i++) {
        assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=%s\n%s",
                             outside[i], tail) > 0);
        assert_true(asprintf(&msg, "symbol file %s is not in the INI's "
                             "directory", outside[i]) > 0);
        const struct want w[] = {E("t.ini", 3, outside[i], msg)};
        load_fails(ini, w, N(w));
        free(ini);
        free(msg);
    }

    /* A link in the directory that leads out of it (POSIX: links are
     * what a Linux copy of a Windows disk may hold). */
#ifdef RT_OS_POSIX
    char *link = path_of("link.h");
    assert_int_equal(symlink("/etc/hostname", link), 0);
    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=link.h\n%s",
                         tail) > 0);
    const struct want w[] = {
        E("t.ini", 3, "link.h",
          "symbol file link.h is not in the INI's directory"),
    };
    load_fails(ini, w, N(w));
    free(ini);
    unlink(link);
    free(link);

    /* Links to a folder whose name begins with the INI's folder's, and to
     * one beneath it: neither is the INI's directory, and the refusal
     * says so (not a later layer's "a link"). */
    char *other = NULL, *below = path_of("below");
    assert_true(asprintf(&other, "%s-other", dir) > 0);
    assert_int_equal(mkdir(other, 0755), 0);
    assert_int_equal(mkdir(below, 0755), 0);
    const char *targets[2] = {other, below};
    for (int i = 0; i < 2; i++) {
        char *target = NULL;
        assert_true(asprintf(&target, "%s/x.h", targets[i]) > 0);
        FILE *t = fopen(target, "wb");
        assert_non_null(t);
        fputs("#define X 2\n", t);
        fclose(t);
        link = path_of("near.h");
        assert_int_equal(symlink(target, link), 0);
        assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=near.h"
                             "\n%s", tail) > 0);
        const struct want near[] = {
            E("t.ini", 3, "near.h",
              "symbol file near.h is not in the INI's directory"),
        };
        load_fails(ini, near, N(near));
        free(ini);
        unlink(link);
        free(link);
        unlink(target);
        free(target);
    }
    rmdir(other);
    rmdir(below);
    free(other);
    free(below);

    /* A link to nothing. */
    link = path_of("dangling.h");
    assert_int_equal(symlink("no-such-target.h", link), 0);
    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=dangling.h"
                         "\n%s", tail) > 0);
    assert_true(asprintf(&msg, "cannot resolve symbol file %s: No such "
                         "file or directory", link) > 0);
    const struct want dangling[] = {E("t.ini", 3, "dangling.h", msg)};
    load_fails(ini, dangling, N(dangling));
    free(ini);
    free(msg);
    unlink(link);
    free(link);
#endif
    /* A directory where the file should be. */
    char *sub = path_of("sub.h");
    assert_int_equal(rt_os_mkdir(sub), 0);
    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=sub.h\n%s",
                         tail) > 0);
    const struct want subdir[] = {
        E("sub.h", 0, NULL, "cannot read: Is a directory"),
    };
    load_fails(ini, subdir, N(subdir));
    free(ini);
    rt_os_rmdir(sub);
    free(sub);

    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=\n%s",
                         tail) > 0);
    const struct want empty[] = {
        E("t.ini", 3, "symbolfile", "symbolfile is empty"),
    };
    load_fails(ini, empty, N(empty));
    free(ini);

    /* Windows file names ignore case; so does the lookup. */
    assert_true(asprintf(&ini, "[info]\ndrivername=P\nsymbolfile=S.H\n%s",
                         tail) > 0);
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, NULL, 0, &spec), 0);
    char *sp = path_of("s.h");
#ifdef RT_OS_WIN32
    /* There the system finds it under the name given. */
    assert_int_equal(strcasecmp(spec.symbol_path, sp), 0);
#else
    assert_string_equal(spec.symbol_path, sp);
#endif
    free(sp);
    rt_provider_spec_free(&spec);
    free(ini);
}

static void duplicate_keys_name_both_lines(void **state)
{
    (void)state;
    char *ini = with_head("CTR_A_009_NAME=a\n"      /* 11 */
                          "CTR_A_009_HELP=h\n"      /* 12 */
                          "ctr_a_009_name=again\n"  /* 13 */
                          "[info]\n"                /* 14 */
                          "DriverName=Other\n"      /* 15 */
                          "[languages]\n"           /* 16 */
                          "009=again\n");           /* 17 */
    const struct want want[] = {
        E("t.ini", 13, "ctr_a_009_name",
          "duplicate key ctr_a_009_name (first at line 11)"),
        E("t.ini", 15, "DriverName",
          "duplicate key DriverName (first at line 2)"),
        E("t.ini", 17, "009", "duplicate key 009 (first at line 5)"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

/* 009 and 0009 are one language: two keys naming the same text by
 * either are a duplicate, the first text kept (found by fuzz_ini). */
static void same_text_by_three_and_four_digits(void **state)
{
    (void)state;
    char *ini = with_head("OBJ_0009_NAME=again\n");  /* 11 */
    const struct want want[] = {
        E("t.ini", 11, "OBJ_0009_NAME",
          "duplicate key OBJ_0009_NAME (the same text as line 9)"),
    };
    load_fails(ini, want, N(want));
    free(ini);
}

static void grammar_and_section_problems(void **state)
{
    (void)state;
    char *ini = NULL;
    assert_true(asprintf(&ini, "stray=1\n"              /* 1 */
                         "%s"                           /* 2-11 */
                         "NONAME=x\n"                   /* 12 */
                         "=empty\n"                     /* 13 */
                         "CTR_A_009_NAME=a\n"           /* 14 */
                         "CTR_A_009_HELP=h\n"           /* 15 */
                         "[notes]\n"                    /* 16 */
                         "anything=goes\n"              /* 17 */
                         "more=keys\n"                  /* 18 */
                         "[languages]\n"                /* 19 */
                         "019=Russian\n"                /* 20 */
                         "[text]\n"                     /* 21 */
                         "just text\n",                 /* 22 */
                         good_head) > 0);
    const struct want want[] = {
        W("t.ini", 1, "stray",
          "key stray is outside any section and is ignored"),
        W("t.ini", 12, "NONAME",
          "[text] key NONAME is not SYMBOL_LLL_NAME or SYMBOL_LLL_HELP; "
          "skipped, as lodctr skips it"),
        E("t.ini", 13, NULL, "key with an empty name"),
        W("t.ini", 16, NULL,
          "[notes] is not a lodctr section; its keys are ignored"),
        W("t.ini", 20, "019", "language 019 has no [text] entries"),
        W("t.ini", 22, NULL,
          "line is not a [section], a name=value pair or a comment; "
          "skipped, as lodctr skips it"),
    };
    load_fails(ini, want, N(want));
    free(ini);

    const struct want no_text[] = {
        E("t.ini", 0, NULL, "[text] is missing or empty"),
        W("t.ini", 5, "009", "language 009 has no [text] entries"),
    };
    load_fails("[info]\ndrivername=P\nsymbolfile=s.h\n[languages]\n009=\n"
               "[text]\n", no_text, N(no_text));
}

static void gap_in_offsets_is_a_warning(void **state)
{
    (void)state;
    char *ini = with_head("GAP_009_NAME=g\nGAP_009_HELP=h\n");
    const struct want want[] = {
        W("s.h", 11, "GAP", "offsets are not consecutive even numbers from "
                            "0: GAP has 10, expected 2"),
    };
    struct rt_provider_spec spec;
    assert_int_equal(load_expect(ini, want, N(want), &spec), 0);
    assert_int_equal(spec.symbols[1].offset, 10);
    rt_provider_spec_free(&spec);
    free(ini);
}

static void all_errors_in_one_pass(void **state)
{
    (void)state;
    const char *ini = "[info]\n"                 /* 1 */
                      "drivername=\n"            /* 2 */
                      "symbolfile=s.h\n"         /* 3 */
                      "[languages]\n"            /* 4 */
                      "009=\n"                   /* 5 */
                      "[text]\n"                 /* 6 */
                      "NEG_009_NAME=n\tx\n"      /* 7 */
                      "NEG_009_HELP=h\n"         /* 8 */
                      "NEG_009_HELP=h\n"         /* 9 */
                      "OBJ_019_NAME=o\n";        /* 10 */
    const struct want want[] = {
        E("s.h", 7, "NEG", "offset of NEG is negative (-2)"),
        E("t.ini", 2, "drivername", "drivername is empty"),
        W("t.ini", 7, "NEG_009_NAME",
          "NEG_009_NAME contains a tab; it is kept, as lodctr keeps it"),
        E("t.ini", 9, "NEG_009_HELP",
          "duplicate key NEG_009_HELP (first at line 8)"),
        W("t.ini", 10, "OBJ_019_NAME",
          "OBJ_019_NAME: language 019 is not in [languages]; skipped, as "
          "lodctr skips it"),
    };
    load_fails(ini, want, N(want));
}

static void unreadable_ini(void **state)
{
    (void)state;
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    char *p = path_of("absent.ini");
    assert_int_equal(rt_provider_spec_load(p, NULL, &spec, &d), -2);
    assert_int_equal(d.n, 1);
    assert_string_equal(d.v[0].message,
                        "cannot open: No such file or directory");
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    free(p);
}


/* ---- real producers' files ---- */

static void write_bytes(const char *name, const void *data, size_t len)
{
    char *p = path_of(name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
    free(p);
}

/* Loads a file as it is, where it is; returns the number of warnings. */
static size_t load_real(const char *path, struct rt_provider_spec *spec)
{
    struct rt_diags d = {0};
    int r = rt_provider_spec_load(path, NULL, spec, &d);
    for (size_t i = 0; r && i < d.n; i++) {
        char *m = rt_diag_format(&d.v[i]);
        print_message("  got: %s\n", m);
        free(m);
    }
    assert_int_equal(r, 0);
    assert_int_equal(d.errors, 0);
    size_t w = d.warnings;
    rt_diags_free(&d);
    return w;
}

#define REAL "../shared/research-real/providers/"
/* The symbol file's path as found: on Linux the file's own spelling
 * (GenCtrnm.h, found for the INI's genctrnm.h by a case-blind search),
 * on Windows the INI's (its file system finds GenCtrnm.h by that name:
 * both name the same file). */
#ifdef _WIN32
#define assert_names_file(got, want) assert_int_equal(_stricmp(got, want), 0)
#else
#define assert_names_file(got, want) assert_string_equal(got, want)
#endif


static void sdk_sample_perfgen(void **state)
{
    (void)state;
    /* Ends with 0x1A; symbolfile=genctrnm.h names GenCtrnm.h. */
    struct rt_provider_spec spec;
    assert_int_equal(load_real(REAL "perfgen/Perfgen.Ini", &spec), 0);
    assert_string_equal(spec.drivername, "PERFGEN");
    assert_string_equal(spec.symbolfile, "genctrnm.h");
    assert_names_file(spec.symbol_path, REAL "perfgen/GenCtrnm.h");
    assert_int_equal(spec.n_languages, 1);
    assert_string_equal(spec.languages[0].id, "009");
    static const char *const sym[] = {"SIGGEN_OBJ", "SINE_WAVE",
                                      "TRIANGLE_WAVE", "SQUARE_WAVE",
                                      "CONSTANT_VALUE"};
    assert_int_equal(spec.n_symbols, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_string_equal(spec.symbols[i].symbol, sym[i]);
        assert_int_equal(spec.symbols[i].offset, (long)(2 * i));
        assert_int_equal(spec.symbols[i].define_line, 16 + i);
        assert_int_equal(spec.symbols[i].is_object, i == 0);
    }
    assert_int_equal(spec.symbols[0].object_line, 9);
    assert_string_equal(spec.symbols[0].text[0].name, "Signal Generator");
    assert_string_equal(spec.symbols[2].text[0].name, "Triangle Wave");
    /* The last line, right before the 0x1A. */
    assert_string_equal(spec.symbols[4].text[0].help,
                        "Displays a constant non-zero value that does not "
                        "change from sample to sample.");
    assert_int_equal(spec.symbols[4].text[0].help_line, 21);
    rt_provider_spec_free(&spec);
}

static void sdk_sample_appmem(void **state)
{
    (void)state;
    /* No [objects]; four names end in spaces, which go as the profile API
     * drops them, with a warning each. */
    struct rt_provider_spec spec;
    assert_int_equal(load_real(REAL "appmem/AppMem.Ini", &spec), 4);
    assert_string_equal(spec.drivername, "APPMEM");
    assert_names_file(spec.symbol_path, REAL "appmem/MemCtrnm.h");
    assert_int_equal(spec.n_symbols, 8);
    for (size_t i = 0; i < 8; i++) {
        assert_false(spec.symbols[i].is_object);
        assert_int_equal(spec.symbols[i].offset, (long)(2 * i));
    }
    assert_string_equal(spec.symbols[0].symbol, "APPMEMOBJ");
    assert_string_equal(spec.symbols[0].text[0].name, "Application Memory");
    assert_string_equal(spec.symbols[3].symbol, "APPALLOCSSEC");
    assert_string_equal(spec.symbols[3].text[0].name, "Memory Allocs/Sec");
    assert_string_equal(spec.symbols[4].text[0].name, "Memory Reallocs");
    assert_string_equal(spec.symbols[5].text[0].name, "Memory Reallocs/Sec");
    assert_string_equal(spec.symbols[6].text[0].name, "Memory Frees");
    assert_string_equal(spec.symbols[7].symbol, "APPFREESSEC");
    assert_int_equal(spec.symbols[7].define_line, 23);
    assert_string_equal(spec.symbols[7].text[0].name, "Memory Frees/Sec");
    rt_provider_spec_free(&spec);
}

static void dotnet_current_language(void **state)
{
    (void)state;
    /* PerformanceCounterCategory.Create's layout (docs/design.md, "The
     * lodctr input"), with a symbol file named .tmp whose values end in
     * ';'. */
    write_file("tmp1A2B.tmp", "#define OBJECT_1 0;\r\n"
                              "#define DEVICE_COUNTER_1 2;\r\n\r\n");
    const char *ini =
        "\r\n"                                                  /* 1 */
        "[info]\r\n"                                            /* 2 */
        "drivername=Orders\r\n"                                 /* 3 */
        "symbolfile=tmp1A2B.tmp\r\n"                            /* 4 */
        "\r\n"                                                  /* 5 */
        "[languages]\r\n"                                       /* 6 */
        "009=language009\r\n"                                   /* 7 */
        "CurrentLanguage=languageCurrentLanguage\r\n"           /* 8 */
        "\r\n"                                                  /* 9 */
        "[objects]\r\n"                                         /* 10 */
        "OBJECT_1_009_NAME=Orders\r\n"                          /* 11 */
        "OBJECT_1_CurrentLanguage_NAME=Orders\r\n"              /* 12 */
        "\r\n"                                                  /* 13 */
        "[text]\r\n"                                            /* 14 */
        "OBJECT_1_009_NAME=Orders\r\n"                          /* 15 */
        "OBJECT_1_009_HELP=Order counters.\r\n"                 /* 16 */
        "\r\n"                                                  /* 17 */
        "DEVICE_COUNTER_1_009_NAME=Orders/sec\r\n"              /* 18 */
        "DEVICE_COUNTER_1_009_HELP=Orders per second.\r\n"      /* 19 */
        "OBJECT_1_CurrentLanguage_NAME=Commandes\r\n"           /* 20 */
        "OBJECT_1_CurrentLanguage_HELP=Compteurs.\r\n"          /* 21 */
        "\r\n"                                                  /* 22 */
        "DEVICE_COUNTER_1_currentlanguage_NAME=Commandes/s\r\n" /* 23 */
        "DEVICE_COUNTER_1_CURRENTLANGUAGE_HELP=Par seconde.\r\n"; /* 24 */
    /* As .NET writes it: UTF-16LE with byte-order mark. */
    uint8_t *u16;
    size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(ini, strlen(ini), &u16, &n, &off), 0);
    uint8_t *file = malloc(n + 2);
    file[0] = 0xFF;
    file[1] = 0xFE;
    memcpy(file + 2, u16, n);
    write_bytes("t.ini", file, n + 2);
    char *path = path_of("t.ini");
    struct rt_provider_spec spec;
    assert_int_equal(load_real(path, &spec), 0);
    assert_string_equal(spec.symbolfile, "tmp1A2B.tmp");
    assert_int_equal(spec.n_languages, 2);
    assert_string_equal(spec.languages[0].id, "009");
    assert_string_equal(spec.languages[1].id, "CurrentLanguage");
    assert_int_equal(spec.languages[1].line, 8);
    assert_int_equal(rt_provider_spec_language(&spec, "currentlanguage"), 1);
    assert_int_equal(rt_provider_spec_language(&spec, "0009"), 0);
    assert_int_equal(rt_provider_spec_language(&spec, "00A"), -1);
    assert_int_equal(spec.n_symbols, 2);
    assert_string_equal(spec.symbols[0].symbol, "OBJECT_1");
    assert_true(spec.symbols[0].is_object);
    assert_int_equal(spec.symbols[1].offset, 2);
    assert_string_equal(spec.symbols[0].text[1].name, "Commandes");
    assert_int_equal(spec.symbols[0].text[1].name_line, 20);
    assert_string_equal(spec.symbols[1].text[1].name, "Commandes/s");
    assert_string_equal(spec.symbols[1].text[1].help, "Par seconde.");
    assert_string_equal(spec.symbols[1].text[0].help, "Orders per second.");
    rt_provider_spec_free(&spec);

    /* The same file without its mark, and its symbol file in UTF-16LE
     * without mark ending in 1A 00: the same provider. */
    write_bytes("t.ini", u16, n);
    const char *sym = "#define OBJECT_1 0;\r\n#define DEVICE_COUNTER_1 2;"
                      "\r\n\x1a";
    uint8_t *s16;
    size_t sn;
    assert_int_equal(rt_utf8_to_utf16le(sym, strlen(sym), &s16, &sn, &off),
                     0);
    write_bytes("tmp1A2B.tmp", s16, sn);
    assert_int_equal(load_real(path, &spec), 0);
    assert_string_equal(spec.languages[1].id, "CurrentLanguage");
    assert_string_equal(spec.symbols[1].text[1].name, "Commandes/s");
    rt_provider_spec_free(&spec);

    /* Only that spelling: a near miss is not a language. */
    const struct want want[] = {
        E("t.ini", 6, "CurrentLang",
          "language id 'CurrentLang' is not 3 hex digits"),
        W("t.ini", 11, "OBJ_CurrentLang_NAME",
          "language id 'CurrentLang' in OBJ_CurrentLang_NAME is not 3 hex "
          "digits; skipped, as lodctr skips it"),
    };
    load_fails("[info]\ndrivername=X\nsymbolfile=s.h\n[languages]\n"
               "009=\nCurrentLang=\n[text]\nOBJ_009_NAME=O\n"
               "OBJ_009_HELP=H\n\n"
               "OBJ_CurrentLang_NAME=O\n",
               want, N(want));
    free(path);
    free(s16);
    free(file);
    free(u16);
}

/* An INF copy (docs/design.md, "Rebuilding: lodctr /R"): the INI in
 * INF\<service>\<LLLL>, its symbol file one level up. Loaded with that
 * directory named, it is valid; on its own, the symbol file is not beside
 * it. */
static void symbol_file_in_another_directory(void **state)
{
    (void)state;
    char *sub = path_of("inf");
    char *lang = path_of("inf/0009");
    assert_int_equal(rt_os_mkdirs(lang), 0);
    write_file("inf/S.H", symbols_h);
    write_file("inf/0009/p.ini", good_head);
    char *ini = path_of("inf/0009/p.ini");
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    assert_int_equal(rt_provider_spec_load_in(ini, sub, NULL, &spec, &d), 0);
    assert_string_equal(spec.drivername, "Prov");
    assert_int_equal(spec.n_symbols, 1);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    assert_int_equal(rt_provider_spec_load(ini, NULL, &spec, &d), -1);
    assert_true(d.errors > 0);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    free(ini);
    free(lang);
    free(sub);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(valid_provider_loads),
        cmocka_unit_test(offsets_negative_odd_duplicate_undefined),
        cmocka_unit_test(undefined_symbol_is_skipped),
        cmocka_unit_test(language_errors),
        cmocka_unit_test(unlisted_language_keys_are_skipped),
        cmocka_unit_test(objects_without_text_are_skipped),
        cmocka_unit_test(objects_and_names),
        cmocka_unit_test(tabs_in_text_load),
        cmocka_unit_test(name_without_help_is_a_warning),
        cmocka_unit_test(control_characters_in_text),
        cmocka_unit_test(info_errors),
        cmocka_unit_test(symbol_file_location),
        cmocka_unit_test(duplicate_keys_name_both_lines),
        cmocka_unit_test(same_text_by_three_and_four_digits),
        cmocka_unit_test(grammar_and_section_problems),
        cmocka_unit_test(gap_in_offsets_is_a_warning),
        cmocka_unit_test(all_errors_in_one_pass),
        cmocka_unit_test(unreadable_ini),
        cmocka_unit_test(sdk_sample_perfgen),
        cmocka_unit_test(sdk_sample_appmem),
        cmocka_unit_test(dotnet_current_language),
        cmocka_unit_test(symbol_file_in_another_directory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
