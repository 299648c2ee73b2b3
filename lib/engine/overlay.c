/* Engine: the database as a change set will leave it (engine/overlay.h).
 * Each read looks for the change set's last word on the value first, as
 * the store applies changes in order, then asks the store. */
#include "engine/overlay.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct overlay {
    struct rt_store base;
    struct rt_store *under;
    const struct rt_change_set *cs;
};

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

static int ov_list_languages(struct rt_store *s, char ***langs, size_t *n,
                             struct rt_error *e)
{
    struct overlay *o = ov(s);
    if (o->under->ops->list_languages(o->under, langs, n, e) != 0)
        return -1;
    for (size_t i = 0; i < o->cs->n; i++) {
        const struct rt_change *c = &o->cs->v[i];
        if ((c->op == RT_CHANGE_CREATE_LANGUAGE ||
             c->op == RT_CHANGE_SET_TABLE) &&
            !has(*langs, *n, c->lang) && insert(langs, n, *n, c->lang) != 0) {
            rt_strings_free(*langs, *n);
            return oom(e);
        }
    }
    return 0;
}

static int ov_read_table(struct rt_store *s, const char *lang,
                         enum rt_table_kind t, struct rt_value *out,
                         int *present, struct rt_error *e)
{
    struct overlay *o = ov(s);
    for (size_t i = o->cs->n; i-- > 0;) {
        const struct rt_change *c = &o->cs->v[i];
        if (c->op == RT_CHANGE_SET_TABLE && c->table == t &&
            !strcmp(c->lang, lang)) {
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
        while (at < *n && strcasecmp((*names)[at], c->service) < 0)
            at++;
        if (insert(names, n, at, c->service) != 0) {
            rt_strings_free(*names, *n);
            return oom(e);
        }
    }
    return 0;
}

static int created(const struct overlay *o, const char *service)
{
    for (size_t i = 0; i < o->cs->n; i++)
        if (o->cs->v[i].op == RT_CHANGE_CREATE_PERF_KEY &&
            !strcmp(o->cs->v[i].service, service))
            return 1;
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
    for (size_t i = o->cs->n; i-- > 0;) {
        const struct rt_change *c = &o->cs->v[i];
        if ((c->op != RT_CHANGE_SET_SERVICE &&
             c->op != RT_CHANGE_DELETE_SERVICE) ||
            strcmp(c->service, service) || strcmp(c->name, name))
            continue;
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
    return &o->base;
}
