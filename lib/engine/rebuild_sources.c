/* Operations: reading a rebuild's sources (engine/rebuild_sources.h). */
#include "engine/rebuild_sources.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/owned_ranges.h"
#include "engine/side_files.h"
#include "model/lang_id.h"
#include "model/size_caps.h"
#include "model/utf16.h"
#include "platform/os.h"
#include "platform/progress.h"

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* Keeps STR (a new string) for the sources' lifetime; NULL when out of
 * memory (STR freed). */
/* After rt_os_path_ci gave NULL: a folder of the sources holding two
 * names that differ only in case where REL was looked for is refused
 * (which of them Windows would use is not known); else out of memory. */
static int path_failed(struct rt_error *e)
{
    if (errno == EEXIST)
        return rt_error_set(e, RT_ERR_BADDB, "%s", rt_os_strerror(EEXIST));
    return oom(e);
}

static const char *keep(struct rt_rebuild_sources *src, char *str)
{
    if (!str)
        return NULL;
    char **v = realloc(src->strings, (src->n_strings + 1) * sizeof *v);
    if (!v) {
        free(str);
        return NULL;
    }
    src->strings = v;
    v[src->n_strings++] = str;
    return str;
}

static const char *keepf(struct rt_rebuild_sources *src, const char *fmt,
                         const char *a, const char *b)
{
    char *s = NULL;
    if (asprintf(&s, fmt, a, b) < 0)
        return NULL;
    return keep(src, s);
}


/* Where the sources are: FROM, or the store's Windows directory. */
struct where {
    struct rt_store *s;
    const char *from;       /* NULL: the store's side files */
    const char *root;       /* a directory of this machine, or NULL */
};

/* REL's bytes: *PRESENT 0 when absent. */
static int read_rel(const struct where *w, const char *rel,
                    struct rt_value *out, int *present, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = 0;
    if (!w->from)
        return w->s->ops->read_win_file(w->s, rel, out, present, e);
    char *p = rt_os_path_ci(w->from, rel, 0);
    if (!p)
        return path_failed(e);
    int rc = 0;
    if (rt_os_exists(p)) {
        /* Capped as the store caps its own side files: a sparse file of
         * gigabytes in another machine's folder was read whole. */
        rc = rt_store_read_side_file(p, rel, out, e);
        *present = rc == 0;
    }
    free(p);
    return rc;
}

/* REL as people should find it. */
static const char *shown(struct rt_rebuild_sources *src, const char *rel)
{
    return keepf(src, "%s/%s", src->root, rel);
}

static int read_base(struct rt_rebuild_sources *src, const struct where *w,
                     const char *lang, size_t k, struct rt_error *e)
{
    struct rt_rebuild_base *b = &src->base[k];
    b->lang = lang;
    char rel[2][64];
    struct rt_value v[2] = {{0}, {0}};
    snprintf(rel[0], sizeof rel[0], "System32/perfd%s.dat", lang);
    snprintf(rel[1], sizeof rel[1], "System32/perfi%s.dat", lang);
    for (int i = 0; i < 2; i++) {
        int present = 0;
        if (read_rel(w, rel[i], &v[i], &present, e) != 0) {
            rt_value_free(&v[0]);
            return -1;
        }
        if (!present) {
            rt_value_free(&v[0]);
            b->missing = keepf(src, "%s/%s: not found", src->root, rel[i]);
            return b->missing ? 0 : oom(e);
        }
    }
    struct rt_msz_error err;
    int which;
    int r = rt_name_table_decode(&src->tables[k], v[0].data, v[0].len,
                                 v[1].data, v[1].len, 0, &err, &which);
    rt_value_free(&v[0]);
    rt_value_free(&v[1]);
    if (r != 0) {
        rt_name_table_free(&src->tables[k]);
        char why[64];
        snprintf(why, sizeof why, "damaged at byte %zu", err.offset);
        b->missing = keepf(src, "%s: %s", shown(src, rel[which]), why);
        return b->missing ? 0 : oom(e);
    }
    b->t = &src->tables[k];
    return 0;
}

/* The provider's INF copy: its PerfIniFile in the English folder first,
 * then in each language's; loaded (with its symbol file beside it) as
 * install loads an INI. */
/* Whether SP, read as SI's INF copy, is the INI that was installed: its
 * drivername SI's, its symbols within SI's ranges (their offsets from
 * First Counter and First Help end at or before Last Counter and Last
 * Help). A copy that is not would put texts on another provider's
 * indices; WHY says which. */
static int inf_fits(const struct rt_provider_spec *sp,
                    const struct rt_service_info *si, char *why, size_t size)
{
    if (!sp->drivername || rt_name_casecmp(sp->drivername, si->name)) {
        snprintf(why, size, "its drivername '%.100s' is another service's: "
                 "not the INI that was installed", sp->drivername
                                                       ? sp->drivername : "");
        return 0;
    }
    if (!si->has_range || !sp->n_symbols)
        return 1;
    /* The range as rebuild places it (rebuild_plan.c, ranges_of): a value
     * missing is taken from First Counter, so that a provider without
     * Last Counter is placed at First Counter alone, and an INI of more
     * than one counter would put the rest on indices its range does not
     * cover, another provider's perhaps. */
    struct rt_service_info placed = *si;
    int whole = si->has_last_counter && si->has_first_help &&
                si->has_last_help;
    if (!si->has_last_counter)
        placed.last_counter = placed.first_counter;
    if (!si->has_first_help)
        placed.first_help = placed.first_counter + 1;
    if (!si->has_last_help)
        placed.last_help = placed.first_help +
                           (placed.last_counter - placed.first_counter);
    struct rt_spec_fit f;
    rt_spec_fit(sp, &placed, &f);
    if (f.fit != RT_FIT_PAST)
        return 1;
    snprintf(why, size, "its symbol %.100s (offset %ld) would be at index "
             "%llu/%llu, past the %s range %u-%u (help %u-%u)%s",
             f.symbol->symbol, f.symbol->offset,
             (unsigned long long)f.counter, (unsigned long long)f.help,
             whole ? "installed" : "registry's", placed.first_counter,
             placed.last_counter, placed.first_help, placed.last_help,
             whole ? ": not the INI that was installed"
                   : ", its Last Counter, First Help or Last Help "
                     "missing");
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The entries of the folder INF\SERVICE, in upper case, sorted, into
 * *NAMES: a language whose folder is not among them has no copy there,
 * and is not looked for (each provider's copy was looked for in every
 * language's folder: providers x languages paths made, stats and paths
 * kept). 1 when listed; 0 when that folder is not one that lists (absent,
 * a link, unreadable: each language's folder is looked at then, as
 * before); -1 when out of memory. */
static int inf_folders(const struct where *w, const char *service,
                       char ***names, size_t *n)
{
    *names = NULL;
    *n = 0;
    char *rel = NULL;
    if (asprintf(&rel, "INF/%s", service) < 0)
        return -1;
    char *dir = rt_os_path_ci(w->root, rel, 0);
    free(rel);
    struct rt_os_stat st;
    int listed = dir && rt_os_stat(dir, &st) == 0 && st.kind == RT_OS_DIR &&
                 rt_os_list_dir(dir, names, n) == 0;
    free(dir);
    if (!listed) {
        *names = NULL;
        *n = 0;
        return 0;
    }
    for (size_t i = 0; i < *n; i++)
        for (char *c = (*names)[i]; *c; c++)
            if (*c >= 'a' && *c <= 'z')
                *c = (char)(*c - 'a' + 'A');
    qsort(*names, *n, sizeof **names, cmp_names);
    return 1;
}

static int inf_folder_listed(char **names, size_t n, const char *folder)
{
    return bsearch(&folder, names, n, sizeof *names, cmp_names) != NULL;
}

static int read_inf_in(struct rt_rebuild_sources *src, const struct where *w,
                       const struct rt_database *db,
                       const struct rt_service_info *si, size_t k,
                       char **listed, size_t n_listed, struct rt_error *e);

static int read_inf(struct rt_rebuild_sources *src, const struct where *w,
                    const struct rt_database *db,
                    const struct rt_service_info *si, size_t k,
                    struct rt_error *e)
{
    struct rt_rebuild_inf *in = &src->inf[k];
    in->service = si->name;
    if (!si->ini_file || !*si->ini_file) {
        in->why = "its Performance key has no PerfIniFile value";
        return 0;
    }
    /* Both become components of the path read: one file name each. */
    const char *bad = rt_win_name_problem(si->ini_file);
    const char *what = "PerfIniFile";
    const char *value = si->ini_file;
    if (!bad) {
        bad = rt_win_name_problem(si->name);
        what = "service name";
        value = si->name;
    }
    if (bad) {
        char shown_name[100], why[400];
        rt_side_name_shown(value, shown_name, sizeof shown_name);
        snprintf(why, sizeof why, "its %s '%s' is not a file name (%s), so "
                 "no INF copy is read", what, shown_name, bad);
        in->why = keep(src, strdup(why));
        return in->why ? 0 : oom(e);
    }
    if (!w->root) {
        in->why = "the store's INF copies cannot be read as files here";
        return 0;
    }
    char **listed = NULL;
    size_t n_listed = 0;
    int listing = inf_folders(w, si->name, &listed, &n_listed);
    if (listing < 0)
        return oom(e);
    int rc = read_inf_in(src, w, db, si, k, listing ? listed : NULL,
                         n_listed, e);
    rt_os_free_list(listed, n_listed);
    return rc;
}

/* read_inf in each language's folder; LISTED (N names, or NULL: all)
 * those of INF\<service> (the first, English's, looked for whatever
 * they are: its path is the one named when there is no copy). */
static int read_inf_in(struct rt_rebuild_sources *src, const struct where *w,
                       const struct rt_database *db,
                       const struct rt_service_info *si, size_t k,
                       char **listed, size_t n_listed, struct rt_error *e)
{
    struct rt_rebuild_inf *in = &src->inf[k];
    for (size_t i = 0; i <= db->n_langs; i++) {
        char folder[8];
        if (rt_inf_folder(i == 0 ? "009" : db->langs[i - 1].id, folder) != 0 ||
            (i > 0 && !strcmp(folder, "0009")) ||
            (i > 0 && listed && !inf_folder_listed(listed, n_listed, folder)))
            continue;
        char *rel = rt_inf_path(si->name, folder, si->ini_file);
        char *path = rel ? rt_os_path_ci(w->root, rel, 0) : NULL;
        int looked = rel != NULL;
        free(rel);
        if (!path)
            return looked ? path_failed(e) : oom(e);
        if (!keep(src, path))
            return oom(e);
        if (!in->path)
            in->path = path;
        /* A folder on the way that is a mount point or a link is refused
         * by the platform layer: said as what it is, not "not found". */
        struct rt_os_stat st;
        if (rt_os_stat(path, &st) != 0) {
            in->path = path;
            if (!(in->why = keep(src, strdup(rt_os_strerror(errno)))))
                return oom(e);
            continue;
        }
        if (st.kind == RT_OS_ABSENT) {
            /* The language's folder in a folder's place is something
             * else (a FIFO, a file): said, not taken for no copy. */
            char *slash = strrchr(path, '/');
            int odd = 0;
            if (slash) {
                *slash = '\0';
                odd = rt_os_stat(path, &st) == 0 &&
                      st.kind != RT_OS_ABSENT && st.kind != RT_OS_DIR;
                *slash = '/';
            }
            if (odd) {
                in->path = path;
                in->why = "its language folder is not a folder (a file, a "
                          "FIFO, a device or a socket): not read";
            }
            continue;
        }
        in->path = path;
        /* Within the bound of what rebuild reads of INF copies in all. */
        char *slash = strrchr(path, '/');
        uint64_t bytes = 0;
        if (slash) {
            *slash = '\0';
            bytes = rt_os_folder_file_bytes(path);
            *slash = '/';
        }
        if (bytes > RT_INF_TOTAL_MAX - src->inf_bytes) {
            char why[200];
            snprintf(why, sizeof why, "its folder's %llu bytes would take "
                     "the INF copies read past the %llu MiB rebuild reads of "
                     "them in all: not read", (unsigned long long)bytes,
                     (unsigned long long)(RT_INF_TOTAL_MAX >> 20));
            in->why = keep(src, strdup(why));
            return in->why ? 0 : oom(e);
        }
        src->inf_bytes += bytes;
        struct rt_diags d = {0};
        if (rt_provider_spec_load(path, NULL, &src->specs[k], &d) == 0) {
            rt_diags_free(&d);
            char why[400];
            if (!inf_fits(&src->specs[k], si, why, sizeof why)) {
                rt_provider_spec_free(&src->specs[k]);
                in->why = keep(src, strdup(why));
                return in->why ? 0 : oom(e);
            }
            in->spec = &src->specs[k];
            in->why = NULL;
            return 0;
        }
        rt_provider_spec_free(&src->specs[k]);
        if (d.out_of_memory) {
            rt_diags_free(&d);
            return oom(e);
        }
        const char *msg = "it does not load";
        for (size_t j = 0; j < d.n; j++)
            if (d.v[j].severity == RT_ERROR) {
                msg = d.v[j].message;
                break;
            }
        in->why = keep(src, strdup(msg));
        rt_diags_free(&d);
        if (!in->why)
            return oom(e);
    }
    if (!in->why)
        in->why = "not found";
    return 0;
}

int rt_rebuild_sources_read(struct rt_store *s, const struct rt_database *db,
                            const char *from, struct rt_rebuild_sources *src,
                            struct rt_error *e)
{
    memset(src, 0, sizeof *src);
    const char *win = s->ops->windows_dir ? s->ops->windows_dir(s) : NULL;
    struct where w = {s, from, from ? from : win};
    if (!from && !rt_store_win_files(s))
        return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                            "this store has no Windows directory to rebuild "
                            "from (no perfdLLL.dat, INF copies or "
                            "PerfStringBackup.INI); give one with --from DIR");
    if (from && !rt_os_is_dir(from))
        return rt_error_set(e, RT_ERR_PATH_NOT_FOUND,
                            "--from %s: not a directory", from);
    src->root = strdup(w.root ? w.root : "%SystemRoot%");
    src->base = calloc(db->n_langs + 1, sizeof *src->base);
    src->tables = calloc(db->n_langs + 1, sizeof *src->tables);
    src->inf = calloc(db->n_services + 1, sizeof *src->inf);
    src->specs = calloc(db->n_services + 1, sizeof *src->specs);
    if (!src->root || !src->base || !src->tables || !src->inf || !src->specs)
        goto nomem;
    for (size_t i = 0; i < db->n_langs; i++) {
        if (rt_lang_is_current(db->langs[i].id))
            continue;
        rt_progress_report("reading base tables", i, db->n_langs);
        if (read_base(src, &w, db->langs[i].id, src->in.n_base, e) != 0)
            goto fail;
        src->in.n_base++;
    }
    for (size_t i = 0; i < db->n_services; i++) {
        if (!db->services[i].has_range)
            continue;
        rt_progress_report("reading INF copies", i, db->n_services);
        if (read_inf(src, &w, db, &db->services[i], src->in.n_inf, e) != 0)
            goto fail;
        src->in.n_inf++;
    }
    struct rt_value v;
    int present = 0;
    if (read_rel(&w, RT_PSB_REL, &v, &present, e) != 0)
        goto fail;
    src->in.psb_path = shown(src, RT_PSB_REL);
    if (!src->in.psb_path) {
        rt_value_free(&v);
        goto nomem;
    }
    if (!present) {
        src->in.psb_why = "not found";
    } else {
        struct rt_psb_error perr;
        enum rt_psb_encoding enc;
        if (rt_psb_parse(v.data, v.len, &src->psb, &enc, &perr) == 0) {
            src->has_psb = 1;
            src->in.psb = &src->psb;
        } else if (perr.nomem) {
            /* Not the file's fault: rebuilt without it, the names only
             * it holds would be lost. */
            rt_value_free(&v);
            goto nomem;
        } else {
            char *why = NULL;
            if (asprintf(&why, "line %u: %s", perr.line, perr.message) < 0)
                why = NULL;
            if (!(src->in.psb_why = keep(src, why))) {
                rt_value_free(&v);
                goto nomem;
            }
        }
    }
    rt_value_free(&v);
    src->in.base = src->base;
    src->in.inf = src->inf;
    return 0;
nomem:
    oom(e);
fail:
    rt_rebuild_sources_free(src);
    return -1;
}

void rt_rebuild_sources_free(struct rt_rebuild_sources *src)
{
    for (size_t i = 0; i < src->in.n_base; i++)
        rt_name_table_free(&src->tables[i]);
    for (size_t i = 0; i < src->in.n_inf; i++)
        if (src->inf[i].spec)
            rt_provider_spec_free(&src->specs[i]);
    if (src->has_psb)
        rt_psb_free(&src->psb);
    for (size_t i = 0; i < src->n_strings; i++)
        free(src->strings[i]);
    free(src->strings);
    free(src->base);
    free(src->tables);
    free(src->inf);
    free(src->specs);
    free(src->root);
    memset(src, 0, sizeof *src);
}
