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
 * (docs/design.md, "Where the tables live"),
 * so apply() refuses such table changes; the hive store writes .dat
 * tables offline. Wine 8 makes Perflib\009 such a key (the server flags
 * it predefined; RegQueryValueEx answers a fixed stub table "1 1847 1846
 * End Marker", RegSetValueEx and RegDeleteKey fail with
 * ERROR_INVALID_HANDLE); its other language keys are plain keys with
 * values.
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
 * The files: this one finds where a language's tables live and holds the
 * writer lock, the store operations and opening; win32_plan.c plans a
 * commit, win32_apply.c applies it (in a transaction, or under the
 * journal); win32_journal.c keeps the journal and rolls it back;
 * win32_files.c the side files; win32_registry.c has the text and
 * registry helpers they use; win32_dump.c dumps keys for the tests;
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

/* ---- where a language's tables live --------------------------------------- */

/* A handle the system hands out for a predefined-handle key (docs/design.md,
 * "Where the tables live"):
 * opening Perflib\009 gives HKEY_PERFORMANCE_TEXT, CurrentLanguage
 * HKEY_PERFORMANCE_NLSTEXT. Wine 8 does the same for 009 (kernelbase
 * maps the server's STATUS_PREDEFINED_HANDLE to HKEY_PERFORMANCE_TEXT). */
int w32_is_predefined(HKEY k)
{
    return k == HKEY_PERFORMANCE_TEXT || k == HKEY_PERFORMANCE_NLSTEXT;
}

const char *w32_table_home_text(enum table_home h)
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
 * store does not write (docs/design.md, "The name database"). */
int w32_table_home(struct w32_store *w, const char *lang,
                   enum table_home *home, struct rt_error *e)
{
    char *key = w32_join(w->perflib, lang);
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
        int predefined = w32_is_predefined(k);
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
    w32_wappend(path, sizeof path / sizeof *path, w->sysdir);
    w32_wappend(path, sizeof path / sizeof *path, L"\\perfc");
    w32_wappend(path, sizeof path / sizeof *path, lang_w);
    w32_wappend(path, sizeof path / sizeof *path, L".dat");
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
    if (w32_list_subkeys(w32(s), w32(s)->perflib, &all, &n_all, e) != 0)
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
    if (!w32_valid_component(lang))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad language key name");
    char *key = w32_join(w32(s)->perflib, lang);
    if (!key)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int r = w32_read_value(w32(s), key, w32_table_value_name(t), out,
                           present, e);
    free(key);
    return r;
}

static int w32_read_perflib(struct rt_store *s, const char *name,
                            struct rt_value *out, int *present,
                            struct rt_error *e)
{
    return w32_read_value(w32(s), w32(s)->perflib, name, out, present, e);
}

static int w32_list_perf_services(struct rt_store *s, char ***names,
                                  size_t *n, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    char **all;
    size_t n_all, k = 0;
    if (w32_list_subkeys(w, w->services, &all, &n_all, e) != 0)
        return -1;
    for (size_t i = 0; i < n_all; i++) {
        char *svc = w32_join(w->services, all[i]);
        char *perf = svc ? w32_join(svc, "Performance") : NULL;
        int ex = perf ? w32_key_exists(w, perf, e)
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
    if (!w32_valid_component(service))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad service name");
    char *svc = w32_join(w->services, service);
    char *perf = svc ? w32_join(svc, "Performance") : NULL;
    int r = -1;
    if (!perf) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    } else if ((*exists = w32_key_exists(w, svc, e)) >= 0 &&
               (*has_perf = *exists ? w32_key_exists(w, perf, e) : 0) >= 0) {
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
    if (!w32_valid_component(service))
        return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                            "bad service name");
    char *svc = w32_join(w32(s)->services, service);
    char *perf = svc ? w32_join(svc, "Performance") : NULL;
    int r = perf ? w32_read_value(w32(s), perf, name, out, present, e)
                 : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    free(svc);
    free(perf);
    return r;
}

static int w32_read_machine(struct rt_store *s, int system, const char *key,
                            const char *name, struct rt_value *out,
                            int *present, struct rt_error *e)
{
    struct w32_store *w = w32(s);
    /* What stands before SERVICES_PATH is the store's key root, if any. */
    int root = (int)(strlen(w->services) - strlen(SERVICES_PATH));
    char *path = NULL;
    if (asprintf(&path, "%.*s%s\\%s", root, w->services,
                 system ? "SYSTEM\\CurrentControlSet" : "SOFTWARE", key) < 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int r = w32_read_value(w, path, name, out, present, e);
    HKEY k;
    LONG o = r == 0 && !*present
                 ? w32_open_key(w, path, KEY_QUERY_VALUE, &k)
                 : ERROR_SUCCESS;
    if (o == ERROR_SUCCESS && r == 0 && !*present)
        RegCloseKey(k);
    else if (o == ERROR_FILE_NOT_FOUND)
        *present = -1;      /* the key itself is not there */
    free(path);
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
        if (w32_table_home(w, langs[i], &home, &e) != 0)
            rt_strbuf_printf(&b, "%s%s unknown (%s)", i ? ", " : "", langs[i],
                      e.message);
        else
            rt_strbuf_printf(&b, "%s%s %s", i ? ", " : "", langs[i],
                      w32_table_home_text(home));
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
    /* Presence alone: read, then let go (this store's files are its
     * own, not a tree someone else wrote). */
    struct rt_value v;
    int r = w32_file_read(w32(s), rel, out ? out : &v, present, e);
    if (!out)
        rt_value_free(&v);
    return r;
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
    if (w32_table_home(w, lang, &home, &e) != 0 || home != TABLES_PREDEFINED)
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
    .read_machine = w32_read_machine,
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
/* A 32-bit build on 64-bit Windows (WOW64) sees SysWOW64 when it opens
 * System32, whose perfcLLL.dat are the 32-bit copies: the system's own
 * System32 is the Windows directory's Sysnative for it. */
static void find_local_sysdir(struct w32_store *w)
{
    BOOL wow64 = FALSE;
    UINT n;
    if (IsWow64Process(GetCurrentProcess(), &wow64) && wow64) {
        n = GetSystemWindowsDirectoryW(w->sysdir, MAX_PATH);
        if (n > 0 && n < MAX_PATH)
            w32_wappend(w->sysdir, MAX_PATH + 16, L"\\Sysnative");
    } else {
        n = GetSystemDirectoryW(w->sysdir, MAX_PATH);
    }
    if (n == 0 || n >= MAX_PATH)
        w->sysdir[0] = 0;
}

static void find_sysdir(struct w32_store *w, const WCHAR *remote_name)
{
    size_t cap = sizeof w->sysdir / sizeof *w->sysdir;
    w->sysdir[0] = 0;
    if (!remote_name) {
        find_local_sysdir(w);
        return;
    }
    w32_wappend(w->sysdir, cap, L"\\\\");
    w32_wappend(w->sysdir, cap, remote_name);
    w32_wappend(w->sysdir, cap, L"\\ADMIN$\\System32");
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
        w32_wappend(dir, MAX_PATH, L"\\regtool");
    }
    if (!CreateDirectoryW(dir, NULL) &&
        GetLastError() != ERROR_ALREADY_EXISTS) {
        char *d = w32_narrow(dir, w32_wlen(dir));
        w32_error(e, GetLastError(), "cannot create the journal directory %s",
                  d ? d : "?");
        free(d);
        return -1;
    }
    char *d = w32_narrow(dir, w32_wlen(dir));
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
    w->perflib = root ? w32_join(root, PERFLIB_PATH) : strdup(PERFLIB_PATH);
    w->services = root ? w32_join(root, SERVICES_PATH) : strdup(SERVICES_PATH);
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
    w32_wappend(mutex_name, 128, L"Global\\regtool-perflib");
    if (strcmp(id, "local")) {
        w32_wappend(mutex_name, 128, L"-");
        w32_wappend(mutex_name, 128, id_w);
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

const char *rt_store_win32_journal_path(struct rt_store *s)
{
    (void)s;
    return NULL;
}
/* LCOV_EXCL_STOP */

#endif
