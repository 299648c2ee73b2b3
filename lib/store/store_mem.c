/* Store layer: the in-memory store, for tests. It keeps a registry tree
 * with the SOFTWARE and SYSTEM paths the real stores use, and applies a
 * change set to a copy that replaces the tree only when every change
 * succeeded, so a failure midway leaves it untouched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/lang_id.h"
#include "model/regtree.h"
#include "store/store.h"
#include "store/tree_store.h"

#define PERFLIB  "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES "SYSTEM\\CurrentControlSet\\Services"

struct mem_store {
    struct rt_store base;
    struct rt_tree_key *root;
    size_t fail_after;      /* test hook, 0 = off */
    uint64_t change_max;    /* test hook, 0 = no bound */
    int locked;
    char fixed_lang[16];    /* test hook: a language served fixed, as
                               Wine serves 009 ("" = none) */
};

static struct mem_store *mem(struct rt_store *s)
{
    return (struct mem_store *)s;
}

static int mem_begin(struct rt_store *s, struct rt_error *e)
{
    if (mem(s)->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "mem store: transaction already open");
    mem(s)->locked = 1;
    return 0;
}

static void mem_end(struct rt_store *s)
{
    mem(s)->locked = 0;
}

/* Side files are values of a key of their own, outside the registry's
 * paths, so a dump shows them with the rest. */
static const struct rt_tree_paths paths = {PERFLIB, SERVICES, "WINDOWS FILES"};

static int mem_list_languages(struct rt_store *s, char ***langs, size_t *n,
                              struct rt_error *e)
{
    return rt_tree_store_list_languages(mem(s)->root, &paths, langs, n, e);
}

static int mem_read_table(struct rt_store *s, const char *lang,
                          enum rt_table_kind t, struct rt_value *out,
                          int *present, struct rt_error *e)
{
    return rt_tree_store_read_table(mem(s)->root, &paths, lang, t, out,
                                    present, e);
}

static int mem_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    return rt_tree_store_read_perflib(mem(s)->root, &paths, name, out, present,
                                      e);
}

static int mem_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    return rt_tree_store_list_perf_services(mem(s)->root, &paths, names, n, e);
}

static int mem_service_state(struct rt_store *s, const char *service,
                             int *exists, int *has_perf, struct rt_error *e)
{
    (void)e;
    rt_tree_store_service_state(mem(s)->root, &paths, service, exists,
                                has_perf);
    return 0;
}

static int mem_read_service(struct rt_store *s, const char *service,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    return rt_tree_store_read_service(mem(s)->root, &paths, service, name,
                                      out, present, e);
}

static int mem_apply(struct rt_store *s, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    struct mem_store *m = mem(s);
    struct rt_tree_key *work;
    size_t fail_after = m->fail_after;
    m->fail_after = 0;
    if (rt_tree_store_apply(m->root, &paths, cs, fail_after, "mem", &work,
                            e) != 0)
        return -1;
    rt_tree_free(m->root);
    m->root = work;
    return 0;
}

static int mem_has_win_files(struct rt_store *s)
{
    (void)s;
    return 1;
}

static int mem_read_win_file(struct rt_store *s, const char *rel,
                             struct rt_value *out, int *present,
                             struct rt_error *e)
{
    /* Presence alone: read, then let go (this store's files are its
     * own, not a tree someone else wrote). */
    struct rt_value v;
    int r = rt_tree_store_read_file(mem(s)->root, &paths, rel, out ? out : &v, present, e);
    if (!out)
        rt_value_free(&v);
    return r;
}

static const char *mem_layout(struct rt_store *s)
{
    (void)s;
    return "in memory (tables as values)";
}

static void mem_close(struct rt_store *s)
{
    if (!s)
        return;
    rt_tree_free(mem(s)->root);
    free(s);
}

static int mem_language_fixed(struct rt_store *s, const char *lang,
                              char *why, size_t why_size)
{
    if (!mem(s)->fixed_lang[0] || !rt_lang_same(lang, mem(s)->fixed_lang))
        return 0;
    snprintf(why, why_size, "served fixed (a test store's stand-in for "
             "Wine's stub)");
    return 1;
}

static uint64_t mem_change_max(struct rt_store *s)
{
    return mem(s)->change_max;
}

static const struct rt_store_ops mem_ops = {
    .kind = "mem",
    .begin = mem_begin,
    .end = mem_end,
    .list_languages = mem_list_languages,
    .read_table = mem_read_table,
    .read_perflib = mem_read_perflib,
    .list_perf_services = mem_list_perf_services,
    .service_state = mem_service_state,
    .read_service = mem_read_service,
    .apply = mem_apply,
    .layout = mem_layout,
    .close = mem_close,
    .language_fixed = mem_language_fixed,
    .change_max = mem_change_max,
    .has_win_files = mem_has_win_files,
    .read_win_file = mem_read_win_file,
};

struct rt_store *rt_store_mem_new(void)
{
    struct mem_store *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->base.ops = &mem_ops;
    if (!(m->root = rt_tree_new("HKLM"))) {
        free(m);
        return NULL;
    }
    return &m->base;
}

void rt_store_mem_fail_after(struct rt_store *s, size_t k)
{
    mem(s)->fail_after = k;
}

int rt_store_mem_put_language(struct rt_store *s, const char *lang)
{
    struct rt_change c = {.op = RT_CHANGE_CREATE_LANGUAGE, .lang = (char *)lang};
    return rt_tree_store_apply_one(mem(s)->root, &paths, &c, NULL);
}

int rt_store_mem_put_table(struct rt_store *s, const char *lang,
                           enum rt_table_kind t, const uint8_t *blob,
                           size_t len)
{
    return rt_store_mem_put_table_typed(s, lang, t, RT_REG_MULTI_SZ, blob,
                                        len);
}

int rt_store_mem_put_table_typed(struct rt_store *s, const char *lang,
                                 enum rt_table_kind t, uint32_t type,
                                 const uint8_t *blob, size_t len)
{
    struct rt_change c = {.op = RT_CHANGE_SET_TABLE, .lang = (char *)lang,
                          .table = t, .value = {type, (uint8_t *)blob, len}};
    return rt_tree_store_apply_one(mem(s)->root, &paths, &c, NULL);
}

int rt_store_mem_put_perflib(struct rt_store *s, const char *name,
                             const struct rt_value *v)
{
    struct rt_change c = {.op = RT_CHANGE_SET_PERFLIB, .name = (char *)name,
                          .value = *v};
    return rt_tree_store_apply_one(mem(s)->root, &paths, &c, NULL);
}

int rt_store_mem_put_service(struct rt_store *s, const char *service,
                             int with_perf_key)
{
    char *path = NULL;
    if (asprintf(&path, SERVICES "\\%s%s", service,
                 with_perf_key ? "\\Performance" : "") < 0)
        return -1;
    struct rt_tree_key *k = rt_tree_create(mem(s)->root, path);
    free(path);
    return k ? 0 : -1;
}

int rt_store_mem_put_service_value(struct rt_store *s, const char *service,
                                   const char *name, const struct rt_value *v)
{
    struct rt_change c = {.op = RT_CHANGE_SET_SERVICE, .service = (char *)service,
                          .name = (char *)name, .value = *v};
    return rt_tree_store_apply_one(mem(s)->root, &paths, &c, NULL);
}

int rt_store_mem_put_file(struct rt_store *s, const char *rel,
                          const uint8_t *data, size_t len)
{
    struct rt_change c = {.op = RT_CHANGE_WRITE_FILE, .name = (char *)rel,
                          .value = {RT_REG_BINARY, (uint8_t *)data, len}};
    return rt_tree_store_apply_one(mem(s)->root, &paths, &c, NULL);
}

char *rt_store_mem_dump(struct rt_store *s)
{
    return rt_tree_dump(mem(s)->root);
}

void rt_store_mem_set_change_max(struct rt_store *s, uint64_t bytes)
{
    mem(s)->change_max = bytes;
}

void rt_store_mem_set_fixed(struct rt_store *s, const char *lang)
{
    snprintf(mem(s)->fixed_lang, sizeof mem(s)->fixed_lang, "%s",
             lang ? lang : "");
}
