/* What a store holds, as text to compare, shared by the store contract
 * and engine suites: every language's tables and the Perflib and service
 * values through the store interface (each call's status asserted), and a
 * digest of every file of an offline tree. */
#ifndef TEST_STORE_SNAPSHOT_H
#define TEST_STORE_SNAPSHOT_H

#include <string.h>

#include "commit/crc32.h"
#include "model/strbuf.h"
#include "platform/os.h"
#include "store/store.h"

static inline void snap_value(struct rt_strbuf *b, const char *what,
                       const struct rt_value *v)
{
    rt_strbuf_printf(b, "%s type=%u len=%zu ", what, v->type, v->len);
    for (size_t i = 0; i < v->len; i++)
        rt_strbuf_printf(b, "%02x", v->data[i]);
    rt_strbuf_append(b, "\n", 1);
}

/* The languages, their tables' bytes, the Perflib values and every value
 * lodctr, a provider or the service manager keeps under a service. */
static inline void snap_store_content(struct rt_strbuf *b, struct rt_store *s)
{
    char **names;
    size_t n;
    struct rt_error e = {0};
    struct rt_value v;
    int present;
    if (s->ops->list_languages(s, &names, &n, &e) != 0)
        fail_msg("list_languages: %s", e.message);
    for (size_t i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            if (s->ops->read_table(s, names[i], t, &v, &present, &e) != 0)
                fail_msg("read_table %s: %s", names[i], e.message);
            rt_strbuf_printf(b, "[%s %d]\n", names[i], t);
            if (present)
                snap_value(b, "table", &v);
            rt_value_free(&v);
        }
    rt_strings_free(names, n);
    static const char *const perflib[] = {"Last Counter", "Last Help",
                                          "Base Index"};
    for (size_t i = 0; i < sizeof perflib / sizeof *perflib; i++) {
        if (s->ops->read_perflib(s, perflib[i], &v, &present, &e) != 0)
            fail_msg("read_perflib %s: %s", perflib[i], e.message);
        if (present)
            snap_value(b, perflib[i], &v);
        rt_value_free(&v);
    }
    static const char *const svc[] = {
        "Library", "Open", "Collect", "Close", "First Counter",
        "Last Counter", "First Help", "Last Help", "Object List",
        "PerfIniFile", "Library Validation Code",
        "Disable Performance Counters", "Depends", "Open Timeout"};
    if (s->ops->list_perf_services(s, &names, &n, &e) != 0)
        fail_msg("list_perf_services: %s", e.message);
    for (size_t i = 0; i < n; i++) {
        rt_strbuf_printf(b, "[service %s]\n", names[i]);
        for (size_t k = 0; k < sizeof svc / sizeof *svc; k++) {
            if (s->ops->read_service(s, names[i], svc[k], &v, &present,
                                     &e) != 0)
                fail_msg("read_service %s %s: %s", names[i], svc[k],
                         e.message);
            if (present)
                snap_value(b, svc[k], &v);
            rt_value_free(&v);
        }
    }
    rt_strings_free(names, n);
}

/* Every file under DIR but the lock, with its size and CRC, in name
 * order (directory listings come in any order). */
static inline int snap_cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void snap_dir_digest(struct rt_strbuf *b, const char *dir)
{
    char **names;
    size_t n;
    if (rt_os_list_dir(dir, &names, &n) != 0)
        fail_msg("cannot list %s", dir);
    qsort(names, n, sizeof *names, snap_cmp_names);
    for (size_t i = 0; i < n; i++) {
        if (names[i][0] == '.' || !strcmp(names[i], "regtool.lock"))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, names[i]) < 0)
            abort();
        uint8_t *data;
        size_t len;
        if (rt_os_is_dir(p))
            snap_dir_digest(b, p);
        else if (rt_os_read_file(p, &data, &len) == 0) {
            rt_strbuf_printf(b, "%s %zu %08x\n", p, len,
                             rt_crc32(0, data, len));
            free(data);
        } else
            fail_msg("cannot read %s", p);
        free(p);
    }
    rt_os_free_list(names, n);
}

static inline char *snap_take(struct rt_strbuf *b)
{
    char *s = rt_strbuf_take(b);
    if (!s)
        fail_msg("out of memory");
    return s;
}

#endif
