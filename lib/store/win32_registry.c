/* Store layer: the helpers the win32 store's files share (declared in
 * win32_internal.h). Text: a Win32 error as a message, UTF-8 to and from
 * UTF-16 for the W entry points. Registry: the calls both the commit
 * (store_win32.c) and the rollback (win32_journal.c) make, opening a key
 * in the 64-bit view, setting a value byte for byte and flushing the
 * hives. Helpers only one file uses stay static in that file. */
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

#endif /* _WIN32 */
