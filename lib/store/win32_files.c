/* Store layer: the win32 store's side files, the INF copies and
 * System32\PerfStringBackup.INI that Windows keeps beside the name
 * database (engine/side_files.h), under the local machine's Windows
 * directory.
 *
 * They join the commit through the same journal of pre-images as the
 * registry values (win32_journal.c): before anything is written, each
 * file a change set writes or deletes is recorded as it is (its bytes, or
 * "absent"), and each folder the commit will create. A file is written
 * whole beside itself (NAME.regtool-new, flushed) and renamed over the
 * old one with MOVEFILE_WRITE_THROUGH, so a reader sees the old or the
 * new file, never a part. A rollback writes the recorded bytes back the
 * same way (or deletes a file that was absent, and any NAME.regtool-new
 * left), then removes the folders the commit created once they are
 * empty: idempotent, like the rest of the journal.
 *
 * Why no KTM for these: a registry transaction cannot hold a file (TxF,
 * which could, is deprecated and absent from Wine), so a commit with side
 * files always goes through the journal. A remote machine keeps no side
 * files here (its ADMIN$ share is not written to). */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

#define TEMP_SUFFIX L".regtool-new"

int w32_files_available(struct w32_store *w)
{
    if (w->remote)
        return 0;
    if (!w->windir_w[0]) {
        UINT n = GetSystemWindowsDirectoryW(w->windir_w, MAX_PATH);
        if (n == 0 || n >= MAX_PATH)
            w->windir_w[0] = 0;
    }
    return w->windir_w[0] != 0;
}

/* Whether REL is a path this store writes: components joined by '/',
 * none empty, "." or "..", and no character Windows reads as a
 * separator, a drive or a stream. */
static int valid_rel(const char *rel)
{
    size_t n = strlen(rel);
    if (n == 0 || n > 200)
        return 0;
    const char *c = rel;
    for (;;) {
        const char *end = strchr(c, '/');
        size_t len = end ? (size_t)(end - c) : strlen(c);
        if (len == 0 || (len == 1 && c[0] == '.') ||
            (len == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        for (size_t i = 0; i < len; i++)
            if (c[i] == '\\' || c[i] == ':' || (unsigned char)c[i] < 0x20)
                return 0;
        if (!end)
            return 1;
        c = end + 1;
    }
}

WCHAR *w32_file_path(struct w32_store *w, const char *rel, const WCHAR *suffix)
{
    if (!w32_files_available(w) || !valid_rel(rel))
        return NULL;
    WCHAR *r = w32_wide(rel);
    if (!r)
        return NULL;
    size_t nd = lstrlenW(w->windir_w), nr = lstrlenW(r);
    size_t ns = suffix ? lstrlenW(suffix) : 0;
    WCHAR *p = malloc((nd + 1 + nr + ns + 1) * sizeof *p);
    if (p) {
        memcpy(p, w->windir_w, nd * sizeof *p);
        p[nd] = L'\\';
        for (size_t i = 0; i < nr; i++)
            p[nd + 1 + i] = r[i] == L'/' ? L'\\' : r[i];
        if (ns)
            memcpy(p + nd + 1 + nr, suffix, ns * sizeof *p);
        p[nd + 1 + nr + ns] = 0;
    }
    free(r);
    return p;
}

static int bad_path(struct w32_store *w, const char *rel, struct rt_error *e)
{
    if (!w32_files_available(w))
        return rt_error_set(e, RT_ERR_NOT_SUPPORTED,
                            "%s: no Windows directory for %s; nothing was "
                            "written", w->machine, rel);
    return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                        "%s: '%s' is not a path under the Windows directory",
                        w->machine, rel);
}

/* Reads a whole file; ERROR_FILE_NOT_FOUND / ERROR_PATH_NOT_FOUND when
 * it is absent. */
static DWORD read_whole(const WCHAR *path, struct rt_value *out)
{
    HANDLE h = CreateFileW(path, GENERIC_READ, FILE_SHARE_READ, NULL,
                           OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError();
    LARGE_INTEGER size;
    DWORD err = 0;
    if (!GetFileSizeEx(h, &size))
        err = GetLastError();
    else if (size.QuadPart > (64 << 20))
        err = ERROR_FILE_TOO_LARGE;     /* no side file comes near it */
    uint8_t *buf = err ? NULL : malloc(size.QuadPart ? size.QuadPart : 1);
    if (!err && !buf)
        err = ERROR_NOT_ENOUGH_MEMORY;
    size_t got = 0, n = err ? 0 : (size_t)size.QuadPart;
    while (!err && got < n) {
        DWORD r = 0;
        if (!ReadFile(h, buf + got, (DWORD)(n - got), &r, NULL) || r == 0)
            err = r == 0 ? ERROR_HANDLE_EOF : GetLastError();
        got += r;
    }
    CloseHandle(h);
    if (err) {
        free(buf);
        return err;
    }
    out->type = REG_BINARY;
    out->data = buf;
    out->len = n;
    return 0;
}

int w32_file_read(struct w32_store *w, const char *rel, struct rt_value *out,
                  int *present, struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    *present = 0;
    WCHAR *p = w32_file_path(w, rel, NULL);
    if (!p)
        return bad_path(w, rel, e);
    DWORD err = read_whole(p, out);
    free(p);
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        return 0;
    if (err)
        return w32_error(e, err, "%s: cannot read %s", w->machine, rel);
    *present = 1;
    return 0;
}

/* Whether folder REL exists. */
static int dir_exists(struct w32_store *w, const char *rel)
{
    WCHAR *p = w32_file_path(w, rel, NULL);
    DWORD a = p ? GetFileAttributesW(p) : INVALID_FILE_ATTRIBUTES;
    free(p);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
}

static int listed(char **v, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (rt_utf8_casecmp(v[i], strlen(v[i]), s, strlen(s)) == 0 &&
            strlen(v[i]) == strlen(s))
            return 1;
    return 0;
}

int w32_plan_file(struct w32_store *w, struct plan *p,
                  const struct rt_change *c, struct rt_error *e)
{
    if (!c->name || !w32_files_available(w) || !valid_rel(c->name))
        return bad_path(w, c->name ? c->name : "(none)", e);
    /* The folders a write needs that do not exist yet, parents first. */
    for (const char *s = c->name; c->op == RT_CHANGE_WRITE_FILE &&
                                  (s = strchr(s, '/')) != NULL; s++) {
        char *dir = w32_dup_n(c->name, (size_t)(s - c->name));
        if (!dir)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        if (listed(p->dirs, p->n_dirs, dir) || dir_exists(w, dir)) {
            free(dir);
            continue;
        }
        char **d = realloc(p->dirs, (p->n_dirs + 1) * sizeof *d);
        if (!d) {
            free(dir);
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        }
        p->dirs = d;
        d[p->n_dirs++] = dir;
    }
    for (size_t i = 0; i < p->n_files; i++)
        if (!strcmp(p->files[i].path, c->name))
            return 0;
    struct pre_file f = {0};
    if (w32_file_read(w, c->name, &f.v, &f.present, e) != 0)
        return -1;
    f.path = strdup(c->name);
    struct pre_file *nf = realloc(p->files, (p->n_files + 1) * sizeof *nf);
    if (!f.path || !nf) {
        if (nf)
            p->files = nf;
        free(f.path);
        rt_value_free(&f.v);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    p->files = nf;
    p->files[p->n_files++] = f;
    return 0;
}

/* Writes the whole of DATA to a new file TMP, flushed. */
static DWORD write_new(const WCHAR *tmp, const uint8_t *data, size_t len)
{
    HANDLE h = CreateFileW(tmp, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (h == INVALID_HANDLE_VALUE)
        return GetLastError();
    DWORD err = 0;
    while (!err && len > 0) {
        DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len, done = 0;
        if (!WriteFile(h, data, chunk, &done, NULL) || done == 0)
            err = GetLastError() ? GetLastError() : ERROR_WRITE_FAULT;
        data += done;
        len -= done;
    }
    if (!err && !FlushFileBuffers(h))
        err = GetLastError();
    CloseHandle(h);
    if (err)
        DeleteFileW(tmp);
    return err;
}

/* Creates every missing folder on the way to file REL. */
static DWORD make_parents(struct w32_store *w, const char *rel, int *made)
{
    for (const char *s = rel; (s = strchr(s, '/')) != NULL; s++) {
        char *dir = w32_dup_n(rel, (size_t)(s - rel));
        WCHAR *p = dir ? w32_file_path(w, dir, NULL) : NULL;
        free(dir);
        if (!p)
            return ERROR_NOT_ENOUGH_MEMORY;
        BOOL ok = CreateDirectoryW(p, NULL);
        DWORD err = ok ? 0 : GetLastError();
        free(p);
        if (ok)
            (*made)++;
        else if (err != ERROR_ALREADY_EXISTS)
            return err;
    }
    return 0;
}

DWORD w32_file_put(struct w32_store *w, const char *rel, const uint8_t *data,
                   size_t len, int *dirs_made)
{
    int made = 0;
    DWORD err = make_parents(w, rel, &made);
    if (dirs_made)
        *dirs_made = made;
    if (err)
        return err;
    WCHAR *dst = w32_file_path(w, rel, NULL);
    WCHAR *tmp = w32_file_path(w, rel, TEMP_SUFFIX);
    err = dst && tmp ? write_new(tmp, data, len) : ERROR_NOT_ENOUGH_MEMORY;
    if (!err && !MoveFileExW(tmp, dst, MOVEFILE_REPLACE_EXISTING |
                                           MOVEFILE_WRITE_THROUGH)) {
        err = GetLastError();
        DeleteFileW(tmp);
    }
    free(dst);
    free(tmp);
    return err;
}

DWORD w32_file_delete(struct w32_store *w, const char *rel, int *deleted)
{
    *deleted = 0;
    WCHAR *p = w32_file_path(w, rel, NULL);
    if (!p)
        return ERROR_NOT_ENOUGH_MEMORY;
    DWORD err = DeleteFileW(p) ? 0 : GetLastError();
    free(p);
    if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
        return 0;
    if (!err)
        *deleted = 1;
    return err;
}

int w32_dir_remove_if_empty(struct w32_store *w, const char *rel)
{
    WCHAR *p = w32_file_path(w, rel, NULL);
    int ok = p && RemoveDirectoryW(p);
    free(p);
    return ok;
}

int w32_file_restore(struct w32_store *w, const struct pre_file *f,
                     struct rt_error *e)
{
    DWORD err;
    int deleted = 0;
    WCHAR *tmp = w32_file_path(w, f->path, TEMP_SUFFIX);
    if (!tmp)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    /* A crash between the temporary file and its rename leaves it. */
    DeleteFileW(tmp);
    free(tmp);
    if (f->present)
        err = w32_file_put(w, f->path, f->v.data, f->v.len, NULL);
    else
        err = w32_file_delete(w, f->path, &deleted);
    if (err)
        return w32_error(e, err, "%s: rollback: cannot restore %s",
                         w->machine, f->path);
    return 0;
}

#endif /* _WIN32 */
