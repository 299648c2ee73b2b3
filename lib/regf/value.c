/* Hive-file layer: values. Reads value lists and value records (vk), and
 * their data: inline (4 bytes or less, high bit of the size), one data
 * cell, or big data (db record, segment list, segments of 16344 bytes).
 * Predefined-handle keys have no values: their value-count field holds a
 * handle. */
#include <stdlib.h>
#include <string.h>

#include "model/multi_sz.h"
#include "platform/os.h"
#include "regf/regf_internal.h"

int regf_vk(struct rt_regf *h, uint32_t value, uint8_t **vk, uint32_t *len)
{
    int rc = regf_cell(h, value, "value", vk, len);
    if (rc)
        return rc;
    unsigned long long fo = regf_file_off(value);
    if (*len < VK_NAME || memcmp(*vk, "vk", 2))
        return regf_fail(h, RT_REGF_ECORRUPT, "value at file offset 0x%llx: %s",
                         fo, *len < VK_NAME ? "cell too small for a value"
                                            : "signature is not 'vk'");
    uint32_t nl = regf_le16(*vk + VK_NAMELEN);
    if (nl > *len - VK_NAME)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "value at file offset 0x%llx: name length %u exceeds "
                         "the cell (%u bytes)", fo, nl, *len);
    if (!(regf_le16(*vk + VK_FLAGS) & VALUE_COMP_NAME) && nl % 2)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "value at file offset 0x%llx: UTF-16 name has odd "
                         "length %u", fo, nl);
    return 0;
}

struct claim {
    uint32_t cell;      /* first: the cell map's key */
    uint32_t owner, read;
};

int regf_claim(struct rt_regf *h, uint32_t cell, uint32_t owner,
               uint32_t read, const char *what)
{
    struct claim *c = regf_cell_map_find(&h->claims, cell);
    if (c && c->owner != owner)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s at file offset 0x%llx belongs to two owners, "
                         "the cells at file offsets 0x%llx and 0x%llx",
                         what, (unsigned long long)regf_file_off(cell),
                         (unsigned long long)regf_file_off(c->owner),
                         (unsigned long long)regf_file_off(owner));
    if (c && c->read == read)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s at file offset 0x%llx is named twice by the "
                         "cell at file offset 0x%llx", what,
                         (unsigned long long)regf_file_off(cell),
                         (unsigned long long)regf_file_off(owner));
    if (c) {
        c->read = read;
        return 0;
    }
    if (!(c = malloc(sizeof *c)))
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    *c = (struct claim){cell, owner, read};
    if (regf_cell_map_put(&h->claims, c, free) != 0) {
        free(c);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    return 0;
}

void regf_claims_forget(struct rt_regf *h)
{
    if (h->claims.used)
        regf_cell_map_clear(&h->claims, free);
}

int regf_value_list(struct rt_regf *h, uint32_t key, uint32_t **values,
                    size_t *n)
{
    uint8_t *nk, *p;
    uint32_t len, plen;
    *values = NULL;
    *n = 0;
    int rc = regf_nk(h, key, &nk, &len);
    if (rc)
        return rc;
    if (regf_le16(nk + NK_FLAGS) & KEY_PREDEF_HANDLE)
        return 0;
    uint32_t count = regf_le32(nk + NK_NVAL), list = regf_le32(nk + NK_VALLIST);
    if (count == 0)
        return 0;
    if ((rc = regf_cell(h, list, "value list", &p, &plen)))
        return rc;
    if ((uint64_t)count * 4 > plen)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "value list at file offset 0x%llx: %u values do not "
                         "fit in a cell of %u bytes",
                         (unsigned long long)regf_file_off(list), count, plen);
    uint32_t read = ++h->reads;
    if ((rc = regf_claim(h, list, key, read, "value list")))
        return rc;
    uint32_t *v = malloc(count * sizeof *v);
    if (!v)
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    for (uint32_t i = 0; i < count; i++) {
        v[i] = regf_le32(p + 4 * i);
        if ((rc = regf_claim(h, v[i], key, read, "value"))) {
            free(v);
            return rc;
        }
    }
    *values = v;
    *n = count;
    return 0;
}

int rt_regf_values(struct rt_regf *h, uint32_t key, uint32_t **values,
                   size_t *n)
{
    return regf_value_list(h, key, values, n);
}

int regf_find_value(struct rt_regf *h, uint32_t key, const uint16_t *up,
                    size_t upn, uint32_t *value, uint32_t *index)
{
    struct regf_validx *x;
    int rc = regf_validx_get(h, key, &x);
    if (rc)
        return rc;
    if (x) {
        if ((rc = regf_validx_find(h, x, up, upn, value, index)) <= 0)
            return rc;
        regf_validx_drop(h, key);
    }
    return regf_find_value_scan(h, key, up, upn, value, index);
}

int regf_find_value_scan(struct rt_regf *h, uint32_t key, const uint16_t *up,
                         size_t upn, uint32_t *value, uint32_t *index)
{
    uint32_t *vals;
    size_t n;
    int rc = regf_value_list(h, key, &vals, &n);
    if (rc)
        return rc;
    rc = RT_REGF_ENOTFOUND;
    for (size_t i = 0; i < n; i++) {
        uint8_t *vk;
        uint32_t len;
        int r = regf_vk(h, vals[i], &vk, &len);
        if (r) {
            rc = r;
            break;
        }
        if (!regf_stored_name_cmp(vk + VK_NAME, regf_le16(vk + VK_NAMELEN),
                                  regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME,
                                  up, upn)) {
            *value = vals[i];
            if (index)
                *index = (uint32_t)i;
            rc = 0;
            break;
        }
    }
    free(vals);
    return rc;
}

int rt_regf_value_find(struct rt_regf *h, uint32_t key, const char *name,
                       uint32_t *value)
{
    uint16_t *up;
    size_t upn;
    int rc = regf_utf8_upcase16(h, name, strlen(name), &up, &upn);
    if (rc)
        return rc;
    rc = regf_find_value(h, key, up, upn, value, NULL);
    free(up);
    if (rc == RT_REGF_ENOTFOUND)
        return regf_fail(h, rc, "value '%s' not found", name);
    return rc;
}

int rt_regf_value_count(struct rt_regf *h, uint32_t key, const char *name,
                        size_t *count)
{
    uint16_t *up;
    size_t upn, n;
    uint32_t *vals;
    *count = 0;
    int rc = regf_utf8_upcase16(h, name, strlen(name), &up, &upn);
    if (rc)
        return rc;
    if ((rc = regf_value_list(h, key, &vals, &n)) != 0) {
        free(up);
        return rc;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        uint8_t *vk;
        uint32_t len;
        rc = regf_vk(h, vals[i], &vk, &len);
        if (rc)
            break;
        /* The name as a reader taking it NUL-terminated has it (Windows'
         * session manager: "windir<NUL>x" sets windir). */
        int comp = (regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME) != 0;
        size_t stored = regf_le16(vk + VK_NAMELEN), cut = 0;
        while (cut + (comp ? 1 : 2) <= stored &&
               (vk[VK_NAME + cut] || (!comp && vk[VK_NAME + cut + 1])))
            cut += comp ? 1 : 2;
        if (!regf_stored_name_cmp(vk + VK_NAME, stored, comp, up, upn) ||
            (cut < stored &&
             !regf_stored_name_cmp(vk + VK_NAME, cut, comp, up, upn)))
            (*count)++;
    }
    free(vals);
    free(up);
    return rc;
}

int rt_regf_value_name(struct rt_regf *h, uint32_t value, char **name)
{
    uint8_t *vk;
    uint32_t len;
    int rc = regf_vk(h, value, &vk, &len);
    if (rc)
        return rc;
    return regf_name_to_utf8(h, vk + VK_NAME, regf_le16(vk + VK_NAMELEN),
                             regf_le16(vk + VK_FLAGS) & VALUE_COMP_NAME,
                             value, "value", name);
}

/* Windows treats data over 16344 bytes as big data in hives of version
 * 1.4 and later (spec, "Big data"). A data cell large enough to hold the
 * data itself, as some other writers leave, is read as plain data. */
int regf_is_big_data(struct rt_regf *h, uint32_t datalen, uint32_t dataoff)
{
    uint8_t *p;
    uint32_t clen;
    if (h->minor < 4 || datalen <= RT_REGF_SEGMENT_MAX)
        return 0;
    if (regf_cell(h, dataoff, "value data", &p, &clen))
        return 0;
    return clen >= 8 && clen < datalen && !memcmp(p, "db", 2);
}

/* Validates a db record and gives its segment list. */
static int big_data(struct rt_regf *h, uint32_t value, uint32_t datalen,
                    uint32_t dataoff, uint8_t **list, uint32_t *count)
{
    uint8_t *db, *l;
    uint32_t dblen, llen;
    int rc = regf_cell(h, dataoff, "big data record", &db, &dblen);
    if (rc)
        return rc;
    uint32_t n = regf_le16(db + 2), loff = regf_le32(db + 4);
    uint32_t need = (datalen + RT_REGF_SEGMENT_MAX - 1) / RT_REGF_SEGMENT_MAX;
    if (n < need)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "big data record at file offset 0x%llx (value at "
                         "0x%llx): %u segments cannot hold %u bytes",
                         (unsigned long long)regf_file_off(dataoff),
                         (unsigned long long)regf_file_off(value), n,
                         datalen);
    if ((rc = regf_cell(h, loff, "big data segment list", &l, &llen)))
        return rc;
    if ((uint64_t)n * 4 > llen)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "big data segment list at file offset 0x%llx: %u "
                         "segments do not fit in a cell of %u bytes",
                         (unsigned long long)regf_file_off(loff), n, llen);
    *list = l;
    *count = n;
    return 0;
}

static int value_pieces(struct rt_regf *h, uint32_t value, size_t from,
                        uint32_t *type, const uint8_t ***piece, size_t **len,
                        size_t *n, size_t *total);

/* The segment list of the db record at DATAOFF (big_data checked it),
 * claimed for VALUE. */
static int claim_segment_list(struct rt_regf *h, uint32_t dataoff,
                              uint32_t value, uint32_t read)
{
    uint8_t *db;
    uint32_t dblen;
    int rc = regf_cell(h, dataoff, "big data record", &db, &dblen);
    return rc ? rc
              : regf_claim(h, regf_le32(db + 4), value, read,
                           "big data segment list");
}

/* N bytes of VALUE's data from byte FROM into a new buffer (*OUT; NULL
 * when N is 0), copied from where they lie; *TOTAL gets the data's
 * length. Every reader of value data goes through the pieces, so each
 * checks a value alike. */
static int read_range(struct rt_regf *h, uint32_t value, uint32_t *type,
                      size_t from, size_t n, int whole, uint8_t **out,
                      size_t *total)
{
    const uint8_t **piece;
    size_t *len, np;
    *out = NULL;
    int rc = value_pieces(h, value, from, type, &piece, &len, &np, total);
    if (rc)
        return rc;
    if (whole)
        n = *total - (from < *total ? from : *total);
    if (from > *total || n > *total - from)
        rc = regf_fail(h, RT_REGF_EINVAL, "bytes %zu to %zu are past the "
                       "value's %zu", from, from + n, *total);
    else if (n && !(*out = rt_os_alloc_bulk(n)))
        rc = regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    else if (n)
        rt_pieces_copy(piece, len, np, from, *out, n);
    free(piece);
    free(len);
    return rc;
}

int rt_regf_value_read(struct rt_regf *h, uint32_t value, uint32_t *type,
                       uint8_t **data, size_t *len)
{
    int rc = read_range(h, value, type, 0, 0, 1, data, len);
    if (rc)
        *len = 0;
    return rc;
}

int regf_value_read_range(struct rt_regf *h, uint32_t value, size_t from,
                          size_t n, uint8_t **out)
{
    size_t total;
    return read_range(h, value, NULL, from, n, 0, out, &total);
}

/* rt_regf_value_pieces, but the big-data segments that hold only bytes
 * before FROM are neither looked at nor checked (their pieces are NULL):
 * a read of a table's end does not bring its whole length into memory. */
static int value_pieces(struct rt_regf *h, uint32_t value, size_t from,
                        uint32_t *type, const uint8_t ***piece, size_t **len,
                        size_t *n, size_t *total)
{
    uint8_t *vk;
    uint32_t vlen;
    *piece = NULL;
    *len = NULL;
    *n = *total = 0;
    int rc = regf_vk(h, value, &vk, &vlen);
    if (rc)
        return rc;
    uint32_t raw = regf_le32(vk + VK_DATALEN), dlen = raw & ~VK_DATA_INLINE;
    uint32_t doff = regf_le32(vk + VK_DATA);
    if (type)
        *type = regf_le32(vk + VK_TYPE);
    if (dlen == 0)
        return 0;
    uint32_t read = ++h->reads;
    uint8_t *list = NULL, *one = NULL;
    uint32_t count = 1, clen;
    if (raw & VK_DATA_INLINE) {
        if (dlen > 4)
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "value at file offset 0x%llx: inline data of %u "
                             "bytes (at most 4 fit)",
                             (unsigned long long)regf_file_off(value), dlen);
        one = vk + VK_DATA;
    } else if (regf_is_big_data(h, dlen, doff)) {
        if ((rc = big_data(h, value, dlen, doff, &list, &count)) ||
            (rc = regf_claim(h, doff, value, read, "big data record")) ||
            (rc = claim_segment_list(h, doff, value, read)))
            return rc;
    } else {
        if ((rc = regf_cell(h, doff, "value data", &one, &clen)) ||
            (rc = regf_claim(h, doff, value, read, "value data")))
            return rc;
        if (clen < dlen)
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "value data at file offset 0x%llx: %u bytes do "
                             "not fit in a cell of %u bytes (value at "
                             "0x%llx)", (unsigned long long)regf_file_off(doff),
                             dlen, clen,
                             (unsigned long long)regf_file_off(value));
    }
    const uint8_t **p = malloc(count * sizeof *p);
    size_t *l = malloc(count * sizeof *l);
    if (!p || !l) {
        free(p);
        free(l);
        return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
    }
    uint32_t done = 0, k = 0;
    for (uint32_t i = 0; i < count && done < dlen; i++, k++) {
        uint32_t take = dlen - done;
        if (!list) {
            p[k] = one;
        } else {
            uint8_t *seg;
            uint32_t slen;
            if (take > RT_REGF_SEGMENT_MAX)
                take = RT_REGF_SEGMENT_MAX;
            if (done + take <= from) {
                p[k] = NULL;
                l[k] = take;
                done += take;
                continue;
            }
            if ((rc = regf_cell(h, regf_le32(list + 4 * i), "big data segment",
                                &seg, &slen)) ||
                (rc = regf_claim(h, regf_le32(list + 4 * i), value, read,
                                 "big data segment")) ||
                (slen < take &&
                 (rc = regf_fail(h, RT_REGF_ECORRUPT,
                                 "big data segment at file offset 0x%llx: "
                                 "cell of %u bytes, %u expected",
                                 (unsigned long long)regf_file_off(
                                     regf_le32(list + 4 * i)),
                                 slen, take)))) {
                free(p);
                free(l);
                return rc;
            }
            p[k] = seg;
        }
        l[k] = take;
        done += take;
    }
    *piece = p;
    *len = l;
    *n = k;
    *total = dlen;
    return 0;
}

int rt_regf_value_pieces(struct rt_regf *h, uint32_t value, uint32_t *type,
                         const uint8_t ***piece, size_t **len, size_t *n,
                         size_t *total)
{
    return value_pieces(h, value, 0, type, piece, len, n, total);
}

int rt_regf_value_pieces_from(struct rt_regf *h, uint32_t value, size_t from,
                              uint32_t *type, const uint8_t ***piece,
                              size_t **len, size_t *n, size_t *total)
{
    return value_pieces(h, value, from, type, piece, len, n, total);
}

int rt_regf_get_value(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t *type, uint8_t **data, size_t *len)
{
    uint32_t v;
    int rc = rt_regf_value_find(h, key, name, &v);
    if (rc)
        return rc;
    return rt_regf_value_read(h, v, type, data, len);
}

int regf_value_data_cells(struct rt_regf *h, uint32_t value,
                          void (*fn)(void *ctx, uint32_t cell), void *ctx)
{
    uint8_t *vk;
    uint32_t vlen;
    int rc = regf_vk(h, value, &vk, &vlen);
    if (rc)
        return rc;
    uint32_t raw = regf_le32(vk + VK_DATALEN), dlen = raw & ~VK_DATA_INLINE;
    uint32_t doff = regf_le32(vk + VK_DATA);
    if ((raw & VK_DATA_INLINE) || dlen == 0)
        return 0;
    if (regf_is_big_data(h, dlen, doff)) {
        uint8_t *list;
        uint32_t n;
        if ((rc = big_data(h, value, dlen, doff, &list, &n)))
            return rc;
        uint8_t *db;
        uint32_t dblen;
        regf_cell(h, doff, "big data record", &db, &dblen);
        uint32_t loff = regf_le32(db + 4);
        /* Collect first: FN may free cells and so change the image. */
        uint32_t *cells = malloc(((size_t)n + 2) * sizeof *cells);
        if (!cells)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        for (uint32_t i = 0; i < n; i++)
            cells[i] = regf_le32(list + 4 * i);
        cells[n] = loff;
        cells[n + 1] = doff;
        for (uint32_t i = 0; i < n + 2; i++)
            fn(ctx, cells[i]);
        free(cells);
        return 0;
    }
    uint8_t *p;
    uint32_t clen;
    if ((rc = regf_cell(h, doff, "value data", &p, &clen)))
        return rc;
    fn(ctx, doff);
    return 0;
}

static void release_cell(void *ctx, uint32_t cell)
{
    struct rt_regf *h = ctx;
    regf_release(h, regf_file_off(cell), regf_cell_capacity(h, cell) + 4);
}

int rt_regf_value_release(struct rt_regf *h, uint32_t value)
{
    if (!h->map.priv)      /* no view: nothing to give back */
        return 0;
    return regf_value_data_cells(h, value, release_cell, h);
}
