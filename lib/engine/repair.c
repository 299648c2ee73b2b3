/* Engine layer: repair of the name database (repair.h). */
#include "engine/repair.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/owned_ranges.h"
#include "model/lang_id.h"
#include "model/size_caps.h"
#include "model/utf16.h"

/* One language being repaired: its new lists, and whether each must be
 * written even when its pairs are unchanged (a blob that was damaged or of
 * the wrong type is rewritten well-formed). */
struct rlang {
    const struct rt_db_language *l;
    /* The pairs as the repair makes them, decoded from the table as read
     * (UTF-16, indexed) only where a step needs their texts or changes
     * them (HAVE); until then the table's index stands for them (see
     * count_of, index_at). Most tables of a healthy database are never
     * decoded. CHANGED: a step changed them (writable). */
    struct rt_pair_list list[2];
    int have[2];
    int changed[2];
    int rewrite[2];
    /* Once emit_tables has made list K's change: its position in the
     * change set + 1 (0: none), where report_left finds the new table's
     * bytes, and the list's highest index, for emit_values. The list
     * itself is freed then: with thousands of languages each filled from
     * English, holding every list besides its change doubled the peak. */
    size_t change[2];
    uint32_t highest[2];
};

struct repair {
    const struct rt_database *db;
    const struct rt_repair_options *opt;
    struct rlang *w;
    size_t n;
    struct rt_repair_report *r;
    int failed;
};

#define FIXED(rp, id, lang, ...)                                              \
    do {                                                                      \
        if (rt_findings_add(&(rp)->r->fixed, id, RT_AUDIT_INFO, lang, NULL,   \
                            NULL, __VA_ARGS__) != 0)                          \
            (rp)->failed = 1;                                                 \
    } while (0)

#define LEFT(rp, id, sev, lang, ...)                                          \
    do {                                                                      \
        if (rt_findings_add(&(rp)->r->left, id, sev, lang, NULL, NULL,        \
                            __VA_ARGS__) != 0)                                \
            (rp)->failed = 1;                                                 \
    } while (0)

static const char *kind_name(int k)
{
    return k ? "Help" : "Counter";
}

static struct rlang *lang_of(struct repair *rp, const char *id)
{
    for (size_t i = 0; i < rp->n; i++)
        if (rt_lang_same(rp->w[i].l->id, id))
            return &rp->w[i];
    return NULL;
}

/* W's list K decoded from the table as read, if it is not yet: 0, or -1
 * when out of memory. */
static int decoded(struct rlang *w, int k)
{
    if (w->have[k])
        return 0;
    if (rt_table_pairs(&w->l->tab[k], &w->list[k]) != 0)
        return -1;
    w->have[k] = 1;
    return 0;
}

/* W's list K, decoded, to be changed: 0, or -1 when out of memory. */
static int writable(struct rlang *w, int k)
{
    if (decoded(w, k) != 0)
        return -1;
    w->changed[k] = 1;
    return 0;
}

/* The pairs of W's list K, and the index of the I-th: from the list once
 * decoded, else from the table's index (the same pairs, in order). */
static size_t count_of(const struct rlang *w, int k)
{
    return w->have[k] ? w->list[k].n : w->l->tab[k].n;
}

static uint32_t index_at(const struct rlang *w, int k, size_t i)
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
static uint32_t *sorted_indices(const struct rlang *w, int k, size_t *n)
{
    *n = count_of(w, k);
    uint32_t *ix = malloc((*n ? *n : 1) * sizeof *ix);
    if (!ix)
        return NULL;
    for (size_t i = 0; i < *n; i++)
        ix[i] = index_at(w, k, i);
    qsort(ix, *n, sizeof *ix, cmp_u32);
    return ix;
}

static int sorted_has(const uint32_t *ix, size_t n, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ix[lo] == x;
}

/* Whether English has INDEX in list K: what fill_from_english gives a
 * language that lacks an index above Base Index. */
static int english_has(struct repair *rp, int k, uint32_t index)
{
    const struct rlang *en = lang_of(rp, "009");
    if (!en)
        return 0;
    return en->have[k] ? rt_pair_list_find(&en->list[k], index) != NULL
                       : rt_table_find(&en->l->tab[k], index) != NULL;
}

/* What salvaging W's list K dropped, said: the count, and the index whose
 * text the damage cut (the salvage dropped it: what is left of a cut
 * text is not the text that was stored) with what takes its place. */
static void say_salvaged(struct repair *rp, const struct rlang *w, int k,
                         size_t dropped, uint32_t cut)
{
    const struct rt_db_language *l = w->l;
    char cut_said[160] = "";
    if (cut) {
        int filled = !rt_lang_same(l->id, "009") &&
                     !rt_lang_is_current(l->id) &&
                     cut > rp->db->base_index && english_has(rp, k, cut);
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
          l->id, kind_name(k), w->list[k].n, l->tab[k].n, dropped, cut_said);
}

/* Starts from what is stored: the tables as read, or, for a damaged
 * blob, every valid pair salvaged from its bytes. */
static int start(struct repair *rp)
{
    size_t (*dropped)[2] = calloc(rp->n ? rp->n : 1, sizeof *dropped);
    uint32_t (*cut)[2] = calloc(rp->n ? rp->n : 1, sizeof *cut);
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
                say_salvaged(rp, w, k, dropped[i][k], cut[i][k]);
                continue;
            }
            if (present && l->type[k] != 7) {
                if (decoded(w, k) != 0) {
                    rc = -1;
                    break;
                }
                w->rewrite[k] = 1;
                FIXED(rp, "blob-retyped", l->id,
                      "Perflib\\%s\\%s: rewritten as REG_MULTI_SZ (it was type "
                      "%u)", l->id, kind_name(k), l->type[k]);
            }
        }
    }
    free(dropped);
    free(cut);
    return rc;
}

static void rlang_free(struct rlang *w)
{
    for (int k = 0; k < 2; k++)
        if (w->have[k])
            rt_pair_list_free(&w->list[k]);
}

/* Removes the pairs whose KILL flag is set, keeping the others' order. */
static void compact(struct rt_pair_list *l, const unsigned char *kill)
{
    size_t o = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (kill[i])
            rt_pair_free(&l->v[i]);
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

/* A list's positions in index order (ties in table order). */
struct ipos {
    uint32_t index;
    size_t pos;
};

static int cmp_ipos(const void *x, const void *y)
{
    const struct ipos *a = x, *b = y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

static struct ipos *sorted_positions(const struct rt_pair_list *l)
{
    struct ipos *v = malloc((l->n ? l->n : 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < l->n; i++)
        v[i] = (struct ipos){l->v[i].index, i};
    qsort(v, l->n, sizeof *v, cmp_ipos);
    return v;
}

/* Whether another language has CAND's text at INDEX in table K (its
 * first pair there, as a reader finds it): 1, 0, or -1 when out of
 * memory. A language not decoded is compared as stored, in UTF-16. */
static int confirmed(struct repair *rp, const struct rlang *self, int k,
                     uint32_t index, const struct rt_pair *cand)
{
    uint8_t *u16 = NULL;
    size_t u16_len = 0;
    int found = 0;
    for (size_t i = 0; i < rp->n && !found; i++) {
        const struct rlang *o = &rp->w[i];
        if (o == self)
            continue;
        if (o->have[k]) {
            const struct rt_pair *p = rt_pair_list_find(&o->list[k], index);
            found = p && p->text_len == cand->text_len &&
                    !memcmp(p->text, cand->text, cand->text_len);
            continue;
        }
        const struct rt_table *t = &o->l->tab[k];
        const struct rt_msz_entry *x = rt_table_find(t, index);
        if (!x)
            continue;
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
    if (count_of(w, k) < 2)
        return 0;
    uint32_t *ix = sorted_indices(w, k, &n);
    if (!ix)
        return -1;
    size_t d = 1;
    while (d < n && ix[d] != ix[d - 1])
        d++;
    free(ix);
    if (d == n)
        return 0;
    if (decoded(w, k) != 0)
        return -1;
    struct rt_pair_list *l = &w->list[k];
    struct ipos *pos = sorted_positions(l);
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
                  w->l->id, kind_name(k), l->v[keep].index, j - i,
                  l->v[keep].text,
                  same ? "the same text each time"
                  : confirmed_n == 1 ? "the text another language has there"
                                     : "the first; no other language decides");
            any = 1;
        }
        i = j;
    }
    int rc = any ? writable(w, k) : 0;
    if (any && !rc)
        compact(l, kill);
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
            size_t count = count_of(w, k);
            unsigned char *kill = calloc(count ? count : 1, 1);
            if (!kill) {
                rc = -1;
                break;
            }
            size_t n = 0;
            for (size_t j = 0; j < count; j++) {
                uint32_t x = index_at(w, k, j);
                if (x > rp->db->base_index &&
                    !rt_spans_have(spans[k], n_spans[k], x)) {
                    kill[j] = 1;
                    n++;
                }
            }
            if (n) {
                FIXED(rp, "orphans-pruned", w->l->id,
                      "Perflib\\%s\\%s: %zu strings above Base Index that no "
                      "provider owns removed", w->l->id, kind_name(k), n);
                if (writable(w, k) != 0)
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

/* --- --from-ini ------------------------------------------------------- */

/* The largest provider range restored from an INI: lodctr ranges are a
 * provider's symbols, and a range wider than this is not one to fill. */
#define INI_RANGE_MAX 2000000u

/* Which indices of [LO, HI] (step 2) W's list K has:
 * PRESENT[(x - LO) / 2]. */
static unsigned char *present_in(const struct rlang *w, int k, uint32_t lo,
                                 uint32_t hi)
{
    size_t n = (hi - lo) / 2 + 1, count = count_of(w, k);
    unsigned char *p = calloc(n, 1);
    if (!p)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        uint32_t x = index_at(w, k, i);
        if (x >= lo && x <= hi && (x - lo) % 2 == 0)
            p[(x - lo) / 2] = 1;
    }
    return p;
}

/* Whether some language lacks a name of [FC, LC] or a help text of
 * [FH, LH] (lodctr's ranges are consecutive: every step of 2 is a
 * symbol); WHERE gets those languages, ", "-separated. -1 when out of
 * memory. */
static int strings_missing(struct repair *rp, uint32_t fc, uint32_t lc,
                           uint32_t fh, uint32_t lh, char *where, size_t size)
{
    int any = 0;
    where[0] = '\0';
    for (size_t i = 0; i < rp->n; i++) {
        if (rt_lang_is_current(rp->w[i].l->id))
            continue;
        int lacks = 0;
        for (int k = 0; k < 2 && !lacks; k++) {
            uint32_t lo = k ? fh : fc, hi = k ? lh : lc;
            unsigned char *p = present_in(&rp->w[i], k, lo, hi);
            if (!p)
                return -1;
            size_t n = (hi - lo) / 2 + 1, have = 0;
            for (size_t j = 0; j < n; j++)
                have += p[j];
            free(p);
            lacks = have < n;
        }
        if (lacks) {
            size_t len = strlen(where);
            snprintf(where + len, size - len, "%s%s", any ? ", " : "",
                     rp->w[i].l->id);
            any = 1;
        }
    }
    return any;
}

static const struct rt_provider_symbol *symbol_at(
    const struct rt_provider_spec *sp, long offset)
{
    size_t lo = 0, hi = sp->n_symbols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sp->symbols[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < sp->n_symbols && sp->symbols[lo].offset == offset
               ? &sp->symbols[lo] : NULL;
}

/* The text of the symbol at OFFSET for language LANG among the provider's
 * INIs V: one that has LANG's own text, else English, else any language's
 * (install's order, docs/design.md, "What install writes"). *FROM: the INI
 * it came from. */
static const char *ini_text(const struct rt_provider_spec *const *v,
                            size_t n, long offset, const char *lang, int help,
                            const struct rt_provider_spec **from)
{
    for (int pass = 0; pass < 3; pass++)
        for (size_t j = 0; j < n; j++) {
            const struct rt_provider_symbol *sym = symbol_at(v[j], offset);
            if (!sym)
                continue;
            for (size_t i = 0; i < v[j]->n_languages; i++) {
                const char *id = v[j]->languages[i].id;
                if ((pass == 0 && !rt_lang_same(id, lang)) ||
                    (pass == 1 && !rt_lang_same(id, "009")))
                    continue;
                const char *t = help ? sym->text[i].help : sym->text[i].name;
                if (t) {
                    *from = v[j];
                    return t;
                }
            }
        }
    return NULL;
}

/* Whether the INI SP gives SI's installed ranges: its symbols' offsets
 * from First Counter and First Help end exactly at Last Counter and Last
 * Help, as lodctr installed them. When not, says why, naming the INI and
 * the symbol, and returns 0. */
static int ini_fits(struct repair *rp, const struct rt_service_info *si,
                    const struct rt_provider_spec *sp)
{
    if (!sp->n_symbols)
        return 0;
    const struct rt_provider_symbol *last = &sp->symbols[sp->n_symbols - 1];
    uint64_t end_c = (uint64_t)si->first_counter + (uint64_t)last->offset;
    uint64_t end_h = (uint64_t)si->first_help + (uint64_t)last->offset;
    if (end_c == si->last_counter && end_h == si->last_help)
        return 1;
    const struct rt_provider_symbol *bad = last;
    for (size_t i = 0; i < sp->n_symbols; i++)
        if ((uint64_t)si->first_counter + (uint64_t)sp->symbols[i].offset >
                si->last_counter ||
            (uint64_t)si->first_help + (uint64_t)sp->symbols[i].offset >
                si->last_help) {
            bad = &sp->symbols[i];
            break;
        }
    LEFT(rp, "ini-range-mismatch", RT_AUDIT_ERROR, NULL,
         "%s: not restored from %s: its symbol %s (offset %ld) %s index "
         "%llu/%llu, but the installed range is %u-%u (help %u-%u): the INI "
         "is not the one that was installed",
         si->name, sp->ini_path, bad->symbol, bad->offset,
         bad == last && end_c < si->last_counter ? "is its last, at"
                                                 : "would be at",
         (unsigned long long)((uint64_t)si->first_counter +
                              (uint64_t)bad->offset),
         (unsigned long long)((uint64_t)si->first_help + (uint64_t)bad->offset),
         si->first_counter, si->last_counter, si->first_help, si->last_help);
    return 0;
}

/* One provider's missing strings, from its INIs V (all of which fit its
 * range), in every language but CurrentLanguage (mirror_current copies
 * the language it mirrors afterwards). */
static int restore_provider(struct repair *rp, const struct rt_service_info *si,
                            const struct rt_provider_spec *const *v, size_t n)
{
    const struct rt_provider_spec *sp = v[0];
    for (size_t i = 0; i < rp->n; i++) {
        struct rlang *w = &rp->w[i];
        if (rt_lang_is_current(w->l->id))
            continue;
        size_t added[2] = {0, 0}, lacking[2] = {0, 0};
        const struct rt_provider_spec *src = NULL;
        int mixed = 0;
        for (int k = 0; k < 2; k++) {
            uint32_t lo = k ? si->first_help : si->first_counter;
            uint32_t hi = k ? si->last_help : si->last_counter;
            unsigned char *p = present_in(w, k, lo, hi);
            if (!p)
                return -1;
            for (size_t j = 0; j < sp->n_symbols; j++) {
                long off = sp->symbols[j].offset;
                if (p[off / 2])
                    continue;
                const struct rt_provider_spec *from = NULL;
                const char *t = ini_text(v, n, off, w->l->id, k, &from);
                if (!t) {
                    lacking[k]++;
                    continue;
                }
                if (writable(w, k) ||
                    rt_pair_list_append(&w->list[k], lo + (uint32_t)off, t)) {
                    free(p);
                    return -1;
                }
                if (src && src != from)
                    mixed = 1;
                src = from;
                added[k]++;
            }
            free(p);
        }
        if (added[0] || added[1])
            FIXED(rp, "strings-restored", w->l->id,
                  "%s: Perflib\\%s: %zu names and %zu help texts restored "
                  "from %s%s", si->name, w->l->id, added[0], added[1],
                  src->ini_path, mixed ? " and its other INIs" : "");
        if (lacking[0] || lacking[1])
            LEFT(rp, "strings-not-in-ini", RT_AUDIT_INFO, w->l->id,
                 "%s: Perflib\\%s: %zu names and %zu help texts missing that "
                 "no INI of it has text for", si->name, w->l->id, lacking[0],
                 lacking[1]);
    }
    return 0;
}

/* Every provider whose strings are missing somewhere gets them back from
 * its INIs, at its installed indices; one without an INI, or whose INI
 * does not give its installed range, is reported and left as it is. */
static int restore_from_inis(struct repair *rp)
{
    const struct rt_repair_options *o = rp->opt;
    const struct rt_database *db = rp->db;
    for (size_t s = 0; s < db->n_services; s++) {
        const struct rt_service_info *si = &db->services[s];
        if (!si->has_range || !si->has_last_counter || !si->has_first_help ||
            !si->has_last_help || si->first_counter > si->last_counter ||
            si->first_help > si->last_help ||
            si->last_counter - si->first_counter > INI_RANGE_MAX ||
            si->last_help - si->first_help > INI_RANGE_MAX)
            continue;   /* audit reports the range; nothing to fill */
        char where[256];
        int missing = strings_missing(rp, si->first_counter, si->last_counter,
                                      si->first_help, si->last_help, where,
                                      sizeof where);
        if (missing < 0)
            return -1;
        if (!missing)
            continue;
        const struct rt_provider_spec **v =
            malloc((o->n_inis ? o->n_inis : 1) * sizeof *v);
        if (!v)
            return -1;
        size_t n = 0, fit = 1;
        for (size_t i = 0; i < o->n_inis; i++)
            if (!rt_name_casecmp(o->inis[i]->drivername, si->name)) {
                v[n++] = o->inis[i];
                if (!ini_fits(rp, si, o->inis[i]))
                    fit = 0;
            }
        int rc = 0;
        if (!n)
            LEFT(rp, "ini-not-found", RT_AUDIT_INFO, NULL,
                 "%s: strings missing (in %s), and no INI of it was found "
                 "(none whose drivername is %s, nor an INF copy): not "
                 "restored", si->name, where, si->name);
        else if (fit)
            rc = restore_provider(rp, si, v, n);
        free(v);
        if (rc)
            return -1;
    }
    return 0;
}

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
static int filled_size(struct repair *rp, uint64_t *total, size_t *filled)
{
    struct rlang *en = lang_of(rp, "009");
    *total = 0;
    *filled = 0;
    for (size_t i = 0; i < rp->n; i++)
        for (int k = 0; k < 2; k++)
            *total += rp->w[i].l->tab[k].len;
    if (!en)
        return 0;
    /* English's entries above Base Index, with their sizes. */
    uint64_t *size[2] = {NULL, NULL};
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        size_t n_en = count_of(en, k);
        if (!(size[k] = malloc((n_en ? n_en : 1) * sizeof *size[k]))) {
            rc = -1;
            break;
        }
        for (size_t j = 0; j < n_en; j++) {
            if (en->have[k]) {
                const struct rt_pair *p = &en->list[k].v[j];
                size[k][j] = pair_bytes16(p->index, p->text, p->text_len);
            } else {
                const struct rt_msz_entry *x = &en->l->tab[k].v[j];
                size[k][j] = (uint64_t)(x->text - x->at) + x->text_bytes + 2;
            }
        }
    }
    for (size_t i = 0; i < rp->n && !rc; i++) {
        struct rlang *w = &rp->w[i];
        if (w == en || rt_lang_is_current(w->l->id))
            continue;
        int gets = 0;
        for (int k = 0; k < 2 && !rc; k++) {
            size_t n_have, n_en = count_of(en, k);
            uint32_t *have = sorted_indices(w, k, &n_have);
            if (!have) {
                rc = -1;
                break;
            }
            for (size_t j = 0; j < n_en; j++) {
                uint32_t x = index_at(en, k, j);
                if (x <= rp->db->base_index || sorted_has(have, n_have, x))
                    continue;
                *total += size[k][j];
                gets = 1;
            }
            free(have);
        }
        *filled += gets;
    }
    free(size[0]);
    free(size[1]);
    return rc;
}

/* Entries English has above Base Index that a language lacks get the
 * English text, as install gives a language the INI lacks. */
static int fill_from_english(struct repair *rp)
{
    struct rlang *en = lang_of(rp, "009");
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
            size_t n_en = count_of(en, k);
            uint32_t *have = sorted_indices(w, k, &n_have);
            if (!have)
                return -1;
            for (size_t j = 0; j < n_en; j++) {
                uint32_t x = index_at(en, k, j);
                if (x <= rp->db->base_index || sorted_has(have, n_have, x))
                    continue;
                /* English's texts are decoded once one is needed. */
                int r = decoded(en, k) || writable(w, k);
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
                      kind_name(k), added);
        }
    }
    return 0;
}

/* Whether lists K of A and B are the same pairs: where neither was
 * decoded, their tables' pairs being the same bytes says so; else, or
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
    if (decoded(a, k) != 0 || decoded(b, k) != 0)
        return -1;
    return rt_pair_list_equal(&a->list[k], &b->list[k]);
}

/* CurrentLanguage becomes a copy of the language it mirrors (the one it
 * agrees with most). */
static int mirror_current(struct repair *rp)
{
    for (size_t i = 0; i < rp->n; i++) {
        struct rlang *cur = &rp->w[i];
        if (!rt_lang_is_current(cur->l->id))
            continue;
        struct rlang *best = NULL;
        size_t best_n = 0;
        /* Counter tables, a small part of the database, decoded. */
        if (decoded(cur, 0) != 0)
            return -1;
        for (size_t j = 0; j < rp->n; j++) {
            struct rlang *o = &rp->w[j];
            if (o == cur || rt_lang_is_current(o->l->id))
                continue;
            if (decoded(o, 0) != 0)
                return -1;
            size_t n = rt_pair_list_agreement(&cur->list[0], &o->list[0]);
            if (n == (size_t)-1)
                return -1;
            if (!best || n > best_n) {
                best = o;
                best_n = n;
            }
        }
        if (!best)
            continue;
        for (int k = 0; k < 2; k++) {
            int same = stored_same(cur, best, k);
            if (same < 0)
                return -1;
            if (same)
                continue;
            struct rt_pair_list copy;
            if (decoded(best, k) != 0 ||
                rt_pair_list_copy(&copy, &best->list[k]) != 0)
                return -1;
            if (cur->have[k])
                rt_pair_list_free(&cur->list[k]);
            cur->list[k] = copy;
            cur->have[k] = cur->changed[k] = 1;
            FIXED(rp, "current-language-mirrored", cur->l->id,
                  "Perflib\\CurrentLanguage\\%s: made a copy of %s's, the "
                  "language it mirrors", kind_name(k), best->l->id);
        }
    }
    return 0;
}

/* Moves pair P to the end of L (P's strings are L's then): no copy of
 * a text that is about to be freed. 0, or -1 when out of memory. */
static int move_pair(struct rt_pair_list *l, struct rt_pair *p)
{
    if (l->n == l->cap) {
        size_t c = l->cap < 64 ? 64 : l->cap + l->cap / 2;
        struct rt_pair *v = realloc(l->v, c * sizeof *v);
        if (!v)
            return -1;
        l->v = v;
        l->cap = c;
    }
    /* As rt_pair_list_append makes it: the index in canonical form. */
    free(p->index_raw);
    l->v[l->n++] = (struct rt_pair){p->index, p->text, p->text_len, NULL};
    p->text = p->index_raw = NULL;
    p->text_len = 0;
    return 0;
}

/* The multiset difference A - B of (index, text) pairs, appended to OUT:
 * copies, or with TAKE, A's own pairs moved out of A (a list about to be
 * freed: the pairs a repair removes are a whole table's when it prunes
 * every string, and are not held twice). */
static int difference(struct rt_pair_list *a, const struct rt_pair_list *b,
                      struct rt_pair_list *out, int take)
{
    struct ipos *pa = sorted_positions(a), *pb = sorted_positions(b);
    if (!pa || !pb) {
        free(pa);
        free(pb);
        return -1;
    }
    unsigned char *used = calloc(b->n ? b->n : 1, 1);
    int rc = used ? 0 : -1;
    size_t j = 0;
    for (size_t i = 0; i < a->n && !rc; i++) {
        struct rt_pair *x = &a->v[pa[i].pos];
        while (j < b->n && pb[j].index < x->index)
            j++;
        int found = 0;
        for (size_t m = j; m < b->n && pb[m].index == x->index; m++) {
            const struct rt_pair *y = &b->v[pb[m].pos];
            if (!used[m] && y->text_len == x->text_len &&
                !memcmp(y->text, x->text, x->text_len)) {
                used[m] = 1;
                found = 1;
                break;
            }
        }
        if (!found && (take ? move_pair(out, x)
                            : rt_pair_list_append(out, x->index, x->text)) != 0)
            rc = -1;
    }
    free(used);
    free(pa);
    free(pb);
    return rc;
}

/* A table whose store keeps other copies of it that differ (SysWOW64's
 * .dat file, a stale hive value: rt_database_load_copies) is written
 * again as it is: the store writes every copy a table change's bytes, in
 * the same commit. A table that changes anyway needs nothing more. */
static int resync_copies(struct repair *rp, struct rlang *w, int k,
                         struct rt_change_set *cs)
{
    const struct rt_db_language *l = w->l;
    int wow = 0, hive = 0;
    for (size_t i = 0; i < rp->db->n_copy_diffs; i++) {
        const struct rt_db_copy_diff *d = &rp->db->copy_diffs[i];
        if ((int)d->kind != k || !rt_lang_same(d->lang, l->id))
            continue;
        wow |= d->which == RT_COPY_WOW64;
        hive |= d->which == RT_COPY_HIVE;
    }
    if (!wow && !hive)
        return 0;
    /* A table the store lacks has nothing to copy from (the hive store
     * refuses such a tree before this is read). */
    if (!(k ? l->has_help : l->has_counter))
        return 0;
    struct rt_pair_list none = {0};
    if (rt_change_set_table_replace(cs, l->id, (enum rt_table_kind)k,
                                    l->tab[k].blob, l->tab[k].len,
                                    k ? l->has_help : l->has_counter,
                                    l->bytes[k], rt_db_table_hash(l, k), &none,
                                    &none))
        return -1;
    if (wow)
        FIXED(rp, "table-copy-wow64-rewritten", l->id,
              "Perflib\\%s\\%s: SysWOW64\\perf%s%s.dat rewritten from "
              "System32's", l->id, kind_name(k), k ? "h" : "c", l->id);
    if (hive)
        FIXED(rp, "table-copy-hive-rewritten", l->id,
              "Perflib\\%s\\%s: the SOFTWARE hive's value rewritten from "
              "System32\\perf%s%s.dat, the table Windows serves", l->id,
              kind_name(k), k ? "h" : "c", l->id);
    return 0;
}

/* A table change for each list that differs from what is stored. */
static int emit_tables(struct repair *rp, struct rt_change_set *cs)
{
    for (size_t i = 0; i < rp->n; i++) {
        struct rlang *w = &rp->w[i];
        for (int k = 0; k < 2; k++) {
            /* The pairs as read, to compare and tell what changed: only
             * for a list a step changed or a table rewritten. */
            struct rt_pair_list orig = {0};
            int same = !w->rewrite[k] && !w->changed[k];
            if (!same && rt_table_pairs(&w->l->tab[k], &orig) != 0)
                return -1;
            if (!same && !w->rewrite[k])
                same = rt_pair_list_equal(&w->list[k], &orig);
            if (same) {
                rt_pair_list_free(&orig);
                w->changed[k] = 0;      /* the table as read stands */
                if (resync_copies(rp, w, k, cs) != 0)
                    return -1;
                continue;
            }
            struct rt_pair_list added = {0}, removed = {0};
            uint8_t *blob = NULL;
            size_t len;
            /* ORIG gives its pairs to REMOVED, and goes before the new
             * table is encoded. */
            int rc = difference(&w->list[k], &orig, &added, 0) ||
                     difference(&orig, &w->list[k], &removed, 1);
            rt_pair_list_free(&orig);
            if (!rc)
                rc = rt_pair_list_encode(&w->list[k], &blob, &len) != 0;
            if (!rc && w->rewrite[k])
                rc = rt_change_set_table_replace(
                    cs, w->l->id, (enum rt_table_kind)k, blob, len,
                    k ? w->l->has_help : w->l->has_counter, w->l->bytes[k],
                    rt_db_table_hash(w->l, k), &added, &removed);
            else if (!rc) {
                /* The blob and the lists are the change set's now. */
                rc = rt_change_set_table_take(cs, w->l->id,
                                              (enum rt_table_kind)k, blob,
                                              len, &added, &removed);
                blob = NULL;
            }
            free(blob);
            rt_pair_list_free(&added);
            rt_pair_list_free(&removed);
            if (rc)
                return -1;
            w->change[k] = cs->n;
            w->highest[k] = rt_pair_list_highest(&w->list[k]);
            /* English's stays: emit_values reads its "1" for Base Index. */
            if (w->have[k] && !rt_lang_same(w->l->id, "009")) {
                rt_pair_list_free(&w->list[k]);
                w->have[k] = 0;
            }
        }
    }
    return 0;
}

static int emit_values(struct repair *rp, struct rt_change_set *cs)
{
    const struct rt_database *db = rp->db;
    uint32_t high[2] = {0, 0};
    for (size_t i = 0; i < rp->n; i++)
        for (int k = 0; k < 2; k++) {
            const struct rlang *w = &rp->w[i];
            uint32_t h = w->change[k] ? w->highest[k]
                         : w->have[k] ? rt_pair_list_highest(&w->list[k])
                                      : w->l->tab[k].highest;
            if (h > high[k])
                high[k] = h;
        }
    const char *name[2] = {"Last Counter", "Last Help"};
    uint32_t value[2] = {db->last_counter, db->last_help};
    int present[2] = {db->has_last_counter, db->has_last_help};
    for (int k = 0; k < 2; k++) {
        if (value[k] >= high[k] && present[k])
            continue;
        uint32_t v = value[k] > high[k] ? value[k] : high[k];
        if (rt_change_set_dword(cs, NULL, name[k], v) != 0)
            return -1;
        FIXED(rp, "last-index-raised", NULL, "%s: %u%s -> %u, the highest "
              "index in use", name[k], value[k], present[k] ? "" : " (absent)",
              v);
    }
    if (!db->has_base_index) {
        uint32_t base = RT_BASE_INDEX;
        struct rlang *en = lang_of(rp, "009");
        if (en && decoded(en, 0) != 0)
            return -1;
        const struct rt_pair *one = en ? rt_pair_list_find(&en->list[0], 1) : NULL;
        if (one) {
            char *end;
            unsigned long x = strtoul(one->text, &end, 10);
            if (!*end && x > 0 && x < RT_INDEX_MAX)
                base = (uint32_t)x;
        }
        if (rt_change_set_dword(cs, NULL, "Base Index", base) != 0)
            return -1;
        FIXED(rp, "base-index-restored", NULL, "Base Index: set to %u", base);
    }
    if (rp->opt && rp->opt->enable_disabled) {
        for (size_t i = 0; i < db->n_services; i++) {
            const struct rt_service_info *s = &db->services[i];
            if (!s->has_disable || !s->disable)
                continue;
            if (rt_change_set_delete_service(cs, s->name,
                                             "Disable Performance Counters"))
                return -1;
            FIXED(rp, "provider-enabled", NULL, "%s: enabled again", s->name);
        }
        if (db->has_perflib_disable && db->perflib_disable) {
            if (rt_change_set_dword(cs, NULL, "Disable Performance Counters",
                                    0) != 0)
                return -1;
            FIXED(rp, "perflib-enabled", NULL,
                  "Perflib's Disable Performance Counters set to 0");
        }
    }
    return 0;
}

/* What audit finds that repair does not fix, with the reason. */
static const char *left_reason(const struct rt_finding *x,
                               const struct rt_repair_options *opt)
{
    static const char *const fixed_ids[] = {
        "blob-odd-length", "blob-no-terminator", "blob-empty-index",
        "blob-bad-index", "blob-index-zero", "blob-index-range",
        "blob-odd-count", "blob-bad-surrogate", "blob-damaged",
        "blob-not-multi-sz", "duplicate-index", "last-counter-below-highest",
        "last-help-below-highest", "provider-above-last-counter",
        "base-index-missing",
        "current-language-differs", "language-missing-entries",
        "table-copy-wow64-differs", "table-copy-hive-differs"};
    for (size_t i = 0; i < sizeof fixed_ids / sizeof *fixed_ids; i++)
        if (!strcmp(x->id, fixed_ids[i]))
            return NULL;
    if (!strcmp(x->id, "orphan-strings"))
        return opt && opt->prune_orphans ? NULL
               : "kept: --prune-orphans removes them";
    if (!strcmp(x->id, "counters-disabled") || !strcmp(x->id, "perflib-disabled"))
        return opt && opt->enable_disabled ? NULL
               : "kept: --enable-disabled re-enables them";
    if (!strcmp(x->id, "provider-strings-missing"))
        return opt && opt->from_ini
                   ? "its INI did not give them back (above, why)"
                   : "--from-ini DIR restores them from the provider's INI";
    if (!strncmp(x->id, "provider-", 9) || !strcmp(x->id, "object-list-outside-range"))
        return "a provider's registration is wrong: its INI says what it "
               "should be (reinstall it)";
    if (!strcmp(x->id, "english-overwritten") || !strcmp(x->id, "english-missing") ||
        !strcmp(x->id, "blob-empty") || !strcmp(x->id, "help-missing-base") ||
        !strcmp(x->id, "table-missing") || !strcmp(x->id, "table-empty"))
        return "the text itself is gone: restore a backup or rebuild";
    return "needs a person's decision";
}

/* Whether W's list K is the language's own, as read: then the table as
 * read stands for it (nothing to encode; lent, not freed). */
static int as_read(const struct rlang *w, int k)
{
    return !w->changed[k] && !w->rewrite[k];
}

/* Frees the indexes report_left made of the new tables; their bytes are
 * the change set's. */
static void tabs_free(const struct repair *rp, struct rt_db_language *langs,
                      size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++)
            if (!as_read(&rp->w[i], k)) {
                langs[i].tab[k].blob = NULL;
                rt_table_free(&langs[i].tab[k]);
            }
}

/* What audit still finds once the repair is made: the database as it
 * will be, a view that borrows the repaired lists. */
static int report_left(struct repair *rp, const struct rt_change_set *cs)
{
    const struct rt_database *db = rp->db;
    struct rt_database after = *db;
    struct rt_db_language *langs = calloc(db->n_langs ? db->n_langs : 1,
                                          sizeof *langs);
    struct rt_service_info *svcs = calloc(db->n_services ? db->n_services : 1,
                                          sizeof *svcs);
    if (!langs || !svcs) {
        free(langs);
        free(svcs);
        return -1;
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        struct rt_db_language *l = &langs[i];
        *l = db->langs[i];
        l->table.counter = rp->w[i].list[0];
        l->table.help = rp->w[i].list[1];
        l->damaged = l->help_damaged = 0;
        /* Audit reads the tables as blobs: the new tables of the change
         * set, borrowed (those the repair left as read: the tables as
         * read). Every list not as read has its change (emit_tables). */
        for (int k = 0; k < 2; k++)
            if (!as_read(&rp->w[i], k))
                memset(&l->tab[k], 0, sizeof l->tab[k]);
        for (int k = 0; k < 2; k++) {
            struct rt_msz_error me;
            if (as_read(&rp->w[i], k))
                continue;
            const struct rt_value *v = &cs->v[rp->w[i].change[k] - 1].value;
            /* A table the repair makes (a language that had none gets
             * English's entries) is there, well-formed, once written. */
            int *present = k ? &l->has_help : &l->has_counter;
            if (!*present) {
                *present = 1;
                l->type[k] = 7;
                l->blob_damage[k] = (struct rt_msz_error){RT_MSZ_OK, 0};
                l->bytes[k] = v->len;
            }
            if (rt_table_load(&l->tab[k], v->data, v->len, &me) != 0 &&
                me.status == RT_MSZ_NOMEM) {
                tabs_free(rp, langs, i + 1);
                free(langs);
                free(svcs);
                return -1;
            }
        }
        for (int k = 0; k < 2; k++) {
            if (rp->w[i].rewrite[k]) {
                l->type[k] = 7;
                l->blob_damage[k] = (struct rt_msz_error){RT_MSZ_OK, 0};
                l->bytes[k] = 2;
            }
        }
    }
    for (size_t i = 0; i < db->n_services; i++)
        svcs[i] = db->services[i];
    after.langs = langs;
    after.services = svcs;
    /* Every copy that differs is written with its table. */
    after.copy_diffs = NULL;
    after.n_copy_diffs = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        uint32_t x;
        if (c->op == RT_CHANGE_SET_PERFLIB && rt_value_dword(&c->value, &x) == 0) {
            if (!strcmp(c->name, "Last Counter"))
                after.last_counter = x, after.has_last_counter = 1;
            else if (!strcmp(c->name, "Last Help"))
                after.last_help = x, after.has_last_help = 1;
            else if (!strcmp(c->name, "Base Index"))
                after.base_index = x, after.has_base_index = 1;
            else if (!strcmp(c->name, "Disable Performance Counters"))
                after.perflib_disable = x;
        } else if (c->op == RT_CHANGE_DELETE_SERVICE &&
                   !strcmp(c->name, "Disable Performance Counters")) {
            for (size_t k = 0; k < db->n_services; k++)
                if (!strcmp(svcs[k].name, c->service))
                    svcs[k].has_disable = 0;
        }
    }
    struct rt_findings f = {0};
    int rc = rt_audit(&after, NULL, &f);
    for (size_t i = 0; i < f.n && rc == 0; i++) {
        const struct rt_finding *x = &f.v[i];
        if (x->severity == RT_AUDIT_INFO)
            continue;
        const char *why = left_reason(x, rp->opt);
        if (rt_findings_add(&rp->r->left, x->id, x->severity, x->language,
                            x->symptom, x->fix, "%s: %s", x->message,
                            why ? why : "needs a person's decision") != 0)
            rc = -1;
    }
    rt_findings_free(&f);
    tabs_free(rp, langs, db->n_langs);
    free(langs);
    free(svcs);
    return rc;
}

int rt_engine_repair(const struct rt_database *db,
                     const struct rt_repair_options *opt,
                     struct rt_change_set *cs, struct rt_repair_report *r,
                     struct rt_error *e)
{
    memset(cs, 0, sizeof *cs);
    memset(r, 0, sizeof *r);
    struct repair rp = {db, opt, NULL, 0, r, 0};
    rp.w = calloc(db->n_langs ? db->n_langs : 1, sizeof *rp.w);
    if (!rp.w)
        goto nomem;
    for (size_t i = 0; i < db->n_langs; i++) {
        rp.w[i].l = &db->langs[i];
        rp.n++;
    }
    if (start(&rp) != 0)
        goto nomem;
    for (size_t i = 0; i < rp.n; i++)
        for (int k = 0; k < 2; k++)
            if (dedupe(&rp, &rp.w[i], k) != 0)
                goto nomem;
    if ((opt && opt->prune_orphans && prune_orphans(&rp) != 0) ||
        (opt && opt->from_ini && restore_from_inis(&rp) != 0))
        goto nomem;
    /* Each language's change holds its own copy of what it gets from
     * English (its new tables, the pairs shown), and PerfStringBackup.INI
     * all of them again: thousands of languages would make gigabytes of
     * tables, more than a store reads of a tree's tables (size_caps.h).
     * Such a repair is refused before a text is copied. */
    uint64_t total;
    size_t filled;
    if (filled_size(&rp, &total, &filled) != 0)
        goto nomem;
    if (total > RT_DAT_TOTAL_MAX) {
        for (size_t i = 0; i < rp.n; i++)
            rlang_free(&rp.w[i]);
        free(rp.w);
        rt_repair_report_free(r);
        return rt_error_set(
            e, RT_ERR_INVALID_DATA,
            "Perflib\\009's entries above Base Index given to the %zu "
            "languages that lack them would make the name tables %llu MiB "
            "together, more than the %llu MiB a tree's tables may be; "
            "nothing was written", filled,
            (unsigned long long)(total >> 20),
            (unsigned long long)(RT_DAT_TOTAL_MAX >> 20));
    }
    if (fill_from_english(&rp) != 0 || mirror_current(&rp) != 0 ||
        emit_tables(&rp, cs) != 0 || emit_values(&rp, cs) != 0 ||
        report_left(&rp, cs) != 0 || rp.failed)
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
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

void rt_repair_report_free(struct rt_repair_report *r)
{
    rt_findings_free(&r->fixed);
    rt_findings_free(&r->left);
}
