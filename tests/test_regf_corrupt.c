/* The regf reader on broken hives: each kind of damage gives an error
 * naming where and what, never a crash, an out-of-range read or an
 * endless loop (the sanitizer build runs this too). Ends with a
 * deterministic mutation fuzz over a small generated hive. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "regf/base_block.h"
#include "regf/regf_internal.h"
#include "regf_testutil.h"

struct sample {
    uint8_t *img;
    size_t len;
    uint32_t root, a, b, value;   /* key A, its subkey B, a value of A */
};

static void make_sample(struct sample *s)
{
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_create(5, NULL, &h, err, sizeof err), 0);
    s->root = rt_regf_root(h);
    assert_int_equal(rt_regf_key_create(h, s->root, "A", &s->a), 0);
    assert_int_equal(rt_regf_key_create(h, s->a, "B", &s->b), 0);
    uint32_t k;
    for (int i = 0; i < 20; i++) {
        char name[16];
        snprintf(name, sizeof name, "W%02d", i);
        assert_int_equal(rt_regf_key_create(h, s->root, name, &k), 0);
    }
    uint8_t data[40000];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    assert_int_equal(rt_regf_value_set(h, s->a, "big", RT_REG_BINARY, data,
                                       sizeof data), 0);
    assert_int_equal(rt_regf_value_set(h, s->a, "small", RT_REG_BINARY, data,
                                       100), 0);
    assert_int_equal(rt_regf_value_set(h, s->a, "dw", RT_REG_DWORD, data, 4), 0);
    assert_int_equal(rt_regf_value_find(h, s->a, "small", &s->value), 0);
    assert_int_equal(rt_regf_seal(h), 0);
    const uint8_t *img;
    rt_regf_image(h, &img, &s->len);
    s->img = malloc(s->len);
    memcpy(s->img, img, s->len);
    rt_regf_close(h);
}

/* Field FIELD of the cell data at hive offset OFF. */
static uint8_t *field(struct sample *s, uint32_t off, size_t f)
{
    return s->img + 4096 + off + 4 + f;
}

static int open_err(struct sample *s, size_t len, unsigned flags, char *err)
{
    struct rt_regf *h;
    int rc = rt_regf_open_memory(s->img, len, flags, &h, err, 256);
    rt_regf_close(h);
    return rc;
}

static int visit(void *ctx, uint32_t key, unsigned depth)
{
    (void)depth;
    struct rt_regf *h = ctx;
    uint32_t *vals;
    size_t n;
    struct rt_regf_key_info ki;
    if (rt_regf_key_info(h, key, &ki))
        return -1;
    rt_regf_key_info_free(&ki);
    if (rt_regf_values(h, key, &vals, &n))
        return -1;
    for (size_t i = 0; i < n; i++) {
        char *name;
        uint8_t *d;
        size_t len;
        uint32_t type;
        if (!rt_regf_value_name(h, vals[i], &name))
            free(name);
        if (!rt_regf_value_read(h, vals[i], &type, &d, &len))
            free(d);
    }
    free(vals);
    return 0;
}

static void noop_finding(void *ctx, enum rt_regf_severity sev, uint64_t off,
                         const char *msg)
{
    (void)sev;
    (void)off;
    (void)msg;
    ++*(int *)ctx;
}

/* Opens, walks and checks; returns the walk's result, error text in ERR. */
static int walk_err(struct sample *s, char *err)
{
    struct rt_regf *h;
    int rc = rt_regf_open_memory(s->img, s->len, 0, &h, err, 256);
    if (rc)
        return rc;
    rc = rt_regf_walk(h, rt_regf_root(h), visit, h);
    snprintf(err, 256, "%s", rt_regf_errmsg(h));
    int findings = 0;
    rt_regf_check(h, noop_finding, &findings);
    rt_regf_close(h);
    return rc;
}

#define assert_has(s, sub) \
    do { if (!strstr((s), (sub))) fail_msg("'%s' lacks '%s'", (s), (sub)); } while (0)

static void truncated_files(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    assert_int_equal(open_err(&s, 100, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "shorter than the 4096-byte base block");
    assert_int_equal(open_err(&s, s.len - 4096, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "(truncated)");
    assert_has(err, "file offset 0x28");
    free(s.img);
}

static void bad_base_block(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    /* Wrong checksum: readable, dirty, not writable unless forced. */
    s.img[508] ^= 0x55;
    struct rt_regf *h;
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    struct rt_regf_info info;
    rt_regf_get_info(h, &info);
    assert_true(info.dirty);
    assert_false(info.checksum_ok);
    rt_regf_close(h);
    assert_int_equal(open_err(&s, s.len, RT_REGF_WRITE, err), RT_REGF_EREADONLY);
    assert_has(err, "base block checksum is wrong");
    assert_int_equal(open_err(&s, s.len, RT_REGF_WRITE | RT_REGF_FORCE, err), 0);
    s.img[508] ^= 0x55;
    /* Sequence numbers differ. */
    regf_put32(s.img + 4, regf_le32(s.img + 4) + 1);
    regf_base_seal(s.img);
    assert_int_equal(open_err(&s, s.len, RT_REGF_WRITE, err), RT_REGF_EREADONLY);
    assert_has(err, "sequence numbers differ");
    regf_put32(s.img + 4, regf_le32(s.img + 4) - 1);
    /* Signature, version, file type, hive-bins size. */
    s.img[0] = 'R';
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "signature is not 'regf'");
    s.img[0] = 'r';
    regf_put32(s.img + 24, 7);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "version 1.7 is not 1.3 to 1.6");
    regf_put32(s.img + 24, 5);
    regf_put32(s.img + 28, 6);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "not a primary hive");
    regf_put32(s.img + 28, 0);
    regf_put32(s.img + 40, 4097);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "not a non-zero multiple of 4096");
    regf_put32(s.img + 40, (uint32_t)s.len - 4096);
    /* Root cell offset pointing outside. */
    regf_put32(s.img + 36, 0x7FFFFFF0);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "key node: offset 0x7ffffff0 is beyond the hive bins");
    free(s.img);
}

static void bad_bins_and_cells(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    memcpy(s.img + 4096, "hbix", 4);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "file offset 0x1000: hive bin signature is not 'hbin'");
    memcpy(s.img + 4096, "hbin", 4);
    regf_put32(s.img + 4096 + 4, 0x2000);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "says it is at offset 0x2000, expected 0x0");
    regf_put32(s.img + 4096 + 4, 0);
    regf_put32(s.img + 4096 + 8, 0x100000);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "hive bin size 0x100000 is not a multiple of 4096 within");
    regf_put32(s.img + 4096 + 8, 4096);

    /* Absurd cell sizes: overrunning the bin, zero, unaligned. */
    uint8_t *cell = s.img + 4096 + s.a;
    uint32_t saved = regf_le32(cell);
    regf_put32(cell, 0x80000008u);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "beyond the end of its hive bin");
    regf_put32(cell, 0);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "cell size 0 is too small");
    regf_put32(cell, saved - 4);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    assert_has(err, "not a multiple of 8");
    regf_put32(cell, saved);
    free(s.img);
}

/* A later hive bin too large: the message gives its offset and the bytes
 * of hive bins that were left for it, those after the bins before it. */
static void later_bin_too_large_says_bytes_left(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256], want[128];
    uint32_t total = regf_le32(s.img + 40);
    uint32_t second = regf_le32(s.img + 4096 + 8);
    assert_true(second < total);    /* the 40000-byte value: two bins */
    assert_memory_equal(s.img + 4096 + second, "hbin", 4);
    regf_put32(s.img + 4096 + second + 8, total);
    assert_int_equal(open_err(&s, s.len, 0, err), RT_REGF_ECORRUPT);
    snprintf(want, sizeof want,
             "file offset 0x%x: hive bin size 0x%x is not a multiple of 4096 "
             "within the %u bytes of hive bins left", 4096 + second, total,
             total - second);
    assert_has(err, want);
    free(s.img);
}

static void bad_references(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    uint8_t saved[4];

    /* A subkey list offset outside the file. */
    memcpy(saved, field(&s, s.a, 28), 4);
    regf_put32(field(&s, s.a, 28), 0x00FFFFF8);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "subkey list: offset 0xfffff8 is beyond the hive bins");
    /* Into the middle of a cell (overlapping records). */
    regf_put32(field(&s, s.a, 28), s.b + 8);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "not the start of a cell");
    /* Onto a key node instead of a list. */
    regf_put32(field(&s, s.a, 28), s.b);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "signature 'nk' is not li, lf, lh or ri");
    memcpy(field(&s, s.a, 28), saved, 4);

    /* Cycle: B's subkey list is its grandparent's list (refused as one
     * list of two keys before the walk comes back to A; a key's own list
     * naming an ancestor, hostile_scale.sh's cycle, is "reached twice"). */
    memcpy(field(&s, s.b, 28), field(&s, s.root, 28), 4);
    memcpy(field(&s, s.b, 20), field(&s, s.root, 20), 4);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "belongs to two owners");
    regf_put32(field(&s, s.b, 20), 0);
    regf_put32(field(&s, s.b, 28), RT_REGF_NONE);

    /* Absurd counts. */
    regf_put32(field(&s, s.a, 20), 0xFFFFFFFF);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "says 4294967295 subkeys, its subkey list holds 1");
    regf_put32(field(&s, s.a, 20), 1);
    regf_put32(field(&s, s.a, 36), 0x40000000);
    struct rt_regf *h;
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    uint32_t *vals;
    size_t n;
    assert_int_equal(rt_regf_values(h, s.a, &vals, &n), RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "1073741824 values do not fit in a cell");
    rt_regf_close(h);
    regf_put32(field(&s, s.a, 36), 3);

    /* Value data: inline size over 4, data longer than its cell. */
    uint32_t saved_len = regf_le32(field(&s, s.value, 4));
    regf_put32(field(&s, s.value, 4), 0x80000009u);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    uint8_t *d;
    uint32_t type;
    assert_int_equal(rt_regf_value_read(h, s.value, &type, &d, &n),
                     RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "inline data of 9 bytes");
    rt_regf_close(h);
    regf_put32(field(&s, s.value, 4), 5000);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_value_read(h, s.value, &type, &d, &n),
                     RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "5000 bytes do not fit in a cell of 100 bytes");
    rt_regf_close(h);
    regf_put32(field(&s, s.value, 4), saved_len);
    assert_int_equal(walk_err(&s, err), 0);
    free(s.img);
}

/* Parts of one value, or of one key, that another names too: refused
 * where they are read, so that a few bytes of hive never stand for any
 * amount of data (six hundred keys whose values all named one table's
 * cells took 900 MB for a 1.6 MB hive). */
static void shared_cells_are_refused(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    struct rt_regf *h;
    uint32_t big, dw;
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_value_find(h, s.a, "big", &big), 0);
    assert_int_equal(rt_regf_value_find(h, s.a, "dw", &dw), 0);
    rt_regf_close(h);
    uint8_t *d;
    size_t n;
    uint32_t type;

    /* "small" names "big"'s data (its length and cell). */
    uint8_t saved[8];
    memcpy(saved, field(&s, s.value, 4), 8);
    memcpy(field(&s, s.value, 4), field(&s, big, 4), 8);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_value_read(h, big, &type, &d, &n), 0);
    free(d);
    /* The same value read again is no second owner. */
    assert_int_equal(rt_regf_value_read(h, big, &type, &d, &n), 0);
    free(d);
    assert_int_equal(rt_regf_value_read(h, s.value, &type, &d, &n),
                     RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "big data record at file offset");
    assert_has(rt_regf_errmsg(h), "belongs to two owners");
    rt_regf_close(h);
    memcpy(field(&s, s.value, 4), saved, 8);

    /* A segment list that names its first segment twice. */
    uint32_t db = regf_le32(field(&s, big, 8));
    uint32_t list = regf_le32(field(&s, db, 4));
    memcpy(saved, field(&s, list, 4), 4);
    memcpy(field(&s, list, 4), field(&s, list, 0), 4);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_value_read(h, big, &type, &d, &n),
                     RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "big data segment at file offset");
    assert_has(rt_regf_errmsg(h), "is named twice");
    rt_regf_close(h);
    memcpy(field(&s, list, 4), saved, 4);

    /* A value list that names one value twice. */
    uint32_t vlist = regf_le32(field(&s, s.a, 40));
    memcpy(saved, field(&s, vlist, 8), 4);
    regf_put32(field(&s, vlist, 8), dw == regf_le32(field(&s, vlist, 0))
                                        ? regf_le32(field(&s, vlist, 4))
                                        : regf_le32(field(&s, vlist, 0)));
    uint32_t *vals;
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_values(h, s.a, &vals, &n), RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "is named twice");
    rt_regf_close(h);
    memcpy(field(&s, vlist, 8), saved, 4);
    assert_int_equal(walk_err(&s, err), 0);
    free(s.img);
}

/* Two keys that name one subkey list, or a key listed under two keys
 * that are not its parent: refused where the list is read, as shared
 * value cells are, so that N keys sharing one list of M keys never cost
 * N x M (4000 services sharing one list of 4000 keys took 505 MB for a
 * 782 KB hive). A key listed once under a key not its parent is read (the
 * store reports it as misparented). */
static void shared_subkey_lists_are_refused(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    char err[256];
    struct rt_regf *h;
    uint32_t w00, *subs;
    size_t n;
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_lookup(h, s.root, "W00", &w00), 0);
    rt_regf_close(h);

    /* W00 names A's list (and its count) as its own. */
    regf_put32(field(&s, w00, 20), 1);
    regf_put32(field(&s, w00, 28), regf_le32(field(&s, s.a, 28)));
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_subkeys(h, s.a, &subs, &n), 0);
    assert_int_equal(n, 1);
    free(subs);
    /* The same key's list read again is no second owner. */
    assert_int_equal(rt_regf_subkeys(h, s.a, &subs, &n), 0);
    free(subs);
    assert_int_equal(rt_regf_subkeys(h, w00, &subs, &n), RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "subkey list at file offset");
    assert_has(rt_regf_errmsg(h), "belongs to two owners");
    rt_regf_close(h);
    assert_int_equal(walk_err(&s, err), RT_REGF_ECORRUPT);
    assert_has(err, "belongs to two owners");
    regf_put32(field(&s, w00, 20), 0);
    regf_put32(field(&s, w00, 28), RT_REGF_NONE);
    assert_int_equal(walk_err(&s, err), 0);
    free(s.img);

    /* X\x1, Y\y1, Z\z1; then Y's and Z's lists both name x1. */
    uint32_t x, y, z, x1, y1, z1;
    assert_int_equal(rt_regf_create(5, NULL, &h, err, sizeof err), 0);
    uint32_t root = rt_regf_root(h);
    assert_int_equal(rt_regf_key_create(h, root, "X", &x), 0);
    assert_int_equal(rt_regf_key_create(h, root, "Y", &y), 0);
    assert_int_equal(rt_regf_key_create(h, root, "Z", &z), 0);
    assert_int_equal(rt_regf_key_create(h, x, "x1", &x1), 0);
    assert_int_equal(rt_regf_key_create(h, y, "y1", &y1), 0);
    assert_int_equal(rt_regf_key_create(h, z, "z1", &z1), 0);
    assert_int_equal(rt_regf_seal(h), 0);
    const uint8_t *img;
    rt_regf_image(h, &img, &s.len);
    s.img = malloc(s.len);
    memcpy(s.img, img, s.len);
    rt_regf_close(h);
    /* Each list is an lh of one entry: the entry's offset at data 4. */
    regf_put32(field(&s, regf_le32(field(&s, y, 28)), 4), x1);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_subkeys(h, x, &subs, &n), 0);
    free(subs);
    assert_int_equal(rt_regf_subkeys(h, y, &subs, &n), 0);
    assert_int_equal(subs[0], x1);
    free(subs);
    assert_int_equal(rt_regf_subkeys(h, y, &subs, &n), 0);
    free(subs);
    rt_regf_close(h);
    regf_put32(field(&s, regf_le32(field(&s, z, 28)), 4), x1);
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    assert_int_equal(rt_regf_subkeys(h, y, &subs, &n), 0);
    free(subs);
    assert_int_equal(rt_regf_subkeys(h, z, &subs, &n), RT_REGF_ECORRUPT);
    assert_has(rt_regf_errmsg(h), "key node at file offset");
    assert_has(rt_regf_errmsg(h), "belongs to two owners");
    rt_regf_close(h);
    free(s.img);
}

struct messages {
    char text[2048];
    size_t len;
};

/* Keeps each finding as "at 0xOFFSET: message", the file offset a user
 * is sent to. */
static void keep_finding(void *ctx, enum rt_regf_severity sev, uint64_t off,
                         const char *msg)
{
    (void)sev;
    struct messages *m = ctx;
    int w = snprintf(m->text + m->len, sizeof m->text - m->len,
                     "at 0x%llx: %s\n", (unsigned long long)off, msg);
    if (w > 0 && (size_t)w < sizeof m->text - m->len)
        m->len += (size_t)w;
}

/* A key listed under one key whose parent field names another: the check
 * names both, the field's value as the file holds it, at the listed key's
 * file offset. */
static void wrong_parent_field_is_named(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    regf_put32(field(&s, s.b, 16), s.root);
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    struct messages m = {{0}, 0};
    rt_regf_check(h, keep_finding, &m);
    rt_regf_close(h);
    char want[128];
    snprintf(want, sizeof want, "at 0x%x: key node: parent field 0x%x, but "
             "it is listed under the key at 0x%x", 4096 + s.b, s.root, s.a);
    assert_has(m.text, want);
    free(s.img);
}

/* Subkeys out of Windows' upper-case order (key A renamed Z in place,
 * before W00): the check says which two, at the parent key's offset. */
static void subkeys_out_of_order_are_named(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    assert_int_equal(*field(&s, s.a, 76), 'A');   /* the name, ASCII */
    *field(&s, s.a, 76) = 'Z';
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    struct messages m = {{0}, 0};
    rt_regf_check(h, keep_finding, &m);
    rt_regf_close(h);
    char want[128];
    snprintf(want, sizeof want, "at 0x%x: key node: subkeys 0 and 1 are not "
             "in Windows' (upper-case) order", 4096 + s.root);
    assert_has(m.text, want);
    free(s.img);
}

/* A key whose value list cannot be read (it names one value twice): the
 * check says so at the key's file offset, where a user looks. */
static void unreadable_value_list_named_at_its_key(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    uint32_t vlist = regf_le32(field(&s, s.a, 40));
    regf_put32(field(&s, vlist, 8), regf_le32(field(&s, vlist, 0)));
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    struct messages m = {{0}, 0};
    rt_regf_check(h, keep_finding, &m);
    rt_regf_close(h);
    char want[128];
    snprintf(want, sizeof want, "at 0x%x: value at file offset ", 4096 + s.a);
    assert_has(m.text, want);
    assert_has(m.text, "is named twice");
    free(s.img);
}

/* A key of more than eight subkeys (looked up by bisection of an index
 * built from its list) whose list names a value record as a subkey: the
 * look-up fails as corruption, naming the cell, and the index half built
 * is freed (the leak checker holds that). */
static void subkey_index_of_a_list_naming_a_value_refused(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    uint32_t list = regf_le32(field(&s, s.root, NK_SUBLIST));
    assert_memory_equal(field(&s, list, 0), "lh", 2);
    regf_put32(field(&s, list, 4 + 8 * 3), s.value);
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    uint32_t k;
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "W10", &k),
                     RT_REGF_ECORRUPT);
    char want[96];
    snprintf(want, sizeof want, "key node at file offset 0x%x: cell too small "
             "for a key node", 4096 + s.value);
    assert_has(rt_regf_errmsg(h), want);
    rt_regf_close(h);
    free(s.img);
}

/* A value of more than 16344 bytes in one cell, as a hive of minor version
 * 3 holds it: in a hive of version 1.4, 1.5 or 1.6 (the version field
 * changed, the checksum made again) the check warns that Windows expects
 * big data there; in the 1.3 hive it is as Windows writes it. */
static void one_cell_past_a_segment_warned_from_minor_4(void **state)
{
    (void)state;
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_create(3, NULL, &h, err, sizeof err), 0);
    uint32_t a;
    assert_int_equal(rt_regf_key_create(h, rt_regf_root(h), "A", &a), 0);
    static uint8_t data[20000];
    assert_int_equal(rt_regf_value_set(h, a, "long", RT_REG_BINARY, data,
                                       sizeof data), 0);
    assert_int_equal(rt_regf_seal(h), 0);
    size_t len;
    uint8_t *copy = tu_image_closed(h, &len);
    for (unsigned minor = 3; minor <= 6; minor++) {
        regf_put32(copy + REGF_OFF_MINOR, minor);
        regf_base_seal(copy);
        assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
        struct messages m = {{0}, 0};
        rt_regf_check(h, keep_finding, &m);
        rt_regf_close(h);
        int warned = strstr(m.text, "value 'long': 20000 bytes of data in "
                                    "one cell; Windows expects big data") != NULL;
        assert_int_equal(warned, minor >= 4);
    }
    free(copy);
}

/* A big-data (db) record needs ceil(len / 16344) segments: a record one
 * short is damage, though its last segment would hold all but up to
 * 16344 bytes. Reading the value must refuse it (not give its last bytes
 * from whatever lies past the segments) and the check must report it.
 * Each length in a version 1.5 hive, written as Windows writes it (then
 * clean, with exactly the segments it needs), then its count lowered by
 * one: one byte past a whole segment (16345, 32689), and a whole
 * number of segments (32688). */
static void big_data_one_segment_short_is_refused(void **state)
{
    (void)state;
    static const uint32_t lens[] = {16345, 32689, 32688};
    static uint8_t data[32689];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)i;
    for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
        uint32_t n = lens[c], need = (n + 16343) / 16344;
        struct rt_regf *h;
        char err[256];
        assert_int_equal(rt_regf_create(5, NULL, &h, err, sizeof err), 0);
        uint32_t a, v;
        assert_int_equal(rt_regf_key_create(h, rt_regf_root(h), "A", &a), 0);
        assert_int_equal(rt_regf_value_set(h, a, "big", RT_REG_BINARY, data,
                                           n), 0);
        assert_int_equal(rt_regf_value_find(h, a, "big", &v), 0);
        assert_int_equal(rt_regf_seal(h), 0);
        size_t len;
        uint8_t *copy = tu_image_closed(h, &len);
        uint32_t db = regf_le32(copy + 4096 + v + 4 + VK_DATA);
        uint8_t *count = copy + 4096 + db + 4 + 2;
        assert_memory_equal(count - 2, "db", 2);
        assert_int_equal(regf_le16(count), need);
        assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
        struct messages m = {{0}, 0};
        assert_int_equal(rt_regf_check(h, keep_finding, &m), 0);
        assert_int_equal(m.len, 0);
        rt_regf_close(h);

        count[0] = (uint8_t)(need - 1);
        char want[64];
        snprintf(want, sizeof want, "%u segments cannot hold %u bytes",
                 need - 1, n);
        assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
        uint32_t type;
        uint8_t *d = NULL;
        size_t dlen;
        assert_int_equal(rt_regf_value_read(h, v, &type, &d, &dlen),
                         RT_REGF_ECORRUPT);
        assert_null(d);
        assert_has(rt_regf_errmsg(h), want);
        rt_regf_close(h);
        assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
        assert_true(rt_regf_check(h, keep_finding, &m) > 0);
        assert_has(m.text, want);
        rt_regf_close(h);
        free(copy);
    }
}

/* A key marked as a symbolic link: the warning names it by its path,
 * at its file offset. */
static void link_key_named_by_its_path(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    uint16_t flags = (uint16_t)(regf_le16(field(&s, s.b, 2)) | 0x0010);
    field(&s, s.b, 2)[0] = (uint8_t)flags;
    field(&s, s.b, 2)[1] = (uint8_t)(flags >> 8);
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(s.img, s.len, 0, &h, err, 256), 0);
    struct messages m = {{0}, 0};
    rt_regf_check(h, keep_finding, &m);
    rt_regf_close(h);
    char want[160];
    snprintf(want, sizeof want, "at 0x%x: key A\\B is a symbolic link "
             "(KEY_SYM_LINK) to a target its SymbolicLinkValue does not name",
             4096 + s.b);
    assert_has(m.text, want);
    free(s.img);
}

/* A link deep below keys of long names: named by the last 400 bytes of
 * its path, which the check keeps as it walks (it walked each link's
 * parents again: 20,000 links 500 keys deep, 25 s, review 34 F8). */
static void deep_link_named_by_the_end_of_its_path(void **state)
{
    (void)state;
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_create(5, NULL, &h, err, sizeof err), 0);
    uint32_t key = rt_regf_root(h), link = 0;
    char name[64];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "%c%059d", 'a' + i, i);
        assert_int_equal(rt_regf_key_create(h, key, name, &key), 0);
    }
    assert_int_equal(rt_regf_key_create(h, key, "Link", &link), 0);
    assert_int_equal(rt_regf_seal(h), 0);
    size_t len;
    uint8_t *copy = tu_image_closed(h, &len);
    uint8_t *flags = copy + 4096 + link + 4 + 2;
    flags[0] |= 0x10;                               /* KEY_SYM_LINK */
    assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
    struct messages m = {{0}, 0};
    rt_regf_check(h, keep_finding, &m);
    rt_regf_close(h);
    /* The whole path, and what the message shows of it. */
    char whole[800], want[600];
    int n = 0;
    for (int i = 0; i < 12; i++)
        n += snprintf(whole + n, sizeof whole - (size_t)n, "%c%059d\\",
                      'a' + i, i);
    snprintf(whole + n, sizeof whole - (size_t)n, "Link");
    size_t wl = strlen(whole);
    assert_true(wl > 400);
    snprintf(want, sizeof want, "key %s is a symbolic link", whole + wl - 400);
    assert_has(m.text, want);
    free(copy);
}

/* Two values of one key whose names differ only in letter case, in a
 * list long enough to be indexed (17 values, sorted by name and looked
 * up in two runs, the first 16 names and the last: the two sort last, one
 * in each run): a look-up by either spelling finds the first in the
 * list, as the scan of a short list does. */
static void equal_names_found_first_in_list_order(void **state)
{
    (void)state;
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_create(5, NULL, &h, err, sizeof err), 0);
    uint32_t key, first, last;
    assert_int_equal(rt_regf_key_create(h, rt_regf_root(h), "K", &key), 0);
    uint8_t data[4] = {1, 2, 3, 4};
    for (int i = 0; i < 17; i++) {
        char name[8];
        snprintf(name, sizeof name, i == 3 ? "zz" : i == 16 ? "ZY" : "v%02d", i);
        assert_int_equal(rt_regf_value_set(h, key, name, RT_REG_DWORD, data, 4), 0);
    }
    assert_int_equal(rt_regf_value_find(h, key, "zz", &first), 0);
    assert_int_equal(rt_regf_value_find(h, key, "ZY", &last), 0);
    assert_int_equal(rt_regf_seal(h), 0);
    size_t len;
    uint8_t *copy = tu_image_closed(h, &len);
    assert_int_equal(copy[4096 + last + 4 + VK_NAME + 1], 'Y');
    copy[4096 + last + 4 + VK_NAME + 1] = 'Z';
    assert_int_equal(rt_regf_open_memory(copy, len, 0, &h, err, 256), 0);
    uint32_t v;
    assert_int_equal(rt_regf_value_find(h, key, "ZZ", &v), 0);
    assert_int_equal(v, first);
    assert_int_equal(rt_regf_value_find(h, key, "zz", &v), 0);
    assert_int_equal(v, first);
    rt_regf_close(h);
    free(copy);
}

/* Fixed-seed mutations: overwrite 1 to 8 bytes (often with extreme
 * values) of the hive bins, then open, walk, read every value, check. */
static void mutation_fuzz(void **state)
{
    (void)state;
    struct sample s;
    make_sample(&s);
    uint8_t *orig = malloc(s.len);
    memcpy(orig, s.img, s.len);
    uint64_t x = 0x9E3779B97F4A7C15u;
    int opened = 0, walked = 0;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(s.img, orig, s.len);
        int edits = 1 + (int)(x % 8);
        for (int e = 0; e < edits; e++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* Half of the edits go to the first bin: the keys, lists and
             * value records; the rest anywhere, data included. */
            size_t span = (x >> 60) & 1 ? s.len - 4096 - 4 : 4096 - 4;
            size_t at = 4096 + (size_t)(x % span);
            switch ((x >> 32) % 4) {
            case 0: s.img[at] ^= (uint8_t)(1u << (x >> 40) % 8); break;
            case 1: s.img[at] = (uint8_t)(x >> 48); break;
            case 2: regf_put32(s.img + (at & ~(size_t)3), 0xFFFFFFFFu); break;
            default: regf_put32(s.img + (at & ~(size_t)3), (uint32_t)(x >> 20) & 0x3FF8); break;
            }
        }
        char err[256];
        struct rt_regf *h;
        if (rt_regf_open_memory(s.img, s.len, 0, &h, err, sizeof err)) {
            assert_true(strlen(err) > 10);
            continue;
        }
        opened++;
        if (rt_regf_walk(h, rt_regf_root(h), visit, h) == 0)
            walked++;
        int findings = 0;
        rt_regf_check(h, noop_finding, &findings);
        rt_regf_close(h);
    }
    fprintf(stderr, "fuzz: %d of 3000 opened, %d walked cleanly\n", opened, walked);
    /* The mutations must exercise the walk, not only the open checks. */
    assert_true(opened > 1000);
    assert_true(walked > 100 && walked < opened);
    free(orig);
    free(s.img);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(truncated_files),
        cmocka_unit_test(bad_base_block),
        cmocka_unit_test(bad_bins_and_cells),
        cmocka_unit_test(later_bin_too_large_says_bytes_left),
        cmocka_unit_test(bad_references),
        cmocka_unit_test(shared_cells_are_refused),
        cmocka_unit_test(shared_subkey_lists_are_refused),
        cmocka_unit_test(wrong_parent_field_is_named),
        cmocka_unit_test(subkeys_out_of_order_are_named),
        cmocka_unit_test(unreadable_value_list_named_at_its_key),
        cmocka_unit_test(subkey_index_of_a_list_naming_a_value_refused),
        cmocka_unit_test(one_cell_past_a_segment_warned_from_minor_4),
        cmocka_unit_test(big_data_one_segment_short_is_refused),
        cmocka_unit_test(link_key_named_by_its_path),
        cmocka_unit_test(deep_link_named_by_the_end_of_its_path),
        cmocka_unit_test(equal_names_found_first_in_list_order),
        cmocka_unit_test(mutation_fuzz),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
