/* Platform layer: the parts of os.h written once on top of the system
 * calls of os_posix.c or os_win32.c. */
#include "platform/os.h"
#include "platform/compat.h"
#include "platform/os_internal.h"
#include "platform/name_case.h"

#include <errno.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef RT_OS_POSIX
#include <pthread.h>
#else
#include <windows.h>
#endif

static int is_sep(char c)
{
#ifdef RT_OS_WIN32
    return c == '/' || c == '\\';
#else
    return c == '/';
#endif
}

int rt_os_exists(const char *path)
{
    struct rt_os_stat st;
    return rt_os_stat(path, &st) == 0 && st.kind != RT_OS_ABSENT;
}

int rt_os_is_dir(const char *path)
{
    struct rt_os_stat st;
    return path && rt_os_stat(path, &st) == 0 && st.kind == RT_OS_DIR;
}

int rt_os_same_file(const char *a, const char *b)
{
    struct rt_os_stat sa, sb;
    return a && b && rt_os_stat(a, &sa) == 0 && rt_os_stat(b, &sb) == 0 &&
           sa.kind != RT_OS_ABSENT && sb.kind != RT_OS_ABSENT &&
           sa.dev == sb.dev && sa.ino == sb.ino;
}

int rt_os_names_add(struct rt_os_names *l, const char *name)
{
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return 0;
    /* Doubling, so that a directory of many entries is not copied once
     * per entry. */
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **nv = realloc(l->v, cap * sizeof *nv);
        if (!nv) {
            errno = ENOMEM;
            return -1;
        }
        l->v = nv;
        l->cap = cap;
    }
    if (!(l->v[l->n] = strdup(name))) {
        errno = ENOMEM;
        return -1;
    }
    l->n++;
    return 0;
}

int rt_os_names_finish(struct rt_os_names *l, int err, char ***names,
                       size_t *n)
{
    if (err) {
        rt_os_free_list(l->v, l->n);
        *names = NULL;
        *n = 0;
        errno = err;
        return -1;
    }
    *names = l->v;
    *n = l->n;
    return 0;
}

void rt_os_free_list(char **names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Makes directory PATH unless one is there: 0 (*MADE 1 when it was
 * made), -1 with errno. Something else of that name is refused, named
 * with what it is: a link planted in a tree where a folder goes would
 * otherwise pass here and fail later with a reason no one can place. */
static int mkdir_once(const char *path, int *made)
{
    *made = 0;
    if (rt_os_mkdir(path) == 0) {
        *made = 1;
        return 0;
    }
    int err = errno;
    struct rt_os_stat st;
    if (rt_os_stat(path, &st) != 0)
        return -1;      /* its reason (a link on the way) is the one */
    if (st.kind == RT_OS_DIR)
        return 0;
    if (err == EEXIST && st.kind != RT_OS_ABSENT)
        return rt_os_refuse(ENOTDIR, "%s is %s, not a folder: refused",
                            path, st.what ? st.what : "not a folder");
    errno = err;
    return -1;
}

int rt_os_mkdirs_noting(const char *path, char ***made, size_t *n_made)
{
    size_t len = strlen(path);
    char *buf = malloc(len + 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    memcpy(buf, path, len + 1);
    struct rt_os_names noted = {*made, *n_made, *n_made};
    int r = 0;
    /* Each parent in turn, then PATH; the root and a drive ("C:") are
     * never made. */
    for (size_t i = 1; i <= len && r == 0; i++) {
        if (i < len && (!is_sep(buf[i]) || buf[i - 1] == ':' ||
                        is_sep(buf[i - 1])))
            continue;
        if (i == len && len > 1 && is_sep(buf[len - 1]))
            break;      /* "a/b/": b was the last one */
        char c = buf[i];
        buf[i] = '\0';
        int new_dir;
        r = mkdir_once(buf, &new_dir);
        if (r == 0 && new_dir && rt_os_names_add(&noted, buf) != 0)
            r = -1;
        buf[i] = c;
    }
    int err = errno;
    *made = noted.v;
    *n_made = noted.n;
    free(buf);
    errno = err;
    return r;
}

int rt_os_mkdirs(const char *path)
{
    char **made = NULL;
    size_t n = 0;
    int r = rt_os_mkdirs_noting(path, &made, &n);
    int err = errno;
    rt_os_free_list(made, n);
    errno = err;
    return r;
}

int rt_os_read_file_max(const char *path, size_t max, uint8_t **data,
                        size_t *len)
{
    *data = NULL;
    *len = 0;
    /* A directory opens on POSIX but cannot be read: -2, as there. */
    if (rt_os_is_dir(path)) {
        errno = EISDIR;
        return -2;
    }
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return -1;
    /* The size is a hint only: devices and pipes report 0, and a file
     * may change while it is read. */
    uint64_t hint = 0;
    if (rt_os_fsize(fd, &hint) != 0)
        hint = 0;
    /* A file that says it is larger than MAX is refused before a byte is
     * read: reading up to the limit first costs MAX of memory (a 100 MB
     * INI, a 2 GB hive) only to say no. */
    if (hint > max) {
        errno = EFBIG;
        goto fail;
    }
    size_t cap = hint > 0 && hint <= max ? (size_t)hint + 1 : 4096;
    size_t got = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        errno = ENOMEM;
        goto fail;
    }
    for (;;) {
        if (got == cap) {
            if (cap > max) {
                free(buf);
                errno = EFBIG;
                goto fail;
            }
            size_t ncap = cap * 2 < cap ? (size_t)-1 : cap * 2;
            /* Never more than MAX + 1 bytes: one past the limit says
             * the file is over it. */
            if (max < (size_t)-1 && ncap > max + 1)
                ncap = max + 1;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                free(buf);
                errno = ENOMEM;
                goto fail;
            }
            buf = nb;
            cap = ncap;
        }
        long long r = rt_os_pread(fd, buf + got, cap - got, got);
        if (r < 0) {
            int err = errno;
            free(buf);
            errno = err;
            goto fail;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got > max) {
        free(buf);
        errno = EFBIG;
        goto fail;
    }
    rt_os_close(fd);
    *data = buf;
    *len = got;
    return 0;
fail:;
    int err = errno;
    rt_os_close(fd);
    errno = err;
    return -2;
}

void rt_os_named_link_said(int err, const char *inside, const char *shown)
{
    if (err == ELOOP && rt_os_is_link(inside) == 1)
        rt_os_refuse(ELOOP, "%s is a symbolic link: a file named to regtool "
                     "is read by its own name, never through a link (name "
                     "the file it points to)", shown);
    errno = err;
}

int rt_os_read_file_beneath(const char *path, size_t max, uint8_t **data,
                            size_t *len)
{
    char *dir = NULL;
    char *inside = rt_os_confine_folder_of(path, &dir);
    if (!inside)
        return -1;
    int r = rt_os_read_file_max(inside, max, data, len);
    int err = errno;
    if (r != 0)
        rt_os_named_link_said(err, inside, path);
    rt_os_unconfine(dir);
    free(inside);
    free(dir);
    errno = err;
    return r;
}

uint64_t rt_os_folder_file_bytes(const char *dir)
{
    char **names;
    size_t n;
    uint64_t total = 0;
    if (rt_os_list_dir(dir, &names, &n) != 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char *p = NULL;
        struct rt_os_stat st;
        if (asprintf(&p, "%s/%s", dir, names[i]) >= 0 &&
            rt_os_stat(p, &st) == 0 && st.kind == RT_OS_FILE)
            total += st.size;
        free(p);
    }
    rt_os_free_list(names, n);
    return total;
}

int rt_os_read_file(const char *path, uint8_t **data, size_t *len)
{
    return rt_os_read_file_max(path, (size_t)-1, data, len) == 0 ? 0 : -1;
}

int rt_os_map_small(int fd, size_t size, struct rt_os_map *m)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) {
        errno = ENOMEM;
        return -1;
    }
    size_t got = 0;
    while (got < size) {
        long long r = rt_os_pread(fd, buf + got, size - got, got);
        if (r <= 0) {
            /* Cut short while read: what a mapped page past the end would
             * have been, an error. */
            int err = r < 0 ? errno : EIO;
            free(buf);
            errno = err;
            return -1;
        }
        got += (size_t)r;
    }
    m->data = buf;
    m->len = size;
    m->priv = buf;
    m->heap = 1;
    return 0;
}

/* --- folder listings kept for rt_os_path_ci ------------------------------ */

/* A folder's names, sorted without regard to case (equal ones in byte
 * order), so that a name is found by a binary search and two names that
 * differ only in case lie side by side. */
struct listing {
    char *dir;              /* the folder's path, as rt_os_path_ci built it */
    char **names;
    size_t n;
    struct listing *next;   /* in its hash bucket */
};

/* The listings kept while a directory is confined (rt_os_listings_scope),
 * by the folder's path: each folder of a tree is listed once however many
 * names are looked up in it (thousands of .dat tables, INF copies and
 * DLLs beside as many keys), until this layer changes something in the
 * file system or takes a lock. */
static struct {
    unsigned scopes;
    struct listing **buckets;
    size_t n_buckets, n;
} kept;
#ifdef RT_OS_POSIX
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;
static void kept_acquire(void) { pthread_mutex_lock(&kept_lock); }
static void kept_release(void) { pthread_mutex_unlock(&kept_lock); }
#else
static SRWLOCK kept_lock = SRWLOCK_INIT;
static void kept_acquire(void) { AcquireSRWLockExclusive(&kept_lock); }
static void kept_release(void) { ReleaseSRWLockExclusive(&kept_lock); }
#endif

static void forget_kept(void)
{
    for (size_t b = 0; b < kept.n_buckets; b++)
        for (struct listing *l = kept.buckets[b], *next; l; l = next) {
            next = l->next;
            rt_os_free_list(l->names, l->n);
            free(l->dir);
            free(l);
        }
    free(kept.buckets);
    kept.buckets = NULL;
    kept.n_buckets = kept.n = 0;
}

void rt_os_listings_forget(void)
{
    int err = errno;
    kept_acquire();
    forget_kept();
    kept_release();
    errno = err;
}

/* The listings go when the first scope begins and when the last ends; a
 * scope within another (a file read beneath its own folder inside a
 * confined tree: each INF copy's INI) keeps them, since confining changes
 * nothing on disk. Forgetting them there relisted the INF folder for each
 * of its copies: quadratic in the copies. */
void rt_os_listings_scope(int delta)
{
    int err = errno;
    kept_acquire();
    if (delta > 0) {
        if (kept.scopes++ == 0)
            forget_kept();
    } else if (kept.scopes > 0 && --kept.scopes == 0) {
        forget_kept();
    }
    kept_release();
    errno = err;
}

static struct listing *find_kept(const char *dir)
{
    if (!kept.n_buckets)
        return NULL;
    struct listing *l = kept.buckets[rt_os_path_hash(dir) % kept.n_buckets];
    while (l && strcmp(l->dir, dir))
        l = l->next;
    return l;
}

/* Keeps DIR's NAMES (N of them, sorted; owned by the listing from now
 * on): 0, or -1 when out of memory (NAMES stay the caller's). */
static int keep_listing(const char *dir, char **names, size_t n)
{
    if (kept.n >= kept.n_buckets) {
        /* Doubled, so that a tree of many folders is rehashed a few
         * times, not once per folder. */
        size_t nb = kept.n_buckets ? kept.n_buckets * 2 : 64;
        struct listing **b = calloc(nb, sizeof *b);
        if (!b)
            return -1;
        for (size_t i = 0; i < kept.n_buckets; i++)
            for (struct listing *l = kept.buckets[i], *next; l; l = next) {
                next = l->next;
                size_t h = rt_os_path_hash(l->dir) % nb;
                l->next = b[h];
                b[h] = l;
            }
        free(kept.buckets);
        kept.buckets = b;
        kept.n_buckets = nb;
    }
    struct listing *l = malloc(sizeof *l);
    char *copy = strdup(dir);
    if (!l || !copy) {
        free(l);
        free(copy);
        return -1;
    }
    size_t h = rt_os_path_hash(dir) % kept.n_buckets;
    *l = (struct listing){copy, names, n, kept.buckets[h]};
    kept.buckets[h] = l;
    kept.n++;
    return 0;
}

/* What goes between folder DIR and a name in it: nothing after a root
 * ("/", "C:/"), which ends in its separator. */
static const char *joiner(const char *dir)
{
    size_t n = strlen(dir);
    return n && is_sep(dir[n - 1]) ? "" : "/";
}

static int by_folded_name(const void *a, const void *b)
{
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    int c = rt_name_casecmp(x, y);
    return c ? c : strcmp(x, y);
}

/* DIR's entry NAME, matched without regard to case, in *FOUND
 * (DIR/entry, a new string): 0, or -1 with errno: ENOENT when there is
 * none, EEXIST (a refusal naming both) when two entries match, since
 * Windows, whose file system does not tell them apart, sees one name
 * there and no one can say which of the two it would use. The folder is
 * listed and sorted once, then kept while a directory is confined: a
 * lookup is a binary search however many entries it has (System32 and
 * INF hold thousands). */
static int entry_ci(const char *dir, const char *name, char **found)
{
    *found = NULL;
    kept_acquire();
    struct listing *l = kept.scopes ? find_kept(dir) : NULL;
    char **names = l ? l->names : NULL;
    size_t n = l ? l->n : 0;
    int own = 0;
    if (!l) {
        if (rt_os_list_dir(dir, &names, &n) != 0) {
            int err = errno;
            kept_release();
            errno = err;
            return -1;
        }
        if (n > 1)      /* an empty folder's NAMES is NULL */
            qsort(names, n, sizeof *names, by_folded_name);
        own = !kept.scopes || keep_listing(dir, names, n) != 0;
    }
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt_name_casecmp(names[mid], name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int r = 0;
    if (lo == n || rt_name_casecmp(names[lo], name)) {
        errno = ENOENT;
        r = -1;
    } else if (lo + 1 < n && !rt_name_casecmp(names[lo + 1], name)) {
        r = rt_os_refuse(EEXIST,
                         "%s holds both %s and %s, names that differ "
                         "only in letter case: Windows sees one name "
                         "there, and which of the two it would use is "
                         "not known: refused",
                         dir, names[lo], names[lo + 1]);
    } else if (asprintf(found, "%s%s%s", dir, joiner(dir), names[lo]) < 0) {
        *found = NULL;
        errno = ENOMEM;
        r = -1;
    }
    int err = errno;
    if (own)
        rt_os_free_list(names, n);
    kept_release();
    errno = err;
    return r;
}

char *rt_os_path_ci(const char *dir, const char *rel, int must_exist)
{
    char *cur = strdup(dir), *copy = strdup(rel), *save = NULL;
    int found = 1;
    if (!cur || !copy) {
        free(cur);
        free(copy);
        errno = ENOMEM;
        return NULL;
    }
    for (char *p = strtok_r(copy, "/", &save); p && cur;
         p = strtok_r(NULL, "/", &save)) {
        char *next = NULL;
        if (found && entry_ci(cur, p, &next) != 0) {
            /* Two names for one is refused even where a file is to be
             * written: a write to either would leave Windows the other. */
            if (errno == EEXIST || errno == ENOMEM || must_exist) {
                free(cur);
                cur = NULL;
                break;
            }
        }
        if (!next && !must_exist) {
            found = 0;
            if (asprintf(&next, "%s%s%s", cur, joiner(cur), p) < 0) {
                next = NULL;
                errno = ENOMEM;
            }
        }
        free(cur);
        cur = next;
    }
    int err = errno;
    free(copy);
    errno = err;
    return cur;
}

/* --- refusals and confinement ------------------------------------------- */

static _Thread_local int refusal_code;
static _Thread_local char refusal_text[640];

void rt_os_format_cut(char *buf, size_t size, const char *fmt, va_list ap)
{
    static const char gap[] = " ... ";
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(buf, size, fmt, ap);
    char *whole = n >= 0 && (size_t)n >= size && size >= 4 * sizeof gap
                      ? malloc((size_t)n + 1)
                      : NULL;
    if (whole) {  /* (out of memory: the start, as vsnprintf left it) */
        vsnprintf(whole, (size_t)n + 1, fmt, again);
        size_t head = (size - sizeof gap) / 4;
        size_t tail = size - sizeof gap - head;
        while (head && ((unsigned char)whole[head] & 0xC0) == 0x80)
            head--;
        const char *t = whole + n - tail;
        while (((unsigned char)*t & 0xC0) == 0x80)
            t++;
        memcpy(buf, whole, head);
        memcpy(buf + head, gap, sizeof gap - 1);
        memcpy(buf + head + sizeof gap - 1, t, strlen(t) + 1);
        free(whole);
    }
    va_end(again);
}

int rt_os_refuse(int err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rt_os_format_cut(refusal_text, sizeof refusal_text, fmt, ap);
    va_end(ap);
    refusal_code = err;
    errno = err;
    return -1;
}

void rt_os_refusal_clear(void)
{
    refusal_code = 0;
}

int rt_os_refusal_named(int err)
{
    return err && err == refusal_code;
}

const char *rt_os_strerror(int err)
{
    if (err && err == refusal_code)
        return refusal_text;
    return strerror(err);
}

size_t rt_os_folder_length(const char *path, const char *slash)
{
    size_t n = (size_t)(slash - path);
#ifdef _WIN32
    if (n == 2 && path[1] == ':')
        return 3;
#endif
    return n ? n : 1;
}

char *rt_os_folder_of(const char *path)
{
    const char *slash = rt_os_last_separator(path);
    char *dir = slash ? strndup(path, rt_os_folder_length(path, slash))
                      : strdup(".");
    if (!dir)
        errno = ENOMEM;
    return dir;
}

/* Whether PATH cannot be looked at because a held folder refuses a ".."
 * step of it: the writer resolves the user's path otherwise
 * (a link of the user's followed first), so such a path is taken as the
 * store's file, not as another (review 44 R44-8: "../link" typed in the
 * store's folder replaced the hive the link leads to). One too long to
 * look at the writer refuses as well (review 45 R45-6). */
static int refused_beneath(const char *path)
{
    int dotdot = 0;
    for (const char *p = path; *p && !dotdot;) {
        size_t n = 0;
        while (p[n] && !rt_os_is_separator(p[n]))
            n++;
        dotdot = n == 2 && p[0] == '.' && p[1] == '.';
        p += n;
        while (*p && rt_os_is_separator(*p))
            p++;
    }
    struct rt_os_stat st;
    return dotdot && rt_os_stat(path, &st) != 0 && errno == EXDEV;
}

/* FILE, or the name its folder holds for it in another letter case (a
 * log SOFTWARE.log1 the store reads as SOFTWARE.LOG1: review 45 R45-3),
 * a new string; NULL when out of memory. */
static char *as_there(const char *file)
{
    char *dir = rt_os_folder_of(file);
    const char *slash = rt_os_last_separator(file);
    char *found = dir && slash ? rt_os_path_ci(dir, slash + 1, 1) : NULL;
    free(dir);
    return found ? found : strdup(file);
}

/* Which of FILE's names with SUFFIXES that exist PATH is, as a file:
 * another spelling of one (a short name on Windows, SOFTWA~1.LOG for
 * SOFTWARE.LOG1; a second link to it) where the names differ. */
static int same_as_one_there(const char *path, const char *file,
                             const char *const *suffixes)
{
    if (!rt_os_exists(path))
        return refused_beneath(path) ? 0 : -1;
    for (int k = 0; suffixes[k]; k++) {
        char *name = NULL, *there;
        if (asprintf(&name, "%s%s", file, suffixes[k]) < 0)
            return -1;
        there = as_there(name);
        int same = there && rt_os_same_file(path, there);
        free(name);
        free(there);
        if (same)
            return k;
    }
    return -1;
}

char *rt_os_without_dot_steps(const char *path)
{
    size_t len = strlen(path);
    char *out = malloc(len + 2);
    if (!out) {
        errno = ENOMEM;
        return NULL;
    }
    size_t o = 0, lead = 0;
    while (path[lead] && rt_os_is_separator(path[lead]))
        out[o++] = path[lead++];
    int last = 0;
    for (const char *s = path + lead; *s;) {
        size_t n = 0, gap = 0;
        while (s[n] && !rt_os_is_separator(s[n]))
            n++;
        last = n == 1 && s[0] == '.';
        while (s[n + gap] && rt_os_is_separator(s[n + gap]))
            gap++;
        /* One separator for many ("u////sw" is u/sw to the writer, and a
         * path made long by them could not be looked at: R45-6). */
        if (!last) {
            memcpy(out + o, s, n + (gap > 0));
            o += n + (gap > 0);
        }
        s += n + gap;
    }
    /* "DIR/." is DIR: the separator before the "." goes with it, but a
     * drive's root keeps its own ("C:" alone is the drive's current
     * folder). */
#ifdef _WIN32
    if (o >= 3 && path[1] == ':' && lead == 0)
        lead = 3;
#endif
    while (last && o > lead && rt_os_is_separator(out[o - 1]))
        o--;
    if (!o)
        out[o++] = '.';
    out[o] = '\0';
    return out;
}

/* rt_os_names_file on PATH as it is written: its "." steps dropped. */
static int names_file(const char *path, const char *file,
                      const char *const *suffixes)
{
    const char *ps = rt_os_last_separator(path);
    const char *fs = rt_os_last_separator(file);
    const char *pname = ps ? ps + 1 : path, *fname = fs ? fs + 1 : file;
    size_t n = strlen(fname);
    int k = 0;
    if (strncasecmp(pname, fname, n) != 0)
        return same_as_one_there(path, file, suffixes);
    while (suffixes[k] && strcasecmp(pname + n, suffixes[k]))
        k++;
    if (!suffixes[k])
        return same_as_one_there(path, file, suffixes);
    char *pdir = rt_os_folder_of(path), *fdir = rt_os_folder_of(file);
    int same = pdir && fdir &&
               (rt_os_same_file(pdir, fdir) || refused_beneath(pdir));
    free(pdir);
    free(fdir);
    /* FILE's name in another folder may still be FILE: a link the user
     * made there (review 44 R44-1: u/SOFTWARE -> the tree's SOFTWARE was
     * replaced by audit --textfile). */
    return same ? k : same_as_one_there(path, file, suffixes);
}

int rt_os_names_file(const char *path, const char *file,
                     const char *const *suffixes)
{
    /* A path the user typed is written with its "." steps dropped (a
     * tree refuses them in the names it reads, not in the user's): so
     * it is compared, or "config/./SOFTWARE" named no file of the store
     * (a stat beneath the tree refuses the ".") and the audit's text
     * replaced the hive (review 43 R43-1). */
    char *typed = rt_os_without_dot_steps(path);
    if (!typed)
        return -1;
    int k = names_file(typed, file, suffixes);
    free(typed);
    return k;
}

int rt_os_is_separator(char c)
{
#ifdef _WIN32
    if (c == '\\')
        return 1;
#endif
    return c == '/';
}

const char *rt_os_last_separator(const char *path)
{
    const char *slash = strrchr(path, '/');
#ifdef _WIN32
    /* Windows' own separator: an installer's C:\dir\provider.ini. */
    const char *back = strrchr(path, '\\');
    if (back && (!slash || back > slash))
        slash = back;
#endif
    return slash;
}

static int ends_in_separator(const char *dir)
{
    size_t n = strlen(dir);
#ifdef _WIN32
    if (n && dir[n - 1] == '\\')
        return 1;
#endif
    return n && dir[n - 1] == '/';
}

/* FILE on the canonical form of its folder, confined by CONFINE. */
static char *confined_folder_of(const char *file, char **root,
                                int (*confine)(const char *, char **))
{
    const char *slash = rt_os_last_separator(file);
    char *dir = rt_os_folder_of(file);
    const char *name = slash ? slash + 1 : file;
    char *out = NULL;
    *root = NULL;
    if (!dir) {
        errno = ENOMEM;
        return NULL;
    }
    int r = confine(dir, root);
    int err = errno;
    free(dir);
    if (r != 0) {
        errno = err;
        return NULL;
    }
    if (asprintf(&out, "%s%s%s", *root, ends_in_separator(*root) ? "" : "/",
                 name) < 0) {
        rt_os_unconfine(*root);
        free(*root);
        *root = NULL;
        errno = ENOMEM;
        return NULL;
    }
    return out;
}

char *rt_os_confine_folder_of(const char *file, char **root)
{
    return confined_folder_of(file, root, rt_os_confine_input);
}

char *rt_os_confine_store_folder_of(const char *file, char **root)
{
    return confined_folder_of(file, root, rt_os_confine_on_disk);
}

int rt_os_beneath(const char *root, size_t len, const char *path,
                  const char **rel)
{
    /* The file system's root confines nothing a caller could name. */
    if (len <= 1 || strncmp(path, root, len) != 0 ||
        (path[len] && !is_sep(path[len])))
        return 0;
    *rel = path + len;
    while (is_sep(**rel))
        (*rel)++;
    return 1;
}

/* The number in a code page's name ("1252", "windows-1252", "CP1252"),
 * or 0 when it has none. */
unsigned rt_os_codepage_number(const char *codepage)
{
    size_t n = strlen(codepage), i = n;
    while (i > 0 && codepage[i - 1] >= '0' && codepage[i - 1] <= '9')
        i--;
    if (i == n || n - i > 5)
        return 0;
    return (unsigned)strtoul(codepage + i, NULL, 10);
}
