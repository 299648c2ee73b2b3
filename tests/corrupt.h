/* The corruption generator: a clean name database in the mem store (009,
 * 019 and CurrentLanguage with Windows-like base tables, two providers
 * installed above Base Index), and every class of damage audit knows,
 * injected singly or combined, deterministically from a seed. Tests use
 * it to show audit finds each class, and (with repair) that it is fixed. */
#ifndef TEST_CORRUPT_H
#define TEST_CORRUPT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/database.h"
#include "model/base_tables.h"
#include "model/name_table.h"
#include "store/store.h"

/* Above the built-in providers of the base tables (Last Counter 3990):
 * provider A has names 3992-4000, help 3993-4001; B 4002-4006/4003-4007. */
#define CG_BASE_LAST 3990u
#define CG_A_FIRST 3992u
#define CG_A_LAST 4000u
#define CG_B_FIRST 4002u
#define CG_B_LAST 4006u

enum corruption {
    CG_ODD_LENGTH,
    CG_NO_TERMINATOR,
    CG_ODD_COUNT,
    CG_EMPTY_TABLE,
    CG_BAD_INDEX,
    CG_ZERO_INDEX,
    CG_NOT_MULTI_SZ,
    CG_DUPLICATE,
    CG_NAME_AT_ODD,
    CG_HELP_WITHOUT_NAME,
    CG_NAME_WITHOUT_HELP,
    CG_LAST_COUNTER_LOW,
    CG_LAST_COUNTER_HIGH,
    CG_BASE_INDEX_MISSING,
    CG_BASE_INDEX_MISMATCH,
    CG_ENGLISH_MISSING,
    CG_ENGLISH_OVERWRITTEN,
    CG_CURRENT_DIFFERS,
    CG_LANGUAGE_MISSING_ENTRIES,
    CG_LANGUAGE_EXTRA_ENTRIES,
    CG_PROVIDER_INVERTED,
    CG_PROVIDER_PARITY,
    CG_PROVIDER_OVERLAP,
    CG_PROVIDER_OVERLAPS_BASE,
    CG_PROVIDER_STRINGS_MISSING,
    CG_PROVIDER_ABOVE_LAST,
    CG_OBJECT_LIST_OUTSIDE,
    CG_DISABLED,
    CG_PERFLIB_DISABLED,
    CG_ORPHANS,
    CG_DUPLICATE_HELP,
    CG_COUNT
};

/* The finding id each class must produce, and its language (NULL: none). */
static const struct {
    const char *id;
    const char *lang;
} cg_expect[CG_COUNT] = {
    [CG_ODD_LENGTH] = {"blob-odd-length", "019"},
    [CG_NO_TERMINATOR] = {"blob-no-terminator", "019"},
    [CG_ODD_COUNT] = {"blob-odd-count", "019"},
    [CG_EMPTY_TABLE] = {"table-empty", "019"},
    [CG_BAD_INDEX] = {"blob-bad-index", "019"},
    [CG_ZERO_INDEX] = {"blob-index-zero", "019"},
    [CG_NOT_MULTI_SZ] = {"blob-not-multi-sz", "019"},
    [CG_DUPLICATE] = {"duplicate-index", "009"},
    [CG_NAME_AT_ODD] = {"name-at-odd-index", "009"},
    [CG_HELP_WITHOUT_NAME] = {"help-without-name", "009"},
    [CG_NAME_WITHOUT_HELP] = {"name-without-help", "009"},
    [CG_LAST_COUNTER_LOW] = {"last-counter-below-highest", NULL},
    [CG_LAST_COUNTER_HIGH] = {"last-counter-above-highest", NULL},
    [CG_BASE_INDEX_MISSING] = {"base-index-missing", NULL},
    [CG_BASE_INDEX_MISMATCH] = {"base-index-mismatch", "009"},
    [CG_ENGLISH_MISSING] = {"english-missing", "009"},
    [CG_ENGLISH_OVERWRITTEN] = {"english-overwritten", "009"},
    [CG_CURRENT_DIFFERS] = {"current-language-differs", "CurrentLanguage"},
    [CG_LANGUAGE_MISSING_ENTRIES] = {"language-missing-entries", "019"},
    [CG_LANGUAGE_EXTRA_ENTRIES] = {"language-extra-entries", "019"},
    [CG_PROVIDER_INVERTED] = {"provider-range-inverted", NULL},
    [CG_PROVIDER_PARITY] = {"provider-range-parity", NULL},
    [CG_PROVIDER_OVERLAP] = {"provider-overlap", NULL},
    [CG_PROVIDER_OVERLAPS_BASE] = {"provider-overlaps-base", NULL},
    [CG_PROVIDER_STRINGS_MISSING] = {"provider-strings-missing", "019"},
    [CG_PROVIDER_ABOVE_LAST] = {"provider-above-last-counter", NULL},
    [CG_OBJECT_LIST_OUTSIDE] = {"object-list-outside-range", NULL},
    [CG_DISABLED] = {"counters-disabled", NULL},
    [CG_PERFLIB_DISABLED] = {"perflib-disabled", NULL},
    [CG_ORPHANS] = {"orphan-strings", "009"},
    [CG_DUPLICATE_HELP] = {"duplicate-index", "009"},
};

static uint32_t cg_next(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 8) & 0xffffff;
}

static void cg_dword(struct rt_store *s, const char *svc, const char *name,
                     uint32_t x)
{
    struct rt_value v;
    rt_value_from_dword(&v, x);
    int r = svc ? rt_store_mem_put_service_value(s, svc, name, &v)
                : rt_store_mem_put_perflib(s, name, &v);
    rt_value_free(&v);
    if (r)
        abort();
}

static void cg_string(struct rt_store *s, const char *svc, const char *name,
                      const char *text)
{
    struct rt_value v;
    rt_value_from_string(&v, 1, text);
    if (rt_store_mem_put_service_value(s, svc, name, &v))
        abort();
    rt_value_free(&v);
}

static void cg_put_list(struct rt_store *s, const char *lang,
                        enum rt_table_kind k, const struct rt_pair_list *l)
{
    uint8_t *blob;
    size_t len;
    if (rt_pair_list_encode(l, &blob, &len) ||
        rt_store_mem_put_table(s, lang, k, blob, len))
        abort();
    free(blob);
}

/* A language's base tables plus the two providers' strings in TAG. The
 * encoded tables are made once per BASE and TAG and kept for the
 * program's life (the suites build this clean database a hundred times:
 * generating 2,000 base strings each time was most of their run, and
 * fifty times that under valgrind). */
struct cg_tables {
    const char *base, *tag;
    uint8_t *blob[2];
    size_t len[2];
};
static struct cg_tables cg_cache[4];

static const struct cg_tables *cg_tables_of(const char *base, const char *tag)
{
    size_t k = 0;
    for (; k < sizeof cg_cache / sizeof *cg_cache && cg_cache[k].base; k++)
        if (!strcmp(cg_cache[k].base, base) && !strcmp(cg_cache[k].tag, tag))
            return &cg_cache[k];
    if (k == sizeof cg_cache / sizeof *cg_cache)
        abort();
    struct rt_name_table t;
    if (rt_base_tables_generate(base, &t))
        abort();
    char text[64];
    for (uint32_t i = CG_A_FIRST; i <= CG_B_LAST; i += 2) {
        snprintf(text, sizeof text, "%s counter %u", tag, i);
        if (rt_pair_list_append(&t.counter, i, text))
            abort();
        snprintf(text, sizeof text, "%s help %u", tag, i + 1);
        if (rt_pair_list_append(&t.help, i + 1, text))
            abort();
    }
    struct cg_tables *c = &cg_cache[k];
    if (rt_pair_list_encode(&t.counter, &c->blob[0], &c->len[0]) ||
        rt_pair_list_encode(&t.help, &c->blob[1], &c->len[1]))
        abort();
    rt_name_table_free(&t);
    c->base = base;
    c->tag = tag;
    return c;
}

static void cg_language(struct rt_store *s, const char *lang, const char *base,
                        const char *tag)
{
    const struct cg_tables *c = cg_tables_of(base, tag);
    rt_store_mem_put_language(s, lang);
    if (rt_store_mem_put_table(s, lang, RT_TABLE_COUNTER, c->blob[0], c->len[0]) ||
        rt_store_mem_put_table(s, lang, RT_TABLE_HELP, c->blob[1], c->len[1]))
        abort();
}

static void cg_provider(struct rt_store *s, const char *name, uint32_t fc,
                        uint32_t lc)
{
    rt_store_mem_put_service(s, name, 1);
    cg_string(s, name, "Library", "prov.dll");
    cg_string(s, name, "Open", "Open");
    cg_string(s, name, "Collect", "Collect");
    cg_string(s, name, "Close", "Close");
    cg_dword(s, name, "First Counter", fc);
    cg_dword(s, name, "Last Counter", lc);
    cg_dword(s, name, "First Help", fc + 1);
    cg_dword(s, name, "Last Help", lc + 1);
    char list[32];
    snprintf(list, sizeof list, "%u", fc);
    cg_string(s, name, "Object List", list);
}

/* The clean database (without English when NO_ENGLISH). */
static struct rt_store *cg_clean_lang(int no_english)
{
    struct rt_store *s = rt_store_mem_new();
    if (!no_english)
        cg_language(s, "009", "009", "English");
    cg_language(s, "019", "019", "Russian");
    cg_language(s, "CurrentLanguage", "009", "English");
    cg_dword(s, NULL, "Last Counter", CG_B_LAST);
    cg_dword(s, NULL, "Last Help", CG_B_LAST + 1);
    cg_dword(s, NULL, "Base Index", 1847);
    if (rt_base_last_counter() != CG_BASE_LAST)
        abort();
    size_t n;
    const struct rt_base_provider *bp = rt_base_providers(&n);
    for (size_t i = 0; i < n; i++)
        if (bp[i].first_counter)
            cg_provider(s, bp[i].service, bp[i].first_counter,
                        bp[i].last_counter);
    cg_provider(s, "ProvA", CG_A_FIRST, CG_A_LAST);
    cg_provider(s, "ProvB", CG_B_FIRST, CG_B_LAST);
    return s;
}

static struct rt_store *cg_clean(void)
{
    return cg_clean_lang(0);
}

/* Reads LANG's table K as a list (the store holds it well-formed). */
static void cg_get_list(struct rt_store *s, const char *lang,
                        enum rt_table_kind k, struct rt_pair_list *l)
{
    struct rt_value v = {0};
    struct rt_error e;
    int present;
    if (s->ops->read_table(s, lang, k, &v, &present, &e) || !present)
        abort();
    struct rt_name_table t;
    if (rt_name_table_decode(&t, k ? NULL : v.data, k ? 0 : v.len,
                             k ? v.data : NULL, k ? v.len : 0, 0, NULL, NULL))
        abort();
    *l = k ? t.help : t.counter;
    rt_pair_list_free(k ? &t.counter : &t.help);
    rt_value_free(&v);
}

/* A raw blob of LANG's table K, edited by the caller and put back. */
static void cg_raw(struct rt_store *s, const char *lang, enum rt_table_kind k,
                   uint8_t **blob, size_t *len)
{
    struct rt_value v = {0};
    struct rt_error e;
    int present;
    if (s->ops->read_table(s, lang, k, &v, &present, &e) || !present)
        abort();
    *blob = v.data;
    *len = v.len;
}

static void cg_append(struct rt_store *s, const char *lang,
                      enum rt_table_kind k, uint32_t index, const char *text)
{
    struct rt_pair_list l;
    cg_get_list(s, lang, k, &l);
    if (rt_pair_list_append(&l, index, text))
        abort();
    cg_put_list(s, lang, k, &l);
    rt_pair_list_free(&l);
}

static void cg_remove(struct rt_store *s, const char *lang,
                      enum rt_table_kind k, uint32_t first, uint32_t last)
{
    struct rt_pair_list l;
    cg_get_list(s, lang, k, &l);
    rt_pair_list_remove_range(&l, first, last);
    cg_put_list(s, lang, k, &l);
    rt_pair_list_free(&l);
}

/* Injects class C into S, where within the class is chosen by SEED. */
static void cg_inject(struct rt_store *s, enum corruption c, uint32_t seed)
{
    uint8_t *b;
    size_t n;
    /* An even index among the providers' names. */
    uint32_t pick = CG_A_FIRST + 2 * (cg_next(&seed) % 4);
    switch (c) {
    case CG_ODD_LENGTH:
        cg_raw(s, "019", RT_TABLE_COUNTER, &b, &n);
        rt_store_mem_put_table(s, "019", RT_TABLE_COUNTER, b, n - 1);
        free(b);
        break;
    case CG_NO_TERMINATOR:
        cg_raw(s, "019", RT_TABLE_HELP, &b, &n);
        rt_store_mem_put_table(s, "019", RT_TABLE_HELP, b, n - 4);
        free(b);
        break;
    case CG_ODD_COUNT: {
        /* The last text dropped: an index without its text. */
        cg_raw(s, "019", RT_TABLE_COUNTER, &b, &n);
        size_t end = n - 4;   /* before the last string's NUL and the list's */
        while (end >= 2 && (b[end - 2] || b[end - 1]))
            end -= 2;
        b[end] = 0;
        b[end + 1] = 0;
        rt_store_mem_put_table(s, "019", RT_TABLE_COUNTER, b, end + 2);
        free(b);
        break;
    }
    case CG_EMPTY_TABLE: {
        const uint8_t empty[2] = {0, 0};
        rt_store_mem_put_table(s, "019", RT_TABLE_HELP, empty, 2);
        break;
    }
    case CG_BAD_INDEX:
    case CG_ZERO_INDEX: {
        /* The first index ("1") turned into "x" or "0". */
        cg_raw(s, "019", RT_TABLE_COUNTER, &b, &n);
        b[0] = c == CG_BAD_INDEX ? 'x' : '0';
        rt_store_mem_put_table(s, "019", RT_TABLE_COUNTER, b, n);
        free(b);
        break;
    }
    case CG_NOT_MULTI_SZ:
        cg_raw(s, "019", RT_TABLE_COUNTER, &b, &n);
        rt_store_mem_put_table_typed(s, "019", RT_TABLE_COUNTER, 3, b, n);
        free(b);
        break;
    case CG_DUPLICATE:
        cg_append(s, "009", RT_TABLE_COUNTER, pick, "Second text");
        break;
    case CG_DUPLICATE_HELP:
        /* The same damage in a Help table: audit and repair read both. */
        cg_append(s, "009", RT_TABLE_HELP, pick + 1, "Second help text");
        break;
    case CG_NAME_AT_ODD:
        cg_append(s, "009", RT_TABLE_COUNTER, CG_B_LAST + 1, "Odd name");
        cg_append(s, "019", RT_TABLE_COUNTER, CG_B_LAST + 1, "Odd name");
        cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, CG_B_LAST + 1,
                  "Odd name");
        break;
    case CG_HELP_WITHOUT_NAME:
        cg_remove(s, "009", RT_TABLE_COUNTER, pick, pick);
        cg_remove(s, "019", RT_TABLE_COUNTER, pick, pick);
        cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, pick, pick);
        break;
    case CG_NAME_WITHOUT_HELP:
        cg_remove(s, "009", RT_TABLE_HELP, pick + 1, pick + 1);
        break;
    case CG_LAST_COUNTER_LOW:
        cg_dword(s, NULL, "Last Counter", CG_A_LAST);
        break;
    case CG_LAST_COUNTER_HIGH:
        cg_dword(s, NULL, "Last Counter", 11174);
        cg_dword(s, NULL, "Last Help", 11175);
        break;
    case CG_BASE_INDEX_MISSING: {
        /* A value of the wrong type is not what Windows reads either. */
        struct rt_value v;
        rt_value_from_string(&v, 1, "1847");
        rt_store_mem_put_perflib(s, "Base Index", &v);
        rt_value_free(&v);
        break;
    }
    case CG_BASE_INDEX_MISMATCH:
        cg_remove(s, "009", RT_TABLE_COUNTER, 1, 1);
        cg_append(s, "009", RT_TABLE_COUNTER, 1, "1900");
        break;
    case CG_ENGLISH_MISSING:
        break;   /* cg_build leaves 009 out */
    case CG_ENGLISH_OVERWRITTEN: {
        /* A language pack wrote Russian into 009. */
        struct rt_pair_list c, h;
        cg_get_list(s, "019", RT_TABLE_COUNTER, &c);
        cg_get_list(s, "019", RT_TABLE_HELP, &h);
        cg_put_list(s, "009", RT_TABLE_COUNTER, &c);
        cg_put_list(s, "009", RT_TABLE_HELP, &h);
        rt_pair_list_free(&c);
        rt_pair_list_free(&h);
        break;
    }
    case CG_CURRENT_DIFFERS:
        cg_remove(s, "CurrentLanguage", RT_TABLE_COUNTER, pick, pick);
        cg_append(s, "CurrentLanguage", RT_TABLE_COUNTER, pick, "Stale name");
        break;
    case CG_LANGUAGE_MISSING_ENTRIES:
        cg_remove(s, "019", RT_TABLE_COUNTER, pick, pick);
        cg_remove(s, "019", RT_TABLE_HELP, pick + 1, pick + 1);
        break;
    case CG_LANGUAGE_EXTRA_ENTRIES:
        cg_append(s, "019", RT_TABLE_COUNTER, CG_B_LAST + 2, "Extra");
        cg_append(s, "019", RT_TABLE_HELP, CG_B_LAST + 3, "Extra help");
        cg_dword(s, NULL, "Last Counter", CG_B_LAST + 2);
        cg_dword(s, NULL, "Last Help", CG_B_LAST + 3);
        cg_dword(s, "ProvB", "Last Counter", CG_B_LAST + 2);
        cg_dword(s, "ProvB", "Last Help", CG_B_LAST + 3);
        break;
    case CG_PROVIDER_INVERTED:
        cg_dword(s, "ProvA", "Last Counter", CG_A_FIRST - 2);
        break;
    case CG_PROVIDER_PARITY:
        cg_dword(s, "ProvA", "First Counter", CG_A_FIRST + 1);
        break;
    case CG_PROVIDER_OVERLAP:
        cg_dword(s, "ProvB", "First Counter", CG_A_LAST);
        cg_dword(s, "ProvB", "First Help", CG_A_LAST + 1);
        break;
    case CG_PROVIDER_OVERLAPS_BASE:
        cg_dword(s, "ProvA", "First Counter", 1844);
        cg_dword(s, "ProvA", "First Help", 1845);
        break;
    case CG_PROVIDER_STRINGS_MISSING:
        cg_remove(s, "019", RT_TABLE_COUNTER, CG_B_FIRST, CG_B_LAST);
        break;
    case CG_PROVIDER_ABOVE_LAST:
        cg_dword(s, "ProvB", "Last Counter", CG_B_LAST + 40);
        cg_dword(s, "ProvB", "Last Help", CG_B_LAST + 41);
        break;
    case CG_OBJECT_LIST_OUTSIDE:
        cg_string(s, "ProvA", "Object List", "1848 4242");
        break;
    case CG_DISABLED:
        cg_dword(s, "ProvB", "Disable Performance Counters", 1);
        break;
    case CG_PERFLIB_DISABLED:
        cg_dword(s, NULL, "Disable Performance Counters", 1);
        break;
    case CG_ORPHANS:
        /* ProvB's registration lost; its strings stay. */
        {
            struct rt_change_set cs = {0};
            const char *vals[] = {"First Counter", "Last Counter",
                                  "First Help", "Last Help"};
            for (int i = 0; i < 4; i++)
                rt_change_set_delete_service(&cs, "ProvB", vals[i]);
            struct rt_error e;
            if (s->ops->begin(s, &e) || s->ops->apply(s, &cs, &e))
                abort();
            s->ops->end(s);
            rt_change_set_free(&cs);
        }
        break;
    case CG_COUNT:
        break;
    }
}

/* A clean database with class C injected. */
static struct rt_store *cg_build(enum corruption c, uint32_t seed)
{
    struct rt_store *s = cg_clean_lang(c == CG_ENGLISH_MISSING);
    cg_inject(s, c, seed);
    return s;
}

#endif
