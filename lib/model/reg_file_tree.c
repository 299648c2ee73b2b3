/* Model: .reg files and registry trees, both ways: a file applied to a
 * tree (as reg import applies it), read straight into one, and a tree
 * written out as a file (model/reg_file.h). Pure: no I/O. */
#include "model/reg_file.h"
#include "model/reg_file_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/strbuf.h"
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

/* Calls VISIT for each key under K (K's own name appended to PATH) that a
 * file has a line for, each followed by its subkeys in the tree's order:
 * a key with subkeys and no values is implied by its subkeys, as in what
 * reg export writes below the exported key; a root key too
 * (HKEY_LOCAL_MACHINE above SOFTWARE), but one with values of its own, or
 * one alone, has its line: a reg: store written back keeps what reg
 * export HKCU wrote there. */
typedef int (*key_visit)(void *ctx, const char *path,
                         const struct rt_tree_key *k);

static int walk_keys(const struct rt_tree_key *k, struct rt_strbuf *path,
                     key_visit visit, void *ctx)
{
    size_t at = path->len;
    if (at)
        rt_strbuf_append(path, "\\", 1);
    rt_strbuf_append(path, k->name, strlen(k->name));
    if (path->failed)
        return -1;
    if ((k->n_vals || !k->n_sub) && visit(ctx, path->s, k) != 0)
        return -1;
    for (size_t i = 0; i < k->n_sub; i++) {
        if (walk_keys(k->sub[i], path, visit, ctx) != 0)
            return -1;
        path->len = at + (at ? 1 : 0) + strlen(k->name);
        path->s[path->len] = '\0';
    }
    return 0;
}

/* Every key under ROOT to VISIT: 0, or -1 (out of memory, or VISIT's). */
static int walk_tree(const struct rt_tree_key *root, key_visit visit,
                     void *ctx)
{
    struct rt_strbuf path = {0};
    int rc = 0;
    for (size_t i = 0; i < root->n_sub && rc == 0; i++) {
        rt_strbuf_clear(&path);
        rc = walk_keys(root->sub[i], &path, visit, ctx);
    }
    rt_strbuf_free(&path);
    return rc;
}

static int add_key(void *ctx, const char *path, const struct rt_tree_key *k)
{
    struct rt_reg_file *f = ctx;
    struct rt_reg_key *rk = rt_reg_add_key(f, path, 0);
    if (!rk)
        return -1;
    /* Sized to the key's values at once (views of them, F being
     * borrowed): grown by doubling it was 77 bytes a value. */
    if (k->n_vals && !(rk->vals = malloc(k->n_vals * sizeof *rk->vals)))
        return -1;
    for (size_t i = 0; i < k->n_vals; i++)
        if (k->vals[i].name)
            rk->vals[rk->n_vals++] = (struct rt_reg_value){
                k->vals[i].name, k->vals[i].v, 0, 0};
    return 0;
}

int rt_reg_from_tree(const struct rt_tree_key *root, enum rt_reg_format format,
                     struct rt_reg_file *f)
{
    memset(f, 0, sizeof *f);
    f->format = format;
    f->borrowed = 1;    /* the tree's names and data, not copies */
    if (walk_tree(root, add_key, f) != 0) {
        rt_reg_file_free(f);
        return -1;
    }
    return 0;
}

struct tree_writer {
    struct rt_reg_writer w;
    struct rt_reg_error *e;
};

static int write_key(void *ctx, const char *path, const struct rt_tree_key *k)
{
    struct tree_writer *t = ctx;
    if (rt_reg_writer_key(&t->w, path, 0, t->e) != 0)
        return -1;
    for (size_t i = 0; i < k->n_vals; i++)
        if (k->vals[i].name &&
            rt_reg_writer_value(&t->w, k->vals[i].name, &k->vals[i].v, 0,
                                t->e) != 0)
            return -1;
    return 0;
}

int rt_reg_write_tree(const struct rt_tree_key *root, enum rt_reg_format format,
                      const char *codepage, uint64_t max, uint8_t **out,
                      size_t *out_len, struct rt_reg_error *e)
{
    struct rt_reg_error none;
    struct tree_writer t = {.e = e ? e : &none};
    memset(t.e, 0, sizeof *t.e);
    rt_reg_writer_start(&t.w, format, codepage);
    t.w.max = max;
    if (walk_tree(root, write_key, &t) != 0) {
        rt_reg_writer_abandon(&t.w);
        /* A walk that failed before any message: its path's memory. */
        return t.e->message[0] ? -1 : rt_reg_nomem(t.e);
    }
    return rt_reg_writer_finish(&t.w, out, out_len, t.e);
}
