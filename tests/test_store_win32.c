/* The store contract on the win32 store, run under Wine (make wine-check)
 * against Wine's registry; plus what is particular to the live registry:
 * the journal of pre-images, the writer mutex, remote connection, where
 * the tables live. Built natively, it checks that the store says it is
 * unavailable.
 *
 * Wine 8 keeps Perflib\009 as a predefined-handle key with a fixed stub
 * table that cannot be written or deleted (win32_plan.c), so the
 * contract, which writes 009 and starts from no languages at all, runs on
 * the same registry under a sandbox key (rt_store_win32_open_at); the
 * real Perflib is tested for what Wine allows there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#ifdef __WINE__
/* cmocka.h takes _WIN32 for an ILP32 platform and would redefine
 * uintptr_t, which stdint.h already gave for Winelib's LP64. */
#define _UINTPTR_T_DEFINED
#endif
#include <cmocka.h>
#include <string.h>

#include "store/store_win32.h"

#ifdef _WIN32

#include <stdio.h>

#include "store_contract.h"

#include <windows.h>

#include "commit/crc32.h"
#include "win32_fixture.h"

static const char *const test_services[] = {"Transfer", "NoPerf"};
#define N_TEST_SERVICES 2
#define SANDBOX "SOFTWARE\\regtool-test"
#define PERFLIB SANDBOX "\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define SERVICES SANDBOX "\\SYSTEM\\CurrentControlSet\\Services"

/* A store on an empty sandbox: no Perflib, no services. */
static struct rt_store *open_clean(void)
{
    struct rt_error e = {0};
    struct rt_store *s = rt_store_win32_open_at(NULL, SANDBOX, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    assert_int_equal(wt_delete_file(rt_store_win32_journal_path(s)), 0);
    assert_int_equal(wt_wipe(SANDBOX, NULL, 0), 0);
    return s;
}

static struct rt_store *w32_open(void *ctx)
{
    (void)ctx;
    return open_clean();
}

static void w32_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_win32_fail_after(s, k);
}

static char *dump(struct rt_store *s)
{
    struct rt_error e = {0};
    char *d = rt_store_win32_dump(s, test_services, N_TEST_SERVICES, &e);
    if (!d)
        fail_msg("dump: %s", e.message);
    return d;
}

static char *w32_snapshot(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return dump(s);
}

static void apply_ok(struct rt_store *s, const struct rt_change_set *cs)
{
    struct rt_error e = {0};
    assert_int_equal(s->ops->begin(s, &e), 0);
    if (s->ops->apply(s, cs, &e) != 0)
        fail_msg("apply: %s", e.message);
    s->ops->end(s);
}

/* Applies CS expecting failure with CODE; returns the message. */
static void apply_fails(struct rt_store *s, const struct rt_change_set *cs,
                        int code, struct rt_error *e)
{
    assert_int_equal(s->ops->begin(s, e), 0);
    assert_int_equal(s->ops->apply(s, cs, e), -1);
    assert_int_equal(e->code, code);
    s->ops->end(s);
}

static void base(struct rt_store *s)
{
    struct rt_change_set cs = {0};
    contract_base_set(&cs);
    apply_ok(s, &cs);
    rt_change_set_free(&cs);
}

static void win32_types_and_bytes_are_kept_exactly(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    static const uint8_t bin[] = {0, 1, 2, 0xff, 0x80};   /* odd length */
    static const uint8_t qword[] = {1, 2, 3, 4, 5, 6, 7, 8};
    static const uint8_t sz_no_nul[] = {'x', 0, 'y', 0};   /* no terminator */
    static const uint8_t empty_msz[] = {0, 0};
    const struct rt_value vals[] = {
        {RT_REG_BINARY, (uint8_t *)bin, sizeof bin},
        {RT_REG_QWORD, (uint8_t *)qword, sizeof qword},
        {RT_REG_SZ, (uint8_t *)sz_no_nul, sizeof sz_no_nul},
        {RT_REG_MULTI_SZ, (uint8_t *)empty_msz, sizeof empty_msz},
        {RT_REG_NONE, (uint8_t *)bin, 0},
    };
    const char *names[] = {"Bin", "Q", "NoNul", "EmptyList", "Nothing"};
    struct rt_change_set cs = {0};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(
            rt_change_set_service(&cs, "Transfer", names[i], &vals[i]), 0);
    apply_ok(s, &cs);
    for (size_t i = 0; i < 5; i++)
        contract_value_eq(s, "Transfer", names[i], &vals[i]);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

static void win32_unknown_machine_is_an_error_naming_it(void **state)
{
    (void)state;
    struct rt_error e = {0};
    assert_null(rt_store_win32_open("\\\\NO-SUCH-HOST-RT", &e));
    assert_int_not_equal(e.code, 0);
    assert_non_null(strstr(e.message, "\\\\NO-SUCH-HOST-RT"));

    memset(&e, 0, sizeof e);
    assert_null(rt_store_win32_open("\\\\a\\b", &e));
    assert_int_equal(e.code, RT_ERR_INVALID_PARAMETER);
    assert_non_null(strstr(e.message, "a\\b"));
    memset(&e, 0, sizeof e);
    assert_null(rt_store_win32_open("\\\\", &e));
    assert_int_equal(e.code, RT_ERR_INVALID_PARAMETER);
}

/* RegConnectRegistry to this computer's own name: the remote code path
 * (Wine connects only to the local machine). */
static void win32_remote_connection_reads_and_writes(void **state)
{
    (void)state;
    struct rt_store *local = open_clean();
    base(local);
    char name[MAX_COMPUTERNAME_LENGTH + 3] = "\\\\";
    DWORD n = MAX_COMPUTERNAME_LENGTH + 1;
    assert_true(GetComputerNameA(name + 2, &n));
    struct rt_error e = {0};
    struct rt_store *remote = rt_store_win32_open_at(name, SANDBOX, &e);
    if (!remote)
        fail_msg("open %s: %s", name, e.message);
    assert_non_null(strstr(remote->ops->layout(remote), name));
    assert_non_null(strstr(remote->ops->layout(remote), "journal"));
    char *a = dump(local), *b = dump(remote);
    assert_string_equal(a, b);
    free(b);

    struct rt_change_set cs = {0};
    struct rt_value v;
    rt_value_from_dword(&v, 4242);
    rt_change_set_perflib(&cs, "Last Counter", &v);
    apply_ok(remote, &cs);
    contract_value_eq(local, NULL, "Last Counter", &v);
    rt_value_free(&v);
    rt_change_set_free(&cs);
    free(a);
    remote->ops->close(remote);
    local->ops->close(local);
}

static void win32_lock_rules(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    struct rt_change_set cs = {0};
    struct rt_error e = {0};
    contract_base_set(&cs);
    assert_int_equal(s->ops->apply(s, &cs, &e), -1);
    assert_int_equal(e.code, RT_ERR_LOCK_VIOLATION);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(s->ops->begin(s, &e), -1);
    assert_int_equal(e.code, RT_ERR_LOCK_VIOLATION);
    s->ops->end(s);
    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 0);
    rt_strings_free(langs, n);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

static DWORD WINAPI probe_mutex(void *arg)
{
    DWORD *result = arg;
    HANDLE m = OpenMutexW(SYNCHRONIZE, FALSE, L"Global\\regtool-perflib");
    if (!m) {
        *result = 0xdead;
        return 0;
    }
    *result = WaitForSingleObject(m, 0);
    if (*result == WAIT_OBJECT_0 || *result == WAIT_ABANDONED)
        ReleaseMutex(m);
    CloseHandle(m);
    return 0;
}

static DWORD probe_from_other_thread(void)
{
    DWORD result = 0xbeef;
    HANDLE t = CreateThread(NULL, 0, probe_mutex, &result, 0, NULL);
    assert_non_null(t);
    assert_int_equal(WaitForSingleObject(t, INFINITE), WAIT_OBJECT_0);
    CloseHandle(t);
    return result;
}

/* The named mutex is held from begin() to end(), and only then. */
static void win32_named_mutex_held_across_transaction(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    struct rt_error e = {0};
    assert_int_equal(probe_from_other_thread(), WAIT_OBJECT_0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    assert_int_equal(probe_from_other_thread(), WAIT_TIMEOUT);
    s->ops->end(s);
    assert_int_equal(probe_from_other_thread(), WAIT_OBJECT_0);
    s->ops->close(s);
}

static void win32_service_value_needs_performance_key(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    char *before = dump(s);
    struct rt_change_set cs = {0};
    struct rt_value v;
    rt_value_from_dword(&v, 1);
    /* A change that would be written first, then one that cannot be. */
    rt_change_set_perflib(&cs, "Last Counter", &v);
    rt_change_set_service(&cs, "NoPerf", "First Counter", &v);
    rt_value_free(&v);
    struct rt_error e = {0};
    apply_fails(s, &cs, RT_ERR_FILE_NOT_FOUND, &e);
    assert_non_null(strstr(e.message, "NoPerf"));
    char *after = dump(s);
    assert_string_equal(after, before);
    assert_false(wt_file_exists(rt_store_win32_journal_path(s)));
    free(before);
    free(after);
    rt_change_set_free(&cs);
    s->ops->close(s);
}

/* A table change of a key that is no language's (a Perflib subkey that
 * is not three or four hex digits, CurrentLanguage aside): refused before
 * anything is written, as the live registry's other keys must never be
 * given a Counter or Help value. */
static void win32_table_of_no_language_refused(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    char *before = dump(s);
    static const char16_t t[] = u"1\0" "1847\0";
    static const char *const keys[] = {"Software", "00G9", "12345", "09"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        struct rt_change_set cs = {0};
        struct rt_value v;
        rt_value_from_dword(&v, 1);
        rt_change_set_perflib(&cs, "Last Counter", &v);
        rt_value_free(&v);
        assert_int_equal(rt_change_set_table(&cs, keys[i], RT_TABLE_COUNTER,
                                             (const uint8_t *)t, sizeof t,
                                             NULL, NULL), 0);
        struct rt_error e = {0};
        apply_fails(s, &cs, RT_ERR_INVALID_PARAMETER, &e);
        assert_non_null(strstr(e.message, "bad language"));
        char *after = dump(s);
        if (strcmp(after, before))
            fail_msg("a table of %s changed the store", keys[i]);
        free(after);
        rt_change_set_free(&cs);
    }
    free(before);
    s->ops->close(s);
}

/* Builds a journal the way the store writes one (format in
 * win32_journal.c), sealed or not. */
struct jbuf {
    uint8_t b[4096];
    size_t n;
    uint32_t records;
};

static void j_bytes(struct jbuf *j, const void *p, size_t n)
{
    assert_true(j->n + n <= sizeof j->b);
    memcpy(j->b + j->n, p, n);
    j->n += n;
}

static void j_u32(struct jbuf *j, uint32_t x)
{
    uint8_t b[4] = {(uint8_t)x, (uint8_t)(x >> 8), (uint8_t)(x >> 16),
                    (uint8_t)(x >> 24)};
    j_bytes(j, b, 4);
}

static void j_str(struct jbuf *j, const char *s)
{
    j_u32(j, (uint32_t)strlen(s) * 2);
    for (; *s; s++) {
        uint8_t u[2] = {(uint8_t)*s, 0};
        j_bytes(j, u, 2);
    }
}

static void j_start(struct jbuf *j)
{
    j->n = 0;
    j->records = 0;
    j_bytes(j, "RTWJ", 4);
    j_u32(j, 1);
}

static void j_value(struct jbuf *j, const char *key, const char *name,
                    const struct rt_value *v)
{
    uint8_t kind = 1, present = v != NULL;
    j_bytes(j, &kind, 1);
    j_str(j, key);
    j_str(j, name);
    j_bytes(j, &present, 1);
    j_u32(j, v ? v->type : 0);
    j_u32(j, v ? (uint32_t)v->len : 0);
    if (v)
        j_bytes(j, v->data, v->len);
    j->records++;
}

static void j_key(struct jbuf *j, const char *key)
{
    uint8_t kind = 2;
    j_bytes(j, &kind, 1);
    j_str(j, key);
    j->records++;
}

static void j_seal(struct jbuf *j)
{
    uint32_t crc = rt_crc32(0, j->b, j->n);
    j_bytes(j, "SEAL", 4);
    j_u32(j, j->records);
    j_u32(j, crc);
}


/* A crashed writer's journal: the next open puts every pre-image back and
 * deletes the keys it created. */
static void win32_open_rolls_back_a_sealed_journal(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    char *before = dump(s);
    char *journal = strdup(rt_store_win32_journal_path(s));

    /* What the crashed commit had done: a new language, a changed and a
     * new Perflib value, a deleted service value. */
    struct rt_change_set cs = {0};
    struct rt_value v, open_v;
    int present;
    struct rt_error e = {0};
    assert_int_equal(s->ops->read_service(s, "Transfer", "Open", &open_v,
                                          &present, &e), 0);
    assert_true(present);
    rt_change_set_create_language(&cs, "00C");
    rt_value_from_dword(&v, 1900);
    rt_change_set_perflib(&cs, "Last Counter", &v);
    rt_change_set_perflib(&cs, "Extra", &v);
    rt_value_free(&v);
    rt_change_set_delete_service(&cs, "Transfer", "Open");
    apply_ok(s, &cs);
    rt_change_set_free(&cs);
    s->ops->close(s);

    struct jbuf j;
    j_start(&j);
    rt_value_from_dword(&v, 1847);
    j_value(&j, PERFLIB, "Last Counter", &v);
    j_value(&j, PERFLIB, "Extra", NULL);
    j_value(&j, SERVICES "\\Transfer\\Performance", "Open", &open_v);
    j_key(&j, PERFLIB "\\00C");
    j_seal(&j);
    assert_int_equal(wt_write_file(journal, j.b, j.n), 0);

    s = rt_store_win32_open_at(NULL, SANDBOX, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    char *after = dump(s);
    assert_string_equal(after, before);
    assert_false(wt_file_exists(journal));
    rt_value_free(&v);
    rt_value_free(&open_v);
    free(before);
    free(after);
    free(journal);
    s->ops->close(s);
}

/* A journal without its seal was never acted on: dropped, nothing else. */
static void win32_unsealed_journal_is_discarded(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    char *before = dump(s);
    char *journal = strdup(rt_store_win32_journal_path(s));
    s->ops->close(s);

    struct jbuf j;
    struct rt_value v;
    j_start(&j);
    rt_value_from_dword(&v, 7);
    j_value(&j, PERFLIB, "Last Counter", &v);
    rt_value_free(&v);
    /* Sealed with a wrong checksum: as torn as no seal at all. */
    j_seal(&j);
    j.b[j.n - 1] ^= 1;
    assert_int_equal(wt_write_file(journal, j.b, j.n), 0);

    struct rt_error e = {0};
    s = rt_store_win32_open_at(NULL, SANDBOX, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    char *after = dump(s);
    assert_string_equal(after, before);
    assert_false(wt_file_exists(journal));
    free(after);

    /* Begin finds one too (a writer that died after open). */
    assert_int_equal(wt_write_file(journal, "RTWJ", 4), 0);
    assert_int_equal(s->ops->begin(s, &e), 0);
    s->ops->end(s);
    assert_false(wt_file_exists(journal));
    after = dump(s);
    assert_string_equal(after, before);
    free(before);
    free(after);
    free(journal);
    s->ops->close(s);
}

/* A sealed journal that does not parse is kept, and open says where. */
static void win32_malformed_sealed_journal_stops_open(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    char *journal = strdup(rt_store_win32_journal_path(s));
    s->ops->close(s);

    struct jbuf j;
    j_start(&j);
    uint8_t kind = 9;                       /* no such record */
    j_bytes(&j, &kind, 1);
    j_str(&j, PERFLIB);
    j.records++;
    j_seal(&j);
    assert_int_equal(wt_write_file(journal, j.b, j.n), 0);

    struct rt_error e = {0};
    assert_null(rt_store_win32_open_at(NULL, SANDBOX, &e));
    assert_int_equal(e.code, RT_ERR_BADDB);
    assert_non_null(strstr(e.message, journal));
    assert_non_null(strstr(e.message, "offset 8"));
    assert_true(wt_file_exists(journal));

    /* A record count beyond the records is malformed too. */
    j_start(&j);
    j_key(&j, PERFLIB "\\00C");
    j.records = 2;
    j_seal(&j);
    assert_int_equal(wt_write_file(journal, j.b, j.n), 0);
    assert_null(rt_store_win32_open_at(NULL, SANDBOX, &e));
    assert_int_equal(e.code, RT_ERR_BADDB);

    assert_int_equal(wt_delete_file(journal), 0);
    free(journal);
}

/* Where System32\perfcLLL.dat exists the system reads that language's
 * tables from the .dat files: table changes are refused, the rest is
 * written. */
static void win32_tables_in_dat_files_are_not_written(void **state)
{
    (void)state;
    char dat[MAX_PATH + 32];
    UINT n = GetSystemDirectoryA(dat, MAX_PATH);
    assert_true(n > 0 && n < MAX_PATH);
    strcat(dat, "\\perfc019.dat");
    assert_int_equal(wt_write_file(dat, "", 0), 0);

    struct rt_store *s = open_clean();
    base(s);
    assert_non_null(strstr(s->ops->layout(s), "019 in System32\\perfcLLL.dat"));
    assert_non_null(strstr(s->ops->layout(s), "009 values"));
    char *before = dump(s);
    struct rt_change_set cs = {0};
    struct rt_value v;
    rt_value_from_dword(&v, 1850);
    rt_change_set_perflib(&cs, "Last Counter", &v);
    rt_change_set_table(&cs, "019", RT_TABLE_COUNTER,
                        (const uint8_t *)contract_counter,
                        sizeof contract_counter, NULL, NULL);
    struct rt_error e = {0};
    apply_fails(s, &cs, RT_ERR_NOT_SUPPORTED, &e);
    assert_non_null(strstr(e.message, "019"));
    assert_non_null(strstr(e.message, "perfcLLL.dat"));
    char *after = dump(s);
    assert_string_equal(after, before);
    rt_change_set_free(&cs);

    rt_change_set_perflib(&cs, "Last Counter", &v);
    rt_change_set_table(&cs, "009", RT_TABLE_COUNTER,
                        (const uint8_t *)contract_counter,
                        sizeof contract_counter, NULL, NULL);
    apply_ok(s, &cs);
    contract_value_eq(s, NULL, "Last Counter", &v);
    rt_value_free(&v);
    rt_change_set_free(&cs);
    free(before);
    free(after);
    s->ops->close(s);
    assert_int_equal(wt_delete_file(dat), 0);
}

/* The real Perflib under Wine: 009 is the system's (a predefined-handle
 * key with a stub table); reading it works, writing it is refused without
 * touching anything; other languages are written as values. */
static void win32_real_perflib_keeps_predefined_009(void **state)
{
    (void)state;
    static const char *const svcs[] = {"Transfer"};
    assert_int_equal(wt_wipe(NULL, svcs, 1), 0);
    struct rt_error e = {0};
    struct rt_store *s = rt_store_win32_open(NULL, &e);
    if (!s)
        fail_msg("open: %s", e.message);
    char **langs;
    size_t n;
    assert_int_equal(s->ops->list_languages(s, &langs, &n, &e), 0);
    assert_int_equal(n, 1);
    assert_string_equal(langs[0], "009");
    rt_strings_free(langs, n);
    assert_non_null(strstr(s->ops->layout(s), "009 served by the system"));

    struct rt_value v;
    int present = 0;
    static const char16_t head[] = u"1\0" "1847\0";
    assert_int_equal(s->ops->read_table(s, "009", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    assert_int_equal(v.type, RT_REG_MULTI_SZ);
    assert_true(v.len > sizeof head - 2);
    assert_memory_equal(v.data, head, sizeof head - 2);
    rt_value_free(&v);

    char *before = rt_store_win32_dump(s, svcs, 1, &e);
    assert_non_null(before);
    assert_non_null(strstr(before, "Perflib\\009] predefined handle"));
    struct rt_change_set cs = {0};
    contract_base_set(&cs);
    apply_fails(s, &cs, RT_ERR_NOT_SUPPORTED, &e);
    assert_non_null(strstr(e.message, "language 009"));
    assert_non_null(strstr(e.message, "predefined"));
    char *after = rt_store_win32_dump(s, svcs, 1, &e);
    assert_string_equal(after, before);
    free(after);

    /* The same database without 009's tables: everything else lands. */
    struct rt_change_set rest = {0};
    for (size_t i = 0; i < cs.n; i++) {
        const struct rt_change *c = &cs.v[i];
        if (c->op == RT_CHANGE_SET_TABLE && !strcmp(c->lang, "009"))
            continue;
        switch (c->op) {
        case RT_CHANGE_CREATE_LANGUAGE:
            rt_change_set_create_language(&rest, c->lang);
            break;
        case RT_CHANGE_SET_PERFLIB:
            rt_change_set_perflib(&rest, c->name, &c->value);
            break;
        case RT_CHANGE_CREATE_PERF_KEY:
            rt_change_set_create_perf_key(&rest, c->service);
            break;
        case RT_CHANGE_SET_SERVICE:
            rt_change_set_service(&rest, c->service, c->name, &c->value);
            break;
        default:
            fail_msg("unexpected change %d in the base set", (int)c->op);
        }
    }
    rt_change_set_table(&rest, "019", RT_TABLE_COUNTER,
                        (const uint8_t *)contract_counter,
                        sizeof contract_counter, NULL, NULL);
    apply_ok(s, &rest);
    assert_int_equal(s->ops->read_table(s, "019", RT_TABLE_COUNTER, &v,
                                        &present, &e), 0);
    assert_true(present);
    assert_int_equal(v.len, sizeof contract_counter);
    assert_memory_equal(v.data, contract_counter, v.len);
    rt_value_free(&v);
    assert_non_null(strstr(s->ops->layout(s), "019 values"));
    for (size_t i = 0; i < rest.n; i++)
        if (rest.v[i].op == RT_CHANGE_SET_SERVICE)
            contract_value_eq(s, rest.v[i].service, rest.v[i].name,
                              &rest.v[i].value);
        else if (rest.v[i].op == RT_CHANGE_SET_PERFLIB)
            contract_value_eq(s, NULL, rest.v[i].name, &rest.v[i].value);
    rt_change_set_free(&cs);
    rt_change_set_free(&rest);
    free(before);
    s->ops->close(s);
    assert_int_equal(wt_wipe(NULL, svcs, 1), 0);
}

/* Side file REL as the store reads it: its bytes in a new string, or
 * NULL when absent. */
static char *side_file(struct rt_store *s, const char *rel)
{
    struct rt_value v = {0};
    struct rt_error e = {0};
    int present = 0;
    if (s->ops->read_win_file(s, rel, &v, &present, &e) != 0)
        fail_msg("read %s: %s", rel, e.message);
    char *r = NULL;
    if (present) {
        r = malloc(v.len + 1);
        assert_non_null(r);
        memcpy(r, v.data, v.len);
        r[v.len] = 0;
    }
    rt_value_free(&v);
    return r;
}

/* Whether REL (a folder or a file under the Windows directory) exists. */
static int win_exists(const char *rel)
{
    char path[MAX_PATH + 200];
    UINT n = GetSystemWindowsDirectoryA(path, MAX_PATH);
    assert_true(n > 0 && n < MAX_PATH);
    snprintf(path + n, sizeof path - n, "\\%s", rel);
    for (char *c = path; *c; c++)
        if (*c == '/')
            *c = '\\';
    return GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES;
}

#define T_DIR "INF/RegtoolStoreTest"

/* Side files join the commit: a change set that rewrites one file,
 * deletes another (its folder then empty), creates a third in a new
 * folder and sets a value, failed after each of its writes in turn,
 * leaves the registry and every file as they were (no temporary file,
 * no new folder); run whole, it does all of it. */
static void win32_side_files_fail_midway_change_nothing(void **state)
{
    (void)state;
    struct rt_store *s = open_clean();
    base(s);
    assert_true(rt_store_win_files(s));
    struct rt_change_set prep = {0}, cs = {0}, undo = {0};
    rt_change_set_write_file(&prep, T_DIR "/0009/kept.ini",
                             (const uint8_t *)"old", 3);
    rt_change_set_write_file(&prep, T_DIR "/0007/gone.h",
                             (const uint8_t *)"#define X 0", 11);
    apply_ok(s, &prep);
    char *before = dump(s);

    rt_change_set_write_file(&cs, T_DIR "/0009/kept.ini",
                             (const uint8_t *)"new text", 8);
    rt_change_set_delete_file(&cs, T_DIR "/0007/gone.h");
    rt_change_set_write_file(&cs, T_DIR "/0C0C/new.ini",
                             (const uint8_t *)"nouveau", 7);
    struct rt_value v;
    rt_value_from_dword(&v, 1900);
    rt_change_set_perflib(&cs, "Last Counter", &v);
    rt_value_free(&v);

    size_t k;
    for (k = 1; k < 100; k++) {
        rt_store_win32_fail_after(s, k);
        struct rt_error e = {0};
        assert_int_equal(s->ops->begin(s, &e), 0);
        int r = s->ops->apply(s, &cs, &e);
        s->ops->end(s);
        if (r == 0)
            break;
        assert_int_equal(e.code, RT_ERR_WRITE_FAULT);
        char *now = dump(s);
        assert_string_equal(now, before);
        free(now);
        char *f = side_file(s, T_DIR "/0009/kept.ini");
        assert_string_equal(f, "old");
        free(f);
        f = side_file(s, T_DIR "/0007/gone.h");
        assert_string_equal(f, "#define X 0");
        free(f);
        assert_null(side_file(s, T_DIR "/0C0C/new.ini"));
        assert_false(win_exists(T_DIR "/0C0C"));
        assert_false(win_exists(T_DIR "/0009/kept.ini.regtool-new"));
    }
    /* Two folders and two files written, one file and its folder
     * removed, one value: at least six write points were failed. */
    assert_true(k > 6);
    char *f = side_file(s, T_DIR "/0009/kept.ini");
    assert_string_equal(f, "new text");
    free(f);
    f = side_file(s, T_DIR "/0C0C/new.ini");
    assert_string_equal(f, "nouveau");
    free(f);
    assert_null(side_file(s, T_DIR "/0007/gone.h"));
    assert_false(win_exists(T_DIR "/0007"));

    rt_change_set_delete_file(&undo, T_DIR "/0009/kept.ini");
    rt_change_set_delete_file(&undo, T_DIR "/0C0C/new.ini");
    apply_ok(s, &undo);
    assert_false(win_exists(T_DIR));
    rt_change_set_free(&prep);
    rt_change_set_free(&cs);
    rt_change_set_free(&undo);
    free(before);
    s->ops->close(s);
}

int main(void)
{
    contract = (struct contract_fixture){w32_open, w32_fail, w32_snapshot,
                                         NULL, 0};
    const struct CMUnitTest tests[] = {
        STORE_CONTRACT_TESTS,
        cmocka_unit_test(win32_types_and_bytes_are_kept_exactly),
        cmocka_unit_test(win32_unknown_machine_is_an_error_naming_it),
        cmocka_unit_test(win32_remote_connection_reads_and_writes),
        cmocka_unit_test(win32_lock_rules),
        cmocka_unit_test(win32_named_mutex_held_across_transaction),
        cmocka_unit_test(win32_service_value_needs_performance_key),
        cmocka_unit_test(win32_table_of_no_language_refused),
        cmocka_unit_test(win32_open_rolls_back_a_sealed_journal),
        cmocka_unit_test(win32_unsealed_journal_is_discarded),
        cmocka_unit_test(win32_malformed_sealed_journal_stops_open),
        cmocka_unit_test(win32_tables_in_dat_files_are_not_written),
        cmocka_unit_test(win32_real_perflib_keeps_predefined_009),
        cmocka_unit_test(win32_side_files_fail_midway_change_nothing),
    };
    return cmocka_run_group_tests_name("store_win32", tests, NULL, NULL);
}

#else /* !_WIN32 */

/* Without Windows or Wine, opening the live registry says so and points
 * at what works instead. */
static void win32_store_is_unavailable_here(void **state)
{
    (void)state;
    struct rt_error e = {0};
    assert_null(rt_store_win32_open(NULL, &e));
    assert_int_equal(e.code, RT_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(e.message, "hive store"));
    memset(&e, 0, sizeof e);
    assert_null(rt_store_win32_open("\\\\SRV01", &e));
    assert_int_equal(e.code, RT_ERR_NOT_SUPPORTED);
    assert_non_null(strstr(e.message, "SRV01"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(win32_store_is_unavailable_here),
    };
    return cmocka_run_group_tests_name("store_win32 (native)", tests, NULL,
                                       NULL);
}

#endif
