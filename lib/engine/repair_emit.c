/* Engine layer: repair's result as changes (tables, Perflib values) and
 * the report of what it leaves for the user. */
#include "engine/repair_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* Moves pair P of FROM to the end of L (P's strings are L's then): no
 * copy of a text that is about to be freed, unless it lies in FROM's
 * block of texts. 0, or -1 when out of memory. */
static int move_pair(struct rt_pair_list *l, const struct rt_pair_list *from,
                     struct rt_pair *p)
{
    if (rt_pair_list_detach(from, p) != 0)
        return -1;
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
    l->v[l->n++] = (struct rt_pair){.index = p->index, .text_len = p->text_len,
                                    .text = p->text};
    p->text = p->index_raw = NULL;
    p->text_len = 0;
    return 0;
}

/* A's pairs marked in GONE become OUT (empty before): compacted where
 * they lie, in table order, then put in index order (ties in table
 * order, as the sorted walk found them) by a permutation of four-byte
 * positions; A's other pairs are freed and A is left empty. The pairs a
 * repair removes are most of a table when it drops millions of
 * duplicates: they are not held in a second array. 0, or -1 when out of
 * memory (A then still holds every pair). */
static int take_marked(struct rt_pair_list *a, const unsigned char *gone,
                       struct rt_pair_list *out)
{
    size_t kept = 0, sorted = 1;
    for (size_t i = 0; i < a->n; i++)
        if (gone[i]) {
            if (kept && a->v[i].index < a->v[kept - 1].index)
                sorted = 0;
            kept++;
        }
    uint32_t *perm = NULL;
    if (!sorted && !(perm = malloc(kept * sizeof *perm)))
        return -1;
    kept = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!gone[i]) {
            rt_pair_list_free_pair(a, &a->v[i]);
            continue;
        }
        /* As rt_pair_list_append makes it: the index in canonical form. */
        free(a->v[i].index_raw);
        a->v[i].index_raw = NULL;
        a->v[kept++] = a->v[i];
    }
    if (perm) {
        rt_pairs_sort_by_index(a->v, kept, perm);
        free(perm);
    }
    *out = *a;
    out->n = kept;
    memset(a, 0, sizeof *a);
    if (kept < out->cap / 2) {
        struct rt_pair *v = realloc(out->v, (kept ? kept : 1) * sizeof *v);
        if (v) {
            out->v = v;
            out->cap = kept ? kept : 1;
        }
    }
    return 0;
}

/* The multiset difference A - B of (index, text) pairs, appended to OUT:
 * copies, or with TAKE, A's own pairs moved out of A (a list about to be
 * freed: the pairs a repair removes are a whole table's when it prunes
 * every string, and are not held twice; with OUT empty, A's array
 * becomes OUT's and A is left empty). */
static int difference(struct rt_pair_list *a, const struct rt_pair_list *b,
                      struct rt_pair_list *out, int take)
{
    struct ipos *pa = rt_repair_sorted_positions(a);
    struct ipos *pb = rt_repair_sorted_positions(b);
    int in_place = take && !out->v;
    unsigned char *gone = in_place ? calloc(a->n ? a->n : 1, 1) : NULL;
    if (!pa || !pb || (in_place && !gone)) {
        free(pa);
        free(pb);
        free(gone);
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
        if (found)
            continue;
        if (in_place)
            gone[pa[i].pos] = 1;
        else if ((take ? move_pair(out, a, x)
                       : rt_pair_list_append(out, x->index, x->text)) != 0)
            rc = -1;
    }
    free(used);
    free(pa);
    free(pb);
    if (!rc && in_place)
        rc = take_marked(a, gone, out);
    free(gone);
    return rc;
}

/* A table whose store keeps other copies of it that differ (SysWOW64's
 * .dat file, a stale hive value: rt_database_load_copies) is written
 * again as it is: the store writes every copy a table change's bytes, in
 * the same commit. A table that changes anyway needs nothing more. */
/* The database's copy differences by language value (CurrentLanguage
 * above every value): each kept table finds its own by a search, not by
 * a scan of all of them (languages x differences, review 35 F6). */
struct diff_index {
    struct rt_lang_pos *v;
    size_t n;
};

static int diff_index_of(const struct rt_database *db, struct diff_index *x)
{
    x->n = 0;
    x->v = malloc((db->n_copy_diffs ? db->n_copy_diffs : 1) * sizeof *x->v);
    if (!x->v)
        return -1;
    for (size_t i = 0; i < db->n_copy_diffs; i++)
        if (rt_lang_key(db->copy_diffs[i].lang, &x->v[x->n].key))
            x->v[x->n++].pos = (uint32_t)i;
    qsort(x->v, x->n, sizeof *x->v, rt_lang_pos_cmp);
    return 0;
}

static int resync_copies(struct repair *rp, const struct diff_index *di,
                         struct rlang *w, int k, struct rt_change_set *cs)
{
    const struct rt_db_language *l = w->l;
    int wow = 0, hive = 0;
    uint32_t key = 0;
    size_t from = rt_lang_key(l->id, &key) ? rt_lang_pos_find(di->v, di->n, key)
                                            : di->n;
    for (size_t i = from; i < di->n && di->v[i].key == key; i++) {
        const struct rt_db_copy_diff *d = &rp->db->copy_diffs[di->v[i].pos];
        if ((int)d->kind != k)
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
              "System32's", l->id, rt_repair_kind_name(k), k ? "h" : "c",
              l->id);
    if (hive)
        FIXED(rp, "table-copy-hive-rewritten", l->id,
              "Perflib\\%s\\%s: the SOFTWARE hive's value rewritten from "
              "System32\\perf%s%s.dat, the table Windows serves", l->id,
              rt_repair_kind_name(k), k ? "h" : "c", l->id);
    return 0;
}

static int emit_tables(struct repair *rp, const struct diff_index *di,
                       struct rt_change_set *cs)
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
                if (resync_copies(rp, di, w, k, cs) != 0)
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

/* A table change for each list that differs from what is stored. */
int rt_repair_emit_tables(struct repair *rp, struct rt_change_set *cs)
{
    struct diff_index di;
    if (diff_index_of(rp->db, &di) != 0)
        return -1;
    int r = emit_tables(rp, &di, cs);
    free(di.v);
    return r;
}

int rt_repair_emit_values(struct repair *rp, struct rt_change_set *cs)
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
        if (present[k] && value[k] > RT_INDEX_MAX) {
            /* Past any index a table may hold: lowered to the highest
             * in use, by the tables or by a provider's range, so that
             * nothing installed is ever given out again. */
            uint32_t v = high[k];
            for (size_t i = 0; i < db->n_services; i++) {
                const struct rt_service_info *s = &db->services[i];
                uint32_t end = k ? s->last_help : s->last_counter;
                if ((k ? s->has_last_help : s->has_last_counter) &&
                    end <= RT_INDEX_MAX && end > v)
                    v = end;
            }
            if (rt_change_set_dword(cs, NULL, name[k], v) != 0)
                return -1;
            FIXED(rp, "last-index-lowered", NULL, "%s: %u -> %u, the highest "
                  "index in use (it was past %u, the highest a table may "
                  "hold)", name[k], value[k], v, RT_INDEX_MAX);
            continue;
        }
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
        struct rlang *en = rt_repair_lang_of(rp, "009");
        if (en && rt_repair_decoded(en, 0) != 0)
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
        "last-help-below-highest", "last-counter-out-of-range",
        "last-help-out-of-range", "provider-above-last-counter",
        "base-index-missing",
        "current-language-differs", "language-missing-entries",
        "table-copy-wow64-differs", "table-copy-hive-differs"};
    for (size_t i = 0; i < sizeof fixed_ids / sizeof *fixed_ids; i++)
        if (!strcmp(rt_finding_id(x), fixed_ids[i]))
            return NULL;
    if (!strcmp(rt_finding_id(x), "orphan-strings"))
        return opt && opt->prune_orphans ? NULL
               : "kept: --prune-orphans removes them";
    if (!strcmp(rt_finding_id(x), "counters-disabled") || !strcmp(rt_finding_id(x), "perflib-disabled"))
        return opt && opt->enable_disabled ? NULL
               : "kept: --enable-disabled re-enables them";
    if (!strcmp(rt_finding_id(x), "provider-strings-missing"))
        return opt && opt->from_ini
                   ? "its INI did not give them back (above, why)"
                   : "--from-ini DIR restores them from the provider's INI";
    if (!strncmp(rt_finding_id(x), "provider-", 9) || !strcmp(rt_finding_id(x), "object-list-outside-range"))
        return "a provider's registration is wrong: its INI says what it "
               "should be (reinstall it)";
    if (!strcmp(rt_finding_id(x), "english-overwritten") || !strcmp(rt_finding_id(x), "english-missing") ||
        !strcmp(rt_finding_id(x), "blob-empty") || !strcmp(rt_finding_id(x), "help-missing-base") ||
        !strcmp(rt_finding_id(x), "table-missing") || !strcmp(rt_finding_id(x), "table-empty"))
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
int rt_repair_report_left(struct repair *rp, const struct rt_change_set *cs)
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
         * read). Every list not as read has its change
         * (rt_repair_emit_tables). */
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
        if (rt_finding_severity(x) == RT_AUDIT_INFO)
            continue;
        const char *why = left_reason(x, rp->opt);
        char *message = rt_finding_message(x);
        if (!message ||
            rt_findings_add(&rp->r->left, rt_finding_id(x),
                            rt_finding_severity(x), x->language,
                            rt_finding_symptom(x), rt_finding_fix(x), "%s: %s",
                            message, why ? why : "needs a person's decision") != 0)
            rc = -1;
        free(message);
    }
    rt_findings_free(&f);
    tabs_free(rp, langs, db->n_langs);
    free(langs);
    free(svcs);
    return rc;
}
