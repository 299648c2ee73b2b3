/* regtool init: create an offline Windows tree with a realistic base name
 * database, for trying regtool, for tests and for benchmarks. */
#include "cli.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    struct rt_error e = {0};
    uint8_t *bytes = NULL;
    size_t len = 0;
    int r = rt_op_backup_image(&db, &bytes, &len, &e);
    rt_database_free(&db);
    rt_op_close(s);
    if (r < 0)
        rt_cli_error("init: %s", e.message);
    else if (r > 0)
        rt_cli_error("init: writing %s: out of memory", path);
    else if (rt_op_init_write_file(path, bytes, len) != 0) {
        if (!rt_os_interrupted())
            rt_cli_error("init: writing %s: %s", path, rt_os_strerror(errno));
        r = -1;
    }
    free(bytes);
    return r != 0 ? -1 : 0;
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
    const struct rt_init_tree t = {langs, n_langs, files,
                                   {dat_dirs[0], dat_dirs[1]}, 1, 0, 0};
    struct rt_init_hives h;
    struct rt_error e = {0};
    int rc = rt_op_init_build(&t, &h, &e);
    if (rc == 0)
        rc = rt_op_init_save(&h, sw_path, sy_path, &e);
    /* A write an interrupt ended is said once, as the interrupt. */
    if (rc != 0 && !rt_os_interrupted())
        rt_cli_error("init: %s", e.message);
    rt_op_init_free(&h);
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

/* RC, or when an interrupt ended init, 128 + its signal, said: by then
 * what init made is removed. */
static int interrupted(int rc)
{
    int sig = rt_os_interrupted();
    if (!sig)
        return rc;
    rt_cli_error("init: interrupted: the tree was not made (what init had "
                 "written is removed)");
    return 128 + sig;
}

/* Lets go of the disk rt_os_hold_disk_of held (DISK may be NULL). */
static void release_disk(char *disk)
{
    if (disk) {
        rt_os_unconfine(disk);
        free(disk);
    }
}

/* Makes the folder SHOWN names (noting in *OUTSIDE the folders made) and
 * confines it (*CANON). Named on another machine's disk (its
 * Windows/Temp, a Windows.old), it is made and confined beneath that
 * disk, held in *DISK (*ON_DISK: SHOWN on the disk's canonical path): a
 * link the disk holds on the way is refused, not written through. -1,
 * said, with nothing made or held, on failure. */
static int make_folder(const char *shown, char **disk, char **on_disk,
                       char ***outside, size_t *n_outside, char **canon)
{
    if (rt_os_hold_disk_of(shown, disk, on_disk) == 0 &&
        rt_os_mkdirs_noting(*on_disk ? *on_disk : shown, outside,
                            n_outside) == 0 &&
        rt_os_confine(*on_disk ? *on_disk : shown, canon) == 0)
        return 0;
    rt_cli_error("init: %s: %s", shown, rt_os_strerror(errno));
    for (size_t i = *n_outside; i-- > 0;)
        rt_os_rmdir((*outside)[i]);
    rt_os_free_list(*outside, *n_outside);
    *outside = NULL;
    *n_outside = 0;
    free(*on_disk);
    *on_disk = NULL;
    release_disk(*disk);
    *disk = NULL;
    return -1;
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
    /* init makes a Windows tree: only hive:DIR names one. */
    const char *store = rt_cli_store_spec();
    struct rt_store_spec spec;
    if (optind != argc || !store || rt_op_parse_spec(store, &spec) != 0 ||
        spec.kind != RT_SPEC_HIVE_TREE ||
        (strcmp(layout, "files") && strcmp(layout, "registry"))) {
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
    const char *shown = spec.arg;
    /* An interrupt (Ctrl-C, SIGTERM, SIGHUP) is noted from here on and
     * ends init as a failure does: what it made is removed, so that the
     * next init finds no half-made tree to refuse. */
    rt_cli_catch_interrupts();
    /* The folders init makes, noted as they are made: a failure removes
     * those, deepest first, and nothing that was there before. Those of
     * the path the user named (OUTSIDE) are removed once the tree is no
     * longer confined; those beneath it (INSIDE) while it still is, so
     * that a link planted meanwhile is refused, not followed. */
    char **outside = NULL, **inside = NULL;
    size_t n_outside = 0, n_inside = 0;
    char *canon = NULL, *disk = NULL, *on_disk = NULL;
    if (make_folder(shown, &disk, &on_disk, &outside, &n_outside, &canon)) {
        for (size_t i = 0; i < n_langs; i++)
            free(langs[i]);
        free(langs);
        return interrupted(RT_EXIT_FAILURE);
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
    if (rt_os_interrupted() ||
        write_hives(sw_path, sy_path, langs, n_langs, files, dat_dirs) != 0 ||
        rt_os_interrupted() || write_backup(psb_path) != 0 ||
        rt_os_interrupted())
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
    free(on_disk);
    release_disk(disk);
    for (size_t i = 0; i < n_langs; i++)
        free(langs[i]);
    free(langs);
    return rc == RT_EXIT_OK ? rc : interrupted(rc);
}
