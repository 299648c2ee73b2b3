/* Commit layer: redo journal, recovery and the writer lock. */
#include "commit/journal.h"
#include "platform/os.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOURNAL_MAGIC  "RTJOURN2"
#define COMMIT_MAGIC   "RTCOMMIT"
#define TRAILER_SIZE   24      /* magic, u64 body length, u32 crc, u32 count */
#define REC_WRITE      1u
#define REC_SIZE       2u
#define REC_FRESH      3u      /* never in the journal: written before it */

struct record {
    uint32_t kind;
    char *file;
    uint64_t offset;    /* REC_WRITE: where; REC_SIZE: the final size */
    uint8_t *data;
    size_t len;
};

/* A file that gets fresh bytes, and its size before the commit: an
 * unsealed journal is rolled back by cutting the file to that size. */
struct intent {
    char *file;
    uint64_t size;
};

struct rt_commit {
    char *base, *journal;
    struct intent *intents;
    size_t n_intents;
    struct record *v;
    size_t n, cap;
    uint64_t bytes;
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
        free(c->v[i].data);
    }
    free(c->v);
    for (size_t i = 0; i < c->n_intents; i++)
        free(c->intents[i].file);
    free(c->intents);
    free(c->base);
    free(c->journal);
    free(c);
}

static int add(struct rt_commit *c, uint32_t kind, const char *file,
               uint64_t offset, const void *data, size_t len)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 16;
        struct record *v = realloc(c->v, cap * sizeof *v);
        if (!v)
            return -1;
        c->v = v;
        c->cap = cap;
    }
    struct record *r = &c->v[c->n];
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->offset = offset;
    r->len = len;
    r->file = strdup(file);
    r->data = len ? malloc(len) : NULL;
    if (!r->file || (len && !r->data)) {
        free(r->file);
        free(r->data);
        return -1;
    }
    if (len)
        memcpy(r->data, data, len);
    c->n++;
    c->bytes += len;
    return 0;
}

int rt_commit_write(struct rt_commit *c, const char *file, uint64_t offset,
                    const void *data, size_t len)
{
    return add(c, REC_WRITE, file, offset, data, len);
}

int rt_commit_write_fresh(struct rt_commit *c, const char *file,
                          uint64_t offset, const void *data, size_t len)
{
    return add(c, REC_FRESH, file, offset, data, len);
}

int rt_commit_set_size(struct rt_commit *c, const char *file, uint64_t size)
{
    return add(c, REC_SIZE, file, size, NULL, 0);
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

/* Serializes the records: magic, then per record kind, path length,
 * offset, data length, path, data; then the trailer. */
static uint8_t *serialize(const struct rt_commit *c, size_t *out_len,
                          size_t *out_intent_len)
{
    size_t len = 8 + 4 + 4 + TRAILER_SIZE, n = 0;
    for (size_t i = 0; i < c->n_intents; i++)
        len += 12 + strlen(c->intents[i].file);
    size_t ilen = len - TRAILER_SIZE;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].kind != REC_FRESH) {
            len += 20 + strlen(c->v[i].file) + c->v[i].len;
            n++;
        }
    uint8_t *b = malloc(len), *p = b;
    if (!b)
        return NULL;
    memcpy(p, JOURNAL_MAGIC, 8);
    put32(p + 8, (uint32_t)c->n_intents);
    p += 12;
    for (size_t i = 0; i < c->n_intents; i++) {
        size_t fl = strlen(c->intents[i].file);
        put32(p, (uint32_t)fl);
        put64(p + 4, c->intents[i].size);
        memcpy(p + 12, c->intents[i].file, fl);
        p += 12 + fl;
    }
    put32(p, rt_crc32(0, b, (size_t)(p - b)));
    p += 4;
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        if (r->kind == REC_FRESH)
            continue;
        size_t fl = strlen(r->file);
        put32(p, r->kind);
        put32(p + 4, (uint32_t)fl);
        put64(p + 8, r->offset);
        put32(p + 16, (uint32_t)r->len);
        p += 20;
        memcpy(p, r->file, fl);
        p += fl;
        if (r->len)
            memcpy(p, r->data, r->len);
        p += r->len;
    }
    size_t body = (size_t)(p - b);
    memcpy(p, COMMIT_MAGIC, 8);
    put64(p + 8, body);
    put32(p + 16, rt_crc32(0, b, body));
    put32(p + 20, (uint32_t)n);
    *out_len = len;
    *out_intent_len = ilen;
    return b;
}

static int full_path(char *buf, size_t size, const char *base, const char *rel)
{
    int n = snprintf(buf, size, "%s/%s", base, rel);
    return n < 0 || (size_t)n >= size ? -1 : 0;
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
                            strerror(err))
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
    t->fd = rt_os_open(path, RT_OS_WRITE_CREATE);
    if (t->fd < 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                            strerror(errno));
    snprintf(t->path, sizeof t->path, "%s", path);
    return 0;
}

/* Reports a failed write to the current file and closes it. */
static int target_fail(struct target *t, struct rt_error *e)
{
    int err = errno;
    rt_os_close(t->fd);
    t->fd = -1;
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", t->path,
                        strerror(err));
}

/* Applies the records of a journal body (already verified) to the files,
 * from byte START (past the intent block) to BODY. */
static int apply_body(const char *base, const uint8_t *b, size_t start,
                      size_t body, struct rt_error *e)
{
    struct target t = {.fd = -1};
    size_t pos = start;
    while (pos < body) {
        if (body - pos < 20)
            goto corrupt;
        uint32_t kind = get32(b + pos), fl = get32(b + pos + 4);
        uint64_t off = get64(b + pos + 8);
        uint32_t len = get32(b + pos + 16);
        pos += 20;
        if (fl == 0 || fl >= PATH_MAX || body - pos < (uint64_t)fl + len ||
            (kind != REC_WRITE && kind != REC_SIZE))
            goto corrupt;
        char rel[PATH_MAX];
        memcpy(rel, b + pos, fl);
        rel[fl] = '\0';
        pos += fl;
        if (target_switch(&t, base, rel, e) != 0)
            return -1;
        if ((kind == REC_WRITE ? rt_io_pwrite(t.fd, b + pos, len, off)
                               : rt_io_ftruncate(t.fd, off)) != 0)
            return target_fail(&t, e);
        pos += len;
    }
    return target_finish(&t, e);
corrupt:
    if (t.fd >= 0)
        rt_os_close(t.fd);
    return rt_error_set(e, RT_ERR_BADDB, "journal record at byte %zu is damaged",
                        pos);
}

/* Length of the intent block at the start of journal B (LEN bytes): the
 * magic, the files that get fresh bytes with their sizes before the
 * commit, and a CRC. 0 when it is incomplete or damaged. */
static size_t intent_len(const uint8_t *b, size_t len)
{
    if (len < 16 || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    uint32_t n = get32(b + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return 0;
        uint32_t fl = get32(b + pos);
        if (fl == 0 || fl >= PATH_MAX || len - pos - 12 < fl)
            return 0;
        pos += 12 + fl;
    }
    if (len - pos < 4 || get32(b + pos) != rt_crc32(0, b, pos))
        return 0;
    return pos + 4;
}

/* Cuts each file of the intent block back to its size before the commit,
 * removing the fresh bytes a commit that never sealed left behind. */
static int roll_back_fresh(const char *base, const uint8_t *b,
                           struct rt_error *e)
{
    uint32_t n = get32(b + 8);
    size_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fl = get32(b + pos);
        uint64_t size = get64(b + pos + 4);
        char rel[PATH_MAX], path[PATH_MAX];
        memcpy(rel, b + pos + 12, fl);
        rel[fl] = '\0';
        pos += 12 + fl;
        if (full_path(path, sizeof path, base, rel) != 0)
            return rt_error_set(e, RT_ERR_BADDB, "journal: path too long");
        int fd = rt_os_open(path, RT_OS_WRITE);
        if (fd < 0) {
            if (errno == ENOENT)
                continue;
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                strerror(errno));
        }
        uint64_t now;
        int r = rt_os_fsize(fd, &now);
        if (r == 0 && now > size)
            r = rt_io_ftruncate(fd, size) || rt_io_fsync(fd);
        int err = errno;
        rt_os_close(fd);
        if (r != 0)
            return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", path,
                                strerror(err));
    }
    return 0;
}

/* Whether B (LEN bytes) is a sealed journal; *BODY its body length. */
static int sealed(const uint8_t *b, size_t len, size_t *body)
{
    if (len < 8 + TRAILER_SIZE || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    const uint8_t *t = b + len - TRAILER_SIZE;
    if (memcmp(t, COMMIT_MAGIC, 8) != 0 || get64(t + 8) != len - TRAILER_SIZE)
        return 0;
    *body = len - TRAILER_SIZE;
    return get32(t + 16) == rt_crc32(0, b, *body);
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
                                strerror(errno));
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

/* Writes the fresh records to their files and fsyncs each file. */
static int write_fresh(const struct rt_commit *c, struct rt_error *e)
{
    struct target t = {.fd = -1};
    for (size_t i = 0; i < c->n; i++) {
        const struct record *r = &c->v[i];
        if (r->kind != REC_FRESH)
            continue;
        if (target_switch(&t, c->base, r->file, e) != 0)
            return -1;
        if (rt_io_pwrite(t.fd, r->data, r->len, r->offset) != 0)
            return target_fail(&t, e);
    }
    return target_finish(&t, e);
}

int rt_commit_run(struct rt_commit *c, struct rt_error *e)
{
    if (record_intents(c, e) != 0)
        return -1;
    size_t len, ilen;
    uint8_t *b = serialize(c, &len, &ilen);
    if (!b)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    int fd = rt_os_open(c->journal, RT_OS_WRITE_TRUNC);
    if (fd < 0) {
        free(b);
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", c->journal,
                            strerror(errno));
    }
    /* With fresh bytes, the intent block is durable before any of them is
     * written: a crash from then on until the seal is rolled back by
     * cutting those files to their old sizes, so the old state comes back
     * byte for byte. */
    size_t from = 0;
    if (c->n_intents) {
        if (rt_io_pwrite(fd, b, ilen, 0) != 0 || rt_io_fsync(fd) != 0 ||
            rt_io_fsync_dir_of(c->journal) != 0)
            goto fail;
        if (write_fresh(c, e) != 0)
            goto undo;
        from = ilen;
    }
    /* The body, then the trailer, in two writes: a crash between them
     * leaves an unsealed journal, which recovery rolls back. */
    if (rt_io_pwrite(fd, b + from, len - TRAILER_SIZE - from, from) != 0 ||
        rt_io_pwrite(fd, b + len - TRAILER_SIZE, TRAILER_SIZE,
                     len - TRAILER_SIZE) != 0 ||
        rt_io_fsync(fd) != 0 || rt_io_fsync_dir_of(c->journal) != 0)
        goto fail;
    rt_os_close(fd);
    int r = apply_body(c->base, b, ilen, len - TRAILER_SIZE, e);
    free(b);
    if (r != 0)
        return -1;  /* sealed: the next open finishes it */
    if (rt_io_unlink(c->journal) != 0 || rt_io_fsync_dir_of(c->journal) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", c->journal,
                            strerror(errno));
    return 0;
fail:
    rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", c->journal, strerror(errno));
undo:
    rt_os_close(fd);
    if (c->n_intents) {
        struct rt_error e2 = {0};
        if (roll_back_fresh(c->base, b, &e2) != 0) {
            /* Keep the journal: the next open retries the roll-back. */
            free(b);
            return -1;
        }
    }
    rt_os_unlink(c->journal);
    free(b);
    return -1;
}

int rt_journal_recover(const char *base_dir, const char *journal_path,
                       struct rt_error *e)
{
    uint8_t *b;
    size_t len, body;
    if (rt_os_read_file(journal_path, &b, &len) != 0) {
        if (errno == ENOENT)
            return 0;
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", journal_path,
                            strerror(errno));
    }
    int replayed = 0;
    size_t ilen = intent_len(b, len);
    if (ilen && sealed(b, len, &body) && ilen <= body) {
        if (apply_body(base_dir, b, ilen, body, e) != 0) {
            free(b);
            return -1;
        }
        replayed = 1;
    } else if (ilen && roll_back_fresh(base_dir, b, e) != 0) {
        free(b);
        return -1;
    }
    free(b);
    if (rt_io_unlink(journal_path) != 0 || rt_io_fsync_dir_of(journal_path) != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "%s: %s", journal_path,
                            strerror(errno));
    return replayed;
}

struct rt_lock {
    int fd;
};

int rt_lock_acquire(const char *lock_path, struct rt_lock **out,
                    struct rt_error *e)
{
    struct rt_lock *l = malloc(sizeof *l);
    if (!l)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    l->fd = rt_os_open(lock_path, RT_OS_WRITE_CREATE);
    if (l->fd < 0) {
        free(l);
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", lock_path,
                            strerror(errno));
    }
    if (rt_os_lock(l->fd) != 0) {
        int err = errno;
        rt_os_close(l->fd);
        free(l);
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION, "%s: %s", lock_path,
                            strerror(err));
    }
    *out = l;
    return 0;
}

void rt_lock_release(struct rt_lock *l)
{
    if (!l)
        return;
    rt_os_close(l->fd);   /* closing drops the lock */
    free(l);
}
