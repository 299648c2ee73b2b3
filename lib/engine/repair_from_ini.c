/* Engine layer: repair --from-ini: a provider's missing strings restored
 * from its INI file. */
#include "engine/repair_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The largest provider range restored from an INI: lodctr ranges are a
 * provider's symbols, and a range wider than this is not one to fill. */
#define INI_RANGE_MAX 2000000u

/* Which indices of [LO, HI] (step 2) W's list K has:
 * PRESENT[(x - LO) / 2]. */
static unsigned char *present_in(const struct rlang *w, int k, uint32_t lo,
                                 uint32_t hi)
{
    size_t n = (hi - lo) / 2 + 1, count = rt_repair_count_of(w, k);
    unsigned char *p = calloc(n, 1);
    if (!p)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        uint32_t x = rt_repair_index_at(w, k, i);
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
                if (rt_repair_writable(w, k) ||
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
int rt_repair_restore_from_inis(struct repair *rp)
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
