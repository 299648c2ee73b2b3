/* Which texts and service names a PerfStringBackup file can hold
 * (model/perf_backup.h rt_psb_text_reads_back, rt_psb_name_heads_section):
 * a table of texts each reader reads otherwise, and random texts of line
 * breaks, blanks, brackets, digits and '=' written into a backup and read
 * back by regtool's own reader and by small models of Windows' profile
 * reader (the one lodctr /R uses), Wine's and one that ends lines at any
 * of Unicode's breaks: a text let through reads back as itself to each,
 * and no line of it as a section or a record of a number. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "model/perf_backup.h"
#include "model/strbuf.h"
#include "model/utf16.h"

/* Each text in a block of its own size, so that a read past its end is
 * seen (the sanitizers, valgrind). */
static int reads_back(const char *text)
{
    size_t n = strlen(text);
    char *t = malloc(n ? n : 1);
    assert_non_null(t);
    memcpy(t, text, n);
    int r = rt_psb_text_reads_back(t, n);
    free(t);
    return r;
}

static void texts_each_reader_reads_as_records_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int reads_back;
    } texts[] = {
        /* A line of digits alone, or digits and '=', any digit 0 to 9;
         * ':' (after '9') is no digit. */
        {"a\nb=c", 1},     {"a\r\n17=c", 0}, {"a\n\t[S]\t", 0},
        {"a\n0=c", 0},     {"a\n9=", 0},     {"a\n1:=c", 0},
        {"a\n17", 1},      {"a\r\n17\r", 1}, {"a\n/=c", 1},
        /* As the most lenient reader reads them (review 49 R49-9). */
        {"a\r\n 42=c", 0}, {"a\n42 =c", 0},  {"a\n+42=c", 0},
        {"a\n0x10=c", 0},  {"a\n[P] x", 0},  {"a\r42=c", 0},
        {"a\v42=c", 0},    {"a\f42=c", 0},   {"a\xC2\x85" "42=c", 0},
        {"a\xE2\x80\xA8" "42=c", 0},         {"a\n\xC2\xA0" "42=c", 0},
        {"a\n\xEF\xBB\xBF" "42=c", 0},      {"a\n\xE3\x80\x80" "42=c", 0},
        {"a\nsee 42=c", 1}, {"a\n\xC2", 1},  {"42=c", 1},
        {"a\n\x1A[P]", 0}, {"a\n\x1F" "42=c", 0},
        {"a\n\xE1\x9A\x80" "42=c", 0},
        /* Any script's digits (review 52 R52-2): fullwidth, Arabic-Indic,
         * a fullwidth sign; a fullwidth letter is none. */
        {"a\n\xEF\xBC\x94\xEF\xBC\x92=c", 0}, {"a\n\xD9\xA4\xD9\xA2=c", 0},
        {"a\n\xE3\x80\x80\xEF\xBC\x91\xEF\xBC\x90=X", 0},
        {"a\n\xEF\xBC\x8B" "42=c", 0}, {"a\n\xEF\xBC\xA1=c", 1},
        /* A number's key ends where a reader taking it with wcstoul stops
         * (review 53 R53-1). */
        {"a\n4242 x=EVIL", 0}, {"a\n4242.x=c", 0}, {"a\n10 (x)=c", 0},
        {"a\n42 is c=d", 0},   {"a\n4242-1=", 0},  {"a\n42 x", 1},
        /* As Windows' profile reader reads them (review 53 R53-2): every
         * character up to ' ' a blank, a '[' line a header without its
         * ']', a blank between the key and '=' that ends no line to it. */
        {"a\n[PERF_PerfOS\nFirst Counter=1848", 0}, {"a\n\x01[X]", 0},
        {"a\n\x08" "42=c", 0}, {"a\n\x1B" "42=c", 0}, {"a\n[\fX]", 0},
        {"a\n4242\v=EVIL", 0}, {"a\n4242\xC2\x85=c", 0},
        {"a\n4242 \xE2\x80\xA9= c", 0}, {"a\n[S", 0},
        /* A header to regtool's own reader, which ends lines at LF only
         * (review 53 R53-4). */
        {"a\n[X\xE2\x80\xA8]", 0}, {"a\n[\xC2\x85PerfStrings_009]", 0},
        {"a\n[PERF_A\v]", 0},
        /* A trailing line feed is not read back (review 53 R53-5); a
         * trailing CR, blank or NEL is. */
        {"a\n", 0}, {"a\r\n", 0}, {"\n", 0}, {"a\r", 1}, {"a\n  ", 1},
        {"a\xC2\x85", 1}, {"", 1},
        /* Kept: continuations Windows writes, a bracket or '=' inside. */
        {"Line one\r\nline two", 1}, {"a\n    ,     b", 1},
        {"a\n  , more [x\n tail", 1}, {"a\nx=[y]", 1},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (reads_back(texts[i].text) != texts[i].reads_back)
            fail_msg("'%s' taken as %sreading back", texts[i].text,
                     texts[i].reads_back ? "not " : "");
}

/* A section's name a reader takes from "[PERF_" NAME "]": only NAME, or
 * the name is left out (review 53 R53-3). */
static void names_heading_another_section_are_refused(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int heads;
    } names[] = {
        {"TransferPerf", 1}, {".NET CLR Data", 1}, {"ASP.NET_4.0.30319", 1},
        {"MSSQL$SQLEXPRESS:Buffer Manager", 1}, {"\xC3\x89t\xC3\xA9", 1},
        {"Tr\r\n[Perflib", 0}, {"Tr]\v[Perflib", 0}, {"Tr\f", 0},
        {"Tr\xC2\x85x", 0},   {"Tr\xE2\x80\xA8x", 0}, {"Tr\xE2\x80\xA9x", 0},
        {"PerfOS]x", 0},      {"PerfOS ", 0},        {"PerfOS\t", 0},
        {"PerfOS\xC2\xA0", 0}, {"PerfOS\xE3\x80\x80", 0},
        {"PerfOS\xEF\xBB\xBF", 0}, {"Perf[OS", 0},   {"Perf\x01OS", 0},
        {"Perf\x7FOS", 0},    {"Perf\xC2\x90OS", 0}, {"", 0},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (rt_psb_name_heads_section(names[i].name) != names[i].heads)
            fail_msg("'%s' taken as %sheading its section", names[i].name,
                     names[i].heads ? "not " : "");
}

/* A model of one reader of an INI file: where its lines end, what it
 * trims at a line's start, after '[' and before '='. */
struct reader_model {
    const char *name;
    int (*ends_line)(uint32_t c);
    int (*trims)(uint32_t c);
};

static int crlf(uint32_t c)
{
    return c == '\r' || c == '\n';
}

/* kernel32's BaseDllAdvanceTextPointer: every character up to ' '. */
static int up_to_space(uint32_t c)
{
    return c <= ' ';
}

/* Wine's PROFILE_isspace: iswspace or ^Z. */
static int wide_space(uint32_t c)
{
    return c == ' ' || (c >= '\t' && c <= '\r') || c == 0x1A ||
           (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Python's str.splitlines. */
static int any_break(uint32_t c)
{
    return (c >= '\n' && c <= '\r') || (c >= 0x1C && c <= 0x1E) ||
           c == 0x85 || c == 0x2028 || c == 0x2029;
}

static const struct reader_model readers[] = {
    {"Windows", crlf, up_to_space},
    {"Wine", crlf, wide_space},
    {"any break", any_break, wide_space},
};

/* The code points of the UTF-8 text S (N bytes, valid) in a new array. */
static uint32_t *decode(const char *s, size_t n, size_t *count)
{
    uint32_t *v = malloc((n + 1) * sizeof *v);
    assert_non_null(v);
    size_t k = 0;
    for (size_t i = 0; i < n;) {
        size_t len = rt_utf8_decode_one((const unsigned char *)s + i, n - i,
                                        &v[k]);
        assert_true(len > 0);
        i += len;
        k++;
    }
    *count = k;
    return v;
}

static int digit_value(uint32_t c)
{
    static const uint32_t zeros[] = {'0', 0x0660, 0xFF10};
    for (size_t i = 0; i < 3; i++)
        if (c >= zeros[i] && c <= zeros[i] + 9)
            return (int)(c - zeros[i]);
    return -1;
}

/* Reads FILE (the code points V[0..N)) as model M reads an INI: the
 * sections it sees and each key of [PerfStrings_009] that a reader taking
 * it with wcstoul reads as a number (a sign, then a digit first). Fails
 * the test unless the sections are [Perflib] and [PerfStrings_009] and
 * the only numbers 2 and 4, once each. */
static void read_as(const struct reader_model *m, const uint32_t *v, size_t n,
                    const char *text)
{
    int in_strings = 0, sections = 0, seen2 = 0, seen4 = 0;
    for (size_t i = 0; i < n;) {
        while (i < n && (m->trims(v[i]) || m->ends_line(v[i])))
            i++;
        size_t e = i;
        while (e < n && !m->ends_line(v[e]))
            e++;
        if (i == e)
            break;
        if (v[i] == '[') {
            size_t s = i + 1;
            while (s < e && m->trims(v[s]))
                s++;
            static const char *const want[] = {"Perflib", "PerfStrings_009"};
            if (sections >= 2)
                fail_msg("%s reads a third section in '%s'", m->name, text);
            const char *w = want[sections++];
            for (size_t k = 0; w[k]; k++)
                if (s + k >= e || v[s + k] != (uint32_t)w[k])
                    fail_msg("%s reads a section of its own in '%s'",
                             m->name, text);
            in_strings = sections == 2;
        } else if (in_strings && v[i] != ';') {
            size_t s = i, eq = i;
            while (eq < e && v[eq] != '=')
                eq++;
            if (v[s] == '+' || v[s] == '-' || v[s] == 0xFF0B || v[s] == 0xFF0D)
                s++;
            if (eq < e && s < eq && digit_value(v[s]) >= 0) {
                unsigned long number = 0;
                for (; s < eq && digit_value(v[s]) >= 0 && number < 100000; s++)
                    number = number * 10 + (unsigned long)digit_value(v[s]);
                if (number == 2 && !seen2)
                    seen2 = 1;
                else if (number == 4 && !seen4)
                    seen4 = 1;
                else
                    fail_msg("%s reads the record %lu in '%s'", m->name,
                             number, text);
            }
        }
        i = e;
    }
    if (!seen2 || !seen4)
        fail_msg("%s misses a record in '%s'", m->name, text);
}

/* The pieces a random text is made of. */
static const char *const pieces[] = {
    "\n", "\r", "\r\n", "\v", "\f", "\x1C", "\xC2\x85", "\xE2\x80\xA8",
    "\xE2\x80\xA9", "[", "]", "=", "4", "2", "x", " ", "\t", "\x01", "\x1A",
    "\xC2\xA0", "\xEF\xBB\xBF", "\xEF\xBC\x94", "\xD9\xA4", "+", ";",
    "PERF_PerfOS", "Last Counter", "PerfStrings_009", "Perflib",
};

static uint32_t next_random(uint32_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 17;
    *x ^= *x << 5;
    return *x;
}

/* Random texts: each one let through reads back as itself to regtool's
 * reader, and as no section or record of its own to each reader model;
 * at least a few are let through and a few left out, or the test tells
 * nothing. */
static void random_texts_read_back_to_every_reader(void **state)
{
    (void)state;
    static const char head[] = "[Perflib]\r\nLast Counter=4\r\n"
                               "Last Help=5\r\nBase Index=1\r\n\r\n"
                               "[PerfStrings_009]\r\n2=";
    uint32_t x = 0x9E3779B9u;
    size_t kept = 0, refused = 0;
    for (int round = 0; round < 20000; round++) {
        char text[200];
        size_t n = 0;
        size_t count = 1 + next_random(&x) % 9;
        for (size_t k = 0; k < count; k++) {
            const char *p = pieces[next_random(&x) % (sizeof pieces /
                                                      sizeof *pieces)];
            memcpy(text + n, p, strlen(p));
            n += strlen(p);
        }
        text[n] = '\0';
        if (!reads_back(text)) {
            refused++;
            continue;
        }
        kept++;
        struct rt_strbuf file = {0};
        rt_strbuf_append(&file, head, strlen(head));
        rt_strbuf_append(&file, text, n);
        rt_strbuf_append(&file, "\r\n4=x\r\n", 7);
        assert_false(file.failed);
        struct rt_psb p;
        struct rt_psb_error err;
        if (rt_psb_parse((const uint8_t *)file.s, file.len, &p, NULL, &err))
            fail_msg("'%s' makes the file unreadable: line %u: %s", text,
                     err.line, err.message);
        const struct rt_psb_language *l = rt_psb_language_find(&p, "009");
        assert_non_null(l);
        if (l->strings.n != 2 || l->strings.v[0].index != 2 ||
            l->strings.v[0].text_len != n ||
            memcmp(l->strings.v[0].text, text, n) ||
            l->strings.v[1].index != 4)
            fail_msg("'%s' does not read back as itself", text);
        rt_psb_free(&p);
        size_t cps;
        uint32_t *v = decode(file.s, file.len, &cps);
        for (size_t r = 0; r < sizeof readers / sizeof *readers; r++)
            read_as(&readers[r], v, cps, text);
        free(v);
        rt_strbuf_free(&file);
    }
    assert_true(kept > 1000);
    assert_true(refused > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(texts_each_reader_reads_as_records_are_refused),
        cmocka_unit_test(names_heading_another_section_are_refused),
        cmocka_unit_test(random_texts_read_back_to_every_reader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
