/* Store specs: the one place that turns "hive:DIR", "live", "psb:FILE"
 * into a store, for the CLI's --store and for regtool_open alike. */
#include "ops/ops.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/diag.h"
#include "platform/compat.h"
#include "platform/os.h"
#include "model/printable.h"
#include "store/store_hive.h"
#include "store/store_psb.h"
#include "store/store_reg.h"
#include "store/store_win32.h"

int rt_op_parse_spec(const char *spec, struct rt_store_spec *out)
{
    if (!strncmp(spec, "hive:", 5)) {
        out->kind = strchr(spec + 5, ',') ? RT_SPEC_HIVE_FILES
                                          : RT_SPEC_HIVE_TREE;
        out->arg = spec + 5;
    } else if (!strncmp(spec, "psb:", 4) || !strncmp(spec, "reg:", 4)) {
        out->kind = spec[0] == 'p' ? RT_SPEC_PSB : RT_SPEC_REG;
        out->arg = spec + 4;
    } else if (!strcmp(spec, "live") || !strncmp(spec, "live:", 5)) {
        out->kind = RT_SPEC_LIVE;
        out->arg = spec[4] ? spec + 5 : NULL;
    } else {
        return -1;
    }
    /* A store of no file or folder (hive:, reg:), or two hives one of
     * which is named by nothing (hive:A, or hive:,B): no spec at all. */
    if (out->kind == RT_SPEC_HIVE_FILES) {
        const char *comma = strchr(out->arg, ',');
        if (comma == out->arg || !comma[1])
            return -1;
    }
    return out->kind != RT_SPEC_LIVE && !*out->arg ? -1 : 0;
}

struct rt_store *rt_op_open_store(const char *spec,
                                  const regtool_open_options *opt,
                                  int read_once, struct rt_error *e,
                                  int *bad_spec)
{
    static const regtool_open_options defaults = {NULL, 0, 0, NULL};
    struct rt_store *s = NULL;
    if (!opt)
        opt = &defaults;
    *bad_spec = 0;
    if (!spec) {
        *bad_spec = 1;
        rt_error_set(e, RT_ERR_INVALID_PARAMETER, "no store given");
        return NULL;
    }
    struct rt_store_spec p;
    if (rt_op_parse_spec(spec, &p) != 0) {
        *bad_spec = 1;
        rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                     "unknown store '%s': use hive:DIR, hive:SOFTWARE,SYSTEM, "
                     "live, psb:FILE or reg:FILE", spec);
    } else if (p.kind == RT_SPEC_HIVE_TREE || p.kind == RT_SPEC_HIVE_FILES) {
        struct rt_hive_options ho = {
            .tables_dir = opt->tables,
            .force_dirty = opt->force_dirty,
            .wait_seconds = opt->wait_seconds == 0 ? 60
                            : opt->wait_seconds < 0 ? 0 : opt->wait_seconds,
            .notice = opt->notice,
            .read_once = read_once,
        };
        struct rt_diags d = {0};
        s = rt_store_hive_open(p.arg, &ho, &d, e);
        for (size_t i = 0; i < d.n; i++) {
            char *m = rt_diag_format(&d.v[i]);
            /* Escaped: it names the tree's files (model/printable.h). */
            char *shown = m ? rt_text_printable_dup(m) : NULL;
            if (shown && opt->notice)
                opt->notice(shown);
            free(shown);
            free(m);
        }
        rt_diags_free(&d);
    } else if (p.kind == RT_SPEC_PSB) {
        s = rt_store_psb_open(p.arg, e);
    } else if (p.kind == RT_SPEC_REG) {
        /* A REGEDIT4 file's code page, as for an ANSI INI. */
        s = rt_store_reg_open(p.arg, getenv("REGTOOL_CODEPAGE"), e);
    } else {
        /* Elsewhere than Windows and Wine this fails, saying so. */
        s = rt_store_win32_open(p.arg, e);
        if (!s && e->code == RT_ERR_NOT_SUPPORTED) {
            char why[sizeof e->message];
            snprintf(why, sizeof why, "%s", e->message);
            rt_error_set(e, RT_ERR_NOT_SUPPORTED, "store '%s': %s", spec, why);
            *bad_spec = 1;
        }
    }
    return s;
}

/* Whether PATH names a file of a hive tree whose config folder would be
 * DIR/REL, REL found in any letter case as the store finds it (a disk
 * upgraded from XP: WINDOWS/system32/CONFIG), with the tables of
 * --tables (TABLES, or NULL). 0 where there is no such folder. */
static int tree_file_at(const char *dir, const char *rel, const char *tables,
                        const char *path)
{
    char *config = *rel ? rt_os_path_ci(dir, rel, 1) : strdup(dir);
    char *system = NULL;
    if (!config)
        return errno == ENOMEM ? -1 : 0;
    int named = asprintf(&system, "%s/SYSTEM", config) < 0
                    ? -1
                    : rt_store_hive_tree_names(system, tables, path);
    free(config);
    free(system);
    return named;
}

static int spec_names_file(const char *spec, const char *tables,
                           const char *path)
{
    static const char *const itself[] = {"", NULL};
    static const char *const file_and_lock[] = {"", ".lock", NULL};
    struct rt_store_spec p;
    if (!spec || !path || rt_op_parse_spec(spec, &p) != 0 || !p.arg)
        return 0;
    if (p.kind == RT_SPEC_PSB)
        return rt_os_names_file(path, p.arg, itself) >= 0;
    if (p.kind == RT_SPEC_REG)
        return rt_os_names_file(path, p.arg, file_and_lock) >= 0;
    if (p.kind == RT_SPEC_HIVE_FILES) {
        const char *comma = strchr(p.arg, ',');
        char *first = comma ? strndup(p.arg, (size_t)(comma - p.arg)) : NULL;
        int named = first ? rt_store_hive_tree_names(first, tables, path)
                          : -1;
        if (named == 0)
            named = rt_store_hive_tree_names(comma + 1, tables, path);
        /* Whatever spelling of their folders made them unreadable. */
        char *dir = first ? rt_os_folder_of(first) : NULL;
        char *dir2 = comma ? rt_os_folder_of(comma + 1) : NULL;
        if (named == 0 && dir && dir2 &&
            (rt_store_hive_root_holds(dir, 1, path) ||
             rt_store_hive_root_holds(dir2, 1, path) ||
             (tables && rt_store_hive_root_holds(tables, 1, path))))
            named = 1;
        free(dir);
        free(dir2);
        free(first);
        return named != 0;
    }
    if (p.kind != RT_SPEC_HIVE_TREE)
        return 0;
    /* The tree's root, its Windows directory, its System32 folder or its
     * config folder, as the store takes them (review 45 R45-1: the
     * System32 folder's layout and other letter cases were not tried). */
    static const char *const config[] = {"Windows/System32/config",
                                         "System32/config", "config", ""};
    for (size_t i = 0; i < sizeof config / sizeof *config; i++) {
        int named = tree_file_at(p.arg, config[i], tables, path);
        if (named != 0)
            return 1;
    }
    /* A layout no spelling found (two folders of one name in two letter
     * cases on the way, which is what made the store unreadable: review
     * 46 R46-1): any file below the tree bearing a store file's name. */
    return rt_store_hive_root_holds(p.arg, 0, path) ||
           (tables && rt_store_hive_root_holds(tables, 1, path));
}

int rt_op_spec_names_file(const char *spec, const char *tables,
                          const char *path)
{
    /* Every spelling of the layout tried lists the same folders: each
     * listed once (review 46 R46-7: a config folder of a million planted
     * entries was listed some 32 times). */
    rt_os_listings_scope(+1);
    int named = spec_names_file(spec, tables, path);
    rt_os_listings_scope(-1);
    return named;
}

struct rt_store *rt_op_open_database(const char *spec,
                                     const regtool_open_options *opt,
                                     int read_once,
                                     const struct rt_db_load_options *load,
                                     struct rt_database *db,
                                     struct rt_error *e, int *bad_spec)
{
    struct rt_store *s = rt_op_open_store(spec, opt, read_once, e, bad_spec);
    if (!s)
        return NULL;
    if (rt_database_load_with(s, db, load, e) != 0) {
        rt_op_close(s);
        return NULL;
    }
    return s;
}

/* Whether a hold that failed with ERR failed for a folder not there. */
static int not_there(int err)
{
    return err == ENOENT || err == ENOTDIR;
}

int rt_op_hold_spec_folders(const char *spec, char *held[2], size_t *n)
{
    struct rt_store_spec p;
    *n = 0;
    if (rt_op_parse_spec(spec, &p) != 0 || p.kind == RT_SPEC_LIVE)
        return 0;
    if (p.kind == RT_SPEC_HIVE_TREE) {
        char *c = NULL;
        if (rt_os_confine(p.arg, &c) == 0)
            held[(*n)++] = c;
        else if (!not_there(errno))
            return -1;
        return 0;
    }
    /* One file, or the two hives of hive:SOFTWARE,SYSTEM. */
    const char *comma = p.kind == RT_SPEC_HIVE_FILES ? strchr(p.arg, ',')
                                                     : NULL;
    for (int i = 0; i < (comma ? 2 : 1); i++) {
        const char *from = i ? comma + 1 : p.arg;
        size_t flen = !i && comma ? (size_t)(comma - p.arg) : strlen(from);
        char *file = malloc(flen + 1);
        if (!file)
            return -1;
        memcpy(file, from, flen);
        file[flen] = '\0';
        const char *slash = rt_os_last_separator(file);
        size_t len = slash ? rt_os_folder_length(file, slash) : 0;
        char *c = NULL;
        file[len] = '\0';
        int r = rt_os_confine_on_disk(len ? file : ".", &c);
        int err = errno;
        free(file);
        if (r == 0)
            held[(*n)++] = c;
        else if (!not_there(err))
            return (errno = err, -1);
    }
    return 0;
}

void rt_op_release_spec_folders(char *held[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rt_os_unconfine(held[i]);
        free(held[i]);
    }
}
