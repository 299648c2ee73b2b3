/* regtool init: create an offline Windows tree with a realistic base name
 * database, for trying regtool, for tests and for benchmarks. */
#include "cli.h"
#include "model/lang_id.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/backup.h"
#include "store/base_hive.h"
#include "model/base_tables.h"
#include "regf/regf.h"

static const char usage_text[] =
    "Usage: regtool --store hive:DIR init [--languages L,...] "
    "[--layout files|registry]\n"
    "\n"
    "Creates an offline Windows tree at DIR: SOFTWARE and SYSTEM hives with\n"
    "Perflib, its base values and base tables, and a few base providers.\n"
    "Refused where DIR already holds hives.\n"
    "\n"
    "  --languages L,...  language ids of three or four hex digits (009,\n"
    "                     019, 0804), or CurrentLanguage; default 009\n"
    "  --layout files     tables in System32 and SysWOW64 perfcLLL.dat and\n"
    "                     perfhLLL.dat, as Vista and later keep them (default)\n"
    "  --layout registry  tables as values of Perflib\\LLL, as NT 4 to\n"
    "                     Server 2003 and Wine keep them\n";

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
/* Predefined handles of Perflib\009 and Perflib\CurrentLanguage
 * (docs/design.md, "Where the tables live"). */
#define HKEY_PERFORMANCE_TEXT    0x80000050u
#define HKEY_PERFORMANCE_NLSTEXT 0x80000060u

/* Whether a write_file failed and said why: the failure of a step that
 * wrote files is then told once, naming the file. */
static int write_said;

static int write_file(const char *path, const uint8_t *data, size_t len)
{
    if (rt_os_write_new_file(path, data, len) == 0)
        return 0;
    rt_cli_error("init: writing %s: %s", path, rt_os_strerror(errno));
    write_said = 1;
    return -1;
}

/* The tables as installed, which lodctr /R rebuilds from (docs/design.md,
 * "Rebuilding: lodctr /R"): perfdLLL.dat (names) and perfiLLL.dat (help)
 * beside perfcLLL.dat and perfhLLL.dat, in the same REG_MULTI_SZ blob
 * format, in each of DAT_DIRS; written in both layouts, as the system's
 * installation leaves them whatever keeps the current tables. */
static int write_installed(const char *lang, const uint8_t *c, size_t cl,
                           const uint8_t *h, size_t hl, char **dat_dirs,
                           size_t n_dirs)
{
    for (size_t i = 0; i < n_dirs; i++) {
        char path[4200];
        snprintf(path, sizeof path, "%s/perfd%s.dat", dat_dirs[i], lang);
        if (write_file(path, c, cl) != 0)
            return -1;
        snprintf(path, sizeof path, "%s/perfi%s.dat", dat_dirs[i], lang);
        if (write_file(path, h, hl) != 0)
            return -1;
    }
    return 0;
}

/* Writes one language's tables: as values, or as .dat files in each of
 * DAT_DIRS; and the tables as installed (write_installed). */
static int write_language(struct rt_regf *sw, uint32_t perflib,
                          const char *lang, int files, char **dat_dirs,
                          size_t n_dirs)
{
    struct rt_name_table t;
    uint8_t *c = NULL, *h = NULL;
    size_t cl, hl;
    uint32_t key;
    int rc = -1;
    /* CurrentLanguage holds the UI language's tables: English here. */
    if (rt_base_tables_generate(rt_lang_is_current(lang) ? "009" : lang, &t) != 0 ||
        rt_pair_list_encode(&t.counter, &c, &cl) != 0 ||
        rt_pair_list_encode(&t.help, &h, &hl) != 0 ||
        rt_regf_key_create(sw, perflib, lang, &key) != 0)
        goto out;
    /* CurrentLanguage has no files of its own. */
    if (!rt_lang_is_current(lang) &&
        write_installed(lang, c, cl, h, hl, dat_dirs, files ? n_dirs : 1) != 0)
        goto out;
    if (files) {
        if (rt_lang_same(lang, "009") &&
            rt_regf_key_set_predefined(sw, key, HKEY_PERFORMANCE_TEXT) != 0)
            goto out;
        for (size_t i = 0; i < n_dirs; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/perfc%s.dat", dat_dirs[i], lang);
            if (write_file(path, c, cl) != 0)
                goto out;
            snprintf(path, sizeof path, "%s/perfh%s.dat", dat_dirs[i], lang);
            if (write_file(path, h, hl) != 0)
                goto out;
        }
    } else if (rt_regf_value_set(sw, key, "Counter", RT_REG_MULTI_SZ, c, cl) ||
               rt_regf_value_set(sw, key, "Help", RT_REG_MULTI_SZ, h, hl)) {
        goto out;
    }
    rc = 0;
out:
    rt_name_table_free(&t);
    free(c);
    free(h);
    return rc;
}

/* Whether init writes .dat file K (0 perfc, 1 perfh, 2 perfd, 3 perfi)
 * of LANG in DIR (DIR_INDEX 0 System32, 1 SysWOW64), and its path:
 * current tables only in the files layout, the tables as installed in
 * System32 in both and in SysWOW64 with the files layout; none for
 * CurrentLanguage. */
static int dat_file(char *path, size_t size, const char *dir,
                    const char *lang, int k, int files, size_t dir_index)
{
    if (rt_lang_is_current(lang) || (k < 2 && !files) ||
        (dir_index && !files))
        return 0;
    snprintf(path, size, "%s/perf%c%s.dat", dir, "chdi"[k], lang);
    return 1;
}

/* System32\PerfStringBackup.INI as Windows keeps it (docs/design.md, "The
 * backup store"): the database just made, saved as lodctr /S saves it, read
 * back through the store as any later backup will be. */
static int write_backup(const char *path)
{
    int rc;
    struct rt_database db;
    struct rt_store *s = rt_cli_open_database(&db, &rc);
    if (!s)
        return -1;
    struct rt_psb psb;
    struct rt_error e = {0};
    uint8_t *bytes = NULL;
    size_t len = 0;
    int r = rt_engine_backup(&db, &psb, &e);
    rt_database_free(&db);
    rt_op_close(s);
    if (r != 0) {
        rt_cli_error("init: %s", e.message);
        return -1;
    }
    r = rt_psb_write(&psb, &bytes, &len);
    rt_psb_free(&psb);
    if (r != 0)
        rt_cli_error("init: writing %s: out of memory", path);
    if (r != 0 || write_file(path, bytes, len) != 0) {
        free(bytes);
        return -1;
    }
    free(bytes);
    return 0;
}

static int build_software(struct rt_regf *sw, char **langs, size_t n_langs,
                          int files, char **dat_dirs, size_t n_dirs)
{
    uint32_t perflib, cur;
    if (rt_regf_key_create_path(sw, rt_regf_root(sw), PERFLIB, &perflib) ||
        rt_base_set_dword(sw, perflib, "Last Counter", rt_base_last_counter()) ||
        rt_base_set_dword(sw, perflib, "Last Help", rt_base_last_help()) ||
        rt_base_set_dword(sw, perflib, "Base Index", 1847) ||
        rt_base_set_dword(sw, perflib, "Version", 0x00050001))
        return -1;
    for (size_t i = 0; i < n_langs; i++)
        if (!(files && rt_lang_is_current(langs[i])) &&
            write_language(sw, perflib, langs[i], files, dat_dirs, n_dirs))
            return -1;
    if (files &&
        (rt_regf_key_create(sw, perflib, "CurrentLanguage", &cur) != 0 ||
         rt_regf_key_set_predefined(sw, cur, HKEY_PERFORMANCE_NLSTEXT) != 0))
        return -1;
    return 0;
}

/* The comma-separated language ids of LIST, upper-cased: each three or
 * four hex digits, none twice (ignoring case), the list not empty. -1
 * (nothing kept, the reason printed) on a bad list or when out of memory.
 * Checked before anything is created. */
static int split_languages(const char *list, char ***out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (!*list) {
        rt_cli_error("init: --languages is empty: give one or more language "
                     "ids, e.g. 009 or 009,019; nothing was written");
        return -1;
    }
    int rc = 0;
    const char *p = list;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char *id = strndup(p, len);
        if (!id) {
            rt_cli_error("init: out of memory");
            rc = -1;
            break;
        }
        if (rt_lang_is_current(id))
            memcpy(id, "CurrentLanguage", sizeof "CurrentLanguage");
        else
            for (char *c = id; *c; c++)
                if (*c >= 'a' && *c <= 'f')
                    *c -= 32;
        if (!len) {
            rt_cli_error("init: --languages '%s' has an empty language id; "
                         "nothing was written", list);
            rc = -1;
        } else if (!rt_lang_is_id(id)) {
            rt_cli_error("init: language '%s' is not three or four hex "
                         "digits, nor CurrentLanguage; nothing was written", id);
            rc = -1;
        } else {
            /* 804 and 0804 may both be there, as on real machines. */
            for (size_t i = 0; i < *n && !rc; i++)
                if (!strcmp((*out)[i], id)) {
                    rt_cli_error("init: language %s is given twice in "
                                 "--languages; nothing was written", id);
                    rc = -1;
                }
        }
        char **v = rc ? NULL : realloc(*out, (*n + 1) * sizeof *v);
        if (!v) {
            if (!rc)
                rt_cli_error("init: out of memory");
            free(id);
            rc = -1;
            break;
        }
        *out = v;
        v[(*n)++] = id;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (rc) {
        rt_strings_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

/* Whether a file init would write is there already (said, naming it):
 * init writes a new tree, never over one. */
static int already_there(const char *config, const char *sw_path,
                         const char *sy_path, const char *psb_path,
                         char **langs, size_t n_langs, int files,
                         char **dat_dirs)
{
    if (rt_os_exists(sw_path) || rt_os_exists(sy_path)) {
        rt_cli_error("init: %s already holds hives; nothing was written", config);
        return 1;
    }
    for (size_t i = 0; i < n_langs; i++)
        for (size_t d = 0; d < 2; d++)
            for (int k = 0; k < 4; k++) {
                char path[4200];
                if (!dat_file(path, sizeof path, dat_dirs[d], langs[i], k,
                              files, d))
                    continue;
                if (rt_os_exists(path)) {
                    rt_cli_error("init: %s already exists; nothing was written",
                                 path);
                    return 1;
                }
            }
    if (rt_os_exists(psb_path)) {
        rt_cli_error("init: %s already exists; nothing was written", psb_path);
        return 1;
    }
    return 0;
}

/* Builds SOFTWARE (LANGS' tables, in .dat files of DAT_DIRS when FILES)
 * and SYSTEM, and writes them to SW_PATH and SY_PATH. 0, or -1 said. */
static int write_hives(const char *sw_path, const char *sy_path, char **langs,
                       size_t n_langs, int files, char **dat_dirs)
{
    struct rt_regf *sw = NULL, *sy = NULL;
    char err[512] = "";
    int rc = -1;
    if (rt_regf_create(5, "ROOT", &sw, err, sizeof err) ||
        rt_regf_create(5, "ROOT", &sy, err, sizeof err)) {
        rt_cli_error("init: %s", err);
        goto out;
    }
    write_said = 0;
    if (build_software(sw, langs, n_langs, files, dat_dirs, 2) != 0) {
        /* A file it wrote has said why; else the hive's own error. */
        if (!write_said)
            rt_cli_error("init: building SOFTWARE: %s",
                         *rt_regf_errmsg(sw) ? rt_regf_errmsg(sw)
                                             : "out of memory");
        goto out;
    }
    if (rt_base_build_system(sy, 0) != 0) {
        rt_cli_error("init: building SYSTEM: %s",
                     *rt_regf_errmsg(sy) ? rt_regf_errmsg(sy) : "out of memory");
        goto out;
    }
    if (rt_regf_save_as(sw, sw_path) != 0 || rt_regf_save_as(sy, sy_path) != 0) {
        /* The hive's error names the file and why. */
        rt_cli_error("init: writing %s",
                     rt_regf_errmsg(*rt_regf_errmsg(sw) ? sw : sy));
        goto out;
    }
    rc = 0;
out:
    rt_regf_close(sw);
    rt_regf_close(sy);
    return rc;
}

/* Removes the files a failed init wrote (none was there before). */
static void remove_written(const char *sw_path, const char *sy_path,
                           const char *psb_path, char **langs,
                           size_t n_langs, int files, char **dat_dirs)
{
    rt_os_unlink(sw_path);
    rt_os_unlink(sy_path);
    rt_os_unlink(psb_path);
    for (size_t i = 0; i < n_langs; i++)
        for (size_t d = 0; d < 2; d++)
            for (int k = 0; k < 4; k++) {
                char path[4200];
                if (dat_file(path, sizeof path, dat_dirs[d], langs[i], k,
                             files, d))
                    rt_os_unlink(path);
            }
}

int cmd_init(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"languages", required_argument, 0, 'l'},
        {"layout", required_argument, 0, 'y'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    const char *langs_arg = "009", *layout = "files";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'l': langs_arg = optarg; break;
        case 'y': layout = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    const char *store = rt_cli_options()->store;
    if (!store)
        store = getenv("REGTOOL_STORE");
    if (optind != argc || !store || strncmp(store, "hive:", 5) ||
        strchr(store, ',') || (strcmp(layout, "files") && strcmp(layout, "registry"))) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int files = !strcmp(layout, "files");
    char **langs;
    size_t n_langs;
    if (split_languages(langs_arg, &langs, &n_langs) != 0)
        return RT_EXIT_USAGE;
    /* The directory named is the user's; what lies beneath it may be
     * someone else's (a disk's), so it is confined (rt_os_confine) before
     * anything there is looked at or made: a planted link or "..",
     * Windows -> /etc say, is refused, not written through. */
    const char *shown = store + 5;
    /* The folders init makes, noted as they are made: a failure removes
     * those, deepest first, and nothing that was there before. Those of
     * the path the user named (OUTSIDE) are removed once the tree is no
     * longer confined; those beneath it (INSIDE) while it still is, so
     * that a link planted meanwhile is refused, not followed. */
    char **outside = NULL, **inside = NULL;
    size_t n_outside = 0, n_inside = 0;
    char *canon = NULL;
    if (rt_os_mkdirs_noting(shown, &outside, &n_outside) != 0 ||
        rt_os_confine(shown, &canon) != 0) {
        rt_cli_error("init: %s: %s", shown, rt_os_strerror(errno));
        for (size_t i = n_outside; i-- > 0;)
            rt_os_rmdir(outside[i]);
        rt_os_free_list(outside, n_outside);
        for (size_t i = 0; i < n_langs; i++)
            free(langs[i]);
        free(langs);
        return RT_EXIT_FAILURE;
    }
    const char *dir = canon;
    char config[4096], sys32[4096], wow[4096], sw_path[4200], sy_path[4200];
    snprintf(config, sizeof config, "%s/Windows/System32/config", dir);
    snprintf(sys32, sizeof sys32, "%s/Windows/System32", dir);
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", dir);
    snprintf(sw_path, sizeof sw_path, "%s/SOFTWARE", config);
    snprintf(sy_path, sizeof sy_path, "%s/SYSTEM", config);
    char psb_path[4200];
    snprintf(psb_path, sizeof psb_path, "%s/PerfStringBackup.INI", sys32);
    int rc = RT_EXIT_FAILURE;
    char *dat_dirs[2] = {sys32, wow};
    const char *making;
    int made = 0;
    if (already_there(config, sw_path, sy_path, psb_path, langs, n_langs,
                      files, dat_dirs)) {
        rc = RT_EXIT_CONFLICT;
        goto out;
    }
    made = 1;
    making = config;
    int r = rt_os_mkdirs_noting(config, &inside, &n_inside);
    if (r == 0 && files) {
        making = wow;
        r = rt_os_mkdirs_noting(wow, &inside, &n_inside);
    }
    if (r != 0) {
        /* The reason names the link or file found where a folder goes. */
        rt_cli_error("init: making %s: %s", making, rt_os_strerror(errno));
        goto out;
    }
    if (write_hives(sw_path, sy_path, langs, n_langs, files, dat_dirs) != 0 ||
        write_backup(psb_path) != 0)
        goto out;
    printf("created %s: SOFTWARE and SYSTEM, languages %s, tables %s\n",
           rt_cli_shown(shown), rt_cli_shown(langs_arg), files ? "in System32 and SysWOW64 .dat files"
                            : "as registry values");
    rc = RT_EXIT_OK;
out:
    /* Nothing left behind: the files init wrote (none of them was there
     * before), then the directories it created, deepest first. */
    if (rc != RT_EXIT_OK && made)
        remove_written(sw_path, sy_path, psb_path, langs, n_langs, files,
                       dat_dirs);
    if (rc != RT_EXIT_OK)
        for (size_t i = n_inside; i-- > 0;)
            rt_os_rmdir(inside[i]);
    rt_os_free_list(inside, n_inside);
    rt_os_unconfine(canon);
    free(canon);
    /* The directory named and its parents, made here, go last, once it
     * is no longer confined (removing a confined directory itself is
     * refused). */
    if (rc != RT_EXIT_OK)
        for (size_t i = n_outside; i-- > 0;)
            rt_os_rmdir(outside[i]);
    rt_os_free_list(outside, n_outside);
    for (size_t i = 0; i < n_langs; i++)
        free(langs[i]);
    free(langs);
    return rc;
}
