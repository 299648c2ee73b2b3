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

#include "ops/ops.h"
#include "platform/os.h"
#include "regf/regf.h"
#include "store/base_hive.h"

#define MIB (1024u * 1024u)

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

/* The tree `regtool init` makes (rt_op_init_build), at scale: EXTRA
 * providers, each help text cut to HELP_CHARS, SOFTWARE filled to
 * SIZE_MB. */
static int cmd_hives(const char *dir, const char *langs, unsigned extra,
                     unsigned size_mb, int files, unsigned help_chars)
{
    char config[4096], path[4200], sys32[4096], wow[4096];
    snprintf(config, sizeof config, "%s/Windows/System32/config", dir);
    snprintf(sys32, sizeof sys32, "%s/Windows/System32", dir);
    snprintf(wow, sizeof wow, "%s/Windows/SysWOW64", dir);
    if (rt_os_mkdirs(config) != 0 || (files && rt_os_mkdirs(wow) != 0)) {
        fprintf(stderr, "mkbench: %s: %s\n", config, strerror(errno));
        return 3;
    }
    char *list = strdup(langs), *save = NULL, *ids[64];
    size_t n_langs = 0;
    for (char *l = list ? strtok_r(list, ",", &save) : NULL; l;
         l = strtok_r(NULL, ",", &save)) {
        if (n_langs == sizeof ids / sizeof *ids) {
            fprintf(stderr, "mkbench: more than %zu languages\n", n_langs);
            free(list);
            return 64;
        }
        ids[n_langs++] = l;
    }
    const struct rt_init_tree t = {ids, n_langs, files, {sys32, wow}, 0,
                                   extra, help_chars};
    struct rt_init_hives h;
    struct rt_error e = {0};
    int rc = 0;
    if (rt_op_init_build(&t, &h, &e) != 0) {
        fprintf(stderr, "mkbench: %s\n", e.message);
        free(list);
        return 3;
    }
    free(list);
    /* The files layout keeps the registry layout's filler: its target is
     * smaller by the tables that went to the .dat files. */
    size_t target = (size_t)size_mb * MIB;
    if (files)
        target = target > h.tables_bytes ? target - h.tables_bytes : 0;
    unsigned n_keys = 0;
    if (add_filler(h.software, target, &n_keys) != 0)
        rc = fail(h.software, "filler");
    snprintf(path, sizeof path, "%s/SOFTWARE", config);
    char sy_path[4200];
    snprintf(sy_path, sizeof sy_path, "%s/SYSTEM", config);
    if (!rc && rt_op_init_save(&h, path, sy_path, &e) != 0) {
        fprintf(stderr, "mkbench: %s\n", e.message);
        rc = 3;
    }
    if (!rc) {
        const uint8_t *img;
        size_t len;
        rt_regf_image(h.software, &img, &len);
        printf("SOFTWARE %.1f MB: %zu languages, Help %.2f-%.2f MB each%s, "
               "%u providers above the built-in ones, %u filler classes\n",
               (double)len / MIB, n_langs, (double)h.help_min / MIB,
               (double)h.help_max / MIB,
               files ? " in System32 and SysWOW64 .dat files" : "", extra,
               n_keys);
    }
    rt_op_init_free(&h);
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
