/* Commit layer: redo journal, recovery and the writer lock. */
#include "commit/journal.h"
#include "model/printable.h"
#include "platform/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JOURNAL_MAGIC  "RTJOURN3"
#define COMMIT_MAGIC   "RTCOMMIT"
#define TRAILER_SIZE   24      /* magic, u64 body length, u32 crc, u32 count */
#define REC_WRITE      1u
#define REC_SIZE       2u
#define REC_FRESH      3u      /* never in the journal: written before it */
#define REC_DELETE     4u      /* the file is removed; OFFSET: how many of
                                  its parent directories to remove too
                                  when that leaves them empty */
/* A size record's data, when it has any, is one byte of flags (journals
 * without it, as earlier versions wrote them, mean no flag). */
#define SIZE_IN_ORDER  0x01u   /* set where the record stands: the file is
                                  not lengthened ahead of the records */
/* No file a commit writes reaches past 4 GiB (a hive's bins size and a
 * table's value length are 32-bit): a record saying more is no commit's,
 * and replayed it would make a sparse file of terabytes. */
#define MAX_FILE_END   ((uint64_t)1 << 32)
/* Nor does a commit touch more files than this: two hives, four tables
 * a language, the backup and the INF copies of each language folder. */
#define MAX_FILES      65536u

struct record {
    uint32_t kind;
    char *file;
    uint64_t offset;    /* REC_WRITE: where; REC_SIZE: the final size;
                           REC_DELETE: parents to prune */
    const uint8_t *data;
    size_t len;
    uint8_t *owned;     /* DATA when the commit frees it; NULL when it
                           is the caller's (borrowed) */
};

/* How a record holds the bytes it is given. */
enum hold { COPY, BORROW, TAKE };

/* A file that gets fresh bytes, and its size before the commit: an
 * unsealed journal is rolled back by cutting the file to that size. */
struct intent {
    char *file;
    uint64_t size;
};

struct rt_commit {
    char *base, *journal;
    char *what;             /* "install of Xfer", for whoever finds it */
    struct intent *intents;
    size_t n_intents;
    struct record *v;
    size_t n, cap;
    uint64_t bytes;
    struct rt_journal_scope scope;
    int scoped;
};

struct rt_commit *rt_commit_new(const char *base_dir, const char *journal_path)
{
    struct rt_commit *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base = strdup(base_dir);
    c->journal = strdup(journal_path);
    if (!c->base || !c->journal) {
        rt_commit_free(c);
        return NULL;
    }
    return c;
}

void rt_commit_free(struct rt_commit *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n; i++) {
        free(c->v[i].file);
        free(c->v[i].owned);
    }
    free(c->v);
    for (size_t i = 0; i < c->n_intents; i++)
        free(c->intents[i].file);
    free(c->intents);
    free(c->base);
    free(c->journal);
    free(c->what);
    free(c);
}

int rt_commit_set_note(struct rt_commit *c, const char *what)
{
    free(c->what);
    c->what = strdup(what ? what : "");
    return c->what ? 0 : -1;
}

void rt_commit_set_scope(struct rt_commit *c,
                         const struct rt_journal_scope *scope)
{
    c->scope = *scope;
    c->scoped = 1;
}

/* rt_journal_path_problem for the LEN bytes at NAME (not NUL-ended: a
 * NUL inside is a problem too). */
static const char *name_problem(const char *name, size_t len)
{
    if (len == 0)
        return "an empty path";
    if (len > RT_JOURNAL_NAME_MAX)
        return "a path longer than any a commit writes";
    if (name[0] == '/')
        return "an absolute path";
    size_t part = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || name[i] == '/') {
            const char *p = name + i - part;
            if (part == 0)
                return "an empty component";
            if (part == 1 && p[0] == '.')
                return "a '.' component";
            if (part == 2 && p[0] == '.' && p[1] == '.')
                return "a '..' component";
            part = 0;
            continue;
        }
        unsigned char ch = (unsigned char)name[i];
        /* '\\' and ':' are a separator, a drive and a stream to Windows,
         * which reads the same disk. */
        if (ch == '\\')
            return "a backslash";
        if (ch == ':')
            return "a ':' (a drive letter or a stream)";
        if (ch == 0)
            return "a NUL byte";
        if (ch < 0x20 || ch == 0x7f)
            return "a control character";
        part++;
    }
    return NULL;
}

const char *rt_journal_path_problem(const char *rel)
{
    return name_problem(rel, strlen(rel));
}

static int add(struct rt_commit *c, uint32_t kind, const char *file,
               uint64_t offset, const void *data, size_t len, enum hold hold)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct record *v = realloc(c->v, cap * sizeof *v);
        if (!v) {
            if (hold == TAKE)
                free((void *)data);
            return -1;
        }
        c->v = v;
        c->cap = cap;
    }
    struct record *r = &c->v[c->n];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->offset = offset;
    r->len = len;
    r->file = strdup(file);
    if (hold == TAKE)
        r->owned = (uint8_t *)data;
    else if (hold == COPY && len && (r->owned = malloc(len)) != NULL)
        memcpy(r->owned, data, len);
    r->data = hold == BORROW ? data : r->owned;
    if (!r->file || (len && !r->data)) {
        free(r->file);
        free(r->owned);
        return -1;
    }
    c->n++;
    if (kind != REC_SIZE)
        c->bytes += len;
    return 0;
}

int rt_commit_write(struct rt_commit *c, const char *file, uint64_t offset,
                    const void *data, size_t len)
{
    return add(c, REC_WRITE, file, offset, data, len, COPY);
}

int rt_commit_write_borrowed(struct rt_commit *c, const char *file,
                             uint64_t offset, const void *data, size_t len)
{
    return add(c, REC_WRITE, file, offset, data, len, BORROW);
}

int rt_commit_write_taken(struct rt_commit *c, const char *file,
                          uint64_t offset, void *data, size_t len)
{
    return add(c, REC_WRITE, file, offset, data, len, TAKE);
}

int rt_commit_write_fresh(struct rt_commit *c, const char *file,
                          uint64_t offset, const void *data, size_t len)
{
    return add(c, REC_FRESH, file, offset, data, len, COPY);
}

int rt_commit_write_fresh_borrowed(struct rt_commit *c, const char *file,
                                   uint64_t offset, const void *data,
                                   size_t len)
{
    return add(c, REC_FRESH, file, offset, data, len, BORROW);
}

int rt_commit_set_size(struct rt_commit *c, const char *file, uint64_t size)
{
    return add(c, REC_SIZE, file, size, NULL, 0, COPY);
}

int rt_commit_set_size_in_order(struct rt_commit *c, const char *file,
                                uint64_t size)
{
    static const uint8_t flags = SIZE_IN_ORDER;
    return add(c, REC_SIZE, file, size, &flags, 1, COPY);
}

int rt_commit_delete(struct rt_commit *c, const char *file, unsigned prune)
{
    return add(c, REC_DELETE, file, prune, NULL, 0, COPY);
}

size_t rt_commit_records(const struct rt_commit *c)
{
    return c->n;
}

uint64_t rt_commit_bytes(const struct rt_commit *c)
{
    return c->bytes;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* The journal's header: magic, the commit's time (u64 seconds since 1970)
 * and what it does (u32 length, text); the intent block follows it. */
static size_t header_len(const struct rt_commit *c)
{
    return 8 + 8 + 4 + (c->what ? strlen(c->what) : 0);
}

/* The journal of a commit, as it is written: the header and the intent
 * block (count, then per file path length, size before, path; a CRC of
 * everything so far), then per record kind, path length, offset, data
 * length, path, data; then the trailer. Only what frames the records is
 * made here: their data is written from where the records hold it (the
 * change's own bytes, mostly borrowed), so a commit's bytes are held
 * once, not twice. */
struct journal_image {
    uint8_t *head;              /* header and intent block: ILEN bytes */
    size_t ilen;
    uint8_t *frames;            /* each record's kind, lengths, offset and
                                   path, one after another */
    /* The body: HEAD, then each record's frame and data. */
    struct rt_io_piece *pieces;
    size_t n_pieces;
    uint8_t trailer[TRAILER_SIZE];
    size_t len;                 /* the whole journal */
};

static void image_free(struct journal_image *im)
{
    free(im->head);
    free(im->frames);
    free(im->pieces);
    memset(im, 0, sizeof *im);
}

static int make_image(const struct rt_commit *c, struct journal_image *im)
{
    memset(im, 0, sizeof *im);
    size_t hl = header_len(c), ilen = hl + 4 + 4, flen = 0, n = 0;
    for (size_t i = 0; i < c->n_intents; i++)
        ilen += 12 + strlen(c->intents[i].file);
    size_t len = ilen + TRAILER_SIZE;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].kind != REC_FRESH) {
            size_t fl = strlen(c->v[i].file);
            flen += 20 + fl;
            len += 20 + fl + c->v[i].len;
            n++;
        }
    im->head = malloc(ilen);
    im->frames = malloc(flen ? flen : 1);
    im->pieces = malloc((1 + 2 * n) * sizeof *im->pieces);
    if (!im->head || !im->frames || !im->pieces) {
        image_free(im);
        return -1;
    }
    uint8_t *p = im->head;
    memcpy(p, JOURNAL_MAGIC, 8);
    put64(p + 8, (uint64_t)time(NULL));
    put32(p + 16, (uint32_t)(hl - 20));
    if (hl > 20)
        memcpy(p + 20, c->what, hl - 20);
    p += hl;
    put32(p, (uint32_t)c->n_intents);
    p += 4;
    for (size_t i = 0; i < c->n_intents; i++) {
        size_t fl = strlen(c->intents[i].file);
        put32(p, (uint32_t)fl);
        put64(p + 4, c->intents[i].size);
        memcpy(p + 12, c->intents[i].file, fl);
        p += 12 + fl;
    }
    put32(p, rt_crc32(0, im->head, (size_t)(p - im->head)));
    im->ilen = ilen;
    uint32_t crc = rt_crc32(0, im->head, ilen);
    im->pieces[im->n_pieces++] = (struct rt_io_piece){im->head, ilen};
    uint8_t *f = im->frames;
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        if (r->kind == REC_FRESH)
            continue;
        size_t fl = strlen(r->file);
        put32(f, r->kind);
        put32(f + 4, (uint32_t)fl);
        put64(f + 8, r->offset);
        put32(f + 16, (uint32_t)r->len);
        memcpy(f + 20, r->file, fl);
        crc = rt_crc32(crc, f, 20 + fl);
        im->pieces[im->n_pieces++] = (struct rt_io_piece){f, 20 + fl};
        f += 20 + fl;
        if (r->len) {
            crc = rt_crc32(crc, r->data, r->len);
            im->pieces[im->n_pieces++] = (struct rt_io_piece){r->data, r->len};
        }
    }
    size_t body = len - TRAILER_SIZE;
    memcpy(im->trailer, COMMIT_MAGIC, 8);
    put64(im->trailer + 8, body);
    put32(im->trailer + 16, crc);
    put32(im->trailer + 20, (uint32_t)n);
    im->len = len;
    return 0;
}

static int full_path(char *buf, size_t size, const char *base, const char *rel)
{
    int n = snprintf(buf, size, "%s/%s", base, rel);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* Opens PATH for writing, created when missing with the directories
 * above it: a commit may write a file in folders of its own (an INF
 * copy), made only from its commit point on, so a commit that never gets
 * there leaves no folder behind. */
static int open_create(const char *path)
{
    int fd = rt_os_open(path, RT_OS_WRITE_CREATE);
    if (fd >= 0 || errno != ENOENT)
        return fd;
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return -1;
    *slash = '\0';
    if (rt_os_mkdirs(dir) != 0)
        return -1;
    return rt_os_open(path, RT_OS_WRITE_CREATE);
}

/* The file records are being written to. A file's records come together,
 * so each file is opened once and fsynced when the next one begins. */
struct target {
    char path[PATH_MAX];
    int fd;
};

/* Fsyncs and closes the current file. */
static int target_finish(struct target *t, struct rt_error *e)
{
    if (t->fd < 0)
        return 0;
    int r = rt_io_fsync(t->fd);
    int err = errno;
    rt_os_close(t->fd);
    t->fd = -1;
    return r ? rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", t->path,
                            rt_os_strerror(err))
             : 0;
}

/* Makes BASE/REL the current file, finishing the previous one. */
static int target_switch(struct target *t, const char *base, const char *rel,
                         struct rt_error *e)
{
    char path[PATH_MAX];
    if (full_path(path, sizeof path, base, rel) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s/%s: path too long",
                            base, rel);
    if (t->fd >= 0 && !strcmp(path, t->path))
        return 0;
    if (target_finish(t, e) != 0)
        return -1;
    t->fd = open_create(path);
    if (t->fd < 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            rt_os_strerror(errno));
    snprintf(t->path, sizeof t->path, "%s", path);
    return 0;
}

/* Directories whose entries a pass removed, fsynced once each when the
 * pass ends (before the journal is retired, which is all the removals'
 * durability needs): an uninstall removing an INF copy's two files and
 * its two folders fsyncs the folder above them once, not four times.
 * Each is named by a path inside it, as rt_io_fsync_dir_of takes it. */
struct dir_syncs {
    char **paths;
    size_t n;
};

static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) : 0;
}

static int dirs_note(struct dir_syncs *d, const char *path)
{
    size_t dl = dir_len(path);
    for (size_t i = 0; i < d->n; i++)
        if (dir_len(d->paths[i]) == dl && !memcmp(d->paths[i], path, dl))
            return 0;
    char **v = realloc(d->paths, (d->n + 1) * sizeof *v);
    if (!v)
        return -1;
    d->paths = v;
    if (!(v[d->n] = strdup(path)))
        return -1;
    d->n++;
    return 0;
}

static void dirs_free(struct dir_syncs *d)
{
    for (size_t i = 0; i < d->n; i++)
        free(d->paths[i]);
    free(d->paths);
    d->paths = NULL;
    d->n = 0;
}

/* Fsyncs each noted directory; one removed since is no error (its
 * removal is made durable in the directory above, which is noted too). */
static int dirs_flush(struct dir_syncs *d, struct rt_error *e)
{
    int r = 0;
    for (size_t i = 0; i < d->n && !r; i++)
        if (rt_io_fsync_dir_of(d->paths[i]) != 0 && errno != ENOENT)
            r = rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", d->paths[i],
                             rt_os_strerror(errno));
    dirs_free(d);
    return r;
}

/* Removes BASE/REL (a missing file is no error: a replay after a crash
 * may find it gone), then up to PRUNE of its parent directories that it
 * leaves empty: an uninstall's INF copy goes with its folders. Each
 * removal's directory is noted in DIRS, to be fsynced. */
static int delete_file(const char *base, const char *rel, uint64_t prune,
                       struct dir_syncs *dirs, struct rt_error *e)
{
    char path[PATH_MAX];
    if (full_path(path, sizeof path, base, rel) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s/%s: path too long",
                            base, rel);
    if (rt_io_unlink(path) != 0 && errno != ENOENT)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            rt_os_strerror(errno));
    if (dirs_note(dirs, path) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (uint64_t i = 0; i < prune; i++) {
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            break;
        *slash = '\0';
        /* Not empty, or gone already: left as it is. */
        if (rt_os_rmdir(path) != 0)
            break;
        if (dirs_note(dirs, path) != 0)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                "out of memory");
    }
    return 0;
}

/* --- a journal read back ---------------------------------------------------- */

/* A record of a journal body, checked: FILE a plain name of the store,
 * DATA inside the journal's buffer. */
struct jrec {
    uint32_t kind;
    int in_order;           /* REC_SIZE: SIZE_IN_ORDER */
    const char *file;
    uint64_t offset;
    const uint8_t *data;
    uint32_t len;
};

struct rt_journal {
    char *path;
    uint8_t *buf;
    size_t len;
    struct rt_journal_info info;
    /* The intent block, when it is whole: what rolls an unsealed journal
     * back. FILE points into NAMES. */
    struct intent *intents;
    size_t n_intents;
    struct jrec *recs;      /* a sealed journal's records */
    size_t n_recs;
    struct rt_journal_file *files;
    size_t n_files;
    /* Per file (as FILES): the largest size a record not in order gives
     * it, which the first pass of a replay lengthens it to; 0: none. */
    uint64_t *grow_to;
    /* FILES by name: a hash table of indexes + 1 (0: free), so that
     * listing them costs a look-up per record, whatever the journal. */
    uint32_t *slots;
    size_t n_slots, max_files;
    char *names;            /* every name, NUL-ended, one after another */
    size_t names_used;
};

/* Where the intent block of journal B (LEN bytes) starts: past the
 * header. 0 when the header is incomplete. */
static size_t intents_at(const uint8_t *b, size_t len)
{
    if (len < 20 || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    uint32_t wl = get32(b + 16);
    if (wl > 4096 || len - 20 < wl)
        return 0;
    return 20 + wl;
}

/* Length of the intent block at the start of journal B (LEN bytes): the
 * magic, the files that get fresh bytes with their sizes before the
 * commit, and a CRC. 0 when it is incomplete or damaged. Each entry is
 * at least 13 bytes of B, so the count is bounded by LEN. */
static size_t intent_len(const uint8_t *b, size_t len)
{
    size_t pos = intents_at(b, len);
    if (!pos || len - pos < 4)
        return 0;
    uint32_t n = get32(b + pos);
    pos += 4;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return 0;
        uint32_t fl = get32(b + pos);
        if (fl == 0 || len - pos - 12 < fl)
            return 0;
        pos += 12 + fl;
    }
    if (len - pos < 4 || get32(b + pos) != rt_crc32(0, b, pos))
        return 0;
    return pos + 4;
}

/* Whether B (LEN bytes) is a sealed journal; *BODY its body length. */
static int sealed(const uint8_t *b, size_t len, size_t *body)
{
    if (len < 20 + TRAILER_SIZE || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    const uint8_t *t = b + len - TRAILER_SIZE;
    if (memcmp(t, COMMIT_MAGIC, 8) != 0 || get64(t + 8) != len - TRAILER_SIZE)
        return 0;
    *body = len - TRAILER_SIZE;
    return get32(t + 16) == rt_crc32(0, b, *body);
}

/* NAME (LEN bytes) as it can be printed: other than printable ASCII as
 * \xNN, cut at about SIZE. */
static void shown_name(const uint8_t *name, size_t len, char *buf,
                       size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        if (name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\\')
            buf[o++] = (char)name[i];
        else
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", name[i]);
    }
    if (o + 8 >= size && o + 4 <= size)
        memcpy(buf + o, "...", 3), o += 3;
    buf[o] = '\0';
}

/* What a refused journal's message ends with: what happened, why it
 * cannot be ours, and what to do. */
#define REFUSED_TAIL                                                        \
    "; the journal is refused whole: nothing was replayed, cut back or "   \
    "removed, and it stays where it is. This store's commits never "       \
    "write such a journal (it was planted, or damaged): check it, then "   \
    "move it aside (mv %s %s.refused) and run again"

static int refuse(const char *jpath, struct rt_error *e, const char *why)
{
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s" REFUSED_TAIL, jpath, why,
                        jpath, jpath);
}

/* Checks the name of the intent (INTENT) or record number I, FL bytes at
 * NAME, and copies it into J->names. NULL with E when it is refused. */
static const char *take_name(struct rt_journal *j,
                             const struct rt_journal_scope *scope,
                             int intent, size_t i, const uint8_t *name,
                             uint32_t fl, struct rt_error *e)
{
    char shown[300], why[600];
    const char *problem = name_problem((const char *)name, fl);
    char *s = j->names + j->names_used;
    if (!problem) {
        memcpy(s, name, fl);
        s[fl] = '\0';
        if (scope && scope->is_store_file &&
            !scope->is_store_file(scope->ctx, s))
            problem = "not a file this store's commits write";
    }
    if (problem) {
        shown_name(name, fl, shown, sizeof shown);
        snprintf(why, sizeof why, "%s %zu names '%s': %s",
                 intent ? "the intent block's entry" : "record", i + 1, shown,
                 problem);
        refuse(j->path, e, why);
        return NULL;
    }
    j->names_used += fl + 1;
    return s;
}

/* The entry of J->files for FILE, added when missing. */
/* The index in J->files of FILE, added when missing; SIZE_MAX when J
 * would name more files than J->max_files. */
static size_t file_entry(struct rt_journal *j, const char *file)
{
    uint32_t h = 2166136261u;       /* FNV-1a */
    for (const char *q = file; *q; q++)
        h = (h ^ (uint8_t)*q) * 16777619u;
    size_t at = h & (j->n_slots - 1);
    while (j->slots[at] && strcmp(j->files[j->slots[at] - 1].rel, file))
        at = (at + 1) & (j->n_slots - 1);
    if (j->slots[at])
        return j->slots[at] - 1;
    if (j->n_files == j->max_files)
        return SIZE_MAX;
    struct rt_journal_file *f = &j->files[j->n_files];
    memset(f, 0, sizeof *f);
    f->rel = file;
    j->slots[at] = (uint32_t)++j->n_files;
    return j->n_files - 1;
}

/* Parses the intent block of J (ILEN bytes, checked by intent_len). */
static int parse_intents(struct rt_journal *j,
                         const struct rt_journal_scope *scope,
                         struct rt_error *e)
{
    size_t pos = intents_at(j->buf, j->len);
    uint32_t n = get32(j->buf + pos);
    pos += 4;
    j->intents = calloc(n ? n : 1, sizeof *j->intents);
    if (!j->intents)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fl = get32(j->buf + pos);
        const char *file = take_name(j, scope, 1, i, j->buf + pos + 12, fl, e);
        if (!file)
            return -1;
        j->intents[i].file = (char *)file;
        j->intents[i].size = get64(j->buf + pos + 4);
        j->n_intents++;
        pos += 12 + fl;
    }
    return 0;
}

/* Parses and checks every record of J's sealed body, bytes START to
 * BODY, before any is acted on. */
static int parse_records(struct rt_journal *j,
                         const struct rt_journal_scope *scope, size_t start,
                         size_t body, struct rt_error *e)
{
    char why[700], shown[300];
    /* Each record is at least 21 bytes: this bounds the count. */
    size_t most = (body - start) / 21 + 1;
    j->recs = calloc(most, sizeof *j->recs);
    if (!j->recs)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (size_t pos = start; pos < body;) {
        size_t i = j->n_recs;
        if (body - pos < 20 || i == most) {
            snprintf(why, sizeof why, "record %zu at byte %zu is cut short",
                     i + 1, pos);
            return refuse(j->path, e, why);
        }
        struct jrec *r = &j->recs[i];
        r->kind = get32(j->buf + pos);
        uint32_t fl = get32(j->buf + pos + 4);
        r->offset = get64(j->buf + pos + 8);
        r->len = get32(j->buf + pos + 16);
        pos += 20;
        if (r->kind != REC_WRITE && r->kind != REC_SIZE &&
            r->kind != REC_DELETE) {
            snprintf(why, sizeof why,
                     "record %zu at byte %zu is of kind %u, which no commit "
                     "writes", i + 1, pos - 20, (unsigned)r->kind);
            return refuse(j->path, e, why);
        }
        if (body - pos < (uint64_t)fl + r->len) {
            snprintf(why, sizeof why,
                     "record %zu at byte %zu runs past the end of the "
                     "journal", i + 1, pos - 20);
            return refuse(j->path, e, why);
        }
        if (!(r->file = take_name(j, scope, 0, i, j->buf + pos, fl, e)))
            return -1;
        pos += fl;
        r->data = j->buf + pos;
        pos += r->len;
        const char *bad = NULL;
        uint64_t parts = 1;
        for (const char *q = r->file; *q; q++)
            parts += *q == '/';
        if (r->kind == REC_WRITE && r->offset + r->len > MAX_FILE_END)
            bad = "it writes past 4 GiB";
        else if (r->kind == REC_SIZE && r->offset > MAX_FILE_END)
            bad = "it makes the file larger than 4 GiB";
        else if (r->kind == REC_SIZE && r->len > 1)
            bad = "its size record carries more than its one byte of flags";
        else if (r->kind == REC_DELETE && r->len)
            bad = "its removal carries data";
        /* Only folders inside the base: one fewer than the parts. */
        else if (r->kind == REC_DELETE && r->offset >= parts)
            bad = "its removal would remove folders above the tree";
        if (bad) {
            shown_name((const uint8_t *)r->file, strlen(r->file), shown,
                       sizeof shown);
            snprintf(why, sizeof why, "record %zu names '%s': %s", i + 1,
                     shown, bad);
            return refuse(j->path, e, why);
        }
        r->in_order = r->kind == REC_SIZE && r->len && (r->data[0] & SIZE_IN_ORDER);
        j->n_recs++;
    }
    return 0;
}

/* J's files with what it does to each: a sealed journal's records, an
 * unsealed one's roll-back. */
static int list_files(struct rt_journal *j, struct rt_error *e)
{
    size_t most = j->info.sealed ? j->n_recs : j->n_intents;
    if (most > MAX_FILES)
        most = MAX_FILES;
    j->max_files = most;
    for (j->n_slots = 16; j->n_slots < 2 * most; j->n_slots *= 2)
        ;
    j->files = calloc(most ? most : 1, sizeof *j->files);
    j->grow_to = calloc(most ? most : 1, sizeof *j->grow_to);
    j->slots = calloc(j->n_slots, sizeof *j->slots);
    if (!j->files || !j->grow_to || !j->slots)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t n = j->info.sealed ? j->n_recs : j->n_intents;
    for (size_t i = 0; i < n; i++) {
        const char *file = j->info.sealed ? j->recs[i].file
                                          : j->intents[i].file;
        size_t k = file_entry(j, file);
        if (k == SIZE_MAX) {
            char why[200];
            snprintf(why, sizeof why,
                     "it names more than %u files, more than any commit "
                     "writes", (unsigned)MAX_FILES);
            return refuse(j->path, e, why);
        }
        struct rt_journal_file *f = &j->files[k];
        if (!j->info.sealed) {
            f->sized = 1;
            f->size = j->intents[i].size;
            continue;
        }
        const struct jrec *r = &j->recs[i];
        if (r->kind == REC_SIZE && !r->in_order && r->offset > j->grow_to[k])
            j->grow_to[k] = r->offset;
        if (r->kind == REC_DELETE) {
            f->removed = 1;
            continue;
        }
        f->removed = 0;
        if (r->kind == REC_WRITE) {
            f->bytes += r->len;
        } else {
            f->sized = 1;
            f->size = r->offset;
        }
    }
    return 0;
}

/* Whether J's bytes can be a journal of this format: they begin with
 * its magic, or with as much of it as a commit cut short wrote (an empty
 * file, part of the magic), or with zeros (bytes a crash left unwritten
 * read as zeros on some file systems). Anything else is no journal of
 * ours: not an unfinished change to discard, but a file someone put
 * there (or a journal of another format version), refused and left in
 * place. 0, or -1 with E naming it and its first bytes. */
static int check_magic(const struct rt_journal *j, struct rt_error *e)
{
    static const uint8_t zeros[8];
    size_t n = j->len < 8 ? j->len : 8;
    if (!n || !memcmp(j->buf, JOURNAL_MAGIC, n) || !memcmp(j->buf, zeros, n))
        return 0;
    char shown[80];
    shown_name(j->buf, n, shown, sizeof shown);
    const char *what = n == 8 && !memcmp(j->buf, JOURNAL_MAGIC, 7)
                           ? "a journal of another format version"
                           : "not a journal of regtool";
    return rt_error_set(e, RT_ERR_BADDB,
                        "%s: %s (it begins with '%s', not '%s'): it is "
                        "refused and left where it is, not discarded as an "
                        "unfinished change; nothing was written. Check what "
                        "it is, then move it aside (mv %s %s.refused) and "
                        "run again",
                        j->path, what, shown, JOURNAL_MAGIC, j->path, j->path);
}

/* Parses journal B (LEN bytes, taken over by J), checking it whole;
 * SCOPE NULL: the names' structure only (a journal just written by this
 * process, whose names were checked before). */
static int parse(struct rt_journal *j, const struct rt_journal_scope *scope,
                 struct rt_error *e)
{
    const uint8_t *b = j->buf;
    size_t len = j->len, body = 0;
    if (check_magic(j, e) != 0)
        return -1;
    j->names = malloc(len + 1);
    if (!j->names)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t at = intents_at(b, len);
    if (at) {
        j->info.when = (int64_t)get64(b + 8);
        /* The note is printed: escaped (model/printable.h), nothing in
         * it reaches the terminal as other than plain text. */
        char raw[sizeof j->info.what];
        size_t n = at - 20 < sizeof raw - 1 ? at - 20 : sizeof raw - 1;
        memcpy(raw, b + 20, n);
        raw[n] = '\0';
        rt_text_printable(j->info.what, sizeof j->info.what, raw);
    }
    /* Without a whole intent block the commit wrote nothing before its
     * journal, nor anything after: there is nothing to undo or redo. */
    size_t ilen = intent_len(b, len);
    j->info.sealed = ilen && sealed(b, len, &body) && ilen <= body;
    if (ilen && parse_intents(j, scope, e) != 0)
        return -1;
    if (j->info.sealed && parse_records(j, scope, ilen, body, e) != 0)
        return -1;
    return list_files(j, e);
}

void rt_journal_free(struct rt_journal *j)
{
    if (!j)
        return;
    free(j->path);
    free(j->buf);
    free(j->intents);
    free(j->recs);
    free(j->files);
    free(j->grow_to);
    free(j->slots);
    free(j->names);
    free(j);
}

int rt_journal_load(const char *journal_path,
                    const struct rt_journal_scope *scope,
                    struct rt_journal **out, struct rt_error *e)
{
    *out = NULL;
    struct rt_os_stat st;
    if (rt_os_stat(journal_path, &st) != 0)
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", journal_path,
                            rt_os_strerror(errno));
    if (st.kind == RT_OS_ABSENT)
        return 0;
    char why[300];
    /* A device or a FIFO would be read without end, or block; a link
     * (which a confined tree does not follow) reads another file. */
    if (st.kind != RT_OS_FILE)
        return refuse(journal_path, e,
                      "not a regular file (a link, a directory, a device "
                      "or a pipe)");
    uint64_t max = scope ? scope->max_bytes : 0;
    if (max && st.size > max) {
        snprintf(why, sizeof why,
                 "%llu bytes, more than the %llu any commit of this store "
                 "writes", (unsigned long long)st.size,
                 (unsigned long long)max);
        return refuse(journal_path, e, why);
    }
    struct rt_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(journal_path))) {
        free(j);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    int r = rt_os_read_file_max(journal_path, max ? (size_t)max : SIZE_MAX,
                                &j->buf, &j->len);
    if (r != 0) {
        int err = errno;
        if (err == ENOENT) {
            rt_journal_free(j);
            return 0;
        }
        if (err == EFBIG) {
            snprintf(why, sizeof why,
                     "grew past the %llu bytes any commit of this store "
                     "writes while it was read", (unsigned long long)max);
            refuse(journal_path, e, why);
        } else {
            rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", journal_path,
                         rt_os_strerror(err));
        }
        rt_journal_free(j);
        return -1;
    }
    if (parse(j, scope, e) != 0) {
        rt_journal_free(j);
        return -1;
    }
    *out = j;
    return 1;
}

const struct rt_journal_info *rt_journal_about(const struct rt_journal *j)
{
    return &j->info;
}

size_t rt_journal_files(const struct rt_journal *j,
                        const struct rt_journal_file **files)
{
    *files = j->files;
    return j->n_files;
}

/* --- replaying a journal ---------------------------------------------------- */

/* Reports a failed write to the current file and closes it. */
static int target_fail(struct target *t, struct rt_error *e)
{
    int err = errno;
    rt_os_close(t->fd);
    t->fd = -1;
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", t->path,
                        rt_os_strerror(err));
}

/* Lengthens BASE/REL to SIZE when it is shorter, and makes that durable;
 * a file the commit creates is left to the records: nothing in it
 * promises bytes before they are all written. */
static int grow_file(const char *base, const char *rel, uint64_t size,
                     struct rt_error *e)
{
    char path[PATH_MAX];
    uint64_t now = 0;
    if (full_path(path, sizeof path, base, rel) != 0)
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
            if (target_finish(&t, e) != 0 ||
                delete_file(base, r->file, r->offset, &dirs, e) != 0)
                goto fail;
            continue;
        }
        if (target_switch(&t, base, r->file, e) != 0)
            goto fail;
        if ((r->kind == REC_WRITE ? rt_io_pwrite(t.fd, r->data, r->len,
                                                 r->offset)
                                  : rt_io_ftruncate(t.fd, r->offset)) != 0) {
            dirs_free(&dirs);
            return target_fail(&t, e);
        }
    }
    if (target_finish(&t, e) != 0)
        goto fail;
    return dirs_flush(&dirs, e);
fail:
    dirs_free(&dirs);
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
 * first: a file whose fresh bytes did it before the seal (write_fresh),
 * a file the commit creates, and one whose size record is in order
 * (SIZE_IN_ORDER): nothing in those promises bytes not yet written. */
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
static int roll_back_fresh(const char *base, const struct intent *v,
                           size_t n, struct rt_error *e)
{
    for (size_t i = 0; i < n; i++) {
        const char *rel = v[i].file;
        uint64_t size = v[i].size;
        char path[PATH_MAX];
        if (full_path(path, sizeof path, base, rel) != 0)
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

/* Notes the size before the commit of every file that gets fresh bytes. */
static int record_intents(struct rt_commit *c, struct rt_error *e)
{
    for (size_t i = 0; i < c->n; i++) {
        if (c->v[i].kind != REC_FRESH)
            continue;
        size_t k = 0;
        while (k < c->n_intents && strcmp(c->intents[k].file, c->v[i].file))
            k++;
        if (k < c->n_intents)
            continue;
        char path[PATH_MAX];
        struct rt_os_stat st;
        if (full_path(path, sizeof path, c->base, c->v[i].file) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: path too long",
                                c->v[i].file);
        if (rt_os_stat(path, &st) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                rt_os_strerror(errno));
        uint64_t size = st.kind == RT_OS_ABSENT ? 0 : st.size;
        struct intent *v = realloc(c->intents, (k + 1) * sizeof *v);
        if (!v)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        c->intents = v;
        if (!(v[k].file = strdup(c->v[i].file)))
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        v[k].size = size;
        c->n_intents++;
    }
    return 0;
}

static uint64_t final_size(const struct rt_commit *c, const char *file,
                           int *sized);

/* Writes the fresh records to their files, lengthens each such file to
 * its final size when that is larger (zero pages past the old end are
 * never written), and fsyncs each file once. Lengthening here, under the
 * intent block that cuts the file back, rather than in apply_body's first
 * pass after the seal, makes that pass find nothing to do for these
 * files: one fsync per file instead of two. */
static int write_fresh(const struct rt_commit *c, struct rt_error *e)
{
    for (size_t k = 0; k < c->n_intents; k++) {
        struct target t = {.fd = -1};
        const char *file = c->intents[k].file;
        for (size_t i = 0; i < c->n; i++) {
            const struct record *r = &c->v[i];
            if (r->kind != REC_FRESH || strcmp(r->file, file))
                continue;
            if (target_switch(&t, c->base, r->file, e) != 0)
                return -1;
            if (rt_io_pwrite(t.fd, r->data, r->len, r->offset) != 0)
                return target_fail(&t, e);
        }
        int sized;
        uint64_t now = 0, size = final_size(c, file, &sized);
        if (t.fd >= 0 && sized &&
            (rt_os_fsize(t.fd, &now) != 0 ||
             (size > now && rt_io_ftruncate(t.fd, size) != 0)))
            return target_fail(&t, e);
        if (target_finish(&t, e) != 0)
            return -1;
    }
    return 0;
}

/* The directory holding PATH, for messages about its file system. */
static void dir_of(const char *path, char *buf, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(buf, size, ".");
    else
        snprintf(buf, size, "%.*s", (int)(slash == path ? 1 : slash - path),
                 path);
}

/* Whether ERR is a refusal of what stands at a path (a link, a mount
 * point, a special file, a folder, a hard link), not a failure of the
 * system: the tree's writer put it there. */
static int refusal(int err)
{
    return err == ELOOP || err == EXDEV || err == ENODEV || err == EISDIR ||
           err == ENOTDIR;
}

/* What a commit failing with ERR on PATH needs, in a few words. */
static void needs(int err, const char *path, uint64_t bytes, char *buf,
                  size_t size)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    if (err == EACCES || err == EPERM)
        snprintf(buf, size, "run as a user who can write %s", path);
    else if (err == EROFS)
        snprintf(buf, size, "%s is on a read-only file system: make it "
                 "writable", path);
    else if (err == ENOSPC) {
        uint64_t free_b = 0;
        if (rt_os_free_space(dir, &free_b) != 0)
            free_b = 0;
        if (bytes > free_b)
            snprintf(buf, size, "free %llu bytes on the file system of %s "
                     "(it needs %llu, %llu are free)",
                     (unsigned long long)(bytes - free_b), dir,
                     (unsigned long long)bytes, (unsigned long long)free_b);
        else
            snprintf(buf, size, "free space on the file system of %s (it "
                     "needs %llu bytes)", dir, (unsigned long long)bytes);
    } else
        snprintf(buf, size, "%s to be writable (%s)", path, rt_os_strerror(err));
}

/* Whether the directory holding PATH exists. */
static int parent_exists(const char *path)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    return rt_os_is_dir(dir);
}

/* A file the commit creates in folders it makes from its commit point
 * on: what is there of those folders must be folders, reached without a
 * link (a planted INF\<driver> link would otherwise fail the commit
 * after its commit point). 0, or -1 with E set. */
static int folders_ok(const char *path, struct rt_error *e)
{
    char dir[PATH_MAX];
    dir_of(path, dir, sizeof dir);
    for (;;) {
        struct rt_os_stat st;
        if (rt_os_stat(dir, &st) != 0)
            return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                                "%s: %s; nothing was written", dir,
                                rt_os_strerror(errno));
        if (st.kind == RT_OS_DIR)
            return 0;
        if (st.kind != RT_OS_ABSENT)
            return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                                "%s is not a folder (a file, a link or a "
                                "device stands where the commit makes one); "
                                "nothing was written", dir);
        char up[PATH_MAX];
        dir_of(dir, up, sizeof up);
        if (!strcmp(up, dir))
            return 0;
        snprintf(dir, sizeof dir, "%s", up);
    }
}

/* The size FILE has after the commit, as far as C's records say. */
static uint64_t final_size(const struct rt_commit *c, const char *file,
                           int *sized)
{
    uint64_t end = 0;
    *sized = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        if (strcmp(r->file, file))
            continue;
        if (r->kind == REC_DELETE) {
            end = 0;
            *sized = 1;
        } else if (r->kind == REC_SIZE) {
            end = r->offset;
            *sized = 1;
        } else if (!*sized && r->offset + r->len > end) {
            end = r->offset + r->len;
        }
    }
    return end;
}

/* The existing files preflight reserved space in: a commit refused
 * before its seal gives that space back (reservations_release), so that
 * a refusal leaves the disk's free space as it found it. */
struct reservations {
    char **paths;
    size_t n;
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
    char **v = realloc(rv->paths, (rv->n + 1) * sizeof *v);
    if (!v)
        return -1;
    rv->paths = v;
    if (!(v[rv->n] = strdup(path)))
        return -1;
    rv->n++;
    return 0;
}

/* Before anything is written: every file the commit touches can be
 * opened for writing (a file it creates, created and removed again), and
 * the space its growth needs is reserved (the files in RV). *GROWTH gets
 * the bytes. A commit that cannot be finished is never started; a
 * refusal here gives back what it reserved. */
static int preflight(const struct rt_commit *c, uint64_t *growth,
                     uint64_t *later, struct reservations *rv,
                     struct rt_error *e)
{
    *growth = 0;
    *later = 0;
    for (size_t i = 0; i < c->n; i++) {
        const char *file = c->v[i].file;
        size_t k = 0;
        while (k < i && strcmp(c->v[k].file, file))
            k++;
        if (k < i)
            continue;   /* seen */
        char path[PATH_MAX], why[PATH_MAX + 200];
        if (full_path(path, sizeof path, c->base, file) != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: path too long",
                                file);
        int created = !rt_os_exists(path);
        /* A file in folders the commit makes from its commit point on
         * (an INF copy): nothing to open or reserve before. Fresh bytes
         * are written before the seal: their folder must be there. */
        if (created && c->v[i].kind != REC_FRESH && !parent_exists(path)) {
            if (folders_ok(path, e) != 0)
                return -1;
            /* Its blocks and its folders', counted against the free
             * space once the journal has its own (rt_commit_run). */
            int sized;
            uint64_t end = final_size(c, file, &sized);
            *later += (end + 4095) / 4096 * 4096 + 3 * 4096;
            continue;
        }
        int fd = rt_os_open(path, created ? RT_OS_WRITE_NEW : RT_OS_WRITE);
        if (fd < 0) {
            int err = errno;
            /* The refusal's words (a hard link, a link, a FIFO) before
             * the release, whose opens clear them. */
            char reason[700];
            snprintf(reason, sizeof reason, "%s", rt_os_strerror(err));
            needs(err, path, 0, why, sizeof why);
            reservations_release(rv);
            /* A refusal's words name the path and what stands there. */
            if (refusal(err))
                return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                                    "%s; nothing was written", reason);
            return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                                 : RT_ERR_ACCESS_DENIED,
                                "%s: %s; nothing was written: %s", path,
                                reason, why);
        }
        uint64_t now = 0;
        int sized, r = rt_os_fsize(fd, &now);
        uint64_t end = final_size(c, file, &sized);
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
            needs(err, path, end - now, why, sizeof why);
            reservations_release(rv);
            return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                                 : RT_ERR_WRITE_FAULT,
                                "%s: %s; nothing was written: %s", path,
                                reason, why);
        }
    }
    return 0;
}

static int interrupted(struct rt_error *e)
{
    if (!rt_os_interrupted())
        return 0;
    return rt_error_set(e, RT_ERR_CANCELLED, "interrupted: nothing changed");
}

/* The commit's journal as the next writer checks it (parse): a commit
 * whose journal would be refused is never started, since once sealed
 * nobody could finish it. */
static int check_names(const struct rt_commit *c, size_t journal_len,
                       struct rt_error *e)
{
    if (c->scoped && c->scope.max_bytes && journal_len > c->scope.max_bytes)
        return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                            "internal error: the journal of this commit "
                            "would be %zu bytes, more than the %llu a "
                            "journal of this store may hold; nothing was "
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
    if (list_files(j, e) != 0) {
        rt_journal_free(j);
        return NULL;
    }
    return j;
}

int rt_commit_run(struct rt_commit *c, struct rt_error *e)
{
    uint64_t growth, later;
    struct reservations rv = {0};
    if (interrupted(e) || record_intents(c, e) != 0)
        return -1;
    struct journal_image im;
    if (make_image(c, &im) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t len = im.len, ilen = im.ilen;
    if (check_names(c, len, e) != 0 ||
        preflight(c, &growth, &later, &rv, e) != 0 || interrupted(e)) {
        reservations_release(&rv);
        image_free(&im);
        return -1;
    }
    int fd = rt_os_open(c->journal, RT_OS_WRITE_TRUNC);
    if (fd < 0) {
        int err = errno;
        char why[PATH_MAX + 200];
        needs(err, c->journal, len, why, sizeof why);
        reservations_release(&rv);
        image_free(&im);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s: %s; nothing was written: %s", c->journal,
                            rt_os_strerror(err), why);
    }
    /* The journal's own space, before a byte of it is written. */
    if (rt_os_reserve(fd, len) != 0) {
        int err = errno;
        char why[PATH_MAX + 200];
        needs(err, c->journal, len + growth, why, sizeof why);
        rt_os_close(fd);
        rt_os_unlink(c->journal);
        reservations_release(&rv);
        image_free(&im);
        return rt_error_set(e, err == ENOSPC ? RT_ERR_DISK_FULL
                                             : RT_ERR_WRITE_FAULT,
                            "%s: %s; nothing was written: %s", c->journal,
                            rt_os_strerror(err), why);
    }
    /* Files made in new folders (an INF copy) are written after the
     * commit point: the room they need must be there now. */
    uint64_t free_b;
    if (later && rt_os_free_space(c->base, &free_b) == 0 && free_b < later) {
        rt_os_close(fd);
        rt_os_unlink(c->journal);
        reservations_release(&rv);
        image_free(&im);
        return rt_error_set(e, RT_ERR_DISK_FULL,
                            "%s: the new files this change makes need %llu "
                            "bytes and %llu are free; nothing was written: "
                            "free %llu bytes on the file system of %s",
                            c->base, (unsigned long long)later,
                            (unsigned long long)free_b,
                            (unsigned long long)(later - free_b), c->base);
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
        if (interrupted(e) || write_fresh(c, e) != 0)
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
    if (interrupted(e))
        goto undo;
    /* The journal's name is durable already when the intent block was:
     * its directory is fsynced once per commit. */
    if (rt_io_pwrite(fd, im.trailer, TRAILER_SIZE, len - TRAILER_SIZE) != 0 ||
        rt_io_fsync(fd) != 0 ||
        (!c->n_intents && rt_io_fsync_dir_of(c->journal) != 0))
        goto fail;
    rt_os_close(fd);
    image_free(&im);
    /* Sealed: the space reserved is the commit's to use now. */
    reservations_free(&rv);
    /* Applied as the next writer would replay it: the same code. A
     * failure from here on leaves the sealed journal for the next
     * writer. */
    struct rt_journal *j = written_journal(c, e);
    if (!j)
        return -1;
    int r = rt_journal_finish(j, c->base, e) < 0 ? -1 : 0;
    rt_journal_free(j);
    return r;
fail:
    rt_error_set(e, errno == ENOSPC ? RT_ERR_DISK_FULL : RT_ERR_WRITE_FAULT,
                 "%s: %s; nothing was written", c->journal, rt_os_strerror(errno));
undo:
    rt_os_close(fd);
    image_free(&im);
    if (c->n_intents) {
        struct rt_error e2 = {0};
        if (roll_back_fresh(c->base, c->intents, c->n_intents, &e2) != 0) {
            /* Keep the journal: the next open retries the roll-back. */
            reservations_release(&rv);
            return -1;
        }
    }
    rt_os_unlink(c->journal);
    reservations_release(&rv);
    return -1;
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
        if (full_path(path, sizeof path, base_dir, j->files[i].rel) != 0 ||
            !rt_os_exists(path))
            continue;
        /* Opening for writing changes nothing in the file. */
        int fd = rt_os_open(path, RT_OS_WRITE);
        if (fd >= 0) {
            rt_os_close(fd);
            continue;
        }
        needs(errno, path, 0, buf, size);
        return;
    }
    /* The journal itself is removed when done: its directory must be
     * writable. */
    int fd = rt_os_open(j->path, RT_OS_WRITE);
    if (fd < 0)
        needs(errno, j->path, 0, buf, size);
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
        if (full_path(path, sizeof path, base, f->rel) != 0) {
            snprintf(why, sizeof why, "%s/%s: path too long", base, f->rel);
        } else if (rt_os_stat(path, &st) != 0) {
            err = errno;
        } else if (st.kind == RT_OS_ABSENT) {
            /* A roll-back or a removal skips a missing file; a write
             * creates it, with the folders above it. */
            struct rt_error e2 = {0};
            if (j->info.sealed && !f->removed && folders_ok(path, &e2) != 0) {
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
        if (!why[0])
            snprintf(why, sizeof why, "%s%s%s", refusal(err) ? "" : path,
                     refusal(err) ? "" : ": ", rt_os_strerror(err));
        return rt_error_set(e, refusal(err) ? RT_ERR_BADDB : RT_ERR_WRITE_FAULT,
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
    } else if (roll_back_fresh(base_dir, j->intents, j->n_intents, e) != 0) {
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

/* --- the writer lock ------------------------------------------------------ */

struct rt_lock {
    int fd;
    int exclusive;
};

/* The holder's note at the start of the lock file: "pid N started T". */
static void holder(int fd, const char *lock_path, char *buf, size_t size)
{
    char note[128] = "";
    long long got = rt_os_pread(fd, note, sizeof note - 1, 0);
    long pid = 0;
    long long when = 0;
    note[got > 0 ? got : 0] = '\0';
    if (sscanf(note, "pid %ld started %lld", &pid, &when) == 2 && pid > 0) {
        char t[64] = "?";
        time_t tt = (time_t)when;
        struct tm *tm = gmtime(&tt);
        if (tm)
            strftime(t, sizeof t, "%Y-%m-%d %H:%M:%S UTC", tm);
        snprintf(buf, size, "another regtool (pid %ld, started %s) holding %s",
                 pid, t, lock_path);
    } else {
        snprintf(buf, size, "another regtool (reading) holding %s", lock_path);
    }
}

static int take(const char *lock_path, int shared, const struct rt_lock_wait *w,
                struct rt_lock **out, struct rt_error *e)
{
    struct rt_lock *l = calloc(1, sizeof *l);
    if (!l)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    l->exclusive = !shared;
    /* A reader never creates the lock file, and does without a lock where
     * it cannot open it for writing (read-only media, another user's). */
    l->fd = rt_os_open(lock_path, shared ? RT_OS_WRITE : RT_OS_WRITE_CREATE);
    if (l->fd < 0) {
        int err = errno;
        free(l);
        if (shared) {
            *out = NULL;
            return 0;
        }
        char why[PATH_MAX + 200];
        needs(err, lock_path, 0, why, sizeof why);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s: %s; nothing was written: %s", lock_path,
                            rt_os_strerror(err), why);
    }
    /* The holder's note truncates and writes the file: never anything
     * but a regular file (a FIFO or device planted there is not ours to
     * write, and could block). */
    struct rt_os_stat st;
    if (rt_os_fstat(l->fd, &st) != 0 || st.kind != RT_OS_FILE) {
        rt_os_close(l->fd);
        free(l);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED,
                            "%s is not a regular file, so it cannot be the "
                            "writer lock; nothing was written (remove it "
                            "after checking what it is)", lock_path);
    }
    uint64_t start = rt_os_monotonic_ms();
    int said = 0;
    char who[PATH_MAX + 160] = "";
    while (rt_os_trylock(l->fd, shared) != 0) {
        int err = errno;
        if (err != EWOULDBLOCK && err != EBUSY) {
            rt_os_close(l->fd);
            free(l);
            return rt_error_set(e, RT_ERR_LOCK_VIOLATION, "%s: %s", lock_path,
                                rt_os_strerror(err));
        }
        holder(l->fd, lock_path, who, sizeof who);
        int limit = w ? w->seconds : -1;
        if (!said && limit != 0 && w && w->notice) {
            char line[PATH_MAX + 200];
            snprintf(line, sizeof line, "waiting for %s", who);
            w->notice(w->ctx, line);
        }
        said = 1;
        if (rt_os_interrupted() ||
            (limit >= 0 &&
             rt_os_monotonic_ms() - start >= (uint64_t)limit * 1000u)) {
            rt_os_close(l->fd);
            free(l);
            if (rt_os_interrupted())
                return rt_error_set(e, RT_ERR_CANCELLED,
                                    "interrupted while waiting for %s: "
                                    "nothing changed", who);
            return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                                "gave up after %d s waiting for %s; nothing "
                                "was written ('regtool --wait SECONDS' waits "
                                "longer)",
                                limit, who);
        }
        rt_os_sleep_ms(100);
    }
    if (!shared) {
        char note[96];
        int n = snprintf(note, sizeof note, "pid %ld started %lld\n",
                         rt_os_getpid(), (long long)time(NULL));
        /* Who holds it, for those who wait; not a commit write. */
        if (rt_os_ftruncate(l->fd, 0) != 0 ||
            rt_os_pwrite(l->fd, note, (size_t)n, 0) != 0) {
            /* The lock holds without the note. */
        }
    }
    *out = l;
    return 0;
}

int rt_lock_acquire(const char *lock_path, const struct rt_lock_wait *w,
                    struct rt_lock **out, struct rt_error *e)
{
    return take(lock_path, 0, w, out, e);
}

int rt_lock_acquire_shared(const char *lock_path, const struct rt_lock_wait *w,
                           struct rt_lock **out, struct rt_error *e)
{
    return take(lock_path, 1, w, out, e);
}

void rt_lock_release(struct rt_lock *l)
{
    if (!l)
        return;
    if (l->exclusive)
        rt_os_ftruncate(l->fd, 0);   /* no holder any more */
    rt_os_close(l->fd);   /* closing drops the lock */
    free(l);
}
