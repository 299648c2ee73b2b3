/* Commit layer: replaying a sealed journal, rolling back an unsealed one,
 * finishing and recovering. */
#include "commit/journal_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Lengthens BASE/REL to SIZE when it is shorter, and makes that durable;
 * a file the commit creates is left to the records: nothing in it
 * promises bytes before they are all written. */
static int grow_file(const char *base, const char *rel, uint64_t size,
                     struct rt_error *e)
{
    char path[PATH_MAX];
    uint64_t now = 0;
    if (rt_journal_full_path(path, sizeof path, base, rel) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s/%s: path too long",
                            base, rel);
    int fd = rt_os_open(path, RT_OS_WRITE);
    if (fd < 0 && errno == ENOENT)
        return 0;
    int r = fd < 0 || rt_os_fsize(fd, &now) != 0 ||
            (size > now && (rt_io_ftruncate(fd, size) != 0 ||
                            rt_io_fsync(fd) != 0));
    int err = errno;
    if (fd >= 0)
        rt_os_close(fd);
    return r ? rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            rt_os_strerror(err))
             : 0;
}

/* Applies the checked records of J to the files. GROW_ONLY: only
 * lengthens each file to the largest size its size records not in order
 * give it (once a file, whatever the journal holds), nothing else. */
static int apply_records(const char *base, const struct rt_journal *j,
                         int grow_only, struct rt_error *e)
{
    struct target t = {.fd = -1};
    struct dir_syncs dirs = {0};
    if (grow_only) {
        for (size_t i = 0; i < j->n_files; i++)
            if (j->grow_to[i] &&
                grow_file(base, j->files[i].rel, j->grow_to[i], e) != 0)
                return -1;
        return 0;
    }
    for (size_t i = 0; i < j->n_recs; i++) {
        const struct jrec *r = &j->recs[i];
        if (r->kind == REC_DELETE) {
            if (rt_target_finish(&t, e) != 0 ||
                rt_journal_delete_file(base, r->file, r->offset, &dirs, e) != 0)
                goto fail;
            continue;
        }
        if (rt_target_switch(&t, base, r->file, e) != 0)
            goto fail;
        if ((r->kind == REC_WRITE ? rt_io_pwrite(t.fd, r->data, r->len,
                                                 r->offset)
                                  : rt_io_ftruncate(t.fd, r->offset)) != 0) {
            rt_dir_syncs_free(&dirs);
            return rt_target_fail(&t, e);
        }
    }
    if (rt_target_finish(&t, e) != 0)
        goto fail;
    return rt_dir_syncs_flush(&dirs, e);
fail:
    rt_dir_syncs_free(&dirs);
    return -1;
}

/* Applies a journal body: first every file that grows is lengthened to
 * its final size, then the records in order. A file's header (a hive's
 * base block, which says how many bytes of bins follow) may be written
 * before the record that sets its size, and pages of zeros past the old
 * end are never written: a crash in between would leave a header
 * promising bytes the file does not have, which no reader opens, so the
 * journal that would finish the commit is never reached. Lengthening
 * first (with zeros) leaves every intermediate state readable; applying
 * the records again after a crash gives the same result. Not lengthened
 * first: a file whose fresh bytes did it before the seal (write_fresh,
 * in commit_run.c), a file the commit creates, and one whose size record
 * is in order (SIZE_IN_ORDER): nothing in those promises bytes not yet
 * written. */
static int apply_body(const char *base, const struct rt_journal *j,
                      struct rt_error *e)
{
    if (apply_records(base, j, 1, e) != 0)
        return -1;
    return apply_records(base, j, 0, e);
}

/* Cuts each file of the intent block V (N entries) back to its size
 * before the commit, removing the fresh bytes a commit that never sealed
 * left behind. */
int rt_journal_roll_back_fresh(const char *base, const struct intent *v,
                               size_t n, struct rt_error *e)
{
    for (size_t i = 0; i < n; i++) {
        const char *rel = v[i].file;
        uint64_t size = v[i].size;
        char path[PATH_MAX];
        if (rt_journal_full_path(path, sizeof path, base, rel) != 0)
            return rt_error_set(e, RT_ERR_BADDB, "journal: path too long");
        int fd = rt_os_open(path, RT_OS_WRITE);
        if (fd < 0) {
            if (errno == ENOENT)
                continue;
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                rt_os_strerror(errno));
        }
        uint64_t now;
        int r = rt_os_fsize(fd, &now);
        if (r == 0 && now > size)
            r = rt_io_ftruncate(fd, size) || rt_io_fsync(fd);
        int err = errno;
        rt_os_close(fd);
        if (r != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                rt_os_strerror(err));
    }
    return 0;
}

/* --- finding a journal ---------------------------------------------------- */

void rt_journal_describe(const struct rt_journal_info *ji, char *buf,
                         size_t size)
{
    char when[64] = "an unknown time";
    time_t t = (time_t)ji->when;
    struct tm *tm = ji->when ? gmtime(&t) : NULL;
    if (tm)
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", tm);
    snprintf(buf, size, "%s %s %s at %s", ji->sealed ? "the" : "an unfinished",
             *ji->what ? ji->what : "change",
             ji->sealed ? "committed" : "started", when);
}

void rt_journal_needs(const struct rt_journal *j, const char *base_dir,
                      char *buf, size_t size)
{
    snprintf(buf, size, "%s", "");
    for (size_t i = 0; j->info.sealed && i < j->n_files; i++) {
        char path[PATH_MAX];
        if (rt_journal_full_path(path, sizeof path, base_dir,
                                 j->files[i].rel) != 0 ||
            !rt_os_exists(path))
            continue;
        /* Opening for writing changes nothing in the file. */
        int fd = rt_os_open(path, RT_OS_WRITE);
        if (fd >= 0) {
            rt_os_close(fd);
            continue;
        }
        rt_failure_needs(errno, path, 0, buf, size);
        return;
    }
    /* The journal itself is removed when done: its directory must be
     * writable. */
    int fd = rt_os_open(j->path, RT_OS_WRITE);
    if (fd < 0)
        rt_failure_needs(errno, j->path, 0, buf, size);
    else
        rt_os_close(fd);
}

/* Before a byte of J is replayed or cut back: every file it acts on can
 * be acted on as its step will find it. An existing one opens for
 * writing (which, beneath a confined tree, refuses a link, a mount point,
 * a special file and a file of several names); a missing one is reached
 * through folders only, no link or mount point among them. A journal
 * whose second file is a link would otherwise be refused only at that
 * file's turn, its first file already written. 0, or -1 with E naming
 * the journal, the file and what stands there. */
static int check_targets(const struct rt_journal *j, const char *base,
                         struct rt_error *e)
{
    for (size_t i = 0; i < j->n_files; i++) {
        const struct rt_journal_file *f = &j->files[i];
        char path[PATH_MAX], why[PATH_MAX + 400];
        struct rt_os_stat st;
        int err = 0;
        why[0] = '\0';
        if (rt_journal_full_path(path, sizeof path, base, f->rel) != 0) {
            snprintf(why, sizeof why, "%s/%s: path too long", base, f->rel);
        } else if (rt_os_stat(path, &st) != 0) {
            err = errno;
        } else if (st.kind == RT_OS_ABSENT) {
            /* A roll-back or a removal skips a missing file; a write
             * creates it, with the folders above it. */
            struct rt_error e2 = {0};
            if (j->info.sealed && !f->removed &&
                rt_folders_ok(path, &e2) != 0) {
                err = ENOTDIR;
                snprintf(why, sizeof why, "%s", e2.message);
            }
        } else if (st.kind != RT_OS_FILE) {
            err = ENODEV;
            snprintf(why, sizeof why, "%s is %s, not a regular file", path,
                     st.what ? st.what : "not a regular file");
        } else {
            int fd = rt_os_open(path, RT_OS_WRITE);
            if (fd < 0)
                err = errno;
            else
                rt_os_close(fd);
        }
        if (!err && !why[0])
            continue;
        /* A refusal's words name the path already. */
        if (!why[0]) {
            int named = rt_os_refusal_named(err);
            snprintf(why, sizeof why, "%s%s%s", named ? "" : path,
                     named ? "" : ": ", rt_os_strerror(err));
        }
        return rt_error_set(e, rt_is_refusal(err) ? RT_ERR_BADDB
                                                  : RT_ERR_WRITE_FAULT,
                            "%s: it would %s %s, but %s; nothing was "
                            "replayed, cut back or removed, and the journal "
                            "stays where it is: check what stands at that "
                            "path, then run again",
                            j->path,
                            !j->info.sealed ? "cut back"
                            : f->removed    ? "remove"
                                            : "write",
                            f->rel, why);
    }
    return 0;
}

int rt_journal_finish(struct rt_journal *j, const char *base_dir,
                      struct rt_error *e)
{
    if (check_targets(j, base_dir, e) != 0)
        return -1;
    if (j->info.sealed) {
        if (apply_body(base_dir, j, e) != 0)
            return -1;
    } else if (rt_journal_roll_back_fresh(base_dir, j->intents, j->n_intents,
                                          e) != 0) {
        return -1;
    }
    if (rt_io_unlink(j->path) != 0 || rt_io_fsync_dir_of(j->path) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", j->path,
                            rt_os_strerror(errno));
    return j->info.sealed;
}

int rt_journal_recover(const char *base_dir, const char *journal_path,
                       const struct rt_journal_scope *scope,
                       struct rt_error *e)
{
    struct rt_journal *j;
    int r = rt_journal_load(journal_path, scope, &j, e);
    if (r <= 0)
        return r;
    r = rt_journal_finish(j, base_dir, e);
    rt_journal_free(j);
    return r;
}
