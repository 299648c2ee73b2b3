/* audit on a store: the database read as audit reads it (the tables as
 * blobs, and the store's other copies of them), the engine's checks,
 * and the providers' libraries looked up in the store's Windows tree on
 * this machine's disk. For regtool audit and regtool_audit alike, and
 * for regtool audit's stores named by their specs. */
#include "ops/ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The tree's files, for rt_audit_libraries: ROOT is the parent of the
 * Windows directory the store reports (store.h, windows_dir). The store
 * already knows which directory of a "hive:DIR" spec is the tree, so the
 * CLI asks it rather than guessing again, and looks the engine's
 * Windows-style paths up here, through platform/os.h, one component at a
 * time without regard to case, as Windows would. ROOT is looked at only
 * when the store holds it (a disk laid out as one, or a fleet's folder):
 * a tree opened from its Windows directory alone (hive:D/WINNT, an
 * upload's up/m1) has nothing confined above that directory, so a link
 * planted there would be followed to the host. Then only paths beneath
 * WINDOWS (the Windows directory's own path, NAME its last component)
 * are looked up, from WINDOWS itself. */
struct tree_ctx {
    char root[4096];
    const char *windows;
    const char *name;
    int root_unheld;
    char why[300];
};

/* PATH ('/'-separated, relative to the drive's root) beneath the Windows
 * directory, relative to it ("" for the directory itself); NULL with
 * errno EACCES when PATH lies elsewhere. */
static const char *beneath_windows(const struct tree_ctx *t, const char *path)
{
    size_t n = strlen(t->name);
    if (strncasecmp(path, t->name, n) || (path[n] != '/' && path[n])) {
        errno = EACCES;
        return NULL;
    }
    return path[n] ? path + n + 1 : path + n;
}

/* PATH's place on this system, a new string; NULL when some component
 * is not there (errno ENOENT), when a folder on the way holds two names
 * of it that differ only in case (EEXIST), outside the tree held
 * (EACCES), or out of memory. Looked up by rt_os_path_ci: each folder
 * listed once, not once per DLL (thousands of providers' DLLs sit beside
 * each other in System32). */
static char *tree_find(const struct tree_ctx *t, const char *path)
{
    char rel[4096];
    size_t n = 0;
    while (*path == '\\' || *path == '/')
        path++;
    for (; *path && n + 1 < sizeof rel; path++)
        rel[n++] = *path == '\\' ? '/' : *path;
    rel[n] = '\0';
    if (*path) {
        errno = ENOENT;
        return NULL;
    }
    if (t->root_unheld) {
        const char *below = beneath_windows(t, rel);
        if (!below)
            return NULL;
        return *below ? rt_os_path_ci(t->windows, below, 1)
                      : strdup(t->windows);
    }
    return n ? rt_os_path_ci(t->root, rel, 1) : strdup(t->root);
}

/* 1 a file, 2 a folder, 0 neither, or -1 where a link or special file
 * stands on the way (refused
 * by the platform layer as every path of the tree is): what lies beyond
 * is not looked at. Or outside the tree held (EACCES: never asked by the
 * engine, which knows it from root_unheld). -2 out of memory: a file
 * not looked for is not missing. -3 two names on the way that differ
 * only in case (EEXIST): which of them Windows uses is not known, and
 * neither is judged (a folder and its twin were taken for a file). */
static int tree_exists(void *ctx, const char *path)
{
    char *cur = tree_find(ctx, path);
    if (!cur)
        return errno == ENOMEM ? -2
               : errno == EEXIST ? -3
               : errno == ELOOP || errno == ENODEV || errno == EXDEV ||
                       errno == EACCES
                   ? -1
                   : 0;
    struct rt_os_stat st;
    int r = rt_os_stat(cur, &st) != 0 ? (errno == ELOOP || errno == ENODEV ||
                                          errno == EXDEV ? -1 : 0)
            : st.kind == RT_OS_OTHER ? -1
            : st.kind == RT_OS_DIR ? 2
            : st.kind != RT_OS_ABSENT;
    free(cur);
    return r;
}

static int tree_list(void *ctx, const char *dir,
                     void (*each)(void *arg, const char *name), void *arg)
{
    char *cur = tree_find(ctx, dir);
    char **names;
    size_t count;
    int r = cur && rt_os_list_dir(cur, &names, &count) == 0 ? 0 : -1;
    free(cur);
    if (r != 0)
        return -1;
    for (size_t i = 0; i < count; i++)
        each(arg, names[i]);
    rt_os_free_list(names, count);
    return 0;
}

/* The environment strings a Library may use whose values the machine
 * defines in its registry (Windows builds each process's environment from
 * these): a system variable of the control set's Session Manager\
 * Environment first, which wins where it is (review 47 R47-5), else the
 * value below HKLM\SOFTWARE that setup keeps for it. */
#define CURRENT_VERSION "Microsoft\\Windows\\CurrentVersion"
#define PROFILE_LIST "Microsoft\\Windows NT\\CurrentVersion\\ProfileList"
#define SESSION_MANAGER "Control\\Session Manager"
#define ENVIRONMENT SESSION_MANAGER "\\Environment"
#define IN_ENVIRONMENT(name)                                                 \
    name, "SYSTEM\\CurrentControlSet\\" ENVIRONMENT "\\" name
#define IN_SOFTWARE(key, name) key, name, "SOFTWARE\\" key "\\" name
#define ALSO_IN_SOFTWARE(key, name) name, "SOFTWARE\\" key "\\" name
static const struct machine_var {
    const char *var;
    const char *env_name, *env_where;     /* in Session Manager\Environment */
    const char *key, *name, *where;       /* below SOFTWARE, or NULL */
    int system_set;     /* set by the system itself, the registry's aside */
    /* SOFTWARE's other value for it, or NULL: a 64-bit machine's
     * ProgramW6432Dir, which some say a 64-bit reader's ProgramFiles is
     * taken from (review 50 R50-4). */
    const char *alt, *alt_where;
} machine_vars[] = {
    {"%programfiles%", IN_ENVIRONMENT("ProgramFiles"),
     IN_SOFTWARE(CURRENT_VERSION, "ProgramFilesDir"), 0,
     ALSO_IN_SOFTWARE(CURRENT_VERSION, "ProgramW6432Dir")},
    {"%programfiles(x86)%", IN_ENVIRONMENT("ProgramFiles(x86)"),
     IN_SOFTWARE(CURRENT_VERSION, "ProgramFilesDir (x86)"), 0, NULL, NULL},
    {"%programw6432%", IN_ENVIRONMENT("ProgramW6432"),
     IN_SOFTWARE(CURRENT_VERSION, "ProgramW6432Dir"), 0, NULL, NULL},
    {"%commonprogramfiles%", IN_ENVIRONMENT("CommonProgramFiles"),
     IN_SOFTWARE(CURRENT_VERSION, "CommonFilesDir"), 0,
     ALSO_IN_SOFTWARE(CURRENT_VERSION, "CommonW6432Dir")},
    {"%commonprogramfiles(x86)%", IN_ENVIRONMENT("CommonProgramFiles(x86)"),
     IN_SOFTWARE(CURRENT_VERSION, "CommonFilesDir (x86)"), 0, NULL, NULL},
    {"%commonprogramw6432%", IN_ENVIRONMENT("CommonProgramW6432"),
     IN_SOFTWARE(CURRENT_VERSION, "CommonW6432Dir"), 0, NULL, NULL},
    {"%programdata%", IN_ENVIRONMENT("ProgramData"),
     IN_SOFTWARE(PROFILE_LIST, "ProgramData"), 0, NULL, NULL},
    {"%allusersprofile%", IN_ENVIRONMENT("ALLUSERSPROFILE"),
     IN_SOFTWARE(PROFILE_LIST, "ProgramData"), 0, NULL, NULL},
    {"%public%", IN_ENVIRONMENT("PUBLIC"),
     IN_SOFTWARE(PROFILE_LIST, "Public"), 0, NULL, NULL},
    {"%windir%", IN_ENVIRONMENT("windir"), NULL, NULL, NULL, 0, NULL, NULL},
    /* Set by the system before the registry's; a value of the
     * Environment key replaces it (review 49 R49-8). */
    {"%systemroot%", IN_ENVIRONMENT("SystemRoot"), NULL, NULL, NULL, 1, NULL,
     NULL},
    {"%systemdrive%", IN_ENVIRONMENT("SystemDrive"), NULL, NULL, NULL, 1,
     NULL, NULL},
    /* No variable: the drive letter setup gave the system (review 51
     * R51-1: another than C: makes every drive letter one not known). */
    {RT_AUDIT_SETUP_ROOT, NULL, NULL,
     IN_SOFTWARE("Microsoft\\Windows NT\\CurrentVersion", "SystemRoot"), 1,
     NULL, NULL},
};
enum { N_MACHINE_VARS = sizeof machine_vars / sizeof *machine_vars };

/* One place of M's variable (PLACE 0: the Environment key's NAME, else
 * SOFTWARE's KEY\NAME) into *ENV: 1 with its value or the PROBLEM that
 * keeps it from being taken (empty, not a string, not UTF-16: review 47
 * R47-2; a place that cannot be read, a damaged cell on the way, the
 * name held in two letter cases, a .reg's numbered control set: review
 * 48 R48-2 to R48-4); 0 when it holds none (*KEY_THERE whether its key
 * is); -1 when memory ran out. */
static int machine_place(struct rt_store *s, const struct machine_var *m,
                         int place, const char *key, const char *name,
                         const char *where, struct rt_audit_env *env,
                         int *key_there)
{
    struct rt_value v = {0};
    struct rt_error e = {0};
    int present = 0;
    int failed = s->ops->read_machine(s, !place, key, name, &v, &present,
                                      &e) != 0;
    if (failed && e.code == RT_ERR_NOT_ENOUGH_MEMORY)
        return -1;
    *key_there = present == 0;
    if (!failed && present <= 0)
        return 0;
    char *text = NULL, *problem = NULL;
    int string = v.type == RT_REG_SZ || v.type == RT_REG_EXPAND_SZ;
    /* The Environment key's REG_SZ is taken as typed (Windows expands a
     * system variable's REG_EXPAND_SZ only); setup's values below
     * SOFTWARE are expanded whatever their type. */
    int typed = !place && v.type == RT_REG_SZ;
    int r = failed ? 0 : rt_value_to_string(&v, &text);
    rt_value_free(&v);
    if (r != 0)
        return -1;
    if (failed) {
        if (asprintf(&problem, "could not be read (%s)", e.message) < 0)
            problem = NULL;
    } else if (!string)
        problem = strdup("is not a string (REG_SZ or REG_EXPAND_SZ)");
    else if (!text)
        problem = strdup("is not UTF-16 text");
    else if (!*text)
        problem = strdup("is empty");
    if (failed || !string || !text || !*text) {
        free(text);
        text = NULL;
        if (!problem)
            return -1;      /* its words ran out of memory */
    }
    *env = (struct rt_audit_env){m->var, text, typed, where, problem};
    return 1;
}

/* What S's machine holds for VAR's variable (M) into *ENV, judged whole:
 * the value its places agree on. One that cannot be taken (machine_place)
 * is not judged, its PROBLEM said: each was taken for setup's. So is one
 * two places set differently (the Environment key's ProgramFiles and
 * SOFTWARE's ProgramFilesDir, or a 64-bit machine's ProgramFilesDir and
 * ProgramW6432Dir: review 50 R50-4, R50-5; which one a reading process
 * gets is not settled), and one its machine does not set where setup's
 * key for it is there (review 49 R49-11: an Environment key without
 * windir; Windows leaves the variable unexpanded, a relative path the
 * loader searches for): setup's is taken only where that key is not
 * there, a tree setup has not written. 1 when found or not judged, 0
 * when setup's is taken, -1 when memory ran out. */
static int machine_value(struct rt_store *s, const struct machine_var *m,
                         struct rt_audit_env *env)
{
    const char *keys[3] = {ENVIRONMENT, m->key, m->key};
    const char *names[3] = {m->env_name, m->name, m->alt};
    const char *wheres[3] = {m->env_where, m->where, m->alt_where};
    /* The place setup writes the variable at: SOFTWARE's where it has
     * one, the Environment key's for the rest. */
    int setup_place = m->key ? 1 : 0, unset = 0, have = 0, gone = 0;
    struct rt_audit_env got = {0};
    for (int place = 0; place < 3; place++) {
        if (!keys[place] || !names[place])
            continue;
        struct rt_audit_env cur;
        int key_there = 0;
        int r = machine_place(s, m, place, keys[place], names[place],
                              wheres[place], &cur, &key_there);
        if (r == 0) {
            unset |= place == setup_place && key_there && !m->system_set;
            gone |= place == setup_place && !key_there && !m->system_set;
            continue;
        }
        if (r > 0 && !cur.problem && have &&
            !strcasecmp(cur.value, got.value)) {
            free((char *)cur.value);
            continue;
        }
        if (r > 0 && !cur.problem && have) {
            char *problem = NULL;
            if (asprintf(&problem, "is not what %s sets: which of the two "
                         "Windows gives is not known", cur.where) < 0)
                problem = NULL;
            free((char *)cur.value);
            cur = (struct rt_audit_env){m->var, NULL, 0, got.where, problem};
            r = problem ? 1 : -1;
        }
        if (have)
            free((char *)got.value);
        if (r < 0)
            return -1;
        got = cur;
        have = 1;
        if (got.problem)
            break;
    }
    /* The key itself taken away on a machine setup wrote, one whose
     * SYSTEM holds Control\Session Manager, which every Windows boots
     * by (review 51 R51-2: Session Manager without Environment; review
     * 52 R52-1: SOFTWARE without Microsoft\Windows, the nearest parent
     * asked then). */
    int machine = 0;
    if (!have && !unset && gone) {
        struct rt_value v = {0};
        struct rt_error e = {0};
        int present = -1;
        if (s->ops->read_machine(s, 1, SESSION_MANAGER, "\x01", &v, &present,
                                 &e) == 0 && present > 0)
            rt_value_free(&v);
        else if (e.code == RT_ERR_NOT_ENOUGH_MEMORY)
            return -1;
        machine = present >= 0;
    }
    if (!have && (unset || machine)) {
        char *problem = strdup(unset ? "is not set, though its key is: "
                                       "Windows leaves the variable "
                                       "unexpanded"
                                     : "is not set, and its key is not there "
                                       "though the machine's Session Manager "
                                       "is: Windows leaves the variable "
                                       "unexpanded");
        if (!problem)
            return -1;
        got = (struct rt_audit_env){m->var, NULL, 0, wheres[setup_place],
                                    problem};
        have = 1;
    }
    if (have)
        *env = got;
    return have;
}

/* Frees the N values and problems of ENV. */
static void env_free(struct rt_audit_env *env, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free((char *)env[i].value);
        free((char *)env[i].problem);
    }
}

/* The values S's machine gives the variables of machine_vars, into ENV
 * (each value a new string; *N how many). 0, or -1 when memory ran
 * out. */
static int machine_env(struct rt_store *s, struct rt_audit_env *env,
                       size_t *n)
{
    *n = 0;
    for (size_t i = 0; s->ops->read_machine && i < N_MACHINE_VARS; i++) {
        int r = machine_value(s, &machine_vars[i], &env[*n]);
        if (r < 0) {
            env_free(env, *n);
            *n = 0;
            return -1;
        }
        *n += (size_t)r;
    }
    return 0;
}

static int library_checks(struct rt_store *s, const struct rt_database *db,
                          struct rt_findings *f)
{
    const char *win = rt_op_windows_dir(s);
    struct tree_ctx t = {.windows = win};
    struct rt_audit_tree tree = {tree_exists, &t, NULL, tree_list, NULL,
                                 NULL, 0};
    /* A store without a Windows directory still defines its machine's
     * environment strings: no files to look at, the values alone. */
    struct rt_audit_tree values = {NULL, NULL, NULL, NULL, NULL, NULL, 0};
    struct rt_audit_env env[N_MACHINE_VARS];
    size_t n_env = 0;
    if (machine_env(s, env, &n_env) != 0)
        return -1;
    tree.env = values.env = env;
    tree.n_env = values.n_env = n_env;
    if (win) {
        snprintf(t.root, sizeof t.root, "%s", win);
        char *slash = strrchr(t.root, '/');
#ifdef _WIN32
        char *bs = strrchr(t.root, '\\');
        if (bs && (!slash || bs > slash))
            slash = bs;
#endif
        tree.windows_dir = win + (slash ? (size_t)(slash - t.root) + 1 : 0);
        /* A root keeps its separator: / and, on Windows, a drive's. */
        int drive_root = 0;
#ifdef _WIN32
        drive_root = slash == t.root + 2 && t.root[1] == ':';
#endif
        if (!slash)
            snprintf(t.root, sizeof t.root, ".");
        else if (slash == t.root || drive_root)
            slash[1] = '\0';
        else
            *slash = '\0';
        t.name = tree.windows_dir;
        /* An offline store holds the Windows directory; its parent, only
         * when the tree is a disk laid out as one or lies in a folder
         * confined (a fleet's). Asked without a look at the folder. The
         * live registry's Windows directory is this machine's own, none
         * of it held: its drive is looked at as it stands. */
        t.root_unheld = rt_os_is_confined(win) && !rt_os_is_confined(t.root);
        if (t.root_unheld) {
            snprintf(t.why, sizeof t.why,
                     "the volume's root above %.200s is not part of the tree "
                     "opened", t.name);
            tree.root_unheld = t.why;
        }
    }
    int rc = rt_audit_libraries(db, win ? &tree : n_env ? &values : NULL, f);
    /* A hive pair or a .reg file has no files beside it: said, as a tree
     * without system files is, so that a clean audit of uploaded hives
     * is not read as "every Library is there" (review 53 R53-7); where
     * no provider names a Library, nothing went unchecked. */
    size_t named = 0;
    for (size_t i = 0; !win && i < db->n_services; i++)
        named += db->services[i].has_perf &&
                 !rt_audit_blank(db->services[i].library);
    if (rc == 0 && named &&
        rt_findings_add(f, "library-files-unchecked", RT_AUDIT_INFO, NULL,
                        NULL, NULL,
                        "the store has no Windows tree beside it: "
                        "whether each Library exists, and what stands on "
                        "its way, is not checked, and an environment "
                        "string its hives do not set is taken at Windows "
                        "setup's value") != 0)
        rc = -1;
    env_free(env, n_env);
    return rc;
}

int rt_op_key_findings(struct rt_store *s, struct rt_findings *f,
                       struct rt_error *e)
{
    struct rt_key_anomaly *v = NULL;
    size_t n = 0;
    if (!s->ops->key_anomalies)
        return 0;
    if (s->ops->key_anomalies(s, &v, &n, e) != 0)
        return 1;
    int r = rt_audit_key_anomalies(v, n, f) != 0 ? -1 : 0;
    rt_key_anomalies_free(v, n);
    return r;
}

/* What the store found in its journal's place, as a finding: one that is
 * refused stops every writer (an error), a committed change the files do
 * not hold yet is a warning (the tables audited are the files', not what
 * the journal says: a journal never makes an audit clean), one never
 * committed is said. */
static int journal_finding(struct rt_store *s, struct rt_findings *f)
{
    int kind = 0;
    const char *line = s->ops->journal_state
                           ? s->ops->journal_state(s, &kind) : NULL;
    if (!line)
        return 0;
    return rt_findings_add(
        f,
        kind == RT_JOURNAL_REFUSED   ? "journal-refused"
        : kind == RT_JOURNAL_PENDING ? "journal-pending"
                                     : "journal-unsealed",
        kind == RT_JOURNAL_REFUSED   ? RT_AUDIT_ERROR
        : kind == RT_JOURNAL_PENDING ? RT_AUDIT_WARNING
                                     : RT_AUDIT_INFO,
        NULL, NULL, NULL, "%s", line);
}

int rt_op_audit(struct rt_store *s, const struct rt_audit_options *opt,
                unsigned scope, int look_at_disk, struct rt_findings *f)
{
    struct rt_error e = {0};
    struct rt_database db;
    int tables = (scope & RT_OP_AUDIT_TABLES) != 0;
    /* Said first, readable database or not. */
    if (journal_finding(s, f) != 0)
        return -1;
    /* The tables as blobs (UTF-16, indexed): no decoding; the libraries
     * alone read no table. */
    const struct rt_db_load_options load = {
        tables ? RT_DB_TABLES_ALL : RT_DB_TABLES_NONE, NULL, 0, 0, NULL};
    int loaded = rt_database_load_with(s, &db, &load, &e) == 0;
    /* The store's other copies of the tables (SysWOW64's, a hive's). */
    if (loaded && tables && rt_database_load_copies(s, &db, &e) != 0) {
        rt_database_free(&db);
        loaded = 0;
    }
    if (!loaded && e.code == RT_ERR_NOT_ENOUGH_MEMORY)
        return -2;
    if (!loaded)
        return rt_findings_add(f, "database-unreadable", RT_AUDIT_ERROR, NULL,
                               NULL, NULL, "%s", e.message) != 0 ? -2 : 1;
    /* Keys Windows reads otherwise than this load did (a link, two
     * names for one key): each an error, whatever else is checked. */
    int r = rt_op_key_findings(s, f, &e);
    if (r > 0 && e.code == RT_ERR_NOT_ENOUGH_MEMORY)
        r = -1;
    if (r > 0) {
        rt_database_free(&db);
        return rt_findings_add(f, "database-unreadable", RT_AUDIT_ERROR, NULL,
                               NULL, NULL, "%s", e.message) != 0 ? -2 : 1;
    }
    int failed = r != 0;
    failed |= tables && rt_audit(&db, opt, f) != 0;
    if (scope & RT_OP_AUDIT_LIBRARIES)
        failed |= (look_at_disk ? library_checks(s, &db, f)
                                : rt_audit_libraries(&db, NULL, f)) != 0;
    rt_database_free(&db);
    return failed ? -1 : 0;
}

static int audit_spec(const char *spec, const regtool_open_options *open,
                      int read_once, const struct rt_audit_options *opt,
                      int libraries_only, char **layout,
                      struct rt_findings *f, struct rt_name_db_gauges *g,
                      const char *output, int *owns_output)
{
    struct rt_error e = {0};
    int bad_spec;
    *layout = NULL;
    struct rt_store *s = rt_op_open_store(spec, open, read_once, &e,
                                          &bad_spec);
    /* Memory running out is this machine's failure, not the store's:
     * no finding (a monitor would call a healthy database unreadable). */
    if (!s && e.code == RT_ERR_NOT_ENOUGH_MEMORY)
        return -2;
    if (!s && output)
        *owns_output = rt_op_spec_names_file(
            spec, open ? open->tables : NULL, output);
    if (!s)
        return rt_findings_add(f, "store-unreadable", RT_AUDIT_ERROR, NULL,
                               NULL, NULL, "%s", e.message) != 0 ? -2 : 0;
    *layout = strdup(rt_op_layout_text(s));
    if (output)
        *owns_output = rt_op_owns_file(s, output);
    /* A PerfStringBackup file holds each provider's ranges and strings,
     * never its Library or procedures: who gets loaded is not in it to
     * check, and its absence is no finding. */
    int holds_libraries = rt_op_holds_libraries(s);
    unsigned scope = libraries_only ? 0 : RT_OP_AUDIT_TABLES;
    if (holds_libraries && (libraries_only || !opt->language))
        scope |= RT_OP_AUDIT_LIBRARIES;
    int rc = rt_op_audit(s, opt, scope, 1, f);
    /* The gauges only of a database the audit could read: one that
     * cannot be read is the finding database-unreadable already. */
    if (g && rc == 0) {
        int gr = rt_op_name_db_gauges(s, g, &e);
        if (gr > 0)
            rc = rt_findings_add(f, "database-unreadable", RT_AUDIT_ERROR,
                                 NULL, NULL, NULL, "%s", e.message) != 0
                     ? -1 : 0;
        else if (gr < 0)
            rc = -1;
    }
    if (rc == 0 && libraries_only && !holds_libraries &&
        rt_findings_add(f, "libraries-not-in-store", RT_AUDIT_INFO, NULL,
                        NULL, NULL,
                        "%s is a PerfStringBackup file: it holds no "
                        "provider's Library, Open, Collect or Close, so "
                        "who gets loaded is not checked (audit the "
                        "machine's hives for that)", spec) != 0)
        rc = -1;
    rt_op_close(s);
    rt_findings_sort(f);
    return rc == 1 ? 0 : rc;
}

int rt_op_audit_spec(const char *spec, const regtool_open_options *open,
                     int read_once, const struct rt_audit_options *opt,
                     int libraries_only, char **layout,
                     struct rt_findings *f)
{
    return audit_spec(spec, open, read_once, opt, libraries_only, layout, f,
                      NULL, NULL, NULL);
}

int rt_op_audit_spec_gauges(const char *spec, const regtool_open_options *open,
                            int read_once, const struct rt_audit_options *opt,
                            int libraries_only, char **layout,
                            struct rt_findings *f, struct rt_name_db_gauges *g,
                            const char *output, int *owns_output)
{
    if (output)
        *owns_output = 0;
    return audit_spec(spec, open, read_once, opt, libraries_only, layout, f,
                      g, output, owns_output);
}
