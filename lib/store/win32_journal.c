/* Store layer: the win32 store's journal of pre-images, its commit
 * without a transaction.
 *
 * Why pre-images. The registry has no multi-key atomic write outside a
 * KTM transaction, and KTM is missing where this journal serves: under
 * Wine (RegCreateKeyTransactedW is a stub) and for a remote registry (a
 * remote key cannot join a local transaction). So a commit is made
 * undoable instead: before the first registry write, everything the
 * change set can alter is recorded as it is now, every value it touches
 * (type and bytes, or "absent") and every key it will create. That
 * before-state is small, fully known before anything is written, and
 * putting it back is idempotent (set a value to fixed bytes, delete a
 * value or an empty key), so a rollback interrupted by another crash is
 * simply done again. Undoing needs nothing but the journal: the change
 * set itself dies with the process that was applying it.
 *
 * Order of a commit (apply_journal in win32_apply.c), with the writer
 * lock held:
 *   1. w32_journal_write: the records, FlushFileBuffers, the seal,
 *      FlushFileBuffers; the registry is untouched until the seal is on
 *      disk;
 *   2. the changes are applied, then the SOFTWARE and SYSTEM hives
 *      flushed (RegFlushKey);
 *   3. w32_journal_delete.
 *
 * What a crash leaves, and what w32_recover (run by the next open() or
 * begin(), with the lock held, and in-process when a write fails) does:
 *   - no journal: the commit finished, or never started; nothing to do;
 *   - a journal without a valid seal (short, another magic or version,
 *     no "SEAL", or a CRC that does not match): the crash came during
 *     step 1, before any registry write; the file is discarded;
 *   - a sealed journal: the crash came after the seal was written, so
 *     the registry holds anything from none to all of the changes. Every
 *     pre-image is put back (a value that was absent is deleted; a key
 *     is created again for a value that was present), then the created
 *     keys are deleted, deepest first, the hives flushed and the journal
 *     deleted. The registry is back to the state before the commit;
 *   - a crash during that rollback leaves the sealed journal in place, and
 *     the next run rolls back again from the start.
 * A sealed journal whose records do not parse, or a journal larger than
 * any commit writes, is not acted on: recovery fails with a message and
 * the file is left for a person to look at.
 *
 * Journal file, little-endian:
 *   "RTWJ" u32 version(1)
 *   records: u8 kind (1 value, 2 created key, 3 side file, 4 created
 *            folder), u32 path length in bytes, path (UTF-16LE: a key
 *            relative to HKLM, or a file or folder relative to the
 *            Windows directory, win32_files.c); for a value also u32
 *            name length, name (UTF-16LE), u8 present, u32 type, u32 data
 *            length, data; for a file u8 present, u32 length, its bytes
 *   seal: "SEAL" u32 record count, u32 CRC-32 of everything before it.
 *
 * Every journal write and every registry write of a rollback is counted
 * by rt_io_count_write, so REGTOOL_FAULT_AFTER_WRITES can end the process
 * at any of them (the crash sweeps in tests/wine/). */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commit/crc32.h"
#include "commit/io.h"
#include "model/utf16.h"

#define JOURNAL_MAGIC   "RTWJ"
#define JOURNAL_VERSION 1u
#define SEAL_MAGIC      "SEAL"
#define SEAL_SIZE       12
#define REC_VALUE       1
#define REC_KEY         2
#define REC_FILE        3
#define REC_DIR         4
/* Far above any real Perflib (a Help table is a few MB). */
#define MAX_JOURNAL     (1024u << 20)

void w32_plan_free(struct plan *p)
{
    rt_strings_free(p->created, p->n_created);
    for (size_t i = 0; i < p->n_vals; i++) {
        free(p->vals[i].key);
        free(p->vals[i].name);
        rt_value_free(&p->vals[i].v);
    }
    free(p->vals);
    for (size_t i = 0; i < p->n_files; i++) {
        free(p->files[i].path);
        rt_value_free(&p->files[i].v);
    }
    free(p->files);
    rt_strings_free(p->dirs, p->n_dirs);
    memset(p, 0, sizeof *p);
}

static void put_bytes(struct rt_strbuf *b, const void *p, size_t n)
{
    rt_strbuf_append(b, p, n);
}

static void put_u32(struct rt_strbuf *b, uint32_t x)
{
    uint8_t le[4];
    for (int i = 0; i < 4; i++)
        le[i] = (uint8_t)(x >> (8 * i));
    put_bytes(b, le, 4);
}

/* A UTF-8 string as u32 byte length + UTF-16LE. */
static void put_string(struct rt_strbuf *b, const char *s)
{
    uint8_t *u = NULL;
    size_t n = 0;
    if (rt_utf8_to_utf16le(s, strlen(s), &u, &n, NULL) != 0) {
        b->failed = 1;
        return;
    }
    put_u32(b, (uint32_t)n);
    put_bytes(b, u, n);
    free(u);
}

static int encode_journal(const struct plan *p, struct rt_strbuf *b)
{
    put_bytes(b, JOURNAL_MAGIC, 4);
    put_u32(b, JOURNAL_VERSION);
    for (size_t i = 0; i < p->n_vals; i++) {
        const struct pre_value *v = &p->vals[i];
        uint8_t kind = REC_VALUE, present = (uint8_t)v->present;
        put_bytes(b, &kind, 1);
        put_string(b, v->key);
        put_string(b, v->name);
        put_bytes(b, &present, 1);
        put_u32(b, v->present ? v->v.type : 0);
        put_u32(b, v->present ? (uint32_t)v->v.len : 0);
        if (v->present)
            put_bytes(b, v->v.data, v->v.len);
    }
    for (size_t i = 0; i < p->n_created; i++) {
        uint8_t kind = REC_KEY;
        put_bytes(b, &kind, 1);
        put_string(b, p->created[i]);
    }
    for (size_t i = 0; i < p->n_files; i++) {
        const struct pre_file *f = &p->files[i];
        uint8_t kind = REC_FILE, present = (uint8_t)f->present;
        put_bytes(b, &kind, 1);
        put_string(b, f->path);
        put_bytes(b, &present, 1);
        put_u32(b, f->present ? (uint32_t)f->v.len : 0);
        if (f->present)
            put_bytes(b, f->v.data, f->v.len);
    }
    for (size_t i = 0; i < p->n_dirs; i++) {
        uint8_t kind = REC_DIR;
        put_bytes(b, &kind, 1);
        put_string(b, p->dirs[i]);
    }
    return b->failed ? -1 : 0;
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

struct reader {
    const uint8_t *p;
    size_t len, off;
};

static int take(struct reader *r, size_t n, const uint8_t **out)
{
    if (n > r->len - r->off)
        return -1;
    *out = r->p + r->off;
    r->off += n;
    return 0;
}

static int take_u32(struct reader *r, uint32_t *x)
{
    const uint8_t *p;
    if (take(r, 4, &p) != 0)
        return -1;
    *x = get_u32(p);
    return 0;
}

static int take_string(struct reader *r, char **out)
{
    uint32_t n;
    const uint8_t *p;
    if (take_u32(r, &n) != 0 || (n & 1) || take(r, n, &p) != 0)
        return -1;
    return rt_utf16le_to_utf8(p, n, out, NULL, NULL) == 0 ? 0 : -1;
}

/* Parses a sealed journal body into P. Returns 0, or -1 with E naming the
 * offset of the bad record. */
static int decode_journal(const char *path, const uint8_t *data, size_t len,
                          uint32_t count, struct plan *p, struct rt_error *e)
{
    struct reader r = {data, len, 8};
    for (uint32_t i = 0; i < count; i++) {
        size_t at = r.off;
        const uint8_t *kind;
        char *key = NULL;
        if (take(&r, 1, &kind) != 0 || take_string(&r, &key) != 0)
            goto bad;
        if (*kind == REC_KEY || *kind == REC_DIR) {
            char ***list = *kind == REC_KEY ? &p->created : &p->dirs;
            size_t *n = *kind == REC_KEY ? &p->n_created : &p->n_dirs;
            char **c = realloc(*list, (*n + 1) * sizeof *c);
            if (!c) {
                free(key);
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            }
            *list = c;
            c[(*n)++] = key;
            continue;
        }
        if (*kind == REC_FILE) {
            struct pre_file f = {.path = key};
            const uint8_t *present, *data_p;
            uint32_t dlen;
            if (take(&r, 1, &present) != 0 || *present > 1 ||
                take_u32(&r, &dlen) != 0 || take(&r, dlen, &data_p) != 0 ||
                (!*present && dlen)) {
                free(key);
                goto bad;
            }
            f.present = *present;
            struct rt_value src = {REG_BINARY, (uint8_t *)data_p, dlen};
            struct pre_file *nf =
                realloc(p->files, (p->n_files + 1) * sizeof *nf);
            if (!nf || (f.present && rt_value_copy(&f.v, &src) != 0)) {
                if (nf)
                    p->files = nf;
                free(key);
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            }
            p->files = nf;
            p->files[p->n_files++] = f;
            continue;
        }
        struct pre_value v = {.key = key};
        const uint8_t *present, *data_p;
        uint32_t type, dlen;
        if (*kind != REC_VALUE || take_string(&r, &v.name) != 0 ||
            take(&r, 1, &present) != 0 || *present > 1 ||
            take_u32(&r, &type) != 0 || take_u32(&r, &dlen) != 0 ||
            take(&r, dlen, &data_p) != 0 || (!*present && dlen)) {
            free(v.name);
            free(key);
            goto bad;
        }
        v.present = *present;
        struct rt_value src = {type, (uint8_t *)data_p, dlen};
        struct pre_value *nv = realloc(p->vals, (p->n_vals + 1) * sizeof *nv);
        if (!nv || (v.present && rt_value_copy(&v.v, &src) != 0)) {
            if (nv)
                p->vals = nv;
            free(v.name);
            free(key);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        p->vals = nv;
        p->vals[p->n_vals++] = v;
        continue;
    bad:
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: record %lu at offset %zu is "
                            "malformed; nothing was rolled back (remove the "
                            "file after checking the registry by hand)",
                            path, (unsigned long)i, at);
    }
    if (r.off != len)
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: %zu bytes after the last record at "
                            "offset %zu; nothing was rolled back",
                            path, len - r.off, r.off);
    return 0;
}

/* Reads the journal. Returns 1 with DATA and LEN set when present, 0 when
 * absent, -1 with E on failure. */
static int journal_read(struct w32_store *w, uint8_t **data, size_t *len,
                        struct rt_error *e)
{
    HANDLE h = CreateFileW(w->journal_w, GENERIC_READ, FILE_SHARE_READ, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
            return 0;
        return w32_error(e, err, "journal %s: cannot open", w->journal);
    }
    LARGE_INTEGER size;
    if (!GetFileSizeEx(h, &size)) {
        DWORD err = GetLastError();
        CloseHandle(h);
        return w32_error(e, err, "journal %s: cannot read its size",
                         w->journal);
    }
    if (size.QuadPart > MAX_JOURNAL) {
        CloseHandle(h);
        return rt_error_set(e, RT_ERR_BADDB,
                            "journal %s: %lld bytes, more than any commit "
                            "writes; nothing was rolled back",
                            w->journal, (long long)size.QuadPart);
    }
    size_t n = (size_t)size.QuadPart, got = 0;
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        CloseHandle(h);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    while (got < n) {
        DWORD chunk = n - got > (1u << 30) ? (1u << 30) : (DWORD)(n - got);
        DWORD r = 0;
        if (!ReadFile(h, buf + got, chunk, &r, NULL) || r == 0) {
            DWORD err = r == 0 ? ERROR_HANDLE_EOF : GetLastError();
            free(buf);
            CloseHandle(h);
            return w32_error(e, err, "journal %s: cannot read", w->journal);
        }
        got += r;
    }
    CloseHandle(h);
    *data = buf;
    *len = n;
    return 1;
}

int w32_journal_delete(struct w32_store *w, struct rt_error *e)
{
    if (!DeleteFileW(w->journal_w)) {
        DWORD err = GetLastError();
        if (err == ERROR_FILE_NOT_FOUND)
            return 0;
        return w32_error(e, err, "journal %s: cannot delete", w->journal);
    }
    rt_io_count_write();
    return 0;
}

static int write_all(HANDLE h, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        DWORD chunk = n > (1u << 30) ? (1u << 30) : (DWORD)n, done = 0;
        if (!WriteFile(h, b, chunk, &done, NULL) || done == 0)
            return -1;
        b += done;
        n -= done;
    }
    return 0;
}

/* Writes P as a journal: body, flush, seal, flush. Each write counts. */
int w32_journal_write(struct w32_store *w, const struct plan *p,
                      struct rt_error *e)
{
    struct rt_strbuf b = {0};
    if (encode_journal(p, &b) != 0) {
        free(b.s);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    uint8_t seal[SEAL_SIZE];
    memcpy(seal, SEAL_MAGIC, 4);
    uint32_t count =
        (uint32_t)(p->n_vals + p->n_created + p->n_files + p->n_dirs);
    uint32_t crc = rt_crc32(0, b.s, b.len);
    for (int i = 0; i < 4; i++) {
        seal[4 + i] = (uint8_t)(count >> (8 * i));
        seal[8 + i] = (uint8_t)(crc >> (8 * i));
    }
    HANDLE h = CreateFileW(w->journal_w, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE) {
        free(b.s);
        return w32_error(e, GetLastError(), "journal %s: cannot create",
                         w->journal);
    }
    int ok = write_all(h, b.s, b.len) == 0;
    free(b.s);
    if (ok) {
        rt_io_count_write();
        ok = FlushFileBuffers(h) && write_all(h, seal, sizeof seal) == 0;
    }
    if (ok) {
        rt_io_count_write();
        ok = FlushFileBuffers(h);
    }
    DWORD err = GetLastError();
    CloseHandle(h);
    if (!ok) {
        /* Unsealed or partly written: never acted on, safe to drop. */
        DeleteFileW(w->journal_w);
        return w32_error(e, err, "journal %s: cannot write", w->journal);
    }
    return 0;
}

/* Deletes key PATH (no subkeys) through its parent, in the 64-bit view. */
static LONG delete_key(struct w32_store *w, const char *path)
{
    const char *leaf = strrchr(path, '\\');
    if (!leaf)
        return ERROR_INVALID_PARAMETER;
    char *parent = w32_dup_n(path, (size_t)(leaf - path));
    WCHAR *leaf_w = w32_wide(leaf + 1);
    HKEY k = NULL;
    LONG r = parent && leaf_w ? w32_open_key(w, parent, KEY_ALL_ACCESS, &k)
                              : ERROR_NOT_ENOUGH_MEMORY;
    if (r == ERROR_SUCCESS) {
        r = RegDeleteKeyExW(k, leaf_w, VIEW, 0);
        RegCloseKey(k);
    }
    free(parent);
    free(leaf_w);
    return r;
}

/* Puts back every pre-image of P and deletes the keys and folders it
 * created. */
static int restore(struct w32_store *w, const struct plan *p,
                   struct rt_error *e)
{
    for (size_t i = 0; i < p->n_files; i++) {
        if (w32_file_restore(w, &p->files[i], e) != 0)
            return -1;
        rt_io_count_write();
    }
    /* Deepest first; a folder something else has filled since stays. */
    for (size_t i = p->n_dirs; i-- > 0;)
        if (w32_dir_remove_if_empty(w, p->dirs[i]))
            rt_io_count_write();
    for (size_t i = 0; i < p->n_vals; i++) {
        const struct pre_value *v = &p->vals[i];
        HKEY k;
        LONG r;
        WCHAR *kw = w32_wide(v->key), *nw = w32_wide(v->name);
        if (!kw || !nw) {
            free(kw);
            free(nw);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        if (v->present)
            r = RegCreateKeyExW(w->hklm, kw, 0, NULL, REG_OPTION_NON_VOLATILE,
                                KEY_SET_VALUE | VIEW, NULL, &k, NULL);
        else
            r = RegOpenKeyExW(w->hklm, kw, 0, KEY_SET_VALUE | VIEW, &k);
        free(kw);
        if (r == ERROR_FILE_NOT_FOUND && !v->present) {
            free(nw);
            continue;               /* no key, so no value: as it was */
        }
        if (r == ERROR_SUCCESS) {
            if (v->present)
                r = w32_set_value(k, nw, &v->v);
            else
                r = RegDeleteValueW(k, nw);
            RegCloseKey(k);
        }
        free(nw);
        if (r == ERROR_FILE_NOT_FOUND)
            continue;
        if (r != ERROR_SUCCESS)
            return w32_error(e, (DWORD)r,
                             "%s: rollback: cannot restore HKLM\\%s\\%s",
                             w->machine, v->key, v->name);
        rt_io_count_write();
    }
    for (size_t i = p->n_created; i-- > 0;) {
        LONG r = delete_key(w, p->created[i]);
        if (r == ERROR_FILE_NOT_FOUND)
            continue;
        if (r != ERROR_SUCCESS)
            return w32_error(e, (DWORD)r,
                             "%s: rollback: cannot delete HKLM\\%s",
                             w->machine, p->created[i]);
        rt_io_count_write();
    }
    w32_flush_hives(w);
    return 0;
}

/* Rolls back the journal left by a commit that did not finish. Returns 1
 * when pre-images were restored, 0 when there was nothing to do (or an
 * unsealed journal, never acted on, was discarded), -1 with E when it
 * could not be done; the journal then stays for the next run. The caller
 * holds the lock. */
int w32_recover(struct w32_store *w, struct rt_error *e)
{
    uint8_t *data = NULL;
    size_t len = 0;
    int r = journal_read(w, &data, &len, e);
    if (r <= 0)
        return r;
    int sealed = len >= 8 + SEAL_SIZE && !memcmp(data, JOURNAL_MAGIC, 4) &&
                 get_u32(data + 4) == JOURNAL_VERSION &&
                 !memcmp(data + len - SEAL_SIZE, SEAL_MAGIC, 4) &&
                 get_u32(data + len - 4) ==
                     rt_crc32(0, data, len - SEAL_SIZE);
    if (!sealed) {
        free(data);
        return w32_journal_delete(w, e);
    }
    struct plan p = {0};
    r = decode_journal(w->journal, data, len - SEAL_SIZE,
                       get_u32(data + len - 8), &p, e);
    free(data);
    if (r == 0)
        r = restore(w, &p, e);
    w32_plan_free(&p);
    if (r == 0)
        r = w32_journal_delete(w, e);
    return r == 0 ? 1 : -1;
}

#endif /* _WIN32 */
