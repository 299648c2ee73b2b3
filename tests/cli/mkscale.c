/* mkscale: makes the big hostile hives of tests/cli/hostile_scale.sh and
 * bench/run.sh from a store that `regtool init` made, with regtool's own
 * hive writer (linked from libregtool.a), so that no such hive is kept in
 * the tree.
 *
 *   mkscale services SYSTEM N    N more services under
 *                                ControlSet001\Services, each with a
 *                                Performance key: library, entry points
 *                                and a counter range of its own above
 *                                every table's (names nowhere)
 *   mkscale libraries SYSTEM N   the same, each service's Library a DLL
 *                                of its own, scaleNNNNNN.dll, and its
 *                                PerfIniFile scaleNNNNNN.ini (the caller
 *                                plants the DLLs in System32, the INF
 *                                copies in INF\ScaleNNNNNN\0009)
 *   mkscale shortnames SYSTEM N  the same as services, each service's
 *                                Library C:\PROGRA~1\SNNNNN~1\scale.dll,
 *                                8.3 short names (the caller plants
 *                                Program Files\SNNNNN Scale\scale.dll)
 *   mkscale bigvalue SYSTEM N    PerfOS's Library N bytes long
 *                                (REG_EXPAND_SZ, 'A's)
 *   mkscale bigsz SYSTEM N       the same as a REG_SZ with a NUL in the
 *                                middle (no quoted string: hex in .reg)
 *   mkscale bigdword SYSTEM N    the same as a REG_DWORD (not 4 bytes:
 *                                hex in .reg)
 *   mkscale languages SOFTWARE N N more Perflib language subkeys (ids
 *                                1000 hex on), without tables
 *   mkscale tables DIR N         the .dat tables of those N languages in
 *                                DIR, perfcLLLL.dat and perfhLLLL.dat,
 *                                each an empty table (its end alone)
 *   mkscale duplicates SOFTWARE N  Perflib\009's Counter becomes N
 *                                pairs "2", "2" (the registry layout's
 *                                table: 8 bytes a pair, the most pairs a
 *                                byte, one index held N times)
 *   mkscale values SYSTEM N      N values Scale000000... on one key,
 *                                Services\Many\Performance (the hive
 *                                writer's own time: bench/run.sh's
 *                                hostile-write-values), then each set
 *                                again through its name in upper case
 *   mkscale sharedlist SYSTEM N  N services ScaleNNNNNN and a key
 *                                Services\Shared of N subkeys, whose
 *                                subkey list every service names as its
 *                                own (one list shared by N keys)
 *   mkscale ownsk HIVE N         N keys with a security cell each of
 *                                their own, a thousand under each key
 *                                OwnNNNN of the root
 *   mkscale selfloop SYSTEM      Services' subkey list names Services
 *                                itself
 *   mkscale cycle SYSTEM         a subkey of Services lists Services
 *                                (a cycle of two keys)
 * Exit 0 done, 1 on any failure (with the writer's message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/regf.h"
#include "regf/regf_internal.h"

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES "ControlSet001\\Services"

static int fail(struct rt_regf *h, const char *what)
{
    fprintf(stderr, "mkscale: %s: %s\n", what, h ? rt_regf_errmsg(h) : "");
    return 1;
}

static int dword(struct rt_regf *h, uint32_t key, const char *name,
                 uint32_t v)
{
    uint8_t b[4] = {v & 0xFF, v >> 8 & 0xFF, v >> 16 & 0xFF, v >> 24};
    return rt_regf_value_set(h, key, name, RT_REG_DWORD, b, 4);
}

/* TEXT as REG_SZ: UTF-16LE of ASCII, with its terminator. */
static int text(struct rt_regf *h, uint32_t key, const char *name,
                const char *s)
{
    uint8_t b[128];
    size_t n = strlen(s);
    for (size_t i = 0; i <= n; i++) {
        b[2 * i] = (uint8_t)s[i];
        b[2 * i + 1] = 0;
    }
    return rt_regf_value_set(h, key, name, RT_REG_SZ, b, 2 * (n + 1));
}

/* LIB_WIDE: a shared Library, and every range the same 2,000,000
 * indices from 4000, as wide as repair --from-ini fills. */
enum library_kind { LIB_SHARED, LIB_OWN, LIB_SHORT, LIB_WIDE };

static int services(struct rt_regf *h, long n, enum library_kind kind)
{
    uint32_t svcs;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES, &svcs))
        return fail(h, SERVICES);
    for (long i = 0; i < n; i++) {
        char name[32];
        uint32_t svc, perf, first = 1000000 + 4 * (uint32_t)i;
        char library[48] = "scale.dll";
        snprintf(name, sizeof name, "Scale%06ld", i);
        if (kind == LIB_OWN)
            snprintf(library, sizeof library, "scale%06ld.dll", i);
        else if (kind == LIB_SHORT)
            snprintf(library, sizeof library, "C:\\PROGRA~1\\S%05ld~1\\scale.dll",
                     i);
        if (rt_regf_key_create(h, svcs, name, &svc) ||
            rt_regf_key_create(h, svc, "Performance", &perf) ||
            text(h, perf, "Library", library) ||
            text(h, perf, "Open", "Open") ||
            text(h, perf, "Collect", "Collect") ||
            text(h, perf, "Close", "Close") ||
            dword(h, perf, "First Counter", kind == LIB_WIDE ? 4000 : first) ||
            dword(h, perf, "Last Counter",
                  kind == LIB_WIDE ? 2003998 : first + 2) ||
            dword(h, perf, "First Help", kind == LIB_WIDE ? 4001 : first + 1) ||
            dword(h, perf, "Last Help", kind == LIB_WIDE ? 2003999 : first + 3))
            return fail(h, name);
        char ini[32];
        snprintf(ini, sizeof ini, "scale%06ld.ini", i);
        if (kind == LIB_OWN && text(h, perf, "PerfIniFile", ini))
            return fail(h, name);
    }
    return 0;
}

static int values(struct rt_regf *h, long n)
{
    uint32_t svcs, svc, perf;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES, &svcs))
        return fail(h, SERVICES);
    if (rt_regf_key_create(h, svcs, "Many", &svc) ||
        rt_regf_key_create(h, svc, "Performance", &perf))
        return fail(h, "Many\\Performance");
    for (int pass = 0; pass < 2; pass++)
        for (long i = 0; i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, pass ? "SCALE%06ld" : "Scale%06ld", i);
            if (dword(h, perf, name, (uint32_t)(i + pass)))
                return fail(h, name);
        }
    return 0;
}

/* PerfOS's Library, N bytes of 'A' (REG_EXPAND_SZ): a value that is no
 * table, of any size a hive holds. */
static int bigvalue(struct rt_regf *h, long n, uint32_t type)
{
    uint32_t perf;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES "\\PerfOS\\Performance",
                       &perf))
        return fail(h, "PerfOS\\Performance");
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (!b)
        return fail(NULL, "out of memory");
    memset(b, 'A', (size_t)n);
    if (type == 1 && n >= 4)
        b[n / 4 * 2] = b[n / 4 * 2 + 1] = 0;    /* a NUL unit inside */
    int r = rt_regf_value_set(h, perf, "Library", type, b, (size_t)n);
    free(b);
    return r ? fail(h, "Library") : 0;
}

static int languages(struct rt_regf *h, long n)
{
    uint32_t perflib, lang;
    if (n > 0xF000)
        return fail(NULL, "at most 61440 languages have a 4-digit id");
    if (rt_regf_lookup(h, rt_regf_root(h), PERFLIB, &perflib))
        return fail(h, PERFLIB);
    for (long i = 0; i < n; i++) {
        char name[8];
        snprintf(name, sizeof name, "%04lx", 0x1000 + i);
        if (rt_regf_key_create(h, perflib, name, &lang))
            return fail(h, name);
    }
    return 0;
}

static int duplicates(struct rt_regf *h, long n)
{
    uint32_t english;
    if (rt_regf_lookup(h, rt_regf_root(h), PERFLIB "\\009", &english))
        return fail(h, PERFLIB "\\009");
    /* "2" NUL "2" NUL in UTF-16LE a pair, and the list's NUL. */
    size_t len = 8 * (size_t)n + 2;
    uint8_t *b = calloc(len, 1);
    if (!b)
        return fail(NULL, "out of memory");
    for (long i = 0; i < n; i++)
        b[8 * i] = b[8 * i + 4] = '2';
    int rc = rt_regf_value_set(h, english, "Counter", RT_REG_MULTI_SZ, b, len);
    free(b);
    return rc ? fail(h, "Counter") : 0;
}

/* The .dat tables of the N languages of languages(), in DIR: each two
 * zero bytes, an empty UTF-16 string, which ends a table. */
static int tables(const char *dir, long n)
{
    for (long i = 0; i < n; i++)
        for (int t = 0; t < 2; t++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/perf%c%04lx.dat", dir,
                     t ? 'h' : 'c', 0x1000 + i);
            FILE *f = fopen(path, "wb");
            if (!f || fwrite("\0\0", 1, 2, f) != 2 || fclose(f) != 0) {
                perror(path);
                return 1;
            }
        }
    return 0;
}

/* Makes a new subkey CHILD of PARENT, then points the entry of PARENT's or
 * CHILD's subkey list (WHOSE) that holds... see the callers: the entry
 * that names CHILD in PARENT's list is made to name TARGET. Only the list
 * entry changes (the hash hint stays CHILD's): a reader must refuse the
 * hive by its structure, not by a hint. */
static int repoint(struct rt_regf *h, uint32_t parent, uint32_t child,
                   uint32_t target)
{
    const uint8_t *img;
    size_t len;
    rt_regf_image(h, &img, &len);
    /* PARENT's subkey list cell: the key node's field at 28 (4096 base
     * block + 4 size bytes before the cell data). */
    const uint8_t *nk = img + 4096 + parent + 4;
    uint32_t list = nk[28] | nk[29] << 8 | nk[30] << 16 | (uint32_t)nk[31] << 24;
    uint8_t *p = (uint8_t *)img + 4096 + list + 4;
    if (memcmp(p, "lh", 2) && memcmp(p, "lf", 2))
        return fail(NULL, "the subkey list is no lh or lf leaf");
    unsigned count = p[2] | p[3] << 8;
    for (unsigned i = 0; i < count; i++) {
        uint8_t *e = p + 4 + 8 * i;
        if ((e[0] | e[1] << 8 | e[2] << 16 | (uint32_t)e[3] << 24) != child)
            continue;
        for (int b = 0; b < 4; b++)
            e[b] = (uint8_t)(target >> 8 * b);
        return 0;
    }
    return fail(NULL, "the new key is not in its parent's list");
}

static int loop(struct rt_regf *h, int cycle)
{
    uint32_t svcs, a, b;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES, &svcs))
        return fail(h, SERVICES);
    if (!cycle) {
        /* Services' list: its entry for a new key A names Services. */
        if (rt_regf_key_create(h, svcs, "ALoop", &a))
            return fail(h, "ALoop");
        return repoint(h, svcs, a, svcs);
    }
    /* Services\ALoop\B: ALoop's only entry names Services instead. */
    if (rt_regf_key_create(h, svcs, "ALoop", &a) ||
        rt_regf_key_create(h, a, "B", &b))
        return fail(h, "ALoop\\B");
    return repoint(h, a, b, svcs);
}

/* N services ScaleNNNNNN, and a key Shared of N subkeys; then every
 * service's key node names Shared's subkey list (and count) as its own:
 * one list read as N keys' (a reader that indexes each key's list keeps
 * N x N names). */
static int sharedlist(struct rt_regf *h, long n)
{
    uint32_t svcs, shared, k;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES, &svcs) ||
        rt_regf_key_create(h, svcs, "Shared", &shared))
        return fail(h, "Services\\Shared");
    uint32_t *svc = malloc((size_t)(n ? n : 1) * sizeof *svc);
    if (!svc)
        return fail(NULL, "out of memory");
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "d%06ld", i);
        if (rt_regf_key_create(h, shared, name, &k)) {
            free(svc);
            return fail(h, name);
        }
        snprintf(name, sizeof name, "Scale%06ld", i);
        if (rt_regf_key_create(h, svcs, name, &svc[i])) {
            free(svc);
            return fail(h, name);
        }
    }
    const uint8_t *img;
    size_t len;
    rt_regf_image(h, &img, &len);
    /* Key node fields (4096 base block + 4 size bytes before the cell
     * data): the subkey count at 20, the subkey list at 28. */
    const uint8_t *from = img + 4096 + shared + 4;
    for (long i = 0; i < n; i++) {
        uint8_t *nk = (uint8_t *)img + 4096 + svc[i] + 4;
        memcpy(nk + 20, from + 20, 4);
        memcpy(nk + 28, from + 28, 4);
    }
    free(svc);
    return 0;
}

/* N keys with a security cell each of their own (as keys with their
 * own access lists have on Windows), a thousand under each of the keys
 * OwnNNNN of the root: hive check counts each cell's keys. Each cell
 * counts its one key; the parent's, which a new key shares, one less. */
static int ownsk(struct rt_regf *h, long n)
{
    uint32_t group = 0;
    for (long i = 0; i < n; i++) {
        char name[32];
        uint32_t k, sk;
        snprintf(name, sizeof name, "Own%04ld", i / 1000);
        if (i % 1000 == 0 &&
            rt_regf_key_create(h, rt_regf_root(h), name, &group))
            return fail(h, name);
        snprintf(name, sizeof name, "k%03ld", i % 1000);
        if (rt_regf_key_create(h, group, name, &k) ||
            regf_sk_new_default(h, &sk))
            return fail(h, name);
        uint8_t *nk = regf_cell_write(h, k, NK_SECURITY + 4);
        uint8_t *old = nk ? regf_cell_write(h, regf_le32(nk + NK_SECURITY),
                                            SK_DESC) : NULL;
        if (!old)
            return fail(h, name);
        regf_put32(old + SK_REFS, regf_le32(old + SK_REFS) - 1);
        uint8_t *p = regf_cell_write(h, sk, SK_DESC);
        nk = p ? regf_cell_write(h, k, NK_SECURITY + 4) : NULL;
        if (!nk)
            return fail(h, name);
        regf_put32(p + SK_REFS, 1);
        regf_put32(nk + NK_SECURITY, sk);
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3 || (argc != 4 && (!strcmp(argv[1], "services") ||
                                   !strcmp(argv[1], "wideranges") ||
                                   !strcmp(argv[1], "libraries") ||
                                   !strcmp(argv[1], "shortnames") ||
                                   !strcmp(argv[1], "tables") ||
                                   !strcmp(argv[1], "languages") ||
                                   !strcmp(argv[1], "values") ||
                                   !strcmp(argv[1], "sharedlist") ||
                                   !strcmp(argv[1], "ownsk") ||
                                   !strcmp(argv[1], "bigvalue") ||
                                   !strcmp(argv[1], "bigsz") ||
                                   !strcmp(argv[1], "bigdword") ||
                                   !strcmp(argv[1], "duplicates")))) {
        fprintf(stderr, "usage: mkscale services|wideranges|libraries|shortnames|languages|values|duplicates|sharedlist|ownsk|bigvalue|bigsz|bigdword HIVE N | "
                        "tables DIR N | "
                        "selfloop|cycle HIVE\n");
        return 2;
    }
    if (!strcmp(argv[1], "tables"))
        return tables(argv[2], strtol(argv[3], NULL, 10));
    char err[256];
    struct rt_regf *h;
    if (rt_regf_open(argv[2], RT_REGF_WRITE, &h, err, sizeof err)) {
        fprintf(stderr, "mkscale: %s: %s\n", argv[2], err);
        return 1;
    }
    long n = argc == 4 ? strtol(argv[3], NULL, 10) : 0;
    int rc;
    if (!strcmp(argv[1], "services"))
        rc = services(h, n, LIB_SHARED);
    else if (!strcmp(argv[1], "wideranges"))
        rc = services(h, n, LIB_WIDE);
    else if (!strcmp(argv[1], "libraries"))
        rc = services(h, n, LIB_OWN);
    else if (!strcmp(argv[1], "shortnames"))
        rc = services(h, n, LIB_SHORT);
    else if (!strcmp(argv[1], "languages"))
        rc = languages(h, n);
    else if (!strcmp(argv[1], "duplicates"))
        rc = duplicates(h, n);
    else if (!strcmp(argv[1], "values"))
        rc = values(h, n);
    else if (!strcmp(argv[1], "sharedlist"))
        rc = sharedlist(h, n);
    else if (!strcmp(argv[1], "ownsk"))
        rc = ownsk(h, n);
    else if (!strcmp(argv[1], "bigvalue"))
        rc = bigvalue(h, n, 2);
    else if (!strcmp(argv[1], "bigsz"))
        rc = bigvalue(h, n, 1);
    else if (!strcmp(argv[1], "bigdword"))
        rc = bigvalue(h, n, 4);
    else if (!strcmp(argv[1], "selfloop") || !strcmp(argv[1], "cycle"))
        rc = loop(h, !strcmp(argv[1], "cycle"));
    else
        rc = fail(NULL, "unknown case");
    if (!rc && rt_regf_save_as(h, argv[2]))
        rc = fail(h, argv[2]);
    rt_regf_close(h);
    return rc;
}
