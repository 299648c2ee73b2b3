/* regtool backup: the whole name database in the PerfStringBackup format,
 * as lodctr /S:file saves it (SPEC 4.6). Read-only on the store. */
#include "regtool.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "engine/backup.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] backup [--force] FILE\n"
    "\n"
    "Saves the whole name database as lodctr /S:FILE does: a PerfStringBackup\n"
    "file (UTF-16LE) with Perflib's values, each installed provider's\n"
    "First/Last Counter/Help (and Disable Performance Counters), and every\n"
    "language's names and help texts. Only reads the store. When FILE\n"
    "exists, saves to FILE_001, FILE_002, ... FILE_999 instead, the first\n"
    "that does not exist, as lodctr does.\n"
    "\n"
    "  --force  overwrite FILE instead (through a temporary file: FILE is\n"
    "           never seen half-written)\n";

static int win32_for_errno(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR: return RT_ERR_PATH_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS: return RT_ERR_ACCESS_DENIED;
    case EEXIST: return RT_ERR_FILE_EXISTS;
    default: return RT_ERR_WRITE_FAULT;
    }
}

/* Writes DATA to FILE, or the first of FILE_001 ... FILE_999 that does
 * not exist (lodctr's rule), or over FILE with FORCE. The name used goes
 * to *USED (a new string). Returns 0 or -1 with errno. */
static int save(const char *file, const uint8_t *data, size_t len, int force,
                char **used)
{
    size_t n = strlen(file);
    *used = malloc(n + 8);
    if (!*used) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(*used, file, n + 1);
    if (force)
        return rt_os_replace_file(file, data, len, 0644);
    if (rt_os_write_new_file(file, data, len) == 0)
        return 0;
    for (unsigned i = 1; errno == EEXIST && i <= 999; i++) {
        snprintf(*used + n, 8, "_%03u", i);
        if (rt_os_write_new_file(*used, data, len) == 0)
            return 0;
    }
    return -1;
}

int rt_cli_write_backup(const struct rt_database *db, const char *file,
                        int force, int salvage, int *win32)
{
    int rc;
    struct rt_psb psb;
    struct rt_error e = {0};
    uint8_t *data = NULL;
    size_t len = 0;
    char *used = NULL;
    if ((salvage ? rt_engine_backup_salvaged(db, &psb, &e)
                 : rt_engine_backup(db, &psb, &e)) != 0) {
        rt_cli_error("backup: %s", e.message);
        *win32 = e.code;
        return rt_cli_exit_for(e.code);
    }
    if (rt_psb_write(&psb, &data, &len) != 0) {
        rt_cli_error("backup: out of memory");
        *win32 = RT_ERR_NOT_ENOUGH_MEMORY;
        rc = RT_EXIT_FAILURE;
    } else if (save(file, data, len, force, &used) != 0) {
        int err = errno;
        *win32 = win32_for_errno(err);
        if (err == EEXIST) {
            rt_cli_error("%s and %s_001 to %s_999 all exist; nothing was "
                         "saved%s", file, file, file,
                         strcmp(rt_cli_program(), "regtool")
                             ? "" : " (--force overwrites FILE)");
            rc = RT_EXIT_CONFLICT;
        } else {
            rt_cli_error("cannot write %s: %s; nothing was saved",
                         used ? used : file, strerror(err));
            rc = RT_EXIT_FAILURE;
        }
    } else {
        printf("%s: saved %zu languages and %zu services to %s (%zu bytes)\n",
               rt_cli_program(), psb.n_langs, psb.n_services, used, len);
        *win32 = RT_ERR_SUCCESS;
        rc = RT_EXIT_OK;
    }
    rt_psb_free(&psb);
    free(data);
    free(used);
    return rc;
}

int rt_cli_backup(const char *file, int force, int *win32)
{
    int rc;
    struct rt_database db;
    struct rt_store *s = rt_cli_open_database(&db, &rc);
    if (!s) {
        *win32 = rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                     : RT_ERR_FILE_NOT_FOUND;
        return rc;
    }
    rc = rt_cli_write_backup(&db, file, force, 0, win32);
    rt_database_free(&db);
    s->ops->close(s);
    return rc;
}

int cmd_backup(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"force", no_argument, 0, 'f'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int force = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'f': force = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !*argv[optind]) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int win32;
    return rt_cli_backup(argv[optind], force, &win32);
}
