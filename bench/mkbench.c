/* Benchmark workload generator: an offline Windows tree with a realistic
 * SOFTWARE hive (about 79 MB: twelve languages' tables as registry
 * values, each Help about 5.4 MB of big data, and filler keys under
 * Classes) and the SYSTEM hive `regtool init` makes for it; and a large
 * lodctr provider (INI and symbol file). Table text and layout are
 * deterministic; key times are those of the run.
 *
 * With --layout files the tables go where Vista and later keep them, in
 * System32 and SysWOW64 perfcLLL.dat / perfhLLL.dat (Perflib\009 and
 * Perflib\CurrentLanguage predefined-handle keys, as `regtool init`
 * writes them), and SOFTWARE keeps about the same filler, so it is
 * smaller by the tables. --help-chars N cuts every help text to N bytes (a small
 * workload whose every value stays under 1 MB).
 *
 *   mkbench hives DIR [--languages L,L,...] [--extra N] [--size MB]
 *                     [--layout registry|files] [--help-chars N]
 *   mkbench provider DIR [--symbols N]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "store/base_hive.h"
#include "platform/os.h"
#include "model/base_tables.h"
#include "commit/io.h"
#include "model/name_table.h"
#include "regf/regf.h"

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define MIB (1024u * 1024u)
/* Predefined handles of Perflib\009 and Perflib\CurrentLanguage. */
#define HKEY_PERFORMANCE_TEXT    0x80000050u
#define HKEY_PERFORMANCE_NLSTEXT 0x80000060u

static const char default_languages[] =
    "009,007,00C,010,019,011,404,804,416,816,00A,013";

static int usage(void)
{
    fputs("usage: mkbench hives DIR [--languages L,...] [--extra N] "
          "[--size MB]\n"
          "                         [--layout registry|files] "
          "[--help-chars N]\n"
          "       mkbench provider DIR [--symbols N]\n", stderr);
    return 64;
}

static int fail(struct rt_regf *h, const char *what)
{
    fprintf(stderr, "mkbench: %s: %s\n", what, h ? rt_regf_errmsg(h) : "");
    return 3;
}

/* Cuts every text of L to at most MAX bytes, on a UTF-8 boundary. */
static void cut_texts(struct rt_pair_list *l, size_t max)
{
    for (size_t i = 0; i < l->n; i++) {
        struct rt_pair *p = &l->v[i];
        if (p->text_len <= max)
            continue;
        size_t cut = max;
        while (cut > 0 && ((unsigned char)p->text[cut] & 0xC0) == 0x80)
            cut--;
        p->text[cut] = 0;
        p->text_len = cut;
    }
}

static int write_dat(const char *dir, const char *kind, const char *lang,
                     const uint8_t *data, size_t len)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/perf%s%s.dat", dir, kind, lang);
    if (rt_os_write_new_file(path, data, len) != 0) {
        fprintf(stderr, "mkbench: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

/* One language's Counter and Help: values of Perflib\LLL, or with
 * DAT_DIRS (NULL-terminated) .dat files in each. *HELP_LEN gets the Help
 * table's size, *TABLES_LEN both tables'. */
static int write_language(struct rt_regf *sw, uint32_t perflib,
                          const char *lang, unsigned extra, size_t help_chars,
                          char *const *dat_dirs, size_t *help_len,
                          size_t *tables_len)
{
    struct rt_name_table t;
    uint8_t *c = NULL, *h = NULL;
    size_t cl, hl;
    uint32_t key;
    int rc = -1;
    if (rt_base_tables_generate_scaled(lang, extra, &t) != 0)
        goto out;
    if (help_chars)
        cut_texts(&t.help, help_chars);
    if (rt_pair_list_encode(&t.counter, &c, &cl) != 0 ||
        rt_pair_list_encode(&t.help, &h, &hl) != 0 ||
        rt_regf_key_create(sw, perflib, lang, &key) != 0)
        goto out;
    if (dat_dirs) {
        if (!strcmp(lang, "009") &&
            rt_regf_key_set_predefined(sw, key, HKEY_PERFORMANCE_TEXT) != 0)
            goto out;
        for (char *const *d = dat_dirs; *d; d++)
            if (write_dat(*d, "c", lang, c, cl) != 0 ||
                write_dat(*d, "h", lang, h, hl) != 0)
                goto out;
    } else if (rt_regf_value_set(sw, key, "Counter", RT_REG_MULTI_SZ, c,
                                 cl) != 0 ||
               rt_regf_value_set(sw, key, "Help", RT_REG_MULTI_SZ, h,
                                 hl) != 0) {
        goto out;
    }
    *help_len = hl;
    *tables_len = cl + hl;
    rc = 0;
out:
    rt_name_table_free(&t);
    free(c);
    free(h);
    return rc;
}

/* Filler the size of what else a SOFTWARE hive holds: COM classes, each
 * a key with a description, an InprocServer32 subkey with the server's
 * path and its threading model, until the image reaches TARGET bytes.
 * They go in groups of FILLER_GROUP under Classes\Generated, because
 * creating a key costs time in the number of its siblings. */
#define FILLER_GROUP 500u

static int add_filler(struct rt_regf *sw, size_t target, unsigned *n_keys)
{
    uint32_t clsid = RT_REGF_NONE;
    uint32_t x = 0x9E3779B9u;
    for (unsigned i = 0;; i++) {
        const uint8_t *img;
        size_t len;
        rt_regf_image(sw, &img, &len);
        if (len >= target) {
            *n_keys = i;
            return 0;
        }
        char name[64], text[128], path[128];
        if (i % FILLER_GROUP == 0) {
            snprintf(path, sizeof path, "Classes\\Generated\\Group%03u",
                     i / FILLER_GROUP);
            if (rt_regf_key_create_path(sw, rt_regf_root(sw), path,
                                        &clsid) != 0)
                return -1;
        }
        uint32_t a = x = x * 1664525u + 1013904223u;
        uint32_t b = x = x * 1664525u + 1013904223u;
        uint32_t c = x = x * 1664525u + 1013904223u;
        snprintf(name, sizeof name, "{%08X-%04X-%04X-%04X-%04X%08X}", a,
                 b >> 16, b & 0xFFFF, c >> 16, c & 0xFFFF, i);
        snprintf(text, sizeof text, "Generated component class %u", i);
        snprintf(path, sizeof path,
                 "%%SystemRoot%%\\System32\\component%03u.dll", i % 997);
        uint32_t cls, srv;
        if (rt_regf_key_create(sw, clsid, name, &cls) != 0 ||
            rt_base_set_string(sw, cls, "", RT_REG_SZ, text) != 0 ||
            rt_regf_key_create(sw, cls, "InprocServer32", &srv) != 0 ||
            rt_base_set_string(sw, srv, "", RT_REG_EXPAND_SZ, path) != 0 ||
            rt_base_set_string(sw, srv, "ThreadingModel", RT_REG_SZ,
                               i % 3 ? "Both" : "Apartment") != 0)
            return -1;
    }
}

static int cmd_hives(const char *dir, const char *langs, unsigned extra,
                     unsigned size_mb, int files, unsigned help_chars)
{
    char config[4096], path[4200], sys32[4096], wow[4096];
    char *dat_dirs[] = {sys32, wow, NULL};
    snprintf(config, sizeof config, "%s/Windows/System32/config", dir);
    snprintf(sys32, sizeof sys32, "%s/Windows/System32", dir);
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", dir);
    if (rt_os_mkdirs(config) != 0 || (files && rt_os_mkdirs(wow) != 0)) {
        fprintf(stderr, "mkbench: %s: %s\n", config, strerror(errno));
        return 3;
    }
    struct rt_regf *sw = NULL, *sy = NULL;
    char err[512];
    if (rt_regf_create(5, "ROOT", &sw, err, sizeof err) ||
        rt_regf_create(5, "ROOT", &sy, err, sizeof err)) {
        fprintf(stderr, "mkbench: %s\n", err);
        return 3;
    }
    int rc = 0;
    uint32_t perflib;
    if (rt_regf_key_create_path(sw, rt_regf_root(sw), PERFLIB, &perflib) ||
        rt_base_set_dword(sw, perflib, "Last Counter",
                          rt_base_last_counter_scaled(extra)) ||
        rt_base_set_dword(sw, perflib, "Last Help",
                          rt_base_last_help_scaled(extra)) ||
        rt_base_set_dword(sw, perflib, "Base Index", 1847) ||
        rt_base_set_dword(sw, perflib, "Version", 0x00050001)) {
        rc = fail(sw, "Perflib");
        goto out;
    }
    char *list = strdup(langs), *save = NULL;
    size_t n_langs = 0, help_min = SIZE_MAX, help_max = 0, tables = 0;
    for (char *l = strtok_r(list, ",", &save); l && !rc;
         l = strtok_r(NULL, ",", &save)) {
        size_t hl = 0, tl = 0;
        if (write_language(sw, perflib, l, extra, help_chars,
                           files ? dat_dirs : NULL, &hl, &tl) != 0)
            rc = fail(sw, l);
        help_min = hl < help_min ? hl : help_min;
        help_max = hl > help_max ? hl : help_max;
        tables += tl;
        n_langs++;
    }
    free(list);
    uint32_t cur;
    if (!rc && files &&
        (rt_regf_key_create(sw, perflib, "CurrentLanguage", &cur) != 0 ||
         rt_regf_key_set_predefined(sw, cur, HKEY_PERFORMANCE_NLSTEXT) != 0))
        rc = fail(sw, "CurrentLanguage");
    /* The files layout keeps the registry layout's filler: its target is
     * smaller by the tables that went to the .dat files. */
    size_t target = (size_t)size_mb * MIB;
    if (files)
        target = target > tables ? target - tables : 0;
    unsigned n_keys = 0;
    if (!rc && add_filler(sw, target, &n_keys) != 0)
        rc = fail(sw, "filler");
    if (!rc && rt_base_build_system(sy, extra) != 0)
        rc = fail(sy, "SYSTEM");
    snprintf(path, sizeof path, "%s/SOFTWARE", config);
    if (!rc && rt_regf_save_as(sw, path) != 0)
        rc = fail(NULL, path);
    snprintf(path, sizeof path, "%s/SYSTEM", config);
    if (!rc && rt_regf_save_as(sy, path) != 0)
        rc = fail(NULL, path);
    if (!rc) {
        const uint8_t *img;
        size_t len;
        rt_regf_image(sw, &img, &len);
        printf("SOFTWARE %.1f MB: %zu languages, Help %.2f-%.2f MB each%s, "
               "%u providers above the built-in ones, %u filler classes\n",
               (double)len / MIB, n_langs, (double)help_min / MIB,
               (double)help_max / MIB,
               files ? " in System32 and SysWOW64 .dat files" : "", extra,
               n_keys);
    }
out:
    rt_regf_close(sw);
    rt_regf_close(sy);
    return rc;
}

/* --- the provider ---------------------------------------------------- */

static const char *const nouns_en[] = {
    "Requests", "Bytes", "Sessions", "Errors", "Retries", "Queue Items",
    "Cache Hits", "Cache Misses", "Connections", "Transactions"};
static const char *const nouns_de[] = {
    "Anforderungen", "Bytes", "Sitzungen", "Fehler", "Wiederholungen",
    "Warteschlangenelemente", "Cachetreffer", "Cachefehler", "Verbindungen",
    "Transaktionen"};
static const char *const nouns_ru[] = {
    "Запросы", "Байты", "Сеансы", "Ошибки", "Повторы", "Элементы очереди",
    "Попадания в кэш", "Промахи кэша", "Подключения", "Транзакции"};
#define N_NOUNS (sizeof nouns_en / sizeof *nouns_en)

struct lang_text {
    const char *id;
    const char *const *nouns;
    const char *object, *per_sec, *total;
    const char *obj_help, *rate_help, *total_help;
};

static const struct lang_text texts[] = {
    {"009", nouns_en, "Bench Service %u", "%s/sec (%u)", "%s Total (%u)",
     "Counters of worker pool %u of the benchmark service: request "
     "handling, caching and connections of one pool.",
     "Rate at which %s are processed by this pool, in events per second, "
     "averaged over the last sample interval.",
     "Number of %s processed by this pool since the service started."},
    {"007", nouns_de, "Benchmarkdienst %u", "%s/s (%u)", "%s gesamt (%u)",
     "Indikatoren des Arbeitspools %u des Benchmarkdienstes: Verarbeitung "
     "von Anforderungen, Zwischenspeicher und Verbindungen eines Pools.",
     "Rate, mit der %s von diesem Pool verarbeitet werden, pro Sekunde, "
     "gemittelt \xc3\xbc" "ber das letzte Abtastintervall.",
     "Anzahl der %s, die dieser Pool seit dem Start verarbeitet hat."},
    {"019", nouns_ru, "Тестовая служба %u", "%s/с (%u)", "%s всего (%u)",
     "Счётчики рабочего пула %u тестовой службы: обработка запросов, "
     "кэширование и подключения одного пула.",
     "Скорость, с которой этот пул обрабатывает %s, в событиях в секунду, "
     "в среднем за последний интервал выборки.",
     "Число %s, обработанных этим пулом с момента запуска службы."},
};
#define N_TEXTS (sizeof texts / sizeof *texts)

/* NAME or help for symbol I (object every OBJ_EVERY symbols). */
#define OBJ_EVERY 40u

static void symbol_text(const struct lang_text *t, unsigned i, int help,
                        char *buf, size_t size)
{
    unsigned obj = i / OBJ_EVERY, k = i % OBJ_EVERY;
    const char *noun = t->nouns[k % N_NOUNS];
    if (k == 0)
        snprintf(buf, size, help ? t->obj_help : t->object, obj + 1);
    else if (help)
        snprintf(buf, size, k % 2 ? t->rate_help : t->total_help, noun);
    else
        snprintf(buf, size, k % 2 ? t->per_sec : t->total, noun, k);
}

static int cmd_provider(const char *dir, unsigned symbols)
{
    if (rt_os_mkdirs(dir) != 0) {
        fprintf(stderr, "mkbench: %s: %s\n", dir, strerror(errno));
        return 3;
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/BenchOffsets.h", dir);
    FILE *h = fopen(path, "w");
    snprintf(path, sizeof path, "%s/bench.ini", dir);
    FILE *ini = fopen(path, "w");
    if (!h || !ini) {
        fprintf(stderr, "mkbench: %s: %s\n", dir, strerror(errno));
        if (h)
            fclose(h);
        if (ini)
            fclose(ini);
        return 3;
    }
    fputs("/* BenchOffsets.h: offsets of the benchmark provider. */\n", h);
    fputs("[info]\ndrivername=BenchPerf\nsymbolfile=BenchOffsets.h\n\n"
          "[languages]\n009=English\n007=German\n019=Russian\n\n[objects]\n",
          ini);
    for (unsigned i = 0; i < symbols; i += OBJ_EVERY)
        fprintf(ini, "SYM_%04u_009_NAME=\n", i);
    fputs("\n[text]\n", ini);
    for (unsigned i = 0; i < symbols; i++) {
        fprintf(h, "#define SYM_%04u %u\n", i, 2 * i);
        for (size_t l = 0; l < N_TEXTS; l++) {
            char buf[512];
            symbol_text(&texts[l], i, 0, buf, sizeof buf);
            fprintf(ini, "SYM_%04u_%s_NAME=%s\n", i, texts[l].id, buf);
            symbol_text(&texts[l], i, 1, buf, sizeof buf);
            fprintf(ini, "SYM_%04u_%s_HELP=%s\n", i, texts[l].id, buf);
        }
    }
    int bad = ferror(h) | ferror(ini);
    bad |= fclose(h) != 0;
    bad |= fclose(ini) != 0;
    if (bad) {
        fprintf(stderr, "mkbench: writing %s failed\n", dir);
        return 3;
    }
    printf("provider BenchPerf: %u symbols, text in 009, 007, 019\n",
           symbols);
    return 0;
}

static int parse_uint(const char *s, unsigned *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || !*s || *end || v > 100000)
        return -1;
    *out = (unsigned)v;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return usage();
    const char *langs = default_languages;
    /* 13 extra providers bring each Help to 4.7-5.6 MB (English 5.6); the filler
     * brings SOFTWARE to 79 MB. */
    unsigned extra = 13, size_mb = 79, symbols = 400, help_chars = 0;
    int files = 0;
    for (int i = 3; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage();
        if (!strcmp(argv[i], "--languages"))
            langs = argv[i + 1];
        else if (!strcmp(argv[i], "--layout") &&
                 (!strcmp(argv[i + 1], "files") ||
                  !strcmp(argv[i + 1], "registry")))
            files = !strcmp(argv[i + 1], "files");
        else if (!strcmp(argv[i], "--extra") ? parse_uint(argv[i + 1], &extra)
                 : !strcmp(argv[i], "--size") ? parse_uint(argv[i + 1], &size_mb)
                 : !strcmp(argv[i], "--help-chars")
                     ? parse_uint(argv[i + 1], &help_chars)
                 : !strcmp(argv[i], "--symbols")
                     ? parse_uint(argv[i + 1], &symbols)
                     : 1)
            return usage();
    }
    if (!strcmp(argv[1], "hives"))
        return cmd_hives(argv[2], langs, extra, size_mb, files, help_chars);
    if (!strcmp(argv[1], "provider") && symbols > 0)
        return cmd_provider(argv[2], symbols);
    return usage();
}
