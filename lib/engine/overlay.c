/* Engine: the database as a change set will leave it (engine/overlay.h).
 * Each read looks for the change set's last word on the value first, as
 * the store applies changes in order, then asks the store. */
#include "engine/overlay.h"
#include "model/utf16.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct overlay {
    struct rt_store base;
    struct rt_store *under;
    const struct rt_change_set *cs;
    /* CS's changes, sorted: table changes by language and table,
     * service values by service and name, created Performance keys by
     * service; equals in change order. A read finds the last change of
     * its value by bisection: a change set that touches every one of
     * thousands of languages is not scanned once per read. */
    const struct rt_change **tables, **values, **created;
    size_t n_tables, n_values, n_created;
};

/* Equal keys keep the changes' order: their places in one array. */
static int change_order(const struct rt_change *x, const struct rt_change *y)
{
    return x < y ? -1 : x > y;
}

static int table_cmp(const void *a, const void *b)
{
    const struct rt_change *x = *(const struct rt_change *const *)a;
    const struct rt_change *y = *(const struct rt_change *const *)b;
    int c = strcmp(x->lang, y->lang);
    if (!c && x->table != y->table)
        c = x->table < y->table ? -1 : 1;
    return c ? c : change_order(x, y);
}

static int value_cmp(const void *a, const void *b)
{
    const struct rt_change *x = *(const struct rt_change *const *)a;
    const struct rt_change *y = *(const struct rt_change *const *)b;
    int c = strcmp(x->service, y->service);
    if (!c)
        c = strcmp(x->name, y->name);
    return c ? c : change_order(x, y);
}

static int created_cmp(const void *a, const void *b)
{
    const struct rt_change *x = *(const struct rt_change *const *)a;
    const struct rt_change *y = *(const struct rt_change *const *)b;
    int c = strcmp(x->service, y->service);
    return c ? c : change_order(x, y);
}

/* Whether change C sorts before the key (LANG, T) / (SERVICE, NAME). */
static int table_below(const struct rt_change *c, const char *lang,
                       enum rt_table_kind t)
{
    int r = strcmp(c->lang, lang);
    return r ? r < 0 : c->table < t;
}

static int value_below(const struct rt_change *c, const char *service,
                       const char *name)
{
    int r = strcmp(c->service, service);
    return r ? r < 0 : strcmp(c->name, name) < 0;
}

/* The last change of table T of LANG, or NULL. */
static const struct rt_change *last_table_change(const struct overlay *o,
                                                 const char *lang,
                                                 enum rt_table_kind t)
{
    size_t lo = 0, hi = o->n_tables;
    while (lo < hi) {       /* first position past (LANG, T) */
        size_t mid = lo + (hi - lo) / 2;
        const struct rt_change *c = o->tables[mid];
        if (table_below(c, lang, t) || (!strcmp(c->lang, lang) && c->table == t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct rt_change *c = o->tables[lo - 1];
    return !strcmp(c->lang, lang) && c->table == t ? c : NULL;
}

static const struct rt_change *last_value_change(const struct overlay *o,
                                                 const char *service,
                                                 const char *name)
{
    size_t lo = 0, hi = o->n_values;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct rt_change *c = o->values[mid];
        if (value_below(c, service, name) ||
            (!strcmp(c->service, service) && !strcmp(c->name, name)))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (!lo)
        return NULL;
    const struct rt_change *c = o->values[lo - 1];
    return !strcmp(c->service, service) && !strcmp(c->name, name) ? c : NULL;
}

static struct overlay *ov(struct rt_store *s)
{
    return (struct overlay *)s;
}

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

static int ov_begin(struct rt_store *s, struct rt_error *e)
{
    (void)s;
    (void)e;
    return 0;
}

static void ov_end(struct rt_store *s)
{
    (void)s;
}

static int has(char **v, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], name))
            return 1;
    return 0;
}

/* Appends NAME to *V at AT (moving the rest up). */
static int insert(char ***v, size_t *n, size_t at, const char *name)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    char *copy = strdup(name);
    if (!copy)
        return -1;
    memmove(nv + at + 1, nv + at, (*n - at) * sizeof *nv);
    nv[at] = copy;
    (*n)++;
    return 0;
}

struct named_at {
    const char *name;
    size_t at;
};

static int named_cmp(const void *a, const void *b)
{
    const struct named_at *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

static int at_cmp(const void *a, const void *b)
{
    const struct named_at *x = a, *y = b;
    return x->at < y->at ? -1 : x->at > y->at;
}

/* The store's languages, then each language a change creates or writes a
 * table of that is not among them, in the order of its first change.
 * Sorted, not compared pair by pair: a change set may touch thousands. */
static int ov_list_languages(struct rt_store *s, char ***langs, size_t *n,
                             struct rt_error *e)
{
    struct overlay *o = ov(s);
    if (o->under->ops->list_languages(o->under, langs, n, e) != 0)
        return -1;
    size_t nl = *n, nc = 0;
    struct named_at *have = malloc((nl + 1) * sizeof *have);
    struct named_at *add = malloc((o->cs->n + 1) * sizeof *add);
    if (!have || !add)
        goto nomem;
    for (size_t i = 0; i < nl; i++)
        have[i] = (struct named_at){(*langs)[i], i};
    qsort(have, nl, sizeof *have, named_cmp);
    for (size_t i = 0; i < o->cs->n; i++) {
        const struct rt_change *c = &o->cs->v[i];
        if (c->op == RT_CHANGE_CREATE_LANGUAGE || c->op == RT_CHANGE_SET_TABLE)
            add[nc++] = (struct named_at){c->lang, i};
    }
    qsort(add, nc, sizeof *add, named_cmp);
    /* Each new language once, at its first change. */
    size_t kept = 0;
    for (size_t i = 0; i < nc; i++) {
        if (kept && !strcmp(add[kept - 1].name, add[i].name))
            continue;
        struct named_at key = {add[i].name, 0};
        size_t lo = 0, hi = nl;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(have[mid].name, key.name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < nl && !strcmp(have[lo].name, key.name)) {
            /* Listed already: remembered only to skip its later changes. */
            add[kept++] = (struct named_at){add[i].name, (size_t)-1};
            continue;
        }
        add[kept++] = add[i];
    }
    qsort(add, kept, sizeof *add, at_cmp);
    for (size_t i = 0; i < kept && add[i].at != (size_t)-1; i++)
        if (insert(langs, n, *n, add[i].name) != 0)
            goto nomem;
    free(have);
    free(add);
    return 0;
nomem:
    free(have);
    free(add);
    rt_strings_free(*langs, *n);
    *langs = NULL;
    *n = 0;
    return oom(e);
}

static int ov_read_table(struct rt_store *s, const char *lang,
                         enum rt_table_kind t, struct rt_value *out,
                         int *present, struct rt_error *e)
{
    struct overlay *o = ov(s);
    const struct rt_change *c = last_table_change(o, lang, t);
    if (c) {
        *present = 1;
        if (!c->n_edits)
            return rt_value_copy(out, &c->value) ? oom(e) : 0;
        /* A splice: the table underneath with its edits made. */
        struct rt_value before = {0};
        int was = 0;
        if (o->under->ops->read_table(o->under, lang, t, &before, &was,
                                      e) != 0)
            return -1;
        int r = rt_change_splice(c, before.data, before.len, &out->data,
                                 &out->len);
        rt_value_free(&before);
        if (r < 0)
            return oom(e);
        if (r > 0)
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: Perflib\\%s is not "
                                "the table the change was computed "
                                "from", lang);
        out->type = c->value.type;
        return 0;
    }
    return o->under->ops->read_table(o->under, lang, t, out, present, e);
}

static int ov_read_perflib(struct rt_store *s, const char *name,
                           struct rt_value *out, int *present,
                           struct rt_error *e)
{
    struct overlay *o = ov(s);
    for (size_t i = o->cs->n; i-- > 0;) {
        const struct rt_change *c = &o->cs->v[i];
        if (c->op == RT_CHANGE_SET_PERFLIB && !strcmp(c->name, name)) {
            *present = 1;
            return rt_value_copy(out, &c->value) ? oom(e) : 0;
        }
    }
    return o->under->ops->read_perflib(o->under, name, out, present, e);
}

/* A created Performance key's service goes where the Services key's
 * enumeration puts it: hives keep subkeys sorted ignoring case. */
static int ov_list_perf_services(struct rt_store *s, char ***names, size_t *n,
                                 struct rt_error *e)
{
    struct overlay *o = ov(s);
    if (o->under->ops->list_perf_services(o->under, names, n, e) != 0)
        return -1;
    for (size_t i = 0; i < o->cs->n; i++) {
        const struct rt_change *c = &o->cs->v[i];
        if (c->op != RT_CHANGE_CREATE_PERF_KEY || has(*names, *n, c->service))
            continue;
        size_t at = 0;
        while (at < *n && rt_name_casecmp((*names)[at], c->service) < 0)
            at++;
        if (insert(names, n, at, c->service) != 0) {
            rt_strings_free(*names, *n);
            *names = NULL;
            *n = 0;
            return oom(e);
        }
    }
    return 0;
}

static int created(const struct overlay *o, const char *service)
{
    size_t lo = 0, hi = o->n_created;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(o->created[mid]->service, service);
        if (!c)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int ov_service_state(struct rt_store *s, const char *service,
                            int *exists, int *has_perf, struct rt_error *e)
{
    struct overlay *o = ov(s);
    if (o->under->ops->service_state(o->under, service, exists, has_perf,
                                     e) != 0)
        return -1;
    if (created(o, service))
        *exists = *has_perf = 1;
    return 0;
}

static int ov_read_service(struct rt_store *s, const char *service,
                           const char *name, struct rt_value *out,
                           int *present, struct rt_error *e)
{
    struct overlay *o = ov(s);
    const struct rt_change *c = last_value_change(o, service, name);
    if (c) {
        memset(out, 0, sizeof *out);
        *present = c->op == RT_CHANGE_SET_SERVICE;
        return *present && rt_value_copy(out, &c->value) ? oom(e) : 0;
    }
    return o->under->ops->read_service(o->under, service, name, out, present,
                                       e);
}

static int ov_apply(struct rt_store *s, const struct rt_change_set *cs,
                    struct rt_error *e)
{
    (void)s;
    (void)cs;
    return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                        "the view of a change's result is read-only");
}

static const char *ov_layout(struct rt_store *s)
{
    struct overlay *o = ov(s);
    return o->under->ops->layout(o->under);
}

static void ov_close(struct rt_store *s)
{
    struct overlay *o = ov(s);
    free((void *)o->tables);
    free((void *)o->values);
    free((void *)o->created);
    free(s);
}

static const struct rt_store_ops overlay_ops = {
    .kind = "overlay",
    .begin = ov_begin,
    .end = ov_end,
    .list_languages = ov_list_languages,
    .read_table = ov_read_table,
    .read_perflib = ov_read_perflib,
    .list_perf_services = ov_list_perf_services,
    .service_state = ov_service_state,
    .read_service = ov_read_service,
    .apply = ov_apply,
    .layout = ov_layout,
    .close = ov_close,
};

struct rt_store *rt_overlay_new(struct rt_store *base,
                                const struct rt_change_set *cs)
{
    struct overlay *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->base.ops = &overlay_ops;
    o->under = base;
    o->cs = cs;
    size_t n = cs->n ? cs->n : 1;
    o->tables = malloc(n * sizeof *o->tables);
    o->values = malloc(n * sizeof *o->values);
    o->created = malloc(n * sizeof *o->created);
    if (!o->tables || !o->values || !o->created) {
        ov_close(&o->base);
        return NULL;
    }
    for (size_t i = 0; i < cs->n; i++) {
        enum rt_change_op op = cs->v[i].op;
        if (op == RT_CHANGE_SET_TABLE)
            o->tables[o->n_tables++] = &cs->v[i];
        else if (op == RT_CHANGE_SET_SERVICE || op == RT_CHANGE_DELETE_SERVICE)
            o->values[o->n_values++] = &cs->v[i];
        else if (op == RT_CHANGE_CREATE_PERF_KEY)
            o->created[o->n_created++] = &cs->v[i];
    }
    qsort(o->tables, o->n_tables, sizeof *o->tables, table_cmp);
    qsort(o->values, o->n_values, sizeof *o->values, value_cmp);
    qsort(o->created, o->n_created, sizeof *o->created, created_cmp);
    return &o->base;
}
