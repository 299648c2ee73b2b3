/* rt_audit_libraries, the pure checks of who gets loaded: databases built
 * as plain data (and one through the mem store, for Library's value
 * type), a tree given as a table of paths. Each check alone gives its
 * finding; what is normal on Windows (the system's own DLLs in System32,
 * bare names found there, Program Files) gives no warning. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/audit.h"
#include "model/reg_types.h"

struct svc {
    const char *name, *library, *open, *collect, *close;
    uint32_t type;   /* 0: REG_EXPAND_SZ when library is set */
};

#define STD(name, lib) {name, lib, "Open", "Collect", "Close", 0}

static void build(struct rt_database *db, const struct svc *v, size_t n)
{
    memset(db, 0, sizeof *db);
    db->base_index = RT_BASE_INDEX;
    db->services = calloc(n, sizeof *db->services);
    assert_non_null(db->services);
    db->n_services = n;
    for (size_t i = 0; i < n; i++) {
        struct rt_service_info *s = &db->services[i];
        s->name = strdup(v[i].name);
        s->exists = s->has_perf = 1;
        s->library = v[i].library ? strdup(v[i].library) : NULL;
        s->library_type = v[i].type ? v[i].type
                          : v[i].library ? RT_REG_EXPAND_SZ : 0;
        s->open = v[i].open ? strdup(v[i].open) : NULL;
        s->collect = v[i].collect ? strdup(v[i].collect) : NULL;
        s->close = v[i].close ? strdup(v[i].close) : NULL;
    }
}

/* A tree: every path in FILES (NULL-terminated) exists. */
static int table_exists(void *ctx, const char *path)
{
    for (const char *const *f = ctx; *f; f++)
        if (!strcasecmp(*f, path))
            return 1;
    return 0;
}

static const char *const system_tree[] = {
    "Windows\\System32\\ntdll.dll",    "Windows\\System32\\perfos.dll",
    "Windows\\System32\\perfproc.dll", "Windows\\System32\\netfxperf.dll",
    "Windows\\System32\\winspool.drv", "Windows\\notepad.dll",
    "Windows\\SysWOW64\\ntdll.dll",    "Windows\\SysWOW64\\perfos.dll",
    "Windows\\SysWOW64\\perfproc.dll", "Windows\\SysWOW64\\netfxperf.dll",
    "Windows\\SysWOW64\\winspool.drv", "Windows\\SysWOW64\\wow.dll",
    "Program Files\\Vendor\\v.dll",    NULL,
};

static void run(const struct svc *v, size_t n, const char *const *tree,
                struct rt_findings *f)
{
    struct rt_database db;
    build(&db, v, n);
    struct rt_audit_tree t = {table_exists, (void *)tree, "Windows"};
    memset(f, 0, sizeof *f);
    assert_int_equal(rt_audit_libraries(&db, tree ? &t : NULL, f), 0);
    rt_findings_sort(f);
    rt_database_free(&db);
}

static const struct rt_finding *find(const struct rt_findings *f,
                                     const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(f->v[i].id, id))
            return &f->v[i];
    return NULL;
}

static void show(const struct rt_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        print_message("  %s %s %s\n", rt_audit_severity_name(f->v[i].severity),
                      f->v[i].id, f->v[i].message);
}

/* One service with VALUE gives finding ID of SEVERITY (and no error). */
static void expect_one(const struct svc *v, size_t n, const char *const *tree,
                       const char *id, enum rt_audit_severity sev)
{
    struct rt_findings f;
    run(v, n, tree, &f);
    const struct rt_finding *x = find(&f, id);
    if (!x || x->severity != sev) {
        print_message("want %s %s; found:\n", rt_audit_severity_name(sev), id);
        show(&f);
    }
    assert_non_null(x);
    assert_int_equal(x->severity, sev);
    assert_non_null(x->message);
    assert_non_null(x->symptom);
    assert_non_null(x->fix);
    assert_int_equal(f.errors, 0);
    rt_findings_free(&f);
}

static void normal_system_is_quiet(void **state)
{
    (void)state;
    const struct svc v[] = {
        STD("PerfOS", "%SystemRoot%\\System32\\perfos.dll"),
        STD("PerfProc", "C:\\Windows\\system32\\PERFPROC.DLL"),
        STD("Spooler", "winspool.drv"),
        STD("A", "netfxperf.dll"),
        STD("B", "%systemroot%\\system32\\netfxperf.dll"),
        STD("Vendor", "C:\\Program Files\\Vendor\\v.dll"),
    };
    struct rt_findings f;
    run(v, 6, system_tree, &f);
    if (f.n)
        show(&f);
    assert_int_equal(f.n, 0);
    rt_findings_free(&f);
}

static void values_missing_empty_wrong_type(void **state)
{
    (void)state;
    const struct svc none[] = {{"X", NULL, "O", "C", "Z", 0}};
    expect_one(none, 1, NULL, "library-missing", RT_AUDIT_WARNING);
    const struct svc blank[] = {{"X", "", "O", "C", "Z", 0}};
    expect_one(blank, 1, NULL, "library-empty", RT_AUDIT_WARNING);
    /* A REG_BINARY Library: the loader keeps the type, not the text. */
    const struct svc bin[] = {{"X", NULL, "O", "C", "Z", RT_REG_BINARY}};
    expect_one(bin, 1, NULL, "library-type", RT_AUDIT_WARNING);
    const struct svc procs[] = {{"X", "perfos.dll", "O", NULL, "", 0}};
    expect_one(procs, 1, NULL, "procedures-missing", RT_AUDIT_WARNING);
    struct rt_findings f;
    run(procs, 1, NULL, &f);
    assert_non_null(strstr(find(&f, "procedures-missing")->message,
                           "Collect and Close"));
    rt_findings_free(&f);
}

static void loader_records_library_type(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    assert_int_equal(rt_store_mem_put_service(s, "X", 1), 0);
    uint8_t bytes[] = {'p', 0, 0, 0};
    struct rt_value v = {RT_REG_BINARY, bytes, sizeof bytes};
    assert_int_equal(rt_store_mem_put_service_value(s, "X", "Library", &v), 0);
    struct rt_service_info si;
    struct rt_error e;
    assert_int_equal(rt_service_load(s, "X", &si, &e), 0);
    assert_null(si.library);
    assert_int_equal(si.library_type, RT_REG_BINARY);
    rt_service_info_free(&si);
    s->ops->close(s);
}

static void hijackable_places(void **state)
{
    (void)state;
    const struct svc users[] = {STD("X", "C:\\Users\\Public\\p.dll")};
    expect_one(users, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    const struct svc pd[] = {STD("X", "%ProgramData%\\x\\p.dll")};
    expect_one(pd, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    const struct svc tmp[] = {STD("X", "%SystemRoot%\\Temp\\p.dll")};
    expect_one(tmp, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    const struct svc out[] = {STD("X", "C:\\tools\\p.dll")};
    expect_one(out, 1, NULL, "library-outside-system-dirs", RT_AUDIT_WARNING);
    const struct svc d[] = {STD("X", "D:\\Program Files\\p.dll")};
    expect_one(d, 1, NULL, "library-outside-system-dirs", RT_AUDIT_WARNING);
    const struct svc rel[] = {STD("X", "perf\\p.dll")};
    expect_one(rel, 1, NULL, "library-relative", RT_AUDIT_WARNING);
    /* Bare names without a tree: one info for them all. */
    const struct svc bare[] = {STD("X", "a.dll"), STD("Y", "b.dll")};
    struct rt_findings f;
    run(bare, 2, NULL, &f);
    assert_int_equal(f.n, 1);
    assert_string_equal(f.v[0].id, "library-relative");
    assert_int_equal(f.v[0].severity, RT_AUDIT_INFO);
    assert_non_null(strstr(f.v[0].message, "2 providers"));
    rt_findings_free(&f);
}

static void files_in_the_tree(void **state)
{
    (void)state;
    const struct svc gone[] = {STD("X", "%SystemRoot%\\System32\\gone.dll")};
    expect_one(gone, 1, system_tree, "library-not-found", RT_AUDIT_WARNING);
    const struct svc bare[] = {STD("X", "gone.dll")};
    expect_one(bare, 1, system_tree, "library-not-found", RT_AUDIT_WARNING);
    const struct svc pf[] = {STD("X", "C:\\Program Files\\Vendor\\w.dll")};
    expect_one(pf, 1, system_tree, "library-not-found", RT_AUDIT_WARNING);
    const struct svc wow[] = {STD("X", "wow.dll")};
    expect_one(wow, 1, system_tree, "library-only-in-syswow64",
               RT_AUDIT_WARNING);
    const struct svc in32[] = {STD("X", "%windir%\\system32\\x.dll")};
    expect_one(in32, 1, (const char *const[]){"Windows\\System32\\ntdll.dll",
                                              "Windows\\SysWOW64\\ntdll.dll",
                                              "Windows\\System32\\x.dll", NULL},
               "library-only-in-system32", RT_AUDIT_INFO);
    const struct svc win[] = {STD("X", "notepad.dll")};
    expect_one(win, 1, system_tree, "library-relative", RT_AUDIT_INFO);
    /* A tree without system files: nothing is said about existence. */
    const char *const bare_tree[] = {"Windows\\System32\\config", NULL};
    struct rt_findings f;
    run(gone, 1, bare_tree, &f);
    assert_null(find(&f, "library-not-found"));
    assert_non_null(find(&f, "library-files-unchecked"));
    rt_findings_free(&f);
}

static void system_objects_and_sharing(void **state)
{
    (void)state;
    const struct svc os[] = {STD("PerfOS", "C:\\Users\\Public\\p.dll")};
    expect_one(os, 1, NULL, "system-library-replaced", RT_AUDIT_WARNING);
    const struct svc name[] = {STD("Tcpip", "%SystemRoot%\\System32\\x.dll")};
    expect_one(name, 1, NULL, "system-library-replaced", RT_AUDIT_WARNING);
    const struct svc shared[] = {
        {"A", "netfxperf.dll", "O", "C", "Z", 0},
        {"B", "%SystemRoot%\\System32\\NETFXPERF.DLL", "O", "C2", "Z", 0},
    };
    expect_one(shared, 2, system_tree, "library-shared", RT_AUDIT_INFO);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(normal_system_is_quiet),
        cmocka_unit_test(values_missing_empty_wrong_type),
        cmocka_unit_test(loader_records_library_type),
        cmocka_unit_test(hijackable_places),
        cmocka_unit_test(files_in_the_tree),
        cmocka_unit_test(system_objects_and_sharing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
