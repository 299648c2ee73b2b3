/* Store layer: offline hive files on our regf layer, with the .dat tables
 * of Vista and later, committed atomically through the journal.
 *
 * Where the tables live (docs/design.md, "Where the tables live"): NT 4 to
 * Server 2003 (and Wine) keep Counter and Help as values of Perflib\LLL.
 * From Vista on, Perflib\009 and Perflib\CurrentLanguage are
 * predefined-handle keys (KEY_PREDEF_HANDLE, HKEY_PERFORMANCE_TEXT /
 * _NLSTEXT) with no values, and what consumers read is served from
 * System32\perfcLLL.dat (names) and perfhLLL.dat (help), in the same
 * REG_MULTI_SZ format; 64-bit systems keep a second copy in SysWOW64, which
 * lodctr /R rebuilds too, so we keep both identical. */
#include "store/store_hive.h"
#include "model/lang_id.h"
#include "model/printable.h"
#include "model/size_caps.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "commit/io.h"
#include "commit/journal.h"
#include "regf/base_block.h"
#include "regf/log.h"
#include "regf/regf.h"

#define PERFLIB_PATH "Microsoft\\Windows NT\\CurrentVersion\\Perflib"

struct hive_file {
    char *path;
    struct rt_regf *h;
    int replayed;          /* the image came from its logs */
    uint64_t file_end;     /* size of the file as opened */
    uint64_t bins_end;     /* end of the hive bins as opened: what the
                              file's base block covers */
    int dirty_unusable;    /* dirty, no usable logs, not forced */
    char dirty_why[300];   /* why its logs cannot be replayed */
    /* The file as the image was read from it (or as our last commit left
     * it): its identity, size and time, and its base block. Every commit
     * writes a new base block (new sequence numbers), and ours write it
     * last, so a file whose base block, size and time are still these
     * holds what the image holds: begin() and a second look at open keep
     * the image instead of reading 80 MB again. */
    int seen_valid;
    struct rt_os_stat seen;
    uint8_t seen_base[REGF_BASE_BLOCK_SIZE];
};

/* A .dat table as read_table read it: mapped, with the file's identity
 * and time when it was mapped. The engine reads each table several times
 * in one install (to load, to check the change, to verify it), and the
 * commit needs the old bytes to write only what differs: all served from
 * this one view instead of reading the file again. */
struct dat_seen {
    char *path;
    struct rt_os_stat st;
    struct rt_os_map map;
    size_t next;        /* the next in its bucket (dats_by_path), + 1; 0 */
};

struct hive_store {
    struct rt_store base;
    struct rt_hive_options opt;
    struct hive_file software, system;
    char *system32;        /* holds perfcLLL.dat, NULL in registry layout */
    char *syswow64;        /* second copy of the .dat tables, or NULL */
    int files_layout;
    char *base_dir, *journal, *lock_path;
    char *windows_dir;     /* the tree's Windows directory, or NULL */
    /* The directories confined (rt_os_confine) for this store: every path
     * beneath them is resolved without following links or "..". */
    char *roots[4];
    char *tables_canon;    /* --tables DIR, canonical */
    struct rt_lock *lock;          /* the writer's, between begin and end */
    struct rt_lock *shared;        /* a reader's, from open to begin/close */
    char services[64];     /* "ControlSet001\\Services" */
    char layout[PATH_MAX + 128];
    size_t fail_after;
    struct rt_lock_wait wait;
    struct rt_diags *diags;
    /* The .dat tables read_table read, kept mapped (read_dat), found by
     * path through DAT_BUCKETS (each an index of DATS + 1, 0 for none):
     * a tree has thousands of tables, each looked for several times. */
    struct dat_seen *dats;
    size_t n_dats, cap_dats;
    size_t *dat_buckets, n_dat_buckets;
    uint64_t dats_held;    /* the bytes of their maps together */
};

static int same_file_state(const struct rt_os_stat *a,
                           const struct rt_os_stat *b)
{
    return a->kind == b->kind && a->size == b->size && a->dev == b->dev &&
           a->ino == b->ino && a->mtime_ns == b->mtime_ns;
}

static void dats_drop(struct hive_store *s)
{
    for (size_t i = 0; i < s->n_dats; i++) {
        rt_os_unmap_file(&s->dats[i].map);
        free(s->dats[i].path);
    }
    free(s->dats);
    s->dats = NULL;
    s->n_dats = s->cap_dats = 0;
    free(s->dat_buckets);
    s->dat_buckets = NULL;
    s->n_dat_buckets = 0;
    s->dats_held = 0;
}

static struct hive_store *hs(struct rt_store *s)
{
    return (struct hive_store *)s;
}

/* One line, escaped (model/printable.h): it names the journal's files
 * and the tree's, which whoever wrote the disk chose. */
static void notice(struct hive_store *s, const char *line)
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
    notice(ctx, line);
}

static void say_pending_journal(struct hive_store *s);

/* --- paths --------------------------------------------------------------- */

static int base_is(const char *path, const char *name);

/* DIR/NAME, matching NAME without regard to case (a disk copied from
 * Windows keeps whatever case Windows used). New string or NULL (see
 * ambiguous()). */
static char *find_ci(const char *dir, const char *name)
{
    return rt_os_path_ci(dir, name, 1);
}

/* After rt_os_path_ci gave NULL: 1, with E set, when that was a folder
 * holding two names that differ only in case where the path was looked
 * for (Windows sees one name there; which file it would use is not
 * known, so the store refuses the tree, reader or writer); else 0, for
 * the caller to take the file for absent. */
static int ambiguous(struct rt_error *e)
{
    if (errno != EEXIST)
        return 0;
    rt_error_set(e, RT_ERR_BADDB, "%s. Nothing was written",
                 rt_os_strerror(EEXIST));
    return 1;
}

static int is_dir(const char *p)
{
    return rt_os_is_dir(p);
}

static char *parent_dir(const char *p)
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
static const char *relative(const char *base, const char *path)
{
    size_t n = strlen(base);
    if (!strcmp(base, "/"))
        return path + 1;
    return path[n] == '/' ? path + n + 1 : path + n;
}

static char *absolute(const char *p)
{
    char buf[4096];
    if (rt_os_realpath(p, buf, sizeof buf) == 0)
        return strdup(buf);
    return NULL;
}

/* --- opening ------------------------------------------------------------- */

static void close_hive(struct hive_file *hf)
{
    rt_regf_close(hf->h);
    hf->h = NULL;
    hf->replayed = hf->dirty_unusable = hf->seen_valid = 0;
}

/* Whether HF's file still holds what its image came from: same file,
 * size and modification time, and the same base block. */
static int hive_unchanged(const struct hive_file *hf)
{
    struct rt_os_stat st;
    uint8_t base[REGF_BASE_BLOCK_SIZE];
    if (!hf->h || !hf->seen_valid || rt_os_stat(hf->path, &st) != 0 ||
        st.kind != RT_OS_FILE || st.size != hf->seen.size ||
        st.dev != hf->seen.dev || st.ino != hf->seen.ino ||
        st.mtime_ns != hf->seen.mtime_ns)
        return 0;
    int fd = rt_os_open(hf->path, RT_OS_READ);
    if (fd < 0)
        return 0;
    long long got = rt_os_pread(fd, base, sizeof base, 0);
    rt_os_close(fd);
    return got == (long long)sizeof base &&
           !memcmp(base, hf->seen_base, sizeof base);
}

/* After our commit: the file holds the image, sealed, as it is now. */
static void hive_committed(struct hive_file *hf)
{
    const uint8_t *img;
    size_t len;
    rt_regf_changes_clear(hf->h);
    rt_regf_image(hf->h, &img, &len);
    hf->bins_end = len;
    hf->file_end = len;
    hf->replayed = 0;
    memcpy(hf->seen_base, img, sizeof hf->seen_base);
    hf->seen_valid = rt_os_stat(hf->path, &hf->seen) == 0 &&
                     hf->seen.kind == RT_OS_FILE && hf->seen.size == len;
}

/* Reads the base block of PATH into BASE (REGF_BASE_BLOCK_SIZE bytes). */
static int is_dirty_file(const char *path, uint8_t *base, int *dirty,
                         struct rt_error *e)
{
    int fd = rt_os_open(path, RT_OS_READ);
    /* A folder, FIFO, device or link where a hive should be: the store is
     * not what it claims (exit 2), as for a file that is no hive. */
    if (fd < 0 && errno == EISDIR)
        return rt_error_set(e, RT_ERR_BADDB, "%s: not a registry hive file",
                            path);
    if (fd < 0)
        return rt_error_set(e,
                            errno == ENODEV || errno == ELOOP || errno == EXDEV
                                ? RT_ERR_BADDB
                                : RT_ERR_FILE_NOT_FOUND,
                            "%s: %s", path, rt_os_strerror(errno));
    long long got = rt_os_pread(fd, base, REGF_BASE_BLOCK_SIZE, 0);
    rt_os_close(fd);
    if (got != (long long)REGF_BASE_BLOCK_SIZE || memcmp(base, "regf", 4) != 0)
        return rt_error_set(e, RT_ERR_BADDB, "%s: not a registry hive file",
                            path);
    *dirty = regf_base_is_dirty(base);
    return 0;
}

/* A hive that does not open: the reader's structural messages ("file
 * offset 0x1000: hive bin signature is not 'hbin'") do not say which of
 * the store's hives they are about, its I/O messages do: the path is
 * added where it is missing. */
static int hive_open_error(struct rt_error *e, const char *path,
                           const char *err)
{
    size_t n = strlen(path);
    if (!strncmp(err, path, n) && err[n] == ':')
        return rt_error_set(e, RT_ERR_BADDB, "%s", err);
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s", path, err);
}

/* Opens a hive following the writing policy: a dirty hive with usable
 * logs is replayed (and later written whole, its originals backed up); a
 * dirty hive without them is read with a warning and never written
 * unless --force-dirty. */
static int open_hive_image(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e);

/* Windows grows a hive file in steps of a few hundred KB, so real files
 * run past their bins by that much (442,368 bytes in the samples). Far
 * more than that is no file Windows wrote: a base block whose bins size
 * is too small, or a hive padded with gigabytes of sparse zeros. A
 * commit writes the file up to its bins and cuts the rest, so such a
 * file is read (as far as the bins) but never written. */
#define HIVE_SLACK_MAX (16u << 20)

static int open_hive(struct hive_store *s, struct hive_file *hf,
                     struct rt_error *e)
{
    int r = open_hive_image(s, hf, e);
    if (r == 0) {
        struct rt_regf_info info;
        rt_regf_get_info(hf->h, &info);
        hf->bins_end = (uint64_t)REGF_BASE_BLOCK_SIZE + info.hbins_size;
        if (!hf->replayed || hf->file_end < info.file_size)
            hf->file_end = info.file_size;
        if (hf->file_end > hf->bins_end + HIVE_SLACK_MAX && s->diags)
            rt_diags_add(s->diags, RT_WARNING, hf->path, 0, NULL,
                         "the file runs %llu bytes past the hive bins its "
                         "base block covers (%llu bytes); read as far as "
                         "the bins, and it will not be written",
                         (unsigned long long)(hf->file_end - hf->bins_end),
                         (unsigned long long)hf->bins_end);
    }
    return r;
}

static unsigned once(const struct hive_store *s)
{
    return s->opt.read_once ? RT_REGF_READ_ONCE : 0;
}

static int open_hive_image(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e)
{
    char err[512] = "";
    int dirty = 0;
    /* Looked at before reading: a write after this point changes what
     * hive_unchanged() sees. */
    hf->seen_valid = rt_os_stat(hf->path, &hf->seen) == 0 &&
                     hf->seen.kind == RT_OS_FILE;
    if (is_dirty_file(hf->path, hf->seen_base, &dirty, e) != 0)
        return -1;
    if (!dirty) {
        if (rt_regf_open(hf->path, RT_REGF_WRITE | once(s), &hf->h, err,
                         sizeof err))
            return hive_open_error(e, hf->path, err);
        /* The base block the image was built from (the file may have
         * changed between the two reads; then they differ and the next
         * look reads it again). */
        const uint8_t *img;
        size_t len;
        rt_regf_image(hf->h, &img, &len);
        memcpy(hf->seen_base, img, sizeof hf->seen_base);
        return 0;
    }
    uint8_t *img = NULL;
    size_t len = 0;
    struct rt_regf_replay_report rep;
    int r = rt_regf_replay_file(hf->path, &img, &len, &rep);
    if (r == 0 && rep.status == RT_REGF_REPLAY_APPLIED) {
        r = rt_regf_open_memory(img, len, RT_REGF_WRITE, &hf->h, err,
                                sizeof err);
        free(img);
        rt_regf_replay_report_free(&rep);
        if (r)
            return rt_error_set(e, RT_ERR_BADDB, "%s (after log replay): %s",
                                hf->path, err);
        hf->replayed = 1;
        /* The replay read the bins only of a file running far past them:
         * the file's own size says so (open_hive). */
        hf->file_end = rep.primary_file_size;
        return 0;
    }
    free(img);
    char why[300];
    snprintf(why, sizeof why, "%s", rep.message);
    rt_regf_replay_report_free(&rep);
    unsigned flags = (s->opt.force_dirty ? RT_REGF_WRITE | RT_REGF_FORCE : 0) |
                     once(s);
    if (rt_regf_open(hf->path, flags, &hf->h, err, sizeof err))
        return hive_open_error(e, hf->path, err);
    if (!s->opt.force_dirty) {
        hf->dirty_unusable = 1;
        snprintf(hf->dirty_why, sizeof hf->dirty_why, "%s",
                 *why ? why : "no logs");
        if (s->diags)
            rt_diags_add(s->diags, RT_WARNING, hf->path, 0, NULL,
                         "hive is dirty and its logs cannot be replayed (%s); "
                         "read as it is, and it will not be written unless "
                         "--force-dirty is given",
                         *why ? why : "no logs");
    }
    return 0;
}

static int lookup(struct rt_regf *h, const char *path, uint32_t *key)
{
    return rt_regf_lookup(h, rt_regf_root(h), path, key);
}

static int read_dword(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t *out)
{
    uint32_t type;
    uint8_t *data = NULL;
    size_t len = 0;
    if (rt_regf_get_value(h, key, name, &type, &data, &len) != 0)
        return -1;
    int ok = type == RT_REG_DWORD && len == 4;
    if (ok)
        *out = regf_le32(data);
    free(data);
    return ok ? 0 : -1;
}

/* CurrentControlSet does not exist offline: it is ControlSetNNN with NNN
 * from Select\Current (docs/design.md, "The provider's service key"). */
static int find_services(struct hive_store *s, struct rt_error *e)
{
    uint32_t sel, current;
    if (lookup(s->system.h, "Select", &sel) != 0 ||
        read_dword(s->system.h, sel, "Current", &current) != 0)
        return rt_error_set(e, RT_ERR_BADDB,
                            "%s has no Select\\Current, so it is not a "
                            "SYSTEM hive (or its current control set is "
                            "unknown). Nothing was written",
                            s->system.path);
    snprintf(s->services, sizeof s->services, "ControlSet%03u\\Services",
             current);
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
    if (lookup(s->software.h, path, &k) != 0 ||
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
static int dat_languages(struct hive_store *s, char ***langs, size_t *n,
                         struct rt_error *e);

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
            char *p = find_ci(dir, name);
            struct rt_os_stat st;
            if (!p && ambiguous(e))
                rc = -1;
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
        s->system32 = absolute(s->opt.tables_dir);
        if (!s->system32 || !is_dir(s->system32))
            return rt_error_set(e, RT_ERR_BADDB,
                                "--tables %s: %s; nothing was written",
                                s->opt.tables_dir,
                                s->system32 ? "not a directory"
                                            : rt_os_strerror(errno));
        s->files_layout = 1;
    } else if (system32_guess && (predefined || !has_tables)) {
        char *dat = find_ci(system32_guess, "perfc009.dat");
        if (!dat && ambiguous(e))
            return -1;
        if (dat) {
            s->system32 = strdup(system32_guess);
            s->files_layout = 1;
        }
        free(dat);
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
                    "tables are in perfc%s.dat and perfh%s.dat, but %s%s "
                    "holds no perfc009.dat; name the directory that holds "
                    "them with --tables DIR. Nothing was written",
                    s->software.path, langs[i], langs[i], langs[i],
                    system32_guess ? system32_guess
                                   : "there is no System32 directory beside "
                                     "the hives that",
                    system32_guess ? "" : "");
        }
        rt_strings_free(langs, n);
        if (rc)
            return -1;
    }
    uint64_t total = 0;
    if (s->files_layout && s->system32) {
        if (check && check_dat_files(s, s->system32, &total, e) != 0)
            return -1;
        char *windows = parent_dir(s->system32);
        char *wow = windows ? find_ci(windows, "SysWOW64") : NULL;
        int refused = windows && !wow && ambiguous(e);
        /* SysWOW64 holds a copy when it has either table of English: one
         * of the two alone is a copy damaged, refused by check_dat_files
         * below, not a directory to leave out of every commit (which
         * would let the copies drift apart). */
        char *wdat = wow ? find_ci(wow, "perfc009.dat") : NULL;
        refused = refused || (wow && !wdat && ambiguous(e));
        if (wow && !wdat && !refused)
            wdat = find_ci(wow, "perfh009.dat");
        refused = refused || (wow && !wdat && ambiguous(e));
        if (refused) {
            free(wow);
            free(windows);
            return -1;
        }
        if (wdat)
            s->syswow64 = wow;
        else
            free(wow);
        free(wdat);
        free(windows);
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
    if (lookup(s->software.h, PERFLIB_PATH, &key) != 0)
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
    if (lookup(s->system.h, cs, &key) != 0)
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
    char *config = parent_dir(s->software.path);
    char *guess = config && base_is(config, "config") ? parent_dir(config)
                                                      : NULL;
    free(config);
    int r = find_layout(s, is_dir(guess) ? guess : NULL, check, e);
    free(guess);
    return r;
}

/* Reads both hives afresh and finds the tables; CHECK: and checks that
 * they are all there (on open and before a commit; not when reading back
 * what a failed commit left). */
static int load_all(struct hive_store *s, int check, struct rt_error *e)
{
    close_hive(&s->software);
    close_hive(&s->system);
    if (open_hive(s, &s->software, e) != 0 || open_hive(s, &s->system, e) != 0)
        return -1;
    if (check_hives(s, e) != 0)
        return -1;
    return load_layout(s, check, e);
}

/* Like load_all, but keeps the images when neither file changed since
 * they were read: the tables' places are still checked, as .dat files
 * live apart. */
static int reload_if_changed(struct hive_store *s, struct rt_error *e)
{
    if (!hive_unchanged(&s->software) || !hive_unchanged(&s->system))
        return load_all(s, 1, e);
    return load_layout(s, 1, e);
}

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
    if (!out)
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
    if (rt_os_confine(spec, &root) != 0)
        return rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s", spec,
                            rt_os_strerror(errno));
    s->roots[0] = root;
    static const char *const tries[] = {"Windows/System32/config",
                                        "System32/config", "config", ""};
    char refused[700] = "";   /* a link or ".." on the way, said */
    char half[200] = "";      /* one hive found without the other, said */
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        errno = 0;
        char *dir = *tries[i] ? rt_os_path_ci(root, tries[i], 1) : strdup(root);
        if (!dir && ambiguous(e))
            return -1;
        if (!dir && !*refused && (errno == ELOOP || errno == EXDEV))
            snprintf(refused, sizeof refused, ": %s", rt_os_strerror(errno));
        /* The folder itself may refuse to be listed (a mount point). */
        errno = 0;
        char *sw = dir ? find_ci(dir, "SOFTWARE") : NULL;
        int refuse = dir && !sw && ambiguous(e);
        if (dir && !sw && !refuse && !*refused &&
            (errno == ELOOP || errno == EXDEV))
            snprintf(refused, sizeof refused, ": %s", rt_os_strerror(errno));
        char *sy = dir && !refuse ? find_ci(dir, "SYSTEM") : NULL;
        refuse = refuse || (dir && !sy && ambiguous(e));
        free(dir);
        if (refuse) {
            free(sw);
            free(sy);
            return -1;
        }
        if (sw && sy) {
            s->software.path = absolute(sw);
            s->system.path = absolute(sy);
            if (!s->software.path || !s->system.path)
                rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s",
                             s->software.path ? sy : sw,
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
        char *up = parent_dir(top);
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
    if (!rt_os_is_confined(top) && rt_os_confine(top, &s->roots[slot]) != 0)
        r = rt_error_set(e, RT_ERR_FILE_NOT_FOUND, "%s: %s", top,
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
    char *sw = parent_dir(s->software.path);
    int r = !sw ? rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory")
            : base_is(sw, "config") ? confine_above(s, sw, 2, 3, e)
                                    : 0;
    free(sw);
    if (r != 0 || !s->opt.tables_dir)
        return r;
    char canon[PATH_MAX];
    if (rt_os_realpath(s->opt.tables_dir, canon, sizeof canon) != 0)
        return rt_error_set(e, RT_ERR_BADDB, "--tables %s: %s; nothing was "
                            "written", s->opt.tables_dir,
                            rt_os_strerror(errno));
    if (confine_above(s, canon, 1, 2, e) != 0)
        return -1;
    /* The tables' folder on its canonical form, beneath what is confined. */
    if (!(s->tables_canon = strdup(canon)))
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    s->opt.tables_dir = s->tables_canon;
    return 0;
}

static const char *hive_windows_dir(struct rt_store *st);

/* The journal and the lock sit beside SOFTWARE; journal paths are
 * relative to the common directory of every file a commit can touch. */
static int place_journal(struct hive_store *s)
{
    char *config = parent_dir(s->software.path);
    char *base = common_dir(s->software.path, s->system.path);
    if (!config || !base)
        goto fail;
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
    if (asprintf(&s->journal, "%s/regtool.journal", config) < 0 ||
        asprintf(&s->lock_path, "%s/regtool.lock", config) < 0)
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
    close_hive(&s->software);
    close_hive(&s->system);
    dats_drop(s);
    rt_lock_release(s->lock);
    rt_lock_release(s->shared);
    free(s->software.path);
    free(s->system.path);
    free(s->system32);
    free(s->syswow64);
    free(s->base_dir);
    free(s->windows_dir);
    free(s->tables_canon);
    for (size_t i = 0; i < 4; i++) {
        rt_os_unconfine(s->roots[i]);
        free(s->roots[i]);
    }
    free(s->journal);
    free(s->lock_path);
    free(s);
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
    if (load_all(s, 0, e) != 0 || place_journal(s) != 0)
        goto fail;
    if (rt_lock_acquire_shared(s->lock_path, &s->wait, &s->shared, e) != 0)
        goto fail;
    say_pending_journal(s);
    /* The first read came before the lock: read again only if a writer
     * changed the files meanwhile. */
    if (reload_if_changed(s, e) != 0)
        goto fail;
    /* Warnings belong to the open; later reloads would only repeat them. */
    s->diags = NULL;
    return &s->base;
fail:
    if (!e || !e->code)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s: cannot open", spec);
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

/* --- the journal: what it may name, what it does -------------------------- */

/* The backup of the database Windows rewrites after every change, as the
 * engine's side files name it (engine/side_files.h, RT_PSB_REL). */
#define PSB_IN_WINDOWS "System32/PerfStringBackup.INI"

/* Whether NAME is a .dat table's: perfcLLL.dat or perfhLLL.dat, LLL three
 * or four hex digits (a language key's id). */
static int is_table_name(const char *name)
{
    size_t n = strlen(name);
    if ((n != 12 && n != 13) || strncasecmp(name, "perf", 4) != 0 ||
        (name[4] != 'c' && name[4] != 'C' && name[4] != 'h' &&
         name[4] != 'H') ||
        strcasecmp(name + n - 4, ".dat") != 0)
        return 0;
    for (size_t i = 5; i < n - 4; i++)
        if (!strchr("0123456789abcdefABCDEF", name[i]))
            return 0;
    return 1;
}

/* Whether REST, a path inside the Windows directory, is a side file the
 * engine keeps: PerfStringBackup.INI, or a file of an INF copy,
 * INF/<service>/<LLLL>/<name> (engine/side_files.c, rt_inf_path). Names
 * of a disk copied from Windows keep whatever case it used. */
static int is_side_file(const char *rest)
{
    if (!strcasecmp(rest, PSB_IN_WINDOWS))
        return 1;
    const char *p[4];
    size_t len[4], n = 0;
    for (const char *q = rest; n < 4; n++) {
        const char *slash = strchr(q, '/');
        p[n] = q;
        len[n] = slash ? (size_t)(slash - q) : strlen(q);
        if (!slash) {
            n++;
            break;
        }
        q = slash + 1;
        if (n == 3)
            return 0;       /* a fifth part */
    }
    if (n != 4 || len[0] != 3 || strncasecmp(p[0], "INF", 3) != 0 ||
        len[2] != 4)
        return 0;
    for (size_t i = 0; i < 4; i++)
        if (!strchr("0123456789abcdefABCDEF", p[2][i]))
            return 0;
    return 1;
}

/* The journal's scope (rt_journal_scope): REL, relative to the base
 * directory, is a file this store's commits write: one of the two hives,
 * a .dat table in the tables' directory or SysWOW64's copy, or a side
 * file under the Windows directory. */
static int is_store_file(void *ctx, const char *rel)
{
    struct hive_store *s = ctx;
    char *full = NULL;
    if (asprintf(&full, "%s/%s", strcmp(s->base_dir, "/") ? s->base_dir : "",
                 rel) < 0)
        return 0;
    int ok = !strcmp(full, s->software.path) || !strcmp(full, s->system.path);
    const char *slash = strrchr(full, '/');
    size_t dl = (size_t)(slash - full);
    const char *dirs[2] = {s->system32, s->syswow64};
    for (int i = 0; i < 2 && !ok; i++)
        ok = dirs[i] && strlen(dirs[i]) == dl &&
             !strncmp(full, dirs[i], dl) && is_table_name(slash + 1);
    const char *win = hive_windows_dir(&s->base);
    size_t wl = win ? strlen(win) : 0;
    if (!ok && win && !strncmp(full, win, wl) && full[wl] == '/')
        ok = is_side_file(full + wl + 1);
    free(full);
    return ok;
}

/* No commit's journal holds more than twice the hives' bytes (each
 * changed page of a hive once, the tables at most whole, which in the
 * registry layout lie inside SOFTWARE) plus 256 MB (the .dat tables and
 * the side files: an INF copy's INI and symbol file are read up to 16 MB
 * each). A file larger than that is not read at all. */
#define JOURNAL_SLACK ((uint64_t)256 << 20)

static struct rt_journal_scope journal_scope(struct hive_store *s)
{
    struct rt_journal_scope scope = {
        is_store_file, s,
        2 * (s->software.file_end + s->system.file_end) + JOURNAL_SLACK};
    return scope;
}

/* "the files ..." in BUF: each file J changes, relative to the base, with
 * its bytes; cut short with "and N more" where BUF ends. */
static void list_journal_files(const struct rt_journal *j, char *buf,
                               size_t size)
{
    const struct rt_journal_file *f;
    size_t n = rt_journal_files(j, &f), used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        char one[RT_JOURNAL_NAME_MAX + 64];
        if (f[i].removed)
            snprintf(one, sizeof one, "%s (removed)", f[i].rel);
        else
            snprintf(one, sizeof one, "%s (%llu bytes)", f[i].rel,
                     (unsigned long long)f[i].bytes);
        size_t need = strlen(one) + 2;
        if (used + need + 32 > size) {
            snprintf(buf + used, size - used, "%sand %zu more",
                     used ? ", " : "", n - i);
            return;
        }
        used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                 used ? ", " : "", one);
    }
}

/* A reader's one line about a journal it finds: a reader never acts on
 * it, and reads the files as they are (a journal's after-image would let
 * whoever wrote the disk show any state it likes, an audit's included),
 * saying what is pending and which files it would change. */
static void say_pending_journal(struct hive_store *s)
{
    struct rt_journal *j = NULL;
    struct rt_error e = {0};
    struct rt_journal_scope scope = journal_scope(s);
    int found = rt_journal_load(s->journal, &scope, &j, &e);
    char line[6 * PATH_MAX];
    if (found < 0) {
        snprintf(line, sizeof line, "%s (the files are read as they are)",
                 e.message);
        notice(s, line);
        return;
    }
    if (!found)
        return;
    char what[400], need[PATH_MAX + 200], files[3 * PATH_MAX];
    rt_journal_describe(rt_journal_about(j), what, sizeof what);
    if (rt_journal_about(j)->sealed) {
        rt_journal_needs(j, s->base_dir, need, sizeof need);
        list_journal_files(j, files, sizeof files);
        snprintf(line, sizeof line,
                 "%s: %s is not yet in the files, which are read as they "
                 "are (part-way through it, if a crash stopped it there); "
                 "it would change %s in %s; %s",
                 s->journal, what, files, s->base_dir,
                 *need ? need : "the next install, uninstall, enable or "
                                "disable finishes it");
    } else {
        snprintf(line, sizeof line,
                 "%s: %s never reached its commit point: nothing of it "
                 "counts, and the next writer discards it",
                 s->journal, what);
    }
    rt_journal_free(j);
    notice(s, line);
}

/* BASE_DIR/REL, for the user. */
static void shown_path(const struct hive_store *s, const char *rel,
                       char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", strcmp(s->base_dir, "/") ? s->base_dir : "",
             rel);
}

/* A writer finishes the checked journal J: first it says what it writes
 * (each file and its bytes), then does it and says so. */
static int finish_journal(struct hive_store *s, struct rt_journal *j,
                          struct rt_error *e)
{
    const struct rt_journal_info *ji = rt_journal_about(j);
    const struct rt_journal_file *f;
    size_t n = rt_journal_files(j, &f);
    char what[400], line[2 * PATH_MAX + 600], path[2 * PATH_MAX];
    rt_journal_describe(ji, what, sizeof what);
    if (n) {
        snprintf(line, sizeof line,
                 ji->sealed ? "%s: finishing %s, which changes %zu file%s:"
                            : "%s: discarding %s, which never reached its "
                              "commit point: its fresh bytes are cut from "
                              "%zu file%s:",
                 s->journal, what, n, n == 1 ? "" : "s");
        notice(s, line);
    }
    for (size_t i = 0; i < n; i++) {
        shown_path(s, f[i].rel, path, sizeof path);
        if (!ji->sealed)
            snprintf(line, sizeof line, "  %s: cut back to %llu bytes", path,
                     (unsigned long long)f[i].size);
        else if (f[i].removed)
            snprintf(line, sizeof line, "  %s: removed", path);
        else if (f[i].sized)
            snprintf(line, sizeof line, "  %s: %llu bytes written, %llu "
                     "bytes long after", path,
                     (unsigned long long)f[i].bytes,
                     (unsigned long long)f[i].size);
        else
            snprintf(line, sizeof line, "  %s: %llu bytes written", path,
                     (unsigned long long)f[i].bytes);
        notice(s, line);
    }
    struct rt_error e2 = {0};
    if (rt_journal_finish(j, s->base_dir, &e2) < 0) {
        char need[PATH_MAX + 200];
        rt_journal_needs(j, s->base_dir, need, sizeof need);
        return rt_error_set(e, e2.code ? e2.code : RT_ERR_WRITE_FAULT,
                            "%s holds %s, which could not be finished (%s); "
                            "%s", s->journal, what, e2.message,
                            *need ? need : "try again");
    }
    snprintf(line, sizeof line,
             ji->sealed ? "%s: finished %s, left unfinished"
                        : "%s: discarded %s, which never reached its commit "
                          "point",
             s->journal, what);
    notice(s, line);
    return 0;
}

/* --- transactions -------------------------------------------------------- */

static int hive_begin(struct rt_store *st, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    rt_lock_release(s->shared);
    s->shared = NULL;
    /* Tables read before the lock are read again under it. */
    dats_drop(s);
    if (rt_lock_acquire(s->lock_path, &s->wait, &s->lock, e) != 0)
        return -1;
    /* An unfinished commit (another writer's, or one that failed after its
     * commit point) is checked whole, then finished or discarded, saying
     * what it writes before and what was done after; then what changed is
     * read afresh. A journal naming anything but this store's files is
     * refused: nothing of it is done. */
    struct rt_journal *j = NULL;
    struct rt_journal_scope scope = journal_scope(s);
    int found = rt_journal_load(s->journal, &scope, &j, e);
    if (found > 0 && finish_journal(s, j, e) != 0)
        found = -1;
    rt_journal_free(j);
    /* After a recovery the files changed: read them again. Otherwise the
     * images read at open (or left by our last commit) stand unless
     * someone wrote the files since. */
    if (found < 0 ||
        (found ? load_all(s, 1, e) : reload_if_changed(s, e)) != 0) {
        rt_lock_release(s->lock);
        s->lock = NULL;
        return -1;
    }
    return 0;
}

static void hive_end(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    rt_lock_release(s->lock);
    s->lock = NULL;
}

/* --- reading ------------------------------------------------------------- */

static int push_string(char ***v, size_t *n, const char *str)
{
    char **nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return -1;
    *v = nv;
    if (!(nv[*n] = strdup(str)))
        return -1;
    (*n)++;
    return 0;
}

/* Names of the subkeys of PATH in HF, filtered by KEEP (NULL: all). A
 * list that does not read is named with its hive file and key: the
 * reader's message gives only the byte offset. */
static int list_subkeys(const struct hive_file *hf, const char *path,
                        int (*keep)(struct rt_regf *, uint32_t, const char *,
                                    void *),
                        void *ctx, char ***out, size_t *n, struct rt_error *e)
{
    struct rt_regf *h = hf->h;
    uint32_t key, *subs = NULL;
    size_t ns = 0;
    *out = NULL;
    *n = 0;
    if (lookup(h, path, &key) != 0)
        return 0;
    if (rt_regf_subkeys(h, key, &subs, &ns) != 0)
        return rt_error_set(e, RT_ERR_BADDB, "%s: %s: %s", hf->path, path,
                            rt_regf_errmsg(h));
    for (size_t i = 0; i < ns; i++) {
        struct rt_regf_key_info ki;
        if (rt_regf_key_info(h, subs[i], &ki) != 0) {
            free(subs);
            rt_strings_free(*out, *n);
            *out = NULL;
            *n = 0;
            return rt_error_set(e, RT_ERR_BADDB, "%s: %s: %s", hf->path, path,
                                rt_regf_errmsg(h));
        }
        int r = 0;
        if (!keep || keep(h, subs[i], ki.name, ctx))
            r = push_string(out, n, ki.name);
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

static int hive_list_languages(struct rt_store *st, char ***langs, size_t *n,
                               struct rt_error *e)
{
    struct hive_store *s = hs(st);
    return list_subkeys(&s->software, PERFLIB_PATH, keep_language, s, langs,
                        n, e);
}

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
    return list_subkeys(&s->software, PERFLIB_PATH, keep_digit_language,
                        NULL, langs, n, e);
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
    if (lookup(h, path, &key) != 0)
        return 0;
    int r = rt_regf_value_find(h, key, name, &v);
    if (r == RT_REGF_ENOTFOUND)
        return 0;
    if (r == 0)
        r = rt_regf_value_read(h, v, &type, &out->data, &out->len);
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
static const char *table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

static const char *dat_prefix(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "perfc" : "perfh";
}

/* PATH's hash, for the tables found by path (dat_bucket, pending_bucket). */
/* Where the chain of PATH's bucket starts (dat_buckets has buckets). */
static size_t *dat_bucket(struct hive_store *s, const char *path)
{
    return &s->dat_buckets[rt_os_path_hash(path) % s->n_dat_buckets];
}

static void dat_link(struct hive_store *s, size_t i)
{
    size_t *head = dat_bucket(s, s->dats[i].path);
    s->dats[i].next = *head;
    *head = i + 1;
}

static void dat_unlink(struct hive_store *s, size_t i)
{
    size_t *at = dat_bucket(s, s->dats[i].path);
    while (*at && *at != i + 1)
        at = &s->dats[*at - 1].next;
    if (*at)
        *at = s->dats[i].next;
}

/* Drops view I: unmapped, and the last one moved into its place. */
static void dat_forget(struct hive_store *s, size_t i)
{
    struct dat_seen *d = &s->dats[i];
    size_t last = s->n_dats - 1;
    dat_unlink(s, i);
    s->dats_held -= d->map.len;
    rt_os_unmap_file(&d->map);
    free(d->path);
    if (i != last) {
        dat_unlink(s, last);
        *d = s->dats[last];
        dat_link(s, i);
    }
    s->n_dats--;
}

/* The view of PATH kept since read_table mapped it, if the file is still
 * as it was then; NULL otherwise. */
static struct dat_seen *dat_seen_find(struct hive_store *s, const char *path)
{
    if (!s->n_dat_buckets)
        return NULL;
    for (size_t k = *dat_bucket(s, path); k; k = s->dats[k - 1].next) {
        struct dat_seen *d = &s->dats[k - 1];
        if (strcmp(d->path, path))
            continue;
        struct rt_os_stat st;
        if (rt_os_stat(path, &st) == 0 && same_file_state(&st, &d->st))
            return d;
        /* Written since: the view no longer says what the file holds. */
        dat_forget(s, k - 1);
        return NULL;
    }
    return NULL;
}

/* Room for one more view, its bucket table at least as large as the
 * views (doubled, so thousands of tables are rehashed a few times). */
static int dat_room(struct hive_store *s)
{
    if (s->n_dats == s->cap_dats) {
        size_t cap = s->cap_dats ? 2 * s->cap_dats : 16;
        struct dat_seen *nv = realloc(s->dats, cap * sizeof *nv);
        if (!nv)
            return -1;
        s->dats = nv;
        s->cap_dats = cap;
    }
    if (s->n_dats + 1 > s->n_dat_buckets) {
        size_t nb = s->n_dat_buckets ? 2 * s->n_dat_buckets : 64;
        size_t *b = calloc(nb, sizeof *b);
        if (!b)
            return -1;
        free(s->dat_buckets);
        s->dat_buckets = b;
        s->n_dat_buckets = nb;
        for (size_t i = 0; i < s->n_dats; i++)
            dat_link(s, i);
    }
    return 0;
}

/* Maps PATH and keeps the view (dat_seen). NULL with errno on failure. */
static struct dat_seen *dat_seen_map(struct hive_store *s, const char *path)
{
    struct dat_seen *d = dat_seen_find(s, path);
    if (d)
        return d;
    if (dat_room(s) != 0) {
        errno = ENOMEM;
        return NULL;
    }
    d = &s->dats[s->n_dats];
    memset(d, 0, sizeof *d);
    /* Looked at before mapping: a write after this changes the time. */
    if (rt_os_stat(path, &d->st) != 0)
        return NULL;
    if (d->st.kind != RT_OS_FILE) {
        errno = d->st.kind == RT_OS_DIR ? EISDIR : ENOENT;
        return NULL;
    }
    /* Refused before it is read (read_dat says so), alone or with the
     * tables mapped before it. */
    uint64_t held = s->dats_held + d->st.size;
    if (d->st.size > RT_DAT_TABLE_MAX || held > RT_DAT_TOTAL_MAX) {
        errno = EFBIG;
        return NULL;
    }
    if (rt_os_map_file(path, &d->map) != 0)
        return NULL;
    if (!(d->path = strdup(path))) {
        rt_os_unmap_file(&d->map);
        errno = ENOMEM;
        return NULL;
    }
    /* Changed between the stat and the map: usable now, never again. */
    if (d->map.len != d->st.size)
        d->st.kind = RT_OS_ABSENT;
    s->dats_held += d->map.len;
    dat_link(s, s->n_dats++);
    return d;
}

/* DIR's .dat file of LANG's table T, as it is spelled there if it exists. */
static char *dat_path(const char *dir, const char *lang, enum rt_table_kind t)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s.dat", dat_prefix(t), lang);
    char *path = find_ci(dir, name);
    if (!path && errno == EEXIST)
        return NULL;
    if (!path && asprintf(&path, "%s/%s", dir, name) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    return path;
}

static int read_dat(struct hive_store *s, const char *dir, const char *lang,
                    enum rt_table_kind t, struct rt_value *out, int *present,
                    struct rt_error *e)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s.dat", dat_prefix(t), lang);
    char *p = find_ci(dir, name);
    memset(out, 0, sizeof *out);
    *present = 0;
    if (!p)
        return ambiguous(e) ? -1 : 0;
    struct dat_seen *d = dat_seen_map(s, p);
    struct rt_os_stat big;
    if (!d && errno == EFBIG && rt_os_stat(p, &big) == 0) {
        if (big.size > RT_DAT_TABLE_MAX)
            rt_size_cap_error(e, p, big.size, RT_DAT_TABLE_MAX, "a .dat table");
        else
            rt_error_set(e, RT_ERR_INVALID_DATA,
                         "%s: %llu bytes, which with the tables read before "
                         "it is more than the %llu MiB the .dat tables of a "
                         "tree may be together; nothing more was read", p,
                         (unsigned long long)big.size,
                         (unsigned long long)(RT_DAT_TOTAL_MAX >> 20));
        free(p);
        return -1;
    }
    if (!d || !(out->data = malloc(d->map.len ? d->map.len : 1))) {
        rt_error_set(e, d ? RT_ERR_NOT_ENOUGH_MEMORY : RT_ERR_ACCESS_DENIED,
                     "%s: %s", p, d ? "out of memory" : rt_os_strerror(errno));
        free(p);
        return -1;
    }
    memcpy(out->data, d->map.data, d->map.len);
    out->len = d->map.len;
    /* Held once: the copy, not also the view's pages. */
    rt_os_map_release(&d->map, 0, d->map.len);
    free(p);
    out->type = RT_REG_MULTI_SZ;
    *present = 1;
    return 0;
}

/* LANG's table T as a value of SOFTWARE (registry layout): its key's path
 * into PATH and its value cell into *V; 0 when there is none. */
static int table_cell(struct hive_store *s, const char *lang,
                      enum rt_table_kind t, char *path, size_t size,
                      uint32_t *v)
{
    uint32_t key;
    snprintf(path, size, PERFLIB_PATH "\\%s", lang);
    return lookup(s->software.h, path, &key) == 0 &&
           rt_regf_value_find(s->software.h, key, table_value_name(t), v) == 0;
}

static int hive_read_table(struct rt_store *st, const char *lang,
                           enum rt_table_kind t, struct rt_value *out,
                           int *present, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    if (s->files_layout)
        return read_dat(s, s->system32, lang, t, out, present, e);
    char path[256];
    snprintf(path, sizeof path, PERFLIB_PATH "\\%s", lang);
    uint32_t v;
    if (get_value_cell(&s->software, path, table_value_name(t), out, present,
                       &v, e) != 0)
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
        char *file = dat_path(s->system32, lang, t);
        if (!file)
            return ambiguous(e) ? -1
                                : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                               "out of memory");
        struct dat_seen *d = NULL;
        int r = 0;
        if (rt_os_exists(file) && !(d = dat_seen_map(s, file)))
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
    if (!table_cell(s, lang, t, path, sizeof path, &v))
        return 0;
    if (rt_regf_value_pieces_from(h, v, from, &out->type, &out->piece,
                                  &out->len, &out->n, &out->total) != 0)
        return rt_error_set(e, RT_ERR_BADDB, "%s: value %s of %s: %s",
                            s->software.path, table_value_name(t), path,
                            rt_regf_errmsg(h));
    *present = 1;
    return 0;
}

static int hive_read_table_pieces(struct rt_store *st, const char *lang,
                                  enum rt_table_kind t,
                                  struct rt_table_pieces *out, int *present,
                                  struct rt_error *e)
{
    return table_pieces_from(st, lang, t, 0, out, present, e);
}

/* The table where it lies (hive_read_table_pieces), copied from FROM on;
 * where it cannot be read in place, a copy cut. */
static int hive_read_table_from(struct rt_store *st, const char *lang,
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
static int hive_read_table_copy(struct rt_store *st, const char *lang,
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
        return s->syswow64 ? read_dat(s, s->syswow64, lang, t, out, present, e)
                           : 0;
    if (which != RT_COPY_HIVE)
        return 0;
    char path[256];
    snprintf(path, sizeof path, PERFLIB_PATH "\\%s", lang);
    return get_value(&s->software, path, table_value_name(t), out, present,
                     e);
}

static int hive_read_perflib(struct rt_store *st, const char *name,
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
    return rt_regf_lookup(h, key, "Performance", &perf) == 0;
}

static int hive_list_perf_services(struct rt_store *st, char ***names,
                                   size_t *n, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    return list_subkeys(&s->system, s->services, keep_perf_service, NULL,
                        names, n, e);
}

static int hive_service_state(struct rt_store *st, const char *service,
                              int *exists, int *has_perf, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    char path[512];
    uint32_t key;
    snprintf(path, sizeof path, "%s\\%s", s->services, service);
    int r = lookup(s->system.h, path, &key);
    *exists = r == 0;
    *has_perf = 0;
    if (*exists && (r = rt_regf_lookup(s->system.h, key, "Performance",
                                       &key)) == 0)
        *has_perf = 1;
    /* A subkey list that does not read is no absent service (a name
     * that is no key name is). */
    if (r == RT_REGF_ECORRUPT || r == RT_REGF_ENOMEM)
        return rt_error_set(e, RT_ERR_BADDB, "%s: %s: %s", s->system.path,
                            path, rt_regf_errmsg(s->system.h));
    return 0;
}

static int hive_read_service(struct rt_store *st, const char *service,
                             const char *name, struct rt_value *out,
                             int *present, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    char path[512];
    snprintf(path, sizeof path, "%s\\%s\\Performance", s->services, service);
    return get_value(&s->system, path, name, out, present, e);
}

/* --- writing ------------------------------------------------------------- */

/* A .dat file's new content, gathered during apply: the change set's
 * own value, which outlives the apply (no copy). */
struct dat_write {
    char *path;
    const struct rt_value *v;
    /* A .dat table spliced instead (SPLICE's edits, made to the table
     * BEFORE holds: System32's, for a SysWOW64 copy; NULL: PATH's own). */
    const struct rt_change *splice;
    char *before;
    size_t next;        /* the next in its bucket (pending_bucket), + 1; 0 */
};

struct pending {
    /* The tables to write, found by path through BUCKETS (each an index
     * of DATS + 1, 0 for none): a commit over thousands of languages
     * stages thousands, each looked for among those before. */
    struct dat_write *dats;
    size_t n_dats, cap_dats;
    size_t *buckets, n_buckets;
    /* Side files: written whole (as .dat files are, bytes that differ)
     * or, with V NULL, removed. */
    struct dat_write *files;
    size_t n_files;
};

static int stage_file(struct hive_store *s, struct pending *p,
                      const struct rt_change *c, struct rt_error *e)
{
    const char *win = hive_windows_dir(&s->base);
    if (!win)
        return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                            "%s: hive files given by name have no Windows "
                            "directory for %s; nothing was written",
                            s->software.path, c->name);
    char *path = rt_os_path_ci(win, c->name, 0);
    if (!path && ambiguous(e))
        return -1;
    struct dat_write *nf = path ? realloc(p->files, (p->n_files + 1) *
                                                        sizeof *nf)
                                : NULL;
    if (!nf) {
        free(path);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    p->files = nf;
    nf[p->n_files].path = path;
    nf[p->n_files].v = c->op == RT_CHANGE_WRITE_FILE ? &c->value : NULL;
    p->n_files++;
    return 0;
}

/* Where the chain of PATH's bucket starts (P has buckets). */
static size_t *pending_bucket(struct pending *p, const char *path)
{
    return &p->buckets[rt_os_path_hash(path) % p->n_buckets];
}

static void pending_link(struct pending *p, size_t i)
{
    size_t *head = pending_bucket(p, p->dats[i].path);
    p->dats[i].next = *head;
    *head = i + 1;
}

/* Room for one more table, the buckets at least as many as the tables
 * (doubled, so thousands of tables are rehashed a few times). */
static int pending_room(struct pending *p)
{
    if (p->n_dats == p->cap_dats) {
        size_t cap = p->cap_dats ? 2 * p->cap_dats : 16;
        struct dat_write *nd = realloc(p->dats, cap * sizeof *nd);
        if (!nd)
            return -1;
        p->dats = nd;
        p->cap_dats = cap;
    }
    if (p->n_dats + 1 > p->n_buckets) {
        size_t nb = p->n_buckets ? 2 * p->n_buckets : 64;
        size_t *b = calloc(nb, sizeof *b);
        if (!b)
            return -1;
        free(p->buckets);
        p->buckets = b;
        p->n_buckets = nb;
        for (size_t i = 0; i < p->n_dats; i++)
            pending_link(p, i);
    }
    return 0;
}

/* Stages C's table for the .dat file in DIR: its whole value, or its
 * splice of the table in BEFORE_DIR's file (NULL: DIR's). */
static int stage_dat(struct pending *p, const char *dir,
                     const struct rt_change *c, const char *before_dir)
{
    char *path = dat_path(dir, c->lang, c->table), *before = NULL;
    if (!path || (c->n_edits && before_dir &&
                  !(before = dat_path(before_dir, c->lang, c->table)))) {
        int err = errno;
        free(path);
        errno = err;
        return -1;
    }
    struct dat_write w = {path, c->n_edits ? NULL : &c->value,
                          c->n_edits ? c : NULL, before, 0};
    if (p->n_buckets)
        for (size_t k = *pending_bucket(p, path); k; k = p->dats[k - 1].next)
            if (!strcmp(p->dats[k - 1].path, path)) {
                struct dat_write *d = &p->dats[k - 1];
                free(d->path);
                free(d->before);
                w.next = d->next;
                *d = w;
                return 0;
            }
    if (pending_room(p) != 0) {
        free(path);
        free(before);
        errno = ENOMEM;
        return -1;
    }
    p->dats[p->n_dats] = w;
    pending_link(p, p->n_dats++);
    return 0;
}

static void pending_free(struct pending *p)
{
    for (size_t i = 0; i < p->n_dats; i++) {
        free(p->dats[i].path);
        free(p->dats[i].before);
    }
    free(p->dats);
    free(p->buckets);
    for (size_t i = 0; i < p->n_files; i++)
        free(p->files[i].path);
    free(p->files);
}

static int regf_fail(struct rt_regf *h, const char *path, struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s", path, rt_regf_errmsg(h));
}

static const char *table_value(const struct rt_change *c)
{
    return table_value_name(c->table);
}

static int splice_table(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e);

/* The hive's own copy of a .dat table (files layout) after splice C: the
 * splice made in place when the copy is the table the change was computed
 * from (same length), else the whole new table. */
static int copy_spliced(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e)
{
    struct rt_regf *sw = s->software.h;
    uint8_t *whole = NULL;
    size_t n = 0;
    struct rt_table_pieces tp;
    uint32_t v;
    if (rt_regf_value_find(sw, key, table_value(c), &v) ||
        rt_regf_value_pieces(sw, v, &tp.type, &tp.piece, &tp.len, &tp.n,
                             &tp.total))
        return regf_fail(sw, s->software.path, e);
    int same = tp.total == c->before_len;
    rt_table_pieces_free(&tp);
    if (same)
        return splice_table(s, key, c, e);
    struct rt_value dat;
    int present;
    if (read_dat(s, s->system32, c->lang, c->table, &dat, &present, e))
        return -1;
    int r = rt_change_splice(c, dat.data, dat.len, &whole, &n);
    rt_value_free(&dat);
    if (r != 0)
        return rt_error_set(e, r < 0 ? RT_ERR_NOT_ENOUGH_MEMORY
                                     : RT_ERR_INTERNAL_ERROR,
                            "%s: the .dat table is not the one the change "
                            "was computed from", s->software.path);
    r = rt_regf_value_set(sw, key, table_value(c), c->value.type, whole, n);
    free(whole);
    return r == 0 ? 0 : regf_fail(sw, s->software.path, e);
}

/* A table splice made in place: of a big value, only the segments from
 * the first edit on are rewritten. */
static int splice_table(struct hive_store *s, uint32_t key,
                        const struct rt_change *c, struct rt_error *e)
{
    struct rt_regf_edit *ed = malloc(c->n_edits * sizeof *ed);
    if (!ed)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (size_t i = 0; i < c->n_edits; i++)
        ed[i] = (struct rt_regf_edit){c->edits[i].at, c->edits[i].cut,
                                      c->value.data ? c->value.data + c->edits[i].ins : NULL,
                                      c->edits[i].ins_len};
    int r = rt_regf_value_splice(s->software.h, key, table_value(c),
                                 c->value.type, c->before_len, ed,
                                 c->n_edits);
    free(ed);
    return r == 0 ? 0 : regf_fail(s->software.h, s->software.path, e);
}

static int apply_one(struct hive_store *s, const struct rt_change *c,
                     struct pending *p, struct rt_error *e)
{
    struct rt_regf *sw = s->software.h, *sy = s->system.h;
    uint32_t key;
    char path[512];
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
        snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
        if (rt_regf_key_create_path(sw, rt_regf_root(sw), path, &key) != 0)
            return regf_fail(sw, s->software.path, e);
        return 0;
    case RT_CHANGE_SET_TABLE:
        if (s->files_layout) {
            if (stage_dat(p, s->system32, c, NULL) ||
                (s->syswow64 && stage_dat(p, s->syswow64, c, s->system32)))
                return ambiguous(e) ? -1
                                    : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                                   "out of memory");
            /* A value the hive still holds for the table is kept a copy
             * of it (hive_read_table_copy), never left stale. */
            const char *vn = table_value(c);
            uint32_t v;
            snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
            if (lookup(sw, path, &key) != 0 ||
                rt_regf_value_find(sw, key, vn, &v) != 0)
                return 0;
            if (!c->n_edits)
                return rt_regf_value_set(sw, key, vn, c->value.type,
                                         c->value.data, c->value.len) == 0
                           ? 0
                           : regf_fail(sw, s->software.path, e);
            return copy_spliced(s, key, c, e);
        }
        snprintf(path, sizeof path, PERFLIB_PATH "\\%s", c->lang);
        if (rt_regf_key_create_path(sw, rt_regf_root(sw), path, &key) != 0)
            return regf_fail(sw, s->software.path, e);
        if (c->n_edits && c->before_present)
            return splice_table(s, key, c, e);
        if (c->n_edits)     /* no table yet: the edit inserts it whole */
            return c->n_edits == 1 && !c->before_len &&
                           rt_regf_value_set(sw, key, table_value(c),
                                             c->value.type, c->value.data,
                                             c->value.len) == 0
                       ? 0
                       : regf_fail(sw, s->software.path, e);
        if (rt_regf_value_set(sw, key, table_value(c), c->value.type,
                              c->value.data, c->value.len) != 0)
            return regf_fail(sw, s->software.path, e);
        return 0;
    case RT_CHANGE_SET_PERFLIB:
        if (rt_regf_key_create_path(sw, rt_regf_root(sw), PERFLIB_PATH,
                                    &key) != 0 ||
            rt_regf_value_set(sw, key, c->name, c->value.type, c->value.data,
                              c->value.len) != 0)
            return regf_fail(sw, s->software.path, e);
        return 0;
    case RT_CHANGE_CREATE_PERF_KEY:
        snprintf(path, sizeof path, "%s\\%s\\Performance", s->services,
                 c->service);
        if (rt_regf_key_create_path(sy, rt_regf_root(sy), path, &key) != 0)
            return regf_fail(sy, s->system.path, e);
        return 0;
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE:
        snprintf(path, sizeof path, "%s\\%s\\Performance", s->services,
                 c->service);
        if (lookup(sy, path, &key) != 0)
            return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                "%s: no key %s", s->system.path, path);
        if (c->op == RT_CHANGE_SET_SERVICE) {
            if (rt_regf_value_set(sy, key, c->name, c->value.type,
                                  c->value.data, c->value.len) != 0)
                return regf_fail(sy, s->system.path, e);
        } else {
            int r = rt_regf_value_delete(sy, key, c->name);
            if (r != 0 && r != RT_REGF_ENOTFOUND)
                return regf_fail(sy, s->system.path, e);
        }
        return 0;
    case RT_CHANGE_WRITE_FILE:
    case RT_CHANGE_DELETE_FILE:
        return stage_file(s, p, c, e);
    }
    return rt_error_set(e, RT_ERR_INVALID_PARAMETER, "unknown change");
}

struct page_ctx {
    struct rt_commit *c;
    const char *rel;
    const uint8_t *img;
    uint64_t bins_end, file_end;
    int fd;                /* the file as it is, to see what really changed */
    int failed;
    int base_last;         /* now adding the base block */
};

static int all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Pages past the bins the file's base block covers (appended bins) are
 * read by nobody until the new base block lands: they go straight to the
 * file, once, ahead of the journal (rt_commit_write_fresh). Those past
 * the file's end that hold only zeros are not written at all: growing
 * the file (its size record) gives zeros there. */
static int add_page(void *ctx, uint64_t off, size_t len)
{
    struct page_ctx *pc = ctx;
    const uint8_t *img = pc->img;
    /* The base block goes last (commit_hive). */
    if (off == 0 && !pc->base_last)
        return 0;
    if (off >= pc->file_end && all_zero(img + off, len))
        return 0;
    /* Within the file, only the bytes that differ from what it holds are
     * recorded: a page touched for a 4-byte cell header costs 4 bytes,
     * not 4 KB, twice (journal and file). */
    if (off < pc->file_end && pc->fd >= 0) {
        uint8_t old[REGF_HBIN_ALIGN];
        if (len <= sizeof old &&
            rt_os_pread(pc->fd, old, len, off) == (long long)len) {
            size_t a = 0, b = len;
            while (a < len && old[a] == img[off + a])
                a++;
            if (a == len)
                return 0;
            while (old[b - 1] == img[off + b - 1])
                b--;
            off += a;
            len = b - a;
        }
    }
    int r = off >= pc->bins_end
                ? rt_commit_write_fresh_borrowed(pc->c, pc->rel, off,
                                                 img + off, len)
                : rt_commit_write_borrowed(pc->c, pc->rel, off, img + off,
                                           len);
    if (r != 0) {
        pc->failed = 1;
        return 1;
    }
    return 0;
}

/* Adds a hive's changed pages (all of it when it was replayed from logs)
 * to the commit. */
static int commit_hive(struct hive_store *s, struct hive_file *hf,
                       struct rt_commit *c)
{
    if (!rt_regf_changed_count(hf->h) && !hf->replayed)
        return 0;
    if (rt_regf_seal(hf->h) != 0)
        return -1;
    const uint8_t *img;
    size_t len;
    rt_regf_image(hf->h, &img, &len);
    const char *rel = relative(s->base_dir, hf->path);
    if (hf->replayed) {
        if (rt_commit_write_borrowed(c, rel, 0, img, len) != 0)
            return -1;
    } else {
        /* The base block (sealed: always changed) is written after
         * every other byte of the file, so whoever sees the new one sees
         * all this commit wrote (hive_unchanged relies on it). */
        struct page_ctx pc = {c, rel, img, hf->bins_end, hf->file_end,
                              rt_os_open(hf->path, RT_OS_READ), 0, 0};
        rt_regf_changed_pages(hf->h, add_page, &pc);
        if (!pc.failed && rt_commit_set_size(c, rel, len) != 0)
            pc.failed = 1;
        pc.base_last = 1;
        if (!pc.failed)
            add_page(&pc, 0, REGF_BASE_BLOCK_SIZE);
        if (pc.fd >= 0)
            rt_os_close(pc.fd);
        return pc.failed ? -1 : 0;
    }
    return rt_commit_set_size(c, rel, len);
}

#define DAT_PAGE 4096u

/* Adds the byte ranges of a .dat file that differ from what it holds,
 * compared page by page and trimmed to the bytes that differ: an
 * install's appended pairs cost their own bytes, the unchanged prefix
 * nothing. The old bytes are those read_table mapped; a file it did not
 * read (the SysWOW64 copy) is mapped here, once. BORROW: D's bytes last
 * until the commit is run (a change's own value), so the records point
 * at them instead of copying them. */
static int commit_dat(struct hive_store *s, const struct dat_write *d,
                      struct rt_commit *c, int borrow)
{
    int (*record)(struct rt_commit *, const char *, uint64_t, const void *,
                  size_t) = borrow ? rt_commit_write_borrowed
                                   : rt_commit_write;
    struct rt_os_map tmp = {0};
    const struct rt_os_map *old = NULL;
    struct dat_seen *seen = dat_seen_find(s, d->path);
    if (seen)
        old = &seen->map;
    else if (rt_os_map_file(d->path, &tmp) == 0)
        old = &tmp;
    const uint8_t *o = old ? old->data : NULL, *n = d->v->data;
    size_t old_len = old ? old->len : 0, new_len = d->v->len;
    const char *rel = relative(s->base_dir, d->path);
    /* A run of differing bytes [ws, we), flushed when the next difference
     * is further away than a record costs. */
    uint64_t ws = 0, we = 0;
    int run = 0, r = 0;
    for (size_t off = 0; off < new_len && r == 0; off += DAT_PAGE) {
        size_t len = new_len - off < DAT_PAGE ? new_len - off
                                                    : DAT_PAGE;
        size_t a = 0, b = len;
        if (off < old_len) {
            size_t cmp = old_len - off < len ? old_len - off : len;
            if (cmp == len && !memcmp(o + off, n + off, len))
                continue;
            while (a < cmp && o[off + a] == n[off + a])
                a++;
            if (cmp == len)
                while (b > a && o[off + b - 1] == n[off + b - 1])
                    b--;
        }
        if (run && off + a <= we + 64) {
            we = off + b;
            continue;
        }
        if (run)
            r = record(c, rel, ws, n + ws, (size_t)(we - ws));
        ws = off + a;
        we = off + b;
        run = 1;
    }
    if (r == 0 && run)
        r = record(c, rel, ws, n + ws, (size_t)(we - ws));
    if (r == 0 && (new_len != old_len || !old))
        r = rt_commit_set_size_in_order(c, rel, new_len);
    rt_os_unmap_file(&tmp);
    return r;
}

/* Whether the file at PATH holds at least N bytes and begins with DATA's
 * N bytes; *SIZE gets its size. 1, 0, or -1 with errno set. The file is
 * mapped and compared a megabyte at a time, each one's pages given back
 * once compared: it costs no memory, and no copy into a buffer (read
 * into one, the comparison took a fifth more). */
#define COMPARE_PIECE ((size_t)1 << 20)
static int file_starts_with(const char *path, const uint8_t *data, size_t n,
                            uint64_t *size)
{
    struct rt_os_map m;
    if (rt_os_map_file(path, &m) != 0)
        return -1;
    *size = m.len;
    int same = m.len >= n;
    for (size_t off = 0; same == 1 && off < n; off += COMPARE_PIECE) {
        size_t k = n - off < COMPARE_PIECE ? n - off : COMPARE_PIECE;
        same = !memcmp(m.data + off, data + off, k);
        rt_os_map_release(&m, off, k);
    }
    rt_os_unmap_file(&m);
    return same;
}

/* The splice last written from its first edit on: the bytes the commit
 * holds for PATH's record. */
struct made_splice {
    const struct rt_change *c;
    const char *path;
    const uint8_t *bytes;
    size_t n;
};

/* A .dat table spliced (D->splice): the bytes from its first edit on
 * written, composed from the table the change was computed from
 * (System32's file; D->before names it for a SysWOW64 copy). A copy that
 * differs from it before that edit, or is missing, gets the whole new
 * table instead, as commit_dat writes one. A copy staged right after
 * System32's table (LAST) gets the very bytes of its record: the same
 * splice of the same table, held once. */
static int commit_dat_splice(struct hive_store *s, const struct dat_write *d,
                             struct rt_commit *cm, struct made_splice *last,
                             struct rt_error *e)
{
    const struct rt_change *c = d->splice;
    struct dat_seen *src = NULL;
    if (c->before_present &&
        !(src = dat_seen_map(s, d->before ? d->before : d->path)))
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s",
                            d->before ? d->before : d->path, rt_os_strerror(errno));
    const uint8_t *old = src ? src->map.data : NULL;
    size_t old_len = src ? src->map.len : 0;
    if (old_len != c->before_len)
        return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                            "internal error: %s is not the table the change "
                            "was computed from; nothing was written",
                            d->before ? d->before : d->path);
    size_t at = c->edits[0].at;
    uint64_t dst_len = old_len;
    int whole = 0;
    if (d->before) {
        /* SysWOW64's copy takes the splice where it is System32's table
         * up to the first edit (compared a piece at a time: it costs no
         * memory). */
        int same = rt_os_exists(d->path)
                       ? file_starts_with(d->path, old, at, &dst_len)
                       : 0;
        if (same < 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", d->path,
                                rt_os_strerror(errno));
        whole = !same;
    }
    uint8_t *bytes = NULL;
    const uint8_t *shared = NULL;
    size_t n = 0;
    int r = 0;
    if (!whole && d->before && last->c == c && last->path &&
        !strcmp(last->path, d->before)) {
        shared = last->bytes;
        n = last->n;
    } else {
        r = rt_change_splice_from(c, old, old_len, whole ? 0 : at, &bytes, &n);
    }
    /* The view was read through (the copy compared up to the edit, the
     * bytes after it spliced): given back, not held for every table. */
    if (src)
        rt_os_map_release(&src->map, 0, old_len);
    if (r != 0)
        return rt_error_set(e, r < 0 ? RT_ERR_NOT_ENOUGH_MEMORY
                                     : RT_ERR_INTERNAL_ERROR,
                            "%s: %s", d->path,
                            r < 0 ? "out of memory"
                                  : "the change does not fit the table");
    if (whole) {
        struct rt_value v = {c->value.type, bytes, n};
        struct dat_write w = {d->path, &v, NULL, NULL, 0};
        r = commit_dat(s, &w, cm, 0);
    } else {
        const char *rel = relative(s->base_dir, d->path);
        if (shared) {
            r = rt_commit_write_borrowed(cm, rel, at, shared, n);
        } else {
            /* The commit frees them, after the copy's record borrowed
             * them. */
            const uint8_t *made = bytes;
            r = rt_commit_write_taken(cm, rel, at, bytes, n);
            bytes = NULL;
            if (r == 0)
                *last = (struct made_splice){c, d->path, made, n};
        }
        if (r == 0 && at + n != dst_len)
            r = rt_commit_set_size_in_order(cm, rel, at + n);
    }
    free(bytes);
    return r == 0 ? 0
                  : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* A side file's removal: the file, then the folders it leaves empty
 * below the top one ("INF/Xfer/0009/x.ini": 0009 and Xfer, never INF).
 * Nothing to do for a file that is not there. */
static int commit_delete(struct hive_store *s, const struct dat_write *d,
                         struct rt_commit *c)
{
    if (!rt_os_exists(d->path))
        return 0;
    const char *rel = relative(s->base_dir, d->path);
    const char *win = hive_windows_dir(&s->base);
    const char *in_win = relative(win, d->path);
    unsigned parts = 1;
    for (const char *q = in_win; *q; q++)
        parts += *q == '/';
    return rt_commit_delete(c, rel, parts > 2 ? parts - 2 : 0);
}

/* Copies the original primary and its logs aside before a replayed hive
 * is written over them: what the replay read of each (rt_regf_copy_aside:
 * never a log's sparse gigabytes, at the file's own permission bits; a
 * file that is no longer a regular one stops the commit). */
static int backup_replayed(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e)
{
    struct rt_regf_log_paths logs;
    if (rt_regf_log_find(hf->path, &logs) != 0)
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", hf->path,
                            rt_os_strerror(errno));
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", gmtime(&now));
    const char *files[1 + RT_REGF_LOG_SLOTS] = {hf->path};
    for (int i = 0; i < RT_REGF_LOG_SLOTS; i++)
        files[1 + i] = logs.path[i];
    int rc = 0;
    /* The user is told which logs were replayed and where the originals
     * went: the copies are the only way back to the files as they were,
     * and files appearing unannounced look like a fault. */
    char logs_said[1200] = "", copies[1600] = "";
    for (int i = 0; i < 1 + RT_REGF_LOG_SLOTS && rc == 0; i++) {
        if (!files[i])
            continue;
        char *dst = NULL;
        int made;
        if (asprintf(&dst, "%s.regtool-%s", files[i], stamp) < 0) {
            rc = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            break;
        }
        if (rt_regf_copy_aside(files[i], i > 0, dst, &made) != 0)
            rc = rt_error_set(e, errno == EINTR ? RT_ERR_CANCELLED
                                                : RT_ERR_WRITE_FAULT,
                              "backup of %s as %s: %s", files[i], dst,
                              rt_os_strerror(errno));
        else if (made) {
            const char *base = strrchr(dst, '/');
            size_t at = strlen(copies);
            snprintf(copies + at, sizeof copies - at, "%s%s",
                     *copies ? ", " : "", base ? base + 1 : dst);
            if (i > 0) {
                const char *lb = strrchr(files[i], '/');
                at = strlen(logs_said);
                snprintf(logs_said + at, sizeof logs_said - at, "%s%s",
                         *logs_said ? " and " : "", lb ? lb + 1 : files[i]);
            }
        }
        free(dst);
    }
    if (rc == 0 && *copies) {
        char line[3200];
        snprintf(line, sizeof line,
                 "%s was dirty: its transaction logs (%s) were replayed "
                 "into it for this change; the files as they were are kept "
                 "beside it as %s", hf->path, *logs_said ? logs_said : "none",
                 copies);
        notice(s, line);
    }
    rt_regf_log_paths_free(&logs);
    return rc;
}

/* What CS does, in a few words, for the journal ("install of Xfer"). */
static void describe(const struct rt_change_set *cs, char *buf, size_t size)
{
    const char *svc = NULL, *verb = "change";
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (!c->service)
            continue;
        svc = c->service;
        if (c->name && !strcmp(c->name, "First Counter")) {
            verb = c->op == RT_CHANGE_DELETE_SERVICE ? "uninstall" : "install";
            break;
        }
        if (c->name && !strcmp(c->name, "Disable Performance Counters"))
            verb = c->op == RT_CHANGE_DELETE_SERVICE ? "enable" : "disable";
    }
    if (svc)
        snprintf(buf, size, "%s of %s", verb, svc);
    else
        snprintf(buf, size, "change of %zu values", cs->n);
}

static int hive_apply(struct rt_store *st, const struct rt_change_set *cs,
                      struct rt_error *e)
{
    struct hive_store *s = hs(st);
    struct hive_file *hives[2] = {&s->software, &s->system};
    for (int i = 0; i < 2; i++)
        if (hives[i]->dirty_unusable)
            return rt_error_set(
                e, RT_ERR_BADDB,
                "%s is dirty and its transaction logs cannot be replayed "
                "(%s); writing it would discard changes only the logs hold. "
                "Nothing was written (--force-dirty writes it anyway)",
                hives[i]->path, hives[i]->dirty_why);
    for (int i = 0; i < 2; i++)
        if (hives[i]->file_end > hives[i]->bins_end + HIVE_SLACK_MAX)
            return rt_error_set(
                e, RT_ERR_BADDB,
                "%s runs %llu bytes past the hive bins its base block "
                "covers (%llu bytes): no hive Windows writes, and a commit "
                "would cut the file to its bins. Nothing was written",
                hives[i]->path,
                (unsigned long long)(hives[i]->file_end - hives[i]->bins_end),
                (unsigned long long)hives[i]->bins_end);
    struct pending p = {0};
    struct rt_commit *c = NULL;
    size_t fail_after = s->fail_after;
    s->fail_after = 0;
    int rc = -1;
    for (size_t i = 0; i < cs->n; i++) {
        if (fail_after && i == fail_after) {
            rt_error_set(e, RT_ERR_WRITE_FAULT,
                         "hive store: injected failure after %zu changes",
                         fail_after);
            goto out;
        }
        if (apply_one(s, &cs->v[i], &p, e) != 0)
            goto out;
    }
    c = rt_commit_new(s->base_dir, s->journal);
    struct rt_journal_scope scope = journal_scope(s);
    if (c)
        rt_commit_set_scope(c, &scope);
    char what[200];
    describe(cs, what, sizeof what);
    if (!c || rt_commit_set_note(c, what) || commit_hive(s, &s->software, c) ||
        commit_hive(s, &s->system, c)) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "preparing the commit: %s",
                     rt_regf_errmsg(s->software.h));
        goto out;
    }
    struct made_splice last = {0};
    for (size_t i = 0; i < p.n_dats; i++) {
        if (p.dats[i].splice) {
            if (commit_dat_splice(s, &p.dats[i], c, &last, e) != 0)
                goto out;
        } else if (commit_dat(s, &p.dats[i], c, 1) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < p.n_files; i++)
        if ((p.files[i].v ? commit_dat(s, &p.files[i], c, 1)
                          : commit_delete(s, &p.files[i], c)) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto out;
        }
    /* The commit has the bytes it writes; the views go before the files
     * change (Windows cannot resize a mapped file). */
    dats_drop(s);
    for (int i = 0; i < 2; i++)
        if (hives[i]->replayed && backup_replayed(s, hives[i], e) != 0)
            goto out;
    if (rt_commit_run(c, e) != 0)
        goto out;
    rc = 0;
out:
    rt_commit_free(c);
    pending_free(&p);
    dats_drop(s);
    if (rc == 0) {
        /* The images are what the files now hold. */
        hive_committed(&s->software);
        hive_committed(&s->system);
        return 0;
    }
    /* Read back what the files hold: drops the half-applied images. */
    struct rt_error e2 = {0};
    load_all(s, 0, &e2);
    return rc;
}

static int hive_has_win_files(struct rt_store *st)
{
    return hive_windows_dir(st) != NULL;
}

static int hive_read_win_file(struct rt_store *st, const char *rel,
                              struct rt_value *out, int *present,
                              struct rt_error *e)
{
    const char *win = hive_windows_dir(st);
    memset(out, 0, sizeof *out);
    *present = 0;
    if (!win)
        return 0;
    char *p = rt_os_path_ci(win, rel, 0);
    if (!p)
        return ambiguous(e) ? -1
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
    else if (fst.kind == RT_OS_FILE) {
        if (rt_os_read_file(p, &out->data, &out->len) != 0)
            rc = rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", p,
                              rt_os_strerror(errno));
        else
            *present = 1;
    }
    free(p);
    out->type = RT_REG_BINARY;
    return rc;
}

static const char *hive_layout(struct rt_store *st)
{
    return hs(st)->layout;
}

static int hive_tables_in_files(struct rt_store *st)
{
    return hs(st)->files_layout;
}

static int base_is(const char *path, const char *name)
{
    const char *slash = strrchr(path, '/');
    return !strcasecmp(slash ? slash + 1 : path, name);
}

/* The Windows directory holding System32/config/SOFTWARE, found once: a
 * tree given by its root, its Windows directory or its config directory
 * all end there; hive files given by name count only when they sit in
 * such a config directory. */
static const char *hive_windows_dir(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    if (s->windows_dir)
        return *s->windows_dir ? s->windows_dir : NULL;
    char *config = parent_dir(s->software.path);
    char *sys32 = config && base_is(config, "config") ? parent_dir(config)
                                                      : NULL;
    char *win = sys32 && base_is(sys32, "System32") ? parent_dir(sys32) : NULL;
    free(config);
    free(sys32);
    s->windows_dir = win ? win : strdup("");
    return win;
}

/* Tables as registry values are spliced in place (rt_regf_value_splice),
 * .dat files from their first edit on (commit_dat_splice). */
static int hive_splices(struct rt_store *st)
{
    (void)st;
    return 1;
}

static const struct rt_store_ops hive_ops = {
    .kind = "hive",
    .begin = hive_begin,
    .end = hive_end,
    .list_languages = hive_list_languages,
    .read_table = hive_read_table,
    .read_perflib = hive_read_perflib,
    .list_perf_services = hive_list_perf_services,
    .service_state = hive_service_state,
    .read_service = hive_read_service,
    .read_table_from = hive_read_table_from,
    .read_table_pieces = hive_read_table_pieces,
    .apply = hive_apply,
    .splices = hive_splices,
    .layout = hive_layout,
    .tables_in_files = hive_tables_in_files,
    .close = hive_close,
    .windows_dir = hive_windows_dir,
    .has_win_files = hive_has_win_files,
    .read_win_file = hive_read_win_file,
    .read_table_copy = hive_read_table_copy,
};
