/* Store layer: the hive store's commit: each hive's changed pages (only
 * the bytes that differ, the base block last), the bytes of a .dat table
 * that differ or its splice from the first edit on, side files written
 * and removed, the originals of a replayed hive copied aside, all run
 * through the journal (commit/journal.h); and the store's apply. */
#include "store/hive_internal.h"
#include "platform/compat.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commit/io.h"
#include "regf/log.h"

struct page_ctx {
    struct rt_commit *c;
    const char *rel;
    const uint8_t *img;
    uint64_t bins_end, file_end;
    int fd;                /* the file as it is, to see what really changed */
    int failed;
    int base_last;         /* now adding the base block */
};

static int all_zero(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Pages past the bins the file's base block covers (appended bins) are
 * read by nobody until the new base block lands: they go straight to the
 * file, once, ahead of the journal (rt_commit_write_fresh). Those past
 * the file's end that hold only zeros are not written at all: growing
 * the file (its size record) gives zeros there. */
static int add_page(void *ctx, uint64_t off, size_t len)
{
    struct page_ctx *pc = ctx;
    const uint8_t *img = pc->img;
    /* The base block goes last (commit_hive). */
    if (off == 0 && !pc->base_last)
        return 0;
    if (off >= pc->file_end && all_zero(img + off, len))
        return 0;
    /* Within the file, only the bytes that differ from what it holds are
     * recorded: a page touched for a 4-byte cell header costs 4 bytes,
     * not 4 KB, twice (journal and file). */
    if (off < pc->file_end && pc->fd >= 0) {
        uint8_t old[REGF_HBIN_ALIGN];
        if (len <= sizeof old &&
            rt_os_pread(pc->fd, old, len, off) == (long long)len) {
            size_t a = 0, b = len;
            while (a < len && old[a] == img[off + a])
                a++;
            if (a == len)
                return 0;
            while (old[b - 1] == img[off + b - 1])
                b--;
            off += a;
            len = b - a;
        }
    }
    int r = off >= pc->bins_end
                ? rt_commit_write_fresh_borrowed(pc->c, pc->rel, off,
                                                 img + off, len)
                : rt_commit_write_borrowed(pc->c, pc->rel, off, img + off,
                                           len);
    if (r != 0) {
        pc->failed = 1;
        return 1;
    }
    return 0;
}

/* Adds a hive's changed pages (all of it when it was replayed from logs)
 * to the commit. */
static int commit_hive(struct hive_store *s, struct hive_file *hf,
                       struct rt_commit *c)
{
    if (!rt_regf_changed_count(hf->h) && !hf->replayed)
        return 0;
    if (rt_regf_seal(hf->h) != 0)
        return -1;
    const uint8_t *img;
    size_t len;
    rt_regf_image(hf->h, &img, &len);
    const char *rel = hive_relative(s->base_dir, hf->path);
    if (hf->replayed) {
        if (rt_commit_write_borrowed(c, rel, 0, img, len) != 0)
            return -1;
    } else {
        /* The base block (sealed: always changed) is written after
         * every other byte of the file, so whoever sees the new one sees
         * all this commit wrote (hive_file_unchanged relies on it). */
        struct page_ctx pc = {c, rel, img, hf->bins_end, hf->file_end,
                              rt_os_open(hf->path, RT_OS_READ), 0, 0};
        rt_regf_changed_pages(hf->h, add_page, &pc);
        if (!pc.failed && rt_commit_set_size(c, rel, len) != 0)
            pc.failed = 1;
        pc.base_last = 1;
        if (!pc.failed)
            add_page(&pc, 0, REGF_BASE_BLOCK_SIZE);
        if (pc.fd >= 0)
            rt_os_close(pc.fd);
        return pc.failed ? -1 : 0;
    }
    return rt_commit_set_size(c, rel, len);
}

#define DAT_PAGE 4096u

/* Adds the byte ranges of a .dat file that differ from what it holds,
 * compared page by page and trimmed to the bytes that differ: an
 * install's appended pairs cost their own bytes, the unchanged prefix
 * nothing. The old bytes are those read_table mapped; a file it did not
 * read (the SysWOW64 copy) is mapped here, once. BORROW: D's bytes last
 * until the commit is run (a change's own value), so the records point
 * at them instead of copying them. */
static int commit_dat(struct hive_store *s, const struct dat_write *d,
                      struct rt_commit *c, int borrow)
{
    int (*record)(struct rt_commit *, const char *, uint64_t, const void *,
                  size_t) = borrow ? rt_commit_write_borrowed
                                   : rt_commit_write;
    struct rt_os_map tmp = {0};
    const struct rt_os_map *old = NULL;
    struct dat_seen *seen = hive_dat_seen_find(s, d->path);
    if (seen)
        old = &seen->map;
    else if (rt_os_map_file(d->path, &tmp) == 0)
        old = &tmp;
    const uint8_t *o = old ? old->data : NULL, *n = d->v->data;
    size_t old_len = old ? old->len : 0, new_len = d->v->len;
    const char *rel = hive_relative(s->base_dir, d->path);
    /* A run of differing bytes [ws, we), flushed when the next difference
     * is further away than a record costs. */
    uint64_t ws = 0, we = 0;
    int run = 0, r = 0;
    for (size_t off = 0; off < new_len && r == 0; off += DAT_PAGE) {
        size_t len = new_len - off < DAT_PAGE ? new_len - off
                                                    : DAT_PAGE;
        size_t a = 0, b = len;
        if (off < old_len) {
            size_t cmp = old_len - off < len ? old_len - off : len;
            if (cmp == len && !memcmp(o + off, n + off, len))
                continue;
            while (a < cmp && o[off + a] == n[off + a])
                a++;
            if (cmp == len)
                while (b > a && o[off + b - 1] == n[off + b - 1])
                    b--;
        }
        if (run && off + a <= we + 64) {
            we = off + b;
            continue;
        }
        if (run)
            r = record(c, rel, ws, n + ws, (size_t)(we - ws));
        ws = off + a;
        we = off + b;
        run = 1;
    }
    if (r == 0 && run)
        r = record(c, rel, ws, n + ws, (size_t)(we - ws));
    if (r == 0 && (new_len != old_len || !old))
        r = rt_commit_set_size_in_order(c, rel, new_len);
    rt_os_unmap_file(&tmp);
    return r;
}

/* Whether the file at PATH holds at least N bytes and begins with DATA's
 * N bytes; *SIZE gets its size. 1, 0, or -1 with errno set. The file is
 * mapped and compared a megabyte at a time, each one's pages given back
 * once compared: it costs no memory, and no copy into a buffer (read
 * into one, the comparison took a fifth more). */
#define COMPARE_PIECE ((size_t)1 << 20)
static int file_starts_with(const char *path, const uint8_t *data, size_t n,
                            uint64_t *size)
{
    struct rt_os_map m;
    if (rt_os_map_file(path, &m) != 0)
        return -1;
    *size = m.len;
    int same = m.len >= n;
    for (size_t off = 0; same == 1 && off < n; off += COMPARE_PIECE) {
        size_t k = n - off < COMPARE_PIECE ? n - off : COMPARE_PIECE;
        same = !memcmp(m.data + off, data + off, k);
        rt_os_map_release(&m, off, k);
    }
    rt_os_unmap_file(&m);
    return same;
}

/* The splice last written from its first edit on: the bytes the commit
 * holds for PATH's record. */
struct made_splice {
    const struct rt_change *c;
    const char *path;
    const uint8_t *bytes;
    size_t n;
};

/* A .dat table spliced (D->splice): the bytes from its first edit on
 * written, composed from the table the change was computed from
 * (System32's file; D->before names it for a SysWOW64 copy). A copy that
 * differs from it before that edit, or is missing, gets the whole new
 * table instead, as commit_dat writes one. A copy staged right after
 * System32's table (LAST) gets the very bytes of its record: the same
 * splice of the same table, held once. */
static int commit_dat_splice(struct hive_store *s, const struct dat_write *d,
                             struct rt_commit *cm, struct made_splice *last,
                             struct rt_error *e)
{
    const struct rt_change *c = d->splice;
    struct dat_seen *src = NULL;
    if (c->before_present &&
        !(src = hive_dat_seen_map(s, d->before ? d->before : d->path)))
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s",
                            d->before ? d->before : d->path, rt_os_strerror(errno));
    const uint8_t *old = src ? src->map.data : NULL;
    size_t old_len = src ? src->map.len : 0;
    if (old_len != c->before_len)
        return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                            "internal error: %s is not the table the change "
                            "was computed from; nothing was written",
                            d->before ? d->before : d->path);
    size_t at = c->edits[0].at;
    uint64_t dst_len = old_len;
    int whole = 0;
    if (d->before) {
        /* SysWOW64's copy takes the splice where it is System32's table
         * up to the first edit (compared a piece at a time: it costs no
         * memory). */
        int same = rt_os_exists(d->path)
                       ? file_starts_with(d->path, old, at, &dst_len)
                       : 0;
        if (same < 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", d->path,
                                rt_os_strerror(errno));
        whole = !same;
    }
    uint8_t *bytes = NULL;
    const uint8_t *shared = NULL;
    size_t n = 0;
    int r = 0;
    if (!whole && d->before && last->c == c && last->path &&
        !strcmp(last->path, d->before)) {
        shared = last->bytes;
        n = last->n;
    } else {
        r = rt_change_splice_from(c, old, old_len, whole ? 0 : at, &bytes, &n);
    }
    /* The view was read through (the copy compared up to the edit, the
     * bytes after it spliced): given back, not held for every table. */
    if (src)
        rt_os_map_release(&src->map, 0, old_len);
    if (r != 0)
        return rt_error_set(e, r < 0 ? RT_ERR_NOT_ENOUGH_MEMORY
                                     : RT_ERR_INTERNAL_ERROR,
                            "%s: %s", d->path,
                            r < 0 ? "out of memory"
                                  : "the change does not fit the table");
    if (whole) {
        struct rt_value v = {c->value.type, bytes, n};
        struct dat_write w = {d->path, &v, NULL, NULL, 0};
        r = commit_dat(s, &w, cm, 0);
    } else {
        const char *rel = hive_relative(s->base_dir, d->path);
        if (shared) {
            r = rt_commit_write_borrowed(cm, rel, at, shared, n);
        } else {
            /* The commit frees them, after the copy's record borrowed
             * them. */
            const uint8_t *made = bytes;
            r = rt_commit_write_taken(cm, rel, at, bytes, n);
            bytes = NULL;
            if (r == 0)
                *last = (struct made_splice){c, d->path, made, n};
        }
        if (r == 0 && at + n != dst_len)
            r = rt_commit_set_size_in_order(cm, rel, at + n);
    }
    free(bytes);
    return r == 0 ? 0
                  : rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* A side file's removal: the file, then the folders it leaves empty
 * below the top one ("INF/Xfer/0009/x.ini": 0009 and Xfer, never INF).
 * Nothing to do for a file that is not there. */
static int commit_delete(struct hive_store *s, const struct dat_write *d,
                         struct rt_commit *c)
{
    if (!rt_os_exists(d->path))
        return 0;
    const char *rel = hive_relative(s->base_dir, d->path);
    const char *win = hive_windows_dir(&s->base);
    const char *in_win = hive_relative(win, d->path);
    unsigned parts = 1;
    for (const char *q = in_win; *q; q++)
        parts += *q == '/';
    return rt_commit_delete(c, rel, parts > 2 ? parts - 2 : 0);
}

/* Copies the original primary and its logs aside before a replayed hive
 * is written over them: what the replay read of each (rt_regf_copy_aside:
 * never a log's sparse gigabytes, at the file's own permission bits; a
 * file that is no longer a regular one stops the commit). */
static int backup_replayed(struct hive_store *s, struct hive_file *hf,
                           struct rt_error *e)
{
    struct rt_regf_log_paths logs;
    if (rt_regf_log_find(hf->path, &logs) != 0)
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", hf->path,
                            rt_os_strerror(errno));
    char stamp[32];
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", gmtime(&now));
    const char *files[1 + RT_REGF_LOG_SLOTS] = {hf->path};
    for (int i = 0; i < RT_REGF_LOG_SLOTS; i++)
        files[1 + i] = logs.path[i];
    int rc = 0;
    /* The user is told which logs were replayed and where the originals
     * went: the copies are the only way back to the files as they were,
     * and files appearing unannounced look like a fault. */
    char logs_said[1200] = "", copies[1600] = "";
    for (int i = 0; i < 1 + RT_REGF_LOG_SLOTS && rc == 0; i++) {
        if (!files[i])
            continue;
        char *dst = NULL;
        int made, r = -1;
        /* A name of that stamp there already (a copy of an earlier run
         * this second, or names the tree's author planted for every
         * second to come) is not the end: the process's id and a count
         * make another, which nobody can have planted for each. */
        for (int k = 0; k < 16; k++) {
            free(dst);
            dst = NULL;
            if ((k ? asprintf(&dst, "%s.regtool-%s-%ld-%d", files[i], stamp,
                              rt_os_getpid(), k)
                   : asprintf(&dst, "%s.regtool-%s", files[i], stamp)) < 0)
                break;
            if ((r = rt_regf_copy_aside(files[i], i > 0, dst, &made)) == 0 ||
                errno != EEXIST)
                break;
        }
        if (!dst) {
            rc = rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            break;
        }
        if (r != 0)
            rc = rt_error_set(e, errno == EINTR ? RT_ERR_CANCELLED
                                                : RT_ERR_WRITE_FAULT,
                              "backup of %s as %s: %s", files[i], dst,
                              rt_os_strerror(errno));
        else if (made) {
            const char *base = strrchr(dst, '/');
            size_t at = strlen(copies);
            snprintf(copies + at, sizeof copies - at, "%s%s",
                     *copies ? ", " : "", base ? base + 1 : dst);
            if (i > 0) {
                const char *lb = strrchr(files[i], '/');
                at = strlen(logs_said);
                snprintf(logs_said + at, sizeof logs_said - at, "%s%s",
                         *logs_said ? " and " : "", lb ? lb + 1 : files[i]);
            }
        }
        free(dst);
    }
    if (rc == 0 && *copies) {
        char line[3200];
        snprintf(line, sizeof line,
                 "%s was dirty: its transaction logs (%s) were replayed "
                 "into it for this change; the files as they were are kept "
                 "beside it as %s", hf->path, *logs_said ? logs_said : "none",
                 copies);
        hive_notice(s, line);
    }
    rt_regf_log_paths_free(&logs);
    return rc;
}

/* What CS does, in a few words, for the journal ("install of Xfer"). */
static void describe(const struct rt_change_set *cs, char *buf, size_t size)
{
    const char *svc = NULL, *verb = "change";
    int others = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (!c->service)
            continue;
        /* A restore, repair or rebuild changes many services: named as
         * the change of the first and others, not as one's install. */
        if (svc && strcmp(svc, c->service)) {
            others = 1;
            break;
        }
        svc = c->service;
        if (c->name && !strcmp(c->name, "First Counter"))
            verb = c->op == RT_CHANGE_DELETE_SERVICE ? "uninstall" : "install";
        else if (c->name && !strcmp(c->name, "Disable Performance Counters") &&
                 !strcmp(verb, "change"))
            verb = c->op == RT_CHANGE_DELETE_SERVICE ? "enable" : "disable";
    }
    if (others)
        snprintf(buf, size, "change of %s and other services", svc);
    else if (svc)
        snprintf(buf, size, "%s of %s", verb, svc);
    else
        snprintf(buf, size, "change of %zu values", cs->n);
}

/* CS made in the images and committed, or with CHECK_ONLY checked as
 * its commit would check it (rt_commit_check) and the images read
 * again: nothing written either way when it fails. */
static int commit_change(struct rt_store *st, const struct rt_change_set *cs,
                         int check_only, struct rt_error *e)
{
    struct hive_store *s = hs(st);
    struct hive_file *hives[2] = {&s->software, &s->system};
    for (int i = 0; i < 2; i++)
        if (hives[i]->dirty_unusable)
            return rt_error_set(
                e, RT_ERR_BADDB,
                "%s is dirty and its transaction logs cannot be replayed "
                "(%s); writing it would discard changes only the logs hold. "
                "Nothing was written (--force-dirty writes it anyway)",
                hives[i]->path, hives[i]->dirty_why);
    for (int i = 0; i < 2; i++)
        if (hives[i]->file_end > hives[i]->bins_end + HIVE_SLACK_MAX)
            return rt_error_set(
                e, RT_ERR_BADDB,
                "%s runs %llu bytes past the hive bins its base block "
                "covers (%llu bytes): no hive Windows writes, and a commit "
                "would cut the file to its bins. Nothing was written",
                hives[i]->path,
                (unsigned long long)(hives[i]->file_end - hives[i]->bins_end),
                (unsigned long long)hives[i]->bins_end);
    struct pending p = {0};
    struct rt_commit *c = NULL;
    /* A test's injected failure is the commit's, not its check's. */
    size_t fail_after = check_only ? 0 : s->fail_after;
    if (!check_only)
        s->fail_after = 0;
    int rc = -1;
    for (size_t i = 0; i < cs->n; i++) {
        if (fail_after && i == fail_after) {
            rt_error_set(e, RT_ERR_WRITE_FAULT,
                         "hive store: injected failure after %zu changes",
                         fail_after);
            goto out;
        }
        if (hive_apply_one(s, &cs->v[i], &p, e) != 0)
            goto out;
    }
    c = rt_commit_new(s->base_dir, s->journal);
    struct rt_journal_scope scope = hive_journal_scope(s);
    if (c)
        rt_commit_set_scope(c, &scope);
    char what[200];
    describe(cs, what, sizeof what);
    if (!c || rt_commit_set_note(c, what) || commit_hive(s, &s->software, c) ||
        commit_hive(s, &s->system, c)) {
        /* Memory is all these need: the hive's message may be an
         * earlier call's (a key that existed), not this failure's. */
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                     "preparing the commit: out of memory");
        goto out;
    }
    struct made_splice last = {0};
    for (size_t i = 0; i < p.n_dats; i++) {
        if (p.dats[i].splice) {
            if (commit_dat_splice(s, &p.dats[i], c, &last, e) != 0)
                goto out;
        } else if (commit_dat(s, &p.dats[i], c, 1) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto out;
        }
    }
    for (size_t i = 0; i < p.n_files; i++)
        if ((p.files[i].v ? commit_dat(s, &p.files[i], c, 1)
                          : commit_delete(s, &p.files[i], c)) != 0) {
            rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
            goto out;
        }
    /* The commit has the bytes it writes; the views go before the files
     * change (Windows cannot resize a mapped file). */
    hive_dats_drop(s);
    if (check_only) {
        rc = rt_commit_check(c, e);
        goto out;
    }
    for (int i = 0; i < 2; i++)
        if (hives[i]->replayed && backup_replayed(s, hives[i], e) != 0)
            goto out;
    if (rt_commit_run(c, e) != 0)
        goto out;
    rc = 0;
out:
    rt_commit_free(c);
    hive_pending_free(&p);
    hive_dats_drop(s);
    if (rc == 0 && !check_only) {
        /* The images are what the files now hold. */
        hive_file_committed(&s->software);
        hive_file_committed(&s->system);
        return 0;
    }
    /* Read back what the files hold: drops the half-applied images. */
    struct rt_error e2 = {0};
    if (hive_load_all(s, 0, &e2) != 0 && rc == 0) {
        if (e)
            *e = e2;
        rc = -1;
    }
    return rc;
}

int hive_apply(struct rt_store *st, const struct rt_change_set *cs,
               struct rt_error *e)
{
    return commit_change(st, cs, 0, e);
}

/* A dry run reads the files as they are, without the lock; what the
 * writer's begin() would refuse is checked first, in its words (review
 * 38 F3): the lock's file, a journal it would not replay. */
int hive_check_apply(struct rt_store *st, const struct rt_change_set *cs,
                     struct rt_error *e)
{
    struct hive_store *s = hs(st);
    if (rt_lock_check(s->lock_path, e) != 0)
        return -1;
    struct rt_journal *j = NULL;
    struct rt_journal_scope scope = hive_journal_scope(s);
    int found = rt_journal_load(s->journal, &scope, &j, e);
    rt_journal_free(j);
    if (found < 0)
        return -1;
    return cs->n ? commit_change(st, cs, 1, e) : 0;
}
