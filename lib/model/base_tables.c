/* Model layer: generated base tables for `regtool init`. */
#include "model/base_tables.h"
#include "model/lang_id.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct rt_base_provider providers[] = {
    {"ESENT", "%SystemRoot%\\system32\\esentprf.dll", 1848, 2398, 1849, 2399},
    {"RemoteAccess", "%SystemRoot%\\System32\\rasctrs.dll", 2400, 2660, 2401,
     2661},
    {"MSDTC", "%SystemRoot%\\system32\\msdtcuiu.DLL", 2662, 2820, 2663, 2821},
    {".NETFramework", "%SystemRoot%\\system32\\mscoree.dll", 2822, 3990, 2823,
     3991},
};
#define N_PROVIDERS (sizeof providers / sizeof providers[0])

const struct rt_base_provider *rt_base_providers(size_t *n)
{
    *n = N_PROVIDERS;
    return providers;
}

uint32_t rt_base_last_counter(void)
{
    return providers[N_PROVIDERS - 1].last_counter;
}

uint32_t rt_base_last_help(void)
{
    return providers[N_PROVIDERS - 1].last_help;
}

/* Vocabularies by script: enough to make text that looks like a
 * language's and exercises UTF-16 (Cyrillic, Latin with accents, CJK). */
static const char *const words_en[] = {
    "Processor", "Memory", "Bytes", "Pages", "Cache", "Queue", "Thread",
    "Handle", "Interrupts", "Transfers", "Requests", "Latency", "Pool",
    "Faults", "Disk", "Network", "Session", "Packets", "Errors", "Time"};
static const char *const words_ru[] = {
    "\xd0\x9f\xd1\x80\xd0\xbe\xd1\x86\xd0\xb5\xd1\x81\xd1\x81\xd0\xbe\xd1\x80",
    "\xd0\x9f\xd0\xb0\xd0\xbc\xd1\x8f\xd1\x82\xd1\x8c",
    "\xd0\x91\xd0\xb0\xd0\xb9\xd1\x82",
    "\xd0\xa1\xd1\x82\xd1\x80\xd0\xb0\xd0\xbd\xd0\xb8\xd1\x86\xd1\x8b",
    "\xd0\x9a\xd1\x8d\xd1\x88",
    "\xd0\x9e\xd1\x87\xd0\xb5\xd1\x80\xd0\xb5\xd0\xb4\xd1\x8c",
    "\xd0\x9f\xd0\xbe\xd1\x82\xd0\xbe\xd0\xba",
    "\xd0\x94\xd0\xb8\xd1\x81\xd0\xba",
    "\xd0\xa1\xd0\xb5\xd1\x82\xd1\x8c",
    "\xd0\x9e\xd1\x88\xd0\xb8\xd0\xb1\xd0\xba\xd0\xb8"};
static const char *const words_fr[] = {
    "M\xc3\xa9moire", "Processeur", "Octets", "Pages", "Cache", "File",
    "Thread", "Requ\xc3\xaates", "Latence", "Erreurs", "R\xc3\xa9seau",
    "Disque", "Temps", "\xc3\x89l\xc3\xa9ments"};
static const char *const words_cjk[] = {
    "\xe5\xa4\x84\xe7\x90\x86\xe5\x99\xa8", "\xe5\x86\x85\xe5\xad\x98",
    "\xe5\xad\x97\xe8\x8a\x82", "\xe9\x98\x9f\xe5\x88\x97",
    "\xe7\xbd\x91\xe7\xbb\x9c", "\xe7\xa3\x81\xe7\x9b\x98",
    "\xe9\x94\x99\xe8\xaf\xaf", "\xe6\x97\xb6\xe9\x97\xb4"};

struct vocab {
    const char *const *w;
    size_t n;
    const char *sep;
};

static struct vocab vocab_for(const char *lang)
{
    if (rt_lang_same(lang, "019") || rt_lang_same(lang, "022") ||
        rt_lang_same(lang, "002"))
        return (struct vocab){words_ru, sizeof words_ru / sizeof *words_ru, " "};
    if (rt_lang_same(lang, "404") || rt_lang_same(lang, "804") ||
        rt_lang_same(lang, "011") || rt_lang_same(lang, "012"))
        return (struct vocab){words_cjk, sizeof words_cjk / sizeof *words_cjk,
                              ""};
    if (rt_lang_same(lang, "009"))
        return (struct vocab){words_en, sizeof words_en / sizeof *words_en, " "};
    return (struct vocab){words_fr, sizeof words_fr / sizeof *words_fr, " "};
}

/* UTF-16 units of UTF-8 text S (BMP only, as the vocabularies are). */
static size_t units(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* Text for INDEX: a name of two or three words, or a help paragraph of
 * 260 to 420 bytes of UTF-8 (IN_UNITS: UTF-16 units). */
static int make_text(const struct vocab *v, uint32_t index, int help,
                     int in_units, char *buf, size_t size)
{
    uint32_t x = index * 2654435761u;
    size_t len = 0, u = 0;
    size_t target = help ? 260 + (x >> 24) % 160 : 1;
    int words = 0;
    buf[0] = '\0';
    while (words < 2 || (in_units ? u : len) < target) {
        const char *w = v->w[(x >> 8) % v->n];
        x = x * 1103515245u + 12345u;
        int n = snprintf(buf + len, size - len, "%s%s", words ? v->sep : "", w);
        if (n < 0 || (size_t)n >= size - len)
            break;
        u += units(buf + len);
        len += (size_t)n;
        words++;
        if (!help && words == 2 + (int)(index % 2))
            break;
    }
    if (help)
        snprintf(buf + len, size - len, " (%u).", index);
    else
        snprintf(buf + len, size - len, " %u", index);
    return 0;
}

static int add_range(struct rt_name_table *t, const struct vocab *v,
                     uint32_t first, uint32_t last, int help, int in_units)
{
    char buf[2048];
    for (uint32_t i = first; i <= last; i += 2) {
        make_text(v, i, help, in_units, buf, sizeof buf);
        if (rt_pair_list_append(help ? &t->help : &t->counter, i, buf) != 0)
            return -1;
    }
    return 0;
}

void rt_base_extra_provider(unsigned i, struct rt_base_provider *p,
                            char *service, size_t size)
{
    uint32_t first = rt_base_last_counter() + 2 + 2 * RT_BASE_EXTRA_NAMES * i;
    snprintf(service, size, "PerfGen%03u", i + 1);
    p->service = service;
    p->library = "%SystemRoot%\\System32\\perfgen.dll";
    p->first_counter = first;
    p->last_counter = first + 2 * (RT_BASE_EXTRA_NAMES - 1);
    p->first_help = first + 1;
    p->last_help = p->last_counter + 1;
}

uint32_t rt_base_last_counter_scaled(unsigned extra)
{
    return rt_base_last_counter() + 2 * RT_BASE_EXTRA_NAMES * extra;
}

uint32_t rt_base_last_help_scaled(unsigned extra)
{
    return rt_base_last_counter_scaled(extra) + 1;
}

int rt_base_tables_generate(const char *lang, struct rt_name_table *t)
{
    return rt_base_tables_generate_scaled(lang, 0, t);
}

int rt_base_tables_generate_scaled(const char *lang, unsigned extra,
                                   struct rt_name_table *t)
{
    memset(t, 0, sizeof *t);
    struct vocab v = vocab_for(lang);
    /* The first Counter pair is "1" with the base index as its text, and
     * both tables end their base range with "End Marker" (docs/design.md,
     * "The name database"). */
    if (rt_pair_list_append(&t->counter, 1, "1847") ||
        add_range(t, &v, 2, 1844, 0, 0) ||
        rt_pair_list_append(&t->counter, 1846, "End Marker") ||
        add_range(t, &v, 3, 1845, 1, 0) ||
        rt_pair_list_append(&t->help, 1847, "End Marker"))
        goto fail;
    for (size_t p = 0; p < N_PROVIDERS; p++)
        if (add_range(t, &v, providers[p].first_counter,
                      providers[p].last_counter, 0, 0) ||
            add_range(t, &v, providers[p].first_help, providers[p].last_help,
                      1, 0))
            goto fail;
    for (unsigned i = 0; i < extra; i++) {
        struct rt_base_provider p;
        char service[32];
        rt_base_extra_provider(i, &p, service, sizeof service);
        if (add_range(t, &v, p.first_counter, p.last_counter, 0, 1) ||
            add_range(t, &v, p.first_help, p.last_help, 1, 1))
            goto fail;
    }
    return 0;
fail:
    rt_name_table_free(t);
    return -1;
}
