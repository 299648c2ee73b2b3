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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/audit.h"
#include "engine/audit_short_names.h"
#include "model/reg_types.h"
#include "finding_message.h"
#define ALLOC_HOOK_MALLOC
#define ALLOC_HOOK_CALLOC
#include "alloc_hook.h"

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
        s->has_library = v[i].library || v[i].type;
        s->open = v[i].open ? strdup(v[i].open) : NULL;
        s->collect = v[i].collect ? strdup(v[i].collect) : NULL;
        s->close = v[i].close ? strdup(v[i].close) : NULL;
    }
}

/* A tree: every path in FILES (NULL-terminated) exists; one written
 * "!PATH" has a link or special file on its way (-1), one written
 * "?PATH" two names differing only in case (-3). */
static int table_exists(void *ctx, const char *path)
{
    for (const char *const *f = ctx; *f; f++)
        if (!strcasecmp(*f, path))
            return 1;
        else if (**f == '!' && !strcasecmp(*f + 1, path))
            return -1;
        else if (**f == '?' && !strcasecmp(*f + 1, path))
            return -3;
    return 0;
}

/* The entries of folder DIR of the table tree CTX: the next component
 * of every path below it, once each. */
static int table_list(void *ctx, const char *dir,
                      void (*each)(void *arg, const char *name), void *arg)
{
    const char *const *files = ctx;
    size_t n = strlen(dir);
    int found = !n;
    for (size_t i = 0; files[i]; i++) {
        const char *f = files[i];
        if (n && (strncasecmp(f, dir, n) || f[n] != '\\'))
            continue;
        found = 1;
        const char *name = f + n + (n > 0);
        size_t len = strcspn(name, "\\");
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++) {
            const char *g = files[j];
            if (n && (strncasecmp(g, dir, n) || g[n] != '\\'))
                continue;
            const char *other = g + n + (n > 0);
            seen = strcspn(other, "\\") == len && !strncasecmp(other, name, len);
        }
        if (!seen) {
            char one[260];
            snprintf(one, sizeof one, "%.*s", (int)len, name);
            each(arg, one);
        }
    }
    return found ? 0 : -1;
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
    struct rt_audit_tree t = {table_exists, (void *)tree, "Windows",
                              table_list, NULL, NULL, 0};
    memset(f, 0, sizeof *f);
    assert_int_equal(rt_audit_libraries(&db, tree ? &t : NULL, f), 0);
    rt_findings_sort(f);
    rt_database_free(&db);
}

static const struct rt_finding *find(const struct rt_findings *f,
                                     const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id))
            return &f->v[i];
    return NULL;
}

static void show(const struct rt_findings *f)
{
    for (size_t i = 0; i < f->n; i++)
        print_message("  %s %s %s\n", rt_audit_severity_name(rt_finding_severity(&f->v[i])),
                      rt_finding_id(&f->v[i]), message_of(&f->v[i]));
}

/* One service with VALUE gives finding ID of SEVERITY (and no error). */
static void expect_one(const struct svc *v, size_t n, const char *const *tree,
                       const char *id, enum rt_audit_severity sev)
{
    struct rt_findings f;
    run(v, n, tree, &f);
    const struct rt_finding *x = find(&f, id);
    if (!x || rt_finding_severity(x) != sev) {
        print_message("want %s %s; found:\n", rt_audit_severity_name(sev), id);
        show(&f);
    }
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), sev);
    assert_non_null(message_of(x));
    assert_non_null(rt_finding_symptom(x));
    assert_non_null(rt_finding_fix(x));
    assert_int_equal(f.errors, 0);
    rt_findings_free(&f);
}

/* F holds finding ID, of SEVERITY. */
static void expect_among(const struct rt_findings *f, const char *id,
                         enum rt_audit_severity sev)
{
    const struct rt_finding *x = find(f, id);
    if (!x || rt_finding_severity(x) != sev) {
        print_message("want %s %s; found:\n", rt_audit_severity_name(sev), id);
        show(f);
    }
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), sev);
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
    assert_non_null(strstr(message_of(find(&f, "procedures-missing")),
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
    assert_true(si.has_library);
    rt_service_info_free(&si);
    /* REG_NONE, type 0, is a Library all the same (review 49 R49-12:
     * taken for none, said missing, and replaced by --create-service). */
    v.type = RT_REG_NONE;
    assert_int_equal(rt_store_mem_put_service_value(s, "X", "Library", &v), 0);
    assert_int_equal(rt_service_load(s, "X", &si, &e), 0);
    assert_true(si.has_library);
    struct rt_database db = {0};
    db.base_index = RT_BASE_INDEX;
    db.services = &si;
    db.n_services = 1;
    struct rt_findings f = {0};
    assert_int_equal(rt_audit_libraries(&db, NULL, &f), 0);
    assert_non_null(find(&f, "library-type"));
    assert_null(find(&f, "library-missing"));
    rt_findings_free(&f);
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
    assert_string_equal(rt_finding_id(&f.v[0]), "library-relative");
    assert_int_equal(rt_finding_severity(&f.v[0]), RT_AUDIT_INFO);
    assert_non_null(strstr(message_of(&f.v[0]), "2 providers"));
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
    expect_among(&f, "library-files-unchecked", RT_AUDIT_INFO);
    rt_findings_free(&f);
}

static void system_objects_and_sharing(void **state)
{
    (void)state;
    const struct svc os[] = {STD("PerfOS", "C:\\Users\\Public\\p.dll")};
    expect_one(os, 1, NULL, "system-library-replaced", RT_AUDIT_WARNING);
    const struct svc name[] = {STD("Tcpip", "%SystemRoot%\\System32\\x.dll")};
    expect_one(name, 1, NULL, "system-library-replaced", RT_AUDIT_WARNING);
    /* A bare name where Windows writes %SystemRoot%\System32\perfos.dll:
     * searched for in each reading program's directory first (review 53
     * R53-8), though the tree's System32 holds it; Spooler's bare
     * winspool.drv is Windows' own value (normal_system_is_quiet). */
    const struct svc bare_os[] = {STD("PerfOS", "perfos.dll")};
    expect_one(bare_os, 1, system_tree, "system-library-replaced",
               RT_AUDIT_WARNING);
    const struct svc shared[] = {
        {"A", "netfxperf.dll", "O", "C", "Z", 0},
        {"B", "%SystemRoot%\\System32\\NETFXPERF.DLL", "O", "C2", "Z", 0},
    };
    expect_one(shared, 2, system_tree, "library-shared", RT_AUDIT_INFO);
    /* The same open and collect procedures, another close: shared too. */
    const struct svc closes[] = {
        {"A", "netfxperf.dll", "O", "C", "Z", 0},
        {"B", "netfxperf.dll", "O", "C", "Z2", 0},
    };
    expect_one(closes, 2, system_tree, "library-shared", RT_AUDIT_INFO);
    /* And the same three: one provider's DLL used twice, nothing said. */
    const struct svc same[] = {
        {"A", "netfxperf.dll", "O", "C", "Z", 0},
        {"B", "netfxperf.dll", "o", "c", "z", 0},
    };
    struct rt_findings f;
    run(same, 2, system_tree, &f);
    assert_null(find(&f, "library-shared"));
    rt_findings_free(&f);
}

/* The number of warnings and errors of V in TREE (the test's tree). */
static size_t warnings_of(const struct svc *v, size_t n,
                          const char *const *tree)
{
    struct rt_findings f;
    run(v, n, tree, &f);
    size_t w = f.warnings + f.errors;
    if (w)
        show(&f);
    rt_findings_free(&f);
    return w;
}

/* What Windows resolves before loading: "..", "." and doubled
 * separators, environment strings anywhere, Win32's trimming of trailing
 * dots and blanks; the place is judged where the path leads. */
static void resolved_before_judging(void **state)
{
    (void)state;
    static const char *const writable[] = {
        "C:\\Program Files\\..\\Users\\Public\\x.dll",
        "C:\\PROGRA~1\\..\\Users\\Public\\x.dll",
        "%SystemRoot%\\System32\\..\\Temp\\x.dll",
        "%ProgramFiles%\\..\\ProgramData\\x.dll",
        "C:\\Windows\\.\\..\\\\Users\\x.dll",
        "%HOMEDRIVE%%HOMEPATH%\\x.dll",
        "%TEMP%\\x.dll",
        "%LocalAppData%\\x.dll",
        "C:\\Users.\\Public\\x.dll",
        "C:\\Program Files\\..\\..\\..\\Users\\x.dll",
        /* A drive path behind the prefixes LoadLibrary passes through
         * (\\?\ and \\.\ Win32 device paths, the NT \??\): the same
         * file as without them. */
        "\\\\?\\C:\\Users\\Public\\x.dll",
        "\\\\.\\C:\\Users\\Public\\x.dll",
        "\\??\\C:\\Users\\Public\\x.dll",
        "//?/c:/ProgramData/x.dll",
    };
    for (size_t i = 0; i < sizeof writable / sizeof *writable; i++) {
        print_message("%s\n", writable[i]);
        const struct svc v[] = {STD("X", writable[i])};
        expect_one(v, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    }
    /* Where ".." leads somewhere harmless, nothing is said; nor of the
     * system's DLL behind a prefix (the path behind it whole, nothing of
     * the prefix's length left over at its end). */
    const struct svc fine[] = {
        STD("A", "C:\\Users\\..\\Program Files\\Vendor\\v.dll"),
        STD("B", "%SystemRoot%\\Temp\\..\\System32\\perfos.dll"),
        STD("C", "%ProgramFiles%\\Vendor\\v.dll"),
        STD("D", "\\\\?\\C:\\Windows\\System32\\perfos.dll"),
        STD("E", "\\??\\C:\\Windows\\System32\\perfos.dll"),
        /* Win32 trims the last component's trailing blanks and dots
         * alike: Windows loads perfos.dll itself, so it is found. */
        STD("F", "%SystemRoot%\\System32\\perfos.dll  "),
        STD("G", "C:\\Windows\\System32\\perfos.dll . ."),
    };
    assert_int_equal(warnings_of(fine, 7, system_tree), 0);
}

/* A path from the root with no drive letter ("\\Users\\..." or
 * "/Users/...") is on the current drive, the system's: judged as the same
 * path on C:. Two separators first name another machine's share, even
 * when its server and share are named as the system's folders are. */
static void root_paths_are_on_the_system_drive(void **state)
{
    (void)state;
    const struct svc back[] = {STD("X", "\\Users\\Public\\x.dll")};
    expect_one(back, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    const struct svc fwd[] = {STD("X", "/ProgramData/x/p.dll")};
    expect_one(fwd, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    const struct svc sys[] = {
        STD("A", "\\Windows\\System32\\perfos.dll"),
        STD("B", "/Windows/System32/perfos.dll"),
    };
    assert_int_equal(warnings_of(sys, 2, system_tree), 0);
    static const char *const shares[] = {
        "\\\\Users\\Public\\x.dll", "//Users/Public/x.dll",
        "\\/Users\\Public\\x.dll", "/\\Users\\Public\\x.dll",
    };
    for (size_t i = 0; i < sizeof shares / sizeof *shares; i++) {
        print_message("%s\n", shares[i]);
        const struct svc v[] = {STD("X", shares[i])};
        struct rt_findings f;
        run(v, 1, NULL, &f);
        if (find(&f, "library-user-writable"))
            show(&f);
        assert_null(find(&f, "library-user-writable"));
        assert_non_null(find(&f, "library-outside-system-dirs"));
        rt_findings_free(&f);
    }
}

/* The folders below the Windows directory a standard user can write. */
static void writable_below_windows(void **state)
{
    (void)state;
    static const char *const writable[] = {
        "%SystemRoot%\\Tracing\\x.dll",
        "%SystemRoot%\\Registration\\CRMLog\\x.dll",
        "%windir%\\System32\\spool\\drivers\\color\\x.dll",
        "C:\\Windows\\System32\\Tasks\\x.dll",
        "%SystemRoot%\\System32\\Microsoft\\Crypto\\RSA\\MachineKeys\\x.dll",
        "%SystemRoot%\\SysWOW64\\com\\dmp\\x.dll",
        "%SystemRoot%\\debug\\WIA\\x.dll",
    };
    for (size_t i = 0; i < sizeof writable / sizeof *writable; i++) {
        print_message("%s\n", writable[i]);
        const struct svc v[] = {STD("X", writable[i])};
        expect_one(v, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    }
    /* Names that only begin like them are not them. */
    const struct svc fine[] = {
        STD("A", "%SystemRoot%\\TracingTools\\x.dll"),
        STD("B", "%SystemRoot%\\Registration\\x.dll"),
    };
    struct rt_findings f;
    run(fine, 2, NULL, &f);
    assert_null(find(&f, "library-user-writable"));
    rt_findings_free(&f);
}

/* 8.3 short names, as far as the tree tells them. */
static void short_names(void **state)
{
    (void)state;
    static const char *const tree64[] = {
        "Windows\\System32\\ntdll.dll",  "Windows\\SysWOW64\\ntdll.dll",
        "Program Files\\Vendor Tools\\v.dll",
        "Program Files (x86)\\Old\\o.dll", "ProgramData\\Evil\\e.dll",
        NULL,
    };
    /* One entry of that short form in its folder: that entry. */
    const struct svc one[] = {
        STD("A", "C:\\PROGRA~1\\VENDOR~1\\v.dll"),
        STD("B", "C:\\PROGRA~2\\Old\\o.dll"),
    };
    assert_int_equal(warnings_of(one, 2, tree64), 0);
    struct rt_findings f;
    run(one, 2, tree64, &f);
    assert_null(find(&f, "library-unchecked"));
    rt_findings_free(&f);
    /* Several: Windows setup's order, on a 64-bit tree PROGRA~3 is
     * ProgramData. */
    const struct svc pd[] = {STD("X", "C:\\PROGRA~3\\Evil\\e.dll")};
    expect_one(pd, 1, tree64, "library-user-writable", RT_AUDIT_WARNING);
    /* On a 32-bit tree (files, no SysWOW64), PROGRA~2 is ProgramData. */
    static const char *const tree32[] = {
        "Windows\\System32\\ntdll.dll", "Program Files\\Vendor\\v.dll",
        "Program Files (x86)\\x.dll", "ProgramData\\x.dll", NULL,
    };
    const struct svc two[] = {STD("X", "C:\\PROGRA~2\\x.dll")};
    expect_one(two, 1, tree32, "library-user-writable", RT_AUDIT_WARNING);
    assert_int_equal(warnings_of(two, 1, tree64), 1);   /* not in the tree */
    /* Without a tree, PROGRA~2 may be ProgramData (32-bit Windows). */
    const struct svc maybe[] = {STD("X", "C:\\PROGRA~2\\x.dll")};
    expect_one(maybe, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    run(maybe, 1, NULL, &f);
    assert_non_null(strstr(message_of(find(&f, "library-user-writable")),
                           "ProgramData"));
    rt_findings_free(&f);
    /* Nor PROGRA~3, ProgramData on 64-bit Windows (a mutation-score
     * survivor: only a 32-bit name was looked at for it). */
    const struct svc maybe3[] = {STD("X", "C:\\PROGRA~3\\x.dll")};
    run(maybe3, 1, NULL, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    assert_non_null(strstr(message_of(find(&f, "library-user-writable")),
                           "ProgramData"));
    rt_findings_free(&f);
    /* PROGRA~1 is Program Files on every Windows; below it, a short name
     * the tree cannot tell is info only. */
    const struct svc pf[] = {STD("X", "C:\\PROGRA~1\\MICROS~2\\x.dll")};
    run(pf, 1, tree64, &f);
    expect_among(&f, "library-unchecked", RT_AUDIT_INFO);
    rt_findings_free(&f);
    assert_int_equal(warnings_of(pf, 1, tree64), 0);
    /* Below the Windows directory, an ambiguous short name that may
     * stand for a folder users write to is said as at the root (review
     * 42 R42-13: info only). */
    static const char *const regist[] = {
        "Windows\\System32\\ntdll.dll", "Windows\\SysWOW64\\ntdll.dll",
        "Windows\\Registration\\CRMLog\\e.dll",
        "Windows\\RegisteredApps\\x", NULL,
    };
    const struct svc crm[] = {STD("X", "C:\\Windows\\REGIST~1\\CRMLog\\e.dll")};
    run(crm, 1, regist, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    assert_non_null(strstr(message_of(find(&f, "library-user-writable")),
                           "Windows\\Registration\\CRMLog"));
    rt_findings_free(&f);
    const struct svc tasks[] = {STD("X", "%SystemRoot%\\System32\\TASKS_~1\\x.dll")};
    expect_one(tasks, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    /* Nor only of a prefix of the folder's name (review 43 R43-12: info
     * only): Windows' hashed form, or any short name a disk's author set
     * (fsutil file setshortname), may stand for any folder there. */
    const struct svc hashed[] = {STD("X", "C:\\Windows\\RE8A3F~1\\CRMLog\\e.dll")};
    run(hashed, 1, regist, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    assert_non_null(strstr(message_of(find(&f, "library-user-writable")),
                           "Windows\\Registration\\CRMLog"));
    rt_findings_free(&f);
    const struct svc other[] = {STD("X", "C:\\Windows\\REGIST~1\\Other\\e.dll")};
    run(other, 1, regist, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    rt_findings_free(&f);
    /* Nor when one folder's prefix resolves it (review 44 R44-7:
     * PROVIS~1 was Provisioning, judged clean): the disk may have given
     * that short name to Temp, which Windows would load from. Found where
     * the prefix leads, and the warning says both. */
    static const char *const provis[] = {
        "Windows\\System32\\ntdll.dll", "Windows\\SysWOW64\\ntdll.dll",
        "Windows\\Provisioning\\e.dll", "Windows\\Temp\\t",
        "Windows\\System32\\drivers\\UMDFLongName\\e.dll", NULL,
    };
    const struct svc pv[] = {STD("X", "C:\\Windows\\PROVIS~1\\e.dll")};
    run(pv, 1, provis, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    const char *said = message_of(find(&f, "library-user-writable"));
    assert_non_null(strstr(said, "(C:\\Windows\\Provisioning\\e.dll)"));
    assert_non_null(strstr(said, "resolves only by its prefix"));
    assert_non_null(strstr(said, "may stand for C:\\Windows\\Temp,"));
    assert_null(find(&f, "library-not-found"));
    rt_findings_free(&f);
    /* Resolved by its prefix where no folder users write to lies: judged
     * where it leads, no warning. */
    const struct svc umdf[] = {
        STD("X", "C:\\Windows\\System32\\drivers\\UMDFLO~1\\e.dll")};
    assert_int_equal(warnings_of(umdf, 1, provis), 0);
    /* Where no folder users write to lies (below INF, below drivers), an
     * unresolved short name stays info. */
    const struct svc inf[] = {STD("X", "C:\\Windows\\System32\\drivers\\UNKNOW~1\\e.dll")};
    run(inf, 1, regist, &f);
    assert_null(find(&f, "library-user-writable"));
    expect_among(&f, "library-unchecked", RT_AUDIT_INFO);
    rt_findings_free(&f);
}

/* Sysnative is System32 to a 32-bit process (review 42 R42-12: judged a
 * folder of its own, so missing): found there, and judged as there. */
static void sysnative_is_system32(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Windows\\System32\\ntdll.dll", "Windows\\SysWOW64\\ntdll.dll",
        "Windows\\System32\\Tasks\\e.dll", "Windows\\System32\\v.dll",
        "Windows\\SysWOW64\\v.dll", NULL,
    };
    const struct svc planted[] = {STD("X", "%SystemRoot%\\Sysnative\\Tasks\\e.dll")};
    struct rt_findings f;
    run(planted, 1, tree, &f);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    assert_null(find(&f, "library-not-found"));
    rt_findings_free(&f);
    const struct svc found[] = {STD("X", "C:\\Windows\\sysnative\\v.dll")};
    run(found, 1, tree, &f);
    assert_null(find(&f, "library-not-found"));
    assert_null(find(&f, "library-user-writable"));
    rt_findings_free(&f);
}

/* Windows takes a long name's extension after its last dot and folds
 * the earlier dots away: my.vendor.dll is MYVEND~1.DLL, and a Library
 * given by that short name must be found, not called unresolvable. */
static void short_names_of_names_with_two_dots(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Vendor\\my.vendor.txt", "Vendor\\my.vendor.dll", "Vendor\\a.b.c",
        NULL,
    };
    const struct rt_audit_tree t = {table_exists, (void *)tree, "Windows",
                                    table_list, NULL, NULL, 0};
    struct rt_short_names *s = rt_short_names_new(&t);
    assert_non_null(s);
    struct rt_short_match m;
    assert_int_equal(rt_short_names_match(s, "Vendor", "MYVEND~1.DLL", &m), 0);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.first, "my.vendor.dll");
    assert_int_equal(rt_short_names_match(s, "Vendor", "AB~1.C", &m), 0);
    assert_int_equal(m.n, 1);
    assert_string_equal(m.first, "a.b.c");
    rt_short_names_free(s);
}

/* A tree that counts its listings: table_list on FILES. */
struct counted_tree {
    const char *const *files;
    size_t listings;
};

static int counted_exists(void *ctx, const char *path)
{
    return table_exists((void *)((struct counted_tree *)ctx)->files, path);
}

static int counted_list(void *ctx, const char *dir,
                        void (*each)(void *arg, const char *name), void *arg)
{
    struct counted_tree *t = ctx;
    t->listings++;
    return table_list((void *)t->files, dir, each, arg);
}

#ifdef HAVE_ALLOC_HOOK
/* Out of memory at any allocation of a short form's first match in a
 * folder (the folder's listing, the answer, the tables keeping them):
 * -1 and no match said, or the match in full where the failure was
 * absorbed; nothing kept half made (LeakSanitizer sees any block lost);
 * asked again with memory, the match in full. */
static void short_names_out_of_memory(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Program Files\\Vendor\\v.dll", "Program Files (x86)\\w.dll",
        "ProgramData\\x\\p.dll", "Windows\\System32\\ntdll.dll", NULL,
    };
    const struct rt_audit_tree t = {table_exists, (void *)tree, "Windows",
                                    table_list, NULL, NULL, 0};
    struct rt_short_match m;
    struct rt_short_names *s = rt_short_names_new(&t);
    assert_non_null(s);
    alloc_calls = 0;
    assert_int_equal(rt_short_names_match(s, "", "PROGRA~1", &m), 0);
    unsigned long n = alloc_calls;
    rt_short_names_free(s);
    if (!n)
        skip();     /* an allocator the hook does not reach (valgrind) */
    unsigned long failed = 0;
    for (unsigned long k = 1; k <= n; k++) {
        s = rt_short_names_new(&t);
        assert_non_null(s);
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_short_names_match(s, "", "PROGRA~1", &m);
        alloc_fail_at = 0;
        if (r == -1) {
            assert_int_equal(m.n, 0);
            failed++;
            r = rt_short_names_match(s, "", "PROGRA~1", &m);
        }
        assert_int_equal(r, 0);
        assert_int_equal(m.n, 3);
        assert_string_equal(m.first, "Program Files");
        assert_string_equal(m.writable, "ProgramData");
        rt_short_names_free(s);
    }
    /* Most allocations are the code's own, each a failure said (a C
     * library's may be absorbed: asprintf's shrinking realloc). */
    assert_true(failed * 2 > n);
}
#endif

/* Thousands of providers whose Library paths go through the same folders
 * by short names (in any case) list each folder once, not once each, and
 * are judged as one alone is: the root and Program Files, two listings
 * for all of them (12,000 before: each of the two folders once for
 * each provider, and again for the shared-DLL check). */
static void short_names_list_each_folder_once(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Windows\\System32\\ntdll.dll", "Windows\\SysWOW64\\ntdll.dll",
        "Program Files\\Vendor Tools\\v.dll",
        "Program Files\\Vendor Tools\\w.dll",
        "Program Files\\Other Things\\o.dll", "ProgramData\\Evil\\e.dll",
        NULL,
    };
    enum { N = 3000 };
    static const char *const libs[] = {
        "C:\\PROGRA~1\\VENDOR~1\\v.dll", "C:\\progra~1\\Vendor~1\\w.dll",
        "C:\\PROGRA~1\\OTHERT~1\\o.dll",
    };
    struct svc *v = calloc(N, sizeof *v);
    char(*names)[16] = calloc(N, sizeof *names);
    assert_non_null(v);
    assert_non_null(names);
    for (size_t i = 0; i < N; i++) {
        snprintf(names[i], sizeof names[i], "P%zu", i);
        v[i] = (struct svc)STD(names[i], libs[i % 3]);
    }
    struct rt_database db;
    build(&db, v, N);
    struct counted_tree t = {tree, 0};
    struct rt_audit_tree at = {counted_exists, &t, "Windows", counted_list,
                              NULL, NULL, 0};
    struct rt_findings f = {0};
    assert_int_equal(rt_audit_libraries(&db, &at, &f), 0);
    if (f.warnings + f.errors)
        show(&f);
    assert_int_equal(f.warnings + f.errors, 0);
    assert_null(find(&f, "library-unchecked"));
    assert_int_equal(t.listings, 2);
    rt_findings_free(&f);
    rt_database_free(&db);
    /* Several short forms in one folder: still one listing of it. */
    const struct svc three[] = {
        STD("A", "C:\\PROGRA~1\\VENDOR~1\\v.dll"),
        STD("B", "C:\\PROGRA~3\\Evil\\e.dll"),
        STD("C", "C:\\PROGRA~1\\OTHERT~1\\o.dll"),
    };
    build(&db, three, 3);
    t.listings = 0;
    assert_int_equal(rt_audit_libraries(&db, &at, &f), 0);
    assert_non_null(find(&f, "library-user-writable"));   /* ProgramData */
    assert_int_equal(t.listings, 2);
    rt_findings_free(&f);
    rt_database_free(&db);
    free(v);
    free(names);
}

/* Short forms through 100 folders of Program Files, each named twice:
 * past the 64 entries the tables of folders and of answers start with,
 * regrown, each folder and answer is still found where it was kept, so
 * the second round lists nothing again (102 listings: the root, Program
 * Files and each folder once) and every Library resolves. */
static void short_names_past_the_first_table(void **state)
{
    (void)state;
    enum { N = 100 };
    char(*paths)[64] = calloc(N, sizeof *paths);
    char(*libs)[64] = calloc(N, sizeof *libs);
    char(*names)[16] = calloc(2 * N, sizeof *names);
    const char **tree = calloc(N + 2, sizeof *tree);
    struct svc *v = calloc(2 * N, sizeof *v);
    assert_true(paths && libs && names && tree && v);
    tree[0] = "Windows\\System32\\ntdll.dll";
    for (size_t i = 0; i < N; i++) {
        snprintf(paths[i], sizeof paths[i],
                 "Program Files\\D%03zu Long Name\\Inner Folder\\x.dll", i);
        snprintf(libs[i], sizeof libs[i],
                 "C:\\PROGRA~1\\D%03zuLO~1\\INNERF~1\\x.dll", i);
        tree[i + 1] = paths[i];
    }
    for (size_t i = 0; i < 2 * N; i++) {
        snprintf(names[i], sizeof names[i], "P%zu", i);
        v[i] = (struct svc)STD(names[i], libs[i % N]);
    }
    struct rt_database db;
    build(&db, v, 2 * N);
    struct counted_tree t = {tree, 0};
    struct rt_audit_tree at = {counted_exists, &t, "Windows", counted_list,
                              NULL, NULL, 0};
    struct rt_findings f = {0};
    assert_int_equal(rt_audit_libraries(&db, &at, &f), 0);
    if (f.warnings + f.errors)
        show(&f);
    assert_int_equal(f.warnings + f.errors, 0);
    assert_null(find(&f, "library-unchecked"));
    assert_int_equal(t.listings, 2 + N);
    rt_findings_free(&f);
    rt_database_free(&db);
    free(v);
    free(tree);
    free(names);
    free(libs);
    free(paths);
}

/* A 32-bit provider's DLL: SysWOW64, or Program Files (x86) through
 * %ProgramFiles%, is looked in before it is called missing. */
static void thirty_two_bit_providers(void **state)
{
    (void)state;
    /* The tree's SysWOW64 lacks ntdll.dll: the DLL is still there. */
    static const char *const tree[] = {
        "Windows\\System32\\ntdll.dll", "Windows\\SysWOW64\\only32.dll",
        "Program Files (x86)\\Vendor\\v.dll", NULL,
    };
    const struct svc bare[] = {STD("X", "only32.dll")};
    expect_one(bare, 1, tree, "library-only-in-syswow64", RT_AUDIT_WARNING);
    const struct svc full[] = {
        STD("X", "%SystemRoot%\\System32\\only32.dll")};
    expect_one(full, 1, tree, "library-only-in-syswow64", RT_AUDIT_WARNING);
    const struct svc pf[] = {STD("X", "%ProgramFiles%\\Vendor\\v.dll")};
    expect_one(pf, 1, tree, "library-only-in-program-files-x86",
               RT_AUDIT_WARNING);
    struct rt_findings f;
    run(bare, 1, tree, &f);
    assert_null(find(&f, "library-not-found"));
    rt_findings_free(&f);
    run(pf, 1, tree, &f);
    assert_null(find(&f, "library-not-found"));
    rt_findings_free(&f);
}

/* A system provider that got a range (an INI installed onto it) is still
 * checked, and the range is said. */
static void system_provider_with_a_range(void **state)
{
    (void)state;
    struct rt_database db;
    const struct svc v[] = {STD("PerfOS", "C:\\Users\\Public\\evil.dll")};
    build(&db, v, 1);
    db.services[0].has_range = 1;
    db.services[0].first_counter = RT_BASE_INDEX + 100;
    struct rt_findings f = {0};
    assert_int_equal(rt_audit_libraries(&db, NULL, &f), 0);
    expect_among(&f, "system-library-replaced", RT_AUDIT_WARNING);
    expect_among(&f, "system-provider-range", RT_AUDIT_WARNING);
    expect_among(&f, "library-user-writable", RT_AUDIT_WARNING);
    rt_findings_free(&f);
    rt_database_free(&db);
    assert_string_equal(rt_audit_system_dll("perfos"), "perfos.dll");
    assert_null(rt_audit_system_dll("PerfOS "));
}

/* The finding ID among F's, with a message holding TEXT. */
static void expect_said(const struct rt_findings *f, const char *id,
                        const char *text)
{
    const struct rt_finding *x = find(f, id);
    if (!x || !strstr(message_of(x), text)) {
        print_message("want %s saying '%s'; found:\n", id, text);
        show(f);
    }
    assert_non_null(x);
    assert_non_null(strstr(message_of(x), text));
}

/* A Library of any length is judged whole or said to be too long, never
 * judged on a copy cut at 1024 bytes: a value that leaves Program Files
 * by ".." past the cut, one whose environment strings grow past it, and
 * two that differ only past it. One of exactly 1023 bytes is judged. */
static void long_values_are_never_cut(void **state)
{
    (void)state;
    static char past[4096], grown[2048], at_cap[1100], twin_a[1300],
        twin_b[1300];
    strcpy(past, "C:\\Program Files\\Vendor\\");
    for (int i = 0; i < 600; i++)
        strcat(past, "a\\");
    for (int i = 0; i < 602; i++)
        strcat(past, "..\\");
    strcat(past, "Users\\Public\\evil.dll");
    for (int i = 0; i < 30; i++)
        strcat(grown, "%CommonProgramFiles(x86)%");
    strcat(grown, "\\x.dll");
    strcpy(at_cap, "C:\\Users\\Public\\");
    while (strlen(at_cap) < 1023 - 6)
        strcat(at_cap, "a");
    strcat(at_cap, "\\x.dll");
    assert_int_equal(strlen(at_cap), 1023);
    memset(twin_a, 'a', 1200);
    memcpy(twin_a, "C:\\Program Files\\", 17);
    memcpy(twin_b, twin_a, 1200);
    strcpy(twin_a + 1200, "\\a.dll");
    strcpy(twin_b + 1200, "\\b.dll");
    const char *const too_long[] = {past, grown};
    for (size_t i = 0; i < 2; i++) {
        const struct svc v[] = {STD("X", too_long[i])};
        expect_one(v, 1, NULL, "library-too-long", RT_AUDIT_WARNING);
        struct rt_findings f;
        run(v, 1, system_tree, &f);
        char said[64];
        snprintf(said, sizeof said, "Library is %zu bytes long, more than "
                 "the 1023", strlen(too_long[i]));
        expect_said(&f, "library-too-long", said);
        /* Nothing judged of a cut copy: no file looked for. */
        assert_null(find(&f, "library-not-found"));
        rt_findings_free(&f);
    }
    const struct svc cap[] = {STD("X", at_cap)};
    expect_one(cap, 1, NULL, "library-user-writable", RT_AUDIT_WARNING);
    struct rt_findings f;
    run(cap, 1, NULL, &f);
    assert_null(find(&f, "library-too-long"));
    rt_findings_free(&f);
    /* A system provider's Library too long to judge is not its own. */
    const struct svc sys[] = {STD("PerfOS", past)};
    run(sys, 1, NULL, &f);
    assert_non_null(find(&f, "library-too-long"));
    assert_non_null(find(&f, "system-library-replaced"));
    rt_findings_free(&f);
    /* Two values equal for their first 1200 bytes are two DLLs. */
    const struct svc twins[] = {{"A", twin_a, "O1", "C1", "Z1", 0},
                                {"B", twin_b, "O2", "C2", "Z2", 0}};
    run(twins, 2, NULL, &f);
    assert_null(find(&f, "library-shared"));
    rt_findings_free(&f);
}

/* A Library naming an NTFS alternate data stream (of a folder or of a
 * file) is said to be no plain file, and the place of what holds the
 * stream is judged: user-writable when that is. */
static void stream_names_are_judged(void **state)
{
    (void)state;
    static const char *const streams[] = {
        "C:\\Windows\\System32:evil.dll",
        "%SystemRoot%\\System32\\perfos.dll:evil",
        "foo.dll:stream",
        "C:\\Program Files\\Vendor\\v.dll:x",
        "C:\\Users\\Public:evil.dll",
        "%SystemRoot%\\Tasks:x.dll",
        "C:\\Users\\Public\\p.dll::$DATA",
    };
    for (size_t i = 0; i < sizeof streams / sizeof *streams; i++) {
        print_message("%s\n", streams[i]);
        const struct svc v[] = {STD("X", streams[i])};
        expect_one(v, 1, system_tree, "library-stream", RT_AUDIT_WARNING);
        struct rt_findings f;
        run(v, 1, system_tree, &f);
        expect_said(&f, "library-stream", "an NTFS alternate data stream");
        /* Where users can write the file or folder holding it. */
        if (i >= 4)
            expect_said(&f, "library-user-writable", streams[i]);
        else
            assert_null(find(&f, "library-user-writable"));
        rt_findings_free(&f);
    }
    /* The system's own DLL by a stream of it is not its own. */
    const struct svc sys[] = {STD("PerfOS", "perfos.dll:evil")};
    struct rt_findings f;
    run(sys, 1, system_tree, &f);
    assert_non_null(find(&f, "library-stream"));
    assert_non_null(find(&f, "system-library-replaced"));
    rt_findings_free(&f);
    /* A drive's colon, another drive's and a \\?\ path's are no stream. */
    const struct svc plain[] = {
        STD("A", "C:\\Program Files\\Vendor\\v.dll"),
        STD("B", "D:\\tools\\p.dll"),
        STD("C", "\\\\?\\C:\\Program Files\\Vendor\\v.dll"),
        STD("D", "\\??\\C:\\Program Files\\Vendor\\v.dll"),
    };
    run(plain, 4, system_tree, &f);
    assert_null(find(&f, "library-stream"));
    rt_findings_free(&f);
}


/* A DLL whose look-up met a link or special file of the tree (which is
 * not followed) is unknown, not missing: a warning (review 50 R50-7:
 * info, where Windows follows the link wherever the disk's author led
 * it), naming the path, in each of the three ways a Library names its
 * file. */
static void links_on_the_way_leave_a_library_unchecked(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Windows\\System32\\ntdll.dll", "!Windows\\Lnk\\p.dll",
        "!Tools\\p.dll", "!Windows\\System32\\bare.dll", NULL,
    };
    const char *libs[] = {"%SystemRoot%\\Lnk\\p.dll", "C:\\Tools\\p.dll",
                          "bare.dll"};
    const char *said[] = {"on the way to Windows\\Lnk\\p.dll",
                          "on the way to C:\\Tools\\p.dll",
                          "on the way to bare.dll"};
    for (size_t i = 0; i < 3; i++) {
        const struct svc v[] = {STD("X", libs[i])};
        struct rt_findings f;
        run(v, 1, tree, &f);
        expect_among(&f, "library-through-link", RT_AUDIT_WARNING);
        assert_non_null(strstr(message_of(find(&f, "library-through-link")),
                               said[i]));
        assert_null(find(&f, "library-not-found"));
        rt_findings_free(&f);
    }
    /* The same paths simply absent are missing. */
    static const char *const plain[] = {"Windows\\System32\\ntdll.dll", NULL};
    const struct svc gone[] = {STD("X", "%SystemRoot%\\Lnk\\p.dll")};
    expect_one(gone, 1, plain, "library-not-found", RT_AUDIT_WARNING);
}

/* The environment strings the machine defines itself (review 46 R46-4:
 * ProgramFilesDir set to C:\Windows\Temp, windir to C:\Users\Public, had
 * each Library judged where setup puts them): judged where the machine's
 * values lead, their own environment strings expanded as setup's; with
 * files and without (a hive pair: the values alone). */
static void machine_defined_environment_strings(void **state)
{
    (void)state;
    static const struct rt_audit_env env[] = {
        {"%programfiles%", "%SystemRoot%\\Temp", 0, "PF", NULL},
        {"%windir%", "C:\\Users\\Public", 0, "WD", NULL},
        {"%programdata%", "%SystemDrive%\\Data", 0, "PD", NULL},
    };
    const struct svc v[] = {
        STD("PF", "%ProgramFiles%\\Vendor\\evil.dll"),
        STD("WD", "%windir%\\System32\\w.dll"),
        STD("PD", "%ProgramData%\\Vendor\\d.dll"),
    };
    struct rt_database db;
    for (int files = 0; files < 2; files++) {
        build(&db, v, 3);
        struct rt_audit_tree t = {files ? table_exists : NULL,
                                  (void *)system_tree, "Windows",
                                  files ? table_list : NULL, NULL, env, 3};
        struct rt_findings f = {0};
        assert_int_equal(rt_audit_libraries(&db, &t, &f), 0);
        rt_findings_sort(&f);
        int pf = 0, wd = 0, pd = 0;
        for (size_t i = 0; i < f.n; i++) {
            const char *m = message_of(&f.v[i]);
            if (strcmp(rt_finding_id(&f.v[i]), "library-user-writable"))
                continue;
            pf |= strstr(m, "PF:") && strstr(m, "C:\\Windows\\Temp\\Vendor");
            wd |= strstr(m, "WD:") && strstr(m, "C:\\Users\\Public");
            pd |= strstr(m, "PD:") != NULL;
        }
        if (!pf || !wd || pd)
            show(&f);
        assert_true(pf);
        assert_true(wd);
        assert_false(pd);   /* C:\Data: outside, not user-writable */
        rt_findings_free(&f);
        rt_database_free(&db);
    }
}

/* What an audit with ENV (N of them) finds of LIBRARY (TYPE 0:
 * REG_EXPAND_SZ) for provider X, without files (a hive pair). */
static void run_env(const struct rt_audit_env *env, size_t n,
                    const char *library, uint32_t type, struct rt_findings *f)
{
    const struct svc v[] = {{"X", library, "Open", "Collect", "Close", type}};
    struct rt_database db;
    build(&db, v, 1);
    struct rt_audit_tree t = {NULL, NULL, "Windows", NULL, NULL, env, n};
    memset(f, 0, sizeof *f);
    assert_int_equal(rt_audit_libraries(&db, &t, f), 0);
    rt_database_free(&db);
}

/* Whether F has finding ID whose message holds WORDS. */
static int said(const struct rt_findings *f, const char *id, const char *words)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id) &&
            strstr(message_of(&f->v[i]), words))
            return 1;
    return 0;
}

/* A machine value the audit cannot take whole is said, never replaced by
 * setup's (review 47 R47-1, R47-2: a windir too long, empty, not a
 * string, naming itself, a REG_SZ of the Environment key naming
 * %SystemRoot%, each had %windir%\System32\perfos.dll judged in
 * C:\Windows): the Library is library-variable-unjudged with the value's
 * place, or library-too-long, and no other finding of its place. */
static void machine_values_are_judged_whole(void **state)
{
    (void)state;
    char long_value[1100];
    memset(long_value, 'a', sizeof long_value - 1);
    memcpy(long_value, "C:\\", 3);
    long_value[sizeof long_value - 1] = '\0';
    const struct rt_audit_env cases[] = {
        {"%windir%", NULL, 0, "SYSTEM\\E\\windir", "is empty"},
        {"%windir%", "%windir%", 0, "SYSTEM\\E\\windir", NULL},
        {"%windir%", "%Public%\\W", 0, "SYSTEM\\E\\windir", NULL},
        {"%windir%", "%SystemRoot%", 1, "SYSTEM\\E\\windir", NULL},
        {"%windir%", long_value, 0, "SYSTEM\\E\\windir", NULL},
        {"%windir%", "%SystemRoot%\\%X%", 0, "SYSTEM\\E\\windir", NULL},
        {"%windir%", NULL, 0, "SYSTEM\\E\\windir", "could not be read (d)"},
    };
    const char *id[] = {"library-variable-unjudged", "library-variable-unjudged",
                        "library-variable-unjudged", "library-variable-unjudged",
                        "library-too-long", "library-variable-unjudged",
                        "library-variable-unjudged"};
    const char *words[] = {"whose value (SYSTEM\\E\\windir) is empty",
                           "names an environment string other",
                           "names an environment string other",
                           "is REG_SZ and names an environment string",
                           "X: Library is", "names an environment string other",
                           "whose value (SYSTEM\\E\\windir) could not be read (d)"};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct rt_findings f;
        run_env(&cases[i], 1, "%windir%\\System32\\perfos.dll", 0, &f);
        if (!said(&f, id[i], words[i]) || f.n != 1)
            show(&f);
        assert_true(said(&f, id[i], words[i]));
        assert_int_equal(f.n, 1);
        rt_findings_free(&f);
    }
    /* The same values where they are good: judged where they lead. */
    const struct rt_audit_env good[] = {
        {"%windir%", "%SystemRoot%", 0, "W", NULL},
        {"%windir%", "C:\\Users\\Public", 1, "W", NULL},
    };
    for (size_t i = 0; i < 2; i++) {
        struct rt_findings f;
        run_env(&good[i], 1, "%windir%\\System32\\x.dll", 0, &f);
        assert_int_equal(said(&f, "library-user-writable", "x.dll"), i == 1);
        assert_false(said(&f, "library-variable-unjudged", ""));
        rt_findings_free(&f);
    }
}

/* A machine value naming %SystemRoot% or %SystemDrive% is expanded with
 * the Environment key's where it sets them (review 50 R50-1: the stock
 * windir=%SystemRoot% beside SystemRoot=C:\Users\Public was judged in
 * setup's C:\Windows), and not judged where the key's names a variable
 * itself (which of its values the other is expanded with is not known). */
static void system_root_of_the_key_expands_other_values(void **state)
{
    (void)state;
    const struct rt_audit_env root_and_windir[] = {
        {"%windir%", "%SystemRoot%", 0, "E\\windir", NULL},
        {"%systemroot%", "C:\\Users\\Public", 1, "E\\SystemRoot", NULL},
    };
    const struct rt_audit_env drive_and_root[] = {
        {"%systemroot%", "%SystemDrive%\\Windows", 0, "E\\SystemRoot", NULL},
        {"%systemdrive%", "C:\\Users\\Public", 1, "E\\SystemDrive", NULL},
    };
    const struct rt_audit_env all_three[] = {
        {"%windir%", "%SystemRoot%", 0, "E\\windir", NULL},
        {"%systemroot%", "%SystemDrive%\\Windows", 0, "E\\SystemRoot", NULL},
        {"%systemdrive%", "C:\\Users\\Public", 1, "E\\SystemDrive", NULL},
    };
    const struct rt_audit_env empty_root[] = {
        {"%windir%", "%SystemRoot%", 0, "E\\windir", NULL},
        {"%systemroot%", NULL, 0, "E\\SystemRoot", "is empty"},
    };
    struct rt_findings f;
    run_env(root_and_windir, 2, "%windir%\\System32\\x.dll", 0, &f);
    assert_true(said(&f, "library-user-writable",
                     "C:\\Users\\Public\\System32\\x.dll"));
    rt_findings_free(&f);
    run_env(drive_and_root, 2, "%SystemRoot%\\System32\\x.dll", 0, &f);
    assert_true(said(&f, "library-user-writable",
                     "C:\\Users\\Public\\Windows\\System32\\x.dll"));
    rt_findings_free(&f);
    run_env(all_three, 3, "%windir%\\System32\\x.dll", 0, &f);
    if (f.n != 1)
        show(&f);
    assert_true(said(&f, "library-variable-unjudged",
                     "uses %systemroot%, whose value (E\\SystemRoot) names an "
                     "environment string itself"));
    assert_int_equal(f.n, 1);
    rt_findings_free(&f);
    run_env(empty_root, 2, "%windir%\\System32\\x.dll", 0, &f);
    assert_true(said(&f, "library-variable-unjudged",
                     "whose value (E\\SystemRoot) is empty"));
    assert_int_equal(f.n, 1);
    rt_findings_free(&f);
}

/* A machine that says its system drive is another letter (its
 * Environment key's SystemDrive D:, setup's SystemRoot D:\Windows) has
 * every drive letter a Library names not judged: which volume each is
 * there is not known offline (review 50 R50-6: C:\... judged as the
 * tree; review 51 R51-1: D:\... taken for the tree on the key's word).
 * Setup's places (%SystemRoot%, %ProgramFiles%) are the tree's. */
static void another_system_drive_leaves_drive_letters_unjudged(void **state)
{
    (void)state;
    const struct rt_audit_env key[] = {
        {"%systemdrive%", "D:", 1, "E\\SystemDrive", NULL},
    };
    const struct rt_audit_env setup[] = {
        {RT_AUDIT_SETUP_ROOT, "D:\\Windows", 0, "S\\SystemRoot", NULL},
    };
    static const char *const libs[] = {
        "C:\\Windows\\System32\\x.dll", "D:\\Windows\\System32\\x.dll",
        "%SystemDrive%\\Windows\\System32\\x.dll",
        "%SystemRoot%\\System32\\x.dll", "%ProgramFiles%\\V\\x.dll"};
    static const int unjudged[] = {1, 1, 1, 0, 0};
    for (size_t e = 0; e < 2; e++)
        for (size_t i = 0; i < 5; i++) {
            struct rt_findings f;
            run_env(e ? setup : key, 1, libs[i], 0, &f);
            int said_it = said(&f, "library-variable-unjudged",
                               "the machine says its system drive is not C:");
            if (said_it != (unjudged[i] && (e == 0 || i != 2)))
                show(&f);
            assert_int_equal(said_it, unjudged[i] && (e == 0 || i != 2));
            assert_false(said(&f, "library-outside-system-dirs", ""));
            rt_findings_free(&f);
        }
    /* windir=%SystemRoot%, as Windows' own Environment key holds it, is
     * the tree's Windows folder whatever its letter (review 52 R52-4). */
    const struct rt_audit_env windir[] = {
        {RT_AUDIT_SETUP_ROOT, "D:\\Windows", 0, "S\\SystemRoot", NULL},
        {"%windir%", "%SystemRoot%", 0, "E\\windir", NULL},
    };
    struct rt_findings f;
    run_env(windir, 2, "%windir%\\System32\\x.dll", 0, &f);
    if (f.n)
        show(&f);
    assert_int_equal(f.n, 0);
    rt_findings_free(&f);
}

/* A drive-relative Library ("C:Windows\x.dll") resolves against the
 * reading process's current folder on that drive (review 51 R51-3:
 * judged as C:\Windows\x.dll). */
static void drive_relative_libraries_are_relative(void **state)
{
    (void)state;
    static const char *const libs[] = {"C:Windows\\System32\\x.dll",
                                       "C:..\\Windows\\System32\\x.dll",
                                       "c:x.dll"};
    for (size_t i = 0; i < 3; i++) {
        struct rt_findings f;
        run_env(NULL, 0, libs[i], 0, &f);
        if (!said(&f, "library-relative", "is a relative path") ||
            said(&f, "library-stream", ""))
            show(&f);
        assert_true(said(&f, "library-relative", "is a relative path"));
        /* The drive's colon is no stream's (review 52 R52-5). */
        assert_false(said(&f, "library-stream", ""));
        rt_findings_free(&f);
    }
}

/* A Library through a variable regtool does not know (review 48 R48-5:
 * %SystemRoot%\%X%\t.dll judged in a folder named "%X%", where the
 * machine's Environment may set X to Temp) is not judged, said with the
 * variable's name; a lone '%' is a name's character. */
static void unknown_variables_are_not_judged(void **state)
{
    (void)state;
    static const char *const libs[] = {"%SystemRoot%\\%X%\\t.dll",
                                       "%MyDir%\\t.dll", "C:\\%a%b\\t.dll"};
    static const char *const var[] = {"uses %X%, an environment string",
                                      "uses %MyDir%, an environment",
                                      "uses %a%, an environment"};
    struct rt_findings f;
    for (size_t i = 0; i < 3; i++) {
        run_env(NULL, 0, libs[i], 0, &f);
        if (!said(&f, "library-variable-unjudged", var[i]) || f.n != 1)
            show(&f);
        assert_true(said(&f, "library-variable-unjudged", var[i]));
        assert_int_equal(f.n, 1);
        rt_findings_free(&f);
    }
    run_env(NULL, 0, "%SystemRoot%\\System32\\100%\\t.dll", 0, &f);
    assert_false(said(&f, "library-variable-unjudged", ""));
    rt_findings_free(&f);
    /* The loading user's home drive (review 50 R50-9: judged as C:),
     * and with %HOMEPATH% that user's home folder. */
    run_env(NULL, 0, "%HomeDrive%\\Windows\\System32\\t.dll", 0, &f);
    assert_true(said(&f, "library-variable-unjudged",
                     "uses %HomeDrive%, whose value (the loading user's "
                     "logon) is that user's home drive"));
    assert_int_equal(f.n, 1);
    rt_findings_free(&f);
    run_env(NULL, 0, "%HOMEDRIVE%%HOMEPATH%\\t.dll", 0, &f);
    assert_true(said(&f, "library-user-writable", "t.dll"));
    assert_false(said(&f, "library-variable-unjudged", ""));
    rt_findings_free(&f);
}

/* %ProgramFiles% and %CommonProgramFiles% lead a 32-bit reader of 64-bit
 * Windows where the machine's (x86) values say (review 47 R47-3:
 * ProgramFilesDir (x86) set to C:\Windows\Temp was not judged), and
 * setup's (x86) folders are no finding. */
static void program_files_as_32_bit_readers_see_them(void **state)
{
    (void)state;
    const struct rt_audit_env env[] = {
        {"%programfiles(x86)%", "C:\\Windows\\Temp", 0, "P86", NULL},
        {"%commonprogramfiles(x86)%", "C:\\Users\\Public", 0, "C86", NULL},
    };
    struct rt_findings f;
    run_env(env, 2, "%ProgramFiles%\\Vendor\\t.dll", 0, &f);
    assert_true(said(&f, "library-user-writable", "C:\\Windows\\Temp\\Vendor"));
    rt_findings_free(&f);
    run_env(env, 2, "%CommonProgramFiles%\\Vendor\\t.dll", 0, &f);
    assert_true(said(&f, "library-user-writable", "C:\\Users\\Public\\Vendor"));
    rt_findings_free(&f);
    run_env(NULL, 0, "%ProgramFiles%\\Vendor\\t.dll", 0, &f);
    if (f.n)
        show(&f);
    assert_int_equal(f.n, 0);
    rt_findings_free(&f);
    /* An (x86) value not judged is said for the 32-bit reader. */
    const struct rt_audit_env bad = {"%programfiles(x86)%", NULL, 0, "P86",
                                     "is empty"};
    run_env(&bad, 1, "%ProgramFiles%\\Vendor\\t.dll", 0, &f);
    assert_true(said(&f, "library-variable-unjudged", "(P86)"));
    rt_findings_free(&f);
}

/* A REG_SZ Library naming an environment string (review 46 R46-6):
 * Windows expands a REG_EXPAND_SZ's only, so it may be loaded as typed:
 * said, and judged as expanded too; a REG_EXPAND_SZ's is not said. */
static void reg_sz_libraries_are_not_expanded(void **state)
{
    (void)state;
    struct rt_findings f;
    run_env(NULL, 0, "%SystemRoot%\\System32\\x.dll", RT_REG_SZ, &f);
    assert_true(said(&f, "library-not-expanded", "is REG_SZ"));
    rt_findings_free(&f);
    run_env(NULL, 0, "%SystemRoot%\\System32\\x.dll", RT_REG_EXPAND_SZ, &f);
    assert_false(said(&f, "library-not-expanded", ""));
    rt_findings_free(&f);
    run_env(NULL, 0, "C:\\Windows\\System32\\x.dll", RT_REG_SZ, &f);
    assert_false(said(&f, "library-not-expanded", ""));
    rt_findings_free(&f);
}

/* Two entries whose names differ only in case on the way to a DLL (two
 * folders two.dll and TWO.DLL, review 44 R44-6, were taken for the DLL):
 * which one Windows uses is not known, so the DLL is neither found nor
 * missing, and a warning naming the path, where a disk's author could
 * otherwise hide a missing or replaced one. */
static void names_differing_in_case_leave_a_library_unjudged(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "Windows\\System32\\ntdll.dll", "?Windows\\System32\\two.dll",
        "?Program Files\\V\\v.dll", NULL,
    };
    const char *libs[] = {"%SystemRoot%\\System32\\two.dll",
                          "C:\\Program Files\\V\\v.dll", "two.dll"};
    const char *said[] = {"on the way to Windows\\System32\\two.dll",
                          "on the way to C:\\Program Files\\V\\v.dll",
                          "on the way to two.dll"};
    for (size_t i = 0; i < 3; i++) {
        const struct svc v[] = {STD("X", libs[i])};
        struct rt_findings f;
        run(v, 1, tree, &f);
        expect_among(&f, "library-name-ambiguous", RT_AUDIT_WARNING);
        const char *m = message_of(find(&f, "library-name-ambiguous"));
        assert_non_null(strstr(m, said[i]));
        assert_non_null(strstr(m, "differ only in letter case"));
        assert_null(find(&f, "library-not-found"));
        assert_null(find(&f, "library-unchecked"));
        rt_findings_free(&f);
    }
}
/* A tree opened from its Windows folder alone (WINNT here), whose
 * drive's root the store does not hold: nothing outside WINNT is asked
 * of the tree, not even listed for a short name (the root's Vendor would
 * have resolved TOPSEC~1.TXT to a host file's name), and each Library
 * elsewhere on the drive is unchecked with the tree's words, never
 * missing; a Library beneath WINNT is judged as ever. */
struct fenced_tree {
    const char *const *files;
    size_t outside;   /* questions about paths outside WINNT */
};
static int outside_winnt(const char *path)
{
    return strncasecmp(path, "WINNT", 5) || (path[5] && path[5] != '\\');
}
static int fenced_exists(void *ctx, const char *path)
{
    struct fenced_tree *t = ctx;
    t->outside += (size_t)outside_winnt(path);
    return table_exists((void *)t->files, path);
}
static int fenced_list(void *ctx, const char *dir,
                       void (*each)(void *arg, const char *name), void *arg)
{
    struct fenced_tree *t = ctx;
    t->outside += (size_t)outside_winnt(dir);
    return table_list((void *)t->files, dir, each, arg);
}

static void a_root_not_held_is_not_looked_at(void **state)
{
    (void)state;
    static const char *const tree[] = {
        "WINNT\\System32\\ntdll.dll", "WINNT\\System32\\perfos.dll",
        "WINNT\\Long Folder\\p.dll", "Vendor\\topsecretplan.txt",
        "Vendor\\exists.dll", NULL,
    };
    const struct svc v[] = {
        STD("Secret", "C:\\Vendor\\TOPSEC~1.TXT"),
        STD("Exists", "C:\\Vendor\\exists.dll"),
        STD("PerfOS", "%SystemRoot%\\System32\\perfos.dll"),
        STD("Short", "C:\\WINNT\\LONGFO~1\\p.dll"),
        STD("Gone", "%SystemRoot%\\System32\\missing.dll"),
    };
    struct rt_database db;
    build(&db, v, 5);
    struct fenced_tree t = {tree, 0};
    const struct rt_audit_tree at = {
        fenced_exists, &t, "WINNT", fenced_list,
        "the volume's root above WINNT is not part of the tree opened", NULL,
        0};
    struct rt_findings f = {0};
    assert_int_equal(rt_audit_libraries(&db, &at, &f), 0);
    rt_findings_sort(&f);
    assert_int_equal(t.outside, 0);
    size_t unchecked = 0, missing = 0;
    for (size_t i = 0; i < f.n; i++) {
        const char *id = rt_finding_id(&f.v[i]);
        const char *m = message_of(&f.v[i]);
        assert_null(strstr(m, "topsecretplan"));
        if (!strcmp(id, "library-unchecked")) {
            unchecked++;
            assert_true(!strncmp(m, "Secret:", 7) || !strncmp(m, "Exists:", 7));
            assert_non_null(strstr(m, "not part of the tree opened"));
        } else if (!strcmp(id, "library-not-found")) {
            missing++;
            assert_non_null(strstr(m, "Gone:"));
        }
    }
    if (unchecked != 2 || missing != 1)
        show(&f);
    assert_int_equal(unchecked, 2);
    assert_int_equal(missing, 1);
    rt_findings_free(&f);
    rt_database_free(&db);
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
        cmocka_unit_test(resolved_before_judging),
        cmocka_unit_test(root_paths_are_on_the_system_drive),
        cmocka_unit_test(writable_below_windows),
        cmocka_unit_test(short_names),
        cmocka_unit_test(sysnative_is_system32),
        cmocka_unit_test(short_names_of_names_with_two_dots),
#ifdef HAVE_ALLOC_HOOK
        cmocka_unit_test(short_names_out_of_memory),
#endif
        cmocka_unit_test(short_names_list_each_folder_once),
        cmocka_unit_test(short_names_past_the_first_table),
        cmocka_unit_test(thirty_two_bit_providers),
        cmocka_unit_test(system_provider_with_a_range),
        cmocka_unit_test(long_values_are_never_cut),
        cmocka_unit_test(stream_names_are_judged),
        cmocka_unit_test(links_on_the_way_leave_a_library_unchecked),
        cmocka_unit_test(names_differing_in_case_leave_a_library_unjudged),
        cmocka_unit_test(machine_defined_environment_strings),
        cmocka_unit_test(machine_values_are_judged_whole),
        cmocka_unit_test(system_root_of_the_key_expands_other_values),
        cmocka_unit_test(program_files_as_32_bit_readers_see_them),
        cmocka_unit_test(unknown_variables_are_not_judged),
        cmocka_unit_test(another_system_drive_leaves_drive_letters_unjudged),
        cmocka_unit_test(drive_relative_libraries_are_relative),
        cmocka_unit_test(reg_sz_libraries_are_not_expanded),
        cmocka_unit_test(a_root_not_held_is_not_looked_at),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
