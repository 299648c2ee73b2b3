/* Engine layer: the audit's checks of the providers (audit_internal.h):
 * their ranges against Perflib's values and each other's, their Object
 * Lists, and their names in every language. */
#include "engine/audit_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/side_files.h"
#include "model/lang_id.h"
#include "model/perf_data.h"

/* A provider whose range is judged against the others': complete, and
 * neither its counter nor its help range inverted (those are errors of
 * their own). */
static int range_comparable(const struct rt_service_info *s)
{
    return s->has_range && s->has_last_counter && s->has_first_help &&
           s->has_last_help && s->first_counter <= s->last_counter &&
           s->first_help <= s->last_help;
}

/* At most this many pairs of providers that share indices are listed: a
 * database of thousands of providers over one range would otherwise give
 * millions of findings. */
#define OVERLAP_MAX 1000u

struct ivl {
    uint32_t lo, hi;
    size_t svc;
};

static int ivl_cmp(const void *a, const void *b)
{
    const struct ivl *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->svc < y->svc ? -1 : x->svc > y->svc;
}

struct overlaps {
    struct pair_at {
        size_t i, j;
    } *v;
    size_t n;
    int more;       /* pairs beyond OVERLAP_MAX were not kept */
    int nomem;
};

static int pair_at_cmp(const void *a, const void *b)
{
    const struct pair_at *x = a, *y = b;
    if (x->i != y->i)
        return x->i < y->i ? -1 : 1;
    return x->j < y->j ? -1 : x->j > y->j;
}

/* Adds to O every pair of the N intervals IV that overlap: a sweep in
 * order of their starts that keeps the intervals still open (a heap by
 * their ends), so that each new one overlaps exactly those open. Stops
 * past 2 * OVERLAP_MAX pairs (counter and help pairs may coincide). */
static void sweep_overlaps(struct ivl *iv, size_t n, struct overlaps *o)
{
    size_t *heap = malloc((n + 1) * sizeof *heap);   /* by iv[].hi */
    size_t *open = malloc((n + 1) * sizeof *open);   /* open intervals */
    size_t *where = malloc((n + 1) * sizeof *where); /* each one's place */
    size_t nh = 0, no = 0;
    if (!heap || !open || !where) {
        o->nomem = 1;
        goto out;
    }
    qsort(iv, n, sizeof *iv, ivl_cmp);
    for (size_t x = 0; x < n && !o->more; x++) {
        while (nh && iv[heap[0]].hi < iv[x].lo) {
            size_t gone = heap[0];
            heap[0] = heap[--nh];
            for (size_t h = 0;;) {      /* sift down */
                size_t c = 2 * h + 1;
                if (c >= nh)
                    break;
                if (c + 1 < nh && iv[heap[c + 1]].hi < iv[heap[c]].hi)
                    c++;
                if (iv[heap[h]].hi <= iv[heap[c]].hi)
                    break;
                size_t t = heap[h];
                heap[h] = heap[c];
                heap[c] = t;
                h = c;
            }
            open[where[gone]] = open[--no];
            where[open[where[gone]]] = where[gone];
        }
        for (size_t k = 0; k < no; k++) {
            if (o->n == 2 * OVERLAP_MAX) {
                o->more = 1;
                break;
            }
            size_t i = iv[open[k]].svc, j = iv[x].svc;
            o->v[o->n++] = i < j ? (struct pair_at){i, j}
                                 : (struct pair_at){j, i};
        }
        where[x] = no;
        open[no++] = x;
        size_t h = nh++;
        heap[h] = x;
        while (h && iv[heap[(h - 1) / 2]].hi > iv[heap[h]].hi) {
            size_t p = (h - 1) / 2, t = heap[p];
            heap[p] = heap[h];
            heap[h] = t;
            h = p;
        }
    }
out:
    free(heap);
    free(open);
    free(where);
}

/* Per language: how many providers have no name in it, and the first;
 * and what each provider's check asks of the language, found once (the
 * names of its id, a binary search of an empty table, for each provider
 * and language: 8,000 of each 8 s, review 34 F6). */
struct lacking {
    /* Sixteen bytes in all: a tree of every language id (65,536) holds
     * as many. Providers are services of one hive, far fewer than 2^32. */
    uint32_t n, first;
    uint32_t top;           /* its highest name index; 0 when it has none */
    unsigned char fixed;    /* served fixed: not looked at */
    unsigned char main;     /* English, or what consumers read as the UI
                               language: a lack is an error */
};

static void language_facts(struct audit *a, struct lacking *lacking)
{
    for (size_t l = 0; lacking && l < a->n; l++) {
        const struct view *w = &a->lv[l].counter;
        const char *id = a->lv[l].l->id;
        lacking[l].top = w->n ? w->p[w->n - 1]->index : 0;
        lacking[l].fixed = a->lv[l].l->fixed != 0;
        lacking[l].main = rt_lang_same(id, "009") || rt_lang_is_current(id);
    }
}

/* Service I's names (range FC-LC) in every language: English's lack is an
 * error each; another language's is counted in LACKING (NULL: out of
 * memory) and said once for all the providers it lacks, since one
 * finding per provider and language would be services x languages. */
static void names_in_every_language(struct audit *a, size_t i, uint32_t fc,
                                    uint32_t lc, struct lacking *lacking)
{
    const struct rt_service_info *s = &a->db->services[i];
    for (size_t l = 0; l < a->n; l++) {
        const struct view *w = &a->lv[l].counter;
        const struct lacking *f = lacking ? &lacking[l] : NULL;
        if (f ? f->fixed : a->lv[l].l->fixed)
            continue;
        if (!f || f->top >= fc) {
            size_t lo = rt_audit_view_lower(w, fc);
            if (lo < w->n && w->p[lo]->index <= lc)
                continue;
        }
        /* English (and what consumers read as the UI language) must
         * have them; another language falls back to English. */
        if (f ? !f->main
              : !rt_lang_same(a->lv[l].l->id, "009") &&
                    !rt_lang_is_current(a->lv[l].l->id)) {
            if (lacking && !lacking[l].n++)
                lacking[l].first = (uint32_t)i;
            continue;
        }
        ADD(a, "provider-strings-missing", RT_AUDIT_ERROR, a->lv[l].l->id,
            SYMPTOM_NOT_FOUND, FIX_REINSTALL,
            "%s: Perflib\\%s has no name in its range %u-%u", s->name,
            a->lv[l].l->id, fc, lc);
    }
}

static void report_lacking(struct audit *a, struct lacking *lacking)
{
    const struct rt_database *db = a->db;
    for (size_t l = 0; lacking && l < a->n; l++) {
        if (!lacking[l].n)
            continue;
        const struct rt_service_info *s = &db->services[lacking[l].first];
        char others[80] = "";
        if (lacking[l].n == 2)
            snprintf(others, sizeof others, " and in another provider's");
        else if (lacking[l].n > 2)
            snprintf(others, sizeof others, " and in those of %zu other "
                     "providers", (size_t)lacking[l].n - 1);
        ADD(a, "provider-strings-missing", RT_AUDIT_INFO, a->lv[l].l->id,
            NULL, FIX_REINSTALL,
            "%s: Perflib\\%s has no name in its range %u-%u%s (consumers "
            "show the English names)", s->name, a->lv[l].l->id,
            s->first_counter, s->last_counter, others);
    }
}

/* The pairs of comparable providers whose counter or help ranges share
 * indices, each once, in database order; at most OVERLAP_MAX. */
static void find_overlaps(const struct rt_database *db, struct overlaps *o)
{
    memset(o, 0, sizeof *o);
    struct ivl *iv = malloc((db->n_services + 1) * sizeof *iv);
    o->v = malloc(4 * OVERLAP_MAX * sizeof *o->v);
    if (!iv || !o->v) {
        o->nomem = 1;
        free(iv);
        return;
    }
    for (int help = 0; help < 2; help++) {
        size_t n = 0;
        for (size_t i = 0; i < db->n_services; i++) {
            const struct rt_service_info *s = &db->services[i];
            if (range_comparable(s))
                iv[n++] = help ? (struct ivl){s->first_help, s->last_help, i}
                               : (struct ivl){s->first_counter,
                                              s->last_counter, i};
        }
        struct overlaps part = {o->v + o->n, 0, 0, 0};
        sweep_overlaps(iv, n, &part);
        o->n += part.n;
        o->more |= part.more;
        o->nomem |= part.nomem;
    }
    free(iv);
    qsort(o->v, o->n, sizeof *o->v, pair_at_cmp);
    size_t m = 0;
    for (size_t k = 0; k < o->n; k++)
        if (!m || pair_at_cmp(&o->v[m - 1], &o->v[k]))
            o->v[m++] = o->v[k];
    if (m > OVERLAP_MAX) {
        m = OVERLAP_MAX;
        o->more = 1;
    }
    o->n = m;
}

void rt_audit_check_providers(struct audit *a)
{
    const struct rt_database *db = a->db;
    struct overlaps ov;
    find_overlaps(db, &ov);
    if (ov.nomem)
        a->failed = 1;
    size_t next = 0;    /* the first pair of OV not yet listed */
    struct lacking *lacking = calloc(a->n ? a->n : 1, sizeof *lacking);
    if (!lacking)
        a->failed = 1;
    /* Only for providers to check: the table is otherwise left as
     * calloc made it, untouched pages (65,536 languages: a megabyte). */
    if (db->n_services)
        language_facts(a, lacking);
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *s = &db->services[i];
        if (s->has_disable && s->disable) {
            char fix[300];
            snprintf(fix, sizeof fix, "regtool enable %s", s->name);
            ADD(a, "counters-disabled", RT_AUDIT_WARNING, NULL, SYMPTOM_DISABLED,
                fix, "%s: Disable Performance Counters is %u: consumers skip it",
                s->name, s->disable);
        }
        const char *bad = s->ini_file ? rt_win_name_problem(s->ini_file)
                                      : NULL;
        if (bad) {
            char shown[100];
            rt_side_name_shown(s->ini_file, shown, sizeof shown);
            ADD(a, "perfinifile-invalid", RT_AUDIT_WARNING, NULL,
                SYMPTOM_INI_FILE, FIX_INI_FILE,
                "%s: PerfIniFile '%s' is not a file name (%s)", s->name,
                shown, bad);
        }
        if (!s->has_range)
            continue;
        if (!s->has_last_counter || !s->has_first_help || !s->has_last_help) {
            ADD(a, "provider-range-incomplete", RT_AUDIT_ERROR, NULL,
                SYMPTOM_RANGE, FIX_REINSTALL,
                "%s has First Counter %u but lacks %s", s->name,
                s->first_counter,
                !s->has_last_counter ? "Last Counter"
                : !s->has_first_help ? "First Help" : "Last Help");
            continue;
        }
        uint32_t fc = s->first_counter, lc = s->last_counter;
        uint32_t fh = s->first_help, lh = s->last_help;
        if (fc > lc || fh > lh) {
            ADD(a, "provider-range-inverted", RT_AUDIT_ERROR, NULL,
                SYMPTOM_RANGE, FIX_REINSTALL,
                "%s: range inverted (counter %u-%u, help %u-%u)", s->name, fc,
                lc, fh, lh);
            continue;
        }
        if (fc % 2 || fh % 2 == 0)
            ADD(a, "provider-range-parity", RT_AUDIT_ERROR, NULL, SYMPTOM_RANGE,
                FIX_REINSTALL,
                "%s: First Counter %u or First Help %u has the wrong parity "
                "(names are even, help odd)", s->name, fc, fh);
        if (fc <= db->base_index || fh <= db->base_index)
            ADD(a, "provider-overlaps-base", RT_AUDIT_ERROR, NULL,
                SYMPTOM_RANGE, FIX_REINSTALL,
                "%s: range %u-%u reaches into Windows' base range (Base Index "
                "%u)", s->name, fc, lc, db->base_index);
        if (lc > db->last_counter || lh > db->last_help)
            ADD(a, "provider-above-last-counter", RT_AUDIT_ERROR, NULL,
                SYMPTOM_CONSISTENCY, FIX_REPAIR,
                "%s: range ends at %u/%u, above Last Counter %u / Last Help %u",
                s->name, lc, lh, db->last_counter, db->last_help);
        for (; next < ov.n && ov.v[next].i == i; next++) {
            const struct rt_service_info *o = &db->services[ov.v[next].j];
            /* Seen on real machines; consumers read each index once,
             * but uninstalling either would cut the other's strings. */
            ADD(a, "provider-overlap", RT_AUDIT_WARNING, NULL, NULL,
                FIX_REINSTALL,
                "%s (counter %u-%u) and %s (counter %u-%u) share indices: "
                "uninstalling either would remove the other's strings "
                "(regtool refuses it without --force)",
                s->name, fc, lc, o->name, o->first_counter, o->last_counter);
        }
        names_in_every_language(a, i, fc, lc, lacking);
        /* Object List: indices of its objects, inside its range. */
        if (s->object_list) {
            size_t n_list = 0;
            uint32_t *list = rt_object_list_parse(s->object_list, &n_list);
            if (!list)
                a->failed = 1;
            int listed = 0;
            for (size_t k = 0; list && k < n_list; k++) {
                uint32_t x = list[k];
                if (x < fc || x > lc) {
                    if (!listed++)
                        ADD(a, "object-list-outside-range", RT_AUDIT_WARNING,
                            NULL, SYMPTOM_NOT_FOUND, FIX_REINSTALL,
                            "%s: Object List names indices outside its range "
                            "%u-%u", s->name, fc, lc);
                    EVIDENCE(a, x, NULL);
                }
            }
            free(list);
        }
    }
    if (ov.more)
        ADD(a, "provider-overlap", RT_AUDIT_WARNING, NULL, NULL, FIX_REINSTALL,
            "more than %u pairs of providers share indices: only %u are "
            "listed", OVERLAP_MAX, OVERLAP_MAX);
    free(ov.v);
    report_lacking(a, lacking);
    free(lacking);
}
