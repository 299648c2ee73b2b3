/* Store layer, internal: what the pieces of the win32 store share.
 * store_win32.c (where the tables live, the lock, the store operations,
 * opening), win32_plan.c (planning a commit), win32_apply.c (applying
 * it), win32_journal.c (the journal of pre-images and its rollback),
 * win32_files.c (the side files under the Windows directory),
 * win32_dump.c (the tests' dump) and win32_registry.c (Win32 errors,
 * UTF-8/UTF-16 strings and the registry calls the others make) each keep
 * their own helpers static;
 * this header holds the store's state and the few helpers that cross
 * between them, so that the journal can be read on its own. Not for use
 * outside lib/store/. Everything here is Windows (or Winelib) only; on
 * other systems only the public store_win32.h is declared. */
#ifndef RT_STORE_WIN32_INTERNAL_H
#define RT_STORE_WIN32_INTERNAL_H

#include "store/store_win32.h"
#include "model/strbuf.h"

#ifdef _WIN32

#include <stddef.h>

#include <windows.h>

#include "model/change_set.h"
#include "model/error.h"
#include "store/store.h"

/* Every key is opened in the 64-bit view, so a 32-bit build on 64-bit
 * Windows edits the same Perflib as the system (no Wow6432Node). */
#define VIEW KEY_WOW64_64KEY

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
    char *windows_dir;          /* UTF-8, made on first use; "" unknown */
    WCHAR windir_w[MAX_PATH + 1];   /* for side files; empty until known */
    char layout[1024];
    struct ktm ktm;
    size_t fail_after;
    int force_journal;
};

/* The state of one value before a commit: absent, or type and bytes. */
struct pre_value {
    char *key, *name;
    int present;
    struct rt_value v;
};

/* The state of one side file before a commit: absent, or its bytes.
 * PATH is relative to the Windows directory, '/' between components. */
struct pre_file {
    char *path;
    int present;
    struct rt_value v;
};

/* What a commit will do, as the journal records it. */
struct plan {
    char **created;             /* keys to create, parents first */
    size_t n_created;
    struct pre_value *vals;
    size_t n_vals;
    struct pre_file *files;     /* side files written or deleted */
    size_t n_files;
    char **dirs;                /* folders to create, parents first */
    size_t n_dirs;
};

/* Far above any real Perflib (a Help table is a few MB). */
#define MAX_VALUE_BYTES (256u << 20)

static inline struct w32_store *w32(struct rt_store *s)
{
    return (struct w32_store *)s;
}

/* ---- store_win32.c ------------------------------------------------------- */

/* Where a language's tables live (docs/design.md, "Where the tables
 * live"). */
enum table_home {
    TABLES_IN_VALUES,       /* Counter/Help values of Perflib\LLL */
    TABLES_PREDEFINED,      /* served by the system through the key */
    TABLES_IN_DAT,          /* System32\perfcLLL.dat exists */
    TABLES_UNKNOWN,         /* System32 unreachable */
};

/* Whether K is a handle the system hands out for a predefined-handle key
 * (HKEY_PERFORMANCE_TEXT, HKEY_PERFORMANCE_NLSTEXT). */
int w32_is_predefined(HKEY k);

/* H in words, for messages and the layout. */
const char *w32_table_home_text(enum table_home h);

/* Where the tables of language LANG live. Writing is only right for
 * TABLES_IN_VALUES. */
int w32_table_home(struct w32_store *w, const char *lang,
                   enum table_home *home, struct rt_error *e);

/* ---- win32_plan.c -------------------------------------------------------- */

/* The value name of table T: "Counter" or "Help". */
const char *w32_table_value_name(enum rt_table_kind t);

/* The key a change writes to, as a new string, and the value name (NULL
 * for a change that only creates the key). */
char *w32_change_key(const struct w32_store *w, const struct rt_change *c,
                     const char **value);

/* Checks every change and records what it will touch, before any write. */
int w32_make_plan(struct w32_store *w, const struct rt_change_set *cs,
                  struct plan *p, struct rt_error *e);

/* ---- win32_apply.c ------------------------------------------------------- */

/* The store's apply operation: CS in a transaction, or under the journal. */
int w32_apply(struct rt_store *s, const struct rt_change_set *cs,
              struct rt_error *e);

/* ---- win32_registry.c ---------------------------------------------------- */

/* A new string "A\B"; NULL when out of memory. */
char *w32_join(const char *a, const char *b);

/* Appends SRC to the NUL-terminated DST of CAP units, truncating. */
void w32_wappend(WCHAR *dst, size_t cap, const WCHAR *src);

/* The length of S in UTF-16 units. */
size_t w32_wlen(const WCHAR *s);

/* Whether A and B name the same key or value (the registry ignores case). */
int w32_same_name(const char *a, const char *b);

/* A key name the engine handed us: one path component. */
int w32_valid_component(const char *s);

/* Whether PATH exists: 1, 0, or -1 with E set. */
int w32_key_exists(struct w32_store *w, const char *path, struct rt_error *e);

/* Reads value NAME of open key K into OUT (type and bytes as stored). */
LONG w32_query_value(HKEY k, const char *name, struct rt_value *out);

/* Value NAME of key PATH; *PRESENT 0 when the key or value is absent. */
int w32_read_value(struct w32_store *w, const char *path, const char *name,
                   struct rt_value *out, int *present, struct rt_error *e);

/* The subkey names of PATH (none when PATH is absent). */
int w32_list_subkeys(struct w32_store *w, const char *path, char ***names,
                     size_t *n, struct rt_error *e);

/* Sets E to Win32 error ERR with "FMT...: <system text>"; returns -1. */
int w32_error(struct rt_error *e, DWORD err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* UTF-8 to a new NUL-terminated UTF-16 string; NULL on bad UTF-8 or when
 * out of memory. */
WCHAR *w32_wide(const char *s);

/* NCHARS UTF-16 units to a new UTF-8 string; NULL on an unpaired
 * surrogate or when out of memory. */
char *w32_narrow(const WCHAR *w, size_t nchars);

/* A copy of the first N bytes of S. */
char *w32_dup_n(const char *s, size_t n);


/* Opens PATH (UTF-8, relative to HKLM). Returns the Win32 status. */
LONG w32_open_key(struct w32_store *w, const char *path, REGSAM access,
                  HKEY *out);

/* RegSetValueExW that stores exactly V's bytes (no NUL added to a
 * string). Returns the Win32 status. */
LONG w32_set_value(HKEY k, const WCHAR *name, const struct rt_value *v);

/* Flushes the SOFTWARE and SYSTEM hives. */
void w32_flush_hives(struct w32_store *w);

/* ---- win32_files.c ------------------------------------------------------- */

/* Whether the store keeps side files: the local machine, whose Windows
 * directory is known. */
int w32_files_available(struct w32_store *w);

/* The Win32 path of REL (relative, '/' between components) under the
 * Windows directory, with SUFFIX (or NULL) appended; NULL for a REL that
 * is not a plain relative path, without a Windows directory, or when out
 * of memory. */
WCHAR *w32_file_path(struct w32_store *w, const char *rel, const WCHAR *suffix);

/* Reads side file REL whole into OUT (*PRESENT 0 when absent). */
int w32_file_read(struct w32_store *w, const char *rel, struct rt_value *out,
                  int *present, struct rt_error *e);

/* Records in P the pre-image of the file change C writes or deletes, and
 * for a write the folders it will create. Checks C's path. */
int w32_plan_file(struct w32_store *w, struct plan *p,
                  const struct rt_change *c, struct rt_error *e);

/* Writes REL whole (a flushed temporary file renamed over it), creating
 * its folders; *DIRS_MADE (if not NULL) counts them. Win32 status. */
DWORD w32_file_put(struct w32_store *w, const char *rel, const uint8_t *data,
                   size_t len, int *dirs_made);

/* Deletes REL (absent is fine; *DELETED says whether it was there). */
DWORD w32_file_delete(struct w32_store *w, const char *rel, int *deleted);

/* Removes folder REL when it is empty; 1 when removed. */
int w32_dir_remove_if_empty(struct w32_store *w, const char *rel);

/* Puts side file F back as recorded (and removes a temporary file a
 * crash left beside it). */
int w32_file_restore(struct w32_store *w, const struct pre_file *f,
                     struct rt_error *e);

/* ---- win32_journal.c ----------------------------------------------------- */

void w32_plan_free(struct plan *p);

/* Writes P as a sealed journal, flushed, before the registry is touched. */
int w32_journal_write(struct w32_store *w, const struct plan *p,
                      struct rt_error *e);

/* Deletes the journal (absent is fine). */
int w32_journal_delete(struct w32_store *w, struct rt_error *e);

/* Rolls back a journal left behind: 1 restored, 0 nothing to do, -1 with
 * E (the journal stays). The caller holds the writer lock. */
int w32_recover(struct w32_store *w, struct rt_error *e);

#endif /* _WIN32 */

#endif
