/* Model layer: Windows 95 System Monitor registrations (model/perfstats.h). */
#include "model/perfstats.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"
#include "platform/compat.h"

static int same(const char *a, size_t an, const char *b, size_t bn)
{
    return rt_utf8_casecmp(a, an, b, bn) == 0;
}

const char *rt_perfstats_below_enum(const char *path)
{
    size_t n = strlen(RT_PERFSTATS_ENUM);
    if (strlen(path) <= n + 1 || path[n] != '\\' ||
        !same(path, n, RT_PERFSTATS_ENUM, n))
        return NULL;
    return path + n + 1;
}

int rt_perfstats_value_read(const char *name)
{
    static const char *const read[] = {"Name", "VxDName", "Description",
                                       "Differentiate"};
    for (size_t i = 0; i < sizeof read / sizeof *read; i++)
        if (same(name, strlen(name), read[i], strlen(read[i])))
            return 1;
    return 0;
}

/* A value of K as text in *OUT, when it is a string (else NULL): 0, or
 * -1 when out of memory, never taken for a value K lacks. */
static int text_value(const struct rt_reg_key *k, const char *name,
                      char **out)
{
    *out = NULL;
    for (size_t i = 0; i < k->n_vals; i++)
        if (!k->vals[i].del && same(k->vals[i].name, strlen(k->vals[i].name),
                                    name, strlen(name))) {
            free(*out);
            if (rt_value_to_string(&k->vals[i].v, out) != 0)
                return -1;
        }
    return 0;
}

void rt_perfstats_free(struct rt_perfstats *p)
{
    for (size_t i = 0; i < p->n_servers; i++) {
        struct rt_perfstats_server *s = &p->servers[i];
        for (size_t j = 0; j < s->n_stats; j++) {
            free(s->stats[j].key);
            free(s->stats[j].name);
            free(s->stats[j].description);
            free(s->stats[j].differentiate);
        }
        free(s->stats);
        free(s->key);
        free(s->name);
        free(s->vxd);
    }
    free(p->servers);
    memset(p, 0, sizeof *p);
}

const struct rt_perfstats_server *
rt_perfstats_server(const struct rt_perfstats *p, const char *key)
{
    for (size_t i = 0; i < p->n_servers; i++)
        if (same(p->servers[i].key, strlen(p->servers[i].key), key,
                 strlen(key)))
            return &p->servers[i];
    return NULL;
}

/* The servers read so far by key, for rt_perfstats_read: open addressing
 * over positions (+1; 0 is an empty slot), at most half full, hashed by
 * rt_utf8_casehash (keys rt_utf8_casecmp calls equal hash alike), as
 * regtree.c indexes a key's subkeys. Each of an export's keys is placed in
 * its server in constant time: a scan of the servers per key made an
 * export of 20,000 servers take seconds. The seed is the index's address:
 * keys chosen to collide in one run do not in another. */
struct server_index {
    size_t *slot;
    size_t cap;         /* a power of two */
};

static size_t server_home(const struct server_index *x, const char *key,
                          size_t len)
{
    return (size_t)rt_utf8_casehash(key, len, (uintptr_t)x) & (x->cap - 1);
}

static void server_put(struct server_index *x, const char *key, size_t len,
                       size_t pos)
{
    size_t i = server_home(x, key, len);
    while (x->slot[i])
        i = (i + 1) & (x->cap - 1);
    x->slot[i] = pos + 1;
}

/* Room for the N servers of P and one more; -1 when out of memory. */
static int server_room(struct server_index *x, const struct rt_perfstats *p)
{
    size_t n = p->n_servers + 1;
    if (2 * n <= x->cap)
        return 0;
    size_t cap = x->cap ? 2 * x->cap : 64;
    size_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    free(x->slot);
    x->slot = slot;
    x->cap = cap;
    for (size_t i = 0; i < p->n_servers; i++)
        server_put(x, p->servers[i].key, strlen(p->servers[i].key), i);
    return 0;
}

/* The server KEY (LEN bytes) of P, a new one at the end when P has none;
 * NULL when out of memory. */
static struct rt_perfstats_server *server_for(struct rt_perfstats *p,
                                              struct server_index *x,
                                              const char *key, size_t len)
{
    if (server_room(x, p) != 0)
        return NULL;
    size_t i = server_home(x, key, len);
    for (; x->slot[i]; i = (i + 1) & (x->cap - 1)) {
        struct rt_perfstats_server *s = &p->servers[x->slot[i] - 1];
        if (same(s->key, strlen(s->key), key, len))
            return s;
    }
    if (p->n_servers == p->cap_servers) {
        /* Half as much again: never twice what it holds. */
        size_t c = p->cap_servers ? p->cap_servers + p->cap_servers / 2 : 16;
        struct rt_perfstats_server *v = realloc(p->servers, c * sizeof *v);
        if (!v)
            return NULL;
        p->servers = v;
        p->cap_servers = c;
    }
    struct rt_perfstats_server *s = &p->servers[p->n_servers];
    memset(s, 0, sizeof *s);
    if (!(s->key = strndup(key, len)))
        return NULL;
    x->slot[i] = ++p->n_servers;
    return s;
}

int rt_perfstats_read(const struct rt_reg_file *f, struct rt_perfstats *out)
{
    memset(out, 0, sizeof *out);
    struct server_index index = {NULL, 0};
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        const char *rest = k->del ? NULL : rt_perfstats_below_enum(k->path);
        if (!rest)
            continue;
        const char *sep = strchr(rest, '\\');
        struct rt_perfstats_server *s =
            server_for(out, &index, rest,
                       sep ? (size_t)(sep - rest) : strlen(rest));
        if (!s)
            goto fail;
        if (!sep) {
            if (!s->line) {
                s->line = k->line;
                if (text_value(k, "Name", &s->name) ||
                    text_value(k, "VxDName", &s->vxd))
                    goto fail;
            }
            continue;
        }
        /* Keys below a statistic are none of System Monitor's. */
        if (strchr(sep + 1, '\\'))
            continue;
        if (s->n_stats == s->cap_stats) {
            size_t c = s->cap_stats + s->cap_stats / 2 + 1;
            struct rt_perfstat *v = realloc(s->stats, c * sizeof *v);
            if (!v)
                goto fail;
            s->stats = v;
            s->cap_stats = c;
        }
        struct rt_perfstat *st = &s->stats[s->n_stats++];
        memset(st, 0, sizeof *st);
        st->line = k->line;
        if (!(st->key = strdup(sep + 1)))
            goto fail;
        if (text_value(k, "Name", &st->name) ||
            text_value(k, "Description", &st->description) ||
            text_value(k, "Differentiate", &st->differentiate))
            goto fail;
        if (st->differentiate && !strcasecmp(st->differentiate, "TRUE"))
            st->kind = RT_STAT_RATE;
        else if (st->differentiate && !strcasecmp(st->differentiate, "FALSE"))
            st->kind = RT_STAT_COUNT;
    }
    free(index.slot);
    return 0;
fail:
    free(index.slot);
    rt_perfstats_free(out);
    return -1;
}

/* The audit's findings so far. */
struct findings {
    struct rt_perfstats_finding *v;
    size_t n, cap;
};

static struct rt_perfstats_finding *add(struct findings *f, const char *id,
                                        int error,
                                        const struct rt_perfstats_server *s,
                                        const struct rt_perfstat *st)
{
    if (f->n == f->cap) {
        size_t c = f->cap ? f->cap + f->cap / 2 : 16;
        struct rt_perfstats_finding *nv = realloc(f->v, c * sizeof *nv);
        if (!nv)
            return NULL;
        f->v = nv;
        f->cap = c;
    }
    struct rt_perfstats_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    x->id = id;
    x->error = error;
    x->server = s;
    x->stat = st;
    x->line = st ? st->line : s->line;
    return x;
}

void rt_perfstats_finding_message(const struct rt_perfstats_finding *x,
                                  char *buf, size_t size)
{
    const struct rt_perfstats_server *s = x->server;
    const char *stat = x->stat ? x->stat->key : "";
    if (!strcmp(x->id, "server-no-stats"))
        snprintf(buf, size, "stat server %s%s%s%s has no statistics: System "
                 "Monitor offers nothing from it", s->key, s->name ? " (" : "",
                 s->name ? s->name : "", s->name ? ")" : "");
    else if (!strcmp(x->id, "stat-no-name"))
        snprintf(buf, size, "statistic %s\\%s has no Name: System Monitor "
                 "lists it without a label", s->key, stat);
    else if (!strcmp(x->id, "stat-duplicate") && x->times > 2)
        snprintf(buf, size, "statistic %s\\%s is exported %zu times (first at "
                 "line %u): on import they merge, each value the last "
                 "section's", s->key, x->first->key, x->times, x->first->line);
    else if (!strcmp(x->id, "stat-duplicate"))
        snprintf(buf, size, "statistic %s\\%s is exported again (first at "
                 "line %u): on import the second overwrites the first",
                 s->key, stat, x->first->line);
    else
        snprintf(buf, size, "statistic %s\\%s has Differentiate \"%.60s\": "
                 "neither TRUE (a rate) nor FALSE (a count)", s->key, stat,
                 x->stat && x->stat->differentiate ? x->stat->differentiate
                                                   : "");
}

/* A server's stats, by key (rt_utf8_casecmp) and, among equal keys, in
 * file order: the first of a run of equals is the one the others repeat. */
struct stat_at {
    const struct rt_perfstat *stat;
    size_t at;
};

static int stat_at_cmp(const void *a, const void *b)
{
    const struct stat_at *x = a, *y = b;
    int c = rt_utf8_casecmp(x->stat->key, strlen(x->stat->key), y->stat->key,
                            strlen(y->stat->key));
    return c ? c : x->at < y->at ? -1 : x->at > y->at;
}

/* For each stat of S, the position of the earlier stat of the same key
 * it repeats, or SIZE_MAX: in FIRST (S->n_stats entries). Sorted once,
 * O(n log n): each stat compared with every earlier one made 20,000
 * stats of one server take seconds. -1 when out of memory. */
static int repeated_stats(const struct rt_perfstats_server *s, size_t *first)
{
    if (!s->n_stats)
        return 0;
    struct stat_at *v = malloc(s->n_stats * sizeof *v);
    if (!v)
        return -1;
    for (size_t j = 0; j < s->n_stats; j++) {
        v[j] = (struct stat_at){&s->stats[j], j};
        first[j] = SIZE_MAX;
    }
    qsort(v, s->n_stats, sizeof *v, stat_at_cmp);
    size_t run = 0;
    for (size_t j = 1; j < s->n_stats; j++) {
        if (!same(v[run].stat->key, strlen(v[run].stat->key),
                  v[j].stat->key, strlen(v[j].stat->key)))
            run = j;
        else
            first[v[j].at] = v[run].at;
    }
    free(v);
    return 0;
}

/* What the audit keeps of each stat of a server while it looks at it. */
struct stat_run {
    size_t first;       /* the earlier stat of its key, or SIZE_MAX */
    size_t times;       /* of a key's first: its sections in all */
    size_t second;      /* of a key's first: its second section */
    size_t diff_at;     /* of a key's first: the last with Differentiate */
    int named;          /* of a key's first: a section has a Name */
};

int rt_perfstats_audit(const struct rt_perfstats *p,
                       struct rt_perfstats_finding **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    struct findings f = {NULL, 0, 0};
    size_t most = 0;
    for (size_t i = 0; i < p->n_servers; i++)
        if (p->servers[i].n_stats > most)
            most = p->servers[i].n_stats;
    size_t *first = malloc((most ? most : 1) * sizeof *first);
    struct stat_run *run = malloc((most ? most : 1) * sizeof *run);
    if (!first || !run)
        goto fail;
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_perfstats_server *s = &p->servers[i];
        struct rt_perfstats_finding *x;
        if (!s->n_stats && !add(&f, "server-no-stats", 0, s, NULL))
            goto fail;
        if (repeated_stats(s, first) != 0)
            goto fail;
        /* A stat exported more than once is one key on import, its
         * values merged, the last of each name winning: named when any
         * of its sections names it, its Differentiate the last given,
         * each said once a key, not once a section (400,000 repeats of
         * one key took 13 times the file in findings: reviews 39 F1 and
         * 40). */
        for (size_t j = 0; j < s->n_stats; j++) {
            size_t k = first[j] == SIZE_MAX ? j : first[j];
            if (k == j)
                run[j] = (struct stat_run){SIZE_MAX, 0, 0, SIZE_MAX, 0};
            if (++run[k].times == 2)
                run[k].second = j;
            if (s->stats[j].name && *s->stats[j].name)
                run[k].named = 1;
            if (s->stats[j].differentiate)
                run[k].diff_at = j;
        }
        for (size_t j = 0; j < s->n_stats; j++) {
            if (first[j] != SIZE_MAX)
                continue;
            const struct rt_perfstat *st = &s->stats[j];
            if (!run[j].named && !add(&f, "stat-no-name", 1, s, st))
                goto fail;
            if (run[j].times > 1) {
                if (!(x = add(&f, "stat-duplicate", 1, s,
                              &s->stats[run[j].second])))
                    goto fail;
                x->first = st;
                x->times = run[j].times;
            }
            if (run[j].diff_at != SIZE_MAX &&
                s->stats[run[j].diff_at].kind == RT_STAT_UNKNOWN &&
                !add(&f, "stat-bad-differentiate", 0, s,
                     &s->stats[run[j].diff_at]))
                goto fail;
        }
    }
    free(first);
    free(run);
    *out = f.v;
    *n = f.n;
    return 0;
fail:
    free(first);
    free(run);
    free(f.v);
    return -1;
}

/* Whether section K lies under the server KEY (KL bytes). */
static int under_server(const struct rt_reg_key *k, const char *key, size_t kl)
{
    const char *rest = rt_perfstats_below_enum(k->path);
    size_t rl = rest ? strlen(rest) : 0;
    return rest && rl >= kl && (rest[kl] == '\0' || rest[kl] == '\\') &&
           same(rest, kl, key, kl);
}

/* rt_perfstats_remove_text's reading: each section written as it is
 * read, the server's left out. */
struct removal {
    struct rt_reg_writer w;
    int started, skipping, found, failed;
    uint64_t max;
    const char *codepage, *key;
    size_t kl, kept;
    struct rt_reg_error we;     /* the writer's, when it stopped the read */
};

static int removal_key(void *ctx, const struct rt_reg_file *f, size_t k)
{
    struct removal *r = ctx;
    if (!r->started) {          /* the dialect is known from here */
        rt_reg_writer_start(&r->w, f->format, r->codepage);
        r->w.max = r->max;
        r->started = 1;
    }
    r->skipping = under_server(&f->keys[k], r->key, r->kl);
    r->found |= r->skipping;
    if (r->skipping)
        return 0;
    r->kept++;
    if (rt_reg_writer_key(&r->w, f->keys[k].path, f->keys[k].del, &r->we)) {
        r->failed = 1;
        return -1;
    }
    return 0;
}

static int removal_value(void *ctx, const struct rt_reg_file *f, size_t k,
                         char *name, int del, struct rt_value *v,
                         unsigned line)
{
    struct removal *r = ctx;
    (void)f;
    (void)k;
    (void)line;
    int rc = 0;
    if (!r->skipping && rt_reg_writer_value(&r->w, name, v, del, &r->we)) {
        r->failed = 1;
        rc = -1;
    }
    free(name);
    rt_value_free(v);
    return rc;
}

int rt_perfstats_remove_text(const uint8_t *data, size_t len,
                             const char *codepage, const char *key,
                             uint64_t max, uint8_t **out, size_t *out_len,
                             size_t *keys_left, struct rt_reg_file *patch,
                             struct rt_reg_error *e)
{
    memset(patch, 0, sizeof *patch);
    memset(e, 0, sizeof *e);
    *out = NULL;
    *out_len = 0;
    *keys_left = 0;
    struct removal r = {.max = max, .codepage = codepage, .key = key,
                        .kl = strlen(key)};
    struct rt_reg_file f;
    const struct rt_reg_sink sink = {removal_key, removal_value, &r};
    int rc = rt_reg_parse_to(data, len, codepage, &f, &sink, e);
    if (rc != 0 && r.failed)
        *e = r.we;
    if (rc == 0 && !r.found)
        rc = 1;
    if (rc == 0) {
        char *path = NULL;
        patch->format = f.format;
        if (asprintf(&path, RT_PERFSTATS_ENUM "\\%s", key) < 0)
            path = NULL;
        if (!path || !rt_reg_add_key(patch, path, 1)) {
            e->nomem = 1;
            snprintf(e->message, sizeof e->message, "out of memory");
            rc = -1;
        }
        free(path);
    }
    if (rc == 0) {
        *keys_left = r.kept;
        rc = rt_reg_writer_finish(&r.w, out, out_len, e);
        r.started = 0;
    }
    if (r.started)
        rt_reg_writer_abandon(&r.w);
    if (rc != 0)
        rt_reg_file_free(patch);
    rt_reg_file_free(&f);
    return rc;
}
