/* Engine layer: the list of findings an audit, a repair or a verify makes
 * (audit.h, struct rt_findings): compact, because a hostile tree's audit
 * finds millions of things. */
#include "engine/audit.h"
#include "model/lang_id.h"
#include "model/sort_positions.h"
#include "platform/os.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rt_audit_severity_name(enum rt_audit_severity s)
{
    return s == RT_AUDIT_ERROR ? "error" : s == RT_AUDIT_WARNING ? "warning"
                                                                 : "info";
}

/* S kept in F's pool, once for all the findings that repeat it while it
 * stays in its slot of F->recent; NULL when out of memory. */
static const char *kept_once(struct rt_findings *f, const char *s)
{
    size_t hash = 5381, len = 0;
    for (; s[len]; len++)
        hash = hash * 33 + (unsigned char)s[len];
    const char **slot = &f->recent[hash % RT_FINDINGS_RECENT];
    if (*slot && !strcmp(*slot, s))
        return *slot;
    const char *kept = rt_str_pool_add(&f->pool, s, len);
    if (kept)
        *slot = kept;
    return kept;
}

/* --- sets kept by hash (open addressing, linear probing) --------------- */

static uint64_t mix(uint64_t h, uint64_t x)
{
    return (h ^ x) * 0x100000001b3ull;
}

/* Keyed and mixed (rt_os_hash_basis): a message starts with a service
 * name and evidence holds indices, both the tree's, and ones chosen to
 * share a slot under FNV's own basis tripled audit's time (review 34
 * F3). */
static uint64_t text_hash(const char *s, size_t len)
{
    uint64_t h = rt_os_hash_basis();
    for (size_t i = 0; i < len; i++)
        h = mix(h, (unsigned char)s[i]);
    return rt_os_hash_mix(h);
}

static uint64_t evidence_hash(const struct rt_evidence *ev)
{
    uint64_t h = mix(rt_os_hash_basis(), ev->n_indices);
    h = mix(h, ev->n_texts);
    for (size_t i = 0; i < ev->n_indices; i++)
        h = mix(h, ev->indices[i]);
    /* Texts are kept once: the same text is the same pointer. */
    for (size_t i = 0; i < ev->n_texts; i++)
        h = mix(h, (uint64_t)(uintptr_t)ev->texts[i]);
    return rt_os_hash_mix(h);
}

static int evidence_equal(const struct rt_evidence *a,
                          const struct rt_evidence *b)
{
    return a->n_indices == b->n_indices && a->n_texts == b->n_texts &&
           (!a->n_indices ||
            !memcmp(a->indices, b->indices, a->n_indices * sizeof *a->indices)) &&
           (!a->n_texts ||
            !memcmp(a->texts, b->texts, a->n_texts * sizeof *a->texts));
}

/* The slot of SET where an item of hash H equal to KEY (by EQUAL) is, or
 * the empty slot where it would go. SET has room (cap > n). */
static const void **set_slot(struct rt_findings_set *set, uint64_t h,
                             const void *key,
                             int (*equal)(const void *item, const void *key))
{
    size_t mask = set->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask)
        if (!set->slot[i] || equal(set->slot[i], key))
            return &set->slot[i];
}

/* Room in SET for one more item, at most half full; HASH rehashes. */
static int set_room(struct rt_findings_set *set,
                    uint64_t (*hash)(const void *item))
{
    if (2 * (set->n + 1) <= set->cap)
        return 0;
    size_t cap = set->cap ? 2 * set->cap : 64;
    const void **slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    for (size_t i = 0; i < set->cap; i++) {
        if (!set->slot[i])
            continue;
        size_t j = (size_t)hash(set->slot[i]) & (cap - 1);
        while (slot[j])
            j = (j + 1) & (cap - 1);
        slot[j] = set->slot[i];
    }
    free(set->slot);
    set->slot = slot;
    set->cap = cap;
    return 0;
}

static void set_free(struct rt_findings_set *set)
{
    free(set->slot);
    memset(set, 0, sizeof *set);
}

static uint64_t text_item_hash(const void *item)
{
    return text_hash(item, strlen(item));
}

static int text_item_equal(const void *item, const void *key)
{
    return !strcmp(item, key);
}

static uint64_t evidence_item_hash(const void *item)
{
    return evidence_hash(item);
}

static int evidence_item_equal(const void *item, const void *key)
{
    return evidence_equal(item, key);
}

/* TEXT kept in F's pool once for every evidence that shows it; NULL when
 * out of memory. */
static const char *text_kept(struct rt_findings *f, const char *text)
{
    if (set_room(&f->texts, text_item_hash) != 0)
        return NULL;
    size_t len = strlen(text);
    const void **slot =
        set_slot(&f->texts, text_hash(text, len), text, text_item_equal);
    if (!*slot) {
        if (!(*slot = rt_str_pool_add(&f->pool, text, len)))
            return NULL;
        f->texts.n++;
    }
    return *slot;
}

/* --- kinds and messages ------------------------------------------------- */

/* The first byte of a finding's SAID: the message follows whole, or with
 * LANGUAGE_MARK wherever the finding's language id stood in it. A
 * message that holds the mark's byte itself is kept whole. */
#define SAID_WHOLE '\x02'
#define SAID_MARKED '\x01'
#define LANGUAGE_MARK '\x01'

/* The kind of ID, SEVERITY, SYMPTOM and FIX (kept) in F, once for the
 * findings that repeat it while it stays in its slot of F->kinds; NULL
 * when out of memory. */
static const struct rt_finding_kind *
kind_kept(struct rt_findings *f, const char *id, enum rt_audit_severity severity,
          const char *symptom, const char *fix)
{
    uint64_t h = mix(mix(mix(mix(0xcbf29ce484222325ull, (uintptr_t)id),
                             (uintptr_t)symptom),
                         (uintptr_t)fix),
                     (uint64_t)severity);
    const struct rt_finding_kind **slot = &f->kinds[h % RT_FINDINGS_RECENT];
    const struct rt_finding_kind *k = *slot;
    if (k && k->id == id && k->symptom == symptom && k->fix == fix &&
        k->severity == severity)
        return k;
    struct rt_finding_kind *x = rt_str_pool_alloc(&f->pool, sizeof *x);
    if (!x)
        return NULL;
    *x = (struct rt_finding_kind){id, symptom, fix, severity};
    return *slot = x;
}

/* MESSAGE (LEN bytes) as a finding about LANGUAGE (NULL: none) keeps it:
 * in F's pool, with LANGUAGE marked once for the findings that repeat
 * it; NULL when out of memory. */
static const char *said_kept(struct rt_findings *f, const char *language,
                             const char *message, size_t len)
{
    char stack[512], *said = len + 2 <= sizeof stack ? stack : malloc(len + 2);
    if (!said)
        return NULL;
    size_t n = 0, lang_len = language ? strlen(language) : 0;
    if (lang_len && !memchr(message, LANGUAGE_MARK, len) &&
        strstr(message, language)) {
        said[n++] = SAID_MARKED;
        for (const char *m = message; *m;) {
            if (!strncmp(m, language, lang_len)) {
                said[n++] = LANGUAGE_MARK;
                m += lang_len;
            } else {
                said[n++] = *m++;
            }
        }
    } else {
        said[n++] = SAID_WHOLE;
        memcpy(said + n, message, len);
        n += len;
    }
    said[n] = '\0';
    /* Words with a language marked repeat from language to language:
     * kept once (by hash, TEXTS). A message kept whole is as a rule said
     * once: it costs its bytes, as before. */
    const char *kept = said[0] == SAID_MARKED ? text_kept(f, said)
                                              : rt_str_pool_add(&f->pool, said, n);
    if (said != stack)
        free(said);
    return kept;
}

/* X's message in OUT (room for it and a NUL, when OUT is not NULL); its
 * length. */
static size_t spell(const struct rt_finding *x, char *out)
{
    const char *s = x->said + 1;
    if (x->said[0] == SAID_WHOLE) {
        size_t len = strlen(s);
        if (out)
            memcpy(out, s, len + 1);
        return len;
    }
    size_t lang_len = strlen(x->language), n = 0;
    for (; *s; s++) {
        if (*s == LANGUAGE_MARK) {
            if (out)
                memcpy(out + n, x->language, lang_len);
            n += lang_len;
        } else {
            if (out)
                out[n] = *s;
            n++;
        }
    }
    if (out)
        out[n] = '\0';
    return n;
}

char *rt_finding_message(const struct rt_finding *x)
{
    char *out = malloc(spell(x, NULL) + 1);
    if (out)
        spell(x, out);
    return out;
}

const char *rt_finding_message_kept(const struct rt_finding *x)
{
    return x->said[0] == SAID_WHOLE ? x->said + 1 : NULL;
}

int rt_findings_spell_out(struct rt_findings *f)
{
    for (size_t i = 0; i < f->n; i++) {
        struct rt_finding *x = &f->v[i];
        if (x->said[0] == SAID_WHOLE)
            continue;
        size_t len = spell(x, NULL);
        char *said = rt_str_pool_alloc(&f->pool, len + 2);
        if (!said)
            return -1;
        said[0] = SAID_WHOLE;
        spell(x, said + 1);
        x->said = said;
    }
    return 0;
}

/* --- findings ----------------------------------------------------------- */

int rt_findings_add(struct rt_findings *f, const char *id,
                    enum rt_audit_severity severity, const char *language,
                    const char *symptom, const char *fix, const char *fmt, ...)
{
    if (rt_findings_seal(f) != 0)
        return -1;
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        struct rt_finding *v = realloc(f->v, cap * sizeof *v);
        if (!v)
            return -1;
        f->v = v;
        f->cap = cap;
    }
    struct rt_finding x = {0};
    /* A fix text kept once (by hash, TEXTS): the same fix is the same
     * pointer, and so its kind is one. */
    if (fix && !(fix = text_kept(f, fix)))
        return -1;
    if (!(x.kind = kind_kept(f, id, severity, symptom, fix)))
        return -1;
    if (language && !(x.language = kept_once(f, language)))
        return -1;
    /* Most messages fit the buffer: formatted once. */
    char buf[512], *message = buf;
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (len < 0)
        return -1;
    if ((size_t)len >= sizeof buf) {
        if (!(message = malloc((size_t)len + 1)))
            return -1;
        va_start(ap, fmt);
        vsnprintf(message, (size_t)len + 1, fmt, ap);
        va_end(ap);
    }
    x.said = said_kept(f, x.language, message, (size_t)len);
    if (message != buf)
        free(message);
    if (!x.said)
        return -1;
    f->v[f->n++] = x;
    if (severity == RT_AUDIT_ERROR)
        f->errors++;
    else if (severity == RT_AUDIT_WARNING)
        f->warnings++;
    else
        f->infos++;
    return 0;
}

/* Room in F's open evidence for N_INDICES indices and N_TEXTS texts. */
static int open_room(struct rt_findings_open *o, size_t n_indices,
                     size_t n_texts)
{
    if (n_indices > o->cap_indices) {
        size_t cap = o->cap_indices ? o->cap_indices : 16;
        while (cap < n_indices)
            cap *= 2;
        uint32_t *v = realloc(o->indices, cap * sizeof *v);
        if (!v)
            return -1;
        o->indices = v;
        o->cap_indices = cap;
    }
    if (n_texts > o->cap_texts) {
        size_t cap = o->cap_texts ? o->cap_texts : 16;
        while (cap < n_texts)
            cap *= 2;
        const char **v = realloc(o->texts, cap * sizeof *v);
        if (!v)
            return -1;
        o->texts = v;
        o->cap_texts = cap;
    }
    return 0;
}

/* Opens the last finding's evidence in F->open: a new one, or a sealed
 * one copied back (evidence added after a sort). NULL when out of
 * memory. */
static struct rt_evidence *open_evidence(struct rt_findings *f)
{
    struct rt_finding *x = &f->v[f->n - 1];
    struct rt_findings_open *o = &f->open;
    if (o->at == f->n)
        return (struct rt_evidence *)x->evidence;
    if (rt_findings_seal(f) != 0)
        return NULL;
    const struct rt_evidence *had = x->evidence;
    size_t n_indices = had ? had->n_indices : 0, n_texts = had ? had->n_texts : 0;
    struct rt_evidence *ev = o->spare;
    if (open_room(o, n_indices, n_texts) != 0 ||
        (!ev && !(ev = rt_str_pool_alloc(&f->pool, sizeof *ev))))
        return NULL;
    o->spare = NULL;
    if (n_indices)
        memcpy(o->indices, had->indices, n_indices * sizeof *o->indices);
    if (n_texts)
        memcpy(o->texts, had->texts, n_texts * sizeof *o->texts);
    *ev = (struct rt_evidence){n_indices, n_texts, o->indices, o->texts};
    x->evidence = ev;
    o->at = f->n;
    return ev;
}

int rt_findings_evidence(struct rt_findings *f, uint32_t index,
                         const char *text)
{
    if (!f->n)
        return -1;
    struct rt_evidence *ev = open_evidence(f);
    if (!ev || open_room(&f->open, ev->n_indices + 1, ev->n_texts + 1) != 0)
        return -1;
    const char *kept = text ? text_kept(f, text) : NULL;
    if (text && !kept)
        return -1;
    ev->indices = f->open.indices;
    ev->texts = f->open.texts;
    ev->indices[ev->n_indices++] = index;
    if (kept)
        ev->texts[ev->n_texts++] = kept;
    return 0;
}

int rt_findings_seal(struct rt_findings *f)
{
    struct rt_findings_open *o = &f->open;
    if (!o->at)
        return 0;
    struct rt_finding *x = &f->v[o->at - 1];
    struct rt_evidence *ev = (struct rt_evidence *)x->evidence;
    if (set_room(&f->sealed, evidence_item_hash) != 0)
        return -1;
    const void **slot = set_slot(&f->sealed, evidence_hash(ev), ev,
                                 evidence_item_equal);
    if (*slot) {
        /* The same list as an earlier finding's: one copy for both. */
        x->evidence = *slot;
        o->spare = ev;
        o->at = 0;
        return 0;
    }
    uint32_t *indices = rt_str_pool_alloc(&f->pool,
                                          (ev->n_indices + 1) * sizeof *indices);
    const char **texts = indices ? rt_str_pool_alloc(
                                       &f->pool, (ev->n_texts + 1) * sizeof *texts)
                                 : NULL;
    if (!texts)
        return -1;
    if (ev->n_indices)
        memcpy(indices, ev->indices, ev->n_indices * sizeof *indices);
    if (ev->n_texts)
        memcpy(texts, ev->texts, ev->n_texts * sizeof *texts);
    ev->indices = indices;
    ev->texts = texts;
    *slot = ev;
    f->sealed.n++;
    o->at = 0;
    return 0;
}

static int cmp_finding(const void *a, const void *b)
{
    const struct rt_finding *x = a, *y = b;
    if (rt_finding_severity(x) != rt_finding_severity(y))
        return rt_finding_severity(x) < rt_finding_severity(y) ? -1 : 1;
    int c = strcmp(rt_finding_id(x), rt_finding_id(y));
    if (c)
        return c;
    c = strcmp(x->language ? x->language : "", y->language ? y->language : "");
    if (c)
        return c;
    uint32_t ix = rt_finding_n_indices(x) ? rt_finding_index(x, 0) : 0;
    uint32_t iy = rt_finding_n_indices(y) ? rt_finding_index(y, 0) : 0;
    return ix < iy ? -1 : ix > iy;
}

static int cmp_finding_at(uint32_t a, uint32_t b, const void *ctx)
{
    const struct rt_finding *v = ctx;
    int c = cmp_finding(&v[a], &v[b]);
    return c ? c : a < b ? -1 : a > b;
}

/* Sorts F's findings keeping equals in the order they were found, on
 * every C library (qsort is not stable, and glibc's and Windows' order
 * equals differently: the same audit would print its findings in another
 * order on each). Positions sorted, then the findings moved along each
 * cycle of the permutation: four bytes a finding beside them. */
static void sort_stable(struct rt_findings *f)
{
    const uint32_t done = UINT32_MAX;
    uint32_t *pos = f->n < done ? malloc(f->n * sizeof *pos) : NULL;
    if (!pos) {
        /* Out of memory: sorted still, equals in some order. */
        qsort(f->v, f->n, sizeof *f->v, cmp_finding);
        return;
    }
    for (size_t i = 0; i < f->n; i++)
        pos[i] = (uint32_t)i;
    rt_sort_positions(pos, f->n, cmp_finding_at, f->v);
    for (size_t i = 0; i < f->n; i++) {
        if (pos[i] == done)
            continue;
        struct rt_finding first = f->v[i];
        size_t j = i;
        for (;;) {
            size_t k = pos[j];
            pos[j] = done;
            if (k == i) {
                f->v[j] = first;
                break;
            }
            f->v[j] = f->v[k];
            j = k;
        }
    }
    free(pos);
}

void rt_findings_sort(struct rt_findings *f)
{
    /* Out of memory, the open evidence stays open, readable, and follows
     * its finding to where the sort puts it. */
    const struct rt_evidence *open =
        rt_findings_seal(f) != 0 ? f->v[f->open.at - 1].evidence : NULL;
    if (f->n > 1)
        sort_stable(f);
    for (size_t i = 0; open && i < f->n; i++)
        if (f->v[i].evidence == open)
            f->open.at = i + 1;
}

void rt_findings_free(struct rt_findings *f)
{
    free(f->v);
    rt_str_pool_free(&f->pool);
    free(f->open.indices);
    free(f->open.texts);
    set_free(&f->texts);
    set_free(&f->sealed);
    memset(f, 0, sizeof *f);
}

int rt_findings_keep_language(struct rt_findings *f, size_t from,
                              const char *lang)
{
    /* Sealed first: open evidence is found by its finding's place. */
    if (rt_findings_seal(f) != 0)
        return -1;
    size_t o = from;
    for (size_t i = from; i < f->n; i++) {
        const struct rt_finding *x = &f->v[i];
        if (!x->language || rt_lang_same(x->language, lang)) {
            f->v[o++] = *x;
            continue;
        }
        enum rt_audit_severity s = rt_finding_severity(x);
        if (s == RT_AUDIT_ERROR)
            f->errors--;
        else if (s == RT_AUDIT_WARNING)
            f->warnings--;
        else
            f->infos--;
    }
    f->n = o < f->n ? o : f->n;
    return 0;
}
