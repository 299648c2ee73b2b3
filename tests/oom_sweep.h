/* The out-of-memory sweep the tests of test_out_of_memory*.c share:
 * an operation run once with memory, then with each allocation failing
 * in turn (tests/alloc_hook.h), and what they work on: a small database
 * in the in-memory store, a provider as the loader fills it, and each
 * result as text to compare. Included once, by a test program's own file
 * (it takes the allocator over: alloc_hook.h). */
#ifndef TEST_OOM_SWEEP_H
#define TEST_OOM_SWEEP_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchar.h>
#include <cmocka.h>

#define ALLOC_HOOK_MALLOC
#include "alloc_hook.h"

#ifdef HAVE_ALLOC_HOOK
#include "engine/audit.h"
#include "engine/backup.h"
#include "engine/database.h"
#include "engine/engine.h"
#include "engine/repair.h"
#include "model/diag.h"
#include "model/multi_sz.h"
#include "model/name_table.h"
#include "model/perf_backup.h"
#include "model/strbuf.h"
#include "ops/ops.h"
#include "provider/ini_reader.h"
#include "provider/provider_spec.h"

/* --- the sweep ---------------------------------------------------------- */

/* One operation under test. SETUP makes a fresh state (memory never
 * fails there), RUN is the operation, the only part whose allocations
 * fail; RESULT (memory not failing) tells, as text, everything RUN gave;
 * STATE (NULL: nothing is written) tells what RUN may have written, for
 * "nothing half-done"; TEARDOWN frees the state and what RUN gave. */
struct oom_case {
    const char *name;
    void (*setup)(void *ctx);
    int (*run)(void *ctx, struct rt_error *e);
    char *(*result)(void *ctx);
    char *(*state)(void *ctx);
    void (*teardown)(void *ctx);
    /* Every allocation up to DENSE (0: 200), then every STRIDE-th (0: 7). */
    unsigned long dense, stride;
};

static inline char *state_of(const struct oom_case *c, void *ctx)
{
    return c->state ? c->state(ctx) : strdup("");
}

/* Runs C once with memory, then with each allocation failing in turn;
 * returns the allocations counted (0 when none reached the hook). */
static inline unsigned long sweep(const struct oom_case *c, void *ctx)
{
    struct rt_error e = {0};
    c->setup(ctx);
    alloc_calls = 0;
    int r = c->run(ctx, &e);
    unsigned long calls = alloc_calls;
    if (r != 0)
        fail_msg("%s with memory failed: %s", c->name, e.message);
    char *want = c->result(ctx);
    char *after = state_of(c, ctx);
    assert_non_null(after);
    c->teardown(ctx);
    assert_non_null(want);
    unsigned long dense = c->dense ? c->dense : 200;
    unsigned long stride = c->stride ? c->stride : 7;
    for (unsigned long k = 1; k <= calls; k += k < dense ? 1 : stride) {
        struct rt_error ek = {0};
        c->setup(ctx);
        char *before = state_of(c, ctx);
        alloc_calls = 0;
        alloc_fail_at = k;
        r = c->run(ctx, &ek);
        alloc_fail_at = 0;
        if (r != 0) {
            if (ek.code != RT_ERR_NOT_ENOUGH_MEMORY)
                fail_msg("%s: allocation %lu of %lu failed, and it failed "
                         "with error %d: %s", c->name, k, calls, ek.code,
                         ek.message);
            char *now = state_of(c, ctx);
            /* Out of memory verifying a commit: all written, and said;
             * or after its commit point: the next writer finishes it
             * (STATE is read as a fresh writer leaves it), and said. */
            int written = (strstr(ek.message, "was written, not verified") ||
                           strstr(ek.message, "the next writer of this "
                                              "store finishes it")) &&
                          !strcmp(now, after);
            if (strcmp(now, before) && !written) {
                fprintf(stderr, "store:\n%s\nwas:\n%s\n", now, before);
                fail_msg("%s: allocation %lu of %lu failed, and the store "
                         "changed:\n%s\nwas:\n%s", c->name, k, calls, now,
                         before);
            }
            free(now);
        } else {
            char *got = c->result(ctx);
            char *now = state_of(c, ctx);
            if (!got || strcmp(got, want)) {
                /* in full: cmocka's messages are cut short */
                fprintf(stderr, "got:\n%s\nwanted:\n%s\n",
                        got ? got : "(no result)", want);
                fail_msg("%s: allocation %lu of %lu failed, and it "
                         "succeeded with:\n%s\nnot:\n%s", c->name, k, calls,
                         got ? got : "(no result)", want);
            }
            if (strcmp(now, after))
                fail_msg("%s: allocation %lu of %lu failed, and it "
                         "succeeded leaving the store:\n%s\nnot:\n%s",
                         c->name, k, calls, now, after);
            free(got);
            free(now);
        }
        free(before);
        c->teardown(ctx);
    }
    print_message("%s: %lu allocations, a result of %zu bytes\n", c->name,
                  calls, strlen(want));
    free(want);
    free(after);
    return calls;
}


static inline void set_nomem(struct rt_error *e)
{
    rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* --- a small database in memory ---------------------------------------- */

static const char16_t counter_009[] =
    u"1\0" "1847\0" "2\0System\0" "4\0Memory\0" "1846\0End Marker\0";
static const char16_t help_009[] =
    u"3\0System help.\0" "5\0Memory help.\0" "1847\0End Marker\0";

static inline void apply_set(struct rt_store *s, struct rt_change_set *cs)
{
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, cs, &e) != 0)
        fail_msg("set-up apply: %s", e.message);
    s->ops->end(s);
    rt_change_set_free(cs);
}

static inline void put_dword(struct rt_change_set *cs, const char *name, uint32_t x)
{
    struct rt_value v;
    rt_value_from_dword(&v, x);
    assert_int_equal(rt_change_set_perflib(cs, name, &v), 0);
    rt_value_free(&v);
}

static inline void put_service(struct rt_change_set *cs, const char *name)
{
    struct rt_value v;
    assert_int_equal(rt_change_set_create_perf_key(cs, name), 0);
    rt_value_from_string(&v, RT_REG_EXPAND_SZ, "%SystemRoot%\\prov.dll");
    assert_int_equal(rt_change_set_service(cs, name, "Library", &v), 0);
    rt_value_free(&v);
}

/* A provider's INI as the loader would fill it: two objects' worth of
 * symbols, English. */
static inline struct rt_provider_spec *make_spec(const char *driver)
{
    struct rt_provider_spec *sp = calloc(1, sizeof *sp);
    sp->ini_path = strdup("/x/prov.ini");
    sp->drivername = strdup(driver);
    sp->languages = calloc(1, sizeof *sp->languages);
    sp->n_languages = 1;
    strcpy(sp->languages[0].id, "009");
    sp->n_symbols = 3;
    sp->symbols = calloc(sp->n_symbols, sizeof *sp->symbols);
    for (size_t k = 0; k < sp->n_symbols; k++) {
        struct rt_provider_symbol *sym = &sp->symbols[k];
        char buf[64];
        snprintf(buf, sizeof buf, "SYM%zu", k);
        sym->symbol = strdup(buf);
        sym->offset = (long)(2 * k);
        sym->is_object = k == 0;
        sym->text = calloc(1, sizeof *sym->text);
        sym->n_text = 1;
        snprintf(buf, sizeof buf, "%s name %zu", driver, k);
        sym->text[0].name = strdup(buf);
        snprintf(buf, sizeof buf, "%s help %zu", driver, k);
        sym->text[0].help = strdup(buf);
    }
    return sp;
}

static inline void free_spec(struct rt_provider_spec *sp)
{
    rt_provider_spec_free(sp);
    free(sp);
}

/* Puts into S English with the base tables, the Perflib values, services
 * Transfer (not installed) and Peer (installed at 1848-1853). */
static inline void small_database(struct rt_store *s)
{
    struct rt_change_set cs = {0};
    assert_int_equal(rt_change_set_create_language(&cs, "009"), 0);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                                         (const uint8_t *)counter_009,
                                         sizeof counter_009,
                                         NULL, NULL), 0);
    assert_int_equal(rt_change_set_table(&cs, "009", RT_TABLE_HELP,
                                         (const uint8_t *)help_009,
                                         sizeof help_009, NULL, NULL), 0);
    put_dword(&cs, "Last Counter", 1846);
    put_dword(&cs, "Last Help", 1847);
    put_dword(&cs, "Base Index", 1847);
    put_service(&cs, "Transfer");
    put_service(&cs, "Peer");
    apply_set(s, &cs);
    struct rt_provider_spec *peer = make_spec("Peer");
    struct rt_install_options opt = {0};
    struct rt_install_plan plan;
    struct rt_error e = {0};
    if (rt_op_install(s, peer, &opt, 0, &cs, &plan, &e))
        fail_msg("set-up install: %s", e.message);
    rt_change_set_free(&cs);
    rt_install_plan_free(&plan);
    free_spec(peer);
}

/* The small database in the in-memory store. */
static inline struct rt_store *small_store(void)
{
    struct rt_store *s = rt_store_mem_new();
    small_database(s);
    return s;
}

/* What a database holds, as text: its values, services and tables (as
 * the backup of it writes them). */
static inline char *database_text(const struct rt_database *db)
{
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "langs %zu services %zu last %u/%u base %u\n",
                     db->n_langs, db->n_services, db->last_counter,
                     db->last_help, db->base_index);
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *si = &db->services[i];
        rt_strbuf_printf(&b, "%s %u-%u %u-%u\n", si->name, si->first_counter,
                         si->last_counter, si->first_help, si->last_help);
    }
    struct rt_psb psb;
    struct rt_error e = {0};
    uint8_t *bytes;
    size_t len;
    assert_int_equal(rt_engine_backup(db, &psb, &e), 0);
    assert_int_equal(rt_psb_write(&psb, &bytes, &len), 0);
    for (size_t i = 0; i < len; i++) /* UTF-16LE: its text's bytes */
        if (bytes[i])
            rt_strbuf_append(&b, (const char *)bytes + i, 1);
    free(bytes);
    rt_psb_free(&psb);
    return rt_strbuf_take(&b);
}

/* The findings, in their order, as text. */
static inline char *findings_text(const struct rt_findings *f)
{
    struct rt_strbuf b = {0};
    for (size_t i = 0; i < f->n; i++) {
        char *m = rt_finding_message(&f->v[i]);
        assert_non_null(m);
        rt_strbuf_printf(&b, "%s %s: %s\n", rt_finding_id(&f->v[i]),
                         f->v[i].language ? f->v[i].language : "-", m);
        free(m);
    }
    return rt_strbuf_take(&b);
}

static inline char *change_set_text(const struct rt_change_set *cs)
{
    char *t = rt_op_change_set_text(cs);
    assert_non_null(t);
    return t;
}

/* An install's plan and change set, as text. */
static inline char *install_text(const struct rt_install_plan *p,
                          const struct rt_change_set *cs)
{
    struct rt_strbuf b = {0};
    rt_strbuf_printf(&b, "%u-%u %u-%u langs %zu missing %zu pairs %zu\n",
                     p->first_counter, p->last_counter, p->first_help,
                     p->last_help, p->n_langs, p->n_missing,
                     p->pairs_per_language);
    char *t = change_set_text(cs);
    rt_strbuf_printf(&b, "%s", t);
    free(t);
    return rt_strbuf_take(&b);
}

/* Bytes as text: each byte but NUL as itself, NUL as '.', and the length
 * (every blob here is ASCII text in UTF-16LE, or its index form). */
static inline void put_bytes(struct rt_strbuf *b, const uint8_t *bytes, size_t len)
{
    rt_strbuf_printf(b, "%zu bytes: ", len);
    for (size_t i = 0; i < len; i++)
        if (bytes[i])
            rt_strbuf_append(b, (const char *)bytes + i, 1);
        else
            rt_strbuf_append(b, ".", 1);
    rt_strbuf_append(b, "\n", 1);
}

static inline void put_pairs(struct rt_strbuf *b, const struct rt_pair_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        rt_strbuf_printf(b, "%u=%s;", l->v[i].index, l->v[i].text);
    rt_strbuf_append(b, "\n", 1);
}

#endif /* HAVE_ALLOC_HOOK */


/* Each test sweeps one case; without the hook it skips. */
#ifdef HAVE_ALLOC_HOOK
#define OOM_TEST(test, ...)                                                    \
    static void test(void **state)                                             \
    {                                                                          \
        (void)state;                                                           \
        __VA_ARGS__                                                            \
    }
#else
#define OOM_TEST(test, ...)                                                    \
    static void test(void **state)                                             \
    {                                                                          \
        (void)state;                                                           \
        skip();                                                                \
    }
#endif

#endif
