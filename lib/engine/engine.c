/* Engine layer: install and uninstall as change sets (docs/design.md,
 * "Install" and "Uninstall").
 * Pure computation over the database as read; no I/O. */
#include "engine/engine.h"

#include "engine/change_budget.h"
#include "engine/side_files.h"
#include "model/lang_id.h"
#include "model/strbuf.h"
#include "platform/os.h"
#include "model/utf16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Per-language work while a change is computed: the tables as stored
 * (UTF-16, never decoded whole), the range cut from them, the pairs
 * appended. The new blobs are spliced from these bytes (emit_tables). */
struct work_lang {
    const char *id;
    const struct rt_table *tab[2];   /* [counter], [help]; NULL: created */
    int cut[2];                      /* a range is removed ... */
    uint32_t cut_first[2], cut_last[2];   /* ... this one */
    struct rt_pair_list added[2], removed[2];
    int created;
    const struct rt_db_language *orig;   /* NULL when created */
};

static void work_free(struct work_lang *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            rt_pair_list_free(&w[i].added[k]);
            rt_pair_list_free(&w[i].removed[k]);
        }
    free(w);
}

static int is_cut(const struct work_lang *w, int k, uint32_t index)
{
    return w->cut[k] && index >= w->cut_first[k] && index <= w->cut_last[k];
}

/* A language whose table the store serves fixed: never changed. */
static int is_fixed(const struct work_lang *w)
{
    return w->orig && w->orig->fixed;
}

/* Cuts the pairs within [FIRST, LAST] from table K of W; the pairs cut
 * are decoded into W's removed list (for display and the invariant). */
static int take_range(struct work_lang *w, int k, uint32_t first,
                      uint32_t last)
{
    if (is_fixed(w))
        return 0;
    w->cut[k] = 1;
    w->cut_first[k] = first;
    w->cut_last[k] = last;
    const struct rt_table *t = w->tab[k];
    for (size_t i = 0; t && i < t->n; i++) {
        if (!is_cut(w, k, t->v[i].index))
            continue;
        struct rt_pair_list *r = &w->removed[k];
        if (r->n == r->cap) {
            size_t c = r->cap ? r->cap * 2 : 16;
            struct rt_pair *v = realloc(r->v, c * sizeof *v);
            if (!v)
                return -1;
            r->v = v;
            r->cap = c;
        }
        /* The pair's bytes, where the table kept them (a lean load keeps
         * a Help table from its provider's first pair on). */
        struct rt_msz_entry x = t->v[i];
        const uint8_t *at = rt_table_at(t, x.at);
        if (!at)
            return -1;
        x.text -= x.at;
        x.at = 0;
        if (rt_msz_entry_pair(at, &x, &r->v[r->n]) != 0)
            return -1;
        r->n++;
    }
    return 0;
}

/* Adds (INDEX, TEXT) at the end of table K of W. */
static int append(struct work_lang *w, int k, uint32_t index, const char *text)
{
    return rt_pair_list_append(&w->added[k], index, text);
}

static int refuse_damaged(const struct rt_database *db, struct rt_error *e)
{
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_db_language *l = &db->langs[i];
        if (l->damaged)
            return rt_error_set(
                e, RT_ERR_BADDB,
                "Perflib\\%s\\%s is damaged at byte %zu (%s); nothing was "
                "written: run 'regtool audit' and 'regtool repair' first",
                l->id, l->damage_in_help ? "Help" : "Counter",
                l->damage.offset, rt_msz_strerror(l->damage.status));
    }
    return 0;
}

/* Builds the working copies of every machine language, adding 009 when
 * the machine lacks it (docs/design.md, "The name database": 009
 * always exists). */
static struct work_lang *work_new(const struct rt_database *db, size_t *n,
                                  int add_english)
{
    int has_english = rt_database_language(db, "009") != NULL;
    size_t count = db->n_langs + (add_english && !has_english);
    struct work_lang *w = calloc(count ? count : 1, sizeof *w);
    if (!w)
        return NULL;
    for (size_t i = 0; i < db->n_langs; i++) {
        w[i].id = db->langs[i].id;
        w[i].orig = &db->langs[i];
        w[i].tab[0] = &db->langs[i].tab[0];
        w[i].tab[1] = &db->langs[i].tab[1];
    }
    if (count > db->n_langs) {
        w[db->n_langs].id = "009";
        w[db->n_langs].created = 1;
    }
    *n = count;
    return w;
}

/* The highest index table K of W holds once its cut and additions are
 * made. */
static uint32_t work_highest(const struct work_lang *w, int k)
{
    const struct rt_table *t = w->tab[k];
    uint32_t h = rt_pair_list_highest(&w->added[k]);
    if (!t || t->highest <= h)
        return h;
    if (!is_cut(w, k, t->highest))
        return t->highest;     /* the usual case: no scan */
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].index > h && !is_cut(w, k, t->v[i].index))
            h = t->v[i].index;
    return h;
}

static uint32_t highest(const struct work_lang *w, size_t n, int help)
{
    uint32_t h = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t x = work_highest(&w[i], help);
        if (x > h)
            h = x;
    }
    return h;
}

/* The language CurrentLanguage mirrors: the language of digits whose
 * Counter text agrees with it at its lowest common index, English first.
 * CurrentLanguage holds the UI language's table (docs/design.md, "The name
 * database"). */
static const char *current_language_source(const struct work_lang *w,
                                           size_t n, size_t cur)
{
    /* Only the tables as stored count: the pairs being added lie above
     * every index they hold. */
    const struct rt_table *c = w[cur].tab[0];
    const struct rt_msz_entry *probe = NULL;
    for (size_t i = 0; c && i < c->n; i++)
        if (c->v[i].index >= 2 && !is_cut(&w[cur], 0, c->v[i].index) &&
            (!probe || c->v[i].index < probe->index))
            probe = &c->v[i];
    if (!probe)
        return "009";
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < n; i++) {
            if (i == cur || rt_lang_is_current(w[i].id) || !w[i].tab[0])
                continue;
            if ((pass == 0) != rt_lang_same(w[i].id, "009"))
                continue;
            if (is_cut(&w[i], 0, probe->index))
                continue;
            const struct rt_msz_entry *p = rt_table_find(w[i].tab[0],
                                                         probe->index);
            if (p && rt_table_text_equal(w[i].tab[0], p, c, probe))
                return w[i].id;
        }
    return "009";
}

void rt_install_plan_free(struct rt_install_plan *p)
{
    free(p->missing);
    free(p->langs);
    memset(p, 0, sizeof *p);
}

/* Table K of W as a splice of the stored bytes: one edit per run of
 * pairs cut (a run lies contiguous in the blob), then what follows the
 * last pair (the list terminator) gives way to the pairs added and a new
 * terminator. Nothing is decoded, re-encoded or copied but the new pairs:
 * the change costs what it changes, whatever the table's size. */
static int emit_splice(struct rt_change_set *cs, struct work_lang *w, int k)
{
    uint8_t *ins = NULL;
    size_t ins_len = 0;
    if (rt_pair_list_encode(&w->added[k], &ins, &ins_len) != 0)
        return -1;
    const struct rt_table *t = w->tab[k];
    size_t n = t ? t->n : 0, len = t ? t->len : 0, runs = 0;
    for (size_t i = 0; i < n; i++)
        runs += is_cut(w, k, t->v[i].index) &&
                (i == 0 || !is_cut(w, k, t->v[i - 1].index));
    struct rt_table_edit *ed = malloc((runs + 1) * sizeof *ed);
    if (!ed) {
        free(ins);
        return -1;
    }
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        if (!is_cut(w, k, t->v[i].index)) {
            i++;
            continue;
        }
        size_t j = i + 1;
        while (j < n && is_cut(w, k, t->v[j].index))
            j++;
        size_t end = rt_msz_pairs_end(t->v, j);
        ed[m++] = (struct rt_table_edit){t->v[i].at, end - t->v[i].at, 0, 0};
        i = j;
    }
    size_t tail = t ? rt_msz_pairs_end(t->v, n) : 0;
    const uint8_t *old_tail = t ? rt_table_at(t, tail) : NULL;
    if (t && t->blob && !old_tail) {
        free(ins);
        free(ed);
        return -1;
    }
    if (len - tail == ins_len && !memcmp(old_tail, ins, ins_len)) {
        free(ins);      /* nothing added: the terminator stays */
        ins = NULL;
        ins_len = 0;
    } else {
        ed[m++] = (struct rt_table_edit){tail, len - tail, 0, ins_len};
    }
    const struct rt_db_language *o = w->orig;
    int present = o && (k == RT_TABLE_COUNTER ? o->has_counter : o->has_help);
    return rt_change_set_table_splice(cs, w->id, (enum rt_table_kind)k,
                                      present, len, ed, m, ins, ins_len,
                                      &w->added[k], &w->removed[k]);
}

/* Adds the table changes of every working language that changed. */
static int emit_tables(struct rt_change_set *cs, struct work_lang *w, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (is_fixed(&w[i]))
            continue;
        if (w[i].created && rt_change_set_create_language(cs, w[i].id) != 0)
            return -1;
        for (int t = 0; t < 2; t++) {
            if (!w[i].added[t].n && !w[i].removed[t].n)
                continue;
            if (emit_splice(cs, &w[i], t) != 0)
                return -1;
        }
    }
    return 0;
}

static int check_service(const struct rt_service_info *svc,
                         const struct rt_install_options *opt,
                         struct rt_error *e)
{
    if (opt->create_service) {
        /* Empty, Perflib skips the provider (review 42 R42-8). */
        if (!opt->library || !opt->open || !opt->collect || !opt->close ||
            !*opt->library || !*opt->open || !*opt->collect || !*opt->close)
            return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                                "--create-service needs --library, --open, "
                                "--collect and --close, none of them empty");
        return 0;
    }
    if (!svc->exists)
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                            "service '%s' does not exist (Services\\%s); the "
                            "provider's installer creates it",
                            svc->name, svc->name);
    if (!svc->has_perf)
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                            "service '%s' has no Performance key; the "
                            "provider's installer writes it",
                            svc->name);
    return 0;
}

static void range_problems(const struct rt_database *db,
                           const struct rt_service_info *svc, char *buf,
                           size_t size);

int rt_engine_allocate_indices(const struct rt_index_request *rq,
                               struct rt_index_allocation *out,
                               struct rt_error *e)
{
    const struct rt_service_info *svc = rq->replaced;
    uint32_t span = rq->span;
    memset(out, 0, sizeof *out);
    /* Never trust Last Counter alone: the tables' highest indices count. */
    if (svc && svc->first_counter <= svc->last_counter &&
        svc->first_help <= svc->last_help &&
        span <= svc->last_counter - svc->first_counter &&
        span <= svc->last_help - svc->first_help) {
        out->first_counter = svc->first_counter;
        out->first_help = svc->first_help;
        out->kept_position = 1;
    } else {
        uint64_t top_c = rq->last_counter, top_h = rq->last_help;
        uint64_t hc = rq->highest_counter, hh = rq->highest_help;
        if (hc > top_c)
            top_c = hc;
        if (hh > top_h)
            top_h = hh;
        uint64_t top = top_c > top_h - 1 ? top_c : top_h - 1;
        uint64_t first = (top + 2 + 1) & ~(uint64_t)1;   /* next even */
        if (first + span + 1 > RT_INDEX_MAX)
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "no room for %zu counters above index %llu",
                                rq->n_symbols, (unsigned long long)top);
        out->first_counter = (uint32_t)first;
        out->first_help = (uint32_t)first + 1;
    }
    out->last_counter = out->first_counter + span;
    out->last_help = out->first_help + span;
    /* Perflib's values never go down: a range kept below them leaves them
     * where they are. */
    out->perflib_last_counter = rq->last_counter > out->last_counter
                                    ? rq->last_counter
                                    : out->last_counter;
    out->perflib_last_help = rq->last_help > out->last_help ? rq->last_help
                                                            : out->last_help;
    return 0;
}

/* Refuses an install of SPEC onto SVC that must not go ahead: a damaged
 * database, a service that cannot take it, an installed provider without
 * --replace, one whose recorded range --replace cannot take out. */
static int refuse_install(const struct rt_database *db,
                          const struct rt_service_info *svc,
                          const struct rt_provider_spec *spec,
                          const struct rt_install_options *opt, int replacing,
                          struct rt_error *e)
{
    if (refuse_damaged(db, e) || check_service(svc, opt, e))
        return -1;
    if (!spec->n_symbols)
        return rt_error_set(e, RT_ERR_INVALID_DATA, "%s defines no counters",
                            spec->ini_path);
    if (replacing && !opt->replace)
        return rt_error_set(e, RT_ERR_ALREADY_EXISTS,
                            "'%s' is already installed (First Counter %u, "
                            "First Help %u); nothing was written: "
                            "'regtool install --replace' upgrades it in "
                            "place, or uninstall it first ('regtool "
                            "uninstall', unlodctr)",
                            svc->name, svc->first_counter, svc->first_help);
    /* After "already installed", which says more about an installed
     * provider; before --replace's own checks of the range. */
    if (rt_engine_install_trust(db, svc, spec, opt, e))
        return -1;
    if (replacing && !(svc->has_last_counter && svc->has_first_help &&
                       svc->has_last_help))
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "'%s' has First Counter but not all of Last "
                            "Counter, First Help, Last Help; uninstall it "
                            "with --force first",
                            svc->name);
    /* --replace takes the old range out and may put the new one where it
     * was: a recorded range over the base range or another provider's
     * would have their strings removed and overwritten. Refused as
     * uninstall refuses it, and for the same reasons. */
    if (replacing) {
        char problems[1024] = "";
        range_problems(db, svc, problems, sizeof problems);
        if (*problems)
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "refusing to replace '%s': %s; nothing was "
                                "written (uninstall it with --force first)",
                                svc->name, problems);
    }
    return 0;
}

/* The language whose texts W[I] gets (CurrentLanguage's is the language
 * it mirrors) as the order of ORDER (rt_engine_pick_order). */
static void texts_order(const struct work_lang *w, size_t n, size_t i,
                        const struct rt_provider_spec *spec, int order[3])
{
    const char *lang = w[i].id;
    if (rt_lang_is_current(lang))
        lang = current_language_source(w, n, i);
    rt_engine_pick_order(spec, w[i].id, lang, order);
}

/* Counts into B what add_texts would append: 1 as soon as B is over its
 * bound, before a byte of it is made. */
static int over_budget(const struct work_lang *w, size_t n,
                       const struct rt_provider_spec *spec,
                       const struct rt_engine_picker *picker,
                       const struct rt_install_plan *plan,
                       struct rt_change_budget *b)
{
    for (size_t i = 0; b->max && i < n; i++) {
        if (is_fixed(&w[i]))
            continue;
        int order[3];
        texts_order(w, n, i, spec, order);
        for (size_t k = 0; k < spec->n_symbols; k++) {
            char from[RT_LANG_ID_SIZE];
            uint32_t off = (uint32_t)spec->symbols[k].offset;
            const char *name = rt_engine_pick(picker, k, order, 0, from);
            const char *help = rt_engine_pick(picker, k, order, 1, from);
            if ((name && rt_change_budget_add(b, plan->first_counter + off,
                                              name)) ||
                (help && rt_change_budget_add(b, plan->first_help + off,
                                              help)))
                return 1;
        }
    }
    return 0;
}

/* Appends SPEC's names and helps at PLAN's indices to each language of W
 * (N) but a fixed one, noting in PLAN where each language's texts come
 * from and which INI languages the machine lacks. -1: out of memory. */
static int add_texts(struct work_lang *w, size_t n,
                     const struct rt_provider_spec *spec,
                     const struct rt_engine_picker *picker,
                     struct rt_install_plan *plan)
{
    /* INI languages the machine lacks are reported, never created (a
     * created language without base tables is what broke Q128404). */
    plan->missing = calloc(spec->n_languages ? spec->n_languages : 1,
                           sizeof *plan->missing);
    plan->langs = calloc(n, sizeof *plan->langs);
    if (!plan->missing || !plan->langs)
        return -1;
    for (size_t i = 0; i < spec->n_languages; i++) {
        int found = 0;
        for (size_t j = 0; j < n; j++)
            found |= rt_lang_same(w[j].id, spec->languages[i].id);
        if (!found)
            snprintf(plan->missing[plan->n_missing++], RT_LANG_ID_SIZE, "%s",
                     spec->languages[i].id);
    }

    for (size_t i = 0; i < n; i++) {
        struct rt_language_source *src = &plan->langs[plan->n_langs++];
        snprintf(src->lang, sizeof src->lang, "%s", w[i].id);
        src->created = w[i].created;
        if (is_fixed(&w[i])) {
            snprintf(src->fixed, sizeof src->fixed, "%s", w[i].orig->fixed_why);
            continue;
        }
        int order[3];
        texts_order(w, n, i, spec, order);
        for (size_t k = 0; k < spec->n_symbols; k++) {
            const struct rt_provider_symbol *sym = &spec->symbols[k];
            char from[RT_LANG_ID_SIZE] = "";
            const char *name = rt_engine_pick(picker, k, order, 0, from);
            if (k == 0)
                snprintf(src->source, sizeof src->source, "%s", from);
            const char *help = rt_engine_pick(picker, k, order, 1, from);
            uint32_t ni = plan->first_counter + (uint32_t)sym->offset;
            uint32_t hi = plan->first_help + (uint32_t)sym->offset;
            if ((name && append(&w[i], 0, ni, name)) ||
                (help && append(&w[i], 1, hi, help)))
                return -1;
        }
    }
    return 0;
}

/* The service's values an install of SPEC at PLAN's range writes: its
 * Performance key when it is created, the range, Object List and
 * PerfIniFile. -1: out of memory. */
static int emit_service_values(struct rt_change_set *cs,
                               const struct rt_service_info *svc,
                               const struct rt_provider_spec *spec,
                               const struct rt_install_options *opt,
                               const struct rt_install_plan *plan)
{
    const char *sv = svc->name;
    if (opt->create_service &&
        (rt_change_set_create_perf_key(cs, sv) ||
         rt_change_set_string(cs, sv, "Library", RT_REG_EXPAND_SZ,
                              opt->library) ||
         rt_change_set_string(cs, sv, "Open", RT_REG_SZ, opt->open) ||
         rt_change_set_string(cs, sv, "Collect", RT_REG_SZ, opt->collect) ||
         rt_change_set_string(cs, sv, "Close", RT_REG_SZ, opt->close)))
        return -1;
    if (rt_change_set_dword(cs, sv, "First Counter", plan->first_counter) ||
        rt_change_set_dword(cs, sv, "Last Counter", plan->last_counter) ||
        rt_change_set_dword(cs, sv, "First Help", plan->first_help) ||
        rt_change_set_dword(cs, sv, "Last Help", plan->last_help))
        return -1;
    struct rt_strbuf list = {0};
    const char *space = "";
    for (size_t k = 0; k < spec->n_symbols; k++)
        if (spec->symbols[k].is_object) {
            rt_strbuf_printf(&list, "%s%u", space,
                             plan->first_counter +
                                 (uint32_t)spec->symbols[k].offset);
            space = " ";
        }
    char *objects = rt_strbuf_take(&list);
    if (!objects)
        return -1;
    int r = 0;
    if (*objects)
        r = rt_change_set_string(cs, sv, "Object List", RT_REG_SZ, objects);
    else if (svc->object_list)
        r = rt_change_set_delete_service(cs, sv, "Object List");
    free(objects);
    const char *ini =
        opt->ini_name ? opt->ini_name : rt_path_base_name(spec->ini_path);
    if (r || rt_change_set_string(cs, sv, "PerfIniFile", RT_REG_SZ, ini))
        return -1;
    return 0;
}

int rt_engine_install(const struct rt_database *db,
                      const struct rt_service_info *svc,
                      const struct rt_provider_spec *spec,
                      const struct rt_install_options *opt,
                      struct rt_change_set *cs, struct rt_install_plan *plan,
                      struct rt_error *e)
{
    memset(plan, 0, sizeof *plan);
    int replacing = svc->has_perf && svc->has_range;
    if (refuse_install(db, svc, spec, opt, replacing, e) != 0)
        return -1;

    size_t n = 0;
    struct work_lang *w = work_new(db, &n, 1);
    if (!w)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int rc = -1;

    if (replacing) {
        plan->replaced = 1;
        plan->old_first_counter = svc->first_counter;
        plan->old_last_counter = svc->last_counter;
        plan->old_first_help = svc->first_help;
        plan->old_last_help = svc->last_help;
        for (size_t i = 0; i < n; i++)
            if (take_range(&w[i], 0, svc->first_counter, svc->last_counter) ||
                take_range(&w[i], 1, svc->first_help, svc->last_help))
                goto nomem;
    }

    /* Allocation (docs/design.md, "Allocating indices"), above what the
     * tables hold once the replaced range is cut. */
    struct rt_index_request rq = {
        .last_counter = db->last_counter,
        .last_help = db->last_help,
        .highest_counter = highest(w, n, 0),
        .highest_help = highest(w, n, 1),
        .replaced = replacing ? svc : NULL,
        .n_symbols = spec->n_symbols,
        .span = (uint32_t)spec->symbols[spec->n_symbols - 1].offset,
    };
    struct rt_index_allocation at;
    if (rt_engine_allocate_indices(&rq, &at, e) != 0)
        goto out;
    plan->first_counter = at.first_counter;
    plan->last_counter = at.last_counter;
    plan->first_help = at.first_help;
    plan->last_help = at.last_help;
    plan->kept_position = at.kept_position;
    plan->pairs_per_language = spec->n_symbols;

    struct rt_engine_picker picker;
    if (rt_engine_picker_init(&picker, spec) != 0)
        goto nomem;
    struct rt_change_budget budget = rt_change_budget_of(db);
    if (over_budget(w, n, spec, &picker, plan, &budget)) {
        rt_engine_picker_free(&picker);
        char what[300];
        snprintf(what, sizeof what, "the install of '%.200s'", svc->name);
        rt_change_budget_refuse(&budget, what, n, e);
        goto out;
    }
    int added = add_texts(w, n, spec, &picker, plan);
    rt_engine_picker_free(&picker);
    if (added != 0 || emit_tables(cs, w, n) != 0)
        goto nomem;

    /* Perflib values: written when they change or are missing
     * (docs/design.md, "What install writes": missing means Windows' base,
     * and gets written). */
    uint32_t lc = at.perflib_last_counter, lh = at.perflib_last_help;
    if ((lc != db->last_counter || !db->has_last_counter) &&
        rt_change_set_dword(cs, NULL, "Last Counter", lc))
        goto nomem;
    if ((lh != db->last_help || !db->has_last_help) &&
        rt_change_set_dword(cs, NULL, "Last Help", lh))
        goto nomem;
    if (!db->has_base_index && rt_change_set_dword(cs, NULL, "Base Index",
                                         db->base_index))
        goto nomem;
    if (emit_service_values(cs, svc, spec, opt, plan) != 0)
        goto nomem;
    rc = 0;
    goto out;
nomem:
    rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
out:
    work_free(w, n);
    if (rc != 0)
        rt_install_plan_free(plan);
    return rc;
}

static int overlaps(uint32_t a1, uint32_t a2, uint32_t b1, uint32_t b2)
{
    return a1 <= b2 && b1 <= a2;
}

/* Describes why SVC's range cannot be removed safely, or "" when it can. */
static void range_problems(const struct rt_database *db,
                           const struct rt_service_info *svc, char *buf,
                           size_t size)
{
    struct rt_strbuf f = {0};
    uint32_t fc = svc->first_counter, lc = svc->last_counter;
    uint32_t fh = svc->first_help, lh = svc->last_help;
    const char *sep = "";
    if (fc > lc || fh > lh) {
        rt_strbuf_printf(&f, "%srange is inverted (counter %u-%u, help %u-%u)", sep, fc,
                lc, fh, lh);
        sep = "; ";
    }
    if (fc % 2 || fh % 2 == 0) {
        rt_strbuf_printf(&f, "%sFirst Counter %u or First Help %u has the wrong parity "
                "(names are even, help odd)", sep, fc, fh);
        sep = "; ";
    }
    if (fc <= db->base_index || fh <= db->base_index) {
        rt_strbuf_printf(&f, "%srange overlaps the system's base range (Base Index %u)",
                sep, db->base_index);
        sep = "; ";
    }
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *o = &db->services[i];
        if (!rt_name_casecmp(o->name, svc->name) || !o->has_range ||
            !o->has_last_counter || !o->has_first_help || !o->has_last_help)
            continue;
        if (overlaps(fc, lc, o->first_counter, o->last_counter) ||
            overlaps(fh, lh, o->first_help, o->last_help)) {
            rt_strbuf_printf(&f, "%srange overlaps provider '%s' (counter %u-%u, help "
                    "%u-%u)", sep, o->name, o->first_counter, o->last_counter,
                    o->first_help, o->last_help);
            sep = "; ";
        }
    }
    snprintf(buf, size, "%s", f.s && !f.failed ? f.s : "");
    rt_strbuf_free(&f);
}

/* The highest range end (HELP: of help texts) of a provider other than
 * SVC, up to CAP, that provider in *ABOVE (NULL, and 0, when there is
 * none). */
static uint32_t highest_other(const struct rt_database *db,
                              const struct rt_service_info *svc, int help,
                              uint32_t cap,
                              const struct rt_service_info **above)
{
    uint32_t other = 0;
    *above = NULL;
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *o = &db->services[i];
        if (!rt_name_casecmp(o->name, svc->name) || !o->has_range)
            continue;
        int known = help ? o->has_first_help && o->has_last_help &&
                               o->first_help <= o->last_help
                         : o->has_last_counter &&
                               o->first_counter <= o->last_counter;
        uint32_t end = help ? o->last_help : o->last_counter;
        if (known && end > other && end <= cap) {
            other = end;
            *above = o;
        }
    }
    return other;
}

/* Perflib's Last Counter (HELP: Last Help) once SVC's range is gone from
 * W (docs/design.md, "Uninstall"; the rule in engine.h). The provider is on top when the
 * value lies within its range (the install set it there), or below its
 * range while nothing else, neither another provider's range nor a string,
 * lies above it (the value lies low: it stays, never raised to First - 2,
 * though the highest index present, another provider's range or the base
 * range still raise it). A value above the range is never lowered: real
 * machines keep Last Counter far above their highest string (11174 vs
 * 6137 in a real PerfStringBackup.INI, docs/design.md, "What real
 * machines look like") and the indices in between are handed out. */
static void settle_last(const struct rt_database *db,
                        const struct rt_service_info *svc,
                        const struct work_lang *w, size_t n, int help,
                        struct rt_last_change *out)
{
    const char *value = help ? "Last Help" : "Last Counter";
    const char *first_name = help ? "First Help" : "First Counter";
    const char *kind = help ? "help texts" : "names";
    const char *index = help ? "help index" : "name index";
    uint32_t first = help ? svc->first_help : svc->first_counter;
    uint32_t last = help ? svc->last_help : svc->last_counter;
    uint32_t old = help ? db->last_help : db->last_counter;
    /* Windows' own base is Last Counter 1846, Last Help 1847 with Base
     * Index 1847 (docs/design.md, "What install writes"): names are even, help odd. */
    uint32_t base = help ? db->base_index | 1u : db->base_index & ~1u;

    const struct rt_service_info *above;
    uint32_t other = highest_other(db, svc, help, UINT32_MAX, &above);
    /* The floor another provider sets is a range the value covered: one
     * already above it (planted past Last Counter, an error audit says)
     * would take the value there (4294967292: no room for any install
     * after, review 34 F4). */
    const struct rt_service_info *under;
    uint32_t floor = highest_other(db, svc, help, old, &under);

    memset(out, 0, sizeof *out);
    out->old_value = old;
    out->highest = highest(w, n, help);
    out->found_at = first >= 2 ? first - 2 : 0;
    int sane = first <= last;
    int held = sane && old >= first && old <= last;
    int lies_low = sane && old < first && other < first &&
                   out->highest < first;
    out->on_top = held || lies_low;

    char top[160];
    if (held)
        snprintf(top, sizeof top, "'%s' was on top (%s %u is within its %s "
                 "%u-%u)", svc->name, value, old, kind, first, last);
    else if (lies_low)
        snprintf(top, sizeof top, "'%s' was on top (%s %u lies below its %s "
                 "%u-%u, the highest of all)", svc->name, value, old, kind,
                 first, last);
    else if (!sane)
        snprintf(top, sizeof top, "'%s' is not on top (its %s %u-%u are "
                 "inverted)", svc->name, kind, first, last);
    else if (old > last)
        snprintf(top, sizeof top, "'%s' is not on top (%s %u is above its "
                 "%s %u-%u)", svc->name, value, old, kind, first, last);
    else if (other >= first)
        snprintf(top, sizeof top, "'%s' is not on top (provider '%s' ends "
                 "at %u, above its %s %u-%u)", svc->name, above->name, other,
                 kind, first, last);
    else
        snprintf(top, sizeof top, "'%s' is not on top (%s %u is still "
                 "present above its %s %u-%u)", svc->name, index,
                 out->highest, kind, first, last);

    /* A value that lies low stays low: First - 2 is above it, and an
     * uninstall never raises a value to its provider's range (Windows'
     * unlodctr only ever lowers it; a range planted near 2^32 would
     * leave Last Counter where no install finds room, review 33 F4). */
    uint32_t v = held ? out->found_at : old;
    out->rule = held ? RT_LAST_FOUND : RT_LAST_KEPT;
    if (out->highest > v) {
        v = out->highest;
        out->rule = RT_LAST_HIGHEST;
    }
    if (out->on_top && floor > v) {
        v = floor;
        out->rule = RT_LAST_PROVIDER;
    }
    if (base > v) {
        v = base;
        out->rule = RT_LAST_BASE;
    }
    out->new_value = v;

    char head[64], tail[160] = "";
    if (v == old)
        snprintf(head, sizeof head, "%s %u unchanged", value, old);
    else
        snprintf(head, sizeof head, "%s %u -> %u", value, old, v);
    if (out->on_top && out->rule == RT_LAST_FOUND)
        snprintf(tail, sizeof tail, ", back to where its install found it "
                 "(%s %u - 2)", first_name, first);
    else if (lies_low)
        snprintf(tail, sizeof tail, "; not raised to where its install "
                 "found it (%s %u - 2): an uninstall never raises it",
                 first_name, first);
    else if (out->on_top)
        snprintf(tail, sizeof tail, "; where its install found it (%s %u - "
                 "2 = %u) is too low", first_name, first, out->found_at);
    size_t len = (size_t)snprintf(out->why, sizeof out->why, "%s: %s%s", head,
                                  top, tail);
    if (len >= sizeof out->why)
        return;
    char *p = out->why + len;
    size_t room = sizeof out->why - len;
    switch (out->rule) {
    case RT_LAST_HIGHEST:
        snprintf(p, room, ", and it is never below the highest %s still "
                 "present (%u)", index, out->highest);
        break;
    case RT_LAST_PROVIDER:
        snprintf(p, room, ", and it is never below provider '%s' (%s up to "
                 "%u)", under->name, kind, floor);
        break;
    case RT_LAST_BASE:
        snprintf(p, room, ", and it is never below the base range (Base "
                 "Index %u)", db->base_index);
        break;
    default:
        break;
    }
}

/* Why SVC's INF copy cannot be looked for (side_files.h), as a sentence
 * that says what to do instead, or "". A bad name is shown escaped: it
 * came from the tree and may hold anything. */
static void side_skipped(const struct rt_service_info *svc, char *out,
                         size_t size)
{
    const char *why, *what, *value;
    if (svc->ini_file && (why = rt_win_name_problem(svc->ini_file))) {
        what = "its PerfIniFile";
        value = svc->ini_file;
    } else if ((why = rt_win_name_problem(svc->name))) {
        what = "its service name";
        value = svc->name;
    } else {
        *out = '\0';
        return;
    }
    char shown[100];
    rt_side_name_shown(value, shown, sizeof shown);
    snprintf(out, size,
             "%s '%s' is not a file name (%s): its INF copy was not looked "
             "for; remove INF\\%.80s\\ by hand if it is there",
             what, shown, why, svc->name);
}

int rt_engine_uninstall(const struct rt_database *db,
                        const struct rt_service_info *svc, int force,
                        struct rt_change_set *cs,
                        struct rt_uninstall_plan *plan, struct rt_error *e)
{
    memset(plan, 0, sizeof *plan);
    if (refuse_damaged(db, e))
        return -1;
    if (!svc->exists)
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                            "service '%s' does not exist", svc->name);
    if (!svc->has_perf || !svc->has_range)
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                            "'%s' is not installed: Services\\%s\\Performance "
                            "has no First Counter",
                            svc->name, svc->name);
    if (!svc->has_last_counter || !svc->has_first_help || !svc->has_last_help)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "'%s' has First Counter but not all of Last "
                            "Counter, First Help, Last Help: its range is "
                            "unknown, nothing was removed",
                            svc->name);
    char problems[1024] = "";
    range_problems(db, svc, problems, sizeof problems);
    if (*problems && !force)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "refusing to uninstall '%s': %s; nothing was "
                            "written ('regtool uninstall --force' removes "
                            "the range anyway)",
                            svc->name, problems);

    plan->first_counter = svc->first_counter;
    plan->last_counter = svc->last_counter;
    plan->first_help = svc->first_help;
    plan->last_help = svc->last_help;
    side_skipped(svc, plan->side_skipped, sizeof plan->side_skipped);
    size_t n = 0;
    struct work_lang *w = work_new(db, &n, 0);
    if (!w)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int rc = -1;
    for (size_t i = 0; i < n; i++) {
        if (take_range(&w[i], 0, plan->first_counter, plan->last_counter) ||
            take_range(&w[i], 1, plan->first_help, plan->last_help))
            goto nomem;
        plan->removed_names += w[i].removed[0].n;
        plan->removed_helps += w[i].removed[1].n;
    }
    if (emit_tables(cs, w, n) != 0)
        goto nomem;

    /* Last Counter and Last Help (docs/design.md, "Uninstall"). */
    settle_last(db, svc, w, n, 0, &plan->counter);
    settle_last(db, svc, w, n, 1, &plan->help);
    if (plan->counter.new_value != db->last_counter &&
        rt_change_set_dword(cs, NULL, "Last Counter", plan->counter.new_value))
        goto nomem;
    if (plan->help.new_value != db->last_help &&
        rt_change_set_dword(cs, NULL, "Last Help", plan->help.new_value))
        goto nomem;

    /* The values lodctr wrote (docs/design.md, "The provider's service key"). */
    static const char *const written[] = {"First Counter", "Last Counter",
                                          "First Help", "Last Help"};
    for (size_t i = 0; i < 4; i++)
        if (rt_change_set_delete_service(cs, svc->name, written[i]))
            goto nomem;
    if ((svc->object_list &&
         rt_change_set_delete_service(cs, svc->name, "Object List")) ||
        (svc->ini_file &&
         rt_change_set_delete_service(cs, svc->name, "PerfIniFile")) ||
        (svc->has_validation_code &&
         rt_change_set_delete_service(cs, svc->name,
                                      "Library Validation Code")))
        goto nomem;
    rc = 0;
    goto out;
nomem:
    rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
out:
    work_free(w, n);
    return rc;
}
