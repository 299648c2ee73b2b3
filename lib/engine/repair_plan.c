/* Engine layer: repair of the name database (repair.h): its steps in
 * order, and the first of them: duplicates removed, orphans pruned. */
#include "engine/repair_internal.h"
#include "model/sort_positions.h"
#include "platform/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *rt_repair_kind_name(int k)
{
    return k ? "Help" : "Counter";
}

struct rlang *rt_repair_lang_of(struct repair *rp, const char *id)
{
    for (size_t i = 0; i < rp->n; i++)
        if (rt_lang_same(rp->w[i].l->id, id))
            return &rp->w[i];
    return NULL;
}

/* W's list K decoded from the table as read, if it is not yet: 0, or -1
 * when out of memory. */
int rt_repair_decoded(struct rlang *w, int k)
{
    if (w->have[k])
        return 0;
    if (rt_table_pairs(&w->l->tab[k], &w->list[k]) != 0)
        return -1;
    w->have[k] = 1;
    return 0;
}

/* W's list K, rt_repair_decoded, to be changed: 0, or -1 when out of memory. */
int rt_repair_writable(struct rlang *w, int k)
{
    if (rt_repair_decoded(w, k) != 0)
        return -1;
    w->changed[k] = 1;
    return 0;
}

/* The pairs of W's list K, and the index of the I-th: from the list once
 * rt_repair_decoded, else from the table's index (the same pairs, in order). */
size_t rt_repair_count_of(const struct rlang *w, int k)
{
    return w->have[k] ? w->list[k].n : w->l->tab[k].n;
}

uint32_t rt_repair_index_at(const struct rlang *w, int k, size_t i)
{
    return w->have[k] ? w->list[k].v[i].index : w->l->tab[k].v[i].index;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* W's list K's indices, sorted, in a new array of *N; NULL when out of
 * memory. */
uint32_t *rt_repair_sorted_indices(const struct rlang *w, int k, size_t *n)
{
    *n = rt_repair_count_of(w, k);
    uint32_t *ix = malloc((*n ? *n : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < *n; i++)
        ix[i] = rt_repair_index_at(w, k, i);
    qsort(ix, *n, sizeof *ix, cmp_u32);
    return ix;
}

size_t rt_repair_lower_bound(const uint32_t *ix, size_t n, uint64_t x)
{
    return rt_lower_bound_u32(ix, n, x);
}

int rt_repair_sorted_has(const uint32_t *ix, size_t n, uint32_t x)
{
    size_t at = rt_repair_lower_bound(ix, n, x);
    return at < n && ix[at] == x;
}

/* English's indices of each list, sorted once every table is salvaged,
 * for the languages whose salvage cut an index (one binary search each,
 * not a pass over English's table: thousands of damaged languages). */
struct english_index {
    uint32_t *ix[2];
    size_t n[2];
    int made[2];
};

/* Whether English has INDEX in list K: what fill_from_english gives a
 * language that lacks an index above Base Index. */
static int english_has(struct repair *rp, struct english_index *en_ix, int k,
                       uint32_t index)
{
    const struct rlang *en = rt_repair_lang_of(rp, "009");
    if (!en)
        return 0;
    if (!en_ix->made[k]) {
        en_ix->made[k] = 1;
        en_ix->ix[k] = rt_repair_sorted_indices(en, k, &en_ix->n[k]);
        if (!en_ix->ix[k])
            rp->failed = 1;
    }
    return en_ix->ix[k] && rt_repair_sorted_has(en_ix->ix[k], en_ix->n[k],
                                                index);
}

/* What salvaging W's list K dropped, said: the count, and the index whose
 * text the damage cut (the salvage dropped it: what is left of a cut
 * text is not the text that was stored) with what takes its place. */
static void say_salvaged(struct repair *rp, struct english_index *en_ix,
                         const struct rlang *w, int k, size_t dropped,
                         uint32_t cut)
{
    const struct rt_db_language *l = w->l;
    char cut_said[160] = "";
    if (cut) {
        int filled = !rt_lang_same(l->id, "009") &&
                     !rt_lang_is_current(l->id) &&
                     cut > rp->db->base_index && english_has(rp, en_ix, k, cut);
        snprintf(cut_said, sizeof cut_said,
                 ", among them index %u, whose text the damage cut: %s",
                 (unsigned)cut,
                 filled ? "English's text takes its place"
                        : "it is no longer in the table");
    }
    FIXED(rp, "blob-salvaged", l->id,
          "Perflib\\%s\\%s: rewritten well-formed from the %zu valid pairs "
          "of the damaged blob (%zu before the damage; %zu unreadable "
          "strings dropped%s)",
          l->id, rt_repair_kind_name(k), w->list[k].n, l->tab[k].n, dropped,
          cut_said);
}

/* Starts from what is stored: the tables as read, or, for a damaged
 * blob, every valid pair salvaged from its bytes. */
static int start(struct repair *rp)
{
    size_t (*dropped)[2] = calloc(rp->n ? rp->n : 1, sizeof *dropped);
    uint32_t (*cut)[2] = calloc(rp->n ? rp->n : 1, sizeof *cut);
    struct english_index en_ix = {{NULL, NULL}, {0, 0}, {0, 0}};
    int rc = dropped && cut ? 0 : -1;
    for (size_t i = 0; i < rp->n && !rc; i++) {
        struct rlang *w = &rp->w[i];
        const struct rt_db_language *l = w->l;
        for (int k = 0; k < 2; k++) {
            if (!l->raw[k].data && l->blob_damage[k].status == RT_MSZ_OK)
                continue;
            struct rt_pair *p;
            size_t n;
            if (rt_multi_sz_salvage(l->raw[k].data, l->raw[k].len, &p, &n,
                                    &dropped[i][k], &cut[i][k]) != 0) {
                rc = -1;
                break;
            }
            w->list[k].v = p;
            w->list[k].n = w->list[k].cap = n;
            w->have[k] = 1;
            w->rewrite[k] = 1;
        }
    }
    /* Said once every table is salvaged: whether English fills a cut
     * index is read from English's salvaged list. */
    for (size_t i = 0; i < rp->n && !rc; i++) {
        struct rlang *w = &rp->w[i];
        const struct rt_db_language *l = w->l;
        for (int k = 0; k < 2; k++) {
            int present = k ? l->has_help : l->has_counter;
            if (l->raw[k].data || l->blob_damage[k].status != RT_MSZ_OK) {
                say_salvaged(rp, &en_ix, w, k, dropped[i][k], cut[i][k]);
                continue;
            }
            if (present && l->type[k] != 7) {
                if (rt_repair_decoded(w, k) != 0) {
                    rc = -1;
                    break;
                }
                w->rewrite[k] = 1;
                FIXED(rp, "blob-retyped", l->id,
                      "Perflib\\%s\\%s: rewritten as REG_MULTI_SZ (it was type "
                      "%u)", l->id, rt_repair_kind_name(k), l->type[k]);
            }
        }
    }
    free(dropped);
    free(cut);
    free(en_ix.ix[0]);
    free(en_ix.ix[1]);
    return rc;
}

static void rlang_free(struct rlang *w)
{
    for (int k = 0; k < 2; k++) {
        if (w->have[k])
            rt_pair_list_free(&w->list[k]);
        free(w->by_index[k]);
        w->by_index[k] = NULL;
    }
}

/* Removes the pairs whose KILL flag is set, keeping the others' order. */
static void compact(struct rt_pair_list *l, const unsigned char *kill)
{
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (kill[i])
            rt_pair_list_free_pair(l, &l->v[i]);
        else
            l->v[o++] = l->v[i];
    }
    l->n = o;
    /* A list pruned of most of its pairs gives their room back (a
     * table of millions of orphans keeps a few hundred). */
    if (o < l->cap / 2) {
        struct rt_pair *v = realloc(l->v, (o ? o : 1) * sizeof *v);
        if (v) {
            l->v = v;
            l->cap = o ? o : 1;
        }
    }
}

/* Whether position A of V goes after position B: by index, ties in
 * table order. */
static int ipos_after(const struct ipos *v, size_t a, size_t b)
{
    return v[a].index != v[b].index ? v[a].index > v[b].index
                                    : v[a].pos > v[b].pos;
}

static void ipos_sift(struct ipos *v, size_t root, size_t n)
{
    for (;;) {
        size_t big = root, l = 2 * root + 1, r = l + 1;
        if (l < n && ipos_after(v, l, big))
            big = l;
        if (r < n && ipos_after(v, r, big))
            big = r;
        if (big == root)
            return;
        struct ipos t = v[root];
        v[root] = v[big];
        v[big] = t;
        root = big;
    }
}

/* Sorted in place by a heap sort (qsort's merge sort would take a copy
 * of the array: a table of millions of duplicates is sorted here). */
static void ipos_sort(struct ipos *v, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        ipos_sift(v, i, n);
    for (size_t end = n; end > 1; end--) {
        struct ipos t = v[0];
        v[0] = v[end - 1];
        v[end - 1] = t;
        ipos_sift(v, 0, end - 1);
    }
}

struct ipos *rt_repair_sorted_positions(const struct rt_pair_list *l)
{
    struct ipos *v = malloc((l->n ? l->n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        v[i] = (struct ipos){l->v[i].index, (uint32_t)i};
    ipos_sort(v, l->n);
    return v;
}

static void drop_positions(struct rlang *w, int k)
{
    free(w->by_index[k]);
    w->by_index[k] = NULL;
}

/* The position in W's list K of its first pair (in table order) at
 * INDEX, through W->by_index (made from the table's index where the
 * list is not decoded: the same pairs, in order): 0 and *AT, 1 when it
 * has none, -1 when out of memory. */
static int first_at(struct rlang *w, int k, uint32_t index, size_t *at)
{
    size_t n = rt_repair_count_of(w, k);
    struct ipos *v = w->by_index[k];
    if (!v) {
        if (!(v = malloc((n ? n : 1) * sizeof *v)))
            return -1;
        for (size_t i = 0; i < n; i++)
            v[i] = (struct ipos){rt_repair_index_at(w, k, i), (uint32_t)i};
        ipos_sort(v, n);
        w->by_index[k] = v;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == n || v[lo].index != index)
        return 1;
    *at = v[lo].pos;
    return 0;
}

/* Whether another language has CAND's text at INDEX in table K (its
 * first pair there, as a reader finds it): 1, 0, or -1 when out of
 * memory. A language not decoded is compared as stored, in UTF-16.
 * Each language's pairs are looked up through their positions sorted
 * by index, made once: a scan of each language's pairs for each
 * duplicate took O(duplicates x pairs) (hostile_scale.sh, 4a). */
static int confirmed(struct repair *rp, const struct rlang *self, int k,
                     uint32_t index, const struct rt_pair *cand)
{
    uint8_t *u16 = NULL;
    size_t u16_len = 0;
    int found = 0;
    for (size_t i = 0; i < rp->n && !found; i++) {
        struct rlang *o = &rp->w[i];
        if (o == self)
            continue;
        size_t at;
        int r = first_at(o, k, index, &at);
        if (r < 0) {
            free(u16);
            return -1;
        }
        if (r)
            continue;
        if (o->have[k]) {
            const struct rt_pair *p = &o->list[k].v[at];
            found = p->text_len == cand->text_len &&
                    !memcmp(p->text, cand->text, cand->text_len);
            continue;
        }
        const struct rt_table *t = &o->l->tab[k];
        const struct rt_msz_entry *x = &t->v[at];
        if (!u16 && rt_utf8_to_utf16le(cand->text, cand->text_len, &u16,
                                       &u16_len, NULL) != 0)
            return -1;
        found = x->text_bytes == u16_len &&
                (!u16_len || !memcmp(t->blob + x->text, u16, u16_len));
    }
    free(u16);
    return found;
}

/* A duplicated index keeps one text: the same text twice is one; else
 * the one another language confirms; else the first, said so. */
static int dedupe(struct repair *rp, struct rlang *w, int k)
{
    /* Looked for in the table's index; decoded only where it has one. */
    size_t n;
    if (rt_repair_count_of(w, k) < 2)
        return 0;
    uint32_t *ix = rt_repair_sorted_indices(w, k, &n);
    if (!ix)
        return -1;
    size_t d = 1;
    while (d < n && ix[d] != ix[d - 1])
        d++;
    free(ix);
    if (d == n)
        return 0;
    if (rt_repair_decoded(w, k) != 0)
        return -1;
    struct rt_pair_list *l = &w->list[k];
    struct ipos *pos = rt_repair_sorted_positions(l);
    unsigned char *kill = calloc(l->n, 1);
    if (!pos || !kill) {
        free(pos);
        free(kill);
        return -1;
    }
    int any = 0;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        while (j < l->n && pos[j].index == pos[i].index)
            j++;
        if (j - i > 1) {
            size_t keep = pos[i].pos;   /* the first in table order */
            size_t confirmed_n = 0, which = keep;
            for (size_t m = i; m < j; m++) {
                int c = confirmed(rp, w, k, pos[m].index, &l->v[pos[m].pos]);
                if (c < 0)
                    rp->failed = 1;
                if (c > 0) {
                    confirmed_n++;
                    which = pos[m].pos;
                }
            }
            if (confirmed_n == 1)
                keep = which;
            int same = 1;
            for (size_t m = i; m < j; m++) {
                const struct rt_pair *p = &l->v[pos[m].pos];
                if (p->text_len != l->v[keep].text_len ||
                    memcmp(p->text, l->v[keep].text, p->text_len))
                    same = 0;
                if (pos[m].pos != keep)
                    kill[pos[m].pos] = 1;
            }
            FIXED(rp, "duplicate-resolved", w->l->id,
                  "Perflib\\%s\\%s: index %u held %zu times; kept \"%s\" (%s)",
                  w->l->id, rt_repair_kind_name(k), l->v[keep].index, j - i,
                  l->v[keep].text,
                  same ? "the same text each time"
                  : confirmed_n == 1 ? "the text another language has there"
                                     : "the first; no other language decides");
            any = 1;
        }
        i = j;
    }
    int rc = any ? rt_repair_writable(w, k) : 0;
    if (any && !rc) {
        compact(l, kill);
        drop_positions(w, k);   /* its positions moved */
    }
    free(pos);
    free(kill);
    return rc;
}

/* Strings above Base Index that no provider's range owns go. Each is
 * looked up in the union of the ranges, sorted once per table kind, not
 * compared with every provider's range. */
static int prune_orphans(struct repair *rp)
{
    size_t n_spans[2];
    struct rt_span *spans[2] = {rt_owned_spans(rp->db, 0, &n_spans[0]),
                                rt_owned_spans(rp->db, 1, &n_spans[1])};
    int rc = spans[0] && spans[1] ? 0 : -1;
    for (size_t i = 0; i < rp->n && !rc; i++)
        for (int k = 0; k < 2 && !rc; k++) {
            struct rlang *w = &rp->w[i];
            size_t count = rt_repair_count_of(w, k);
            unsigned char *kill = calloc(count ? count : 1, 1);
            if (!kill) {
                rc = -1;
                break;
            }
            size_t n = 0;
            for (size_t j = 0; j < count; j++) {
                uint32_t x = rt_repair_index_at(w, k, j);
                if (x > rp->db->base_index &&
                    !rt_spans_have(spans[k], n_spans[k], x)) {
                    kill[j] = 1;
                    n++;
                }
            }
            if (n) {
                FIXED(rp, "orphans-pruned", w->l->id,
                      "Perflib\\%s\\%s: %zu strings above Base Index that no "
                      "provider owns removed", w->l->id,
                      rt_repair_kind_name(k), n);
                if (rt_repair_writable(w, k) != 0)
                    rc = -1;
                else
                    compact(&w->list[k], kill);
            }
            free(kill);
        }
    free(spans[0]);
    free(spans[1]);
    return rc;
}

int rt_engine_repair(const struct rt_database *db,
                     const struct rt_repair_options *opt,
                     struct rt_change_set *cs, struct rt_repair_report *r,
                     struct rt_error *e)
{
    memset(cs, 0, sizeof *cs);
    memset(r, 0, sizeof *r);
    struct repair rp = {db, opt, NULL, 0, r, 0, 0, rt_change_budget_of(db), 0};
    rp.w = calloc(db->n_langs ? db->n_langs : 1, sizeof *rp.w);
    if (!rp.w)
        goto nomem;
    for (size_t i = 0; i < db->n_langs; i++) {
        rp.w[i].l = &db->langs[i];
        rp.n++;
    }
    if (start(&rp) != 0)
        goto nomem;
    for (size_t i = 0; i < rp.n; i++) {
        rt_progress_report("checking languages", i, rp.n);
        for (int k = 0; k < 2; k++)
            if (dedupe(&rp, &rp.w[i], k) != 0)
                goto nomem;
    }
    for (size_t i = 0; i < rp.n; i++)
        for (int k = 0; k < 2; k++)
            drop_positions(&rp.w[i], k);
    if ((opt && opt->prune_orphans && prune_orphans(&rp) != 0) ||
        (opt && opt->from_ini && rt_repair_restore_from_inis(&rp) != 0))
        goto nomem;
    /* Each language's change holds its own copy of what it gets from
     * English (its new tables, the pairs shown), and PerfStringBackup.INI
     * all of them again: thousands of languages would make gigabytes of
     * tables, more than a store reads of a tree's tables (size_caps.h).
     * Such a repair is refused before a text is copied. */
    uint64_t total;
    size_t filled;
    if (rt_repair_filled_size(&rp, &total, &filled) != 0)
        goto nomem;
    if (total > RT_DAT_TOTAL_MAX || rp.over) {
        for (size_t i = 0; i < rp.n; i++)
            rlang_free(&rp.w[i]);
        free(rp.w);
        rt_repair_report_free(r);
        if (total <= RT_DAT_TOTAL_MAX)
            return rt_change_budget_refuse(&rp.budget, "the repair",
                                           db->n_langs, e);
        return rt_error_set(
            e, RT_ERR_INVALID_DATA,
            "Perflib\\009's entries above Base Index given to the %zu "
            "languages that lack them would make the name tables %llu MiB "
            "together, more than the %llu MiB a tree's tables may be; "
            "nothing was written", filled,
            (unsigned long long)(total >> 20),
            (unsigned long long)(RT_DAT_TOTAL_MAX >> 20));
    }
    if (rt_repair_fill_from_english(&rp) != 0 ||
        rt_repair_mirror_current(&rp) != 0 ||
        rt_repair_emit_tables(&rp, cs) != 0 ||
        rt_repair_emit_values(&rp, cs) != 0 ||
        rt_repair_report_left(&rp, cs) != 0 || rp.failed)
        goto nomem;
    for (size_t i = 0; i < rp.n; i++)
        rlang_free(&rp.w[i]);
    free(rp.w);
    return 0;
nomem:
    for (size_t i = 0; rp.w && i < rp.n; i++)
        rlang_free(&rp.w[i]);
    free(rp.w);
    rt_change_set_free(cs);
    rt_repair_report_free(r);
    if (rp.over)
        return rt_change_budget_refuse(&rp.budget, "the repair", db->n_langs,
                                       e);
    if (rp.interrupted)
        return rt_error_set(e, RT_ERR_CANCELLED, "interrupted: nothing was "
                            "written");
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

void rt_repair_report_free(struct rt_repair_report *r)
{
    rt_findings_free(&r->fixed);
    rt_findings_free(&r->left);
}
