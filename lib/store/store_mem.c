/* Store layer: the in-memory store, for tests. It keeps a registry tree
 * with the SOFTWARE and SYSTEM paths the real stores use, and applies a
 * change set to a copy that replaces the tree only when every change
 * succeeded, so a failure midway leaves it untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/regtree.h"
#include "store/store.h"

#define PERFLIB  "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES "SYSTEM\\CurrentControlSet\\Services"

struct mem_store {
    struct rt_store base;
    struct rt_tree_key *root;
    size_t fail_after;      /* test hook, 0 = off */
    int locked;
};

static struct mem_store *mem(struct rt_store *s)
{
    return (struct mem_store *)s;
}

static const char *table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

static int mem_begin(struct rt_store *s, struct rt_error *e)
{
    if (mem(s)->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "mem store: transaction already open");
    mem(s)->locked = 1;
    return 0;
}

static void mem_end(struct rt_store *s)
{
    mem(s)->locked = 0;
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

static int mem_list_languages(struct rt_store *s, char ***langs, size_t *n,
                              struct rt_error *e)
{
    *langs = NULL;
    *n = 0;
    struct rt_tree_key *p = rt_tree_find(mem(s)->root, PERFLIB);
    for (size_t i = 0; p && i < p->n_sub; i++)
        if (rt_is_language_key(p->sub[i]->name) &&
            push_string(langs, n, p->sub[i]->name) != 0) {
            rt_strings_free(*langs, *n);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
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
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}

static int mem_read_table(struct rt_store *s, const char *lang,
                          enum rt_table_kind t, struct rt_value *out,
                          int *present, struct rt_error *e)
{
    struct rt_tree_key *p = rt_tree_find(mem(s)->root, PERFLIB);
    struct rt_tree_key *l = p ? rt_tree_child(p, lang) : NULL;
    return read_value(l, table_value_name(t), out, present, e);
}

static int mem_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    return read_value(rt_tree_find(mem(s)->root, PERFLIB), name, out, present,
                      e);
}

static int mem_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    *names = NULL;
    *n = 0;
    struct rt_tree_key *sv = rt_tree_find(mem(s)->root, SERVICES);
    for (size_t i = 0; sv && i < sv->n_sub; i++)
        if (rt_tree_child(sv->sub[i], "Performance") &&
            push_string(names, n, sv->sub[i]->name) != 0) {
            rt_strings_free(*names, *n);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
    return 0;
}

static struct rt_tree_key *service_key(struct rt_tree_key *root,
                                       const char *service)
{
    struct rt_tree_key *sv = rt_tree_find(root, SERVICES);
    return sv ? rt_tree_child(sv, service) : NULL;
}

static int mem_service_state(struct rt_store *s, const char *service,
                             int *exists, int *has_perf, struct rt_error *e)
{
    (void)e;
    struct rt_tree_key *k = service_key(mem(s)->root, service);
    *exists = k != NULL;
    *has_perf = k && rt_tree_child(k, "Performance");
    return 0;
}

static int mem_read_service(struct rt_store *s, const char *service,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    struct rt_tree_key *k = service_key(mem(s)->root, service);
    return read_value(k ? rt_tree_child(k, "Performance") : NULL, name, out,
                      present, e);
}

/* Applies one change to the tree ROOT. */
static int apply_one(struct rt_tree_key *root, const struct rt_change *c,
                     struct rt_error *e)
{
    struct rt_tree_key *k = NULL;
    char *path = NULL;
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
    case RT_CHANGE_SET_TABLE:
        if (asprintf(&path, PERFLIB "\\%s", c->lang) < 0)
            break;
        k = rt_tree_create(root, path);
        if (k && c->op == RT_CHANGE_SET_TABLE &&
            rt_tree_set_value(k, table_value_name(c->table), &c->value) != 0)
            k = NULL;
        break;
    case RT_CHANGE_SET_PERFLIB:
        k = rt_tree_create(root, PERFLIB);
        if (k && rt_tree_set_value(k, c->name, &c->value) != 0)
            k = NULL;
        break;
    case RT_CHANGE_CREATE_PERF_KEY:
        if (asprintf(&path, SERVICES "\\%s\\Performance", c->service) < 0)
            break;
        k = rt_tree_create(root, path);
        break;
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE: {
        struct rt_tree_key *svc = service_key(root, c->service);
        k = svc ? rt_tree_child(svc, "Performance") : NULL;
        if (!k) {
            free(path);
            return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                "service %s has no Performance key",
                                c->service);
        }
        if (c->op == RT_CHANGE_SET_SERVICE) {
            if (rt_tree_set_value(k, c->name, &c->value) != 0)
                k = NULL;
        } else {
            rt_tree_delete_value(k, c->name);
        }
        break;
    }
    }
    free(path);
    return k ? 0 : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

static int mem_apply(struct rt_store *s, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    struct mem_store *m = mem(s);
    struct rt_tree_key *work = rt_tree_clone(m->root);
    if (!work)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t fail_after = m->fail_after;
    m->fail_after = 0;
    for (size_t i = 0; i < cs->n; i++) {
        if (fail_after && i == fail_after) {
            rt_tree_free(work);
            return rt_error_set(e, RT_ERR_WRITE_FAULT,
                                "mem store: injected failure after %zu changes",
                                fail_after);
        }
        if (apply_one(work, &cs->v[i], e) != 0) {
            rt_tree_free(work);
            return -1;
        }
    }
    rt_tree_free(m->root);
    m->root = work;
    return 0;
}

static const char *mem_layout(struct rt_store *s)
{
    (void)s;
    return "in memory (tables as values)";
}

static void mem_close(struct rt_store *s)
{
    if (!s)
        return;
    rt_tree_free(mem(s)->root);
    free(s);
}

static const struct rt_store_ops mem_ops = {
    .kind = "mem",
    .begin = mem_begin,
    .end = mem_end,
    .list_languages = mem_list_languages,
    .read_table = mem_read_table,
    .read_perflib = mem_read_perflib,
    .list_perf_services = mem_list_perf_services,
    .service_state = mem_service_state,
    .read_service = mem_read_service,
    .apply = mem_apply,
    .layout = mem_layout,
    .close = mem_close,
};

struct rt_store *rt_store_mem_new(void)
{
    struct mem_store *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->base.ops = &mem_ops;
    if (!(m->root = rt_tree_new("HKLM"))) {
        free(m);
        return NULL;
    }
    return &m->base;
}

void rt_store_mem_fail_after(struct rt_store *s, size_t k)
{
    mem(s)->fail_after = k;
}

int rt_store_mem_put_language(struct rt_store *s, const char *lang)
{
    struct rt_change c = {.op = RT_CHANGE_CREATE_LANGUAGE, .lang = (char *)lang};
    return apply_one(mem(s)->root, &c, NULL);
}

int rt_store_mem_put_table(struct rt_store *s, const char *lang,
                           enum rt_table_kind t, const uint8_t *blob,
                           size_t len)
{
    return rt_store_mem_put_table_typed(s, lang, t, RT_REG_MULTI_SZ, blob,
                                        len);
}

int rt_store_mem_put_table_typed(struct rt_store *s, const char *lang,
                                 enum rt_table_kind t, uint32_t type,
                                 const uint8_t *blob, size_t len)
{
    struct rt_change c = {.op = RT_CHANGE_SET_TABLE, .lang = (char *)lang,
                          .table = t, .value = {type, (uint8_t *)blob, len}};
    return apply_one(mem(s)->root, &c, NULL);
}

int rt_store_mem_put_perflib(struct rt_store *s, const char *name,
                             const struct rt_value *v)
{
    struct rt_change c = {.op = RT_CHANGE_SET_PERFLIB, .name = (char *)name,
                          .value = *v};
    return apply_one(mem(s)->root, &c, NULL);
}

int rt_store_mem_put_service(struct rt_store *s, const char *service,
                             int with_perf_key)
{
    char *path = NULL;
    if (asprintf(&path, SERVICES "\\%s%s", service,
                 with_perf_key ? "\\Performance" : "") < 0)
        return -1;
    struct rt_tree_key *k = rt_tree_create(mem(s)->root, path);
    free(path);
    return k ? 0 : -1;
}

int rt_store_mem_put_service_value(struct rt_store *s, const char *service,
                                   const char *name, const struct rt_value *v)
{
    struct rt_change c = {.op = RT_CHANGE_SET_SERVICE, .service = (char *)service,
                          .name = (char *)name, .value = *v};
    return apply_one(mem(s)->root, &c, NULL);
}

char *rt_store_mem_dump(struct rt_store *s)
{
    return rt_tree_dump(mem(s)->root);
}
