/* The store contract: behaviour every store backend must show. Included by
 * each backend's test file, which supplies a fixture: how to make a fresh
 * empty store, how to make the next apply fail midway, and how to take an
 * exact snapshot of everything the store holds. */
#ifndef TEST_STORE_CONTRACT_H
#define TEST_STORE_CONTRACT_H

#include <stdlib.h>
#include <string.h>
#include <uchar.h>

#include "store/store.h"

struct contract_fixture {
    struct rt_store *(*open_empty)(void *ctx);
    /* Makes the next apply of S stop after K low-level writes/changes. */
    void (*fail_after)(struct rt_store *s, size_t k, void *ctx);
    /* Everything the store holds, as a string to compare exactly. */
    char *(*snapshot)(struct rt_store *s, void *ctx);
    void *ctx;
    /* Every language must have both its tables before a commit (.dat
     * files): the base set gives 019 its tables too. */
    int languages_need_tables;
};

static struct contract_fixture contract;

static const char16_t contract_counter[] = u"1\0" "1847\0" "2\0System\0";
static const char16_t contract_help[] = u"3\0The System object.\0";

static void contract_value_eq(struct rt_store *s, const char *svc,
                              const char *name, const struct rt_value *want)
{
    struct rt_value got;
    int present = 0;
    struct rt_error e = {0};
    if (svc)
        assert_int_equal(s->ops->read_service(s, svc, name, &got, &present, &e),
                         0);
    else
        assert_int_equal(s->ops->read_perflib(s, name, &got, &present, &e), 0);
    assert_true(present);
    assert_int_equal(got.type, want->type);
    assert_int_equal(got.len, want->len);
    assert_memory_equal(got.data, want->data, want->len);
    rt_value_free(&got);
}

/* A change set creating a base database: 009 and 019 with tables, the
 * Perflib values, and one service with values of each type. */
static void contract_base_set(struct rt_change_set *cs)
{
    struct rt_value v;
    assert_int_equal(rt_change_set_create_language(cs, "009"), 0);
    assert_int_equal(rt_change_set_table(cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)contract_counter,
                                         sizeof contract_counter, NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(cs, "009", RT_TABLE_HELP,
                                         (const uint8_t *)contract_help,
                                         sizeof contract_help, NULL, NULL), 0);
    assert_int_equal(rt_change_set_create_language(cs, "019"), 0);
    /* A store keeping tables in .dat files refuses to commit while a
     * language lacks one of them. */
    if (contract.languages_need_tables) {
        assert_int_equal(rt_change_set_table(cs, "019", RT_TABLE_COUNTER,
                                             (const uint8_t *)contract_counter,
                                             sizeof contract_counter, NULL,
                                             NULL), 0);
        assert_int_equal(rt_change_set_table(cs, "019", RT_TABLE_HELP,
                                             (const uint8_t *)contract_help,
                                             sizeof contract_help, NULL,
                                             NULL), 0);
    }
    rt_value_from_dword(&v, 1847);
    assert_int_equal(rt_change_set_perflib(cs, "Last Counter", &v), 0);
    rt_value_free(&v);
    rt_value_from_dword(&v, 1848);
    assert_int_equal(rt_change_set_perflib(cs, "Last Help", &v), 0);
    rt_value_free(&v);
    assert_int_equal(rt_change_set_create_perf_key(cs, "Transfer"), 0);
    rt_value_from_string(&v, RT_REG_EXPAND_SZ, "%SystemRoot%\\perf.dll");
    assert_int_equal(rt_change_set_service(cs, "Transfer", "Library", &v), 0);
    rt_value_free(&v);
    rt_value_from_string(&v, RT_REG_SZ, "OpenPerf");
    assert_int_equal(rt_change_set_service(cs, "Transfer", "Open", &v), 0);
    rt_value_free(&v);
    static const uint8_t msz[] = {'a', 0, 0, 0, 'b', 0, 0, 0, 0, 0};
    struct rt_value m = {RT_REG_MULTI_SZ, (uint8_t *)msz, sizeof msz};
    assert_int_equal(rt_change_set_service(cs, "Transfer", "Depends", &m), 0);
    rt_value_from_dword(&v, 5000);
    assert_int_equal(rt_change_set_service(cs, "Transfer", "Open Timeout", &v),
                     0);
    rt_value_free(&v);
}

static void contract_empty_store_reads_nothing(void **state)
{
    (void)state;
    struct rt_store *s = contract.open_empty(contract.ctx);
    char **langs;
    size_t n;
    struct rt_error e = {0};
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 0);
    rt_strings_free(langs, n);
    struct rt_value v;
    int present = 1;
    assert_int_equal(s->ops->read_perflib(s, "Last Counter", &v, &present, &e),
                     0);
    assert_false(present);
    int exists = 1, perf = 1;
    assert_int_equal(s->ops->service_state(s, "Transfer", &exists, &perf, &e),
                     0);
    assert_false(exists);
    assert_false(perf);
    s->ops->close(s);
}

static void contract_reads_back_what_was_written(void **state)
{
    (void)state;
    struct rt_store *s = contract.open_empty(contract.ctx);
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);

    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 2);
    assert_string_equal(langs[0], "009");
    assert_string_equal(langs[1], "019");
    rt_strings_free(langs, n);

    struct rt_value v;
    int present = 0;
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    assert_int_equal(v.len, sizeof contract_counter);
    assert_memory_equal(v.data, contract_counter, v.len);
    rt_value_free(&v);
    assert_int_equal(s->ops->read_table(s, "019", RT_TABLE_HELP, &v, &present,
                                        &e), 0);
    assert_int_equal(present, contract.languages_need_tables);
    rt_value_free(&v);
    assert_int_equal(s->ops->read_table(s, "00C", RT_TABLE_HELP, &v, &present,
                                        &e), 0);
    assert_false(present);

    for (size_t i = 0; i < cs.n; i++) {
        const struct rt_change *c = &cs.v[i];
        if (c->op == RT_CHANGE_SET_PERFLIB)
            contract_value_eq(s, NULL, c->name, &c->value);
        else if (c->op == RT_CHANGE_SET_SERVICE)
            contract_value_eq(s, c->service, c->name, &c->value);
    }
    int exists, perf;
    assert_int_equal(s->ops->service_state(s, "transfer", &exists, &perf, &e),
                     0);
    assert_true(exists && perf);
    char **svcs;
    assert_int_equal(s->ops->list_perf_services(s, &svcs, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(svcs[0], "Transfer");
    rt_strings_free(svcs, n);
    rt_change_set_free(&cs);

    /* Deleting a service value, replacing a table. */
    assert_int_equal(rt_change_set_delete_service(&cs, "Transfer", "Open"), 0);
    assert_int_equal(rt_change_set_table(&cs, "019", RT_TABLE_COUNTER,
                                         (const uint8_t *)contract_counter,
                                         sizeof contract_counter, NULL, NULL), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &cs, &e), 0);
    s->ops->end(s);
    assert_int_equal(s->ops->read_service(s, "Transfer", "Open", &v, &present,
                                          &e), 0);
    assert_false(present);
    assert_int_equal(s->ops->read_table(s, "019", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    rt_value_free(&v);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

static void contract_failure_midway_changes_nothing(void **state)
{
    (void)state;
    struct rt_store *s = contract.open_empty(contract.ctx);
    struct rt_change_set base = {0}, more = {0};
    struct rt_error e = {0};
    contract_base_set(&base);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->apply(s, &base, &e), 0);
    s->ops->end(s);
    char *before = contract.snapshot(s, contract.ctx);

    /* A change touching several languages, Perflib and the service. */
    static const char16_t longer[] = u"1\0" "1847\0" "2\0System\0"
                                     "1850\0Transfer\0";
    struct rt_value v;
    rt_change_set_table(&more, "009", RT_TABLE_COUNTER, (const uint8_t *)longer,
                        sizeof longer, NULL, NULL);
    rt_change_set_table(&more, "019", RT_TABLE_COUNTER, (const uint8_t *)longer,
                        sizeof longer, NULL, NULL);
    rt_value_from_dword(&v, 1850);
    rt_change_set_perflib(&more, "Last Counter", &v);
    rt_change_set_service(&more, "Transfer", "First Counter", &v);
    rt_value_free(&v);
    rt_change_set_delete_service(&more, "Transfer", "Open");

    for (size_t k = 1; k < more.n; k++) {
        contract.fail_after(s, k, contract.ctx);
        assert_int_equal(s->ops->begin(s, &e), 0);
        assert_int_equal(s->ops->apply(s, &more, &e), -1);
        assert_int_not_equal(e.code, 0);
        s->ops->end(s);
        char *after = contract.snapshot(s, contract.ctx);
        assert_string_equal(after, before);
        free(after);
    }
    free(before);
    rt_change_set_free(&base);
    rt_change_set_free(&more);
    s->ops->close(s);
}

#define STORE_CONTRACT_TESTS                                            \
    cmocka_unit_test(contract_empty_store_reads_nothing),               \
    cmocka_unit_test(contract_reads_back_what_was_written),             \
    cmocka_unit_test(contract_failure_midway_changes_nothing)

#endif
