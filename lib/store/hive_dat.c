/* Store layer: the hive store's .dat tables as read: each file mapped
 * once and kept, found by path through a hash table (a tree has
 * thousands of tables, each looked for several times in one install),
 * forgotten when the file changes, within the caps of model/size_caps.h;
 * and a table read from its file. */
#include "store/hive_internal.h"
#include "model/size_caps.h"
#include "platform/compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int same_file_state(const struct rt_os_stat *a,
                           const struct rt_os_stat *b)
{
    return a->kind == b->kind && a->size == b->size && a->dev == b->dev &&
           a->ino == b->ino && a->mtime_ns == b->mtime_ns;
}

void hive_dats_drop(struct hive_store *s)
{
    for (size_t i = 0; i < s->n_dats; i++) {
        rt_os_unmap_file(&s->dats[i].map);
        free(s->dats[i].path);
    }
    free(s->dats);
    s->dats = NULL;
    s->n_dats = s->cap_dats = 0;
    free(s->dat_buckets);
    s->dat_buckets = NULL;
    s->n_dat_buckets = 0;
    s->dats_held = 0;
}

static const char *dat_prefix(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "perfc" : "perfh";
}

/* Where the chain of PATH's bucket starts (dat_buckets has buckets). */
static size_t *dat_bucket(struct hive_store *s, const char *path)
{
    return &s->dat_buckets[rt_os_path_hash(path) % s->n_dat_buckets];
}

static void dat_link(struct hive_store *s, size_t i)
{
    size_t *head = dat_bucket(s, s->dats[i].path);
    s->dats[i].next = *head;
    *head = i + 1;
}

static void dat_unlink(struct hive_store *s, size_t i)
{
    size_t *at = dat_bucket(s, s->dats[i].path);
    while (*at && *at != i + 1)
        at = &s->dats[*at - 1].next;
    if (*at)
        *at = s->dats[i].next;
}

/* Drops view I: unmapped, and the last one moved into its place. */
static void dat_forget(struct hive_store *s, size_t i)
{
    struct dat_seen *d = &s->dats[i];
    size_t last = s->n_dats - 1;
    dat_unlink(s, i);
    s->dats_held -= d->map.len;
    rt_os_unmap_file(&d->map);
    free(d->path);
    if (i != last) {
        dat_unlink(s, last);
        *d = s->dats[last];
        dat_link(s, i);
    }
    s->n_dats--;
}

/* The view of PATH kept since read_table mapped it, if the file is still
 * as it was then; NULL otherwise. */
struct dat_seen *hive_dat_seen_find(struct hive_store *s, const char *path)
{
    if (!s->n_dat_buckets)
        return NULL;
    for (size_t k = *dat_bucket(s, path); k; k = s->dats[k - 1].next) {
        struct dat_seen *d = &s->dats[k - 1];
        if (strcmp(d->path, path))
            continue;
        struct rt_os_stat st;
        if (rt_os_stat(path, &st) == 0 && same_file_state(&st, &d->st))
            return d;
        /* Written since: the view no longer says what the file holds. */
        dat_forget(s, k - 1);
        return NULL;
    }
    return NULL;
}

/* Room for one more view, its bucket table at least as large as the
 * views (doubled, so thousands of tables are rehashed a few times). */
static int dat_room(struct hive_store *s)
{
    if (s->n_dats == s->cap_dats) {
        size_t cap = rt_grown(s->cap_dats, 16, sizeof *s->dats);
        struct dat_seen *nv = cap ? realloc(s->dats, cap * sizeof *nv)
                                  : NULL;
        if (!nv)
            return -1;
        s->dats = nv;
        s->cap_dats = cap;
    }
    if (s->n_dats + 1 > s->n_dat_buckets) {
        size_t nb = rt_grown(s->n_dat_buckets, 64, sizeof *s->dat_buckets);
        size_t *b = nb ? calloc(nb, sizeof *b) : NULL;
        if (!b)
            return -1;
        free(s->dat_buckets);
        s->dat_buckets = b;
        s->n_dat_buckets = nb;
        for (size_t i = 0; i < s->n_dats; i++)
            dat_link(s, i);
    }
    return 0;
}

/* Maps PATH and keeps the view (dat_seen). NULL with errno on failure. */
struct dat_seen *hive_dat_seen_map(struct hive_store *s, const char *path)
{
    struct dat_seen *d = hive_dat_seen_find(s, path);
    if (d)
        return d;
    if (dat_room(s) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    d = &s->dats[s->n_dats];
    memset(d, 0, sizeof *d);
    /* Looked at before mapping: a write after this changes the time. */
    if (rt_os_stat(path, &d->st) != 0)
        return NULL;
    if (d->st.kind != RT_OS_FILE) {
        errno = d->st.kind == RT_OS_DIR ? EISDIR : ENOENT;
        return NULL;
    }
    /* Refused before it is read (hive_read_dat says so), alone or with the
     * tables mapped before it. */
    uint64_t held = s->dats_held + d->st.size;
    if (d->st.size > RT_DAT_TABLE_MAX || held > RT_DAT_TOTAL_MAX) {
        errno = EFBIG;
        return NULL;
    }
    if (rt_os_map_file(path, &d->map) != 0)
        return NULL;
    /* Grown past the caps between the stat and the map (a writer that
     * ignores the lock): refused as it would have been, before its pages
     * are read. */
    if (d->map.len > RT_DAT_TABLE_MAX ||
        s->dats_held + d->map.len > RT_DAT_TOTAL_MAX) {
        rt_os_unmap_file(&d->map);
        errno = EFBIG;
        return NULL;
    }
    if (!(d->path = strdup(path))) {
        rt_os_unmap_file(&d->map);
        errno = ENOMEM;
        return NULL;
    }
    /* Changed between the stat and the map: usable now, never again. */
    if (d->map.len != d->st.size)
        d->st.kind = RT_OS_ABSENT;
    s->dats_held += d->map.len;
    dat_link(s, s->n_dats++);
    return d;
}

/* DIR's .dat file of LANG's table T, as it is spelled there if it exists. */
char *hive_dat_path(const char *dir, const char *lang, enum rt_table_kind t)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s.dat", dat_prefix(t), lang);
    char *path = hive_find_ci(dir, name);
    /* Ambiguous, or memory ran out looking: never the name as spelled
     * here, which would write a second file beside the one Windows
     * reads. */
    if (!path && (errno == EEXIST || errno == ENOMEM))
        return NULL;
    if (!path && asprintf(&path, "%s/%s", dir, name) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    return path;
}

int hive_read_dat(struct hive_store *s, const char *dir, const char *lang,
                  enum rt_table_kind t, struct rt_value *out, int *present,
                  struct rt_error *e)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s.dat", dat_prefix(t), lang);
    char *p = hive_find_ci(dir, name);
    memset(out, 0, sizeof *out);
    *present = 0;
    /* Memory running out while the folder is looked through is not a
     * table that is missing. */
    if (!p && errno == ENOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (!p)
        return hive_ambiguous(e) ? -1 : 0;
    struct dat_seen *d = hive_dat_seen_map(s, p);
    struct rt_os_stat big;
    if (!d && errno == EFBIG && rt_os_stat(p, &big) == 0) {
        if (big.size > RT_DAT_TABLE_MAX)
            rt_size_cap_error(e, p, big.size, RT_DAT_TABLE_MAX, "a .dat table");
        else
            rt_error_set(e, RT_ERR_INVALID_DATA,
                         "%s: %llu bytes, which with the tables read before "
                         "it is more than the %llu MiB the .dat tables of a "
                         "tree may be together; nothing more was read", p,
                         (unsigned long long)big.size,
                         (unsigned long long)(RT_DAT_TOTAL_MAX >> 20));
        free(p);
        return -1;
    }
    if (!d || !(out->data = malloc(d->map.len ? d->map.len : 1))) {
        int nomem = d || errno == ENOMEM;
        rt_error_set(e, nomem ? RT_ERR_NOT_ENOUGH_MEMORY : RT_ERR_ACCESS_DENIED,
                     "%s: %s", p, d ? "out of memory" : rt_os_strerror(errno));
        free(p);
        return -1;
    }
    memcpy(out->data, d->map.data, d->map.len);
    out->len = d->map.len;
    /* Held once: the copy, not also the view's pages. */
    rt_os_map_release(&d->map, 0, d->map.len);
    free(p);
    out->type = RT_REG_MULTI_SZ;
    *present = 1;
    return 0;
}
