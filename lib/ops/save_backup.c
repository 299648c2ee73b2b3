/* Saving a PerfStringBackup file: the backup made table by table into a
 * temporary file, each write counted, renamed into place when whole. */
#include "ops/ops.h"

#include <errno.h>

#include "commit/io.h"

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
    /* Counted as a commit's writes are: the test build can stop the
     * backup at each (lib/commit/io_count.c's hooks). */
    static const struct rt_os_write_calls counted = {
        rt_io_pwrite, rt_io_fsync, rt_io_rename, rt_io_fsync_dir_of};
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
