/* Hive-file layer: values set and deleted (inline, one data cell, or big
 * data with unchanged segments kept in place), spliced in place, and a
 * key's largest-name and largest-data fields kept true. */
#include "regf/write_internal.h"

#include <stdlib.h>
#include <string.h>

#include "platform/compat.h"
#include "model/utf16.h"

/* --- values ---------------------------------------------------------- */

/* Largest value name (UTF-16 bytes) and data size of KEY, recomputed. */
static int value_stats(struct rt_regf *h, uint32_t key)
{
    uint32_t *vals;
    size_t n;
    int rc = regf_value_list(h, key, &vals, &n);
    if (rc)
        return rc;
    uint32_t maxname = 0, maxdata = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *vk;
        uint32_t len;
        if ((rc = regf_vk(h, vals[i], &vk, &len)))
            break;
        uint32_t nl = regf_le16(vk + VK_NAMELEN);
        if (regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME)
            nl *= 2;
        uint32_t dl = regf_le32(vk + VK_DATALEN) & ~VK_DATA_INLINE;
        if (nl > maxname)
            maxname = nl;
        if (dl > maxdata)
            maxdata = dl;
    }
    free(vals);
    if (rc)
        return rc;
    regf_set32(h, key, NK_MAX_VALNAME, maxname);
    regf_set32(h, key, NK_MAX_VALDATA, maxdata);
    return 0;
}

static void zero_tail(struct rt_regf *h, uint32_t cell, uint32_t used)
{
    uint32_t cap = regf_cell_capacity(h, cell);
    if (cap > used)
        memset(regf_cell_write(h, cell, cap) + used, 0, cap - used);
}

/* Allocates a cell holding LEN bytes of DATA (plus SPARE unused bytes),
 * at or after FLOOR. */
static int new_data_cell(struct rt_regf *h, const uint8_t *data, uint32_t len,
                         uint32_t spare, uint32_t floor, uint32_t *cell)
{
    int rc = regf_alloc_above(h, len + spare, floor, cell);
    if (rc)
        return rc;
    memcpy(regf_cell_write(h, *cell, len), data, len);
    zero_tail(h, *cell, len);
    return 0;
}

/* Stores DATA as big data for value VK whose current data is described
 * by OLD_BIG/OLD_INLINE. Segments whose bytes are unchanged stay where
 * they are, untouched. Each segment cell keeps at least 4 spare bytes
 * because hivex and reglookup read a segment as its cell size minus 8,
 * and segments lie in ascending file order because reglookup reassembles
 * them in that order. A new last segment gets a full segment's room, so
 * a value that grows (a provider's strings appended to Help) fills it in
 * place instead of moving it: the bytes a commit writes follow the
 * change, not the segment size. The first KEEP segments (of an old big
 * value that has them) stay as they are, unread; DATA then holds the
 * bytes from segment KEEP on. */
static int store_big(struct rt_regf *h, uint32_t vk, const uint8_t *data,
                     uint32_t len, int old_big, int old_inline, uint32_t keep)
{
    uint32_t k = (len + RT_REGF_SEGMENT_MAX - 1) / RT_REGF_SEGMENT_MAX;
    if (k > 0xFFFF)
        return regf_fail(h, RT_REGF_ETOOBIG,
                         "value data of %u bytes exceeds big data's 65535 "
                         "segments", len);
    uint8_t *p;
    uint32_t plen;
    int rc = regf_vk(h, vk, &p, &plen);
    if (rc)
        return rc;
    uint32_t db = RT_REGF_NONE, list = RT_REGF_NONE, m = 0;
    uint32_t *olds = NULL;
    if (old_big) {
        db = regf_le32(p + VK_DATA);
        uint8_t *d, *l;
        uint32_t dl, ll;
        if ((rc = regf_cell(h, db, "big data record", &d, &dl)))
            return rc;
        m = regf_le16(d + 2);
        list = regf_le32(d + 4);
        if ((rc = regf_cell(h, list, "big data segment list", &l, &ll)))
            return rc;
        if ((uint64_t)m * 4 > ll)
            return regf_fail(h, RT_REGF_ECORRUPT, "big data segment list at "
                             "file offset 0x%llx too small",
                             (unsigned long long)regf_file_off(list));
        olds = malloc((m + 1) * sizeof *olds);
        if (!olds)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < m; i++)
            olds[i] = regf_le32(l + 4 * i);
    } else if (!old_inline) {
        if ((rc = regf_value_data_cells(h, vk, regf_free_cb, h)))
            return rc;
    }
    uint32_t *segs = malloc((size_t)k * sizeof *segs);
    if (!segs) {
        free(olds);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    uint32_t floor = 0;
    if (keep > m || keep > k) {
        free(olds);
        free(segs);
        return regf_fail(h, RT_REGF_EINVAL, "segments to keep past the value");
    }
    for (uint32_t i = 0; i < keep; i++)
        segs[i] = olds[i];
    for (uint32_t i = keep; i < k && !rc; i++) {
        const uint8_t *src = data + (size_t)(i - keep) * RT_REGF_SEGMENT_MAX;
        uint32_t t = len - i * RT_REGF_SEGMENT_MAX;
        if (t > RT_REGF_SEGMENT_MAX)
            t = RT_REGF_SEGMENT_MAX;
        if (i > 0)
            floor = segs[i - 1] + 8;
        if (i < m && olds[i] >= floor && regf_is_cell_start(h, olds[i]) &&
            regf_cell(h, olds[i], "big data segment", &p, &plen) == 0 &&
            plen >= t + 4) {
            regf_write(h, regf_file_off(olds[i]) + 4, src, t);
            segs[i] = olds[i];
            continue;
        }
        if (i < m)
            regf_free_cell(h, olds[i]);
        uint32_t spare = i == k - 1 ? RT_REGF_SEGMENT_MAX - t + 4 : 4;
        rc = new_data_cell(h, src, t, spare, floor, &segs[i]);
    }
    for (uint32_t i = k; i < m && !rc; i++)
        regf_free_cell(h, olds[i]);
    free(olds);
    if (!rc) {
        uint8_t *buf = malloc((size_t)k * 4);
        if (!buf) {
            rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        } else {
            for (uint32_t i = 0; i < k; i++)
                regf_put32(buf + 4 * i, segs[i]);
            if (list != RT_REGF_NONE && regf_cell_capacity(h, list) >= 4 * k) {
                regf_write(h, regf_file_off(list) + 4, buf, 4 * (size_t)k);
            } else {
                if (list != RT_REGF_NONE)
                    regf_free_cell(h, list);
                rc = new_data_cell(h, buf, 4 * k, 0, 0, &list);
            }
            free(buf);
        }
    }
    free(segs);
    if (rc)
        return rc;
    uint8_t rec[12] = {'d', 'b', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    regf_put16(rec + 2, (uint16_t)k);
    regf_put32(rec + 4, list);
    if (db == RT_REGF_NONE) {
        if ((rc = new_data_cell(h, rec, sizeof rec, 0, 0, &db)))
            return rc;
    } else {
        regf_write(h, regf_file_off(db) + 4, rec, 8);
    }
    regf_set32(h, vk, VK_DATA, db);
    regf_set32(h, vk, VK_DATALEN, len);
    return 0;
}

/* Replaces the data of value VK with DATA. */
static int store_data(struct rt_regf *h, uint32_t vk, const uint8_t *data,
                      size_t len)
{
    uint8_t *p;
    uint32_t plen;
    int rc = regf_vk(h, vk, &p, &plen);
    if (rc)
        return rc;
    uint32_t raw = regf_le32(p + VK_DATALEN), olen = raw & ~VK_DATA_INLINE;
    uint32_t doff = regf_le32(p + VK_DATA);
    int old_inline = (raw & VK_DATA_INLINE) || olen == 0;
    int old_big = !old_inline && regf_is_big_data(h, olen, doff);
    if (len > 0x7FFFFFFFu)
        return regf_fail(h, RT_REGF_ETOOBIG, "value data of %zu bytes is too "
                         "large", len);
    if (len <= 4) {
        /* Windows keeps data of 4 bytes or less in the record itself. */
        if (!old_inline && (rc = regf_value_data_cells(h, vk, regf_free_cb, h)))
            return rc;
        uint8_t small[4] = {0, 0, 0, 0};
        if (len)
            memcpy(small, data, len);
        regf_write(h, regf_file_off(vk) + 4 + VK_DATA, small, 4);
        regf_set32(h, vk, VK_DATALEN, (uint32_t)len | VK_DATA_INLINE);
        return 0;
    }
    if (h->minor >= 4 && len > RT_REGF_SEGMENT_MAX)
        return store_big(h, vk, data, (uint32_t)len, old_big, old_inline, 0);
    if (!old_inline && !old_big) {
        uint32_t cap = regf_cell_capacity(h, doff);
        if (cap >= len && cap - len <= len / 2 + 64) {
            regf_write(h, regf_file_off(doff) + 4, data, len);
            regf_set32(h, vk, VK_DATALEN, (uint32_t)len);
            return 0;
        }
    }
    /* Free first so that the new data can reuse the space. */
    if (!old_inline && (rc = regf_value_data_cells(h, vk, regf_free_cb, h)))
        return rc;
    uint32_t cell;
    if ((rc = new_data_cell(h, data, (uint32_t)len, 0, 0, &cell)))
        return rc;
    regf_set32(h, vk, VK_DATA, cell);
    regf_set32(h, vk, VK_DATALEN, (uint32_t)len);
    return 0;
}

static int value_key(struct rt_regf *h, uint32_t key)
{
    int rc = regf_require_writable(h);
    if (rc)
        return rc;
    uint8_t *nk;
    uint32_t len;
    if ((rc = regf_nk(h, key, &nk, &len)))
        return rc;
    if (regf_le16(nk + NK_FLAGS) & KEY_PREDEF_HANDLE)
        return regf_fail(h, RT_REGF_EINVAL,
                         "key at file offset 0x%llx is a predefined handle "
                         "and holds no values",
                         (unsigned long long)regf_file_off(key));
    return 0;
}

/* Cells of the value list at CELL (N entries) with room for NEED: a list
 * past 64 values grows by a quarter more than it needs, so that adding
 * values one at a time copies the list O(1) times per value, amortized.
 * Windows too leaves spare room in the value lists it grows; readers go
 * by the key's value count. */
static uint32_t value_list_room(size_t need)
{
    return (uint32_t)(need <= 64 ? 4 * need : 4 * (need + need / 4));
}

/* Appends VK to KEY's value list of N values at LIST. */
static int value_list_append(struct rt_regf *h, uint32_t key, uint32_t list,
                             size_t n, uint32_t vk)
{
    if (n >= 0x7FFFFFFF / 5)
        return regf_fail(h, RT_REGF_ETOOBIG, "too many values");
    if (n && regf_cell_capacity(h, list) >= 4 * (n + 1)) {
        regf_set32(h, list, (uint32_t)(4 * n), vk);
    } else {
        uint32_t fresh, room = value_list_room(n + 1);
        int rc = regf_alloc(h, room, &fresh);
        if (rc)
            return rc;
        uint8_t *q = regf_cell_write(h, fresh, 4 * (n + 1)), *old;
        uint32_t oldlen;
        if (n) {
            if ((rc = regf_cell(h, list, "value list", &old, &oldlen)) ||
                oldlen < 4 * n) {
                regf_free_cell(h, fresh);
                return rc ? rc : regf_fail(h, RT_REGF_ECORRUPT, "value list "
                                           "at file offset 0x%llx too small",
                                           (unsigned long long)
                                               regf_file_off(list));
            }
            memcpy(q, old, 4 * n);
        }
        regf_put32(q + 4 * n, vk);
        zero_tail(h, fresh, (uint32_t)(4 * (n + 1)));
        if (n)
            regf_free_cell(h, list);
        regf_set32(h, key, NK_VALLIST, fresh);
    }
    regf_set32(h, key, NK_NVAL, (uint32_t)(n + 1));
    return 0;
}

/* A new value record named NM of TYPE, no data. */
static int new_vk(struct rt_regf *h, const struct name *nm, uint32_t type,
                  uint32_t *vk)
{
    int rc = regf_alloc(h, (uint32_t)(VK_NAME + nm->stored), vk);
    if (rc)
        return rc;
    uint8_t *p = regf_cell_write(h, *vk, VK_NAME + nm->stored);
    memset(p, 0, VK_NAME);
    memcpy(p, "vk", 2);
    regf_put16(p + VK_NAMELEN, (uint16_t)nm->stored);
    regf_put32(p + VK_DATALEN, VK_DATA_INLINE);
    regf_put32(p + VK_TYPE, type);
    regf_put16(p + VK_FLAGS, nm->comp && nm->n ? VALUE_COMP_NAME : 0);
    regf_name_store(nm, p + VK_NAME);
    zero_tail(h, *vk, (uint32_t)(VK_NAME + nm->stored));
    return 0;
}

static uint32_t vk_data_len(struct rt_regf *h, uint32_t vk)
{
    uint8_t *p;
    uint32_t len;
    if (regf_vk(h, vk, &p, &len))
        return 0;
    return regf_le32(p + VK_DATALEN) & ~VK_DATA_INLINE;
}

/* KEY's largest-name and largest-data fields after its value VK (named
 * NM; ADDED to the list, or its data OLD_LEN bytes before) changed, from
 * the key's index X when it has one, else counted over its values. */
static int value_fields(struct rt_regf *h, uint32_t key,
                        struct regf_validx *x, uint32_t vk,
                        const struct name *nm, int added, uint32_t old_len)
{
    uint32_t new_len = vk_data_len(h, vk);
    if (x && (added ? regf_validx_added(h, x, vk, nm->up, nm->n, new_len)
                    : regf_validx_resized(x, old_len, new_len))) {
        regf_validx_drop(h, key);
        x = NULL;
    }
    if (!x)
        return value_stats(h, key);
    uint32_t maxname, maxdata;
    regf_validx_largest(x, &maxname, &maxdata);
    regf_set32(h, key, NK_MAX_VALNAME, maxname);
    regf_set32(h, key, NK_MAX_VALDATA, maxdata);
    return 0;
}

int rt_regf_value_set(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t type, const void *data, size_t len)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    if (len && !data)
        return regf_fail(h, RT_REGF_EINVAL, "no data");
    struct name nm;
    if ((rc = regf_name_prepare(h, name, 0, &nm)))
        return rc;
    uint32_t vk, old_len = 0;
    int added = 0;
    rc = regf_find_value(h, key, nm.up, nm.n, &vk, NULL);
    /* The index as the list is before this change (a key of many values
     * has one now: the look-up built it). */
    struct regf_validx *x = rc == 0 || rc == RT_REGF_ENOTFOUND
                                ? regf_validx_current(h, key) : NULL;
    if (rc == 0) {
        old_len = vk_data_len(h, vk);
    } else if (rc == RT_REGF_ENOTFOUND) {
        uint8_t *nk;
        uint32_t nklen;
        added = 1;
        if (!(rc = new_vk(h, &nm, type, &vk))) {
            if (!(rc = regf_nk(h, key, &nk, &nklen)))
                rc = value_list_append(h, key, regf_le32(nk + NK_VALLIST),
                                       regf_le32(nk + NK_NVAL), vk);
            if (rc)
                regf_free_cell(h, vk);
        }
    }
    if (!rc) {
        regf_set32(h, vk, VK_TYPE, type);
        rc = store_data(h, vk, data, len);
    }
    if (!rc) {
        regf_touch_mtime(h, key);
        rc = value_fields(h, key, x, vk, &nm, added, old_len);
    }
    if (rc)
        regf_validx_drop(h, key);       /* the list may be half changed */
    regf_name_free(&nm);
    return rc;
}

/* The new data of a splice from byte BASE on: OLD holds the old data
 * from BASE on. */
static void splice_from(const uint8_t *old, size_t base, size_t old_len,
                        const struct rt_regf_edit *edits, size_t n,
                        uint8_t *out)
{
    size_t pos = base;
    for (size_t i = 0; i <= n; i++) {
        size_t end = i < n ? edits[i].at : old_len;
        if (end > pos)
            memcpy(out, old + (pos - base), end - pos);
        out += end - pos;
        if (i == n)
            break;
        if (edits[i].ins_len)
            memcpy(out, edits[i].ins, edits[i].ins_len);
        out += edits[i].ins_len;
        pos = edits[i].at + edits[i].cut;
    }
}

int rt_regf_value_splice(struct rt_regf *h, uint32_t key, const char *name,
                         uint32_t type, size_t old_len,
                         const struct rt_regf_edit *edits, size_t n)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    uint32_t vk;
    if ((rc = rt_regf_value_find(h, key, name, &vk)))
        return rc;
    uint8_t *p;
    uint32_t plen;
    if ((rc = regf_vk(h, vk, &p, &plen)))
        return rc;
    uint32_t raw = regf_le32(p + VK_DATALEN), dlen = raw & ~VK_DATA_INLINE;
    struct regf_validx *x = regf_validx_current(h, key);
    size_t new_len = old_len, at = 0;
    for (size_t i = 0; i < n; i++) {
        if (edits[i].at < at || edits[i].cut > old_len - edits[i].at)
            return regf_fail(h, RT_REGF_EINVAL, "edits of value '%s' out of "
                             "order or past its data", name);
        at = edits[i].at + edits[i].cut;
        new_len = new_len - edits[i].cut + edits[i].ins_len;
    }
    if (dlen != old_len || !n)
        return regf_fail(h, RT_REGF_EINVAL, "value '%s' holds %u bytes, not "
                         "the %zu its edits were computed from", name, dlen,
                         old_len);
    int big = !(raw & VK_DATA_INLINE) && dlen &&
              regf_is_big_data(h, dlen, regf_le32(p + VK_DATA));
    uint32_t keep = (uint32_t)(edits[0].at / RT_REGF_SEGMENT_MAX);
    if (!big || new_len <= RT_REGF_SEGMENT_MAX || new_len > 0x7FFFFFFFu)
        keep = 0;       /* not big before or after: the whole value anew */
    size_t base = (size_t)keep * RT_REGF_SEGMENT_MAX;
    uint8_t *old = NULL, *out = NULL;
    if ((rc = regf_value_read_range(h, vk, base, old_len - base, &old)))
        return rc;
    if (!(out = malloc(new_len - base + 1)))
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    if (!rc) {
        splice_from(old, base, old_len, edits, n, out);
        regf_set32(h, vk, VK_TYPE, type);
        rc = keep ? store_big(h, vk, out, (uint32_t)new_len, 1, 0, keep)
                  : store_data(h, vk, out, new_len);
    }
    free(old);
    free(out);
    if (rc) {
        regf_validx_drop(h, key);
        return rc;
    }
    regf_touch_mtime(h, key);
    return value_fields(h, key, x, vk, NULL, 0, dlen);
}

int rt_regf_value_delete(struct rt_regf *h, uint32_t key, const char *name)
{
    int rc = value_key(h, key);
    if (rc)
        return rc;
    struct name nm;
    if ((rc = regf_name_prepare(h, name, 0, &nm)))
        return rc;
    uint32_t vk, index;
    /* A deletion shifts the list (O(n) anyway) and drops the key's index
     * rather than renumbering it: found by a scan, not by building one. */
    regf_validx_drop(h, key);
    rc = regf_find_value_scan(h, key, nm.up, nm.n, &vk, &index);
    regf_name_free(&nm);
    if (rc == RT_REGF_ENOTFOUND)
        return regf_fail(h, rc, "value '%s' not found", name);
    if (rc)
        return rc;
    uint32_t *vals;
    size_t n;
    if ((rc = regf_value_list(h, key, &vals, &n)))
        return rc;
    if ((rc = regf_value_data_cells(h, vk, regf_nop_cb, NULL))) {
        free(vals);
        return rc;
    }
    regf_value_data_cells(h, vk, regf_free_cb, h);
    regf_free_cell(h, vk);
    uint8_t *nk;
    uint32_t len;
    regf_nk(h, key, &nk, &len);
    uint32_t list = regf_le32(nk + NK_VALLIST);
    if (n == 1) {
        regf_free_cell(h, list);
        regf_set32(h, key, NK_VALLIST, RT_REGF_NONE);
    } else {
        memmove(vals + index, vals + index + 1, (n - index - 1) * sizeof *vals);
        uint8_t *buf = malloc((n - 1) * 4);
        if (!buf) {
            free(vals);
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < n - 1; i++)
            regf_put32(buf + 4 * i, vals[i]);
        regf_write(h, regf_file_off(list) + 4, buf, (n - 1) * 4);
        free(buf);
    }
    free(vals);
    regf_set32(h, key, NK_NVAL, (uint32_t)(n - 1));
    regf_touch_mtime(h, key);
    return value_stats(h, key);
}
