/* Engine: the invariant every table change must keep, checked before any
 * commit whatever the store: the table after the change is the table
 * before, plus exactly the pairs the change adds, minus exactly the pairs
 * it removes. Pure: the caller reads the table as the store holds it (the
 * place the bytes will go, not the database as loaded), so a change set
 * computed from the wrong database (a user's hive given as SOFTWARE, a
 * language whose tables were not found) cannot replace a real table. */
#include "engine/engine.h"

#include "model/sort_positions.h"
#include "model/utf16.h"
#include "platform/os.h"

#include <stdlib.h>
#include <string.h>

/* A pair as the invariant compares it: index and UTF-16 text bytes.
 * Sixteen bytes: a change that removes a table of millions of pairs
 * compares as many items (a text is under the 4 GiB of a table). */
struct item {
    uint32_t index;
    uint32_t bytes;
    const uint8_t *text;
};

static int item_cmp(const void *a, const void *b)
{
    const struct item *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    size_t n = x->bytes < y->bytes ? x->bytes : y->bytes;
    int c = memcmp(x->text, y->text, n);
    if (c)
        return c;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

static const char *table_name(const struct rt_change *c)
{
    return c->table == RT_TABLE_HELP ? "Help" : "Counter";
}

/* Bytes of the UTF-16 of valid UTF-8 text S (LEN bytes): a unit per
 * character, two for one beyond the BMP (a four-byte sequence). */
static size_t utf16_bytes(const char *s, size_t len)
{
    size_t units = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)s[i];
        units += (b & 0xC0) != 0x80;
        units += b >= 0xF0;
    }
    return 2 * units;
}

/* The pairs of L as items, their texts converted to UTF-16 into one
 * buffer, *BUF (freed by the caller): not an allocation a pair. Returns
 * 0 or -1 when out of memory or a text is not valid UTF-8. */
static int items_of(const struct rt_pair_list *l, struct item *out,
                    uint8_t **buf)
{
    size_t total = 0;
    for (size_t i = 0; i < l->n; i++)
        total += utf16_bytes(l->v[i].text, l->v[i].text_len);
    *buf = malloc(total ? total : 1);
    if (!*buf)
        return -1;
    size_t at = 0;
    for (size_t i = 0; i < l->n; i++) {
        uint8_t *u16 = NULL;
        size_t n = 0;
        if (l->v[i].text_len &&
            rt_utf8_to_utf16le(l->v[i].text, l->v[i].text_len, &u16, &n,
                               NULL) != 0)
            return -1;
        if (n > total - at) {
            free(u16);
            return -1;
        }
        if (n)
            memcpy(*buf + at, u16, n);
        free(u16);
        out[i] = (struct item){.index = l->v[i].index, .bytes = (uint32_t)n,
                               .text = *buf + at};
        at += n;
    }
    return 0;
}

static int malformed(const struct rt_change *c, const struct rt_msz_error *me,
                     struct rt_error *e)
{
    if (me->status == RT_MSZ_NOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                        "internal error: the new Perflib\\%s\\%s is "
                        "malformed (%s at byte %zu); the change was "
                        "refused and nothing was written",
                        c->lang, table_name(c), rt_msz_strerror(me->status),
                        me->offset);
}

/* The pairs of one scanned blob, for sorting positions into it. */
struct scanned {
    const uint8_t *blob;
    const struct rt_msz_entry *v;
};

static struct item item_at(const struct scanned *t, uint32_t i)
{
    return (struct item){.index = t->v[i].index, .bytes = t->v[i].text_bytes,
                         .text = t->blob + t->v[i].text};
}

static int position_cmp(uint32_t a, uint32_t b, const void *ctx)
{
    struct item x = item_at(ctx, a), y = item_at(ctx, b);
    int c = item_cmp(&x, &y);
    return c ? c : (a > b) - (a < b);
}

/* Positions 0..N-1 of T's pairs in (index, text) order, in a new array
 * (four bytes a pair, sorted in place); NULL when out of memory. */
static uint32_t *sorted_positions(const struct scanned *t, size_t n)
{
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++)
        v[i] = (uint32_t)i;
    rt_sort_positions(v, n, position_cmp, t);
    return v;
}

/* Whether the pairs NOW (in NOW_BLOB) are the pairs OLD (in OLD_BLOB)
 * plus exactly C's added pairs, minus exactly its removed pairs, as
 * multisets of (index, UTF-16 text); N_STORED is the table's pair count,
 * for the message. Sorts: n log n in the pairs compared. The tables'
 * pairs are sorted as four-byte positions into their scans, in place,
 * and the pairs wanted are walked as the merge of the old ones left and
 * the added ones, never copied: a change that removes a table of
 * millions of tiny pairs costs a few bytes a pair here, not the 16-byte
 * items (and qsort's copy of them) of each table it once did. */
static int same_pairs(const struct rt_change *c, const uint8_t *old_blob,
                      const struct rt_msz_entry *old, size_t n_old,
                      const uint8_t *now_blob, const struct rt_msz_entry *now,
                      size_t n_now, size_t n_stored, struct rt_error *e)
{
    int rc = -1;
    const struct scanned before = {old_blob, old}, after = {now_blob, now};
    struct item *add = NULL;
    uint8_t *add_buf = NULL;
    char *used = NULL;
    uint32_t *taken = NULL, *o = NULL, *w = NULL;
    add = malloc((c->added.n + 1) * sizeof *add);
    used = calloc(n_old + 1, 1);
    taken = calloc(n_old + 1, sizeof *taken);
    if (!add || !used || !taken || items_of(&c->added, add, &add_buf) ||
        !(o = sorted_positions(&before, n_old)) ||
        !(w = sorted_positions(&after, n_now))) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto out;
    }
    /* Before, sorted; each removed pair takes one equal pair of it (it
     * must be there), the rest is wanted. */
    for (size_t k = 0; k < c->removed.n; k++) {
        /* Each removed pair's text in UTF-16, one at a time: the
         * removed pairs may be a whole table's. */
        const struct rt_pair *r = &c->removed.v[k];
        uint8_t *u16 = NULL;
        size_t u16_len = 0;
        if (r->text_len &&
            rt_utf8_to_utf16le(r->text, r->text_len, &u16, &u16_len,
                               NULL) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto out;
        }
        const struct item gone = {.index = r->index,
                                  .bytes = (uint32_t)u16_len,
                                  .text = u16 ? u16 : (const uint8_t *)""};
        size_t lo = 0, hi = n_old;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            struct item x = item_at(&before, o[mid]);
            if (item_cmp(&x, &gone) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        /* Equal pairs are taken from the first of their run on: the
         * next one is the run's count of those taken further, never a
         * walk over them (a table of 200,000 equal pairs). */
        size_t run = lo;
        lo += taken[run];
        struct item x = lo < n_old ? item_at(&before, o[lo]) : gone;
        int held = lo < n_old && !item_cmp(&x, &gone);
        free(u16);
        if (!held) {
            rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                         "internal error: the change set removes pair %u "
                         "from Perflib\\%s\\%s, which the table as stored "
                         "does not hold; it was refused and nothing was "
                         "written",
                         c->removed.v[k].index, c->lang, table_name(c));
            goto out;
        }
        used[lo] = 1;
        taken[run]++;
    }
    qsort(add, c->added.n, sizeof *add, item_cmp);
    /* The pairs wanted, in order: the old ones left merged with the
     * added ones; compared one for one with the new table's. */
    size_t oi = 0, ai = 0, k = 0;
    for (;; k++) {
        while (oi < n_old && used[oi])
            oi++;
        int have_want = oi < n_old || ai < c->added.n, from_old = 0;
        struct item want = {0}, got = {0};
        if (oi < n_old) {
            want = item_at(&before, o[oi]);
            from_old = 1;
        }
        if (ai < c->added.n && (!from_old || item_cmp(&add[ai], &want) < 0)) {
            want = add[ai];
            from_old = 0;
        }
        int have_got = k < n_now;
        if (have_got)
            got = item_at(&after, w[k]);
        if (!have_want && !have_got)
            break;
        if (have_want && have_got && !item_cmp(&want, &got)) {
            if (from_old)
                oi++;
            else
                ai++;
            continue;
        }
        int extra = have_got && (!have_want || item_cmp(&got, &want) < 0);
        rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                     "internal error: the change set would leave %zu pairs "
                     "in Perflib\\%s\\%s, not the %zu stored plus the %zu it "
                     "adds minus the %zu it removes (first difference at "
                     "index %u, %s); it was refused and nothing was written",
                     n_now - n_old + n_stored, c->lang, table_name(c),
                     n_stored, c->added.n, c->removed.n,
                     extra ? got.index : want.index,
                     extra ? "a pair it should not hold"
                           : "a pair it should hold");
        goto out;
    }
    rc = 0;
out:
    free(add);
    free(used);
    free(taken);
    free(o);
    free(w);
    free(add_buf);
    return rc;
}

/* Works on the blobs as they are (UTF-16, located in one scan each) and
 * sorts (index, text) items: linear in the bytes, n log n in the pairs,
 * whatever the size of the tables. */
/* Whether KNOWN indexes exactly BEFORE's bytes, well-formed: all of
 * them held (no lean load), the same bytes, and its pairs ending in the
 * list terminator that ends the blob (a scan stops at any damage, so
 * pairs that reach it met none). */
static int same_known(const struct rt_table *known,
                      const struct rt_value *before)
{
    if (!known || !known->blob || known->base || known->len != before->len ||
        before->len < 2)
        return 0;
    size_t end = rt_msz_pairs_end(known->v, known->n);
    return end + 2 == before->len && !before->data[end] &&
           !before->data[end + 1] &&
           !memcmp(known->blob, before->data, before->len);
}

int rt_engine_check_table_change(const struct rt_change *c,
                                 const struct rt_value *before, int present,
                                 struct rt_error *e)
{
    return rt_engine_check_table_change_known(c, before, present, NULL, e);
}

int rt_engine_check_table_change_known(const struct rt_change *c,
                                       const struct rt_value *before,
                                       int present,
                                       const struct rt_table *known,
                                       struct rt_error *e)
{
    struct rt_msz_entry *old = NULL, *now = NULL;
    size_t n_old = 0, n_now = 0;
    struct rt_msz_error me;
    int rc = -1;
    if (c->n_edits)
        return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                            "internal error: a splice of Perflib\\%s\\%s "
                            "was checked as a whole table; nothing was "
                            "written", c->lang, table_name(c));
    if (c->replace) {
        /* A whole replacement: the table must be the one it was computed
         * from, and the new one well-formed. */
        if (!present != !c->before_present ||
            (present && (before->len != c->before_len ||
                         rt_blob_hash(before->data, before->len) !=
                             c->before_hash))) {
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: Perflib\\%s\\%s is not the "
                                "table the change was computed from; it was "
                                "refused and nothing was written",
                                c->lang, table_name(c));
        }
        if (rt_multi_sz_scan(c->value.data, c->value.len, 0, &now, &n_now,
                             &me))
            return malformed(c, &me, e);
        free(now);
        return 0;
    }
    /* The table as loaded, when the store still holds its bytes: its
     * index stands for a second scan (16 bytes a pair of a table of
     * millions). */
    const struct rt_msz_entry *old_v = NULL;
    if (present && before->len && same_known(known, before)) {
        old_v = known->v;
        n_old = known->n;
    } else if (present && before->len &&
        rt_multi_sz_scan(before->data, before->len, 0, &old, &n_old, &me)) {
        if (me.status == RT_MSZ_NOMEM)
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        else
            rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                         "internal error: Perflib\\%s\\%s cannot be "
                         "decoded (%s at byte %zu) though it was checked; "
                         "nothing was written",
                         c->lang, table_name(c), rt_msz_strerror(me.status),
                         me.offset);
        goto out;
    }
    if (rt_multi_sz_scan(c->value.data, c->value.len, 0, &now, &n_now, &me)) {
        malformed(c, &me, e);
        goto out;
    }
    if (!old_v)
        old_v = old;
    rc = same_pairs(c, before->data, old_v, n_old, c->value.data, now, n_now,
                    n_old, e);
out:
    free(old);
    free(now);
    return rc;
}

/* The entry of T starting at byte AT, or T->n when none does. */
static size_t entry_at(const struct rt_table *t, size_t at)
{
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->v[mid].at < at)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->n && t->v[lo].at == at ? lo : t->n;
}

/* The invariant of a splice, in the bytes and pairs it touches: every edit
 * begins and ends on a pair boundary (or the pairs' end, or the table's),
 * so each pair outside the edits stays as it is; the pairs the edits cut
 * are exactly the removed ones, and the bytes they insert (only the last
 * edit, at the table's end, inserts) decode strictly to exactly the added
 * pairs and the list terminator. */
int rt_engine_check_table_splice(const struct rt_change *c,
                                 const struct rt_table *t, int present,
                                 struct rt_error *e)
{
    static const struct rt_table none = {0};
    if (!t)
        t = &none;
    if (!present != !c->before_present || t->len != c->before_len ||
        !rt_change_edits_fit(c, t->len))
        return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                            "internal error: Perflib\\%s\\%s is not the "
                            "table the change was computed from; it was "
                            "refused and nothing was written",
                            c->lang, table_name(c));
    size_t tail = rt_msz_pairs_end(t->v, t->n);
    struct rt_msz_entry *cut = malloc((t->n + 1) * sizeof *cut), *now = NULL;
    size_t n_cut = 0, n_now = 0;
    if (!cut)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    const struct rt_table_edit *last = &c->edits[c->n_edits - 1];
    int reaches_end = last->at + last->cut == t->len;
    for (size_t i = 0; i < c->n_edits; i++) {
        const struct rt_table_edit *x = &c->edits[i];
        size_t from = entry_at(t, x->at), to = entry_at(t, x->at + x->cut);
        int head = from < t->n || x->at == tail;
        int end = to < t->n || x->at + x->cut == tail ||
                  x->at + x->cut == t->len;
        if (!head || !end || (x->ins_len && !(x == last && reaches_end))) {
            free(cut);
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: an edit of Perflib\\%s\\%s "
                                "at byte %zu does not lie on the table's "
                                "pairs; it was refused and nothing was "
                                "written",
                                c->lang, table_name(c), x->at);
        }
        /* Cut pairs as offsets into the bytes T holds (all of them, or
         * the tail a lean load kept, which holds every pair a change of
         * the table's end cuts). */
        for (size_t k = from; k < t->n && t->v[k].at < x->at + x->cut; k++) {
            if (!rt_table_at(t, t->v[k].at)) {
                free(cut);
                return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                    "internal error: Perflib\\%s\\%s was "
                                    "not read where the change cuts it; "
                                    "nothing was written",
                                    c->lang, table_name(c));
            }
            cut[n_cut] = t->v[k];
            cut[n_cut].at -= t->base;
            cut[n_cut++].text -= t->base;
        }
    }
    /* Where the last edit reaches the end, its bytes end the table: pairs
     * and the list terminator. */
    const uint8_t *ins = c->value.data ? c->value.data + last->ins : NULL;
    size_t ins_len = reaches_end ? last->ins_len : 0;
    struct rt_msz_error me = {RT_MSZ_NO_TERMINATOR, last->at};
    int rc;
    if (reaches_end && (ins_len < 2 || rt_multi_sz_scan(ins, ins_len, 0,
                                                        &now, &n_now, &me)))
        rc = malformed(c, &me, e);
    else
        rc = same_pairs(c, t->blob, cut, n_cut, ins, now, n_now, t->n, e);
    free(cut);
    free(now);
    return rc;
}
