/* Commit layer: running a commit: its intents, the preflight and its
 * reservations, the journal written and sealed, then applied. */
#include "commit/io.h"
#include "commit/journal_internal.h"
#include "platform/grow.h"
#include "platform/progress.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Record R taken into the size its file F has after the commit, as far
 * as the records say (taken in order, each file's from the first). */
static void final_size(struct commit_file *f, const struct record *r)
{
    if (r->kind == REC_DELETE) {
        f->end = 0;
        f->sized = 1;
    } else if (r->kind == REC_SIZE) {
        f->end = r->offset;
        f->sized = 1;
    } else if (!f->sized && r->offset + r->len > f->end) {
        f->end = r->offset + r->len;
    }
}

/* Where FILE's slot is in C's table of files: its own, or the empty one
 * where it goes. */
static size_t *commit_file_slot(const struct rt_commit *c, const char *file)
{
    size_t at = (size_t)rt_os_path_hash(file) & (c->n_slots - 1);
    while (c->slots[at] && strcmp(c->files[c->slots[at] - 1].name, file))
        at = (at + 1) & (c->n_slots - 1);
    return &c->slots[at];
}

/* The index in C->files of FILE, which a record names. */
static size_t commit_file_find(const struct rt_commit *c, const char *file)
{
    return *commit_file_slot(c, file) - 1;
}

/* Finds the file of every record of C (C->files, each record's file_no
 * and next), and each file's size after the commit: done once, so that
 * no step looks for a file's records by a pass over all of them (a
 * commit writing thousands of tables was quadratic). */
static int index_files(struct rt_commit *c)
{
    size_t n_slots = 16;
    while (n_slots < 2 * c->n)
        n_slots *= 2;
    free(c->files);
    free(c->slots);
    c->n_files = 0;
    c->n_slots = n_slots;
    c->files = malloc((c->n ? c->n : 1) * sizeof *c->files);
    c->slots = calloc(n_slots, sizeof *c->slots);
    size_t *last = malloc((c->n ? c->n : 1) * sizeof *last);
    if (!c->files || !c->slots || !last) {
        free(last);
        return -1;
    }
    for (size_t i = 0; i < c->n; i++) {
        struct record *r = &c->v[i];
        size_t *slot = commit_file_slot(c, r->file);
        if (!*slot) {
            c->files[c->n_files] = (struct commit_file){r->file, i, 0, 0, 0};
            *slot = ++c->n_files;
        } else
            c->v[last[*slot - 1]].next = i + 1;
        r->file_no = *slot - 1;
        r->next = 0;
        last[r->file_no] = i;
        final_size(&c->files[r->file_no], r);
    }
    free(last);
    return 0;
}

/* Notes the size before the commit of every file that gets fresh bytes. */
static int record_intents(struct rt_commit *c, struct rt_error *e)
{
    for (size_t k = 0; k < c->n_intents; k++)
        c->files[commit_file_find(c, c->intents[k].file)].has_intent = 1;
    /* One intent a file at most: room for all of them at once. */
    if (c->n_intents < c->n_files) {
        struct intent *v = realloc(c->intents, c->n_files * sizeof *v);
        if (!v)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        c->intents = v;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].kind != REC_FRESH || c->files[c->v[i].file_no].has_intent)
            continue;
        size_t k = c->n_intents;
        char path[PATH_MAX];
        struct rt_os_stat st;
        if (rt_journal_full_path(path, sizeof path, c->base, c->v[i].file) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: path too long",
                                c->v[i].file);
        if (rt_os_stat(path, &st) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                rt_os_strerror(errno));
        uint64_t size = st.kind == RT_OS_ABSENT ? 0 : st.size;
        struct intent *v = c->intents;
        if (!(v[k].file = strdup(c->v[i].file)))
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        v[k].size = size;
        c->n_intents++;
        c->files[c->v[i].file_no].has_intent = 1;
    }
    return 0;
}

/* Writes the fresh records to their files, lengthens each such file to
 * its final size when that is larger (zero pages past the old end are
 * never written), and fsyncs each file once. Lengthening here, under the
 * intent block that cuts the file back, rather than in the first pass of
 * apply_body (journal_replay.c) after the seal, makes that pass find
 * nothing to do for these files: one fsync per file instead of two. */
static int write_fresh(const struct rt_commit *c, struct rt_error *e)
{
    for (size_t k = 0; k < c->n_intents; k++) {
        struct target t = {.fd = -1};
        size_t f = commit_file_find(c, c->intents[k].file);
        for (size_t i = c->files[f].first + 1; i; i = c->v[i - 1].next) {
            const struct record *r = &c->v[i - 1];
            if (r->kind != REC_FRESH)
                continue;
            if (rt_target_switch(&t, c->base, r->file, e) != 0)
                return -1;
            if (rt_io_pwrite(t.fd, r->data, r->len, r->offset) != 0)
                return rt_target_fail(&t, e);
        }
        int sized = c->files[f].sized;
        uint64_t now = 0, size = c->files[f].end;
        if (t.fd >= 0 && sized &&
            (rt_os_fsize(t.fd, &now) != 0 ||
             (size > now && rt_io_ftruncate(t.fd, size) != 0)))
            return rt_target_fail(&t, e);
        if (rt_target_finish(&t, e) != 0)
            return -1;
    }
    return 0;
}

/* The existing files preflight reserved space in: a commit refused
 * before its seal gives that space back (reservations_release), so that
 * a refusal leaves the disk's free space as it found it. */
struct reservations {
    char **paths;
    size_t n, cap;
};

static void reservations_free(struct reservations *rv)
{
    for (size_t i = 0; i < rv->n; i++)
        free(rv->paths[i]);
    free(rv->paths);
    rv->paths = NULL;
    rv->n = 0;
}

static void reservations_release(struct reservations *rv)
{
    for (size_t i = 0; i < rv->n; i++) {
        int fd = rt_os_open(rv->paths[i], RT_OS_WRITE);
        if (fd >= 0) {
            (void)rt_os_unreserve(fd);
            rt_os_close(fd);
        }
    }
    reservations_free(rv);
}

static int reservations_add(struct reservations *rv, const char *path)
{
    if (rv->n == rv->cap) {
        size_t cap = rt_grown(rv->cap, 16, sizeof *rv->paths);
        char **v = cap ? realloc(rv->paths, cap * sizeof *v) : NULL;
        if (!v)
            return -1;
        rv->paths = v;
        rv->cap = cap;
    }
    char **v = rv->paths;
    if (!(v[rv->n] = strdup(path)))
        return -1;
    rv->n++;
    return 0;
}

/* The folder PATH goes in, or the nearest above it that is there (one
 * the commit makes folders in), no higher than FLOOR bytes of PATH:
 * not immutable or append-only, and in a run one that takes a file the
 * commit makes, renames or removes (a read-only file system, one this
 * user cannot write), or the commit would pass its point into a write
 * that cannot be made, the journal left for every later writer (review
 * 49 R49-4, review 51 R51-4; review 54 R54-4, R54-5). A dry run refuses
 * the flags alone (one on read-only media shows its plan). Each folder
 * is opened beneath the tree, never looked at by its path, which would
 * follow a link the tree planted (review 54 R54-3); and judged once a
 * run of files: LAST (PATH_MAX bytes) names the folder of the file
 * judged last (hostile_scale.sh: 32,000 INF copies). 0, or -1 with E
 * set. */
static int folder_ok(const char *path, size_t floor, char *last, int dry,
                     struct rt_error *e)
{
    const char *sep = rt_os_last_separator(path);
    size_t own = sep ? (size_t)(sep - path) : 0;
    if (own == strlen(last) && !strncmp(path, last, own))
        return 0;
    snprintf(last, PATH_MAX, "%.*s", (int)own, path);
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", last);
    for (;;) {
        int r = dry ? rt_os_folder_flags_ok(dir)
                    : rt_os_folder_takes_files(dir);
        int err = errno;
        char *at = (char *)rt_os_last_separator(dir);
        /* Not there (or a file stands on its way, said as the commit's
         * folders are judged): made by the commit, in the one above. */
        int absent = r != 0 && (err == ENOENT || err == ENOTDIR);
        if (absent && at && (size_t)(at - dir) >= floor) {
            *at = '\0';
            continue;
        }
        /* A link or special file on the way is said by the checks of
         * each path, in their words. */
        if (r == 0 || absent || (dry && err != EPERM) ||
            (err != EPERM && err != EROFS && err != EACCES))
            return 0;
        return rt_error_set(e, rt_error_code_for_errno(err),
                            "%s: %s; nothing was written", path,
                            rt_os_strerror(err));
    }
}

/* What a commit makes after its point (an INF copy in new folders),
 * counted before it: the bytes and the inodes they need. */
struct made_later {
    uint64_t bytes, inodes;
};

/* The folders of PATH's way the commit makes: not there, nor counted for
 * the file before, whose folder PREV (PATH_MAX bytes) names and which
 * becomes PATH's. */
static uint64_t folders_made(const char *path, char *prev)
{
    char dir[PATH_MAX];
    const char *sep = rt_os_last_separator(path);
    int own = sep ? (int)(sep - path) : 0;
    snprintf(dir, sizeof dir, "%.*s", own, path);
    uint64_t n = 0;
    while (*dir && !rt_os_is_dir(dir)) {
        size_t len = strlen(dir);
        if (!strncmp(prev, dir, len) &&
            (!prev[len] || rt_os_is_separator(prev[len])))
            break;
        n++;
        char *at = (char *)rt_os_last_separator(dir);
        if (!at)
            break;
        *at = '\0';
    }
    snprintf(prev, PATH_MAX, "%.*s", own, path);
    return n;
}

/* Before anything is written: every file the commit touches can be
 * opened for writing (a file it creates, created and removed again), and
 * the space its growth needs is reserved (the files in RV). *GROWTH gets
 * the bytes. A commit that cannot be finished is never started; a
 * refusal here gives back what it reserved. */
static int preflight(const struct rt_commit *c, uint64_t *growth,
                     struct made_later *later, unsigned *mode,
                     struct reservations *rv, struct rt_error *e)
{
    *growth = 0;
    later->bytes = later->inodes = 0;
    *mode = 0666;
    char last[PATH_MAX] = "";   /* the folder judged last */
    char made[PATH_MAX] = "";   /* the folder of the file made last */
    for (size_t i = 0; i < c->n; i++) {
        const char *file = c->v[i].file;
        const struct commit_file *f = &c->files[c->v[i].file_no];
        if (f->first != i)
            continue;   /* seen */
        char path[PATH_MAX], why[PATH_MAX + 200];
        if (rt_journal_full_path(path, sizeof path, c->base, file) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: path too long",
                                file);
        if (folder_ok(path, strlen(c->base), last, 0, e) != 0) {
            reservations_release(rv);
            return -1;
        }
        int created = !rt_os_exists(path);
        /* A file in folders the commit makes from its commit point on
         * (an INF copy): nothing to open or reserve before. Fresh bytes
         * are written before the seal: their folder must be there. */
        if (created && c->v[i].kind != REC_FRESH && !rt_parent_exists(path)) {
            if (rt_folders_ok(path, e) != 0)
                return -1;
            /* Its blocks and its folders', counted against the free
             * space once the journal has its own (rt_commit_run). */
            uint64_t end = f->end;
            later->bytes += (end + 4095) / 4096 * 4096 + 3 * 4096;
            later->inodes += 1 + folders_made(path, made);
            continue;
        }
        int fd = rt_os_open(path, created ? RT_OS_WRITE_NEW : RT_OS_WRITE);
        if (fd < 0) {
            /* The refusal's words (a hard link, a link, a FIFO) before
             * the release, whose opens clear them. */
            rt_open_refused(path, errno, e);
            reservations_release(rv);
            return -1;
        }
        struct rt_os_stat st;
        int r = rt_os_fstat(fd, &st);
        uint64_t now = r == 0 ? st.size : 0;
        if (r == 0 && !created)
            *mode &= st.mode;
        uint64_t end = f->end;
        if (r == 0 && end > now) {
            r = rt_os_reserve(fd, end);
            if (r == 0)
                *growth += end - now;
        }
        int err = errno;
        char reason[700];
        snprintf(reason, sizeof reason, "%s", rt_os_strerror(err));
        /* A reservation that failed may have taken part of the space. */
        if (r != 0 && !created)
            (void)rt_os_unreserve(fd);
        rt_os_close(fd);
        if (created)
            rt_os_unlink(path);
        else if (r == 0 && end > now && reservations_add(rv, path) != 0) {
            reservations_release(rv);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        if (r != 0) {
            rt_failure_needs(err, path, end - now, why, sizeof why);
            reservations_release(rv);
            return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                                 : RT_ERR_WRITE_FAULT,
                                "%s: %s; nothing was written: %s", path,
                                reason, why);
        }
    }
    return 0;
}

/* The commit's journal as the next writer checks it (parse, in
 * journal_read.c): a commit whose journal would be refused is never
 * started, since once sealed nobody could finish it. */
static int check_names(const struct rt_commit *c, size_t journal_len,
                       struct rt_error *e)
{
    /* Not an internal error: a change as large as the input allows (a
     * backup of tables near their cap restored over a small tree) can
     * outgrow what the store lets a journal be. */
    if (c->scoped && c->scope.max_bytes && journal_len > c->scope.max_bytes)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "this change is too large for the store: its "
                            "journal would be %zu bytes, more than the %llu "
                            "a journal of this store may be (the next "
                            "writer reads no larger one); nothing was "
                            "written", journal_len,
                            (unsigned long long)c->scope.max_bytes);
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        const char *problem = rt_journal_path_problem(r->file);
        uint64_t parts = 1;
        for (const char *q = r->file; *q; q++)
            parts += *q == '/';
        if (!problem && c->scoped && c->scope.is_store_file &&
            !c->scope.is_store_file(c->scope.ctx, r->file))
            problem = "not a file this store's commits write";
        if (!problem && r->kind != REC_SIZE && r->kind != REC_DELETE &&
            r->offset + r->len > MAX_FILE_END)
            problem = "a write past 4 GiB";
        if (!problem && r->kind == REC_SIZE && r->offset > MAX_FILE_END)
            problem = "a size past 4 GiB";
        uint64_t cap = c->scoped && c->scope.file_max
                           ? c->scope.file_max(c->scope.ctx, r->file)
                           : MAX_FILE_END;
        if (!problem && ((r->kind == REC_SIZE && r->offset > cap) ||
                         (r->kind != REC_SIZE && r->kind != REC_DELETE &&
                          r->offset + r->len > cap)))
            problem = "a file larger than the store lets it be";
        if (!problem && r->kind == REC_DELETE && r->offset >= parts)
            problem = "a removal of folders above the tree";
        if (problem)
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: the commit names '%s' "
                                "(%s); nothing was written", r->file,
                                problem);
    }
    return 0;
}

/* The sealed journal C wrote, as parse would read it back: its records
 * point at the bytes C holds (the names were checked by check_names, the
 * sizes by construction), so it is applied by the same code as a journal
 * the next writer finds, with no copy of it read back. */
static struct rt_journal *written_journal(const struct rt_commit *c,
                                          struct rt_error *e)
{
    struct rt_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(c->journal)) ||
        !(j->recs = calloc(c->n ? c->n : 1, sizeof *j->recs))) {
        if (j)
            free(j->path);
        free(j);
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        return NULL;
    }
    j->info.sealed = 1;
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        if (r->kind == REC_FRESH)
            continue;
        struct jrec *jr = &j->recs[j->n_recs++];
        jr->kind = r->kind;
        jr->file = r->file;
        jr->offset = r->offset;
        jr->data = r->data;
        jr->len = (uint32_t)r->len;
        jr->in_order = r->kind == REC_SIZE && r->len &&
                       (r->data[0] & SIZE_IN_ORDER);
    }
    if (rt_journal_list_files(j, e) != 0) {
        /* Memory, or more files than a journal may name: the reader's
         * words for the latter speak of a planted journal. */
        if (e->code != RT_ERR_NOT_ENOUGH_MEMORY)
            rt_error_set(e, RT_ERR_INVALID_DATA,
                         "this change is too large for the store: it writes "
                         "more files than a commit may (the next writer "
                         "would refuse its journal); nothing was written");
        rt_journal_free(j);
        return NULL;
    }
    return j;
}

/* The commit's files in all as the next writer would check them
 * (check_total, in journal_read.c): a commit whose journal would be
 * refused for what its files reach in all is never started. */
static int check_extent(const struct rt_commit *c,
                        const struct rt_journal *j, struct rt_error *e)
{
    uint64_t max = c->scoped ? rt_journal_scope_total(&c->scope) : 0;
    if (!max)
        return 0;
    uint64_t total = rt_journal_extent_total(j);
    if (total <= max)
        return 0;
    return rt_error_set(e, RT_ERR_INVALID_DATA,
                        "this change is too large for the store: its files "
                        "would reach %llu bytes in all, more than the %llu "
                        "a commit of this store may leave them (the next "
                        "writer would refuse its journal); nothing was "
                        "written", (unsigned long long)total,
                        (unsigned long long)max);
}

/* The sealed journal of C (J, built from its records before the seal,
 * so that nothing is allocated between the seal and this) applied as
 * the next writer would replay it: the same code. A failure leaves the
 * sealed journal for the next writer, and E says so. */
static int apply_sealed(const struct rt_commit *c, struct rt_journal *j,
                        struct rt_error *e)
{
    int r = rt_journal_finish(j, c->base, e) < 0 ? -1 : 0;
    if (r != 0 && e)
        e->committed = 1;
    if (r != 0) {
        /* Said with what it means: the change stands, half applied. */
        char why[sizeof e->message];
        snprintf(why, sizeof why, "%s", e->message);
        rt_error_set(e, e->code, "%s, once the change was committed: %s "
                     "keeps it, and the next writer of this store finishes "
                     "it (readers meanwhile see the files part-way through "
                     "it)", why, c->journal);
    }
    return r;
}

/* The journal's folder takes a file the commit can remove when it is
 * done (review 49 R49-4: an append-only config folder took the journal
 * and kept it; the commit passed its point and could not finish, and
 * every later writer stopped on it). A dry run (DRY) refuses only
 * that: one on read-only media shows its plan. */
static int journal_folder_ok(const struct rt_commit *c, int dry,
                             struct rt_error *e)
{
    char last[PATH_MAX] = "";
    return folder_ok(c->journal, 0, last, dry, e);
}

/* Room on C's file system for what it makes after its commit point
 * (LATER, counted by preflight), now that the journal has its own: the
 * bytes, and on a file system of a fixed count of inodes (ext4, a tmpfs)
 * one for each file and folder (review 55 R55-1: the INF copy failed
 * past the point on one with two left). 0, or -1 with E set. */
static int room_for_later(const struct rt_commit *c,
                          const struct made_later *later, struct rt_error *e)
{
    uint64_t free_b, free_i;
    if (later->bytes && rt_os_free_space(c->base, &free_b) == 0 &&
        free_b < later->bytes)
        return rt_error_set(e, RT_ERR_DISK_FULL,
                            "%s: the new files this change makes need %llu "
                            "bytes and %llu are free; nothing was written: "
                            "free %llu bytes on the file system of %s",
                            c->base, (unsigned long long)later->bytes,
                            (unsigned long long)free_b,
                            (unsigned long long)(later->bytes - free_b),
                            c->base);
    if (later->inodes && rt_os_free_inodes(c->base, &free_i) == 0 &&
        free_i < later->inodes)
        return rt_error_set(e, RT_ERR_DISK_FULL,
                            "%s: the new files and folders this change "
                            "makes need %llu inodes and %llu are free; "
                            "nothing was written: remove %llu files on the "
                            "file system of %s",
                            c->base, (unsigned long long)later->inodes,
                            (unsigned long long)free_i,
                            (unsigned long long)(later->inodes - free_i),
                            c->base);
    return 0;
}

/* rt_commit_run with J, the commit's records as a journal read back. */
static int run_with(struct rt_commit *c, struct rt_journal *j,
                    struct rt_error *e)
{
    uint64_t growth;
    struct made_later later;
    unsigned mode;
    struct reservations rv = {0};
    struct journal_image im;
    if (rt_journal_image_make(c, &im) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t len = im.len, ilen = im.ilen;
    if (check_names(c, len, e) != 0 || check_extent(c, j, e) != 0 ||
        journal_folder_ok(c, 0, e) != 0 ||
        preflight(c, &growth, &later, &mode, &rv, e) != 0 ||
        rt_io_interrupted(e)) {
        reservations_release(&rv);
        rt_journal_image_free(&im);
        return -1;
    }
    int fd = rt_os_open(c->journal, RT_OS_WRITE_TRUNC);
    if (fd < 0) {
        int err = errno;
        char why[PATH_MAX + 200];
        rt_failure_needs(err, c->journal, len, why, sizeof why);
        reservations_release(&rv);
        rt_journal_image_free(&im);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s: %s; nothing was written: %s", c->journal,
                            rt_os_strerror(err), why);
    }
    /* The journal holds pieces of the files it changes: readable by no
     * one they are not readable by. */
    if (rt_os_set_mode(fd, rt_os_creation_mode(mode)) != 0 ||
        rt_os_reserve(fd, len) != 0) {
        int err = errno;
        char why[PATH_MAX + 200];
        rt_failure_needs(err, c->journal, len + growth, why, sizeof why);
        rt_os_close(fd);
        rt_os_unlink(c->journal);
        reservations_release(&rv);
        rt_journal_image_free(&im);
        return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                             : RT_ERR_WRITE_FAULT,
                            "%s: %s; nothing was written: %s", c->journal,
                            rt_os_strerror(err), why);
    }
    /* Files made in new folders (an INF copy) are written after the
     * commit point: the room they need must be there now. */
    if (room_for_later(c, &later, e) != 0) {
        rt_os_close(fd);
        rt_os_unlink(c->journal);
        reservations_release(&rv);
        rt_journal_image_free(&im);
        return -1;
    }
    /* With fresh bytes, the intent block is durable before any of them is
     * written: a crash from then on until the seal is rolled back by
     * cutting those files to their old sizes, so the old state comes back
     * byte for byte. */
    size_t from = 0, first = 0;
    if (c->n_intents) {
        if (rt_io_pwrite(fd, im.head, ilen, 0) != 0 || rt_io_fsync(fd) != 0 ||
            rt_io_fsync_dir_of(c->journal) != 0)
            goto fail;
        if (rt_io_interrupted(e) || write_fresh(c, e) != 0)
            goto undo;
        from = ilen;
        first = 1;
    }
    /* The body, then the trailer, in two writes: a crash between them
     * leaves an unsealed journal, which recovery rolls back. An interrupt
     * before the trailer rolls back too; from the trailer on, the commit
     * is finished whatever comes. */
    if (rt_io_pwrite_pieces(fd, im.pieces + first, im.n_pieces - first,
                            from) != 0)
        goto fail;
    if (rt_io_interrupted(e))
        goto undo;
    /* The journal's name is durable already when the intent block was:
     * its directory is fsynced once per commit. */
    if (rt_io_pwrite(fd, im.trailer, TRAILER_SIZE, len - TRAILER_SIZE) != 0 ||
        rt_io_fsync(fd) != 0 ||
        (!c->n_intents && rt_io_fsync_dir_of(c->journal) != 0))
        goto fail;
    rt_os_close(fd);
    rt_journal_image_free(&im);
    /* Sealed: the space reserved is the commit's to use now. */
    reservations_free(&rv);
    return apply_sealed(c, j, e);
fail:
    /* Out of memory too: a folder's fsync builds its path. */
    rt_error_set(e, errno == ENOSPC   ? RT_ERR_DISK_FULL
                    : errno == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                      : RT_ERR_WRITE_FAULT,
                 "%s: %s; nothing was written", c->journal, rt_os_strerror(errno));
undo:
    rt_os_close(fd);
    rt_journal_image_free(&im);
    if (c->n_intents) {
        struct rt_error e2 = {0};
        if (rt_journal_roll_back_fresh(c->base, c->intents, c->n_intents,
                                       &e2) != 0) {
            /* Keep the journal: the next open retries the roll-back. */
            reservations_release(&rv);
            return -1;
        }
    }
    rt_os_unlink(c->journal);
    reservations_release(&rv);
    return -1;
}

int rt_commit_run(struct rt_commit *c, struct rt_error *e)
{
    rt_progress_report("writing the change", 0, 0);
    if (index_files(c) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (rt_io_interrupted(e) || record_intents(c, e) != 0)
        return -1;
    struct rt_journal *j = written_journal(c, e);
    if (!j)
        return -1;
    int r = run_with(c, j, e);
    rt_journal_free(j);
    return r;
}

int rt_commit_check_path(const char *path, struct rt_error *e)
{
    /* As preflight: one there is opened as a write would open it, and
     * must not be immutable or append-only, which the run's open refuses
     * (review 52 R52-6: the dry run said nothing); a file to be made
     * needs its folders, or a place to make them. */
    int fd = rt_os_open(path, RT_OS_READ_AS_WRITE);
    if (fd < 0 && (errno == ENOENT || errno == ENOTDIR ||
                   !rt_os_exists(path))) {
        /* Not there, or its way refused: said of the folders. */
        if (!rt_parent_exists(path) && rt_folders_ok(path, e) != 0)
            return -1;
        return 0;
    }
    if (fd < 0 && (fd = rt_os_open(path, RT_OS_READ_AS_WRITE)) < 0)
        return rt_open_refused(path, errno, e);   /* in the open's words */
    int r = rt_flags_refused(fd, path, "the commit cannot change it", e);
    rt_os_close(fd);
    return r;
}

/* What stands at each path C writes, found as preflight's opens find it
 * but read only (a dry run writes nothing, on read-only media too). */
static int check_paths(const struct rt_commit *c, struct rt_error *e)
{
    char last[PATH_MAX] = "";   /* the folder judged last */
    for (size_t i = 0; i < c->n; i++) {
        if (c->files[c->v[i].file_no].first != i)
            continue;   /* seen */
        char path[PATH_MAX];
        if (rt_journal_full_path(path, sizeof path, c->base, c->v[i].file))
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: path too long",
                                c->v[i].file);
        if (rt_commit_check_path(path, e) != 0 ||
            folder_ok(path, strlen(c->base), last, 1, e) != 0)
            return -1;
    }
    return 0;
}

int rt_commit_check(struct rt_commit *c, struct rt_error *e)
{
    if (index_files(c) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (record_intents(c, e) != 0)
        return -1;
    struct rt_journal *j = written_journal(c, e);
    if (!j)
        return -1;
    struct journal_image im;
    int r = -1;
    if (rt_journal_image_make(c, &im) != 0) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    } else {
        if (check_names(c, im.len, e) == 0 && check_extent(c, j, e) == 0 &&
            journal_folder_ok(c, 1, e) == 0 && check_paths(c, e) == 0)
            r = 0;
        rt_journal_image_free(&im);
    }
    rt_journal_free(j);
    return r;
}
