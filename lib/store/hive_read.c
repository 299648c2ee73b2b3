/* Store layer: the hive store's reads: Perflib's languages and values,
 * a language's tables where they lie (a value of SOFTWARE, in place or
 * copied, or a .dat file), their other copies, the services with
 * counters and their values, and the side files under the Windows
 * directory. */
#include "store/hive_internal.h"
#include "model/lang_id.h"
#include "model/utf16.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends a copy of STR to V, which has room for it (the caller sized
 * it for every subkey at once). */
static int push_string(char **v, size_t *n, const char *str)
{
    if (!(v[*n] = strdup(str)))
        return -1;
    (*n)++;
    return 0;
}

/* Names of the subkeys of PATH in HF, filtered by KEEP (NULL: all). A
 * list that does not read is named with its hive file and key: the
 * reader's message gives only the byte offset. */
int hive_list_subkeys(const struct hive_file *hf, const char *path,
                      int (*keep)(struct rt_regf *, uint32_t, const char *,
                                  void *),
                      void *ctx, char ***out, size_t *n, struct rt_error *e)
{
    struct rt_regf *h = hf->h;
    uint32_t key, *subs = NULL;
    size_t ns = 0;
    *out = NULL;
    *n = 0;
    int f = hive_find(hf, path, &key, e);
    if (f)
        return f < 0 ? -1 : 0;
    if ((f = rt_regf_subkeys(h, key, &subs, &ns)) != 0)
        return hive_regf_error(hf, path, f, e);
    /* Room for every name at once: one allocation, not one a subkey. */
    if (ns && !(*out = calloc(ns, sizeof **out))) {
        free(subs);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    for (size_t i = 0; i < ns; i++) {
        struct rt_regf_key_info ki;
        int r = rt_regf_key_info(h, subs[i], &ki);
        /* KEEP: 1 keep, 0 pass over, or a regf error of its own. */
        int k = r ? 0 : !keep ? 1 : keep(h, subs[i], ki.name, ctx);
        if (r || k < 0) {
            if (!r)
                rt_regf_key_info_free(&ki);
            free(subs);
            rt_strings_free(*out, *n);
            *out = NULL;
            *n = 0;
            return hive_regf_error(hf, path, r ? r : k, e);
        }
        if (k)
            r = push_string(*out, n, ki.name);
        rt_regf_key_info_free(&ki);
        if (r) {
            free(subs);
            rt_strings_free(*out, *n);
            *out = NULL;
            *n = 0;
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
    }
    free(subs);
    if (!*n) {
        free(*out);   /* none kept: no list, as for a key without subkeys */
        *out = NULL;
    }
    return 0;
}

static int keep_language(struct rt_regf *h, uint32_t key, const char *name,
                         void *ctx)
{
    (void)h;
    (void)key;
    struct hive_store *s = ctx;
    /* With .dat tables, CurrentLanguage has no files of its own: it is
     * served from the UI language's, which we write anyway. */
    if (s->files_layout && rt_lang_is_current(name))
        return 0;
    return rt_is_language_key(name);
}

int hive_list_languages(struct rt_store *st, char ***langs, size_t *n,
                        struct rt_error *e)
{
    struct hive_store *s = hs(st);
    return hive_list_subkeys(&s->software, PERFLIB_PATH, keep_language, s,
                             langs, n, e);
}

/* HF's value NAME of key PATH, and (CELL not NULL) its value cell. A
 * value that does not read (a damaged big-data list, a cell out of
 * bounds) is named with its hive file and key: the reader's message gives
 * only the byte offset. */
static int get_value_cell(const struct hive_file *hf, const char *path,
                          const char *name, struct rt_value *out,
                          int *present, uint32_t *cell, struct rt_error *e)
{
    struct rt_regf *h = hf->h;
    uint32_t key, v, type;
    memset(out, 0, sizeof *out);
    *present = 0;
    int f = hive_find(hf, path, &key, e);
    if (f)
        return f < 0 ? -1 : 0;
    int r = rt_regf_value_find(h, key, name, &v);
    if (r == RT_REGF_ENOTFOUND)
        return 0;
    if (r == 0)
        r = rt_regf_value_read(h, v, &type, &out->data, &out->len);
    if (r == RT_REGF_ENOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                            "%s: value %s of %s: out of memory", hf->path,
                            name, path);
    if (r != 0)
        return rt_error_set(e, RT_ERR_BADDB, "%s: value %s of %s: %s",
                            hf->path, name, path, rt_regf_errmsg(h));
    out->type = type;
    *present = 1;
    if (cell)
        *cell = v;
    return 0;
}

static int get_value(const struct hive_file *hf, const char *path,
                     const char *name, struct rt_value *out, int *present,
                     struct rt_error *e)
{
    return get_value_cell(hf, path, name, out, present, NULL, e);
}

/* The value in Perflib\LLL that holds table T (registry layout). */
const char *hive_table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

/* LANG's table T as a value of SOFTWARE (registry layout): its key's path
 * into PATH and its value cell into *V; 1, 0 when there is none, -1 when
 * memory ran out looking (not a table that is missing). */
static int table_cell(struct hive_store *s, const char *lang,
                      enum rt_table_kind t, char *path, size_t size,
                      uint32_t *v)
{
    uint32_t key;
    snprintf(path, size, PERFLIB_PATH "\\%s", lang);
    int r = hive_lookup(s->software.h, path, &key);
    if (r == 0)
        r = rt_regf_value_find(s->software.h, key, hive_table_value_name(t),
                               v);
    return r == 0 ? 1 : r == RT_REGF_ENOMEM ? -1 : 0;
}

int hive_read_table(struct rt_store *st, const char *lang,
                    enum rt_table_kind t, struct rt_value *out,
                    int *present, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    if (s->files_layout)
        return hive_read_dat(s, s->system32, lang, t, out, present, e);
    char path[256];
    snprintf(path, sizeof path, PERFLIB_PATH "\\%s", lang);
    uint32_t v;
    if (get_value_cell(&s->software, path, hive_table_value_name(t), out,
                       present, &v, e) != 0)
        return -1;
    /* Held once: the copy, not also the hive view's pages under it (a
     * whole-database read would otherwise hold every table twice). */
    if (*present)
        (void)rt_regf_value_release(s->software.h, v);
    return 0;
}

/* LANG's table T where it lies (store op read_table_pieces); of a value
 * in segments, those holding only bytes before FROM are not read (their
 * pieces are NULL). */
static int table_pieces_from(struct rt_store *st, const char *lang,
                             enum rt_table_kind t, size_t from,
                             struct rt_table_pieces *out, int *present,
                             struct rt_error *e)
{
    struct hive_store *s = hs(st);
    memset(out, 0, sizeof *out);
    *present = 0;
    if (s->files_layout) {
        /* The .dat file as mapped. */
        char *file = hive_dat_path(s->system32, lang, t);
        if (!file)
            return hive_ambiguous(e) ? -1
                                : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                               "out of memory");
        struct dat_seen *d = NULL;
        int r = 0;
        if (rt_os_exists(file) && !(d = hive_dat_seen_map(s, file)))
            r = 1;      /* not mapped here: read_table says why */
        if (d) {
            out->piece = malloc(sizeof *out->piece);
            out->len = malloc(sizeof *out->len);
            if (!out->piece || !out->len) {
                rt_table_pieces_free(out);
                r = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            } else {
                out->piece[0] = d->map.data;
                out->len[0] = out->total = d->map.len;
                out->n = d->map.len ? 1 : 0;
                out->type = RT_REG_MULTI_SZ;
                *present = 1;
            }
        }
        free(file);
        return r;
    }
    char path[256];
    uint32_t v;
    struct rt_regf *h = s->software.h;
    int found = table_cell(s, lang, t, path, sizeof path, &v);
    if (found < 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                            "%s: %s: out of memory", s->software.path, path);
    if (!found)
        return 0;
    int r = rt_regf_value_pieces_from(h, v, from, &out->type, &out->piece,
                                      &out->len, &out->n, &out->total);
    if (r != 0) {
        char where[300];
        snprintf(where, sizeof where, "value %s of %s",
                 hive_table_value_name(t), path);
        return hive_regf_error(&s->software, where, r, e);
    }
    *present = 1;
    return 0;
}

int hive_read_table_pieces(struct rt_store *st, const char *lang,
                           enum rt_table_kind t,
                           struct rt_table_pieces *out, int *present,
                           struct rt_error *e)
{
    return table_pieces_from(st, lang, t, 0, out, present, e);
}

/* The table where it lies (hive_read_table_pieces), copied from FROM on;
 * where it cannot be read in place, a copy cut. */
int hive_read_table_from(struct rt_store *st, const char *lang,
                         enum rt_table_kind t, size_t from,
                         struct rt_value *out, size_t *len,
                         int *present, struct rt_error *e)
{
    struct rt_table_pieces p;
    memset(out, 0, sizeof *out);
    *len = 0;
    int r = table_pieces_from(st, lang, t, from, &p, present, e);
    if (r < 0)
        return -1;
    if (r == 0) {
        size_t at = from < p.total ? from : p.total;
        if (*present && !(out->data = malloc(p.total - at + 1))) {
            rt_table_pieces_free(&p);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        if (*present) {
            rt_pieces_copy(p.piece, p.len, p.n, at, out->data, p.total - at);
            out->len = p.total - at;
            out->type = p.type;
            *len = p.total;
        }
        rt_table_pieces_free(&p);
        return 0;
    }
    if (hive_read_table(st, lang, t, out, present, e) != 0)
        return -1;
    *len = out->len;
    if (*present && from <= out->len) {
        memmove(out->data, out->data + from, out->len - from);
        out->len -= from;
    }
    return 0;
}

/* The other copies of a table (store.h): with .dat tables, SysWOW64's
 * file, and a Counter or Help value Perflib\LANG still holds in the hive
 * (Vista and later serve the .dat files, docs/design.md, "Where the tables
 * live"; such a value is what an offline reader or an older tool sees). In
 * the registry layout the .dat files beside an XP or Server 2003 hive hold
 * the tables as the system was installed, not a copy of the live ones:
 * none. */
int hive_read_table_copy(struct rt_store *st, const char *lang,
                         enum rt_table_kind t, int which,
                         struct rt_value *out, int *present,
                         struct rt_error *e)
{
    struct hive_store *s = hs(st);
    memset(out, 0, sizeof *out);
    *present = 0;
    if (!s->files_layout)
        return 0;
    if (which == RT_COPY_WOW64)
        return s->syswow64
                   ? hive_read_dat(s, s->syswow64, lang, t, out, present, e)
                   : 0;
    if (which != RT_COPY_HIVE)
        return 0;
    char path[256];
    snprintf(path, sizeof path, PERFLIB_PATH "\\%s", lang);
    return get_value(&s->software, path, hive_table_value_name(t), out, present,
                     e);
}

int hive_read_perflib(struct rt_store *st, const char *name,
                      struct rt_value *out, int *present,
                      struct rt_error *e)
{
    return get_value(&hs(st)->software, PERFLIB_PATH, name, out, present, e);
}

static int keep_perf_service(struct rt_regf *h, uint32_t key, const char *name,
                             void *ctx)
{
    (void)name;
    (void)ctx;
    uint32_t perf;
    /* Out of memory is no service without a Performance key (a service
     * whose subkeys do not read is passed over, as before: hive check and
     * audit name the damage). */
    int r = rt_regf_lookup(h, key, "Performance", &perf);
    return r == 0 ? 1 : r == RT_REGF_ENOMEM ? r : 0;
}

int hive_list_perf_services(struct rt_store *st, char ***names,
                            size_t *n, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    return hive_list_subkeys(&s->system, s->services, keep_perf_service,
                             NULL, names, n, e);
}

int hive_service_state(struct rt_store *st, const char *service,
                       int *exists, int *has_perf, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    char path[HIVE_PATH_MAX];
    uint32_t key;
    *exists = *has_perf = 0;
    if (hive_key_path(path, sizeof path, e, "%s\\%s", s->services,
                      service) != 0)
        return -1;
    /* A subkey list that does not read is no absent service (a name
     * that is no key name is): hive_find tells them apart. */
    int f = hive_find(&s->system, path, &key, e);
    if (f)
        return f < 0 ? -1 : 0;
    *exists = 1;
    int r = rt_regf_lookup(s->system.h, key, "Performance", &key);
    *has_perf = r == 0;
    if (r == RT_REGF_ECORRUPT || r == RT_REGF_ENOMEM)
        return hive_regf_error(&s->system, path, r, e);
    return 0;
}

int hive_read_service(struct rt_store *st, const char *service,
                      const char *name, struct rt_value *out,
                      int *present, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    char path[HIVE_PATH_MAX];
    if (hive_key_path(path, sizeof path, e, "%s\\%s\\Performance",
                      s->services, service) != 0)
        return -1;
    return get_value(&s->system, path, name, out, present, e);
}

/* What hive_key_anomalies finds, as it finds it. */
struct anomalies {
    struct rt_key_anomaly *v;
    size_t n, cap;
};

/* Adds one (KEY and OTHER are taken, freed when it cannot be added). */
static int anomaly_add(struct anomalies *a, enum rt_key_anomaly_kind kind,
                       const char *hive, char *key, char *other,
                       struct rt_error *e)
{
    if (key && a->n == a->cap) {
        size_t cap = a->cap ? 2 * a->cap : 8;
        struct rt_key_anomaly *v = realloc(a->v, cap * sizeof *v);
        if (v) {
            a->v = v;
            a->cap = cap;
        }
    }
    if (!key || a->n == a->cap) {
        free(key);
        free(other);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    a->v[a->n++] = (struct rt_key_anomaly){kind, !strcmp(hive, "SOFTWARE"),
                                           key, other};
    return 0;
}

/* "HIVE\PATH\NAME" (NAME may be NULL), a new string. */
static char *key_name(const char *hive, const char *path, const char *name)
{
    size_t len = strlen(hive) + strlen(path) + (name ? strlen(name) : 0) + 3;
    char *out = malloc(len);
    if (out)
        snprintf(out, len, "%s\\%s%s%s", hive, path, name && *path ? "\\" : "",
                 name ? name : "");
    return out;
}

/* KEY of HF (at PATH, named NAME below it) when it is a link. */
static int note_link(const struct hive_file *hf, const char *hive,
                     const char *path, const char *name, uint32_t key,
                     struct anomalies *a, struct rt_error *e)
{
    struct rt_regf_key_info ki;
    char *target = NULL;
    int r = rt_regf_key_info(hf->h, key, &ki);
    if (r == 0) {
        int link = (ki.flags & RT_REGF_KEY_SYM_LINK) != 0;
        rt_regf_key_info_free(&ki);
        if (!link)
            return 0;
        r = rt_regf_key_link_target(hf->h, key, &target);
    }
    if (r != 0) {
        char where[1024];
        snprintf(where, sizeof where, "%s\\%s", path, name ? name : "");
        return hive_regf_error(hf, where, r, e);
    }
    return anomaly_add(a, RT_KEY_LINK, hive, key_name(hive, path, name), target, e);
}

static int one_named(const struct hive_file *hf, const char *hive,
                     const char *path, uint32_t parent, const char *name,
                     uint32_t *key, struct anomalies *a, struct rt_error *e);

struct named_key {
    char *name;
    uint32_t key;
};

static int named_key_cmp(const void *x, const void *y)
{
    const struct named_key *a = x, *b = y;
    int c = rt_name_casecmp(a->name, b->name);
    return c ? c : strcmp(a->name, b->name);
}

/* The subkeys of PATH in HF (the hive HIVE): each that is a link, and
 * with PERFORMANCE each one's Performance key that is; and each two whose
 * names differ only in case (sorted by name as Windows compares them:
 * such names lie side by side). */
static int scan_children(const struct hive_file *hf, const char *hive,
                         const char *path, int performance,
                         struct anomalies *a, struct rt_error *e)
{
    struct rt_regf *h = hf->h;
    uint32_t key, *subs = NULL;
    size_t ns = 0, got = 0;
    int f = hive_find(hf, path, &key, e);
    if (f)
        return f < 0 ? -1 : 0;
    if ((f = rt_regf_subkeys(h, key, &subs, &ns)) != 0)
        return hive_regf_error(hf, path, f, e);
    struct named_key *v = calloc(ns ? ns : 1, sizeof *v);
    int rc = v ? 0 : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (size_t i = 0; i < ns && !rc; i++) {
        struct rt_regf_key_info ki;
        int r = rt_regf_key_info(h, subs[i], &ki);
        if (r != 0) {
            rc = hive_regf_error(hf, path, r, e);
            break;
        }
        v[got++] = (struct named_key){ki.name, subs[i]};
        /* A key listed here whose parent is another (an ancestor listed
         * as a child: a loop; or one key in two lists) is no key of this
         * list: a write there lands elsewhere. */
        rc = ki.parent != key
                 ? anomaly_add(a, RT_KEY_MISPARENTED, hive,
                               key_name(hive, path, ki.name), NULL, e)
                 : note_link(hf, hive, path, ki.name, subs[i], a, e);
        uint32_t perf;
        char *sub = !rc && performance ? key_name(hive, path, ki.name) : NULL;
        if (!rc && performance && !sub)
            rc = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        /* Its Performance key: a link, or one of two names differing
         * only in case (the other's Library unseen), is an anomaly. */
        int found = sub ? one_named(hf, hive, sub + strlen(hive) + 1, subs[i],
                                    "Performance", &perf, a, e)
                        : 1;
        if (found < 0)
            rc = -1;
        else if (!found)
            rc = note_link(hf, hive, sub + strlen(hive) + 1, "Performance",
                           perf, a, e);
        free(sub);
    }
    if (!rc) {
        qsort(v, got, sizeof *v, named_key_cmp);
        for (size_t i = 1; i < got && !rc; i++)
            if (!rt_name_casecmp(v[i - 1].name, v[i].name))
                rc = anomaly_add(a, RT_KEY_CASE_TWINS, hive,
                                 key_name(hive, path, v[i - 1].name),
                                 key_name(hive, path, v[i].name), e);
    }
    for (size_t i = 0; i < got; i++)
        free(v[i].name);
    free(v);
    free(subs);
    return rc;
}

/* The subkey of PARENT (at PATH in HF, of the hive HIVE) named NAME in
 * any case, in *KEY: 0 found, 1 not; with two of that name a case-twins
 * anomaly is added (Windows reads one by either name) and the first
 * taken. -1 with E on failure. */
static int one_named(const struct hive_file *hf, const char *hive,
                     const char *path, uint32_t parent, const char *name,
                     uint32_t *key, struct anomalies *a, struct rt_error *e)
{
    uint32_t *subs = NULL;
    size_t ns = 0;
    int r = rt_regf_subkeys(hf->h, parent, &subs, &ns);
    if (r != 0)
        return hive_regf_error(hf, path, r, e);
    char *first = NULL;
    int rc = 1;
    for (size_t i = 0; i < ns && rc >= 0; i++) {
        struct rt_regf_key_info ki;
        if ((r = rt_regf_key_info(hf->h, subs[i], &ki)) != 0) {
            rc = hive_regf_error(hf, path, r, e);
            break;
        }
        if (!rt_name_casecmp(ki.name, name)) {
            if (!first) {
                first = ki.name;
                ki.name = NULL;
                *key = subs[i];
                rc = 0;
            } else if (anomaly_add(a, RT_KEY_CASE_TWINS, hive,
                                   key_name(hive, path, first),
                                   key_name(hive, path, ki.name), e) != 0) {
                rc = -1;
            }
        }
        rt_regf_key_info_free(&ki);
    }
    free(first);
    free(subs);
    return rc;
}

/* Each key on the way to PATH in HF (from the hive's root): one of two
 * names that differ only in case, or a link, is as much an anomaly as
 * one among the services (a twin ControlSet001 or Select held a second
 * PerfOS). */
static int scan_way(const struct hive_file *hf, const char *hive,
                    const char *path, struct anomalies *a, struct rt_error *e)
{
    char way[512] = "";
    uint32_t key = rt_regf_root(hf->h);
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '\\');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[256];
        if (len >= sizeof name || strlen(way) + len + 2 >= sizeof way)
            return 0;
        memcpy(name, p, len);
        name[len] = '\0';
        uint32_t next = 0;
        int r = one_named(hf, hive, way, key, name, &next, a, e);
        if (r != 0)
            return r < 0 ? -1 : 0;
        if (note_link(hf, hive, way, name, next, a, e) != 0)
            return -1;
        snprintf(way + strlen(way), sizeof way - strlen(way), "%s%s",
                 *way ? "\\" : "", name);
        key = next;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

int hive_key_anomalies(struct rt_store *st, struct rt_key_anomaly **out,
                       size_t *n, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    struct anomalies a = {NULL, 0, 0};
    *out = NULL;
    *n = 0;
    if (scan_children(&s->system, "SYSTEM", s->services, 1, &a, e) != 0 ||
        scan_children(&s->software, "SOFTWARE", PERFLIB_PATH, 0, &a, e) != 0 ||
        scan_way(&s->system, "SYSTEM", "Select", &a, e) != 0 ||
        scan_way(&s->system, "SYSTEM", s->services, &a, e) != 0 ||
        scan_way(&s->software, "SOFTWARE", PERFLIB_PATH, &a, e) != 0) {
        rt_key_anomalies_free(a.v, a.n);
        return -1;
    }
    if ((s->select_default && s->select_default != s->select_current) ||
        s->select_default_odd) {
        char cur[64], def[96];
        snprintf(cur, sizeof cur, "Select\\Current (ControlSet%03u)",
                 s->select_current);
        if (s->select_default_odd)
            snprintf(def, sizeof def, "Select\\Default (no 4-byte REG_DWORD: "
                     "the set it names is not known)");
        else
            snprintf(def, sizeof def, "Select\\Default (ControlSet%03u)",
                     s->select_default);
        if (anomaly_add(&a, RT_KEY_SELECT_DIFFERS, "SYSTEM",
                        key_name("SYSTEM", cur, NULL),
                        key_name("SYSTEM", def, NULL), e) != 0) {
            rt_key_anomalies_free(a.v, a.n);
            return -1;
        }
    }
    *out = a.v;
    *n = a.n;
    return 0;
}

/* Each key on the way to PATH in HF listed by its parent beside its
 * name's hash (or hint), which Windows' lookup compares before the name
 * (review 49 R49-2: an entry whose stored hash is another's is passed
 * over, and a twin after it, or none, read instead). 0 when each is, 1
 * with the first that is not in WAY, -1 on error. */
static int way_hinted(const struct hive_file *hf, const char *path,
                      char *way, size_t size, struct rt_error *e)
{
    uint32_t key = rt_regf_root(hf->h);
    way[0] = '\0';
    for (const char *p = path; *p;) {
        const char *end = strchr(p, '\\');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char name[256];
        if (len >= sizeof name || strlen(way) + len + 2 >= size)
            return 0;
        memcpy(name, p, len);
        name[len] = '\0';
        uint32_t next;
        int hinted = 0, r = rt_regf_lookup(hf->h, key, name, &next);
        if (r == RT_REGF_ENOTFOUND)
            return 0;
        if (r == 0)
            r = rt_regf_subkey_hinted(hf->h, key, next, &hinted);
        if (r != 0)
            return hive_regf_error(hf, way, r, e);
        snprintf(way + strlen(way), size - strlen(way), "%s%s",
                 *way ? "\\" : "", name);
        if (!hinted)
            return 1;
        key = next;
        p = end ? end + 1 : p + len;
    }
    return 0;
}

int hive_read_machine(struct rt_store *st, int system, const char *key,
                      const char *name, struct rt_value *out, int *present,
                      struct rt_error *e)
{
    struct hive_store *s = hs(st);
    char path[HIVE_PATH_MAX];
    memset(out, 0, sizeof *out);
    *present = 0;
    /* The control set is the one Services is read from. */
    int cs = (int)(strchr(s->services, '\\') - s->services);
    if (system ? hive_key_path(path, sizeof path, e, "%.*s\\%s", cs,
                               s->services, key)
               : hive_key_path(path, sizeof path, e, "%s", key))
        return -1;
    const struct hive_file *hf = system ? &s->system : &s->software;
    const char *hive = system ? "SYSTEM" : "SOFTWARE";
    /* A link key or two keys of one name on the way (review 49 R49-2,
     * R49-7: the link's own empty key, or the first twin, was read where
     * Windows opens another): the value is not known. */
    struct anomalies a = {NULL, 0, 0};
    if (scan_way(hf, hive, path, &a, e) != 0) {
        rt_key_anomalies_free(a.v, a.n);
        return -1;
    }
    if (a.n) {
        int r = rt_error_set(e, RT_ERR_BADDB,
                             "%s is %s: which key Windows reads there is "
                             "not known", a.v[0].key,
                             a.v[0].kind == RT_KEY_LINK
                                 ? "a symbolic link key, which regtool does "
                                   "not follow"
                                 : "one of two keys whose names differ only "
                                   "in letter case");
        rt_key_anomalies_free(a.v, a.n);
        return r;
    }
    char way[512];
    int h = way_hinted(hf, path, way, sizeof way, e);
    if (h < 0)
        return -1;
    if (h > 0)
        return rt_error_set(e, RT_ERR_BADDB,
                            "%s\\%s is listed beside a hash that is not its "
                            "name's, or in a list out of Windows' order, "
                            "where Windows' look-up passes it over: which "
                            "key Windows reads there is not known",
                            hive, way);
    if (get_value(hf, path, name, out, present, e) != 0)
        return -1;
    /* The name in two letter cases (review 48 R48-2: windir and WINDIR,
     * the first taken where Windows' session manager, setting each in
     * turn, ends with the last), or past a NUL (R49-10: "windir<NUL>x",
     * which it sets as windir): neither is the value. */
    uint32_t cell;
    size_t count = 0;
    int r = hive_find(hf, path, &cell, e);
    if (r > 0) {
        r = 0;      /* no key: no value of any name */
        *present = -1;
    } else if (r == 0 && rt_regf_value_count(hf->h, cell, name, &count) != 0)
        r = rt_error_set(e, RT_ERR_BADDB, "%s: values of %s: %s", hf->path,
                         path, rt_regf_errmsg(hf->h));
    if (r == 0 && *present >= 0 && count > (size_t)*present)
        r = rt_error_set(e, RT_ERR_BADDB,
                         "%s holds %zu values named %s (in letter cases "
                         "that differ, or followed by a NUL), of which "
                         "Windows sees one, not known which",
                         path, count, name);
    if (r != 0) {
        rt_value_free(out);
        *present = 0;
        return -1;
    }
    return 0;
}

int hive_has_win_files(struct rt_store *st)
{
    return hive_windows_dir(st) != NULL;
}

int hive_read_win_file(struct rt_store *st, const char *rel,
                       struct rt_value *out, int *present,
                       struct rt_error *e)
{
    const char *win = hive_windows_dir(st);
    if (out)
        memset(out, 0, sizeof *out);
    *present = 0;
    if (!win)
        return 0;
    char *p = rt_os_path_ci(win, rel, 0);
    if (!p)
        return hive_ambiguous(e) ? -1
                            : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                           "out of memory");
    int rc = 0;
    struct rt_os_stat fst;
    /* A link (or anything but a file) where a side file is looked for is
     * refused, never taken for an absent file: an uninstall would leave
     * it and say nothing. */
    if (rt_os_stat(p, &fst) != 0)
        rc = rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s; nothing was written",
                          p, rt_os_strerror(errno));
    else if (fst.kind == RT_OS_OTHER || fst.kind == RT_OS_DIR)
        rc = rt_error_set(e, RT_ERR_ACCESS_DENIED,
                          "%s is not a file (a link, a folder or a device); "
                          "nothing was written", p);
    else if (fst.kind == RT_OS_FILE && !out)
        *present = 1;
    else if (fst.kind == RT_OS_FILE) {
        rc = rt_store_read_side_file(p, rel, out, e);
        *present = rc == 0;
    }
    free(p);
    if (out)
        out->type = RT_REG_BINARY;
    return rc;
}
