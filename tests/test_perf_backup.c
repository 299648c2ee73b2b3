/* The PerfStringBackup codec (model/perf_backup.h): the six real files of
 * ../shared/research-real/perfstringbackup read as they are and written
 * back byte for byte, the edge cases of the reader (bare LF continuation
 * lines, '=' and ';' in text, any section order, four-digit languages,
 * UTF-8 with and without mark, LF line ends), errors naming the line, the
 * Counter/Help merge and split, and random and mutated input that must
 * never crash the reader. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <cmocka.h>

#include "model/perf_backup.h"
#include "model/strbuf.h"
#include "model/utf16.h"

#define REAL "../shared/research-real/perfstringbackup/"

#define ALLOC_HOOK_MALLOC 1
#include "alloc_hook.h"

/* The decompressed bytes of a real file (xz -dc). */
static uint8_t *load_real(const char *name, size_t *len)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "xz -dc '" REAL "%s.xz'", name);
    FILE *f = popen(cmd, "r");
    assert_non_null(f);
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        if (!r)
            break;
        n += r;
    }
    assert_int_equal(pclose(f), 0);
    *len = n;
    return buf;
}

static uint8_t *utf16(const char *s, size_t *len)
{
    uint8_t *out = NULL;
    assert_int_equal(rt_utf8_to_utf16le(s, strlen(s), &out, len, NULL), 0);
    return out;
}

static const char *text_of(const struct rt_psb *p, const char *lang,
                           uint32_t index)
{
    const struct rt_psb_language *l = rt_psb_language_find(p, lang);
    assert_non_null(l);
    const struct rt_pair *pair = rt_pair_list_find(&l->strings, index);
    return pair ? pair->text : NULL;
}

/* Parses NAME, checks what the table of the research README says, and
 * writes it back: the same bytes. */
static void real_file(const char *name, struct rt_psb *p, uint8_t **data,
                      size_t *len, enum rt_psb_encoding *enc)
{
    struct rt_psb_error err;
    *data = load_real(name, len);
    int r = rt_psb_parse(*data, *len, p, enc, &err);
    if (r != 0)
        fail_msg("%s:%u: %s", name, err.line, err.message);
    assert_true(p->has_perflib && p->has_base_index && p->has_last_counter &&
                p->has_last_help);
    assert_int_equal(p->base_index, 1847);
    for (size_t i = 0; i < p->n_langs; i++) {
        const struct rt_pair_list *l = &p->langs[i].strings;
        assert_true(l->n > 1000);
        assert_int_equal(l->v[0].index, 1);
        assert_string_equal(l->v[0].text, "1847");
        for (size_t j = 1; j < l->n; j++)
            assert_true(l->v[j].index > l->v[j - 1].index);
    }
    for (size_t i = 0; i < p->n_services; i++)
        assert_true(p->services[i].has_first_counter &&
                    p->services[i].has_first_help &&
                    p->services[i].has_last_counter &&
                    p->services[i].has_last_help);
}

static void same_bytes_written(const struct rt_psb *p, const uint8_t *want,
                               size_t want_len)
{
    uint8_t *out;
    size_t len;
    assert_int_equal(rt_psb_write(p, &out, &len), 0);
    assert_int_equal(len, want_len);
    assert_memory_equal(out, want, len);
    free(out);
}

static void test_real_a(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    enum rt_psb_encoding enc;
    real_file("psb-A-001-009.PerfStringBackup.INI", &p, &d, &n, &enc);
    assert_int_equal(enc, RT_PSB_UTF16LE);
    assert_int_equal(p.last_counter, 3686);
    assert_int_equal(p.last_help, 3687);
    assert_int_equal(p.n_services, 18);
    assert_string_equal(p.services[0].name, ".NET CLR Data");
    assert_int_equal(p.services[0].first_counter, 2570);
    assert_int_equal(p.services[0].last_help, 2583);
    assert_int_equal(p.n_langs, 2);
    assert_string_equal(p.langs[0].id, "001");
    assert_string_equal(p.langs[1].id, "009");
    assert_int_equal(p.langs[0].strings.n, 2636);
    assert_int_equal(p.langs[1].strings.n, 2680);
    /* 44 bare LFs inside three Arabic help texts: kept in the text. */
    size_t lfs = 0, with_lf = 0;
    const struct rt_pair_list *ar = &p.langs[0].strings;
    for (size_t i = 0; i < ar->n; i++) {
        size_t c = 0;
        for (const char *s = ar->v[i].text; (s = strchr(s, '\n')); s++)
            c++;
        lfs += c;
        with_lf += c > 0;
    }
    assert_int_equal(lfs, 44);
    assert_int_equal(with_lf, 3);
    const char *t35 = text_of(&p, "001", 35);
    assert_non_null(strchr(t35, '\n'));
    assert_null(strchr(t35, '\r'));
    /* Trailing spaces kept, U+200F marks kept. */
    assert_string_equal(text_of(&p, "009", 3),
                        "The System performance object consists of counters "
                        "that apply to more than one instance of a component "
                        "processors on the computer. ");
    assert_memory_equal(text_of(&p, "001", 3), "\xE2\x80\x8F\xE2\x80\x8F", 6);
    assert_string_equal(text_of(&p, "001", 1847),
                        "\xD8\xB9\xD9\x84\xD8\xA7\xD9\x85\xD8\xA9 \xD9\x86"
                        "\xD9\x87\xD8\xA7\xD9\x8A\xD8\xA9");
    assert_string_equal(text_of(&p, "009", 3687),
                        "Total number of query requests rejected.");
    same_bytes_written(&p, d, n);
    rt_psb_free(&p);
    free(d);
}

static void test_real_b(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    real_file("psb-B-00A-009.PerfStringBackup.INI", &p, &d, &n, NULL);
    assert_int_equal(p.last_counter, 10004);
    assert_int_equal(p.n_services, 28);
    assert_non_null(rt_psb_service_find(&p, ".net clr networking 4.0.0.0"));
    assert_int_equal(rt_psb_service_find(&p, ".NET CLR Networking 4.0.0.0")
                         ->first_counter, 6900);
    assert_int_equal(p.n_langs, 2);
    assert_string_equal(p.langs[0].id, "009");
    assert_string_equal(p.langs[1].id, "00A");
    assert_int_equal(p.langs[0].strings.n, 4256);
    assert_int_equal(p.langs[1].strings.n, 4254);
    assert_string_equal(text_of(&p, "009", 2), "System");
    same_bytes_written(&p, d, n);
    rt_psb_free(&p);
    free(d);
}

static void test_real_c(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    real_file("psb-C-009.PerfStringBackup.INI", &p, &d, &n, NULL);
    assert_int_equal(p.last_counter, 11174);
    assert_int_equal(p.last_help, 11175);
    assert_int_equal(p.n_services, 31);
    assert_int_equal(p.n_langs, 1);
    assert_int_equal(p.langs[0].strings.n, 5224);
    /* Last Counter far above the highest index present. */
    assert_int_equal(p.langs[0].strings.v[p.langs[0].strings.n - 1].index,
                     6137);
    const struct rt_psb_service *s =
        rt_psb_service_find(&p, "ASP.NET_2.0.50727");
    assert_true(s && s->has_disable && s->disable == 4);
    s = rt_psb_service_find(&p, "ASP.NET_64_2.0.50727");
    assert_true(s && s->has_disable && s->disable == 2);
    size_t disabled = 0;
    for (size_t i = 0; i < p.n_services; i++)
        disabled += p.services[i].has_disable;
    assert_int_equal(disabled, 2);
    same_bytes_written(&p, d, n);
    rt_psb_free(&p);
    free(d);
}

static void test_real_d(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    real_file("psb-D-009.PerfStringBackup.INI", &p, &d, &n, NULL);
    assert_int_equal(p.last_counter, 10640);
    assert_int_equal(p.n_services, 31);
    assert_int_equal(p.langs[0].strings.n, 4718);
    assert_string_equal(text_of(&p, "009", 10005),
                        "Number of currently running web applications.");
    same_bytes_written(&p, d, n);
    rt_psb_free(&p);
    free(d);
}

static void test_real_e(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    real_file("psb-E-009.PerfStringBackup.INI", &p, &d, &n, NULL);
    assert_int_equal(p.last_counter, 11604);
    assert_int_equal(p.n_services, 22);
    /* Its [PERF_] sections come in descending order: kept as read. */
    assert_string_equal(p.services[0].name, "WSearchIdxPi");
    assert_string_equal(p.services[21].name, ".NET CLR Data");
    assert_int_equal(p.langs[0].strings.n, 4072);
    assert_string_equal(text_of(&p, "009", 11111),
                        "Terminal Services per-session resource monitoring.");
    same_bytes_written(&p, d, n);
    rt_psb_free(&p);
    free(d);
}

static void test_real_f(void **state)
{
    (void)state;
    struct rt_psb p;
    uint8_t *d;
    size_t n;
    enum rt_psb_encoding enc;
    real_file("psb-F-0804-009.utf8bom-converted.PerfStringBackup.ini", &p, &d,
              &n, &enc);
    assert_int_equal(enc, RT_PSB_UTF8_BOM);
    assert_int_equal(p.n_services, 33);
    assert_int_equal(p.n_langs, 2);
    assert_string_equal(p.langs[1].id, "0804");
    assert_non_null(rt_psb_language_find(&p, "804"));
    assert_int_equal(p.langs[0].strings.n, 4970);
    assert_int_equal(p.langs[1].strings.n, 4970);
    assert_string_equal(text_of(&p, "0804", 3),
                        "\xE8\xAF\xA5\xE7\xB3\xBB\xE7\xBB\x9F\xE6\x80\xA7"
                        "\xE8\x83\xBD\xE5\xAF\xB9\xE8\xB1\xA1\xE5\x8C\x85"
                        "\xE5\x90\xAB\xE5\xBA\x94\xE7\x94\xA8\xE4\xBA\x8E"
                        "\xE8\xAE\xA1\xE7\xAE\x97\xE6\x9C\xBA\xE4\xB8\x8A"
                        "\xE5\xA4\x9A\xE4\xB8\xAA\xE7\xBB\x84\xE4\xBB\xB6"
                        "\xE5\xA4\x84\xE7\x90\x86\xE5\x99\xA8\xE5\xAE\x9E"
                        "\xE4\xBE\x8B\xE7\x9A\x84\xE8\xAE\xA1\xE6\x95\xB0"
                        "\xE5\x99\xA8\xE3\x80\x82");
    size_t disabled = 0;
    for (size_t i = 0; i < p.n_services; i++)
        disabled += p.services[i].has_disable;
    assert_int_equal(disabled, 4);
    /* Written back as Windows writes it: the same text in UTF-16LE, with
     * the two leading line ends the conversion dropped. */
    char *text = malloc(n - 3 + 5);
    assert_non_null(text);
    memcpy(text, "\r\n\r\n", 4);
    memcpy(text + 4, d + 3, n - 3);
    text[n - 3 + 4] = '\0';
    size_t wl;
    uint8_t *want = utf16(text, &wl);
    same_bytes_written(&p, want, wl);
    free(want);
    free(text);
    rt_psb_free(&p);
    free(d);
}

/* --- edge cases --------------------------------------------------------- */

static int parse8(const char *s, struct rt_psb *p, struct rt_psb_error *err)
{
    return rt_psb_parse((const uint8_t *)s, strlen(s), p, NULL, err);
}

static void expect_error(const char *s, unsigned line, const char *words)
{
    struct rt_psb p;
    struct rt_psb_error err;
    assert_int_equal(parse8(s, &p, &err), -1);
    if (err.line != line || !strstr(err.message, words))
        fail_msg("want line %u '%s', got line %u '%s'", line, words, err.line,
                 err.message);
    assert_int_equal(p.n_langs + p.n_services, 0);
    /* The same in UTF-16LE names the same line. */
    size_t n;
    uint8_t *u = NULL;
    if (rt_utf8_to_utf16le(s, strlen(s), &u, &n, NULL) != 0)
        return;   /* not UTF-8: the case is about UTF-8 */
    assert_int_equal(rt_psb_parse(u, n, &p, NULL, &err), -1);
    assert_int_equal(err.line, line);
    free(u);
}

/* A backup put together by hand has no parse's index: its services are
 * found by a scan, in any case, and a name it lacks is not found, the
 * scan stopping at its last service (none at all in an empty one). */
static void service_found_without_an_index(void **state)
{
    (void)state;
    struct rt_psb empty = {0};
    assert_null(rt_psb_service_find(&empty, "PerfOS"));
    struct rt_psb_service *v = calloc(2, sizeof *v);
    assert_non_null(v);
    v[0].name = (char *)"PerfOS";
    v[1].name = (char *)"\xd0\x94\xd0\x90"; /* ДА */
    struct rt_psb hand = {0};
    hand.services = v;
    hand.n_services = 2;
    assert_ptr_equal(rt_psb_service_find(&hand, "perfos"), &v[0]);
    assert_ptr_equal(rt_psb_service_find(&hand, "\xd0\xb4\xd0\xb0"), &v[1]);
    assert_null(rt_psb_service_find(&hand, "PerfProc"));
    free(v);
}

/* Sections are found by search in the parse's index as a scan finds
 * them (names in any case, Cyrillic too; ids by value, 804 as 0804); a
 * second section is refused at the earliest repeat in the file, whatever
 * its name sorts as, and an error before it is reported instead. */
static void test_many_sections(void **state)
{
    (void)state;
    struct rt_strbuf b = {0};
    for (unsigned i = 0; i < 500; i++)
        rt_strbuf_printf(&b, "[PERF_svc%u]\r\nFirst Counter=%u\r\n",
                         (i * 7919) % 500, 2000 + 2 * i);
    rt_strbuf_printf(&b, "[PERF_\xd0\xb4\xd0\xb0]\r\n[PerfStrings_0804]\r\n"
                     "1=1847\r\n[PerfStrings_009]\r\n1=1847\r\n");
    char *text = rt_strbuf_take(&b);
    struct rt_psb p;
    struct rt_psb_error err;
    assert_int_equal(parse8(text, &p, &err), 0);
    assert_int_equal(p.n_services, 501);
    for (unsigned i = 0; i < 500; i++) {
        char name[16];
        snprintf(name, sizeof name, "SVC%u", i);
        const struct rt_psb_service *s = rt_psb_service_find(&p, name);
        assert_non_null(s);
        assert_int_equal(strcasecmp(s->name, name), 0);
    }
    assert_null(rt_psb_service_find(&p, "svc500"));
    assert_non_null(rt_psb_service_find(&p, "\xd0\x94\xd0\x90")); /* ДА */
    const struct rt_psb_language *l = rt_psb_language_find(&p, "804");
    assert_non_null(l);
    assert_string_equal(l->id, "0804");
    assert_null(rt_psb_language_find(&p, "9"));
    assert_string_equal(rt_psb_language_find(&p, "0009")->id, "009");
    assert_null(rt_psb_language_find(&p, "CurrentLanguage"));
    rt_psb_free(&p);
    free(text);
    /* zeta repeats on line 4, alpha on line 5: zeta is the one named. */
    expect_error("[PERF_zeta]\r\n[PERF_alpha]\r\n[PerfStrings_009]\r\n"
                 "[PERF_Zeta]\r\n[PERF_ALPHA]\r\n", 4,
                 "second section for service 'Zeta' (the first is on line 1)");
    expect_error("[PerfStrings_009]\r\n[PERF_a]\r\n[PerfStrings_0009]\r\n"
                 "[PERF_A]\r\n", 3, "language 0009 a second time (as 009 on "
                 "line 1)");
    /* A line the parse refuses before the repeat is the error. */
    expect_error("[PERF_a]\r\nFirst Counter=x\r\n[PERF_a]\r\n", 2,
                 "not a decimal");
}

static void test_edge_text(void **state)
{
    (void)state;
    /* LF line ends, sections in any order, a four-digit language, '=' and
     * ';' in text, an empty text, a continuation across an empty line. */
    const char *s =
        "[PerfStrings_0404]\n"
        "1=1847\n"
        "2=a=b;c \"q\" \n"
        "3=\n"
        "5=first\n"
        "\n"
        "  second\n"
        "\n"
        "[PERF_My Svc.1]\n"
        "First Counter = 2000\n"
        "first help=2001\n"
        "Last Counter=2002\n"
        "Last Help=2003\n"
        "Disable Performance Counters=1\n"
        "\n"
        "[perflib]\n"
        "Last Help=2003\n";
    struct rt_psb p;
    struct rt_psb_error err;
    enum rt_psb_encoding enc;
    assert_int_equal(rt_psb_parse((const uint8_t *)s, strlen(s), &p, &enc,
                                  &err), 0);
    assert_int_equal(enc, RT_PSB_UTF8);
    assert_int_equal(p.n_langs, 1);
    assert_string_equal(text_of(&p, "404", 2), "a=b;c \"q\" ");
    assert_string_equal(text_of(&p, "404", 3), "");
    assert_string_equal(text_of(&p, "404", 5), "first\n\n  second");
    assert_int_equal(p.langs[0].strings.n, 4);
    const struct rt_psb_service *sv = rt_psb_service_find(&p, "my svc.1");
    assert_non_null(sv);
    assert_true(sv->first_counter == 2000 && sv->first_help == 2001 &&
                sv->last_counter == 2002 && sv->last_help == 2003 &&
                sv->has_disable && sv->disable == 1);
    assert_true(p.has_perflib && p.has_last_help && !p.has_last_counter &&
                !p.has_base_index);
    rt_psb_free(&p);

    /* CR LF records with a bare LF inside: the LF is text, the CR LF of the
     * continued line too. */
    s = "\r\n\r\n[PerfStrings_009]\r\n1=1847\r\n3=a\nb\r\nc\r\n5=d";
    assert_int_equal(parse8(s, &p, &err), 0);
    assert_string_equal(text_of(&p, "009", 3), "a\nb\r\nc");
    assert_string_equal(text_of(&p, "009", 5), "d");
    uint8_t *out;
    size_t n, wn;
    assert_int_equal(rt_psb_write(&p, &out, &n), 0);
    uint8_t *want = utf16(s, &wn);
    assert_int_equal(n, wn);
    assert_memory_equal(out, want, n);
    free(out);
    free(want);
    rt_psb_free(&p);

    /* UTF-16LE with a byte-order mark, UTF-8 with one. */
    uint8_t *u = utf16("\xEF\xBB\xBF[Perflib]\r\nLast Counter=7", &n);
    assert_int_equal(rt_psb_parse(u, n, &p, &enc, &err), 0);
    assert_int_equal(enc, RT_PSB_UTF16LE_BOM);
    assert_int_equal(p.last_counter, 7);
    rt_psb_free(&p);
    free(u);
    s = "\xEF\xBB\xBF[Perflib]\r\nLast Counter=8\r\n";
    assert_int_equal(rt_psb_parse((const uint8_t *)s, strlen(s), &p, &enc,
                                  &err), 0);
    assert_int_equal(enc, RT_PSB_UTF8_BOM);
    assert_int_equal(p.last_counter, 8);
    rt_psb_free(&p);

    /* Empty input: nothing at all. */
    assert_int_equal(rt_psb_parse((const uint8_t *)"", 0, &p, NULL, &err), 0);
    assert_int_equal(p.has_perflib + p.n_langs + p.n_services, 0);
    assert_int_equal(rt_psb_write(&p, &out, &n), 0);
    assert_int_equal(n, 0);
    free(out);
    rt_psb_free(&p);
}

static void test_edge_errors(void **state)
{
    (void)state;
    expect_error("\r\n\r\nhello\r\n", 3, "before the first section");
    expect_error("\r\n[Perflib]\r\nLast Counter=12x\r\n", 3,
                 "Last Counter is not a decimal number");
    expect_error("[Perflib]\r\nLast Counter=99999999999", 2, "not a decimal");
    expect_error("[Perflib]\r\nLast Counter=\r\n", 2, "not a decimal");
    expect_error("[Perflib]\r\nLast Counter=1\r\nLast Counter=2\r\n", 3,
                 "Last Counter a second time");
    expect_error("[Perflib]\r\nVersion=1\r\n", 2, "unknown name 'Version'");
    expect_error("[PERF_x]\r\nFirst Counter\r\n", 2, "without '='");
    expect_error("[Perflib]\r\n\r\n[Foo]\r\n", 3, "unknown section [Foo]");
    expect_error("[Perflib]\r\n[perflib]\r\n", 2, "second [Perflib]");
    expect_error("[PERF_A b]\r\n[PERF_a B]\r\n", 2,
                 "second section for service 'a B'");
    expect_error("[PERF_]\r\n", 1, "without a service name");
    expect_error("[PerfStrings_804]\r\n1=1\r\n[PerfStrings_0804]\r\n", 3,
                 "language 0804 a second time");
    expect_error("[PerfStrings_9]\r\n", 1, "not a language id");
    expect_error("[PerfStrings_009]\r\nhello\r\n1=1847\r\n", 2,
                 "text without an index");
    expect_error("[PerfStrings_009]\r\n1=1847\r\n0=zero\r\n", 3,
                 "index 0 is out of range");
    expect_error("[PerfStrings_009]\r\n1=1847\r\n2147483649=x\r\n", 3,
                 "out of range");
    expect_error("[Perflib]\r\n\xC3\x28\r\n", 2, "invalid UTF-8");
    /* A header cut before its ']', before any section or in one. */
    expect_error("[Perflib\r\nBase Index=1847\r\n", 1,
                 "section header without its closing ']'");
    expect_error("[Perflib]\r\nLast Help=3\r\n[PERF_x\r\n", 3,
                 "section header without its closing ']'");

    struct rt_psb p;
    struct rt_psb_error err;
    /* An odd number of bytes: cut in the middle of a character. */
    size_t n;
    uint8_t *u = utf16("\r\n\r\n[PerfStrings_009]\r\n1=1847\r\n2=Sys", &n);
    assert_int_equal(rt_psb_parse(u, n - 1, &p, NULL, &err), -1);
    assert_int_equal(err.line, 5);
    assert_non_null(strstr(err.message, "odd number of bytes"));
    /* An unpaired surrogate, on the line that holds it. */
    u[n - 2] = 0x00;
    u[n - 1] = 0xD8;
    assert_int_equal(rt_psb_parse(u, n, &p, NULL, &err), -1);
    assert_int_equal(err.line, 5);
    assert_non_null(strstr(err.message, "surrogate"));
    /* A NUL character. */
    u[n - 1] = 0x00;
    assert_int_equal(rt_psb_parse(u, n, &p, NULL, &err), -1);
    assert_int_equal(err.line, 5);
    assert_non_null(strstr(err.message, "NUL"));
    free(u);
    /* UTF-16 big-endian. */
    assert_int_equal(rt_psb_parse((const uint8_t *)"\xFE\xFF\0[", 4, &p, NULL,
                                  &err), -1);
    assert_non_null(strstr(err.message, "big-endian"));
}

static void test_merge_split(void **state)
{
    (void)state;
    struct rt_name_table t = {0};
    /* Counter out of order, a duplicate, and a Help index equal to a
     * Counter one. */
    assert_int_equal(rt_pair_list_append(&t.counter, 1, "1847"), 0);
    assert_int_equal(rt_pair_list_append(&t.counter, 4, "Memory"), 0);
    assert_int_equal(rt_pair_list_append(&t.counter, 2, "System"), 0);
    assert_int_equal(rt_pair_list_append(&t.counter, 4, "Memory 2"), 0);
    assert_int_equal(rt_pair_list_append(&t.counter, 9, "odd name"), 0);
    assert_int_equal(rt_pair_list_append(&t.help, 5, "Memory help"), 0);
    assert_int_equal(rt_pair_list_append(&t.help, 3, "System help"), 0);
    assert_int_equal(rt_pair_list_append(&t.help, 9, "odd help"), 0);
    struct rt_pair_list m;
    assert_int_equal(rt_psb_merge(&t, &m), 0);
    const char *want[][2] = {{"1", "1847"},   {"2", "System"},
                             {"3", "System help"}, {"4", "Memory 2"},
                             {"5", "Memory help"}, {"9", "odd help"}};
    assert_int_equal(m.n, 6);
    for (size_t i = 0; i < m.n; i++) {
        assert_int_equal(m.v[i].index, atoi(want[i][0]));
        assert_string_equal(m.v[i].text, want[i][1]);
    }
    struct rt_name_table s;
    assert_int_equal(rt_psb_split(&m, &s), 0);
    assert_int_equal(s.counter.n, 3);
    assert_int_equal(s.counter.v[0].index, 1);
    assert_int_equal(s.counter.v[2].index, 4);
    assert_int_equal(s.help.n, 3);
    assert_int_equal(s.help.v[2].index, 9);
    /* The view: the same pairs, their texts the list's own bytes (not
     * copies), no pair taken; freed before the list, which keeps them
     * (the sanitizers' build sees a text freed or lost). */
    struct rt_name_table v;
    assert_int_equal(rt_psb_split_view(&m, &v), 0);
    assert_int_equal(v.counter.n, 3);
    assert_int_equal(v.help.n, 3);
    for (int k = 0; k < 2; k++) {
        const struct rt_pair_list *a = k ? &s.help : &s.counter;
        const struct rt_pair_list *b = k ? &v.help : &v.counter;
        for (size_t i = 0; i < a->n; i++) {
            assert_int_equal(b->v[i].index, a->v[i].index);
            assert_int_equal(b->v[i].text_len, a->v[i].text_len);
            assert_string_equal(b->v[i].text, a->v[i].text);
        }
    }
    assert_ptr_equal(v.counter.v[1].text, m.v[1].text);
    assert_int_equal(rt_pair_list_append(&v.help, 11, "more"), -1);
    assert_int_equal(v.help.n, 3);
    rt_name_table_free(&v);
    assert_string_equal(m.v[5].text, "odd help");
    rt_name_table_free(&s);
    rt_pair_list_free(&m);
    rt_name_table_free(&t);
}

#ifdef HAVE_ALLOC_HOOK
/* The tables of a 200-pair string list, each allocation of the split
 * failing in turn: out of memory is reported (-1, the tables emptied),
 * never tables short of the pairs that found no room. */
static void split_reports_out_of_memory(void **state)
{
    (void)state;
    struct rt_pair_list strings = {0};
    for (uint32_t i = 1; i <= 200; i++) {
        char text[32];
        snprintf(text, sizeof text, "text %u", i);
        assert_int_equal(rt_pair_list_append(&strings, i, text), 0);
    }
    struct rt_name_table t;
    alloc_calls = 0;
    assert_int_equal(rt_psb_split(&strings, &t), 0);
    unsigned long calls = alloc_calls;
    assert_int_equal(t.counter.n + t.help.n, 200);
    rt_name_table_free(&t);
    /* Under valgrind, whose allocator takes malloc over in every object
     * (this hook's included), no call reaches the hook. */
    if (calls == 0) {
        rt_pair_list_free(&strings);
        skip();
    }
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_psb_split(&strings, &t);
        alloc_fail_at = 0;
        if (r != -1)
            fail_msg("allocation %lu of %lu failed: returned %d, %zu + %zu "
                     "pairs", k, calls, r, t.counter.n, t.help.n);
        assert_int_equal(t.counter.n + t.help.n, 0);
    }
    rt_pair_list_free(&strings);
}

/* The merge of tables of 120 indices, each twice (in Counter, or in
 * Counter and Help, in an order that is not the indices'), each of its
 * allocations failing in turn (the C library's sort takes scratch space
 * too, and sorts without it when there is none): out of memory reported
 * with an empty list, or the whole list in index order with the last of
 * equal indices, never another text. */
static void merge_keeps_the_last_of_equal_indices_or_fails(void **state)
{
    (void)state;
    enum { N = 120 };
    struct rt_name_table t = {0};
    char text[32];
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < N; i++) {
            uint32_t index = 2 + 2 * ((i * 37) % N);
            struct rt_pair_list *l = pass && i % 2 ? &t.help : &t.counter;
            snprintf(text, sizeof text, "%s %u", pass ? "last" : "first",
                     index);
            assert_int_equal(rt_pair_list_append(l, index, text), 0);
        }
    alloc_calls = 0;
    struct rt_pair_list m;
    assert_int_equal(rt_psb_merge(&t, &m), 0);
    unsigned long calls = alloc_calls;
    rt_pair_list_free(&m);
    if (calls == 0) {
        rt_name_table_free(&t);
        skip();     /* valgrind's allocator: the hook sees nothing */
    }
    for (unsigned long k = 0; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_psb_merge(&t, &m);
        alloc_fail_at = 0;
        if (r != 0) {
            assert_int_equal(r, -1);
            assert_int_equal(m.n, 0);
            continue;
        }
        assert_int_equal(m.n, N);
        for (uint32_t i = 0; i < N; i++) {
            snprintf(text, sizeof text, "last %u", 2 + 2 * i);
            assert_int_equal(m.v[i].index, 2 + 2 * i);
            if (strcmp(m.v[i].text, text))
                fail_msg("allocation %lu failed: index %u is '%s'", k,
                         m.v[i].index, m.v[i].text);
        }
        rt_pair_list_free(&m);
    }
    rt_name_table_free(&t);
}

/* A language looked up in the index of a file's sections: one past the
 * last (FFFF, after 009 and 0804) is not found, whatever lies in memory
 * past the index's entries (every block malloc gives while the file is
 * read is filled with FFFF's key), and each present one is. */
static void language_past_the_last_not_found(void **state)
{
    (void)state;
    const char *text = "[PERF_svc]\r\nFirst Counter=2000\r\n"
                       "[PerfStrings_009]\r\n1=1847\r\n"
                       "[PerfStrings_0804]\r\n1=1847\r\n";
    struct rt_psb p;
    struct rt_psb_error err;
    alloc_calls = 0;
    malloc_fill = 0xFFFF + 1;
    int r = parse8(text, &p, &err);
    malloc_fill = 0;
    assert_int_equal(r, 0);
    if (alloc_calls == 0) {
        rt_psb_free(&p);
        skip();     /* valgrind's allocator: the hook sees nothing */
    }
    assert_string_equal(rt_psb_language_find(&p, "009")->id, "009");
    assert_string_equal(rt_psb_language_find(&p, "804")->id, "0804");
    assert_null(rt_psb_language_find(&p, "FFFF"));
    assert_null(rt_psb_language_find(&p, "0805"));
    assert_null(rt_psb_language_find(&p, "001"));
    rt_psb_free(&p);
}
#endif

/* --- robustness ---------------------------------------------------------- */

static uint32_t rng = 12345;
static uint32_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

/* Parses DATA; when it reads, writing and reading again must agree. */
static void survive(const uint8_t *data, size_t len)
{
    struct rt_psb p, q;
    struct rt_psb_error err;
    if (rt_psb_parse(data, len, &p, NULL, &err) != 0) {
        assert_true(err.message[0] != '\0');
        return;
    }
    uint8_t *out, *out2;
    size_t n, n2;
    assert_int_equal(rt_psb_write(&p, &out, &n), 0);
    assert_int_equal(rt_psb_parse(out, n, &q, NULL, &err), 0);
    assert_int_equal(rt_psb_write(&q, &out2, &n2), 0);
    assert_int_equal(n, n2);
    assert_memory_equal(out, out2, n);
    free(out);
    free(out2);
    rt_psb_free(&p);
    rt_psb_free(&q);
}

/* What rt_psb_parse_view said it was done with: ranges in order, each
 * starting where the one before ended. */
struct done_log {
    size_t next, calls;
};

static void log_done(void *ctx, size_t off, size_t n)
{
    struct done_log *d = ctx;
    assert_int_equal(off, d->next);
    assert_true(n > 0);
    d->next = off + n;
    d->calls++;
}

/* PIECE, a backup read in pieces, holds what WHOLE (the same read whole)
 * does, pair for pair: EMOJI's text ends in a 4-byte character, LONG's
 * is LONG_TEXT bytes, 3's "end". Both freed. */
static void expect_read_as_whole(struct rt_psb *whole, struct rt_psb *piece,
                                 uint32_t emoji, uint32_t lng,
                                 size_t long_text)
{
    const struct rt_pair_list *a = &whole->langs[0].strings,
                              *c = &piece->langs[0].strings;
    assert_int_equal(a->n, c->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_int_equal(a->v[i].index, c->v[i].index);
        assert_string_equal(a->v[i].text, c->v[i].text);
    }
    const char *t = text_of(piece, "009", emoji);
    assert_string_equal(t + strlen(t) - 4, "\xF0\x9F\x98\x80");
    assert_int_equal(strlen(text_of(piece, "009", lng)), long_text);
    assert_string_equal(text_of(piece, "009", 3), "end");
    rt_psb_free(whole);
    rt_psb_free(piece);
}

/* A backup of five decoding pieces (1 MiB of UTF-16 each): a text line
 * longer than two pieces, a surrogate pair and a CR LF each on a piece's
 * edge, and errors in the last piece, each on its line; the bytes said
 * done front to back, all of them, past the byte-order mark. */
static void test_pieces(void **state)
{
    (void)state;
    struct rt_strbuf b = {0};
    static const char head[] = "[Perflib]\r\nLast Counter=9\r\nLast Help=9"
                               "\r\n[PerfStrings_009]\r\n";
    rt_strbuf_append(&b, head, strlen(head));
    /* Lines of 100 characters up to just before the 1 MiB edge (524,288
     * units), then one that a 4-byte character straddles. */
    unsigned index = 2, lines = 4;
    char line[128];
    while (b.len < 524288 - 150) {
        int n = snprintf(line, sizeof line, "%u=%0*u\r\n", index, 90, index);
        rt_strbuf_append(&b, line, (size_t)n);
        index += 2;
        lines++;
    }
    /* The pair's first unit the first piece's last (unit 524,287). */
    snprintf(line, sizeof line, "%u=", index);
    size_t fill = 524287 - b.len;
    rt_strbuf_append(&b, line, strlen(line));
    for (size_t i = strlen(line); i < fill; i++)
        rt_strbuf_append(&b, "a", 1);
    assert_int_equal(b.len, 524287);
    rt_strbuf_append(&b, "\xF0\x9F\x98\x80\r\n", 6);
    lines++;
    uint32_t emoji = index;
    index += 2;
    /* A line of more than two pieces whose CR is the fourth piece's last
     * unit (2,097,151) and its LF the fifth's first. */
    snprintf(line, sizeof line, "%u=", index);
    size_t units = b.len - 2;            /* the emoji: 4 bytes, 2 units */
    size_t long_text = 2097151 - units - strlen(line);
    rt_strbuf_append(&b, line, strlen(line));
    for (size_t i = 0; i < long_text; i++)
        rt_strbuf_append(&b, i % 7 ? "b" : "c", 1);
    rt_strbuf_append(&b, "\r\n3=end", 8);
    lines += 2;
    assert_false(b.failed);
    size_t len;
    uint8_t *u = utf16(b.s, &len);
    uint8_t *bom = malloc(len + 2);
    bom[0] = 0xFF;
    bom[1] = 0xFE;
    memcpy(bom + 2, u, len);

    struct rt_psb whole, piece;
    struct rt_psb_error err;
    struct done_log d = {2, 0};
    enum rt_psb_encoding enc;
    assert_int_equal(rt_psb_parse(u, len, &whole, NULL, &err), 0);
    assert_int_equal(rt_psb_parse_view(bom, len + 2, log_done, &d, &piece,
                                       &enc, &err), 0);
    assert_int_equal(enc, RT_PSB_UTF16LE_BOM);
    assert_int_equal(d.next, len + 2);
    assert_int_equal(d.calls, 5);
    assert_int_equal(whole.langs[0].strings.n, (index - 2) / 2 + 2);
    expect_read_as_whole(&whole, &piece, emoji, index, long_text);

    /* A NUL character and an unpaired surrogate, in the last piece: their
     * line, counted across the pieces before. */
    size_t at = len - 6;                 /* the 'e' of "end" */
    u[at] = 0;
    assert_int_equal(rt_psb_parse_view(u, len, NULL, NULL, &piece, NULL,
                                       &err), -1);
    assert_int_equal(err.line, lines);
    assert_non_null(strstr(err.message, "NUL character"));
    u[at] = 0x00;
    u[at + 1] = 0xDC;
    assert_int_equal(rt_psb_parse(u, len, &piece, NULL, &err), -1);
    assert_int_equal(err.line, lines);
    assert_non_null(strstr(err.message, "unpaired UTF-16 surrogate"));
    free(u);
    free(bom);
    rt_strbuf_free(&b);
}

/* The same in UTF-8 with its mark (an edited file), read in pieces of
 * 1 MiB too (review 43 R43-10: it was checked and copied whole, a NUL on
 * line 4 of a sparse file refused only once 1.5 GB was read): a 4-byte
 * character on a piece's edge, a line longer than two pieces, the bytes
 * said done front to back; a NUL and a bad byte in the last piece on
 * their line. The text read equals the UTF-16LE file's. */
static void test_pieces_utf8(void **state)
{
    (void)state;
    struct rt_strbuf b = {0};
    static const char head[] = "[Perflib]\r\nLast Counter=9\r\nLast Help=9"
                               "\r\n[PerfStrings_009]\r\n";
    rt_strbuf_append(&b, "\xEF\xBB\xBF", 3);
    rt_strbuf_append(&b, head, strlen(head));
    unsigned index = 2, lines = 4;
    char line[128];
    const size_t edge = 3 + 1048576;     /* the first piece's end */
    while (b.len < edge - 150) {
        int n = snprintf(line, sizeof line, "%u=%0*u\r\n", index, 90, index);
        rt_strbuf_append(&b, line, (size_t)n);
        index += 2;
        lines++;
    }
    snprintf(line, sizeof line, "%u=", index);
    rt_strbuf_append(&b, line, strlen(line));
    while (b.len < edge - 2)
        rt_strbuf_append(&b, "a", 1);
    rt_strbuf_append(&b, "\xF0\x9F\x98\x80\r\n", 6);   /* across the edge */
    lines++;
    uint32_t emoji = index;
    index += 2;
    snprintf(line, sizeof line, "%u=", index);
    rt_strbuf_append(&b, line, strlen(line));
    size_t long_text = 2 * 1048576 + 1000;
    for (size_t i = 0; i < long_text; i++)
        rt_strbuf_append(&b, i % 7 ? "b" : "c", 1);
    rt_strbuf_append(&b, "\r\n3=end", 7);
    lines += 2;
    assert_false(b.failed);
    uint8_t *bytes = (uint8_t *)b.s;
    size_t len = b.len, len16;
    uint8_t *u = utf16(b.s + 3, &len16);

    struct rt_psb whole, piece;
    struct rt_psb_error err;
    struct done_log d = {3, 0};
    enum rt_psb_encoding enc;
    assert_int_equal(rt_psb_parse(u, len16, &whole, NULL, &err), 0);
    if (rt_psb_parse_view(bytes, len, log_done, &d, &piece, &enc, &err))
        fail_msg("line %u: %s", err.line, err.message);
    assert_int_equal(enc, RT_PSB_UTF8_BOM);
    assert_int_equal(d.next, len);
    assert_true(d.calls >= 4);
    expect_read_as_whole(&whole, &piece, emoji, index, long_text);

    size_t at = len - 3;                 /* the 'e' of "end" */
    bytes[at] = 0;
    assert_int_equal(rt_psb_parse_view(bytes, len, NULL, NULL, &piece, NULL,
                                       &err), -1);
    assert_int_equal(err.line, lines);
    assert_non_null(strstr(err.message, "NUL character"));
    bytes[at] = 0xC3;
    bytes[at + 1] = 0x28;
    assert_int_equal(rt_psb_parse(bytes, len, &piece, NULL, &err), -1);
    assert_int_equal(err.line, lines);
    assert_non_null(strstr(err.message, "invalid UTF-8"));
    free(u);
    rt_strbuf_free(&b);
}

static void test_robust(void **state)
{
    (void)state;
    static const char seed[] =
        "\r\n\r\n[Perflib]\r\nBase Index=1847\r\nLast Counter=2002\r\n"
        "Last Help=2003\r\n\r\n[PERF_svc]\r\nFirst Counter=2000\r\n"
        "First Help=2001\r\nLast Counter=2002\r\nLast Help=2003\r\n"
        "Disable Performance Counters=4\r\n\r\n[PerfStrings_009]\r\n1=1847\r\n"
        "2=System\r\n3=The system=object; \"x\"\n more\r\n2000=Mine\r\n"
        "2001=Help\r\n\r\n[PerfStrings_0804]\r\n1=1847\r\n2=\xE7\xB3\xBB";
    size_t n8 = sizeof seed - 1, n16;
    uint8_t *u16 = utf16(seed, &n16);
    const uint8_t *seeds[] = {(const uint8_t *)seed, u16};
    size_t lens[] = {n8, n16};
    uint8_t buf[4096];
    for (int round = 0; round < 4000; round++) {
        int which = round % 2;
        size_t len = lens[which];
        memcpy(buf, seeds[which], len);
        switch (next() % 4) {
        case 0: /* flip bytes */
            for (int k = 1 + next() % 4; k > 0; k--)
                buf[next() % len] = (uint8_t)next();
            break;
        case 1: /* truncate */
            len = next() % (len + 1);
            break;
        case 2: /* insert an interesting byte */
        {
            static const uint8_t b[] = {'\n', '\r', '=', '[', ']', 0, 0xFF,
                                        0xD8, 0xDC, '0', '9', 0x80};
            size_t at = next() % len;
            memmove(buf + at + 1, buf + at, len - at);
            buf[at] = b[next() % sizeof b];
            len++;
            break;
        }
        default: /* random bytes */
            len = next() % 300;
            for (size_t i = 0; i < len; i++)
                buf[i] = (uint8_t)next();
        }
        survive(buf, len);
    }
    free(u16);
    /* A real file cut at many places. */
    size_t n;
    uint8_t *d = load_real("psb-A-001-009.PerfStringBackup.INI", &n);
    for (int k = 0; k < 12; k++)
        survive(d, next() % n);
    free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_a),      cmocka_unit_test(test_real_b),
        cmocka_unit_test(test_real_c),      cmocka_unit_test(test_real_d),
        cmocka_unit_test(test_real_e),      cmocka_unit_test(test_real_f),
        cmocka_unit_test(test_edge_text),   cmocka_unit_test(test_edge_errors),
        cmocka_unit_test(test_merge_split), cmocka_unit_test(test_robust),
        cmocka_unit_test(test_pieces),      cmocka_unit_test(test_many_sections),
        cmocka_unit_test(test_pieces_utf8),
        cmocka_unit_test(service_found_without_an_index),
#ifdef HAVE_ALLOC_HOOK
        cmocka_unit_test(split_reports_out_of_memory),
        cmocka_unit_test(merge_keeps_the_last_of_equal_indices_or_fails),
        cmocka_unit_test(language_past_the_last_not_found),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
