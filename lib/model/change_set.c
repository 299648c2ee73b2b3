/* Model layer: change sets and registry values. */
#include "model/change_set.h"

#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

void rt_value_free(struct rt_value *v)
{
    free(v->data);
    v->data = NULL;
    v->len = 0;
}

int rt_value_dword(const struct rt_value *v, uint32_t *out)
{
    if (v->type != RT_REG_DWORD || v->len != 4)
        return -1;
    *out = (uint32_t)v->data[0] | (uint32_t)v->data[1] << 8 |
           (uint32_t)v->data[2] << 16 | (uint32_t)v->data[3] << 24;
    return 0;
}

char *rt_value_string(const struct rt_value *v)
{
    if (v->type != RT_REG_SZ && v->type != RT_REG_EXPAND_SZ)
        return NULL;
    size_t len = v->len & ~(size_t)1;
    /* Stop at the first NUL: what follows is not part of the string. */
    for (size_t i = 0; i + 1 < len; i += 2)
        if (!v->data[i] && !v->data[i + 1]) {
            len = i;
            break;
        }
    char *s = NULL;
    if (rt_utf16le_to_utf8(v->data, len, &s, NULL, NULL) != 0)
        return NULL;
    return s;
}

int rt_value_from_dword(struct rt_value *v, uint32_t x)
{
    v->type = RT_REG_DWORD;
    v->len = 4;
    v->data = malloc(4);
    if (!v->data)
        return -1;
    v->data[0] = (uint8_t)x;
    v->data[1] = (uint8_t)(x >> 8);
    v->data[2] = (uint8_t)(x >> 16);
    v->data[3] = (uint8_t)(x >> 24);
    return 0;
}

int rt_value_from_string(struct rt_value *v, uint32_t type, const char *utf8)
{
    uint8_t *u = NULL;
    size_t n = 0;
    size_t len = strlen(utf8);
    if (len && rt_utf8_to_utf16le(utf8, len, &u, &n, NULL) != 0)
        return -1;
    v->type = type;
    v->len = n + 2;
    v->data = malloc(v->len);
    if (!v->data) {
        free(u);
        return -1;
    }
    if (n)
        memcpy(v->data, u, n);
    v->data[n] = v->data[n + 1] = 0;
    free(u);
    return 0;
}

int rt_value_copy(struct rt_value *dst, const struct rt_value *src)
{
    dst->type = src->type;
    dst->len = src->len;
    dst->data = malloc(src->len ? src->len : 1);
    if (!dst->data)
        return -1;
    if (src->len)
        memcpy(dst->data, src->data, src->len);
    return 0;
}

int rt_value_equal(const struct rt_value *a, const struct rt_value *b)
{
    return a->type == b->type && a->len == b->len &&
           (a->len == 0 || memcmp(a->data, b->data, a->len) == 0);
}

static struct rt_change *push(struct rt_change_set *cs, enum rt_change_op op)
{
    if (cs->n == cs->cap) {
        size_t c = cs->cap ? cs->cap * 2 : 16;
        struct rt_change *v = realloc(cs->v, c * sizeof *v);
        if (!v)
            return NULL;
        cs->v = v;
        cs->cap = c;
    }
    struct rt_change *c = &cs->v[cs->n];
    memset(c, 0, sizeof *c);
    c->op = op;
    return c;
}

static void change_free(struct rt_change *c)
{
    free(c->lang);
    free(c->service);
    free(c->name);
    rt_value_free(&c->value);
    rt_pair_list_free(&c->added);
    rt_pair_list_free(&c->removed);
}

/* Commits the change at the end of CS when every copy succeeded. */
static int finish(struct rt_change_set *cs, struct rt_change *c, int ok)
{
    if (!ok) {
        change_free(c);
        return -1;
    }
    cs->n++;
    return 0;
}

static int dup_ok(char **dst, const char *src)
{
    if (!src)
        return 1;
    *dst = strdup(src);
    return *dst != NULL;
}

int rt_change_set_create_language(struct rt_change_set *cs, const char *lang)
{
    struct rt_change *c = push(cs, RT_CHANGE_CREATE_LANGUAGE);
    return c ? finish(cs, c, dup_ok(&c->lang, lang)) : -1;
}

int rt_change_set_table(struct rt_change_set *cs, const char *lang,
                        enum rt_table_kind table, const uint8_t *blob,
                        size_t len, const struct rt_pair_list *added,
                        const struct rt_pair_list *removed)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_TABLE);
    if (!c)
        return -1;
    c->table = table;
    struct rt_value v = {RT_REG_MULTI_SZ, (uint8_t *)blob, len};
    int ok = dup_ok(&c->lang, lang) && rt_value_copy(&c->value, &v) == 0 &&
             (!added || rt_pair_list_copy(&c->added, added) == 0) &&
             (!removed || rt_pair_list_copy(&c->removed, removed) == 0);
    return finish(cs, c, ok);
}

int rt_change_set_table_take(struct rt_change_set *cs, const char *lang,
                             enum rt_table_kind table, uint8_t *blob,
                             size_t len, struct rt_pair_list *added,
                             struct rt_pair_list *removed)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_TABLE);
    if (!c) {
        free(blob);
        return -1;
    }
    c->table = table;
    c->value = (struct rt_value){RT_REG_MULTI_SZ, blob, len};
    if (!dup_ok(&c->lang, lang))
        return finish(cs, c, 0);
    c->added = *added;
    c->removed = *removed;
    memset(added, 0, sizeof *added);
    memset(removed, 0, sizeof *removed);
    return finish(cs, c, 1);
}

int rt_change_set_table_replace(struct rt_change_set *cs, const char *lang,
                                enum rt_table_kind table, const uint8_t *blob,
                                size_t len, int before_present,
                                size_t before_len, uint64_t before_hash,
                                const struct rt_pair_list *added,
                                const struct rt_pair_list *removed)
{
    if (rt_change_set_table(cs, lang, table, blob, len, added, removed) != 0)
        return -1;
    struct rt_change *c = &cs->v[cs->n - 1];
    c->replace = 1;
    c->before_present = before_present;
    c->before_len = before_len;
    c->before_hash = before_hash;
    return 0;
}

uint64_t rt_blob_hash(const uint8_t *data, size_t len)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < len; i++) {
        h ^= data[i];
        h *= 1099511628211ull;
    }
    return h;
}

int rt_change_set_perflib(struct rt_change_set *cs, const char *name,
                          const struct rt_value *v)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_PERFLIB);
    return c ? finish(cs, c, dup_ok(&c->name, name) &&
                                 rt_value_copy(&c->value, v) == 0)
             : -1;
}

int rt_change_set_create_perf_key(struct rt_change_set *cs,
                                  const char *service)
{
    struct rt_change *c = push(cs, RT_CHANGE_CREATE_PERF_KEY);
    return c ? finish(cs, c, dup_ok(&c->service, service)) : -1;
}

int rt_change_set_service(struct rt_change_set *cs, const char *service,
                          const char *name, const struct rt_value *v)
{
    struct rt_change *c = push(cs, RT_CHANGE_SET_SERVICE);
    return c ? finish(cs, c, dup_ok(&c->service, service) &&
                                 dup_ok(&c->name, name) &&
                                 rt_value_copy(&c->value, v) == 0)
             : -1;
}

int rt_change_set_delete_service(struct rt_change_set *cs,
                                 const char *service, const char *name)
{
    struct rt_change *c = push(cs, RT_CHANGE_DELETE_SERVICE);
    return c ? finish(cs, c, dup_ok(&c->service, service) &&
                                 dup_ok(&c->name, name))
             : -1;
}

int rt_change_set_write_file(struct rt_change_set *cs, const char *rel,
                             const uint8_t *data, size_t len)
{
    struct rt_change *c = push(cs, RT_CHANGE_WRITE_FILE);
    if (!c)
        return -1;
    c->value.type = RT_REG_BINARY;
    c->value.len = len;
    c->value.data = malloc(len ? len : 1);
    if (c->value.data && len)
        memcpy(c->value.data, data, len);
    return finish(cs, c, c->value.data && dup_ok(&c->name, rel));
}

int rt_change_set_delete_file(struct rt_change_set *cs, const char *rel)
{
    struct rt_change *c = push(cs, RT_CHANGE_DELETE_FILE);
    return c ? finish(cs, c, dup_ok(&c->name, rel)) : -1;
}

int rt_change_set_dword(struct rt_change_set *cs, const char *svc,
                        const char *name, uint32_t x)
{
    struct rt_value v;
    if (rt_value_from_dword(&v, x) != 0)
        return -1;
    int r = svc ? rt_change_set_service(cs, svc, name, &v)
                : rt_change_set_perflib(cs, name, &v);
    rt_value_free(&v);
    return r;
}

int rt_change_set_string(struct rt_change_set *cs, const char *svc,
                         const char *name, uint32_t type, const char *utf8)
{
    struct rt_value v;
    if (rt_value_from_string(&v, type, utf8) != 0)
        return -1;
    int r = rt_change_set_service(cs, svc, name, &v);
    rt_value_free(&v);
    return r;
}

void rt_change_set_free(struct rt_change_set *cs)
{
    for (size_t i = 0; i < cs->n; i++)
        change_free(&cs->v[i]);
    free(cs->v);
    memset(cs, 0, sizeof *cs);
}
