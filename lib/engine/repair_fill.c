/* Engine layer: repair's languages that lack English's entries above Base
 * Index filled from it, and CurrentLanguage made a copy of the language
 * it mirrors. */
#include "engine/repair_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The bytes of the pair (INDEX, TEXT of LEN bytes of UTF-8) in a table:
 * both strings in UTF-16LE with their NULs. */
static uint64_t pair_bytes16(uint32_t index, const char *text, size_t len)
{
    char digits[16];
    uint64_t units = (uint64_t)snprintf(digits, sizeof digits, "%u", index) + 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char b = (unsigned char)text[i];
        if ((b & 0xC0) != 0x80)
            units += b >= 0xF0 ? 2 : 1;     /* a surrogate pair */
    }
    return 2 * (units + 1);
}

/* What the name tables would hold together once fill_from_english has
 * run, in bytes: each table as it is, and English's entries each
 * language gets; *FILLED: how many languages get some. Sized from the
 * indices alone, before a text is copied: -1 when out of memory. */
/* English's entries above Base Index of one table, by index, with their
 * sizes in a table, and in all. */
struct above {
    struct sized {
        uint32_t index;
        uint64_t bytes;
    } *v;
    size_t n;
    uint64_t bytes;
};

static int cmp_sized(const void *a, const void *b)
{
    const struct sized *x = a, *y = b;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int above_of(struct repair *rp, struct rlang *en, int k,
                    struct above *a)
{
    size_t n_en = rt_repair_count_of(en, k);
    memset(a, 0, sizeof *a);
    if (!(a->v = malloc((n_en ? n_en : 1) * sizeof *a->v)))
        return -1;
    for (size_t j = 0; j < n_en; j++) {
        uint32_t x = rt_repair_index_at(en, k, j);
        if (x <= rp->db->base_index)
            continue;
        uint64_t bytes;
        if (en->have[k]) {
            const struct rt_pair *p = &en->list[k].v[j];
            bytes = pair_bytes16(p->index, p->text, p->text_len);
        } else {
            const struct rt_msz_entry *e = &en->l->tab[k].v[j];
            bytes = (uint64_t)(e->text - e->at) + e->text_bytes + 2;
        }
        a->v[a->n++] = (struct sized){x, bytes};
        a->bytes += bytes;
    }
    qsort(a->v, a->n, sizeof *a->v, cmp_sized);
    return 0;
}

/* What W's table K gets of A: every entry but those at indices W has,
 * found by a search for each of W's (a language costs its own size, a
 * planted empty one nothing: English's entries were walked for each
 * language, languages x entries, review 36 F3). *MISSING: how many. */
static int gets_of(struct rlang *w, int k, const struct above *a,
                   uint64_t *bytes, size_t *missing)
{
    size_t n_have;
    uint32_t *have = rt_repair_sorted_indices(w, k, &n_have);
    if (!have)
        return -1;
    *bytes = a->bytes;
    *missing = a->n;
    for (size_t i = 0; i < n_have; i++) {
        if (i && have[i] == have[i - 1])
            continue;
        size_t lo = 0, hi = a->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (a->v[mid].index < have[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < a->n && a->v[lo].index == have[i]; lo++) {
            *bytes -= a->v[lo].bytes;
            (*missing)--;
        }
    }
    free(have);
    return 0;
}

int rt_repair_filled_size(struct repair *rp, uint64_t *total, size_t *filled)
{
    struct rlang *en = rt_repair_lang_of(rp, "009");
    *total = 0;
    *filled = 0;
    for (size_t i = 0; i < rp->n; i++)
        for (int k = 0; k < 2; k++)
            *total += rp->w[i].l->tab[k].len;
    uint64_t before = *total;
    if (!en)
        return 0;
    struct above a[2];
    int rc = above_of(rp, en, 0, &a[0]);
    if (!rc && (rc = above_of(rp, en, 1, &a[1])) != 0)
        free(a[0].v);
    if (rc)
        return -1;
    for (size_t i = 0; i < rp->n && !rc; i++) {
        struct rlang *w = &rp->w[i];
        if (w == en || rt_lang_is_current(w->l->id))
            continue;
        int gets = 0;
        for (int k = 0; k < 2 && !rc; k++) {
            uint64_t bytes;
            size_t missing;
            rc = gets_of(w, k, &a[k], &bytes, &missing);
            *total += rc ? 0 : bytes;
            gets |= !rc && missing;
        }
        *filled += gets;
    }
    free(a[0].v);
    free(a[1].v);
    /* What the languages get, against what one change may write. */
    if (!rc && rt_change_budget_add_bytes(&rp->budget, *total - before))
        rp->over = 1;
    return rc;
}

/* Entries English has above Base Index that a language lacks get the
 * English text, as install gives a language the INI lacks. */
int rt_repair_fill_from_english(struct repair *rp)
{
    struct rlang *en = rt_repair_lang_of(rp, "009");
    if (!en)
        return 0;
    for (size_t i = 0; i < rp->n; i++) {
        struct rlang *w = &rp->w[i];
        if (w == en || rt_lang_is_current(w->l->id))
            continue;
        for (int k = 0; k < 2; k++) {
            /* W's indices as they were: English's, deduplicated before,
             * adds each index once. */
            size_t added = 0, n_have;
            size_t n_en = rt_repair_count_of(en, k);
            uint32_t *have = rt_repair_sorted_indices(w, k, &n_have);
            if (!have)
                return -1;
            for (size_t j = 0; j < n_en; j++) {
                uint32_t x = rt_repair_index_at(en, k, j);
                if (x <= rp->db->base_index ||
                    rt_repair_sorted_has(have, n_have, x))
                    continue;
                /* English's texts are decoded once one is needed. */
                int r = rt_repair_decoded(en, k) || rt_repair_writable(w, k);
                if (!r) {
                    const struct rt_pair *p = &en->list[k].v[j];
                    r = rt_pair_list_append(&w->list[k], p->index, p->text);
                }
                if (r) {
                    free(have);
                    return -1;
                }
                added++;
            }
            free(have);
            if (added)
                FIXED(rp, "entries-filled", w->l->id,
                      "Perflib\\%s\\%s: %zu entries English has above Base "
                      "Index added with their English text", w->l->id,
                      rt_repair_kind_name(k), added);
        }
    }
    return 0;
}

/* Whether lists K of A and B are the same pairs: where neither was
 * rt_repair_decoded, their tables' pairs being the same bytes says so; else, or
 * when the bytes differ (an index spelt with leading zeros), the decoded
 * pairs are compared. 1, 0, or -1 when out of memory. */
static int stored_same(struct rlang *a, struct rlang *b, int k)
{
    if (!a->have[k] && !b->have[k]) {
        const struct rt_table *x = &a->l->tab[k], *y = &b->l->tab[k];
        size_t nx = rt_msz_pairs_end(x->v, x->n), ny = rt_msz_pairs_end(y->v, y->n);
        if (nx == ny && (!nx || !memcmp(x->blob, y->blob, nx)))
            return 1;
    }
    if (rt_repair_decoded(a, k) != 0 || rt_repair_decoded(b, k) != 0)
        return -1;
    return rt_pair_list_equal(&a->list[k], &b->list[k]);
}

/* CurrentLanguage becomes a copy of the language it mirrors (the one it
 * agrees with most). */
int rt_repair_mirror_current(struct repair *rp)
{
    for (size_t i = 0; i < rp->n; i++) {
        struct rlang *cur = &rp->w[i];
        if (!rt_lang_is_current(cur->l->id))
            continue;
        struct rlang *best = NULL;
        size_t best_n = 0;
        /* Counter tables, a small part of the database, decoded. */
        struct rt_pair_sorted sorted;
        if (rt_repair_decoded(cur, 0) != 0 ||
            rt_pair_sorted_of(&cur->list[0], &sorted) != 0)
            return -1;
        for (size_t j = 0; j < rp->n; j++) {
            struct rlang *o = &rp->w[j];
            if (o == cur || rt_lang_is_current(o->l->id))
                continue;
            size_t n = rt_repair_decoded(o, 0) != 0
                           ? (size_t)-1
                           : rt_pair_list_agreement(&sorted, &o->list[0]);
            if (n == (size_t)-1) {
                rt_pair_sorted_free(&sorted);
                return -1;
            }
            if (!best || n > best_n) {
                best = o;
                best_n = n;
            }
        }
        rt_pair_sorted_free(&sorted);
        if (!best)
            continue;
        for (int k = 0; k < 2; k++) {
            int same = stored_same(cur, best, k);
            if (same < 0)
                return -1;
            if (same)
                continue;
            struct rt_pair_list copy;
            if (rt_repair_decoded(best, k) != 0 ||
                rt_pair_list_copy(&copy, &best->list[k]) != 0)
                return -1;
            if (cur->have[k])
                rt_pair_list_free(&cur->list[k]);
            cur->list[k] = copy;
            cur->have[k] = cur->changed[k] = 1;
            FIXED(rp, "current-language-mirrored", cur->l->id,
                  "Perflib\\CurrentLanguage\\%s: made a copy of %s's, the "
                  "language it mirrors", rt_repair_kind_name(k), best->l->id);
        }
    }
    return 0;
}
