/* Engine: lodctr /R, the tables rebuilt from their sources
 * (engine/rebuild.h). Pure: the caller reads the sources. */
#include "engine/change_budget.h"
#include "engine/rebuild.h"

#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "engine/rebuild_layers.h"
#include "model/lang_id.h"
#include "model/sort_positions.h"
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

/* The inputs looked up by language and by service, sorted once: a
 * search of the lists for each language and each provider was
 * O(languages^2) and O(providers^2). */
struct lookups {
    uint32_t *base;         /* in->base with a numeric id, by value */
    unsigned *base_value;
    size_t n_base;
    const struct rt_rebuild_base *current;  /* the first CurrentLanguage */
    uint32_t *inf;          /* in->inf by service */
    size_t n_inf;
};

static int base_by_value(uint32_t a, uint32_t b, const void *ctx)
{
    const unsigned *v = ctx;
    if (v[a] != v[b])
        return v[a] < v[b] ? -1 : 1;
    return (a > b) - (a < b);
}

static int inf_by_service(uint32_t a, uint32_t b, const void *ctx)
{
    const struct rt_rebuild_inf *v = ctx;
    int c = strcmp(v[a].service, v[b].service);
    return c ? c : (a > b) - (a < b);
}

static void lookups_free(struct lookups *k)
{
    free(k->base);
    free(k->base_value);
    free(k->inf);
    memset(k, 0, sizeof *k);
}

static int lookups_build(const struct rt_rebuild_input *in, struct lookups *k)
{
    memset(k, 0, sizeof *k);
    unsigned *value = malloc((in->n_base ? in->n_base : 1) * sizeof *value);
    k->base = malloc((in->n_base ? in->n_base : 1) * sizeof *k->base);
    k->base_value = malloc((in->n_base ? in->n_base : 1) *
                           sizeof *k->base_value);
    k->inf = malloc((in->n_inf ? in->n_inf : 1) * sizeof *k->inf);
    if (!value || !k->base || !k->base_value || !k->inf) {
        free(value);
        lookups_free(k);
        return -1;
    }
    for (size_t i = 0; i < in->n_base; i++) {
        const char *id = in->base[i].lang;
        if (rt_lang_is_current(id)) {
            if (!k->current)
                k->current = &in->base[i];
        } else if (rt_lang_value(id, &value[i]) == 0) {
            k->base[k->n_base++] = (uint32_t)i;
        }
    }
    rt_sort_positions(k->base, k->n_base, base_by_value, value);
    for (size_t i = 0; i < k->n_base; i++)
        k->base_value[i] = value[k->base[i]];
    free(value);
    for (size_t i = 0; i < in->n_inf; i++)
        k->inf[i] = (uint32_t)i;
    k->n_inf = in->n_inf;
    rt_sort_positions(k->inf, k->n_inf, inf_by_service, in->inf);
    return 0;
}

/* The first base of LANG (rt_lang_same). */
static const struct rt_rebuild_base *installed_of(const struct rt_rebuild_input *in,
                                                  const struct lookups *k,
                                                  const char *lang)
{
    unsigned v;
    if (rt_lang_is_current(lang))
        return k->current;
    if (rt_lang_value(lang, &v) != 0)
        return NULL;
    size_t lo = 0, hi = k->n_base;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k->base_value[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n_base && k->base_value[lo] == v ? &in->base[k->base[lo]]
                                                    : NULL;
}

/* The first INF input of SERVICE. */
static const struct rt_rebuild_inf *inf_of(const struct rt_rebuild_input *in,
                                           const struct lookups *k,
                                           const char *service)
{
    size_t lo = 0, hi = k->n_inf;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(in->inf[k->inf[mid]].service, service) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n_inf && !strcmp(in->inf[k->inf[lo]].service, service)
               ? &in->inf[k->inf[lo]]
               : NULL;
}

/* The provider's pairs from its INI for machine language KEY (table of
 * language LANG), as install would write them. */
static int inf_pairs(const struct rt_provider_spec *spec, const char *key,
                     const char *lang, const struct ranges *r,
                     struct rt_name_table *out, size_t *names, size_t *helps)
{
    int order[3];
    rt_engine_pick_order(spec, key, lang, order);
    for (size_t k = 0; k < spec->n_symbols; k++) {
        const struct rt_provider_symbol *sym = &spec->symbols[k];
        char from[RT_LANG_ID_SIZE];
        const char *name = rt_engine_pick_ordered(spec, sym, order, 0, from);
        const char *help = rt_engine_pick_ordered(spec, sym, order, 1, from);
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

/* What the languages share: the lookups, each table's layers (Counter,
 * Help), and where each provider's INF pairs lie among a language's
 * (Counter from, to; Help from, to). */
struct rebuild_state {
    struct lookups k;
    struct ranges *r;           /* each provider's, as placed */
    struct rt_rb_table t[2];
    size_t (*inf_at)[4];
    /* The tables the languages' changes hold, against what one change
     * may write: a tree's author plants languages, and each gets every
     * provider's INI texts. */
    struct rt_change_budget budget;
};

/* A language's sources, sorted by index: its tables as installed, as stored,
 * its PerfStringBackup.INI section's (the base one of them, up to its
 * highest index); and the INF pairs of its
 * providers, in their order. */
struct language_sources {
    struct rt_rb_source installed[2], stored[2], backup[2];
    const struct rt_rb_source *base;    /* one of those, or NULL */
    uint32_t base_last;                 /* the base's highest index */
    int has_backup;
    struct rt_name_table inf;
};

static void language_sources_free(struct language_sources *ls)
{
    for (int k = 0; k < 2; k++) {
        rt_rb_source_free(&ls->installed[k]);
        rt_rb_source_free(&ls->stored[k]);
        rt_rb_source_free(&ls->backup[k]);
    }
    rt_name_table_free(&ls->inf);
}

/* Whether S (two tables) holds any pair in R: their counts in N. */
static int source_covers(const struct rt_rb_source s[2],
                         const struct ranges *r, size_t n[2])
{
    n[0] = rt_rb_source_count(&s[0], r->fc, r->lc);
    n[1] = rt_rb_source_count(&s[1], r->fh, r->lh);
    return n[0] || n[1];
}

/* Each provider's INF pairs for language L (LANG's texts), in provider
 * order, into LS->inf; where each lies into ST->inf_at, its counts into
 * its choice for L. 0, or -1 when out of memory. */
static int inf_language(const struct rt_db_language *l, const char *lang,
                        struct rebuild_state *st, struct language_sources *ls,
                        struct rt_rebuild_plan *plan)
{
    for (size_t p = 0; p < plan->n_providers; p++) {
        struct rt_rebuild_provider *pv = &plan->providers[p];
        struct rt_rebuild_choice *ch = &pv->langs[pv->n_langs];
        size_t *at = st->inf_at[p];
        at[0] = ls->inf.counter.n;
        at[2] = ls->inf.help.n;
        const struct ranges *r = &st->r[p];
        if (pv->inf && pv->inf->spec &&
            inf_pairs(pv->inf->spec, l->id, lang, r, &ls->inf, &ch->names,
                      &ch->helps))
            return -1;
        at[1] = ls->inf.counter.n;
        at[3] = ls->inf.help.n;
    }
    return 0;
}

/* The choice just made for the plan's last language, in PV's next slot:
 * the run before it grown by one when it is of the language before and
 * the same source and pairs, else a run of its own. */
static void run_of(struct rt_rebuild_provider *pv,
                   const struct rt_rebuild_plan *plan)
{
    struct rt_rebuild_choice *ch = &pv->langs[pv->n_langs];
    size_t li = plan->n_langs - 1;
    if (pv->n_langs) {
        struct rt_rebuild_choice *prev = &pv->langs[pv->n_langs - 1];
        if (prev->first + prev->n == li && prev->source == ch->source &&
            prev->names == ch->names && prev->helps == ch->helps) {
            prev->n++;
            return;
        }
    }
    ch->first = li;
    ch->n = 1;
    ch->lang = plan->langs[li].id;
    pv->n_langs++;
}

/* Room in each provider's runs for the next language's choice (its next
 * slot: inf_language and place_provider fill it). 0, or -1 out of
 * memory. */
static int room_for_choice(struct rt_rebuild_plan *plan)
{
    for (size_t p = 0; p < plan->n_providers; p++) {
        struct rt_rebuild_provider *pv = &plan->providers[p];
        if (pv->n_langs == pv->cap_langs) {
            size_t c = pv->cap_langs ? 2 * pv->cap_langs : 4;
            struct rt_rebuild_choice *v = realloc(pv->langs, c * sizeof *v);
            if (!v)
                return -1;
            pv->langs = v;
            pv->cap_langs = c;
        }
        memset(&pv->langs[pv->n_langs], 0, sizeof *pv->langs);
    }
    return 0;
}

/* Puts provider P's strings for language L at its own indices, from its
 * first source: its INF (the text for L's language, put by
 * inf_language), L's tables, BACKUP (PerfStringBackup.INI's strings of
 * L), or the base when BASE is the tables as installed and they hold
 * its range already. Noted in its choice for L; a provider found
 * nowhere is counted lost. 0, or -1 when out of memory. */
static int place_provider(const struct rt_db_language *l,
                          enum rt_rebuild_source base,
                          struct rebuild_state *st,
                          const struct language_sources *ls, size_t p,
                          struct rt_rebuild_plan *plan)
{
    struct rt_rebuild_provider *pv = &plan->providers[p];
    struct rt_rebuild_choice *ch = &pv->langs[pv->n_langs];
    (void)l;
    struct ranges r = st->r[p];
    enum rt_rb_layer layer = RT_RB_NONE;
    size_t n[2];
    if (pv->inf && pv->inf->spec) {
        ch->source = RT_REBUILD_INF;
    } else if (source_covers(ls->stored, &r, n)) {
        ch->source = RT_REBUILD_TABLES;
        layer = RT_RB_STORED;
    } else if (ls->has_backup && source_covers(ls->backup, &r, n)) {
        ch->source = RT_REBUILD_BACKUP;
        layer = RT_RB_BACKUP;
    } else if (base == RT_REBUILD_INSTALLED &&
               ((n[0] = rt_rb_table_count(&st->t[0], r.fc, r.lc)) |
                (n[1] = rt_rb_table_count(&st->t[1], r.fh, r.lh)))) {
        /* Already in the base: a provider that came with the system. */
        ch->source = RT_REBUILD_INSTALLED;
        ch->names = n[0];
        ch->helps = n[1];
        run_of(pv, plan);
        return 0;
    } else {
        ch->source = RT_REBUILD_LOST;
        pv->lost++;
        plan->lost++;
    }
    if (layer != RT_RB_NONE) {
        ch->names = n[0];
        ch->helps = n[1];
    }
    run_of(pv, plan);
    /* Its ranges hold its own strings and nothing else. */
    rt_rb_table_cut(&st->t[0], r.fc, r.lc, layer);
    rt_rb_table_cut(&st->t[1], r.fh, r.lh, layer);
    if (ch->source == RT_REBUILD_INF) {
        rt_rb_table_put_inf(&st->t[0], st->inf_at[p][0], st->inf_at[p][1]);
        rt_rb_table_put_inf(&st->t[1], st->inf_at[p][2], st->inf_at[p][3]);
    }
    return 0;
}

/* Language L's base into RL->base, its sources into LS: the tables as
 * installed, else the base range as the current tables or the backup
 * (BACKUP; NULL: none) hold it. 0, or -1 when out of memory. */
static int language_base(const struct rt_database *db,
                         const struct rt_db_language *l,
                         const struct rt_rebuild_base *inst,
                         const struct rt_name_table *backup,
                         struct language_sources *ls,
                         struct rt_rebuild_language *rl,
                         struct rt_rebuild_plan *plan)
{
    for (int k = 0; k < 2; k++)
        if (rt_rb_source_of_table(&ls->stored[k], &l->tab[k ? RT_TABLE_HELP
                                                            : RT_TABLE_COUNTER]) ||
            (backup && rt_rb_source_of_pairs(&ls->backup[k],
                                             k ? &backup->help
                                               : &backup->counter)))
            return -1;
    ls->has_backup = backup != NULL;
    struct ranges base = {0, db->base_index, 0, db->base_index};
    size_t n[2];
    ls->base_last = db->base_index;
    if (inst && inst->t) {
        rl->base = RT_REBUILD_INSTALLED;
        ls->base_last = UINT32_MAX;
        if (rt_rb_source_of_pairs(&ls->installed[0], &inst->t->counter) ||
            rt_rb_source_of_pairs(&ls->installed[1], &inst->t->help))
            return -1;
        ls->base = ls->installed;
    } else if (source_covers(ls->stored, &base, n)) {
        rl->base = RT_REBUILD_TABLES;
        ls->base = ls->stored;
    } else if (backup && source_covers(ls->backup, &base, n)) {
        rl->base = RT_REBUILD_BACKUP;
        ls->base = ls->backup;
    } else {
        rl->base = RT_REBUILD_LOST;
        plan->lost++;
    }
    return 0;
}

/* What rebuilding L does to its tables: NT its new ones. 0, or -1 when
 * out of memory. */
static int language_result(const struct rt_db_language *l,
                           const struct rt_name_table *nt,
                           struct rt_rebuild_language *rl,
                           struct rt_change_set *cs,
                           struct rt_rebuild_plan *plan)
{
    rl->names_after = nt->counter.n;
    rl->helps_after = nt->help.n;
    uint32_t hc = rt_pair_list_highest(&nt->counter);
    uint32_t hh = rt_pair_list_highest(&nt->help);
    if (hc > plan->last_counter)
        plan->last_counter = hc;
    if (hh > plan->last_help)
        plan->last_help = hh;

    int changed[2];
    size_t at[2], first = cs->n;
    if (rt_db_replace_changed_tables(l, nt, cs, changed, at) != 0)
        return -1;
    rl->counter_changed = changed[0];
    rl->help_changed = changed[1];
    /* What is lost is read from the change itself, the one written. */
    for (size_t i = first; i < cs->n; i++) {
        size_t n = rt_change_lost(&cs->v[i], NULL);
        if (n == (size_t)-1)
            return -1;
        rl->dropped += n;
    }
    return 0;
}

static int rebuild_language(const struct rt_database *db,
                            const struct rt_rebuild_input *in, size_t li,
                            struct rebuild_state *st,
                            struct rt_change_set *cs,
                            struct rt_rebuild_plan *plan, struct rt_error *e)
{
    const struct rt_db_language *l = &db->langs[li];
    struct rt_rebuild_language *rl = &plan->langs[li];
    const char *lang = rt_lang_is_current(l->id) ? "009" : l->id;
    const struct rt_rebuild_base *inst = installed_of(in, &st->k, lang);
    const struct rt_psb_language *sec = in->psb ? rt_psb_language_find(in->psb, l->id)
                                                : NULL;
    struct rt_name_table backup = {0}, nt = {0};
    struct language_sources ls;
    memset(&ls, 0, sizeof ls);
    int rc = -1;
    rl->installed = inst;
    rl->names_before = l->tab[RT_TABLE_COUNTER].n;
    rl->helps_before = l->tab[RT_TABLE_HELP].n;
    if (room_for_choice(plan) ||
        (sec && rt_psb_split(&sec->strings, &backup) != 0) ||
        language_base(db, l, inst, sec ? &backup : NULL, &ls, rl, plan) ||
        inf_language(l, lang, st, &ls, plan))
        goto nomem;
    for (int k = 0; k < 2; k++)
        if (rt_rb_table_start(&st->t[k], ls.base ? &ls.base[k] : NULL,
                              ls.base_last, &ls.stored[k],
                              ls.has_backup ? &ls.backup[k] : NULL,
                              k ? &ls.inf.help : &ls.inf.counter))
            goto nomem;

    /* Each provider at its own indices, from its first source. */
    for (size_t p = 0; p < plan->n_providers; p++)
        if (place_provider(l, rl->base, st, &ls, p, plan) != 0)
            goto nomem;
    size_t first = cs->n;
    if (rt_rb_table_result(&st->t[0], &nt.counter) ||
        rt_rb_table_result(&st->t[1], &nt.help) ||
        language_result(l, &nt, rl, cs, plan))
        goto nomem;
    for (size_t i = first; i < cs->n; i++)
        if (rt_change_budget_add_bytes(&st->budget, cs->v[i].value.len)) {
            rc = rt_change_budget_refuse(&st->budget, "the rebuild",
                                         db->n_langs, e);
            goto out;
        }
    rc = 0;
    goto out;
nomem:
    oom(e);
out:
    rt_rb_table_result_free(&nt.counter);
    rt_rb_table_result_free(&nt.help);
    language_sources_free(&ls);
    rt_name_table_free(&backup);
    return rc;
}

static void state_free(struct rebuild_state *st)
{
    lookups_free(&st->k);
    rt_rb_table_free(&st->t[0]);
    rt_rb_table_free(&st->t[1]);
    free(st->inf_at);
    free(st->r);
    memset(st, 0, sizeof *st);
}

/* The lookups, each provider's ranges as placed (those of the first
 * service of its name), and each table's segments from them. */
static int state_build(const struct rt_database *db,
                       const struct rt_rebuild_input *in,
                       const struct rt_rebuild_plan *plan,
                       struct rebuild_state *st)
{
    memset(st, 0, sizeof *st);
    size_t n = plan->n_providers ? plan->n_providers : 1;
    uint32_t (*r)[2] = malloc(2 * n * sizeof *r);
    st->inf_at = malloc(n * sizeof *st->inf_at);
    st->r = malloc(n * sizeof *st->r);
    int rc = -1;
    if (!r || !st->inf_at || !st->r || lookups_build(in, &st->k))
        goto out;
    for (size_t p = 0; p < plan->n_providers; p++) {
        const struct ranges *q = &st->r[p];
        st->r[p] = ranges_of(rt_database_service(db,
                                                 plan->providers[p].service));
        r[p][0] = q->fc;
        r[p][1] = q->lc;
        r[n + p][0] = q->fh;
        r[n + p][1] = q->lh;
    }
    if (rt_rb_table_init(&st->t[0], r, plan->n_providers) ||
        rt_rb_table_init(&st->t[1], r + n, plan->n_providers))
        goto out;
    rc = 0;
out:
    free(r);
    if (rc)
        state_free(st);
    return rc;
}

/* Counts into B the INF texts of each provider a language lacks outright
 * (its first name not in the language's Counter table), as
 * rebuild_language would give them: 1 as soon as B is over, before a
 * table is made. A tree's author plants languages without tables, and
 * each would get every provider's INI texts; a language that holds its
 * providers (a real machine's) adds nothing here. */
static int lacking_over_budget(const struct rt_database *db,
                               const struct rebuild_state *st,
                               const struct rt_rebuild_plan *plan,
                               struct rt_change_budget *b)
{
    for (size_t i = 0; b->max && i < db->n_langs; i++) {
        const struct rt_db_language *l = &db->langs[i];
        const char *lang = rt_lang_is_current(l->id) ? "009" : l->id;
        for (size_t p = 0; p < plan->n_providers; p++) {
            const struct rt_rebuild_inf *inf = plan->providers[p].inf;
            const struct ranges *r = &st->r[p];
            if (!inf || !inf->spec ||
                rt_table_find(&l->tab[RT_TABLE_COUNTER], r->fc))
                continue;
            const struct rt_provider_spec *spec = inf->spec;
            int order[3];
            rt_engine_pick_order(spec, l->id, lang, order);
            for (size_t k = 0; k < spec->n_symbols; k++) {
                const struct rt_provider_symbol *sym = &spec->symbols[k];
                uint32_t off = (uint32_t)sym->offset;
                char from[RT_LANG_ID_SIZE];
                const char *name =
                    rt_engine_pick_ordered(spec, sym, order, 0, from);
                const char *help =
                    rt_engine_pick_ordered(spec, sym, order, 1, from);
                if ((name && rt_change_budget_add(b, r->fc + off, name)) ||
                    (help && rt_change_budget_add(b, r->fh + off, help)))
                    return 1;
            }
        }
    }
    return 0;
}

int rt_engine_rebuild(const struct rt_database *db,
                      const struct rt_rebuild_input *in,
                      struct rt_change_set *cs, struct rt_rebuild_plan *plan,
                      struct rt_error *e)
{
    struct rebuild_state st;
    memset(&st, 0, sizeof st);
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
        if (!(pv->service = strdup(si->name)))
            goto nomem;
        plan->n_providers++;
        pv->first_counter = r.fc;
        pv->last_counter = r.lc;
        pv->first_help = r.fh;
        pv->last_help = r.lh;
    }
    if (state_build(db, in, plan, &st))
        goto nomem;
    st.budget = rt_change_budget_of(db);
    for (size_t p = 0; p < plan->n_providers; p++)
        plan->providers[p].inf = inf_of(in, &st.k, plan->providers[p].service);
    struct rt_change_budget lacking = rt_change_budget_of(db);
    if (lacking_over_budget(db, &st, plan, &lacking)) {
        rt_change_budget_refuse(&lacking, "the rebuild", db->n_langs, e);
        goto fail;
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        if (!(plan->langs[i].id = strdup(db->langs[i].id)))
            goto nomem;
        plan->n_langs++;
        rt_progress_report("rebuilding languages", i, db->n_langs);
        if (rebuild_language(db, in, i, &st, cs, plan, e) != 0)
            goto fail;
    }
    state_free(&st);
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
    state_free(&st);
    rt_change_set_free(cs);
    rt_rebuild_plan_free(plan);
    return -1;
}
