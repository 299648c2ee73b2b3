/* Hive-file layer: structural check. Reports the dirty state, then walks
 * every key from the root: subkey lists (order, lf hints, lh hashes,
 * parent links), values and their data (including big data held in one
 * cell, which Windows rejects), security cells and their reference
 * counts. Problems that make the hive unreadable are errors, the rest
 * warnings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/regf_internal.h"
#include "model/strbuf.h"
#include "model/utf16.h"

struct checker {
    struct rt_regf *h;
    void (*fn)(void *ctx, enum rt_regf_severity sev, uint64_t offset,
               const char *message);
    void *ctx;
    int errors;
    /* Memory ran out: the walk stopped, and what it did not see is no
     * finding (a security cell's count, a cell not read). */
    int nomem;
    struct regf_free *sk;       /* (refs counted, sk offset) pairs */
    size_t nsk, capsk;
    /* The path of the key being checked, kept as the walk goes down and
     * up (AT: where each depth's part starts): a message names it
     * without walking its parents again (20,000 links 500 keys deep of
     * long names: 25 s, review 34 F8). */
    struct rt_strbuf path;
    size_t at[REGF_MAX_DEPTH + 2];
};

static void report(struct checker *c, enum rt_regf_severity sev,
                   uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void report(struct checker *c, enum rt_regf_severity sev,
                   uint64_t off, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (sev == RT_REGF_ERROR)
        c->errors++;
    c->fn(c->ctx, sev, off, msg);
}

/* A read of the hive failed (H->err says why), at OFF: an error, unless
 * memory ran out, which is no damage of the hive. Returns C->nomem. */
static int failed(struct checker *c, uint64_t off)
{
    if (c->h->err_code == RT_REGF_ENOMEM)
        c->nomem = 1;
    else
        report(c, RT_REGF_ERROR, off, "%s", c->h->err);
    return c->nomem;
}

/* A key's security cell, noted to be counted once the walk is done:
 * the notes sorted by cell and counted in runs (a search of the cells
 * seen so far, for each key, took time in the square of the hive's
 * distinct security cells: 320,000 keys each with its own, 16 s). */
static void count_sk(struct checker *c, uint32_t sk)
{
    if (c->nsk == c->capsk) {
        size_t cap = c->capsk ? c->capsk * 2 : 16;
        struct regf_free *v = realloc(c->sk, cap * sizeof *v);
        if (!v) {
            c->nomem = 1;
            return;
        }
        c->sk = v;
        c->capsk = cap;
    }
    c->sk[c->nsk].off = sk;
    c->sk[c->nsk].size = 1;
    c->nsk++;
}

static int by_off(const void *a, const void *b)
{
    uint32_t x = ((const struct regf_free *)a)->off;
    uint32_t y = ((const struct regf_free *)b)->off;
    return (x > y) - (x < y);
}

/* The notes of count_sk, one for each key, made one for each cell with
 * the keys that use it in SIZE. */
static void runs_of_sk(struct checker *c)
{
    if (!c->nsk)
        return;
    qsort(c->sk, c->nsk, sizeof *c->sk, by_off);
    size_t w = 0;
    for (size_t i = 1; i < c->nsk; i++) {
        if (c->sk[i].off == c->sk[w].off)
            c->sk[w].size++;
        else
            c->sk[++w] = c->sk[i];
    }
    c->nsk = w + 1;
}

/* Hints and hashes of the leaves under LIST. */
static void check_hints(struct checker *c, uint32_t list, int allow_ri)
{
    struct rt_regf *h = c->h;
    uint8_t *p;
    uint32_t len;
    if (regf_cell(h, list, "subkey list", &p, &len) || len < 4)
        return;
    uint32_t n = regf_le16(p + 2);
    if (!memcmp(p, "ri", 2) && allow_ri) {
        for (uint32_t i = 0; i < n && 4 + 4 * (uint64_t)i + 4 <= len; i++) {
            check_hints(c, regf_le32(p + 4 + 4 * i), 0);
            regf_cell(h, list, "subkey list", &p, &len);
        }
        return;
    }
    int lh = !memcmp(p, "lh", 2), lf = !memcmp(p, "lf", 2);
    if (!lh && !lf)
        return;
    for (uint32_t i = 0; i < n && 4 + 8 * (uint64_t)i + 8 <= len; i++) {
        uint32_t key = regf_le32(p + 4 + 8 * i), stored = regf_le32(p + 8 + 8 * i);
        uint32_t want;
        if (regf_leaf_hint(h, lh, key, &want)) {
            if (h->err_code == RT_REGF_ENOMEM) {
                c->nomem = 1;
                return;
            }
            continue;
        }
        /* The cell may have moved with the name's read. */
        if (regf_cell(h, list, "subkey list", &p, &len))
            return;
        if (want != stored)
            report(c, RT_REGF_WARNING, regf_file_off(list) + 8 + 8 * i,
                   "subkey list entry %u: %s 0x%08x, expected 0x%08x", i,
                   lh ? "hash" : "name hint", stored, want);
    }
}

static void check_values(struct checker *c, uint32_t key)
{
    struct rt_regf *h = c->h;
    uint32_t *vals;
    size_t n;
    if (regf_value_list(h, key, &vals, &n)) {
        failed(c, regf_file_off(key));
        return;
    }
    for (size_t i = 0; i < n && !c->nomem; i++) {
        char *name = NULL;
        uint8_t *data = NULL, *vk;
        size_t len;
        uint32_t type, vlen;
        if (rt_regf_value_name(h, vals[i], &name) ||
            rt_regf_value_read(h, vals[i], &type, &data, &len)) {
            failed(c, regf_file_off(vals[i]));
        } else if (!regf_vk(h, vals[i], &vk, &vlen)) {
            uint32_t raw = regf_le32(vk + VK_DATALEN);
            if (!(raw & VK_DATA_INLINE) && h->minor >= 4 &&
                len > RT_REGF_SEGMENT_MAX &&
                !regf_is_big_data(h, (uint32_t)len, regf_le32(vk + VK_DATA)))
                report(c, RT_REGF_WARNING, regf_file_off(vals[i]),
                       "value '%s': %zu bytes of data in one cell; Windows "
                       "expects big data (segments of 16344 bytes) over "
                       "16344 bytes", name, len);
        }
        free(name);
        free(data);
    }
    free(vals);
}

/* A symbolic link key: Windows opens its target in its place, so what
 * lies below it is not what a reader of this file sees there. */
/* The path of the key being checked, for a message: its last 400 bytes
 * when longer (a message is cut at 512). */
static const char *shown_path(const struct checker *c)
{
    if (c->path.failed || !c->path.s)
        return c->path.failed ? NULL : "";
    return c->path.len > 400 ? c->path.s + c->path.len - 400 : c->path.s;
}

/* Where the walk is: KEY, named NAME (NULL when unreadable), at DEPTH. */
static void path_at(struct checker *c, unsigned depth, const char *name)
{
    if (depth == 0) {
        rt_strbuf_clear(&c->path);
        rt_strbuf_append(&c->path, "", 0);
        c->at[1] = 0;
        return;
    }
    c->path.len = c->at[depth];
    if (c->path.s)
        c->path.s[c->path.len] = '\0';
    if (depth > 1)
        rt_strbuf_append(&c->path, "\\", 1);
    const char *n = name ? name : "(unreadable)";
    rt_strbuf_append(&c->path, n, strlen(n));
    c->at[depth + 1] = c->path.len;
}

static void report_link(struct checker *c, uint32_t key)
{
    char *target = NULL;
    const char *path = shown_path(c);
    rt_regf_key_link_target(c->h, key, &target);
    report(c, RT_REGF_WARNING, regf_file_off(key),
           "key %s is a symbolic link (KEY_SYM_LINK) to %s: Windows opens "
           "that key in its place; regtool does not follow it",
           path ? path : "(path unreadable)",
           target ? target : "a target its SymbolicLinkValue does not name");
    free(target);
}

/* Two subkeys of KEY whose names differ only in letter case: Windows
 * finds one of them by either name, and the other is out of its reach. */
static void report_twins(struct checker *c, uint32_t key, uint32_t a,
                         uint32_t b)
{
    const char *path = shown_path(c);
    struct rt_regf_key_info x, y;
    int xa = rt_regf_key_info(c->h, a, &x), yb = rt_regf_key_info(c->h, b, &y);
    report(c, RT_REGF_WARNING, regf_file_off(key),
           "key %s holds both %s and %s, names that differ only in letter "
           "case: Windows reaches one of them by either name",
           path ? (*path ? path : "(root)") : "(path unreadable)",
           xa ? "(unreadable)" : x.name, yb ? "(unreadable)" : y.name);
    if (!xa)
        rt_regf_key_info_free(&x);
    if (!yb)
        rt_regf_key_info_free(&y);
}

static int check_key(void *ctx, uint32_t key, unsigned depth)
{
    struct checker *c = ctx;
    struct rt_regf *h = c->h;
    uint8_t *nk;
    uint32_t len;
    if (regf_nk(h, key, &nk, &len))
        return RT_REGF_ECORRUPT;
    uint32_t sk = regf_le32(nk + NK_SECURITY), nsub = regf_le32(nk + NK_NSUB);
    uint32_t list = regf_le32(nk + NK_SUBLIST);
    uint8_t *skp;
    uint32_t sklen;
    if (regf_cell(h, sk, "security cell", &skp, &sklen) ||
        sklen < SK_DESC || memcmp(skp, "sk", 2))
        report(c, RT_REGF_ERROR, regf_file_off(key),
               "key node: security cell 0x%x is not an 'sk' record", sk);
    else
        count_sk(c, sk);
    struct rt_regf_key_info info;
    int unread = rt_regf_key_info(h, key, &info);
    path_at(c, depth, unread ? NULL : info.name);
    if (unread)
        failed(c, regf_file_off(key));
    else if (info.flags & RT_REGF_KEY_SYM_LINK)
        report_link(c, key);
    rt_regf_key_info_free(&info);
    check_values(c, key);
    uint32_t *subs;
    size_t n;
    if (c->nomem)
        return RT_REGF_ENOMEM;
    if (regf_subkey_list(h, key, &subs, &n))
        return h->err_code == RT_REGF_ENOMEM ? RT_REGF_ENOMEM
                                             : 0;   /* the walk reports it */
    uint16_t *prev = NULL;
    size_t prevn = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t *sub;
        uint32_t slen;
        uint16_t *name;
        size_t nn;
        if (regf_nk(h, subs[i], &sub, &slen) ||
            regf_nk_name16(h, subs[i], &name, &nn)) {
            c->nomem |= h->err_code == RT_REGF_ENOMEM;
            break;
        }
        if (regf_le32(sub + NK_PARENT) != key)
            report(c, RT_REGF_WARNING, regf_file_off(subs[i]),
                   "key node: parent field 0x%x, but it is listed under the "
                   "key at 0x%x", regf_le32(sub + NK_PARENT), key);
        for (size_t k = 0; k < nn; k++)
            name[k] = rt_upcase16(name[k]);
        int order = prev ? regf_name_cmp16(prev, prevn, name, nn) : -1;
        if (order == 0)
            report_twins(c, key, subs[i - 1], subs[i]);
        else if (order > 0)
            report(c, RT_REGF_WARNING, regf_file_off(key),
                   "key node: subkeys %zu and %zu are not in Windows' "
                   "(upper-case) order", i - 1, i);
        free(prev);
        prev = name;
        prevn = nn;
    }
    free(prev);
    free(subs);
    if (nsub && !c->nomem)
        check_hints(c, list, 1);
    return c->nomem ? RT_REGF_ENOMEM : 0;
}

int rt_regf_check(struct rt_regf *h,
                  void (*fn)(void *ctx, enum rt_regf_severity sev,
                             uint64_t offset, const char *message),
                  void *ctx)
{
    struct checker c = {.h = h, .fn = fn, .ctx = ctx};
    const uint8_t *b = h->img;
    uint32_t stored = regf_le32(b + REGF_OFF_CHECKSUM);
    if (!h->checksum_ok_at_open)
        report(&c, RT_REGF_WARNING, REGF_OFF_CHECKSUM,
               "base block checksum is 0x%08x, computed 0x%08x: the hive is "
               "dirty", stored, regf_base_checksum(b));
    uint32_t s1 = regf_le32(b + REGF_OFF_SEQ1), s2 = regf_le32(b + REGF_OFF_SEQ2);
    if (s1 != s2)
        report(&c, RT_REGF_WARNING, REGF_OFF_SEQ1,
               "sequence numbers differ (%u/%u): the hive is dirty, its "
               "transaction logs may hold newer data", s1, s2);
    uint64_t covered = REGF_BASE_BLOCK_SIZE + (uint64_t)regf_hbins_size(h);
    if (h->file_size > covered + REGF_SLACK_MAX)
        report(&c, RT_REGF_WARNING, REGF_OFF_HBINS_SIZE,
               "the file is %llu bytes, %llu past the hive bins its base "
               "block covers (%llu bytes): far more than the unused tail "
               "Windows leaves, so no hive Windows wrote; only the bins are "
               "read, and neither a store nor hive recover writes the rest",
               (unsigned long long)h->file_size,
               (unsigned long long)(h->file_size - covered),
               (unsigned long long)covered);
    int rc = rt_regf_walk(h, rt_regf_root(h), check_key, &c);
    c.nomem |= c.path.failed;
    rt_strbuf_free(&c.path);
    if (rc == RT_REGF_ENOMEM || c.nomem) {
        free(c.sk);
        return RT_REGF_ENOMEM;
    }
    if (rc) {
        unsigned long long at = 0;
        const char *o = strstr(h->err, "file offset 0x");
        if (o)
            sscanf(o + 12, "%llx", &at);
        report(&c, RT_REGF_ERROR, at, "%s", h->err);
    }
    runs_of_sk(&c);
    for (size_t i = 0; i < c.nsk; i++) {
        uint8_t *p;
        uint32_t len;
        if (regf_cell(h, c.sk[i].off, "security cell", &p, &len))
            continue;
        uint32_t refs = regf_le32(p + SK_REFS);
        if (refs != c.sk[i].size)
            report(&c, RT_REGF_WARNING, regf_file_off(c.sk[i].off),
                   "security cell: reference count %u, but %u keys use it",
                   refs, c.sk[i].size);
    }
    free(c.sk);
    return c.errors;
}
