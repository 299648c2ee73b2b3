/* Hive-file layer: hive bins and cells. Indexes the bins and the cells in
 * them when a hive is opened (so that every reference can be checked to
 * land on the start of a cell), gives bounds-checked access to allocated
 * cells, and allocates and frees cells: best fit from free cells with
 * splitting, coalescing with free neighbours, and new 4 KB-multiple bins
 * only when no free cell fits. Tracks the 4 KB pages it changes. */
#include <stdlib.h>
#include <string.h>

#include "regf/regf_internal.h"

static uint32_t cell_raw(const struct rt_regf *h, uint32_t off)
{
    return regf_le32(regf_bins(h) + off);
}

/* Size of the cell at OFF and whether it is allocated (negative size). */
static uint32_t cell_size(const struct rt_regf *h, uint32_t off, int *alloc)
{
    uint32_t raw = cell_raw(h, off);
    if (raw & 0x80000000u) {
        if (alloc)
            *alloc = 1;
        return (uint32_t)0 - raw;
    }
    if (alloc)
        *alloc = 0;
    return raw;
}

static void map_set(struct rt_regf *h, uint32_t off)
{
    h->cellmap[off / 8 / 64] |= (uint64_t)1 << (off / 8 % 64);
}
static void map_clear(struct rt_regf *h, uint32_t off)
{
    h->cellmap[off / 8 / 64] &= ~((uint64_t)1 << (off / 8 % 64));
}

int regf_is_cell_start(const struct rt_regf *h, uint32_t off)
{
    if (off % 8 || off >= regf_hbins_size(h))
        return 0;
    return (h->cellmap[off / 8 / 64] >> (off / 8 % 64)) & 1;
}

/* --- free list: sorted array of (size, offset) ------------------------ */

static int free_cmp(uint32_t as, uint32_t ao, uint32_t bs, uint32_t bo)
{
    if (as != bs)
        return as < bs ? -1 : 1;
    return ao < bo ? -1 : ao > bo;
}

/* First index whose (size, off) is >= the given pair. */
static size_t free_lower(const struct rt_regf *h, uint32_t size, uint32_t off)
{
    size_t lo = 0, hi = h->nfree;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (free_cmp(h->free[mid].size, h->free[mid].off, size, off) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Appends a free cell, leaving the list unsorted: for indexing a whole
 * hive, which sorts it once at the end (inserting in order there costs a
 * move of the list per free cell). */
static int free_reserve(struct rt_regf *h)
{
    if (h->nfree == h->free_cap) {
        size_t cap = h->free_cap ? h->free_cap * 2 : 64;
        struct regf_free *v = realloc(h->free, cap * sizeof *v);
        if (!v)
            return RT_REGF_ENOMEM;
        h->free = v;
        h->free_cap = cap;
    }
    return 0;
}

static int free_push(struct rt_regf *h, uint32_t size, uint32_t off)
{
    if (free_reserve(h))
        return RT_REGF_ENOMEM;
    h->free[h->nfree].size = size;
    h->free[h->nfree].off = off;
    h->nfree++;
    return 0;
}

static int free_insert(struct rt_regf *h, uint32_t size, uint32_t off)
{
    if (free_reserve(h))
        return RT_REGF_ENOMEM;
    size_t i = free_lower(h, size, off);
    memmove(h->free + i + 1, h->free + i, (h->nfree - i) * sizeof *h->free);
    h->free[i].size = size;
    h->free[i].off = off;
    h->nfree++;
    return 0;
}

static void free_remove(struct rt_regf *h, uint32_t size, uint32_t off)
{
    size_t i = free_lower(h, size, off);
    if (i < h->nfree && h->free[i].size == size && h->free[i].off == off) {
        memmove(h->free + i, h->free + i + 1,
                (h->nfree - i - 1) * sizeof *h->free);
        h->nfree--;
    }
}

static int free_cmp_qsort(const void *a, const void *b)
{
    const struct regf_free *x = a, *y = b;
    return free_cmp(x->size, x->off, y->size, y->off);
}

/* --- bins ------------------------------------------------------------ */

const struct regf_bin *regf_bin_of(const struct rt_regf *h, uint32_t off)
{
    size_t lo = 0, hi = h->nbins;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct regf_bin *b = &h->bins[mid];
        if (off < b->off)
            hi = mid;
        else if (off - b->off >= b->size)
            lo = mid + 1;
        else
            return b;
    }
    return NULL;
}

static int bins_push(struct rt_regf *h, uint32_t off, uint32_t size)
{
    if (h->nbins == h->bins_cap) {
        size_t cap = h->bins_cap ? h->bins_cap * 2 : 16;
        struct regf_bin *v = realloc(h->bins, cap * sizeof *v);
        if (!v)
            return RT_REGF_ENOMEM;
        h->bins = v;
        h->bins_cap = cap;
    }
    h->bins[h->nbins].off = off;
    h->bins[h->nbins].size = size;
    h->nbins++;
    return 0;
}

static int grow_cellmap(struct rt_regf *h)
{
    size_t words = ((size_t)regf_hbins_size(h) / 8 + 63) / 64;
    if (words <= h->cellmap_words)
        return 0;
    size_t cap = h->cellmap_words * 2 > words ? h->cellmap_words * 2 : words;
    uint64_t *m = realloc(h->cellmap, cap * sizeof *m);
    if (!m)
        return RT_REGF_ENOMEM;
    memset(m + h->cellmap_words, 0, (cap - h->cellmap_words) * sizeof *m);
    h->cellmap = m;
    h->cellmap_words = cap;
    return 0;
}

int regf_grow_changed(struct rt_regf *h)
{
    size_t pages = (h->len + REGF_PAGE - 1) / REGF_PAGE;
    size_t words = (pages + 63) / 64;
    if (words <= h->changed_words)
        return 0;
    size_t cap = h->changed_words * 2 > words ? h->changed_words * 2 : words;
    uint64_t *m = realloc(h->changed, cap * sizeof *m);
    if (!m)
        return RT_REGF_ENOMEM;
    memset(m + h->changed_words, 0, (cap - h->changed_words) * sizeof *m);
    h->changed = m;
    h->changed_words = cap;
    return 0;
}

/* Walks every bin and every cell in it. Bins must follow each other
 * without gaps, each saying where it is; cells must tile their bin.
 *
 * The walk reads every page of a view, and most pages of small cells are
 * not read again (an install reads a few keys): runs of bins of small
 * cells are given back as the walk passes them (regf_release), read from
 * the file again if used, so that a process holds what it uses rather
 * than the whole hive. Bins holding a cell that a whole big-data segment
 * fills (the name tables' bulk) stay: whoever opens a name database reads
 * its tables next, and faulting them in twice made an install a quarter
 * slower; those that copy a table give its pages back then
 * (rt_regf_value_release). Opened RT_REGF_READ_ONCE, those are given back
 * too: a restore or an audit reads each table once, as it comes to it, so
 * that the process never holds every table's pages at once. */
#define REGF_WALK_RELEASE ((uint32_t)2 << 20)
#define REGF_SEGMENT_CELL (RT_REGF_SEGMENT_MAX + 4u)
int regf_index_bins(struct rt_regf *h)
{
    uint32_t total = regf_hbins_size(h);
    const uint8_t *bins = regf_bins(h);
    h->nbins = h->nfree = 0;
    free(h->cellmap);
    h->cellmap = NULL;
    h->cellmap_words = 0;
    int rc = grow_cellmap(h);
    if (rc)
        return regf_fail(h, rc, "out of memory");
    if ((rc = regf_grow_changed(h)))
        return regf_fail(h, rc, "out of memory");

    uint32_t off = 0, released = 0;
    while (off < total) {
        const uint8_t *p = bins + off;
        uint64_t fo = regf_file_off(off);
        if (total - off < REGF_HBIN_ALIGN)
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "file offset 0x%llx: %u bytes left for a hive "
                             "bin, less than 4096",
                             (unsigned long long)fo, total - off);
        if (memcmp(p, "hbin", 4))
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "file offset 0x%llx: hive bin signature is not "
                             "'hbin'", (unsigned long long)fo);
        uint32_t said = regf_le32(p + 4), size = regf_le32(p + 8);
        if (said != off)
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "file offset 0x%llx: hive bin says it is at "
                             "offset 0x%x, expected 0x%x",
                             (unsigned long long)fo, said, off);
        if (size < REGF_HBIN_ALIGN || size % REGF_HBIN_ALIGN ||
            size > total - off)
            return regf_fail(h, RT_REGF_ECORRUPT,
                             "file offset 0x%llx: hive bin size 0x%x is not "
                             "a multiple of 4096 within the %u bytes of hive "
                             "bins left", (unsigned long long)fo, size,
                             total - off);
        if ((rc = bins_push(h, off, size)))
            return regf_fail(h, rc, "out of memory");
        uint32_t end = off + size, c = off + REGF_HBIN_HEADER, largest = 0;
        while (c < end) {
            int alloc;
            uint32_t cs = cell_size(h, c, &alloc);
            largest = cs > largest ? cs : largest;
            if (cs < 8 || cs % 8 || cs > end - c)
                return regf_fail(h, RT_REGF_ECORRUPT,
                                 "file offset 0x%llx: cell size %s%u is %s",
                                 (unsigned long long)regf_file_off(c),
                                 alloc ? "-" : "", cs,
                                 cs < 8 ? "too small" :
                                 cs % 8 ? "not a multiple of 8" :
                                 "beyond the end of its hive bin");
            map_set(h, c);
            if (!alloc && (rc = free_push(h, cs, c)))
                return regf_fail(h, rc, "out of memory");
            c += cs;
        }
        /* [RELEASED, OFF) is a run of small cells' bins not yet given
         * back: it ends before this bin when this bin stays, and after it
         * when it is long enough. */
        int stays = !h->read_once && largest >= REGF_SEGMENT_CELL;
        if (stays || end - released >= REGF_WALK_RELEASE) {
            uint32_t to = stays ? off : end;
            regf_release(h, regf_file_off(released), to - released);
            released = end;
        }
        off = end;
    }
    regf_release(h, regf_file_off(released), total - released);
    if (h->nfree)   /* qsort of no array (NULL) is undefined */
        qsort(h->free, h->nfree, sizeof *h->free, free_cmp_qsort);
    return 0;
}

int regf_cell(struct rt_regf *h, uint32_t off, const char *what,
              uint8_t **data, uint32_t *len)
{
    if (off == RT_REGF_NONE)
        return regf_fail(h, RT_REGF_ECORRUPT, "%s: no cell (offset "
                         "0xffffffff)", what);
    if (off >= regf_hbins_size(h))
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s: offset 0x%x is beyond the hive bins (0x%x "
                         "bytes)", what, off, regf_hbins_size(h));
    if (!regf_is_cell_start(h, off))
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s at file offset 0x%llx: not the start of a cell",
                         what, (unsigned long long)regf_file_off(off));
    int alloc;
    uint32_t size = cell_size(h, off, &alloc);
    if (!alloc)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "%s at file offset 0x%llx: the cell is free", what,
                         (unsigned long long)regf_file_off(off));
    *data = regf_bins(h) + off + 4;
    *len = size - 4;
    return 0;
}

uint32_t regf_cell_capacity(const struct rt_regf *h, uint32_t off)
{
    return cell_size(h, off, NULL) - 4;
}

void regf_touch(struct rt_regf *h, uint64_t fileoff, size_t len)
{
    if (!len)
        return;
    uint64_t first = fileoff / REGF_PAGE, last = (fileoff + len - 1) / REGF_PAGE;
    for (uint64_t p = first; p <= last; p++)
        if (p / 64 < h->changed_words)
            h->changed[p / 64] |= (uint64_t)1 << (p % 64);
}

void regf_release(struct rt_regf *h, uint64_t fileoff, size_t len)
{
    /* Only the file's part of a view: the zeros behind it hold appended
     * bins once they are used, whose pages have no file to come back
     * from; and no page the image changed (the view holds the change). */
    if (!h->map.priv || !len)
        return;
    uint64_t first = fileoff / REGF_PAGE, last = (fileoff + len - 1) / REGF_PAGE;
    uint64_t file_pages = h->map.len / REGF_PAGE, run = first;
    if (last >= file_pages)
        last = file_pages - 1;
    for (uint64_t p = first; p <= last + 1 && first <= last; p++) {
        int keep = p > last ||
                   (p / 64 < h->changed_words &&
                    (h->changed[p / 64] >> (p % 64) & 1));
        if (!keep)
            continue;
        if (p > run)
            rt_os_map_release(&h->map, (size_t)(run * REGF_PAGE),
                              (size_t)((p - run) * REGF_PAGE));
        run = p + 1;
    }
}

uint8_t *regf_cell_write(struct rt_regf *h, uint32_t off, size_t len)
{
    regf_touch(h, regf_file_off(off) + 4, len);
    return regf_bins(h) + off + 4;
}

static void set_cell_size(struct rt_regf *h, uint32_t off, uint32_t size,
                          int alloc)
{
    regf_put32(regf_bins(h) + off, alloc ? (uint32_t)0 - size : size);
    regf_touch(h, regf_file_off(off), 4);
}

/* Appends a hive bin big enough for a cell of NEED bytes; its cells are
 * one free cell. */
static int append_bin(struct rt_regf *h, uint32_t need)
{
    uint64_t size64 = ((uint64_t)need + REGF_HBIN_HEADER + REGF_HBIN_ALIGN - 1)
                      / REGF_HBIN_ALIGN * REGF_HBIN_ALIGN;
    if (h->len + size64 > 0x7FFFF000u)
        return regf_fail(h, RT_REGF_ETOOBIG, "hive would exceed 2 GB");
    uint32_t size = (uint32_t)size64, off = regf_hbins_size(h);
    if (h->len + size > h->cap) {
        /* Room for an eighth more (at least 1 MB), not twice the image: a
         * commit appends kilobytes to a hive of tens of megabytes, and
         * doubling would reserve (and, where realloc moves, copy) another
         * whole image for them. An eighth keeps repeated growth linear. */
        size_t step = h->len / 8 > ((size_t)1 << 20) ? h->len / 8
                                                      : (size_t)1 << 20;
        size_t cap = h->len + size + step;
        uint8_t *img;
        if (h->map.priv) {
            /* A view that has used up its growth room becomes a copy. */
            if ((img = malloc(cap)) != NULL) {
                memcpy(img, h->img, h->len);
                rt_os_unmap_file(&h->map);
            }
        } else {
            img = realloc(h->img, cap);
        }
        if (!img)
            return regf_fail(h, RT_REGF_ENOMEM, "out of memory");
        h->img = img;
        h->cap = cap;
    }
    uint8_t *p = h->img + h->len;
    memset(p, 0, size);
    memcpy(p, "hbin", 4);
    regf_put32(p + 4, off);
    regf_put32(p + 8, size);
    h->len += size;
    int rc;
    if ((rc = grow_cellmap(h)) || (rc = regf_grow_changed(h)) ||
        (rc = bins_push(h, off, size)))
        return regf_fail(h, rc, "out of memory");
    regf_touch(h, regf_file_off(off), size);
    uint32_t c = off + REGF_HBIN_HEADER;
    set_cell_size(h, c, size - REGF_HBIN_HEADER, 0);
    map_set(h, c);
    if ((rc = free_insert(h, size - REGF_HBIN_HEADER, c)))
        return regf_fail(h, rc, "out of memory");
    return 0;
}

int regf_alloc_above(struct rt_regf *h, uint32_t datalen, uint32_t floor,
                     uint32_t *out)
{
    if (datalen > 0x7FFFFF00u - 8)
        return regf_fail(h, RT_REGF_ETOOBIG, "cell of %u bytes is too large",
                         datalen);
    uint32_t need = (datalen + 4 + 7) & ~7u;
    size_t i = free_lower(h, need, 0);
    while (i < h->nfree && h->free[i].off < floor)
        i++;
    if (i == h->nfree) {
        int rc = append_bin(h, need);
        if (rc)
            return rc;
        i = free_lower(h, need, 0);
        while (i < h->nfree && h->free[i].off < floor)
            i++;
        if (i == h->nfree)
            return regf_fail(h, RT_REGF_ENOMEM, "allocator lost a new bin");
    }
    uint32_t off = h->free[i].off, size = h->free[i].size;
    memmove(h->free + i, h->free + i + 1, (h->nfree - i - 1) * sizeof *h->free);
    h->nfree--;
    if (size - need >= 8) {
        uint32_t rest = off + need;
        set_cell_size(h, rest, size - need, 0);
        map_set(h, rest);
        int rc = free_insert(h, size - need, rest);
        if (rc)
            return regf_fail(h, rc, "out of memory");
        size = need;
    }
    set_cell_size(h, off, size, 1);
    *out = off;
    return 0;
}

int regf_alloc(struct rt_regf *h, uint32_t datalen, uint32_t *out)
{
    return regf_alloc_above(h, datalen, 0, out);
}

/* Start of the cell before OFF within [LOWER, OFF), or RT_REGF_NONE. */
static uint32_t prev_cell(const struct rt_regf *h, uint32_t off, uint32_t lower)
{
    if (off <= lower)
        return RT_REGF_NONE;
    size_t bit = off / 8 - 1, low = lower / 8;
    for (;;) {
        uint64_t w = h->cellmap[bit / 64];
        unsigned b = bit % 64;
        w &= b == 63 ? ~(uint64_t)0 : (((uint64_t)1 << (b + 1)) - 1);
        if (w) {
            size_t found = bit / 64 * 64 + 63 - (size_t)__builtin_clzll(w);
            return found >= low ? (uint32_t)(found * 8) : RT_REGF_NONE;
        }
        if (bit / 64 == 0 || bit / 64 * 64 <= low)
            return RT_REGF_NONE;
        bit = bit / 64 * 64 - 1;
    }
}

void regf_free_cell(struct rt_regf *h, uint32_t off)
{
    /* A cell freed may come back as another's part. */
    regf_claims_forget(h);
    const struct regf_bin *b = regf_bin_of(h, off);
    int alloc;
    uint32_t size = cell_size(h, off, &alloc);
    if (!b || !alloc || !regf_is_cell_start(h, off))
        return;
    uint32_t end = b->off + b->size, next = off + size;
    if (next < end) {
        int nalloc;
        uint32_t ns = cell_size(h, next, &nalloc);
        if (!nalloc) {
            free_remove(h, ns, next);
            map_clear(h, next);
            size += ns;
        }
    }
    uint32_t prev = prev_cell(h, off, b->off + REGF_HBIN_HEADER);
    if (prev != RT_REGF_NONE) {
        int palloc;
        uint32_t ps = cell_size(h, prev, &palloc);
        if (!palloc && prev + ps == off) {
            free_remove(h, ps, prev);
            map_clear(h, off);
            off = prev;
            size += ps;
        }
    }
    set_cell_size(h, off, size, 0);
    if (free_insert(h, size, off))
        regf_fail(h, RT_REGF_ENOMEM, "out of memory (free cell forgotten)");
}

void regf_write(struct rt_regf *h, uint64_t fileoff, const void *src,
                size_t len)
{
    const uint8_t *s = src;
    while (len) {
        size_t chunk = REGF_PAGE - fileoff % REGF_PAGE;
        if (chunk > len)
            chunk = len;
        uint8_t *d = h->img + fileoff;
        if (memcmp(d, s, chunk)) {
            memcpy(d, s, chunk);
            regf_touch(h, fileoff, chunk);
        }
        fileoff += chunk;
        s += chunk;
        len -= chunk;
    }
}

void regf_set16(struct rt_regf *h, uint32_t cell, uint32_t field, uint16_t v)
{
    uint8_t b[2];
    regf_put16(b, v);
    regf_write(h, regf_file_off(cell) + 4 + field, b, 2);
}

void regf_set32(struct rt_regf *h, uint32_t cell, uint32_t field, uint32_t v)
{
    uint8_t b[4];
    regf_put32(b, v);
    regf_write(h, regf_file_off(cell) + 4 + field, b, 4);
}

void regf_set64(struct rt_regf *h, uint32_t cell, uint32_t field, uint64_t v)
{
    uint8_t b[8];
    regf_put64(b, v);
    regf_write(h, regf_file_off(cell) + 4 + field, b, 8);
}
