/* Model layer: loading the name database from a store into memory. The
 * only I/O is through the store interface. */
#include "engine/database.h"
#include "model/lang_id.h"
#include "model/sort_positions.h"
#include "model/utf16.h"
#include "platform/progress.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int read_dword(struct rt_store *s, const char *svc, const char *name,
                      uint32_t *out, int *present, struct rt_error *e)
{
    struct rt_value v = {0};
    int r = svc ? s->ops->read_service(s, svc, name, &v, present, e)
                : s->ops->read_perflib(s, name, &v, present, e);
    if (r != 0)
        return -1;
    /* A value of the wrong type counts as absent: it is not what Windows
     * reads either. Audit reports it. */
    if (*present && rt_value_dword(&v, out) != 0)
        *present = 0;
    rt_value_free(&v);
    return 0;
}

static int read_string_typed(struct rt_store *s, const char *svc,
                             const char *name, char **out, uint32_t *type,
                             int *there, struct rt_error *e)
{
    struct rt_value v = {0};
    int present = 0;
    *out = NULL;
    if (s->ops->read_service(s, svc, name, &v, &present, e) != 0)
        return -1;
    int r = 0;
    if (there)
        *there = present;
    if (present) {
        if (rt_value_to_string(&v, out) != 0)
            r = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        if (type)
            *type = v.type;
    }
    rt_value_free(&v);
    return r;
}

int rt_database_service_string(struct rt_store *s, const char *svc,
                               const char *name, char **out,
                               struct rt_error *e)
{
    return read_string_typed(s, svc, name, out, NULL, NULL, e);
}

/* Frees SI's values, all but its name. */
static void free_values(struct rt_service_info *si)
{
    free(si->library);
    free(si->open);
    free(si->collect);
    free(si->close);
    free(si->object_list);
    free(si->ini_file);
}

void rt_service_info_free(struct rt_service_info *si)
{
    free(si->name);
    free_values(si);
    memset(si, 0, sizeof *si);
}

/* Reads service NAME's values into SI, whose name the caller set (and
 * keeps on failure: the values read are freed, and SI's fields other than
 * its name zeroed). */
static int load_values(struct rt_store *s, const char *name,
                       struct rt_service_info *si, struct rt_error *e)
{
    char *own_name = si->name;
    memset(si, 0, sizeof *si);
    si->name = own_name;
    /* The flags are single bits: each is read into an int first. */
    int exists = 0, has_perf = 0, has_range = 0, has_last_counter = 0,
        has_first_help = 0, has_last_help = 0, has_disable = 0,
        has_validation_code = 0, has_library = 0;
    if (s->ops->service_state(s, name, &exists, &has_perf, e) != 0)
        goto fail;
    si->exists = exists;
    si->has_perf = has_perf;
    if (!has_perf)
        return 0;
    if (read_dword(s, name, "First Counter", &si->first_counter, &has_range,
                   e) ||
        read_dword(s, name, "Last Counter", &si->last_counter,
                   &has_last_counter, e) ||
        read_dword(s, name, "First Help", &si->first_help, &has_first_help,
                   e) ||
        read_dword(s, name, "Last Help", &si->last_help, &has_last_help, e) ||
        read_dword(s, name, "Disable Performance Counters", &si->disable,
                   &has_disable, e) ||
        read_string_typed(s, name, "Library", &si->library, &si->library_type,
                          &has_library, e) ||
        rt_database_service_string(s, name, "Open", &si->open, e) ||
        rt_database_service_string(s, name, "Collect", &si->collect, e) ||
        rt_database_service_string(s, name, "Close", &si->close, e) ||
        rt_database_service_string(s, name, "Object List", &si->object_list, e) ||
        rt_database_service_string(s, name, "PerfIniFile", &si->ini_file, e))
        goto fail;
    struct rt_value v = {0};
    if (s->ops->read_service(s, name, "Library Validation Code", &v,
                             &has_validation_code, e) != 0)
        goto fail;
    rt_value_free(&v);
    si->has_range = has_range;
    si->has_last_counter = has_last_counter;
    si->has_first_help = has_first_help;
    si->has_last_help = has_last_help;
    si->has_disable = has_disable;
    si->has_validation_code = has_validation_code;
    si->has_library = has_library;
    return 0;
fail:
    free_values(si);
    memset(si, 0, sizeof *si);
    si->name = own_name;
    return -1;
}

int rt_service_load(struct rt_store *s, const char *name,
                    struct rt_service_info *si, struct rt_error *e)
{
    memset(si, 0, sizeof *si);
    if (!(si->name = strdup(name)))
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (load_values(s, name, si, e) != 0) {
        rt_service_info_free(si);
        return -1;
    }
    return 0;
}

void rt_database_unload_language(struct rt_db_language *l)
{
    rt_name_table_free(&l->table);
    rt_table_free(&l->tab[0]);
    rt_table_free(&l->tab[1]);
    rt_value_free(&l->raw[0]);
    rt_value_free(&l->raw[1]);
    /* Back as listed without tables: the id, and what the store says of
     * the language itself. */
    struct rt_db_language kept = {0};
    kept.id = l->id;
    kept.fixed = l->fixed;
    kept.fixed_why = l->fixed_why;
    *l = kept;
}

void rt_database_keep_pairs_only(struct rt_database *db)
{
    for (size_t i = 0; i < db->n_langs; i++)
        for (int k = 0; k < 2; k++) {
            rt_table_free(&db->langs[i].tab[k]);
            rt_value_free(&db->langs[i].raw[k]);
        }
}

/* Positions in the database's arrays, sorted: languages by id ignoring
 * case and by their number, services by name ignoring case; equals in
 * database order, so that a search finds what a scan from the start
 * finds. Valid for the arrays (and counts) it was built from. */
struct rt_db_index {
    const struct rt_db_language *langs;
    size_t n_langs;
    const struct rt_service_info *services;
    size_t n_services;
    struct lang_at {
        const char *id;
        unsigned value;
        size_t at;
    } *lang_by_id, *lang_by_value;
    size_t n_by_value;
    /* Positions in services: four bytes a service, sorted in place
     * (rt_sort_positions), so that a database of hundreds of thousands
     * of services is indexed without a second copy of them. */
    uint32_t *service_by_name;
};

static int lang_id_cmp(const void *a, const void *b)
{
    const struct lang_at *x = a, *y = b;
    int c = strcasecmp(x->id, y->id);
    return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

static int lang_value_cmp(const void *a, const void *b)
{
    const struct lang_at *x = a, *y = b;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int service_name_cmp(uint32_t a, uint32_t b, const void *ctx)
{
    const struct rt_service_info *v = ctx;
    int c = rt_name_casecmp(v[a].name, v[b].name);
    return c ? c : a < b ? -1 : a > b;
}

/* Builds DB's index; without memory for it, the lookups scan. */
static void index_database(struct rt_database *db)
{
    struct rt_db_index *x = calloc(1, sizeof *x);
    /* A position is 32 bits: a database of more services (never a real
     * one: a hive holds far fewer keys) is scanned. */
    if (!x || db->n_services > UINT32_MAX) {
        free(x);
        return;
    }
    x->lang_by_id = malloc((db->n_langs + 1) * sizeof *x->lang_by_id);
    x->lang_by_value = malloc((db->n_langs + 1) * sizeof *x->lang_by_value);
    x->service_by_name =
        malloc((db->n_services + 1) * sizeof *x->service_by_name);
    if (!x->lang_by_id || !x->lang_by_value || !x->service_by_name) {
        free(x->lang_by_id);
        free(x->lang_by_value);
        free(x->service_by_name);
        free(x);
        return;
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        const char *id = db->langs[i].id;
        x->lang_by_id[i] = (struct lang_at){id, 0, i};
        unsigned v;
        if (!rt_lang_is_current(id) && rt_lang_value(id, &v) == 0)
            x->lang_by_value[x->n_by_value++] = (struct lang_at){id, v, i};
    }
    for (size_t i = 0; i < db->n_services; i++)
        x->service_by_name[i] = (uint32_t)i;
    qsort(x->lang_by_id, db->n_langs, sizeof *x->lang_by_id, lang_id_cmp);
    qsort(x->lang_by_value, x->n_by_value, sizeof *x->lang_by_value,
          lang_value_cmp);
    rt_sort_positions(x->service_by_name, db->n_services, service_name_cmp,
                      db->services);
    x->langs = db->langs;
    x->n_langs = db->n_langs;
    x->services = db->services;
    x->n_services = db->n_services;
    db->index = x;
}

static const struct rt_db_index *current_index(const struct rt_database *db)
{
    const struct rt_db_index *x = db->index;
    return x && x->langs == db->langs && x->n_langs == db->n_langs &&
                   x->services == db->services &&
                   x->n_services == db->n_services
               ? x
               : NULL;
}

/* The first of the N sorted entries of size SIZE at V for which
 * BELOW(entry, key) is false. */
static size_t lower_bound(const void *v, size_t n, size_t size,
                          int (*below)(const void *entry, const void *key),
                          const void *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (below((const char *)v + mid * size, key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int id_below(const void *entry, const void *key)
{
    return strcasecmp(((const struct lang_at *)entry)->id, key) < 0;
}

static int value_below(const void *entry, const void *key)
{
    return ((const struct lang_at *)entry)->value < *(const unsigned *)key;
}


static const struct rt_db_language *
indexed_language(const struct rt_database *db, const struct rt_db_index *x,
                 const char *id)
{
    size_t i = lower_bound(x->lang_by_id, x->n_langs, sizeof *x->lang_by_id,
                           id_below, id);
    if (i < x->n_langs && !strcasecmp(x->lang_by_id[i].id, id))
        return &db->langs[x->lang_by_id[i].at];
    unsigned v;
    /* CurrentLanguage is the same only as itself, found above. */
    if (rt_lang_is_current(id) || rt_lang_value(id, &v) != 0)
        return NULL;
    i = lower_bound(x->lang_by_value, x->n_by_value, sizeof *x->lang_by_value,
                    value_below, &v);
    if (i < x->n_by_value && x->lang_by_value[i].value == v)
        return &db->langs[x->lang_by_value[i].at];
    return NULL;
}

void rt_database_free(struct rt_database *db)
{
    for (size_t i = 0; i < db->n_langs; i++) {
        rt_database_unload_language(&db->langs[i]);
        free(db->langs[i].id);
        free(db->langs[i].fixed_why);
    }
    free(db->langs);
    for (size_t i = 0; i < db->n_services; i++) {
        /* A loaded database's names are in its pool, freed below. */
        if (db->service_names.head)
            db->services[i].name = NULL;
        rt_service_info_free(&db->services[i]);
    }
    free(db->services);
    rt_str_pool_free(&db->service_names);
    rt_database_copies_free(db);
    if (db->index) {
        free(db->index->lang_by_id);
        free(db->index->lang_by_value);
        free(db->index->service_by_name);
        free(db->index);
    }
    memset(db, 0, sizeof *db);
}

void rt_database_copies_free(struct rt_database *db)
{
    for (size_t i = 0; i < db->n_copy_diffs; i++)
        free(db->copy_diffs[i].lang);
    free(db->copy_diffs);
    db->copy_diffs = NULL;
    db->n_copy_diffs = 0;
}

/* The first index where table T and the blob COPY differ, pair by pair in
 * table order (a pair differs in its index or its text); 0 when the pairs
 * agree and only what follows them differs. */
static uint32_t first_difference(const struct rt_table *t, const uint8_t *copy,
                                 size_t len, int *nomem)
{
    struct rt_table c = {0};
    struct rt_msz_error me;
    uint8_t *dup = malloc(len ? len : 1);
    *nomem = 0;
    if (!dup) {
        *nomem = 1;
        return 0;
    }
    if (len)
        memcpy(dup, copy, len);
    if (rt_table_load(&c, dup, len, &me) && me.status == RT_MSZ_NOMEM) {
        rt_table_free(&c);
        *nomem = 1;
        return 0;
    }
    uint32_t x = 0;
    size_t n = t->n < c.n ? t->n : c.n;
    for (size_t i = 0; i < n && !x; i++)
        if (t->v[i].index != c.v[i].index ||
            !rt_table_text_equal(t, &t->v[i], &c, &c.v[i]))
            x = t->v[i].index < c.v[i].index ? t->v[i].index : c.v[i].index;
    if (!x && t->n != c.n)
        x = t->n > n ? t->v[n].index : c.v[n].index;
    rt_table_free(&c);
    return x;
}

int rt_database_load_copies(struct rt_store *s, struct rt_database *db,
                            struct rt_error *e)
{
    if (!s->ops->read_table_copy)
        return 0;
    static const int which[] = {RT_COPY_WOW64, RT_COPY_HIVE};
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_db_language *l = &db->langs[i];
        if (!l->loaded)
            continue;
        for (int k = 0; k < 2; k++)
            for (size_t w = 0; w < 2; w++) {
                struct rt_value v = {0};
                int present = 0, nomem = 0;
                if (s->ops->read_table_copy(s, l->id, (enum rt_table_kind)k,
                                            which[w], &v, &present, e) != 0)
                    return -1;
                const struct rt_table *t = &l->tab[k];
                if (!present || (v.len == t->len &&
                                 (!v.len || !memcmp(v.data, t->blob, v.len)))) {
                    rt_value_free(&v);
                    continue;
                }
                uint32_t x = first_difference(t, v.data, v.len, &nomem);
                /* Grown to a power of two from four: thousands of
                 * languages each with a difference were as many
                 * reallocations of the whole array. */
                size_t n = db->n_copy_diffs;
                struct rt_db_copy_diff *nd = db->copy_diffs;
                if (!nomem && (n == 0 || (n >= 4 && !(n & (n - 1)))))
                    nd = realloc(db->copy_diffs,
                                 (n ? 2 * n : 4) * sizeof *nd);
                if (nomem)
                    nd = NULL;
                size_t copy_len = v.len;
                rt_value_free(&v);
                if (!nd)
                    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                        "out of memory");
                db->copy_diffs = nd;
                struct rt_db_copy_diff *d = &nd[db->n_copy_diffs];
                *d = (struct rt_db_copy_diff){strdup(l->id),
                                              (enum rt_table_kind)k, which[w],
                                              x, t->len, copy_len};
                if (!d->lang)
                    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                        "out of memory");
                db->n_copy_diffs++;
            }
    }
    return 0;
}

/* Where a lean load keeps T from: its first pair with an index in
 * [FIRST, LAST] (stored order), else the end of its pairs. */
static size_t tail_start(const struct rt_msz_entry *v, size_t n,
                         uint32_t first, uint32_t last)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].index >= first && v[i].index <= last)
            return v[i].at;
    return rt_msz_pairs_end(v, n);
}

/* A lean load's tables that keep only their tail: KEEP[k] for kind k
 * (0: whole), from the first pair in [FIRST[k], LAST[k]]. */
struct tail_range {
    int keep[2];
    uint32_t first[2], last[2];
};

/* Every table whole. */
static const struct tail_range no_tail = {{0, 0}, {1, 1}, {0, 0}};

/* Copies bytes [FROM, P->total) of a table in pieces into a new buffer. */
static uint8_t *pieces_tail(const struct rt_table_pieces *p, size_t from)
{
    uint8_t *out = malloc(p->total - from + 1);
    if (out)
        rt_pieces_copy(p->piece, p->len, p->n, from, out, p->total - from);
    return out;
}

/* A lean load's Help table scanned where the store holds it, keeping a
 * copy of its tail only: 0 when done (*DONE 1), or not possible here
 * (*DONE 0: damage, or a store that cannot; the caller reads a copy). */
static int load_tail_in_place(struct rt_store *s, struct rt_db_language *l,
                              int k, const struct tail_range *tail,
                              int *present, int *done, struct rt_error *e)
{
    struct rt_table_pieces p;
    *done = 0;
    if (!s->ops->read_table_pieces)
        return 0;
    int r = s->ops->read_table_pieces(s, l->id, (enum rt_table_kind)k, &p,
                                      present, e);
    if (r < 0)
        return -1;
    if (r > 0 || !*present || !p.total) {
        rt_table_pieces_free(&p);
        return 0;
    }
    struct rt_msz_entry *v;
    size_t n;
    r = rt_multi_sz_scan_pieces(p.piece, p.len, p.n, &v, &n);
    if (r == 0) {
        size_t from = tail_start(v, n, tail->first[k], tail->last[k]);
        uint8_t *bytes = pieces_tail(&p, from);
        if (!bytes) {
            free(v);
            r = -1;
        } else {
            rt_table_set(&l->tab[k], bytes, from, p.total, v, n);
            l->type[k] = p.type;
            l->bytes[k] = p.total;
            *done = 1;
        }
    }
    rt_table_pieces_free(&p);
    return r < 0 ? rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory")
                 : 0;
}

static int load_language(struct rt_store *s, struct rt_db_language *l,
                         int pairs, unsigned kinds,
                         const struct tail_range *tail, struct rt_error *e)
{
    int present[2] = {0, 0};
    l->loaded = 1;
    for (int k = 0; k < 2; k++) {
        struct rt_value v = {0};
        if (kinds && !(kinds & 1u << k))
            continue;
        int done = 0;
        if (tail->keep[k] &&
            load_tail_in_place(s, l, k, tail, &present[k], &done, e) != 0)
            return -1;
        if (done)
            continue;
        if (s->ops->read_table(s, l->id, (enum rt_table_kind)k, &v,
                               &present[k], e) != 0)
            return -1;
        l->type[k] = v.type;
        l->bytes[k] = v.len;
        /* The blob is kept as read (UTF-16) and indexed in one scan. */
        if (rt_table_load(&l->tab[k], v.data, v.len, &l->blob_damage[k]) &&
            l->blob_damage[k].status == RT_MSZ_NOMEM)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        /* A table of no bytes at all (a .dat file cut to nothing) lost
         * every name it had: damage, not an empty language. */
        if (l->blob_damage[k].status == RT_MSZ_OK && present[k] && !v.len)
            l->blob_damage[k] = (struct rt_msz_error){RT_MSZ_EMPTY, 0};
        if (tail->keep[k] &&
            l->blob_damage[k].status == RT_MSZ_OK &&
            rt_table_keep_from(&l->tab[k],
                               tail_start(l->tab[k].v, l->tab[k].n,
                                          tail->first[k],
                                          tail->last[k])) != 0)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        if (l->blob_damage[k].status != RT_MSZ_OK) {
            /* A damaged blob's bytes, for repair's salvage. */
            l->raw[k].type = v.type;
            l->raw[k].len = v.len;
            l->raw[k].data = malloc(v.len ? v.len : 1);
            if (!l->raw[k].data)
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            if (v.len)
                memcpy(l->raw[k].data, v.data, v.len);
            if (!l->damaged) {
                l->damaged = 1;
                l->damage_in_help = k;
                l->damage = l->blob_damage[k];
            }
        }
    }
    l->has_counter = present[RT_TABLE_COUNTER];
    l->has_help = present[RT_TABLE_HELP];
    l->help_damaged = l->blob_damage[RT_TABLE_HELP].status != RT_MSZ_OK;
    if (pairs && (rt_table_pairs(&l->tab[0], &l->table.counter) ||
                  rt_table_pairs(&l->tab[1], &l->table.help)))
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}

/* The language whose tables are read in RT_DB_TABLES_ONE mode: the one
 * rt_database_language would pick for LANG; N when there is none. */
static size_t pick_language(char **ids, size_t n, const char *lang)
{
    for (size_t j = 0; j < n; j++)
        if (!strcasecmp(ids[j], lang))
            return j;
    for (size_t j = 0; j < n; j++)
        if (rt_lang_same(ids[j], lang))
            return j;
    return n;
}

int rt_database_load(struct rt_store *s, struct rt_database *db,
                     struct rt_error *e)
{
    static const struct rt_db_load_options all = {RT_DB_TABLES_ALL, NULL, 1,
                                                  0, NULL};
    return rt_database_load_with(s, db, &all, e);
}

const struct rt_db_load_options rt_db_load_no_tables = {
    RT_DB_TABLES_NONE, NULL, 0, 0, NULL};

int rt_database_read_language(struct rt_store *s,
                              const struct rt_db_language *l, int pairs,
                              struct rt_db_language *out, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    out->id = l->id;
    out->fixed = l->fixed;
    out->fixed_why = l->fixed_why;
    if (load_language(s, out, pairs, 0, &no_tail, e) != 0) {
        rt_database_unload_language(out);
        return -1;
    }
    return 0;
}

/* Perflib's own values into DB: Last Counter, Last Help and Base Index
 * (the base's when absent) and Disable Performance Counters. */
static int load_perflib_values(struct rt_store *s, struct rt_database *db,
                               struct rt_error *e)
{
    if (read_dword(s, NULL, "Last Counter", &db->last_counter,
                   &db->has_last_counter, e) ||
        read_dword(s, NULL, "Last Help", &db->last_help, &db->has_last_help,
                   e) ||
        read_dword(s, NULL, "Base Index", &db->base_index, &db->has_base_index,
                   e))
        return -1;
    if (!db->has_last_counter)
        db->last_counter = RT_BASE_LAST_COUNTER;
    if (!db->has_last_help)
        db->last_help = RT_BASE_LAST_HELP;
    if (!db->has_base_index)
        db->base_index = RT_BASE_INDEX;
    return read_dword(s, NULL, "Disable Performance Counters",
                      &db->perflib_disable, &db->has_perflib_disable, e);
}

/* The tail of the tables OPT->tail_for's install needs (its installed
 * range, Help tables), or none. */
static int tail_of(struct rt_store *s, const struct rt_db_load_options *opt,
                   struct tail_range *tail, struct rt_error *e)
{
    *tail = no_tail;
    if (!opt->tail_for || opt->pairs)
        return 0;
    struct rt_service_info si;
    if (rt_service_load(s, opt->tail_for, &si, e) != 0)
        return -1;
    tail->keep[RT_TABLE_HELP] = 1;
    if (si.has_range && si.has_last_counter && si.has_first_help &&
        si.has_last_help) {
        tail->first[0] = si.first_counter;
        tail->last[0] = si.last_counter;
        tail->first[1] = si.first_help;
        tail->last[1] = si.last_help;
    }
    rt_service_info_free(&si);
    return 0;
}

int rt_database_load_with(struct rt_store *s, struct rt_database *db,
                          const struct rt_db_load_options *opt,
                          struct rt_error *e)
{
    memset(db, 0, sizeof *db);
    char **ids = NULL, **svcs = NULL, **pooled = NULL;
    size_t n = 0, n_svcs = 0;
    struct tail_range tail;
    if (load_perflib_values(s, db, e) != 0 || tail_of(s, opt, &tail, e) != 0)
        return -1;
    if (s->ops->list_languages(s, &ids, &n, e) != 0)
        return -1;
    /* Counter tables too, but where CurrentLanguage is: install finds the
     * language it mirrors by comparing Counter texts. */
    tail.keep[RT_TABLE_COUNTER] = tail.keep[RT_TABLE_HELP];
    for (size_t i = 0; i < n; i++)
        if (rt_lang_is_current(ids[i]))
            tail.keep[RT_TABLE_COUNTER] = 0;
    db->langs = calloc(n ? n : 1, sizeof *db->langs);
    if (!db->langs) {
        rt_strings_free(ids, n);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    size_t one = opt->tables == RT_DB_TABLES_ONE
                     ? pick_language(ids, n, opt->lang ? opt->lang : "")
                     : n;
    for (size_t i = 0; i < n; i++) {
        db->langs[i].id = ids[i];
        ids[i] = NULL;
        db->n_langs++;
        char why[160];
        if (s->ops->language_fixed &&
            (db->langs[i].fixed = s->ops->language_fixed(
                 s, db->langs[i].id, why, sizeof why)) &&
            !(db->langs[i].fixed_why = strdup(why))) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto fail;
        }
        int load = opt->tables == RT_DB_TABLES_ALL ||
                   (opt->tables == RT_DB_TABLES_ONE && i == one);
        if (load)
            rt_progress_report("reading languages", i, n);
        if (load && load_language(s, &db->langs[i], opt->pairs, opt->kinds,
                                  &tail, e) != 0)
            goto fail;
    }
    rt_strings_free(ids, n);
    ids = NULL;
    n = 0;

    /* The names go into the database's pool: straight from a store
     * that can put them there, else copied from its list, the list's
     * copy going as it is read. Either way a store of many services
     * leaves their names held once, in their bytes. */
    if (s->ops->list_perf_services_into
            ? s->ops->list_perf_services_into(s, &db->service_names, &pooled,
                                              &n_svcs, e) != 0
            : s->ops->list_perf_services(s, &svcs, &n_svcs, e) != 0) {
        /* Nothing of it is ours: a failed list gives nothing back. */
        svcs = pooled = NULL;
        n_svcs = 0;
        goto fail;
    }
    db->services = calloc(n_svcs ? n_svcs : 1, sizeof *db->services);
    if (!db->services) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n_svcs; i++) {
        struct rt_service_info *si = &db->services[i];
        si->name = pooled ? pooled[i]
                          : rt_str_pool_add(&db->service_names, svcs[i],
                                            strlen(svcs[i]));
        if (!si->name) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto fail;
        }
        db->n_services++;
        if (load_values(s, si->name, si, e) != 0)
            goto fail;
        if (svcs) {
            free(svcs[i]);
            svcs[i] = NULL;
        }
    }
    if (svcs)
        rt_strings_free(svcs, n_svcs);
    svcs = NULL;
    free(pooled);
    pooled = NULL;
    index_database(db);
    return 0;
fail:
    rt_strings_free(ids, n);
    rt_strings_free(svcs, n_svcs);
    free(pooled);
    rt_database_free(db);
    return -1;
}

const struct rt_db_language *rt_database_language(const struct rt_database *db,
                                                  const char *id)
{
    const struct rt_db_index *x = current_index(db);
    if (x)
        return indexed_language(db, x, id);
    /* The subkey of that name first: a machine may have both 804 and
     * 0804; else the language of that value. */
    for (size_t i = 0; i < db->n_langs; i++)
        if (!strcasecmp(db->langs[i].id, id))
            return &db->langs[i];
    for (size_t i = 0; i < db->n_langs; i++)
        if (rt_lang_same(db->langs[i].id, id))
            return &db->langs[i];
    return NULL;
}

const struct rt_service_info *rt_database_service(const struct rt_database *db,
                                                  const char *name)
{
    const struct rt_db_index *x = current_index(db);
    if (x) {
        size_t lo = 0, hi = x->n_services;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (rt_name_casecmp(db->services[x->service_by_name[mid]].name, name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < x->n_services &&
                       !rt_name_casecmp(db->services[x->service_by_name[lo]].name,
                                       name)
                   ? &db->services[x->service_by_name[lo]]
                   : NULL;
    }
    for (size_t i = 0; i < db->n_services; i++)
        if (!rt_name_casecmp(db->services[i].name, name))
            return &db->services[i];
    return NULL;
}

uint32_t rt_database_highest(const struct rt_database *db,
                             enum rt_table_kind which)
{
    uint32_t h = 0;
    for (size_t i = 0; i < db->n_langs; i++)
        if (db->langs[i].tab[which].highest > h)
            h = db->langs[i].tab[which].highest;
    return h;
}

/* A new table as change_table is given it: T's first AGREED bytes (kept,
 * not encoded again), then TAIL; LEN bytes in all. */
struct new_table {
    const uint8_t *head;
    size_t agreed;
    uint8_t *tail;
    size_t len;
};

/* N bytes of NT from byte FROM into DST. */
static void new_bytes(const struct new_table *nt, size_t from, size_t n,
                      uint8_t *dst)
{
    if (from < nt->agreed) {
        size_t k = nt->agreed - from < n ? nt->agreed - from : n;
        memcpy(dst, nt->head + from, k);
        dst += k;
        from += k;
        n -= k;
    }
    memcpy(dst, nt->tail + (from - nt->agreed), n);
}

/* Where the new table NT stops agreeing with T (whole, well-formed) on a
 * pair boundary: the start of T's first pair that does not lie wholly
 * within the bytes both begin with, or the end of T's pairs; *SAME the
 * number of T's pairs before it. Pairs parse the same way from the
 * start, so NT's first *SAME pairs are those same bytes. */
static size_t agree_until(const struct rt_table *t, const struct new_table *nt,
                          size_t *same)
{
    size_t n = t->len < nt->len ? t->len : nt->len;
    size_t p = nt->agreed < n ? nt->agreed : n;
    /* A page at a time while they agree, then the byte (P is past
     * AGREED whenever a loop runs: the tail's bytes). */
    while (n - p >= 4096 &&
           !memcmp(t->blob + p, nt->tail + (p - nt->agreed), 4096))
        p += 4096;
    while (p < n && t->blob[p] == nt->tail[p - nt->agreed])
        p++;
    size_t i = 0;
    while (i < t->n && (i + 1 < t->n ? t->v[i + 1].at
                                     : rt_msz_pairs_end(t->v, t->n)) <= p)
        i++;
    *same = i;
    return i < t->n ? t->v[i].at : rt_msz_pairs_end(t->v, t->n);
}

uint64_t rt_db_table_hash(const struct rt_db_language *l, int k)
{
    return l->raw[k].data ? rt_blob_hash(l->raw[k].data, l->raw[k].len)
                          : rt_blob_hash(l->tab[k].blob, l->tab[k].len);
}

/* Puts into CS the change that makes L's table K hold PAIRS (encoded:
 * BLOB, LEN bytes). A well-formed table whose first pairs stay is spliced
 * from where they end, as install splices (the change then holds what
 * changes, and the store writes only that, under the same lock it read
 * the table): *AT is then that byte. A damaged or absent table, or one
 * that keeps less than half, is replaced whole (*AT the table's length).
 * *CHANGED 0 when the table already holds these bytes. BLOB's first
 * AGREED bytes are the table's own (kept, not encoded again). */
static int change_table(const struct rt_db_language *l, int k,
                        const struct rt_pair_list *pairs,
                        const struct new_table *nt, struct rt_change_set *cs,
                        int *changed, size_t *at)
{
    const struct rt_table *t = &l->tab[k];
    int present = k ? l->has_help : l->has_counter;
    int sound = present && l->blob_damage[k].status == RT_MSZ_OK;
    enum rt_table_kind kind = k ? RT_TABLE_HELP : RT_TABLE_COUNTER;
    size_t len = nt->len;
    uint8_t *blob = NULL, *ins = NULL;
    struct rt_table_edit *ed = NULL;
    *changed = 1;
    *at = t->len;
    if (sound && len == t->len &&
        !memcmp(nt->tail, t->blob + nt->agreed, len - nt->agreed)) {
        *changed = 0;
        return 0;
    }
    size_t same = 0, from = sound ? agree_until(t, nt, &same) : 0;
    /* ADDED and REMOVED are the true difference of the pairs from where
     * the tables stop agreeing (all of them for a whole replacement):
     * what --dry-run shows and what is lost (rt_change_lost) are exactly
     * what the change writes. The pairs before agree byte for byte. */
    struct rt_pair_list added = {0}, removed = {0}, cut = {0};
    if (!sound || from < len / 2)
        same = 0;
    const struct rt_pair_list kept_from = {
        .v = pairs->v + (same < pairs->n ? same : pairs->n),
        .n = same < pairs->n ? pairs->n - same : 0};
    if (rt_table_pairs_from(t, same, &cut) != 0 ||
        rt_pair_list_diff_take(&cut, &kept_from, &added, &removed) != 0) {
        rt_pair_list_free(&cut);
        rt_pair_list_free(&added);
        rt_pair_list_free(&removed);
        return -1;
    }
    rt_pair_list_free(&cut);
    if (!sound || from < len / 2) {
        /* Replaced whole: the table must still be the one read. */
        if (!(blob = malloc(len ? len : 1)))
            goto nomem;
        new_bytes(nt, 0, len, blob);
        int r = rt_change_set_table_replace(
            cs, l->id, kind, blob, len, present, l->bytes[k],
            present ? rt_db_table_hash(l, k) : 0, NULL, NULL);
        free(blob);
        if (r == 0) {
            /* The lists are the change's now: no table held twice. */
            cs->v[cs->n - 1].added = added;
            cs->v[cs->n - 1].removed = removed;
        } else {
            rt_pair_list_free(&added);
            rt_pair_list_free(&removed);
        }
        return r;
    }
    ed = malloc(sizeof *ed);
    ins = malloc(len - from ? len - from : 1);
    if (!ed || !ins)
        goto nomem;
    new_bytes(nt, from, len - from, ins);
    *ed = (struct rt_table_edit){from, t->len - from, 0, len - from};
    *at = from;
    return rt_change_set_table_splice(cs, l->id, kind, 1, t->len, ed, 1, ins,
                                      len - from, &added, &removed);
nomem:
    free(ed);
    free(ins);
    free(blob);
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    return -1;
}

int rt_db_replace_changed_tables(const struct rt_db_language *l,
                                 const struct rt_name_table *t,
                                 struct rt_change_set *cs, int changed[2],
                                 size_t at[2])
{
    for (int help = 0; help < 2; help++) {
        uint8_t *blob = NULL;
        size_t len = 0;
        const struct rt_pair_list *p = help ? &t->help : &t->counter;
        const struct rt_table *tab = &l->tab[help];
        /* A table that holds the pairs' bytes already (a backup restored
         * over the database it was saved from) is found so as they are
         * compared, not encoded first: change_table's outcome for it.
         * One that holds the first of them (pairs added after them) keeps
         * their bytes: only the rest is encoded. */
        size_t kept = 0, kept_bytes = 0;
        int held = (help ? l->has_help : l->has_counter) &&
                   l->blob_damage[help].status == RT_MSZ_OK && !tab->base &&
                   tab->blob;
        if (held)
            kept = rt_pair_list_encoded_prefix(p, tab->blob, tab->len,
                                               &kept_bytes);
        if (held && kept == p->n && tab->len == kept_bytes + 2 &&
            !tab->blob[kept_bytes] && !tab->blob[kept_bytes + 1]) {
            changed[help] = 0;
            at[help] = tab->len;
            continue;
        }
        if (rt_multi_sz_encode_after(NULL, 0, p->v + kept, p->n - kept,
                                     &blob, &len) != 0)
            return -1;
        struct new_table nt = {tab->blob, kept_bytes, blob, kept_bytes + len};
        int r = change_table(l, help, p, &nt, cs, &changed[help], &at[help]);
        free(blob);
        if (r != 0)
            return -1;
    }
    return 0;
}
