/* Store layer: offline hive files on our regf layer, with the .dat tables
 * of Vista and later, committed atomically through the journal. This file
 * locates the tree and confines it, opens and closes the store, and holds
 * its operations; the rest is in hive_*.c (store/hive_internal.h says
 * which file holds what).
 *
 * Where the tables live (docs/design.md, "Where the tables live"): NT 4 to
 * Server 2003 (and Wine) keep Counter and Help as values of Perflib\LLL.
 * From Vista on, Perflib\009 and Perflib\CurrentLanguage are
 * predefined-handle keys (KEY_PREDEF_HANDLE, HKEY_PERFORMANCE_TEXT /
 * _NLSTEXT) with no values, and what consumers read is served from
 * System32\perfcLLL.dat (names) and perfhLLL.dat (help), in the same
 * REG_MULTI_SZ format; 64-bit systems keep a second copy in SysWOW64, which
 * lodctr /R rebuilds too, so we keep both identical. */
#include "store/hive_internal.h"
#include "model/printable.h"
#include "platform/compat.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit/io.h"

/* One line, escaped (model/printable.h): it names the journal's files
 * and the tree's, which whoever wrote the disk chose. */
void hive_notice(struct hive_store *s, const char *line)
{
    if (!s->opt.notice)
        return;
    if (rt_text_is_printable(line)) {
        s->opt.notice(line);
        return;
    }
    char *shown = rt_text_printable_dup(line);
    s->opt.notice(shown ? shown : "(notice not shown: out of memory)");
    free(shown);
}

static void wait_notice(void *ctx, const char *line)
{
    hive_notice(ctx, line);
}

/* --- paths --------------------------------------------------------------- */

/* DIR/NAME, matching NAME without regard to case (a disk copied from
 * Windows keeps whatever case Windows used). New string or NULL (see
 * hive_ambiguous()). */
char *hive_find_ci(const char *dir, const char *name)
{
    return rt_os_path_ci(dir, name, 1);
}

/* After rt_os_path_ci gave NULL: 1, with E set, when that was a folder
 * holding two names that differ only in case where the path was looked
 * for (Windows sees one name there; which file it would use is not
 * known, so the store refuses the tree, reader or writer); else 0, for
 * the caller to take the file for absent. */
int hive_ambiguous(struct rt_error *e)
{
    if (errno != EEXIST)
        return 0;
    rt_error_set(e, RT_ERR_BADDB, "%s. Nothing was written",
                 rt_os_strerror(EEXIST));
    return 1;
}

char *hive_parent_dir(const char *p)
{
    const char *slash = strrchr(p, '/');
    if (!slash)
        return strdup(".");
    if (slash == p)
        return strdup("/");
    return strndup(p, (size_t)(slash - p));
}

/* The longest common directory of A and B. */
static char *common_dir(const char *a, const char *b)
{
    size_t i = 0, last = 0;
    while (a[i] && a[i] == b[i]) {
        if (a[i] == '/')
            last = i;
        i++;
    }
    if ((!a[i] || a[i] == '/') && (!b[i] || b[i] == '/'))
        last = i;
    return last ? strndup(a, last) : strdup("/");
}

/* PATH relative to BASE (which is a directory prefix of it). */
const char *hive_relative(const char *base, const char *path)
{
    size_t n = strlen(base);
    if (!strcmp(base, "/"))
        return path + 1;
    return path[n] == '/' ? path + n + 1 : path + n;
}

char *hive_absolute(const char *p)
{
    char buf[4096];
    if (rt_os_realpath(p, buf, sizeof buf) == 0)
        return strdup(buf);
    return NULL;
}

int hive_base_is(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    return !strcasecmp(slash ? slash + 1 : path, name);
}

/* --- locating and confining the tree ------------------------------------ */

/* Confines the directory a hive file given by name (PATH) lies in, and
 * returns the file's path on that directory's canonical form (the
 * folders above a config folder are confine_scope's). The file's own name
 * is not resolved: a link there is refused when it is opened. */
static char *confine_named(struct hive_store *s, int which, const char *path,
                           struct rt_error *e)
{
    const char *slash = strrchr(path, '/');
    char *out = *(slash ? slash + 1 : path)
                    ? rt_os_confine_folder_of(path, &s->roots[which])
                    : NULL;
    if (!out && *(slash ? slash + 1 : path) && errno == ENOMEM)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    else if (!out)
        rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s hive %s: %s",
                     which ? "SYSTEM" : "SOFTWARE", path,
                     *(slash ? slash + 1 : path) ? rt_os_strerror(errno)
                                                 : "not a file");
    return out;
}

/* Finds SOFTWARE and SYSTEM from a "DIR" or "SOFTWARE,SYSTEM" spec, after
 * confining the tree they lie in: nothing beneath the directory the user
 * named is looked at before, so no link or ".." there leads out. */
static int locate(struct hive_store *s, const char *spec, struct rt_error *e)
{
    const char *comma = strchr(spec, ',');
    if (comma) {
        char *sw = strndup(spec, (size_t)(comma - spec));
        s->software.path = sw ? confine_named(s, 0, sw, e) : NULL;
        s->system.path = s->software.path ? confine_named(s, 1, comma + 1, e)
                                          : NULL;
        free(sw);
        if (!s->software.path || !s->system.path) {
            if (!e || !e->code)
                rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            return -1;
        }
        /* Which of the two is missing, by its role: the spec's order is
         * easy to get wrong, and a bare path does not say. */
        for (int i = 0; i < 2; i++) {
            const char *p = i ? s->system.path : s->software.path;
            struct rt_os_stat st;
            if (rt_os_stat(p, &st) == 0 && st.kind == RT_OS_ABSENT)
                return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                    "%s: the %s hive %s does not exist "
                                    "(hive:SOFTWARE,SYSTEM names SOFTWARE "
                                    "first)", spec, i ? "SYSTEM" : "SOFTWARE",
                                    p);
        }
        return 0;
    }
    char *root = NULL;
    /* Beneath another machine's disk (its Windows.old), the disk held:
     * a link it holds on the way is refused. */
    if (rt_os_confine_on_disk(spec, &root) != 0)
        return errno == ENOMEM
                   ? rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory")
                   : rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s", spec,
                                  rt_os_strerror(errno));
    s->roots[0] = root;
    static const char *const tries[] = {"Windows/System32/config",
                                        "System32/config", "config", ""};
    char refused[700] = "";   /* a link or ".." on the way, said */
    char half[200] = "";      /* one hive found without the other, said */
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        errno = 0;
        char *dir = *tries[i] ? rt_os_path_ci(root, tries[i], 1) : strdup(root);
        if (!dir && hive_ambiguous(e))
            return -1;
        /* Out of memory is said as such, never taken for no hives. */
        if (!dir && errno == ENOMEM)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "%s: out of memory", spec);
        if (!dir && !*refused && (errno == ELOOP || errno == EXDEV))
            snprintf(refused, sizeof refused, ": %s", rt_os_strerror(errno));
        /* The folder itself may refuse to be listed (a mount point). */
        errno = 0;
        char *sw = dir ? hive_find_ci(dir, "SOFTWARE") : NULL;
        int refuse = dir && !sw && hive_ambiguous(e);
        if (dir && !sw && !refuse && !*refused &&
            (errno == ELOOP || errno == EXDEV))
            snprintf(refused, sizeof refused, ": %s", rt_os_strerror(errno));
        int no_memory = dir && !sw && !refuse && errno == ENOMEM;
        errno = 0;
        char *sy = dir && !refuse && !no_memory ? hive_find_ci(dir, "SYSTEM")
                                                : NULL;
        refuse = refuse || (dir && !sy && !no_memory && hive_ambiguous(e));
        no_memory = no_memory || (dir && !sy && !refuse && errno == ENOMEM);
        free(dir);
        if (no_memory) {
            free(sw);
            free(sy);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "%s: out of memory", spec);
        }
        if (refuse) {
            free(sw);
            free(sy);
            return -1;
        }
        if (sw && sy) {
            s->software.path = hive_absolute(sw);
            s->system.path = hive_absolute(sy);
            if (!s->software.path || !s->system.path)
                rt_error_set(e, errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                                : RT_ERR_FILE_NOT_FOUND,
                             "%s: %s", s->software.path ? sy : sw,
                             rt_os_strerror(errno));
            free(sw);
            free(sy);
            return s->software.path && s->system.path ? 0 : -1;
        }
        if ((sw || sy) && !*half)
            snprintf(half, sizeof half, ": %s is in %s but %s is missing "
                     "there", sw ? "SOFTWARE" : "SYSTEM",
                     *tries[i] ? tries[i] : "the directory itself",
                     sw ? "SYSTEM" : "SOFTWARE");
        free(sw);
        free(sy);
    }
    return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                        "%s: no SOFTWARE and SYSTEM hives found (looked in "
                        "Windows/System32/config, System32/config, config "
                        "and the directory itself)%s%s",
                        spec, half, refused);
}

/* Confines DIR's ancestor LEVELS folders up (stopping short of the file
 * system's root) into slot SLOT, unless it lies beneath a confined folder
 * already. DIR is canonical, so its ancestors are the real ones. */
static int confine_above(struct hive_store *s, const char *dir, int levels,
                         int slot, struct rt_error *e)
{
    char *top = strdup(dir);
    for (int i = 0; i < levels && top; i++) {
        char *up = hive_parent_dir(top);
        if (up && (!strcmp(up, "/") || !strcmp(up, "."))) {
            free(up);
            break;
        }
        free(top);
        top = up;
    }
    if (!top)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int r = 0;
    if (!rt_os_is_confined(top) &&
        rt_os_confine_on_disk(top, &s->roots[slot]) != 0)
        r = errno == ENOMEM
                ? rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory")
                : rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s", top,
                               rt_os_strerror(errno));
    free(top);
    return r;
}

/* Confines every folder the store may read or write, before it reads
 * anything but the hives' names: a config folder's two levels up (its
 * System32 holds the .dat tables, its Windows folder the INF copies,
 * PerfStringBackup.INI and SysWOW64), whatever the user named (the
 * Windows folder, System32, config, or the hives themselves); hives in
 * a folder of another name have only their own folder (confine_named);
 * and --tables DIR with the folder above it (its SysWOW64 copy). */
static int confine_scope(struct hive_store *s, struct rt_error *e)
{
    char *sw = hive_parent_dir(s->software.path);
    int r = !sw ? rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory")
            : hive_base_is(sw, "config") ? confine_above(s, sw, 2, 3, e)
                                    : 0;
    free(sw);
    if (r != 0 || !s->opt.tables_dir)
        return r;
    /* Named on another machine's disk (its Users, say), the folder is
     * resolved beneath that disk, held while the store is open: a link
     * the disk holds on the way is refused, not taken to a host folder. */
    char canon[PATH_MAX], *on_disk = NULL;
    if (rt_os_hold_disk_of(s->opt.tables_dir, &s->roots[4], &on_disk) != 0)
        return rt_error_set(e, errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                               : RT_ERR_BADDB,
                            "--tables %s: %s; nothing was written",
                            s->opt.tables_dir, rt_os_strerror(errno));
    int rp = rt_os_realpath(on_disk ? on_disk : s->opt.tables_dir, canon,
                            sizeof canon);
    free(on_disk);
    if (rp != 0)
        return rt_error_set(e, errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                               : RT_ERR_BADDB,
                            "--tables %s: %s; nothing was written",
                            s->opt.tables_dir, rt_os_strerror(errno));
    if (confine_above(s, canon, 1, 2, e) != 0)
        return -1;
    /* The tables' folder on its canonical form, beneath what is confined. */
    if (!(s->tables_canon = strdup(canon)))
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    s->opt.tables_dir = s->tables_canon;
    return 0;
}

/* --- opening and closing ------------------------------------------------ */

/* The journal and the lock sit beside SOFTWARE; journal paths are
 * relative to the common directory of every file a commit can touch. */
static int find_windows_dir(struct hive_store *s);

static int place_journal(struct hive_store *s)
{
    char *config = hive_parent_dir(s->software.path);
    char *base = common_dir(s->software.path, s->system.path);
    if (!config || !base || find_windows_dir(s) != 0) {
        free(base);
        goto fail;
    }
    /* Side files (INF copies, PerfStringBackup.INI) lie anywhere under
     * the Windows directory. */
    const char *extra[] = {s->system32, s->syswow64,
                           hive_windows_dir(&s->base)};
    for (size_t i = 0; i < 3; i++) {
        if (!extra[i])
            continue;
        char *nb = common_dir(base, extra[i]);
        free(base);
        if (!(base = nb))
            goto fail;
    }
    s->base_dir = base;
    if (asprintf(&s->journal, "%s/" RT_HIVE_JOURNAL_NAME, config) < 0 ||
        asprintf(&s->lock_path, "%s/" RT_HIVE_LOCK_NAME, config) < 0)
        goto fail;
    free(config);
    return 0;
fail:
    free(config);
    return -1;
}

static const struct rt_store_ops hive_ops;

static void hive_close(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    if (!s)
        return;
    hive_file_close(&s->software);
    hive_file_close(&s->system);
    hive_dats_drop(s);
    rt_lock_release(s->lock);
    rt_lock_release(s->shared);
    free(s->software.path);
    free(s->system.path);
    free(s->system32);
    free(s->syswow64);
    free(s->base_dir);
    free(s->windows_dir);
    free(s->tables_canon);
    for (size_t i = 0; i < sizeof s->roots / sizeof *s->roots; i++) {
        rt_os_unconfine(s->roots[i]);
        free(s->roots[i]);
    }
    free(s->journal);
    free(s->journal_line);
    free(s->lock_path);
    free(s);
}

static const char *hive_journal_state(struct rt_store *st, int *kind)
{
    struct hive_store *s = hs(st);
    *kind = s->journal_kind;
    return s->journal_line;
}

struct rt_store *rt_store_hive_open(const char *spec,
                                    const struct rt_hive_options *opt,
                                    struct rt_diags *d, struct rt_error *e)
{
    struct hive_store *s = calloc(1, sizeof *s);
    if (!s) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        return NULL;
    }
    s->base.ops = &hive_ops;
    if (opt)
        s->opt = *opt;
    s->wait.seconds = s->opt.wait_seconds;
    s->wait.notice = wait_notice;
    s->wait.ctx = s;
    s->diags = d;
    if (locate(s, spec, e) != 0 || confine_scope(s, e) != 0)
        goto fail;
    /* Opening writes nothing (no lock file, no journal, no recovery): the
     * layout decides which files a journal may name, so load once to find
     * it, then take a reader's lock where one can be taken, and say what
     * an unfinished commit would change: the files are read as they are,
     * never as a journal would leave them. A writer recovers in begin(). */
    if (hive_load_all(s, 0, e) != 0 || place_journal(s) != 0)
        goto fail;
    if (rt_lock_acquire_shared(s->lock_path, &s->wait, &s->shared, e) != 0)
        goto fail;
    hive_say_pending_journal(s);
    /* The first read came before the lock: read again only if a writer
     * changed the files meanwhile. */
    if (hive_reload_if_changed(s, e) != 0)
        goto fail;
    /* Warnings belong to the open; later reloads would only repeat them. */
    s->diags = NULL;
    return &s->base;
fail:
    if (!e || !e->code)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s: out of memory", spec);
    hive_close(&s->base);
    return NULL;
}

void rt_store_hive_fail_after(struct rt_store *s, size_t k)
{
    hs(s)->fail_after = k;
}

void rt_store_hive_stats(struct rt_io_stats *out)
{
    *out = rt_io_totals;
}

static const char *hive_layout(struct rt_store *st)
{
    return hs(st)->layout;
}

static int hive_tables_in_files(struct rt_store *st)
{
    return hs(st)->files_layout;
}

/* The Windows directory holding System32/config/SOFTWARE, found once
 * (place_journal, at the opening, which fails out of memory; every later
 * call allocates nothing): a tree given by its root, its Windows
 * directory or its config directory all end there; hive files given by
 * name count only when they sit in such a config directory. 0, or -1
 * out of memory (not found yet: never a tree taken for one without a
 * Windows directory). */
static int find_windows_dir(struct hive_store *s)
{
    if (s->windows_dir)
        return 0;
    char *config = hive_parent_dir(s->software.path), *sys32 = NULL;
    char *win = NULL;
    int oom = !config;
    if (!oom && hive_base_is(config, "config"))
        oom = !(sys32 = hive_parent_dir(config));
    if (!oom && sys32 && hive_base_is(sys32, "System32"))
        oom = !(win = hive_parent_dir(sys32));
    if (!oom && !win)
        oom = !(win = strdup(""));
    free(config);
    free(sys32);
    if (oom) {
        errno = ENOMEM;
        return -1;
    }
    s->windows_dir = win;
    return 0;
}

const char *hive_windows_dir(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    if (find_windows_dir(s) != 0)
        return NULL;
    return *s->windows_dir ? s->windows_dir : NULL;
}

/* Tables as registry values are spliced in place (rt_regf_value_splice),
 * .dat files from their first edit on (commit_dat_splice). */
static int hive_splices(struct rt_store *st)
{
    (void)st;
    return 1;
}

/* PerfStringBackup.INI's bytes where the tree has it (*PRESENT), which
 * every change rewrites whole into its journal. Not found (or not looked
 * for, out of memory): absent. */
static uint64_t psb_bytes(struct rt_store *st, int *present)
{
    const char *win = hive_windows_dir(st);
    *present = 0;
    if (!win)
        return 0;
    char *p = rt_os_path_ci(win, "System32/PerfStringBackup.INI", 0);
    struct rt_os_stat fst;
    if (p && rt_os_stat(p, &fst) == 0 && fst.kind == RT_OS_FILE)
        *present = 1;
    free(p);
    return *present ? fst.size : 0;
}

/* The journal's cap, less PerfStringBackup.INI's bytes, over the copies
 * a table change is written to: a commit writes each changed table's new
 * bytes at least once in each (a value's cells; System32's .dat file and
 * SysWOW64's; PerfStringBackup.INI, its text at least as long:
 * size_caps.h), so a change whose new pairs come to more would be
 * refused at its commit (review 37 F3: a tree with a 300 MB
 * PerfStringBackup.INI passed its dry run and was refused by its
 * commit). What else a commit rewrites whole (the tables after a range
 * taken out below the top) is checked by its dry run (check_apply). */
static uint64_t hive_change_max(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    uint64_t max = hive_journal_scope(s).max_bytes;
    int psb;
    uint64_t psb_len = psb_bytes(st, &psb);
    unsigned copies = 1 + (s->files_layout && s->syswow64) + (psb != 0);
    return (max > psb_len ? max - psb_len : 0) / copies;
}

static const struct rt_store_ops hive_ops = {
    .kind = "hive",
    .journal_state = hive_journal_state,
    .begin = hive_begin,
    .end = hive_end,
    .list_languages = hive_list_languages,
    .read_table = hive_read_table,
    .read_perflib = hive_read_perflib,
    .list_perf_services = hive_list_perf_services,
    .service_state = hive_service_state,
    .read_service = hive_read_service,
    .key_anomalies = hive_key_anomalies,
    .read_table_from = hive_read_table_from,
    .read_table_pieces = hive_read_table_pieces,
    .apply = hive_apply,
    .check_apply = hive_check_apply,
    .splices = hive_splices,
    .layout = hive_layout,
    .tables_in_files = hive_tables_in_files,
    .change_max = hive_change_max,
    .own_file = hive_own_file,
    .close = hive_close,
    .windows_dir = hive_windows_dir,
    .read_machine = hive_read_machine,
    .has_win_files = hive_has_win_files,
    .read_win_file = hive_read_win_file,
    .read_table_copy = hive_read_table_copy,
};
