/* The regf reader on a hive Windows itself wrote (the clean Windows 7
 * SYSTEM sample): every key and value must read as libregf's regfexport
 * reads it, and known Perflib-related values must be found by path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "regf_testutil.h"

static char *dir, *hive;

static int setup(void **state)
{
    (void)state;
    dir = tu_tmpdir();
    if (asprintf(&hive, "%s/SYSTEM", dir) < 0)
        return -1;
    char *cmd;
    if (asprintf(&cmd, "xz -dc ../shared/samples/SYSTEM.xz > '%s'", hive) < 0)
        return -1;
    int rc = system(cmd);
    free(cmd);
    return rc == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(hive);
    tu_rmdir(dir);
    return 0;
}

static uint32_t dword_at(struct rt_regf *h, const char *path, const char *name)
{
    uint32_t key, type;
    uint8_t *data;
    size_t len;
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), path, &key), 0);
    assert_int_equal(rt_regf_get_value(h, key, name, &type, &data, &len), 0);
    assert_int_equal(type, RT_REG_DWORD);
    assert_int_equal(len, 4);
    uint32_t v = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
                 (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
    free(data);
    return v;
}

static void header_and_known_values(void **state)
{
    (void)state;
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open(hive, 0, &h, err, sizeof err), 0);
    struct rt_regf_info info;
    rt_regf_get_info(h, &info);
    assert_int_equal(info.major, 1);
    assert_int_equal(info.minor, 5);
    assert_int_equal(info.seq1, 13983);
    assert_int_equal(info.seq2, 13983);
    assert_false(info.dirty);
    assert_int_equal(dword_at(h, "Select", "Current"), 1);
    /* Case-insensitive, as Windows looks keys and values up. */
    assert_int_equal(dword_at(h, "controlset001\\SERVICES\\esent\\performance",
                              "first counter"), 2602);
    assert_int_equal(dword_at(h, "ControlSet001\\Services\\ESENT\\Performance",
                              "Last Counter"), 3698);
    /* One byte of inline data: the file holds 01 00 00 00 in the field. */
    uint32_t key, type;
    uint8_t *data;
    size_t len;
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), "ControlSet001\\"
                                    "Control\\Class\\{36FC9E60-C465-11CF-"
                                    "8056-444553540000}\\0000", &key), 0);
    assert_int_equal(rt_regf_get_value(h, key, "Controller", &type, &data,
                                       &len), 0);
    assert_int_equal(type, RT_REG_BINARY);
    assert_int_equal(len, 1);
    assert_int_equal(data[0], 1);
    free(data);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h),
                                    "ControlSet001\\Services\\NoSuchService",
                                    &key), RT_REGF_ENOTFOUND);
    assert_non_null(strstr(rt_regf_errmsg(h), "NoSuchService"));
    rt_regf_close(h);
}

static void every_key_and_value_reads_as_regfexport(void **state)
{
    (void)state;
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open(hive, 0, &h, err, sizeof err), 0);
    struct tu_buf ours = {0};
    tu_printf(&ours, "%s", "");
    assert_int_equal(tu_dump_key(h, rt_regf_root(h), NULL, &ours, 0), 0);
    rt_regf_close(h);

    char *cmd;
    assert_true(asprintf(&cmd, "regfexport '%s' 2>/dev/null", hive) > 0);
    char *theirs = tu_capture(cmd, NULL);
    free(cmd);
    assert_non_null(theirs);
    /* Skip regfexport's banner and the blank line after it. */
    char *body = strstr(theirs, "\n\n");
    assert_non_null(body);
    body += 2;
    char *a = tu_normalise(ours.s), *b = tu_normalise(body);
    if (strcmp(a, b))
        tu_show_diff(a, b);
    assert_true(strlen(a) > 1000000);
    assert_true(strcmp(a, b) == 0);
    free(a);
    free(b);
    free(ours.s);
    free(theirs);
}

static void memory_image_reads_the_same(void **state)
{
    (void)state;
    size_t len = 0;
    char *cmd;
    assert_true(asprintf(&cmd, "cat '%s'", hive) > 0);
    char *img = tu_capture(cmd, &len);
    free(cmd);
    struct rt_regf *h;
    char err[256];
    assert_int_equal(rt_regf_open_memory(img, len, 0, &h, err, sizeof err), 0);
    free(img);
    assert_int_equal(dword_at(h, "Select", "Current"), 1);
    rt_regf_close(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(header_and_known_values),
        cmocka_unit_test(every_key_and_value_reads_as_regfexport),
        cmocka_unit_test(memory_image_reads_the_same),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
