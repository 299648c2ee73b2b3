/* Engine: lodctr /R, the tables rebuilt from their sources
 * (engine/rebuild.h). Pure: the caller reads the sources. */
#include "engine/rebuild.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "model/lang_id.h"
#include "platform/progress.h"

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

const char *rt_rebuild_source_name(enum rt_rebuild_source s)
{
    switch (s) {
    case RT_REBUILD_INF: return "INF copy";
    case RT_REBUILD_TABLES: return "current tables";
    case RT_REBUILD_BACKUP: return "PerfStringBackup.INI";
    case RT_REBUILD_INSTALLED: return "tables as installed";
    case RT_REBUILD_LOST: return "LOST";
    }
    return "?";
}

void rt_rebuild_plan_free(struct rt_rebuild_plan *p)
{
    for (size_t i = 0; i < p->n_langs; i++)
        free(p->langs[i].id);
    free(p->langs);
    for (size_t i = 0; i < p->n_providers; i++) {
        for (size_t k = 0; k < p->providers[i].n_langs; k++)
            free(p->providers[i].langs[k].lang);
        free(p->providers[i].langs);
        free(p->providers[i].service);
    }
    free(p->providers);
    memset(p, 0, sizeof *p);
}

/* A provider's two ranges, with what lodctr leaves out filled in as its
 * install would have written it. */
struct ranges {
    uint32_t fc, lc, fh, lh;
};

static struct ranges ranges_of(const struct rt_service_info *si)
{
    struct ranges r;
    r.fc = si->first_counter;
    r.lc = si->has_last_counter ? si->last_counter : r.fc;
    r.fh = si->has_first_help ? si->first_help : r.fc + 1;
    r.lh = si->has_last_help ? si->last_help : r.fh + (r.lc - r.fc);
    return r;
}

static int within(uint32_t i, uint32_t a, uint32_t b)
{
    return i >= a && i <= b;
}

/* A new slot at the end of DST, or NULL when out of memory. */
static struct rt_pair *append_slot(struct rt_pair_list *dst)
{
    if (dst->n == dst->cap) {
        size_t cap = dst->cap ? dst->cap * 2 : 64;
        struct rt_pair *v = realloc(dst->v, cap * sizeof *v);
        if (!v)
            return NULL;
        dst->v = v;
        dst->cap = cap;
    }
    return &dst->v[dst->n];
}

/* Appends the pairs of SRC with A <= index <= B to DST (DST NULL: only
 * counts them). Returns how many, or (size_t)-1 when out of memory. */
static size_t take(struct rt_pair_list *dst, const struct rt_pair_list *src,
                   uint32_t a, uint32_t b)
{
    size_t n = 0;
    for (size_t i = 0; i < src->n; i++) {
        if (!within(src->v[i].index, a, b))
            continue;
        n++;
        if (!dst)
            continue;
        struct rt_pair *p = append_slot(dst);
        if (!p || rt_pair_copy(p, &src->v[i]) != 0)
            return (size_t)-1;
        dst->n++;
    }
    return n;
}

/* The same from a table as stored (UTF-16, indexed) into an empty DST:
 * the database is read without its tables decoded, and only the pairs
 * taken from it are, their texts in DST's one block (a base of millions
 * of tiny pairs taken from the current tables costs its bytes and a
 * pair record each, not a heap block a text besides). */
static size_t take_stored(struct rt_pair_list *dst, const struct rt_table *t,
                          uint32_t a, uint32_t b)
{
    if (dst)
        return rt_table_pairs_within(t, a, b, dst) ? (size_t)-1 : dst->n;
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += within(t->v[i].index, a, b);
    return n;
}

/* Removes the pairs with A <= index <= B. */
static void cut(struct rt_pair_list *l, uint32_t a, uint32_t b)
{
    rt_pair_list_remove_range(l, a, b);
}

/* Sorts L by index, pairs of one index keeping their order: 4-byte
 * positions sorted in place and the pairs then moved along the
 * permutation's cycles (qsort of the 32-byte pairs with their positions
 * held 40 bytes a pair besides the list, and its merge sort a copy of
 * those). A list holds fewer than 2^32 pairs: a table is under 4 GiB. */
static int sort_pairs(struct rt_pair_list *l)
{
    size_t i = 1;
    while (i < l->n && l->v[i].index >= l->v[i - 1].index)
        i++;
    if (i >= l->n)
        return 0;   /* already in order, as a table read mostly is */
    uint32_t *perm = malloc(l->n * sizeof *perm);
    if (!perm)
        return -1;
    rt_pairs_sort_by_index(l->v, l->n, perm);
    free(perm);
    return 0;
}

static const struct rt_rebuild_base *installed_of(const struct rt_rebuild_input *in,
                                                  const char *lang)
{
    for (size_t i = 0; i < in->n_base; i++)
        if (rt_lang_same(in->base[i].lang, lang))
            return &in->base[i];
    return NULL;
}

static const struct rt_rebuild_inf *inf_of(const struct rt_rebuild_input *in,
                                           const char *service)
{
    for (size_t i = 0; i < in->n_inf; i++)
        if (!strcmp(in->inf[i].service, service))
            return &in->inf[i];
    return NULL;
}

/* The provider's pairs from its INI for machine language KEY (table of
 * language LANG), as install would write them. */
static int inf_pairs(const struct rt_provider_spec *spec, const char *key,
                     const char *lang, const struct ranges *r,
                     struct rt_name_table *out, size_t *names, size_t *helps)
{
    for (size_t k = 0; k < spec->n_symbols; k++) {
        const struct rt_provider_symbol *sym = &spec->symbols[k];
        char from[RT_LANG_ID_SIZE];
        const char *name = rt_engine_pick_text(spec, sym, key, lang, 0, from);
        const char *help = rt_engine_pick_text(spec, sym, key, lang, 1, from);
        if (name) {
            if (rt_pair_list_append(&out->counter,
                                    r->fc + (uint32_t)sym->offset, name))
                return -1;
            (*names)++;
        }
        if (help) {
            if (rt_pair_list_append(&out->help, r->fh + (uint32_t)sym->offset,
                                    help))
                return -1;
            (*helps)++;
        }
    }
    return 0;
}

/* Whether TABLE holds any pair in the provider's ranges. */
static int covers(const struct rt_name_table *t, const struct ranges *r)
{
    return take(NULL, &t->counter, r->fc, r->lc) ||
           take(NULL, &t->help, r->fh, r->lh);
}

/* Whether L's tables as stored hold any pair in R. */
static int stored_covers(const struct rt_db_language *l,
                         const struct ranges *r)
{
    return take_stored(NULL, &l->tab[RT_TABLE_COUNTER], r->fc, r->lc) ||
           take_stored(NULL, &l->tab[RT_TABLE_HELP], r->fh, r->lh);
}

/* Counts A and B, the pairs taken of each table, into *NAMES and *HELPS:
 * 0, or -1 when either failed. */
static int taken(size_t a, size_t b, size_t *names, size_t *helps)
{
    if (a == (size_t)-1 || b == (size_t)-1)
        return -1;
    *names = a;
    *helps = b;
    return 0;
}

/* Adds to NEW the pairs of T within R; counts them. */
static int take_ranges(struct rt_name_table *nt, const struct rt_name_table *t,
                       const struct ranges *r, size_t *names, size_t *helps)
{
    size_t a = take(&nt->counter, &t->counter, r->fc, r->lc);
    size_t b = take(&nt->help, &t->help, r->fh, r->lh);
    return taken(a, b, names, helps);
}

/* The same from L's tables as stored. */
static int take_stored_ranges(struct rt_name_table *nt,
                              const struct rt_db_language *l,
                              const struct ranges *r, size_t *names,
                              size_t *helps)
{
    size_t a = take_stored(&nt->counter, &l->tab[RT_TABLE_COUNTER], r->fc,
                           r->lc);
    size_t b = take_stored(&nt->help, &l->tab[RT_TABLE_HELP], r->fh, r->lh);
    return taken(a, b, names, helps);
}

/* Puts provider PV's strings for language L into NT at its own indices,
 * from its first source: its INF (the text for LANG), L's tables,
 * BACKUP (PerfStringBackup.INI's strings of L; NULL: none), or the base
 * when BASE is the tables as installed and they hold its range already.
 * Noted in PV's choice for L; a provider found nowhere is counted lost.
 * 0, or -1 when out of memory. */
static int place_provider(const struct rt_database *db,
                          const struct rt_db_language *l, const char *lang,
                          const struct rt_name_table *backup,
                          enum rt_rebuild_source base,
                          struct rt_name_table *nt,
                          struct rt_rebuild_provider *pv,
                          struct rt_rebuild_plan *plan)
{
    const struct rt_service_info *si = rt_database_service(db, pv->service);
    struct ranges r = ranges_of(si);
    struct rt_rebuild_choice *ch = &pv->langs[pv->n_langs];
    if (!(ch->lang = strdup(l->id)))
        return -1;
    pv->n_langs++;
    struct rt_name_table got = {0};
    if (pv->inf && pv->inf->spec) {
        ch->source = RT_REBUILD_INF;
        if (inf_pairs(pv->inf->spec, l->id, lang, &r, &got, &ch->names,
                      &ch->helps)) {
            rt_name_table_free(&got);
            return -1;
        }
    } else if (stored_covers(l, &r)) {
        ch->source = RT_REBUILD_TABLES;
        if (take_stored_ranges(&got, l, &r, &ch->names, &ch->helps)) {
            rt_name_table_free(&got);
            return -1;
        }
    } else if (backup && covers(backup, &r)) {
        ch->source = RT_REBUILD_BACKUP;
        if (take_ranges(&got, backup, &r, &ch->names, &ch->helps)) {
            rt_name_table_free(&got);
            return -1;
        }
    } else if (base == RT_REBUILD_INSTALLED && covers(nt, &r)) {
        /* Already in the base: a provider that came with the system. */
        ch->source = RT_REBUILD_INSTALLED;
        ch->names = take(NULL, &nt->counter, r.fc, r.lc);
        ch->helps = take(NULL, &nt->help, r.fh, r.lh);
        return 0;
    } else {
        ch->source = RT_REBUILD_LOST;
        pv->lost++;
        plan->lost++;
    }
    /* Its ranges hold its own strings and nothing else. */
    cut(&nt->counter, r.fc, r.lc);
    cut(&nt->help, r.fh, r.lh);
    size_t a, b;
    int fail = take_ranges(nt, &got, &(struct ranges){0, UINT32_MAX, 0,
                                                      UINT32_MAX},
                           &a, &b);
    rt_name_table_free(&got);
    return fail ? -1 : 0;
}

static int rebuild_language(const struct rt_database *db,
                            const struct rt_rebuild_input *in, size_t li,
                            struct rt_change_set *cs,
                            struct rt_rebuild_plan *plan, struct rt_error *e)
{
    const struct rt_db_language *l = &db->langs[li];
    struct rt_rebuild_language *rl = &plan->langs[li];
    const char *lang = rt_lang_is_current(l->id) ? "009" : l->id;
    const struct rt_rebuild_base *inst = installed_of(in, lang);
    const struct rt_psb_language *sec = in->psb ? rt_psb_language_find(in->psb, l->id)
                                                : NULL;
    struct rt_name_table nt = {0}, backup = {0};
    int rc = -1;
    rl->installed = inst;
    rl->names_before = l->tab[RT_TABLE_COUNTER].n;
    rl->helps_before = l->tab[RT_TABLE_HELP].n;
    if (sec && rt_psb_split(&sec->strings, &backup) != 0)
        goto nomem;

    /* The base: the tables as installed, else the base range as the
     * current tables or the backup hold it. */
    struct ranges base = {0, db->base_index, 0, db->base_index};
    size_t n1, n2;
    if (inst && inst->t) {
        rl->base = RT_REBUILD_INSTALLED;
        if (take_ranges(&nt, inst->t, &(struct ranges){0, UINT32_MAX, 0,
                                                        UINT32_MAX},
                        &n1, &n2))
            goto nomem;
    } else if (stored_covers(l, &base)) {
        rl->base = RT_REBUILD_TABLES;
        if (take_stored_ranges(&nt, l, &base, &n1, &n2))
            goto nomem;
    } else if (sec && covers(&backup, &base)) {
        rl->base = RT_REBUILD_BACKUP;
        if (take_ranges(&nt, &backup, &base, &n1, &n2))
            goto nomem;
    } else {
        rl->base = RT_REBUILD_LOST;
        plan->lost++;
    }

    /* Each provider at its own indices, from its first source. */
    for (size_t p = 0; p < plan->n_providers; p++)
        if (place_provider(db, l, lang, sec ? &backup : NULL, rl->base, &nt,
                           &plan->providers[p], plan) != 0)
            goto nomem;
    if (sort_pairs(&nt.counter) || sort_pairs(&nt.help))
        goto nomem;
    rl->names_after = nt.counter.n;
    rl->helps_after = nt.help.n;
    uint32_t hc = rt_pair_list_highest(&nt.counter);
    uint32_t hh = rt_pair_list_highest(&nt.help);
    if (hc > plan->last_counter)
        plan->last_counter = hc;
    if (hh > plan->last_help)
        plan->last_help = hh;

    int changed[2];
    size_t at[2], first = cs->n;
    if (rt_db_replace_changed_tables(l, &nt, cs, changed, at) != 0)
        goto nomem;
    rl->counter_changed = changed[0];
    rl->help_changed = changed[1];
    /* What is lost is read from the change itself, the one written. */
    for (size_t i = first; i < cs->n; i++) {
        size_t n = rt_change_lost(&cs->v[i], NULL);
        if (n == (size_t)-1)
            goto nomem;
        rl->dropped += n;
    }
    rc = 0;
    goto out;
nomem:
    oom(e);
out:
    rt_name_table_free(&nt);
    rt_name_table_free(&backup);
    return rc;
}

int rt_engine_rebuild(const struct rt_database *db,
                      const struct rt_rebuild_input *in,
                      struct rt_change_set *cs, struct rt_rebuild_plan *plan,
                      struct rt_error *e)
{
    memset(plan, 0, sizeof *plan);
    memset(cs, 0, sizeof *cs);
    plan->langs = calloc(db->n_langs ? db->n_langs : 1, sizeof *plan->langs);
    plan->providers = calloc(db->n_services ? db->n_services : 1,
                             sizeof *plan->providers);
    if (!plan->langs || !plan->providers)
        goto nomem;
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *si = &db->services[i];
        if (!si->has_range)
            continue;
        struct rt_rebuild_provider *pv = &plan->providers[plan->n_providers];
        struct ranges r = ranges_of(si);
        if (!(pv->service = strdup(si->name)) ||
            !(pv->langs = calloc(db->n_langs ? db->n_langs : 1,
                                 sizeof *pv->langs))) {
            free(pv->service);
            goto nomem;
        }
        plan->n_providers++;
        pv->first_counter = r.fc;
        pv->last_counter = r.lc;
        pv->first_help = r.fh;
        pv->last_help = r.lh;
        pv->inf = inf_of(in, si->name);
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        if (!(plan->langs[i].id = strdup(db->langs[i].id)))
            goto nomem;
        plan->n_langs++;
        rt_progress_report("rebuilding languages", i, db->n_langs);
        if (rebuild_language(db, in, i, cs, plan, e) != 0)
            goto fail;
    }
    /* Perflib's values: raised to what the tables now hold, never
     * lowered (docs/design.md, "Uninstall": the indices in between are
     * handed out). */
    uint32_t lc = db->last_counter, lh = db->last_help;
    if (plan->last_counter < lc)
        plan->last_counter = lc;
    if (plan->last_help < lh)
        plan->last_help = lh;
    if ((plan->last_counter != lc || !db->has_last_counter) &&
        rt_change_set_dword(cs, NULL, "Last Counter", plan->last_counter))
        goto nomem;
    if ((plan->last_help != lh || !db->has_last_help) &&
        rt_change_set_dword(cs, NULL, "Last Help", plan->last_help))
        goto nomem;
    return 0;
nomem:
    oom(e);
fail:
    rt_change_set_free(cs);
    rt_rebuild_plan_free(plan);
    return -1;
}
