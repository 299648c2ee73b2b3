/* Saving the name database to a file, as regtool backup, lodctr /S:FILE
 * and repair (before it writes) say it: the PerfStringBackup or .reg
 * file, its damaged tables, an interrupt's outcome. The saving itself is
 * the operations layer's (rt_op_save_backup, rt_op_save_reg_backup). */
#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops.h"
#include "platform/os.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif

static void say_damaged(void *ctx, const struct rt_backup_damage *d)
{
    (void)ctx;
    char dropped[80] = "";
    if (d->dropped)
        snprintf(dropped, sizeof dropped, "; %zu strings that read as no "
                 "pair left out", d->dropped);
    rt_cli_error("backup: Perflib\\%s\\%s is damaged at byte %zu of %zu "
                 "(%s): saved the %zu pairs readable in it, also past the "
                 "damage%s", d->lang, d->table, d->damage.offset, d->bytes,
                 rt_msz_strerror(d->damage.status), d->pairs, dropped);
}

/* The failure of a save that an interrupt cut short: nothing of the file
 * is left (rt_op_save_backup removed it). */
static int interrupted_save(const char *file, int *win32)
{
    rt_cli_error("interrupted: nothing was saved (no part of %s was left)",
                 file);
    *win32 = RT_ERR_CANCELLED;
    return 128 + rt_os_interrupted();
}

void rt_cli_say_backup_unsaved(const char *file, const char *used, int en,
                               int force_hint)
{
    if (en == EEXIST)
        rt_cli_error("%s and %s_001 to %s_999 all exist; nothing was "
                     "saved%s", file, file, file,
                     force_hint ? " (--force overwrites FILE)" : "");
    else
        rt_cli_error("cannot write %s: %s; nothing was saved",
                     used ? used : file, rt_os_strerror(en));
}

/* rt_cli_write_backup; REPORT: each damaged table is named (salvaged
 * then, as repair's backup is), *N_DAMAGED their number; FORCE_HINT:
 * the verb has --force (regtool backup). */
static int write_backup(struct rt_store *s, const struct rt_database *db,
                        const char *file, int force, int salvage, int report,
                        int force_hint, size_t *n_damaged, int *win32)
{
    struct rt_error e = {0};
    struct rt_backup_stats st;
    char *used = NULL;
    int en, rc;
    if (rt_cli_refuse_own_file(s, file, "backup")) {
        *win32 = RT_ERR_INVALID_PARAMETER;
        return RT_EXIT_USAGE;
    }
    /* Ctrl-C or SIGTERM stops the backup between two parts, and the
     * temporary file it was writing is removed. */
    rt_cli_catch_interrupts();
    /* Written as it is made, a language at a time (a backup of a large
     * database is hundreds of megabytes as text), to a temporary file
     * renamed to FILE when whole: a failure leaves no file. */
    if (rt_op_save_backup(s, db, file,
                           force ? RT_OS_SAVE_REPLACE : RT_OS_SAVE_NUMBERED,
                           salvage, report ? say_damaged : NULL, NULL, &st,
                           &used, &en, &e) != 0) {
        if (rt_os_interrupted()) {
            rc = interrupted_save(used ? used : file, win32);
        } else if (e.code != RT_ERR_WRITE_FAULT) {
            rt_cli_error("backup: %s", e.message);
            *win32 = e.code;
            rc = rt_cli_exit_for(e.code);
        } else {
            rt_cli_say_backup_unsaved(file, used, en, force_hint);
            *win32 = rt_error_code_for_errno(en);
            rc = en == EEXIST ? RT_EXIT_CONFLICT : RT_EXIT_FAILURE;
        }
    } else {
        rt_cli_progress_clear();
        printf("%s: saved %zu languages and %zu services to %s (%zu bytes)\n",
               rt_cli_program(), st.n_langs, st.n_services, rt_cli_shown(used),
               st.bytes);
        /* A PerfStringBackup file holds texts unescaped: what would read
         * back as a string or section of its own is not saved. */
        if (st.left_out)
            fprintf(stderr, "%s: warning: left out %zu strings whose "
                    "line breaks would not read back as written (as "
                    "another string or a section there, or a final line "
                    "feed dropped; names --json shows them)\n",
                    rt_cli_program(), st.left_out);
        *n_damaged = st.n_damaged;
        *win32 = RT_ERR_SUCCESS;
        rc = RT_EXIT_OK;
    }
    free(used);
    return rc;
}

int rt_cli_write_backup(struct rt_store *s, const struct rt_database *db,
                        const char *file, int force, int salvage, int *win32)
{
    size_t n_damaged = 0;
    return write_backup(s, db, file, force, salvage, 0, 0, &n_damaged, win32);
}

/* The .reg backup: read through the store, as the tables' exact bytes. */
static int write_reg_backup(struct rt_store *s, const struct rt_database *db,
                            const char *file, int force)
{
    struct rt_error e = {0};
    size_t len;
    uint64_t too_large = 0;
    char *used = NULL;
    int err, win32, rc = RT_EXIT_OK;
    if (rt_cli_refuse_own_file(s, file, "backup"))
        return RT_EXIT_USAGE;
    rt_cli_catch_interrupts();
    switch (rt_op_save_reg_backup(s, db, file,
                                  force ? RT_OS_SAVE_REPLACE
                                        : RT_OS_SAVE_NUMBERED,
                                  &len, &too_large, &used, &err, &e)) {
    case RT_REG_SAVE_REFUSED:
        rt_cli_error("backup: %s", e.message);
        rc = rt_cli_exit_for(e.code);
        break;
    case RT_REG_SAVE_TOO_LARGE:
        rt_cli_error("backup: the .reg file would be %llu bytes or more, "
                     "larger than the %llu MiB a .reg file may be (restore "
                     "reads no larger one); nothing was saved: a "
                     "PerfStringBackup file (without --format reg) holds "
                     "this database",
                     (unsigned long long)too_large,
                     (unsigned long long)(RT_REG_FILE_MAX >> 20));
        rc = RT_EXIT_INVALID;
        break;
    case RT_REG_SAVE_NO_TEXT:
        rt_cli_error("backup: %s; nothing was saved", e.message);
        rc = RT_EXIT_FAILURE;
        break;
    case RT_REG_SAVE_WRITE_FAILED:
        if (rt_os_interrupted()) {
            rc = interrupted_save(used ? used : file, &win32);
        } else {
            rt_cli_say_backup_unsaved(file, used, err, 1);
            rc = err == EEXIST ? RT_EXIT_CONFLICT : RT_EXIT_FAILURE;
        }
        break;
    case RT_REG_SAVE_OK:
        rt_cli_progress_clear();
        printf("%s: saved %zu languages and %zu services to %s (%zu bytes, "
               ".reg)\n", rt_cli_program(), db->n_langs, db->n_services,
               rt_cli_shown(used), len);
        /* Windows Vista and later keep the tables in .dat files and do
         * not read them from Perflib\LLL values. */
        if (rt_op_tables_layout(s) == RT_TABLES_IN_FILES)
            printf("%s: note: this store keeps its tables in .dat files; the "
                   "file holds them as Perflib\\LLL values, which reg "
                   "import writes but Windows Vista and later do not read: "
                   "restore them with regtool restore\n", rt_cli_program());
        break;
    }
    free(used);
    return rc;
}

int rt_cli_backup(const char *file, int force, int *win32)
{
    return rt_cli_backup_as(file, force, 0, win32);
}

static int backup_as(const char *file, int force, int reg, int *win32)
{
    int rc;
    rt_cli_options()->read_once = 1;    /* each table copied once */
    struct rt_database db;
    /* The .reg backup reads every table through the store itself; the
     * PerfStringBackup reads them a language at a time as it writes. */
    struct rt_store *s =
        rt_cli_open_database_with(&db, &rt_db_load_no_tables, &rc);
    if (!s) {
        *win32 = rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                     : RT_ERR_FILE_NOT_FOUND;
        return rc;
    }
    size_t n_damaged = 0;
    if (reg) {
        rc = write_reg_backup(s, &db, file, force);
        *win32 = rc == RT_EXIT_OK      ? RT_ERR_SUCCESS
                 : rc > 128            ? RT_ERR_CANCELLED
                 : rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                       : RT_ERR_WRITE_FAULT;
    } else {
#ifdef __GLIBC__
        /* Each language's tables are read, written out and freed, and
         * the next language's are about as large: kept in the heap once
         * freed (main's fixed threshold gives each back), the next
         * reuse their pages where the system would zero new ones for
         * them (a fifth of the backup's processor time). The process still holds
         * one language's tables at a time. */
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 32 << 20);
#endif
        /* A damaged table gives every pair readable in it (what repair
         * will keep), named on stderr: the one complete save of a
         * damaged database, exit 1. */
        rc = write_backup(s, &db, file, force, 1, 1,
                          !strcmp(rt_cli_program(), "regtool"), &n_damaged,
                          win32);
    }
    if (rc == RT_EXIT_OK && n_damaged) {
        rt_cli_error("backup: %zu damaged table%s: the file holds every pair "
                     "readable in %s; regtool repair rewrites %s "
                     "well-formed", n_damaged, n_damaged == 1 ? "" : "s",
                     n_damaged == 1 ? "it" : "them",
                     n_damaged == 1 ? "it" : "them");
        rc = RT_EXIT_WARN;
    }
    /* An interrupt that came once the file was whole: it stays. */
    if ((rc == RT_EXIT_OK || rc == RT_EXIT_WARN) && rt_os_interrupted()) {
        fflush(stdout);     /* after the line that says what was saved */
        rt_cli_error("interrupted after the backup was saved: the file is "
                     "complete");
        rc = 128 + rt_os_interrupted();
    }
    rt_database_free(&db);
    rt_op_close(s);
    return rc;
}

int rt_cli_backup_as(const char *file, int force, int reg, int *win32)
{
    rt_cli_progress_begin("backup");
    int rc = backup_as(file, force, reg, win32);
    rt_cli_progress_end();
    return rc;
}
