/* Store layer: where the hive store's tables live (docs/design.md,
 * "Where the tables live"): values of Perflib\LLL in SOFTWARE, or
 * perfcLLL.dat and perfhLLL.dat in System32 (and SysWOW64's copy), decided
 * and checked each time the hives are read; and the checks that the two
 * hives are a SOFTWARE holding a name database and a SYSTEM with the
 * control set its Select key names. */
#include "store/hive_internal.h"
#include "model/lang_id.h"
#include "model/size_caps.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_dir(const char *p)
{
    return rt_os_is_dir(p);
}

int hive_lookup(struct rt_regf *h, const char *path, uint32_t *key)
{
    return rt_regf_lookup(h, rt_regf_root(h), path, key);
}

int hive_regf_error(const struct hive_file *hf, const char *path, int r,
                    struct rt_error *e)
{
    if (r == RT_REGF_ENOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                            "%s: %s: out of memory", hf->path, path);
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s: %s", hf->path, path,
                        rt_regf_errmsg(hf->h));
}

int hive_key_path(char *buf, size_t size, struct rt_error *e,
                  const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < size)
        return 0;
    return rt_error_set(e, RT_ERR_BADDB,
                        "a key path of %d bytes (%.80s...) holds a name "
                        "longer than Windows allows (255 characters): not "
                        "read, where a path cut short would name another "
                        "key", n, buf);
}

int hive_find(const struct hive_file *hf, const char *path, uint32_t *key,
              struct rt_error *e)
{
    int r = hive_lookup(hf->h, path, key);
    if (r == 0)
        return 0;
    if (r == RT_REGF_ENOTFOUND || r == RT_REGF_EINVAL)
        return 1;
    return hive_regf_error(hf, path, r, e);
}

static int read_dword(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t *out)
{
    uint32_t type;
    uint8_t *data = NULL;
    size_t len = 0;
    int r = rt_regf_get_value(h, key, name, &type, &data, &len);
    if (r != 0)
        return r == RT_REGF_ENOMEM ? RT_REGF_ENOMEM
               : r == RT_REGF_ENOTFOUND ? -1 : -2;
    int ok = type == RT_REG_DWORD && len == 4;
    if (ok)
        *out = regf_le32(data);
    free(data);
    return ok ? 0 : -2;
}

/* CurrentControlSet does not exist offline: it is ControlSetNNN with NNN
 * from Select\Current (docs/design.md, "The provider's service key"). */
static int find_services(struct hive_store *s, struct rt_error *e)
{
    uint32_t sel, current;
    int f = hive_find(&s->system, "Select", &sel, e);
    if (f < 0)
        return -1;
    int r = f ? -1 : read_dword(s->system.h, sel, "Current", &current);
    if (r == RT_REGF_ENOMEM)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                            "%s: Select\\Current: out of memory",
                            s->system.path);
    if (r != 0)
        return rt_error_set(e, RT_ERR_BADDB,
                            "%s has no Select\\Current, so it is not a "
                            "SYSTEM hive (or its current control set is "
                            "unknown). Nothing was written",
                            s->system.path);
    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             current);
    s->select_current = current;
    /* Absent, there is nothing to compare; there but no 4-byte REG_DWORD,
     * which set a boot takes from it is not known: said (failing closed,
     * where a loader may read its first four bytes). */
    int d = read_dword(s->system.h, sel, "Default", &s->select_default);
    if (d != 0)
        s->select_default = 0;
    s->select_default_odd = d == -2;
    return 0;
}

/* Whether the language key LANG of Perflib is a predefined-handle key,
 * and whether it holds a Counter or Help value; *EXISTS 0 when absent. */
static void language_key(struct hive_store *s, const char *lang, int *exists,
                         int *predefined, int *has_tables)
{
    uint32_t k, v;
    char path[256];
    struct rt_regf_key_info ki;
    snprintf(path, sizeof path, PERFLIB_PATH "\\%s", lang);
    *exists = *predefined = *has_tables = 0;
    if (hive_lookup(s->software.h, path, &k) != 0 ||
        rt_regf_key_info(s->software.h, k, &ki) != 0)
        return;
    *exists = 1;
    *predefined = ki.predefined;
    rt_regf_key_info_free(&ki);
    *has_tables = rt_regf_value_find(s->software.h, k, "Counter", &v) == 0 ||
                  rt_regf_value_find(s->software.h, k, "Help", &v) == 0;
}

/* Every language subkey of Perflib (three or four hex digits; not
 * CurrentLanguage, served from the UI language's files), as a new array. */
static int keep_digit_language(struct rt_regf *h, uint32_t key,
                               const char *name, void *ctx)
{
    (void)h;
    (void)key;
    (void)ctx;
    return rt_is_language_key(name) && !rt_lang_is_current(name);
}

static int dat_languages(struct hive_store *s, char ***langs, size_t *n,
                         struct rt_error *e)
{
    return hive_list_subkeys(&s->software, PERFLIB_PATH, keep_digit_language,
                             NULL, langs, n, e);
}

/* In the .dat layout, every language has both its tables in DIR. */
/* Checks that every language has both its tables in DIR, adding their
 * sizes to *TOTAL. */
static int check_dat_files(struct hive_store *s, const char *dir,
                           uint64_t *total, struct rt_error *e)
{
    char **langs;
    size_t n;
    if (dat_languages(s, &langs, &n, e) != 0)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++)
        for (int t = 0; t < 2 && !rc; t++) {
            char name[64];
            snprintf(name, sizeof name, "perf%c%s.dat", t ? 'h' : 'c',
                     langs[i]);
            errno = 0;
            char *p = hive_find_ci(dir, name);
            struct rt_os_stat st;
            if (!p && hive_ambiguous(e))
                rc = -1;
            else if (!p && errno == ENOMEM)
                rc = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                  "%s/%s: out of memory", dir, name);
            else if (!p)
                rc = rt_error_set(
                    e, RT_ERR_BADDB,
                    "%s/%s is missing: Perflib\\%s in %s is a language whose "
                    "%s table is kept in that file; nothing was written",
                    dir, name, langs[i], s->software.path,
                    t ? "Help" : "Counter");
            else if (rt_os_stat(p, &st) != 0 || st.kind != RT_OS_FILE)
                rc = rt_error_set(e, RT_ERR_BADDB,
                                  "%s is not a file; nothing was written", p);
            else
                *total += st.size;
            free(p);
        }
    rt_strings_free(langs, n);
    return rc;
}

/* Whether WOW, the Windows folder's SysWOW64 entry, is refused: it is
 * anything but a folder (a symbolic link, to a host folder or anywhere,
 * a file, a FIFO). Refused for readers and writers alike, as a link in
 * place of System32 is: taken for absent, its copies of the tables would
 * be left out of every commit and drift from System32's, and a reader
 * would describe a layout the tree does not have, all without a word.
 * 1 with E naming it and what stands there, else 0. */
static int syswow64_refused(const char *wow, struct rt_error *e)
{
    struct rt_os_stat st;
    if (rt_os_stat(wow, &st) != 0) {
        rt_error_set(e, errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                        : RT_ERR_BADDB,
                     "%s: %s. Nothing was written", wow,
                     rt_os_strerror(errno));
        return 1;
    }
    if (st.kind == RT_OS_DIR || st.kind == RT_OS_ABSENT)
        return 0;
    const char *what = st.what ? st.what : "not a folder";
    rt_error_set(e, RT_ERR_BADDB,
                 "%s is %s, not a folder: refused (%staken for absent, the "
                 "SysWOW64 copies of the tables would be left out of every "
                 "change). Put the folder back, or move it aside if this "
                 "tree has none. Nothing was written",
                 wow, what,
                 strstr(what, "link") ? "regtool does not follow a link "
                                        "inside a tree it did not write; "
                                      : "");
    return 1;
}

/* After a table was not found in folder WOW: 1, with E set, when WOW
 * could not be listed (a mount point, a folder it may not read, two
 * names for one), for the reasons syswow64_refused gives; 0 when the
 * table is only absent. */
static int syswow64_unread(const char *wow, struct rt_error *e)
{
    if (errno == ENOENT)
        return 0;
    rt_error_set(e, errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY : RT_ERR_BADDB,
                 "%s: %s. Nothing was written", wow, rt_os_strerror(errno));
    return 1;
}

/* SysWOW64 beside S's System32, in S->syswow64 when it holds a copy of
 * the tables (left NULL when not): 0, or -1 with E set. */
static int find_syswow64(struct hive_store *s, struct rt_error *e)
{
    char *windows = hive_parent_dir(s->system32);
    errno = 0;
    char *wow = windows ? hive_find_ci(windows, "SysWOW64") : NULL;
    int refused = windows && !wow && hive_ambiguous(e);
    /* Out of memory looking is never a tree without SysWOW64: its
     * copies would be left out of every commit and drift apart. */
    if (!refused && (!windows || (!wow && errno == ENOMEM))) {
        free(windows);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s: out of memory",
                            s->system32);
    }
    /* SysWOW64 holds a copy when it has either table of English: one of
     * the two alone is a copy damaged, refused by check_dat_files, not a
     * directory to leave out of every commit (which would let the copies
     * drift apart). */
    refused = refused || (wow && syswow64_refused(wow, e));
    char *wdat = wow && !refused ? hive_find_ci(wow, "perfc009.dat") : NULL;
    refused = refused || (wow && !wdat && syswow64_unread(wow, e));
    if (wow && !wdat && !refused)
        wdat = hive_find_ci(wow, "perfh009.dat");
    refused = refused || (wow && !wdat && syswow64_unread(wow, e));
    if (!refused && wdat)
        s->syswow64 = wow;
    else
        free(wow);
    free(wdat);
    free(windows);
    return refused ? -1 : 0;
}

/* Decides where the tables are, and checks that they are there (SPEC
 * 1.1): .dat files when --tables names their directory, or when
 * Perflib\009 is a predefined-handle key or holds no tables and
 * System32\perfc009.dat exists; values of Perflib\LLL otherwise. A
 * predefined-handle language key whose .dat files cannot be found is an
 * error: its tables exist, only not where we look, and writing them
 * anywhere else would lose them. In the .dat layout every language must
 * have both files. */
static int find_layout(struct hive_store *s, const char *system32_guess,
                       int check, struct rt_error *e)
{
    free(s->system32);
    free(s->syswow64);
    s->system32 = s->syswow64 = NULL;
    s->files_layout = 0;
    int exists, predefined, has_tables;
    language_key(s, "009", &exists, &predefined, &has_tables);
    if (s->opt.tables_dir) {
        s->system32 = hive_absolute(s->opt.tables_dir);
        if (!s->system32 || !is_dir(s->system32))
            return rt_error_set(e, !s->system32 && errno == ENOMEM
                                       ? RT_ERR_NOT_ENOUGH_MEMORY
                                       : RT_ERR_BADDB,
                                "--tables %s: %s; nothing was written",
                                s->opt.tables_dir,
                                s->system32 ? "not a directory"
                                            : rt_os_strerror(errno));
        s->files_layout = 1;
    } else if (system32_guess && (predefined || !has_tables)) {
        errno = 0;
        char *dat = hive_find_ci(system32_guess, "perfc009.dat");
        if (!dat && hive_ambiguous(e))
            return -1;
        if (!dat && errno == ENOMEM)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "%s: out of memory", system32_guess);
        int found = dat != NULL;
        if (found) {
            s->system32 = strdup(system32_guess);
            s->files_layout = 1;
        }
        free(dat);
        if (found && !s->system32)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "%s: out of memory", system32_guess);
    }
    if (!s->files_layout && check) {
        char **langs;
        size_t n;
        if (dat_languages(s, &langs, &n, e) != 0)
            return -1;
        int rc = 0;
        for (size_t i = 0; i < n && !rc; i++) {
            language_key(s, langs[i], &exists, &predefined, &has_tables);
            if (predefined)
                rc = rt_error_set(
                    e, RT_ERR_BADDB,
                    "%s: Perflib\\%s is a predefined-handle key, so its "
                    "tables are in perfc%s.dat and perfh%s.dat, but %s%s; "
                    "name the directory that holds them with --tables DIR. "
                    "Nothing was written",
                    s->software.path, langs[i], langs[i], langs[i],
                    system32_guess ? system32_guess
                                   : "no System32 directory where this "
                                     "layout keeps it holds them",
                    system32_guess ? " holds no perfc009.dat" : "");
        }
        rt_strings_free(langs, n);
        if (rc)
            return -1;
    }
    uint64_t total = 0;
    if (s->files_layout && s->system32) {
        if (check && check_dat_files(s, s->system32, &total, e) != 0)
            return -1;
        if (find_syswow64(s, e) != 0)
            return -1;
        if (check && s->syswow64 &&
            check_dat_files(s, s->syswow64, &total, e) != 0)
            return -1;
        /* Refused before a table is read: sparse tables each under their
         * own cap cost nothing on disk and would add up to gigabytes. */
        if (total > RT_DAT_TOTAL_MAX)
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "%s: the .dat tables of its languages come "
                                "to %llu bytes, more than the %llu MiB a "
                                "tree's tables may be together; nothing was "
                                "read",
                                s->system32, (unsigned long long)total,
                                (unsigned long long)(RT_DAT_TOTAL_MAX >> 20));
    }
    if (s->files_layout)
        snprintf(s->layout, sizeof s->layout,
                 "tables in .dat files: %s/perfcLLL.dat, perfhLLL.dat%s%s",
                 s->system32, s->syswow64 ? " and " : "",
                 s->syswow64 ? s->syswow64 : "");
    else
        snprintf(s->layout, sizeof s->layout,
                 "tables as values of Perflib\\LLL in %s", s->software.path);
    return 0;
}

/* The SOFTWARE hive holds the name database and the SYSTEM hive the
 * control set its Select key names: anything else (a user's NTUSER.DAT
 * given as SOFTWARE, SOFTWARE and SYSTEM swapped) is refused before
 * anything is read or written. Only init creates a Perflib key. */
static int check_hives(struct hive_store *s, struct rt_error *e)
{
    uint32_t key;
    int f = hive_find(&s->software, PERFLIB_PATH, &key, e);
    if (f < 0)
        return -1;
    if (f)
        return rt_error_set(
            e, RT_ERR_BADDB,
            "%s has no key " PERFLIB_PATH ", so it is not a SOFTWARE hive "
            "holding a name database (a user's NTUSER.DAT, another hive, or "
            "SOFTWARE and SYSTEM swapped?); only init creates one. Nothing "
            "was written",
            s->software.path);
    if (find_services(s, e) != 0)
        return -1;
    char cs[32];
    snprintf(cs, sizeof cs, "%.*s", (int)(strchr(s->services, '\\') -
                                          s->services), s->services);
    if ((f = hive_find(&s->system, cs, &key, e)) < 0)
        return -1;
    if (f)
        return rt_error_set(e, RT_ERR_BADDB,
                            "%s has no %s, the control set its "
                            "Select\\Current names. Nothing was written",
                            s->system.path, cs);
    return 0;
}

/* Finds the tables in the hives as loaded; CHECK: and checks that they
 * are all there. */
static int load_layout(struct hive_store *s, int check, struct rt_error *e)
{
    /* Only a config folder's parent is taken for System32: hives given
     * by name elsewhere name their tables with --tables (the folder above
     * an arbitrary one is nothing of the tree's). */
    errno = 0;
    char *config = hive_parent_dir(s->software.path);
    char *guess = config && hive_base_is(config, "config")
                      ? hive_parent_dir(config)
                      : NULL;
    free(config);
    int guessed = guess && is_dir(guess);
    /* Out of memory looking is said as such: never a layout decided as
     * if System32 were not there. */
    if (errno == ENOMEM && !guessed) {
        free(guess);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                            "%s: out of memory", s->software.path);
    }
    int r = find_layout(s, guessed ? guess : NULL, check, e);
    free(guess);
    return r;
}

/* Reads both hives afresh and finds the tables; CHECK: and checks that
 * they are all there (on open and before a commit; not when reading back
 * what a failed commit left). */
int hive_load_all(struct hive_store *s, int check, struct rt_error *e)
{
    hive_file_close(&s->software);
    hive_file_close(&s->system);
    if (hive_file_open(s, &s->software, e) != 0 ||
        hive_file_open(s, &s->system, e) != 0)
        return -1;
    if (check_hives(s, e) != 0)
        return -1;
    return load_layout(s, check, e);
}

/* Like hive_load_all, but keeps the images when neither file changed since
 * they were read: the tables' places are still checked, as .dat files
 * live apart. */
int hive_reload_if_changed(struct hive_store *s, struct rt_error *e)
{
    if (!hive_file_unchanged(&s->software) || !hive_file_unchanged(&s->system))
        return hive_load_all(s, 1, e);
    return load_layout(s, 1, e);
}
