/* Commit layer: building a commit (its records) and the image of its
 * journal as it is written. */
#include "commit/journal_internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

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
    free(c->files);
    free(c->slots);
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
const char *rt_journal_name_problem(const char *name, size_t len)
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
            /* No file system Linux mounts holds a longer name (ext4 and
             * xfs count bytes): a commit would fail past its point. */
            if (part > 255)
                return "a component longer than 255 bytes";
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
    return rt_journal_name_problem(rel, strlen(rel));
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

/* The journal's header: magic, the commit's time (u64 seconds since 1970)
 * and what it does (u32 length, text); the intent block follows it. */
static size_t header_len(const struct rt_commit *c)
{
    return 8 + 8 + 4 + (c->what ? strlen(c->what) : 0);
}

void rt_journal_image_free(struct journal_image *im)
{
    free(im->head);
    free(im->frames);
    free(im->pieces);
    memset(im, 0, sizeof *im);
}

int rt_journal_image_make(const struct rt_commit *c, struct journal_image *im)
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
        rt_journal_image_free(im);
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
