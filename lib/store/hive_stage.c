/* Store layer: a change set applied to the hive store's images in
 * memory, change by change: keys and values set in the hives, a table
 * spliced in place, and the .dat tables and side files to write staged
 * (found by path through a hash table) for the commit (hive_commit.c). */
#include "store/hive_internal.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stage_file(struct hive_store *s, struct pending *p,
                      const struct rt_change *c, struct rt_error *e)
{
    const char *win = hive_windows_dir(&s->base);
    if (!win)
        return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                            "%s: hive files given by name have no Windows "
                            "directory for %s; nothing was written",
                            s->software.path, c->name);
    char *path = rt_os_path_ci(win, c->name, 0);
    if (!path && hive_ambiguous(e))
        return -1;
    if (path && p->n_files == p->cap_files) {
        size_t cap = rt_grown(p->cap_files, 16, sizeof *p->files);
        struct dat_write *nf =
            cap ? realloc(p->files, cap * sizeof *nf) : NULL;
        if (nf) {
            p->files = nf;
            p->cap_files = cap;
        }
    }
    if (!path || p->n_files == p->cap_files) {
        free(path);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    p->files[p->n_files++] = (struct dat_write){
        path, c->op == RT_CHANGE_WRITE_FILE ? &c->value : NULL, NULL, NULL,
        0};
    return 0;
}

/* Where the chain of PATH's bucket starts (P has buckets). */
static size_t *pending_bucket(struct pending *p, const char *path)
{
    return &p->buckets[rt_os_path_hash(path) % p->n_buckets];
}

static void pending_link(struct pending *p, size_t i)
{
    size_t *head = pending_bucket(p, p->dats[i].path);
    p->dats[i].next = *head;
    *head = i + 1;
}

/* Room for one more table, the buckets at least as many as the tables
 * (doubled, so thousands of tables are rehashed a few times). */
static int pending_room(struct pending *p)
{
    if (p->n_dats == p->cap_dats) {
        size_t cap = rt_grown(p->cap_dats, 16, sizeof *p->dats);
        struct dat_write *nd = cap ? realloc(p->dats, cap * sizeof *nd)
                                   : NULL;
        if (!nd)
            return -1;
        p->dats = nd;
        p->cap_dats = cap;
    }
    if (p->n_dats + 1 > p->n_buckets) {
        size_t nb = rt_grown(p->n_buckets, 64, sizeof *p->buckets);
        size_t *b = nb ? calloc(nb, sizeof *b) : NULL;
        if (!b)
            return -1;
        free(p->buckets);
        p->buckets = b;
        p->n_buckets = nb;
        for (size_t i = 0; i < p->n_dats; i++)
            pending_link(p, i);
    }
    return 0;
}

/* Stages C's table for the .dat file in DIR: its whole value, or its
 * splice of the table in BEFORE_DIR's file (NULL: DIR's). */
static int stage_dat(struct pending *p, const char *dir,
                     const struct rt_change *c, const char *before_dir)
{
    char *path = hive_dat_path(dir, c->lang, c->table), *before = NULL;
    if (!path || (c->n_edits && before_dir &&
                  !(before = hive_dat_path(before_dir, c->lang, c->table)))) {
        int err = errno;
        free(path);
        errno = err;
        return -1;
    }
    struct dat_write w = {path, c->n_edits ? NULL : &c->value,
                          c->n_edits ? c : NULL, before, 0};
    if (p->n_buckets)
        for (size_t k = *pending_bucket(p, path); k; k = p->dats[k - 1].next)
            if (!strcmp(p->dats[k - 1].path, path)) {
                struct dat_write *d = &p->dats[k - 1];
                free(d->path);
                free(d->before);
                w.next = d->next;
                *d = w;
                return 0;
            }
    if (pending_room(p) != 0) {
        free(path);
        free(before);
        errno = ENOMEM;
        return -1;
    }
    p->dats[p->n_dats] = w;
    pending_link(p, p->n_dats++);
    return 0;
}

void hive_pending_free(struct pending *p)
{
    for (size_t i = 0; i < p->n_dats; i++) {
        free(p->dats[i].path);
        free(p->dats[i].before);
    }
    free(p->dats);
    free(p->buckets);
    for (size_t i = 0; i < p->n_files; i++)
        free(p->files[i].path);
    free(p->files);
}

/* A hive call's failure R: memory running out said as such (the hive's
 * message may be an earlier one's, as a call that ran out of memory
 * need not set it), anything else as the hive says it. */
static int regf_fail(struct rt_regf *h, int r, const char *path,
                     struct rt_error *e)
{
    if (r == RT_REGF_ENOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s: out of memory",
                            path);
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s", path, rt_regf_errmsg(h));
}

static const char *table_value(const struct rt_change *c)
{
    return hive_table_value_name(c->table);
}

static int splice_table(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e);

/* The hive's own copy of a .dat table (files layout) after splice C: the
 * splice made in place when the copy is the table the change was computed
 * from (same length), else the whole new table. */
static int copy_spliced(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e)
{
    struct rt_regf *sw = s->software.h;
    uint8_t *whole = NULL;
    size_t n = 0;
    struct rt_table_pieces tp;
    uint32_t v;
    int r = rt_regf_value_find(sw, key, table_value(c), &v);
    if (r == 0)
        r = rt_regf_value_pieces(sw, v, &tp.type, &tp.piece, &tp.len, &tp.n,
                                 &tp.total);
    if (r != 0)
        return regf_fail(sw, r, s->software.path, e);
    int same = tp.total == c->before_len;
    rt_table_pieces_free(&tp);
    if (same)
        return splice_table(s, key, c, e);
    struct rt_value dat;
    int present;
    if (hive_read_dat(s, s->system32, c->lang, c->table, &dat, &present, e))
        return -1;
    r = rt_change_splice(c, dat.data, dat.len, &whole, &n);
    rt_value_free(&dat);
    if (r != 0)
        return rt_error_set(e, r < 0 ? RT_ERR_NOT_ENOUGH_MEMORY
                                     : RT_ERR_INTERNAL_ERROR,
                            "%s: the .dat table is not the one the change "
                            "was computed from", s->software.path);
    r = rt_regf_value_set(sw, key, table_value(c), c->value.type, whole, n);
    free(whole);
    return r == 0 ? 0 : regf_fail(sw, r, s->software.path, e);
}

/* A table splice made in place: of a big value, only the segments from
 * the first edit on are rewritten. */
static int splice_table(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e)
{
    struct rt_regf_edit *ed = malloc(c->n_edits * sizeof *ed);
    if (!ed)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (size_t i = 0; i < c->n_edits; i++)
        ed[i] = (struct rt_regf_edit){c->edits[i].at, c->edits[i].cut,
                                      c->value.data ? c->value.data + c->edits[i].ins : NULL,
                                      c->edits[i].ins_len};
    int r = rt_regf_value_splice(s->software.h, key, table_value(c),
                                 c->value.type, c->before_len, ed,
                                 c->n_edits);
    free(ed);
    return r == 0 ? 0 : regf_fail(s->software.h, r, s->software.path, e);
}

int hive_apply_one(struct hive_store *s, const struct rt_change *c,
                   struct pending *p, struct rt_error *e)
{
    struct rt_regf *sw = s->software.h, *sy = s->system.h;
    uint32_t key;
    char path[HIVE_PATH_MAX];
    int r;
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
        snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
        if ((r = rt_regf_key_create_path(sw, rt_regf_root(sw), path, &key)))
            return regf_fail(sw, r, s->software.path, e);
        return 0;
    case RT_CHANGE_SET_TABLE:
        if (s->files_layout) {
            if (stage_dat(p, s->system32, c, NULL) ||
                (s->syswow64 && stage_dat(p, s->syswow64, c, s->system32)))
                return hive_ambiguous(e) ? -1
                                    : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                                   "out of memory");
            /* A value the hive still holds for the table is kept a copy
             * of it (hive_read_table_copy), never left stale. */
            const char *vn = table_value(c);
            uint32_t v;
            snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
            int f = hive_find(&s->software, path, &key, e);
            if (f < 0)
                return -1;
            if (f)
                return 0;
            r = rt_regf_value_find(sw, key, vn, &v);
            if (r == RT_REGF_ENOTFOUND)
                return 0;
            if (r != 0)
                return regf_fail(sw, r, s->software.path, e);
            if (!c->n_edits) {
                r = rt_regf_value_set(sw, key, vn, c->value.type,
                                      c->value.data, c->value.len);
                return r == 0 ? 0 : regf_fail(sw, r, s->software.path, e);
            }
            return copy_spliced(s, key, c, e);
        }
        snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
        if ((r = rt_regf_key_create_path(sw, rt_regf_root(sw), path, &key)))
            return regf_fail(sw, r, s->software.path, e);
        if (c->n_edits && c->before_present)
            return splice_table(s, key, c, e);
        if (c->n_edits && (c->n_edits != 1 || c->before_len))
            return rt_error_set(e, RT_ERR_BADDB, "%s: %s",
                                s->software.path, rt_regf_errmsg(sw));
        /* No table yet: the edit inserts it whole, as a value set does. */
        r = rt_regf_value_set(sw, key, table_value(c), c->value.type,
                              c->value.data, c->value.len);
        return r == 0 ? 0 : regf_fail(sw, r, s->software.path, e);
    case RT_CHANGE_SET_PERFLIB:
        r = rt_regf_key_create_path(sw, rt_regf_root(sw), PERFLIB_PATH, &key);
        if (r == 0)
            r = rt_regf_value_set(sw, key, c->name, c->value.type,
                                  c->value.data, c->value.len);
        return r == 0 ? 0 : regf_fail(sw, r, s->software.path, e);
    case RT_CHANGE_CREATE_PERF_KEY:
        if (hive_key_path(path, sizeof path, e, "%s\\%s\\Performance",
                          s->services, c->service) != 0)
            return -1;
        if ((r = rt_regf_key_create_path(sy, rt_regf_root(sy), path, &key)))
            return regf_fail(sy, r, s->system.path, e);
        return 0;
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE:
        if (hive_key_path(path, sizeof path, e, "%s\\%s\\Performance",
                          s->services, c->service) != 0)
            return -1;
        r = hive_lookup(sy, path, &key);
        if (r == RT_REGF_ENOMEM)
            return regf_fail(sy, r, s->system.path, e);
        if (r != 0)
            return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                "%s: no key %s", s->system.path, path);
        if (c->op == RT_CHANGE_SET_SERVICE)
            r = rt_regf_value_set(sy, key, c->name, c->value.type,
                                  c->value.data, c->value.len);
        else if ((r = rt_regf_value_delete(sy, key, c->name)) ==
                 RT_REGF_ENOTFOUND)
            r = 0;
        return r == 0 ? 0 : regf_fail(sy, r, s->system.path, e);
    case RT_CHANGE_WRITE_FILE:
    case RT_CHANGE_DELETE_FILE:
        return stage_file(s, p, c, e);
    }
    return rt_error_set(e, RT_ERR_INVALID_PARAMETER, "unknown change");
}
