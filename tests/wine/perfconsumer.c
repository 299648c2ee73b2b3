/* perfconsumer: reads one object of the performance data the way a
 * monitoring tool does, and prints it with its names and help text.
 *
 *   perfconsumer LANG OBJECT [QUERY]
 *
 * OBJECT is the object's name in the Counter table of LANG (a subkey of
 * Perflib), or its index. QUERY is the value name asked of HKEY_PERFORMANCE_DATA: the
 * object's index when not given, or "Global", "Costly", a list of
 * indices. The buffer grows on ERROR_MORE_DATA. The data block is walked
 * (PERF_DATA_BLOCK, PERF_OBJECT_TYPE, PERF_COUNTER_DEFINITION,
 * PERF_INSTANCE_DEFINITION) with every length checked against the block.
 *
 * Names and help come from Perflib\LANG's Counter and Help values. Wine 8
 * serves Perflib\009 and HKEY_PERFORMANCE_TEXT (and the "Counter" and
 * "Help" queries of HKEY_PERFORMANCE_DATA) from a fixed stub table
 * (indices 1, 1846, 1847) that nothing can write, so the names a provider
 * installs are only found in the languages Wine lets be written, such as
 * CurrentLanguage: LANG names the one to read.
 *
 * Text is printed in UTF-8 whatever the console's code page, so that
 * names in any language can be compared by the test.
 *
 * Exit 0 when the object was found and every title index resolved, 1 when
 * the name is not in the table or the object is not in the data, 2 on
 * usage or a malformed block, 3 on a registry error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <windows.h>
#include <winperf.h>

#define PERFLIB L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib\\"

struct table {
    DWORD max;
    const WCHAR **text;                 /* by index, NULL when absent */
    WCHAR *blob;
};

/* Reads Perflib\LANG's NAME (REG_MULTI_SZ of index, text pairs). */
static LONG read_table(const WCHAR *lang, const WCHAR *name, struct table *t)
{
    WCHAR path[512];
    swprintf(path, 512, L"%ls%ls", PERFLIB, lang);
    HKEY k;
    LONG r = RegOpenKeyExW(HKEY_LOCAL_MACHINE, path, 0, KEY_READ, &k);
    if (r != ERROR_SUCCESS)
        return r;
    DWORD size = 0, type = 0;
    r = RegQueryValueExW(k, name, NULL, &type, NULL, &size);
    if (r == ERROR_SUCCESS) {
        t->blob = calloc(size / sizeof(WCHAR) + 2, sizeof(WCHAR));
        r = t->blob ? RegQueryValueExW(k, name, NULL, &type, (BYTE *)t->blob,
                                       &size)
                    : ERROR_OUTOFMEMORY;
    }
    RegCloseKey(k);
    if (r != ERROR_SUCCESS)
        return r;
    t->max = 0;
    for (WCHAR *p = t->blob; *p; p += wcslen(p) + 1) {
        DWORD i = wcstoul(p, NULL, 10);
        p += wcslen(p) + 1;
        if (!*p)
            break;
        if (i > t->max)
            t->max = i;
    }
    t->text = calloc(t->max + 1, sizeof *t->text);
    if (!t->text)
        return ERROR_OUTOFMEMORY;
    for (WCHAR *p = t->blob; *p; p += wcslen(p) + 1) {
        DWORD i = wcstoul(p, NULL, 10);
        p += wcslen(p) + 1;
        if (!*p)
            break;
        t->text[i] = p;
    }
    return ERROR_SUCCESS;
}

static const WCHAR *lookup(const struct table *t, DWORD i)
{
    return i <= t->max ? t->text[i] : NULL;
}

static int unresolved;

/* N characters of W (all of it when N < 0) in UTF-8, in one of a few
 * static buffers: enough for the arguments of one printf. */
static const char *u8n(const WCHAR *w, int n)
{
    static char buf[4][4096];
    static int next;
    char *b = buf[next++ % 4];
    int len = WideCharToMultiByte(CP_UTF8, 0, w, n, b, (int)sizeof buf[0] - 1,
                                  NULL, NULL);
    b[len > 0 ? len : 0] = '\0';
    if (n < 0 && len > 0)
        b[len - 1] = '\0';
    return b;
}

static const char *u8(const WCHAR *w)
{
    return u8n(w, -1);
}

static void print_title(const char *what, DWORD name, DWORD help,
                        const struct table *names, const struct table *helps)
{
    const WCHAR *n = lookup(names, name), *h = lookup(helps, help);
    if (!n || !h)
        unresolved = 1;
    printf("%s %lu \"%s\" help %lu \"%s\"\n", what, (unsigned long)name,
           u8(n ? n : L"(unresolved)"), (unsigned long)help,
           u8(h ? h : L"(unresolved)"));
}

/* Whether [off, off+len) lies within [0, size). */
static int within(DWORD size, DWORD off, DWORD len)
{
    return off <= size && len <= size - off;
}

static int bad(const char *what)
{
    fprintf(stderr, "perfconsumer: malformed data: %s\n", what);
    return 2;
}

static void print_values(const PERF_COUNTER_DEFINITION *d, DWORD n,
                         const BYTE *block, DWORD block_len,
                         const struct table *names)
{
    for (DWORD c = 0; c < n; c++) {
        const WCHAR *cn = lookup(names, d[c].CounterNameTitleIndex);
        if (!within(block_len, d[c].CounterOffset, d[c].CounterSize) ||
            (d[c].CounterSize != 4 && d[c].CounterSize != 8)) {
            printf("  %s = (out of the counter block)\n", u8(cn ? cn : L"?"));
            continue;
        }
        unsigned long long v = 0;
        if (d[c].CounterSize == 4) {
            DWORD x;
            memcpy(&x, block + d[c].CounterOffset, 4);
            v = x;
        } else {
            memcpy(&v, block + d[c].CounterOffset, 8);
        }
        printf("  %s = %llu\n", u8(cn ? cn : L"(unresolved)"), v);
    }
}

/* Whether an object header that fits at OFF of BUF (SIZE bytes) has
 * consistent lengths. */
static int object_ok(const BYTE *buf, DWORD size, DWORD off)
{
    if ((off & 7) != 0 || !within(size, off, sizeof(PERF_OBJECT_TYPE)))
        return 0;
    const PERF_OBJECT_TYPE *ot = (const PERF_OBJECT_TYPE *)(buf + off);
    return ot->TotalByteLength >= ot->DefinitionLength &&
           within(size, off, ot->TotalByteLength) &&
           ot->HeaderLength >= sizeof *ot &&
           ot->DefinitionLength >= ot->HeaderLength &&
           (ot->DefinitionLength - ot->HeaderLength) /
                   sizeof(PERF_COUNTER_DEFINITION) >= ot->NumCounters;
}

/* BUF holds SIZE bytes as returned, CAP bytes in all. */
static int walk(const BYTE *buf, DWORD size, DWORD cap, DWORD want,
                const struct table *names, const struct table *helps)
{
    if (size < sizeof(PERF_DATA_BLOCK))
        return bad("shorter than PERF_DATA_BLOCK");
    const PERF_DATA_BLOCK *pdb = (const PERF_DATA_BLOCK *)buf;
    if (memcmp(pdb->Signature, L"PERF", 8) != 0)
        return bad("no PERF signature");
    if (pdb->TotalByteLength > size || pdb->HeaderLength > pdb->TotalByteLength)
        return bad("PERF_DATA_BLOCK lengths");
    size = pdb->TotalByteLength;
    DWORD off = pdb->HeaderLength, found = 0;
    /* Wine 8's kernelbase (query_perf_data) hands the providers the
     * buffer at sizeof(PERF_DATA_BLOCK) + HeaderLength instead of at
     * HeaderLength, while TotalByteLength counts from HeaderLength: the
     * objects lie sizeof(PERF_DATA_BLOCK) bytes further than the block
     * says, and their last bytes past the size returned. Read them there
     * (within the buffer's capacity) when nothing valid is at
     * HeaderLength. */
    if (pdb->NumObjectTypes > 0 && !object_ok(buf, size, off) &&
        object_ok(buf, cap, off + sizeof(PERF_DATA_BLOCK))) {
        printf("note: objects at HeaderLength + %u (Wine's offset)\n",
               (unsigned)sizeof(PERF_DATA_BLOCK));
        off += sizeof(PERF_DATA_BLOCK);
        size = cap;
    }
    printf("data block: %lu objects\n", (unsigned long)pdb->NumObjectTypes);
    for (DWORD o = 0; o < pdb->NumObjectTypes; o++) {
        if (!object_ok(buf, size, off))
            return bad("object lengths or alignment");
        const PERF_OBJECT_TYPE *ot = (const PERF_OBJECT_TYPE *)(buf + off);
        if (ot->ObjectNameTitleIndex != want) {
            off += ot->TotalByteLength;
            continue;
        }
        found = 1;
        const BYTE *obj = buf + off;
        DWORD olen = ot->TotalByteLength;
        print_title("object", ot->ObjectNameTitleIndex,
                    ot->ObjectHelpTitleIndex, names, helps);
        const PERF_COUNTER_DEFINITION *d =
            (const PERF_COUNTER_DEFINITION *)(obj + ot->HeaderLength);
        for (DWORD c = 0; c < ot->NumCounters; c++)
            print_title("counter", d[c].CounterNameTitleIndex,
                        d[c].CounterHelpTitleIndex, names, helps);
        DWORD at = ot->DefinitionLength;
        if (ot->NumInstances == PERF_NO_INSTANCES) {
            if (!within(olen, at, sizeof(PERF_COUNTER_BLOCK)))
                return bad("counter block past the object");
            const PERF_COUNTER_BLOCK *cb = (const PERF_COUNTER_BLOCK *)(obj + at);
            if (!within(olen, at, cb->ByteLength))
                return bad("counter block length");
            printf("values:\n");
            print_values(d, ot->NumCounters, obj + at, cb->ByteLength, names);
        } else {
            for (LONG i = 0; i < ot->NumInstances; i++) {
                if (!within(olen, at, sizeof(PERF_INSTANCE_DEFINITION)))
                    return bad("instance past the object");
                const PERF_INSTANCE_DEFINITION *in =
                    (const PERF_INSTANCE_DEFINITION *)(obj + at);
                if (!within(olen, at, in->ByteLength) ||
                    !within(in->ByteLength, in->NameOffset, in->NameLength) ||
                    in->NameLength < sizeof(WCHAR) || (in->NameLength & 1))
                    return bad("instance lengths");
                const WCHAR *nm = (const WCHAR *)((const BYTE *)in + in->NameOffset);
                int nlen = (int)(in->NameLength / sizeof(WCHAR)) - 1;
                at += in->ByteLength;
                if (!within(olen, at, sizeof(PERF_COUNTER_BLOCK)))
                    return bad("instance counter block past the object");
                const PERF_COUNTER_BLOCK *cb = (const PERF_COUNTER_BLOCK *)(obj + at);
                if (!within(olen, at, cb->ByteLength))
                    return bad("instance counter block length");
                printf("instance \"%s\":\n", nlen > 0 ? u8n(nm, nlen) : "");
                print_values(d, ot->NumCounters, obj + at, cb->ByteLength, names);
                at += cb->ByteLength;
            }
        }
        off += ot->TotalByteLength;
    }
    return found ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4) {
        fprintf(stderr, "usage: perfconsumer LANG OBJECT [QUERY]\n");
        return 2;
    }
    WCHAR lang[64], object[256], query[256];
    MultiByteToWideChar(CP_UTF8, 0, argv[1], -1, lang, 64);
    MultiByteToWideChar(CP_UTF8, 0, argv[2], -1, object, 256);
    struct table names = {0}, helps = {0};
    LONG r = read_table(lang, L"Counter", &names);
    if (r == ERROR_SUCCESS)
        r = read_table(lang, L"Help", &helps);
    if (r != ERROR_SUCCESS) {
        fprintf(stderr, "perfconsumer: Perflib\\%s tables: error %ld\n",
                argv[1], (long)r);
        return 3;
    }
    /* OBJECT may be an index: the data is then read even when the
     * tables no longer name it. */
    char *end;
    DWORD want = (DWORD)strtoul(argv[2], &end, 10);
    if (*end)
        want = 0;
    for (DWORD i = 0; !want && i <= names.max; i++)
        if (names.text[i] && !_wcsicmp(names.text[i], object) && (i & 1) == 0) {
            want = i;
            break;
        }
    if (!want) {
        printf("\"%s\": not in the Counter table of %s\n", argv[2], argv[1]);
        return 1;
    }
    if (argc == 4)
        MultiByteToWideChar(CP_UTF8, 0, argv[3], -1, query, 256);
    else
        swprintf(query, 256, L"%lu", (unsigned long)want);
    printf("query \"%s\"\n", u8(query));

    DWORD cap = 256, size;
    BYTE *buf = NULL;
    int tries = 0;
    for (;;) {
        /* Wine 8 lets providers write up to sizeof(PERF_DATA_BLOCK)
         * bytes past the size given (see walk): that much is spare. */
        BYTE *nb = realloc(buf, cap + sizeof(PERF_DATA_BLOCK));
        if (!nb)
            return 3;
        buf = nb;
        size = cap;
        r = RegQueryValueExW(HKEY_PERFORMANCE_DATA, query, NULL, NULL, buf,
                             &size);
        if (r != ERROR_MORE_DATA)
            break;
        tries++;
        /* Windows may say how much it needs; Wine says 0: double. */
        cap = size > cap ? size : cap * 2;
        if (cap > (64u << 20))
            break;
    }
    RegCloseKey(HKEY_PERFORMANCE_DATA);
    if (r != ERROR_SUCCESS) {
        fprintf(stderr, "perfconsumer: HKEY_PERFORMANCE_DATA \"%s\": error %ld\n",
                argc == 4 ? argv[3] : "(index)", (long)r);
        return 3;
    }
    printf("buffer grown %d times\n", tries);
    int rc = walk(buf, size, cap, want, &names, &helps);
    if (rc == 1)
        printf("object %lu: not in the data\n", (unsigned long)want);
    if (rc == 0 && unresolved)
        rc = 1;
    return rc;
}
