/* Loading providers' INIs: one INI as install, lodctr and check-ini load
 * it (with the files its INF copy holds, for install and lodctr), and
 * every INI repair --from-ini can find, in a folder given and in
 * a Windows tree's INF copies. */
#include "ops/ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/side_files.h"
#include "model/size_caps.h"

/* rt_op_load_ini, with the files' bytes kept in *INF when INF. */
static enum rt_ini_load load(const char *path,
                             const struct rt_ini_load_options *opt,
                             struct rt_provider_spec *spec,
                             struct rt_inf_files *inf, struct rt_diags *d)
{
    static const struct rt_ini_load_options defaults = {0};
    if (!opt)
        opt = &defaults;
    int r = rt_provider_spec_load_files(path, opt->symbol_dir, opt->codepage,
                                        spec, inf, d);
    if (d->out_of_memory) {
        rt_provider_spec_free(spec);
        if (inf)
            rt_inf_files_free(inf);
        return RT_INI_OUT_OF_MEMORY;
    }
    if (r == -2)
        return RT_INI_UNREADABLE;
    if (r != 0)
        return RT_INI_INVALID;
    if (opt->strict && d->warnings) {
        rt_provider_spec_free(spec);
        memset(spec, 0, sizeof *spec);
        if (inf)
            rt_inf_files_free(inf);
        return RT_INI_REFUSED_STRICT;
    }
    return RT_INI_LOADED;
}

enum rt_ini_load rt_op_load_ini(const char *path,
                                const struct rt_ini_load_options *opt,
                                struct rt_provider_spec *spec,
                                struct rt_diags *d)
{
    return load(path, opt, spec, NULL, d);
}

enum rt_ini_load rt_op_load_provider(const char *path,
                                     const struct rt_ini_load_options *opt,
                                     struct rt_provider_spec *spec,
                                     struct rt_inf_files *inf,
                                     struct rt_diags *d, struct rt_error *e)
{
    enum rt_ini_load r = load(path, opt, spec, inf, d);
    if (r == RT_INI_OUT_OF_MEMORY)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s: out of memory", path);
    return r;
}

void rt_ini_set_free(struct rt_ini_set *l)
{
    for (size_t i = 0; i < l->n; i++) {
        rt_provider_spec_free(l->v[i]);
        free(l->v[i]);
    }
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

struct finder {
    struct rt_ini_set *set;
    void (*note)(void *ctx, const struct rt_ini_note *n);
    void *note_ctx;
    uint64_t inf_bytes;     /* the INF copies' folders read so far */
    /* What the loads read so far, each INI and symbol file as often as it
     * is read: a symbol file of megabytes that hundreds of INIs (or an
     * INF copy's language folders) share is parsed for each. */
    uint64_t read_bytes;
};

static void tell(const struct finder *f, const struct rt_ini_note *n)
{
    if (f->note)
        f->note(f->note_ctx, n);
}

static int ends_with_ci(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && !strcasecmp(s + n - t, tail);
}

/* Loads INI (its symbol file beside it, or else in SYMBOL_DIR when that
 * is not NULL) into the set; one that does not load is skipped, told.
 * 0, or -1 out of memory. */
static int add_ini(struct finder *f, const char *ini, const char *symbol_dir)
{
    if (f->read_bytes > RT_INF_TOTAL_MAX) {
        char why[200];
        snprintf(why, sizeof why, "not read: the INIs and symbol files "
                 "read so far came to %llu bytes, past the %llu MiB read "
                 "of them in all", (unsigned long long)f->read_bytes,
                 (unsigned long long)(RT_INF_TOTAL_MAX >> 20));
        struct rt_ini_note n = {RT_INI_NOTE_SKIPPED, ini, NULL, NULL, NULL,
                                why};
        tell(f, &n);
        return 0;
    }
    struct rt_ini_set *l = f->set;
    struct rt_provider_spec *sp = calloc(1, sizeof *sp);
    struct rt_provider_spec **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!sp || !nv) {
        free(sp);
        if (nv)
            l->v = nv;
        return -1;
    }
    l->v = nv;
    struct rt_diags d = {0};
    /* An INF copy has its symbol file beside it where regtool's install
     * wrote it (INF\<service>\<LLLL>\), in INF\<service> where Windows
     * did (docs/design.md, "Rebuilding: lodctr /R"); when neither loads,
     * the reason given is the latter's. */
    enum rt_ini_load r = RT_INI_INVALID;
    if (symbol_dir) {
        r = rt_op_load_ini(ini, NULL, sp, &d);
        f->read_bytes += d.bytes_read;
        if (r == RT_INI_LOADED) {
            rt_diags_free(&d);
            l->v[l->n++] = sp;
            return 0;
        }
        rt_diags_free(&d);
        rt_provider_spec_free(sp);
        d = (struct rt_diags){0};
    }
    const struct rt_ini_load_options in_dir = {NULL, symbol_dir, 0};
    if (r != RT_INI_OUT_OF_MEMORY) {
        r = rt_op_load_ini(ini, &in_dir, sp, &d);
        f->read_bytes += d.bytes_read;
    }
    if (r != RT_INI_LOADED) {
        char *first = NULL;
        /* An INI that ran out of memory is not one that does not load. */
        int oom = r == RT_INI_OUT_OF_MEMORY;
        for (size_t i = 0; i < d.n && !first && !oom; i++)
            if (d.v[i].severity == RT_ERROR)
                oom = !(first = rt_diag_format(&d.v[i]));
        if (oom) {
            rt_diags_free(&d);
            rt_provider_spec_free(sp);
            free(sp);
            return -1;
        }
        struct rt_ini_note n = {RT_INI_NOTE_SKIPPED, ini, NULL, NULL, NULL,
                                first};
        tell(f, &n);
        free(first);
        rt_diags_free(&d);
        rt_provider_spec_free(sp);
        free(sp);
        return 0;
    }
    rt_diags_free(&d);
    l->v[l->n++] = sp;
    return 0;
}

/* DIR's entries into *NAMES: 0; 1 when DIR cannot be listed (absent,
 * not a folder, refused); -1 out of memory, which is never taken for a
 * folder that is not there. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted by name: the order the file system lists them in differs from
 * one to the next (ext4 by hash, NTFS by name), and which INI is found
 * first must not. */
static int list_dir(const char *dir, char ***names, size_t *n)
{
    if (rt_os_list_dir(dir, names, n) != 0)
        return errno == ENOMEM ? -1 : 1;
    if (*n)
        qsort(*names, *n, sizeof **names, by_name);
    return 0;
}

/* DIR/NAME, NAME matched without regard to case (a Windows tree copied
 * to Linux keeps Windows' case), in *FOUND (a new string), or NULL when
 * DIR has no such entry or cannot be listed. -1 out of memory: a search
 * that ran out of memory has not found that nothing is there. */
static int find_ci(const char *dir, const char *name, char **found)
{
    char **names;
    size_t n;
    *found = NULL;
    int rc = list_dir(dir, &names, &n);
    if (rc)
        return rc < 0 ? -1 : 0;
    for (size_t i = 0; i < n && !*found && !rc; i++)
        if (!strcasecmp(names[i], name) &&
            asprintf(found, "%s/%s", dir, names[i]) < 0) {
            *found = NULL;
            rc = -1;
        }
    rt_os_free_list(names, n);
    return rc;
}

/* Every *.ini of DIR (confined already). */
static int load_dir(struct finder *f, const char *dir, struct rt_error *e)
{
    char **names;
    size_t n;
    int rc = list_dir(dir, &names, &n);
    if (rc < 0)
        return -1;
    if (rc) {
        rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: cannot list it", dir);
        return -2;
    }
    for (size_t i = 0; i < n && !rc; i++) {
        char *p = NULL;
        if (!ends_with_ci(names[i], ".ini"))
            continue;
        if (asprintf(&p, "%s/%s", dir, names[i]) < 0)
            rc = -1;
        else if (!rt_os_is_dir(p))
            rc = add_ini(f, p, NULL);
        free(p);
    }
    rt_os_free_list(names, n);
    return rc;
}

/* INF's entry named SVC in any case, as a path in *FOUND (NULL when it
 * has none, or two of that name: which Windows would take is not known).
 * rt_os_path_ci: while the store's tree is confined, INF is listed once
 * for every service, each a binary search. -1 out of memory. */
static int find_service(const char *inf, const char *svc, char **found)
{
    *found = rt_os_path_ci(inf, svc, 1);
    return *found || errno != ENOMEM ? 0 : -1;
}

/* Whether the INF copy in folder LDIR fits within what is read of INF
 * copies in all (RT_INF_TOTAL_MAX), counted; said when it does not. */
static int within_inf_total(struct finder *f, const char *ldir,
                            const char *ini)
{
    uint64_t bytes = rt_os_folder_file_bytes(ldir);
    if (bytes <= RT_INF_TOTAL_MAX - f->inf_bytes) {
        f->inf_bytes += bytes;
        return 1;
    }
    char why[200];
    snprintf(why, sizeof why, "its folder's %llu bytes would take the INF "
             "copies read past the %llu MiB read of them in all: not read",
             (unsigned long long)bytes,
             (unsigned long long)(RT_INF_TOTAL_MAX >> 20));
    struct rt_ini_note n = {RT_INI_NOTE_SKIPPED, ini, NULL, NULL, NULL, why};
    tell(f, &n);
    return 0;
}

/* The INF copies of service SVC's INI, named INI_NAME, in SDIR (INF/SVC,
 * or NULL when INF has none). */
static int load_inf_copies(struct finder *f, const char *sdir,
                           const char *ini_name)
{
    char **langs;
    size_t n_langs;
    int rc = 0;
    int listed = !sdir ? 1 : list_dir(sdir, &langs, &n_langs);
    if (listed < 0)
        rc = -1;
    if (listed == 0) {
        for (size_t j = 0; j < n_langs && !rc; j++) {
            char *ldir = NULL, *ini = NULL;
            if (strlen(langs[j]) != 4 ||
                strspn(langs[j], "0123456789abcdefABCDEF") != 4)
                continue;
            if (asprintf(&ldir, "%s/%s", sdir, langs[j]) < 0) {
                rc = -1;
                break;
            }
            rc = find_ci(ldir, ini_name, &ini);
            if (!rc && ini && within_inf_total(f, ldir, ini))
                rc = add_ini(f, ini, sdir);
            free(ini);
            free(ldir);
        }
        rt_os_free_list(langs, n_langs);
    }
    return rc;
}

/* Each service's INF copies in S's Windows tree, when it has one. */
static int load_inf(struct finder *f, struct rt_store *s, struct rt_error *e)
{
    const char *win = rt_op_windows_dir(s);
    char *inf = NULL;
    char **svcs = NULL;
    size_t n_svcs = 0;
    if (win && find_ci(win, "INF", &inf) != 0)
        return -1;
    if (!inf)
        return 0;
    struct rt_error le = {0};
    if (rt_op_list_perf_services(s, &svcs, &n_svcs, &le) != 0) {
        free(inf);
        if (le.code == RT_ERR_NOT_ENOUGH_MEMORY)
            return -1;
        rt_error_set(e, le.code, "the services cannot be listed: %s",
                     le.message);
        return -3;
    }
    int rc = 0;
    for (size_t i = 0; i < n_svcs && !rc; i++) {
        char *ini_name = NULL;
        struct rt_error ignored = {0};
        /* One that cannot be read is passed over, as one without it; not
         * one that ran out of memory. */
        if (rt_op_service_string(s, svcs[i], "PerfIniFile", &ini_name,
                                 &ignored) != 0 &&
            ignored.code == RT_ERR_NOT_ENOUGH_MEMORY) {
            rc = -1;
            break;
        }
        /* Both become path components: a name that is not one file's is
         * never looked up, and said. */
        const char *bad = ini_name ? rt_win_name_problem(ini_name) : NULL;
        const char *bad_svc = ini_name ? rt_win_name_problem(svcs[i]) : NULL;
        if (bad || bad_svc) {
            char shown[100];
            rt_side_name_shown(bad ? ini_name : svcs[i], shown, sizeof shown);
            struct rt_ini_note n = {
                RT_INI_NOTE_NOT_A_NAME, NULL, svcs[i],
                bad ? "PerfIniFile" : "service name", shown,
                bad ? bad : bad_svc};
            tell(f, &n);
        } else if (ini_name) {
            char *sdir = NULL;
            rc = find_service(inf, svcs[i], &sdir);
            if (!rc)
                rc = load_inf_copies(f, sdir, ini_name);
            free(sdir);
        }
        free(ini_name);
    }
    rt_strings_free(svcs, n_svcs);
    free(inf);
    return rc;
}

int rt_op_find_inis(struct rt_store *s, const char *dir,
                    void (*note)(void *ctx, const struct rt_ini_note *n),
                    void *note_ctx, struct rt_ini_set *out,
                    struct rt_error *e)
{
    *out = (struct rt_ini_set){0};
    struct finder f = {out, note, note_ctx, 0, 0};
    /* DIR may be another machine's: confined while it is read, as a
     * tree (a file there that another name shares with the host is not
     * read: an INI hard-linked to a root-only host INI had its texts
     * copied into the tables). */
    char *root = NULL;
    int rc;
    if (rt_os_confine_on_disk(dir, &root) != 0) {
        rc = errno == ENOMEM ? -1 : -2;
        if (rc == -2)
            rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s", dir,
                         rt_os_strerror(errno));
    } else {
        rc = load_dir(&f, root, e);
    }
    rt_os_unconfine(root);
    free(root);
    if (rc == 0)
        rc = load_inf(&f, s, e);
    if (rc == -1)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return rc;
}
