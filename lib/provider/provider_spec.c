/* INI layer: loading and validation of a lodctr provider (INI + symbol
 * file) into the plain rt_provider_spec model (see provider_spec.h). */
#include "provider/provider_spec.h"
#include "platform/compat.h"
#include "platform/os.h"
#include "model/utf16.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "provider/ini_reader.h"
#include "model/strbuf.h"
#include "provider/pos_index.h"
#include "provider/provider_texts.h"
#include "provider/symbol_file.h"
#include "provider/symbol_path.h"

/* Out of memory anywhere in loading is said in the diagnostics
 * (rt_diags_nomem), and each step stops there: the load fails. */
static void *calloc_or_nomem(struct rt_diags *d, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        rt_diags_nomem(d);
    return p;
}

/* ---- collecting the INI's keys ---- */

/* A key as it lies in the decoded INI (rt_ini_parse cuts each line after
 * its name): a big INI's keys cost no copy, and its texts go to the spec
 * the same way (rt_provider_spec.text_pool). */
struct key {
    const char *name;
    const char *value;
    unsigned line;
    bool trimmed_tab, trimmed_space;    /* as rt_ini_entry's */
    bool unquoted;                      /* as rt_ini_entry's */
};

/* The next capacity of a growing array: half as much again, so that an
 * array of a big INI's keys or symbols is never twice what it holds. */
static size_t grown(size_t cap)
{
    return cap ? cap + cap / 2 : 16;
}

struct keylist {
    struct key *v;
    size_t n, cap;
    struct rt_pos_index by_name;    /* case-insensitive */
};

struct loader {
    const char *path;
    struct rt_diags *d;
    struct keylist info, languages, objects, text;
    unsigned info_line;
    unsigned warned_section_line;
    const char *symbol_dir;    /* where the symbol file is; NULL: the INI's */
};

static void keylist_free(struct keylist *k)
{
    free(k->v);
    rt_pos_index_free(&k->by_name);
    memset(k, 0, sizeof *k);
}

/* The key of KL named NAME but for ASCII case; NULL when there is none.
 * Keys of a list never equal each other so (on_entry refuses the second),
 * hence at most one matches. */
static const struct key *find_key(const struct keylist *kl, const char *name)
{
    size_t h = rt_hash_ci(name), cursor = 0, pos1;
    while ((pos1 = rt_pos_index_next(&kl->by_name, h, &cursor)))
        if (!strcasecmp(kl->v[pos1 - 1].name, name))
            return &kl->v[pos1 - 1];
    return NULL;
}

static void on_entry(void *user, const struct rt_ini_entry *e)
{
    struct loader *L = user;
    struct keylist *kl;
    if (L->d->out_of_memory)
        return;
    if (!strcasecmp(e->section, "info")) {
        kl = &L->info;
        if (!L->info_line)
            L->info_line = e->section_line;
    } else if (!strcasecmp(e->section, "languages")) {
        kl = &L->languages;
    } else if (!strcasecmp(e->section, "objects")) {
        kl = &L->objects;
    } else if (!strcasecmp(e->section, "text")) {
        kl = &L->text;
    } else {
        /* A header that was itself bad is already an error. */
        if (!e->section[0] && e->section_line)
            return;
        if (!e->section[0])
            rt_diags_add(L->d, RT_WARNING, L->path, e->line, e->name,
                         "key %s is outside any section and is ignored",
                         e->name);
        else if (L->warned_section_line != e->section_line)
            rt_diags_add(L->d, RT_WARNING, L->path, e->section_line, NULL,
                         "[%s] is not a lodctr section; its keys are "
                         "ignored", e->section);
        L->warned_section_line = e->section_line;
        return;
    }
    if (!e->name[0]) {
        rt_diags_add(L->d, RT_ERROR, L->path, e->line, NULL,
                     "key with an empty name");
        return;
    }
    /* Windows looks keys up case-insensitively, so the second one of a
     * pair would never be read. */
    const struct key *first = find_key(kl, e->name);
    if (first) {
        rt_diags_add(L->d, RT_ERROR, L->path, e->line, e->name,
                     "duplicate key %s (first at line %u)", e->name,
                     first->line);
        return;
    }
    if (kl->n == kl->cap) {
        size_t cap = grown(kl->cap);
        struct key *v = realloc(kl->v, cap * sizeof *v);
        if (!v) {
            rt_diags_nomem(L->d);
            return;
        }
        kl->v = v;
        kl->cap = cap;
    }
    if (rt_pos_index_add(&kl->by_name, rt_hash_ci(e->name), kl->n)) {
        rt_diags_nomem(L->d);
        return;
    }
    kl->v[kl->n++] = (struct key){e->name, e->value, e->line,
                                  e->trimmed_tab, e->trimmed_space,
                                  e->unquoted};
}

/* ---- checks on single values ---- */

/* The first control character (C0, DEL or C1) in UTF-8 text S, or 0. */
static unsigned control_char(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; u[i]; i++) {
        if (u[i] < 0x20 || u[i] == 0x7F)
            return u[i];
        if (u[i] == 0xC2 && u[i + 1] >= 0x80 && u[i + 1] <= 0x9F)
            return u[i + 1];
    }
    return 0;
}

/* A tab inside text is kept, as lodctr keeps it (the profile API only
 * trims blanks at the ends, and the registry holds any character); any
 * other control character is refused: a CR or U+0085 would end the line
 * of PerfStringBackup.INI that install keeps the text in, and no real
 * producer writes one. */
static void check_text(struct loader *L, const struct key *k)
{
    const char *v = k->value;
    unsigned c;
    bool tab_told = false;
    while ((c = control_char(v)) == '\t') {
        if (!tab_told)
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s contains a tab; it is kept, as lodctr keeps "
                         "it", k->name);
        tab_told = true;
        v = strchr(v, '\t') + 1;
    }
    if (c)
        rt_diags_add(L->d, RT_ERROR, L->path, k->line, k->name,
                     "%s contains control character U+%04X", k->name, c);
}

/* An [info] value without its trailing comment. lodctr itself would keep
 * a " ;comment" as part of the value, but a service name or a file name
 * never contains one, and annotated [info] sections ("drivername=X ; a
 * note") are common; in [text], ';' is always text. */
static char *info_value(const char *v, struct rt_diags *d)
{
    size_t n = 0;
    for (; v[n]; n++)
        if (v[n] == ';' && (n == 0 || v[n - 1] == ' ' || v[n - 1] == '\t'))
            break;
    while (n && (v[n - 1] == ' ' || v[n - 1] == '\t'))
        n--;
    char *r = strndup(v, n);
    if (!r)
        rt_diags_nomem(d);
    return r;
}

/* The language id of the N bytes at S in canonical form: three or four
 * hex digits in upper case ("009", "0804": docs/design.md, "The name
 * database"), or "CurrentLanguage" (any case), the Perflib subkey .NET
 * lists in [languages] (docs/design.md, "The lodctr input"). False when S
 * is neither. */
static bool lang_id(const char *s, size_t n, char out[RT_LANG_ID_SIZE])
{
    if (n >= RT_LANG_ID_SIZE)
        return false;
    char buf[RT_LANG_ID_SIZE];
    memcpy(buf, s, n);
    buf[n] = '\0';
    if (!rt_lang_is_id(buf))
        return false;
    if (rt_lang_is_current(buf)) {
        memcpy(out, "CurrentLanguage", sizeof "CurrentLanguage");
        return true;
    }
    for (size_t i = 0; i <= n; i++)
        out[i] = (char)toupper((unsigned char)buf[i]);
    return true;
}

enum text_kind { TEXT_NAME, TEXT_HELP };

enum split_result { SPLIT_OK, SPLIT_FORM, SPLIT_LANG, SPLIT_NOMEM };

/* Splits SYMBOL_LLL_NAME / SYMBOL_LLL_HELP from the right, since symbols
 * contain underscores too. On SPLIT_LANG, *SYMBOL holds the bad language
 * segment instead. */
static enum split_result split_text_key(const char *key, char **symbol,
                                        char lang[RT_LANG_ID_SIZE],
                                        enum text_kind *kind)
{
    const char *last = strrchr(key, '_');
    if (!last)
        return SPLIT_FORM;
    if (!strcasecmp(last + 1, "NAME"))
        *kind = TEXT_NAME;
    else if (!strcasecmp(last + 1, "HELP"))
        *kind = TEXT_HELP;
    else
        return SPLIT_FORM;
    const char *prev = last;
    while (prev > key && prev[-1] != '_')
        prev--;
    if (prev == key || prev - 1 == key)
        return SPLIT_FORM;      /* no symbol before the language */
    size_t llen = (size_t)(last - prev);
    if (!lang_id(prev, llen, lang)) {
        *symbol = strndup(prev, llen);
        return *symbol ? SPLIT_LANG : SPLIT_NOMEM;
    }
    *symbol = strndup(key, (size_t)(prev - 1 - key));
    return *symbol ? SPLIT_OK : SPLIT_NOMEM;
}

/* ---- symbols ---- */

struct sym {
    char *symbol;
    unsigned first_line;
    bool is_object;
    unsigned object_line;
    bool has_text;
    bool key_errors;        /* a key of it was already reported */
    bool skipped_keys;      /* a key of it was skipped, as lodctr skips it */
    bool dropped;           /* not installed: lodctr would not install it */
    bool any_text;          /* it has a text (a NAME or HELP) */
    const struct rt_symbol_def *def;
};

/* The symbols, and their texts: one a (symbol, language) that has a
 * [text] key (provider_texts.h). */
struct symlist {
    struct sym *v;
    size_t n, cap;
    struct rt_pos_index by_name;    /* case-insensitive */
    struct rt_provider_texts texts; /* by the symbols' positions */
};

/* The symbol NAME (any case), added when new. Symbols of the list never
 * equal each other but for case, hence at most one matches. NULL out of
 * memory (said in D). */
static struct sym *sym_get(struct symlist *s, const char *name,
                           unsigned line, struct rt_diags *d)
{
    size_t h = rt_hash_ci(name), cursor = 0, pos1;
    while ((pos1 = rt_pos_index_next(&s->by_name, h, &cursor))) {
        struct sym *x = &s->v[pos1 - 1];
        if (!strcasecmp(x->symbol, name)) {
            if (line < x->first_line)
                x->first_line = line;
            return x;
        }
    }
    if (s->n == s->cap) {
        size_t cap = grown(s->cap);
        struct sym *v = realloc(s->v, cap * sizeof *v);
        if (!v) {
            rt_diags_nomem(d);
            return NULL;
        }
        s->v = v;
        s->cap = cap;
    }
    char *symbol = strdup(name);
    if (!symbol || rt_pos_index_add(&s->by_name, h, s->n)) {
        free(symbol);
        rt_diags_nomem(d);
        return NULL;
    }
    struct sym *x = &s->v[s->n++];
    memset(x, 0, sizeof *x);
    x->symbol = symbol;
    x->first_line = line;
    return x;
}

/* Frees a symbol's texts; OWNED 0: they lie in a text pool. */
static void text_free(struct rt_provider_text *t, size_t n, int owned)
{
    for (size_t i = 0; owned && t && i < n; i++) {
        free(t[i].name);
        free(t[i].help);
    }
    free(t);
}

static void symlist_free(struct symlist *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].symbol);
    free(s->v);
    rt_pos_index_free(&s->by_name);
    rt_provider_texts_free(&s->texts);
}

/* ---- validation ---- */

struct checked {
    char *drivername, *symbolfile, *symbol_path;
    unsigned drivername_line, symbolfile_line;
    bool trusted;
    struct rt_provider_language *languages;
    size_t n_languages;
    struct rt_pos_index lang_by_value;  /* of LANGUAGES, lang_hash */
    bool *lang_used;        /* per language: it has [text] entries */
};

/* Characters of UTF-8 text S: its lead bytes. */
static void check_info(struct loader *L, struct checked *c)
{
    const struct key *dn = find_key(&L->info, "drivername");
    const struct key *sf = find_key(&L->info, "symbolfile");
    c->trusted = find_key(&L->info, "trusted") != NULL;
    if (!dn) {
        rt_diags_add(L->d, RT_ERROR, L->path, L->info_line, "drivername",
                     "[info] has no drivername");
    } else {
        c->drivername = info_value(dn->value, L->d);
        c->drivername_line = dn->line;
        if (!c->drivername)
            return;
        unsigned cc = control_char(c->drivername);
        if (!c->drivername[0])
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername is empty");
        else if (strchr(c->drivername, '\\'))
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername '%s' contains '\\'", c->drivername);
        else if (strchr(c->drivername, '/'))
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername '%s' contains '/'", c->drivername);
        else if (cc)
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername contains control character U+%04X",
                         cc);
        /* The Services subkey install writes: "." and ".." read as path
         * steps to tools that show keys as paths, and no key name is
         * longer than 255 characters (the hive would refuse it at commit,
         * without the INI's line). As rt_service_name_check. */
        else if (!strcmp(c->drivername, ".") || !strcmp(c->drivername, ".."))
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername '%s' is a path step, not a service "
                         "name", c->drivername);
        else if (rt_utf8_utf16_units(c->drivername) > 255)
            rt_diags_add(L->d, RT_ERROR, L->path, dn->line, "drivername",
                         "drivername is %zu characters long, longer than a "
                         "registry key name (255)", rt_utf8_utf16_units(c->drivername));
    }
    if (!sf) {
        rt_diags_add(L->d, RT_ERROR, L->path, L->info_line, "symbolfile",
                     "[info] has no symbolfile");
    } else {
        c->symbolfile = info_value(sf->value, L->d);
        c->symbolfile_line = sf->line;
        if (c->symbolfile)
            c->symbol_path = rt_symbol_file_locate(
                L->path, L->symbol_dir, sf->line, c->symbolfile, L->d);
    }
}

/* Equal for ids rt_lang_same finds equal: "804" and "0804" are one
 * language. ID is canonical (lang_id). */
static size_t lang_hash(const char *id)
{
    unsigned v;
    if (rt_lang_value(id, &v) == 0)
        return v;
    return 0x10000;     /* CurrentLanguage, beyond any id of digits */
}

/* Index of language ID in C->languages, or -1. Languages there never name
 * the same one twice (check_languages), hence at most one matches. */
static int lang_index(const struct checked *c, const char *id)
{
    size_t cursor = 0, pos1;
    while ((pos1 = rt_pos_index_next(&c->lang_by_value, lang_hash(id),
                                     &cursor)))
        if (rt_lang_same(c->languages[pos1 - 1].id, id))
            return (int)(pos1 - 1);
    return -1;
}

static void check_languages(struct loader *L, struct checked *c)
{
    c->languages = calloc_or_nomem(L->d, L->languages.n,
                                   sizeof *c->languages);
    c->lang_used = calloc_or_nomem(L->d, L->languages.n,
                                   sizeof *c->lang_used);
    for (size_t i = 0; i < L->languages.n && !L->d->out_of_memory; i++) {
        const struct key *k = &L->languages.v[i];
        char id[RT_LANG_ID_SIZE];
        if (!lang_id(k->name, strlen(k->name), id)) {
            rt_diags_add(L->d, RT_ERROR, L->path, k->line, k->name,
                         "language id '%s' is not 3 hex digits", k->name);
            continue;
        }
        int j = lang_index(c, id);
        if (j >= 0) {
            const struct rt_provider_language *same = &c->languages[j];
            rt_diags_add(L->d, RT_ERROR, L->path, k->line, k->name,
                         "language '%s' is language '%s' of line %u again",
                         k->name, same->id, same->line);
            continue;
        }
        if (rt_pos_index_add(&c->lang_by_value, lang_hash(id),
                             c->n_languages)) {
            rt_diags_nomem(L->d);
            return;
        }
        struct rt_provider_language *lg = &c->languages[c->n_languages++];
        memcpy(lg->id, id, sizeof id);
        lg->line = k->line;
    }
}

static void collect_text(struct loader *L, struct checked *c,
                         struct symlist *syms)
{
    for (size_t i = 0; i < L->text.n && !L->d->out_of_memory; i++) {
        const struct key *k = &L->text.v[i];
        char *symbol = NULL, lang[RT_LANG_ID_SIZE];
        enum text_kind kind;
        enum split_result r = split_text_key(k->name, &symbol, lang, &kind);
        if (r == SPLIT_NOMEM) {
            rt_diags_nomem(L->d);
            return;
        }
        /* lodctr finds a text by its symbol and language: a key it
         * cannot take apart names neither, and is skipped. */
        if (r == SPLIT_FORM) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "[text] key %s is not SYMBOL_LLL_NAME or "
                         "SYMBOL_LLL_HELP; skipped, as lodctr skips it",
                         k->name);
            continue;
        }
        if (r == SPLIT_LANG) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "language id '%s' in %s is not 3 hex digits; "
                         "skipped, as lodctr skips it", symbol, k->name);
            free(symbol);
            continue;
        }
        struct sym *s = sym_get(syms, symbol, k->line, L->d);
        free(symbol);
        if (!s)
            return;
        s->has_text = true;
        int li = lang_index(c, lang);
        if (li < 0) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s: language %s is not in [languages]; skipped, "
                         "as lodctr skips it", k->name, lang);
            s->skipped_keys = true;
            continue;
        }
        size_t before = L->d->errors;
        check_text(L, k);
        if (L->d->errors > before)
            s->key_errors = true;
        if (k->trimmed_tab)
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s ends in a tab; the blanks at its end are "
                         "dropped, as the profile API drops them", k->name);
        else if (k->trimmed_space)
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s ends in spaces; they are dropped, as the "
                         "profile API drops them", k->name);
        if (k->unquoted)
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s is enclosed in quotes; they are dropped, as "
                         "the profile API drops them", k->name);
        struct rt_provider_text *t = rt_provider_texts_get(
            &syms->texts, (size_t)(s - syms->v), (size_t)li);
        if (!t) {
            rt_diags_nomem(L->d);
            return;
        }
        s->any_text = true;
        c->lang_used[li] = true;
        /* Keys spelled differently can name one text: the language as
         * 009 and 0009 is one language. That is a duplicate key, as two
         * equal names are (on_entry); the first is kept. Taking the
         * second silently replaced the text and leaked the first. */
        unsigned first = kind == TEXT_NAME ? t->name_line : t->help_line;
        if (first) {
            rt_diags_add(L->d, RT_ERROR, L->path, k->line, k->name,
                         "duplicate key %s (the same text as line %u)",
                         k->name, first);
            s->key_errors = true;
            continue;
        }
        /* The value as it lies in the decoded INI, which the spec
         * keeps as its text pool. */
        if (kind == TEXT_NAME) {
            t->name = (char *)k->value;
            t->name_line = k->line;
        } else {
            t->help = (char *)k->value;
            t->help_line = k->line;
        }
    }
}

static void collect_objects(struct loader *L, const struct checked *c,
                            struct symlist *syms)
{
    for (size_t i = 0; i < L->objects.n && !L->d->out_of_memory; i++) {
        const struct key *k = &L->objects.v[i];
        char *symbol = NULL, lang[RT_LANG_ID_SIZE];
        enum text_kind kind = TEXT_HELP;
        enum split_result r = split_text_key(k->name, &symbol, lang, &kind);
        if (r == SPLIT_NOMEM) {
            rt_diags_nomem(L->d);
            return;
        }
        /* [objects] only feeds the service's Object List: a key that
         * names no symbol is skipped, as lodctr skips it. */
        if (r == SPLIT_LANG) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "language id '%s' in %s is not 3 hex digits; "
                         "skipped, as lodctr skips it", symbol, k->name);
            free(symbol);
            continue;
        }
        if (r == SPLIT_FORM || kind != TEXT_NAME) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "[objects] key %s is not SYMBOL_LLL_NAME; skipped, "
                         "as lodctr skips it", k->name);
            free(symbol);
            continue;
        }
        if (lang_index(c, lang) < 0) {
            rt_diags_add(L->d, RT_WARNING, L->path, k->line, k->name,
                         "%s: language %s is not in [languages]; the "
                         "object is listed all the same", k->name, lang);
        }
        struct sym *s = sym_get(syms, symbol, k->line, L->d);
        free(symbol);
        if (!s)
            return;
        if (!s->has_text) {
            /* No text: no index of its own to list. */
            if (!s->dropped)
                rt_diags_add(L->d, RT_WARNING, L->path, k->line, s->symbol,
                             "[objects] names %s, which has no [text] "
                             "entries; it is not installed", s->symbol);
            s->dropped = true;
            continue;
        }
        if (!s->is_object) {
            s->is_object = true;
            s->object_line = k->line;
        }
    }
}

static int cmp_by_offset(const void *pa, const void *pb)
{
    const struct sym *a = *(const struct sym *const *)pa;
    const struct sym *b = *(const struct sym *const *)pb;
    if (a->def->value != b->def->value)
        return a->def->value < b->def->value ? -1 : 1;
    return a->def->line < b->def->line ? -1 : a->def->line > b->def->line;
}

static void check_offsets(struct loader *L, const struct checked *c,
                          const struct rt_symbol_table *table,
                          struct symlist *syms)
{
    struct sym **ok = calloc_or_nomem(L->d, syms->n, sizeof *ok);
    if (!ok)
        return;
    size_t n_ok = 0;
    for (size_t i = 0; i < syms->n; i++) {
        struct sym *s = &syms->v[i];
        if (s->dropped)
            continue;
        s->def = rt_symbol_find(table, s->symbol);
        const struct rt_symbol_def *def = s->def;
        if (!def) {
            /* lodctr looks each key's symbol up and skips the keys it
             * cannot find (pywin32's perf_install.ini has THREADS_*
             * keys its perf_install.h never defines). */
            rt_diags_add(L->d, RT_WARNING, L->path, s->first_line,
                         s->symbol, "%s is not defined in %s; its keys are "
                         "skipped, as lodctr skips them", s->symbol,
                         c->symbolfile);
            s->dropped = true;
            continue;
        }
        if (!def->ok) {
            char *why = rt_symbol_problem(table, def);
            if (why)
                rt_diags_add(L->d, RT_ERROR, table->path, def->problem_line,
                             s->symbol, "%s", why);
            else
                rt_diags_nomem(L->d);
            free(why);
            continue;
        }
        if (def->value < 0) {
            rt_diags_add(L->d, RT_ERROR, table->path, def->line, s->symbol,
                         "offset of %s is negative (%lld)", s->symbol,
                         def->value);
            continue;
        }
        if (def->value % 2) {
            rt_diags_add(L->d, RT_ERROR, table->path, def->line, s->symbol,
                         "offset of %s is odd (%lld)", s->symbol,
                         def->value);
            continue;
        }
        ok[n_ok++] = s;
    }
    qsort(ok, n_ok, sizeof *ok, cmp_by_offset);
    bool gap_warned = false;
    for (size_t i = 0; i < n_ok; i++) {
        const struct rt_symbol_def *def = ok[i]->def;
        if (i > 0 && def->value == ok[i - 1]->def->value) {
            rt_diags_add(L->d, RT_ERROR, table->path, def->line,
                         ok[i]->symbol, "%s has offset %lld, as does %s "
                         "(line %u)", ok[i]->symbol, def->value,
                         ok[i - 1]->symbol, ok[i - 1]->def->line);
            continue;
        }
        long long want = i > 0 ? ok[i - 1]->def->value + 2 : 0;
        if (!gap_warned && def->value != want) {
            rt_diags_add(L->d, RT_WARNING, table->path, def->line,
                         ok[i]->symbol, "offsets are not consecutive even "
                         "numbers from 0: %s has %lld, expected %lld",
                         ok[i]->symbol, def->value, want);
            gap_warned = true;
        }
    }
    free(ok);
}

/* Drops the symbols whose every key was skipped (each one warned
 * about): nothing of them reaches the tables, as nothing would with
 * lodctr. Before the offsets are checked, since such a symbol takes no
 * index. */
static void drop_symbols_without_text(struct symlist *syms)
{
    for (size_t i = 0; i < syms->n; i++) {
        struct sym *s = &syms->v[i];
        if (!s->any_text && s->skipped_keys)
            s->dropped = true;
    }
}

static void check_symbol_text(struct loader *L, const struct checked *c,
                              const struct symlist *syms)
{
    size_t kept = 0, named_in_text = 0;
    for (size_t i = 0; i < syms->n; i++) {
        const struct sym *s = &syms->v[i];
        named_in_text += s->has_text;
        if (s->dropped)
            continue;
        bool any_name = false;
        size_t n;
        const struct rt_provider_text *v = rt_provider_texts_of(&syms->texts,
                                                                i, &n);
        for (size_t k = 0; k < n; k++) {
            const struct rt_provider_text *t = &v[k];
            const char *id = c->languages[t->lang].id;
            any_name |= t->name != NULL;
            if (t->name && !t->help)
                rt_diags_add(L->d, RT_WARNING, L->path, t->name_line,
                             s->symbol, "%s has a NAME but no HELP in "
                             "language %s", s->symbol, id);
            if (t->help && !t->name)
                rt_diags_add(L->d, RT_WARNING, L->path, t->help_line,
                             s->symbol, "%s has a HELP but no NAME in "
                             "language %s", s->symbol, id);
        }
        if (!any_name && !s->key_errors)
            rt_diags_add(L->d, RT_ERROR, L->path, s->first_line, s->symbol,
                         "%s has no NAME in any language", s->symbol);
        kept++;
    }
    /* Only skipped keys: an install of nothing, which no one meant. */
    if (named_in_text && !kept)
        rt_diags_add(L->d, RT_ERROR, L->path, 0, NULL,
                     "every [text] key is skipped: nothing would be "
                     "installed");
    /* A listed language without strings once zeroed Last Counter
     * (Q128404); here it only gets the fallback text, but say so. */
    for (size_t j = 0; j < c->n_languages; j++) {
        if (!c->lang_used[j])
            rt_diags_add(L->d, RT_WARNING, L->path, c->languages[j].line,
                         c->languages[j].id, "language %s has no [text] "
                         "entries", c->languages[j].id);
    }
}

static int cmp_sym_ptr_offset(const void *pa, const void *pb)
{
    const struct rt_provider_symbol *a = pa, *b = pb;
    return (a->offset > b->offset) - (a->offset < b->offset);
}

/* 0, or -1 out of memory (SPEC, C and SYMS as they were). */
static int fill_spec(struct rt_provider_spec *spec, const char *ini_path,
                     struct checked *c, struct symlist *syms,
                     char *text_pool)
{
    spec->ini_path = strdup(ini_path);
    spec->symbols = calloc(syms->n ? syms->n : 1, sizeof *spec->symbols);
    /* Each kept symbol's texts, a copy of its own (as a spec built by
     * hand has), in the slot it takes. */
    bool ok = spec->ini_path && spec->symbols;
    for (size_t i = 0, k = 0; ok && i < syms->n; i++) {
        size_t n;
        const struct rt_provider_text *v = rt_provider_texts_of(&syms->texts,
                                                                i, &n);
        if (syms->v[i].dropped)
            continue;
        spec->symbols[k].n_text = n;
        if (n && !(spec->symbols[k].text = malloc(n * sizeof *v)))
            ok = false;
        else if (n)
            memcpy(spec->symbols[k].text, v, n * sizeof *v);
        k++;
    }
    if (!ok) {
        for (size_t i = 0; spec->symbols && i < syms->n; i++)
            free(spec->symbols[i].text);
        free(spec->ini_path);
        free(spec->symbols);
        memset(spec, 0, sizeof *spec);
        return -1;
    }
    spec->text_pool = text_pool;
    spec->symbol_path = c->symbol_path;
    spec->drivername = c->drivername;
    spec->symbolfile = c->symbolfile;
    spec->drivername_line = c->drivername_line;
    spec->symbolfile_line = c->symbolfile_line;
    spec->trusted = c->trusted;
    spec->languages = c->languages;
    spec->n_languages = c->n_languages;
    rt_pos_index_free(&c->lang_by_value);
    free(c->lang_used);
    memset(c, 0, sizeof *c);
    spec->n_symbols = 0;
    for (size_t i = 0; i < syms->n; i++) {
        struct sym *s = &syms->v[i];
        if (s->dropped)
            continue;
        struct rt_provider_symbol *y = &spec->symbols[spec->n_symbols++];
        struct rt_provider_text *text = y->text;    /* made above */
        size_t n_text = y->n_text;
        *y = (struct rt_provider_symbol){
            .symbol = s->symbol,
            .offset = (long)s->def->value,
            .define_line = s->def->line,
            .is_object = s->is_object,
            .object_line = s->object_line,
            .first_line = s->first_line,
            .text = text,
            .n_text = n_text,
        };
        s->symbol = NULL;
    }
    qsort(spec->symbols, spec->n_symbols, sizeof *spec->symbols,
          cmp_sym_ptr_offset);
    /* Out of memory: the spec scans its languages, as one built by hand. */
    (void)rt_provider_spec_index_languages(spec);
    return 0;
}

int rt_provider_spec_load(const char *ini_path, const char *codepage,
                          struct rt_provider_spec *spec, struct rt_diags *d)
{
    return rt_provider_spec_load_in(ini_path, NULL, codepage, spec, d);
}

int rt_provider_spec_load_in(const char *ini_path, const char *symbol_dir,
                             const char *codepage,
                             struct rt_provider_spec *spec, struct rt_diags *d)
{
    return rt_provider_spec_load_files(ini_path, symbol_dir, codepage, spec,
                                       NULL, d);
}

int rt_provider_spec_load_files(const char *ini_path, const char *symbol_dir,
                                const char *codepage,
                                struct rt_provider_spec *spec,
                                struct rt_inf_files *files, struct rt_diags *d)
{
    memset(spec, 0, sizeof *spec);
    if (files)
        memset(files, 0, sizeof *files);
    struct rt_ini_text text;
    int r = rt_ini_load_kept(ini_path, codepage, &text,
                             files ? &files->ini : NULL,
                             files ? &files->ini_len : NULL, d);
    if (r)
        return r == -2 ? -2 : -1;
    size_t errors_before = d->errors;
    struct loader L = {.path = ini_path, .d = d, .symbol_dir = symbol_dir};
    rt_ini_parse(&text, on_entry, &L, d);
    /* The keys lie in TEXT's buffer, which is kept (the spec's text
     * pool); the line table is not needed any more. */
    free(text.lines);
    text.lines = NULL;
    text.n_lines = 0;

    /* Each step stops once memory ran out (d->out_of_memory): the load
     * fails then, whatever else it found. */
    struct checked c = {0};
    if (!d->out_of_memory)
        check_info(&L, &c);
    if (!d->out_of_memory)
        check_languages(&L, &c);
    struct symlist syms = {0};
    if (!d->out_of_memory)
        collect_text(&L, &c, &syms);
    if (!d->out_of_memory)
        collect_objects(&L, &c, &syms);
    if (!d->out_of_memory && rt_provider_texts_group(&syms.texts, syms.n))
        rt_diags_nomem(d);
    if (!d->out_of_memory)
        drop_symbols_without_text(&syms);
    if (!L.text.n && !d->out_of_memory)
        rt_diags_add(d, RT_ERROR, ini_path, 0, NULL,
                     "[text] is missing or empty");
    /* Done with: the symbols hold what the INI says of them, and the
     * symbol file's table is about to be built beside them. */
    keylist_free(&L.objects);
    keylist_free(&L.text);

    struct rt_symbol_table table = {0};
    if (c.symbol_path && !d->out_of_memory &&
        !rt_symbol_file_load_kept(c.symbol_path, &table,
                                  files ? &files->sym : NULL,
                                  files ? &files->sym_len : NULL, d))
        check_offsets(&L, &c, &table, &syms);
    if (!d->out_of_memory)
        check_symbol_text(&L, &c, &syms);

    int rc = -1;
    if (d->errors == errors_before && !d->out_of_memory && c.symbol_path) {
        if (fill_spec(spec, ini_path, &c, &syms, text.buf) == 0) {
            text.buf = NULL;
            rc = 0;
        } else {
            rt_diags_nomem(d);
        }
    }
    if (files && rc == 0) {
        files->ini_name = rt_path_base_name(spec->ini_path);
        files->sym_name = rt_path_base_name(spec->symbol_path);
    } else if (files) {
        rt_inf_files_free(files);
    }
    rt_ini_text_free(&text);
    rt_symbol_table_free(&table);
    symlist_free(&syms);
    free(c.drivername);
    free(c.symbolfile);
    free(c.symbol_path);
    free(c.languages);
    free(c.lang_used);
    rt_pos_index_free(&c.lang_by_value);
    keylist_free(&L.info);
    keylist_free(&L.languages);
    keylist_free(&L.objects);
    keylist_free(&L.text);
    return rc;
}

void rt_provider_spec_free(struct rt_provider_spec *spec)
{
    for (size_t i = 0; i < spec->n_symbols; i++) {
        free(spec->symbols[i].symbol);
        text_free(spec->symbols[i].text, spec->symbols[i].n_text,
                  spec->text_pool == NULL);
    }
    free(spec->text_pool);
    free(spec->symbols);
    free(spec->languages);
    free(spec->lang_index);
    free(spec->ini_path);
    free(spec->symbol_path);
    free(spec->drivername);
    free(spec->symbolfile);
    memset(spec, 0, sizeof *spec);
}

void rt_inf_files_free(struct rt_inf_files *f)
{
    free(f->ini);
    free(f->sym);
    memset(f, 0, sizeof *f);
}
