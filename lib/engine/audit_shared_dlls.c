/* Engine layer, inside audit --libraries (audit_shared_dlls.h): providers
 * that load one DLL with other procedures. Pure: the DLL each Library
 * names is the caller's to say. */
#include "engine/audit_shared_dlls.h"

#include <stdlib.h>
#include <strings.h>

int rt_audit_blank(const char *v)
{
    if (!v)
        return 1;
    while (*v == ' ' || *v == '\t')
        v++;
    return !*v;
}

/* Orders NULL before any text, texts case-insensitively. */
static int cmp_ci(const char *x, const char *y)
{
    return x && y ? strcasecmp(x, y) : (x != NULL) - (y != NULL);
}

struct shared_ent {
    char *key;          /* the DLL its Library names, as KEY gives it */
    size_t i;           /* index in the database's services */
    const struct rt_service_info *s;
};

static int procs_cmp(const struct rt_service_info *s,
                     const struct rt_service_info *o)
{
    int c = cmp_ci(s->open, o->open);
    if (!c)
        c = cmp_ci(s->collect, o->collect);
    return c ? c : cmp_ci(s->close, o->close);
}

/* By DLL, within a DLL by the three procedures, then in database order. */
static int shared_ent_cmp(const void *x, const void *y)
{
    const struct shared_ent *a = x, *b = y;
    int c = strcasecmp(a->key, b->key);
    if (!c)
        c = procs_cmp(a->s, b->s);
    return c ? c : a->i < b->i ? -1 : a->i > b->i;
}

static int pair_cmp(const void *x, const void *y)
{
    const struct rt_dll_pair *a = x, *b = y;
    if (a->i != b->i)
        return a->i < b->i ? -1 : 1;
    return a->j < b->j ? -1 : a->j > b->j;
}

int rt_audit_shared_dll_pairs(const struct rt_database *db,
                              char *(*key)(void *ctx, const char *library),
                              void *ctx, struct rt_dll_pair **pairs_out,
                              size_t *n_out)
{
    struct shared_ent *ent = calloc(db->n_services + 1, sizeof *ent);
    struct rt_dll_pair *pairs = NULL;
    size_t n = 0, np = 0, cap = 0;
    int r = -1;
    *pairs_out = NULL;
    *n_out = 0;
    if (!ent)
        goto out;
    for (size_t i = 0; i < db->n_services; i++) {
        if (rt_audit_blank(db->services[i].library))
            continue;
        if (!(ent[n].key = key(ctx, db->services[i].library)))
            goto out;
        ent[n].s = &db->services[i];
        ent[n++].i = i;
    }
    qsort(ent, n, sizeof *ent, shared_ent_cmp);
    for (size_t g = 0, end; g < n; g = end) {
        for (end = g + 1; end < n && !strcasecmp(ent[g].key, ent[end].key);)
            end++;
        /* Within the DLL's group: every two of different procedures. */
        for (size_t x = g, xe; x < end; x = xe) {
            for (xe = x + 1; xe < end && !procs_cmp(ent[x].s, ent[xe].s);)
                xe++;
            for (size_t p = x; p < xe; p++)
                for (size_t q = xe; q < end; q++) {
                    if (np == cap) {
                        size_t nc = cap ? 2 * cap : 16;
                        struct rt_dll_pair *v = realloc(pairs, nc * sizeof *v);
                        if (!v)
                            goto out;
                        pairs = v;
                        cap = nc;
                    }
                    size_t i = ent[p].i, j = ent[q].i;
                    pairs[np++] = i < j ? (struct rt_dll_pair){i, j}
                                        : (struct rt_dll_pair){j, i};
                }
        }
    }
    /* No pairs, no array: qsort takes no NULL, even for nothing. */
    if (np)
        qsort(pairs, np, sizeof *pairs, pair_cmp);
    *pairs_out = pairs;
    *n_out = np;
    pairs = NULL;
    r = 0;
out:
    for (size_t k = 0; k < n; k++)
        free(ent[k].key);
    free(ent);
    free(pairs);
    return r;
}
