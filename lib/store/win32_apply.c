/* Store layer: applying a commit of the win32 store: inside a KTM
 * transaction where the registry has one, else under the journal of
 * pre-images (win32_journal.c), each write counted (the test hook). */
#include "store/win32_internal.h"

#ifdef _WIN32

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/io.h"
#include "model/utf16.h"

/* ---- applying ------------------------------------------------------------ */

/* How one commit writes: plainly (journal) or inside a KTM transaction. */
struct writer {
    struct w32_store *w;
    HANDLE tx;                  /* NULL: no transaction */
    char **done;                /* created keys, for the transaction */
    size_t n_done;
    size_t writes, fail_after;
};

/* Counts a registry write; -1 when the test hook says to stop here. */
static int counted(struct writer *wr, struct rt_error *e)
{
    rt_io_count_write();
    wr->writes++;
    if (wr->fail_after && wr->writes >= wr->fail_after)
        return rt_error_set(e, RT_ERR_WRITE_FAULT,
                            "%s: injected failure after %zu registry writes",
                            wr->w->machine, wr->writes);
    return 0;
}

/* Creates key PATH (its parent exists). ERROR_CALL_NOT_IMPLEMENTED is
 * returned as such, so the caller can fall back to the journal. */
static LONG create_one(struct writer *wr, const char *path)
{
    WCHAR *p = w32_wide(path);
    if (!p)
        return ERROR_NOT_ENOUGH_MEMORY;
    HKEY k;
    LONG r;
    if (wr->tx)
        r = wr->w->ktm.create_key(wr->w->hklm, p, 0, NULL,
                                  REG_OPTION_NON_VOLATILE, KEY_SET_VALUE | VIEW,
                                  NULL, &k, NULL, wr->tx, NULL);
    else
        r = RegCreateKeyExW(wr->w->hklm, p, 0, NULL, REG_OPTION_NON_VOLATILE,
                            KEY_SET_VALUE | VIEW, NULL, &k, NULL);
    free(p);
    if (r == ERROR_SUCCESS)
        RegCloseKey(k);
    return r;
}

/* Opens PATH for setting values, inside the transaction when there is
 * one (opening an existing key with RegCreateKeyTransacted writes
 * nothing). */
static LONG open_for_write(struct writer *wr, const char *path, HKEY *k)
{
    if (!wr->tx)
        return w32_open_key(wr->w, path, KEY_SET_VALUE | KEY_QUERY_VALUE, k);
    WCHAR *p = w32_wide(path);
    if (!p)
        return ERROR_NOT_ENOUGH_MEMORY;
    LONG r;
    if (wr->w->ktm.open_key)
        r = wr->w->ktm.open_key(wr->w->hklm, p, 0,
                                KEY_SET_VALUE | KEY_QUERY_VALUE | VIEW, k,
                                wr->tx, NULL);
    else
        r = wr->w->ktm.create_key(wr->w->hklm, p, 0, NULL,
                                  REG_OPTION_NON_VOLATILE,
                                  KEY_SET_VALUE | KEY_QUERY_VALUE | VIEW, NULL,
                                  k, NULL, wr->tx, NULL);
    free(p);
    return r;
}

/* Whether created key C lies on the way to PATH (or is PATH). */
static int is_ancestor_or_self(const char *c, const char *path)
{
    size_t n = strlen(c);
    return strlen(path) >= n && (path[n] == '\0' || path[n] == '\\') &&
           rt_utf8_casecmp(c, n, path, n) == 0;
}

/* Creates the planned keys on the way to PATH that do not exist yet. */
static LONG create_path(struct writer *wr, const struct plan *p,
                        const char *path, size_t *created, struct rt_error *e,
                        int *stop)
{
    for (size_t i = *created; i < p->n_created; i++) {
        /* Keys are listed parents first and change by change, so the keys
         * this change creates come next; the rest belong to later ones. */
        if (!is_ancestor_or_self(p->created[i], path))
            break;
        LONG r = create_one(wr, p->created[i]);
        if (r != ERROR_SUCCESS)
            return r;
        (*created)++;
        if (counted(wr, e) != 0) {
            *stop = 1;
            return ERROR_SUCCESS;
        }
    }
    return ERROR_SUCCESS;
}

/* Writes or deletes side file C (win32_files.c); never inside a
 * transaction (w32_apply sends such commits through the journal). A
 * deletion also removes the folders it leaves empty below the top one,
 * as the other stores do. Each file and folder written counts. */
static int write_file_change(struct writer *wr, const struct rt_change *c,
                             size_t i, struct rt_error *e)
{
    struct w32_store *w = wr->w;
    DWORD err;
    if (c->op == RT_CHANGE_WRITE_FILE) {
        int dirs = 0;
        err = w32_file_put(w, c->name, c->value.data, c->value.len, &dirs);
        for (int d = 0; d < dirs; d++)
            if (counted(wr, e) != 0)
                return -1;
        if (!err)
            return counted(wr, e);
    } else {
        int deleted = 0;
        err = w32_file_delete(w, c->name, &deleted);
        if (!err && deleted) {
            if (counted(wr, e) != 0)
                return -1;
            char *dir = strdup(c->name);
            if (!dir)
                return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY,
                                    "out of memory");
            char *slash;
            while ((slash = strrchr(dir, '/')) != NULL &&
                   strchr(dir, '/') != slash) {
                *slash = '\0';
                if (!w32_dir_remove_if_empty(w, dir))
                    break;
                if (counted(wr, e) != 0) {
                    free(dir);
                    return -1;
                }
            }
            free(dir);
        }
        if (!err)
            return 0;
    }
    return w32_error(e, err, "%s: change %zu: cannot %s %s", w->machine,
                     i + 1, c->op == RT_CHANGE_WRITE_FILE ? "write" : "delete",
                     c->name);
}

/* Applies CS in order. Returns 0; -1 with E (and *NOT_IMPL when the
 * transacted registry call is a stub, before anything was written). */
static int write_changes(struct writer *wr, const struct rt_change_set *cs,
                         const struct plan *p, struct rt_error *e,
                         int *not_impl)
{
    struct w32_store *w = wr->w;
    size_t created = 0;
    *not_impl = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        if (c->op == RT_CHANGE_WRITE_FILE || c->op == RT_CHANGE_DELETE_FILE) {
            if (write_file_change(wr, c, i, e) != 0)
                return -1;
            continue;
        }
        const char *value;
        char *key = w32_change_key(w, c, &value);
        if (!key)
            return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        int stop = 0;
        LONG r = create_path(wr, p, key, &created, e, &stop);
        if (stop) {
            free(key);
            return -1;
        }
        if (r == ERROR_SUCCESS && value) {
            HKEY k;
            r = open_for_write(wr, key, &k);
            WCHAR *nw = w32_wide(value);
            if (r == ERROR_SUCCESS && !nw)
                r = ERROR_NOT_ENOUGH_MEMORY;
            if (r == ERROR_SUCCESS) {
                if (c->op == RT_CHANGE_DELETE_SERVICE)
                    r = RegDeleteValueW(k, nw);
                else
                    r = w32_set_value(k, nw, &c->value);
                RegCloseKey(k);
                if (r == ERROR_FILE_NOT_FOUND &&
                    c->op == RT_CHANGE_DELETE_SERVICE) {
                    r = ERROR_SUCCESS;      /* already absent: no write */
                } else if (r == ERROR_SUCCESS && counted(wr, e) != 0) {
                    free(nw);
                    free(key);
                    return -1;
                }
            }
            free(nw);
        }
        if (r != ERROR_SUCCESS) {
            if (r == ERROR_CALL_NOT_IMPLEMENTED && wr->tx && wr->writes == 0)
                *not_impl = 1;
            w32_error(e, (DWORD)r, "%s: change %zu: cannot write HKLM\\%s%s%s",
                      w->machine, i + 1, key, value ? "\\" : "",
                      value ? value : "");
            free(key);
            return -1;
        }
        free(key);
    }
    return 0;
}

/* Commits inside a KTM transaction. Returns 0, -1 with E, or 1 when KTM
 * turned out not to work here (nothing written). */
static int apply_ktm(struct w32_store *w, const struct rt_change_set *cs,
                     const struct plan *p, size_t fail_after,
                     struct rt_error *e)
{
    WCHAR desc[] = L"regtool Perflib commit";
    HANDLE tx = w->ktm.create(NULL, NULL, 0, 0, 0, 0, desc);
    if (tx == INVALID_HANDLE_VALUE || !tx)
        return 1;
    struct writer wr = {.w = w, .tx = tx, .fail_after = fail_after};
    int not_impl = 0;
    int r = write_changes(&wr, cs, p, e, &not_impl);
    if (r == 0 && !w->ktm.commit(tx))
        r = w32_error(e, GetLastError(),
                      "%s: the registry transaction did not commit; nothing "
                      "was written", w->machine);
    else if (r != 0)
        w->ktm.rollback(tx);
    CloseHandle(tx);
    if (not_impl) {
        w->ktm.unsupported = 1;
        return 1;
    }
    return r;
}

/* Commits through the journal of pre-images. */
static int apply_journal(struct w32_store *w, const struct rt_change_set *cs,
                         const struct plan *p, size_t fail_after,
                         struct rt_error *e)
{
    if (w32_journal_write(w, p, e) != 0)
        return -1;
    struct writer wr = {.w = w, .fail_after = fail_after};
    int not_impl;
    if (write_changes(&wr, cs, p, e, &not_impl) != 0) {
        struct rt_error re = {0};
        if (w32_recover(w, &re) < 0) {
            size_t l = strlen(e->message);
            snprintf(e->message + l, sizeof e->message - l,
                     "; rollback failed, the next run retries it: %s",
                     re.message);
        }
        return -1;
    }
    w32_flush_hives(w);
    return w32_journal_delete(w, e);
}

int w32_apply(struct rt_store *s, const struct rt_change_set *cs,
              struct rt_error *e)
{
    struct w32_store *w = w32(s);
    size_t fail_after = w->fail_after;
    w->fail_after = 0;
    if (!w->locked)
        return rt_error_set(e, RT_ERR_LOCK_VIOLATION,
                            "%s: apply outside begin/end", w->machine);
    struct plan p = {0};
    int r = w32_make_plan(w, cs, &p, e);
    /* Side files cannot join a registry transaction (win32_files.c). */
    if (r == 0 && !w->remote && !w->force_journal && w->ktm.create &&
        !w->ktm.unsupported && p.n_files == 0) {
        r = apply_ktm(w, cs, &p, fail_after, e);
        if (r == 1)
            r = apply_journal(w, cs, &p, fail_after, e);
    } else if (r == 0) {
        r = apply_journal(w, cs, &p, fail_after, e);
    }
    w32_plan_free(&p);
    return r;
}

#endif /* _WIN32 */
