/* Store layer: the win32 store, the live registry through advapi32 (local,
 * or remote through RegConnectRegistry).
 *
 * Where things are (docs/design.md, "The name database" and
 * "The provider's service key"):
 *   HKLM\SOFTWARE\Microsoft\Windows NT\CurrentVersion\Perflib: Last
 *     Counter, Last Help, Base Index, one subkey per language with Counter
 *     and Help (REG_MULTI_SZ);
 *   HKLM\SYSTEM\CurrentControlSet\Services\<svc>\Performance.
 *
 * Reading the tables: from Vista on, Perflib\009 and CurrentLanguage are
 * predefined-handle keys and the tables live in System32\perfcLLL.dat and
 * perfhLLL.dat. We rely on what Microsoft documents for consumers
 * ("Retrieving Counter Names and Help Text", RegQueryValueEx and the
 * HKEY_PERFORMANCE_TEXT/NLSTEXT keys): RegQueryValueExW of Counter/Help on
 * Perflib\LLL returns the table the system serves, whichever place it
 * keeps it in, with the same REG_MULTI_SZ layout. Those handles report no
 * useful size up front, so values are read with a growing buffer.
 *
 * Writing the tables: only where they are registry values (NT 4 to Server
 * 2003). A language whose key opens as a predefined handle
 * (HKEY_PERFORMANCE_TEXT/NLSTEXT), or whose System32\perfcLLL.dat exists,
 * has its tables where the system keeps them, not in values; writing
 * values there would put the strings where nothing reads them
 * (docs/design.md, "Where the tables live"), so apply() refuses such table
 * changes; the hive store writes .dat tables offline. Wine 8 makes
 * Perflib\009 such a key (the server flags it predefined; RegQueryValueEx
 * answers a fixed stub table "1 1847 1846 End Marker", RegSetValueEx and
 * RegDeleteKey fail with ERROR_INVALID_HANDLE); its other language keys are
 * plain keys with values.
 *
 * Commit (docs/design.md, "Stores"): a KTM transaction (CreateTransaction,
 * RegCreateKeyTransactedW; Vista and later, local registry only), looked
 * up with GetProcAddress so the binary still loads without them. Wine
 * exports RegCreateKeyTransactedW as a stub answering
 * ERROR_CALL_NOT_IMPLEMENTED and has no RegOpenKeyTransactedW; a remote
 * registry cannot join a local transaction. There, a journal of
 * pre-images is used instead (win32_journal.c): with the named mutex
 * held, every value the change set touches and every key it will create
 * is recorded in a journal file, sealed and flushed before the registry
 * is touched; the changes are applied and the hives flushed; the journal
 * is deleted. A journal found by the next open() or begin() is rolled
 * back.
 *
 * One writer at a time: a named mutex (Global\regtool-perflib, with the
 * machine name appended for a remote registry) held from begin() to end().
 * A writer that dies leaves it abandoned; the next owner recovers. Every
 * registry write and journal write is counted by rt_io_count_write, so
 * REGTOOL_FAULT_AFTER_WRITES ends the process at any of them.
 *
 * The files: this one plans a commit, applies it, and holds the store
 * operations, opening and the dump; win32_journal.c keeps the journal and
 * rolls it back; win32_registry.c has the helpers both use;
 * win32_internal.h declares what they share. */
#include "store/store_win32.h"
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/io.h"
#include "model/utf16.h"

#define PERFLIB_PATH  "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES_PATH "SYSTEM\\CurrentControlSet\\Services"

/* Far above any real Perflib (a Help table is a few MB). */
#define MAX_VALUE_BYTES (256u << 20)
#define MAX_DUMP_DEPTH  32

static struct w32_store *w32(struct rt_store *s)
{
    return (struct w32_store *)s;
}

/* ---- text helpers ---------------------------------------------------- */

static char *join(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '\\';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

/* Appends SRC to the NUL-terminated DST of CAP units, truncating.
 * (glibc's wcs* functions assume a 32-bit wchar_t, which Winelib's
 * WCHAR is not, so wide strings are handled here.) */
static void wappend(WCHAR *dst, size_t cap, const WCHAR *src)
{
    size_t n = 0;
    while (n < cap && dst[n])
        n++;
    while (*src && n + 1 < cap)
        dst[n++] = *src++;
    if (n < cap)
        dst[n] = 0;
}

static size_t wlen(const WCHAR *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

static int same_name(const char *a, const char *b)
{
    return rt_utf8_casecmp(a, strlen(a), b, strlen(b)) == 0;
}

/* A key name the engine handed us: one path component. */
static int valid_component(const char *s)
{
    return s && *s && !strchr(s, '\\') && strlen(s) <= 255;
}

/* ---- registry access --------------------------------------------------- */

/* Whether PATH exists: 1, 0, or -1 with E set. */
static int key_exists(struct w32_store *w, const char *path, struct rt_error *e)
{
    HKEY k;
    LONG r = w32_open_key(w, path, KEY_QUERY_VALUE, &k);
    if (r == ERROR_SUCCESS) {
        RegCloseKey(k);
        return 1;
    }
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    return w32_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine, path);
}

/* Reads value NAME of open key K into OUT (type and bytes as stored). */
static LONG query_value(HKEY k, const char *name, struct rt_value *out)
{
    WCHAR *n = w32_wide(name);
    if (!n)
        return ERROR_INVALID_PARAMETER;
    DWORD cap = 4096;
    uint8_t *buf = malloc(cap);
    LONG r = buf ? ERROR_MORE_DATA : ERROR_NOT_ENOUGH_MEMORY;
    for (;;) {
        if (!buf)
            break;
        DWORD type = 0, size = cap;
        r = RegQueryValueExW(k, n, NULL, &type, buf, &size);
        if (r == ERROR_SUCCESS) {
            out->type = (uint32_t)type;
            out->len = size;
            out->data = buf;
            buf = NULL;
            break;
        }
        if (r != ERROR_MORE_DATA)
            break;
        /* Performance keys answer ERROR_MORE_DATA without a size. */
        DWORD next = size > cap ? size : cap * 2;
        if (next > MAX_VALUE_BYTES) {
            r = ERROR_INVALID_DATA;
            break;
        }
        uint8_t *nb = realloc(buf, next);
        if (!nb) {
            r = ERROR_NOT_ENOUGH_MEMORY;
            break;
        }
        buf = nb;
        cap = next;
    }
    free(buf);
    free(n);
    return r;
}

/* Value NAME of key PATH; *PRESENT 0 when the key or value is absent. */
static int read_value(struct w32_store *w, const char *path, const char *name,
                      struct rt_value *out, int *present, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = 0;
    HKEY k;
    LONG r = w32_open_key(w, path, KEY_QUERY_VALUE, &k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return w32_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    r = query_value(k, name, out);
    RegCloseKey(k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return w32_error(e, (DWORD)r, "%s: cannot read HKLM\\%s\\%s",
                         w->machine, path, name);
    *present = 1;
    return 0;
}

/* The subkey names of PATH (none when PATH is absent). */
static int list_subkeys(struct w32_store *w, const char *path, char ***names,
                        size_t *n, struct rt_error *e)
{
    *names = NULL;
    *n = 0;
    HKEY k;
    LONG r = w32_open_key(w, path, KEY_ENUMERATE_SUB_KEYS, &k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return w32_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    for (DWORD i = 0;; i++) {
        WCHAR name[256];
        DWORD len = 256;
        r = RegEnumKeyExW(k, i, name, &len, NULL, NULL, NULL, NULL);
        if (r == ERROR_NO_MORE_ITEMS)
            break;
        if (r != ERROR_SUCCESS) {
            w32_error(e, (DWORD)r, "%s: cannot list HKLM\\%s", w->machine,
                      path);
            goto fail;
        }
        char *u = w32_narrow(name, len);
        char **v = u ? realloc(*names, (*n + 1) * sizeof *v) : NULL;
        if (!v) {
            free(u);
            rt_error_set(e, u ? RT_ERR_NOT_ENOUGH_MEMORY : RT_ERR_BADKEY,
                         "%s: HKLM\\%s: subkey %lu: %s", w->machine, path,
                         (unsigned long)i,
                         u ? "out of memory" : "name is not valid UTF-16");
            goto fail;
        }
        *names = v;
        v[(*n)++] = u;
    }
    RegCloseKey(k);
    return 0;
fail:
    RegCloseKey(k);
    rt_strings_free(*names, *n);
    *names = NULL;
    *n = 0;
    return -1;
}

/* ---- where a language's tables live --------------------------------------- */

/* A handle the system hands out for a predefined-handle key
 * (docs/design.md, "Where the tables live"): opening Perflib\009 gives
 * HKEY_PERFORMANCE_TEXT, CurrentLanguage HKEY_PERFORMANCE_NLSTEXT. Wine 8
 * does the same for 009 (kernelbase maps the server's
 * STATUS_PREDEFINED_HANDLE to HKEY_PERFORMANCE_TEXT). */
static int is_predefined(HKEY k)
{
    return k == HKEY_PERFORMANCE_TEXT || k == HKEY_PERFORMANCE_NLSTEXT;
}

enum table_home {
    TABLES_IN_VALUES,       /* Counter/Help values of Perflib\LLL */
    TABLES_PREDEFINED,      /* served by the system through the key */
    TABLES_IN_DAT,          /* System32\perfcLLL.dat exists */
    TABLES_UNKNOWN,         /* System32 unreachable */
};

static const char *table_home_text(enum table_home h)
{
    switch (h) {
    case TABLES_IN_VALUES:
        return "values";
    case TABLES_PREDEFINED:
        return "served by the system (predefined-handle key)";
    case TABLES_IN_DAT:
        return "in System32\\perfcLLL.dat/perfhLLL.dat";
    case TABLES_UNKNOWN:
        break;
    }
    return "unknown (System32 unreachable)";
}

/* Where the tables of language LANG live. Writing is only right for
 * TABLES_IN_VALUES: anywhere else the system reads them from a place this
 * store does not write (docs/design.md, "Where the tables live"). */
static int table_home(struct w32_store *w, const char *lang,
                      enum table_home *home, struct rt_error *e)
{
    char *key = join(w->perflib, lang);
    if (!key)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    HKEY k;
    LONG r = w32_open_key(w, key, KEY_QUERY_VALUE, &k);
    if (r != ERROR_SUCCESS && r != ERROR_FILE_NOT_FOUND) {
        w32_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine, key);
        free(key);
        return -1;
    }
    free(key);
    if (r == ERROR_SUCCESS) {
        int predefined = is_predefined(k);
        RegCloseKey(k);
        if (predefined) {
            *home = TABLES_PREDEFINED;
            return 0;
        }
    }
    if (!w->sysdir[0]) {
        *home = TABLES_UNKNOWN;
        return 0;
    }
    WCHAR path[MAX_PATH + 360] = {0};
    WCHAR *lang_w = w32_wide(lang);
    if (!lang_w)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    wappend(path, sizeof path / sizeof *path, w->sysdir);
    wappend(path, sizeof path / sizeof *path, L"\\perfc");
    wappend(path, sizeof path / sizeof *path, lang_w);
    wappend(path, sizeof path / sizeof *path, L".dat");
    free(lang_w);
    DWORD a = GetFileAttributesW(path);
    DWORD err = a == INVALID_FILE_ATTRIBUTES ? GetLastError() : 0;
    if (a != INVALID_FILE_ATTRIBUTES)
        *home = TABLES_IN_DAT;
    else if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        *home = TABLES_IN_VALUES;
    else
        *home = TABLES_UNKNOWN;
    return 0;
}

/* ---- the lock ---------------------------------------------------------- */

static int lock_take(struct w32_store *w, struct rt_error *e)
{
    DWORD r = WaitForSingleObject(w->mutex, INFINITE);
    /* WAIT_ABANDONED: a writer died holding it; its journal, if any, is
     * rolled back by our caller. */
    if (r == WAIT_OBJECT_0 || r == WAIT_ABANDONED)
        return 0;
    return w32_error(e, GetLastError(), "%s: cannot take the writer lock",
                     w->machine);
}

static void lock_give(struct w32_store *w)
{
    ReleaseMutex(w->mutex);
}

/* ---- planning a commit -------------------------------------------------- */

static int in_created(const struct plan *p, const char *path)
{
    for (size_t i = 0; i < p->n_created; i++)
        if (same_name(p->created[i], path))
            return 1;
    return 0;
}

/* Whether PATH will exist when the changes planned so far are applied. */
static int will_exist(struct w32_store *w, const struct plan *p,
                      const char *path, struct rt_error *e)
{
    return in_created(p, path) ? 1 : key_exists(w, path, e);
}

/* Lists in P every missing key on the way to PATH, parents first. */
static int plan_key(struct w32_store *w, struct plan *p, const char *path,
                    struct rt_error *e)
{
    size_t len = strlen(path);
    for (size_t i = 1; i <= len; i++) {
        if (path[i] != '\\' && path[i] != '\0')
            continue;
        char *prefix = w32_dup_n(path, i);
        if (!prefix)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int ex = will_exist(w, p, prefix, e);
        if (ex < 0) {
            free(prefix);
            return -1;
        }
        if (ex) {
            free(prefix);
            continue;
        }
        char **c = realloc(p->created, (p->n_created + 1) * sizeof *c);
        if (!c) {
            free(prefix);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        p->created = c;
        c[p->n_created++] = prefix;
    }
    return 0;
}

/* Records the current state of value NAME of key PATH, once. */
static int plan_value(struct w32_store *w, struct plan *p, const char *path,
                      const char *name, struct rt_error *e)
{
    for (size_t i = 0; i < p->n_vals; i++)
        if (same_name(p->vals[i].key, path) && same_name(p->vals[i].name, name))
            return 0;
    struct pre_value v = {0};
    if (!in_created(p, path) &&
        read_value(w, path, name, &v.v, &v.present, e) != 0)
        return -1;
    v.key = strdup(path);
    v.name = strdup(name);
    struct pre_value *nv = realloc(p->vals, (p->n_vals + 1) * sizeof *nv);
    if (!v.key || !v.name || !nv) {
        if (nv)
            p->vals = nv;
        free(v.key);
        free(v.name);
        rt_value_free(&v.v);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    p->vals = nv;
    p->vals[p->n_vals++] = v;
    return 0;
}

static const char *table_value_name(enum rt_table_kind t)
{
    return t == RT_TABLE_COUNTER ? "Counter" : "Help";
}

/* The key a change writes to, as a new string, and the value name (NULL
 * for a change that only creates the key). */
static char *change_key(const struct w32_store *w, const struct rt_change *c,
                        const char **value)
{
    *value = NULL;
    switch (c->op) {
    case RT_CHANGE_CREATE_LANGUAGE:
        return join(w->perflib, c->lang);
    case RT_CHANGE_SET_TABLE:
        *value = table_value_name(c->table);
        return join(w->perflib, c->lang);
    case RT_CHANGE_SET_PERFLIB:
        *value = c->name;
        return strdup(w->perflib);
    case RT_CHANGE_CREATE_PERF_KEY:
    case RT_CHANGE_SET_SERVICE:
    case RT_CHANGE_DELETE_SERVICE: {
        char *svc = join(w->services, c->service);
        char *k = svc ? join(svc, "Performance") : NULL;
        free(svc);
        if (c->op != RT_CHANGE_CREATE_PERF_KEY)
            *value = c->name;
        return k;
    }
    case RT_CHANGE_WRITE_FILE:
    case RT_CHANGE_DELETE_FILE:
        break;      /* no registry key; refused in make_plan */
    }
    return NULL;
}

/* Checks every change and records what it will touch, before any write. */
static int make_plan(struct w32_store *w, const struct rt_change_set *cs,
                     struct plan *p, struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op == RT_CHANGE_WRITE_FILE || c->op == RT_CHANGE_DELETE_FILE) {
            if (w32_plan_file(w, p, c, e) != 0)
                return -1;
            continue;
        }
        int table = c->op == RT_CHANGE_CREATE_LANGUAGE ||
                    c->op == RT_CHANGE_SET_TABLE;
        int service = c->op == RT_CHANGE_CREATE_PERF_KEY ||
                      c->op == RT_CHANGE_SET_SERVICE ||
                      c->op == RT_CHANGE_DELETE_SERVICE;
        if ((table && (!valid_component(c->lang) ||
                       !rt_is_language_key(c->lang))) ||
            (service && !valid_component(c->service)) ||
            (c->op != RT_CHANGE_CREATE_LANGUAGE &&
             c->op != RT_CHANGE_CREATE_PERF_KEY && c->op != RT_CHANGE_SET_TABLE &&
             (!c->name || strlen(c->name) > 16383)) ||
            c->value.len > MAX_VALUE_BYTES)
            return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                                "%s: change %zu: bad language, service or "
                                "value name, or value too large",
                                w->machine, i + 1);
        enum table_home home;
        if (c->op == RT_CHANGE_SET_TABLE &&
            (table_home(w, c->lang, &home, e) != 0 ||
             (home != TABLES_IN_VALUES &&
              rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                           "%s: change %zu: the tables of language %s are %s; "
                           "the live registry store does not write them "
                           "there; nothing was written",
                           w->machine, i + 1, c->lang,
                           table_home_text(home)))))
            return -1;
        const char *value;
        char *key = change_key(w, c, &value);
        if (!key)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int r = 0;
        if (c->op == RT_CHANGE_SET_SERVICE || c->op == RT_CHANGE_DELETE_SERVICE) {
            r = will_exist(w, p, key, e);
            if (r == 0)
                r = rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                 "%s: change %zu: service %s has no "
                                 "Performance key; nothing was written",
                                 w->machine, i + 1, c->service);
            else if (r > 0)
                r = 0;
        } else {
            r = plan_key(w, p, key, e);
        }
        if (r == 0 && value)
            r = plan_value(w, p, key, value, e);
        free(key);
        if (r != 0)
            return -1;
    }
    return 0;
}

/* ---- applying ------------------------------------------------------------ */

/* How one commit writes: plainly (journal) or inside a KTM transaction. */
struct writer {
    struct w32_store *w;
    HANDLE tx;                  /* NULL: no transaction */
    char **done;                /* created keys, for the transaction */
    size_t n_done;
    size_t writes, fail_after;
};

/* Counts a registry write; -1 when the test hook says to stop here. */
static int counted(struct writer *wr, struct rt_error *e)
{
    rt_io_count_write();
    wr->writes++;
    if (wr->fail_after && wr->writes >= wr->fail_after)
        return rt_error_set(e, RT_ERR_WRITE_FAULT,
                            "%s: injected failure after %zu registry writes",
                            wr->w->machine, wr->writes);
    return 0;
}

/* Creates key PATH (its parent exists). ERROR_CALL_NOT_IMPLEMENTED is
 * returned as such, so the caller can fall back to the journal. */
static LONG create_one(struct writer *wr, const char *path)
{
    WCHAR *p = w32_wide(path);
    if (!p)
        return ERROR_NOT_ENOUGH_MEMORY;
    HKEY k;
    LONG r;
    if (wr->tx)
        r = wr->w->ktm.create_key(wr->w->hklm, p, 0, NULL,
                                  REG_OPTION_NON_VOLATILE, KEY_SET_VALUE | VIEW,
                                  NULL, &k, NULL, wr->tx, NULL);
    else
        r = RegCreateKeyExW(wr->w->hklm, p, 0, NULL, REG_OPTION_NON_VOLATILE,
                            KEY_SET_VALUE | VIEW, NULL, &k, NULL);
    free(p);
    if (r == ERROR_SUCCESS)
        RegCloseKey(k);
    return r;
}

/* Opens PATH for setting values, inside the transaction when there is
 * one (opening an existing key with RegCreateKeyTransacted writes
 * nothing). */
static LONG open_for_write(struct writer *wr, const char *path, HKEY *k)
{
    if (!wr->tx)
        return w32_open_key(wr->w, path, KEY_SET_VALUE | KEY_QUERY_VALUE, k);
    WCHAR *p = w32_wide(path);
    if (!p)
        return ERROR_NOT_ENOUGH_MEMORY;
    LONG r;
    if (wr->w->ktm.open_key)
        r = wr->w->ktm.open_key(wr->w->hklm, p, 0,
                                KEY_SET_VALUE | KEY_QUERY_VALUE | VIEW, k,
                                wr->tx, NULL);
    else
        r = wr->w->ktm.create_key(wr->w->hklm, p, 0, NULL,
                                  REG_OPTION_NON_VOLATILE,
                                  KEY_SET_VALUE | KEY_QUERY_VALUE | VIEW, NULL,
                                  k, NULL, wr->tx, NULL);
    free(p);
    return r;
}

/* Whether created key C lies on the way to PATH (or is PATH). */
static int is_ancestor_or_self(const char *c, const char *path)
{
    size_t n = strlen(c);
    return strlen(path) >= n && (path[n] == '\0' || path[n] == '\\') &&
           rt_utf8_casecmp(c, n, path, n) == 0;
}

/* Creates the planned keys on the way to PATH that do not exist yet. */
static LONG create_path(struct writer *wr, const struct plan *p,
                        const char *path, size_t *created, struct rt_error *e,
                        int *stop)
{
    for (size_t i = *created; i < p->n_created; i++) {
        /* Keys are listed parents first and change by change, so the keys
         * this change creates come next; the rest belong to later ones. */
        if (!is_ancestor_or_self(p->created[i], path))
            break;
        LONG r = create_one(wr, p->created[i]);
        if (r != ERROR_SUCCESS)
            return r;
        (*created)++;
        if (counted(wr, e) != 0) {
            *stop = 1;
            return ERROR_SUCCESS;
        }
    }
    return ERROR_SUCCESS;
}

/* Writes or deletes side file C (win32_files.c); never inside a
 * transaction (w32_apply sends such commits through the journal). A
 * deletion also removes the folders it leaves empty below the top one,
 * as the other stores do. Each file and folder written counts. */
static int write_file_change(struct writer *wr, const struct rt_change *c,
                             size_t i, struct rt_error *e)
{
    struct w32_store *w = wr->w;
    DWORD err;
    if (c->op == RT_CHANGE_WRITE_FILE) {
        int dirs = 0;
        err = w32_file_put(w, c->name, c->value.data, c->value.len, &dirs);
        for (int d = 0; d < dirs; d++)
            if (counted(wr, e) != 0)
                return -1;
        if (!err)
            return counted(wr, e);
    } else {
        int deleted = 0;
        err = w32_file_delete(w, c->name, &deleted);
        if (!err && deleted) {
            if (counted(wr, e) != 0)
                return -1;
            char *dir = strdup(c->name);
            if (!dir)
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            char *slash;
            while ((slash = strrchr(dir, '/')) != NULL &&
                   strchr(dir, '/') != slash) {
                *slash = '\0';
                if (!w32_dir_remove_if_empty(w, dir))
                    break;
                if (counted(wr, e) != 0) {
                    free(dir);
                    return -1;
                }
            }
            free(dir);
        }
        if (!err)
            return 0;
    }
    return w32_error(e, err, "%s: change %zu: cannot %s %s", w->machine,
                     i + 1, c->op == RT_CHANGE_WRITE_FILE ? "write" : "delete",
                     c->name);
}

/* Applies CS in order. Returns 0; -1 with E (and *NOT_IMPL when the
 * transacted registry call is a stub, before anything was written). */
static int write_changes(struct writer *wr, const struct rt_change_set *cs,
                         const struct plan *p, struct rt_error *e,
                         int *not_impl)
{
    struct w32_store *w = wr->w;
    size_t created = 0;
    *not_impl = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op == RT_CHANGE_WRITE_FILE || c->op == RT_CHANGE_DELETE_FILE) {
            if (write_file_change(wr, c, i, e) != 0)
                return -1;
            continue;
        }
        const char *value;
        char *key = change_key(w, c, &value);
        if (!key)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int stop = 0;
        LONG r = create_path(wr, p, key, &created, e, &stop);
        if (stop) {
            free(key);
            return -1;
        }
        if (r == ERROR_SUCCESS && value) {
            HKEY k;
            r = open_for_write(wr, key, &k);
            WCHAR *nw = w32_wide(value);
            if (r == ERROR_SUCCESS && !nw)
                r = ERROR_NOT_ENOUGH_MEMORY;
            if (r == ERROR_SUCCESS) {
                if (c->op == RT_CHANGE_DELETE_SERVICE)
                    r = RegDeleteValueW(k, nw);
                else
                    r = w32_set_value(k, nw, &c->value);
                RegCloseKey(k);
                if (r == ERROR_FILE_NOT_FOUND &&
                    c->op == RT_CHANGE_DELETE_SERVICE) {
                    r = ERROR_SUCCESS;      /* already absent: no write */
                } else if (r == ERROR_SUCCESS && counted(wr, e) != 0) {
                    free(nw);
                    free(key);
                    return -1;
                }
            }
            free(nw);
        }
        if (r != ERROR_SUCCESS) {
            if (r == ERROR_CALL_NOT_IMPLEMENTED && wr->tx && wr->writes == 0)
                *not_impl = 1;
            w32_error(e, (DWORD)r, "%s: change %zu: cannot write HKLM\\%s%s%s",
                      w->machine, i + 1, key, value ? "\\" : "",
                      value ? value : "");
            free(key);
            return -1;
        }
        free(key);
    }
    return 0;
}

/* Commits inside a KTM transaction. Returns 0, -1 with E, or 1 when KTM
 * turned out not to work here (nothing written). */
static int apply_ktm(struct w32_store *w, const struct rt_change_set *cs,
                     const struct plan *p, size_t fail_after,
                     struct rt_error *e)
{
    WCHAR desc[] = L"regtool Perflib commit";
    HANDLE tx = w->ktm.create(NULL, NULL, 0, 0, 0, 0, desc);
    if (tx == INVALID_HANDLE_VALUE || !tx)
        return 1;
    struct writer wr = {.w = w, .tx = tx, .fail_after = fail_after};
    int not_impl = 0;
    int r = write_changes(&wr, cs, p, e, &not_impl);
    if (r == 0 && !w->ktm.commit(tx))
        r = w32_error(e, GetLastError(),
                      "%s: the registry transaction did not commit; nothing "
                      "was written", w->machine);
    else if (r != 0)
        w->ktm.rollback(tx);
    CloseHandle(tx);
    if (not_impl) {
        w->ktm.unsupported = 1;
        return 1;
    }
    return r;
}

/* Commits through the journal of pre-images. */
static int apply_journal(struct w32_store *w, const struct rt_change_set *cs,
                         const struct plan *p, size_t fail_after,
                         struct rt_error *e)
{
    if (w32_journal_write(w, p, e) != 0)
        return -1;
    struct writer wr = {.w = w, .fail_after = fail_after};
    int not_impl;
    if (write_changes(&wr, cs, p, e, &not_impl) != 0) {
        struct rt_error re = {0};
        if (w32_recover(w, &re) < 0) {
            size_t l = strlen(e->message);
            snprintf(e->message + l, sizeof e->message - l,
                     "; rollback failed, the next run retries it: %s",
                     re.message);
        }
        return -1;
    }
    w32_flush_hives(w);
    return w32_journal_delete(w, e);
}

static int w32_apply(struct rt_store *s, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    struct w32_store *w = w32(s);
    size_t fail_after = w->fail_after;
    w->fail_after = 0;
    if (!w->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "%s: apply outside begin/end", w->machine);
    struct plan p = {0};
    int r = make_plan(w, cs, &p, e);
    /* Side files cannot join a registry transaction (win32_files.c). */
    if (r == 0 && !w->remote && !w->force_journal && w->ktm.create &&
        !w->ktm.unsupported && p.n_files == 0) {
        r = apply_ktm(w, cs, &p, fail_after, e);
        if (r == 1)
            r = apply_journal(w, cs, &p, fail_after, e);
    } else if (r == 0) {
        r = apply_journal(w, cs, &p, fail_after, e);
    }
    w32_plan_free(&p);
    return r;
}

/* ---- the store operations --------------------------------------------- */

static int w32_begin(struct rt_store *s, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    if (w->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "%s: transaction already open", w->machine);
    if (lock_take(w, e) != 0)
        return -1;
    if (w32_recover(w, e) < 0) {
        lock_give(w);
        return -1;
    }
    w->locked = 1;
    return 0;
}

static void w32_end(struct rt_store *s)
{
    struct w32_store *w = w32(s);
    if (w->locked) {
        w->locked = 0;
        lock_give(w);
    }
}

static int w32_list_languages(struct rt_store *s, char ***langs, size_t *n,
                              struct rt_error *e)
{
    char **all;
    size_t n_all;
    if (list_subkeys(w32(s), w32(s)->perflib, &all, &n_all, e) != 0)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < n_all; i++) {
        if (rt_is_language_key(all[i]))
            all[k++] = all[i];
        else
            free(all[i]);
    }
    *langs = all;
    *n = k;
    return 0;
}

static int w32_read_table(struct rt_store *s, const char *lang,
                          enum rt_table_kind t, struct rt_value *out,
                          int *present, struct rt_error *e)
{
    if (!valid_component(lang))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad language key name");
    char *key = join(w32(s)->perflib, lang);
    if (!key)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int r = read_value(w32(s), key, table_value_name(t), out, present, e);
    free(key);
    return r;
}

static int w32_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    return read_value(w32(s), w32(s)->perflib, name, out, present, e);
}

static int w32_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    char **all;
    size_t n_all, k = 0;
    if (list_subkeys(w, w->services, &all, &n_all, e) != 0)
        return -1;
    for (size_t i = 0; i < n_all; i++) {
        char *svc = join(w->services, all[i]);
        char *perf = svc ? join(svc, "Performance") : NULL;
        int ex = perf ? key_exists(w, perf, e)
                      : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                     "out of memory");
        free(svc);
        free(perf);
        if (ex < 0) {
            for (size_t j = i; j < n_all; j++)
                free(all[j]);
            rt_strings_free(all, k);
            return -1;
        }
        if (ex)
            all[k++] = all[i];
        else
            free(all[i]);
    }
    *names = all;
    *n = k;
    return 0;
}

static int w32_service_state(struct rt_store *s, const char *service,
                             int *exists, int *has_perf, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    *exists = *has_perf = 0;
    if (!valid_component(service))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad service name");
    char *svc = join(w->services, service);
    char *perf = svc ? join(svc, "Performance") : NULL;
    int r = -1;
    if (!perf) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    } else if ((*exists = key_exists(w, svc, e)) >= 0 &&
               (*has_perf = *exists ? key_exists(w, perf, e) : 0) >= 0) {
        r = 0;
    }
    if (r != 0)
        *exists = *has_perf = 0;
    free(svc);
    free(perf);
    return r;
}

static int w32_read_service(struct rt_store *s, const char *service,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    if (!valid_component(service))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad service name");
    char *svc = join(w32(s)->services, service);
    char *perf = svc ? join(svc, "Performance") : NULL;
    int r = perf ? read_value(w32(s), perf, name, out, present, e)
                 : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    free(svc);
    free(perf);
    return r;
}

/* "live registry of M: 009 served by the system (...), 019 values; commits
 * ...", from what the languages are now. */
static const char *w32_layout(struct rt_store *s)
{
    struct w32_store *w = w32(s);
    struct rt_strbuf b = {0};
    char **langs = NULL;
    size_t n = 0;
    struct rt_error e = {0};
    rt_strbuf_printf(&b, "live registry of %s: tables ", w->machine);
    if (w32_list_languages(s, &langs, &n, &e) != 0)
        rt_strbuf_printf(&b, "not listed (%s)", e.message);
    else if (n == 0)
        rt_strbuf_printf(&b, "none");
    for (size_t i = 0; i < n; i++) {
        enum table_home home;
        if (table_home(w, langs[i], &home, &e) != 0)
            rt_strbuf_printf(&b, "%s%s unknown (%s)", i ? ", " : "", langs[i],
                      e.message);
        else
            rt_strbuf_printf(&b, "%s%s %s", i ? ", " : "", langs[i],
                      table_home_text(home));
    }
    rt_strings_free(langs, n);
    rt_strbuf_printf(&b, "; commits %s",
              !w->remote && w->ktm.create && !w->ktm.unsupported
                  ? "in a KTM transaction, else through a journal"
                  : "through a journal");
    snprintf(w->layout, sizeof w->layout, "%s",
             b.failed || !b.s ? "live registry" : b.s);
    free(b.s);
    return w->layout;
}

static void w32_close(struct rt_store *s)
{
    struct w32_store *w = w32(s);
    if (!w)
        return;
    w32_end(s);
    if (w->mutex)
        CloseHandle(w->mutex);
    if (w->remote && w->hklm)
        RegCloseKey(w->hklm);
    if (w->ktm.ktmw32)
        FreeLibrary(w->ktm.ktmw32);
    free(w->machine);
    free(w->perflib);
    free(w->services);
    free(w->journal);
    free(w->journal_w);
    free(w->windows_dir);
    free(w);
}

static int w32_has_win_files(struct rt_store *s)
{
    return w32_files_available(w32(s));
}

static int w32_read_win_file(struct rt_store *s, const char *rel,
                             struct rt_value *out, int *present,
                             struct rt_error *e)
{
    return w32_file_read(w32(s), rel, out, present, e);
}

/* The machine's Windows directory, for audit --libraries' file checks:
 * the local one (GetSystemWindowsDirectory: the shared one, not a
 * terminal-server user's); NULL for a remote machine, whose files are
 * not looked at. */
static const char *w32_windows_dir(struct rt_store *s)
{
    struct w32_store *w = w32(s);
    if (!w->windows_dir) {
        WCHAR dir[MAX_PATH + 1];
        UINT n = w->remote ? 0 : GetSystemWindowsDirectoryW(dir, MAX_PATH);
        if (n > 0 && n < MAX_PATH) {
#ifdef __WINE__
            /* A Winelib build does its file I/O through the C library
             * (platform/os.h): the directory as a Unix path, which Wine
             * alone knows. */
            typedef char *(CDECL * unix_name_fn)(LPCWSTR);
            unix_name_fn to_unix = (unix_name_fn)(void (*)(void))GetProcAddress(
                GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name");
            char *u = to_unix ? to_unix(dir) : NULL;
            w->windows_dir = u ? strdup(u) : NULL;
            if (u)
                HeapFree(GetProcessHeap(), 0, u);
#else
            w->windows_dir = w32_narrow(dir, n);
#endif
        }
        if (!w->windows_dir)
            w->windows_dir = strdup("");
    }
    return w->windows_dir && *w->windows_dir ? w->windows_dir : NULL;
}

/* The data as a consumer reads it. The first buffer is smaller than any
 * provider's data (a PERF_DATA_BLOCK and a little), so how a short
 * buffer is answered is seen on every call. */
static int w32_perf_data(struct rt_store *s, const char *query, uint8_t **buf,
                         size_t *len, size_t *cap, int *more_data,
                         struct rt_error *e)
{
    struct w32_store *w = w32(s);
    *buf = NULL;
    *len = *cap = 0;
    *more_data = -1;
    if (w->remote)
        return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                            "%s: performance data is read from this machine "
                            "only", w->machine);
    WCHAR *q = w32_wide(query);
    if (!q)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    DWORD size = 256;
    LONG r = ERROR_MORE_DATA;
    uint8_t *b = NULL;
    for (int round = 0; r == ERROR_MORE_DATA && round < 24; round++) {
        DWORD want = size;
        uint8_t *nb = realloc(b, want);
        if (!nb) {
            r = ERROR_OUTOFMEMORY;
            break;
        }
        b = nb;
        memset(b, 0, want);
        DWORD got = want, type = 0;
        r = RegQueryValueExW(HKEY_PERFORMANCE_DATA, q, NULL, &type, b, &got);
        if (r == ERROR_MORE_DATA) {
            *more_data = 1;
            size = want * 2;
        } else if (r == ERROR_SUCCESS) {
            if (got > want)
                *more_data = 0;
            *len = got < want ? got : want;
            *cap = want;
        }
    }
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    free(q);
    if (r != ERROR_SUCCESS) {
        free(b);
        return w32_error(e, (DWORD)r, "%s: cannot read the performance data "
                         "for \"%s\"", w->machine, query);
    }
    *buf = b;
    return 0;
}

/* Wine 8 serves Perflib\009 through a predefined handle whose Counter
 * is a fixed stub ("1 1847 1846 End Marker") that no call can change,
 * while a Windows machine serves its whole table that way. A served table
 * of so few strings can only be such a stub: installs leave it alone
 * (and write the languages that can be written) instead of refusing. */
static int w32_language_fixed(struct rt_store *s, const char *lang, char *why,
                              size_t why_size)
{
    struct w32_store *w = w32(s);
    enum table_home home;
    struct rt_error e = {0};
    if (table_home(w, lang, &home, &e) != 0 || home != TABLES_PREDEFINED)
        return 0;
    struct rt_value v = {0};
    int present = 0;
    if (w32_read_table(s, lang, RT_TABLE_COUNTER, &v, &present, &e) != 0)
        return 0;
    size_t strings = 0;
    for (size_t i = 0; present && i + 1 < v.len; i += 2)
        if (v.data[i] == 0 && v.data[i + 1] == 0)
            strings++;
    rt_value_free(&v);
    if (!present || strings > 8)
        return 0;
    /* The strings less the list's terminator, two to a pair. */
    snprintf(why, why_size, "served by the system as a fixed table of %zu "
             "pairs (Wine's stub), which nothing can change",
             strings ? (strings - 1) / 2 : 0);
    return 1;
}

static const struct rt_store_ops w32_ops = {
    .kind = "win32",
    .begin = w32_begin,
    .end = w32_end,
    .list_languages = w32_list_languages,
    .read_table = w32_read_table,
    .read_perflib = w32_read_perflib,
    .list_perf_services = w32_list_perf_services,
    .service_state = w32_service_state,
    .read_service = w32_read_service,
    .apply = w32_apply,
    .layout = w32_layout,
    .close = w32_close,
    .windows_dir = w32_windows_dir,
    .has_win_files = w32_has_win_files,
    .read_win_file = w32_read_win_file,
    .perf_data = w32_perf_data,
    .language_fixed = w32_language_fixed,
};

/* ---- opening ------------------------------------------------------------- */

static FARPROC proc(HMODULE m, const char *name)
{
    return m ? GetProcAddress(m, name) : NULL;
}

/* Finds the KTM entry points; any missing means no transactions. */
static void find_ktm(struct ktm *k)
{
    k->ktmw32 = LoadLibraryW(L"ktmw32.dll");
    HMODULE advapi = GetModuleHandleW(L"advapi32.dll");
    /* Casts through a generic function type: GetProcAddress returns one
     * type for every entry point. */
    k->create = (create_transaction_fn)(void (*)(void))proc(
        k->ktmw32, "CreateTransaction");
    k->commit = (transaction_fn)(void (*)(void))proc(k->ktmw32,
                                                     "CommitTransaction");
    k->rollback = (transaction_fn)(void (*)(void))proc(k->ktmw32,
                                                       "RollbackTransaction");
    k->create_key = (create_key_transacted_fn)(void (*)(void))proc(
        advapi, "RegCreateKeyTransactedW");
    k->open_key = (open_key_transacted_fn)(void (*)(void))proc(
        advapi, "RegOpenKeyTransactedW");
    if (!k->create || !k->commit || !k->rollback || !k->create_key)
        k->create = NULL;
}

/* A name fit for a file or object name: letters, digits, '-', '_', '.'. */
static void sanitize(char *s)
{
    for (; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' || *s == '.'))
            *s = '_';
}

/* Whether NAME is this computer (so its lock and journal are ours). */
static int is_this_computer(const WCHAR *name)
{
    WCHAR self[MAX_COMPUTERNAME_LENGTH + 1];
    DWORD n = MAX_COMPUTERNAME_LENGTH + 1;
    return GetComputerNameW(self, &n) && lstrcmpiW(self, name) == 0;
}

/* System32 of the machine, where Vista and later keep the .dat tables;
 * left empty when it cannot be named. */
static void find_sysdir(struct w32_store *w, const WCHAR *remote_name)
{
    size_t cap = sizeof w->sysdir / sizeof *w->sysdir;
    w->sysdir[0] = 0;
    if (!remote_name) {
        UINT n = GetSystemDirectoryW(w->sysdir, MAX_PATH);
        if (n == 0 || n >= MAX_PATH)
            w->sysdir[0] = 0;
        return;
    }
    wappend(w->sysdir, cap, L"\\\\");
    wappend(w->sysdir, cap, remote_name);
    wappend(w->sysdir, cap, L"\\ADMIN$\\System32");
}

static int make_journal_path(struct w32_store *w, const char *id,
                             struct rt_error *e)
{
    WCHAR dir[MAX_PATH];
    DWORD n = GetEnvironmentVariableW(L"REGTOOL_WIN32_JOURNAL_DIR", dir,
                                      MAX_PATH);
    int from_env = n > 0 && n < MAX_PATH;
    if (!from_env) {
        n = GetEnvironmentVariableW(L"ProgramData", dir, MAX_PATH - 16);
        if (n == 0 || n >= MAX_PATH - 16)
            return rt_error_set(e, RT_ERR_FILE_NOT_FOUND,
                                "%s: no %%ProgramData%% for the journal (set "
                                "REGTOOL_WIN32_JOURNAL_DIR)", w->machine);
        wappend(dir, MAX_PATH, L"\\regtool");
    }
    if (!CreateDirectoryW(dir, NULL) &&
        GetLastError() != ERROR_ALREADY_EXISTS) {
        char *d = w32_narrow(dir, wlen(dir));
        w32_error(e, GetLastError(), "cannot create the journal directory %s",
                  d ? d : "?");
        free(d);
        return -1;
    }
    char *d = w32_narrow(dir, wlen(dir));
    size_t len = (d ? strlen(d) : 0) + strlen(id) + 32;
    w->journal = d ? malloc(len) : NULL;
    if (w->journal) {
        snprintf(w->journal, len, "%s\\perflib-%s.journal", d, id);
        w->journal_w = w32_wide(w->journal);
    }
    free(d);
    if (!w->journal_w)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}

struct rt_store *rt_store_win32_open(const char *machine, struct rt_error *e)
{
    return rt_store_win32_open_at(machine, NULL, e);
}

struct rt_store *rt_store_win32_open_at(const char *machine, const char *root,
                                        struct rt_error *e)
{
    WCHAR *name_w = NULL;
    char id[MAX_COMPUTERNAME_LENGTH + 64] = "local";
    struct w32_store *w = calloc(1, sizeof *w);
    if (!w) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        return NULL;
    }
    w->base.ops = &w32_ops;
    if (root && (!*root || root[0] == '\\' || root[strlen(root) - 1] == '\\')) {
        rt_error_set(e, RT_ERR_INVALID_PARAMETER, "bad key root '%s'", root);
        free(w);
        return NULL;
    }
    w->perflib = root ? join(root, PERFLIB_PATH) : strdup(PERFLIB_PATH);
    w->services = root ? join(root, SERVICES_PATH) : strdup(SERVICES_PATH);
    if (!w->perflib || !w->services) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto fail;
    }
    w->hklm = HKEY_LOCAL_MACHINE;
    if (machine && *machine) {
        const char *name = machine;
        while (*name == '\\')
            name++;
        if (!*name || strchr(name, '\\') || strlen(name) > 255) {
            rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                         "'%s' is not a machine name (want NAME or \\\\NAME)",
                         machine);
            goto fail;
        }
        size_t len = strlen(name) + 3;
        w->machine = malloc(len);
        name_w = w32_wide(name);
        if (!w->machine || !name_w) {
            rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                         "'%s' is not a valid machine name", machine);
            goto fail;
        }
        snprintf(w->machine, len, "\\\\%s", name);
        WCHAR *unc = w32_wide(w->machine);
        LONG r = unc ? RegConnectRegistryW(unc, HKEY_LOCAL_MACHINE, &w->hklm)
                     : ERROR_NOT_ENOUGH_MEMORY;
        free(unc);
        if (r != ERROR_SUCCESS) {
            w->hklm = NULL;
            w32_error(e, (DWORD)r, "cannot connect to the registry of %s",
                      w->machine);
            goto fail;
        }
        w->remote = 1;
        if (!is_this_computer(name_w)) {
            snprintf(id, sizeof id, "%s", name);
            sanitize(id);
        }
    } else if (!(w->machine = strdup("this machine"))) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto fail;
    }
    find_ktm(&w->ktm);
    find_sysdir(w, strcmp(id, "local") ? name_w : NULL);
    free(name_w);
    name_w = NULL;
    if (make_journal_path(w, id, e) != 0)
        goto fail;

    WCHAR mutex_name[128] = {0};
    WCHAR *id_w = w32_wide(id);
    if (!id_w) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto fail;
    }
    wappend(mutex_name, 128, L"Global\\regtool-perflib");
    if (strcmp(id, "local")) {
        wappend(mutex_name, 128, L"-");
        wappend(mutex_name, 128, id_w);
    }
    free(id_w);
    w->mutex = CreateMutexW(NULL, FALSE, mutex_name);
    if (!w->mutex) {
        w32_error(e, GetLastError(), "%s: cannot create the writer lock",
                  w->machine);
        goto fail;
    }
    /* A crashed writer's journal is rolled back before anything is read. */
    if (lock_take(w, e) != 0)
        goto fail;
    int r = w32_recover(w, e);
    lock_give(w);
    if (r < 0)
        goto fail;
    return &w->base;
fail:
    free(name_w);
    w32_close(&w->base);
    return NULL;
}

void rt_store_win32_fail_after(struct rt_store *s, size_t k)
{
    w32(s)->fail_after = k;
}

void rt_store_win32_force_journal(struct rt_store *s, int on)
{
    w32(s)->force_journal = on;
}

const char *rt_store_win32_journal_path(struct rt_store *s)
{
    return w32(s)->journal;
}

/* ---- dump -------------------------------------------------------------- */

struct named_value {
    char *name;
    struct rt_value v;
};

static int cmp_named(const void *a, const void *b)
{
    const struct named_value *x = a, *y = b;
    int c = rt_utf8_casecmp(x->name, strlen(x->name), y->name, strlen(y->name));
    return c ? c : strcmp(x->name, y->name);
}

static int cmp_str(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int c = rt_utf8_casecmp(x, strlen(x), y, strlen(y));
    return c ? c : strcmp(x, y);
}

static int dump_key(struct w32_store *w, const char *path, int depth,
                    struct rt_strbuf *b, struct rt_error *e)
{
    HKEY k;
    LONG r = w32_open_key(w, path, KEY_READ, &k);
    if (r == ERROR_FILE_NOT_FOUND) {
        rt_strbuf_printf(b, "[%s] absent\n", path);
        return 0;
    }
    if (r != ERROR_SUCCESS)
        return w32_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    if (is_predefined(k)) {
        /* No values or subkeys of its own: the tables the system serves. */
        rt_strbuf_printf(b, "[%s] predefined handle\n", path);
        static const char *const tables[] = {"Counter", "Help"};
        for (size_t i = 0; i < 2; i++) {
            struct rt_value v = {0};
            r = query_value(k, tables[i], &v);
            if (r == ERROR_SUCCESS) {
                rt_strbuf_printf(b, "  \"%s\" type=%lu len=%zu ", tables[i],
                          (unsigned long)v.type, v.len);
                for (size_t j = 0; j < v.len; j++)
                    rt_strbuf_printf(b, "%02x", v.data[j]);
                rt_strbuf_printf(b, "\n");
                rt_value_free(&v);
            } else {
                rt_strbuf_printf(b, "  \"%s\" unreadable, error %ld\n", tables[i],
                          (long)r);
            }
        }
        RegCloseKey(k);
        return 0;
    }
    if (depth > MAX_DUMP_DEPTH) {
        RegCloseKey(k);
        return rt_error_set(e, RT_ERR_BADKEY, "%s: HKLM\\%s: nested too deep",
                            w->machine, path);
    }
    rt_strbuf_printf(b, "[%s]\n", path);
    struct named_value *vals = NULL;
    size_t n = 0;
    int rc = 0;
    WCHAR *name = malloc(16384 * sizeof *name);
    for (DWORD i = 0; name; i++) {
        DWORD len = 16384;
        r = RegEnumValueW(k, i, name, &len, NULL, NULL, NULL, NULL);
        if (r == ERROR_NO_MORE_ITEMS)
            break;
        struct named_value nv = {0};
        if (r == ERROR_SUCCESS && !(nv.name = w32_narrow(name, len)))
            r = ERROR_INVALID_DATA;
        if (r == ERROR_SUCCESS)
            r = query_value(k, nv.name, &nv.v);
        struct named_value *grown =
            r == ERROR_SUCCESS ? realloc(vals, (n + 1) * sizeof *grown) : NULL;
        if (!grown) {
            free(nv.name);
            rt_value_free(&nv.v);
            rc = w32_error(e, r == ERROR_SUCCESS ? ERROR_NOT_ENOUGH_MEMORY
                                                 : (DWORD)r,
                           "%s: cannot read value %lu of HKLM\\%s",
                           w->machine, (unsigned long)i, path);
            break;
        }
        vals = grown;
        vals[n++] = nv;
    }
    if (!name)
        rc = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    free(name);
    RegCloseKey(k);
    if (rc == 0) {
        if (n)
            qsort(vals, n, sizeof *vals, cmp_named);
        for (size_t i = 0; i < n; i++) {
            rt_strbuf_printf(b, "  \"%s\" type=%lu len=%zu ", vals[i].name,
                      (unsigned long)vals[i].v.type, vals[i].v.len);
            for (size_t j = 0; j < vals[i].v.len; j++)
                rt_strbuf_printf(b, "%02x", vals[i].v.data[j]);
            rt_strbuf_printf(b, "\n");
        }
    }
    for (size_t i = 0; i < n; i++) {
        free(vals[i].name);
        rt_value_free(&vals[i].v);
    }
    free(vals);
    if (rc != 0)
        return -1;
    char **subs;
    size_t n_subs;
    if (list_subkeys(w, path, &subs, &n_subs, e) != 0)
        return -1;
    if (n_subs)
        qsort(subs, n_subs, sizeof *subs, cmp_str);
    for (size_t i = 0; i < n_subs && rc == 0; i++) {
        char *child = join(path, subs[i]);
        rc = child ? dump_key(w, child, depth + 1, b, e)
                   : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        free(child);
    }
    rt_strings_free(subs, n_subs);
    return rc;
}

char *rt_store_win32_dump(struct rt_store *s, const char *const *services,
                          size_t n, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    struct rt_strbuf b = {0};
    int r = dump_key(w, w->perflib, 0, &b, e);
    for (size_t i = 0; r == 0 && i < n; i++) {
        char *path = valid_component(services[i])
                         ? join(w->services, services[i]) : NULL;
        r = path ? dump_key(w, path, 0, &b, e)
                 : rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                                "bad service name");
        free(path);
    }
    if (r == 0 && b.failed)
        r = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (r != 0) {
        free(b.s);
        return NULL;
    }
    return b.s ? b.s : strdup("");
}

#else /* !_WIN32 */

/* Without advapi32 there is no live registry to open. */
/* LCOV_EXCL_START: only the Windows tests open a sandbox key */
struct rt_store *rt_store_win32_open_at(const char *machine, const char *root,
                                        struct rt_error *e)
{
    (void)root;
    return rt_store_win32_open(machine, e);
}
/* LCOV_EXCL_STOP */

struct rt_store *rt_store_win32_open(const char *machine, struct rt_error *e)
{
    rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                 "the live registry%s%s is reachable only from a Windows "
                 "build of regtool (or under Wine); use a hive store here",
                 machine ? " of " : "", machine ? machine : "");
    return NULL;
}

/* The rest take a win32 store, which this build never opens (above):
 * they cannot run here, and the Windows build has its own. */
/* LCOV_EXCL_START */
void rt_store_win32_fail_after(struct rt_store *s, size_t k)
{
    (void)s;
    (void)k;
}

void rt_store_win32_force_journal(struct rt_store *s, int on)
{
    (void)s;
    (void)on;
}

char *rt_store_win32_dump(struct rt_store *s, const char *const *services,
                          size_t n, struct rt_error *e)
{
    (void)s;
    (void)services;
    (void)n;
    rt_error_set(e, RT_ERR_NOT_SUPPORTED, "no live registry in this build");
    return NULL;
}

const char *rt_store_win32_journal_path(struct rt_store *s)
{
    (void)s;
    return NULL;
}
/* LCOV_EXCL_STOP */

#endif
