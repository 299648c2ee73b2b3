/* mkregkeys: plants the keys of tests/cli/hostile_regkeys.sh in a hive
 * `regtool init` made, with regtool's own hive reader and writer (linked
 * from libregtool.a), patching the key node bytes no writer sets:
 *
 *   mkregkeys HIVE link PARENT NAME TARGET
 *       NAME under the key PARENT (a path below the root) as a symbolic
 *       link key: flag KEY_SYM_LINK, value SymbolicLinkValue (REG_LINK)
 *       TARGET
 *   mkregkeys HIVE twin PARENT NAME LIBRARY
 *       a second key of the name NAME but for case (NAME with its letters'
 *       case swapped) beside PARENT\NAME, with a Performance key whose
 *       Library is LIBRARY: created under a placeholder name of the same
 *       length that sorts right after NAME, then its name bytes
 *       rewritten and its subkey list entry
 *       given NAME's hash, as a hand-made hive would hold it
 * Exit 0 done, 1 on any failure (with the reader's or writer's message). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"
#include "regf/regf.h"
#include "regf/regf_internal.h"

static int fail(struct rt_regf *h, const char *what)
{
    fprintf(stderr, "mkregkeys: %s: %s\n", what, h ? rt_regf_errmsg(h) : "");
    return 1;
}

static int text(struct rt_regf *h, uint32_t key, const char *name,
                uint32_t type, const char *s, int terminated)
{
    uint8_t *u;
    size_t n, bad;
    if (rt_utf8_to_utf16le(s, strlen(s) + (terminated ? 1 : 0), &u, &n, &bad))
        return -1;
    int rc = rt_regf_value_set(h, key, name, type, u, n);
    free(u);
    return rc;
}

/* The lh entry of CHILD in PARENT's subkey list (a single leaf). */
static uint8_t *lh_entry(struct rt_regf *h, uint32_t parent, uint32_t child)
{
    uint8_t *nk, *list;
    uint32_t len, llen;
    if (regf_nk(h, parent, &nk, &len) ||
        regf_cell(h, regf_le32(nk + NK_SUBLIST), "subkey list", &list, &llen) ||
        memcmp(list, "lh", 2))
        return NULL;
    uint16_t n = (uint16_t)(list[2] | list[3] << 8);
    for (uint16_t i = 0; i < n && 4u + 8u * i + 8u <= llen; i++)
        if (regf_le32(list + 4 + 8 * i) == child)
            return list + 4 + 8 * i;
    return NULL;
}

int main(int argc, char **argv)
{
    char err[256];
    struct rt_regf *h;
    uint32_t parent, key, perf;
    if (argc != 6 || (strcmp(argv[2], "link") && strcmp(argv[2], "twin"))) {
        fprintf(stderr, "usage: mkregkeys HIVE link|twin PARENT NAME ARG\n");
        return 1;
    }
    if (rt_regf_open(argv[1], RT_REGF_WRITE, &h, err, sizeof err)) {
        fprintf(stderr, "mkregkeys: %s\n", err);
        return 1;
    }
    if (rt_regf_lookup(h, rt_regf_root(h), argv[3], &parent))
        return fail(h, argv[3]);
    const char *name = argv[4];
    if (!strcmp(argv[2], "link")) {
        uint8_t *nk;
        uint32_t len;
        if (rt_regf_key_create(h, parent, name, &key) ||
            text(h, key, "SymbolicLinkValue", RT_REG_LINK, argv[5], 0) ||
            regf_nk(h, key, &nk, &len))
            return fail(h, name);
        uint16_t flags = regf_le16(nk + NK_FLAGS) | RT_REGF_KEY_SYM_LINK;
        nk[NK_FLAGS] = flags & 0xFF;
        nk[NK_FLAGS + 1] = flags >> 8;
    } else {
        size_t n = strlen(name);
        char *swapped = malloc(n + 1), *placeholder = malloc(n + 1);
        uint32_t twin;
        if (!swapped || !placeholder)
            return fail(NULL, "out of memory");
        for (size_t i = 0; i <= n; i++) {
            unsigned char c = (unsigned char)name[i];
            swapped[i] = (char)(isupper(c) ? tolower(c) : toupper(c));
            /* NAME's next name: the list entry lands right after NAME's,
             * where the twin's sorts. */
            placeholder[i] = i + 1 < n ? (char)toupper(c)
                             : i < n   ? (char)(toupper(c) + 1)
                                       : '\0';
        }
        if (rt_regf_lookup(h, parent, name, &twin) ||
            rt_regf_key_create(h, parent, placeholder, &key) ||
            rt_regf_key_create(h, key, "Performance", &perf) ||
            text(h, perf, "Library", RT_REG_EXPAND_SZ, argv[5], 1) ||
            text(h, perf, "Open", RT_REG_SZ, "Open", 1) ||
            text(h, perf, "Collect", RT_REG_SZ, "Collect", 1) ||
            text(h, perf, "Close", RT_REG_SZ, "Close", 1))
            return fail(h, placeholder);
        uint8_t *nk, *mine = lh_entry(h, parent, key);
        const uint8_t *theirs = lh_entry(h, parent, twin);
        uint32_t len;
        if (!mine || !theirs || regf_nk(h, key, &nk, &len) ||
            !(regf_le16(nk + NK_FLAGS) & KEY_COMP_NAME) ||
            regf_le16(nk + NK_NAMELEN) != n)
            return fail(h, "the placeholder's key node or list entry");
        memcpy(nk + NK_NAME, swapped, n);
        memcpy(mine + 4, theirs + 4, 4);
        free(swapped);
        free(placeholder);
    }
    if (rt_regf_save_as(h, argv[1]))
        return fail(h, argv[1]);
    rt_regf_close(h);
    return 0;
}
