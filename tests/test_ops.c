/* The operations layer's queries (ops/ops.h) on the in-memory store: the
 * layout as a type (no store but a hive tree's .dat layout keeps tables
 * in files; tests/test_store_hive.c checks both of its layouts), a
 * service's string value, and verify refusing an offline store with the
 * CLI's message before it reads anything, and reading what a store that
 * can answers (its failure a read failure); the tree init and the
 * benchmarks build (rt_op_init_build): its files per layout, the tables
 * as installed only when asked, help texts cut, an existing file refused
 * by name; the store specs parsed; a backup file read for restore; the
 * .reg backup's size cap; --emit-reg's counts; audit's scope; hive check
 * and hive recover on one hive file; perfstats on a .reg export; an INI
 * loaded (strict refusing warnings) and repair --from-ini's search; a
 * store opened with its database read, and whether it keeps side files;
 * the .reg backup saved (not when an interrupt came first); the strings a change set loses; audit of a
 * store by its spec; a table written read back (a store that loses the
 * write refused); the INF copies' search with memory running out; a file
 * over its cap refused by its size, before any buffer is taken. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* Allocations failed one by one (inf_copies_found_or_out_of_memory). */
#define ALLOC_HOOK_MALLOC
#include "alloc_hook.h"
#ifdef HAVE_ALLOC_HOOK
#ifndef _WIN32
#include <sys/wait.h>
#endif
#include <unistd.h>
#endif

#include "ops/emit_patch.h"
#include "ops/hive_files.h"
#include "ops/ops.h"
#include "provider/ini_reader.h"
#include "ops/perfstats_reg.h"
#include "platform/os.h"
#include "regf/base_block.h"
#include "regf/regf.h"
#include "finding_message.h"
#include "scratch.h"

static void store_queries_typed(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    assert_int_equal(rt_op_tables_layout(s), RT_TABLES_IN_VALUES);
    assert_int_equal(rt_op_holds_libraries(s), 1);
    assert_non_null(rt_op_layout_text(s));

    assert_int_equal(rt_store_mem_put_service(s, "Svc", 1), 0);
    struct rt_value v;
    assert_int_equal(rt_value_from_string(&v, RT_REG_SZ, "svc.ini"), 0);
    assert_int_equal(rt_store_mem_put_service_value(s, "Svc", "PerfIniFile",
                                                    &v), 0);
    rt_value_free(&v);
    struct rt_error e = {0};
    char *ini = NULL;
    assert_int_equal(rt_op_service_string(s, "Svc", "PerfIniFile", &ini, &e),
                     0);
    assert_string_equal(ini, "svc.ini");
    free(ini);
    assert_int_equal(rt_op_service_string(s, "Svc", "Library", &ini, &e), 0);
    assert_null(ini);
    char **names = NULL;
    size_t n = 0;
    assert_int_equal(rt_op_list_perf_services(s, &names, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "Svc");
    rt_strings_free(names, n);
    rt_op_close(s);
}

static void verify_refuses_offline_store(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_database db = {0};
    struct rt_findings f = {0};
    struct rt_error e = {0};
    assert_int_equal(rt_op_verify(s, &db, "Svc", "Global", &f, &e),
                     RT_VERIFY_NO_SYSTEM);
    assert_int_equal(e.code, RT_ERR_NOT_SUPPORTED);
    assert_string_equal(e.message,
                        "the mem store has no running system to load "
                        "providers; use --store live (on Windows or under "
                        "Wine)");
    assert_int_equal(f.n, 0);
    rt_op_close(s);
}


/* A store that answers the performance data query: verify reads what it
 * answered (here a buffer too short for a PERF_DATA_BLOCK, said as a
 * problem of the data), never a read failure. */
static int answered_perf_data(struct rt_store *s, const char *query,
                              uint8_t **buf, size_t *len, size_t *cap,
                              int *more_data, struct rt_error *e)
{
    (void)s;
    (void)query;
    (void)e;
    *buf = NULL;
    *len = *cap = 0;
    *more_data = -1;
    return 0;
}

static int failed_perf_data(struct rt_store *s, const char *query,
                            uint8_t **buf, size_t *len, size_t *cap,
                            int *more_data, struct rt_error *e)
{
    (void)s;
    (void)query;
    (void)buf;
    (void)len;
    (void)cap;
    (void)more_data;
    return rt_error_set(e, RT_ERR_ACCESS_DENIED, "no access to the data");
}

static void verify_reads_the_answered_data(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    const struct rt_store_ops *mem = s->ops;
    struct rt_store_ops ops = *mem;
    s->ops = &ops;
    struct rt_database db = {0};
    struct rt_findings f = {0};
    struct rt_error e = {0};

    ops.perf_data = answered_perf_data;
    assert_int_equal(rt_op_verify(s, &db, "Svc", "Global", &f, &e),
                     RT_VERIFY_DONE);
    assert_int_equal(e.code, 0);
    rt_findings_free(&f);

    ops.perf_data = failed_perf_data;
    memset(&f, 0, sizeof f);
    assert_int_equal(rt_op_verify(s, &db, "Svc", "Global", &f, &e),
                     RT_VERIFY_READ_FAILED);
    assert_int_equal(e.code, RT_ERR_ACCESS_DENIED);
    assert_int_equal(f.n, 0);
    s->ops = mem;
    rt_op_close(s);
}
/* Every kind of spec, and what follows its prefix; a spec of no store
 * refused (init and rt_op_open_store both parse through it). */
static void store_specs_parsed(void **state)
{
    (void)state;
    struct rt_store_spec p;
    assert_int_equal(rt_op_parse_spec("hive:/mnt/c", &p), 0);
    assert_int_equal(p.kind, RT_SPEC_HIVE_TREE);
    assert_string_equal(p.arg, "/mnt/c");
    assert_int_equal(rt_op_parse_spec("hive:SOFTWARE,SYSTEM", &p), 0);
    assert_int_equal(p.kind, RT_SPEC_HIVE_FILES);
    assert_int_equal(rt_op_parse_spec("psb:b.ini", &p), 0);
    assert_int_equal(p.kind, RT_SPEC_PSB);
    assert_string_equal(p.arg, "b.ini");
    assert_int_equal(rt_op_parse_spec("reg:b.reg", &p), 0);
    assert_int_equal(p.kind, RT_SPEC_REG);
    assert_int_equal(rt_op_parse_spec("live", &p), 0);
    assert_int_equal(p.kind, RT_SPEC_LIVE);
    assert_null(p.arg);
    assert_int_equal(rt_op_parse_spec("live:HOST", &p), 0);
    assert_string_equal(p.arg, "HOST");
    assert_int_equal(rt_op_parse_spec("livex", &p), -1);
    assert_int_equal(rt_op_parse_spec("Hive:/mnt/c", &p), -1);
    assert_int_equal(rt_op_parse_spec("", &p), -1);
}

static int exists_in(const char *dir, const char *name)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return rt_os_exists(path);
}

static void init_tree_layouts(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char sys32[4096], wow[4096], sw[4200], sy[4200];
    snprintf(sys32, sizeof sys32, "%s/System32", root);
    snprintf(wow, sizeof wow, "%s/SysWOW64", root);
    snprintf(sw, sizeof sw, "%s/SOFTWARE", root);
    snprintf(sy, sizeof sy, "%s/SYSTEM", root);
    assert_int_equal(rt_os_mkdirs(sys32), 0);
    assert_int_equal(rt_os_mkdirs(wow), 0);
    char *langs[] = {"009", "019", "CurrentLanguage"};

    /* The files layout as init makes it: current and installed tables in
     * both folders, none for CurrentLanguage. */
    struct rt_init_tree t = {langs, 3, 1, {sys32, wow}, 1, 0, 0};
    struct rt_init_hives h;
    struct rt_error e = {0};
    assert_int_equal(rt_op_init_build(&t, &h, &e), 0);
    assert_int_equal(rt_op_init_save(&h, sw, sy, &e), 0);
    size_t whole_help = h.help_max;
    rt_op_init_free(&h);
    const char *dirs[] = {sys32, wow};
    for (int d = 0; d < 2; d++)
        for (const char *k = "cdhi"; *k; k++) {
            char name[64];
            snprintf(name, sizeof name, "perf%c019.dat", *k);
            assert_true(exists_in(dirs[d], name));
            snprintf(name, sizeof name, "perf%cCurrentLanguage.dat", *k);
            assert_false(exists_in(dirs[d], name));
        }
    assert_true(rt_os_exists(sw));
    assert_true(rt_os_exists(sy));

    /* Run again over it: the first file there already is refused, named. */
    assert_int_equal(rt_op_init_build(&t, &h, &e), -1);
    assert_non_null(strstr(e.message, "writing "));
    assert_non_null(strstr(e.message, "perfd009.dat"));
    assert_null(h.software);
    assert_int_equal(scratch_remove(root), 0);
    free(root);

    /* The benchmarks' registry layout: no .dat file at all without the
     * installed tables, help texts cut. */
    root = scratch_dir_new("rtops");
    snprintf(sys32, sizeof sys32, "%s/System32", root);
    assert_int_equal(rt_os_mkdirs(sys32), 0);
    struct rt_init_tree b = {langs, 2, 0, {sys32, NULL}, 0, 2, 8};
    assert_int_equal(rt_op_init_build(&b, &h, &e), 0);
    assert_true(h.help_max < whole_help);
    assert_true(h.tables_bytes > 0);
    rt_op_init_free(&h);
    assert_false(exists_in(sys32, "perfd009.dat"));
    assert_false(exists_in(sys32, "perfc009.dat"));
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* A backup file as restore reads it: a missing one said as the system
 * says it with the Win32 code lodctr returns, a PerfStringBackup file
 * with a bad line refused at that line, a .reg file told by its first
 * line. */
static void backup_file_read(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200];
    struct rt_backup_file f;
    struct rt_error e = {0};
    snprintf(path, sizeof path, "%s/missing.ini", root);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e),
                     RT_BACKUP_READ_UNREADABLE);
    assert_int_equal(e.code, RT_ERR_FILE_NOT_FOUND);
    rt_backup_file_free(&f);
#ifndef _WIN32
    /* A file where a directory of the path should be: the path, not the
     * access, is what is wrong (lodctr's 3, not 5: ENOTDIR). On Windows
     * the system's own code is passed on as it comes (Wine's is 2). */
    snprintf(path, sizeof path, "%s/plain", root);
    assert_int_equal(rt_os_write_new_file(path, "x", 1), 0);
    snprintf(path, sizeof path, "%s/plain/backup.ini", root);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e),
                     RT_BACKUP_READ_UNREADABLE);
    assert_int_equal(e.code, RT_ERR_PATH_NOT_FOUND);
    rt_backup_file_free(&f);
#endif

    static const char bad[] = "[Perflib]\r\nBase Index=1847\r\nnot a "
                              "key line\r\n";
    snprintf(path, sizeof path, "%s/bad.ini", root);
    assert_int_equal(rt_os_write_new_file(path, bad, sizeof bad - 1), 0);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e),
                     RT_BACKUP_READ_MALFORMED);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_true(f.with_line);
    assert_true(f.line >= 1);
    /* The whole sentence, as the CLI and the library both say it. */
    char want[4300];
    snprintf(want, sizeof want, "%s:%u: ", path, f.line);
    assert_true(strncmp(e.message, want, strlen(want)) == 0);
    assert_non_null(strstr(e.message, "; nothing was written"));
    rt_backup_file_free(&f);

    static const char reg[] =
        "REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\X]\r\n"
        "\"A\"=\"b\"\r\n";
    snprintf(path, sizeof path, "%s/b.reg", root);
    assert_int_equal(rt_os_write_new_file(path, reg, sizeof reg - 1), 0);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e), RT_BACKUP_READ_OK);
    assert_int_equal(f.kind, RT_BACKUP_FILE_REG);
    assert_non_null(rt_tree_find(f.reg, "HKEY_LOCAL_MACHINE\\SOFTWARE\\X"));
    rt_backup_file_free(&f);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* The .reg backup's text: refused, before any text is made, when its
 * tables alone would make a file larger than restore reads (each byte of
 * a hex(7) value is six in the file: the table's bytes are never read);
 * else the file's bytes. */
static void reg_backup_text_capped(void **state)
{
    (void)state;
    uint8_t tab[] = {'a', 0, 0, 0};
    struct rt_reg_value big = {.name = "Counter",
                               .v = {RT_REG_MULTI_SZ, NULL,
                                     (size_t)(RT_REG_FILE_MAX / 6) + 2}};
    struct rt_reg_key k = {"HKEY_LOCAL_MACHINE\\SOFTWARE\\X", 0, &big, 1, 0};
    struct rt_reg_file f = {RT_REG_V5_UTF16, &k, 1, 0};
    uint8_t *data = (uint8_t *)"";
    size_t len = 1;
    uint64_t too_large = 0;
    struct rt_error e = {0};
    assert_int_equal(rt_op_reg_backup_text(&f, &data, &len, &too_large, &e),
                     1);
    /* "xx," a byte in UTF-16LE, but the last byte's comma. */
    assert_int_equal(too_large, 6 * ((RT_REG_FILE_MAX / 6) + 2) - 2);
    assert_null(data);
    assert_int_equal(len, 0);

    big.v.data = tab;
    big.v.len = sizeof tab;
    assert_int_equal(rt_op_reg_backup_text(&f, &data, &len, &too_large, &e),
                     0);
    assert_non_null(data);
    assert_true(len > 0);
    free(data);
}

/* --emit-reg's patch: what it holds counted, and the file changes no
 * .reg file holds counted apart. */
static void reg_patch_counts(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_change_set cs = {0};
    struct rt_value v;
    assert_int_equal(rt_value_from_dword(&v, 1), 0);
    assert_int_equal(rt_change_set_service(&cs, "Svc", "First Counter", &v),
                     0);
    assert_int_equal(rt_change_set_service(&cs, "Svc", "Last Counter", &v),
                     0);
    rt_value_free(&v);
    assert_int_equal(rt_change_set_write_file(&cs, "INF/Svc/0009/svc.ini",
                                              (const uint8_t *)"x", 1), 0);
    uint8_t *data;
    size_t len, keys, values, left_out, files;
    struct rt_error e = {0};
    assert_int_equal(rt_op_reg_patch_text(s, &cs, &data, &len, &keys,
                                          &values, &left_out, &files, &e),
                     0);
    assert_int_equal(keys, 1);
    assert_int_equal(values, 2);
    assert_int_equal(left_out, 0);
    assert_int_equal(files, 1);
    assert_true(len > 0);
    free(data);
    rt_change_set_free(&cs);
    rt_op_close(s);
}

/* A store whose commit fails: past its commit point (COMMITTED: the
 * change stands, its journal finishing it) or before it. */
static int apply_committed;

static int failing_apply(struct rt_store *s, const struct rt_change_set *cs,
                         struct rt_error *e)
{
    (void)s;
    (void)cs;
    e->committed = apply_committed;
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "failed %s the commit point",
                        apply_committed ? "after" : "before");
}

/* --emit-reg's patch is put in place whenever the change was written, a
 * commit failing past its commit point too (review 49 R49-4: it was
 * thrown away with the failure), and never when nothing was. */
static void patch_follows_the_commit_point(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("patch");
    for (int committed = 0; committed < 2; committed++) {
        struct rt_store *s = rt_store_mem_new();
        assert_non_null(s);
        struct rt_store_ops ops = *s->ops;
        ops.apply = failing_apply;
        s->ops = &ops;
        apply_committed = committed;
        char *file;
        assert_true(asprintf(&file, "%s/p%d.reg", dir, committed) > 0);
        struct rt_op_patch p;
        rt_op_patch_stage(&p, s, file);
        struct rt_change_set cs = {0};
        struct rt_value v;
        assert_int_equal(rt_value_from_dword(&v, 1), 0);
        assert_int_equal(rt_change_set_service(&cs, "Svc", "First Counter",
                                               &v), 0);
        rt_value_free(&v);
        struct rt_error e = {0};
        assert_int_equal(rt_op_apply(s, &cs, &e), -1);
        assert_int_equal(e.committed, committed);
        assert_int_equal(p.state, committed ? RT_OP_PATCH_IN_PLACE
                                            : RT_OP_PATCH_NONE);
        assert_int_equal(rt_os_exists(file), committed);
        char **names;
        size_t n;
        assert_int_equal(rt_os_list_dir(dir, &names, &n), 0);
        assert_int_equal(n, (size_t)committed);   /* no temporary left */
        rt_os_free_list(names, n);
        rt_change_set_free(&cs);
        rt_op_close(s);
        free(file);
    }
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

/* audit's scope: an empty Perflib (no language, no counters) is a
 * finding of the table checks, and only of them: with the libraries'
 * checks alone nothing is read of the tables and nothing found. */
static void audit_scope(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_findings f = {0};
    assert_int_equal(rt_op_audit(s, NULL, RT_OP_AUDIT_LIBRARIES, 1, &f), 0);
    assert_int_equal(f.n, 0);
    rt_findings_free(&f);
    memset(&f, 0, sizeof f);
    assert_int_equal(rt_op_audit(s, NULL, RT_OP_AUDIT_TABLES, 1, &f), 0);
    assert_true(f.n > 0);
    rt_findings_free(&f);
    rt_op_close(s);
}

/* A store whose journal_state says KIND (the in-memory store keeps no
 * journal: its operations with journal_state added). */
static int journal_kind;

static const char *journal_said(struct rt_store *s, int *kind)
{
    (void)s;
    *kind = journal_kind;
    return "the journal's line";
}

/* What a store found in its journal's place is audit's first finding, of
 * its own id and severity: refused (no writer goes on) an error, a
 * committed change the files do not hold yet a warning, a change that
 * never reached its commit point info. */
static void journal_found_is_a_finding_of_its_severity(void **state)
{
    (void)state;
    static const struct {
        int kind;
        const char *id;
        enum rt_audit_severity severity;
    } cases[] = {
        {RT_JOURNAL_REFUSED, "journal-refused", RT_AUDIT_ERROR},
        {RT_JOURNAL_PENDING, "journal-pending", RT_AUDIT_WARNING},
        {RT_JOURNAL_UNSEALED, "journal-unsealed", RT_AUDIT_INFO},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        struct rt_store *s = rt_store_mem_new();
        assert_non_null(s);
        const struct rt_store_ops *mem = s->ops;
        struct rt_store_ops with_journal = *mem;
        with_journal.journal_state = journal_said;
        s->ops = &with_journal;
        journal_kind = cases[c].kind;
        struct rt_findings f = {0};
        assert_int_equal(rt_op_audit(s, NULL, RT_OP_AUDIT_LIBRARIES, 1, &f), 0);
        assert_int_equal(f.n, 1);
        assert_string_equal(rt_finding_id(&f.v[0]), cases[c].id);
        assert_int_equal(rt_finding_severity(&f.v[0]), cases[c].severity);
        rt_findings_free(&f);
        s->ops = mem;
        rt_op_close(s);
    }
}

/* A new, empty hive saved at DIR/NAME; its path in PATH. */
static void write_hive(const char *dir, const char *name, char *path,
                       size_t size)
{
    struct rt_regf *h;
    char err[256];
    uint32_t key;
    assert_int_equal(rt_regf_create(5, "ROOT", &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_key_create_path(h, rt_regf_root(h), "Software",
                                             &key), 0);
    snprintf(path, size, "%s/%s", dir, name);
    assert_int_equal(rt_regf_save_as(h, path), 0);
    rt_regf_close(h);
}

/* PATH rewritten as its first LEN bytes, or with its base block's
 * primary sequence number bumped (LEN 0: dirty, as a crash mid-write
 * leaves it, its checksum sealed again). */
static void damage_hive(const char *path, size_t len)
{
    uint8_t *data;
    size_t n;
    assert_int_equal(rt_os_read_file(path, &data, &n), 0);
    assert_true(n > REGF_BASE_BLOCK_SIZE);
    if (len) {
        assert_true(len < n);
        n = len;
    } else {
        regf_put32(data + REGF_OFF_SEQ1, regf_le32(data + REGF_OFF_SEQ2) + 1);
        regf_base_seal(data);
    }
    assert_int_equal(rt_os_replace_file(path, data, n, 0644), 0);
    free(data);
}

/* hive check: a whole hive is clean with its base block read; a regtool
 * journal beside it is reported with its size; cut inside its bins, the
 * hive gives one error at the base block's hive bins size (0x28), saying
 * it is truncated, its header still read; a file not there cannot be
 * checked, its size unknown. */
static void hive_check_findings(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200], journal[4200];
    write_hive(root, "HIVE", path, sizeof path);
    struct rt_op_hive_check c;
    assert_int_equal(rt_op_hive_check(path, &c), 0);
    assert_true(c.have_header);
    assert_int_equal(c.major, 1);
    assert_int_equal(c.minor, 5);
    assert_false(c.dirty);
    assert_int_equal(c.errors + c.warnings, 0);
    assert_int_equal(c.replay.status, RT_OP_REPLAY_CLEAN);
    assert_false(c.journal_pending);
    long long whole = c.size;
    rt_op_hive_check_free(&c);

    snprintf(journal, sizeof journal, "%s/regtool.journal", root);
    assert_int_equal(rt_os_write_new_file(journal, "RTJOURN2", 8), 0);
    assert_int_equal(rt_op_hive_check(path, &c), 0);
    assert_true(c.journal_pending);
    assert_int_equal(c.journal_bytes, 8);
    rt_op_hive_check_free(&c);

    damage_hive(path, (size_t)whole - 1024);
    assert_int_equal(rt_op_hive_check(path, &c), 0);
    assert_true(c.have_header);
    assert_int_equal(c.size, whole - 1024);
    assert_int_equal(c.errors, 1);
    assert_int_equal(c.n_findings, 1);
    assert_int_equal(c.findings[0].severity, RT_OP_HIVE_ERROR);
    assert_int_equal(c.findings[0].offset, 0x28);
    assert_non_null(strstr(c.findings[0].message, "(truncated)"));
    rt_op_hive_check_free(&c);

    snprintf(path, sizeof path, "%s/missing", root);
    assert_int_equal(rt_op_hive_check(path, &c), -1);
    assert_true(c.error[0] != 0);
    /* Its size unknown (-1), not that of an empty file. */
    assert_int_equal(c.size, -1);
    assert_false(c.have_header);
    rt_op_hive_check_free(&c);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* hive recover: a clean hive is copied whole (CLEAN), an existing OUT is
 * kept without FORCE, the hive itself is never OUT, and a dirty hive with
 * no log beside it is refused with nothing written. */
static void hive_recover_outcomes(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200], out[4200];
    write_hive(root, "HIVE", path, sizeof path);
    snprintf(out, sizeof out, "%s/out", root);
    struct rt_op_hive_recover r;
    assert_int_equal(rt_op_hive_recover(path, out, 0, &r),
                     RT_OP_RECOVER_WRITTEN);
    assert_int_equal(r.replay.status, RT_OP_REPLAY_CLEAN);
    rt_op_hive_recover_free(&r);
    uint8_t *a, *b;
    size_t na, nb;
    assert_int_equal(rt_os_read_file(path, &a, &na), 0);
    assert_int_equal(rt_os_read_file(out, &b, &nb), 0);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na);
    free(a);
    free(b);

    assert_int_equal(rt_op_hive_recover(path, out, 0, &r),
                     RT_OP_RECOVER_OUT_EXISTS);
    rt_op_hive_recover_free(&r);
    assert_int_equal(rt_op_hive_recover(path, path, 1, &r),
                     RT_OP_RECOVER_OUT_IS_HIVE);
    rt_op_hive_recover_free(&r);

    damage_hive(path, 0);
    assert_int_equal(rt_os_unlink(out), 0);
    assert_int_equal(rt_op_hive_recover(path, out, 1, &r),
                     RT_OP_RECOVER_NOT_REPLAYED);
    assert_int_equal(r.replay.status, RT_OP_REPLAY_NO_USABLE_LOG);
    assert_non_null(strstr(r.replay.message, "dirty"));
    rt_op_hive_recover_free(&r);
    assert_false(rt_os_exists(out));

    snprintf(path, sizeof path, "%s/missing", root);
    assert_int_equal(rt_op_hive_recover(path, out, 1, &r),
                     RT_OP_RECOVER_UNREADABLE);
    assert_int_equal(r.err_no, ENOENT);
    rt_op_hive_recover_free(&r);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

#define ENUM_KEY "[HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\" \
                 "PerfStats\\Enum"
/* A Windows 95 export: KERNEL with a rate and, at line 10, a statistic
 * without a Name at line 11; VFAT with none. */
static const char stats_reg[] =
    "REGEDIT4\r\n\r\n"
    ENUM_KEY "\\KERNEL]\r\n\"Name\"=\"Kernel\"\r\n\"VxDName\"=\"VMM\"\r\n\r\n"
    ENUM_KEY "\\KERNEL\\CPUUsage]\r\n\"Name\"=\"Processor Usage\"\r\n"
    "\"Differentiate\"=\"TRUE\"\r\n\r\n"
    ENUM_KEY "\\KERNEL\\Threads]\r\n\"Differentiate\"=\"FALSE\"\r\n\r\n"
    ENUM_KEY "\\VFAT]\r\n\"Name\"=\"File System\"\r\n\r\n";

/* perfstats list and audit: the servers and statistics typed, the
 * nameless statistic an error at its line, the server without statistics
 * a warning, nothing audited unless asked; a malformed file refused at
 * its line, a missing one as unreadable. */
static void perfstats_read_audit(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200];
    snprintf(path, sizeof path, "%s/stats.reg", root);
    assert_int_equal(rt_os_write_new_file(path, stats_reg,
                                          sizeof stats_reg - 1), 0);
    struct rt_op_perfstats p;
    char *why;
    assert_int_equal(rt_op_perfstats_read(path, NULL, 0, &p, &why),
                     RT_OP_PERFSTATS_OK);
    assert_int_equal(p.n_servers, 2);
    assert_string_equal(p.servers[0].key, "KERNEL");
    assert_string_equal(p.servers[0].vxd, "VMM");
    assert_int_equal(p.servers[0].n_stats, 2);
    assert_int_equal(p.servers[0].stats[0].kind, RT_OP_STAT_RATE);
    assert_int_equal(p.servers[0].stats[1].kind, RT_OP_STAT_COUNT);
    assert_null(p.servers[0].stats[1].name);
    assert_int_equal(p.servers[1].n_stats, 0);
    assert_int_equal(p.n_findings, 0);
    rt_op_perfstats_free(&p);

    assert_int_equal(rt_op_perfstats_read(path, NULL, RT_OP_PERFSTATS_AUDIT,
                                          &p, &why),
                     RT_OP_PERFSTATS_OK);
    assert_int_equal(p.errors, 1);
    assert_int_equal(p.warnings, 1);
    int seen_no_name = 0;
    for (size_t i = 0; i < p.n_findings; i++) {
        struct rt_op_stat_finding x;
        char message[300];
        rt_op_perfstats_finding(&p, i, &x, message, sizeof message);
        assert_ptr_equal(x.message, message);
        if (strcmp(x.id, "stat-no-name"))
            continue;
        seen_no_name = 1;
        assert_true(x.error);
        assert_int_equal(x.line, 11);
        assert_string_equal(x.stat, "Threads");
        assert_non_null(strstr(message, "has no Name"));
    }
    assert_true(seen_no_name);
    size_t n_findings = p.n_findings;
    rt_op_perfstats_free(&p);
#ifdef HAVE_ALLOC_HOOK
    /* Memory running out at each allocation of the audited read in turn:
     * it says it failed, or gives the whole audit, never a file audited
     * clean. (Under valgrind no call reaches the hook: CALLS is 0.) */
    alloc_calls = 0;
    assert_int_equal(rt_op_perfstats_read(path, NULL, RT_OP_PERFSTATS_AUDIT,
                                          &p, &why),
                     RT_OP_PERFSTATS_OK);
    rt_op_perfstats_free(&p);
    unsigned long calls = alloc_calls;
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        enum rt_op_perfstats_status st =
            rt_op_perfstats_read(path, NULL, RT_OP_PERFSTATS_AUDIT, &p, &why);
        alloc_fail_at = 0;
        if (st != RT_OP_PERFSTATS_OK) {
            /* Reading the file is refused with its errno (ENOMEM). */
            assert_true(st == RT_OP_PERFSTATS_NO_MEMORY ||
                        st == RT_OP_PERFSTATS_UNREADABLE);
            assert_non_null(why);
            free(why);
        } else if (p.n_findings != n_findings || p.errors != 1 ||
                   p.warnings != 1)
            fail_msg("allocation %lu of %lu failed: status %d, %zu findings",
                     k, calls, (int)st, p.n_findings);
        rt_op_perfstats_free(&p);
    }
#else
    (void)n_findings;
#endif

    static const char bad[] =
        "REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\System]\r\n\"x\"=hex:0g\r\n";
    snprintf(path, sizeof path, "%s/bad.reg", root);
    assert_int_equal(rt_os_write_new_file(path, bad, sizeof bad - 1), 0);
    assert_int_equal(rt_op_perfstats_read(path, NULL, 0, &p, &why),
                     RT_OP_PERFSTATS_MALFORMED);
    char at[4300];
    snprintf(at, sizeof at, "%s:4: ", path);
    assert_non_null(why);
    assert_memory_equal(why, at, strlen(at));
    free(why);
    rt_op_perfstats_free(&p);

    snprintf(path, sizeof path, "%s/missing.reg", root);
    assert_int_equal(rt_op_perfstats_read(path, NULL, 0, &p, &why),
                     RT_OP_PERFSTATS_UNREADABLE);
    assert_non_null(strstr(why, "cannot read"));
    free(why);
    rt_op_perfstats_free(&p);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* perfstats remove: a server the file lacks is refused and nothing is
 * written; one it has goes with its statistics, the [-KEY] patch beside. */
static void perfstats_remove_server(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200], patch[4200];
    snprintf(path, sizeof path, "%s/stats.reg", root);
    snprintf(patch, sizeof patch, "%s/patch.reg", root);
    assert_int_equal(rt_os_write_new_file(path, stats_reg,
                                          sizeof stats_reg - 1), 0);
    size_t left;
    char *why;
    assert_int_equal(rt_op_perfstats_remove(path, "VMM", NULL, patch, &left,
                                            &why),
                     RT_OP_PERFSTATS_NO_SERVER);
    assert_non_null(strstr(why, "has no stat server VMM"));
    free(why);
    assert_false(rt_os_exists(patch));
    uint8_t *data;
    size_t n;
    assert_int_equal(rt_os_read_file(path, &data, &n), 0);
    assert_int_equal(n, sizeof stats_reg - 1);
    assert_memory_equal(data, stats_reg, n);
    free(data);

    assert_int_equal(rt_op_perfstats_remove(path, "KERNEL", NULL, patch,
                                            &left, &why),
                     RT_OP_PERFSTATS_OK);
    assert_int_equal(left, 1);
    struct rt_op_perfstats p;
    assert_int_equal(rt_op_perfstats_read(path, NULL, 0, &p, &why),
                     RT_OP_PERFSTATS_OK);
    assert_int_equal(p.n_servers, 1);
    assert_string_equal(p.servers[0].key, "VFAT");
    rt_op_perfstats_free(&p);
    static const char want_patch[] =
        "REGEDIT4\r\n\r\n[-HKEY_LOCAL_MACHINE\\System\\CurrentControlSet"
        "\\Control\\PerfStats\\Enum\\KERNEL]\r\n\r\n";
    assert_int_equal(rt_os_read_file(patch, &data, &n), 0);
    assert_int_equal(n, sizeof want_patch - 1);
    assert_memory_equal(data, want_patch, n);
    free(data);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* A provider's INI and its symbol file, written in DIR as NAME and s.h;
 * SUFFIX ends the object's name line (spaces there are a warning). */
static void write_ini(const char *dir, const char *name, const char *driver,
                      const char *suffix)
{
    char path[4200], text[512];
    static const char sym[] = "#define OBJ 0\n";
    snprintf(path, sizeof path, "%s/s.h", dir);
    if (!rt_os_exists(path))
        assert_int_equal(rt_os_write_new_file(path, sym, sizeof sym - 1), 0);
    int n = snprintf(text, sizeof text,
                     "[info]\r\n%s%s%ssymbolfile=s.h\r\n"
                     "[languages]\r\n009=English\r\n[objects]\r\n"
                     "OBJ_009_NAME=\r\n[text]\r\nOBJ_009_NAME=Object%s\r\n"
                     "OBJ_009_HELP=The object.\r\n",
                     driver ? "drivername=" : "", driver ? driver : "",
                     driver ? "\r\n" : "", suffix);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(rt_os_write_new_file(path, text, (size_t)n), 0);
}

/* One INI loaded as install loads it: valid, with warnings (refused
 * only when strict, the spec then freed), with errors, unreadable; with
 * the files of its INF copy, read only for an INI loaded. */
static void ini_loaded(void **state)
{
    (void)state;
    /* A build without inih (the Windows one unless INIH= is given)
     * reads no INI: regtool says so (ini_unavailable.c). */
    if (!rt_ini_available())
        skip();
    char *root = scratch_dir_new("rtops");
    char path[4200];
    write_ini(root, "ok.ini", "Prov", "");
    write_ini(root, "warn.ini", "Prov", "   ");
    write_ini(root, "bad.ini", NULL, "");
    struct rt_provider_spec spec;
    struct rt_diags d = {0};
    const struct rt_ini_load_options strict = {NULL, NULL, 1};

    snprintf(path, sizeof path, "%s/ok.ini", root);
    assert_int_equal(rt_op_load_ini(path, &strict, &spec, &d), RT_INI_LOADED);
    assert_string_equal(spec.drivername, "Prov");
    assert_int_equal(d.n, 0);
    rt_provider_spec_free(&spec);

    snprintf(path, sizeof path, "%s/warn.ini", root);
    assert_int_equal(rt_op_load_ini(path, NULL, &spec, &d), RT_INI_LOADED);
    assert_int_equal(d.warnings, 1);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    d = (struct rt_diags){0};
    assert_int_equal(rt_op_load_ini(path, &strict, &spec, &d),
                     RT_INI_REFUSED_STRICT);
    assert_int_equal(d.warnings, 1);
    assert_null(spec.drivername);
    assert_null(spec.symbols);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    d = (struct rt_diags){0};

    snprintf(path, sizeof path, "%s/bad.ini", root);
    assert_int_equal(rt_op_load_ini(path, NULL, &spec, &d), RT_INI_INVALID);
    assert_true(d.errors > 0);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    d = (struct rt_diags){0};

    snprintf(path, sizeof path, "%s/missing.ini", root);
    assert_int_equal(rt_op_load_ini(path, NULL, &spec, &d),
                     RT_INI_UNREADABLE);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    d = (struct rt_diags){0};

    /* install's load: the files its INF copy holds read with it, the
     * bytes validated; none read for an INI refused. */
    struct rt_inf_files inf;
    struct rt_error e = {0};
    snprintf(path, sizeof path, "%s/ok.ini", root);
    assert_int_equal(rt_op_load_provider(path, &strict, &spec, &inf, &d, &e),
                     RT_INI_LOADED);
    uint8_t *bytes;
    size_t len;
    assert_int_equal(rt_os_read_file(path, &bytes, &len), 0);
    assert_int_equal(inf.ini_len, len);
    assert_memory_equal(inf.ini, bytes, len);
    free(bytes);
    assert_string_equal(inf.sym_name, "s.h");
    assert_int_equal(inf.sym_len, strlen("#define OBJ 0\n"));
    rt_inf_files_free(&inf);
    rt_provider_spec_free(&spec);
    snprintf(path, sizeof path, "%s/warn.ini", root);
    assert_int_equal(rt_op_load_provider(path, &strict, &spec, &inf, &d, &e),
                     RT_INI_REFUSED_STRICT);
    assert_null(inf.ini);
    assert_null(inf.sym);
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

struct notes {
    size_t n;
    char path[4200], why[512];
};

static void keep_note(void *ctx, const struct rt_ini_note *n)
{
    struct notes *k = ctx;
    assert_int_equal(n->kind, RT_INI_NOTE_SKIPPED);
    snprintf(k->path, sizeof k->path, "%s", n->path);
    snprintf(k->why, sizeof k->why, "%s", n->why ? n->why : "");
    k->n++;
}

/* repair --from-ini's search: every loadable *.ini of the folder, one
 * that does not load told (with its first error) and left out; a folder
 * that cannot be read refused, naming it. */
static void inis_found(void **state)
{
    (void)state;
    /* A build without inih (the Windows one unless INIH= is given)
     * reads no INI: regtool says so (ini_unavailable.c). */
    if (!rt_ini_available())
        skip();
    char *root = scratch_dir_new("rtops");
    char path[4200];
    write_ini(root, "a.INI", "A", "");
    write_ini(root, "b.ini", NULL, "");
    write_ini(root, "c.txt", "C", "");
    struct rt_store *s = rt_store_mem_new();
    struct rt_ini_set set;
    struct rt_error e = {0};
    struct notes k = {0};
    assert_int_equal(rt_op_find_inis(s, root, keep_note, &k, &set, &e), 0);
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0]->drivername, "A");
    assert_int_equal(k.n, 1);
    assert_non_null(strstr(k.path, "/b.ini"));
    assert_non_null(strstr(k.why, "b.ini:"));
    assert_non_null(strstr(k.why, "error"));
    rt_ini_set_free(&set);

    snprintf(path, sizeof path, "%s/none", root);
    assert_int_equal(rt_op_find_inis(s, path, NULL, NULL, &set, &e), -2);
    assert_int_equal(set.n, 0);
    assert_int_equal(strncmp(e.message, path, strlen(path)), 0);
    rt_ini_set_free(&set);
    rt_op_close(s);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* A tree's store opened and its database read in one call (a tree keeps
 * side files, its hives given by name do not); a language
 * whose Help table file is gone is refused naming the file, the store
 * closed, and that is not a bad spec; a spec of no store is. */
static void database_opened(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char sys32[4096], wow[4096], cfg[4200], sw[4300], sy[4300], spec[8700];
    snprintf(sys32, sizeof sys32, "%s/Windows/System32", root);
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", root);
    snprintf(cfg, sizeof cfg, "%s/config", sys32);
    snprintf(sw, sizeof sw, "%s/SOFTWARE", cfg);
    snprintf(sy, sizeof sy, "%s/SYSTEM", cfg);
    assert_int_equal(rt_os_mkdirs(cfg), 0);
    assert_int_equal(rt_os_mkdirs(wow), 0);
    char *langs[] = {"009"};
    struct rt_init_tree t = {langs, 1, 1, {sys32, wow}, 0, 0, 0};
    struct rt_init_hives h;
    struct rt_error e = {0};
    assert_int_equal(rt_op_init_build(&t, &h, &e), 0);
    assert_int_equal(rt_op_init_save(&h, sw, sy, &e), 0);
    rt_op_init_free(&h);

    snprintf(spec, sizeof spec, "hive:%s", root);
    struct rt_db_load_options all = {RT_DB_TABLES_ALL, NULL, 1, 0, NULL};
    struct rt_database db;
    int bad_spec = 1;
    struct rt_store *s = rt_op_open_database(spec, NULL, 1, &all, &db, &e,
                                             &bad_spec);
    assert_non_null(s);
    assert_int_equal(bad_spec, 0);
    assert_int_equal(db.n_langs, 1);
    assert_true(db.langs[0].loaded);
    assert_int_equal(rt_op_keeps_side_files(s), 1);
    rt_database_free(&db);
    rt_op_close(s);
    /* Copies of its hives given by name, outside any tree: no Windows
     * directory, no side files. */
    char loose_sw[4200], loose_sy[4200];
    snprintf(loose_sw, sizeof loose_sw, "%s/SOFTWARE", root);
    snprintf(loose_sy, sizeof loose_sy, "%s/SYSTEM", root);
    const char *from[] = {sw, sy}, *to[] = {loose_sw, loose_sy};
    for (int i = 0; i < 2; i++) {
        uint8_t *data;
        size_t len;
        assert_int_equal(rt_os_read_file(from[i], &data, &len), 0);
        assert_int_equal(rt_os_write_new_file(to[i], data, len), 0);
        free(data);
    }
    snprintf(spec, sizeof spec, "hive:%s,%s", loose_sw, loose_sy);
    const regtool_open_options tables = {sys32, 0, 0, NULL};
    s = rt_op_open_store(spec, &tables, 1, &e, &bad_spec);
    assert_non_null(s);
    assert_int_equal(rt_op_keeps_side_files(s), 0);
    rt_op_close(s);
    snprintf(spec, sizeof spec, "hive:%s", root);

    char help[4200];
    snprintf(help, sizeof help, "%s/perfh009.dat", sys32);
    assert_int_equal(rt_os_unlink(help), 0);
    bad_spec = 1;
    assert_null(rt_op_open_database(spec, NULL, 1, &all, &db, &e, &bad_spec));
    assert_int_equal(bad_spec, 0);
    assert_non_null(strstr(e.message, "perfh009.dat is missing"));
    rt_database_free(&db);

    assert_null(rt_op_open_database("nothing:x", NULL, 1, &all, &db, &e,
                                    &bad_spec));
    assert_int_equal(bad_spec, 1);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* Language 009's two tables in S, as Windows stores them (UTF-16LE). */
static void put_tables(struct rt_store *s)
{
    struct rt_pair_list counter = {0}, help = {0};
    assert_int_equal(rt_pair_list_append(&counter, 1, "1847"), 0);
    assert_int_equal(rt_pair_list_append(&counter, 2, "System"), 0);
    assert_int_equal(rt_pair_list_append(&help, 3, "The system."), 0);
    const struct rt_pair_list *l[] = {&counter, &help};
    for (int k = 0; k < 2; k++) {
        uint8_t *blob;
        size_t len;
        assert_int_equal(rt_pair_list_encode(l[k], &blob, &len), 0);
        assert_int_equal(rt_store_mem_put_table(s, "009",
                                                k ? RT_TABLE_HELP
                                                  : RT_TABLE_COUNTER,
                                                blob, len), 0);
        free(blob);
    }
    rt_pair_list_free(&counter);
    rt_pair_list_free(&help);
}

/* The .reg backup saved whole: its bytes as the file (UTF-16LE with its
 * mark), the numbered rule's next free name; a file it may not replace
 * and a folder that is not there refused with the system's reason, no
 * temporary file left. */
static void reg_backup_saved(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    struct rt_store *s = rt_store_mem_new();
    put_tables(s);
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    char path[4200];
    snprintf(path, sizeof path, "%s/b.reg", root);
    size_t len = 0;
    uint64_t too_large = 0;
    char *used = NULL;
    int err = -1;
    assert_int_equal(rt_op_save_reg_backup(s, &db, path, RT_OS_SAVE_NUMBERED,
                                           &len, &too_large, &used, &err,
                                           &e), RT_REG_SAVE_OK);
    assert_string_equal(used, path);
    free(used);
    uint8_t *data;
    size_t got;
    assert_int_equal(rt_os_read_file(path, &data, &got), 0);
    assert_int_equal(got, len);
    assert_true(len > 2 && data[0] == 0xff && data[1] == 0xfe);
    free(data);
    assert_int_equal(rt_op_save_reg_backup(s, &db, path, RT_OS_SAVE_NUMBERED,
                                           &len, &too_large, &used, &err,
                                           &e), RT_REG_SAVE_OK);
    assert_non_null(strstr(used, "/b.reg_001"));
    free(used);

    assert_int_equal(rt_op_save_reg_backup(s, &db, path, RT_OS_SAVE_NEW,
                                           &len, &too_large, &used, &err,
                                           &e), RT_REG_SAVE_WRITE_FAILED);
    assert_int_equal(err, EEXIST);
    free(used);
    snprintf(path, sizeof path, "%s/none/b.reg", root);
    assert_int_equal(rt_op_save_reg_backup(s, &db, path, RT_OS_SAVE_REPLACE,
                                           &len, &too_large, &used, &err,
                                           &e), RT_REG_SAVE_WRITE_FAILED);
    assert_int_equal(err, ENOENT);
    free(used);
    char **names;
    size_t n;
    assert_int_equal(rt_os_list_dir(root, &names, &n), 0);
    assert_int_equal(n, 2);     /* b.reg, b.reg_001 */
    rt_os_free_list(names, n);
    rt_database_free(&db);
    rt_op_close(s);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* A .reg backup that an interrupt (Ctrl-C) reached before it was whole
 * is not saved: refused as a failed write, no file and no temporary one
 * left, so that the CLI says nothing was saved rather than that the
 * backup is complete. In a child process: the interrupt stays noted for
 * good. */
static void reg_backup_interrupted_leaves_nothing(void **state)
{
    (void)state;
#ifdef _WIN32
    skip(); /* no fork: the Windows build's interrupts are tested by hand */
#else
    char *root = scratch_dir_new("rtops");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct rt_store *s = rt_store_mem_new();
        put_tables(s);
        struct rt_database db;
        struct rt_error e = {0};
        int ok = rt_database_load(s, &db, &e) == 0;
        char path[4200];
        snprintf(path, sizeof path, "%s/b.reg", root);
        size_t len = 0;
        uint64_t too_large = 0;
        char *used = NULL;
        int err = 0;
        rt_os_catch_interrupts();
        rt_os_raise(RT_OS_SIGINT);
        ok = ok && rt_op_save_reg_backup(s, &db, path, RT_OS_SAVE_NEW, &len,
                                         &too_large, &used, &err, &e) ==
                       RT_REG_SAVE_WRITE_FAILED;
        free(used);
        rt_database_free(&db);
        rt_op_close(s);
        free(root);     /* the leak checker follows the child too */
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    char **names;
    size_t n;
    assert_int_equal(rt_os_list_dir(root, &names, &n), 0);
    assert_int_equal(n, 0);
    rt_os_free_list(names, n);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
#endif
}

struct lost_seen {
    size_t n;
    char line[200];
};

static void keep_lost(void *ctx, const char *lang, enum rt_table_kind table,
                      uint32_t index, const char *text)
{
    struct lost_seen *k = ctx;
    snprintf(k->line, sizeof k->line, "%s %s %u %s", lang,
             table == RT_TABLE_HELP ? "Help" : "Counter", index, text);
    k->n++;
}

/* The strings a change set loses: a text replaced at its index is not
 * lost, an index left with none is; counted alike with and without the
 * list, each told with its language and table. */
static void strings_lost_counted(void **state)
{
    (void)state;
    struct rt_change_set cs = {0};
    struct rt_pair_list added = {0}, removed = {0};
    assert_int_equal(rt_pair_list_append(&added, 2000, "New A"), 0);
    assert_int_equal(rt_pair_list_append(&removed, 2000, "Old A"), 0);
    assert_int_equal(rt_pair_list_append(&removed, 2100, "Orphan"), 0);
    static const uint8_t blob[] = "2000\000New A\000";
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER, blob,
                                         sizeof blob, &added, &removed), 0);
    assert_int_equal(rt_op_strings_lost(&cs, NULL, NULL), 1);
    struct lost_seen k = {0};
    assert_int_equal(rt_op_strings_lost(&cs, keep_lost, &k), 1);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.line, "009 Counter 2100 Orphan");
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    rt_change_set_free(&cs);
}

/* Whether F has a finding ID. */
static int has_finding(const struct rt_findings *f, const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id))
            return 1;
    return 0;
}

/* audit of stores by their specs: one that cannot be opened is a
 * finding, with no layout; a PerfStringBackup file audited for who gets
 * loaded says it holds no libraries, and its tables are audited
 * otherwise. */
static void audit_by_spec(void **state)
{
    (void)state;
    struct rt_audit_options opt = {0};
    struct rt_findings f = {0};
    char *layout = (char *)"";
    assert_int_equal(rt_op_audit_spec("nothing:x", NULL, 1, &opt, 0, &layout,
                                      &f), 0);
    assert_null(layout);
    assert_int_equal(f.n, 1);
    assert_string_equal(rt_finding_id(&f.v[0]), "store-unreadable");
    assert_non_null(strstr(message_of(&f.v[0]), "unknown store 'nothing:x'"));
    rt_findings_free(&f);

    char *root = scratch_dir_new("rtops");
    struct rt_store *s = rt_store_mem_new();
    put_tables(s);
    struct rt_database db;
    struct rt_error e = {0};
    assert_int_equal(rt_database_load(s, &db, &e), 0);
    char path[4200], spec[4300];
    snprintf(path, sizeof path, "%s/b.ini", root);
    struct rt_backup_stats st;
    char *used = NULL;
    int err;
    assert_int_equal(rt_op_save_backup(s, &db, path, RT_OS_SAVE_NEW, 0, NULL,
                                       NULL, &st, &used, &err, &e), 0);
    free(used);
    rt_database_free(&db);
    rt_op_close(s);

    snprintf(spec, sizeof spec, "psb:%s", path);
    memset(&f, 0, sizeof f);
    assert_int_equal(rt_op_audit_spec(spec, NULL, 1, &opt, 1, &layout, &f),
                     0);
    assert_non_null(layout);
    free(layout);
    assert_int_equal(f.n, 1);
    assert_string_equal(rt_finding_id(&f.v[0]), "libraries-not-in-store");
    rt_findings_free(&f);
    memset(&f, 0, sizeof f);
    assert_int_equal(rt_op_audit_spec(spec, NULL, 1, &opt, 0, &layout, &f),
                     0);
    free(layout);
    assert_false(has_finding(&f, "libraries-not-in-store"));
    assert_true(f.n > 0);
    rt_findings_free(&f);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* The gauges audit --format prometheus writes: Perflib's values as
 * stored (Windows' base where absent), the highest index of each table
 * kind, the services with a Performance key, and the names of those
 * whose Disable Performance Counters is not 0 (0 is enabled, and a
 * service without a Performance key is no provider); an empty store's
 * database reads, its highest indices 0. */
static void name_db_gauges_read(void **state)
{
    (void)state;
    struct rt_store *s = rt_store_mem_new();
    struct rt_name_db_gauges g;
    struct rt_error e = {0};
    put_tables(s);
    uint8_t lc[4] = {0x00, 0x08, 0, 0};        /* 2048 */
    struct rt_value v = {RT_REG_DWORD, lc, 4};
    assert_int_equal(rt_store_mem_put_perflib(s, "Last Counter", &v), 0);
    uint8_t on[4] = {1, 0, 0, 0}, off[4] = {0, 0, 0, 0};
    struct rt_value dis = {RT_REG_DWORD, on, 4}, en = {RT_REG_DWORD, off, 4};
    assert_int_equal(rt_store_mem_put_service(s, "Off", 1), 0);
    assert_int_equal(rt_store_mem_put_service_value(
                         s, "Off", "Disable Performance Counters", &dis), 0);
    assert_int_equal(rt_store_mem_put_service(s, "On", 1), 0);
    assert_int_equal(rt_store_mem_put_service_value(
                         s, "On", "Disable Performance Counters", &en), 0);
    assert_int_equal(rt_store_mem_put_service(s, "NoPerf", 0), 0);
    assert_int_equal(rt_op_name_db_gauges(s, &g, &e), 0);
    assert_true(g.read);
    assert_int_equal(g.last_counter, 2048);
    assert_int_equal(g.last_help, RT_BASE_LAST_HELP);
    assert_int_equal(g.base_index, RT_BASE_INDEX);
    assert_int_equal(g.highest[RT_TABLE_COUNTER], 2);
    assert_int_equal(g.highest[RT_TABLE_HELP], 3);
    assert_int_equal(g.providers, 2);
    assert_int_equal(g.n_disabled, 1);
    assert_string_equal(g.disabled[0], "Off");
    rt_name_db_gauges_free(&g);
    assert_false(g.read);
    assert_null(g.disabled);
    rt_op_close(s);

    s = rt_store_mem_new();
    assert_int_equal(rt_op_name_db_gauges(s, &g, &e), 0);
    assert_true(g.read);
    assert_int_equal(g.highest[RT_TABLE_COUNTER], 0);
    assert_int_equal(g.providers, 0);
    rt_name_db_gauges_free(&g);
    rt_op_close(s);
}

/* repair --from-ini's search in a tree's INF copies (INF\\SERVICE\\LLLL\\
 * PerfIniFile): the copy found; then, the language directory holding
 * no such INI, memory running out at each allocation of the search in
 * turn: never a crash or a leak, a failure never without a word; and
 * the same with the copy there, read and loaded. */
#ifdef HAVE_ALLOC_HOOK
/* rt_op_find_inis's notes: the INIs that did not load, counted. */
static void count_skipped(void *ctx, const struct rt_ini_note *n)
{
    if (n->kind == RT_INI_NOTE_SKIPPED)
        ++*(size_t *)ctx;
}

static void inf_copies_found_or_out_of_memory(void **state)
{
    (void)state;
    if (!rt_ini_available())
        skip();
    char *root = scratch_dir_new("rtops");
    char sys32[4096], wow[4096], cfg[4200], sw[4300], sy[4300], spec[4200];
    char inf[4200], none[4200];
    snprintf(sys32, sizeof sys32, "%s/Windows/System32", root);
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", root);
    snprintf(cfg, sizeof cfg, "%s/config", sys32);
    snprintf(sw, sizeof sw, "%s/SOFTWARE", cfg);
    snprintf(sy, sizeof sy, "%s/SYSTEM", cfg);
    snprintf(inf, sizeof inf, "%s/Windows/INF/Svc/0009", root);
    snprintf(none, sizeof none, "%s/none", root);
    assert_int_equal(rt_os_mkdirs(cfg), 0);
    assert_int_equal(rt_os_mkdirs(wow), 0);
    assert_int_equal(rt_os_mkdirs(inf), 0);
    assert_int_equal(rt_os_mkdirs(none), 0);
    char *langs[] = {"009"};
    struct rt_init_tree t = {langs, 1, 1, {sys32, wow}, 0, 0, 0};
    struct rt_init_hives h;
    struct rt_error e = {0};
    assert_int_equal(rt_op_init_build(&t, &h, &e), 0);
    assert_int_equal(rt_op_init_save(&h, sw, sy, &e), 0);
    rt_op_init_free(&h);
    write_ini(inf, "svc.ini", "Svc", "");

    snprintf(spec, sizeof spec, "hive:%s", root);
    int bad_spec = 1;
    struct rt_store *s = rt_op_open_store(spec, NULL, 0, &e, &bad_spec);
    assert_non_null(s);
    struct rt_change_set cs = {0};
    struct rt_value v;
    assert_int_equal(rt_change_set_create_perf_key(&cs, "Svc"), 0);
    assert_int_equal(rt_value_from_string(&v, RT_REG_SZ, "svc.ini"), 0);
    assert_int_equal(rt_change_set_service(&cs, "Svc", "PerfIniFile", &v), 0);
    rt_value_free(&v);
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (rt_op_apply(s, &cs, &e) != 0)
        fail_msg("apply refused: %s", e.message);
    s->ops->end(s);
    rt_change_set_free(&cs);

    struct rt_ini_set set;
    alloc_calls = 0;
    assert_int_equal(rt_op_find_inis(s, none, NULL, NULL, &set, &e), 0);
    unsigned long calls = alloc_calls;
    assert_int_equal(set.n, 1);
    assert_string_equal(set.v[0]->drivername, "Svc");
    rt_ini_set_free(&set);
    /* The copy read, memory running out at each allocation of the search
     * and the load in turn: the search finds the copy or says it ran out
     * of memory; an INI that ran out of memory loading is never skipped
     * as one that does not load. */
    for (unsigned long k = 1; k <= calls; k++) {
        struct rt_error ek = {0};
        size_t skipped = 0;
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_op_find_inis(s, none, count_skipped, &skipped, &set, &ek);
        alloc_fail_at = 0;
        int found = r == 0 && set.n == 1 && !skipped &&
                    !strcmp(set.v[0]->drivername, "Svc");
        rt_ini_set_free(&set);
        if (!found && !(r == -1 && ek.code == RT_ERR_NOT_ENOUGH_MEMORY))
            fail_msg("allocation %lu of %lu failed: the search returned %d "
                     "(%s), %zu INIs skipped", k, calls, r, ek.message,
                     skipped);
    }
    char ini[4300];
    snprintf(ini, sizeof ini, "%s/svc.ini", inf);
    assert_int_equal(rt_os_unlink(ini), 0);
    alloc_calls = 0;
    assert_int_equal(rt_op_find_inis(s, none, NULL, NULL, &set, &e), 0);
    calls = alloc_calls;
    assert_int_equal(set.n, 0);
    rt_ini_set_free(&set);
    for (unsigned long k = 1; k <= calls; k++) {
        struct rt_error ek = {0};
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_op_find_inis(s, none, NULL, NULL, &set, &ek);
        alloc_fail_at = 0;
        if (r != 0 && !ek.message[0])
            fail_msg("allocation %lu of %lu failed, and the search failed "
                     "without a word", k, calls);
        if (set.n)
            fail_msg("allocation %lu of %lu failed, and the search found %zu "
                     "INIs", k, calls, set.n);
        rt_ini_set_free(&set);
    }
    /* The INF copy is a folder now: the search reaches it and says it did
     * not load. Whatever allocation before the copy is read fails (the
     * search without the copy made those), the search either says it ran out
     * of memory or reached the copy: running out of memory is never
     * taken for a folder, a service's PerfIniFile or an INF copy that is
     * not there (a search that finds less without a word). */
    const unsigned long before_the_copy = calls;
    assert_int_equal(rt_os_mkdirs(ini), 0);
    size_t skipped = 0;
    assert_int_equal(rt_op_find_inis(s, none, count_skipped, &skipped, &set,
                                     &e), 0);
    assert_int_equal(skipped, 1);
    rt_ini_set_free(&set);
    for (unsigned long k = 1; k <= before_the_copy; k++) {
        struct rt_error ek = {0};
        skipped = 0;
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_op_find_inis(s, none, count_skipped, &skipped, &set, &ek);
        alloc_fail_at = 0;
        rt_ini_set_free(&set);
        if (r == -1 && strstr(ek.message, "out of memory"))
            continue;
        if (r != 0 || skipped != 1)
            fail_msg("allocation %lu of %lu failed: the search returned %d "
                     "(%s), the INF copy reached %zu times", k,
                     before_the_copy, r, ek.message, skipped);
    }
    rt_op_close(s);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* A file whose size is over the cap is refused by its size, before a byte
 * is read or a buffer taken for it (a 2 GB hive, a 100 MB INI cost
 * nothing to refuse): no allocation, so memory running out changes
 * nothing. */
static void file_over_the_cap_refused_by_its_size(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtcap");
    char path[4200];
    snprintf(path, sizeof path, "%s/big.ini", root);
    static uint8_t bytes[10000];
    memset(bytes, 'x', sizeof bytes);
    assert_int_equal(rt_os_replace_file(path, bytes, sizeof bytes, 0644), 0);
    uint8_t *data = NULL;
    size_t len = 0;
    alloc_calls = 0;
    errno = 0;
    assert_int_equal(rt_os_read_file_max(path, 5000, &data, &len), -2);
    assert_int_equal(errno, EFBIG);
    assert_int_equal(alloc_calls, 0);
    alloc_calls = 0;
    alloc_fail_at = 1;
    errno = 0;
    int r = rt_os_read_file_max(path, 5000, &data, &len);
    int err = errno;
    alloc_fail_at = 0;
    assert_int_equal(r, -2);
    assert_int_equal(err, EFBIG);
    assert_null(data);
    /* At the cap, read whole. */
    assert_int_equal(rt_os_read_file_max(path, sizeof bytes, &data, &len), 0);
    assert_int_equal(len, sizeof bytes);
    free(data);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}

/* hive check of a hive named without a folder (the current one), a
 * journal beside it, whichever allocation fails: the check either says
 * it ran out of memory or reports the journal (or, out of memory for its
 * name, not); it never looks it up by a name it has not made. */
static void hive_check_journal_here_out_of_memory(void **state)
{
    (void)state;
    char *root = scratch_dir_new("rtops");
    char path[4200], journal[4200], cwd[4200];
    write_hive(root, "HIVE", path, sizeof path);
    snprintf(journal, sizeof journal, "%s/regtool.journal", root);
    assert_int_equal(rt_os_write_new_file(journal, "RTJOURN2", 8), 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(root), 0);
    struct rt_op_hive_check c;
    alloc_calls = 0;
    assert_int_equal(rt_op_hive_check("HIVE", &c), 0);
    unsigned long calls = alloc_calls;
    assert_true(c.journal_pending);
    assert_int_equal(c.journal_bytes, 8);
    rt_op_hive_check_free(&c);
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_op_hive_check("HIVE", &c);
        alloc_fail_at = 0;
        if (r != 0 && !strstr(c.error, "out of memory"))
            fail_msg("allocation %lu of %lu failed: %s", k, calls, c.error);
        if (c.journal_pending && c.journal_bytes != 8)
            fail_msg("allocation %lu of %lu failed: a journal of %lld bytes",
                     k, calls, (long long)c.journal_bytes);
        rt_op_hive_check_free(&c);
    }
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(scratch_remove(root), 0);
    free(root);
}
#else
static void inf_copies_found_or_out_of_memory(void **state)
{
    (void)state;
    skip();
}

static void hive_check_journal_here_out_of_memory(void **state)
{
    (void)state;
    skip();
}

static void file_over_the_cap_refused_by_its_size(void **state)
{
    (void)state;
    skip();
}
#endif

/* A store that loses what it is given: apply says it wrote, the tables
 * stay as they were. */
static int apply_loses_writes(struct rt_store *s,
                              const struct rt_change_set *cs,
                              struct rt_error *e)
{
    (void)s;
    (void)cs;
    (void)e;
    return 0;
}

/* A table written is read back before the operation says it succeeded:
 * a store that did not write what it was given (a full disk, a broken
 * driver) is an error naming the table, not a silent success. */
static void apply_verifies_tables_read_back(void **state)
{
    (void)state;
    /* "1" "A", then with "2" "B": UTF-16LE, each string's NUL unit, the
     * list's. */
    static const uint8_t before[] = {'1', 0, 0, 0, 'A', 0, 0, 0, 0, 0};
    static const uint8_t after[] = {'1', 0, 0, 0, 'A', 0, 0, 0, '2', 0,
                                    0,   0, 'B', 0, 0, 0, 0, 0};
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            before, sizeof before), 0);
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_table_replace(
                         &cs, "009", RT_TABLE_COUNTER, after, sizeof after, 1,
                         sizeof before, rt_blob_hash(before, sizeof before),
                         NULL, NULL), 0);
    struct rt_error e = {0};
    /* The store as it is: written, read back, accepted. */
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (rt_op_apply(s, &cs, &e) != 0)
        fail_msg("apply refused: %s", e.message);
    s->ops->end(s);
    /* Back to BEFORE, then through a store that loses the write. */
    rt_change_set_free(&cs);
    memset(&cs, 0, sizeof cs);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            before, sizeof before), 0);
    assert_int_equal(rt_change_set_table_replace(
                         &cs, "009", RT_TABLE_COUNTER, after, sizeof after, 1,
                         sizeof before, rt_blob_hash(before, sizeof before),
                         NULL, NULL), 0);
    struct rt_store_ops lossy = *s->ops;
    const struct rt_store_ops *real = s->ops;
    lossy.apply = apply_loses_writes;
    s->ops = &lossy;
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(rt_op_apply(s, &cs, &e), -1);
    s->ops->end(s);
    assert_int_equal(e.code, RT_ERR_WRITE_FAULT);
    assert_non_null(strstr(e.message, "Perflib\\009\\Counter does not read "
                                      "back as written"));
    s->ops = real;
    rt_change_set_free(&cs);
    rt_op_close(s);
}

struct lost_all {
    size_t n;
    int wrong;      /* a lost string told out of order or altered */
};

static void check_lost(void *ctx, const char *lang, enum rt_table_kind table,
                       uint32_t index, const char *text)
{
    struct lost_all *k = ctx;
    char want[32];
    snprintf(want, sizeof want, "Orphan %zu", k->n);
    if (strcmp(lang, "009") || table != RT_TABLE_HELP ||
        index != 3001 + 2 * k->n || strcmp(text, want))
        k->wrong++;
    k->n++;
}

/* Hundreds of strings lost at once (a rebuild dropping a whole provider's
 * help): every one is told, in the table's order, with its own text. */
static void many_strings_lost_all_told(void **state)
{
    (void)state;
    enum { LOST = 500 };
    struct rt_change_set cs = {0};
    struct rt_pair_list added = {0}, removed = {0};
    for (size_t i = 0; i < LOST; i++) {
        char text[32];
        snprintf(text, sizeof text, "Orphan %zu", i);
        assert_int_equal(rt_pair_list_append(&removed, (uint32_t)(3001 + 2 * i),
                                             text), 0);
    }
    static const uint8_t blob[2] = {0, 0};     /* the empty table */
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_HELP, blob,
                                         sizeof blob, &added, &removed),
                     0);
    assert_int_equal(rt_op_strings_lost(&cs, NULL, NULL), LOST);
    struct lost_all k = {0};
    assert_int_equal(rt_op_strings_lost(&cs, check_lost, &k), LOST);
    assert_int_equal(k.n, LOST);
    assert_int_equal(k.wrong, 0);
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    rt_change_set_free(&cs);
}

/* --dry-run's pairs fold at spaces to fit 79 columns, the next line
 * under the text's first character: "      + 1234 " and a 66-column text
 * make a line of 79 exactly, one character more folds at the space, and
 * a word longer than a line stays whole on its own. */
static void dry_run_pairs_fold_at_79_columns(void **state)
{
    (void)state;
    char fits[100], over[120], words[200];
    snprintf(fits, sizeof fits, "%.30s %.35s",
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
             "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy");
    snprintf(over, sizeof over, "%s%s", fits, "y");
    memset(words, 'z', 100);
    snprintf(words + 100, sizeof words - 100, " %s", "end");
    struct rt_pair_list added = {0}, removed = {0};
    assert_int_equal(rt_pair_list_append(&added, 1234, fits), 0);
    assert_int_equal(rt_pair_list_append(&added, 1236, over), 0);
    assert_int_equal(rt_pair_list_append(&added, 1238, words), 0);
    struct rt_change_set cs = {0};
    static const uint8_t blob[2] = {0, 0};
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER, blob,
                                         sizeof blob, &added, &removed),
                     0);
    char *text = rt_op_change_set_text(&cs);
    assert_non_null(text);
    char want[600];
    snprintf(want, sizeof want,
             "      + 1234 %s\n"
             "      + 1236 %.30s\n"
             "             %.36s\n"
             "      + 1238 %.100s\n"
             "             end\n",
             fits, over, over + 31, words);
    const char *at = strstr(text, "      + 1234 ");
    assert_non_null(at);
    assert_string_equal(at, want);
    assert_int_equal(strlen("      + 1234 ") + strlen(fits), 79);
    free(text);
    rt_pair_list_free(&added);
    rt_pair_list_free(&removed);
    rt_change_set_free(&cs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(store_queries_typed),
        cmocka_unit_test(verify_refuses_offline_store),
        cmocka_unit_test(verify_reads_the_answered_data),
        cmocka_unit_test(init_tree_layouts),
        cmocka_unit_test(store_specs_parsed),
        cmocka_unit_test(backup_file_read),
        cmocka_unit_test(reg_backup_text_capped),
        cmocka_unit_test(reg_patch_counts),
        cmocka_unit_test(patch_follows_the_commit_point),
        cmocka_unit_test(audit_scope),
        cmocka_unit_test(journal_found_is_a_finding_of_its_severity),
        cmocka_unit_test(hive_check_findings),
        cmocka_unit_test(hive_recover_outcomes),
        cmocka_unit_test(perfstats_read_audit),
        cmocka_unit_test(perfstats_remove_server),
        cmocka_unit_test(ini_loaded),
        cmocka_unit_test(inis_found),
        cmocka_unit_test(database_opened),
        cmocka_unit_test(reg_backup_saved),
        cmocka_unit_test(reg_backup_interrupted_leaves_nothing),
        cmocka_unit_test(strings_lost_counted),
        cmocka_unit_test(many_strings_lost_all_told),
        cmocka_unit_test(audit_by_spec),
        cmocka_unit_test(name_db_gauges_read),
        cmocka_unit_test(apply_verifies_tables_read_back),
        cmocka_unit_test(inf_copies_found_or_out_of_memory),
        cmocka_unit_test(hive_check_journal_here_out_of_memory),
        cmocka_unit_test(file_over_the_cap_refused_by_its_size),
        cmocka_unit_test(dry_run_pairs_fold_at_79_columns),
    };
    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
