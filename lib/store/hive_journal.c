/* Store layer: the hive store and its journal: which files a journal may
 * name (the two hives, the .dat tables, the side files under the Windows
 * directory), what a reader says of one it finds, and how a writer
 * finishes or discards it in begin() before it reads anything. */
#include "store/hive_internal.h"
#include "model/file_name.h"
#include "model/lang_id.h"
#include "model/size_caps.h"
#include "platform/compat.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Whether NAME is a .dat table's, current (perfc, perfh) or as
 * installed (perfd, perfi). */
static int is_any_table_name(const char *name)
{
    char table[16];
    size_t n = strlen(name);
    if (n >= sizeof table)
        return 0;
    memcpy(table, name, n + 1);
    if (n > 4 && strchr("dDiI", table[4]))
        table[4] = 'c';
    return is_table_name(table);
}

/* What a hive's name may carry: nothing, or one of its logs' suffixes. */
static const char *const hive_and_logs[] = {"", ".LOG", ".LOG1", ".LOG2",
                                            NULL};

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
        !rt_lang_is_folder_id(p[2], len[2]))
        return 0;
    /* The service's folder and the file are names an install could have
     * made (model/file_name.h): a device (INF/CON/0009/COM1), a name
     * Windows trims or a short name's shape is another file than
     * spelled, and no install writes one (review 43 R43-8). */
    char part[1024];
    for (size_t i = 1; i < 4; i += 2) {
        if (len[i] >= sizeof part)
            return 0;
        memcpy(part, p[i], len[i]);
        part[len[i]] = '\0';
        if (rt_win_name_problem(part))
            return 0;
    }
    return 1;
}

/* The journal's scope (rt_journal_scope): REL, relative to the base
 * directory, is a file this store's commits write: one of the two hives,
 * a .dat table in the tables' directory or SysWOW64's copy, or a side
 * file under the Windows directory. */
static int is_store_file(void *ctx, const char *rel)
{
    struct hive_store *s = ctx;
    /* On the stack: a judgement that needed memory would take a file for
     * a stranger when memory ran out. A path too long for it is none of
     * the store's. */
    char full[8192];
    int n = snprintf(full, sizeof full, "%s/%s",
                     strcmp(s->base_dir, "/") ? s->base_dir : "", rel);
    if (n < 0 || (size_t)n >= sizeof full)
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
    return ok;
}

/* OUT (SIZE bytes, a resolved folder) with TAIL's parts appended, "."
 * and empty ones left out and ".." taking the last part off: those parts
 * do not exist yet, and what makes them (an install's INF copy) makes
 * folders, so "X/.." is where it was before X (review 43: an --emit-reg
 * into INF/<service>/./0009 replaced the INI the install copied there).
 * 0, or -1 when too long. */
static int append_parts(char *out, size_t size, const char *tail)
{
    size_t have = strlen(out);
    while (*tail) {
        size_t k = 0;
        while (tail[k] && !rt_os_is_separator(tail[k]))
            k++;
        if (k == 2 && tail[0] == '.' && tail[1] == '.') {
            const char *slash = rt_os_last_separator(out);
            if (slash)
                have = rt_os_folder_length(out, slash);
            out[have] = '\0';
        } else if (k && !(k == 1 && tail[0] == '.')) {
            int sep = have && !rt_os_is_separator(out[have - 1]);
            if (have + sep + k >= size)
                return -1;
            if (sep)
                out[have++] = '/';
            memcpy(out + have, tail, k);
            out[have += k] = '\0';
        }
        tail += k;
        tail += *tail != '\0';
    }
    return 0;
}

/* DIR resolved as far as it exists (rt_os_realpath), the parts that do
 * not exist yet appended (append_parts): an output's folder that the run
 * itself makes (an INF copy's, by install) names its place as well as an
 * existing one. 0, or -1 when unresolved or too long. */
static int resolve_to_be(const char *dir, char *out, size_t size)
{
    char head[4096];
    size_t n = strlen(dir);     /* HEAD is DIR's first N bytes */
    size_t from = n;            /* DIR + FROM: the parts that do not exist */
    if (!n || n >= sizeof head)
        return -1;
    memcpy(head, dir, n + 1);
    while (rt_os_realpath(n ? head : ".", out, size) != 0) {
        if (!n)
            return -1;
        /* Either separator on Windows (an installer's C:\dir\x.reg); a
         * root or drive's own separator kept (rt_os_folder_length). */
        const char *slash = rt_os_last_separator(head);
        size_t cut = slash ? rt_os_folder_length(head, slash) : 0;
        if (cut == n)
            return -1;
        from = slash ? (size_t)(slash + 1 - head) : 0;
        head[cut] = '\0';
        n = cut;
    }
    return append_parts(out, size, dir + from);
}

/* Whether PATH is, or is to be, a part of an INF copy below WIN (the
 * Windows folder): INF, INF/<service>, INF/<service>/<LLLL>, or a file
 * in the latter, whatever way PATH takes there, made already or not
 * (review 42 R42-1: install's --emit-reg named into the copy it was
 * about to make replaced its INI; review 49 R49-1: one named Windows/INF
 * made the folder's name a file). The folder above INF is compared with
 * WIN as a file, not as a spelling: another letter case or a short name
 * (WINDOW~1) names it as well, where the file system says so (the
 * Windows build's realpath resolves neither). */
static int in_inf_copy(const char *win, const char *path)
{
    char *dir = rt_os_folder_of(path);
    const char *leaf = rt_os_last_separator(path);
    char real[4096];
    int found = dir && resolve_to_be(dir, real, sizeof real) == 0 &&
                append_parts(real, sizeof real, leaf ? leaf + 1 : path) == 0;
    free(dir);
    if (!found)
        return 0;
    /* Up from PATH: BELOW parts under the one looked at; LANG[i] whether
     * the part with I parts under it is a language's folder, as the one
     * below INF/<service> must be. */
    int lang[2] = {0, 0};
    for (int below = 0; below < 4; below++) {
        char *slash = (char *)rt_os_last_separator(real);
        if (!slash || slash == real)
            return 0;
        /* As Windows' file layer reads a part: without its trailing dots
         * and blanks (review 50 R50-3: INF. is INF there). */
        const char *part = slash + 1;
        size_t len = strlen(part);
        while (len && (part[len - 1] == '.' || part[len - 1] == ' ') &&
               strcmp(part, ".") && strcmp(part, ".."))
            len--;
        int inf = len == 3 && !strncasecmp(part, "INF", 3);
        if (below < 2)
            lang[below] = rt_lang_is_folder_id(part, len);
        *slash = '\0';
        if (inf && (below < 2 || lang[below - 2]) &&
            rt_os_same_file(real, win))
            return 1;
    }
    return 0;
}

/* The files of a tree's hive store, as far as they are known (NULL:
 * not known, or not in this tree). */
struct tree_files {
    const char *hives[3];       /* each with its .LOG, .LOG1, .LOG2 */
    const char *journal, *lock;
    const char *win;            /* PerfStringBackup.INI, INF copies */
    const char *tables[2];      /* System32 and SysWOW64's .dat tables */
};

/* Whether PATH names one of T's files as it is spelled: by any way
 * there, in any letter case, by another name of one that exists
 * (rt_os_names_file). */
static int names_tree_file_as(const struct tree_files *t, const char *path)
{
    static const char *const itself[] = {"", NULL};
    for (int i = 0; i < 3; i++)
        if (t->hives[i] && rt_os_names_file(path, t->hives[i],
                                            hive_and_logs) >= 0)
            return 1;
    if ((t->journal && rt_os_names_file(path, t->journal, itself) >= 0) ||
        (t->lock && rt_os_names_file(path, t->lock, itself) >= 0))
        return 1;
    /* PerfStringBackup.INI, which every commit rewrites with the tables
     * and Windows' lodctr /R reads back. */
    if (t->win) {
        /* As the tree spells it (a disk upgraded from XP has
         * WINDOWS/system32: review 45 R45-5, the file replaced). */
        char *psb = rt_os_path_ci(t->win, PSB_IN_WINDOWS, 0);
        /* A folder on its way in two letter cases (SYSTEM32 beside an
         * empty System32: review 47 R47-4), where no one spelling is the
         * file: any file below the Windows folder bearing a store file's
         * name is taken for the store's, as when the store is unread;
         * the tables of --tables and the INF copies still looked at
         * (review 48 R48-1: a table of --tables replaced). */
        int named;
        if (!psb && errno == EEXIST) {
            named = rt_store_hive_root_holds(t->win, 0, path) != 0;
        } else {
            if (!psb && asprintf(&psb, "%s/%s", t->win, PSB_IN_WINDOWS) < 0)
                return 1;   /* out of memory: refused, never replaced */
            named = rt_os_names_file(path, psb, itself) >= 0;
            free(psb);
        }
        if (named)
            return 1;
        /* An INF copy's INI or symbol file, which install writes and
         * uninstall deletes (review 41 R41-1: a backup saved over one
         * was deleted by the next uninstall). */
        if (in_inf_copy(t->win, path))
            return 1;
    }
    /* A table, current (perfc, perfh) or as installed (perfd, perfi),
     * in either folder of tables. */
    const char *slash = rt_os_last_separator(path);
    const char *name = slash ? slash + 1 : path;
    if (!is_any_table_name(name))
        return 0;
    for (int i = 0; i < 2; i++) {
        if (!t->tables[i])
            continue;
        char *file = NULL;
        if (asprintf(&file, "%s/%s", t->tables[i], name) < 0)
            return 0;
        int named = rt_os_names_file(path, file, itself) >= 0;
        free(file);
        if (named)
            return 1;
    }
    return 0;
}

/* Whether PATH names one of T's files, as spelled or as the file it
 * leads to: a link the user made, of any name, to one of them (review 44
 * R44-2: u/x.ini -> an INF copy's INI; review 45 R45-2: u/x -> a .dat
 * table, replaced). */
static int names_tree_file(const struct tree_files *t, const char *path)
{
    char real[4096];
    return names_tree_file_as(t, path) ||
           (rt_os_realpath(path, real, sizeof real) == 0 &&
            strcmp(real, path) && names_tree_file_as(t, real));
}

int hive_own_file(struct rt_store *st, const char *path)
{
    struct hive_store *s = hs(st);
    const struct tree_files t = {
        {s->software.path, s->system.path, NULL}, s->journal, s->lock_path,
        hive_windows_dir(&s->base), {s->system32, s->syswow64}};
    return names_tree_file(&t, path);
}

/* DIR's folder when DIR's own name is NAME in any letter case, a new
 * string; else NULL. */
static char *parent_named(const char *dir, const char *name)
{
    const char *slash = rt_os_last_separator(dir);
    if (!slash || strcasecmp(slash + 1, name))
        return NULL;
    return rt_os_folder_of(dir);
}

/* NAME in folder DIR as DIR spells it (any letter case), or as given
 * where it is not there (*TWINS set where DIR holds it in two letter
 * cases): a new string, or NULL when out of memory. */
static char *in_folder(const char *dir, const char *name, int *twins)
{
    char *found = rt_os_path_ci(dir, name, 0), *given = NULL;
    *twins |= !found && errno == EEXIST;
    if (found || asprintf(&given, "%s/%s", dir, name) >= 0)
        return found ? found : given;
    return NULL;
}

int rt_store_hive_tree_names(const char *hive, const char *tables,
                             const char *path)
{
    /* The folder as the file system names it: "." for hive:SOFTWARE,SYSTEM
     * typed in config (review 45 R45-1: no tables nor PerfStringBackup.INI
     * compared, each replaced); the folder of the hive a link of the
     * user's leads to (review 46 R46-3: hive:u/sw,u/sy). */
    char real[4096];
    char *typed = rt_os_realpath(hive, real, sizeof real) == 0
                      ? rt_os_folder_of(real) : rt_os_folder_of(hive);
    char *config = typed && rt_os_realpath(typed, real, sizeof real) == 0
                       ? strdup(real) : NULL;
    if (!config) {
        config = typed;
        typed = NULL;
    }
    char *system32 = config ? parent_named(config, "config") : NULL;
    char *win = system32 ? parent_named(system32, "System32") : NULL;
    char *software = NULL, *system = NULL, *journal = NULL, *lock = NULL,
         *wow = NULL;
    int named = -1, twins = 0;
    if (!config || !(software = in_folder(config, "SOFTWARE", &twins)) ||
        !(system = in_folder(config, "SYSTEM", &twins)) ||
        !(journal = in_folder(config, RT_HIVE_JOURNAL_NAME, &twins)) ||
        !(lock = in_folder(config, RT_HIVE_LOCK_NAME, &twins)) ||
        (win && !(wow = in_folder(win, "SysWOW64", &twins))))
        goto out;
    /* HIVE itself too, whatever its name (hive:a.hiv,b.hiv); the tables
     * of --tables where they are named (R45-1). */
    const struct tree_files t = {{hive, software, system}, journal, lock, win,
                                 {tables ? tables : system32, wow}};
    named = names_tree_file(&t, path);
    /* A folder of the tree in two letter cases (SYSWOW64 and syswow64:
     * R46-1), whose files no one spelling finds: any file below the
     * Windows folder, or beside the hive, bearing a store file's name. */
    if (!named && twins)
        named = rt_store_hive_root_holds(win ? win : config, !win, path);
out:
    free(typed);
    free(config);
    free(system32);
    free(win);
    free(software);
    free(system);
    free(journal);
    free(lock);
    free(wow);
    return named;
}

/* Whether NAME is one a hive store gives one of its files, in any letter
 * case: SOFTWARE, SYSTEM and their logs, the journal, the lock, a .dat
 * table (current or as installed), PerfStringBackup.INI. */
static int is_store_file_name(const char *name)
{
    static const char *const hives[] = {"SOFTWARE", "SYSTEM"};
    for (size_t i = 0; i < 2; i++) {
        size_t n = strlen(hives[i]);
        if (!strncasecmp(name, hives[i], n))
            for (size_t k = 0; hive_and_logs[k]; k++)
                if (!strcasecmp(name + n, hive_and_logs[k]))
                    return 1;
    }
    return is_any_table_name(name) || !strcasecmp(name, RT_HIVE_JOURNAL_NAME) ||
           !strcasecmp(name, RT_HIVE_LOCK_NAME) ||
           !strcasecmp(name, "PerfStringBackup.INI");
}

int rt_store_hive_root_holds(const char *root, int beside, const char *path)
{
    char top[4096], real[4096];
    /* PATH as the file it leads to where it is one (the user's link of
     * any name), else as its folder's existing part puts it. */
    char *dir = rt_os_folder_of(path);
    const char *slash = rt_os_last_separator(path);
    const char *name = slash ? slash + 1 : path;
    int found = rt_os_realpath(path, real, sizeof real) == 0;
    if (!found && dir && resolve_to_be(dir, real, sizeof real) == 0) {
        size_t used = strlen(real);
        found = used + 1 + strlen(name) < sizeof real;
        if (found)
            snprintf(real + used, sizeof real - used, "/%s", name);
    }
    free(dir);
    if (!found || rt_os_realpath(root, top, sizeof top) != 0)
        return 0;
    size_t n = strlen(top);
    while (n > 1 && rt_os_is_separator(top[n - 1]))
        n--;
    /* A tree at the file system's root (a chroot whose "/" is the disk:
     * review 48 R48-6, nothing was below it) holds every path. */
    if (n == 1 && rt_os_is_separator(top[0]))
        n = 0;
    if (strncmp(real, top, n) != 0 || !rt_os_is_separator(real[n]))
        return 0;
    /* Below ROOT: a store file's name, or a file three parts below an
     * INF folder (an INF copy's). */
    const char *parts[64];
    size_t k = 0;
    for (char *q = real + n; *q && k < 64;) {
        while (rt_os_is_separator(*q))
            q++;
        if (*q)
            parts[k++] = q;
        while (*q && !rt_os_is_separator(*q))
            q++;
    }
    if (!k || (beside && k != 1))
        return 0;
    const char *last = parts[k - 1];
    if (is_store_file_name(last))
        return 1;
    /* INF itself or a folder an install makes there (INF/<service>,
     * INF/<service>/<LLLL>: R49-1), or a file three parts below it (an
     * INF copy's). */
    for (size_t up = 1; up <= 4 && up <= k; up++) {
        const char *p = parts[up == 3 ? k - 1 : k - up];
        int lang = rt_lang_is_folder_id(p, strcspn(p, "/\\"));
        if (!strncasecmp(parts[k - up], "INF", 3) &&
            (!parts[k - up][3] || rt_os_is_separator(parts[k - up][3])) &&
            (up != 3 || lang))
            return 1;
    }
    return 0;
}

/* The largest REL (a file of the store: is_store_file) may be: a hive
 * within the 2 GB Windows keeps one under (its reader takes no larger), a
 * .dat table within its cap, PerfStringBackup.INI within a backup's, an
 * INF copy's file within a provider file's (size_caps.h). */
static uint64_t file_max(void *ctx, const char *rel)
{
    (void)ctx;
    const char *slash = strrchr(rel, '/');
    const char *name = slash ? slash + 1 : rel;
    if (is_table_name(name))
        return RT_DAT_TABLE_MAX;
    size_t n = strlen(rel), pl = strlen(PSB_IN_WINDOWS);
    if (n >= pl && !strcasecmp(rel + n - pl, PSB_IN_WINDOWS))
        return RT_BACKUP_FILE_MAX;
    for (const char *q = rel; (q = strchr(q, '/')) != NULL; q++)
        if (q - rel >= 3 && !strncasecmp(q - 3, "INF", 3) &&
            (q - rel == 3 || q[-4] == '/'))
            return RT_PROVIDER_FILE_MAX;
    return 0x80001000u;
}

/* No commit's journal holds more than twice the hives' bytes (each
 * changed page of a hive once, the tables at most whole, which in the
 * registry layout lie inside SOFTWARE) plus 256 MB (the .dat tables and
 * the side files: an INF copy's INI and symbol file are read up to 16 MB
 * each). A file larger than that is not read at all. */
#define JOURNAL_SLACK ((uint64_t)256 << 20)

/* A commit's files in all: the hives and side files within a journal's
 * bound, every .dat table (System32's and SysWOW64's) within their cap in
 * all, PerfStringBackup.INI within a backup's. A bound of the journal's
 * alone refused an install on a database whose tables are kept as .dat
 * files (W2 of make bench: 630 MB of tables beside 35 MB of hives). */
struct rt_journal_scope hive_journal_scope(struct hive_store *s)
{
    uint64_t journal =
        2 * (s->software.file_end + s->system.file_end) + JOURNAL_SLACK;
    struct rt_journal_scope scope = {
        .is_store_file = is_store_file,
        .ctx = s,
        .max_bytes = journal,
        .file_max = file_max,
        .max_total = journal + RT_DAT_TOTAL_MAX + RT_BACKUP_FILE_MAX};
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

/* Says LINE and keeps it, with KIND, for journal_state (an audit's
 * finding); kept only as far as memory allows: the notice is said all
 * the same. */
static void hive_journal_found(struct hive_store *s, int kind,
                               const char *line)
{
    free(s->journal_line);
    s->journal_line = strdup(line);
    s->journal_kind = s->journal_line ? kind : 0;
    hive_notice(s, line);
}

/* A reader's one line about a journal it finds: a reader never acts on
 * it, and reads the files as they are (a journal's after-image would let
 * whoever wrote the disk show any state it likes, an audit's included),
 * saying what is pending and which files it would change. */
void hive_say_pending_journal(struct hive_store *s)
{
    struct rt_journal *j = NULL;
    struct rt_error e = {0};
    struct rt_journal_scope scope = hive_journal_scope(s);
    int found = rt_journal_load(s->journal, &scope, &j, &e);
    char line[6 * PATH_MAX];
    if (found < 0) {
        snprintf(line, sizeof line, "%s (the files are read as they are)",
                 e.message);
        hive_journal_found(s, RT_JOURNAL_REFUSED, line);
        return;
    }
    if (!found)
        return;
    char what[400], need[PATH_MAX + 200], files[3 * PATH_MAX];
    rt_journal_describe(rt_journal_about(j), what, sizeof what);
    int kind = rt_journal_about(j)->sealed ? RT_JOURNAL_PENDING
                                           : RT_JOURNAL_UNSEALED;
    if (kind == RT_JOURNAL_PENDING) {
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
    hive_journal_found(s, kind, line);
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
        hive_notice(s, line);
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
        hive_notice(s, line);
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
    hive_notice(s, line);
    return 0;
}

/* --- transactions -------------------------------------------------------- */

int hive_begin(struct rt_store *st, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    rt_lock_release(s->shared);
    s->shared = NULL;
    /* Tables read before the lock are read again under it. */
    hive_dats_drop(s);
    if (rt_lock_acquire(s->lock_path, &s->wait, &s->lock, e) != 0)
        return -1;
    /* An unfinished commit (another writer's, or one that failed after its
     * commit point) is checked whole, then finished or discarded, saying
     * what it writes before and what was done after; then what changed is
     * read afresh. A journal naming anything but this store's files is
     * refused: nothing of it is done. */
    struct rt_journal *j = NULL;
    struct rt_journal_scope scope = hive_journal_scope(s);
    int found = rt_journal_load(s->journal, &scope, &j, e);
    if (found > 0 && finish_journal(s, j, e) != 0)
        found = -1;
    rt_journal_free(j);
    /* After a recovery the files changed: read them again. Otherwise the
     * images read at open (or left by our last commit) stand unless
     * someone wrote the files since. */
    if (found < 0 ||
        (found ? hive_load_all(s, 1, e) : hive_reload_if_changed(s, e)) != 0) {
        rt_lock_release(s->lock);
        s->lock = NULL;
        return -1;
    }
    return 0;
}

void hive_end(struct rt_store *st)
{
    struct hive_store *s = hs(st);
    rt_lock_release(s->lock);
    s->lock = NULL;
}
