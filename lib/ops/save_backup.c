/* Saving a backup file: a PerfStringBackup made table by table, or a
 * .reg file made whole, into a temporary file, each write counted,
 * renamed into place when whole. */
#include "ops/ops.h"

#include <errno.h>
#include <stdlib.h>

#include "commit/io.h"

int rt_op_check_backup_path(const char *path, int force, int *err_no)
{
    if (rt_os_saving_check(path, force ? RT_OS_SAVE_REPLACE
                                       : RT_OS_SAVE_NUMBERED) == 0)
        return 0;
    *err_no = errno;
    return -1;
}

/* Counted as a commit's writes are: the test build can stop a save at
 * each (lib/commit/io_count.c's hooks). */
static const struct rt_os_write_calls counted = {
    rt_io_pwrite, rt_io_fsync, rt_io_rename, rt_io_fsync_dir_of};

static int write_part(void *ctx, const uint8_t *data, size_t len)
{
    return rt_os_saving_write(ctx, data, len);
}

int rt_op_save_backup(struct rt_store *s, const struct rt_database *db,
                      const char *path, enum rt_os_saving_rule rule,
                      int salvage,
                      void (*damaged)(void *ctx,
                                      const struct rt_backup_damage *d),
                      void *damaged_ctx, struct rt_backup_stats *st,
                      char **used, int *err_no, struct rt_error *e)
{
    struct rt_os_saving sv;
    *err_no = 0;
    if (rt_os_saving_open_via(&sv, path, rule, 0644, &counted, used) != 0) {
        *err_no = errno;
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "cannot write %s: %s",
                            *used ? *used : path, rt_os_strerror(*err_no));
    }
    const struct rt_backup_sink k = {write_part, &sv, damaged, damaged_ctx};
    if (rt_engine_backup_to(s, db, salvage, &k, st, e) != 0) {
        *err_no = errno;
        /* A write that failed has abandoned the file already. */
        if (sv.fd >= 0)
            rt_os_saving_abandon(&sv);
        return -1;
    }
    if (rt_os_saving_finish(&sv) != 0) {
        *err_no = errno;
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "cannot write %s: %s",
                            *used, rt_os_strerror(*err_no));
    }
    return 0;
}

/* DATA saved to PATH by RULE, abandoned when an interrupt came before
 * it was whole. 0, or -1 with *ERR_NO. */
static int save_whole(const char *path, enum rt_os_saving_rule rule,
                      const uint8_t *data, size_t len, char **used,
                      int *err_no)
{
    struct rt_os_saving sv;
    if (rt_os_saving_open_via(&sv, path, rule, 0644, &counted, used) != 0 ||
        rt_os_saving_write(&sv, data, len) != 0 ||
        (rt_os_interrupted() ? (rt_os_saving_abandon(&sv), -1)
                             : rt_os_saving_finish(&sv)) != 0) {
        *err_no = errno;
        return -1;
    }
    return 0;
}

enum rt_reg_save rt_op_save_reg_backup(struct rt_store *s,
                                       const struct rt_database *db,
                                       const char *path,
                                       enum rt_os_saving_rule rule,
                                       size_t *len, uint64_t *too_large,
                                       char **used, int *err_no,
                                       struct rt_error *e)
{
    struct rt_reg_file f;
    *len = 0;
    *used = NULL;
    *err_no = 0;
    if (rt_engine_backup_reg(s, db, RT_REG_V5_UTF16, &f, e) != 0)
        return RT_REG_SAVE_REFUSED;
    uint8_t *data = NULL;
    enum rt_reg_save r;
    int made = rt_op_reg_backup_text(&f, &data, len, too_large, e);
    if (made > 0)
        r = RT_REG_SAVE_TOO_LARGE;
    else if (made < 0)
        r = RT_REG_SAVE_NO_TEXT;
    else if (save_whole(path, rule, data, *len, used, err_no) != 0)
        r = RT_REG_SAVE_WRITE_FAILED;
    else
        r = RT_REG_SAVE_OK;
    rt_reg_file_free(&f);
    free(data);
    return r;
}
