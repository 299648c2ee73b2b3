/* Store layer: a .reg file as a store (store/store_reg.h). The file is
 * parsed into a registry tree whose children are the root keys; reads
 * follow the paths Windows uses, writes apply the change set to the tree,
 * write it out as a whole new file and rename it over the old one, so a
 * failure at any point leaves the file as it was; the tree is then read
 * again from the file (a copy to change would double the memory of a
 * file of millions of values). */
#include "store/store_reg.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commit/io.h"
#include "commit/journal.h"
#include "model/reg_file.h"
#include "model/regtree.h"
#include "model/size_caps.h"
#include "model/utf16.h"
#include "platform/compat.h"
#include "platform/os.h"
#include "store/tree_store.h"

#define PERFLIB \
    "HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services"

struct reg_store {
    struct rt_store base;
    char *path;
    char *codepage;
    char *layout;
    enum rt_reg_format format;
    struct rt_tree_key *root;
    /* The file as read: a write refuses to replace a file that another
     * program changed since. */
    size_t file_len;
    uint64_t file_hash;
    size_t fail_after;      /* test hook, 0 = off */
    int locked;
    /* ROOT was changed by a write that failed and could not yet be read
     * again from the file: every use reads it first. */
    int stale;
    /* One writer at a time (FILE.lock, as the hive store's): without it,
     * two writers that read the same file could both pass the check
     * above and the second rename would drop the first one's change. */
    struct rt_lock *lock;
    /* FILE's directory, confined (rt_os_confine): whoever can write there
     * may plant links as FILE.lock or a temporary file's name. PATH is
     * FILE beneath it, SHOWN as the user gave it (for messages). */
    char *dir, *shown;
    /* The link keys the file holds (found as it is read): reported by
     * audit, refused by every writer, as the hive store's. */
    struct rt_key_anomaly *links;
    size_t n_links;
};

static int load_file(struct reg_store *r, struct rt_error *e);

static struct reg_store *rs(struct rt_store *s)
{
    return (struct reg_store *)s;
}

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* The temporary files of replacements that never reached their rename
 * (rt_io_replace_file: FILE.tmp. and sixteen hex digits), left by a writer
 * that crashed. Only the lock's holder writes one, so under the lock any
 * there is stale. */
static void remove_stale_temporaries(const char *path)
{
    const char *slash = rt_os_last_separator(path);
    char *dir = rt_os_folder_of(path);
    const char *base = slash ? slash + 1 : path;
    char **names;
    size_t n, blen = strlen(base);
    if (!dir || rt_os_list_dir(dir, &names, &n) != 0) {
        free(dir);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        const char *x = names[i];
        if (strncmp(x, base, blen) || strncmp(x + blen, ".tmp.", 5) ||
            strlen(x + blen + 5) != 16 ||
            strspn(x + blen + 5, "0123456789abcdef") != 16)
            continue;
        char *p = NULL;
        if (asprintf(&p, "%s/%s", dir, x) >= 0)
            rt_os_unlink(p);
        free(p);
    }
    rt_os_free_list(names, n);
    free(dir);
}

/* The file as it is now, when it holds no more bytes than when it was
 * loaded (a longer one has changed: not read, whatever its size); -1
 * otherwise. */
static int read_if_same_size(const struct reg_store *r, uint8_t **now,
                             size_t *now_len)
{
    return rt_os_read_file_max(r->path, r->file_len, now, now_len);
}

/* The writer's lock beside the file: FILE.lock, a new string (NULL out
 * of memory). */
static char *lock_path_of(const char *file)
{
    char *lock_path = NULL;
    return asprintf(&lock_path, "%s.lock", file) < 0 ? NULL : lock_path;
}

int rt_store_reg_lock(const char *file, struct rt_lock **lock,
                      struct rt_error *e)
{
    char *lock_path = lock_path_of(file);
    if (!lock_path)
        return oom(e);
    const struct rt_lock_wait w = {60, NULL, NULL};
    int rc = rt_lock_acquire(lock_path, &w, lock, e);
    free(lock_path);
    return rc;
}

static int reg_begin(struct rt_store *s, struct rt_error *e)
{
    struct reg_store *r = rs(s);
    if (r->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "reg store: transaction already open");
    if (rt_store_reg_lock(r->path, &r->lock, e) != 0)
        return -1;
    int rc = 0;
    remove_stale_temporaries(r->path);
    /* What another writer committed while this one waited is read under
     * the lock: the transaction works on the file as it is now. */
    uint8_t *now = NULL;
    size_t now_len = 0;
    if (r->stale || read_if_same_size(r, &now, &now_len) != 0 ||
        now_len != r->file_len || rt_blob_hash(now, now_len) != r->file_hash)
        rc = load_file(r, e);
    free(now);
    if (rc != 0) {
        rt_lock_release(r->lock);
        r->lock = NULL;
        return -1;
    }
    r->locked = 1;
    return 0;
}

static void reg_end(struct rt_store *s)
{
    rt_lock_release(rs(s)->lock);
    rs(s)->lock = NULL;
    rs(s)->locked = 0;
}

static const struct rt_tree_paths paths = {PERFLIB, SERVICES, NULL};

/* The tree, read again first when a failed write left it changed. */
static struct rt_tree_key *tree(struct rt_store *s, struct rt_error *e)
{
    struct reg_store *r = rs(s);
    return r->stale && load_file(r, e) != 0 ? NULL : r->root;
}

static int reg_list_languages(struct rt_store *s, char ***langs, size_t *n,
                              struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    return t ? rt_tree_store_list_languages(t, &paths, langs, n, e) : -1;
}

static int reg_read_table(struct rt_store *s, const char *lang,
                          enum rt_table_kind t, struct rt_value *out,
                          int *present, struct rt_error *e)
{
    struct rt_tree_key *root = tree(s, e);
    return root ? rt_tree_store_read_table(root, &paths, lang, t, out,
                                           present, e)
                : -1;
}

static int reg_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    return t ? rt_tree_store_read_perflib(t, &paths, name, out, present, e)
             : -1;
}

static int reg_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    return t ? rt_tree_store_list_perf_services(t, &paths, names, n, e) : -1;
}

static int reg_service_state(struct rt_store *s, const char *service,
                             int *exists, int *has_perf, struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    if (!t)
        return -1;
    rt_tree_store_service_state(t, &paths, service, exists, has_perf);
    return 0;
}

static int reg_read_service(struct rt_store *s, const char *service,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    return t ? rt_tree_store_read_service(t, &paths, service, name, out,
                                          present, e)
             : -1;
}

/* The machine's values audit --libraries asks for (the environment
 * strings it defines), where the file holds them: a .reg of a whole
 * machine has them beside Perflib and Services (review 47 R47-6: its
 * windir was not read). */
static int reg_read_machine(struct rt_store *s, int system, const char *key,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    struct rt_tree_key *t = tree(s, e);
    char *path = NULL;
    if (!t)
        return -1;
    if (asprintf(&path, "HKEY_LOCAL_MACHINE\\%s\\%s",
                 system ? "SYSTEM\\CurrentControlSet" : "SOFTWARE", key) < 0)
        return oom(e);
    int r = rt_tree_store_read_at(t, path, name, out, present, e);
    free(path);
    if (r != 0 || !system)
        return r;
    /* Where reg import writes a machine's control set (ControlSet001),
     * which is what CurrentControlSet stands for on a machine booted from
     * it: a value there is not this store's to tell (review 48 R48-4: it
     * was passed over, setup's taken). */
    struct rt_tree_key *sys = rt_tree_find(t, "HKEY_LOCAL_MACHINE\\SYSTEM");
    for (size_t i = 0; sys && i < sys->n_sub; i++) {
        const char *set = sys->sub[i]->name;
        if (strlen(set) != 13 || strncasecmp(set, "ControlSet", 10) ||
            !isdigit((unsigned char)set[10]) ||
            !isdigit((unsigned char)set[11]) ||
            !isdigit((unsigned char)set[12]))
            continue;
        struct rt_tree_key *k = rt_tree_find(sys->sub[i], key);
        /* Also where CurrentControlSet sets it: reg import writes both
         * into one key, the later over the earlier (review 49 R49-3). */
        if (k && rt_tree_value(k, name)) {
            if (*present > 0)
                rt_value_free(out);
            *present = 0;
            return rt_error_set(e, RT_ERR_BADDB,
                                "%s sets %s of %s under SYSTEM\\%s, a "
                                "control set this store does not read",
                                rs(s)->shown, name, key, set);
        }
        /* The key there without it: the machine's, as CurrentControlSet's
         * would be (review 51 R51-5: setup's value was taken). */
        if (k && *present < 0)
            *present = 0;
    }
    return 0;
}

/* The tree as the file's bytes, in the file's dialect. */
static int serialize(struct reg_store *r, const struct rt_tree_key *root,
                     uint8_t **out, size_t *len, struct rt_error *e)
{
    struct rt_reg_error re;
    /* No larger than its reader takes: a store written past the cap
     * would be refused by every later run, this one's undo included. */
    if (rt_reg_write_tree(root, r->format, r->codepage, RT_REG_FILE_MAX, out,
                          len, &re) != 0)
        return re.nomem ? oom(e)
                        : rt_error_set(e, RT_ERR_INVALID_DATA,
                                       "%s: %s%s: nothing was written",
                                       r->shown, re.message,
                                       re.too_large ? " (regtool reads no "
                                                      "larger one)"
                                                    : "");
    return 0;
}

/* A write failed after changing the tree: the file, which nothing has
 * written, is read again (when that fails too, the next use tries). */
static int taken_back(struct reg_store *r)
{
    struct rt_error again;
    r->stale = 1;
    load_file(r, &again);
    return -1;
}

/* What the run's rt_io_replace_file refuses, said by the dry run (review
 * 53 R53-6): the file immutable or append-only, or its folder so. */
static int replaceable(const struct reg_store *r, struct rt_error *e)
{
    int refused = rt_os_name_replaceable(r->path) != 0 && errno == EPERM;
    if (!refused) {
        char *dir = rt_os_folder_of(r->path);
        if (!dir)
            return oom(e);
        refused = rt_os_folder_takes_files(dir) != 0 && errno == EPERM;
        free(dir);
    }
    if (!refused)
        return 0;
    return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                        "cannot replace %s: %s: nothing was written",
                        r->shown, rt_os_strerror(EPERM));
}

/* CS made in the tree and the file's new bytes made from it: the file
 * replaced with them, or with CHECK_ONLY (a dry run) nothing written and
 * the tree read again, what a write would refuse refused alike. */
static int reg_change(struct rt_store *s, const struct rt_change_set *cs,
                      int check_only, struct rt_error *e)
{
    struct reg_store *r = rs(s);
    /* A test's injected failure is the write's, not its check's. */
    size_t fail_after = check_only ? 0 : r->fail_after;
    if (!check_only)
        r->fail_after = 0;
    struct rt_tree_key *root = tree(s, e);
    if (!root)
        return -1;
    if (rt_tree_store_apply_here(root, &paths, cs, fail_after, "reg", e) != 0)
        return taken_back(r);
    uint8_t *bytes;
    size_t len;
    if (rt_io_interrupted(e) || serialize(r, root, &bytes, &len, e) != 0)
        return taken_back(r);
    if (check_only) {
        free(bytes);
        taken_back(r);
        return replaceable(r, e);
    }
    /* The rename below is this store's commit point: an interrupt before
     * it leaves the file as it was. */
    if (rt_io_interrupted(e)) {
        free(bytes);
        return taken_back(r);
    }
    /* Another program's change since we read the file would be lost
     * without a word: refuse it instead. */
    uint8_t *now = NULL;
    size_t now_len = 0;
    struct rt_os_stat st;
    int changed = read_if_same_size(r, &now, &now_len) != 0 ||
                  now_len != r->file_len ||
                  rt_blob_hash(now, now_len) != r->file_hash;
    free(now);
    if (changed) {
        free(bytes);
        rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                     "%s changed since regtool read it: nothing was written "
                     "(run the command again)", r->shown);
        return taken_back(r);
    }
    unsigned mode = rt_os_stat(r->path, &st) == 0 ? st.mode : 0644;
    /* Counted, so that a test can stop the process at each step. */
    if (rt_io_replace_file(r->path, bytes, len, mode) != 0) {
        int err = errno;
        free(bytes);
        if (rt_io_interrupted(e))
            return taken_back(r);
        rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                      : RT_ERR_ACCESS_DENIED,
                     "cannot replace %s: %s: nothing was written", r->shown,
                     rt_os_strerror(err));
        return taken_back(r);
    }
    r->file_len = len;
    r->file_hash = rt_blob_hash(bytes, len);
    free(bytes);
    return 0;
}

static int reg_apply(struct rt_store *s, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    return reg_change(s, cs, 0, e);
}

/* A dry run takes no lock: what the writer's begin() would refuse its
 * lock file for (a folder, a FIFO, a link, a second name) is checked
 * first, in its words (review 39 F5). */
static int reg_check_apply(struct rt_store *s, const struct rt_change_set *cs,
                           struct rt_error *e)
{
    char *lock_path = lock_path_of(rs(s)->path);
    if (!lock_path)
        return oom(e);
    int r = rt_lock_check(lock_path, e);
    free(lock_path);
    return r != 0 ? -1 : cs->n ? reg_change(s, cs, 1, e) : 0;
}

static const char *reg_layout(struct rt_store *s)
{
    return rs(s)->layout;
}

static void reg_close(struct rt_store *s)
{
    if (!s)
        return;
    rt_lock_release(rs(s)->lock);
    rt_os_unconfine(rs(s)->dir);
    free(rs(s)->dir);
    rt_tree_free(rs(s)->root);
    rt_key_anomalies_free(rs(s)->links, rs(s)->n_links);
    free(rs(s)->path);
    free(rs(s)->shown);
    free(rs(s)->codepage);
    free(rs(s)->layout);
    free(s);
}

static int reg_key_anomalies(struct rt_store *s, struct rt_key_anomaly **out,
                             size_t *n, struct rt_error *e)
{
    struct reg_store *r = rs(s);
    *out = NULL;
    *n = 0;
    if (!r->n_links)
        return 0;
    struct rt_key_anomaly *v = calloc(r->n_links, sizeof *v);
    if (!v)
        return oom(e);
    for (size_t i = 0; i < r->n_links; i++) {
        v[i] = r->links[i];
        v[i].key = strdup(r->links[i].key);
        v[i].other = r->links[i].other ? strdup(r->links[i].other) : NULL;
        if (!v[i].key || (r->links[i].other && !v[i].other)) {
            rt_key_anomalies_free(v, i + 1);
            return oom(e);
        }
    }
    *out = v;
    *n = r->n_links;
    return 0;
}

/* What is left of the file's cap, over what a table byte takes in it:
 * hex, three characters ("xx,") a byte, 25 to a line with its "\",
 * line break and indent: 3.2 characters, counted 3.25 (a value's name and
 * type besides). A character is two bytes in UTF-16LE, one in UTF-8; in
 * REGEDIT4 the table's text is in the code page first, a table byte half
 * a character in a code page of one byte a character and up to a whole
 * one in those of two (936, 932, 949, 950): counted so. A change whose
 * new tables come to more would make a file past the cap, and is refused
 * before it is made (its dry run too; reviews 36 F4, 37 F1 and F2). */
static uint64_t reg_change_max(struct rt_store *st)
{
    struct reg_store *r = rs(st);
    uint64_t room = RT_REG_FILE_MAX > r->file_len
                        ? RT_REG_FILE_MAX - r->file_len : 0;
    return r->format == RT_REG_V5_UTF16 ? room * 4 / 26 : room * 4 / 13;
}

/* The file itself and its writer's lock (FILE.lock). */
static int reg_own_file(struct rt_store *st, const char *path)
{
    static const char *const file_and_lock[] = {"", ".lock", NULL};
    return rt_os_names_file(path, rs(st)->path, file_and_lock) >= 0;
}

static const struct rt_store_ops reg_ops = {
    .kind = "reg",
    .begin = reg_begin,
    .end = reg_end,
    .list_languages = reg_list_languages,
    .read_table = reg_read_table,
    .read_perflib = reg_read_perflib,
    .list_perf_services = reg_list_perf_services,
    .service_state = reg_service_state,
    .read_service = reg_read_service,
    .key_anomalies = reg_key_anomalies,
    .read_machine = reg_read_machine,
    .apply = reg_apply,
    .check_apply = reg_check_apply,
    .layout = reg_layout,
    .change_max = reg_change_max,
    .own_file = reg_own_file,
    .close = reg_close,
};

/* PATH's part below key PREFIX ('\\'-separated, compared as Windows
 * compares names), or NULL when PATH is not below it. */
static const char *below(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    if (strlen(path) <= n + 1 || path[n] != '\\' ||
        rt_utf8_casecmp(path, n, prefix, n))
        return NULL;
    return path + n + 1;
}

/* Whether key PATH is one regtool reads as a provider's or a language's
 * (a subkey of Services or of Perflib, or a service's Performance key);
 * *IN_PERFLIB says which. */
static int watched_key(const char *path, int *in_perflib)
{
    const char *rel;
    if ((rel = below(path, PERFLIB))) {
        *in_perflib = 1;
        return !strchr(rel, '\\');
    }
    if (!(rel = below(path, SERVICES)))
        return 0;
    *in_perflib = 0;
    const char *sep = strchr(rel, '\\');
    return !sep || !rt_name_casecmp(sep + 1, "Performance");
}

struct link_seen {
    const struct rt_tree_key *key;
    const struct rt_reg_key *section;
    unsigned line;
    size_t at;          /* the section's index, while the file is read */
};

static int link_seen_cmp(const void *x, const void *y)
{
    const struct link_seen *a = x, *b = y;
    /* By key, the last section that set the value first. */
    if (a->key != b->key)
        return (uintptr_t)a->key < (uintptr_t)b->key ? -1 : 1;
    return a->line > b->line ? -1 : a->line < b->line;
}

static int link_line_cmp(const void *x, const void *y)
{
    const struct link_seen *a = x, *b = y;
    return a->line < b->line ? -1 : a->line > b->line;
}

/* The keys of F (read into ROOT) that a registry holds as symbolic links:
 * a SymbolicLinkValue of type REG_LINK on a subkey of Services or Perflib
 * or a service's Performance key. A .reg file cannot mark a key as a
 * link (reg import makes a plain key of it), but such a value is what a
 * link key holds, and a hive made from the file by another tool may
 * make it one: it is reported as the hive store reports a link key,
 * naming FILE, the line that sets it, the key and its target. */
static int find_links(struct reg_store *r, struct link_seen *seen, size_t n,
                      const struct rt_tree_key *root, struct rt_error *e)
{
    int in_perflib, rc = 0;
    for (size_t i = 0; i < n; i++)
        seen[i].key = rt_tree_find(root, seen[i].section->path);
    /* One report a key, for the last line that set the value, and only
     * when the key still holds it as a REG_LINK. */
    if (n)
        qsort(seen, n, sizeof *seen, link_seen_cmp);
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
        if (!seen[i].key || (i > 0 && seen[i].key == seen[i - 1].key))
            continue;
        const struct rt_tree_value *v =
            rt_tree_value(seen[i].key, "SymbolicLinkValue");
        if (v && v->v.type == RT_REG_LINK)
            seen[kept++] = seen[i];
    }
    if (kept)
        qsort(seen, kept, sizeof *seen, link_line_cmp);
    struct rt_key_anomaly *out = kept ? calloc(kept, sizeof *out) : NULL;
    if (kept && !out)
        rc = oom(e);
    for (size_t i = 0; i < kept && !rc; i++) {
        const struct rt_tree_value *v =
            rt_tree_value(seen[i].key, "SymbolicLinkValue");
        char *target = NULL;
        size_t tlen, bad;
        /* An empty, odd or broken target names no key. */
        if (v->v.len >= 2 && v->v.len % 2 == 0 &&
            rt_utf16le_to_utf8(v->v.data, v->v.len, &target, &tlen, &bad) != 0)
            target = NULL;
        if (target && !*target) {
            free(target);
            target = NULL;
        }
        watched_key(seen[i].section->path, &in_perflib);
        size_t len = strlen(r->shown) + strlen(seen[i].section->path) + 32;
        out[i] = (struct rt_key_anomaly){RT_KEY_LINK, in_perflib,
                                         malloc(len), target};
        if (!out[i].key) {
            rc = oom(e);
            rt_key_anomalies_free(out, i + 1);
            out = NULL;
            break;
        }
        snprintf(out[i].key, len, "%s:%u: %s", r->shown, seen[i].line,
                 seen[i].section->path);
    }
    free(seen);
    if (rc)
        return -1;
    rt_key_anomalies_free(r->links, r->n_links);
    r->links = out;
    r->n_links = kept;
    return 0;
}

/* A key of F under a numbered control set where regtool reads a
 * provider's (HKLM\\SYSTEM\\ControlSet001\\Services\\X, or its Performance
 * key): reg import writes it into that set, which is the one
 * CurrentControlSet stands for on a machine booted from it, over the
 * CurrentControlSet sections regtool reads; a Library set there is not
 * checked. The first is added to R's anomalies (with how many more), as
 * the hive store says a link key. */
static int find_numbered_sets(struct reg_store *r, const struct rt_reg_file *f,
                              struct rt_error *e)
{
    static const char system[] = "HKEY_LOCAL_MACHINE\\SYSTEM";
    const struct rt_reg_key *first = NULL;
    size_t more = 0;
    for (size_t i = 0; i < f->n_keys; i++) {
        const struct rt_reg_key *k = &f->keys[i];
        const char *rel = k->del ? NULL : below(k->path, system);
        unsigned d = 0;
        if (!rel || rt_utf8_casecmp(rel, 10, "ControlSet", 10) ||
            strlen(rel) < 14)
            continue;
        while (d < 3 && rel[10 + d] >= '0' && rel[10 + d] <= '9')
            d++;
        int in_perflib;
        /* ControlSetNNN\Services and what follows: compared only once
         * the path is known to be that long (ControlSet001\S is not). */
        if (d != 3 || rel[13] != '\\' || strlen(rel) < 22 ||
            rt_utf8_casecmp(rel + 13, 9, "\\Services", 9) ||
            (rel[22] && rel[22] != '\\'))
            continue;
        /* The same place under CurrentControlSet: a watched key? */
        char as_current[1024];
        snprintf(as_current, sizeof as_current, "%s%s", SERVICES, rel + 22);
        if (!watched_key(as_current, &in_perflib))
            continue;
        if (!first)
            first = k;
        else
            more++;
    }
    if (!first)
        return 0;
    struct rt_key_anomaly *v =
        realloc(r->links, (r->n_links + 1) * sizeof *v);
    if (!v)
        return oom(e);
    r->links = v;
    size_t len = strlen(r->shown) + strlen(first->path) + 80;
    char *key = malloc(len), *other = malloc(64);
    if (!key || !other) {
        free(key);
        free(other);
        return oom(e);
    }
    snprintf(key, len, "%s:%u: %s", r->shown, first->line, first->path);
    snprintf(other, 64, "%zu more", more);
    v[r->n_links++] = (struct rt_key_anomaly){RT_KEY_NUMBERED_SET, 0, key,
                                              other};
    return 0;
}

/* A file read into a tree value by value (rt_reg_parse_to), never held
 * whole beside it (four million tiny values took twice the memory): its
 * deletions, which make it a patch, and its SymbolicLinkValues noted. */
struct tree_sink {
    struct rt_tree_key *root, *cur;
    unsigned deletes_at;    /* the first line that deletes; 0: none */
    int deletes_key;
    struct link_seen *seen;
    size_t n_seen, cap_seen;
};

static int sink_key(void *ctx, const struct rt_reg_file *f, size_t k)
{
    struct tree_sink *t = ctx;
    const struct rt_reg_key *key = &f->keys[k];
    t->cur = NULL;
    if (key->del) {
        if (!t->deletes_at) {
            t->deletes_at = key->line;
            t->deletes_key = 1;
        }
        return 0;
    }
    t->cur = rt_tree_create(t->root, key->path);
    return t->cur ? 0 : -1;
}

static int sink_value(void *ctx, const struct rt_reg_file *f, size_t k,
                      char *name, int del, struct rt_value *v, unsigned line)
{
    struct tree_sink *t = ctx;
    int in_perflib;
    if (del || !t->cur) {
        if (del && !t->deletes_at)
            t->deletes_at = line;
        free(name);
        rt_value_free(v);
        return 0;
    }
    if (v->type == RT_REG_LINK &&
        !rt_name_casecmp(name, "SymbolicLinkValue") &&
        watched_key(f->keys[k].path, &in_perflib)) {
        if (t->n_seen == t->cap_seen) {
            size_t c = t->cap_seen ? 2 * t->cap_seen : 8;
            struct link_seen *g = realloc(t->seen, c * sizeof *g);
            if (!g) {
                free(name);
                rt_value_free(v);
                return -1;
            }
            t->seen = g;
            t->cap_seen = c;
        }
        t->seen[t->n_seen++] = (struct link_seen){NULL, NULL, line, k};
    }
    return rt_tree_set_value_take(t->cur, name, v);
}

/* Reads and parses the file into a new tree, replacing R's. */
static int load_file(struct reg_store *r, struct rt_error *e)
{
    const char *path = r->shown;
    uint8_t *data = NULL;
    size_t len = 0;
    struct rt_os_stat st;
    int got = rt_os_read_file_max(r->path, RT_REG_FILE_MAX, &data, &len);
    if (got != 0 && errno == EFBIG && rt_os_stat(r->path, &st) == 0)
        return rt_size_cap_error(e, path, st.size, RT_REG_FILE_MAX,
                                 "a .reg file");
    /* Memory running out for the file's bytes is this machine's failure
     * (exit 3), not a store that cannot be read: audit said
     * store-unreadable (exit 2). */
    if (got != 0)
        return rt_error_set(e, errno == ENOENT   ? RT_ERR_FILE_NOT_FOUND
                               : errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                                 : RT_ERR_ACCESS_DENIED,
                            "cannot read %s: %s", path, rt_os_strerror(errno));
    struct rt_tree_key *root = rt_tree_new("");
    if (!root) {
        free(data);
        return oom(e);
    }
    struct rt_reg_file f;
    struct rt_reg_error re;
    struct tree_sink t = {.root = root};
    const struct rt_reg_sink sink = {sink_key, sink_value, &t};
    int rc = rt_reg_parse_to(data, len, r->codepage, &f, &sink, &re);
    uint64_t hash = rt_blob_hash(data, len);
    free(data);
    if (rc != 0) {
        free(t.seen);
        rt_tree_free(root);
        if (re.nomem)
            return oom(e);
        if (re.line)
            return rt_error_set(e, RT_ERR_INVALID_DATA, "%s:%u: %s", path,
                                re.line, re.message);
        return rt_error_set(e, RT_ERR_INVALID_DATA, "%s: %s", path,
                            re.message);
    }
    /* A patch describes changes, not a registry: reading it as one would
     * drop its deletions at the first write. */
    if (t.deletes_at)
        rc = rt_error_set(e, RT_ERR_INVALID_DATA,
                          "%s:%u: this .reg file deletes %s, a patch "
                          "rather than an export: it cannot be read as "
                          "a store (apply it with reg import)",
                          path, t.deletes_at,
                          t.deletes_key ? "a key" : "a value");
    for (size_t i = 0; i < t.n_seen; i++)
        t.seen[i].section = &f.keys[t.seen[i].at];
    if (rc == 0)
        rc = find_links(r, t.seen, t.n_seen, root, e);
    else
        free(t.seen);
    if (rc == 0)
        rc = find_numbered_sets(r, &f, e);
    enum rt_reg_format format = f.format;
    rt_reg_file_free(&f);
    if (rc != 0) {
        rt_tree_free(root);
        return -1;
    }
    rt_tree_free(r->root);
    r->root = root;
    r->stale = 0;
    r->format = format;
    r->file_len = len;
    r->file_hash = hash;
    return 0;
}

/* Confines PATH's directory and sets R->path to PATH on its canonical
 * form (the file's own name is not resolved: a link there is refused
 * when it is opened). */
static int confine_dir_of(struct reg_store *r, const char *path,
                          struct rt_error *e)
{
    if (!(r->path = rt_os_confine_store_folder_of(path, &r->dir)))
        return errno == ENOMEM
                   ? oom(e)
                   : rt_error_set(e, errno == ENOENT ? RT_ERR_FILE_NOT_FOUND
                                                     : RT_ERR_ACCESS_DENIED,
                                  "cannot read %s: %s", path,
                                  rt_os_strerror(errno));
    if (!(r->shown = strdup(path)))
        return oom(e);
    return 0;
}

struct rt_store *rt_store_reg_open(const char *path, const char *codepage,
                                   struct rt_error *e)
{
    struct reg_store *r = calloc(1, sizeof *r);
    if (r && confine_dir_of(r, path, e) != 0) {
        reg_close(&r->base);
        return NULL;
    }
    if (!r || !r->path ||
        !(r->codepage = strdup(codepage ? codepage
                                        : RT_REG_DEFAULT_CODEPAGE))) {
        if (r)
            reg_close(&r->base);
        oom(e);
        return NULL;
    }
    r->base.ops = &reg_ops;
    size_t n = strlen(path) + 64;
    if (load_file(r, e) != 0) {
        reg_close(&r->base);
        return NULL;
    }
    if (!(r->layout = malloc(n))) {
        reg_close(&r->base);
        oom(e);
        return NULL;
    }
    snprintf(r->layout, n, "a .reg file (tables as hex(7) values): %s", path);
    return &r->base;
}

void rt_store_reg_fail_after(struct rt_store *s, size_t k)
{
    rs(s)->fail_after = k;
}
