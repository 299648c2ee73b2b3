/* Engine layer: 8.3 short names resolved against the tree's folders for
 * audit --libraries (audit_short_names.h). Pure: the folders are listed
 * through struct rt_audit_tree.
 *
 * Windows forms a short name from the long one upper-cased without
 * blanks and inner dots: its first six (or fewer) characters, "~N", and
 * the first three characters of the extension. N is handed out in
 * creation order, which the tree does not keep, so a short name stands
 * for any entry whose folded name begins with the characters before the
 * "~" and whose folded extension is the short one's: a folder's entries,
 * sorted by (extension, first six characters), hold those side by side,
 * found by a binary search. Each folder is listed once, and the answer
 * for each (folder, characters, extension) is kept: a hostile tree's
 * thousands of providers below one folder of thousands of entries cost
 * a listing and a search each, and each entry is looked at by at most
 * six distinct short forms (one for each length of its prefix). */
#include "engine/audit_short_names.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "platform/os.h"

#define EXT_LEN 3
#define PREFIX_LEN 6
#define KEY_LEN (EXT_LEN + PREFIX_LEN)

/* One entry of a folder: its folded extension then its first six folded
 * characters, NUL-padded, and its place in the folder's listing. */
struct entry {
    char key[KEY_LEN];
    size_t order;
    const char *name;
};

/* A node of a table kept by hash: a folder or a short form's answer. */
struct node {
    char *key;           /* folded: upper case */
    uint64_t hash;
    struct node *next;   /* in its bucket */
};

struct table {
    struct node **bucket;
    size_t n, cap;       /* cap: 0 or a power of two */
};

struct folder {
    struct node node;    /* first: the key is the folder, folded */
    char **names;        /* in listing order */
    size_t n_names, cap_names;
    struct entry *v;     /* sorted by key, then order */
    int failed;          /* out of memory while listing */
};

/* The answer for one short form in one folder: names the folder keeps. */
struct answer {
    struct node node;    /* first: FOLDER\PREFIX~.EXT, folded */
    const char *first, *writable;
    size_t n;
};

struct rt_short_names {
    const struct rt_audit_tree *tree;
    struct table folders, answers;
};

/* FNV-1a, keyed and mixed (rt_os_hash_basis): the folders are a tree's,
 * named by whoever wrote it, and names chosen to share a bucket under
 * FNV's own basis made the audit quadratic (80,000 providers: 40 s,
 * review 34 F3). */
static uint64_t folded_hash(const char *s)
{
    uint64_t h = rt_os_hash_basis();
    for (; *s; s++)
        h = (h ^ (unsigned char)toupper((unsigned char)*s)) *
            0x100000001b3ull;
    return rt_os_hash_mix(h);
}

static struct node *table_find(const struct table *t, const char *key,
                               uint64_t hash)
{
    if (!t->cap)
        return NULL;
    for (struct node *x = t->bucket[hash & (t->cap - 1)]; x; x = x->next)
        if (x->hash == hash && !strcmp(x->key, key))
            return x;
    return NULL;
}

/* Adds X (its key and hash set): 0, or -1 when out of memory. */
static int table_add(struct table *t, struct node *x)
{
    if (t->n >= t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        struct node **b = calloc(cap, sizeof *b);
        if (!b)
            return -1;
        for (size_t i = 0; i < t->cap; i++)
            for (struct node *y = t->bucket[i], *next; y; y = next) {
                next = y->next;
                y->next = b[y->hash & (cap - 1)];
                b[y->hash & (cap - 1)] = y;
            }
        free(t->bucket);
        t->bucket = b;
        t->cap = cap;
    }
    x->next = t->bucket[x->hash & (t->cap - 1)];
    t->bucket[x->hash & (t->cap - 1)] = x;
    t->n++;
    return 0;
}

static void table_free(struct table *t, void (*free_node)(struct node *))
{
    for (size_t i = 0; i < t->cap; i++)
        for (struct node *x = t->bucket[i], *next; x; x = next) {
            next = x->next;
            free_node(x);
        }
    free(t->bucket);
    memset(t, 0, sizeof *t);
}

static void free_folder(struct node *x)
{
    struct folder *d = (struct folder *)x;
    for (size_t i = 0; i < d->n_names; i++)
        free(d->names[i]);
    free(d->names);
    free(d->v);
    free(x->key);
    free(d);
}

static void free_answer(struct node *x)
{
    free(x->key);
    free(x);
}

static char *folded_copy(const char *s)
{
    char *c = strdup(s);
    for (char *p = c; p && *p; p++)
        *p = (char)toupper((unsigned char)*p);
    return c;
}

struct rt_short_names *rt_short_names_new(const struct rt_audit_tree *tree)
{
    struct rt_short_names *s = calloc(1, sizeof *s);
    if (s)
        s->tree = tree;
    return s;
}

void rt_short_names_free(struct rt_short_names *s)
{
    if (!s)
        return;
    table_free(&s->folders, free_folder);
    table_free(&s->answers, free_answer);
    free(s);
}

/* NAME's key (struct entry), as Windows would fold it into a short name. */
static void name_key(const char *name, char key[KEY_LEN])
{
    memset(key, 0, KEY_LEN);
    const char *dot = strrchr(name, '.');
    size_t n = 0;
    for (const char *c = dot ? dot + 1 : ""; *c && n < EXT_LEN; c++)
        if (*c != ' ')
            key[n++] = (char)toupper((unsigned char)*c);
    n = 0;
    for (const char *c = name; *c && c != dot && n < PREFIX_LEN; c++)
        if (*c != ' ' && *c != '.')
            key[EXT_LEN + n++] = (char)toupper((unsigned char)*c);
}

static void on_entry(void *arg, const char *name)
{
    struct folder *d = arg;
    if (d->failed)
        return;
    if (d->n_names == d->cap_names) {
        size_t cap = d->cap_names ? 2 * d->cap_names : 16;
        char **v = realloc(d->names, cap * sizeof *v);
        if (!v) {
            d->failed = 1;
            return;
        }
        d->names = v;
        d->cap_names = cap;
    }
    if (!(d->names[d->n_names] = strdup(name)))
        d->failed = 1;
    else
        d->n_names++;
}

static int by_key(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    int c = memcmp(x->key, y->key, KEY_LEN);
    return c ? c : x->order < y->order ? -1 : x->order > y->order;
}

/* Folder DIR, listed now if it was not before; NULL when out of memory. */
static struct folder *folder_of(struct rt_short_names *s, const char *dir)
{
    char *key = folded_copy(dir);
    if (!key)
        return NULL;
    uint64_t hash = folded_hash(key);
    struct node *had = table_find(&s->folders, key, hash);
    if (had) {
        free(key);
        return (struct folder *)had;
    }
    struct folder *d = calloc(1, sizeof *d);
    if (!d) {
        free(key);
        return NULL;
    }
    d->node.key = key;
    d->node.hash = hash;
    /* Whether the folder is there or not, the names given are what it
     * holds: none when it is not. */
    if (s->tree && s->tree->list)
        s->tree->list(s->tree->ctx, dir, on_entry, d);
    if (!d->failed && d->n_names &&
        !(d->v = malloc(d->n_names * sizeof *d->v)))
        d->failed = 1;
    if (d->failed || table_add(&s->folders, &d->node) != 0) {
        free_folder(&d->node);
        return NULL;
    }
    for (size_t i = 0; i < d->n_names; i++) {
        name_key(d->names[i], d->v[i].key);
        d->v[i].order = i;
        d->v[i].name = d->names[i];
    }
    if (d->n_names > 1)
        qsort(d->v, d->n_names, sizeof *d->v, by_key);
    return d;
}

/* The answer for the entries of D whose key begins with PROBE (LEN
 * bytes): the first in listing order, how many, the first writable. */
static void match_range(const struct folder *d, const char *probe, size_t len,
                        struct answer *x)
{
    size_t lo = 0, hi = d->n_names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (memcmp(d->v[mid].key, probe, len) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo, first = SIZE_MAX, writable = SIZE_MAX;
    for (; end < d->n_names && !memcmp(d->v[end].key, probe, len); end++) {
        const struct entry *e = &d->v[end];
        if (first == SIZE_MAX || e->order < d->v[first].order)
            first = end;
        if (rt_audit_writable_at_root(e->name) &&
            (writable == SIZE_MAX || e->order < d->v[writable].order))
            writable = end;
    }
    x->first = first == SIZE_MAX ? NULL : d->v[first].name;
    x->writable = writable == SIZE_MAX ? NULL : d->v[writable].name;
    x->n = 0;
    /* Names that differ from the first in case only are the first. */
    for (size_t i = lo; x->first && i < end; i++)
        if (i == first || strcasecmp(d->v[i].name, x->first))
            x->n++;
}

int rt_short_names_match(struct rt_short_names *s, const char *dir,
                         const char *short_name, struct rt_short_match *m)
{
    memset(m, 0, sizeof *m);
    const char *tilde = strchr(short_name, '~');
    const char *dot = strrchr(short_name, '.');
    const char *ext = dot ? dot + 1 : "";
    size_t prefix = tilde ? (size_t)(tilde - short_name) : 0;
    if (!tilde || !prefix || (dot && dot < tilde) || prefix > PREFIX_LEN ||
        strlen(ext) > EXT_LEN)
        return 0;   /* no name has that short form */
    char probe[KEY_LEN] = {0};
    for (size_t i = 0; ext[i]; i++)
        probe[i] = (char)toupper((unsigned char)ext[i]);
    for (size_t i = 0; i < prefix; i++)
        probe[EXT_LEN + i] = (char)toupper((unsigned char)short_name[i]);
    char *key = NULL;
    if (asprintf(&key, "%s\\%.*s~.%.*s", dir, (int)prefix, probe + EXT_LEN,
                 EXT_LEN, probe) < 0)
        return -1;
    for (char *p = key; *p; p++)
        *p = (char)toupper((unsigned char)*p);
    uint64_t hash = folded_hash(key);
    struct answer *x = (struct answer *)table_find(&s->answers, key, hash);
    if (x) {
        free(key);
    } else {
        struct folder *d = folder_of(s, dir);
        if (!d || !(x = calloc(1, sizeof *x))) {
            free(key);
            return -1;
        }
        x->node.key = key;
        x->node.hash = hash;
        match_range(d, probe, EXT_LEN + prefix, x);
        if (table_add(&s->answers, &x->node) != 0) {
            free_answer(&x->node);
            return -1;
        }
    }
    m->n = x->n;
    if (x->first)
        snprintf(m->first, sizeof m->first, "%s", x->first);
    if (x->writable)
        snprintf(m->writable, sizeof m->writable, "%s", x->writable);
    return 0;
}

static int first_is(const char *path, const char *name)
{
    size_t n = strlen(name);
    return !strncasecmp(path, name, n) && (path[n] == '\\' || !path[n]);
}

int rt_audit_writable_at_root(const char *name)
{
    return first_is(name, "Users") ||
           first_is(name, "Documents and Settings") ||
           first_is(name, "ProgramData") || first_is(name, "Temp") ||
           first_is(name, "Tmp");
}

/* The folders below the Windows directory that a standard user can
 * create files in (their default ACLs grant it, and they are the ones
 * known to be used to plant DLLs and bypass allow-lists). */
static const char *const windows_writable[] = {
    "Temp",
    "Tasks",
    "Tracing",
    "Registration\\CRMLog",
    "debug\\WIA",
    "PLA\\Reports",
    "PLA\\Rules",
    "PLA\\Templates",
    "System32\\spool",
    "System32\\Tasks",
    "System32\\Tasks_Migrated",
    "System32\\FxsTmp",
    "System32\\com\\dmp",
    "System32\\Microsoft\\Crypto\\RSA\\MachineKeys",
    "SysWOW64\\Tasks",
    "SysWOW64\\FxsTmp",
    "SysWOW64\\com\\dmp",
};

/* Whether part C (N bytes), a short name the tree did not resolve, may
 * stand for a folder: any, when it has a '~'. Windows makes short names
 * of a prefix of the long name (REGIST~1) but, past four of one prefix,
 * of two characters and a hash (RE8A3F~1), and a disk's author can give
 * any folder any short name (fsutil file setshortname): the prefix tells
 * nothing (review 43 R43-12: RE8A3F~1\CRMLog was info only). */
static int short_may_be(const char *c, size_t n)
{
    return memchr(c, '~', n) != NULL;
}

/* Whether REST lies in the folder PREFIX ('\\'-separated): each part the
 * same, or with MAYBE a short name the tree did not resolve that may
 * stand for it. */
static int below(const char *rest, const char *prefix, int maybe)
{
    while (*prefix) {
        size_t n = strcspn(prefix, "\\"), r = strcspn(rest, "\\");
        if ((r != n || strncasecmp(rest, prefix, n)) &&
            !(maybe && short_may_be(rest, r)))
            return 0;
        rest += r + (rest[r] == '\\');
        prefix += n + (prefix[n] == '\\');
    }
    return 1;
}

const char *rt_audit_writable_in_windows(const char *rest, int maybe)
{
    /* Of the folders REST may lie in, the one it names the most parts of
     * (REGIST~1\CRMLog is Registration\CRMLog's rather than Temp's):
     * the message says which. */
    const char *best = NULL;
    size_t best_parts = 0;
    for (size_t i = 0;
         i < sizeof windows_writable / sizeof *windows_writable; i++) {
        const char *w = windows_writable[i];
        size_t parts = 1;
        for (const char *q = w; *q; q++)
            parts += *q == '\\';
        if (parts > best_parts && below(rest, w, maybe)) {
            best = w;
            best_parts = parts;
        }
    }
    return best;
}
