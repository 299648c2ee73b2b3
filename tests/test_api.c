/* The public API (lib/regtool.h) on the in-memory store: install, query,
 * uninstall, audit, backup and restore, their error codes, the messages
 * the CLI prints and the report lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#ifndef _WIN32
#include <unistd.h>
#endif

#include <stdlib.h>
#include <string.h>
#include <uchar.h>

#include "api/api.h"
#include "model/perf_backup.h"
#include "model/strbuf.h"
#include "platform/os.h"
#include "store/store.h"
#include "scratch.h"

#define INI "ini-samples/transfer.ini"

static const char16_t counter_009[] =
    u"1\0" "1847\0" "2\0System\0" "4\0Memory\0" "1846\0End Marker\0";
static const char16_t help_009[] =
    u"3\0System help.\0" "5\0Memory help.\0" "1847\0End Marker\0";

/* Every line reported, as "KIND|LINE\n". */
static struct rt_strbuf lines;

static void collect(void *ctx, int kind, const char *line)
{
    assert_ptr_equal(ctx, &lines);
    assert_null(strchr(line, '\n'));
    rt_strbuf_printf(&lines, "%d|%s\n", kind, line);
}

static int reported(int kind, const char *text)
{
    struct rt_strbuf want = {0};
    rt_strbuf_printf(&want, "%d|%s\n", kind, text);
    assert_false(want.failed);
    int found = lines.s && strstr(lines.s, want.s) != NULL;
    rt_strbuf_free(&want);
    return found;
}

static void put_dword(struct rt_store *s, const char *name, uint32_t x)
{
    struct rt_value v;
    assert_int_equal(rt_value_from_dword(&v, x), 0);
    assert_int_equal(rt_store_mem_put_perflib(s, name, &v), 0);
    rt_value_free(&v);
}

/* The store under the handle base() last made. */
static struct rt_store *base_store;

/* English base tables and Perflib's values; no provider. */
static regtool *base(const char16_t *counter, size_t clen)
{
    struct rt_store *s = rt_store_mem_new();
    assert_non_null(s);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_COUNTER,
                                            (const uint8_t *)counter, clen),
                     0);
    assert_int_equal(rt_store_mem_put_table(s, "009", RT_TABLE_HELP,
                                            (const uint8_t *)help_009,
                                            sizeof help_009),
                     0);
    put_dword(s, "Last Counter", 1846);
    put_dword(s, "Last Help", 1847);
    put_dword(s, "Base Index", 1847);
    regtool *rt = rt_api_wrap_store(s);
    assert_non_null(rt);
    base_store = s;
    rt_strbuf_free(&lines);
    regtool_set_output(rt, collect, &lines);
    return rt;
}

/* Whether the store's INF copy of the sample INI is there, holding the
 * INI's bytes (the mem store keeps side files as Windows does). */
static int inf_copy_present(void)
{
    struct rt_value v = {0};
    struct rt_error e = {0};
    int present = 0;
    assert_int_equal(base_store->ops->read_win_file(
                         base_store, "INF/TransferPerf/0009/transfer.ini", &v,
                         &present, &e),
                     0);
    if (present) {
        uint8_t *ini;
        size_t len;
        assert_int_equal(rt_os_read_file(INI, &ini, &len), 0);
        assert_int_equal(v.len, len);
        assert_memory_equal(v.data, ini, len);
        free(ini);
    }
    rt_value_free(&v);
    return present;
}

static const regtool_install_options with_service = {
    0, 0, NULL, 1, "C:\\transferperf.dll", "OpenTransfer", "CollectTransfer",
    "CloseTransfer", 0};

static void install_query_uninstall(void **state)
{
    (void)state;
    regtool *rt = base(counter_009, sizeof counter_009);
    regtool_error err;
    regtool_ranges r = {0, 0, 0, 0}, q;

    regtool_install_options dry = with_service;
    dry.dry_run = 1;
    assert_int_equal(regtool_install(rt, INI, &dry, &r, &err), 0);
    assert_true(reported(REGTOOL_LINE_REPORT, "would install TransferPerf: "
                                              "names 1848-1860, help 1849-1861"));
    assert_true(reported(REGTOOL_LINE_REPORT,
                         "  create key Services\\TransferPerf\\Performance"));
    assert_int_equal(r.first_counter, 1848);
    /* The dry run wrote nothing. */
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_int_equal(err.code, REGTOOL_ERR_FILE_NOT_FOUND);
    assert_string_equal(err.message, "no service 'TransferPerf' with a "
                                     "Performance key");

    /* Without a service key the provider is refused, as by lodctr. */
    assert_int_equal(regtool_install(rt, INI, NULL, NULL, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_true(strncmp(err.message, "install " INI ": ", 9 + strlen(INI)) == 0);

    assert_int_equal(regtool_install(rt, INI, &with_service, &r, &err), 0);
    assert_int_equal(err.code, 0);
    assert_string_equal(err.message, "");
    assert_true(reported(REGTOOL_LINE_REPORT, "installed TransferPerf: names "
                                              "1848-1860, help 1849-1861"));
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err), 0);
    assert_memory_equal(&q, &r, sizeof q);
    assert_int_equal(q.last_help, 1861);
    /* The same commit copied the INI where Windows' lodctr /R finds it. */
    assert_true(inf_copy_present());

    assert_int_equal(regtool_install(rt, INI, &with_service, NULL, &err),
                     REGTOOL_ERR_ALREADY_EXISTS);
    assert_int_equal(err.code, REGTOOL_ERR_ALREADY_EXISTS);

    regtool_ranges u;
    assert_int_equal(regtool_uninstall(rt, "TransferPerf", REGTOOL_DRY_RUN,
                                       &u, &err), 0);
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err), 0);
    assert_int_equal(regtool_uninstall(rt, "TransferPerf", 0, &u, &err), 0);
    assert_memory_equal(&u, &r, sizeof u);
    assert_true(reported(REGTOOL_LINE_REPORT,
                         "uninstalled TransferPerf: names 1848-1860, help "
                         "1849-1861 (7 names, 7 help texts in all languages)"));
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_false(inf_copy_present());
    assert_int_equal(regtool_uninstall(rt, "TransferPerf", 0, NULL, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_int_equal(regtool_uninstall(rt, "Nobody", 0, NULL, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_string_equal(err.message,
                        "uninstall Nobody: service 'Nobody' does not exist");
    regtool_close(rt);
    rt_strbuf_free(&lines);
}

/* A service name from the tree holding an ESC sequence, a BEL and a
 * newline: each report line and the error message hold its escaped form
 * (model/printable.h), one line each, with no raw control character. */
#define HOSTILE "Evil\x1b]0;pwned\x07\n0 errors"
#define HOSTILE_SHOWN "Evil\\x1b]0;pwned\\x07\\n0 errors"
static void hostile_names_are_reported_escaped(void **state)
{
    (void)state;
    regtool *rt = base(counter_009, sizeof counter_009);
    assert_int_equal(rt_store_mem_put_service(base_store, HOSTILE, 1), 0);
    static const char *const names[] = {"First Counter", "First Help",
                                        "Last Counter", "Last Help"};
    for (int i = 0; i < 4; i++) {
        struct rt_value v;
        assert_int_equal(rt_value_from_dword(&v, 1848 + (uint32_t)i), 0);
        assert_int_equal(rt_store_mem_put_service_value(base_store, HOSTILE,
                                                        names[i], &v), 0);
        rt_value_free(&v);
    }
    regtool_error err;
    assert_int_equal(regtool_uninstall(rt, HOSTILE, REGTOOL_DRY_RUN, NULL,
                                       &err), 0);
    assert_true(reported(REGTOOL_LINE_REPORT,
                         "would uninstall " HOSTILE_SHOWN ": names 1848-1850, "
                         "help 1849-1851 (0 names, 0 help texts in all "
                         "languages)"));
    assert_true(reported(REGTOOL_LINE_REPORT,
                         "  Services\\" HOSTILE_SHOWN
                         "\\Performance: delete First Counter"));
    assert_non_null(lines.s);
    assert_null(strpbrk(lines.s, "\x1b\x07"));
    assert_null(strstr(lines.s, "\n0 errors"));
    assert_int_equal(regtool_uninstall(rt, "No" HOSTILE, 0, NULL, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_string_equal(err.message, "uninstall No" HOSTILE_SHOWN
                                     ": service 'No" HOSTILE_SHOWN
                                     "' does not exist");
    regtool_close(rt);
    rt_strbuf_free(&lines);
}

static void unreadable_ini_is_reported_as_its_diagnostic(void **state)
{
    (void)state;
    regtool *rt = base(counter_009, sizeof counter_009);
    regtool_error err;
    int rc = regtool_install(rt, "ini-samples/no-such.ini", NULL, NULL, &err);
    assert_int_not_equal(rc, 0);
    assert_int_equal(err.code, rc);
    /* The first error is the message, and it was reported as a line. */
    assert_non_null(strstr(err.message, "no-such.ini"));
    assert_true(reported(REGTOOL_LINE_INI_ERROR, err.message));
    regtool_close(rt);
    rt_strbuf_free(&lines);
}

/* An INI Windows' lodctr loads, skipping a key whose symbol the symbol
 * file lacks: by default installed without that key, the skip reported as
 * an INI_WARNING line; with strict refused (INVALID_DATA), the warning
 * still reported, nothing written. */
#define SKIPPING_INI "ini-samples/skipped/undefined_offset.ini"
static void strict_refuses_what_lenient_installs_with_a_warning(void **state)
{
    (void)state;
    regtool *rt = base(counter_009, sizeof counter_009);
    regtool_error err;
    regtool_ranges r = {0, 0, 0, 0};
    static const char warning[] =
        SKIPPING_INI ":17: warning: MISSING_COUNTER is not defined in "
        "CounterOffsets.h; its keys are skipped, as lodctr skips them";

    regtool_install_options strict = with_service;
    strict.strict = 1;
    assert_int_equal(regtool_install(rt, SKIPPING_INI, &strict, &r, &err),
                     REGTOOL_ERR_INVALID_DATA);
    assert_int_equal(err.code, REGTOOL_ERR_INVALID_DATA);
    assert_string_equal(err.message, SKIPPING_INI ": 1 warning, refused as "
                                     "strict; nothing was written");
    assert_true(reported(REGTOOL_LINE_INI_WARNING, warning));
    assert_int_equal(r.first_counter, 0);
    assert_int_equal(regtool_query(rt, "BrokenSample", &r, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);

    rt_strbuf_free(&lines);
    assert_int_equal(regtool_install(rt, SKIPPING_INI, &with_service, &r,
                                     &err),
                     0);
    assert_string_equal(err.message, "");
    assert_true(reported(REGTOOL_LINE_INI_WARNING, warning));
    /* Two symbols (offsets 0 and 2) without the skipped one (4). */
    assert_true(reported(REGTOOL_LINE_REPORT, "installed BrokenSample: names "
                                              "1848-1850, help 1849-1851"));
    regtool_ranges q;
    assert_int_equal(regtool_query(rt, "BrokenSample", &q, &err), 0);
    assert_int_equal(q.first_counter, 1848);
    assert_int_equal(q.last_counter, 1850);
    regtool_close(rt);
    rt_strbuf_free(&lines);
}

static void audit_lists_findings(void **state)
{
    (void)state;
    regtool *rt = base(counter_009, sizeof counter_009);
    regtool_error err;
    regtool_findings *f = NULL;
    assert_int_equal(regtool_audit(rt, &f, &err), 0);
    for (size_t i = 0; i < regtool_findings_count(f); i++)
        assert_int_not_equal(regtool_finding_severity(f, i),
                             REGTOOL_SEVERITY_ERROR);
    size_t n = regtool_findings_count(f);
    assert_null(regtool_finding_id(f, n));
    assert_int_equal(regtool_finding_severity(f, n), -1);
    regtool_findings_free(f);
    regtool_close(rt);

    /* Two names for index 2 in 009. */
    static const char16_t dup[] = u"1\0" "1847\0" "2\0System\0" "2\0Other\0"
                                  "4\0Memory\0" "1846\0End Marker\0";
    rt = base(dup, sizeof dup);
    assert_int_equal(regtool_audit(rt, &f, &err), 0);
    assert_true(regtool_findings_count(f) > 0);
    /* Most severe first. */
    assert_int_equal(regtool_finding_severity(f, 0), REGTOOL_SEVERITY_ERROR);
    int found = 0;
    for (size_t i = 0; i < regtool_findings_count(f); i++)
        if (!strcmp(regtool_finding_id(f, i), "duplicate-index")) {
            found = 1;
            assert_string_equal(regtool_finding_language(f, i), "009");
            assert_non_null(regtool_finding_message(f, i));
        }
    assert_true(found);
    regtool_findings_free(f);
    regtool_close(rt);
    rt_strbuf_free(&lines);
}

static void backup_then_restore(void **state)
{
    (void)state;
    char *dir = scratch_dir_new("rtapi");
    char file[700];
    snprintf(file, sizeof file, "%s/perf.ini", dir);
    regtool *rt = base(counter_009, sizeof counter_009);
    regtool_error err;
    regtool_ranges q;

    assert_int_equal(regtool_backup(rt, file, 0, &err), 0);
    assert_int_equal(regtool_backup(rt, file, 0, &err),
                     REGTOOL_ERR_FILE_EXISTS);
    assert_int_equal(regtool_backup(rt, file, REGTOOL_FORCE, &err), 0);
    /* Written a language at a time, read back whole: a PerfStringBackup
     * file with Perflib's values and a section per language. */
    uint8_t *bytes;
    size_t n_bytes;
    struct rt_psb psb;
    struct rt_psb_error perr;
    assert_int_equal(rt_os_read_file(file, &bytes, &n_bytes), 0);
    assert_int_equal(rt_psb_parse(bytes, n_bytes, &psb, NULL, &perr), 0);
    assert_true(psb.has_perflib && psb.has_last_counter && psb.has_last_help);
    assert_true(psb.n_langs >= 1);
    assert_non_null(rt_psb_language_find(&psb, "009"));
    rt_psb_free(&psb);
    free(bytes);
    /* Where it cannot be written: an error, and nothing left. */
    char nodir[720];
    snprintf(nodir, sizeof nodir, "%s/no/such/dir.ini", dir);
    assert_int_not_equal(regtool_backup(rt, nodir, 0, &err), 0);
    assert_false(rt_os_exists(nodir));

    assert_int_equal(regtool_install(rt, INI, &with_service, NULL, &err), 0);
    assert_int_equal(regtool_restore(rt, file, REGTOOL_DRY_RUN, &err), 0);
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err), 0);
    /* The backup predates the provider: its range goes, as lodctr /R
     * removes a range the file has no section for. */
    assert_int_equal(regtool_restore(rt, file, 0, &err), 0);
    assert_int_equal(regtool_query(rt, "TransferPerf", &q, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);

    char missing[720];
    snprintf(missing, sizeof missing, "%s/none.ini", dir);
    assert_int_equal(regtool_restore(rt, missing, 0, &err),
                     REGTOOL_ERR_FILE_NOT_FOUND);
    assert_true(strncmp(err.message, "cannot read ", 12) == 0);
    /* Read as the CLI reads it: a .reg file is named as such, not taken
     * for a broken backup; a link as the file's name is not followed. */
    char reg[720];
    snprintf(reg, sizeof reg, "%s/perf.reg", dir);
    static const char reg_text[] = "Windows Registry Editor Version 5.00\r\n";
    assert_int_equal(rt_os_write_new_file(reg, reg_text,
                                          sizeof reg_text - 1), 0);
    assert_int_equal(regtool_restore(rt, reg, 0, &err),
                     REGTOOL_ERR_INVALID_DATA);
    assert_non_null(strstr(err.message, "is a .reg file"));
#ifndef _WIN32
    char link[720];
    snprintf(link, sizeof link, "%s/link.ini", dir);
    assert_int_equal(symlink(file, link), 0);
    assert_int_not_equal(regtool_restore(rt, link, 0, &err), 0);
    assert_non_null(strstr(err.message, "is a symbolic link"));
#endif
    regtool_close(rt);

    /* The same file restored on another machine (two of its base names
     * differ): refused without REGTOOL_FORCE, naming how many differ,
     * nothing written; restored with it, said in a warning line. */
    static const char16_t other_009[] = u"1\0" "1847\0" "2\0Sistema\0"
                                        "4\0Memoria\0" "1846\0End Marker\0";
    rt = base(other_009, sizeof other_009);
    char *before = rt_store_mem_dump(base_store);
    assert_int_equal(regtool_restore(rt, file, 0, &err),
                     REGTOOL_ERR_ALREADY_EXISTS);
    if (!strstr(err.message, "differ from the database's in 2 of the 7 they "
                             "both have (the first: index 2 of language "
                             "009): it is another machine's backup; nothing "
                             "was written"))
        fail_msg("refusal: %s", err.message);
    char *after = rt_store_mem_dump(base_store);
    assert_string_equal(after, before);
    free(after);
    assert_int_equal(regtool_restore(rt, file, REGTOOL_FORCE, &err), 0);
    assert_non_null(strstr(lines.s, "another machine's backup, restored as "
                                    "asked\n"));
    after = rt_store_mem_dump(base_store);
    assert_string_not_equal(after, before);
    free(after);
    free(before);
    regtool_close(rt);
    rt_strbuf_free(&lines);
    assert_int_equal(scratch_remove(dir), 0);
    free(dir);
}

static void open_errors(void **state)
{
    (void)state;
    regtool *rt = (regtool *)&rt;
    regtool_error err;
    assert_int_equal(regtool_open("nowhere:x", NULL, &rt, &err),
                     REGTOOL_ERR_INVALID_PARAMETER);
    assert_null(rt);
    assert_int_equal(regtool_open("psb:/nonexistent/perf.ini", NULL, &rt,
                                  &err), REGTOOL_ERR_FILE_NOT_FOUND);
    assert_int_equal(regtool_open(NULL, NULL, &rt, &err),
                     REGTOOL_ERR_INVALID_PARAMETER);
    assert_int_equal(regtool_install(NULL, INI, NULL, NULL, &err),
                     REGTOOL_ERR_INVALID_PARAMETER);
    assert_string_equal(regtool_version(), REGTOOL_VERSION);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(install_query_uninstall),
        cmocka_unit_test(unreadable_ini_is_reported_as_its_diagnostic),
        cmocka_unit_test(strict_refuses_what_lenient_installs_with_a_warning),
        cmocka_unit_test(audit_lists_findings),
        cmocka_unit_test(backup_then_restore),
        cmocka_unit_test(open_errors),
        cmocka_unit_test(hostile_names_are_reported_escaped),
    };
    return cmocka_run_group_tests_name("api", tests, NULL, NULL);
}
