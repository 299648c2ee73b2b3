/* Symbol file: #define values, aliases, comments, skipped lines, and the
 * exact message of every problem. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
/* Allocations failed one by one (out_of_memory_fails_the_read). */
#define ALLOC_HOOK_MALLOC
#include "alloc_hook.h"

#include "model/diag.h"
#include "provider/symbol_file.h"
#include "model/utf16.h"
#include "provider/text_encoding.h"

static void parse(const char *src, struct rt_symbol_table *t)
{
    struct rt_diags d = {0};
    assert_int_equal(rt_symbol_file_parse("s.h", src, strlen(src), t, &d), 0);
    assert_int_equal(d.n, 0);
}

static void assert_value(const struct rt_symbol_table *t, const char *name,
                         long long value, unsigned line)
{
    const struct rt_symbol_def *def = rt_symbol_find(t, name);
    assert_non_null(def);
    if (!def->ok)
        fail_msg("%s: %s", name, rt_symbol_problem(t, def));
    assert_int_equal(def->value, value);
    assert_int_equal(def->line, line);
}

static void assert_problem(const struct rt_symbol_table *t, const char *name,
                           unsigned line, const char *msg)
{
    const struct rt_symbol_def *def = rt_symbol_find(t, name);
    assert_non_null(def);
    assert_false(def->ok);
    char *problem = rt_symbol_problem(t, def);
    assert_non_null(problem);
    assert_string_equal(problem, msg);
    free(problem);
    assert_int_equal(def->problem_line, line);
}

static void number_forms(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#define DEC 12\n#define HEX 0x1A\n#define HEXU 0XffUL\n"
          "#define PAR ((4))\n#define OCT 010\n#define ZERO 0\n"
          "#define SUM (DEC + 2 - 4)\n#define NEG -2\n#define NEGP (-(6))\n"
          "#define MAXV 0xFFFFFFFF\n", &t);
    assert_int_equal(t.n, 10);
    assert_value(&t, "DEC", 12, 1);
    assert_value(&t, "HEX", 26, 2);
    assert_value(&t, "HEXU", 255, 3);
    assert_value(&t, "PAR", 4, 4);
    assert_value(&t, "OCT", 8, 5);
    assert_value(&t, "ZERO", 0, 6);
    assert_value(&t, "SUM", 10, 7);
    assert_value(&t, "NEG", -2, 8);
    assert_value(&t, "NEGP", -6, 9);
    assert_value(&t, "MAXV", 0xFFFFFFFFLL, 10);
    rt_symbol_table_free(&t);
}

static void aliases_resolve_through_chains(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    /* Used before defined, as the preprocessor allows. */
    parse("#define LAST_COUNTER FINAL\n#define FINAL BYTES_SENT\n"
          "#define TRANSFER_OBJECT 0\n#define BYTES_SENT (TRANSFER_OBJECT + 2)\n",
          &t);
    assert_value(&t, "LAST_COUNTER", 2, 1);
    assert_value(&t, "FINAL", 2, 2);
    assert_value(&t, "BYTES_SENT", 2, 4);
    rt_symbol_table_free(&t);
}

static void comments_guards_and_other_lines(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("// CounterOffsets.h\r\n"
          "#ifndef _COUNTER_OFFSETS_H_\r\n"
          "#define _COUNTER_OFFSETS_H_\r\n"
          "#pragma once\r\n"
          "#include \"inc//a/*b.h\"\r\n"
          "/* a comment\r\n"
          "#define INSIDE 99\r\n"
          "   spanning lines */ #define AFTER 2\r\n"
          "#define A 4 // four\r\n"
          "#define B /* six */ 6\r\n"
          "  #  define SPACED 8\r\n"
          "#define MAX(a, b) ((a) > (b) ? (a) : (b))\r\n"
          "#define LONG \\\r\n"
          "    10\r\n"
          "#define STR \"x\"\r\n"
          "#undef A\r\n"
          "#if 0\r\n"
          "typedef int NOT_A_DEFINE;\r\n"
          "#endif\r\n"
          "#define LATE 12\r\n"
          "#endif // _COUNTER_OFFSETS_H_\r\n", &t);
    assert_null(rt_symbol_find(&t, "INSIDE"));
    assert_null(rt_symbol_find(&t, "MAX"));
    assert_null(rt_symbol_find(&t, "NOT_A_DEFINE"));
    /* A comment counts as whitespace, so the directive after one is
     * still first on its line, as in C. */
    assert_value(&t, "AFTER", 2, 8);
    assert_value(&t, "A", 4, 9);
    assert_value(&t, "B", 6, 10);
    assert_value(&t, "SPACED", 8, 11);
    assert_value(&t, "LONG", 10, 13);
    assert_value(&t, "LATE", 12, 20);
    assert_problem(&t, "_COUNTER_OFFSETS_H_", 3,
                   "_COUNTER_OFFSETS_H_ is defined without a value");
    assert_problem(&t, "STR", 15, "STR: value '\"x\"' is not a number");
    assert_int_equal(t.n, 8);
    rt_symbol_table_free(&t);
}

/* A slash, a star and a slash open a comment, as in C: the star of the
 * opening closes nothing, and the defines up to the closing after it are
 * commented out. */
static void slash_star_slash_opens_a_comment(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("/*/ still a comment\n"
          "#define INSIDE 1\n"
          "*/ #define AFTER 3\n", &t);
    assert_null(rt_symbol_find(&t, "INSIDE"));
    assert_value(&t, "AFTER", 3, 3);
    assert_int_equal(t.n, 1);
    rt_symbol_table_free(&t);
}

static void problems_have_exact_messages(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#define A B\n"
          "#define B A\n"
          "#define C A\n"
          "#define SELF SELF\n"
          "#define U NOPE\n"
          "#define R 0x100000000\n"
          "#define S (0xFFFFFFFF + 1)\n"
          "#define P Q\n"
          "#define Q 08\n"
          "#define D 2\n"
          "#define D 4\n"
          "#define SAME 2\n"
          "#define SAME  2\n"
          "#define OPEN (2\n"
          "#define X 0x\n"
          "#define CAST (DWORD)2\n"
          "#define R2 (Z + 2)\n"
          "#define Z P\n", &t);
    assert_problem(&t, "A", 1, "A is in an alias cycle A -> B -> A");
    assert_problem(&t, "B", 2, "B is in an alias cycle A -> B -> A");
    assert_problem(&t, "C", 3, "C: A (line 1): alias cycle A -> B -> A");
    assert_problem(&t, "SELF", 4, "SELF is in an alias cycle SELF -> SELF");
    assert_problem(&t, "U", 5, "U: 'NOPE' is not defined");
    assert_problem(&t, "R", 6, "R: value out of range");
    assert_problem(&t, "S", 7, "S: value out of range");
    assert_problem(&t, "P", 8,
                   "P: Q (line 9): value '08' is not a number");
    assert_problem(&t, "Q", 9, "Q: value '08' is not a number");
    assert_problem(&t, "D", 11, "D is defined again at line 11 with a "
                                "different value (first at line 10)");
    assert_value(&t, "SAME", 2, 12);
    assert_problem(&t, "OPEN", 14, "OPEN: value '(2' is not a number");
    assert_problem(&t, "X", 15, "X: value '0x' is not a number");
    assert_problem(&t, "CAST", 16, "CAST: 'DWORD' is not defined");
    /* Through a chain, the message names where the trouble starts. */
    assert_problem(&t, "R2", 17,
                   "R2: Q (line 9): value '08' is not a number");
    rt_symbol_table_free(&t);
}

/* What a message quotes is bounded, for it is copied to every alias
 * that leads to it: a cycle of more than eight names lists four, and
 * its other members say how many and where it was met; a cycle of
 * eight lists all; names and values past 64 bytes are cut, with "...". */
static void messages_about_big_things_are_bounded(void **state)
{
    (void)state;
    char src[4096], big[100], *o = src;
    memset(big, 'N', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (int k = 0; k < 9; k++)
        o += sprintf(o, "#define C%d C%d\n", k, (k + 1) % 9);
    for (int k = 0; k < 8; k++)
        o += sprintf(o, "#define E%d E%d\n", k, (k + 1) % 8);
    o += sprintf(o, "#define R C4\n#define U %sX\n#define V 0x%s\n"
                 "#define W V\n#define %s U\n", big, big, big);
    struct rt_symbol_table t;
    parse(src, &t);
    assert_problem(&t, "C0", 1, "C0 is in an alias cycle of 9 names: "
                                "C0 -> C1 -> C2 -> C3 -> ... -> C0");
    assert_problem(&t, "C8", 9, "C8 is in an alias cycle of 9 names with "
                                "C0 (line 1)");
    assert_problem(&t, "E7", 17, "E7 is in an alias cycle E0 -> E1 -> E2 "
                   "-> E3 -> E4 -> E5 -> E6 -> E7 -> E0");
    assert_problem(&t, "R", 18, "R: C4 (line 5): alias cycle of 9 names "
                                "with C0 (line 1)");
    const char *cut = "NNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNNN...";
    char want[256];
    snprintf(want, sizeof want, "U: '%s' is not defined", cut);
    assert_problem(&t, "U", 19, want);
    snprintf(want, sizeof want, "W: V (line 20): value '0x%.62s...' is "
             "not a number", big);
    assert_problem(&t, "W", 21, want);
    snprintf(want, sizeof want, "%s: U (line 19): '%s' is not defined",
             big, cut);
    assert_problem(&t, big, 22, want);
    rt_symbol_table_free(&t);
}

/* Cycles that share names: a chain met again by names already on a
 * cycle and by one that is not, a cycle through a shorter one. Each back
 * reference that brings a name on no cycle yet describes a new cycle,
 * from the name met again to the top of the walk; a name keeps the first
 * cycle it was put on, and those already on one are not walked again
 * (review 34 F1: each back reference walked the whole stack). */
static void cycles_that_share_names(void **state)
{
    (void)state;
    char src[1024], *o = src;
    for (int k = 0; k < 9; k++)
        o += sprintf(o, "#define A%d A%d\n", k, k + 1);
    sprintf(o, "#define A9 (A0 + Y + A5 + A0)\n"
               "#define Y (A0 + A4)\n"
               "#define P Q\n"
               "#define Q (R + 1)\n"
               "#define R (Q + P + S)\n"
               "#define S (P + R)\n"
               "#define T (Y + 1)\n");
    struct rt_symbol_table t;
    parse(src, &t);
    assert_int_equal(t.n_cycles, 5);
    assert_problem(&t, "A0", 1, "A0 is in an alias cycle of 10 names: "
                                "A0 -> A1 -> A2 -> A3 -> ... -> A0");
    char name[8], want[128];
    for (unsigned k = 1; k <= 9; k++) {
        snprintf(name, sizeof name, "A%u", k);
        snprintf(want, sizeof want, "A%u is in an alias cycle of 10 names "
                 "with A0 (line 1)", k);
        assert_problem(&t, name, k + 1, want);
    }
    assert_problem(&t, "Y", 11, "Y is in an alias cycle of 11 names with "
                                "A0 (line 1)");
    assert_problem(&t, "P", 12, "P is in an alias cycle P -> Q -> R -> P");
    assert_problem(&t, "Q", 13, "Q is in an alias cycle Q -> R -> Q");
    assert_problem(&t, "R", 14, "R is in an alias cycle Q -> R -> Q");
    assert_problem(&t, "S", 15, "S is in an alias cycle P -> Q -> R -> S "
                                "-> P");
    assert_problem(&t, "T", 16, "T: Y (line 11): alias cycle of 11 names "
                                "with A0 (line 1)");
    rt_symbol_table_free(&t);
}

static void long_chains_and_deep_parentheses(void **state)
{
    (void)state;
    /* 100000 aliases in a row cost no recursion; 300 parentheses are
     * more than a value may nest. */
    size_t n = 100000, cap = n * 40 + 1000, o = 0;
    char *src = malloc(cap);
    for (size_t i = 0; i + 1 < n; i++)
        o += (size_t)snprintf(src + o, cap - o, "#define S%zu S%zu\n", i,
                              i + 1);
    o += (size_t)snprintf(src + o, cap - o, "#define S%zu 2\n#define P ",
                          n - 1);
    for (int i = 0; i < 300; i++)
        src[o++] = '(';
    src[o++] = '2';
    for (int i = 0; i < 300; i++)
        src[o++] = ')';
    src[o++] = '\n';
    src[o] = '\0';
    struct rt_symbol_table t;
    parse(src, &t);
    assert_value(&t, "S0", 2, 1);
    assert_value(&t, "S50000", 2, 50001);
    assert_problem(&t, "P", (unsigned)n + 1, "P: value nested too deeply");
    rt_symbol_table_free(&t);
    free(src);
}

static void case_insensitive_lookup(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#define Bytes_Sent 2\n#define ABC 4\n#define abc 6\n", &t);
    assert_value(&t, "BYTES_SENT", 2, 1);
    assert_value(&t, "abc", 6, 3);
    assert_value(&t, "ABC", 4, 2);
    assert_null(rt_symbol_find(&t, "Abc"));     /* ambiguous */
    assert_null(rt_symbol_find(&t, "NONE"));
    rt_symbol_table_free(&t);
}

static void utf16_symbol_file(void **state)
{
    (void)state;
    const char *src = "// \xd0\xa1\xd1\x87\xd1\x91\xd1\x82\xd1\x87\xd0\xb8"
                      "\n#define OBJ 0\n#define CTR 2\n";
    uint8_t *u16;
    size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(src, strlen(src), &u16, &n, &off), 0);
    uint8_t *file = malloc(n + 2);
    file[0] = 0xFF;
    file[1] = 0xFE;
    memcpy(file + 2, u16, n);
    struct rt_symbol_table t;
    struct rt_diags d = {0};
    assert_int_equal(rt_symbol_file_parse("s.h", file, n + 2, &t, &d), 0);
    assert_value(&t, "CTR", 2, 3);
    rt_symbol_table_free(&t);
    free(file);
    free(u16);
}

static void file_errors(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    struct rt_diags d = {0};
    const char open_comment[] = "#define A 0\n/* never\nclosed\n";
    assert_int_equal(rt_symbol_file_parse("s.h", open_comment,
                                          sizeof open_comment - 1, &t, &d),
                     -1);
    const char nul[] = "#define A 0\n#define B\0 2\n";
    assert_int_equal(rt_symbol_file_parse("s.h", nul, sizeof nul - 1, &t,
                                          &d), -1);
    const uint8_t odd[] = {0xFF, 0xFE, '#', 0, 'd'};
    assert_int_equal(rt_symbol_file_parse("s.h", odd, sizeof odd, &t, &d),
                     -1);
    assert_int_equal(rt_symbol_file_load("tests/no/such.h", &t, &d), -1);
    assert_int_equal(rt_symbol_file_load("tests", &t, &d), -1);
    char big[] = "/tmp/rt-big-XXXXXX";
    int fd = mkstemp(big);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (16 << 20) + 1), 0);
    close(fd);
    assert_int_equal(rt_symbol_file_load(big, &t, &d), -1);
    unlink(big);
    assert_int_equal(d.n, 6);
    assert_string_equal(d.v[4].message, "cannot read: Is a directory");
    assert_string_equal(d.v[5].message, "symbol file is larger than 16 MiB");
    assert_string_equal(d.v[5].file, big);
    assert_string_equal(d.v[0].message, "comment is never closed");
    assert_int_equal(d.v[0].line, 2);
    assert_string_equal(d.v[0].file, "s.h");
    assert_string_equal(d.v[1].message, "NUL byte in the symbol file");
    assert_int_equal(d.v[1].line, 2);
    assert_string_equal(d.v[2].message, "invalid UTF-16LE symbol file");
    assert_string_equal(d.v[3].message,
                        "cannot open: No such file or directory");
    assert_string_equal(d.v[3].file, "tests/no/such.h");
    rt_diags_free(&d);
}


static void dotnet_semicolons_and_trailing_comments(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    /* As PerformanceCounterCategory.Create writes them (CR LF). */
    parse("#define OBJECT_1 0;\r\n#define DEVICE_COUNTER_1 2;\r\n"
          "#define DEVICE_COUNTER_2 4 ;  \r\n\r\n"
          "#define C_LINE 6 // a comment\n"
          "#define C_BLOCK 8 /* a comment */\n"
          "#define SEMI_C 10; // both\n"
          "#define ALIAS_SEMI C_LINE;\n"
          "#define TWO 12;;\n"
          "#define MID 1; 2\n", &t);
    assert_value(&t, "OBJECT_1", 0, 1);
    assert_value(&t, "DEVICE_COUNTER_1", 2, 2);
    assert_value(&t, "DEVICE_COUNTER_2", 4, 3);
    assert_value(&t, "C_LINE", 6, 5);
    assert_value(&t, "C_BLOCK", 8, 6);
    assert_value(&t, "SEMI_C", 10, 7);
    assert_value(&t, "ALIAS_SEMI", 6, 8);
    /* One ';' at the end only. */
    assert_problem(&t, "TWO", 9, "TWO: value '12;;' is not a number");
    assert_problem(&t, "MID", 10, "MID: value '1; 2' is not a number");
    rt_symbol_table_free(&t);
}

static void utf16_without_bom_and_dos_end_of_file(void **state)
{
    (void)state;
    const char *src = "//\r\n//  memctrnm.h\r\n//\r\n#define OBJ 0\r\n"
                      "// \xd0\xa1\xd1\x87\xd1\x91\xd1\x82\r\n"
                      "#define CTR 2\r\n\x1a";
    uint8_t *u16;
    size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(src, strlen(src), &u16, &n, &off), 0);
    struct rt_symbol_table t;
    struct rt_diags d = {0};
    assert_int_equal(rt_symbol_file_parse("s.h", u16, n, &t, &d), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(t.n, 2);
    assert_value(&t, "CTR", 2, 6);
    rt_symbol_table_free(&t);
    /* 8-bit, as Microsoft's samples end: the value before 0x1A is whole
     * even without a line end. */
    parse("#define A 0\n#define B 2\x1a", &t);
    assert_value(&t, "B", 2, 2);
    rt_symbol_table_free(&t);
    parse("#define A 0\n#define B 2\n\x1a\r\n", &t);
    assert_value(&t, "B", 2, 2);
    rt_symbol_table_free(&t);
    /* Refused: big-endian, and a file whose first lines do not tell. */
    assert_int_equal(rt_symbol_file_parse("s.h", "\0#\0d", 4, &t, &d), -1);
    assert_int_equal(rt_symbol_file_parse("s.h", "#\0\x21\x04\x22\x04" "d\0",
                                          8, &t, &d), -1);
    assert_int_equal(d.n, 2);
    assert_string_equal(d.v[0].message, "symbol file is UTF-16 big-endian; "
                                        "save it as UTF-16LE or ASCII");
    assert_string_equal(d.v[1].message, RT_TEXT_AMBIGUOUS_MSG);
    assert_int_equal(d.v[1].line, 1);
    rt_diags_free(&d);
    free(u16);
}

/* A UTF-16LE file with its byte order mark that ends in a DOS end of
 * file (0x1A): the mark is skipped and the 0x1A found at the very end,
 * so the last value, with no line end after it, is whole. */
static void utf16_with_bom_and_dos_end_of_file(void **state)
{
    (void)state;
    const char *src = "\xef\xbb\xbf#define A 0\r\n#define B 2\x1a";
    uint8_t *u16;
    size_t n, off;
    assert_int_equal(rt_utf8_to_utf16le(src, strlen(src), &u16, &n, &off), 0);
    assert_true(n > 2 && u16[0] == 0xFF && u16[1] == 0xFE);
    struct rt_symbol_table t;
    struct rt_diags d = {0};
    assert_int_equal(rt_symbol_file_parse("s.h", u16, n, &t, &d), 0);
    assert_int_equal(d.n, 0);
    assert_int_equal(t.n, 2);
    assert_value(&t, "B", 2, 2);
    rt_symbol_table_free(&t);
    free(u16);
}

/* A string ends at its closing quote: a comment after it on the same
 * line is a comment, and what it spans is no definition. */
static void comment_after_a_string_is_stripped(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#include \"a.h\" /* old values:\n"
          "#define INSIDE 1\n"
          "*/\n"
          "#define CHAR 'x' /* and\n"
          "#define ALSO_INSIDE 2 */\n"
          "#define AFTER 3\n", &t);
    assert_null(rt_symbol_find(&t, "INSIDE"));
    assert_null(rt_symbol_find(&t, "ALSO_INSIDE"));
    assert_value(&t, "AFTER", 3, 6);
    assert_int_equal(t.n, 2);
    rt_symbol_table_free(&t);
}

/* An escaped quote does not end its literal, as in C: a "/ *" after it
 * inside the string opens no comment that would hide the #defines after
 * it, and a comment after '\'' still hides what it spans. */
static void escaped_quote_stays_inside_its_literal(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#define S \"a\\\" /* b\"\n"
          "#define OBJ 0\n"
          "#define CTR 2\n"
          "#define Q '\\'' /* old:\n"
          "#define HIDDEN 1 */\n"
          "#define AFTER 3\n", &t);
    assert_value(&t, "OBJ", 0, 2);
    assert_value(&t, "CTR", 2, 3);
    assert_null(rt_symbol_find(&t, "HIDDEN"));
    assert_value(&t, "AFTER", 3, 6);
    rt_symbol_table_free(&t);
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Damaged and random symbol files: parsed or refused, never a crash; the
 * sanitizer and valgrind runs catch reads beyond the buffer. */
static void random_and_mutated_files_never_crash(void **state)
{
    (void)state;
    const char *text = "// offsets\n#ifndef X_H\n#define X_H\n"
                       "#define OBJECT_1 0;\n#define A (OBJECT_1 + 2) /* c */\n"
                       "#define B A\n#define C 0x6UL // d\n#endif\n\x1a";
    size_t n16, off;
    uint8_t *u16;
    assert_int_equal(rt_utf8_to_utf16le(text, strlen(text), &u16, &n16,
                                        &off), 0);
    uint64_t rng = 0x2545F4914F6CDD1Du;
    int parsed = 0;
    for (int round = 0; round < 4000; round++) {
        const uint8_t *base = round % 2 ? u16 : (const uint8_t *)text;
        size_t len = round % 2 ? n16 : strlen(text);
        uint8_t *b = malloc(len ? len : 1);
        if (round % 5 == 0) {
            for (size_t i = 0; i < len; i++)
                b[i] = (uint8_t)xorshift(&rng);
        } else {
            memcpy(b, base, len);
            int flips = 1 + (int)(xorshift(&rng) % 6);
            for (int f = 0; f < flips; f++) {
                static const uint8_t vals[] = {0, 0x1a, '\n', '\\', '/', '*',
                                               '(', ')', ';', '#', 'A',
                                               0xD8, 0xFF, 0xFE};
                uint64_t x = xorshift(&rng);
                b[(x >> 8) % len] = vals[x % sizeof vals];
            }
            if (xorshift(&rng) % 3 == 0)
                len = (size_t)(xorshift(&rng) % (len + 1));
        }
        struct rt_symbol_table t;
        struct rt_diags d = {0};
        int r = rt_symbol_file_parse("s.h", b, len, &t, &d);
        assert_int_equal(r != 0, d.errors != 0);
        if (r == 0) {
            parsed++;
            for (size_t i = 0; i < t.n; i++) {
                char *why = t.v[i].ok ? NULL : rt_symbol_problem(&t, &t.v[i]);
                assert_true(t.v[i].ok || why);
                free(why);
            }
            (void)rt_symbol_find(&t, "a");
        }
        rt_symbol_table_free(&t);
        rt_diags_free(&d);
        free(b);
    }
    assert_true(parsed > 1000);
    free(u16);
}

/* A number glued to letters is a typo, and the message says the value is
 * not a number: never a complaint about what the sum would have been had
 * the letters been left off (0xFFFFFFFF + 1 is out of range). */
static void number_followed_by_letters_is_not_a_number(void **state)
{
    (void)state;
    struct rt_symbol_table t;
    parse("#define TYPO 0xFFFFFFFF + 1x\n"
          "#define GLUED 12abc\n"
          "#define SUFFIXES 7uLLL\n"
          "#define FINE 0xFFFFFFFE + 1UL\n", &t);
    assert_problem(&t, "TYPO", 1,
                   "TYPO: value '0xFFFFFFFF + 1x' is not a number");
    assert_problem(&t, "GLUED", 2, "GLUED: value '12abc' is not a number");
    assert_problem(&t, "SUFFIXES", 3,
                   "SUFFIXES: value '7uLLL' is not a number");
    assert_value(&t, "FINE", 0xFFFFFFFFLL, 4);
    rt_symbol_table_free(&t);
}

#ifdef HAVE_ALLOC_HOOK
/* Everything a parse gave, as text. */
static char *table_text(const struct rt_symbol_table *t)
{
    size_t cap = 4096, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "%s %zu\n", t->path, t->n);
    for (size_t i = 0; i < t->n && len < cap; i++) {
        const struct rt_symbol_def *d = &t->v[i];
        char *why = d->ok ? NULL : rt_symbol_problem(t, d);
        assert_true(d->ok || why);
        len += (size_t)snprintf(s + len, cap - len, "%s=%s %u %d %lld %u %s\n",
                                d->name, d->expr, d->line, d->ok, d->value,
                                d->problem_line, why ? why : "-");
        free(why);
    }
    assert_true(len < cap);
    return s;
}

/* One symbol file parsed with each allocation failing in turn: the read
 * either fails saying out of memory (the one error of D, no other
 * diagnostic, an empty table) or gives exactly what it gives with memory;
 * never an abort of the program (the library is loaded into installers),
 * never a leak (LeakSanitizer, in the sanitizer build). The allocations
 * counted: 0 when none reached the hook (under valgrind). */
static unsigned long sweep_parse(const char *src, size_t len)
{
    struct rt_symbol_table t;
    struct rt_diags d = {0};
    alloc_calls = 0;
    assert_int_equal(rt_symbol_file_parse("s.h", src, len, &t, &d), 0);
    unsigned long calls = alloc_calls;
    char *want = table_text(&t);
    rt_symbol_table_free(&t);
    rt_diags_free(&d);
    if (!calls) {
        free(want);
        return 0;
    }
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_symbol_file_parse("s.h", src, len, &t, &d);
        alloc_fail_at = 0;
        if (r != 0) {
            if (!d.out_of_memory || d.errors != 1 || d.n != 0 || t.n || t.v)
                fail_msg("allocation %lu of %lu failed: the read failed, "
                         "out of memory %d, %zu errors, %zu diagnostics, "
                         "%zu definitions left", k, calls, d.out_of_memory,
                         d.errors, d.n, t.n);
        } else {
            char *got = table_text(&t);
            if (strcmp(got, want) || d.errors || d.out_of_memory)
                fail_msg("allocation %lu of %lu failed, and the read gave:"
                         "\n%s\nnot:\n%s", k, calls, got, want);
            free(got);
        }
        rt_symbol_table_free(&t);
        rt_diags_free(&d);
    }
    free(want);
    return calls;
}

/* Definitions, an alias, a cycle, a name defined twice, an undefined
 * name, one without a value, one out of range and one leading into a
 * bad one: every kind of message the resolver makes. */
static const char oom_src[] =
    "#define OBJ 0\n#define CNT (OBJ + 2)\n#define ALIAS CNT\n"
    "#define A B\n#define B A\n#define TWICE 4\n#define TWICE 6\n"
    "#define UNDEF NOPE + 2\n#define EMPTY\n#define BIG 0xFFFFFFFF + 1\n"
    "#define USES_BAD UNDEF\n#define obj 8\n/* a comment */ #define X 9\n";

static void out_of_memory_fails_the_read(void **state)
{
    (void)state;
    if (!sweep_parse(oom_src, strlen(oom_src)))
        skip();   /* under valgrind: no call reaches the hook */
}

/* The same in UTF-16LE with its mark: the text is converted first. */
static void out_of_memory_fails_the_utf16_read(void **state)
{
    (void)state;
    size_t n = strlen(oom_src);
    unsigned char *u = malloc(2 * n + 2);
    assert_non_null(u);
    u[0] = 0xFF;
    u[1] = 0xFE;
    for (size_t i = 0; i < n; i++) {
        u[2 + 2 * i] = (unsigned char)oom_src[i];
        u[3 + 2 * i] = 0;
    }
    unsigned long calls = sweep_parse((const char *)u, 2 * n + 2);
    free(u);
    if (!calls)
        skip();   /* under valgrind: no call reaches the hook */
}
#else
static void out_of_memory_fails_the_read(void **state)
{
    (void)state;
    skip();
}

static void out_of_memory_fails_the_utf16_read(void **state)
{
    (void)state;
    skip();
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(number_forms),
        cmocka_unit_test(aliases_resolve_through_chains),
        cmocka_unit_test(comments_guards_and_other_lines),
        cmocka_unit_test(slash_star_slash_opens_a_comment),
        cmocka_unit_test(problems_have_exact_messages),
        cmocka_unit_test(messages_about_big_things_are_bounded),
        cmocka_unit_test(cycles_that_share_names),
        cmocka_unit_test(long_chains_and_deep_parentheses),
        cmocka_unit_test(case_insensitive_lookup),
        cmocka_unit_test(utf16_symbol_file),
        cmocka_unit_test(file_errors),
        cmocka_unit_test(dotnet_semicolons_and_trailing_comments),
        cmocka_unit_test(utf16_without_bom_and_dos_end_of_file),
        cmocka_unit_test(utf16_with_bom_and_dos_end_of_file),
        cmocka_unit_test(comment_after_a_string_is_stripped),
        cmocka_unit_test(escaped_quote_stays_inside_its_literal),
        cmocka_unit_test(random_and_mutated_files_never_crash),
        cmocka_unit_test(number_followed_by_letters_is_not_a_number),
        cmocka_unit_test(out_of_memory_fails_the_read),
        cmocka_unit_test(out_of_memory_fails_the_utf16_read),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
