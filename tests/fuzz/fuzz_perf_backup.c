/* libFuzzer harness: the PerfStringBackup reader (model/perf_backup.c),
 * what `regtool restore`, `lodctr /R` and the psb: store read.
 *
 * What it reads is written back and read again: perf_backup.h promises
 * the writer writes what Windows does and the reader takes it, so the
 * second read must succeed and give the same bytes when written again.
 * Lookups by name and id must find every section read, and each
 * language must split into Counter and Help. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz.h"
#include "model/perf_backup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct rt_psb p;
    enum rt_psb_encoding enc;
    struct rt_psb_error err;
    if (rt_psb_parse(data, size, &p, &enc, &err) != 0) {
        FUZZ_ASSERT(err.message[0] != '\0');
        return 0;
    }
    for (size_t i = 0; i < p.n_services; i++) {
        const struct rt_psb_service *s =
            rt_psb_service_find(&p, p.services[i].name);
        FUZZ_ASSERT(s && !strcasecmp(s->name, p.services[i].name));
    }
    for (size_t i = 0; i < p.n_langs; i++) {
        FUZZ_ASSERT(rt_psb_language_find(&p, p.langs[i].id) != NULL);
        struct rt_name_table t = {0};
        FUZZ_ASSERT(rt_psb_split(&p.langs[i].strings, &t) == 0);
        struct rt_pair_list merged = {0};
        FUZZ_ASSERT(rt_psb_merge(&t, &merged) == 0);
        rt_pair_list_free(&merged);
        rt_name_table_free(&t);
    }

    uint8_t *out = NULL, *out2 = NULL;
    size_t len = 0, len2 = 0;
    if (rt_psb_write(&p, &out, &len) == 0) {
        struct rt_psb q;
        struct rt_psb_error err2;
        int r = rt_psb_parse(out, len, &q, NULL, &err2);
        if (r != 0)
            fprintf(stderr, "re-read: line %u: %s\n", err2.line,
                    err2.message);
        FUZZ_ASSERT(r == 0);
        FUZZ_ASSERT(q.n_services == p.n_services && q.n_langs == p.n_langs);
        for (size_t i = 0; i < p.n_langs; i++)
            FUZZ_ASSERT(rt_pair_list_equal(&q.langs[i].strings,
                                           &p.langs[i].strings));
        FUZZ_ASSERT(rt_psb_write(&q, &out2, &len2) == 0);
        FUZZ_ASSERT(len2 == len && memcmp(out, out2, len) == 0);
        free(out2);
        rt_psb_free(&q);
    }
    free(out);
    rt_psb_free(&p);
    return 0;
}
