/* Engine layer: repair --from-ini: a provider's missing strings restored
 * from its INI file. */
#include "engine/repair_internal.h"
#include "platform/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest provider range restored from an INI: lodctr ranges are a
 * provider's symbols, and a range wider than this is not one to fill. */
#define INI_RANGE_MAX 2000000u

/* What one language's list of one kind has, for the INIs' pass: IX (N)
 * the indices it had when the pass began, sorted, each once, and ODD[i]
 * how many of IX[0..i) are odd, so that how many steps of a range it has
 * takes two binary searches whatever the range's width (a hostile tree's
 * ranges may each span millions); ADDED the indices the pass gave it
 * since, a hash set of index + 1 (0: a free slot), so that two providers
 * whose ranges overlap never give one index twice. */
struct have {
    uint32_t *ix, *odd;
    size_t n;
    uint64_t *added;
    size_t n_added, cap;
};

/* H for W's list K, made the first time it is asked for; -1 when out of
 * memory. */
static int have_made(struct have *h, const struct rlang *w, int k)
{
    if (h->ix)
        return 0;
    size_t n;
    uint32_t *ix = rt_repair_sorted_indices(w, k, &n);
    uint32_t *odd = ix ? malloc((n + 1) * sizeof *odd) : NULL;
    if (!odd) {
        free(ix);
        return -1;
    }
    size_t m = 0;
    odd[0] = 0;
    for (size_t i = 0; i < n; i++)
        if (!m || ix[i] != ix[m - 1]) {
            ix[m] = ix[i];
            odd[m + 1] = odd[m] + (ix[m] & 1);
            m++;
        }
    h->ix = ix;
    h->odd = odd;
    h->n = m;
    return 0;
}

/* Keyed by this process's hash basis: the indices are a provider's
 * range plus its INF copy's offsets, which the tree's author picks, and
 * offsets chosen against a fixed multiplier made every lookup walk one
 * cluster (100,000 symbols: 10.4 s for 0.37, review 35 F2). */
static size_t slot_of(const struct have *h, uint32_t x)
{
    size_t i = (size_t)rt_os_hash_mix((uint64_t)x ^ rt_os_hash_basis());
    for (i &= h->cap - 1; h->added[i] && h->added[i] != (uint64_t)x + 1;
         i = (i + 1) & (h->cap - 1))
        ;
    return i;
}

static int have_has(const struct have *h, uint32_t x)
{
    size_t i = rt_repair_lower_bound(h->ix, h->n, x);
    return (i < h->n && h->ix[i] == x) ||
           (h->cap && h->added[slot_of(h, x)]);
}

static int have_add(struct have *h, uint32_t x)
{
    if (2 * (h->n_added + 1) > h->cap) {
        struct have g = *h;
        g.cap = h->cap ? 2 * h->cap : 64;
        if (!(g.added = calloc(g.cap, sizeof *g.added)))
            return -1;
        for (size_t i = 0; i < h->cap; i++)
            if (h->added[i])
                g.added[slot_of(&g, (uint32_t)(h->added[i] - 1))] =
                    h->added[i];
        free(h->added);
        *h = g;
    }
    size_t i = slot_of(h, x);
    h->n_added += !h->added[i];
    h->added[i] = (uint64_t)x + 1;
    return 0;
}

static void haves_free(struct have *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].ix);
        free(v[i].odd);
        free(v[i].added);
    }
    free(v);
}

/* Whether the list H stands for had every step of 2 of [LO, HI] when the
 * pass began. */
static int has_every_step(const struct have *h, uint32_t lo, uint32_t hi)
{
    size_t a = rt_repair_lower_bound(h->ix, h->n, lo);
    size_t b = rt_repair_lower_bound(h->ix, h->n, (uint64_t)hi + 1);
    size_t odd = h->odd[b] - h->odd[a];
    size_t steps = (lo & 1) ? odd : (b - a) - odd;
    return steps == (size_t)(hi - lo) / 2 + 1;
}

/* Whether some language lacks a name of [FC, LC] or a help text of
 * [FH, LH] (lodctr's ranges are consecutive: every step of 2 is a
 * symbol) in its tables as the repair found them; WHERE gets those
 * languages, ", "-separated. -1 when out of memory. */
static int strings_missing(struct repair *rp, struct have *haves,
                           uint32_t fc, uint32_t lc, uint32_t fh,
                           uint32_t lh, char *where, size_t size)
{
    int any = 0;
    where[0] = '\0';
    for (size_t i = 0; i < rp->n; i++) {
        if (rt_lang_is_current(rp->w[i].l->id))
            continue;
        int lacks = 0;
        for (int k = 0; k < 2 && !lacks; k++) {
            struct have *h = &haves[2 * i + (size_t)k];
            if (have_made(h, &rp->w[i], k) != 0)
                return -1;
            lacks = !has_every_step(h, k ? fh : fc, k ? lh : lc);
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
 * (install's order, docs/design.md, "What install writes"). *FROM: the
 * INI it came from. */
static const char *ini_text(const struct rt_provider_spec *const *v,
                            size_t n, long offset, const char *lang, int help,
                            const struct rt_provider_spec **from)
{
    for (int pass = 0; pass < 3; pass++)
        for (size_t j = 0; j < n; j++) {
            const struct rt_provider_symbol *sym = symbol_at(v[j], offset);
            if (!sym)
                continue;
            /* Its texts, in the INI's language order (those it has). */
            for (size_t k = 0; k < sym->n_text; k++) {
                const char *id = v[j]->languages[sym->text[k].lang].id;
                if ((pass == 0 && !rt_lang_same(id, lang)) ||
                    (pass == 1 && !rt_lang_same(id, "009")))
                    continue;
                const char *t = help ? sym->text[k].help : sym->text[k].name;
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
    struct rt_spec_fit f;
    rt_spec_fit(sp, si, &f);
    if (f.fit == RT_FIT_EXACT)
        return 1;
    LEFT(rp, "ini-range-mismatch", RT_AUDIT_ERROR, NULL,
         "%s: not restored from %s: its symbol %s (offset %ld) %s index "
         "%llu/%llu, but the installed range is %u-%u (help %u-%u): the INI "
         "is not the one that was installed",
         si->name, sp->ini_path, f.symbol->symbol, f.symbol->offset,
         f.fit == RT_FIT_SHORT ? "is its last, at" : "would be at",
         (unsigned long long)f.counter, (unsigned long long)f.help,
         si->first_counter, si->last_counter, si->first_help, si->last_help);
    return 0;
}

/* One provider's missing strings, from its INIs V (all of which fit its
 * range), in every language but CurrentLanguage (mirror_current copies
 * the language it mirrors afterwards). */
static int restore_provider(struct repair *rp, struct have *haves,
                            const struct rt_service_info *si,
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
            struct have *h = &haves[2 * i + (size_t)k];
            if (have_made(h, w, k) != 0)
                return -1;
            for (size_t j = 0; j < sp->n_symbols; j++) {
                long off = sp->symbols[j].offset;
                uint32_t x = lo + (uint32_t)off;
                if (have_has(h, x))
                    continue;
                const struct rt_provider_spec *from = NULL;
                const char *t = ini_text(v, n, off, w->l->id, k, &from);
                if (!t) {
                    lacking[k]++;
                    continue;
                }
                /* Counted as it is copied: its bytes in the table, and
                 * what holding it costs until the table is made (the
                 * pair, its text's copy, its slot among the indices
                 * added), so that a refusal comes within a few times
                 * the count (a count of the table bytes alone let tiny
                 * texts take five times it, review 36 F6). */
                if (rt_change_budget_add(&rp->budget, x, t) ||
                    rt_change_budget_add_bytes(&rp->budget,
                                               sizeof(struct rt_pair) +
                                                   strlen(t) + 1 +
                                                   2 * sizeof(uint64_t))) {
                    rp->over = 1;
                    return -1;
                }
                if (rt_repair_writable(w, k) ||
                    rt_pair_list_append(&w->list[k], x, t) ||
                    have_add(h, x))
                    return -1;
                if (src && src != from)
                    mixed = 1;
                src = from;
                added[k]++;
            }
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

/* An INI's drivername and its position in OPT->inis: sorted by name
 * (names ignore case), then position, a service finds its INIs by binary
 * search, however many services and INF copies a tree has. */
struct ini_at {
    const char *name;
    size_t pos;
};

static int by_drivername(const void *x, const void *y)
{
    const struct ini_at *a = x, *b = y;
    int c = rt_name_casecmp(a->name, b->name);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* SI's INIs, in OPT->inis' order, into V (*N); *FIT 0 when one of them
 * does not give its installed range. */
static void inis_of(struct repair *rp, const struct ini_at *order,
                    const struct rt_service_info *si,
                    const struct rt_provider_spec **v, size_t *n, int *fit)
{
    const struct rt_repair_options *o = rp->opt;
    size_t lo = 0, hi = o->n_inis;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt_name_casecmp(order[mid].name, si->name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *n = 0;
    *fit = 1;
    for (; lo < o->n_inis && !rt_name_casecmp(order[lo].name, si->name);
         lo++) {
        v[(*n)++] = o->inis[order[lo].pos];
        if (!ini_fits(rp, si, o->inis[order[lo].pos]))
            *fit = 0;
    }
}

/* Every provider whose strings are missing somewhere gets them back from
 * its INIs, at its installed indices; one without an INI, or whose INI
 * does not give its installed range, is reported and left as it is. */
int rt_repair_restore_from_inis(struct repair *rp)
{
    const struct rt_repair_options *o = rp->opt;
    const struct rt_database *db = rp->db;
    size_t m = o->n_inis ? o->n_inis : 1;
    struct ini_at *order = malloc(m * sizeof *order);
    const struct rt_provider_spec **v = malloc(m * sizeof *v);
    struct have *haves = calloc(2 * (rp->n ? rp->n : 1), sizeof *haves);
    int rc = order && v && haves ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < o->n_inis; i++)
        order[i] = (struct ini_at){o->inis[i]->drivername, i};
    if (rc == 0)
        qsort(order, o->n_inis, sizeof *order, by_drivername);
    for (size_t s = 0; rc == 0 && s < db->n_services; s++) {
        const struct rt_service_info *si = &db->services[s];
        /* A caller that catches SIGINT and SIGTERM (the CLI's writers)
         * is heard between providers: nothing is written yet. */
        if (rt_os_interrupted()) {
            rp->interrupted = 1;
            rc = -1;
            break;
        }
        if (!si->has_range || !si->has_last_counter || !si->has_first_help ||
            !si->has_last_help || si->first_counter > si->last_counter ||
            si->first_help > si->last_help ||
            si->last_counter - si->first_counter > INI_RANGE_MAX ||
            si->last_help - si->first_help > INI_RANGE_MAX)
            continue;   /* audit reports the range; nothing to fill */
        char where[256];
        int missing = strings_missing(rp, haves, si->first_counter,
                                      si->last_counter, si->first_help,
                                      si->last_help, where, sizeof where);
        if (missing <= 0) {
            rc = missing;
            continue;
        }
        size_t n;
        int fit;
        inis_of(rp, order, si, v, &n, &fit);
        if (!n)
            LEFT(rp, "ini-not-found", RT_AUDIT_INFO, NULL,
                 "%s: strings missing (in %s), and no INI of it was found "
                 "(none whose drivername is %s, nor an INF copy): not "
                 "restored", si->name, where, si->name);
        else if (fit)
            rc = restore_provider(rp, haves, si, v, n);
    }
    free(order);
    free(v);
    haves_free(haves, 2 * (rp->n ? rp->n : 1));
    return rc;
}
