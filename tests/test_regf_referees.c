/* Hives written by the regf writer, read back by three independent
 * readers: libhivex's hivexsh, libregf's regfexport and reglookup. Each
 * referee's output is reduced to one line per key and per value
 * (referee_util.h: path, name, type, and the data: text for strings, the
 * number for DWORD and QWORD, length and FNV-1a hash for the rest),
 * sorted, and compared with the same lines computed from what the test
 * wrote. Covers every type REG_NONE..REG_QWORD, data of 0, 4, 5, 16344,
 * 16345 bytes, 1 MB and 8,000,000 bytes (hivex's own reading limit),
 * non-Latin UTF-16 names, a deep and a wide tree (300 subkeys: the
 * subkey list splits under an ri), deletions and rewrites, in versions
 * 1.3, 1.4 and 1.5. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "referee_util.h"

/* --- the model: what the test writes ---------------------------------- */

/* What each referee should show. Where a referee cannot read what
 * Windows can, its expectation says so:
 * - libregf 20201007 (regfexport) and reglookup read big data only in
 *   version 1.5 and later; Windows since 1.4 (CmpIsHKeyValueBig,
 *   Suhanov's spec "Big data"). Such values are left out for them.
 * - reglookup truncates data over 1 MiB (with a warning).
 * - hivexsh shows REG_DWORD_BIG_ENDIAN as "dword:". */
struct model {
    unsigned minor;
    struct ref_lines expect;       /* our reader, hivexsh: lines after writes */
    struct ref_lines regfexport, reglookup, hivexsh;
    struct ref_lines keys;         /* key paths (relative, '\'-separated) */
};

static uint8_t *pattern(size_t n, unsigned seed)
{
    uint8_t *d = malloc(n ? n : 1);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = (uint8_t)(x >> 16);
    }
    return d;
}

/* UTF-16LE of an ASCII string, NUL-terminated; strings separated by '|'
 * become a REG_MULTI_SZ list. */
static uint8_t *utf16z(const char *s, size_t *n, int multi)
{
    size_t len = strlen(s);
    uint8_t *d = calloc(2 * len + 4, 1);
    for (size_t i = 0; i < len; i++)
        d[2 * i] = multi && s[i] == '|' ? 0 : (uint8_t)s[i];
    *n = 2 * len + (multi ? 4 : 2);
    return d;
}

static uint32_t key_at(struct rt_regf *h, const char *path)
{
    uint32_t k;
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), path, &k), 0);
    return k;
}

static void put(struct rt_regf *h, struct model *m, const char *path,
                const char *name, uint32_t type, const uint8_t *d, size_t n)
{
    uint32_t k = key_at(h, path);
    if (rt_regf_value_set(h, k, name, type, d, n))
        fail_msg("set %s\\%s: %s", path, name, rt_regf_errmsg(h));
    char *r = ref_repr(type, d, n);
    ref_lines_add(&m->expect, ref_value_line(path, name, type, r));
    int unread = m->minor == 4 && n > RT_REGF_SEGMENT_MAX;
    ref_lines_add(&m->regfexport, unread ? strdup("") : ref_value_line(path, name, type, r));
    free(r);
    r = ref_repr(type, d, n > 1048576 ? 1048576 : n);
    ref_lines_add(&m->reglookup, unread ? strdup("") : ref_value_line(path, name, type, r));
    free(r);
    ref_lines_add(&m->hivexsh, ref_value_line(path, name, type, ""));
    free(m->hivexsh.v[m->hivexsh.n - 1]);
    r = ref_repr(type, d, n);
    m->hivexsh.v[m->hivexsh.n - 1] =
        ref_value_line(path, name, type == RT_REG_DWORD_BIG_ENDIAN ? RT_REG_DWORD : type, r);
    free(r);
}

/* D (N bytes) with EDITS made, composed here by hand: what
 * rt_regf_value_splice must leave. */
static uint8_t *spliced(const uint8_t *d, size_t n,
                        const struct rt_regf_edit *edits, size_t k,
                        size_t *out_n)
{
    uint8_t *o = malloc(n + 200000), *w = o;
    size_t at = 0;
    for (size_t i = 0; i < k; i++) {
        memcpy(w, d + at, edits[i].at - at);
        w += edits[i].at - at;
        if (edits[i].ins_len)
            memcpy(w, edits[i].ins, edits[i].ins_len);
        w += edits[i].ins_len;
        at = edits[i].at + edits[i].cut;
    }
    memcpy(w, d + at, n - at);
    *out_n = (size_t)(w - o) + n - at;
    return o;
}

/* Value NAME of Spliced set to N bytes, then EDITS made with
 * rt_regf_value_splice; the referees must read what the edits make. */
static void splice_case(struct rt_regf *h, struct model *m, const char *name,
                        size_t n, const struct rt_regf_edit *edits, size_t k)
{
    uint8_t *d = pattern(n, (unsigned)n);
    size_t want_n;
    uint8_t *want = spliced(d, n, edits, k, &want_n);
    put(h, m, "Spliced", name, RT_REG_BINARY, want, want_n);
    uint32_t key = key_at(h, "Spliced");
    assert_int_equal(rt_regf_value_set(h, key, name, RT_REG_BINARY, d, n), 0);
    assert_int_equal(rt_regf_value_splice(h, key, name, RT_REG_BINARY, n,
                                          edits, k), 0);
    uint8_t *got;
    size_t got_n;
    uint32_t type;
    assert_int_equal(rt_regf_get_value(h, key, name, &type, &got, &got_n), 0);
    assert_int_equal(got_n, want_n);
    assert_memory_equal(got, want, want_n);
    free(got);
    free(want);
    free(d);
}

/* Replaces or drops the most recent line of every list. */
static void retract_last(struct model *m, const char *path, const char *name,
                         uint32_t type, const uint8_t *d, size_t n)
{
    struct ref_lines *all[] = {&m->expect, &m->regfexport, &m->reglookup, &m->hivexsh};
    for (int i = 0; i < 4; i++) {
        free(all[i]->v[all[i]->n - 1]);
        all[i]->n--;
    }
    char *r = ref_repr(type, d, n);
    for (int i = 0; i < 4; i++)
        ref_lines_add(all[i], ref_value_line(path, name, type, r));
    free(r);
}

static void add_key(struct rt_regf *h, struct model *m, const char *path)
{
    key_at(h, path);
    ref_lines_add(&m->keys, strdup(path));
    ref_lines_add(&m->expect, ref_key_line(path));
    ref_lines_add(&m->regfexport, ref_key_line(path));
    ref_lines_add(&m->reglookup, ref_key_line(path));
    ref_lines_add(&m->hivexsh, ref_key_line(path));
}

static void build(struct rt_regf *h, struct model *m)
{
    static const char *const all_keys[] = {
        "Types", "Sizes", "\xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87",
        "\xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87\\\xe4\xb8\xad\xe6\x96\x87", "Deep",
        "Wide", "Rewritten", "Spliced", "Many"};
    for (size_t i = 0; i < sizeof all_keys / sizeof *all_keys; i++)
        add_key(h, m, all_keys[i]);

    /* Every predefined type. */
    uint8_t five[5] = {1, 2, 3, 4, 5}, q[8] = {1, 2, 3, 4, 5, 6, 0xF7, 0x88};
    size_t n;
    uint8_t *s;
    put(h, m, "Types", "none", RT_REG_NONE, five, 5);
    s = utf16z("hello, world", &n, 0);
    put(h, m, "Types", "sz", RT_REG_SZ, s, n);
    free(s);
    s = utf16z("%SystemRoot%\\system32\\perfc009.dat", &n, 0);
    put(h, m, "Types", "expand", RT_REG_EXPAND_SZ, s, n);
    free(s);
    put(h, m, "Types", "binary", RT_REG_BINARY, five, 5);
    put(h, m, "Types", "dword", RT_REG_DWORD, (const uint8_t *)"\x0a\x0b\xc0\xd0", 4);
    put(h, m, "Types", "dword_be", RT_REG_DWORD_BIG_ENDIAN, (const uint8_t *)"\x01\x02\x03\xf4", 4);
    s = utf16z("\\Registry\\Machine\\Software\\Target", &n, 0);
    put(h, m, "Types", "link", RT_REG_LINK, s, n);
    free(s);
    s = utf16z("2|System|4|Memory", &n, 1);
    put(h, m, "Types", "multi", RT_REG_MULTI_SZ, s, n);
    free(s);
    put(h, m, "Types", "resource_list", RT_REG_RESOURCE_LIST, five, 5);
    put(h, m, "Types", "full_descriptor", RT_REG_FULL_RESOURCE_DESCRIPTOR, five, 5);
    put(h, m, "Types", "requirements", RT_REG_RESOURCE_REQUIREMENTS_LIST, five, 5);
    put(h, m, "Types", "qword", RT_REG_QWORD, q, 8);
    s = utf16z("default value", &n, 0);
    put(h, m, "Types", "", RT_REG_SZ, s, n);
    free(s);

    /* Sizes around the inline and big-data limits. */
    static const size_t sizes[] = {0, 4, 5, 16344, 16345, 1048576};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        char name[32];
        snprintf(name, sizeof name, "bin_%zu", sizes[i]);
        uint8_t *d = pattern(sizes[i], (unsigned)i);
        put(h, m, "Sizes", name, RT_REG_BINARY, d, sizes[i]);
        free(d);
    }

    /* Non-Latin names (stored as UTF-16) on keys and values. */
    put(h, m, "\xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87",
        "\xd0\x97\xd0\xbd\xd0\xb0\xd1\x87\xd0\xb5\xd0\xbd\xd0\xb8\xd0\xb5",
        RT_REG_DWORD, (const uint8_t *)"\x2a\0\0\0", 4);
    s = utf16z("x", &n, 0);
    put(h, m, "\xd0\x9a\xd0\xbb\xd1\x8e\xd1\x87\\\xe4\xb8\xad\xe6\x96\x87",
        "\xe5\x90\x8d\xe5\x89\x8d", RT_REG_SZ, s, n);
    free(s);

    /* Many: 1,000 values on one key, a third of them set first with
     * other data and replaced (the key's list grown with room to spare,
     * its values found through its index). */
    uint32_t k = key_at(h, "Many");
    uint8_t *many = pattern(300, 3);
    for (int i = 0; i < 1000; i += 3) {
        char name[32];
        snprintf(name, sizeof name, "Value%04d", i);
        assert_int_equal(rt_regf_value_set(h, k, name, RT_REG_BINARY, many,
                                           300), 0);
    }
    for (int i = 0; i < 1000; i++) {
        char name[32];
        snprintf(name, sizeof name, "Value%04d", i);
        put(h, m, "Many", name, i % 2 ? RT_REG_DWORD : RT_REG_BINARY, many,
            i % 2 ? 4 : (size_t)(16 + i % 200));
    }
    free(many);

    /* Deep: 40 levels. */
    char deep[512] = "Deep";
    for (int i = 1; i <= 40; i++) {
        size_t l = strlen(deep);
        snprintf(deep + l, sizeof deep - l, "\\L%02d", i);
        add_key(h, m, deep);
    }
    put(h, m, deep, "bottom", RT_REG_DWORD, (const uint8_t *)"\x28\0\0\0", 4);

    /* Wide: 300 subkeys, inserted in descending order. */
    for (int i = 299; i >= 0; i--) {
        char p[64];
        snprintf(p, sizeof p, "Wide\\Key%03d", i);
        add_key(h, m, p);
    }

    /* Deletions: a subtree with values, single values, keys among many. */
    k = key_at(h, "Gone\\A\\B");
    uint8_t *big = pattern(40000, 9);
    assert_int_equal(rt_regf_value_set(h, k, "big", RT_REG_BINARY, big, 40000), 0);
    assert_int_equal(rt_regf_value_set(h, k, "small", RT_REG_DWORD, five, 4), 0);
    assert_int_equal(rt_regf_key_delete(h, key_at(h, "Gone"), 0), RT_REGF_ENOTEMPTY);
    assert_int_equal(rt_regf_key_delete(h, key_at(h, "Gone"), RT_REGF_RECURSIVE), 0);
    k = key_at(h, "Types");
    assert_int_equal(rt_regf_value_set(h, k, "temporary", RT_REG_BINARY, big, 20000), 0);
    assert_int_equal(rt_regf_value_delete(h, k, "TEMPORARY"), 0);
    assert_int_equal(rt_regf_value_delete(h, k, "temporary"), RT_REGF_ENOTFOUND);
    for (int i = 0; i < 300; i += 7) {
        char p[64];
        snprintf(p, sizeof p, "Wide\\Key%03d", i);
        assert_int_equal(rt_regf_key_delete(h, key_at(h, p), 0), 0);
        char *line = ref_key_line(p);
        struct ref_lines *all[] = {&m->expect, &m->regfexport, &m->reglookup, &m->hivexsh};
        for (int a = 0; a < 4; a++)
            for (size_t j = 0; j < all[a]->n; j++)
                if (!strcmp(all[a]->v[j], line))
                    all[a]->v[j][0] = 0;
        for (size_t j = 0; j < m->keys.n; j++)
            if (!strcmp(m->keys.v[j], p))
                m->keys.v[j][0] = 0;
        free(line);
    }

    /* Rewrites: big to small to big, inline to cell to inline. */
    k = key_at(h, "Rewritten");
    assert_int_equal(rt_regf_value_set(h, k, "v1", RT_REG_BINARY, big, 40000), 0);
    assert_int_equal(rt_regf_value_set(h, k, "v1", RT_REG_BINARY, five, 5), 0);
    assert_int_equal(rt_regf_value_set(h, k, "v2", RT_REG_BINARY, five, 3), 0);
    assert_int_equal(rt_regf_value_set(h, k, "v2", RT_REG_BINARY, big, 100), 0);
    put(h, m, "Rewritten", "v1", RT_REG_BINARY, big, 30000);
    put(h, m, "Rewritten", "V2", RT_REG_DWORD, five, 4);
    /* The stored name keeps the case it was created with. */
    retract_last(m, "Rewritten", "v2", RT_REG_DWORD, five, 4);

    /* Splices: an append in the last segment (an install), cuts across
     * segments (an uninstall), growth by whole segments, small to big and
     * big to small. */
    uint8_t *ins = pattern(60000, 5);
    const struct rt_regf_edit append[] = {{99998, 2, ins, 5000}};
    const struct rt_regf_edit cuts[] = {{20000, 40000, NULL, 0},
                                        {90000, 10, ins, 7}};
    const struct rt_regf_edit grow[] = {{16344, 0, ins, 60000}};
    const struct rt_regf_edit to_big[] = {{500, 0, ins, 30000}};
    const struct rt_regf_edit to_small[] = {{100, 39000, NULL, 0}};
    splice_case(h, m, "append", 100000, append, 1);
    splice_case(h, m, "cuts", 100000, cuts, 2);
    splice_case(h, m, "grow", 50000, grow, 1);
    splice_case(h, m, "to_big", 1000, to_big, 1);
    splice_case(h, m, "to_small", 40000, to_small, 1);
    free(ins);
    free(big);
}

/* What reglookup says, and nothing else, where it cannot read what
 * Windows can (the model above): names it cannot show in ASCII
 * (REF_REGLOOKUP_NON_ASCII), big data in version 1.4 or earlier, data
 * over 1 MiB it truncates (REF_REGLOOKUP_TRUNCATES). */
#define REGLOOKUP_BIG14 "larger than remaining cell length|Could not parse data record"

/* --- our own reader --------------------------------------------------- */

/* KEY (at PATH, "" for the root) and everything below it as our reader
 * sees it, in the canonical lines. */
static void ours_key(struct rt_regf *h, uint32_t key, const char *path,
                     struct ref_lines *out, unsigned depth)
{
    assert_true(depth < 100);
    uint32_t *vals, *subs;
    size_t nv, ns;
    assert_int_equal(rt_regf_values(h, key, &vals, &nv), 0);
    for (size_t i = 0; i < nv; i++) {
        char *name;
        uint32_t type;
        uint8_t *d;
        size_t n;
        assert_int_equal(rt_regf_value_name(h, vals[i], &name), 0);
        assert_int_equal(rt_regf_value_read(h, vals[i], &type, &d, &n), 0);
        char *r = ref_repr(type, d, n);
        ref_lines_add(out, ref_value_line(path, name, type, r));
        free(r);
        free(d);
        free(name);
    }
    free(vals);
    assert_int_equal(rt_regf_subkeys(h, key, &subs, &ns), 0);
    for (size_t i = 0; i < ns; i++) {
        struct rt_regf_key_info ki;
        assert_int_equal(rt_regf_key_info(h, subs[i], &ki), 0);
        char *sub;
        assert_true(asprintf(&sub, "%s%s%s", path, *path ? "\\" : "",
                             ki.name) > 0);
        rt_regf_key_info_free(&ki);
        ref_lines_add(out, ref_key_line(sub));
        ours_key(h, subs[i], sub, out, depth + 1);
        free(sub);
    }
    free(subs);
}

/* The lines of the whole hive at PATH through our reader. */
static void ref_run_ours(const char *hive, struct ref_lines *out)
{
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open(hive, 0, &h, err, sizeof err), 0);
    ours_key(h, rt_regf_root(h), "", out, 0);
    rt_regf_close(h);
}

/* --- tests ------------------------------------------------------------ */

static void print_finding(void *ctx, enum rt_regf_severity sev,
                          uint64_t off, const char *msg)
{
    ++*(int *)ctx;
    fprintf(stderr, "%s at 0x%llx: %s\n", sev ? "error" : "warning",
            (unsigned long long)off, msg);
}

static void write_and_referee(unsigned minor)
{
    char err[256];
    struct rt_regf *h;
    assert_int_equal(rt_regf_create(minor, "ROOT", &h, err, sizeof err), 0);
    struct model m = {0};
    m.minor = minor;
    build(h, &m);
    char *dir = tu_tmpdir(), *hive;
    assert_true(asprintf(&hive, "%s/hive", dir) > 0);
    assert_int_equal(rt_regf_save_as(h, hive), 0);
    rt_regf_close(h);

    /* Our own reader and check agree first. */
    assert_int_equal(rt_regf_open(hive, 0, &h, err, sizeof err), 0);
    struct rt_regf_info info;
    rt_regf_get_info(h, &info);
    assert_int_equal(info.minor, minor);
    assert_false(info.dirty);
    int findings = 0;
    assert_int_equal(rt_regf_check(h, print_finding, &findings), 0);
    assert_int_equal(findings, 0);
    rt_regf_close(h);

    ref_finish(&m.expect);
    ref_finish(&m.regfexport);
    ref_finish(&m.reglookup);
    ref_finish(&m.hivexsh);
    struct ref_lines got = {0};
    ref_run_ours(hive, &got);
    ref_compare("our reader", &m.expect, &got);
    ref_lines_free(&got);

    ref_run_regfexport(hive, NULL, 0, &got);
    for (size_t i = 0; minor == 4 && i < got.n; i++)
        if (strstr(got.v[i], "| bytes:12:"))
            got.v[i][0] = 0;    /* the db record read as data */
    ref_compare("regfexport", &m.regfexport, &got);
    ref_lines_free(&got);

    ref_run_reglookup(hive, minor == 5 ? REF_REGLOOKUP_NON_ASCII : REF_REGLOOKUP_NON_ASCII "|" REGLOOKUP_BIG14, &got);
    for (size_t i = 0; minor == 4 && i < got.n; i++)
        if (strstr(got.v[i], "| bytes:0:") &&
            !bsearch(&got.v[i], m.reglookup.v, m.reglookup.n, sizeof *got.v, ref_cmp_str))
            got.v[i][0] = 0;    /* big data it cannot read in 1.4 */
    ref_compare("reglookup", &m.reglookup, &got);
    ref_lines_free(&got);

    ref_run_hivexsh(hive, &m.keys, &m.hivexsh, &got);
    ref_compare("hivexsh", &m.hivexsh, &got);
    ref_lines_free(&got);

    ref_lines_free(&m.expect);
    ref_lines_free(&m.regfexport);
    ref_lines_free(&m.reglookup);
    ref_lines_free(&m.hivexsh);
    ref_lines_free(&m.keys);
    free(hive);
    tu_rmdir(dir);
}

static void version_1_5(void **state)
{
    (void)state;
    write_and_referee(5);
}

static void version_1_4(void **state)
{
    (void)state;
    write_and_referee(4);
}

static void version_1_3(void **state)
{
    (void)state;
    write_and_referee(3);
}

/* 8,000,000 bytes (hivex's reading limit) as 490 segments. Read in full
 * by hivexsh and by us, its first MiB by reglookup. regfexport is left
 * out: it prints such a value byte by byte for over 30 seconds. */
static void huge_value(void **state)
{
    (void)state;
    char err[256];
    struct rt_regf *h;
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    struct model m = {0};
    m.minor = 5;
    add_key(h, &m, "Huge");
    uint8_t *d = pattern(8000000, 77);
    put(h, &m, "Huge", "Help", RT_REG_BINARY, d, 8000000);
    char *dir = tu_tmpdir(), *hive;
    assert_true(asprintf(&hive, "%s/hive", dir) > 0);
    assert_int_equal(rt_regf_save_as(h, hive), 0);
    rt_regf_close(h);

    assert_int_equal(rt_regf_open(hive, 0, &h, err, sizeof err), 0);
    uint32_t key, type;
    uint8_t *back;
    size_t n;
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "huge", &key), 0);
    assert_int_equal(rt_regf_get_value(h, key, "help", &type, &back, &n), 0);
    assert_int_equal(n, 8000000);
    assert_memory_equal(back, d, n);
    free(back);
    rt_regf_close(h);
    free(d);

    ref_finish(&m.reglookup);
    ref_finish(&m.hivexsh);
    struct ref_lines got = {0};
    ref_run_reglookup(hive, REF_REGLOOKUP_TRUNCATES, &got);
    ref_compare("reglookup", &m.reglookup, &got);
    ref_lines_free(&got);
    ref_finish(&m.expect);
    ref_run_ours(hive, &got);
    ref_compare("our reader", &m.expect, &got);
    ref_lines_free(&got);
    ref_run_hivexsh(hive, &m.keys, &m.hivexsh, &got);
    ref_compare("hivexsh", &m.hivexsh, &got);
    ref_lines_free(&got);
    ref_lines_free(&m.expect);
    ref_lines_free(&m.regfexport);
    ref_lines_free(&m.reglookup);
    ref_lines_free(&m.hivexsh);
    ref_lines_free(&m.keys);
    free(hive);
    tu_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_value),
        cmocka_unit_test(version_1_5),
        cmocka_unit_test(version_1_4),
        cmocka_unit_test(version_1_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
