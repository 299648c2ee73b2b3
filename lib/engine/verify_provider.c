/* Engine layer: verify a provider's registration against its own data
 * (engine/verify.h). Pure: no I/O. */
#include "engine/verify.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/lang_id.h"
#include "model/sort_positions.h"
#include "model/utf16.h"

#define SYMPTOM_UNRESOLVED                                                    \
    "consumers show the bare index or skip the counter: .NET's "             \
    "PerformanceCounterCategory and windows_exporter say the counter is "    \
    "not found, Performance Monitor lists no name"
#define SYMPTOM_RANGE                                                         \
    "the index belongs to no provider, or to another one: consumers show "   \
    "another provider's names, and uninstalling either provider removes "    \
    "the other's strings"
#define SYMPTOM_ALIGN                                                         \
    "64-bit consumers read the next structure at a misaligned offset; PDH "  \
    "rejects the whole data block and every counter of every provider "      \
    "queried with it"
#define SYMPTOM_LIST                                                          \
    "Perflib routes a query for the object's index by Object List: a "       \
    "consumer asking for this object alone gets nothing"
#define SYMPTOM_MORE_DATA                                                     \
    "Collect wrote past the buffer it was given: the consuming process's "   \
    "memory is corrupted, or the data is cut short"
#define SYMPTOM_NO_DATA                                                       \
    "consumers find none of its objects: Performance Monitor lists the "     \
    "counters but shows no data"
#define FIX_PROVIDER "fix the provider (its Open reads First Counter and "   \
                     "First Help; its Collect builds the data)"
#define FIX_REINSTALL "regtool install --replace INI"

struct verify {
    const struct rt_database *db;
    const struct rt_service_info *svc;
    const struct rt_verify_input *in;
    struct rt_findings *f;
    int failed;
};

#define ADD(v, ...)                                                           \
    do {                                                                      \
        if (rt_findings_add((v)->f, __VA_ARGS__) != 0)                        \
            (v)->failed = 1;                                                  \
    } while (0)
#define EVIDENCE(v, i)                                                        \
    do {                                                                      \
        if (rt_findings_evidence((v)->f, (i), NULL) != 0)                     \
            (v)->failed = 1;                                                  \
    } while (0)

static int in_range(uint32_t x, uint32_t lo, uint32_t hi)
{
    return x >= lo && x <= hi;
}

/* Whether object X is this provider's: its name index in the provider's
 * range, or in no other provider's range and above the base range (a
 * provider with a wrong index base puts its objects there). */
static int ours(const struct verify *v, const struct rt_perf_object *x)
{
    const struct rt_service_info *s = v->svc;
    if (in_range(x->name_index, s->first_counter, s->last_counter))
        return 1;
    if (x->name_index <= v->db->base_index)
        return 0;
    for (size_t i = 0; i < v->db->n_services; i++) {
        const struct rt_service_info *o = &v->db->services[i];
        if (o->has_range && o->has_last_counter &&
            rt_name_casecmp(o->name, s->name) &&
            in_range(x->name_index, o->first_counter, o->last_counter))
            return 0;
    }
    return 1;
}

/* Calls FN for every title index of object X: its name and help, then
 * each counter's. */
static void each_title(const struct rt_perf_object *x,
                       void (*fn)(void *ctx, uint32_t index, int help),
                       void *ctx)
{
    fn(ctx, x->name_index, 0);
    fn(ctx, x->help_index, 1);
    for (size_t c = 0; c < x->n_counters; c++) {
        fn(ctx, x->counters[c].name_index, 0);
        fn(ctx, x->counters[c].help_index, 1);
    }
}

/* --- indices: range and parity ------------------------------------------ */

struct range_ctx {
    struct verify *v;
    int range_open, parity_open;
};

static void check_index(void *ctx, uint32_t x, int help)
{
    struct range_ctx *r = ctx;
    struct verify *v = r->v;
    const struct rt_service_info *s = v->svc;
    uint32_t lo = help ? s->first_help : s->first_counter;
    uint32_t hi = help ? s->last_help : s->last_counter;
    if (!in_range(x, lo, hi)) {
        if (!r->range_open++)
            ADD(v, "verify-index-outside-range", RT_AUDIT_ERROR, NULL,
                SYMPTOM_RANGE, FIX_PROVIDER,
                "%s: its data uses title indices outside its range (names "
                "%u-%u, help %u-%u)", s->name, s->first_counter,
                s->last_counter, s->first_help, s->last_help);
        EVIDENCE(v, x);
    }
    if ((x % 2 == 1) != (help != 0)) {
        if (!r->parity_open++)
            ADD(v, "verify-index-parity", RT_AUDIT_ERROR, NULL, SYMPTOM_RANGE,
                FIX_PROVIDER,
                "%s: its data has %s: the provider computes its indices "
                "from the wrong base (First Help for names, or First "
                "Counter for help)", s->name,
                help ? "help indices that are even" : "name indices that are odd");
        EVIDENCE(v, x);
    }
}

/* --- indices: resolved in each language ---------------------------------- */

/* A table the system serves that holds nothing above the base range and
 * only a handful of pairs: Wine's fixed stub ("1 1847 1846 End Marker"),
 * which nothing can write. Real machines' tables hold thousands. */
static int stub_table(const struct rt_database *db,
                      const struct rt_db_language *l)
{
    return l->tab[RT_TABLE_COUNTER].n < 8 &&
           l->tab[RT_TABLE_COUNTER].highest <= db->base_index;
}

struct resolve_ctx {
    struct verify *v;
    const struct rt_db_language *l;
    int open;
    /* Each table's indices, sorted: a title is one binary search, not a
     * pass over a table of hundreds of thousands of pairs. */
    uint32_t *sorted[2];
};

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* R's sorted copies of its language's indices; -1 when out of memory. */
static int resolve_start(struct resolve_ctx *r)
{
    for (int k = 0; k < 2; k++) {
        const struct rt_table *t = &r->l->tab[k];
        r->sorted[k] = malloc((t->n ? t->n : 1) * sizeof *r->sorted[k]);
        if (!r->sorted[k])
            return -1;
        for (size_t i = 0; i < t->n; i++)
            r->sorted[k][i] = t->v[i].index;
        qsort(r->sorted[k], t->n, sizeof *r->sorted[k], u32_cmp);
    }
    return 0;
}

static int resolve_has(const struct resolve_ctx *r, int k, uint32_t x)
{
    size_t n = r->l->tab[k].n, i = rt_lower_bound_u32(r->sorted[k], n, x);
    return i < n && r->sorted[k][i] == x;
}

static void resolve(void *ctx, uint32_t x, int help)
{
    struct resolve_ctx *r = ctx;
    struct verify *v = r->v;
    const struct rt_db_language *l = r->l;
    if (resolve_has(r, help ? RT_TABLE_HELP : RT_TABLE_COUNTER, x))
        return;
    /* English and the UI language are what consumers read; another
     * language falls back to English. */
    int main_language = rt_lang_same(l->id, "009") || rt_lang_is_current(l->id);
    if (!r->open++)
        ADD(v, "verify-index-unresolved",
            main_language ? RT_AUDIT_ERROR : RT_AUDIT_WARNING, l->id,
            SYMPTOM_UNRESOLVED, FIX_REINSTALL,
            "%s: title indices of its data are not in Perflib\\%s's tables",
            v->svc->name, l->id);
    EVIDENCE(v, x);
}

/* --- the walk ------------------------------------------------------------- */

static void check_alignment(struct verify *v, const struct rt_perf_object *x,
                            int *open)
{
    int bad = x->total_length % 8 ||
              (x->num_instances == RT_PERF_NO_INSTANCES &&
               x->block_length % 8);
    for (size_t i = 0; i < x->n_instances; i++)
        bad |= x->instances[i].byte_length % 8 ||
               x->instances[i].block_length % 8;
    if (!bad)
        return;
    if (!(*open)++)
        ADD(v, "verify-misaligned", RT_AUDIT_ERROR, NULL, SYMPTOM_ALIGN,
            FIX_PROVIDER,
            "%s: object %u has a length that is not a multiple of 8 (object "
            "%u bytes%s)", v->svc->name, x->name_index, x->total_length,
            x->num_instances == RT_PERF_NO_INSTANCES ? "" : ", or an instance's");
    EVIDENCE(v, x->name_index);
}

static void check_object_list(struct verify *v)
{
    const struct rt_perf_data *d = v->in->data;
    size_t n;
    uint32_t *list = rt_object_list_parse(v->svc->object_list, &n);
    if (!list) {
        v->failed = 1;
        return;
    }
    int open = 0;
    for (size_t i = 0; i < d->n_objects; i++) {
        const struct rt_perf_object *x = &d->objects[i];
        if (x->problem || !ours(v, x))
            continue;
        size_t k = 0;
        while (k < n && list[k] != x->name_index)
            k++;
        if (k < n)
            continue;
        if (!open++)
            ADD(v, "verify-object-not-listed", RT_AUDIT_WARNING, NULL,
                SYMPTOM_LIST, FIX_REINSTALL,
                "%s: objects in its data are not in its Object List (%s)",
                v->svc->name,
                v->svc->object_list ? v->svc->object_list : "absent");
        EVIDENCE(v, x->name_index);
    }
    open = 0;
    for (size_t k = 0; k < n; k++) {
        size_t i = 0;
        while (i < d->n_objects && d->objects[i].name_index != list[k])
            i++;
        if (i < d->n_objects)
            continue;
        if (!open++)
            ADD(v, "verify-object-list-missing", RT_AUDIT_WARNING, NULL,
                SYMPTOM_NO_DATA, FIX_PROVIDER,
                "%s: its Object List names objects its data does not hold "
                "(query \"%s\")", v->svc->name, v->in->query);
        EVIDENCE(v, list[k]);
    }
    free(list);
}

int rt_verify(const struct rt_database *db, const struct rt_verify_input *in,
              struct rt_findings *out)
{
    const struct rt_service_info *svc = rt_database_service(db, in->service);
    struct verify v = {db, svc, in, out, 0};
    if (!svc || !svc->has_range || !svc->has_last_counter ||
        !svc->has_first_help || !svc->has_last_help) {
        ADD(&v, "verify-not-installed", RT_AUDIT_ERROR, NULL, SYMPTOM_NO_DATA,
            "regtool install INI",
            "%s is not installed: %s", in->service,
            !svc ? "it has no Performance key"
                 : "its Performance key lacks First/Last Counter/Help");
        return v.failed ? -1 : 0;
    }
    const struct rt_perf_data *d = in->data;
    if (d->problem)
        ADD(&v, "verify-data-malformed", RT_AUDIT_ERROR, NULL, SYMPTOM_ALIGN,
            FIX_PROVIDER, "the performance data for query \"%s\" is "
            "malformed: %s", in->query, d->problem);
    if (d->wine_offset)
        ADD(&v, "verify-wine-offset", RT_AUDIT_INFO, NULL, NULL, NULL,
            "the objects lie one PERF_DATA_BLOCK past HeaderLength, where "
            "Wine places them; they were read there");
    if (in->more_data == 0)
        ADD(&v, "verify-more-data-ignored", RT_AUDIT_ERROR, NULL,
            SYMPTOM_MORE_DATA, FIX_PROVIDER,
            "%s: given a buffer too short for its data, Collect claimed "
            "success instead of returning ERROR_MORE_DATA", svc->name);

    struct range_ctx range = {&v, 0, 0};
    int align = 0;
    size_t found = 0;
    for (size_t i = 0; i < d->n_objects; i++) {
        const struct rt_perf_object *x = &d->objects[i];
        if (!ours(&v, x))
            continue;
        found++;
        if (x->problem) {
            ADD(&v, "verify-data-malformed", RT_AUDIT_ERROR, NULL,
                SYMPTOM_ALIGN, FIX_PROVIDER, "%s: object %u is malformed: %s",
                svc->name, x->name_index, x->problem);
            EVIDENCE(&v, x->name_index);
        }
        each_title(x, check_index, &range);
        check_alignment(&v, x, &align);
    }
    if (!found && !d->problem) {
        ADD(&v, "verify-no-data", RT_AUDIT_ERROR, NULL, SYMPTOM_NO_DATA,
            svc->has_disable && svc->disable
                ? "regtool enable DRIVER"
                : FIX_PROVIDER,
            "%s: the data for query \"%s\" holds none of its objects%s",
            svc->name, in->query,
            svc->has_disable && svc->disable
                ? " (Disable Performance Counters is set)"
                : ": its Library was not loaded, or its Open failed");
        return v.failed ? -1 : 0;
    }

    for (size_t l = 0; l < db->n_langs; l++) {
        const struct rt_db_language *lang = &db->langs[l];
        if (!lang->loaded)
            continue;
        if (stub_table(db, lang)) {
            ADD(&v, "verify-language-stub", RT_AUDIT_INFO, lang->id, NULL,
                NULL,
                "Perflib\\%s is a table the system serves with %zu names and "
                "nothing above Base Index (Wine's fixed stub): not checked",
                lang->id, lang->tab[RT_TABLE_COUNTER].n);
            continue;
        }
        struct resolve_ctx r = {&v, lang, 0, {NULL, NULL}};
        if (resolve_start(&r) != 0)
            v.failed = 1;
        else
            for (size_t i = 0; i < d->n_objects; i++)
                if (ours(&v, &d->objects[i]))
                    each_title(&d->objects[i], resolve, &r);
        free(r.sorted[0]);
        free(r.sorted[1]);
        if (v.failed)
            break;
    }
    check_object_list(&v);
    return v.failed ? -1 : 0;
}
