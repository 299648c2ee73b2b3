/* Engine: a language's [PerfStrings_] section written from its tables'
 * own UTF-16LE to the backup's sink (backup_section.h). What lodctr /S
 * writes is the tables' text as stored, so nothing is decoded: a
 * language's section costs its bytes and a small entry a pair. */
#include "engine/backup_section.h"

#include <stdlib.h>
#include <string.h>

#include "model/size_caps.h"
#include "model/sort_positions.h"
#include "model/utf16.h"
#include "platform/os.h"

int rt_backup_interrupted(struct rt_error *e)
{
    if (!rt_os_interrupted())
        return 0;
    return rt_error_set(e, RT_ERR_CANCELLED, "interrupted: nothing was "
                        "saved");
}

int rt_backup_emit(const struct rt_backup_sink *k, const uint8_t *data,
                   size_t len, size_t *bytes, struct rt_error *e)
{
    if (rt_backup_interrupted(e))
        return -1;
    /* Restore reads a backup of at most RT_BACKUP_FILE_MAX bytes, which
     * holds the tables of any tree within the .dat caps (size_caps.h):
     * one larger (thousands of providers more, or tables kept in a
     * SOFTWARE of gigabytes) is not written, so that every backup saved
     * can be restored. */
    if (len > RT_BACKUP_FILE_MAX - *bytes)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "the backup would be more than the %llu MiB "
                            "a PerfStringBackup file may be (restore "
                            "reads no larger one); nothing was saved",
                            (unsigned long long)(RT_BACKUP_FILE_MAX >> 20));
    if (k->write(k->ctx, data, len) != 0)
        return rt_backup_interrupted(e)
                   ? -1
                   : rt_error_set(e, RT_ERR_WRITE_FAULT,
                                  "writing the backup failed; nothing was "
                                  "saved");
    *bytes += len;
    return 0;
}

static int flush(struct rt_backup_out *o, struct rt_error *e)
{
    size_t n = o->len;
    o->len = 0;
    return n ? rt_backup_emit(o->k, o->buf, n, o->bytes, e) : 0;
}

/* N bytes of DATA after what O holds. */
static int put(struct rt_backup_out *o, const void *data, size_t n,
               struct rt_error *e)
{
    if (n > RT_BACKUP_PIECE - o->len) {
        if (flush(o, e) != 0)
            return -1;
        /* A text longer than a piece goes as it lies. */
        if (n > RT_BACKUP_PIECE)
            return rt_backup_emit(o->k, data, n, o->bytes, e);
    }
    memcpy(o->buf + o->len, data, n);
    o->len += n;
    return 0;
}

/* ASCII text S as UTF-16LE. */
static int put_ascii16(struct rt_backup_out *o, const char *s,
                       struct rt_error *e)
{
    for (; *s; s++) {
        const uint8_t u[2] = {(uint8_t)*s, 0};
        if (put(o, u, 2, e) != 0)
            return -1;
    }
    return 0;
}

/* "\r\n" INDEX "=" in UTF-16LE into H (at least 26 bytes), as
 * rt_psb_write_language prints it ("\r\n%u="); its length. */
static size_t index_head(uint8_t *h, uint32_t index)
{
    char d[10];
    size_t n = 0, w = 0;
    do {
        d[n++] = (char)('0' + index % 10);
        index /= 10;
    } while (index);
    h[w++] = '\r';
    h[w++] = 0;
    h[w++] = '\n';
    h[w++] = 0;
    while (n) {
        h[w++] = (uint8_t)d[--n];
        h[w++] = 0;
    }
    h[w++] = '=';
    h[w++] = 0;
    return w;
}

/* The index of the pair at position P of a language's merged list (its
 * Counter's pairs, then its Help's), tables T. */
static uint32_t merged_index(const struct rt_table *t, uint32_t p)
{
    return p < t[0].n ? t[0].v[p].index : t[1].v[p - t[0].n].index;
}

/* By index, then by place in Counter then Help order. */
static int merged_cmp(uint32_t a, uint32_t b, const void *ctx)
{
    uint32_t x = merged_index(ctx, a), y = merged_index(ctx, b);
    if (x != y)
        return x < y ? -1 : 1;
    return (a > b) - (a < b);
}

static int in_index_order(const struct rt_table *t)
{
    for (size_t i = 1; i < t->n; i++)
        if (t->v[i].index < t->v[i - 1].index)
            return 0;
    return 1;
}

/* The positions of the N pairs of tables T into V, by index, then by
 * place in Counter then Help order. Tables as Windows writes them are in
 * index order already: merged in one pass, where sorting them cost a
 * backup a sixth of its time; others are sorted. */
static void merged_order(const struct rt_table *t, uint32_t *v, size_t n)
{
    if (in_index_order(&t[0]) && in_index_order(&t[1])) {
        size_t a = 0, b = 0, w = 0;
        while (a < t[0].n && b < t[1].n)
            v[w++] = t[1].v[b].index < t[0].v[a].index
                         ? (uint32_t)(t[0].n + b++)
                         : (uint32_t)a++;
        while (a < t[0].n)
            v[w++] = (uint32_t)a++;
        while (b < t[1].n)
            v[w++] = (uint32_t)(t[0].n + b++);
        return;
    }
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    /* Four bytes a pair, sorted where they lie: a table of millions of
     * tiny pairs is backed up in a fraction of its own size. */
    rt_sort_positions(v, n, merged_cmp, t);
}

/* rt_psb_text_reads_back of UTF-16LE TEXT (N bytes, valid): decoded only
 * when it holds a unit some reader ends a line at (rt_psb_line_break:
 * review 54 R54-1, FS alone passed here unjudged), which few texts do.
 * -1 when out of memory. */
static int reads_back16(const uint8_t *text, size_t n)
{
    size_t i = 0;
    for (; i + 1 < n; i += 2)
        if (rt_psb_line_break((unsigned)text[i] |
                              (unsigned)text[i + 1] << 8))
            break;
    if (i + 1 >= n)
        return 1;
    char *u;
    size_t len;
    if (rt_utf16le_to_utf8(text, n, &u, &len, NULL) != 0)
        return -1;
    int r = rt_psb_text_reads_back(u, len);
    free(u);
    return r;
}

int rt_backup_write_section(const struct rt_db_language *l,
                            struct rt_backup_out *o, size_t *left_out,
                            struct rt_error *e)
{
    const struct rt_table *t = l->tab;
    size_t n = t[0].n + t[1].n;
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    merged_order(t, v, n);
    int r = put_ascii16(o, "\r\n\r\n[PerfStrings_", e) ||
            put_ascii16(o, l->id, e) || put_ascii16(o, "]", e);
    for (size_t i = 0; i < n && !r; i++) {
        /* The last of equal indices wins, as in lodctr's array by index. */
        uint32_t index = merged_index(t, v[i]);
        if (i + 1 < n && merged_index(t, v[i + 1]) == index)
            continue;
        int kind = v[i] >= t[0].n;
        const struct rt_table *x = &t[kind];
        const struct rt_msz_entry *en = &x->v[kind ? v[i] - t[0].n : v[i]];
        int back = reads_back16(x->blob + en->text, en->text_bytes);
        if (back < 0) {
            r = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            break;
        }
        if (!back) {
            (*left_out)++;
            continue;
        }
        uint8_t head[32];
        r = put(o, head, index_head(head, index), e) ||
            put(o, x->blob + en->text, en->text_bytes, e);
    }
    free(v);
    if (r) {
        o->len = 0;
        return -1;
    }
    return flush(o, e);
}
