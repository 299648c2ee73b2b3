/* Model layer: loading the name database from a store into memory. The
 * only I/O is through the store interface. */
#include "engine/database.h"
#include "model/lang_id.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int read_dword(struct rt_store *s, const char *svc, const char *name,
                      uint32_t *out, int *present, struct rt_error *e)
{
    struct rt_value v = {0};
    int r = svc ? s->ops->read_service(s, svc, name, &v, present, e)
                : s->ops->read_perflib(s, name, &v, present, e);
    if (r != 0)
        return -1;
    /* A value of the wrong type counts as absent: it is not what Windows
     * reads either. Audit reports it. */
    if (*present && rt_value_dword(&v, out) != 0)
        *present = 0;
    rt_value_free(&v);
    return 0;
}

static int read_string_typed(struct rt_store *s, const char *svc,
                             const char *name, char **out, uint32_t *type,
                             struct rt_error *e)
{
    struct rt_value v = {0};
    int present = 0;
    *out = NULL;
    if (s->ops->read_service(s, svc, name, &v, &present, e) != 0)
        return -1;
    if (present) {
        *out = rt_value_string(&v);
        if (type)
            *type = v.type;
    }
    rt_value_free(&v);
    return 0;
}

static int read_string(struct rt_store *s, const char *svc, const char *name,
                       char **out, struct rt_error *e)
{
    struct rt_value v = {0};
    int present = 0;
    *out = NULL;
    if (s->ops->read_service(s, svc, name, &v, &present, e) != 0)
        return -1;
    if (present)
        *out = rt_value_string(&v);
    rt_value_free(&v);
    return 0;
}

void rt_service_info_free(struct rt_service_info *si)
{
    free(si->name);
    free(si->library);
    free(si->open);
    free(si->collect);
    free(si->close);
    free(si->object_list);
    free(si->ini_file);
    memset(si, 0, sizeof *si);
}

int rt_service_load(struct rt_store *s, const char *name,
                    struct rt_service_info *si, struct rt_error *e)
{
    memset(si, 0, sizeof *si);
    if (!(si->name = strdup(name)))
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (s->ops->service_state(s, name, &si->exists, &si->has_perf, e) != 0)
        goto fail;
    if (!si->has_perf)
        return 0;
    if (read_dword(s, name, "First Counter", &si->first_counter,
                   &si->has_range, e) ||
        read_dword(s, name, "Last Counter", &si->last_counter,
                   &si->has_last_counter, e) ||
        read_dword(s, name, "First Help", &si->first_help, &si->has_first_help,
                   e) ||
        read_dword(s, name, "Last Help", &si->last_help, &si->has_last_help,
                   e) ||
        read_dword(s, name, "Disable Performance Counters", &si->disable,
                   &si->has_disable, e) ||
        read_string_typed(s, name, "Library", &si->library, &si->library_type,
                          e) ||
        read_string(s, name, "Open", &si->open, e) ||
        read_string(s, name, "Collect", &si->collect, e) ||
        read_string(s, name, "Close", &si->close, e) ||
        read_string(s, name, "Object List", &si->object_list, e) ||
        read_string(s, name, "PerfIniFile", &si->ini_file, e))
        goto fail;
    struct rt_value v = {0};
    if (s->ops->read_service(s, name, "Library Validation Code", &v,
                             &si->has_validation_code, e) != 0)
        goto fail;
    rt_value_free(&v);
    return 0;
fail:
    rt_service_info_free(si);
    return -1;
}

void rt_database_free(struct rt_database *db)
{
    for (size_t i = 0; i < db->n_langs; i++) {
        free(db->langs[i].id);
        rt_name_table_free(&db->langs[i].table);
        rt_value_free(&db->langs[i].raw[0]);
        rt_value_free(&db->langs[i].raw[1]);
    }
    free(db->langs);
    for (size_t i = 0; i < db->n_services; i++)
        rt_service_info_free(&db->services[i]);
    free(db->services);
    memset(db, 0, sizeof *db);
}

static int load_language(struct rt_store *s, struct rt_db_language *l,
                         struct rt_error *e)
{
    struct rt_value c = {0}, h = {0};
    if (s->ops->read_table(s, l->id, RT_TABLE_COUNTER, &c, &l->has_counter,
                           e) != 0)
        return -1;
    if (s->ops->read_table(s, l->id, RT_TABLE_HELP, &h, &l->has_help, e) != 0) {
        rt_value_free(&c);
        return -1;
    }
    int which = 0;
    if (rt_name_table_decode(&l->table, c.data, c.len, h.data, h.len, 1,
                             &l->damage, &which) != 0) {
        l->damaged = 1;
        l->damage_in_help = which;
    }
    /* Each blob's own first damage (the first damage overall is in one of
     * them); a table of no bytes at all (a .dat file cut to nothing) lost
     * every name it had: damage, not an empty language. */
    const struct rt_value *blob[2] = {&c, &h};
    const int present[2] = {l->has_counter, l->has_help};
    for (int k = 0; k < 2; k++) {
        l->type[k] = blob[k]->type;
        l->bytes[k] = blob[k]->len;
        l->hash[k] = rt_blob_hash(blob[k]->data, blob[k]->len);
        l->blob_damage[k] = (struct rt_msz_error){RT_MSZ_OK, 0};
        if (l->damaged && k == which) {
            l->blob_damage[k] = l->damage;
        } else if (l->damaged && l->damage.status != RT_MSZ_NOMEM) {
            struct rt_pair *p = NULL;
            size_t n = 0;
            rt_multi_sz_decode(blob[k]->data, blob[k]->len, 0, &p, &n,
                               &l->blob_damage[k]);
            rt_pairs_free(p, n);
        }
        if (l->blob_damage[k].status == RT_MSZ_OK && present[k] &&
            !blob[k]->len)
            l->blob_damage[k] = (struct rt_msz_error){RT_MSZ_EMPTY, 0};
    }
    if (!l->damaged)
        for (int k = 0; k < 2 && !l->damaged; k++)
            if (l->blob_damage[k].status != RT_MSZ_OK) {
                l->damaged = 1;
                l->damage_in_help = k;
                l->damage = l->blob_damage[k];
            }
    l->help_damaged = l->blob_damage[1].status != RT_MSZ_OK;
    struct rt_value *own[2] = {&c, &h};
    for (int k = 0; k < 2; k++)
        if (l->blob_damage[k].status != RT_MSZ_OK) {
            l->raw[k] = *own[k];
            *own[k] = (struct rt_value){0};
        }
    rt_value_free(&c);
    rt_value_free(&h);
    if (l->damaged && l->damage.status == RT_MSZ_NOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}

int rt_database_load(struct rt_store *s, struct rt_database *db,
                     struct rt_error *e)
{
    memset(db, 0, sizeof *db);
    char **ids = NULL, **svcs = NULL;
    size_t n = 0, n_svcs = 0;
    if (read_dword(s, NULL, "Last Counter", &db->last_counter,
                   &db->has_last_counter, e) ||
        read_dword(s, NULL, "Last Help", &db->last_help, &db->has_last_help,
                   e) ||
        read_dword(s, NULL, "Base Index", &db->base_index, &db->has_base_index,
                   e))
        return -1;
    if (!db->has_last_counter)
        db->last_counter = RT_BASE_LAST_COUNTER;
    if (!db->has_last_help)
        db->last_help = RT_BASE_LAST_HELP;
    if (!db->has_base_index)
        db->base_index = RT_BASE_INDEX;
    if (read_dword(s, NULL, "Disable Performance Counters",
                   &db->perflib_disable, &db->has_perflib_disable, e))
        return -1;

    if (s->ops->list_languages(s, &ids, &n, e) != 0)
        return -1;
    db->langs = calloc(n ? n : 1, sizeof *db->langs);
    if (!db->langs) {
        rt_strings_free(ids, n);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        db->langs[i].id = ids[i];
        ids[i] = NULL;
        db->n_langs++;
        if (load_language(s, &db->langs[i], e) != 0)
            goto fail;
    }
    rt_strings_free(ids, n);
    ids = NULL;

    if (s->ops->list_perf_services(s, &svcs, &n_svcs, e) != 0)
        goto fail;
    db->services = calloc(n_svcs ? n_svcs : 1, sizeof *db->services);
    if (!db->services) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < n_svcs; i++) {
        if (rt_service_load(s, svcs[i], &db->services[i], e) != 0)
            goto fail;
        db->n_services++;
    }
    rt_strings_free(svcs, n_svcs);
    return 0;
fail:
    rt_strings_free(ids, n);
    rt_strings_free(svcs, n_svcs);
    rt_database_free(db);
    return -1;
}

const struct rt_db_language *rt_database_language(const struct rt_database *db,
                                                  const char *id)
{
    /* The subkey of that name first: a machine may have both 804 and
     * 0804; else the language of that value. */
    for (size_t i = 0; i < db->n_langs; i++)
        if (!strcasecmp(db->langs[i].id, id))
            return &db->langs[i];
    for (size_t i = 0; i < db->n_langs; i++)
        if (rt_lang_same(db->langs[i].id, id))
            return &db->langs[i];
    return NULL;
}

const struct rt_service_info *rt_database_service(const struct rt_database *db,
                                                  const char *name)
{
    for (size_t i = 0; i < db->n_services; i++)
        if (!strcasecmp(db->services[i].name, name))
            return &db->services[i];
    return NULL;
}

uint32_t rt_database_highest(const struct rt_database *db,
                             enum rt_table_kind which)
{
    uint32_t h = 0;
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_pair_list *l = which == RT_TABLE_COUNTER
                                           ? &db->langs[i].table.counter
                                           : &db->langs[i].table.help;
        uint32_t x = rt_pair_list_highest(l);
        if (x > h)
            h = x;
    }
    return h;
}
