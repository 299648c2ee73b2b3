/* Model layer: Windows 95 System Monitor registrations (model/perfstats.h). */
#include "model/perfstats.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"
#include "platform/compat.h"

static int same(const char *a, size_t an, const char *b, size_t bn)
{
    return rt_utf8_casecmp(a, an, b, bn) == 0;
}

/* The part of PATH below the Enum key ("SERVER" or "SERVER\STAT..."), or
 * NULL when PATH is not below it. */
static const char *below_enum(const char *path)
{
    size_t n = strlen(RT_PERFSTATS_ENUM);
    if (strlen(path) <= n + 1 || path[n] != '\\' ||
        !same(path, n, RT_PERFSTATS_ENUM, n))
        return NULL;
    return path + n + 1;
}

/* A value of K as text, when it is a string. */
static char *text_value(const struct rt_reg_key *k, const char *name)
{
    char *found = NULL;
    for (size_t i = 0; i < k->n_vals; i++)
        if (!k->vals[i].del && same(k->vals[i].name, strlen(k->vals[i].name),
                                    name, strlen(name))) {
            free(found);
            found = rt_value_string(&k->vals[i].v);
        }
    return found;
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

static struct rt_perfstats_server *server_for(struct rt_perfstats *p,
                                              const char *key, size_t len)
{
    for (size_t i = 0; i < p->n_servers; i++)
        if (same(p->servers[i].key, strlen(p->servers[i].key), key, len))
            return &p->servers[i];
    struct rt_perfstats_server *v =
        realloc(p->servers, (p->n_servers + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->servers = v;
    struct rt_perfstats_server *s = &v[p->n_servers];
    memset(s, 0, sizeof *s);
    if (!(s->key = strndup(key, len)))
        return NULL;
    p->n_servers++;
    return s;
}

int rt_perfstats_read(const struct rt_reg_file *f, struct rt_perfstats *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        const char *rest = k->del ? NULL : below_enum(k->path);
        if (!rest)
            continue;
        const char *sep = strchr(rest, '\\');
        struct rt_perfstats_server *s =
            server_for(out, rest, sep ? (size_t)(sep - rest) : strlen(rest));
        if (!s)
            goto fail;
        if (!sep) {
            if (!s->line) {
                s->line = k->line;
                s->name = text_value(k, "Name");
                s->vxd = text_value(k, "VxDName");
            }
            continue;
        }
        /* Keys below a statistic are none of System Monitor's. */
        if (strchr(sep + 1, '\\'))
            continue;
        struct rt_perfstat *v = realloc(s->stats, (s->n_stats + 1) * sizeof *v);
        if (!v)
            goto fail;
        s->stats = v;
        struct rt_perfstat *st = &v[s->n_stats++];
        memset(st, 0, sizeof *st);
        st->line = k->line;
        if (!(st->key = strdup(sep + 1)))
            goto fail;
        st->name = text_value(k, "Name");
        st->description = text_value(k, "Description");
        st->differentiate = text_value(k, "Differentiate");
        if (st->differentiate && !strcasecmp(st->differentiate, "TRUE"))
            st->kind = RT_STAT_RATE;
        else if (st->differentiate && !strcasecmp(st->differentiate, "FALSE"))
            st->kind = RT_STAT_COUNT;
    }
    return 0;
fail:
    rt_perfstats_free(out);
    return -1;
}

static struct rt_perfstats_finding *add(struct rt_perfstats_finding **v,
                                        size_t *n, const char *id, int error,
                                        const struct rt_perfstats_server *s,
                                        const struct rt_perfstat *st)
{
    struct rt_perfstats_finding *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return NULL;
    *v = nv;
    struct rt_perfstats_finding *x = &nv[(*n)++];
    memset(x, 0, sizeof *x);
    x->id = id;
    x->error = error;
    x->server = s->key;
    x->stat = st ? st->key : NULL;
    x->line = st ? st->line : s->line;
    return x;
}

int rt_perfstats_audit(const struct rt_perfstats *p,
                       struct rt_perfstats_finding **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_perfstats_server *s = &p->servers[i];
        struct rt_perfstats_finding *x;
        if (!s->n_stats) {
            if (!(x = add(out, n, "server-no-stats", 0, s, NULL)))
                goto fail;
            snprintf(x->message, sizeof x->message,
                     "stat server %s%s%s%s has no statistics: System Monitor "
                     "offers nothing from it", s->key, s->name ? " (" : "",
                     s->name ? s->name : "", s->name ? ")" : "");
        }
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_perfstat *st = &s->stats[j];
            if (!st->name || !*st->name) {
                if (!(x = add(out, n, "stat-no-name", 1, s, st)))
                    goto fail;
                snprintf(x->message, sizeof x->message,
                         "statistic %s\\%s has no Name: System Monitor lists "
                         "it without a label", s->key, st->key);
            }
            for (size_t k = 0; k < j; k++)
                if (same(s->stats[k].key, strlen(s->stats[k].key), st->key,
                         strlen(st->key))) {
                    if (!(x = add(out, n, "stat-duplicate", 1, s, st)))
                        goto fail;
                    snprintf(x->message, sizeof x->message,
                             "statistic %s\\%s is exported again (first at "
                             "line %u): on import the second overwrites the "
                             "first", s->key, st->key, s->stats[k].line);
                    break;
                }
            if (st->differentiate && st->kind == RT_STAT_UNKNOWN) {
                if (!(x = add(out, n, "stat-bad-differentiate", 0, s, st)))
                    goto fail;
                snprintf(x->message, sizeof x->message,
                         "statistic %s\\%s has Differentiate \"%.60s\": "
                         "neither TRUE (a rate) nor FALSE (a count)", s->key,
                         st->key, st->differentiate);
            }
        }
    }
    return 0;
fail:
    free(*out);
    *out = NULL;
    *n = 0;
    return -1;
}

int rt_perfstats_remove(const struct rt_reg_file *f, const char *key,
                        struct rt_reg_file *out, struct rt_reg_file *patch)
{
    memset(out, 0, sizeof *out);
    memset(patch, 0, sizeof *patch);
    out->format = patch->format = f->format;
    size_t kl = strlen(key);
    int found = 0;
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        const char *rest = below_enum(k->path);
        size_t rl = rest ? strlen(rest) : 0;
        if (rest && rl >= kl && (rest[kl] == '\0' || rest[kl] == '\\') &&
            same(rest, kl, key, kl)) {
            found = 1;
            continue;
        }
        struct rt_reg_key *c = rt_reg_add_key(out, k->path, k->del);
        if (!c)
            goto fail;
        c->line = k->line;
        for (size_t j = 0; j < k->n_vals; j++)
            if (rt_reg_add_value(c, k->vals[j].name,
                                 k->vals[j].del ? NULL : &k->vals[j].v) != 0)
                goto fail;
    }
    if (!found) {
        rt_reg_file_free(out);
        return 1;
    }
    char *path;
    if (asprintf(&path, RT_PERFSTATS_ENUM "\\%s", key) < 0)
        goto fail;
    struct rt_reg_key *d = rt_reg_add_key(patch, path, 1);
    free(path);
    if (!d)
        goto fail;
    return 0;
fail:
    rt_reg_file_free(out);
    rt_reg_file_free(patch);
    return -1;
}
