/* The reg store (a .reg file): the store contract and the whole
 * install/uninstall suite, run as on the in-memory store; the file it
 * writes is what the store reads back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#ifndef _WIN32
#include <sys/wait.h>
#include <unistd.h>
#endif

#include "commit/io.h"
#include "engine_suite.h"
#include "model/reg_file.h"
#include "scratch.h"
#include "store/store_reg.h"
#include "store_contract.h"

static char *store_snapshot_content(struct rt_store *s)
{
    struct rt_strbuf b = {0};
    snap_store_content(&b, s);
    return snap_take(&b);
}

static char *dir;
static unsigned serial;

/* A new file holding nothing but the header, in the dialect reg export
 * writes (UTF-16LE with BOM); every third one in UTF-8, every fifth in
 * REGEDIT4, so the store is run in each. REGEDIT4 in code page 1251: the
 * suite's second language is Russian. */
static const char *codepage(void)
{
    return serial % 5 == 0 ? "1251" : NULL;
}

static struct rt_store *reg_open(void *ctx)
{
    (void)ctx;
    char *path;
    serial++;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    struct rt_reg_file f = {0};
    f.format = serial % 5 == 0 ? RT_REG_V4 : serial % 3 == 0
               ? RT_REG_V5_UTF8 : RT_REG_V5_UTF16;
    uint8_t *b;
    size_t len;
    struct rt_reg_error re;
    assert_int_equal(rt_reg_write(&f, NULL, &b, &len, &re), 0);
    assert_int_equal(rt_os_write_new_file(path, b, len), 0);
    free(b);
    struct rt_error e = {0};
    struct rt_store *s = rt_store_reg_open(path, codepage(), &e);
    if (!s)
        fail_msg("%s", e.message);
    free(path);
    return s;
}

static void reg_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_reg_fail_after(s, k);
}

/* The file's bytes as hex, and what a fresh open of it reads, so that a
 * change the store made only in memory, or only on disk, shows. */
static char *reg_snapshot(struct rt_store *s, void *ctx)
{
    (void)ctx;
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    uint8_t *d;
    size_t len;
    assert_int_equal(rt_os_read_file(path, &d, &len), 0);
    struct rt_error e = {0};
    struct rt_store *fresh = rt_store_reg_open(path, codepage(), &e);
    assert_non_null(fresh);
    char *a = store_snapshot_content(s), *b = store_snapshot_content(fresh);
    assert_string_equal(a, b);
    fresh->ops->close(fresh);
    free(b);
    char *out = malloc(len * 2 + strlen(a) + 2);
    for (size_t i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", d[i]);
    sprintf(out + 2 * len, "\n%s", a);
    free(a);
    free(d);
    free(path);
    return out;
}

/* A malformed file and a patch are refused with the file and line. */
static void bad_files_are_refused_with_their_line(void **state)
{
    (void)state;
    static const struct {
        const char *text, *words;
    } cases[] = {
        {"Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\A]\n"
         "\"x\"=dword:zz\n", ":4: dword:"},
        {"Windows Registry Editor Version 5.00\n\n[HKEY_LOCAL_MACHINE\\A]\n"
         "\"x\"=-\n", ":4: this .reg file deletes a value"},
        {"Windows Registry Editor Version 5.00\n[-HKEY_LOCAL_MACHINE\\A]\n",
         ":2: this .reg file deletes a key"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *path;
        if (asprintf(&path, "%s/bad%zu.reg", dir, i) < 0)
            abort();
        assert_int_equal(rt_os_write_new_file(path, cases[i].text,
                                              strlen(cases[i].text)), 0);
        struct rt_error e = {0};
        assert_null(rt_store_reg_open(path, NULL, &e));
        assert_int_equal(e.code, RT_ERR_INVALID_DATA);
        assert_non_null(strstr(e.message, path));
        if (!strstr(e.message, cases[i].words))
            fail_msg("%s", e.message);
        free(path);
    }
    struct rt_error e = {0};
    assert_null(rt_store_reg_open("/nonexistent/x.reg", NULL, &e));
    assert_int_equal(e.code, RT_ERR_FILE_NOT_FOUND);
}

/* Key names compare without case, as reg import compares them: two
 * sections of one key are merged in the order written. A SymbolicLinkValue
 * of type REG_LINK on a subkey of Services or Perflib, or on a service's
 * Performance key, is a link key for key_anomalies (as the hive store's
 * are), named with the file, the line that sets it and its target; one a
 * later section replaces with another type, one of another type (below
 * REG_LINK's number or above), or elsewhere, is not. */
/* A store of the .reg file NAME (in the scratch folder, its path in
 * *PATH, which the caller frees) holding TEXT. */
static struct rt_store *open_text(const char *name, const char *text,
                                  char **path)
{
    if (asprintf(path, "%s/%s", dir, name) < 0)
        abort();
    assert_int_equal(rt_os_write_new_file(*path, text, strlen(text)), 0);
    struct rt_error e = {0};
    struct rt_store *s = rt_store_reg_open(*path, NULL, &e);
    if (!s)
        fail_msg("%s", e.message);
    return s;
}

/* Perflib's subkeys that are no language id (a tool's own key, a stray
 * one) are not listed as languages, as the hive store does not list
 * them: no table of theirs is read, audited or written. */
static void only_language_keys_are_languages(void **state)
{
    (void)state;
    static const char text[] =
        "Windows Registry Editor Version 5.00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\009]\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\Bogus]\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\0g9]\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\0804]\n";
    char *path;
    struct rt_store *s = open_text("langs.reg", text, &path);
    struct rt_error e = {0};
    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_true((!strcmp(langs[0], "009") && !strcmp(langs[1], "0804")) ||
                (!strcmp(langs[0], "0804") && !strcmp(langs[1], "009")));
    rt_strings_free(langs, n);
    s->ops->close(s);
    free(path);
}

static void link_values_are_key_anomalies(void **state)
{
    (void)state;
    static const char text[] =
        "Windows Registry Editor Version 5.00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Foo\\Performance]\n"
        "\"Library\"=\"first.dll\"\n"
        "\"Open\"=\"O\"\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\currentcontrolset\\services\\FOO\\PERFORMANCE]\n"
        "\"LIBRARY\"=\"second.dll\"\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Linky]\n"
        "\"SymbolicLinkValue\"=hex(6):5c,00,58,00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Gone]\n"
        "\"SymbolicLinkValue\"=hex(6):5c,00,58,00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\gone]\n"
        "\"SymbolicLinkValue\"=dword:00000001\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Foo\\Parameters]\n"
        "\"SymbolicLinkValue\"=hex(6):5c,00,58,00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\00A]\n"
        "\"SymbolicLinkValue\"=hex(6):\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\00B]\n"
        "\"SymbolicLinkValue\"=hex(6):00,00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Multi]\n"
        "\"SymbolicLinkValue\"=hex(7):5c,00,58,00,00,00,00,00\n";
    char *path;
    struct rt_store *s = open_text("links.reg", text, &path);
    struct rt_error e = {0};
    struct rt_value v = {0};
    int present = 0;
    assert_int_equal(s->ops->read_service(s, "foo", "library", &v, &present,
                                          &e), 0);
    assert_true(present);
    assert_int_equal(v.len, sizeof "second.dll" * 2);
    assert_int_equal(v.data[0], 's');
    rt_value_free(&v);
    assert_int_equal(s->ops->read_service(s, "Foo", "Open", &v, &present,
                                          &e), 0);
    assert_true(present);
    rt_value_free(&v);

    struct rt_key_anomaly *a;
    size_t n;
    assert_non_null(s->ops->key_anomalies);
    assert_int_equal(s->ops->key_anomalies(s, &a, &n, &e), 0);
    assert_int_equal(n, 3);
    char *want;
    if (asprintf(&want, "%s:11: HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet"
                        "\\Services\\Linky", path) < 0)
        abort();
    assert_int_equal(a[0].kind, RT_KEY_LINK);
    assert_false(a[0].in_perflib);
    assert_string_equal(a[0].key, want);
    assert_string_equal(a[0].other, "\\X");
    free(want);
    if (asprintf(&want, "%s:23: HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft"
                        "\\Windows NT\\CurrentVersion\\Perflib\\00A", path) < 0)
        abort();
    assert_int_equal(a[1].kind, RT_KEY_LINK);
    assert_true(a[1].in_perflib);
    assert_string_equal(a[1].key, want);
    assert_null(a[1].other);        /* an empty target names no key */
    free(want);
    /* Nor does one of a NUL alone (decoded, then dropped). */
    if (asprintf(&want, "%s:26: HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft"
                        "\\Windows NT\\CurrentVersion\\Perflib\\00B", path) < 0)
        abort();
    assert_true(a[2].in_perflib);
    assert_string_equal(a[2].key, want);
    assert_null(a[2].other);
    free(want);
    rt_key_anomalies_free(a, n);
    s->ops->close(s);
    free(path);
}


/* A provider's key under a numbered control set (reg import writes it
 * into the set CurrentControlSet stands for on a machine booted from
 * it) is an anomaly naming the first section and counting the others:
 * regtool reads CurrentControlSet's only. Other keys of the set are not,
 * nor keys whose path is shorter than ControlSetNNN\Services. */
static void numbered_control_set_is_a_key_anomaly(void **state)
{
    (void)state;
    static const char text[] =
        "Windows Registry Editor Version 5.00\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services\\Foo\\Performance]\n"
        "\"Library\"=\"foo.dll\"\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Control\\Lsa]\n"
        "\"x\"=dword:00000001\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\Services\\Foo\\Performance]\n"
        "\"Library\"=\"C:\\\\Users\\\\Public\\\\evil.dll\"\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\controlset002\\services\\Foo]\n"
        "\"Start\"=dword:00000002\n"
        "\n"
        /* Shorter than ControlSetNNN\Services: nothing read past them. */
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001\\S]\n"
        "\"a\"=\"b\"\n"
        "\n"
        "[HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet003\\ServicesX]\n"
        "\"a\"=\"b\"\n";
    char *path;
    struct rt_store *s = open_text("numbered.reg", text, &path);
    struct rt_error e = {0};
    struct rt_key_anomaly *a;
    size_t n;
    assert_int_equal(s->ops->key_anomalies(s, &a, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_int_equal(a[0].kind, RT_KEY_NUMBERED_SET);
    char *want;
    if (asprintf(&want, "%s:9: HKEY_LOCAL_MACHINE\\SYSTEM\\ControlSet001"
                        "\\Services\\Foo\\Performance", path) < 0)
        abort();
    assert_string_equal(a[0].key, want);
    assert_string_equal(a[0].other, "1 more");
    free(want);
    rt_key_anomalies_free(a, n);
    s->ops->close(s);
    free(path);
}
/* A write over a file another program changed meanwhile is refused, and
 * that program's file stays. */
static void file_changed_underneath_is_not_overwritten(void **state)
{
    (void)state;
    struct rt_store *s = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    static const char other[] = "Windows Registry Editor Version 5.00\r\n";
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, "009"), 0);
    struct rt_error e = {0};
    /* Changed after begin() read it (a change before is read there). */
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(rt_os_replace_file(path, other, sizeof other - 1, 0644),
                     0);
    assert_int_equal(s->ops->apply(s, &cs, &e), -1);
    s->ops->end(s);
    assert_non_null(strstr(e.message, "changed since"));
    /* What it reads is the file, not the tree the change was made on. */
    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 0);
    uint8_t *d;
    size_t len;
    assert_int_equal(rt_os_read_file(path, &d, &len), 0);
    assert_int_equal(len, sizeof other - 1);
    assert_memory_equal(d, other, len);
    free(d);
    free(path);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* A write that failed after changing the store's tree in place leaves
 * nothing of it: the store reads the file again, and when the file
 * cannot be read then, its next use reads it (never the half-made tree,
 * which would be written out by the next change). */
static void failed_write_reads_the_file_again(void **state)
{
    (void)state;
    struct rt_store *s = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    static const char garbage[] = "not a .reg file\r\n";
    static const char other[] = "Windows Registry Editor Version 5.00\r\n";
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, "01f"), 0);
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(rt_os_replace_file(path, garbage, sizeof garbage - 1,
                                        0644), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), -1);
    s->ops->end(s);
    assert_non_null(strstr(e.message, "changed since"));
    char **langs;
    size_t n;
    memset(&e, 0, sizeof e);
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), -1);
    assert_non_null(strstr(e.message, path));
    assert_int_equal(rt_os_replace_file(path, other, sizeof other - 1, 0644),
                     0);
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 0);
    rt_strings_free(langs, n);
    free(path);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* What a table byte takes at worst in the file of format F, in fifths
 * of a byte: three characters of hex, 25 to a line with its "\\", line
 * break and indent (3.2 characters), each two bytes in UTF-16LE; one in
 * UTF-8, and in REGEDIT4 at worst (a code page of two bytes a
 * character). */
static uint64_t worst_fifths(enum rt_reg_format f)
{
    return f == RT_REG_V5_UTF16 ? 32 : 16;
}

/* What one change may add to a .reg store leaves room for the file it
 * makes: the file's own bytes come off the cap, and a table byte counts
 * what its wrapped hex takes at worst (review 37 F1, F2: a change within
 * the old bound passed its dry run and made a file its writer refused).
 * And the bound is not needlessly small: within 5% of that room. */
static void change_bound_leaves_room_for_the_file(void **state)
{
    (void)state;
    for (int k = 0; k < 15; k++) {
        struct rt_store *s = reg_open(NULL);
        enum rt_reg_format f = serial % 5 == 0   ? RT_REG_V4
                               : serial % 3 == 0 ? RT_REG_V5_UTF8
                                                 : RT_REG_V5_UTF16;
        char *path;
        if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
            abort();
        uint64_t before = rt_store_change_max(s);
        /* A megabyte more in the file: a language's table of ASCII text. */
        size_t tl = 1 << 20;
        uint8_t *blob = malloc(tl);
        assert_non_null(blob);
        for (size_t i = 0; i < tl; i++)
            blob[i] = i % 2 ? 0 : 'a' + i / 2 % 26;
        blob[tl - 2] = blob[tl - 4] = 0;
        struct rt_change_set cs = {0};
        assert_int_equal(rt_change_set_create_language(&cs, "009"), 0);
        assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_HELP, blob,
                                             tl, NULL, NULL), 0);
        free(blob);
        struct rt_error e = {0};
        assert_int_equal(s->ops->begin(s, &e), 0);
        assert_int_equal(s->ops->apply(s, &cs, &e), 0);
        s->ops->end(s);
        rt_change_set_free(&cs);
        struct rt_os_stat st;
        assert_int_equal(rt_os_stat(path, &st), 0);
        assert_true(st.size > tl);
        uint64_t after = rt_store_change_max(s);
        uint64_t room = RT_REG_FILE_MAX - st.size;
        assert_true(after * worst_fifths(f) / 5 <= room);
        assert_true(after * worst_fifths(f) / 5 >= room / 20 * 19);
        assert_true(after < before);
        free(path);
        s->ops->close(s);
    }
}

/* LANG created through S, in a transaction of its own. */
static void add_language(struct rt_store *s, const char *lang)
{
    struct rt_error e = {0};
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, lang), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, &cs, &e) != 0)
        fail_msg("%s", e.message);
    s->ops->end(s);
    rt_change_set_free(&cs);
}

/* The languages the file at PATH holds, as a fresh open reads them. */
static void stored_languages(const char *path, char ***langs, size_t *n)
{
    struct rt_error e = {0};
    struct rt_store *c = rt_store_reg_open(path, codepage(), &e);
    assert_non_null(c);
    assert_int_equal(c->ops->list_languages(c, langs, n, &e), 0);
    c->ops->close(c);
}

/* Two writers that opened the same file: the second begins after the
 * first committed, and works on what the first wrote (begin() reads it
 * under the file's lock), so neither change is lost. */
static void second_writer_keeps_the_first_ones_change(void **state)
{
    (void)state;
    struct rt_store *a = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    struct rt_error e = {0};
    struct rt_store *b = rt_store_reg_open(path, codepage(), &e);
    assert_non_null(b);
    add_language(a, "009");
    add_language(b, "019");
    char **langs;
    size_t n;
    stored_languages(path, &langs, &n);
    assert_int_equal(n, 2);
    rt_strings_free(langs, n);
    b->ops->close(b);
    a->ops->close(a);
    free(path);
}

/* Another program's change that keeps the file's size (a language key
 * renamed, 009 to 00A) while this writer waited is read under the lock
 * too: the file is compared by its bytes, not its size alone, and that
 * change is kept beside this writer's. */
static void change_of_the_same_size_is_read_at_begin(void **state)
{
    (void)state;
    struct rt_store *a = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    struct rt_error e = {0};
    add_language(a, "009");
    a->ops->close(a);
    struct rt_store *b = rt_store_reg_open(path, codepage(), &e);
    assert_non_null(b);
    /* The other program: 009 becomes 00A, byte for byte in place. */
    uint8_t *d;
    size_t len;
    assert_int_equal(rt_os_read_file(path, &d, &len), 0);
    static const uint8_t u8[] = {'0', '0', '9', ']'};
    static const uint8_t u16[] = {'0', 0, '0', 0, '9', 0, ']', 0};
    int found = 0;
    for (size_t i = 0; i + sizeof u16 <= len && !found; i++) {
        if (!memcmp(d + i, u16, sizeof u16)) {
            d[i + 4] = 'A';
            found = 1;
        } else if (!memcmp(d + i, u8, sizeof u8)) {
            d[i + 2] = 'A';
            found = 1;
        }
    }
    assert_true(found);
    assert_int_equal(rt_os_replace_file(path, d, len, 0644), 0);
    free(d);
    add_language(b, "019");
    b->ops->close(b);
    char **langs;
    size_t n;
    stored_languages(path, &langs, &n);
    assert_int_equal(n, 2);
    int has_00a = 0, has_009 = 0;
    for (size_t i = 0; i < n; i++) {
        has_00a |= !strcmp(langs[i], "00A");
        has_009 |= !strcmp(langs[i], "009");
    }
    assert_true(has_00a && !has_009);
    rt_strings_free(langs, n);
    free(path);
}

/* A commit replaces the file whole: its bytes into a temporary file, then
 * the rename over it. Both are writes (the rename counted too), so the
 * crash hook (REGTOOL_FAULT_AFTER_WRITES, here rt_io_fault_after) stops
 * the process after either: after the first the file is the old one,
 * after the rename the new one (tried where fork is). Uncounted, the
 * rename would be no write of the commit and no crash would be tried
 * after it. */
static void commit_is_two_writes_and_each_is_a_crash_point(void **state)
{
    (void)state;
    struct rt_store *s = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    uint8_t *old;
    size_t old_len;
    assert_int_equal(rt_os_read_file(path, &old, &old_len), 0);
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, "009"), 0);
    struct rt_error e = {0};
#ifndef _WIN32
    for (unsigned k = 1; k <= 2; k++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            rt_io_fault_after(k);
            int r = s->ops->begin(s, &e) == 0 &&
                    s->ops->apply(s, &cs, &e) == 0;
            _exit(r ? 0 : 1);
        }
        int status;
        waitpid(pid, &status, 0);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 99);   /* ended by the hook */
        uint8_t *now;
        size_t len;
        assert_int_equal(rt_os_read_file(path, &now, &len), 0);
        if (k == 1) {
            assert_int_equal(len, old_len);
            assert_memory_equal(now, old, len);
        } else {
            assert_true(len != old_len || memcmp(now, old, len) != 0);
            assert_int_equal(rt_os_replace_file(path, old, old_len, 0644), 0);
        }
        free(now);
    }
#endif
    unsigned w0 = rt_io_totals.writes;
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, &cs, &e) != 0)
        fail_msg("%s", e.message);
    s->ops->end(s);
    assert_int_equal(rt_io_totals.writes - w0, 2);
    free(old);
    free(path);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* A writer that crashed between writing its replacement and renaming it
 * over the file left FILE.tmp. and sixteen hex digits: the next writer's
 * begin removes it, under the lock. Names only like it (another file's,
 * fifteen or seventeen digits, a letter past f) are someone else's: kept. */
static void begin_removes_a_crashed_writers_temporary(void **state)
{
    (void)state;
    struct rt_store *s = reg_open(NULL);
    char base[64];
    snprintf(base, sizeof base, "s%u.reg", serial);
    static const char *const tails[] = {
        ".tmp.0123456789abcdef",        /* stale: removed */
        ".tmp.0123456789abcde", ".tmp.0123456789abcdef0", ".tmp.0123456789abcdeg",
        ".tmp_0123456789abcdef", "x.tmp.0123456789abcdef"};
    char *paths[6];
    for (size_t i = 0; i < 6; i++) {
        if (asprintf(&paths[i], "%s/%s%s", dir, base, tails[i]) < 0)
            abort();
        assert_int_equal(rt_os_write_new_file(paths[i], "x", 1), 0);
    }
    char *other;
    if (asprintf(&other, "%s/other.reg.tmp.0123456789abcdef", dir) < 0)
        abort();
    assert_int_equal(rt_os_write_new_file(other, "x", 1), 0);
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    s->ops->end(s);
    assert_false(rt_os_exists(paths[0]));
    for (size_t i = 1; i < 6; i++) {
        if (!rt_os_exists(paths[i]))
            fail_msg("%s was removed", paths[i]);
        rt_os_unlink(paths[i]);
    }
    for (size_t i = 0; i < 6; i++)
        free(paths[i]);
    assert_true(rt_os_exists(other));
    rt_os_unlink(other);
    free(other);
    s->ops->close(s);
}

static int setup(void **state)
{
    (void)state;
    dir = scratch_dir_new("regtool-store-reg");
    return 0;
}

/* An interrupt before the file is replaced (this store's commit point)
 * leaves it as it was and says so (review 37 F6: the change was made
 * whole and called complete). Last: the interrupt stays noted. */
static void interrupt_before_the_rename_changes_nothing(void **state)
{
    (void)state;
    struct rt_store *s = reg_open(NULL);
    char *path;
    if (asprintf(&path, "%s/s%u.reg", dir, serial) < 0)
        abort();
    uint8_t *was, *now;
    size_t was_len, now_len;
    assert_int_equal(rt_os_read_file(path, &was, &was_len), 0);
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, "009"), 0);
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    rt_os_catch_interrupts();
    rt_os_raise(RT_OS_SIGTERM);
    assert_int_equal(s->ops->apply(s, &cs, &e), -1);
    s->ops->end(s);
    assert_int_equal(e.code, RT_ERR_CANCELLED);
    assert_non_null(strstr(e.message, "nothing changed"));
    assert_int_equal(rt_os_read_file(path, &now, &now_len), 0);
    assert_int_equal(now_len, was_len);
    assert_memory_equal(now, was, was_len);
    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 0);
    free(was);
    free(now);
    free(path);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

static int teardown(void **state)
{
    (void)state;
    scratch_remove(dir);
    free(dir);
    return 0;
}

int main(void)
{
    contract = (struct contract_fixture){reg_open, reg_fail, reg_snapshot,
                                         NULL, 0};
    efx = (struct engine_fixture){reg_open, reg_snapshot, 1, NULL, 0};
    const struct CMUnitTest tests[] = {
        STORE_CONTRACT_TESTS,
        ENGINE_SUITE_TESTS
        cmocka_unit_test(bad_files_are_refused_with_their_line),
        cmocka_unit_test(file_changed_underneath_is_not_overwritten),
        cmocka_unit_test(failed_write_reads_the_file_again),
        cmocka_unit_test(second_writer_keeps_the_first_ones_change),
        cmocka_unit_test(change_of_the_same_size_is_read_at_begin),
        cmocka_unit_test(commit_is_two_writes_and_each_is_a_crash_point),
        cmocka_unit_test(begin_removes_a_crashed_writers_temporary),
        cmocka_unit_test(only_language_keys_are_languages),
        cmocka_unit_test(link_values_are_key_anomalies),
        cmocka_unit_test(numbered_control_set_is_a_key_anomaly),
        cmocka_unit_test(change_bound_leaves_room_for_the_file),
        /* Last: the interrupt it raises stays noted. */
        cmocka_unit_test(interrupt_before_the_rename_changes_nothing),
    };
    return cmocka_run_group_tests_name("store_reg", tests, setup, teardown);
}
