/* Store layer: the dump of the win32 store, a text of every key and
 * value under Perflib and the named services, sorted, for the tests (its
 * users are tests/test_store_win32.c and tests/wine/sweep.c, which
 * compare the registry before and after). */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/strbuf.h"
#include "model/utf16.h"

#define MAX_DUMP_DEPTH  32

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
    if (w32_is_predefined(k)) {
        /* No values or subkeys of its own: the tables the system serves. */
        rt_strbuf_printf(b, "[%s] predefined handle\n", path);
        static const char *const tables[] = {"Counter", "Help"};
        for (size_t i = 0; i < 2; i++) {
            struct rt_value v = {0};
            r = w32_query_value(k, tables[i], &v);
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
            r = w32_query_value(k, nv.name, &nv.v);
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
    if (w32_list_subkeys(w, path, &subs, &n_subs, e) != 0)
        return -1;
    if (n_subs)
        qsort(subs, n_subs, sizeof *subs, cmp_str);
    for (size_t i = 0; i < n_subs && rc == 0; i++) {
        char *child = w32_join(path, subs[i]);
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
        char *path = w32_valid_component(services[i])
                         ? w32_join(w->services, services[i]) : NULL;
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

/* LCOV_EXCL_START: a win32 store is never opened in this build */
char *rt_store_win32_dump(struct rt_store *s, const char *const *services,
                          size_t n, struct rt_error *e)
{
    (void)s;
    (void)services;
    (void)n;
    rt_error_set(e, RT_ERR_NOT_SUPPORTED, "no live registry in this build");
    return NULL;
}
/* LCOV_EXCL_STOP */

#endif

