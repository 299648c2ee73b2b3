/* Engine layer: audit of the name database (audit.h). Every check works
 * on sorted views of the tables, so a database of a dozen languages and
 * tens of thousands of pairs is audited in O(n log n). */
#include "engine/audit_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/owned_ranges.h"
#include "model/lang_id.h"
#include "platform/os.h"

/* --- sorted views of a table ------------------------------------------ */


static int cmp_entry_ptr(const void *a, const void *b)
{
    const struct rt_msz_entry *x = *(const struct rt_msz_entry *const *)a;
    const struct rt_msz_entry *y = *(const struct rt_msz_entry *const *)b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x < y ? -1 : x > y;
}

static int view_make(struct view *v, const struct rt_table *t)
{
    v->t = t;
    v->n = t->n;
    v->p = malloc((t->n ? t->n : 1) * sizeof *v->p);
    if (!v->p)
        return -1;
    /* Tables are mostly written in index order: sort only when not. */
    int sorted = 1;
    for (size_t i = 0; i < t->n; i++) {
        v->p[i] = &t->v[i];
        if (i && t->v[i].index < t->v[i - 1].index)
            sorted = 0;
    }
    if (!sorted)
        qsort(v->p, v->n, sizeof *v->p, cmp_entry_ptr);
    return 0;
}

/* The first position in V whose index is at least INDEX. */
size_t rt_audit_view_lower(const struct view *v, uint32_t index)
{
    size_t lo = 0, hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->p[mid]->index < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static const struct rt_msz_entry *view_find(const struct view *v,
                                            uint32_t index)
{
    size_t lo = rt_audit_view_lower(v, index);
    return lo < v->n && v->p[lo]->index == index ? v->p[lo] : NULL;
}

/* How many pairs of A have their index in B with the same text (B's first
 * pair of that index). */
static size_t view_agreement(const struct view *a, const struct view *b)
{
    size_t n = 0;
    for (size_t i = 0; i < a->n; i++) {
        const struct rt_msz_entry *y = view_find(b, a->p[i]->index);
        if (y && rt_table_text_equal(a->t, a->p[i], b->t, y))
            n++;
    }
    return n;
}

/* A view's pairs sorted by index and then text, so that the pairs of one
 * index and text are counted by a search: CurrentLanguage is compared
 * with every language, and each comparison walked CurrentLanguage's
 * pairs (its size x languages, review 35 F8); it walks the other
 * language's now. */
struct keyed {
    struct kitem {
        uint32_t index, bytes;
        const uint8_t *text;
    } *v;
    size_t n;
};

static int cmp_kitem(const void *x, const void *y)
{
    const struct kitem *a = x, *b = y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return memcmp(a->text, b->text, a->bytes);
}

/* A text the table cannot give (damage) agrees with nothing. */
static int keyed_of(const struct view *a, struct keyed *k)
{
    k->n = 0;
    if (!(k->v = malloc((a->n ? a->n : 1) * sizeof *k->v)))
        return -1;
    for (size_t i = 0; i < a->n; i++) {
        const uint8_t *t = rt_table_at(a->t, a->p[i]->text);
        if (t)
            k->v[k->n++] = (struct kitem){a->p[i]->index,
                                          (uint32_t)a->p[i]->text_bytes, t};
    }
    qsort(k->v, k->n, sizeof *k->v, cmp_kitem);
    return 0;
}

/* The first of K's items not below X. */
static size_t keyed_lower(const struct keyed *k, const struct kitem *x)
{
    size_t lo = 0, hi = k->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp_kitem(&k->v[mid], x) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* view_agreement (A's pairs whose index B has with the same text as B's
 * first pair of it) with A keyed: over B's indices, each once. */
static size_t keyed_agreement(const struct keyed *a, const struct view *b)
{
    size_t n = 0;
    for (size_t j = 0; j < b->n; j++) {
        if (j && b->p[j - 1]->index == b->p[j]->index)
            continue;
        const uint8_t *t = rt_table_at(b->t, b->p[j]->text);
        if (!t)
            continue;
        struct kitem x = {b->p[j]->index, (uint32_t)b->p[j]->text_bytes, t};
        for (size_t i = keyed_lower(a, &x);
             i < a->n && !cmp_kitem(&a->v[i], &x); i++)
            n++;
    }
    return n;
}

static void views_free(struct lang_views *lv, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(lv[i].counter.p);
        free(lv[i].help.p);
    }
    free(lv);
}

/* --- checks ------------------------------------------------------------ */


/* A pair of table T as evidence: its index and its text, decoded here. */
static void evidence_at(struct audit *a, const struct rt_table *t,
                        const struct rt_msz_entry *x)
{
    struct rt_pair p;
    if (rt_msz_entry_pair(t->blob, x, &p) != 0) {
        a->failed = 1;
        return;
    }
    EVIDENCE(a, p.index, p.text);
    rt_pair_free(&p);
}

static const char *table_name(int k)
{
    return k ? "Help" : "Counter";
}

static const char *blob_id(enum rt_msz_status s)
{
    switch (s) {
    case RT_MSZ_ODD_LENGTH: return "blob-odd-length";
    case RT_MSZ_NO_TERMINATOR: return "blob-no-terminator";
    case RT_MSZ_EMPTY_INDEX: return "blob-empty-index";
    case RT_MSZ_BAD_INDEX: return "blob-bad-index";
    case RT_MSZ_INDEX_ZERO: return "blob-index-zero";
    case RT_MSZ_INDEX_RANGE: return "blob-index-range";
    case RT_MSZ_ODD_COUNT: return "blob-odd-count";
    case RT_MSZ_BAD_SURROGATE: return "blob-bad-surrogate";
    case RT_MSZ_EMPTY: return "blob-empty";
    default: return "blob-damaged";
    }
}

/* Values and blobs: present, REG_MULTI_SZ, well-formed, not empty. */
static void check_blobs(struct audit *a, const struct lang_views *v)
{
    const struct rt_db_language *l = v->l;
    for (int k = 0; k < 2; k++) {
        int present = k ? l->has_help : l->has_counter;
        const struct rt_table *list = &l->tab[k];
        if (!present) {
            ADD(a, "table-missing", RT_AUDIT_ERROR, l->id, SYMPTOM_NO_LANGUAGE,
                FIX_RESTORE, "Perflib\\%s has no %s table", l->id,
                table_name(k));
            continue;
        }
        if (l->type[k] != 7) {
            ADD(a, "blob-not-multi-sz", RT_AUDIT_ERROR, l->id, SYMPTOM_CORRUPT,
                FIX_REPAIR,
                "Perflib\\%s\\%s is of type %u, not REG_MULTI_SZ (7) (%zu "
                "bytes)", l->id, table_name(k), l->type[k], l->bytes[k]);
        }
        const struct rt_msz_error *d = &l->blob_damage[k];
        if (d->status != RT_MSZ_OK) {
            ADD(a, blob_id(d->status), RT_AUDIT_ERROR, l->id,
                d->status == RT_MSZ_ODD_COUNT || d->status == RT_MSZ_EMPTY_INDEX ||
                        d->status == RT_MSZ_BAD_INDEX
                    ? SYMPTOM_NET_INDEX
                    : SYMPTOM_CORRUPT,
                FIX_REPAIR,
                "Perflib\\%s\\%s is damaged at byte %zu of %zu: %s; %zu pairs "
                "before it are readable", l->id, table_name(k), d->offset,
                l->bytes[k], rt_msz_strerror(d->status), list->n);
        } else if (!list->n) {
            ADD(a, "table-empty", RT_AUDIT_ERROR, l->id,
                k ? SYMPTOM_HELP : SYMPTOM_NOT_FOUND, FIX_RESTORE,
                "Perflib\\%s\\%s holds no strings (%zu bytes)", l->id,
                table_name(k), l->bytes[k]);
        }
    }
}

/* The same index twice in one table: consumers take one of the texts. */
static void check_duplicates(struct audit *a, const struct lang_views *v)
{
    for (int k = 0; k < 2; k++) {
        const struct view *w = k ? &v->help : &v->counter;
        for (size_t i = 1; i < w->n; i++) {
            if (w->p[i]->index != w->p[i - 1]->index)
                continue;
            /* One finding for each run of the same index. */
            if (i >= 2 && w->p[i - 2]->index == w->p[i]->index)
                continue;
            size_t j = i + 1;
            while (j < w->n && w->p[j]->index == w->p[i]->index)
                j++;
            ADD(a, "duplicate-index", RT_AUDIT_ERROR, v->l->id, SYMPTOM_RANGE,
                FIX_REPAIR, "Perflib\\%s\\%s has index %u %zu times",
                v->l->id, table_name(k), w->p[i]->index, j - (i - 1));
            for (size_t m = i - 1; m < j; m++)
                evidence_at(a, w->t, w->p[m]);
        }
    }
}

/* Names at even indices and help at odd ones, each with its counterpart:
 * above Base Index a gap is a provider's mistake; below it, Windows' base
 * tables have some (docs/design.md, "What real machines look like"), which
 * is info only. */
static void check_parity_and_pairs(struct audit *a, const struct lang_views *v)
{
    uint32_t base = a->db->base_index;
    const char *id = v->l->id;
    for (int k = 0; k < 2; k++) {
        const struct view *w = k ? &v->help : &v->counter;
        int reported = 0;
        for (size_t i = 0; i < w->n; i++) {
            uint32_t x = w->p[i]->index;
            if (x == 1 && !k)
                continue;   /* the "1" pair holds Base Index */
            if ((x % 2 == 0) == (k == 0))
                continue;
            if (!reported++)
                ADD(a, k ? "help-at-even-index" : "name-at-odd-index",
                    x > base ? RT_AUDIT_WARNING : RT_AUDIT_INFO, id,
                    SYMPTOM_RANGE, FIX_REPAIR,
                    "Perflib\\%s\\%s has %s at %s indices", id, table_name(k),
                    k ? "help texts" : "names", k ? "even" : "odd");
            evidence_at(a, w->t, w->p[i]);
        }
    }
    /* Counterparts, counted below Base Index and listed above it. A help
     * text without its name in a provider's range is that provider's
     * lost name, which only its INI gives back; outside every range it
     * is an orphan, which pruning removes. */
    const struct rt_span *spans = a->spans[1];
    size_t n_spans = a->n_spans[1];
    for (int k = 0; k < 2; k++) {
        const struct view *w = k ? &v->help : &v->counter;
        const struct view *other = k ? &v->counter : &v->help;
        size_t below = 0;
        for (int owned = k; owned >= 0; owned--) {
            size_t listed = 0, j = 0;
            for (size_t i = 0; i < w->n; i++) {
                uint32_t x = w->p[i]->index;
                if ((x == 1 && !k) || (x % 2 == 0) != (k == 0))
                    continue;
                /* Both views are sorted: the counterparts are found by
                 * walking OTHER once beside W. */
                uint32_t want = k ? x - 1 : x + 1;
                while (j < other->n && other->p[j]->index < want)
                    j++;
                if (j < other->n && other->p[j]->index == want)
                    continue;
                if (x <= base) {
                    below += owned == 0;
                    continue;
                }
                if (k && rt_spans_have(spans, n_spans, x) != owned)
                    continue;
                if (!listed++) {
                    if (!k)
                        ADD(a, "name-without-help", RT_AUDIT_WARNING, id,
                            SYMPTOM_HELP, FIX_REPAIR,
                            "Perflib\\%s: names above Base Index %u without "
                            "a help text at the next index (name's index + 1)",
                            id, base);
                    else if (owned)
                        ADD(a, "help-without-name", RT_AUDIT_WARNING, id,
                            SYMPTOM_NOT_FOUND, FIX_FROM_INI,
                            "Perflib\\%s: help texts in a provider's range "
                            "without a name at the index before them (help "
                            "text's index - 1): the provider's names are lost",
                            id);
                    else
                        ADD(a, "help-without-name", RT_AUDIT_WARNING, id,
                            SYMPTOM_NOT_FOUND, FIX_PRUNE,
                            "Perflib\\%s: help texts above Base Index %u in no "
                            "provider's range without a name at the index "
                            "before them (help text's index - 1)", id, base);
                }
                evidence_at(a, w->t, w->p[i]);
            }
        }
        /* A few are normal; most of a table's counterparts gone is a
         * table that lost its text. */
        size_t whole = w->n;
        if (!k && below > 50 && below * 10 > whole)
            ADD(a, "help-missing-base", RT_AUDIT_WARNING, id, SYMPTOM_HELP,
                FIX_RESTORE,
                "Perflib\\%s: %zu of its %zu names below Base Index %u have "
                "no help text: the Help table lost its text", id, below,
                whole, base);
        else if (below)
            ADD(a, k ? "help-without-name-base" : "name-without-help-base",
                RT_AUDIT_INFO, id, NULL, NULL,
                "Perflib\\%s: %zu %s below Base Index %u without %s (normal in "
                "Windows' own tables)", id, below, k ? "help texts" : "names",
                base, k ? "a name" : "a help text");
    }
}

/* Strings above Base Index inside no provider's range, in runs. Each
 * string is looked up in the union of the ranges, not compared with
 * every provider's. */
static void check_orphans(struct audit *a, const struct lang_views *v)
{
    const struct rt_database *db = a->db;
    for (int k = 0; k < 2; k++) {
        const struct view *w = k ? &v->help : &v->counter;
        int open_run = 0;
        uint32_t last = 0;
        const struct rt_span *spans = a->spans[k];
        size_t n_spans = a->n_spans[k];
        for (size_t i = 0; i < w->n; i++) {
            uint32_t x = w->p[i]->index;
            if (x <= db->base_index)
                continue;
            if (rt_spans_have(spans, n_spans, x)) {
                open_run = 0;
                continue;
            }
            if (!open_run || x > last + 2) {
                ADD(a, "orphan-strings", RT_AUDIT_WARNING, v->l->id, NULL,
                    FIX_PRUNE,
                    "Perflib\\%s\\%s holds strings above Base Index %u that no "
                    "provider's range covers (left by an uninstall that did "
                    "not finish, or a provider removed by hand)",
                    v->l->id, table_name(k), db->base_index);
                open_run = 1;
            }
            evidence_at(a, w->t, w->p[i]);
            last = x;
        }
    }
}

/* Whether a UTF-16LE text is all ASCII. */
static int is_ascii(const uint8_t *s, size_t bytes)
{
    for (size_t i = 0; i + 1 < bytes; i += 2)
        if (s[i + 1] || s[i] >= 0x80)
            return 0;
    return 1;
}

/* English present, and English: a language pack that overwrote 009 leaves
 * it holding mostly non-ASCII text in the base range. */
static void check_english(struct audit *a)
{
    const struct lang_views *e = a->english;
    if (!e) {
        ADD(a, "english-missing", RT_AUDIT_ERROR, "009", SYMPTOM_ENGLISH,
            FIX_RESTORE, "Perflib has no 009 (English) language subkey");
        return;
    }
    size_t base = 0, foreign = 0;
    for (size_t i = 0; i < e->counter.n; i++) {
        const struct rt_msz_entry *p = e->counter.p[i];
        if (p->index < 2 || p->index > a->db->base_index)
            continue;
        base++;
        foreign += !is_ascii(e->counter.t->blob + p->text, p->text_bytes);
    }
    if (base >= 10 && foreign * 2 > base)
        ADD(a, "english-overwritten", RT_AUDIT_ERROR, "009", SYMPTOM_ENGLISH,
            FIX_RESTORE,
            "Perflib\\009 holds another language's text: %zu of its %zu base "
            "names are not ASCII", foreign, base);
}

/* CurrentLanguage mirrors one language's tables exactly. */
static void check_current(struct audit *a, const struct lang_views *cur)
{
    const struct lang_views *best = NULL;
    size_t best_n = 0;
    struct keyed k;
    if (keyed_of(&cur->counter, &k) != 0) {
        a->failed = 1;
        return;
    }
    for (size_t i = 0; i < a->n; i++) {
        const struct lang_views *o = &a->lv[i];
        if (o == cur || rt_lang_is_current(o->l->id) || o->l->fixed)
            continue;
        size_t n = keyed_agreement(&k, &o->counter);
        if (!best || n > best_n) {
            best = o;
            best_n = n;
        }
    }
    free(k.v);
    if (!best)
        return;
    size_t help = view_agreement(&cur->help, &best->help);
    if (best_n == cur->counter.n && best_n == best->counter.n &&
        help == cur->help.n && help == best->help.n)
        return;
    ADD(a, "current-language-differs", RT_AUDIT_WARNING, cur->l->id,
        SYMPTOM_CURRENT, FIX_REPAIR,
        "CurrentLanguage differs from %s, the language it mirrors: %zu of %zu "
        "names and %zu of %zu help texts agree", best->l->id, best_n,
        best->counter.n > cur->counter.n ? best->counter.n : cur->counter.n,
        help, best->help.n > cur->help.n ? best->help.n : cur->help.n);
}

/* Entries English has that a language lacks, and the reverse. Below Base
 * Index localized tables are smaller than English on real machines. */
static void check_against_english(struct audit *a, const struct lang_views *v)
{
    const struct lang_views *e = a->english;
    uint32_t base = a->db->base_index;
    for (int dir = 0; dir < 2; dir++) {
        const struct view *from = dir ? &v->counter : &e->counter;
        const struct view *to = dir ? &e->counter : &v->counter;
        size_t below = 0, listed = 0;
        for (size_t i = 0; i < from->n; i++) {
            uint32_t x = from->p[i]->index;
            if (x == 1 || (i && from->p[i - 1]->index == x) || view_find(to, x))
                continue;
            if (x <= base) {
                below++;
                continue;
            }
            if (!listed++)
                /* A localized table smaller than English is normal (SPEC
                 * 4.6): consumers fall back to English. Names English
                 * lacks are another matter. */
                ADD(a, dir ? "language-extra-entries" : "language-missing-entries",
                    dir ? RT_AUDIT_WARNING : RT_AUDIT_INFO, v->l->id,
                    dir ? SYMPTOM_NOT_FOUND : NULL, FIX_REPAIR,
                    dir ? "Perflib\\%s has names above Base Index that English "
                          "(009) lacks"
                        : "Perflib\\%s lacks names above Base Index that "
                          "English (009) has",
                    v->l->id);
            evidence_at(a, from->t, from->p[i]);
        }
        if (below && !dir)
            ADD(a, "language-smaller-base", RT_AUDIT_INFO, v->l->id, NULL, NULL,
                "Perflib\\%s lacks %zu of English's names below Base Index "
                "(normal: localized base tables are smaller)", v->l->id, below);
    }
}

static void check_perflib_values(struct audit *a)
{
    const struct rt_database *db = a->db;
    uint32_t hc = rt_database_highest(db, RT_TABLE_COUNTER);
    uint32_t hh = rt_database_highest(db, RT_TABLE_HELP);
    struct {
        const char *name, *below, *above, *out;
        uint32_t value, highest;
    } v[2] = {{"Last Counter", "last-counter-below-highest",
               "last-counter-above-highest", "last-counter-out-of-range",
               db->last_counter, hc},
              {"Last Help", "last-help-below-highest", "last-help-above-highest",
               "last-help-out-of-range", db->last_help, hh}};
    for (int k = 0; k < 2; k++) {
        if (v[k].value > RT_INDEX_MAX) {
            /* Not a reserve: nothing can be installed above it, and a
             * table holds no index past RT_INDEX_MAX. */
            ADD(a, v[k].out, RT_AUDIT_ERROR, NULL, SYMPTOM_NO_ROOM,
                FIX_REPAIR, "%s is %u, past %u, the highest index a name "
                "table may hold: no provider can be installed above it",
                v[k].name, v[k].value, RT_INDEX_MAX);
        } else if (v[k].value < v[k].highest) {
            ADD(a, v[k].below, RT_AUDIT_ERROR, NULL, SYMPTOM_CONSISTENCY,
                FIX_REPAIR, "%s is %u but index %u is in use", v[k].name,
                v[k].value, v[k].highest);
            EVIDENCE(a, v[k].highest, NULL);
        } else if (v[k].value > v[k].highest + 2) {
            ADD(a, v[k].above, RT_AUDIT_INFO, NULL, NULL, NULL,
                "%s is %u, above the highest index in use (%u): normal on real "
                "machines, the indices between are reserved", v[k].name,
                v[k].value, v[k].highest);
        }
    }
    if (!db->has_base_index)
        ADD(a, "base-index-missing", RT_AUDIT_WARNING, NULL, NULL, FIX_REPAIR,
            "Perflib has no Base Index value (%u assumed)", RT_BASE_INDEX);
    if (a->english) {
        const struct view *en = &a->english->counter;
        const struct rt_msz_entry *x = view_find(en, 1);
        struct rt_pair one = {0};
        char want[16];
        snprintf(want, sizeof want, "%u", db->base_index);
        if (x && rt_msz_entry_pair(en->t->blob, x, &one) != 0)
            a->failed = 1;
        else if (x && strcmp(one.text, want)) {
            ADD(a, "base-index-mismatch", RT_AUDIT_WARNING, "009", NULL,
                FIX_REPAIR, "Base Index is %u but Perflib\\009's pair 1 says %s",
                db->base_index, one.text);
            EVIDENCE(a, 1, one.text);
        }
        rt_pair_free(&one);
    }
    if (db->has_perflib_disable && db->perflib_disable)
        ADD(a, "perflib-disabled", RT_AUDIT_WARNING, NULL, SYMPTOM_DISABLED,
            "remove Perflib's Disable Performance Counters value",
            "Perflib's Disable Performance Counters is %u: every provider is "
            "off", db->perflib_disable);
}

/* The store's other copies of a table that are not the table
 * (docs/design.md, "Where the tables live"): 64-bit Windows keeps the .dat
 * tables in System32 and SysWOW64, and lodctr /R is run in both; Vista and
 * later serve the .dat files, so a Counter or Help value the hive still
 * holds is a stale copy. */
static void check_copies(struct audit *a, const char *only)
{
    const struct rt_database *db = a->db;
    for (size_t i = 0; i < db->n_copy_diffs; i++) {
        const struct rt_db_copy_diff *d = &db->copy_diffs[i];
        if (only && !rt_lang_same(only, d->lang))
            continue;
        char at[64];
        if (d->first_index)
            snprintf(at, sizeof at, "first at index %u", d->first_index);
        else
            snprintf(at, sizeof at, "after the last pair");
        const char *c = d->kind ? "h" : "c";
        if (d->which == RT_COPY_WOW64)
            ADD(a, "table-copy-wow64-differs", RT_AUDIT_ERROR, d->lang,
                SYMPTOM_WOW64, FIX_REPAIR,
                "Perflib\\%s\\%s: SysWOW64\\perf%s%s.dat (%zu bytes) differs "
                "from System32\\perf%s%s.dat (%zu bytes), %s; System32's is "
                "the one 64-bit programs read", d->lang, table_name(d->kind), c,
                d->lang, d->copy_bytes, c, d->lang, d->table_bytes, at);
        else
            ADD(a, "table-copy-hive-differs", RT_AUDIT_WARNING, d->lang,
                SYMPTOM_HIVE_COPY, FIX_REPAIR,
                "Perflib\\%s\\%s in the SOFTWARE hive (%zu bytes) differs from "
                "System32\\perf%s%s.dat (%zu bytes), %s; Windows serves the "
                ".dat file's table (Vista and later), the hive's value is a "
                "stale copy", d->lang, table_name(d->kind), d->copy_bytes, c,
                d->lang, d->table_bytes, at);
        if (d->first_index)
            EVIDENCE(a, d->first_index, NULL);
    }
}

int rt_audit(const struct rt_database *db, const struct rt_audit_options *opt,
             struct rt_findings *out)
{
    struct audit a = {.db = db, .f = out};
    a.lv = calloc(db->n_langs ? db->n_langs : 1, sizeof *a.lv);
    a.spans[0] = rt_owned_spans(db, 0, &a.n_spans[0]);
    a.spans[1] = rt_owned_spans(db, 1, &a.n_spans[1]);
    if (!a.lv || !a.spans[0] || !a.spans[1]) {
        free(a.lv);
        free(a.spans[0]);
        free(a.spans[1]);
        return -1;
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        a.lv[i].l = &db->langs[i];
        a.n++;
        if (view_make(&a.lv[i].counter, &db->langs[i].tab[0]) ||
            view_make(&a.lv[i].help, &db->langs[i].tab[1])) {
            views_free(a.lv, a.n);
            free(a.spans[0]);
            free(a.spans[1]);
            return -1;
        }
        if (rt_lang_same(db->langs[i].id, "009") && !db->langs[i].fixed)
            a.english = &a.lv[i];
    }
    const char *only = opt ? opt->language : NULL;
    const struct rt_db_language *en = rt_database_language(db, "009");
    /* A language the database lacks has no findings: said, not taken
     * for a clean one (a monitor pinned to a language mistyped). */
    if (only && !rt_database_language(db, only))
        ADD(&a, "language-absent", RT_AUDIT_ERROR, only, NULL,
            "check the language id: 'regtool query' lists the languages",
            "Perflib has no language %s: nothing of it can be audited",
            only);
    if ((!only || rt_lang_same(only, "009")) && !(en && en->fixed))
        check_english(&a);
    for (size_t i = 0; i < a.n; i++) {
        const struct lang_views *v = &a.lv[i];
        if (only && !rt_lang_same(only, v->l->id))
            continue;
        /* What the system serves fixed is nobody's to check or repair. */
        if (v->l->fixed) {
            ADD(&a, "language-fixed", RT_AUDIT_INFO, v->l->id, NULL, NULL,
                "Perflib\\%s is %s: not checked; consumers resolve names "
                "through the other languages", v->l->id, v->l->fixed_why);
            continue;
        }
        check_blobs(&a, v);
        check_duplicates(&a, v);
        check_parity_and_pairs(&a, v);
        check_orphans(&a, v);
        /* CurrentLanguage mirrors English where English is served fixed
         * (install gives it English text): nothing to compare it with. */
        if (rt_lang_is_current(v->l->id) && !(en && en->fixed))
            check_current(&a, v);
        else if (a.english && v != a.english)
            check_against_english(&a, v);
    }
    /* Perflib's values and the providers' checks find across languages:
     * under --lang, what they find of that language is kept (a provider
     * without its names in it), and what concerns every language (Last
     * Counter, a range past it), not another's. */
    size_t from = out->n;
    check_perflib_values(&a);
    rt_audit_check_providers(&a);
    if (only && !a.failed && rt_findings_keep_language(out, from, only) != 0)
        a.failed = 1;
    check_copies(&a, only);
    views_free(a.lv, a.n);
    free(a.spans[0]);
    free(a.spans[1]);
    return a.failed ? -1 : 0;
}
