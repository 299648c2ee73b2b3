/* Model layer: an in-memory registry tree. */
#include "model/regtree.h"
#include "model/strbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

struct rt_tree_key *rt_tree_new(const char *name)
{
    struct rt_tree_key *k = calloc(1, sizeof *k);
    if (!k)
        return NULL;
    k->name = strdup(name);
    if (!k->name) {
        free(k);
        return NULL;
    }
    return k;
}

void rt_tree_free(struct rt_tree_key *k)
{
    if (!k)
        return;
    for (size_t i = 0; i < k->n_sub; i++)
        rt_tree_free(k->sub[i]);
    for (size_t i = 0; i < k->n_vals; i++) {
        free(k->vals[i].name);
        rt_value_free(&k->vals[i].v);
    }
    free(k->sub);
    free(k->vals);
    free(k->name);
    free(k);
}

struct rt_tree_key *rt_tree_clone(const struct rt_tree_key *k)
{
    struct rt_tree_key *c = rt_tree_new(k->name);
    if (!c)
        return NULL;
    c->sub = calloc(k->n_sub ? k->n_sub : 1, sizeof *c->sub);
    c->vals = calloc(k->n_vals ? k->n_vals : 1, sizeof *c->vals);
    if (!c->sub || !c->vals)
        goto fail;
    for (size_t i = 0; i < k->n_sub; i++) {
        if (!(c->sub[i] = rt_tree_clone(k->sub[i])))
            goto fail;
        c->n_sub++;
    }
    for (size_t i = 0; i < k->n_vals; i++) {
        c->vals[i].name = strdup(k->vals[i].name);
        if (!c->vals[i].name ||
            rt_value_copy(&c->vals[i].v, &k->vals[i].v) != 0) {
            free(c->vals[i].name);
            goto fail;
        }
        c->n_vals++;
    }
    return c;
fail:
    rt_tree_free(c);
    return NULL;
}

static int name_eq(const char *a, const char *b)
{
    return rt_utf8_casecmp(a, strlen(a), b, strlen(b)) == 0;
}

struct rt_tree_key *rt_tree_child(const struct rt_tree_key *k,
                                  const char *name)
{
    for (size_t i = 0; i < k->n_sub; i++)
        if (name_eq(k->sub[i]->name, name))
            return k->sub[i];
    return NULL;
}

/* Walks PATH; with CREATE, adds the keys that are missing. */
static struct rt_tree_key *walk(struct rt_tree_key *k, const char *path,
                                int create)
{
    char *copy = strdup(path), *save = NULL;
    if (!copy)
        return NULL;
    for (char *part = strtok_r(copy, "\\", &save); part && k;
         part = strtok_r(NULL, "\\", &save)) {
        struct rt_tree_key *c = rt_tree_child(k, part);
        if (!c && create) {
            struct rt_tree_key **v =
                realloc(k->sub, (k->n_sub + 1) * sizeof *v);
            if (!v || !(c = rt_tree_new(part))) {
                if (v)
                    k->sub = v;
                free(copy);
                return NULL;
            }
            k->sub = v;
            k->sub[k->n_sub++] = c;
        }
        k = c;
    }
    free(copy);
    return k;
}

struct rt_tree_key *rt_tree_find(const struct rt_tree_key *k, const char *path)
{
    return walk((struct rt_tree_key *)k, path, 0);
}

struct rt_tree_key *rt_tree_create(struct rt_tree_key *k, const char *path)
{
    return walk(k, path, 1);
}

struct rt_tree_value *rt_tree_value(const struct rt_tree_key *k,
                                    const char *name)
{
    for (size_t i = 0; i < k->n_vals; i++)
        if (name_eq(k->vals[i].name, name))
            return &k->vals[i];
    return NULL;
}

int rt_tree_set_value(struct rt_tree_key *k, const char *name,
                      const struct rt_value *v)
{
    struct rt_value copy;
    if (rt_value_copy(&copy, v) != 0)
        return -1;
    struct rt_tree_value *old = rt_tree_value(k, name);
    if (old) {
        rt_value_free(&old->v);
        old->v = copy;
        return 0;
    }
    struct rt_tree_value *vals = realloc(k->vals, (k->n_vals + 1) * sizeof *vals);
    char *n = strdup(name);
    if (!vals || !n) {
        if (vals)
            k->vals = vals;
        free(n);
        rt_value_free(&copy);
        return -1;
    }
    k->vals = vals;
    k->vals[k->n_vals].name = n;
    k->vals[k->n_vals].v = copy;
    k->n_vals++;
    return 0;
}

int rt_tree_delete_value(struct rt_tree_key *k, const char *name)
{
    struct rt_tree_value *v = rt_tree_value(k, name);
    if (!v)
        return 0;
    size_t i = (size_t)(v - k->vals);
    free(v->name);
    rt_value_free(&v->v);
    memmove(&k->vals[i], &k->vals[i + 1], (k->n_vals - i - 1) * sizeof *v);
    k->n_vals--;
    return 1;
}

int rt_tree_delete_child(struct rt_tree_key *k, const char *name)
{
    struct rt_tree_key *c = rt_tree_child(k, name);
    if (!c)
        return 0;
    size_t i = 0;
    while (k->sub[i] != c)
        i++;
    rt_tree_free(c);
    memmove(&k->sub[i], &k->sub[i + 1], (k->n_sub - i - 1) * sizeof *k->sub);
    k->n_sub--;
    return 1;
}

static void dump_key(struct rt_strbuf *f, const struct rt_tree_key *k, const char *prefix)
{
    char *path = NULL;
    if (asprintf(&path, "%s%s%s", prefix, *prefix ? "\\" : "", k->name) < 0)
        return;
    rt_strbuf_printf(f, "[%s]\n", path);
    for (size_t i = 0; i < k->n_vals; i++) {
        rt_strbuf_printf(f, "  \"%s\" type=%u len=%zu ", k->vals[i].name,
                k->vals[i].v.type, k->vals[i].v.len);
        for (size_t b = 0; b < k->vals[i].v.len; b++)
            rt_strbuf_printf(f, "%02x", k->vals[i].v.data[b]);
        rt_strbuf_append(f, "\n", 1);
    }
    for (size_t i = 0; i < k->n_sub; i++)
        dump_key(f, k->sub[i], path);
    free(path);
}

char *rt_tree_dump(const struct rt_tree_key *k)
{
    struct rt_strbuf b = {0};
    dump_key(&b, k, "");
    return rt_strbuf_take(&b);
}
