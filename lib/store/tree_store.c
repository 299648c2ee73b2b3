/* Store layer: the Perflib database in a registry tree, shared by the
 * in-memory and .reg stores (store/tree_store.h). */
#include "store/tree_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

static const char *table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

static int push_string(char ***v, size_t *n, const char *s)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(s)))
        return -1;
    (*n)++;
    return 0;
}

int rt_tree_store_list_languages(struct rt_tree_key *root,
                                 const struct rt_tree_paths *p, char ***langs,
                                 size_t *n, struct rt_error *e)
{
    *langs = NULL;
    *n = 0;
    struct rt_tree_key *k = rt_tree_find(root, p->perflib);
    for (size_t i = 0; k && i < k->n_sub; i++)
        if (rt_is_language_key(k->sub[i]->name) &&
            push_string(langs, n, k->sub[i]->name) != 0) {
            rt_strings_free(*langs, *n);
            return oom(e);
        }
    return 0;
}

static int read_value(struct rt_tree_key *k, const char *name,
                      struct rt_value *out, int *present, struct rt_error *e)
{
    struct rt_tree_value *v = k ? rt_tree_value(k, name) : NULL;
    *present = v != NULL;
    memset(out, 0, sizeof *out);
    if (v && rt_value_copy(out, &v->v) != 0)
        return oom(e);
    return 0;
}

int rt_tree_store_read_at(struct rt_tree_key *root, const char *path,
                          const char *name, struct rt_value *out, int *present,
                          struct rt_error *e)
{
    struct rt_tree_key *k = rt_tree_find(root, path);
    int r = read_value(k, name, out, present, e);
    if (!k)
        *present = -1;
    return r;
}

int rt_tree_store_read_table(struct rt_tree_key *root,
                             const struct rt_tree_paths *p, const char *lang,
                             enum rt_table_kind t, struct rt_value *out,
                             int *present, struct rt_error *e)
{
    struct rt_tree_key *k = rt_tree_find(root, p->perflib);
    struct rt_tree_key *l = k ? rt_tree_child(k, lang) : NULL;
    return read_value(l, table_value_name(t), out, present, e);
}

int rt_tree_store_read_perflib(struct rt_tree_key *root,
                               const struct rt_tree_paths *p, const char *name,
                               struct rt_value *out, int *present,
                               struct rt_error *e)
{
    return read_value(rt_tree_find(root, p->perflib), name, out, present, e);
}

int rt_tree_store_list_perf_services(struct rt_tree_key *root,
                                     const struct rt_tree_paths *p,
                                     char ***names, size_t *n,
                                     struct rt_error *e)
{
    *names = NULL;
    *n = 0;
    struct rt_tree_key *sv = rt_tree_find(root, p->services);
    for (size_t i = 0; sv && i < sv->n_sub; i++)
        if (rt_tree_child(sv->sub[i], "Performance") &&
            push_string(names, n, sv->sub[i]->name) != 0) {
            rt_strings_free(*names, *n);
            return oom(e);
        }
    return 0;
}

static struct rt_tree_key *service_key(struct rt_tree_key *root,
                                       const struct rt_tree_paths *p,
                                       const char *service)
{
    struct rt_tree_key *sv = rt_tree_find(root, p->services);
    return sv ? rt_tree_child(sv, service) : NULL;
}

void rt_tree_store_service_state(struct rt_tree_key *root,
                                 const struct rt_tree_paths *p,
                                 const char *service, int *exists,
                                 int *has_perf)
{
    struct rt_tree_key *k = service_key(root, p, service);
    *exists = k != NULL;
    *has_perf = k && rt_tree_child(k, "Performance");
}

int rt_tree_store_read_service(struct rt_tree_key *root,
                               const struct rt_tree_paths *p,
                               const char *service, const char *name,
                               struct rt_value *out, int *present,
                               struct rt_error *e)
{
    struct rt_tree_key *k = service_key(root, p, service);
    return read_value(k ? rt_tree_child(k, "Performance") : NULL, name, out,
                      present, e);
}

int rt_tree_store_read_file(struct rt_tree_key *root,
                            const struct rt_tree_paths *p, const char *rel,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    return read_value(p->files ? rt_tree_find(root, p->files) : NULL, rel,
                      out, present, e);
}

int rt_tree_store_apply_one(struct rt_tree_key *root, const struct rt_tree_paths *p,
                     const struct rt_change *c, struct rt_error *e)
{
    struct rt_tree_key *k = NULL;
    char *path = NULL;
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
    case RT_CHANGE_SET_TABLE:
        if (asprintf(&path, "%s\\%s", p->perflib, c->lang) < 0)
            break;
        k = rt_tree_create(root, path);
        if (k && c->op == RT_CHANGE_SET_TABLE &&
            rt_tree_set_value(k, table_value_name(c->table), &c->value) != 0)
            k = NULL;
        break;
    case RT_CHANGE_SET_PERFLIB:
        k = rt_tree_create(root, p->perflib);
        if (k && rt_tree_set_value(k, c->name, &c->value) != 0)
            k = NULL;
        break;
    case RT_CHANGE_CREATE_PERF_KEY:
        if (asprintf(&path, "%s\\%s\\Performance", p->services, c->service) < 0)
            break;
        k = rt_tree_create(root, path);
        break;
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE: {
        struct rt_tree_key *svc = service_key(root, p, c->service);
        k = svc ? rt_tree_child(svc, "Performance") : NULL;
        if (!k)
            return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                "service %s has no Performance key",
                                c->service);
        if (c->op == RT_CHANGE_SET_SERVICE) {
            if (rt_tree_set_value(k, c->name, &c->value) != 0)
                k = NULL;
        } else {
            rt_tree_delete_value(k, c->name);
        }
        break;
    }
    case RT_CHANGE_WRITE_FILE:
    case RT_CHANGE_DELETE_FILE:
        if (!p->files)
            return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                                "this store has no Windows directory for %s",
                                c->name);
        k = rt_tree_create(root, p->files);
        if (k && c->op == RT_CHANGE_WRITE_FILE &&
            rt_tree_set_value(k, c->name, &c->value) != 0)
            k = NULL;
        if (k && c->op == RT_CHANGE_DELETE_FILE)
            rt_tree_delete_value(k, c->name);
        break;
    }
    free(path);
    return k ? 0 : oom(e);
}

int rt_tree_store_apply_here(struct rt_tree_key *root,
                             const struct rt_tree_paths *p,
                             const struct rt_change_set *cs, size_t fail_after,
                             const char *who, struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        if (fail_after && i == fail_after)
            return rt_error_set(e, RT_ERR_WRITE_FAULT,
                                "%s store: injected failure after %zu changes",
                                who, fail_after);
        if (rt_tree_store_apply_one(root, p, &cs->v[i], e) != 0)
            return -1;
    }
    rt_tree_settle(root);   /* what the store writes walks it */
    return 0;
}

int rt_tree_store_apply(const struct rt_tree_key *root,
                        const struct rt_tree_paths *p,
                        const struct rt_change_set *cs, size_t fail_after,
                        const char *who, struct rt_tree_key **out,
                        struct rt_error *e)
{
    struct rt_tree_key *work = rt_tree_clone(root);
    if (!work)
        return oom(e);
    if (rt_tree_store_apply_here(work, p, cs, fail_after, who, e) != 0) {
        rt_tree_free(work);
        return -1;
    }
    *out = work;
    return 0;
}
