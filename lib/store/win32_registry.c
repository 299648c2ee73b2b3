/* Store layer: the helpers the win32 store's files share (declared in
 * win32_internal.h). Text: a Win32 error as a message, UTF-8 to and from
 * UTF-16 for the W entry points, key paths joined and compared, wide
 * strings appended. Registry: the calls the commit (win32_plan.c,
 * win32_apply.c), the store operations (store_win32.c) and the rollback
 * (win32_journal.c) make, opening a key in the 64-bit view, reading a
 * value or a key's subkeys, setting a value byte for byte and flushing
 * the hives. Helpers only one file uses stay static in that file. */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

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

/* Sets E to Win32 error ERR with "FMT...: <system text>". */
int w32_error(struct rt_error *e, DWORD err, const char *fmt, ...)
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
WCHAR *w32_wide(const char *s)
{
    return (WCHAR *)rt_utf8_to_utf16z(s);
}

/* NCHARS UTF-16 units to a new UTF-8 string; NULL on an unpaired
 * surrogate or when out of memory. */
char *w32_narrow(const WCHAR *w, size_t nchars)
{
    char *s = NULL;
    if (rt_utf16le_to_utf8((const uint8_t *)w, nchars * 2, &s, NULL, NULL) != 0)
        return NULL;
    return s;
}

/* A copy of the first N bytes of S. */
char *w32_dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* ---- registry access --------------------------------------------------- */

/* Opens PATH (UTF-8, relative to HKLM). Returns the Win32 status. */
LONG w32_open_key(struct w32_store *w, const char *path, REGSAM access,
                  HKEY *out)
{
    WCHAR *p = w32_wide(path);
    if (!p)
        return ERROR_INVALID_PARAMETER;
    LONG r = RegOpenKeyExW(w->hklm, p, 0, access | VIEW, out);
    free(p);
    return r;
}

/* RegSetValueExW that stores exactly V's bytes. For string types,
 * Windows and Wine extend the count by one NUL when the data does not end
 * in one but the next two bytes in memory are zero (Wine's kernelbase:
 * "if user forgot to count terminating null, add it (yes NT does this)");
 * a copy followed by non-zero bytes keeps the value as given. */
LONG w32_set_value(HKEY k, const WCHAR *name, const struct rt_value *v)
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

/* Flushes the SOFTWARE and SYSTEM hives, so what was written is on disk
 * before the journal that could undo it goes away. */
void w32_flush_hives(struct w32_store *w)
{
    static const char *const roots[] = {"SOFTWARE", "SYSTEM"};
    for (size_t i = 0; i < 2; i++) {
        HKEY k;
        if (w32_open_key(w, roots[i], KEY_QUERY_VALUE, &k) == ERROR_SUCCESS) {
            RegFlushKey(k);
            RegCloseKey(k);
        }
    }
}

/* ---- names and wide strings ------------------------------------------ */

char *w32_join(const char *a, const char *b)
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
void w32_wappend(WCHAR *dst, size_t cap, const WCHAR *src)
{
    size_t n = 0;
    while (n < cap && dst[n])
        n++;
    while (*src && n + 1 < cap)
        dst[n++] = *src++;
    if (n < cap)
        dst[n] = 0;
}

size_t w32_wlen(const WCHAR *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int w32_same_name(const char *a, const char *b)
{
    return rt_utf8_casecmp(a, strlen(a), b, strlen(b)) == 0;
}

/* A key name the engine handed us: one path component. */
int w32_valid_component(const char *s)
{
    return s && *s && !strchr(s, '\\') && strlen(s) <= 255;
}

/* ---- reading the registry ---------------------------------------------- */

/* Whether PATH exists: 1, 0, or -1 with E set. */
int w32_key_exists(struct w32_store *w, const char *path, struct rt_error *e)
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
LONG w32_query_value(HKEY k, const char *name, struct rt_value *out)
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
int w32_read_value(struct w32_store *w, const char *path, const char *name,
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
    r = w32_query_value(k, name, out);
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
int w32_list_subkeys(struct w32_store *w, const char *path, char ***names,
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

#endif /* _WIN32 */
