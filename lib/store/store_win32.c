/* Store layer: the win32 store, the live registry through advapi32 (local,
 * or remote through RegConnectRegistry).
 *
 * Where things are (SPEC 1.1, 1.2):
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
 * values there would put the strings where nothing reads them (SPEC 1.1),
 * so apply() refuses such table changes; the hive store writes .dat
 * tables offline. Wine 8 makes Perflib\009 such a key (the server flags
 * it predefined; RegQueryValueEx answers a fixed stub table "1 1847 1846
 * End Marker", RegSetValueEx and RegDeleteKey fail with
 * ERROR_INVALID_HANDLE); its other language keys are plain keys with
 * values.
 *
 * Commit (SPEC 5.2): a KTM transaction (CreateTransaction,
 * RegCreateKeyTransactedW; Vista and later, local registry only), looked
 * up with GetProcAddress so the binary still loads without them. Wine
 * exports RegCreateKeyTransactedW as a stub answering
 * ERROR_CALL_NOT_IMPLEMENTED and has no RegOpenKeyTransactedW; a remote
 * registry cannot join a local transaction. There, a journal of
 * pre-images is used instead:
 *   1. with the named mutex held, every value the change set touches is
 *      read (type and bytes, or absent) and every key it will create is
 *      listed, in a journal file, written, sealed and flushed
 *      (FlushFileBuffers) before the registry is touched;
 *   2. the changes are applied and the keys flushed (RegFlushKey);
 *   3. the journal is deleted.
 * A journal found by the next open() or begin() is rolled back: values
 * restored, created keys deleted (deepest first); an unsealed journal was
 * never acted on and is discarded. Rollback is idempotent, so a crash
 * during it is finished by the run after.
 *
 * Journal file, little-endian:
 *   "RTWJ" u32 version(1)
 *   records: u8 kind (1 value, 2 created key), u32 key length in bytes,
 *            key path (UTF-16LE, relative to HKLM); for a value also u32
 *            name length, name (UTF-16LE), u8 present, u32 type, u32 data
 *            length, data
 *   seal: "SEAL" u32 record count, u32 CRC-32 of everything before it.
 *
 * One writer at a time: a named mutex (Global\regtool-perflib, with the
 * machine name appended for a remote registry) held from begin() to end().
 * A writer that dies leaves it abandoned; the next owner recovers. Every
 * registry write and journal write is counted by rt_io_count_write, so
 * REGTOOL_FAULT_AFTER_WRITES ends the process at any of them. */
#include "store/store_win32.h"

#ifdef _WIN32

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "commit/crc32.h"
#include "commit/io.h"
#include "model/utf16.h"

#define PERFLIB_PATH  "SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES_PATH "SYSTEM\\CurrentControlSet\\Services"

/* Every key is opened in the 64-bit view, so a 32-bit build on 64-bit
 * Windows edits the same Perflib as the system (no Wow6432Node). */
#define VIEW KEY_WOW64_64KEY

#define JOURNAL_MAGIC   "RTWJ"
#define JOURNAL_VERSION 1u
#define SEAL_MAGIC      "SEAL"
#define SEAL_SIZE       12
#define REC_VALUE       1
#define REC_KEY         2
/* Far above any real Perflib (a Help table is a few MB). */
#define MAX_VALUE_BYTES (256u << 20)
#define MAX_JOURNAL     (1024u << 20)
#define MAX_DUMP_DEPTH  32

typedef HANDLE(WINAPI *create_transaction_fn)(LPSECURITY_ATTRIBUTES, LPGUID,
                                              DWORD, DWORD, DWORD, DWORD,
                                              LPWSTR);
typedef BOOL(WINAPI *transaction_fn)(HANDLE);
typedef LONG(WINAPI *create_key_transacted_fn)(HKEY, LPCWSTR, DWORD, LPWSTR,
                                               DWORD, REGSAM,
                                               LPSECURITY_ATTRIBUTES, PHKEY,
                                               LPDWORD, HANDLE, PVOID);
typedef LONG(WINAPI *open_key_transacted_fn)(HKEY, LPCWSTR, DWORD, REGSAM,
                                             PHKEY, HANDLE, PVOID);

struct ktm {
    HMODULE ktmw32;
    create_transaction_fn create;
    transaction_fn commit, rollback;
    create_key_transacted_fn create_key;
    open_key_transacted_fn open_key;    /* optional: Wine lacks it */
    int unsupported;                    /* learnt from a first attempt */
};

struct w32_store {
    struct rt_store base;
    HKEY hklm;
    int remote;                 /* hklm came from RegConnectRegistry */
    char *machine;              /* for messages: "this machine" or \\NAME */
    char *journal;              /* UTF-8, for messages */
    WCHAR *journal_w;
    HANDLE mutex;
    int locked;
    char *perflib, *services;   /* key paths relative to HKLM */
    /* System32 of the machine (\\NAME\ADMIN$\System32 when remote);
     * empty when unknown. */
    WCHAR sysdir[MAX_PATH + 320];
    char layout[1024];
    struct ktm ktm;
    size_t fail_after;
    int force_journal;
};

static struct w32_store *w32(struct rt_store *s)
{
    return (struct w32_store *)s;
}

/* ---- text helpers ---------------------------------------------------- */

/* A Win32 error as text: FormatMessage's sentence and the number. */
static void win_error_text(DWORD err, char *buf, size_t size)
{
    WCHAR msg[512];
    DWORD n = FormatMessageW(FORMAT_MESSAGE_FROM_SYSTEM |
                                 FORMAT_MESSAGE_IGNORE_INSERTS,
                             NULL, err, 0, msg, 512, NULL);
    while (n > 0 && (msg[n - 1] == '\r' || msg[n - 1] == '\n' ||
                     msg[n - 1] == ' ' || msg[n - 1] == '.'))
        n--;
    char *u = NULL;
    if (n && rt_utf16le_to_utf8((const uint8_t *)msg, n * 2u, &u, NULL,
                                NULL) == 0)
        snprintf(buf, size, "%s (error %lu)", u, (unsigned long)err);
    else
        snprintf(buf, size, "error %lu", (unsigned long)err);
    free(u);
}

static int win_error(struct rt_error *e, DWORD err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Sets E to Win32 error ERR with "FMT...: <system text>". */
static int win_error(struct rt_error *e, DWORD err, const char *fmt, ...)
{
    char what[600], text[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    win_error_text(err, text, sizeof text);
    return rt_error_set(e, (int)err, "%s: %s", what, text);
}

/* UTF-8 to a new NUL-terminated UTF-16 string; NULL on bad UTF-8 or when
 * out of memory. */
static WCHAR *wide(const char *s)
{
    return (WCHAR *)rt_utf8_to_utf16z(s);
}

/* NCHARS UTF-16 units to a new UTF-8 string; NULL on an unpaired
 * surrogate or when out of memory. */
static char *narrow(const WCHAR *w, size_t nchars)
{
    char *s = NULL;
    if (rt_utf16le_to_utf8((const uint8_t *)w, nchars * 2, &s, NULL, NULL) != 0)
        return NULL;
    return s;
}

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

/* A copy of the first N bytes of S. */
static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
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

struct strbuf {
    char *s;
    size_t len, cap;
    int failed;
};

static void sb_printf(struct strbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void sb_printf(struct strbuf *b, const char *fmt, ...)
{
    if (b->failed)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* ---- registry access --------------------------------------------------- */

/* Opens PATH (UTF-8, relative to HKLM). Returns the Win32 status. */
static LONG open_key(struct w32_store *w, const char *path, REGSAM access,
                     HKEY *out)
{
    WCHAR *p = wide(path);
    if (!p)
        return ERROR_INVALID_PARAMETER;
    LONG r = RegOpenKeyExW(w->hklm, p, 0, access | VIEW, out);
    free(p);
    return r;
}

/* Whether PATH exists: 1, 0, or -1 with E set. */
static int key_exists(struct w32_store *w, const char *path, struct rt_error *e)
{
    HKEY k;
    LONG r = open_key(w, path, KEY_QUERY_VALUE, &k);
    if (r == ERROR_SUCCESS) {
        RegCloseKey(k);
        return 1;
    }
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    return win_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine, path);
}

/* Reads value NAME of open key K into OUT (type and bytes as stored). */
static LONG query_value(HKEY k, const char *name, struct rt_value *out)
{
    WCHAR *n = wide(name);
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

/* RegSetValueExW that stores exactly V's bytes. For string types,
 * Windows and Wine extend the count by one NUL when the data does not end
 * in one but the next two bytes in memory are zero (Wine's kernelbase:
 * "if user forgot to count terminating null, add it (yes NT does this)");
 * a copy followed by non-zero bytes keeps the value as given. */
static LONG set_value(HKEY k, const WCHAR *name, const struct rt_value *v)
{
    int is_string = v->type == RT_REG_SZ || v->type == RT_REG_EXPAND_SZ ||
                    v->type == RT_REG_MULTI_SZ;
    if (!is_string || v->len == 0)
        return RegSetValueExW(k, name, 0, v->type, v->data, (DWORD)v->len);
    uint8_t *copy = malloc(v->len + 4);
    if (!copy)
        return ERROR_NOT_ENOUGH_MEMORY;
    memcpy(copy, v->data, v->len);
    memset(copy + v->len, 0xff, 4);
    LONG r = RegSetValueExW(k, name, 0, v->type, copy, (DWORD)v->len);
    free(copy);
    return r;
}

/* Value NAME of key PATH; *PRESENT 0 when the key or value is absent. */
static int read_value(struct w32_store *w, const char *path, const char *name,
                      struct rt_value *out, int *present, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = 0;
    HKEY k;
    LONG r = open_key(w, path, KEY_QUERY_VALUE, &k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return win_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    r = query_value(k, name, out);
    RegCloseKey(k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return win_error(e, (DWORD)r, "%s: cannot read HKLM\\%s\\%s",
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
    LONG r = open_key(w, path, KEY_ENUMERATE_SUB_KEYS, &k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS)
        return win_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    for (DWORD i = 0;; i++) {
        WCHAR name[256];
        DWORD len = 256;
        r = RegEnumKeyExW(k, i, name, &len, NULL, NULL, NULL, NULL);
        if (r == ERROR_NO_MORE_ITEMS)
            break;
        if (r != ERROR_SUCCESS) {
            win_error(e, (DWORD)r, "%s: cannot list HKLM\\%s", w->machine,
                      path);
            goto fail;
        }
        char *u = narrow(name, len);
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

/* A handle the system hands out for a predefined-handle key (SPEC 1.1):
 * opening Perflib\009 gives HKEY_PERFORMANCE_TEXT, CurrentLanguage
 * HKEY_PERFORMANCE_NLSTEXT. Wine 8 does the same for 009 (kernelbase
 * maps the server's STATUS_PREDEFINED_HANDLE to HKEY_PERFORMANCE_TEXT). */
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
 * store does not write (SPEC 1.1). */
static int table_home(struct w32_store *w, const char *lang,
                      enum table_home *home, struct rt_error *e)
{
    char *key = join(w->perflib, lang);
    if (!key)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    HKEY k;
    LONG r = open_key(w, key, KEY_QUERY_VALUE, &k);
    if (r != ERROR_SUCCESS && r != ERROR_FILE_NOT_FOUND) {
        win_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine, key);
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
    WCHAR *lang_w = wide(lang);
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
    return win_error(e, GetLastError(), "%s: cannot take the writer lock",
                     w->machine);
}

static void lock_give(struct w32_store *w)
{
    ReleaseMutex(w->mutex);
}

/* ---- the journal ------------------------------------------------------- */

struct pre_value {
    char *key, *name;
    int present;
    struct rt_value v;
};

/* What a commit will do, as the journal records it. */
struct plan {
    char **created;             /* keys to create, parents first */
    size_t n_created;
    struct pre_value *vals;
    size_t n_vals;
};

static void plan_free(struct plan *p)
{
    rt_strings_free(p->created, p->n_created);
    for (size_t i = 0; i < p->n_vals; i++) {
        free(p->vals[i].key);
        free(p->vals[i].name);
        rt_value_free(&p->vals[i].v);
    }
    free(p->vals);
    memset(p, 0, sizeof *p);
}

static void put_u32(struct strbuf *b, uint32_t x)
{
    if (b->failed)
        return;
    if (b->len + 4 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + 4)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    for (int i = 0; i < 4; i++)
        b->s[b->len++] = (char)(x >> (8 * i));
}

static void put_bytes(struct strbuf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->failed = 1;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    if (n)
        memcpy(b->s + b->len, p, n);
    b->len += n;
}

/* A UTF-8 string as u32 byte length + UTF-16LE. */
static void put_string(struct strbuf *b, const char *s)
{
    uint8_t *u = NULL;
    size_t n = 0;
    if (rt_utf8_to_utf16le(s, strlen(s), &u, &n, NULL) != 0) {
        b->failed = 1;
        return;
    }
    put_u32(b, (uint32_t)n);
    put_bytes(b, u, n);
    free(u);
}

static int encode_journal(const struct plan *p, struct strbuf *b)
{
    put_bytes(b, JOURNAL_MAGIC, 4);
    put_u32(b, JOURNAL_VERSION);
    for (size_t i = 0; i < p->n_vals; i++) {
        const struct pre_value *v = &p->vals[i];
        uint8_t kind = REC_VALUE, present = (uint8_t)v->present;
        put_bytes(b, &kind, 1);
        put_string(b, v->key);
        put_string(b, v->name);
        put_bytes(b, &present, 1);
        put_u32(b, v->present ? v->v.type : 0);
        put_u32(b, v->present ? (uint32_t)v->v.len : 0);
        if (v->present)
            put_bytes(b, v->v.data, v->v.len);
    }
    for (size_t i = 0; i < p->n_created; i++) {
        uint8_t kind = REC_KEY;
        put_bytes(b, &kind, 1);
        put_string(b, p->created[i]);
    }
    return b->failed ? -1 : 0;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

struct reader {
    const uint8_t *p;
    size_t len, off;
};

static int take(struct reader *r, size_t n, const uint8_t **out)
{
    if (n > r->len - r->off)
        return -1;
    *out = r->p + r->off;
    r->off += n;
    return 0;
}

static int take_u32(struct reader *r, uint32_t *x)
{
    const uint8_t *p;
    if (take(r, 4, &p) != 0)
        return -1;
    *x = get_u32(p);
    return 0;
}

static int take_string(struct reader *r, char **out)
{
    uint32_t n;
    const uint8_t *p;
    if (take_u32(r, &n) != 0 || (n & 1) || take(r, n, &p) != 0)
        return -1;
    return rt_utf16le_to_utf8(p, n, out, NULL, NULL) == 0 ? 0 : -1;
}

/* Parses a sealed journal body into P. Returns 0, or -1 with E naming the
 * offset of the bad record. */
static int decode_journal(const char *path, const uint8_t *data, size_t len,
                          uint32_t count, struct plan *p, struct rt_error *e)
{
    struct reader r = {data, len, 8};
    for (uint32_t i = 0; i < count; i++) {
        size_t at = r.off;
        const uint8_t *kind;
        char *key = NULL;
        if (take(&r, 1, &kind) != 0 || take_string(&r, &key) != 0)
            goto bad;
        if (*kind == REC_KEY) {
            char **c = realloc(p->created, (p->n_created + 1) * sizeof *c);
            if (!c) {
                free(key);
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            }
            p->created = c;
            c[p->n_created++] = key;
            continue;
        }
        struct pre_value v = {.key = key};
        const uint8_t *present, *data_p;
        uint32_t type, dlen;
        if (*kind != REC_VALUE || take_string(&r, &v.name) != 0 ||
            take(&r, 1, &present) != 0 || *present > 1 ||
            take_u32(&r, &type) != 0 || take_u32(&r, &dlen) != 0 ||
            take(&r, dlen, &data_p) != 0 || (!*present && dlen)) {
            free(v.name);
            free(key);
            goto bad;
        }
        v.present = *present;
        struct rt_value src = {type, (uint8_t *)data_p, dlen};
        struct pre_value *nv = realloc(p->vals, (p->n_vals + 1) * sizeof *nv);
        if (!nv || (v.present && rt_value_copy(&v.v, &src) != 0)) {
            if (nv)
                p->vals = nv;
            free(v.name);
            free(key);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        p->vals = nv;
        p->vals[p->n_vals++] = v;
        continue;
    bad:
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: record %lu at offset %zu is "
                            "malformed; nothing was rolled back (remove the "
                            "file after checking the registry by hand)",
                            path, (unsigned long)i, at);
    }
    if (r.off != len)
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: %zu bytes after the last record at "
                            "offset %zu; nothing was rolled back",
                            path, len - r.off, r.off);
    return 0;
}

/* Reads the journal. Returns 1 with DATA and LEN set when present, 0 when
 * absent, -1 with E on failure. */
static int journal_read(struct w32_store *w, uint8_t **data, size_t *len,
                        struct rt_error *e)
{
    HANDLE h = CreateFileW(w->journal_w, GENERIC_READ, FILE_SHARE_READ, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
            return 0;
        return win_error(e, err, "journal %s: cannot open", w->journal);
    }
    LARGE_INTEGER size;
    if (!GetFileSizeEx(h, &size)) {
        DWORD err = GetLastError();
        CloseHandle(h);
        return win_error(e, err, "journal %s: cannot read its size",
                         w->journal);
    }
    if (size.QuadPart > MAX_JOURNAL) {
        CloseHandle(h);
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: %lld bytes, more than any commit "
                            "writes; nothing was rolled back",
                            w->journal, (long long)size.QuadPart);
    }
    size_t n = (size_t)size.QuadPart, got = 0;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        CloseHandle(h);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    while (got < n) {
        DWORD chunk = n - got > (1u << 30) ? (1u << 30) : (DWORD)(n - got);
        DWORD r = 0;
        if (!ReadFile(h, buf + got, chunk, &r, NULL) || r == 0) {
            DWORD err = r == 0 ? ERROR_HANDLE_EOF : GetLastError();
            free(buf);
            CloseHandle(h);
            return win_error(e, err, "journal %s: cannot read", w->journal);
        }
        got += r;
    }
    CloseHandle(h);
    *data = buf;
    *len = n;
    return 1;
}

static int journal_delete(struct w32_store *w, struct rt_error *e)
{
    if (!DeleteFileW(w->journal_w)) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND)
            return 0;
        return win_error(e, err, "journal %s: cannot delete", w->journal);
    }
    rt_io_count_write();
    return 0;
}

static int write_all(HANDLE h, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, done = 0;
        if (!WriteFile(h, b, chunk, &done, NULL) || done == 0)
            return -1;
        b += done;
        n -= done;
    }
    return 0;
}

/* Writes P as a journal: body, flush, seal, flush. Each write counts. */
static int journal_write(struct w32_store *w, const struct plan *p,
                         struct rt_error *e)
{
    struct strbuf b = {0};
    if (encode_journal(p, &b) != 0) {
        free(b.s);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    uint8_t seal[SEAL_SIZE];
    memcpy(seal, SEAL_MAGIC, 4);
    uint32_t count = (uint32_t)(p->n_vals + p->n_created);
    uint32_t crc = rt_crc32(0, b.s, b.len);
    for (int i = 0; i < 4; i++) {
        seal[4 + i] = (uint8_t)(count >> (8 * i));
        seal[8 + i] = (uint8_t)(crc >> (8 * i));
    }
    HANDLE h = CreateFileW(w->journal_w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        free(b.s);
        return win_error(e, GetLastError(), "journal %s: cannot create",
                         w->journal);
    }
    int ok = write_all(h, b.s, b.len) == 0;
    free(b.s);
    if (ok) {
        rt_io_count_write();
        ok = FlushFileBuffers(h) && write_all(h, seal, sizeof seal) == 0;
    }
    if (ok) {
        rt_io_count_write();
        ok = FlushFileBuffers(h);
    }
    DWORD err = GetLastError();
    CloseHandle(h);
    if (!ok) {
        /* Unsealed or partly written: never acted on, safe to drop. */
        DeleteFileW(w->journal_w);
        return win_error(e, err, "journal %s: cannot write", w->journal);
    }
    return 0;
}

/* Deletes key PATH (no subkeys) through its parent, in the 64-bit view. */
static LONG delete_key(struct w32_store *w, const char *path)
{
    const char *leaf = strrchr(path, '\\');
    if (!leaf)
        return ERROR_INVALID_PARAMETER;
    char *parent = dup_n(path, (size_t)(leaf - path));
    WCHAR *leaf_w = wide(leaf + 1);
    HKEY k = NULL;
    LONG r = parent && leaf_w ? open_key(w, parent, KEY_ALL_ACCESS, &k)
                              : ERROR_NOT_ENOUGH_MEMORY;
    if (r == ERROR_SUCCESS) {
        r = RegDeleteKeyW(k, leaf_w);
        RegCloseKey(k);
    }
    free(parent);
    free(leaf_w);
    return r;
}

/* Flushes the SOFTWARE and SYSTEM hives, so what was written is on disk
 * before the journal that could undo it goes away. */
static void flush_hives(struct w32_store *w)
{
    static const char *const roots[] = {"SOFTWARE", "SYSTEM"};
    for (size_t i = 0; i < 2; i++) {
        HKEY k;
        if (open_key(w, roots[i], KEY_QUERY_VALUE, &k) == ERROR_SUCCESS) {
            RegFlushKey(k);
            RegCloseKey(k);
        }
    }
}

/* Puts back every pre-image of P and deletes the keys it created. */
static int restore(struct w32_store *w, const struct plan *p,
                   struct rt_error *e)
{
    for (size_t i = 0; i < p->n_vals; i++) {
        const struct pre_value *v = &p->vals[i];
        HKEY k;
        LONG r;
        WCHAR *kw = wide(v->key), *nw = wide(v->name);
        if (!kw || !nw) {
            free(kw);
            free(nw);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        if (v->present)
            r = RegCreateKeyExW(w->hklm, kw, 0, NULL, REG_OPTION_NON_VOLATILE,
                                KEY_SET_VALUE | VIEW, NULL, &k, NULL);
        else
            r = RegOpenKeyExW(w->hklm, kw, 0, KEY_SET_VALUE | VIEW, &k);
        free(kw);
        if (r == ERROR_FILE_NOT_FOUND && !v->present) {
            free(nw);
            continue;               /* no key, so no value: as it was */
        }
        if (r == ERROR_SUCCESS) {
            if (v->present)
                r = set_value(k, nw, &v->v);
            else
                r = RegDeleteValueW(k, nw);
            RegCloseKey(k);
        }
        free(nw);
        if (r == ERROR_FILE_NOT_FOUND)
            continue;
        if (r != ERROR_SUCCESS)
            return win_error(e, (DWORD)r,
                             "%s: rollback: cannot restore HKLM\\%s\\%s",
                             w->machine, v->key, v->name);
        rt_io_count_write();
    }
    for (size_t i = p->n_created; i-- > 0;) {
        LONG r = delete_key(w, p->created[i]);
        if (r == ERROR_FILE_NOT_FOUND)
            continue;
        if (r != ERROR_SUCCESS)
            return win_error(e, (DWORD)r,
                             "%s: rollback: cannot delete HKLM\\%s",
                             w->machine, p->created[i]);
        rt_io_count_write();
    }
    flush_hives(w);
    return 0;
}

/* Rolls back the journal left by a commit that did not finish. Returns 1
 * when pre-images were restored, 0 when there was nothing to do (or an
 * unsealed journal, never acted on, was discarded), -1 with E when it
 * could not be done; the journal then stays for the next run. The caller
 * holds the lock. */
static int recover(struct w32_store *w, struct rt_error *e)
{
    uint8_t *data = NULL;
    size_t len = 0;
    int r = journal_read(w, &data, &len, e);
    if (r <= 0)
        return r;
    int sealed = len >= 8 + SEAL_SIZE && !memcmp(data, JOURNAL_MAGIC, 4) &&
                 get_u32(data + 4) == JOURNAL_VERSION &&
                 !memcmp(data + len - SEAL_SIZE, SEAL_MAGIC, 4) &&
                 get_u32(data + len - 4) ==
                     rt_crc32(0, data, len - SEAL_SIZE);
    if (!sealed) {
        free(data);
        return journal_delete(w, e);
    }
    struct plan p = {0};
    r = decode_journal(w->journal, data, len - SEAL_SIZE,
                       get_u32(data + len - 8), &p, e);
    free(data);
    if (r == 0)
        r = restore(w, &p, e);
    plan_free(&p);
    if (r == 0)
        r = journal_delete(w, e);
    return r == 0 ? 1 : -1;
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
        char *prefix = dup_n(path, i);
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
    }
    return NULL;
}

/* Checks every change and records what it will touch, before any write. */
static int make_plan(struct w32_store *w, const struct rt_change_set *cs,
                     struct plan *p, struct rt_error *e)
{
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
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
    WCHAR *p = wide(path);
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
        return open_key(wr->w, path, KEY_SET_VALUE | KEY_QUERY_VALUE, k);
    WCHAR *p = wide(path);
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
            WCHAR *nw = wide(value);
            if (r == ERROR_SUCCESS && !nw)
                r = ERROR_NOT_ENOUGH_MEMORY;
            if (r == ERROR_SUCCESS) {
                if (c->op == RT_CHANGE_DELETE_SERVICE)
                    r = RegDeleteValueW(k, nw);
                else
                    r = set_value(k, nw, &c->value);
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
            win_error(e, (DWORD)r, "%s: change %zu: cannot write HKLM\\%s%s%s",
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
        r = win_error(e, GetLastError(),
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
    if (journal_write(w, p, e) != 0)
        return -1;
    struct writer wr = {.w = w, .fail_after = fail_after};
    int not_impl;
    if (write_changes(&wr, cs, p, e, &not_impl) != 0) {
        struct rt_error re = {0};
        if (recover(w, &re) < 0) {
            size_t l = strlen(e->message);
            snprintf(e->message + l, sizeof e->message - l,
                     "; rollback failed, the next run retries it: %s",
                     re.message);
        }
        return -1;
    }
    flush_hives(w);
    return journal_delete(w, e);
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
    if (r == 0 && !w->remote && !w->force_journal && w->ktm.create &&
        !w->ktm.unsupported) {
        r = apply_ktm(w, cs, &p, fail_after, e);
        if (r == 1)
            r = apply_journal(w, cs, &p, fail_after, e);
    } else if (r == 0) {
        r = apply_journal(w, cs, &p, fail_after, e);
    }
    plan_free(&p);
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
    if (recover(w, e) < 0) {
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
    struct strbuf b = {0};
    char **langs = NULL;
    size_t n = 0;
    struct rt_error e = {0};
    sb_printf(&b, "live registry of %s: tables ", w->machine);
    if (w32_list_languages(s, &langs, &n, &e) != 0)
        sb_printf(&b, "not listed (%s)", e.message);
    else if (n == 0)
        sb_printf(&b, "none");
    for (size_t i = 0; i < n; i++) {
        enum table_home home;
        if (table_home(w, langs[i], &home, &e) != 0)
            sb_printf(&b, "%s%s unknown (%s)", i ? ", " : "", langs[i],
                      e.message);
        else
            sb_printf(&b, "%s%s %s", i ? ", " : "", langs[i],
                      table_home_text(home));
    }
    rt_strings_free(langs, n);
    sb_printf(&b, "; commits %s",
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
    free(w);
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
        char *d = narrow(dir, wlen(dir));
        win_error(e, GetLastError(), "cannot create the journal directory %s",
                  d ? d : "?");
        free(d);
        return -1;
    }
    char *d = narrow(dir, wlen(dir));
    size_t len = (d ? strlen(d) : 0) + strlen(id) + 32;
    w->journal = d ? malloc(len) : NULL;
    if (w->journal) {
        snprintf(w->journal, len, "%s\\perflib-%s.journal", d, id);
        w->journal_w = wide(w->journal);
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
        name_w = wide(name);
        if (!w->machine || !name_w) {
            rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                         "'%s' is not a valid machine name", machine);
            goto fail;
        }
        snprintf(w->machine, len, "\\\\%s", name);
        WCHAR *unc = wide(w->machine);
        LONG r = unc ? RegConnectRegistryW(unc, HKEY_LOCAL_MACHINE, &w->hklm)
                     : ERROR_NOT_ENOUGH_MEMORY;
        free(unc);
        if (r != ERROR_SUCCESS) {
            w->hklm = NULL;
            win_error(e, (DWORD)r, "cannot connect to the registry of %s",
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
    WCHAR *id_w = wide(id);
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
        win_error(e, GetLastError(), "%s: cannot create the writer lock",
                  w->machine);
        goto fail;
    }
    /* A crashed writer's journal is rolled back before anything is read. */
    if (lock_take(w, e) != 0)
        goto fail;
    int r = recover(w, e);
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
                    struct strbuf *b, struct rt_error *e)
{
    HKEY k;
    LONG r = open_key(w, path, KEY_READ, &k);
    if (r == ERROR_FILE_NOT_FOUND) {
        sb_printf(b, "[%s] absent\n", path);
        return 0;
    }
    if (r != ERROR_SUCCESS)
        return win_error(e, (DWORD)r, "%s: cannot open HKLM\\%s", w->machine,
                         path);
    if (is_predefined(k)) {
        /* No values or subkeys of its own: the tables the system serves. */
        sb_printf(b, "[%s] predefined handle\n", path);
        static const char *const tables[] = {"Counter", "Help"};
        for (size_t i = 0; i < 2; i++) {
            struct rt_value v = {0};
            r = query_value(k, tables[i], &v);
            if (r == ERROR_SUCCESS) {
                sb_printf(b, "  \"%s\" type=%lu len=%zu ", tables[i],
                          (unsigned long)v.type, v.len);
                for (size_t j = 0; j < v.len; j++)
                    sb_printf(b, "%02x", v.data[j]);
                sb_printf(b, "\n");
                rt_value_free(&v);
            } else {
                sb_printf(b, "  \"%s\" unreadable, error %ld\n", tables[i],
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
    sb_printf(b, "[%s]\n", path);
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
        if (r == ERROR_SUCCESS && !(nv.name = narrow(name, len)))
            r = ERROR_INVALID_DATA;
        if (r == ERROR_SUCCESS)
            r = query_value(k, nv.name, &nv.v);
        struct named_value *grown =
            r == ERROR_SUCCESS ? realloc(vals, (n + 1) * sizeof *grown) : NULL;
        if (!grown) {
            free(nv.name);
            rt_value_free(&nv.v);
            rc = win_error(e, r == ERROR_SUCCESS ? ERROR_NOT_ENOUGH_MEMORY
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
            sb_printf(b, "  \"%s\" type=%lu len=%zu ", vals[i].name,
                      (unsigned long)vals[i].v.type, vals[i].v.len);
            for (size_t j = 0; j < vals[i].v.len; j++)
                sb_printf(b, "%02x", vals[i].v.data[j]);
            sb_printf(b, "\n");
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
    struct strbuf b = {0};
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
struct rt_store *rt_store_win32_open_at(const char *machine, const char *root,
                                        struct rt_error *e)
{
    (void)root;
    return rt_store_win32_open(machine, e);
}

struct rt_store *rt_store_win32_open(const char *machine, struct rt_error *e)
{
    rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                 "the live registry%s%s is reachable only from a Windows "
                 "build of regtool (or under Wine); use a hive store here",
                 machine ? " of " : "", machine ? machine : "");
    return NULL;
}

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

#endif
