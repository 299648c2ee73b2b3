/* INI reader: decoding of every accepted encoding and the inih-driven
 * parse that must neither truncate nor alter values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/diag.h"
#include "provider/ini_reader.h"
#include "model/utf16.h"
#include "provider/text_encoding.h"

struct got {
    size_t n;
    char *section[64], *name[64], *value[64];
    unsigned line[64], section_line[64];
    char trimmed[64];   /* 't' a tab among the blanks dropped, 's' spaces */
    bool unquoted[64];
};

static void collect(void *user, const struct rt_ini_entry *e)
{
    struct got *g = user;
    assert_true(g->n < 64);
    g->section[g->n] = strdup(e->section);
    g->name[g->n] = strdup(e->name);
    g->value[g->n] = strdup(e->value);
    g->line[g->n] = e->line;
    g->section_line[g->n] = e->section_line;
    g->trimmed[g->n] = e->trimmed_tab ? 't' : e->trimmed_space ? 's' : 0;
    g->unquoted[g->n] = e->unquoted;
    g->n++;
}

static void got_free(struct got *g)
{
    for (size_t i = 0; i < g->n; i++) {
        free(g->section[i]);
        free(g->name[i]);
        free(g->value[i]);
    }
}

/* Decodes and parses SRC (UTF-8, no BOM); returns rt_ini_parse's result. */
static int parse_string(const char *src, struct got *g, struct rt_diags *d)
{
    struct rt_ini_text t;
    assert_int_equal(rt_ini_decode("t.ini", src, strlen(src), NULL, &t, d),
                     0);
    int r = rt_ini_parse(&t, collect, g, d);
    rt_ini_text_free(&t);
    return r;
}

static void assert_diag(const struct rt_diags *d, size_t i, unsigned line,
                        const char *msg)
{
    assert_true(i < d->n);
    assert_int_equal(d->v[i].severity, RT_ERROR);
    assert_string_equal(d->v[i].file, "t.ini");
    assert_int_equal(d->v[i].line, line);
    assert_string_equal(d->v[i].message, msg);
}

static void help_of_8k_round_trips(void **state)
{
    (void)state;
    /* 8 KB of help text with ';', '=', ':' and '//' in it, far beyond the
     * 200-byte lines of Debian's inih. */
    size_t n = 8192;
    char *help = malloc(n + 1);
    const char *piece = "Bytes; sent = total: // not a comment ";
    for (size_t i = 0; i < n; i++)
        help[i] = piece[i % strlen(piece)];
    help[n - 1] = '.';
    help[n] = '\0';
    char *src = NULL;
    assert_true(asprintf(&src, "[text]\nX_009_HELP=%s\nX_009_NAME=X\n",
                         help) > 0);
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string(src, &g, &d), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.name[0], "X_009_HELP");
    assert_int_equal(strlen(g.value[0]), n);
    assert_memory_equal(g.value[0], help, n);
    assert_string_equal(g.value[1], "X");
    assert_int_equal(g.line[1], 3);
    got_free(&g);
    free(src);
    free(help);
}

static void semicolons_are_text(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[text]\nA=one ; two;three ;\n"
                                  "B=;leading\n", &g, &d), 0);
    assert_int_equal(g.n, 2);
    assert_string_equal(g.value[0], "one ; two;three ;");
    assert_string_equal(g.value[1], ";leading");
    got_free(&g);
}

static void comment_lines_are_skipped(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("// Microsoft's sample comments\n"
                                  "[text]\n; semicolon\n# hash\n"
                                  "   // indented\nA=1\n// A=2\n", &g, &d),
                     0);
    assert_int_equal(d.n, 0);
    assert_int_equal(g.n, 1);
    assert_string_equal(g.name[0], "A");
    assert_int_equal(g.line[0], 6);
    got_free(&g);
}

static void indented_line_is_not_a_continuation(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[text]\nA=first\n    B=second\n"
                                  "\t C = third \t\n", &g, &d), 0);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.value[0], "first");
    assert_string_equal(g.name[1], "B");
    assert_string_equal(g.value[1], "second");
    assert_string_equal(g.name[2], "C");
    /* Blanks go at both ends, as the profile API trims them (Wine's
     * PROFILE_Load), and the entry says so. */
    assert_string_equal(g.value[2], "third");
    assert_string_equal(g.value[1], "second");
    got_free(&g);
}

static void sections_and_lines(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("top=1\r\n[info]\r\ndrivername=X\r\n\r\n"
                                  "[text]   ; trailing comment\r\n"
                                  "K=v=w\r\n", &g, &d), 0);
    assert_int_equal(g.n, 3);
    assert_string_equal(g.section[0], "");
    assert_int_equal(g.section_line[0], 0);
    assert_string_equal(g.section[1], "info");
    assert_int_equal(g.section_line[1], 2);
    assert_int_equal(g.line[1], 3);
    assert_string_equal(g.section[2], "text");
    assert_int_equal(g.section_line[2], 5);
    assert_string_equal(g.value[2], "v=w");   /* CR gone, '=' kept */
    got_free(&g);
}

/* The value as GetPrivateProfileString returns it: blanks (space, tab,
 * CR, VT, FF, 0x1A) dropped at both ends, and the entry tells which
 * kind went, for the loader's warning. A line without '=' alone is no
 * error. */
static void trailing_blanks_trimmed_as_profile_api(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[text]\nA=name\t\nB=\x0b name  \x0c\n"
                                  "C=in\tside\nD=plain\nno equals\n",
                                  &g, &d), 0);
    assert_int_equal(d.errors, 0);
    assert_int_equal(d.warnings, 1);
    assert_int_equal(g.n, 4);
    assert_string_equal(g.value[0], "name");
    assert_int_equal(g.trimmed[0], 't');
    assert_string_equal(g.value[1], "name");
    assert_int_equal(g.trimmed[1], 's');
    assert_string_equal(g.value[2], "in\tside");
    assert_int_equal(g.trimmed[2], 0);
    assert_int_equal(g.trimmed[3], 0);
    got_free(&g);
    rt_diags_free(&d);
}

/* GetPrivateProfileString drops one pair of enclosing quotes, " or ',
 * from the trimmed value (Wine's PROFILE_CopyEntry with strip_quote):
 * only when the value has two characters or more and ends with the
 * quote it starts with; blanks inside the quotes stay. */
static void enclosing_quotes_dropped_as_profile_api(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[text]\nA=\"text\"\nB='text'\n"
                                  "C=\"mixed'\nD=\"\nE=\"\"\n"
                                  "F=  \" in \"  \t\nG=\"a\"b\"\n"
                                  "H=\"\"x\"\"\nI=say \"x\"\n",
                                  &g, &d), 0);
    assert_int_equal(d.errors + d.warnings, 0);
    assert_int_equal(g.n, 9);
    static const char *const want[] = {"text", "text", "\"mixed'", "\"", "",
                                       " in ", "a\"b", "\"x\"", "say \"x\""};
    static const bool unquoted[] = {1, 1, 0, 0, 1, 1, 1, 1, 0};
    for (size_t i = 0; i < 9; i++) {
        assert_string_equal(g.value[i], want[i]);
        assert_int_equal(g.unquoted[i], unquoted[i]);
    }
    assert_int_equal(g.trimmed[5], 't');
    got_free(&g);
    rt_diags_free(&d);
}

static void bad_lines_all_reported(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[text]\nno equals sign\nA:B=1\n"
                                  "C ;D=2\n[open\nE=3\nF=4\n", &g, &d), -1);
    assert_int_equal(d.n, 4);
    /* A line without '=' is only skipped, as the profile API makes it a
     * key without a value that lodctr never reads. */
    assert_int_equal(d.v[0].severity, RT_WARNING);
    assert_int_equal(d.v[0].line, 2);
    assert_string_equal(d.v[0].message,
                        "line is not a [section], a name=value pair or a "
                        "comment; skipped, as lodctr skips it");
    assert_int_equal(d.errors, 3);
    assert_diag(&d, 1, 3, "'A:B' is not a valid key name");
    assert_diag(&d, 2, 4, "'C ;D' is not a valid key name");
    assert_diag(&d, 3, 5, "section header has no closing ']'");
    /* Keys under the broken header belong to no section. */
    assert_int_equal(g.n, 2);
    assert_string_equal(g.section[0], "");
    assert_int_equal(g.section_line[0], 5);
    assert_string_equal(g.name[1], "F");
    got_free(&g);
    rt_diags_free(&d);
}

static void long_key_names_and_headers(void **state)
{
    (void)state;
    /* Debian's inih reads lines of 200 bytes: a key name of 197 bytes
     * fits with "=\n", one of 198 does not. */
    char ok[198], bad[199], sec[200];
    memset(ok, 'K', 197);
    ok[197] = '\0';
    memset(bad, 'L', 198);
    bad[198] = '\0';
    memset(sec, 's', 199);
    sec[0] = '[';
    sec[198] = ']';
    sec[199] = '\0';
    char *src = NULL;
    assert_true(asprintf(&src, "[text]\n%s=fits\n%s=too long\n%s\nM=1\n",
                         ok, bad, sec) > 0);
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string(src, &g, &d), -1);
    assert_int_equal(d.n, 2);
    assert_diag(&d, 0, 3, "key name is longer than 197 bytes");
    assert_diag(&d, 1, 4, "section header is longer than 198 bytes");
    assert_int_equal(g.n, 2);
    assert_string_equal(g.name[0], ok);
    assert_string_equal(g.value[0], "fits");
    assert_string_equal(g.section[1], "");
    got_free(&g);
    rt_diags_free(&d);
    free(src);
}

/* ---- encodings ---- */

static void decode_ok(const void *data, size_t len, const char *cp,
                      struct rt_ini_text *t)
{
    struct rt_diags d = {0};
    int r = rt_ini_decode("t.ini", data, len, cp, t, &d);
    if (r)
        fprintf(stderr, "%s\n", d.n ? d.v[0].message : "?");
    assert_int_equal(r, 0);
    assert_int_equal(d.n, 0);
}

static const char *sample =
    "[text]\r\nX_019_NAME=\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82\xd1\x8b\r\n"
    "X_404_NAME=\xe4\xbd\x8d\xe5\x85\x83\xe7\xb5\x84 \xf0\x9f\x98\x80\r\n";

static void utf16le_with_bom(void **state)
{
    (void)state;
    uint8_t *u16;
    size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(sample, strlen(sample), &u16, &n,
                                        &off), 0);
    uint8_t *file = malloc(n + 2);
    file[0] = 0xFF;
    file[1] = 0xFE;
    memcpy(file + 2, u16, n);
    struct rt_ini_text t;
    decode_ok(file, n + 2, "1252", &t);     /* the mark wins */
    assert_int_equal(t.n_lines, 3);
    assert_string_equal(t.lines[0], "[text]");
    assert_string_equal(t.lines[1],
                        "X_019_NAME=\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82\xd1\x8b");
    assert_string_equal(t.lines[2], "X_404_NAME=\xe4\xbd\x8d\xe5\x85\x83"
                                    "\xe7\xb5\x84 \xf0\x9f\x98\x80");
    rt_ini_text_free(&t);
    free(file);
    free(u16);
}

static void utf8_with_and_without_bom(void **state)
{
    (void)state;
    char *with = NULL;
    assert_true(asprintf(&with, "\xef\xbb\xbf%s", sample) > 0);
    struct rt_ini_text a, b;
    decode_ok(with, strlen(with), NULL, &a);
    decode_ok(sample, strlen(sample), NULL, &b);
    assert_int_equal(a.n_lines, 3);
    assert_int_equal(b.n_lines, 3);
    for (size_t i = 0; i < 3; i++)
        assert_string_equal(a.lines[i], b.lines[i]);
    assert_string_equal(a.lines[0], "[text]");
    rt_ini_text_free(&a);
    rt_ini_text_free(&b);
    free(with);
}

static void ansi_with_code_page(void **state)
{
    (void)state;
    /* "Байты" in windows-1251, "café" in windows-1252. */
    const char cp1251[] = "A=\xc1\xe0\xe9\xf2\xfb\n";
    const char cp1252[] = "B=caf\xe9\n";
    struct rt_ini_text t;
    decode_ok(cp1251, strlen(cp1251), "1251", &t);
    assert_string_equal(t.lines[0],
                        "A=\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82\xd1\x8b");
    rt_ini_text_free(&t);
    decode_ok(cp1251, strlen(cp1251), "windows-1251", &t);
    assert_string_equal(t.lines[0],
                        "A=\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82\xd1\x8b");
    rt_ini_text_free(&t);
    decode_ok(cp1252, strlen(cp1252), "CP1252", &t);
    assert_string_equal(t.lines[0], "B=caf\xc3\xa9");
    rt_ini_text_free(&t);
}

/* A string literal and its length, NULs included. */
#define LIT(s) s, sizeof(s) - 1

static void decode_error(const void *data, size_t len, const char *cp,
                         unsigned line, const char *msg)
{
    struct rt_diags d = {0};
    struct rt_ini_text t;
    assert_int_equal(rt_ini_decode("t.ini", data, len, cp, &t, &d), -1);
    assert_int_equal(d.n, 1);
    assert_diag(&d, 0, line, msg);
    assert_null(t.lines);
    rt_ini_text_free(&t);
    rt_diags_free(&d);
}

static void encoding_errors(void **state)
{
    (void)state;
    decode_error(LIT("[text]\nA=caf\xe9\n"), NULL, 2,
                 "invalid UTF-8 at byte 12; for an ANSI file, give its "
                 "code page");
    decode_error(LIT("\xef\xbb\xbf" "A=1\nB=\xc0\xaf\n"), NULL, 2,
                 "invalid UTF-8 at byte 9");
    decode_error(LIT("\xfe\xff\0["), NULL, 0,
                 "file is UTF-16 big-endian; save it as UTF-16LE or UTF-8");
    decode_error(LIT("\xff\xfe" "A\0\n\0B"), NULL, 2,
                 "UTF-16LE file has an odd number of bytes");
    decode_error(LIT("\xff\xfe" "A\0\n\0\x00\xd8" "B\0"), NULL, 2,
                 "invalid UTF-16LE: unpaired surrogate at byte 6");
    decode_error(LIT("\xff\xfe" "A\0\n\0\0\0"), NULL, 2,
                 "NUL character in the file");
    decode_error(LIT("A=1\nB=\0\n"), NULL, 2, "NUL character in the file");
    decode_error(LIT("A=1\n"), "NOPE-42", 0, "unknown code page 'NOPE-42'");
#ifndef _WIN32
    /* iconv takes code pages by name; Windows only by number. */
    decode_error(LIT("A=1\nB=\xe9\n"), "ASCII", 2,
                 "byte 0xE9 (offset 6) is not valid in code page ASCII");
#endif
    decode_error(LIT("A=1\nB=\x81\x7f\n"), "932", 2,
                 "byte 0x81 (offset 6) is not valid in code page 932");
    decode_error(LIT("A=1\nB=\x82"), "932", 2,
                 "file ends inside a multibyte character of code page 932");
}

static void empty_file_and_missing_file(void **state)
{
    (void)state;
    struct rt_ini_text t;
    decode_ok("", 0, NULL, &t);
    assert_int_equal(t.n_lines, 0);
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(rt_ini_parse(&t, collect, &g, &d), 0);
    assert_int_equal(g.n, 0);
    rt_ini_text_free(&t);

    assert_int_equal(rt_ini_load("tests/no/such.ini", NULL, &t, &d), -2);
    assert_int_equal(rt_ini_load("tests", NULL, &t, &d), -2);
    /* The size limit is checked before any byte is looked at. */
    assert_int_equal(rt_ini_decode("t.ini", "", (16u << 20) + 1, NULL, &t,
                                   &d), -1);
    assert_int_equal(d.n, 3);
    assert_string_equal(d.v[0].message,
                        "cannot open: No such file or directory");
    assert_string_equal(d.v[1].file, "tests");
    assert_string_equal(d.v[1].message, "cannot read: Is a directory");
    assert_string_equal(d.v[2].message, "file is larger than 16 MiB");
    rt_diags_free(&d);
}


/* ---- UTF-16LE without byte-order mark, DOS end-of-file ---- */

/* SRC (UTF-8) as UTF-16LE without mark; *N its length. */
static uint8_t *utf16_of(const char *src, size_t *n)
{
    uint8_t *u16;
    size_t off;
    assert_int_equal(rt_utf8_to_utf16le(src, strlen(src), &u16, n, &off), 0);
    return u16;
}

static void utf16le_without_bom(void **state)
{
    (void)state;
    /* ASCII first lines, as every real file has; Cyrillic and CJK after
     * them change nothing. */
    char *src = NULL;
    assert_true(asprintf(&src, "\r\n[info]\r\ndrivername=X\r\n%s", sample)
                > 0);
    size_t n;
    uint8_t *u16 = utf16_of(src, &n);
    assert_int_equal(rt_text_sniff(u16, n), RT_TEXT_UTF16LE);
    struct rt_ini_text t;
    decode_ok(u16, n, "1251", &t);      /* no code page applies to it */
    assert_int_equal(t.n_lines, 6);
    assert_string_equal(t.lines[0], "");
    assert_string_equal(t.lines[1], "[info]");
    assert_string_equal(t.lines[4],
                        "X_019_NAME=\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82\xd1\x8b");
    assert_string_equal(t.lines[5], "X_404_NAME=\xe4\xbd\x8d\xe5\x85\x83"
                                    "\xe7\xb5\x84 \xf0\x9f\x98\x80");
    rt_ini_text_free(&t);
    /* One line without line end is enough. */
    decode_ok(LIT("[\0t\0e\0x\0t\0]\0"), NULL, &t);
    assert_int_equal(t.n_lines, 1);
    assert_string_equal(t.lines[0], "[text]");
    rt_ini_text_free(&t);
    free(u16);
    free(src);
}

static void sniffing_edge_cases(void **state)
{
    (void)state;
    /* Short files: nothing, one byte, one code unit. */
    assert_int_equal(rt_text_sniff("", 0), RT_TEXT_8BIT);
    assert_int_equal(rt_text_sniff("\0", 1), RT_TEXT_8BIT);
    assert_int_equal(rt_text_sniff("A", 1), RT_TEXT_8BIT);
    assert_int_equal(rt_text_sniff("A\0", 2), RT_TEXT_UTF16LE);
    assert_int_equal(rt_text_sniff("\0A", 2), RT_TEXT_UTF16BE);
    /* NULs alone are text in neither reading: the 8-bit one says so. */
    assert_int_equal(rt_text_sniff("\0\0", 2), RT_TEXT_8BIT);
    assert_int_equal(rt_text_sniff("AB", 2), RT_TEXT_8BIT);
    /* Odd length: the NULs decide; the lone byte is the decoder's. */
    assert_int_equal(rt_text_sniff("[\0i\0]", 5), RT_TEXT_UTF16LE);
    /* High bytes that are not NUL (Cyrillic, 04) among ASCII ones that
     * are: either reading could be meant. */
    assert_int_equal(rt_text_sniff("[\0\x21\x04\x22\x04]\0", 8),
                     RT_TEXT_AMBIGUOUS);
    /* ... but a stray NUL in 8-bit text leaves it 8-bit text. */
    assert_int_equal(rt_text_sniff("A=1\nB=\0\n", 8), RT_TEXT_8BIT);
    /* Only the first lines count: four line ends, then anything. */
    assert_int_equal(rt_text_sniff(LIT("a\0\n\0b\0\n\0c\0\n\0d\0\n\0"
                                       "\x21\x04\x22\x04")),
                     RT_TEXT_UTF16LE);
    assert_int_equal(rt_text_sniff(LIT("a=1\nb=2\nc=3\nd=4\ne=\0\0\0\0")),
                     RT_TEXT_8BIT);
    /* ... and at most RT_TEXT_SNIFF_UNITS code units of them. */
    size_t n = 2 * RT_TEXT_SNIFF_UNITS + 4;
    uint8_t *big = calloc(n, 1);
    for (size_t i = 0; i < 2 * RT_TEXT_SNIFF_UNITS; i += 2)
        big[i] = 'x';
    big[n - 4] = 0x21;
    big[n - 3] = 0x04;
    assert_int_equal(rt_text_sniff(big, n), RT_TEXT_UTF16LE);
    big[2] = 0x21;
    big[3] = 0x04;
    assert_int_equal(rt_text_sniff(big, n), RT_TEXT_AMBIGUOUS);
    free(big);

    /* What the decoder makes of them. */
    decode_error(LIT("[\0i\0]"), NULL, 1,
                 "UTF-16LE file has an odd number of bytes");
    decode_error(LIT("[\0\x21\x04\x22\x04]\0"), NULL, 1,
                 RT_TEXT_AMBIGUOUS_MSG);
    decode_error(LIT("[\0\x21\x04\x22\x04]\0"), "1251", 1,
                 RT_TEXT_AMBIGUOUS_MSG);
    decode_error(LIT("\0[\0t\0]"), NULL, 0,
                 "file is UTF-16 big-endian; save it as UTF-16LE or UTF-8");
    decode_error(LIT("a\0\n\0b\0\n\0c\0\n\0d\0\n\0\x00\xd8" "e\0"), NULL, 5,
                 "invalid UTF-16LE: unpaired surrogate at byte 16");
    decode_error(LIT("a\0\n\0b\0\n\0c\0\n\0d\0\n\0\0\0"), NULL, 5,
                 "NUL character in the file");
}

/* Decodes LEN bytes and checks the lines against the N in WANT. */
static void decode_lines(const void *data, size_t len, const char *cp,
                         const char *const *want, size_t n)
{
    struct rt_ini_text t;
    decode_ok(data, len, cp, &t);
    assert_int_equal(t.n_lines, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t.lines[i], want[i]);
    rt_ini_text_free(&t);
}

static void dos_end_of_file(void **state)
{
    (void)state;
    static const char *const a1[] = {"A=1"};
    static const char *const cafe[] = {"A=caf\xc3\xa9"};
    /* 0x1A at the end, then nothing or line ends: the file ends there. */
    decode_lines(LIT("A=1\n\x1a"), NULL, a1, 1);
    decode_lines(LIT("A=1\r\n\x1a\r\n"), NULL, a1, 1);
    decode_lines(LIT("A=1\x1a"), NULL, a1, 1);
    decode_lines(LIT("\x1a"), NULL, NULL, 0);
    decode_lines(LIT("\xef\xbb\xbf" "A=1\r\n\x1a"), NULL, a1, 1);
    decode_lines(LIT("A=caf\xe9\r\n\x1a"), "1252", cafe, 1);
    decode_lines(LIT("\xff\xfe" "A\0=\0" "1\0\r\0\n\0\x1a\0"), NULL, a1, 1);
    decode_lines(LIT("\xff\xfe" "A\0=\0" "1\0\x1a\0\r\0\n\0"), NULL, a1, 1);
    decode_lines(LIT("A\0=\0" "1\0\n\0\x1a\0"), NULL, a1, 1);
    /* Anywhere else it is a character of the text (and then a control
     * character the provider loader refuses), and only one goes. */
    static const char *const mid[] = {"A=\x1a", "B=1"};
    decode_lines(LIT("A=\x1a\nB=1\n"), NULL, mid, 2);
    static const char *const two[] = {"A=1", "\x1a"};
    decode_lines(LIT("A=1\n\x1a\n\x1a"), NULL, two, 2);
    /* In UTF-16LE the mark is 1A 00: a lone 1A byte makes the length
     * odd. */
    decode_error(LIT("\xff\xfe" "A\0\n\0\x1a"), NULL, 2,
                 "UTF-16LE file has an odd number of bytes");
}

/* Read as Windows' profile reader reads it, the one lodctr asks (kernel32:
 * review 53 R53-9): every character up to ' ' is a blank at a line's
 * start, around a section's name, before '=' and around a value, and a
 * CR alone ends a line; a control character Wine's reader would keep is
 * said, so that --strict refuses an INI the two read otherwise. */
static void read_as_windows_reads_it(void **state)
{
    (void)state;
    struct got g = {0};
    struct rt_diags d = {0};
    assert_int_equal(parse_string("[\x01 info\x02 ]\n"
                                  "\x01" "drivername=PerfOS\n"
                                  "drivername=TransferPerf\n"
                                  "symbolfile\x02=x.h\n"
                                  "A=1\rB=2\r\n"
                                  "C=\x03 3 \x03\n\x1b\n"
                                  "\x0e" "D=4\n", &g, &d), 0);
    static const struct {
        const char *name, *value;
        unsigned line;
    } want[] = {
        {"drivername", "PerfOS", 2}, {"drivername", "TransferPerf", 3},
        {"symbolfile", "x.h", 4},    {"A", "1", 5},
        {"B", "2", 6},               {"C", "3", 7},
        {"D", "4", 9},
    };
    assert_int_equal(g.n, sizeof want / sizeof *want);
    for (size_t i = 0; i < g.n; i++) {
        assert_string_equal(g.section[i], "info");
        assert_string_equal(g.name[i], want[i].name);
        assert_string_equal(g.value[i], want[i].value);
        assert_int_equal(g.line[i], want[i].line);
    }
    static const unsigned warned[] = {1, 2, 4, 7, 9};
    assert_int_equal(d.errors, 0);
    assert_int_equal(d.n, sizeof warned / sizeof *warned);
    for (size_t i = 0; i < d.n; i++) {
        assert_int_equal(d.v[i].severity, RT_WARNING);
        assert_int_equal(d.v[i].line, warned[i]);
        assert_non_null(strstr(d.v[i].message, "taken for a blank, as "
                                               "Windows' lodctr reads it"));
    }
    got_free(&g);
    rt_diags_free(&d);
}

/* ---- robustness: random and damaged input never crashes ---- */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void count_entry(void *user, const struct rt_ini_entry *e)
{
    size_t *n = user;
    assert_non_null(e->name);
    assert_non_null(e->value);
    (*n)++;
}

/* Decodes and parses LEN bytes, with and without a code page; whatever
 * happens, the result is consistent with the diagnostics. Returns how
 * many of the two decodes succeeded. */
static int decode_and_parse(const uint8_t *b, size_t len)
{
    static const char *const cps[] = {NULL, "1252"};
    int decoded = 0;
    for (size_t k = 0; k < 2; k++) {
        struct rt_diags d = {0};
        struct rt_ini_text t;
        int r = rt_ini_decode("t.ini", b, len, cps[k], &t, &d);
        assert_int_equal(r != 0, d.errors != 0);
        if (r == 0) {
            decoded++;
            for (size_t i = 0; i < t.n_lines; i++)
                assert_null(strchr(t.lines[i], '\n'));
            size_t n = 0;
            r = rt_ini_parse(&t, count_entry, &n, &d);
            assert_int_equal(r != 0, d.errors != 0);
        } else {
            assert_null(t.lines);
        }
        rt_ini_text_free(&t);
        rt_diags_free(&d);
    }
    return decoded;
}

static void random_and_mutated_input_never_crashes(void **state)
{
    (void)state;
    uint64_t rng = 0x9E3779B97F4A7C15u;
    const char *text = "\r\n[info]\r\ndrivername=X\r\nsymbolfile=s.h\r\n"
                       "[languages]\r\n009=English\r\n[text]\r\n"
                       "OBJ_009_NAME=Object  \r\nOBJ_009_HELP=\xd0\x91 ; help\r\n"
                       "\x1a\r\n";
    size_t n16;
    uint8_t *u16 = utf16_of(text, &n16);
    struct {
        const uint8_t *p;
        size_t len;
    } bases[] = {{(const uint8_t *)text, strlen(text)}, {u16, n16}};
    uint8_t buf[1024];
    int decoded = 0;
    for (int round = 0; round < 4000; round++) {
        size_t len;
        if (round % 4 == 0) {
            /* Pure noise, often with many NULs. */
            len = (size_t)(xorshift(&rng) % 300);
            int nul_odds = (int)(xorshift(&rng) % 4);
            for (size_t i = 0; i < len; i++) {
                uint64_t x = xorshift(&rng);
                buf[i] = nul_odds && x % (unsigned)(nul_odds + 1) == 0
                             ? 0 : (uint8_t)(x >> 8);
            }
        } else {
            /* A valid file with a few bytes changed, cut or not. */
            size_t which = (size_t)(xorshift(&rng) % 2);
            len = bases[which].len;
            memcpy(buf, bases[which].p, len);
            int flips = 1 + (int)(xorshift(&rng) % 6);
            for (int f = 0; f < flips; f++) {
                static const uint8_t vals[] = {0, 0x1a, '\n', '\r', '=',
                                               '[', ']', ';', 0xD8, 0xDC,
                                               0xFF, 0xFE, 0x80, 0xC0};
                uint64_t x = xorshift(&rng);
                buf[(x >> 8) % len] = vals[x % sizeof vals];
            }
            if (xorshift(&rng) % 3 == 0)
                len = (size_t)(xorshift(&rng) % (len + 1));
        }
        /* The sanitizer and valgrind runs catch reads beyond LEN in a
         * buffer of exactly that size. */
        uint8_t *exact = malloc(len ? len : 1);
        memcpy(exact, buf, len);
        decoded += decode_and_parse(exact, len);
        free(exact);
    }
    /* The damage must leave many files readable, so that the parser is
     * exercised too, not only the decoder's refusals. */
    assert_true(decoded > 2000);
    free(u16);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(help_of_8k_round_trips),
        cmocka_unit_test(semicolons_are_text),
        cmocka_unit_test(comment_lines_are_skipped),
        cmocka_unit_test(indented_line_is_not_a_continuation),
        cmocka_unit_test(sections_and_lines),
        cmocka_unit_test(trailing_blanks_trimmed_as_profile_api),
        cmocka_unit_test(enclosing_quotes_dropped_as_profile_api),
        cmocka_unit_test(bad_lines_all_reported),
        cmocka_unit_test(long_key_names_and_headers),
        cmocka_unit_test(utf16le_with_bom),
        cmocka_unit_test(utf8_with_and_without_bom),
        cmocka_unit_test(ansi_with_code_page),
        cmocka_unit_test(encoding_errors),
        cmocka_unit_test(empty_file_and_missing_file),
        cmocka_unit_test(utf16le_without_bom),
        cmocka_unit_test(sniffing_edge_cases),
        cmocka_unit_test(dos_end_of_file),
        cmocka_unit_test(read_as_windows_reads_it),
        cmocka_unit_test(random_and_mutated_input_never_crashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
