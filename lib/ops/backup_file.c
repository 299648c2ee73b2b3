/* Reading a backup file for restore: a PerfStringBackup file or a .reg
 * file, told by its first bytes, refused by its size before it is read,
 * mapped where it can be and its pages given back as it is decoded. */
#include "ops/ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Pages of the backup's view the parser is done with: given back. */
static void done_with(void *ctx, size_t off, size_t n)
{
    rt_os_map_release(ctx, off, n);
}

static enum rt_backup_read malformed(struct rt_backup_file *f, int nomem,
                                     unsigned line, int with_line,
                                     const char *message, struct rt_error *e)
{
    if (nomem) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        return RT_BACKUP_READ_NO_MEMORY;
    }
    f->line = line;
    f->with_line = with_line;
    rt_error_set(e, RT_ERR_INVALID_DATA, "%s", message);
    return RT_BACKUP_READ_MALFORMED;
}

static enum rt_backup_read read_reg(const char *file, const uint8_t *bytes,
                                    size_t len, struct rt_backup_file *f,
                                    struct rt_error *e)
{
    if (len > RT_REG_FILE_MAX) {
        rt_size_cap_error(e, file, len, RT_REG_FILE_MAX, "a .reg file");
        return RT_BACKUP_READ_TOO_LARGE;
    }
    struct rt_reg_error re;
    if (!(f->reg = rt_tree_new("")))
        return malformed(f, 1, 0, 0, NULL, e);
    /* A REGEDIT4 file's code page, as for an ANSI INI. */
    if (rt_reg_parse_tree(bytes, len, getenv("REGTOOL_CODEPAGE"), f->reg,
                          &re) != 0) {
        rt_tree_free(f->reg);
        f->reg = NULL;
        return malformed(f, re.nomem, re.line, re.line != 0, re.message, e);
    }
    f->kind = RT_BACKUP_FILE_REG;
    return RT_BACKUP_READ_OK;
}

/* Reads FILE (named so in messages) from PATH, its name beneath its
 * confined folder. */
static enum rt_backup_read read_backup(const char *file, const char *path,
                                       struct rt_backup_file *f,
                                       struct rt_error *e)
{
    /* Refused by its size before a page is read: a sparse file of any
     * size maps, and its parse would read every page. Which format it is
     * is not known yet: the larger of the two caps here, the .reg file's
     * once its first bytes say it is one. */
    uint64_t cap = RT_BACKUP_FILE_MAX > RT_REG_FILE_MAX ? RT_BACKUP_FILE_MAX
                                                        : RT_REG_FILE_MAX;
    struct rt_os_stat st;
    struct rt_os_map view;
    uint8_t *data = NULL;
    size_t len = 0;
    if (rt_os_map_file(path, &view) != 0)
        view.data = NULL;
    /* Its size is looked at only once it is open, as the file it is
     * (a hard link to a host file in a tree is refused by the open, its
     * size never said), and mapped pages are not read: the cap refuses a
     * larger file at no cost. */
    if (view.data && view.len > cap) {
        rt_size_cap_error(e, file, view.len, cap,
                          "a PerfStringBackup or .reg file");
        rt_os_unmap_file(&view);
        return RT_BACKUP_READ_TOO_LARGE;
    }
    int got = view.data ? 0 : rt_os_read_file_max(path, (size_t)cap, &data,
                                                  &len);
    if (got == -2 && errno == EFBIG) {
        rt_size_cap_error(e, file, rt_os_stat(path, &st) == 0 ? st.size
                                                               : cap + 1,
                          cap, "a PerfStringBackup or .reg file");
        return RT_BACKUP_READ_TOO_LARGE;
    }
    if (got != 0) {
        int err = errno;
        rt_os_named_link_said(err, path, file);
        rt_error_set(e, err == ENOENT    ? RT_ERR_FILE_NOT_FOUND
                        : err == ENOTDIR ? RT_ERR_PATH_NOT_FOUND
                                         : RT_ERR_ACCESS_DENIED,
                     "%s", rt_os_strerror(err));
        return RT_BACKUP_READ_UNREADABLE;
    }
    const uint8_t *bytes = view.data ? view.data : data;
    if (view.data)
        len = view.len;
    if (rt_reg_sniff(bytes, len)) {
        enum rt_backup_read r = read_reg(file, bytes, len, f, e);
        free(data);
        rt_os_unmap_file(&view);
        return r;
    }
    struct rt_psb_error perr;
    int r = view.data ? rt_psb_parse_view(bytes, len, done_with, &view,
                                          &f->psb, &f->enc, &perr)
                      : rt_psb_parse_take(data, len, &f->psb, &f->enc, &perr);
    rt_os_unmap_file(&view);
    if (r != 0)
        return malformed(f, perr.nomem, perr.line, 1, perr.message, e);
    f->kind = RT_BACKUP_FILE_PSB;
    return RT_BACKUP_READ_OK;
}

/* FILE is read beneath its folder, confined: it is often a tree's own
 * System32/PerfStringBackup.INI (lodctr /R:file), and a link there to a
 * host file is refused as the hive store refuses it, where it was
 * followed and the host file restored into the tree. */
static enum rt_backup_read read_file(const char *file,
                                     struct rt_backup_file *f,
                                     struct rt_error *e)
{
    memset(f, 0, sizeof *f);
    char *dir = NULL;
    char *inside = rt_os_confine_folder_of(file, &dir);
    if (!inside) {
        int err = errno;
        rt_error_set(e, err == ENOMEM    ? RT_ERR_NOT_ENOUGH_MEMORY
                        : err == ENOENT  ? RT_ERR_FILE_NOT_FOUND
                        : err == ENOTDIR ? RT_ERR_PATH_NOT_FOUND
                                         : RT_ERR_ACCESS_DENIED,
                     "%s", rt_os_strerror(err));
        return RT_BACKUP_READ_UNREADABLE;
    }
    enum rt_backup_read r = read_backup(file, inside, f, e);
    rt_os_unconfine(dir);
    free(inside);
    free(dir);
    return r;
}

enum rt_backup_read rt_op_read_backup_file(const char *file,
                                           struct rt_backup_file *f,
                                           struct rt_error *e)
{
    enum rt_backup_read r = read_file(file, f, e);
    if (r == RT_BACKUP_READ_OK || r == RT_BACKUP_READ_TOO_LARGE)
        return r;       /* the cap's message names the file already */
    /* The whole sentence, said alike by the CLI and the library. */
    char why[sizeof e->message];
    snprintf(why, sizeof why, "%s", e->message);
    if (r == RT_BACKUP_READ_UNREADABLE)
        rt_error_set(e, e->code, "cannot read %s: %s; nothing was written",
                     file, why);
    else if (r == RT_BACKUP_READ_NO_MEMORY)
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                     "%s: out of memory; nothing was written", file);
    else if (f->with_line)
        rt_error_set(e, RT_ERR_INVALID_DATA,
                     "%s:%u: %s; nothing was written", file, f->line, why);
    else
        rt_error_set(e, RT_ERR_INVALID_DATA, "%s: %s; nothing was written",
                     file, why);
    return r;
}

void rt_backup_file_free(struct rt_backup_file *f)
{
    if (f->kind == RT_BACKUP_FILE_PSB)
        rt_psb_free(&f->psb);
    else if (f->kind == RT_BACKUP_FILE_REG)
        rt_tree_free(f->reg);
    f->kind = RT_BACKUP_FILE_NONE;
}
