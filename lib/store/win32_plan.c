/* Store layer: planning a commit of the win32 store: the keys it
 * creates and the pre-image of every value and side file it touches (the
 * journal records them; win32_apply.c writes them). */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

static int in_created(const struct plan *p, const char *path)
{
    for (size_t i = 0; i < p->n_created; i++)
        if (w32_same_name(p->created[i], path))
            return 1;
    return 0;
}

/* Whether PATH will exist when the changes planned so far are applied. */
static int will_exist(struct w32_store *w, const struct plan *p,
                      const char *path, struct rt_error *e)
{
    return in_created(p, path) ? 1 : w32_key_exists(w, path, e);
}

/* Lists in P every missing key on the way to PATH, parents first. */
static int plan_key(struct w32_store *w, struct plan *p, const char *path,
                    struct rt_error *e)
{
    size_t len = strlen(path);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] != '\\' && path[i] != '\0')
            continue;
        char *prefix = w32_dup_n(path, i);
        if (!prefix)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int ex = will_exist(w, p, prefix, e);
        if (ex < 0) {
            free(prefix);
            return -1;
        }
        if (ex) {
            free(prefix);
            continue;
        }
        char **c = realloc(p->created, (p->n_created + 1) * sizeof *c);
        if (!c) {
            free(prefix);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        p->created = c;
        c[p->n_created++] = prefix;
    }
    return 0;
}

/* Records the current state of value NAME of key PATH, once. */
static int plan_value(struct w32_store *w, struct plan *p, const char *path,
                      const char *name, struct rt_error *e)
{
    for (size_t i = 0; i < p->n_vals; i++)
        if (w32_same_name(p->vals[i].key, path) &&
            w32_same_name(p->vals[i].name, name))
            return 0;
    struct pre_value v = {0};
    if (!in_created(p, path) &&
        w32_read_value(w, path, name, &v.v, &v.present, e) != 0)
        return -1;
    v.key = strdup(path);
    v.name = strdup(name);
    struct pre_value *nv = realloc(p->vals, (p->n_vals + 1) * sizeof *nv);
    if (!v.key || !v.name || !nv) {
        if (nv)
            p->vals = nv;
        free(v.key);
        free(v.name);
        rt_value_free(&v.v);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    p->vals = nv;
    p->vals[p->n_vals++] = v;
    return 0;
}

const char *w32_table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

/* The key a change writes to, as a new string, and the value name (NULL
 * for a change that only creates the key). */
char *w32_change_key(const struct w32_store *w, const struct rt_change *c,
                        const char **value)
{
    *value = NULL;
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
        return w32_join(w->perflib, c->lang);
    case RT_CHANGE_SET_TABLE:
        *value = w32_table_value_name(c->table);
        return w32_join(w->perflib, c->lang);
    case RT_CHANGE_SET_PERFLIB:
        *value = c->name;
        return strdup(w->perflib);
    case RT_CHANGE_CREATE_PERF_KEY:
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE: {
        char *svc = w32_join(w->services, c->service);
        char *k = svc ? w32_join(svc, "Performance") : NULL;
        free(svc);
        if (c->op != RT_CHANGE_CREATE_PERF_KEY)
            *value = c->name;
        return k;
    }
    case RT_CHANGE_WRITE_FILE:
    case RT_CHANGE_DELETE_FILE:
        break;      /* no registry key; refused in make_plan */
    }
    return NULL;
}

/* Checks every change and records what it will touch, before any write. */
int w32_make_plan(struct w32_store *w, const struct rt_change_set *cs,
                  struct plan *p, struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op == RT_CHANGE_WRITE_FILE || c->op == RT_CHANGE_DELETE_FILE) {
            if (w32_plan_file(w, p, c, e) != 0)
                return -1;
            continue;
        }
        int table = c->op == RT_CHANGE_CREATE_LANGUAGE ||
                    c->op == RT_CHANGE_SET_TABLE;
        int service = c->op == RT_CHANGE_CREATE_PERF_KEY ||
                      c->op == RT_CHANGE_SET_SERVICE ||
                      c->op == RT_CHANGE_DELETE_SERVICE;
        if ((table && (!w32_valid_component(c->lang) ||
                       !rt_is_language_key(c->lang))) ||
            (service && !w32_valid_component(c->service)) ||
            (c->op != RT_CHANGE_CREATE_LANGUAGE &&
             c->op != RT_CHANGE_CREATE_PERF_KEY && c->op != RT_CHANGE_SET_TABLE &&
             (!c->name || strlen(c->name) > 16383)) ||
            c->value.len > MAX_VALUE_BYTES)
            return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                                "%s: change %zu: bad language, service or "
                                "value name, or value too large",
                                w->machine, i + 1);
        enum table_home home;
        if (c->op == RT_CHANGE_SET_TABLE &&
            (w32_table_home(w, c->lang, &home, e) != 0 ||
             (home != TABLES_IN_VALUES &&
              rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                           "%s: change %zu: the tables of language %s are %s; "
                           "the live registry store does not write them "
                           "there; nothing was written",
                           w->machine, i + 1, c->lang,
                           w32_table_home_text(home)))))
            return -1;
        const char *value;
        char *key = w32_change_key(w, c, &value);
        if (!key)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int r = 0;
        if (c->op == RT_CHANGE_SET_SERVICE || c->op == RT_CHANGE_DELETE_SERVICE) {
            r = will_exist(w, p, key, e);
            if (r == 0)
                r = rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                 "%s: change %zu: service %s has no "
                                 "Performance key; nothing was written",
                                 w->machine, i + 1, c->service);
            else if (r > 0)
                r = 0;
        } else {
            r = plan_key(w, p, key, e);
        }
        if (r == 0 && value)
            r = plan_value(w, p, key, value, e);
        free(key);
        if (r != 0)
            return -1;
    }
    return 0;
}

#endif /* _WIN32 */
