/* Model: .reg files and registry trees, both ways: a file applied to a
 * tree (as reg import applies it), read straight into one, and a tree
 * written out as a file (model/reg_file.h). Pure: no I/O. */
#include "model/reg_file.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/compat.h"

/* [-PATH]: the key and everything under it deleted from ROOT. */
static int delete_key(struct rt_tree_key *root, const char *path)
{
    char *parent = strdup(path);
    if (!parent)
        return -1;
    char *last = strrchr(parent, '\\');
    struct rt_tree_key *p = NULL;
    if (last) {
        *last++ = '\0';
        p = rt_tree_find(root, parent);
    } else {
        p = root;
        last = parent;
    }
    if (p)
        rt_tree_delete_child(p, last);
    free(parent);
    return 0;
}

/* rt_reg_parse_tree's sink: each key and value applied as it is read,
 * as apply would. */
struct apply_sink {
    struct rt_tree_key *root, *cur;
};

static int apply_key(void *ctx, const struct rt_reg_file *f, size_t k)
{
    struct apply_sink *a = ctx;
    const struct rt_reg_key *key = &f->keys[k];
    a->cur = NULL;
    if (key->del)
        return delete_key(a->root, key->path);
    a->cur = rt_tree_create(a->root, key->path);
    return a->cur ? 0 : -1;
}

static int apply_value(void *ctx, const struct rt_reg_file *f, size_t k,
                       char *name, int del, struct rt_value *v,
                       unsigned line)
{
    struct apply_sink *a = ctx;
    (void)f;
    (void)k;
    (void)line;
    if (del || !a->cur) {
        if (del && a->cur)
            rt_tree_delete_value(a->cur, name);
        free(name);
        rt_value_free(v);
        return 0;
    }
    return rt_tree_set_value_take(a->cur, name, v);
}

int rt_reg_parse_tree(const uint8_t *data, size_t len, const char *codepage,
                      struct rt_tree_key *root, struct rt_reg_error *e)
{
    struct apply_sink a = {root, NULL};
    const struct rt_reg_sink sink = {apply_key, apply_value, &a};
    struct rt_reg_file f;
    int rc = rt_reg_parse_to(data, len, codepage, &f, &sink, e);
    if (rc == 0)
        rt_reg_file_free(&f);
    rt_tree_settle(root);   /* its deletions' holes closed up */
    return rc;
}

int rt_reg_apply(const struct rt_reg_file *f, struct rt_tree_key *root)
{
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        if (k->del) {
            if (delete_key(root, k->path) != 0)
                return -1;
            continue;
        }
        struct rt_tree_key *t = rt_tree_create(root, k->path);
        if (!t || rt_tree_reserve_values(t, k->n_vals) != 0)
            return -1;
        for (size_t j = 0; j < k->n_vals; j++) {
            const struct rt_reg_value *v = &k->vals[j];
            if (v->del)
                rt_tree_delete_value(t, v->name);
            else if (rt_tree_set_value(t, v->name, &v->v) != 0)
                return -1;
        }
    }
    rt_tree_settle(root);
    return 0;
}

static int from_key(const struct rt_tree_key *k, const char *prefix,
                    struct rt_reg_file *f)
{
    char *path = NULL;
    if (asprintf(&path, "%s%s%s", prefix, *prefix ? "\\" : "", k->name) < 0)
        return -1;
    /* A key with subkeys and no values is implied by its subkeys, as in
     * what reg export writes below the exported key; a root key too
     * (HKEY_LOCAL_MACHINE above SOFTWARE), but one with values of its
     * own, or one alone, has its line: a reg: store written back keeps
     * what reg export HKCU wrote there. */
    if (k->n_vals || !k->n_sub) {
        struct rt_reg_key *rk = rt_reg_add_key(f, path, 0);
        if (!rk) {
            free(path);
            return -1;
        }
        /* Sized to the key's values at once (views of them, F being
         * borrowed): grown by doubling it was 77 bytes a value. */
        if (k->n_vals && !(rk->vals = malloc(k->n_vals * sizeof *rk->vals))) {
            free(path);
            return -1;
        }
        for (size_t i = 0; i < k->n_vals; i++)
            if (k->vals[i].name)
                rk->vals[rk->n_vals++] = (struct rt_reg_value){
                    k->vals[i].name, k->vals[i].v, 0, 0};
    }
    for (size_t i = 0; i < k->n_sub; i++)
        if (from_key(k->sub[i], path, f) != 0) {
            free(path);
            return -1;
        }
    free(path);
    return 0;
}

int rt_reg_from_tree(const struct rt_tree_key *root, enum rt_reg_format format,
                     struct rt_reg_file *f)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    f->borrowed = 1;    /* the tree's names and data, not copies */
    for (size_t i = 0; i < root->n_sub; i++)
        if (from_key(root->sub[i], "", f) != 0) {
            rt_reg_file_free(f);
            return -1;
        }
    return 0;
}
