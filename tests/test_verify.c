/* verify's two halves without a running system: the performance data
 * walk (model/perf_data.h) on blocks built here byte by byte, clean and
 * broken, and the findings (engine/verify.h) against the corruption
 * generator's clean database, where provider ProvA owns names 3992-4000
 * and help 3993-4001 with Object List "3992". */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "corrupt.h"
#include "finding_message.h"
#include "engine/verify.h"
#include "model/perf_data.h"

#define ALLOC_HOOK_MALLOC
#include "alloc_hook.h"

struct block {
    uint8_t b[4096];
    size_t n;
};

static void put32(uint8_t *p, uint32_t x)
{
    p[0] = (uint8_t)x;
    p[1] = (uint8_t)(x >> 8);
    p[2] = (uint8_t)(x >> 16);
    p[3] = (uint8_t)(x >> 24);
}

/* Object options: what a provider puts in its data. */
struct obj {
    uint32_t name, help;          /* the object's title indices */
    uint32_t counter_base;        /* counter k: name base+2k, help +1 */
    int counters;
    int instances;                /* -1: a single counter block */
    uint32_t pad;                 /* bytes added to TotalByteLength */
};

static size_t put_object(uint8_t *p, const struct obj *o)
{
    size_t def = RT_PERF_OBJECT_SIZE +
                 (size_t)o->counters * RT_PERF_COUNTER_DEF_SIZE;
    size_t at = def;
    if (o->instances < 0) {
        put32(p + at, 16);                        /* counter block */
        at += 16;
    } else {
        for (int i = 0; i < o->instances; i++) {
            put32(p + at, 32);                    /* definition + name */
            put32(p + at + 16, RT_PERF_INSTANCE_SIZE);
            put32(p + at + 20, 4);                /* "a" or "b" and NUL */
            p[at + RT_PERF_INSTANCE_SIZE] = (uint8_t)('a' + i);
            at += 32;
            put32(p + at, 16);
            at += 16;
        }
    }
    size_t total = at + o->pad;
    put32(p, (uint32_t)total);
    put32(p + 4, (uint32_t)def);
    put32(p + 8, RT_PERF_OBJECT_SIZE);
    put32(p + 12, o->name);
    put32(p + 20, o->help);
    put32(p + 32, (uint32_t)o->counters);
    put32(p + 40, (uint32_t)o->instances);
    for (int k = 0; k < o->counters; k++) {
        uint8_t *d = p + RT_PERF_OBJECT_SIZE + k * RT_PERF_COUNTER_DEF_SIZE;
        put32(d, RT_PERF_COUNTER_DEF_SIZE);
        put32(d + 4, o->counter_base + 2 * (uint32_t)k);
        put32(d + 12, o->counter_base + 2 * (uint32_t)k + 1);
        put32(d + 32, 8);
        put32(d + 36, 8);
    }
    return total;
}

/* A data block of N objects; WINE puts them one PERF_DATA_BLOCK further
 * than HeaderLength, as Wine 8 does. */
static void build(struct block *b, const struct obj *o, int n, int wine)
{
    memset(b, 0, sizeof *b);
    memcpy(b->b, "P\0E\0R\0F\0", 8);
    size_t at = RT_PERF_DATA_BLOCK_SIZE + (wine ? RT_PERF_DATA_BLOCK_SIZE : 0);
    for (int i = 0; i < n; i++)
        at += put_object(b->b + at, &o[i]);
    b->n = at;
    put32(b->b + 20, (uint32_t)(wine ? at - RT_PERF_DATA_BLOCK_SIZE : at));
    put32(b->b + 24, RT_PERF_DATA_BLOCK_SIZE);
    put32(b->b + 28, (uint32_t)n);
}

/* ProvA's data as a correct provider gives it: 3992 with two counters
 * (3994, 3996) and two instances. */
static const struct obj good = {3992, 3993, 3994, 2, 2, 0};

static void run_verify_on(struct rt_store *s, const struct block *b,
                          size_t len, int more_data, struct rt_findings *f)
{
    struct rt_database db;
    struct rt_error e;
    static const struct rt_db_load_options lean = {RT_DB_TABLES_ALL, NULL, 0,
                                                   0, NULL};
    assert_int_equal(rt_database_load_with(s, &db, &lean, &e), 0);
    struct rt_perf_data d;
    assert_int_equal(rt_perf_data_parse(b->b, len, sizeof b->b, &d), 0);
    struct rt_verify_input in = {"ProvA", "Global", &d, more_data};
    memset(f, 0, sizeof *f);
    assert_int_equal(rt_verify(&db, &in, f), 0);
    rt_findings_sort(f);
    rt_perf_data_free(&d);
    rt_database_free(&db);
    s->ops->close(s);
}

static void run_verify(const struct block *b, size_t len, int more_data,
                       struct rt_findings *f)
{
    run_verify_on(cg_clean(), b, len, more_data, f);
}

static const struct rt_finding *find(const struct rt_findings *f,
                                     const char *id)
{
    for (size_t i = 0; i < f->n; i++)
        if (!strcmp(rt_finding_id(&f->v[i]), id))
            return &f->v[i];
    return NULL;
}

static int has_index(const struct rt_finding *x, uint32_t index)
{
    for (size_t i = 0; i < rt_finding_n_indices(x); i++)
        if (rt_finding_index(x, i) == index)
            return 1;
    return 0;
}

static void walks_a_clean_block(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 0);
    struct rt_perf_data d;
    assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
    assert_null(d.problem);
    assert_int_equal(d.wine_offset, 0);
    assert_int_equal(d.n_objects, 1);
    const struct rt_perf_object *x = &d.objects[0];
    assert_null(x->problem);
    assert_int_equal(x->name_index, 3992);
    assert_int_equal(x->n_counters, 2);
    assert_int_equal(x->counters[1].name_index, 3996);
    assert_int_equal(x->counters[1].help_index, 3997);
    assert_int_equal(x->n_instances, 2);
    assert_string_equal(x->instances[0].name, "a");
    assert_string_equal(x->instances[1].name, "b");
    rt_perf_data_free(&d);
}

static void finds_objects_at_wines_offset(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 1);
    struct rt_perf_data d;
    /* TotalByteLength counts from HeaderLength: the objects' last bytes
     * lie past it, within the buffer. */
    size_t len = b.n - RT_PERF_DATA_BLOCK_SIZE;
    assert_int_equal(rt_perf_data_parse(b.b, len, b.n, &d), 0);
    assert_null(d.problem);
    assert_int_equal(d.wine_offset, 1);
    assert_int_equal(d.n_objects, 1);
    assert_int_equal(d.objects[0].name_index, 3992);
    rt_perf_data_free(&d);
}

/* Objects where they belong whose second begins exactly one
 * PERF_DATA_BLOCK past the first (an object of 88 bytes): the block is
 * walked from HeaderLength, not taken for Wine's, whose objects begin
 * there too. */
static void an_object_a_block_long_is_no_wine_offset(void **state)
{
    (void)state;
    const struct obj o[2] = {{3990, 3991, 0, 0, -1, 8}, good};
    struct block b;
    build(&b, o, 2, 0);
    struct rt_perf_data d;
    assert_int_equal(rt_perf_data_parse(b.b, b.n, sizeof b.b, &d), 0);
    assert_null(d.problem);
    assert_int_equal(d.wine_offset, 0);
    assert_int_equal(d.n_objects, 2);
    assert_int_equal(d.objects[0].total_length, RT_PERF_DATA_BLOCK_SIZE);
    assert_int_equal(d.objects[1].name_index, 3992);
    rt_perf_data_free(&d);
}

static void clean_provider_verifies_clean(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 0);
    struct rt_findings f;
    run_verify(&b, b.n, 1, &f);
    assert_int_equal(f.errors, 0);
    assert_int_equal(f.warnings, 0);
    rt_findings_free(&f);
}

/* A provider whose data uses its whole range: its last counter 4000 is
 * ProvA's Last Counter and that counter's help 4001 its Last Help, one
 * above. Both lie in the provider's own range: verify says nothing (an
 * error here would fail a correct provider, help bounded by the names'
 * range). `good` uses only 3994..3997 and other tests count its
 * counters, so this object is its own. */
static void last_help_index_lies_in_the_range(void **state)
{
    (void)state;
    static const struct obj whole = {3992, 3993, 3994, 4, 2, 0};
    struct block b;
    build(&b, &whole, 1, 0);
    struct rt_findings f;
    run_verify(&b, b.n, 1, &f);
    assert_null(find(&f, "verify-index-outside-range"));
    assert_int_equal(f.errors, 0);
    assert_int_equal(f.warnings, 0);
    rt_findings_free(&f);
}

static void each_mistake_gives_its_finding(void **state)
{
    (void)state;
    static const struct {
        struct obj o;
        const char *id;
        uint32_t evidence;
    } cases[] = {
        /* Transfer's length not a multiple of 8. */
        {{3992, 3993, 3994, 2, -1, 4}, "verify-misaligned", 3992},
        /* Names numbered from First Help. */
        {{3993, 3994, 3995, 2, -1, 0}, "verify-index-parity", 3993},
        /* A counter past the range. */
        {{3992, 3993, 4094, 1, -1, 0}, "verify-index-outside-range", 4094},
        /* An index the tables lack (3998 is ProvA's, but 4100 is not in
         * any table): unresolved in 009. */
        {{3992, 3993, 4100, 1, -1, 0}, "verify-index-unresolved", 4100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct block b;
        build(&b, &cases[i].o, 1, 0);
        struct rt_findings f;
        run_verify(&b, b.n, 1, &f);
        const struct rt_finding *x = find(&f, cases[i].id);
        if (!x)
            fail_msg("case %zu: no %s", i, cases[i].id);
        assert_int_equal(rt_finding_severity(x), RT_AUDIT_ERROR);
        assert_true(has_index(x, cases[i].evidence));
        rt_findings_free(&f);
    }
}

/* A language whose table holds only a few names, the provider's among
 * them (above Base Index), is checked like any other: Wine's fixed stub
 * is a table of a few names with nothing above Base Index, and only it
 * goes unchecked. Here 019 names 3992 and 3994 but not 3996. */
static void few_names_above_base_are_checked(void **state)
{
    (void)state;
    struct rt_pair_list l = {0};
    assert_int_equal(rt_pair_list_append(&l, 1, "1847"), 0);
    assert_int_equal(rt_pair_list_append(&l, 3992, "Объект"), 0);
    assert_int_equal(rt_pair_list_append(&l, 3994, "Счётчик"), 0);
    uint8_t *blob;
    size_t len;
    assert_int_equal(rt_pair_list_encode(&l, &blob, &len), 0);
    rt_pair_list_free(&l);
    struct rt_store *s = cg_clean();
    assert_int_equal(rt_store_mem_put_table(s, "019", RT_TABLE_COUNTER, blob,
                                            len), 0);
    free(blob);
    struct block b;
    build(&b, &good, 1, 0);
    struct rt_findings f;
    run_verify_on(s, &b, b.n, 1, &f);
    assert_null(find(&f, "verify-language-stub"));
    const struct rt_finding *x = find(&f, "verify-index-unresolved");
    assert_non_null(x);
    assert_true(has_index(x, 3996));
    assert_false(has_index(x, 3994));
    rt_findings_free(&f);
}

/* The misaligned finding names the lengths that can be wrong: an object
 * without instances has only its own, one with instances theirs too. */
static void misaligned_names_the_lengths_that_can_be_wrong(void **state)
{
    (void)state;
    static const struct {
        struct obj o;
        const char *says;
    } cases[] = {
        {{3992, 3993, 3994, 2, -1, 4}, "(object 164 bytes)"},
        {{3992, 3993, 3994, 2, 2, 4}, "(object 244 bytes, or an instance's)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct block b;
        build(&b, &cases[i].o, 1, 0);
        struct rt_findings f;
        run_verify(&b, b.n, 1, &f);
        const struct rt_finding *x = find(&f, "verify-misaligned");
        assert_non_null(x);
        const char *message = message_of(x);
        const char *end = strrchr(message, '(');
        if (!end || strcmp(end, cases[i].says))
            fail_msg("case %zu: \"%s\" does not end with \"%s\"", i,
                     message, cases[i].says);
        rt_findings_free(&f);
    }
}


/* One instance's counter block of a length not a multiple of 8 is enough,
 * the object's own length and the instance's definition aligned. */
static void misaligned_instance_block_alone(void **state)
{
    (void)state;
    static const struct obj o = {3992, 3993, 3994, 2, 2, 8};
    struct block b;
    build(&b, &o, 1, 0);
    /* The last instance's counter block: 16 bytes before the pad. */
    size_t block = b.n - 8 - 16;
    assert_int_equal(b.b[block], 16);
    put32(b.b + block, 20);
    struct rt_findings f;
    run_verify(&b, b.n, 1, &f);
    assert_non_null(find(&f, "verify-misaligned"));
    rt_findings_free(&f);
    /* Unpatched, the same data is aligned. */
    build(&b, &o, 1, 0);
    run_verify(&b, b.n, 1, &f);
    assert_null(find(&f, "verify-misaligned"));
    rt_findings_free(&f);
}
static void object_list_and_more_data(void **state)
{
    (void)state;
    /* A second object of ProvA (3998) that Object List ("3992") lacks. */
    struct obj two[2] = {good, {3998, 3999, 3994, 1, -1, 0}};
    struct block b;
    build(&b, two, 2, 0);
    struct rt_findings f;
    run_verify(&b, b.n, 0, &f);
    const struct rt_finding *x = find(&f, "verify-object-not-listed");
    assert_non_null(x);
    assert_int_equal(rt_finding_severity(x), RT_AUDIT_WARNING);
    assert_true(has_index(x, 3998));
    assert_false(has_index(x, 3992));
    assert_non_null(find(&f, "verify-more-data-ignored"));
    rt_findings_free(&f);

    /* No object of ProvA at all: its listed object is missing too. */
    struct obj other = {1848, 1849, 1850, 1, -1, 0};
    build(&b, &other, 1, 0);
    run_verify(&b, b.n, 1, &f);
    assert_non_null(find(&f, "verify-no-data"));
    rt_findings_free(&f);
}

static void broken_blocks_are_described(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 0);
    struct rt_perf_data d;
    /* Cut anywhere: described, never read past. */
    for (size_t len = 0; len < b.n; len++) {
        assert_int_equal(rt_perf_data_parse(b.b, len, len, &d), 0);
        assert_true(d.problem != NULL ||
                    (d.n_objects && d.objects[d.n_objects - 1].problem));
        rt_perf_data_free(&d);
    }
    /* An instance whose ByteLength runs past the object. */
    put32(b.b + RT_PERF_DATA_BLOCK_SIZE + RT_PERF_OBJECT_SIZE +
              2 * RT_PERF_COUNTER_DEF_SIZE, 4000);
    assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
    assert_non_null(d.objects[0].problem);
    rt_perf_data_free(&d);
    struct rt_findings f;
    run_verify(&b, b.n, 1, &f);
    assert_non_null(find(&f, "verify-data-malformed"));
    rt_findings_free(&f);
}

/* A counter block shorter than its own length field (0 to 3 bytes), an
 * instance's or an object's only one: the object's problem, never a
 * block read in part or the next instance begun inside it (planted set
 * 32: a length of 0 stopped the walk with no word). */
static void counter_block_shorter_than_its_length_field(void **state)
{
    (void)state;
    static const struct obj single = {3992, 3993, 3994, 2, -1, 0};
    const struct obj *shapes[] = {&good, &single};
    for (size_t s = 0; s < 2; s++)
        for (uint32_t len = 0; len < 4; len++) {
            struct block b;
            build(&b, shapes[s], 1, 0);
            size_t at = RT_PERF_DATA_BLOCK_SIZE + RT_PERF_OBJECT_SIZE +
                        2 * RT_PERF_COUNTER_DEF_SIZE +
                        (shapes[s]->instances < 0 ? 0 : 32);
            put32(b.b + at, len);
            struct rt_perf_data d;
            assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
            assert_int_equal(d.n_objects, 1);
            assert_non_null(d.objects[0].problem);
            assert_string_equal(d.objects[0].problem,
                                "counter block length does not fit the "
                                "object");
            rt_perf_data_free(&d);
        }
}

/* An instance whose name is not UTF-16 (a lone low surrogate): the
 * object's problem says so, and the walk stops there. */
static void instance_name_not_utf16_is_the_objects_problem(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 0);
    size_t name = RT_PERF_DATA_BLOCK_SIZE + RT_PERF_OBJECT_SIZE +
                  2 * RT_PERF_COUNTER_DEF_SIZE + RT_PERF_INSTANCE_SIZE;
    b.b[name] = 0x00;
    b.b[name + 1] = 0xDC;
    struct rt_perf_data d;
    assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
    assert_null(d.problem);
    assert_int_equal(d.n_objects, 1);
    assert_non_null(d.objects[0].problem);
    assert_string_equal(d.objects[0].problem,
                        "an instance name is not valid UTF-16");
    rt_perf_data_free(&d);
}

#ifdef HAVE_ALLOC_HOOK
/* Memory running out while a block is read (each allocation the parse
 * makes, failed in turn) fails the parse: never a block read in part and
 * taken for what the provider gave. */
static void out_of_memory_fails_the_parse(void **state)
{
    (void)state;
    struct block b;
    build(&b, &good, 1, 0);
    struct rt_perf_data d;
    alloc_calls = 0;
    assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
    unsigned long calls = alloc_calls;
    rt_perf_data_free(&d);
    /* Under valgrind no call reaches the hook: nothing to fail. */
    if (calls == 0)
        skip();
    for (unsigned long k = 1; k <= calls; k++) {
        alloc_calls = 0;
        alloc_fail_at = k;
        int r = rt_perf_data_parse(b.b, b.n, b.n, &d);
        alloc_fail_at = 0;
        if (r != -1)
            fail_msg("allocation %lu of %lu failed: returned %d", k, calls,
                     r);
    }
}
#endif

static uint32_t rng_state = 22;
static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

static void mutated_blocks_never_crash(void **state)
{
    (void)state;
    struct obj two[2] = {good, {3998, 3999, 3994, 3, -1, 0}};
    struct block base;
    build(&base, two, 2, 0);
    for (int round = 0; round < 4000; round++) {
        struct block b = base;
        int flips = 1 + (int)(rng() % 4);
        for (int k = 0; k < flips; k++) {
            static const uint8_t vals[] = {0, 1, 4, 7, 8, 0x40, 0x80, 0xFF};
            b.b[rng() % b.n] = vals[rng() % sizeof vals];
        }
        struct rt_perf_data d;
        assert_int_equal(rt_perf_data_parse(b.b, b.n, b.n, &d), 0);
        for (size_t i = 0; i < d.n_objects; i++)
            assert_true(d.objects[i].offset + RT_PERF_OBJECT_SIZE <= b.n);
        rt_perf_data_free(&d);
    }
}

int main(void)
{
    (void)cg_build;   /* the damage generator is not needed here */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(walks_a_clean_block),
        cmocka_unit_test(finds_objects_at_wines_offset),
        cmocka_unit_test(an_object_a_block_long_is_no_wine_offset),
        cmocka_unit_test(clean_provider_verifies_clean),
        cmocka_unit_test(last_help_index_lies_in_the_range),
        cmocka_unit_test(few_names_above_base_are_checked),
        cmocka_unit_test(each_mistake_gives_its_finding),
        cmocka_unit_test(misaligned_names_the_lengths_that_can_be_wrong),
        cmocka_unit_test(misaligned_instance_block_alone),
        cmocka_unit_test(object_list_and_more_data),
        cmocka_unit_test(broken_blocks_are_described),
        cmocka_unit_test(counter_block_shorter_than_its_length_field),
        cmocka_unit_test(instance_name_not_utf16_is_the_objects_problem),
#ifdef HAVE_ALLOC_HOOK
        cmocka_unit_test(out_of_memory_fails_the_parse),
#endif
        cmocka_unit_test(mutated_blocks_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
