/* Store layer: a PerfStringBackup file as a read-only store. Languages
 * are the file's [PerfStrings_] sections in file order, split into
 * Counter and Help as lodctr /R splits them (model/perf_backup.h);
 * services are its [PERF_] sections, each with a Performance key holding
 * the values the section has; Perflib's values are [Perflib]'s. */
#include "store/store_psb.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/perf_backup.h"
#include "model/size_caps.h"
#include "platform/os.h"

struct psb_store {
    struct rt_store base;
    char *path;
    char *layout;
    /* FILE's folder, confined while the store is open (the reg: store's
     * rule): an output named there (backup) meets its links refused. */
    char *dir;
    struct rt_psb psb;
    size_t file_len;        /* the file's bytes as read */
    /* The service found last: a database's load asks for each service's
     * state and a dozen values in a row, one search instead of thirteen. */
    const struct rt_psb_service *last;
};

static struct psb_store *ps(struct rt_store *s)
{
    return (struct psb_store *)s;
}

/* The section of SERVICE, or NULL. Section names are unique ignoring case
 * (the parse refuses a second), so a name the same byte for byte as the
 * last one found is that one. */
static const struct rt_psb_service *find_service(struct rt_store *s,
                                                 const char *service)
{
    struct psb_store *p = ps(s);
    if (!p->last || strcmp(p->last->name, service))
        p->last = rt_psb_service_find(&p->psb, service);
    return p->last;
}

static int psb_begin(struct rt_store *s, struct rt_error *e)
{
    (void)s;
    (void)e;
    return 0;
}

static void psb_end(struct rt_store *s)
{
    (void)s;
}

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

static int psb_list_languages(struct rt_store *s, char ***langs, size_t *n,
                              struct rt_error *e)
{
    const struct rt_psb *p = &ps(s)->psb;
    *n = 0;
    *langs = calloc(p->n_langs ? p->n_langs : 1, sizeof **langs);
    if (!*langs)
        return oom(e);
    for (size_t i = 0; i < p->n_langs; i++) {
        if (!((*langs)[i] = strdup(p->langs[i].id))) {
            rt_strings_free(*langs, *n);
            return oom(e);
        }
        (*n)++;
    }
    return 0;
}

static int psb_read_table(struct rt_store *s, const char *lang,
                          enum rt_table_kind t, struct rt_value *out,
                          int *present, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = 0;
    const struct rt_psb_language *l = rt_psb_language_find(&ps(s)->psb, lang);
    if (!l)
        return 0;
    struct rt_name_table nt;
    if (rt_psb_split(&l->strings, &nt) != 0)
        return oom(e);
    int r = rt_pair_list_encode(t == RT_TABLE_HELP ? &nt.help : &nt.counter,
                                &out->data, &out->len);
    rt_name_table_free(&nt);
    if (r != 0)
        return oom(e);
    out->type = RT_REG_MULTI_SZ;
    *present = 1;
    return 0;
}

static int dword(struct rt_value *out, int *present, int has, uint32_t v,
                 struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = has;
    if (has && rt_value_from_dword(out, v) != 0)
        return oom(e);
    return 0;
}

static int psb_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    const struct rt_psb *p = &ps(s)->psb;
    if (!strcmp(name, "Base Index"))
        return dword(out, present, p->has_base_index, p->base_index, e);
    if (!strcmp(name, "Last Counter"))
        return dword(out, present, p->has_last_counter, p->last_counter, e);
    if (!strcmp(name, "Last Help"))
        return dword(out, present, p->has_last_help, p->last_help, e);
    return dword(out, present, 0, 0, e);
}

static int psb_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    const struct rt_psb *p = &ps(s)->psb;
    *n = 0;
    *names = calloc(p->n_services ? p->n_services : 1, sizeof **names);
    if (!*names)
        return oom(e);
    for (size_t i = 0; i < p->n_services; i++) {
        if (!((*names)[i] = strdup(p->services[i].name))) {
            rt_strings_free(*names, *n);
            return oom(e);
        }
        (*n)++;
    }
    return 0;
}

static int psb_list_perf_services_into(struct rt_store *s,
                                       struct rt_str_pool *pool,
                                       char ***names, size_t *n,
                                       struct rt_error *e)
{
    const struct rt_psb *p = &ps(s)->psb;
    *n = 0;
    *names = malloc((p->n_services ? p->n_services : 1) * sizeof **names);
    if (!*names)
        return oom(e);
    for (size_t i = 0; i < p->n_services; i++) {
        const char *name = p->services[i].name;
        if (!((*names)[i] = rt_str_pool_add(pool, name, strlen(name)))) {
            free(*names);
            *names = NULL;
            return oom(e);
        }
    }
    *n = p->n_services;
    return 0;
}

static int psb_service_state(struct rt_store *s, const char *service,
                             int *exists, int *has_perf, struct rt_error *e)
{
    (void)e;
    *exists = *has_perf = find_service(s, service) != NULL;
    return 0;
}

static int psb_read_service(struct rt_store *s, const char *service,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    const struct rt_psb_service *v = find_service(s, service);
    if (!v)
        return dword(out, present, 0, 0, e);
    if (!strcmp(name, "First Counter"))
        return dword(out, present, v->has_first_counter, v->first_counter, e);
    if (!strcmp(name, "First Help"))
        return dword(out, present, v->has_first_help, v->first_help, e);
    if (!strcmp(name, "Last Counter"))
        return dword(out, present, v->has_last_counter, v->last_counter, e);
    if (!strcmp(name, "Last Help"))
        return dword(out, present, v->has_last_help, v->last_help, e);
    if (!strcmp(name, "Disable Performance Counters"))
        return dword(out, present, v->has_disable, v->disable, e);
    /* Nothing else of the key is saved in a backup. */
    return dword(out, present, 0, 0, e);
}

static int psb_apply(struct rt_store *s, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    (void)cs;
    return rt_error_set(e, RT_ERR_WRITE_PROTECT,
                        "%s is a backup file, read-only as a store: nothing "
                        "was written (restore it into a store instead)",
                        ps(s)->path);
}

static const char *psb_layout(struct rt_store *s)
{
    return ps(s)->layout;
}

static void psb_close(struct rt_store *s)
{
    if (!s)
        return;
    rt_psb_free(&ps(s)->psb);
    if (ps(s)->dir) {
        rt_os_unconfine(ps(s)->dir);
        free(ps(s)->dir);
    }
    free(ps(s)->path);
    free(ps(s)->layout);
    free(s);
}

/* The store is read-only: a change on it is only ever planned (a dry
 * run), and the plan is bounded by the file it was read from, twice its
 * bytes and 16 MiB, not by the 1.5 GiB a backup may be (a 1.5 MB file
 * of a thousand empty languages planned 2.8 GB, review 36 F2). */
static uint64_t psb_change_max(struct rt_store *st)
{
    uint64_t max = 2 * (uint64_t)ps(st)->file_len + ((uint64_t)16 << 20);
    return max < RT_BACKUP_FILE_MAX ? max : RT_BACKUP_FILE_MAX;
}

static int psb_own_file(struct rt_store *st, const char *path)
{
    static const char *const itself[] = {"", NULL};
    return rt_os_names_file(path, ps(st)->path, itself) >= 0;
}

static const struct rt_store_ops psb_ops = {
    .kind = "psb",
    .begin = psb_begin,
    .end = psb_end,
    .list_languages = psb_list_languages,
    .read_table = psb_read_table,
    .read_perflib = psb_read_perflib,
    .list_perf_services = psb_list_perf_services,
    .list_perf_services_into = psb_list_perf_services_into,
    .service_state = psb_service_state,
    .read_service = psb_read_service,
    .apply = psb_apply,
    .layout = psb_layout,
    .change_max = psb_change_max,
    .own_file = psb_own_file,
    .close = psb_close,
};

static void done_with(void *ctx, size_t off, size_t n)
{
    rt_os_map_release(ctx, off, n);
}

/* The file beneath its confined folder as a view (*M), within the
 * backup's cap: 0, or -1 with errno set (EFBIG past the cap). */
static int map_within_cap(const char *inside, struct rt_os_map *m)
{
    if (rt_os_map_file(inside, m) != 0)
        return -1;
    if (m->len > RT_BACKUP_FILE_MAX) {
        rt_os_unmap_file(m);
        errno = EFBIG;
        return -1;
    }
    return 0;
}

struct rt_store *rt_store_psb_open(const char *path, struct rt_error *e)
{
    struct rt_os_map view;
    struct rt_os_stat st;
    /* Read beneath its folder, confined, as the reg: store reads its file:
     * the file is often a tree's own System32/PerfStringBackup.INI, and a
     * link there (to a host file) is refused as the hive store refuses it,
     * where it was followed and the host file read. The folder stays
     * confined until the store is closed. A view, its pages given back
     * as they are decoded, not a copy: the parse stops at the first
     * fault, so a sparse file of zeros within the cap costs a piece of
     * it, not its size (review 42 R42-6: 1.5 GB for each such file of a
     * fleet). */
    char *dir = NULL, *inside = rt_os_confine_store_folder_of(path, &dir);
    int r = inside ? map_within_cap(inside, &view) : -1;
    int err = errno;
    free(inside);
    if (r != 0 && dir) {
        rt_os_unconfine(dir);
        free(dir);
        dir = NULL;
    }
    if (r != 0 && err == EFBIG && rt_os_stat(path, &st) == 0)
        rt_size_cap_error(e, path, st.size, RT_BACKUP_FILE_MAX,
                          "a PerfStringBackup file");
    else if (r != 0 && err == ENOMEM)
        oom(e);
    else if (r != 0)
        rt_error_set(e, err == ENOENT ? RT_ERR_FILE_NOT_FOUND
                                      : RT_ERR_ACCESS_DENIED,
                     "cannot read %s: %s", path, rt_os_strerror(err));
    if (r != 0)
        return NULL;
    struct psb_store *s = calloc(1, sizeof *s);
    struct rt_psb_error perr;
    if (s)
        s->dir = dir;
    if (!s || !(s->path = strdup(path))) {
        if (!s && dir) {
            rt_os_unconfine(dir);
            free(dir);
        }
        if (s)
            psb_close(&s->base);
        rt_os_unmap_file(&view);
        oom(e);
        return NULL;
    }
    s->base.ops = &psb_ops;
    s->file_len = view.len;
    r = rt_psb_parse_view(view.data, view.len, done_with, &view, &s->psb,
                          NULL, &perr);
    rt_os_unmap_file(&view);
    if (r != 0) {
        if (perr.nomem)
            oom(e);
        else
            rt_error_set(e, RT_ERR_INVALID_DATA, "%s:%u: %s", path, perr.line,
                         perr.message);
        psb_close(&s->base);
        return NULL;
    }
    size_t n = strlen(path) + 64;
    if (!(s->layout = malloc(n))) {
        psb_close(&s->base);
        oom(e);
        return NULL;
    }
    snprintf(s->layout, n, "a PerfStringBackup file, read-only: %s", path);
    return &s->base;
}
