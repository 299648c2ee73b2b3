/* Error values (lib/model/error.c): the errno of a failed file operation
 * becomes the Win32 code lodctr would report (the exit status of the
 * lodctr and unlodctr names and the library's rt_result code), and
 * rt_error_set keeps its message within the buffer, answering -1 either
 * way. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "model/error.h"

/* Every errno the mapping names, and one it does not. */
static void errno_becomes_the_win32_code(void **state)
{
    (void)state;
    assert_int_equal(rt_error_code_for_errno(ENOENT), RT_ERR_PATH_NOT_FOUND);
    assert_int_equal(rt_error_code_for_errno(ENOTDIR), RT_ERR_PATH_NOT_FOUND);
    assert_int_equal(rt_error_code_for_errno(EACCES), RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_error_code_for_errno(EPERM), RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_error_code_for_errno(EROFS), RT_ERR_ACCESS_DENIED);
    /* Refused beneath a tree: a link, a mount point, a special file. */
    assert_int_equal(rt_error_code_for_errno(ELOOP), RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_error_code_for_errno(EXDEV), RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_error_code_for_errno(ENODEV), RT_ERR_ACCESS_DENIED);
    assert_int_equal(rt_error_code_for_errno(EEXIST), RT_ERR_FILE_EXISTS);
    assert_int_equal(rt_error_code_for_errno(ENOSPC), RT_ERR_DISK_FULL);
    assert_int_equal(rt_error_code_for_errno(ENOMEM),
                     RT_ERR_NOT_ENOUGH_MEMORY);
    /* Anything else a write can meet (EIO, EFBIG, ...) is a write fault. */
    assert_int_equal(rt_error_code_for_errno(EIO), RT_ERR_WRITE_FAULT);
    assert_int_equal(rt_error_code_for_errno(EFBIG), RT_ERR_WRITE_FAULT);
    assert_int_equal(rt_error_code_for_errno(0), RT_ERR_WRITE_FAULT);
}

static void error_set_fills_bounded_and_answers_minus_one(void **state)
{
    (void)state;
    struct rt_error e = {0};
    assert_int_equal(rt_error_set(&e, RT_ERR_BADDB, "%s:%d: %s", "a.ini", 7,
                                  "bad"), -1);
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_string_equal(e.message, "a.ini:7: bad");

    /* Longer than the buffer: cut, still terminated. */
    char big[2 * sizeof e.message];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    assert_int_equal(rt_error_set(&e, RT_ERR_INVALID_DATA, "%s", big), -1);
    assert_int_equal(e.code, RT_ERR_INVALID_DATA);
    assert_int_equal(strlen(e.message), sizeof e.message - 1);

    /* No error to fill: still -1, for `return rt_error_set(NULL, ...)`. */
    assert_int_equal(rt_error_set(NULL, RT_ERR_BADDB, "unused"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errno_becomes_the_win32_code),
        cmocka_unit_test(error_set_fills_bounded_and_answers_minus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
