/* libFuzzer harness: a hive file (lib/regf) opened from a memory buffer,
 * every key walked, every key's name, class, subkeys and values read (and
 * read again in place, piece by piece: the same bytes), each value found
 * again by its name, then the structural check over it all, as `regtool
 * hive check` runs it; a hive that checks clean is then written to (a big
 * value set, then spliced) and must still check clean. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "regf/regf.h"

/* Finding a value or subkey by name is linear in the key's list: doing it
 * for every entry made large hives quadratic and the harness slow, so
 * only the first few of each key are looked up by name. */
#define FIND_MAX 4

struct walk {
    struct rt_regf *h;
    size_t keys;
};

static void read_values(struct rt_regf *h, uint32_t key)
{
    uint32_t *vals = NULL;
    size_t n = 0;
    if (rt_regf_values(h, key, &vals, &n) != 0)
        return;
    for (size_t i = 0; i < n; i++) {
        char *name = NULL;
        uint32_t type;
        uint8_t *d = NULL;
        size_t len = 0;
        int rr = rt_regf_value_read(h, vals[i], &type, &d, &len);
        if (rr == 0)
            FUZZ_ASSERT(len == 0 || d != NULL);
        /* The data in place, piece by piece, is the data read, and where
         * reading fails so does this (or it gives the same bytes). */
        const uint8_t **piece = NULL;
        size_t *plen = NULL, np = 0, total = 0;
        if (rt_regf_value_pieces(h, vals[i], NULL, &piece, &plen, &np,
                                 &total) == 0) {
            FUZZ_ASSERT(rr == 0 && total == len);
            size_t at = 0;
            for (size_t k = 0; k < np; k++) {
                FUZZ_ASSERT(plen[k] <= len - at);
                FUZZ_ASSERT(memcmp(piece[k], d + at, plen[k]) == 0);
                at += plen[k];
            }
            FUZZ_ASSERT(at == len);
        }
        free(piece);
        free(plen);
        /* From a byte on (a value's end read without its start): the
         * pieces before it are NULL, those after it the same bytes. */
        size_t from = len ? (size_t)vals[i] % (len + 1) : 0;
        piece = NULL;
        plen = NULL;
        if (rr == 0 && rt_regf_value_pieces_from(h, vals[i], from, NULL, &piece,
                                                 &plen, &np, &total) == 0) {
            FUZZ_ASSERT(total == len);
            size_t at = 0;
            for (size_t k = 0; k < np; k++) {
                FUZZ_ASSERT(plen[k] <= len - at);
                if (!piece[k])
                    FUZZ_ASSERT(at + plen[k] <= from);
                else
                    FUZZ_ASSERT(memcmp(piece[k], d + at, plen[k]) == 0);
                at += plen[k];
            }
            FUZZ_ASSERT(at == len);
        }
        free(piece);
        free(plen);
        free(d);
        if (rt_regf_value_name(h, vals[i], &name) == 0) {
            uint32_t found;
            /* Found by its own name: this one, or an earlier value whose
             * name is equal but for case. */
            if (i < FIND_MAX &&
                rt_regf_value_find(h, key, name, &found) == 0) {
                d = NULL;
                if (rt_regf_get_value(h, key, name, &type, &d, &len) == 0)
                    free(d);
            }
            free(name);
        }
    }
    free(vals);
}

static int visit(void *ctx, uint32_t key, unsigned depth)
{
    struct walk *w = ctx;
    (void)depth;
    w->keys++;
    struct rt_regf_key_info info;
    if (rt_regf_key_info(w->h, key, &info) == 0)
        rt_regf_key_info_free(&info);
    char *cls = NULL;
    if (rt_regf_key_class(w->h, key, &cls) == 0)
        free(cls);
    read_values(w->h, key);
    uint32_t *subs = NULL;
    size_t n = 0;
    if (rt_regf_subkeys(w->h, key, &subs, &n) == 0) {
        for (size_t i = 0; i < n && i < FIND_MAX; i++) {
            /* Looked up by name from its parent, as a path is. */
            struct rt_regf_key_info si;
            if (rt_regf_key_info(w->h, subs[i], &si) == 0) {
                uint32_t k;
                if (!strchr(si.name, '\\'))
                    (void)rt_regf_lookup(w->h, key, si.name, &k);
                rt_regf_key_info_free(&si);
            }
        }
        free(subs);
    }
    return 0;
}

static void on_finding(void *ctx, enum rt_regf_severity sev, uint64_t off,
                       const char *msg)
{
    (void)ctx;
    (void)sev;
    (void)off;
    FUZZ_ASSERT(msg != NULL);
}

/* Prints what the check finds, for a failed property's report. */
static void print_finding(void *ctx, enum rt_regf_severity sev, uint64_t off,
                          const char *msg)
{
    (void)ctx;
    fprintf(stderr, "%s at 0x%llx: %s\n", sev ? "error" : "warning",
            (unsigned long long)off, msg);
}

/* A hive the check finds no error in is written as install writes one:
 * a value set, a big-data value (over one 16344-byte segment), a key
 * created with a value, a value and a key deleted. When every write
 * succeeds the result must still check without errors, in memory and
 * as the sealed image read back. */
static void write_phase(const uint8_t *data, size_t size)
{
    struct rt_regf *h = NULL;
    char err[256];
    if (rt_regf_open_memory(data, size, RT_REGF_WRITE | RT_REGF_FORCE, &h,
                            err, sizeof err) != 0)
        return;
    static uint8_t big[20000];
    memset(big, 'x', sizeof big);
    uint32_t root = rt_regf_root(h), k;
    const struct rt_regf_edit grow = {sizeof big - 2, 2, big, 20000};
    int ok = rt_regf_value_set(h, root, "FuzzValue", 1, "a\0b\0\0", 6) == 0 &&
             rt_regf_value_set(h, root, "FuzzBig", 3, big, sizeof big) == 0 &&
             rt_regf_value_splice(h, root, "FuzzBig", 3, sizeof big, &grow,
                                  1) == 0 &&
             rt_regf_key_create(h, root, "FuzzKey", &k) == 0 &&
             rt_regf_value_set(h, k, "", 4, "\1\0\0\0", 4) == 0 &&
             rt_regf_value_delete(h, root, "FuzzValue") == 0 &&
             rt_regf_key_delete(h, k, RT_REGF_RECURSIVE) == 0;
    if (ok) {
        int errors = rt_regf_check(h, on_finding, NULL);
        if (errors)
            rt_regf_check(h, print_finding, NULL);
        FUZZ_ASSERT(errors == 0);
        FUZZ_ASSERT(rt_regf_seal(h) == 0);
        const uint8_t *img;
        size_t len;
        rt_regf_image(h, &img, &len);
        struct rt_regf *h2 = NULL;
        FUZZ_ASSERT(rt_regf_open_memory(img, len, 0, &h2, err,
                                        sizeof err) == 0);
        FUZZ_ASSERT(rt_regf_check(h2, on_finding, NULL) == 0);
        rt_regf_close(h2);
    }
    rt_regf_close(h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_regf *h = NULL;
    char err[256];
    if (rt_regf_open_memory(data, size, 0, &h, err, sizeof err) != 0) {
        FUZZ_ASSERT(h == NULL);
        return 0;
    }
    struct rt_regf_info info;
    rt_regf_get_info(h, &info);
    struct walk w = {.h = h};
    (void)rt_regf_walk(h, rt_regf_root(h), visit, &w);
    (void)rt_regf_lookup(h, rt_regf_root(h),
                         "Microsoft\\Windows NT\\CurrentVersion\\Perflib",
                         &(uint32_t){0});
    int errors = rt_regf_check(h, on_finding, NULL);
    rt_regf_close(h);
    if (errors == 0)
        write_phase(data, size);
    return 0;
}
