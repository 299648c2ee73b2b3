/* The operations layer's queries (ops/ops.h) on the in-memory store: the
 * layout as a type (no store but a hive tree's .dat layout keeps tables
 * in files; tests/test_store_hive.c checks both of its layouts), a
 * service's string value, and verify refusing an offline store with the
 * CLI's message before it reads anything; the tree init and the
 * benchmarks build (rt_op_init_build): its files per layout, the tables
 * as installed only when asked, help texts cut, an existing file refused
 * by name; the store specs parsed; a backup file read for restore; the
 * .reg backup's size cap; --emit-reg's counts; audit's scope; hive check
 * and hive recover on one hive file; perfstats on a .reg export. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ops/hive_files.h"
#include "ops/ops.h"
#include "ops/perfstats_reg.h"
#include "platform/os.h"
#include "regf/base_block.h"
#include "regf/regf.h"
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

    static const char bad[] = "[Perflib]\r\nBase Index=1847\r\nnot a "
                              "key line\r\n";
    snprintf(path, sizeof path, "%s/bad.ini", root);
    assert_int_equal(rt_os_write_new_file(path, bad, sizeof bad - 1), 0);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e),
                     RT_BACKUP_READ_MALFORMED);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_true(f.with_line);
    assert_true(f.line >= 1);
    rt_backup_file_free(&f);

    static const char reg[] =
        "REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\X]\r\n"
        "\"A\"=\"b\"\r\n";
    snprintf(path, sizeof path, "%s/b.reg", root);
    assert_int_equal(rt_os_write_new_file(path, reg, sizeof reg - 1), 0);
    assert_int_equal(rt_op_read_backup_file(path, &f, &e), RT_BACKUP_READ_OK);
    assert_int_equal(f.kind, RT_BACKUP_FILE_REG);
    assert_int_equal(f.reg.n_keys, 1);
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
    struct rt_reg_value big = {"Counter", 0,
                               {RT_REG_MULTI_SZ, NULL,
                                (size_t)(RT_REG_FILE_MAX / 6) + 1}, 0};
    struct rt_reg_key k = {"HKEY_LOCAL_MACHINE\\SOFTWARE\\X", 0, &big, 1, 0};
    struct rt_reg_file f = {RT_REG_V5_UTF16, &k, 1};
    uint8_t *data = (uint8_t *)"";
    size_t len = 1;
    uint64_t too_large = 0;
    struct rt_error e = {0};
    assert_int_equal(rt_op_reg_backup_text(&f, &data, &len, &too_large, &e),
                     1);
    assert_int_equal(too_large, 6 * ((RT_REG_FILE_MAX / 6) + 1));
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
 * it is truncated, its header still read. */
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
        if (strcmp(p.findings[i].id, "stat-no-name"))
            continue;
        seen_no_name = 1;
        assert_true(p.findings[i].error);
        assert_int_equal(p.findings[i].line, 11);
        assert_string_equal(p.findings[i].stat, "Threads");
    }
    assert_true(seen_no_name);
    rt_op_perfstats_free(&p);

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(store_queries_typed),
        cmocka_unit_test(verify_refuses_offline_store),
        cmocka_unit_test(init_tree_layouts),
        cmocka_unit_test(store_specs_parsed),
        cmocka_unit_test(backup_file_read),
        cmocka_unit_test(reg_backup_text_capped),
        cmocka_unit_test(reg_patch_counts),
        cmocka_unit_test(audit_scope),
        cmocka_unit_test(hive_check_findings),
        cmocka_unit_test(hive_recover_outcomes),
        cmocka_unit_test(perfstats_read_audit),
        cmocka_unit_test(perfstats_remove_server),
    };
    return cmocka_run_group_tests_name("ops", tests, NULL, NULL);
}
