/* libFuzzer harness: the .reg reader (model/reg_file.c), what the reg:
 * store, `restore` of a .reg backup and `perfstats` read.
 *
 * Input: one byte choosing the REGEDIT4 code page (the default 1252, or
 * 1251, or 932: a multi-byte one), then the file. What is read is written
 * back; reg_file.h promises that what regtool wrote reads back into the
 * same entries and writes the same bytes again, so that is asserted. The
 * file is also applied to a tree, read value by value into another (the
 * two the same), and the tree written as a file reads back into it, as
 * the reg: store does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/reg_file.h"
#include "model/regtree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const codepages[] = {NULL, "1251", "932"};
    if (size < 1)
        return 0;
    const char *cp = codepages[data[0] % 3];
    data++;
    size--;
    (void)rt_reg_sniff(data, size);

    struct rt_reg_file f;
    struct rt_reg_error e;
    if (rt_reg_parse(data, size, cp, &f, &e) != 0) {
        FUZZ_ASSERT(e.message[0] != '\0');
        return 0;
    }
    uint8_t *out = NULL;
    size_t len = 0;
    if (rt_reg_write(&f, cp, &out, &len, &e) == 0) {
        struct rt_reg_file g;
        struct rt_reg_error e2;
        int r = rt_reg_parse(out, len, cp, &g, &e2);
        if (r != 0)
            fprintf(stderr, "re-read: line %u: %s\n", e2.line, e2.message);
        FUZZ_ASSERT(r == 0);
        FUZZ_ASSERT(g.n_keys == f.n_keys && g.format == f.format);
        uint8_t *out2 = NULL;
        size_t len2 = 0;
        FUZZ_ASSERT(rt_reg_write(&g, cp, &out2, &len2, &e2) == 0);
        FUZZ_ASSERT(len2 == len && memcmp(out, out2, len) == 0);
        free(out2);
        rt_reg_file_free(&g);
        free(out);
    }

    struct rt_tree_key *root = rt_tree_new("");
    FUZZ_ASSERT(root != NULL);
    FUZZ_ASSERT(rt_reg_apply(&f, root) == 0);
    char *applied = rt_tree_dump(root);
    FUZZ_ASSERT(applied != NULL);
    /* Read value by value into a tree (the reg: store's and restore's
     * way), the same tree. */
    struct rt_tree_key *read = rt_tree_new("");
    FUZZ_ASSERT(read != NULL);
    FUZZ_ASSERT(rt_reg_parse_tree(data, size, cp, read, &e) == 0);
    char *got = rt_tree_dump(read);
    FUZZ_ASSERT(got != NULL && !strcmp(got, applied));
    free(got);
    rt_tree_free(read);
    /* The tree written as a file (a reg: store's write) reads back into
     * the same tree: nothing it held is lost, a root key's own values
     * included. */
    struct rt_reg_file t;
    FUZZ_ASSERT(rt_reg_from_tree(root, f.format, &t) == 0);
    out = NULL;
    int wrote = rt_reg_write(&t, cp, &out, &len, &e);
    /* Written straight from the tree, the same bytes or the same
     * refusal. */
    uint8_t *direct = NULL;
    size_t direct_len = 0;
    FUZZ_ASSERT(rt_reg_write_tree(root, f.format, cp, 0, &direct, &direct_len,
                                  &e) == wrote);
    FUZZ_ASSERT(wrote != 0 ||
                (direct_len == len && !memcmp(direct, out, len)));
    free(direct);
    if (wrote == 0) {
        struct rt_tree_key *back = rt_tree_new("");
        FUZZ_ASSERT(back != NULL);
        FUZZ_ASSERT(rt_reg_parse_tree(out, len, cp, back, &e) == 0);
        got = rt_tree_dump(back);
        FUZZ_ASSERT(got != NULL && !strcmp(got, applied));
        free(got);
        rt_tree_free(back);
        free(out);
    }
    rt_reg_file_free(&t);
    free(applied);
    rt_tree_free(root);
    rt_reg_file_free(&f);
    return 0;
}
