/* .reg files: reading and writing both dialects, every value type,
 * escapes, continuations, errors with their line, round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#include "model/reg_file.h"
#include "model/reg_types.h"
#include "model/regtree.h"

/* malloc too: a value's data is malloc'd. */
#define ALLOC_HOOK_MALLOC 1
#include "alloc_hook.h"

static const char KEY[] = "HKEY_LOCAL_MACHINE\\SOFTWARE\\Test";

static void files_equal(const struct rt_reg_file *a, const struct rt_reg_file *b)
{
    assert_int_equal(a->format, b->format);
    assert_int_equal(a->n_keys, b->n_keys);
    for (size_t i = 0; i < a->n_keys; i++) {
        const struct rt_reg_key *x = &a->keys[i], *y = &b->keys[i];
        assert_string_equal(x->path, y->path);
        assert_int_equal(x->del, y->del);
        assert_int_equal(x->n_vals, y->n_vals);
        for (size_t j = 0; j < x->n_vals; j++) {
            assert_string_equal(x->vals[j].name, y->vals[j].name);
            assert_int_equal(x->vals[j].del, y->vals[j].del);
            assert_int_equal(x->vals[j].v.type, y->vals[j].v.type);
            assert_int_equal(x->vals[j].v.len, y->vals[j].v.len);
            if (x->vals[j].v.len)
                assert_memory_equal(x->vals[j].v.data, y->vals[j].v.data,
                                    x->vals[j].v.len);
        }
    }
}

/* Output bytes as a C string (UTF-8 and REGEDIT4 output hold no NUL). */
static char *text_of(const uint8_t *b, size_t len)
{
    char *t = malloc(len + 1);
    memcpy(t, b, len);
    t[len] = '\0';
    return t;
}

static void parse_ok(const char *text, struct rt_reg_file *f)
{
    struct rt_reg_error e;
    int r = rt_reg_parse((const uint8_t *)text, strlen(text), NULL, f, &e);
    if (r != 0)
        fail_msg("line %u: %s", e.line, e.message);
}

static void add(struct rt_reg_key *k, const char *name, uint32_t type,
                const void *data, size_t len)
{
    struct rt_value v = {type, (uint8_t *)data, len};
    assert_int_equal(rt_reg_add_value(k, name, &v), 0);
}

/* A file with every value type and every shape of name and data. */
static void build_every_type(struct rt_reg_file *f, enum rt_reg_format fmt)
{
    memset(f, 0, sizeof *f);
    f->format = fmt;
    struct rt_reg_key *k = rt_reg_add_key(f, KEY, 0);
    assert_non_null(k);
    static const char16_t sz[] = u"C:\\Windows\\perf \"x\".dll";
    static const char16_t expand[] = u"%SystemRoot%\\System32\\perfos.dll";
    static const char16_t msz[] = u"1\0" "1847\0" "2\0System\0";
    static const char16_t crlf[] = u"two\r\nlines";
    static const char16_t unterminated[] = {'a', 'b'};
    static const uint8_t dword[] = {0x0a, 0, 0, 0x80};
    static const uint8_t three[] = {1, 2, 3};
    static const uint8_t qword[] = {1, 2, 3, 4, 5, 6, 7, 8};
    uint8_t big[300];
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (uint8_t)(i * 7);
    add(k, "", RT_REG_SZ, sz, sizeof sz);
    add(k, "Library", RT_REG_EXPAND_SZ, expand, sizeof expand);
    add(k, "Counter", RT_REG_MULTI_SZ, msz, sizeof msz);
    add(k, "name with \"quotes\" and \\", RT_REG_DWORD, dword, sizeof dword);
    add(k, "Short dword", RT_REG_DWORD, three, sizeof three);
    add(k, "None", RT_REG_NONE, three, sizeof three);
    add(k, "Empty none", RT_REG_NONE, "", 0);
    add(k, "Empty string", RT_REG_SZ, u"", 2);
    add(k, "CRLF", RT_REG_SZ, crlf, sizeof crlf);
    add(k, "Unterminated", RT_REG_SZ, unterminated, sizeof unterminated);
    add(k, "Binary", RT_REG_BINARY, big, sizeof big);
    add(k, "BE", RT_REG_DWORD_BIG_ENDIAN, dword, sizeof dword);
    add(k, "Link", RT_REG_LINK, expand, sizeof expand);
    add(k, "Res", RT_REG_RESOURCE_LIST, three, sizeof three);
    add(k, "Full", RT_REG_FULL_RESOURCE_DESCRIPTOR, three, sizeof three);
    add(k, "Req", RT_REG_RESOURCE_REQUIREMENTS_LIST, three, sizeof three);
    add(k, "Q", RT_REG_QWORD, qword, sizeof qword);
    add(k, "Odd type", 0xffff0011u, three, sizeof three);
    assert_int_equal(rt_reg_add_value(k, "Gone", NULL), 0);
    assert_non_null(rt_reg_add_key(f, "HKEY_LOCAL_MACHINE\\SOFTWARE\\Old", 1));
    assert_non_null(rt_reg_add_key(f, "HKEY_CURRENT_USER\\Empty", 0));
}

static void every_type_round_trips_in_every_format(void **state)
{
    (void)state;
    static const enum rt_reg_format fmts[] = {
        RT_REG_V5_UTF16, RT_REG_V5_UTF8, RT_REG_V5_UTF8_BOM, RT_REG_V4};
    size_t utf8_len = 0;
    for (size_t i = 0; i < 4; i++) {
        struct rt_reg_file f, g;
        struct rt_reg_error e;
        build_every_type(&f, fmts[i]);
        uint8_t *out, *again;
        /* Each length is the write's own, never one left from before. */
        size_t len = 0, len2 = 0;
        assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
        if (fmts[i] == RT_REG_V5_UTF8)
            utf8_len = len;
        if (fmts[i] == RT_REG_V5_UTF8_BOM) {
            /* The same text behind the three bytes of the mark. */
            assert_int_equal(len, utf8_len + 3);
            assert_memory_equal(out, "\xEF\xBB\xBF", 3);
        }
        assert_int_equal(rt_reg_parse(out, len, NULL, &g, &e), 0);
        files_equal(&f, &g);
        assert_int_equal(rt_reg_write(&g, NULL, &again, &len2, &e), 0);
        assert_int_equal(len, len2);
        assert_memory_equal(out, again, len);
        free(out);
        free(again);
        rt_reg_file_free(&f);
        rt_reg_file_free(&g);
    }
}

/* A cap on the file's size: a file of exactly the cap is written, the
 * same bytes; one byte under it, nothing is made and the error says how
 * large the file would be at least (more than the cap, no more than it
 * is), in each format (UTF-16 counted two bytes a unit). A name of a
 * character outside ASCII counts as what its format makes of it. */
static void a_cap_refuses_a_file_past_it(void **state)
{
    (void)state;
    static const enum rt_reg_format fmts[] = {
        RT_REG_V5_UTF16, RT_REG_V5_UTF8, RT_REG_V5_UTF8_BOM, RT_REG_V4};
    for (size_t i = 0; i < 4; i++) {
        struct rt_reg_file f;
        struct rt_reg_error e;
        build_every_type(&f, fmts[i]);
        struct rt_reg_key *k = rt_reg_add_key(&f, "HKEY_USERS\\Caf\xc3\xa9", 0);
        assert_non_null(k);
        add(k, "na\xc3\xafve", RT_REG_SZ, u"\u00e9t\u00e9", 8);
        uint8_t *whole, *capped = NULL;
        size_t len, capped_len = 0;
        assert_int_equal(rt_reg_write(&f, NULL, &whole, &len, &e), 0);
        assert_int_equal(rt_reg_write_max(&f, NULL, len, &capped,
                                          &capped_len, &e), 0);
        assert_int_equal(capped_len, len);
        assert_memory_equal(capped, whole, len);
        assert_int_equal(e.too_large, 0);
        free(capped);
        capped = NULL;
        assert_int_equal(rt_reg_write_max(&f, NULL, len - 1, &capped,
                                          &capped_len, &e), -1);
        assert_null(capped);
        assert_true(e.too_large > len - 1 && e.too_large <= len);
        assert_non_null(strstr(e.message, "larger than"));
        free(whole);
        rt_reg_file_free(&f);
    }
}

/* The text regedit writes for the file above's first values: quoted
 * strings with \\ and \", dword:, hex(2), hex(7) and hex(1) for strings
 * that a quoted string cannot hold. */
static void writes_what_regedit_writes(void **state)
{
    (void)state;
    struct rt_reg_file f;
    struct rt_reg_error e;
    build_every_type(&f, RT_REG_V5_UTF8);
    uint8_t *out;
    size_t len;
    assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
    char *t = text_of(out, len);
    static const char *const lines[] = {
        "Windows Registry Editor Version 5.00\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Test]\r\n"
        "@=\"C:\\\\Windows\\\\perf \\\"x\\\".dll\"\r\n",
        "\r\n\"name with \\\"quotes\\\" and \\\\\"=dword:8000000a\r\n",
        "\r\n\"Short dword\"=hex(4):01,02,03\r\n",
        "\r\n\"Empty none\"=hex(0):\r\n",
        "\r\n\"Empty string\"=\"\"\r\n",
        "\r\n\"CRLF\"=hex(1):74,00,77,00,6f,00,0d,00,0a,00,6c,00,69,00,6e,00,"
        "65,00,73,00,00,\\\r\n  00\r\n",
        "\r\n\"Unterminated\"=hex(1):61,00,62,00\r\n",
        "\r\n\"Q\"=hex(b):01,02,03,04,05,06,07,08\r\n",
        "\r\n\"Odd type\"=hex(ffff0011):01,02,03\r\n",
        "\r\n\"Gone\"=-\r\n\r\n[-HKEY_LOCAL_MACHINE\\SOFTWARE\\Old]\r\n\r\n"
        "[HKEY_CURRENT_USER\\Empty]\r\n\r\n",
        /* 17 characters before the data, then 20 bytes: 77, the limit. */
        "\r\n\"Counter\"=hex(7):31,00,00,00,31,00,38,00,34,00,37,00,00,00,32,00,"
        "00,00,53,00,\\\r\n  79,00,73,00,74,00,65,00,6d,00,00,00,00,00\r\n",
    };
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (!strstr(t, lines[i]))
            fail_msg("missing from the output: %s\n--- output:\n%s", lines[i],
                     t);
    assert_true(len > 6 && !memcmp(out + len - 4, "\r\n\r\n", 4));
    /* Every line within 80 columns; continuation lines of 25 bytes. */
    for (char *line = t, *nl; (nl = strstr(line, "\r\n")); line = nl + 2) {
        assert_true(nl - line <= 80);
        if (line[0] == ' ' && nl[-1] == '\\')
            assert_int_equal(nl - line, 2 + 25 * 3 + 1);
    }
    free(t);
    free(out);
    rt_reg_file_free(&f);
}

/* A string holding a CR with no LF beside it is written as hex(1), in
 * both dialects: REGEDIT and reg import know only \\ and \" in a quoted
 * string, so a "\r" there would come back as a backslash and an r. */
static void lone_carriage_return_is_written_as_hex(void **state)
{
    (void)state;
    static const enum rt_reg_format fmts[] = {RT_REG_V5_UTF8, RT_REG_V4};
    static const char16_t cr[] = u"one\rtwo";
    for (size_t i = 0; i < 2; i++) {
        struct rt_reg_file f, g;
        memset(&f, 0, sizeof f);
        f.format = fmts[i];
        struct rt_reg_key *k = rt_reg_add_key(&f, KEY, 0);
        assert_non_null(k);
        add(k, "CR", RT_REG_SZ, cr, sizeof cr);
        uint8_t *out;
        size_t len;
        struct rt_reg_error e;
        assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
        char *t = text_of(out, len);
        assert_non_null(strstr(t, "\r\n\"CR\"=hex(1):6f,00,6e,00,65,00,0d,00,"
                                  "74,00,77,00,6f,00,00,00\r\n"));
        assert_null(strstr(t, "\\r"));
        assert_int_equal(rt_reg_parse(out, len, NULL, &g, &e), 0);
        files_equal(&f, &g);
        free(t);
        free(out);
        rt_reg_file_free(&f);
        rt_reg_file_free(&g);
    }
}

static void reads_regedit_text(void **state)
{
    (void)state;
    struct rt_reg_file f;
    parse_ok("Windows Registry Editor Version 5.00\n"
             "\n"
             "; a comment\n"
             "  # another\n"
             "[HKEY_LOCAL_MACHINE\\SOFTWARE\\A]  \r\n"
             "@=\"default\"\n"
             "\"Path\" = \"C:\\\\x\\\\y \\\"q\\\"\"\n"
             "\"D\"=DWORD:FF\n"
             "\"H\"=hex:01, 2,\\\n"
             "      0a,\\\n"
             "  ff\n"
             "\"M\"=hex(7):41,00,00,00,00,00\n"
             "\"Del\"=-\n"
             "[-HKEY_LOCAL_MACHINE\\SOFTWARE\\B]\n",
             &f);
    assert_int_equal(f.format, RT_REG_V5_UTF8);
    assert_int_equal(f.n_keys, 2);
    const struct rt_reg_key *k = &f.keys[0];
    assert_string_equal(k->path, "HKEY_LOCAL_MACHINE\\SOFTWARE\\A");
    assert_int_equal(k->line, 5);
    assert_int_equal(k->n_vals, 6);
    assert_string_equal(k->vals[0].name, "");
    assert_int_equal(k->vals[0].v.type, RT_REG_SZ);
    assert_memory_equal(k->vals[0].v.data, u"default", sizeof u"default");
    assert_memory_equal(k->vals[1].v.data, u"C:\\x\\y \"q\"",
                        sizeof u"C:\\x\\y \"q\"");
    uint32_t x;
    assert_int_equal(rt_value_dword(&k->vals[2].v, &x), 0);
    assert_int_equal(x, 0xff);
    static const uint8_t h[] = {1, 2, 0x0a, 0xff};
    assert_int_equal(k->vals[3].v.type, RT_REG_BINARY);
    assert_int_equal(k->vals[3].v.len, sizeof h);
    assert_memory_equal(k->vals[3].v.data, h, sizeof h);
    assert_int_equal(k->vals[4].v.type, RT_REG_MULTI_SZ);
    assert_int_equal(k->vals[4].line, 12);
    assert_true(k->vals[5].del);
    assert_true(f.keys[1].del);
    rt_reg_file_free(&f);
}

/* The escapes of a quoted string: \n and \r are the line feed and the
 * carriage return Wine's regedit writes (a service's text read back
 * from its export must be the text it wrote), and any other escape
 * keeps its backslash, as Windows' regedit reads it. Each branch of the
 * reader's unescape: a \n case alone would let \r go unread. */
static void reads_the_line_break_escapes(void **state)
{
    (void)state;
    struct rt_reg_file f;
    parse_ok("Windows Registry Editor Version 5.00\n"
             "[HKEY_LOCAL_MACHINE\\SOFTWARE\\A]\n"
             "\"a\"=\"x\\ny\\rz\\q\"\n",
             &f);
    assert_int_equal(f.n_keys, 1);
    assert_int_equal(f.keys[0].n_vals, 1);
    const struct rt_value *v = &f.keys[0].vals[0].v;
    assert_int_equal(v->type, RT_REG_SZ);
    static const char16_t want[] = u"x\ny\rz\\q";
    assert_int_equal(v->len, sizeof want);
    assert_memory_equal(v->data, want, sizeof want);
    rt_reg_file_free(&f);
}

/* UTF-16LE with BOM, as reg export writes it. */
static void reads_utf16_with_bom(void **state)
{
    (void)state;
    static const char16_t text[] =
        u"\xFEFFWindows Registry Editor Version 5.00\r\n\r\n"
        u"[HKEY_LOCAL_MACHINE\\SOFTWARE\\\x0416]\r\n"
        u"\"\x0418\x043c\x044f\"=\"\x0422\x0435\x043a\x0441\x0442\"\r\n\r\n";
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)text, sizeof text - 2,
                                  NULL, &f, &e), 0);
    assert_int_equal(f.format, RT_REG_V5_UTF16);
    assert_string_equal(f.keys[0].path, "HKEY_LOCAL_MACHINE\\SOFTWARE\\Ж");
    assert_string_equal(f.keys[0].vals[0].name, "Имя");
    assert_memory_equal(f.keys[0].vals[0].v.data, u"Текст", sizeof u"Текст");
    uint8_t *out;
    size_t len;
    assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
    assert_int_equal(len, sizeof text - 2);
    assert_memory_equal(out, text, len);
    free(out);
    rt_reg_file_free(&f);
}

/* A REGEDIT4 file's LEN bytes are read and no byte past them, though its
 * last line has no line end and the buffer goes on (here with text and
 * a line end after LEN). */
static void regedit4_read_up_to_its_length(void **state)
{
    (void)state;
    static const char text[] = "REGEDIT4\r\n\r\n[HKEY_USERS\\A]\r\n\"a\"=\"x\""
                               "past the end\r\n";
    size_t len = strlen("REGEDIT4\r\n\r\n[HKEY_USERS\\A]\r\n\"a\"=\"x\"");
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)text, len, NULL, &f, &e), 0);
    assert_int_equal(f.n_keys, 1);
    assert_int_equal(f.keys[0].n_vals, 1);
    assert_int_equal(f.keys[0].vals[0].v.len, sizeof u"x");
    assert_memory_equal(f.keys[0].vals[0].v.data, u"x", sizeof u"x");
    rt_reg_file_free(&f);
}

/* REGEDIT4: strings and the bytes of hex(2)/hex(7) in the code page. */
static void reads_regedit4_in_its_code_page(void **state)
{
    (void)state;
    static const char text[] =
        "REGEDIT4\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats"
        "\\Enum\\VMM]\r\n"
        "\"Name\"=\"Caf\xe9\"\r\n"
        "\"M\"=hex(7):e9,00,00\r\n\r\n";
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)text, sizeof text - 1,
                                  NULL, &f, &e), 0);
    assert_int_equal(f.format, RT_REG_V4);
    assert_memory_equal(f.keys[0].vals[0].v.data, u"Café", sizeof u"Café");
    assert_int_equal(f.keys[0].vals[1].v.len, sizeof u"é\0");
    assert_memory_equal(f.keys[0].vals[1].v.data, u"é\0", sizeof u"é\0");
    uint8_t *out;
    size_t len;
    assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
    assert_int_equal(len, sizeof text - 1);
    assert_memory_equal(out, text, len);
    free(out);
    rt_reg_file_free(&f);

    /* In code page 1251 the same byte is a Cyrillic letter. */
    assert_int_equal(rt_reg_parse((const uint8_t *)text, sizeof text - 1,
                                  "1251", &f, &e), 0);
    assert_memory_equal(f.keys[0].vals[0].v.data, u"Cafй", sizeof u"Cafй");
    rt_reg_file_free(&f);

    /* Text the code page cannot hold: a string becomes hex(1); hex(7)
     * cannot be written at all. */
    memset(&f, 0, sizeof f);
    f.format = RT_REG_V4;
    struct rt_reg_key *k = rt_reg_add_key(&f, KEY, 0);
    add(k, "S", RT_REG_SZ, u"Ж", sizeof u"Ж");
    assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), 0);
    char *t = text_of(out, len);
    assert_non_null(strstr(t, "\"S\"=hex(1):16,04,00,00\r\n"));
    free(t);
    free(out);
    add(k, "M", RT_REG_MULTI_SZ, u"Ж\0", sizeof u"Ж\0");
    assert_int_equal(rt_reg_write(&f, NULL, &out, &len, &e), -1);
    assert_non_null(strstr(e.message, "code page 1252"));
    assert_int_equal(rt_reg_write(&f, "1251", &out, &len, &e), 0);
    free(out);
    rt_reg_file_free(&f);
}

static void malformed_files_name_their_line(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        unsigned line;
        const char *words;
        const char *codepage;
    } cases[] = {
        {"", 1, "empty file", NULL},
        {"REGEDIT5\r\n", 1, "first line", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_LOCAL_MACHINE\\A\n", 2,
         "closing ']'", NULL},
        {"Windows Registry Editor Version 5.00\n\n[HKLM\\A]\n", 3,
         "unknown root key 'HKLM'", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A\\\\B]\n", 2,
         "empty key name", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A\\]\n", 2,
         "empty key name", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A] x\n", 2,
         "after the key", NULL},
        {"Windows Registry Editor Version 5.00\n\"a\"=\"b\"\n", 2,
         "before any [KEY]", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=\"b\n", 3, "closing quote", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a=\"b\"\n", 3, "'='", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=\"b\" c\n", 3, "after the string", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=dword:123456789\n", 3, "1 to 8 hex digits", NULL},
        /* Nine digits refused whatever comes before them on the line (a
         * name of ';' once hid the ninth from the check). */
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\";;;;;;;;;;;;;;;;\"=dword:123456789\n", 3, "1 to 8 hex digits",
         NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=dword:\n", 3, "1 to 8 hex digits", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=hex:01,zz\n", 3, "bad hex byte 'zz'", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=hex:01,,02\n", 3, "bad hex byte", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=hex:01,\\\n  02,\\\n  123\n", 5, "bad hex byte '123'", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=hex:01,\\\n", 3, "ends inside a value continued", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=hex(7:00\n", 3, "hex(TYPE)", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=str:x\n", 3, "unknown value data", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "junk\n", 3, "expected [KEY]", NULL},
        {"Windows Registry Editor Version 5.00\n[-HKEY_USERS\\A]\n"
         "\"a\"=-\n", 3, "deleted key", NULL},
        {"Windows Registry Editor Version 5.00\n[HKEY_USERS\\A]\n"
         "\"a\"=\"\xff\"\n", 3, "not UTF-8", NULL},
        /* Shift-JIS: a lead byte without its second byte. */
        {"REGEDIT4\n[HKEY_USERS\\A]\n\n\"a\"=hex(2):82,00\n", 4,
         "not valid in code page 932", "932"},
        {"REGEDIT4\n[HKEY_USERS\\A]\n\"a\"=\"\x82\"\n", 3,
         "not valid text in code page 932", "932"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rt_reg_file f;
        struct rt_reg_error e;
        int r = rt_reg_parse((const uint8_t *)cases[i].text,
                             strlen(cases[i].text), cases[i].codepage, &f,
                             &e);
        if (r != -1 || e.line != cases[i].line ||
            !strstr(e.message, cases[i].words))
            fail_msg("case %zu: got %d, line %u: %s", i, r, e.line,
                     e.message);
        assert_int_equal(f.n_keys, 0);
        assert_false(e.nomem);
    }
    /* UTF-16: a truncated file, a lone surrogate on line 2. */
    static const char16_t lone[] =
        u"\xFEFFWindows Registry Editor Version 5.00\r\n\"\xD800\"";
    struct rt_reg_file f;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_parse((const uint8_t *)lone, sizeof lone - 2,
                                  NULL, &f, &e), -1);
    assert_int_equal(e.line, 2);
    assert_non_null(strstr(e.message, "surrogate"));
    assert_int_equal(rt_reg_parse((const uint8_t *)lone, sizeof lone - 3,
                                  NULL, &f, &e), -1);
    assert_non_null(strstr(e.message, "truncated"));
    assert_int_equal(rt_reg_parse((const uint8_t *)"REGEDIT4\n", 9, "nope",
                                  &f, &e), -1);
    assert_non_null(strstr(e.message, "unknown code page 'nope'"));
}

/* Import semantics: later entries win, deletions remove; the tree written
 * back as a file has every key with values, and no implied parents; a
 * root key with values of its own (reg export HKCU), or alone, keeps its
 * line. */
static void applies_to_a_tree_and_back(void **state)
{
    (void)state;
    struct rt_reg_file f, g;
    parse_ok("Windows Registry Editor Version 5.00\n"
             "[HKEY_LOCAL_MACHINE\\S\\A]\n\"x\"=dword:1\n\"y\"=dword:2\n"
             "[HKEY_LOCAL_MACHINE\\S\\A\\Sub]\n\"z\"=\"z\"\n"
             "[HKEY_LOCAL_MACHINE\\S\\B\\Leaf]\n"
             "[hkey_local_machine\\s\\a]\n\"x\"=dword:3\n\"y\"=-\n"
             "[-HKEY_LOCAL_MACHINE\\S\\A\\Sub]\n"
             "[HKEY_CURRENT_USER]\n\"Root\"=\"user data\"\n"
             "[HKEY_USERS]\n",
             &f);
    struct rt_tree_key *root = rt_tree_new("");
    assert_int_equal(rt_reg_apply(&f, root), 0);
    assert_int_equal(rt_reg_from_tree(root, RT_REG_V5_UTF8, &g), 0);
    uint8_t *out;
    size_t len;
    struct rt_reg_error e;
    assert_int_equal(rt_reg_write(&g, NULL, &out, &len, &e), 0);
    static const char want[] =
        "Windows Registry Editor Version 5.00\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\S\\A]\r\n\"x\"=dword:00000003\r\n\r\n"
        "[HKEY_LOCAL_MACHINE\\S\\B\\Leaf]\r\n\r\n"
        "[HKEY_CURRENT_USER]\r\n\"Root\"=\"user data\"\r\n\r\n"
        "[HKEY_USERS]\r\n\r\n";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(out, want, len);
    free(out);
    /* Written straight from the tree (a reg: store's write), in each
     * format: the bytes of the file made of it. */
    static const enum rt_reg_format formats[] = {
        RT_REG_V5_UTF8, RT_REG_V5_UTF8_BOM, RT_REG_V5_UTF16, RT_REG_V4};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        struct rt_reg_file h;
        uint8_t *direct;
        size_t direct_len;
        assert_int_equal(rt_reg_from_tree(root, formats[i], &h), 0);
        assert_int_equal(rt_reg_write(&h, NULL, &out, &len, &e), 0);
        assert_int_equal(rt_reg_write_tree(root, formats[i], NULL, 0, &direct,
                                           &direct_len, &e), 0);
        assert_int_equal(direct_len, len);
        assert_memory_equal(direct, out, len);
        free(direct);
        free(out);
        rt_reg_file_free(&h);
    }
    rt_tree_free(root);
    rt_reg_file_free(&f);
    rt_reg_file_free(&g);
}

static unsigned rng_state = 12345;
static unsigned rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return (rng_state >> 16) & 0x7fff;
}

/* Damaged files: every parse either fails with a line inside the file or
 * succeeds, and what succeeds writes a file that reads back the same. */
static void mutated_files_never_crash(void **state)
{
    (void)state;
    static const enum rt_reg_format fmts[] = {RT_REG_V5_UTF16, RT_REG_V5_UTF8,
                                              RT_REG_V4};
    for (size_t fi = 0; fi < 3; fi++) {
        struct rt_reg_file base;
        struct rt_reg_error e;
        build_every_type(&base, fmts[fi]);
        uint8_t *good;
        size_t glen;
        assert_int_equal(rt_reg_write(&base, NULL, &good, &glen, &e), 0);
        rt_reg_file_free(&base);
        unsigned lines = 1;
        for (size_t i = 0; i < glen; i++)
            lines += good[i] == '\n';
        for (int round = 0; round < 3000; round++) {
            size_t len = glen - (rng() % 4 == 0 ? rng() % glen : 0);
            uint8_t *b = malloc(len ? len : 1);
            memcpy(b, good, len);
            int flips = 1 + rng() % 3;
            for (int k = 0; k < flips && len; k++) {
                static const uint8_t vals[] = {0, '\\', '"', ',', '\n', '[',
                                               ']', '=', '-', 'z', 0xD8, 0xFF};
                b[rng() % len] = vals[rng() % sizeof vals];
            }
            struct rt_reg_file f, g;
            if (rt_reg_parse(b, len, NULL, &f, &e) == 0) {
                uint8_t *o1, *o2;
                size_t l1, l2;
                if (rt_reg_write(&f, NULL, &o1, &l1, &e) == 0) {
                    assert_int_equal(rt_reg_parse(o1, l1, NULL, &g, &e), 0);
                    files_equal(&f, &g);
                    assert_int_equal(rt_reg_write(&g, NULL, &o2, &l2, &e), 0);
                    assert_int_equal(l1, l2);
                    assert_memory_equal(o1, o2, l1);
                    free(o1);
                    free(o2);
                    rt_reg_file_free(&g);
                }
                rt_reg_file_free(&f);
            } else {
                assert_false(e.nomem);
                assert_true(e.line >= 1 && e.line <= lines);
                assert_true(e.message[0] != '\0');
                assert_int_equal(f.n_keys, 0);
            }
            free(b);
        }
        free(good);
    }
}

/* A key of many values and subkeys: each found by name in any case (the
 * tree's index), set again in place (order kept), deleted (the rest
 * still found), and the same in a clone. */
static void many_values_and_subkeys_found_by_name(void **state)
{
    (void)state;
    struct rt_tree_key *k = rt_tree_new("K");
    assert_non_null(k);
    char name[32];
    for (unsigned i = 0; i < 2000; i++) {
        struct rt_value v;
        assert_int_equal(rt_value_from_dword(&v, i), 0);
        snprintf(name, sizeof name, "Value%u", i);
        assert_int_equal(rt_tree_set_value(k, name, &v), 0);
        rt_value_free(&v);
        snprintf(name, sizeof name, "Sub%u\\Leaf", i);
        assert_non_null(rt_tree_create(k, name));
    }
    struct rt_value seven;
    assert_int_equal(rt_value_from_dword(&seven, 7), 0);
    assert_int_equal(rt_tree_set_value(k, "VALUE1999", &seven), 0);
    rt_value_free(&seven);
    assert_int_equal(k->n_vals, 2000);
    assert_string_equal(k->vals[1999].name, "Value1999");
    assert_int_equal(rt_tree_delete_value(k, "value1000"), 1);
    assert_int_equal(rt_tree_delete_child(k, "SUB1000"), 1);
    struct rt_tree_key *c = rt_tree_clone(k);
    assert_non_null(c);
    for (int pass = 0; pass < 2; pass++) {
        const struct rt_tree_key *t = pass ? c : k;
        for (unsigned i = 0; i < 2000; i++) {
            snprintf(name, sizeof name, "vALUE%u", i);
            const struct rt_tree_value *v = rt_tree_value(t, name);
            snprintf(name, sizeof name, "sub%u\\LEAF", i);
            const struct rt_tree_key *leaf = rt_tree_find(t, name);
            if (i == 1000) {
                assert_null(v);
                assert_null(leaf);
                continue;
            }
            assert_non_null(v);
            assert_non_null(leaf);
            uint32_t x;
            assert_int_equal(rt_value_dword(&v->v, &x), 0);
            assert_int_equal(x, i == 1999 ? 7 : i);
        }
        assert_null(rt_tree_value(t, "Value2000"));
    }
    rt_tree_free(c);
    rt_tree_free(k);
}

/* Names equal but for case in one key (renamed in place here, as a
 * caller that checked may leave them): a key indexed for its many
 * entries answers with the first, as the scan of a small key does, so
 * which twin is read does not hang on the hash's seed. */
static void indexed_lookup_finds_the_first_case_twin(void **state)
{
    (void)state;
    char name[32];
    for (int round = 0; round < 16; round++) {
        struct rt_tree_key *k = rt_tree_new("K");
        assert_non_null(k);
        for (unsigned i = 0; i < 20; i++) {
            snprintf(name, sizeof name, "Sub%u", i);
            assert_non_null(rt_tree_create(k, name));
            struct rt_value v;
            assert_int_equal(rt_value_from_dword(&v, 100 + i), 0);
            snprintf(name, sizeof name, "Value%u", i);
            assert_int_equal(rt_tree_set_value(k, name, &v), 0);
            rt_value_free(&v);
        }
        const char *vals[] = {"Library", "LIBRARX"};
        for (uint32_t i = 0; i < 2; i++) {
            struct rt_value v;
            assert_int_equal(rt_value_from_dword(&v, i + 1), 0);
            assert_int_equal(rt_tree_set_value(k, vals[i], &v), 0);
            rt_value_free(&v);
        }
        assert_non_null(rt_tree_create(k, "Perflib"));
        assert_non_null(rt_tree_create(k, "PERFLIX"));
        k->sub[21]->name[6] = 'B';
        k->vals[21].name[6] = 'Y';
        /* The clone indexes the twins afresh, at a new seed each round. */
        struct rt_tree_key *c = rt_tree_clone(k);
        assert_non_null(c);
        assert_non_null(c->sub_index);
        assert_ptr_equal(rt_tree_child(c, "perflib"), c->sub[20]);
        assert_string_equal(rt_tree_find(c, "PERFLIB")->name, "Perflib");
        const struct rt_tree_value *v = rt_tree_value(c, "library");
        assert_non_null(v);
        uint32_t x;
        assert_int_equal(rt_value_dword(&v->v, &x), 0);
        assert_int_equal(x, 1);
        rt_tree_free(c);
        rt_tree_free(k);
    }
}

/* Values and subkeys set and deleted in a long mixed run (a .reg file's
 * "x"=- and [-KEY], in any order, a name deleted and set again): every
 * lookup answers as a plain list would, and settled, the key holds what
 * is left in the order it was first set since its last deletion. */
static void deletions_answer_as_a_list_would(void **state)
{
    (void)state;
    enum { N = 3000 };
    static int live[N];             /* the list: 0 gone, else its order */
    struct rt_tree_key *k = rt_tree_new("K");
    assert_non_null(k);
    char name[32];
    unsigned r = 12345, order = 0;
    struct rt_value v;
    assert_int_equal(rt_value_from_dword(&v, 1), 0);
    for (unsigned step = 0; step < 40000; step++) {
        r = r * 1103515245u + 12345u;
        unsigned i = (r >> 8) % N;
        snprintf(name, sizeof name, (r & 1) ? "Name%u" : "nAME%u", i);
        if ((r >> 4) % 3 == 0) {
            assert_int_equal(rt_tree_delete_value(k, name), live[i] != 0);
            assert_int_equal(rt_tree_delete_child(k, name), live[i] != 0);
            live[i] = 0;
        } else {
            assert_int_equal(rt_tree_set_value(k, name, &v), 0);
            assert_non_null(rt_tree_create(k, name));
            if (!live[i])
                live[i] = (int)++order;
        }
        /* A name looked up after each step, as the list has it. */
        unsigned j = (r >> 16) % N;
        snprintf(name, sizeof name, "NAME%u", j);
        assert_int_equal(rt_tree_value(k, name) != NULL, live[j] != 0);
        assert_int_equal(rt_tree_child(k, name) != NULL, live[j] != 0);
    }
    rt_value_free(&v);
    rt_tree_settle(k);
    size_t n = 0;
    for (unsigned i = 0; i < N; i++)
        n += live[i] != 0;
    assert_int_equal(k->n_vals, n);
    assert_int_equal(k->n_sub, n);
    int last = 0;
    for (size_t a = 0; a < n; a++) {
        unsigned i = (unsigned)strtoul(k->vals[a].name + 4, NULL, 10);
        assert_true(live[i] > last);
        last = live[i];
        assert_int_equal(strtoul(k->sub[a]->name + 4, NULL, 10), i);
    }
    rt_tree_free(k);
}

/* Out of memory while reading a .reg file, at any allocation: the read
 * fails as out of memory, or it succeeds with every value whole (a DWORD
 * with its four bytes): never a value that lost its data. */
#ifdef HAVE_ALLOC_HOOK
/* Each allocation of reading TEXT (a key with Last Counter 0x123a and a
 * string) failed in turn: the read fails as out of memory, never as bad
 * input, or gives every value whole. */
static void oom_sweep(const char *text)
{
    static const uint8_t last_counter[] = {0x3a, 0x12, 0, 0};
    struct rt_reg_file want;
    alloc_calls = 0;
    parse_ok(text, &want);
    unsigned long calls = alloc_calls;
    assert_int_equal(want.n_keys, 1);
    assert_int_equal(want.keys[0].n_vals, 2);
    assert_int_equal(want.keys[0].vals[0].v.type, RT_REG_DWORD);
    assert_int_equal(want.keys[0].vals[0].v.len, 4);
    assert_memory_equal(want.keys[0].vals[0].v.data, last_counter, 4);
    /* Under valgrind no call reaches the hook: nothing to fail. */
    if (calls == 0) {
        rt_reg_file_free(&want);
        skip();
    }
    for (unsigned long k = 1; k <= calls; k++) {
        struct rt_reg_file got;
        struct rt_reg_error e = {0};
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_reg_parse((const uint8_t *)text, strlen(text), NULL, &got,
                             &e);
        alloc_fail_at = 0;
        if (r != 0) {
            if (!e.nomem)
                fail_msg("allocation %lu of %lu failed: %s", k, calls,
                         e.message);
            continue;
        }
        const struct rt_value *v = got.n_keys == 1 && got.keys[0].n_vals == 2
                                       ? &got.keys[0].vals[0].v : NULL;
        if (!v || v->type != RT_REG_DWORD || v->len != 4 || !v->data ||
            memcmp(v->data, last_counter, 4))
            fail_msg("allocation %lu of %lu failed, and the read succeeded "
                     "without Last Counter's four bytes", k, calls);
        files_equal(&got, &want);
        rt_reg_file_free(&got);
    }
    rt_reg_file_free(&want);
}
#endif

static void out_of_memory_never_yields_a_value_without_data(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    oom_sweep("Windows Registry Editor Version 5.00\r\n\r\n"
              "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Test]\r\n"
              "\"Last Counter\"=dword:0000123a\r\n"
              "\"Library\"=\"perfos.dll\"\r\n");
#else
    skip();
#endif
}

/* REGEDIT4 text is in the machine's ANSI code page (1252 here): running
 * out of memory while opening the converter is out of memory, not an
 * "unknown code page" in the file. */
static void out_of_memory_in_a_code_page_is_not_bad_input(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    oom_sweep("REGEDIT4\r\n\r\n"
              "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Test]\r\n"
              "\"Last Counter\"=dword:0000123a\r\n"
              "\"Library\"=\"perf\xe9s.dll\"\r\n");
#else
    skip();
#endif
}

/* The same for hex(2) text, which REGEDIT4 keeps in the code page too:
 * running out of memory while its UTF-16 is made fails the read. */
static void out_of_memory_in_a_code_page_hex_value(void **state)
{
    (void)state;
#ifdef HAVE_ALLOC_HOOK
    oom_sweep("REGEDIT4\r\n\r\n"
              "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Test]\r\n"
              "\"Last Counter\"=dword:0000123a\r\n"
              "\"Library\"=hex(2):70,65,72,66,e9,00\r\n");
#else
    skip();
#endif
}

/* A file read straight into a tree (rt_reg_parse_tree: value by value),
 * makes the tree rt_reg_apply makes: a value set twice keeps the last, a
 * deleted value and a deleted key go, a key's sections join, a key of
 * many values is indexed (the same value found by any letter case). */
static void a_file_read_into_a_tree_is_the_file_applied(void **state)
{
    (void)state;
    char text[8192], *o = text;
    o += sprintf(o, "Windows Registry Editor Version 5.00\r\n\r\n"
                 "[HKEY_LOCAL_MACHINE\\A]\r\n\"x\"=\"1\"\r\n"
                 "\"y\"=dword:00000002\r\n\"x\"=\"3\"\r\n\r\n"
                 "[HKEY_LOCAL_MACHINE\\A\\Gone]\r\n\"z\"=\"z\"\r\n\r\n"
                 "[-HKEY_LOCAL_MACHINE\\A\\Gone]\r\n\r\n"
                 "[HKEY_LOCAL_MACHINE\\A]\r\n\"y\"=-\r\n\r\n"
                 "[HKEY_CURRENT_USER\\B]\r\n\"q\"=\"1\"\r\n\r\n"
                 "[-HKEY_CURRENT_USER]\r\n\r\n"
                 "[HKEY_LOCAL_MACHINE\\A]\r\n");
    for (int k = 0; k < 100; k++)
        o += sprintf(o, "\"V%d\"=\"%d\"\r\n", k, k);
    struct rt_reg_file f;
    struct rt_reg_error e;
    size_t len = (size_t)(o - text);
    assert_int_equal(rt_reg_parse((const uint8_t *)text, len, NULL, &f, &e), 0);
    struct rt_tree_key *applied = rt_tree_new(""), *read = rt_tree_new("");
    assert_int_equal(rt_reg_apply(&f, applied), 0);
    assert_int_equal(rt_reg_parse_tree((const uint8_t *)text, len, NULL, read,
                                       &e), 0);
    char *want = rt_tree_dump(applied), *got = rt_tree_dump(read);
    assert_string_equal(got, want);
    /* Either way the deleted value's slot is closed up: its key holds its
     * values and nothing else (a hole is a value whose name is NULL). */
    assert_int_equal(rt_tree_find(applied, "HKEY_LOCAL_MACHINE\\A")->n_vals,
                     101);
    const struct rt_tree_key *a = rt_tree_find(read, "HKEY_LOCAL_MACHINE\\A");
    assert_non_null(a);
    assert_null(rt_tree_child(a, "Gone"));
    assert_null(rt_tree_value(a, "y"));
    /* A root key deleted whole, with what was under it. */
    assert_null(rt_tree_child(read, "HKEY_CURRENT_USER"));
    assert_int_equal(read->n_sub, 1);
    assert_int_equal(a->n_vals, 101);
    assert_memory_equal(rt_tree_value(a, "X")->v.data, u"3", 4);
    assert_memory_equal(rt_tree_value(a, "v99")->v.data, u"99", 6);
#ifdef HAVE_ALLOC_HOOK
    /* Each allocation of the read failed in turn: out of memory, never
     * bad input, never a tree short of what the file holds. */
    unsigned long calls = 0;
    struct rt_tree_key *t = rt_tree_new("");
    alloc_calls = 0;
    assert_int_equal(rt_reg_parse_tree((const uint8_t *)text, len, NULL, t,
                                       &e), 0);
    calls = alloc_calls;
    rt_tree_free(t);
    for (unsigned long k = 1; k <= calls; k++) {
        t = rt_tree_new("");
        memset(&e, 0, sizeof e);
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_reg_parse_tree((const uint8_t *)text, len, NULL, t, &e);
        alloc_fail_at = 0;
        if (r != 0 && !e.nomem)
            fail_msg("allocation %lu of %lu failed: %s", k, calls, e.message);
        if (r == 0) {
            char *dump = rt_tree_dump(t);
            assert_non_null(dump);
            assert_string_equal(dump, want);
            free(dump);
        }
        rt_tree_free(t);
    }
#endif
    free(want);
    free(got);
    rt_tree_free(applied);
    rt_tree_free(read);
    rt_reg_file_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_type_round_trips_in_every_format),
        cmocka_unit_test(writes_what_regedit_writes),
        cmocka_unit_test(lone_carriage_return_is_written_as_hex),
        cmocka_unit_test(a_cap_refuses_a_file_past_it),
        cmocka_unit_test(reads_regedit_text),
        cmocka_unit_test(reads_the_line_break_escapes),
        cmocka_unit_test(reads_utf16_with_bom),
        cmocka_unit_test(reads_regedit4_in_its_code_page),
        cmocka_unit_test(regedit4_read_up_to_its_length),
        cmocka_unit_test(malformed_files_name_their_line),
        cmocka_unit_test(applies_to_a_tree_and_back),
        cmocka_unit_test(many_values_and_subkeys_found_by_name),
        cmocka_unit_test(indexed_lookup_finds_the_first_case_twin),
        cmocka_unit_test(deletions_answer_as_a_list_would),
        cmocka_unit_test(mutated_files_never_crash),
        cmocka_unit_test(out_of_memory_never_yields_a_value_without_data),
        cmocka_unit_test(out_of_memory_in_a_code_page_is_not_bad_input),
        cmocka_unit_test(out_of_memory_in_a_code_page_hex_value),
        cmocka_unit_test(a_file_read_into_a_tree_is_the_file_applied),
    };
    return cmocka_run_group_tests_name("reg_file", tests, NULL, NULL);
}
