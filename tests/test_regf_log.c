/* Transaction log discovery and replay: the real Windows samples give the
 * published results; damaged logs end a replay cleanly; Marvin32 matches
 * its published vectors. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "regf/base_block.h"
#include "regf/log.h"
#include "regf/log_internal.h"
#include "regf/marvin32.h"
#include "regf/regf.h"

#if defined(__linux__)
#include <sys/syscall.h>
/* Test hook: every fsync the library makes is counted, with the size of
 * the file it made durable (the library calls fsync through rt_os_fsync;
 * this definition takes it over in the test program). */
#define HAVE_FSYNC_HOOK 1
static unsigned fsync_calls;
static long long fsync_last_size;
int fsync(int fd)
{
    struct stat st;
    fsync_calls++;
    fsync_last_size = fstat(fd, &st) == 0 ? (long long)st.st_size : -1;
    return (int)syscall(SYS_fsync, fd);
}
#endif

#define SAMPLES "../shared/samples"
#define NTUSER_SHA256 \
    "0a7a7b2d1eb24ab63455f5a83e554601d88fe558d0ba1c1068a7e1102c79a092"
#define USRCLASS_SHA256 \
    "0c52ea278e8c524fd13c146b060f7801af7791a1cad5b04ae9e6e06617de0e3e"

struct fixture {
    char dir[64];
};

struct blob {
    uint8_t *data;
    size_t size;
};

static char *path_in(const struct fixture *fx, const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/%s", fx->dir, name) > 0);
    return p;
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
    char *cmd;
    va_list ap;
    va_start(ap, fmt);
    assert_true(vasprintf(&cmd, fmt, ap) > 0);
    va_end(ap);
    int rc = system(cmd);
    if (rc != 0)
        fail_msg("command failed (%d): %s", rc, cmd);
    free(cmd);
}

static struct blob load(const struct fixture *fx, const char *name)
{
    char *p = path_in(fx, name);
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    struct blob b = {malloc((size_t)st.st_size), (size_t)st.st_size};
    assert_non_null(b.data);
    assert_int_equal(fread(b.data, 1, b.size, f), b.size);
    fclose(f);
    free(p);
    return b;
}

/* SHA-256 of a buffer, by the system's sha256sum. */
static void sha256_of(const struct fixture *fx, const uint8_t *data,
                      size_t size, char hex[65])
{
    char *p = path_in(fx, "hashme");
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    char *cmd;
    assert_true(asprintf(&cmd, "sha256sum '%s'", p) > 0);
    FILE *pipe = popen(cmd, "r");
    assert_non_null(pipe);
    assert_int_equal(fread(hex, 1, 64, pipe), 64);
    hex[64] = '\0';
    pclose(pipe);
    unlink(p);
    free(cmd);
    free(p);
}

static int group_setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    strcpy(fx->dir, "/tmp/regf_log_XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    static const char *const names[] = {
        "transactions_NTUSER.DAT", "transactions_ntuser.dat.log1",
        "transactions_ntuser.dat.log2", "UsrClass.dat", "UsrClass.dat.LOG1",
        "UsrClass.dat.LOG2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char cmd[512];
        snprintf(cmd, sizeof cmd, "xz -dc '%s/%s.xz' > '%s/%s'", SAMPLES,
                 names[i], fx->dir, names[i]);
        if (system(cmd) != 0)
            return -1;
    }
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    struct fixture *fx = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    int rc = system(cmd);
    free(fx);
    return rc == 0 ? 0 : -1;
}

/* ---- Marvin32 ---- */

static uint8_t hexval(char c)
{
    return (uint8_t)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
}

static void marvin32_published_vectors(void **state)
{
    (void)state;
    /* From the Marvin tests of the .NET runtime (64-bit results). */
    static const struct {
        uint64_t seed;
        const char *hex;
        uint64_t hash;
    } v[] = {
        {0x004FB61A001BDBCCull, "", 0x30ED35C100CD3C7Dull},
        {0x004FB61A001BDBCCull, "af", 0x48E73FC77D75DDC1ull},
        {0x004FB61A001BDBCCull, "e70f", 0xB5F6E1FC485DBFF8ull},
        {0x004FB61A001BDBCCull, "37f495", 0xF0B07C789B8CF7E8ull},
        {0x004FB61A001BDBCCull, "8642dc59", 0x7008F2E87E9CF556ull},
        {0x004FB61A001BDBCCull, "153fb79826", 0xE6C08C6DA2AFA997ull},
        {0x004FB61A001BDBCCull, "0932e6246c47", 0x6F04BF1A5EA24060ull},
        {0x004FB61A001BDBCCull, "ab427ea8d10fc7", 0xE11847E4F0678C41ull},
        {0x804FB61A001BDBCCull, "", 0x10A9D5D3996FD65Dull},
        {0x804FB61A001BDBCCull, "af", 0x68201F91960EBF91ull},
        {0x804FB61A001BDBCCull, "e70f", 0x64B581631F6AB378ull},
        {0x804FB61A001BDBCCull, "37f495", 0xE1F2DFA6E5131408ull},
        {0x804FB61A001BDBCCull, "8642dc59", 0x36289D9654FB49F6ull},
        {0x804FB61A001BDBCCull, "153fb79826", 0x0A06114B13464DBDull},
        {0x804FB61A001BDBCCull, "0932e6246c47", 0xD6DD5E40AD1BC2EDull},
        {0x804FB61A001BDBCCull, "ab427ea8d10fc7", 0xE203987DBA252FB3ull},
        {0x804FB61A801BDBCCull, "00", 0xA37FB0DA2ECAE06Cull},
        {0x804FB61A801BDBCCull, "FF00FF", 0x9D8577C0FE0D30BFull},
        {0x804FB61A801BDBCCull, "00FF00FF", 0x24EAA279D9A529CAull},
        {0x804FB61A801BDBCCull, "FF00FF00FF", 0x920B62BBCA3E0B72ull},
        {0x804FB61A801BDBCCull, "00FF00FF00FF00", 0x71876F2EFB1B0EE8ull},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t buf[16];
        size_t n = strlen(v[i].hex) / 2;
        for (size_t k = 0; k < n; k++)
            buf[k] = (uint8_t)(hexval(v[i].hex[2 * k]) << 4 |
                               hexval(v[i].hex[2 * k + 1]));
        if (regf_marvin32(buf, n, v[i].seed) != v[i].hash)
            fail_msg("vector %zu ('%s'): got 0x%016llx", i, v[i].hex,
                     (unsigned long long)regf_marvin32(buf, n, v[i].seed));
    }
}

/* A log's bytes are read only within the size it was measured at: a read
 * reaching past it fails (EIO), from a buffer or from a file that has
 * grown since, and never reads what lies beyond. */
static void log_read_stays_within_the_measured_size(void **state)
{
    (void)state;
    uint8_t bytes[32], buf[8];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (uint8_t)i;
    struct regf_log_source mem = {bytes, -1, 16};
    assert_int_equal(regf_log_read(&mem, 8, buf, 8), 0);
    assert_int_equal(buf[0], 8);
    assert_int_equal(buf[7], 15);
    errno = 0;
    assert_int_equal(regf_log_read(&mem, 10, buf, 8), -1);
    assert_int_equal(errno, EIO);
    assert_int_equal(regf_log_read(&mem, 17, buf, 0), -1);

    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, sizeof bytes, f), sizeof bytes);
    assert_int_equal(fflush(f), 0);
    struct regf_log_source file = {NULL, fileno(f), 16};
    assert_int_equal(regf_log_read(&file, 12, buf, 4), 0);
    assert_int_equal(buf[0], 12);
    errno = 0;
    assert_int_equal(regf_log_read(&file, 12, buf, 8), -1);
    assert_int_equal(errno, EIO);
    fclose(f);
}

/* ---- the real samples ---- */

static void check_sealed(const uint8_t *img, uint32_t seq, uint32_t hbins)
{
    assert_false(regf_base_is_dirty(img));
    assert_int_equal(regf_le32(img + REGF_OFF_SEQ1), seq);
    assert_int_equal(regf_le32(img + REGF_OFF_SEQ2), seq);
    assert_int_equal(regf_le32(img + REGF_OFF_HBINS_SIZE), hbins);
    assert_int_equal(regf_le32(img + REGF_OFF_FILE_TYPE), 0);
}

static void ntuser_replays_23_entries_from_log1(void **state)
{
    struct fixture *fx = *state;
    char *p = path_in(fx, "transactions_NTUSER.DAT");
    uint8_t *img;
    size_t n;
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay_file(p, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_true(r.primary_dirty);
    assert_int_equal(r.primary_seq1, 567);
    assert_int_equal(r.primary_seq2, 566);
    assert_int_equal(r.format_applied, RT_REGF_LOG_NEW);
    assert_int_equal(r.entries_applied, 23);
    assert_int_equal(r.first_sequence, 566);
    assert_int_equal(r.last_sequence, 588);
    /* The logs' names are lower case, the primary's is not. */
    assert_non_null(strstr(r.log[RT_REGF_LOG1].name,
                           "transactions_ntuser.dat.log1"));
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_NEW);
    assert_int_equal(r.log[RT_REGF_LOG1].valid_entries, 23);
    assert_true(r.log[RT_REGF_LOG1].used);
    assert_int_equal(r.log[RT_REGF_LOG2].format, RT_REGF_LOG_NEW);
    assert_int_equal(r.log[RT_REGF_LOG2].sequence, 562);
    assert_false(r.log[RT_REGF_LOG2].used);
    assert_non_null(strstr(r.log[RT_REGF_LOG2].problem, "older"));
    assert_int_equal(r.log[RT_REGF_LOG].format, RT_REGF_LOG_ABSENT);
    check_sealed(img, 588, 0xe2000);
    char hex[65];
    sha256_of(fx, img, n, hex);
    assert_string_equal(hex, NTUSER_SHA256);
    /* Only the replayed hive holds what the samples README names, read
     * with our own reader. */
    static const char payment[] = "Software\\Microsoft\\Payment\\PaymentApps";
    static const char onedrive[] = "Software\\Microsoft\\OneDrive";
    struct rt_regf *h;
    char err[256];
    uint32_t key, val;
    assert_int_equal(rt_regf_open(p, 0, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), payment, &key),
                     RT_REGF_ENOTFOUND);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), onedrive, &key), 0);
    assert_int_equal(rt_regf_value_find(h, key, "StandaloneUpdaterSafeMode",
                                        &val), RT_REGF_ENOTFOUND);
    rt_regf_close(h);
    assert_int_equal(rt_regf_open_memory(img, n, 0, &h, err, sizeof err), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), payment, &key), 0);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), onedrive, &key), 0);
    assert_int_equal(rt_regf_value_find(h, key, "StandaloneUpdaterSafeMode",
                                        &val), 0);
    rt_regf_close(h);
    free(img);
    rt_regf_replay_report_free(&r);
    free(p);
}

static void usrclass_replays_log1_then_log2(void **state)
{
    struct fixture *fx = *state;
    char *p = path_in(fx, "UsrClass.dat");
    uint8_t *img;
    size_t n;
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay_file(p, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_int_equal(r.entries_applied, 14);
    assert_int_equal(r.first_sequence, 287);
    assert_int_equal(r.last_sequence, 300);
    assert_true(r.log[RT_REGF_LOG1].used);
    assert_int_equal(r.log[RT_REGF_LOG1].entries_applied, 4);
    assert_true(r.log[RT_REGF_LOG2].used);
    assert_int_equal(r.log[RT_REGF_LOG2].entries_applied, 10);
    check_sealed(img, 300, 0x2b3000);
    char hex[65];
    sha256_of(fx, img, n, hex);
    assert_string_equal(hex, USRCLASS_SHA256);
    free(img);
    rt_regf_replay_report_free(&r);
    free(p);
}

/* File offset of entry K (0-based) of a new-format log. */
static size_t entry_offset(const struct blob *log, int k)
{
    size_t pos = 512;
    for (int i = 0; i < k; i++) {
        assert_true(pos + 40 <= log->size);
        pos += regf_le32(log->data + pos + 4);
    }
    assert_true(pos + 40 <= log->size);
    return pos;
}

struct ntuser {
    struct blob primary, log1, log2;
    struct rt_regf_log_input in[RT_REGF_LOG_SLOTS];
};

static void ntuser_load(const struct fixture *fx, struct ntuser *s)
{
    s->primary = load(fx, "transactions_NTUSER.DAT");
    s->log1 = load(fx, "transactions_ntuser.dat.log1");
    s->log2 = load(fx, "transactions_ntuser.dat.log2");
    memset(s->in, 0, sizeof s->in);
    s->in[RT_REGF_LOG1] = (struct rt_regf_log_input){"log1", s->log1.data,
                                                     s->log1.size};
    s->in[RT_REGF_LOG2] = (struct rt_regf_log_input){"log2", s->log2.data,
                                                     s->log2.size};
}

static void ntuser_free(struct ntuser *s)
{
    free(s->primary.data);
    free(s->log1.data);
    free(s->log2.data);
}

static void flipped_byte_in_fifth_entry_stops_before_it(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    size_t e5 = entry_offset(&s.log1, 4);
    uint32_t count = regf_le32(s.log1.data + e5 + 20);
    size_t in_page = e5 + 40 + 8 * (size_t)count + 100;
    s.log1.data[in_page] ^= 0x01;
    struct rt_regf_replay_report r;
    uint8_t *img;
    size_t n;
    assert_int_equal(rt_regf_replay(s.primary.data, s.primary.size, "ntuser",
                                    s.in, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_int_equal(r.entries_applied, 4);
    assert_int_equal(r.first_sequence, 566);
    assert_int_equal(r.last_sequence, 569);
    assert_int_equal(r.log[RT_REGF_LOG1].valid_entries, 4);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "Hash-1"));
    char where[32];
    snprintf(where, sizeof where, "offset 0x%zx", e5);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, where));
    /* The report names each log as the caller named it, so the problem
     * is told of that file. */
    assert_string_equal(r.log[RT_REGF_LOG1].name, "log1");
    assert_string_equal(r.log[RT_REGF_LOG2].name, "log2");
    check_sealed(img, 569, 0xe2000);
    free(img);
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

static void dry_run_reports_without_image(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay(s.primary.data, s.primary.size, "ntuser",
                                    s.in, NULL, NULL, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_int_equal(r.entries_applied, 23);
    assert_int_equal(r.result_sequence, 588);
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

static void clean_primary_ignores_its_logs(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    regf_put32(s.primary.data + REGF_OFF_SEQ2, 567);
    regf_base_seal(s.primary.data);
    struct rt_regf_replay_report r;
    uint8_t *img;
    size_t n;
    assert_int_equal(rt_regf_replay(s.primary.data, s.primary.size, "ntuser",
                                    s.in, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_CLEAN);
    assert_int_equal(r.entries_applied, 0);
    assert_false(r.log[RT_REGF_LOG1].used);
    assert_int_equal(r.log[RT_REGF_LOG1].valid_entries, 23);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "not dirty"));
    assert_int_equal(n, s.primary.size);
    assert_memory_equal(img, s.primary.data, n);
    free(img);
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

/* A damaged primary base block: only the log with the latest entries is
 * used, and the base block comes from its 512-byte copy. */
static void bad_primary_checksum_takes_base_block_from_log(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    s.primary.data[REGF_OFF_CHECKSUM] ^= 0xFF;
    struct rt_regf_replay_report r;
    uint8_t *img;
    size_t n;
    assert_int_equal(rt_regf_replay(s.primary.data, s.primary.size, "ntuser",
                                    s.in, &img, &n, &r), 0);
    assert_false(r.primary_checksum_ok);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_int_equal(r.entries_applied, 23);
    check_sealed(img, 588, 0xe2000);
    uint8_t zeros[REGF_BASE_BLOCK_SIZE - 512] = {0};
    assert_memory_equal(img + 512, zeros, sizeof zeros);
    assert_memory_equal(img + 48, s.log1.data + 48, 64);   /* file name */
    free(img);
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

/* ---- damaged logs: clean stops, never a crash ---- */

static void replay_mem(struct ntuser *s, struct rt_regf_replay_report *r,
                       int want_ret)
{
    uint8_t *img = NULL;
    size_t n;
    assert_int_equal(rt_regf_replay(s->primary.data, s->primary.size,
                                    "ntuser", s->in, &img, &n, r),
                     want_ret);
    if (want_ret == 0)
        assert_false(regf_base_is_dirty(img));
    else
        assert_null(img);
    free(img);
}

static void truncated_log_applies_entries_before_the_cut(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    size_t e3 = entry_offset(&s.log1, 2);
    s.in[RT_REGF_LOG1].size = e3 + 0x1000;
    struct rt_regf_replay_report r;
    replay_mem(&s, &r, 0);
    assert_int_equal(r.entries_applied, 2);
    assert_int_equal(r.last_sequence, 567);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "past the end"));
    rt_regf_replay_report_free(&r);

    s.in[RT_REGF_LOG1].size = e3 + 20;          /* inside a header */
    replay_mem(&s, &r, 0);
    assert_int_equal(r.entries_applied, 2);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "header truncated"));
    rt_regf_replay_report_free(&r);

    s.in[RT_REGF_LOG1].size = 300;              /* not even a base block */
    replay_mem(&s, &r, -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "shorter than"));
    assert_non_null(strstr(r.message, "none of its transaction logs"));
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

/* Bytes after the entries that do not start with an entry's signature,
 * zeros (padding) or any other four bytes (remnants), whether they sort
 * before "HvLE" or after it, end the chain quietly: the entries before
 * are applied and no problem is said of the log. */
static void padding_after_the_entries_ends_them_quietly(void **state)
{
    static const char *const after[] = {"\0\0\0\0", "HvLD", "AAAA", "zzzz",
                                        "HvLF"};
    for (size_t i = 0; i < sizeof after / sizeof *after; i++) {
        struct ntuser s;
        ntuser_load(*state, &s);
        size_t e3 = entry_offset(&s.log1, 2);
        memset(s.log1.data + e3, 0, s.log1.size - e3);
        memcpy(s.log1.data + e3, after[i], 4);
        struct rt_regf_replay_report r;
        replay_mem(&s, &r, 0);
        assert_int_equal(r.entries_applied, 2);
        assert_int_equal(r.last_sequence, 567);
        if (r.log[RT_REGF_LOG1].problem[0])
            fail_msg("'%.4s' after the entries: %s", after[i],
                     r.log[RT_REGF_LOG1].problem);
        rt_regf_replay_report_free(&r);
        ntuser_free(&s);
    }
}

static void bad_log_base_block_makes_log_unusable(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    struct rt_regf_replay_report r;

    memcpy(s.log1.data, "regF", 4);
    replay_mem(&s, &r, -1);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "signature"));
    rt_regf_replay_report_free(&r);
    memcpy(s.log1.data, "regf", 4);

    s.log1.data[100] ^= 1;                      /* checksum no longer fits */
    replay_mem(&s, &r, -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "checksum"));
    rt_regf_replay_report_free(&r);
    s.log1.data[100] ^= 1;

    regf_put32(s.log1.data + REGF_OFF_SEQ2, 565);   /* log half-written */
    regf_base_seal(s.log1.data);
    replay_mem(&s, &r, -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "differ"));
    rt_regf_replay_report_free(&r);
    regf_put32(s.log1.data + REGF_OFF_SEQ2, 566);

    regf_put32(s.log1.data + REGF_OFF_HBINS_SIZE, 0x1234);
    regf_base_seal(s.log1.data);
    replay_mem(&s, &r, -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "hive bins size"));
    rt_regf_replay_report_free(&r);
    regf_put32(s.log1.data + REGF_OFF_HBINS_SIZE, 0xbe000);

    regf_put32(s.log1.data + REGF_OFF_FILE_TYPE, 9);
    regf_base_seal(s.log1.data);
    replay_mem(&s, &r, -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "file type 9"));
    rt_regf_replay_report_free(&r);
    regf_put32(s.log1.data + REGF_OFF_FILE_TYPE, 6);
    regf_base_seal(s.log1.data);

    replay_mem(&s, &r, 0);                      /* restored: works again */
    assert_int_equal(r.entries_applied, 23);
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

static void wrong_hashes_stop_the_chain(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    struct rt_regf_replay_report r;
    s.log1.data[512 + 33] ^= 0x80;              /* Hash-2 of entry 1 */
    replay_mem(&s, &r, -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_int_equal(r.log[RT_REGF_LOG1].valid_entries, 0);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "Hash-2"));
    rt_regf_replay_report_free(&r);
    s.log1.data[512 + 33] ^= 0x80;

    size_t e2 = entry_offset(&s.log1, 1);
    s.log1.data[e2 + 25] ^= 0x01;               /* Hash-1 of entry 2, */
    regf_put64(s.log1.data + e2 + 32,           /* Hash-2 still right */
               regf_marvin32(s.log1.data + e2, 32, REGF_MARVIN32_LOG_SEED));
    replay_mem(&s, &r, 0);
    assert_int_equal(r.entries_applied, 1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "Hash-1"));
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

static void entry_past_end_and_absurd_size(void **state)
{
    struct ntuser s;
    ntuser_load(*state, &s);
    struct rt_regf_replay_report r;
    size_t e2 = entry_offset(&s.log1, 1);
    regf_put32(s.log1.data + e2 + 4, 0xFFFFFE00u);
    replay_mem(&s, &r, 0);
    assert_int_equal(r.entries_applied, 1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "runs past the end"));
    rt_regf_replay_report_free(&r);
    regf_put32(s.log1.data + e2 + 4, 0x123);
    replay_mem(&s, &r, 0);
    assert_int_equal(r.entries_applied, 1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "multiple of 512"));
    rt_regf_replay_report_free(&r);
    ntuser_free(&s);
}

/* ---- synthetic hives and logs, to reach checks behind the hashes ---- */

#define SYN_TS 0x01D3C5ACA3518D62ull

struct buf {
    uint8_t *p;
    size_t len;
};

static void buf_grow(struct buf *b, size_t len)
{
    if (len <= b->len)
        return;
    b->p = realloc(b->p, len);
    assert_non_null(b->p);
    memset(b->p + b->len, 0, len - b->len);
    b->len = len;
}

static void base_block(uint8_t *b, uint32_t s1, uint32_t s2, uint32_t type,
                       uint32_t hbins)
{
    memcpy(b, "regf", 4);
    regf_put32(b + REGF_OFF_SEQ1, s1);
    regf_put32(b + REGF_OFF_SEQ2, s2);
    regf_put64(b + REGF_OFF_TIMESTAMP, SYN_TS);
    regf_put32(b + REGF_OFF_MAJOR, 1);
    regf_put32(b + REGF_OFF_MINOR, 5);
    regf_put32(b + REGF_OFF_FILE_TYPE, type);
    regf_put32(b + REGF_OFF_FILE_FORMAT, 1);
    regf_put32(b + REGF_OFF_ROOT_CELL, 0x20);
    regf_put32(b + REGF_OFF_HBINS_SIZE, hbins);
    regf_put32(b + REGF_OFF_CLUSTERING, 1);
    regf_base_seal(b);
}

static void hbin(uint8_t *p, uint32_t off, uint32_t size, uint8_t fill)
{
    memset(p, fill, size);
    memcpy(p, "hbin", 4);
    regf_put32(p + 4, off);
    regf_put32(p + 8, size);
    memset(p + 12, 0, 20);
    regf_put64(p + 20, SYN_TS);
    regf_put32(p + 32, size - 32);      /* one free cell */
}

/* A dirty primary (sequence 10/9) with NBINS 4096-byte bins. */
static struct buf syn_primary(int nbins)
{
    struct buf b = {NULL, 0};
    buf_grow(&b, REGF_BASE_BLOCK_SIZE + 4096 * (size_t)nbins);
    base_block(b.p, 10, 9, 0, 4096u * (uint32_t)nbins);
    for (int i = 0; i < nbins; i++)
        hbin(b.p + REGF_BASE_BLOCK_SIZE + 4096 * (size_t)i, 4096u * (uint32_t)i,
             4096, 0x11);
    return b;
}

static void rehash(uint8_t *e)
{
    uint32_t size = regf_le32(e + 4);
    regf_put64(e + 24, regf_marvin32(e + 40, size - 40, REGF_MARVIN32_LOG_SEED));
    regf_put64(e + 32, regf_marvin32(e, 32, REGF_MARVIN32_LOG_SEED));
}

/* Appends an entry writing whole bins (0x22 + sequence filled) at the
 * given hive offsets. Returns its file offset. */
static size_t add_entry(struct buf *log, uint32_t seq, uint32_t hbins,
                        int npages, const uint32_t *offs)
{
    size_t pos = log->len;
    size_t hdr = 40 + 8 * (size_t)npages;
    size_t size = (hdr + 4096 * (size_t)npages + 511) / 512 * 512;
    buf_grow(log, pos + size);
    uint8_t *e = log->p + pos;
    memcpy(e, "HvLE", 4);
    regf_put32(e + 4, (uint32_t)size);
    regf_put32(e + 12, seq);
    regf_put32(e + 16, hbins);
    regf_put32(e + 20, (uint32_t)npages);
    for (int i = 0; i < npages; i++) {
        regf_put32(e + 40 + 8 * i, offs[i]);
        regf_put32(e + 44 + 8 * i, 4096);
        hbin(e + hdr + 4096 * (size_t)i, offs[i], 4096, (uint8_t)(0x22 + seq));
    }
    rehash(e);
    return pos;
}

/* A new-format log starting at sequence 10: entry 10 rewrites bin 1,
 * entry 11 adds bin 2 (the hive grows), entry 12 rewrites bin 0. */
static struct buf syn_log(void)
{
    struct buf log = {NULL, 0};
    buf_grow(&log, 512);
    base_block(log.p, 10, 10, 6, 0x2000);
    add_entry(&log, 10, 0x2000, 1, (uint32_t[]){0x1000});
    add_entry(&log, 11, 0x3000, 1, (uint32_t[]){0x2000});
    add_entry(&log, 12, 0x3000, 1, (uint32_t[]){0x0});
    return log;
}

static int syn_replay(struct buf *primary, struct buf *log1,
                      struct rt_regf_replay_report *r, struct buf *out)
{
    struct rt_regf_log_input in[RT_REGF_LOG_SLOTS] = {
        {"log1", log1->p, log1->len}, {NULL, NULL, 0}, {NULL, NULL, 0}};
    out->p = NULL;
    out->len = 0;
    return rt_regf_replay(primary->p, primary->len, "syn", in, &out->p,
                          &out->len, r);
}

static void synthetic_log_grows_the_hive(void **state)
{
    (void)state;
    struct buf primary = syn_primary(2), log = syn_log(), out;
    struct rt_regf_replay_report r;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    assert_int_equal(r.entries_applied, 3);
    assert_int_equal(out.len, REGF_BASE_BLOCK_SIZE + 0x3000);
    check_sealed(out.p, 12, 0x3000);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x100], 0x22 + 12);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x1100], 0x22 + 10);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x2100], 0x22 + 11);
    rt_regf_replay_report_free(&r);
    free(out.p);
    free(primary.p);
    free(log.p);
}

/* Damages entry 11 (field at FIELD set to VALUE, and FIELD2 to VALUE2
 * unless FIELD2 is 0), re-hashed so that only the field checks can catch
 * it. */
static void expect_entry_rejected2(uint32_t field, uint32_t value,
                                   uint32_t field2, uint32_t value2,
                                   const char *why)
{
    struct buf primary = syn_primary(2), log = syn_log(), out;
    size_t e = 512 + regf_le32(log.p + 512 + 4);
    regf_put32(log.p + e + field, value);
    if (field2)
        regf_put32(log.p + e + field2, value2);
    rehash(log.p + e);
    struct rt_regf_replay_report r;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    assert_int_equal(r.entries_applied, 1);
    if (!strstr(r.log[RT_REGF_LOG1].problem, why))
        fail_msg("field %u = 0x%x: problem '%s', expected '%s'", field, value,
                 r.log[RT_REGF_LOG1].problem, why);
    check_sealed(out.p, 10, 0x2000);
    rt_regf_replay_report_free(&r);
    free(out.p);
    free(primary.p);
    free(log.p);
}

static void expect_entry_rejected(uint32_t field, uint32_t value,
                                  const char *why)
{
    expect_entry_rejected2(field, value, 0, 0, why);
}

static void hashed_but_absurd_entries_stop_the_replay(void **state)
{
    (void)state;
    expect_entry_rejected(16, 0xFFFFF000u, "hive bins size");
    expect_entry_rejected(16, 0x1800, "hive bins size");
    expect_entry_rejected(16, 0x2000, "past the hive bins size");
    expect_entry_rejected(20, 0, "page references");
    expect_entry_rejected(20, 0x20000000u, "page references");
    expect_entry_rejected2(40, 0x1000, 44, 0x2000, "run past its size");
    /* A hive grown to 2 GB by a page of 4 KB: Windows logs every bin it
     * adds; this entry would have a few KB of log allocate gigabytes. */
    expect_entry_rejected2(16, 0x7FFFF000u, 40, 0x7FFFE000u,
                           "more than its dirty pages hold");
    expect_entry_rejected(40, 0x7FFFF000u, "past the hive bins size");
    expect_entry_rejected(40, 0x100, "aligned");
    expect_entry_rejected(44, 0, "aligned");
    expect_entry_rejected(44, 0x10000, "past the hive bins size");
    expect_entry_rejected(12, 13, "does not continue");
}

static void first_entry_must_match_the_log_sequence(void **state)
{
    (void)state;
    struct buf primary = syn_primary(2), log = syn_log(), out;
    regf_put32(log.p + 512 + 12, 11);
    rehash(log.p + 512);
    struct rt_regf_replay_report r;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "base block says 10"));
    rt_regf_replay_report_free(&r);

    /* A log older than the primary's secondary sequence number is stale. */
    regf_put32(log.p + 512 + 12, 10);
    rehash(log.p + 512);
    regf_put32(primary.p + REGF_OFF_SEQ1, 12);
    regf_put32(primary.p + REGF_OFF_SEQ2, 11);
    regf_base_seal(primary.p);
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "older"));
    rt_regf_replay_report_free(&r);
    free(primary.p);
    free(log.p);
}

static void bad_primary_and_missing_logs(void **state)
{
    (void)state;
    struct buf primary = syn_primary(1), log = syn_log(), out;
    struct rt_regf_replay_report r;
    struct rt_regf_log_input none[RT_REGF_LOG_SLOTS] = {{0}};

    assert_int_equal(rt_regf_replay(primary.p, primary.len, "syn", none,
                                    &out.p, &out.len, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_non_null(strstr(r.message, "no transaction log"));
    rt_regf_replay_report_free(&r);

    assert_int_equal(rt_regf_replay(primary.p, 100, "syn", none, &out.p,
                                    &out.len, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_BAD_PRIMARY);
    assert_non_null(strstr(r.message, "shorter than"));
    rt_regf_replay_report_free(&r);

    assert_int_equal(rt_regf_replay(log.p, log.len, "syn", none, &out.p,
                                    &out.len, &r), -1);
    assert_non_null(strstr(r.message, "not a primary"));
    rt_regf_replay_report_free(&r);

    memcpy(primary.p, "XXXX", 4);
    assert_int_equal(rt_regf_replay(primary.p, primary.len, "syn", none,
                                    &out.p, &out.len, &r), -1);
    assert_non_null(strstr(r.message, "signature"));
    assert_null(out.p);
    rt_regf_replay_report_free(&r);
    free(primary.p);
    free(log.p);
}

/* Old format: base block copy (file type 1), "DIRT", a bitmap with one
 * bit per 512-byte page, then the dirty pages. */
static struct buf old_log(uint32_t hbins, const int *dirty_bins, int ndirty,
                          uint8_t fill)
{
    struct buf log = {NULL, 0};
    size_t bitmap = hbins / 4096;
    size_t pages_off = (512 + 4 + bitmap + 511) / 512 * 512;
    buf_grow(&log, pages_off + 4096 * (size_t)ndirty);
    base_block(log.p, 10, 10, 1, hbins);
    memcpy(log.p + 512, "DIRT", 4);
    for (int i = 0; i < ndirty; i++) {
        log.p[516 + dirty_bins[i]] = 0xFF;     /* 8 pages: one bin */
        hbin(log.p + pages_off + 4096 * (size_t)i,
             4096u * (uint32_t)dirty_bins[i], 4096, fill);
    }
    return log;
}

static void old_format_log_replays_dirty_bins(void **state)
{
    (void)state;
    struct buf primary = syn_primary(3), out;
    struct buf log = old_log(0x3000, (int[]){0, 2}, 2, 0x77);
    struct rt_regf_replay_report r;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    assert_int_equal(r.format_applied, RT_REGF_LOG_OLD);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_OLD);
    assert_int_equal(r.log[RT_REGF_LOG1].dirty_pages, 16);
    assert_int_equal(r.pages_applied, 16);
    check_sealed(out.p, 10, 0x3000);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x100], 0x77);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x1100], 0x11);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x2100], 0x77);
    rt_regf_replay_report_free(&r);
    free(out.p);

    /* A bad dirty bin stops the replay; the bins before it stay. */
    regf_put32(log.p + 1024 + 4096 + 4, 0x5000);
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    assert_int_equal(r.pages_applied, 8);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "not a valid hive bin"));
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x2100], 0x11);
    rt_regf_replay_report_free(&r);
    free(out.p);
    regf_put32(log.p + 1024 + 4096 + 4, 0x2000);

    /* Only a log with the primary's timestamp applies. */
    regf_put64(log.p + REGF_OFF_TIMESTAMP, SYN_TS + 1);
    regf_base_seal(log.p);
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "timestamp"));
    rt_regf_replay_report_free(&r);
    regf_put64(log.p + REGF_OFF_TIMESTAMP, SYN_TS);
    regf_base_seal(log.p);

    /* A damaged base block: the first bin's timestamp is the primary's,
     * and a first bin without its signature ("hbia", which sorts before
     * "hbin", as "hbio" after) gives none, so no log applies. */
    primary.p[REGF_OFF_CHECKSUM] ^= 0xFF;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    assert_int_equal(r.format_applied, RT_REGF_LOG_OLD);
    rt_regf_replay_report_free(&r);
    free(out.p);
    const char *not_hbin[] = {"hbia", "hbio"};
    for (int i = 0; i < 2; i++) {
        memcpy(primary.p + REGF_BASE_BLOCK_SIZE, not_hbin[i], 4);
        assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
        assert_non_null(strstr(r.log[RT_REGF_LOG1].problem,
                               "no timestamp to match"));
        rt_regf_replay_report_free(&r);
    }
    memcpy(primary.p + REGF_BASE_BLOCK_SIZE, "hbin", 4);
    primary.p[REGF_OFF_CHECKSUM] ^= 0xFF;

    /* Pages missing at the end: the log was never completed. */
    log.len -= 512;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "holds only 15"));
    rt_regf_replay_report_free(&r);

    log.len = 600;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    rt_regf_replay_report_free(&r);
    memcpy(log.p + 512, "DIRt", 4);
    log.len = 1024 + 2 * 4096;
    assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
    assert_non_null(strstr(r.log[RT_REGF_LOG1].problem, "DIRT"));
    rt_regf_replay_report_free(&r);
    free(primary.p);
    free(log.p);
}

/* ---- discovery ---- */

static void touch(const char *dir, const char *name)
{
    char *p;
    assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fclose(f);
    free(p);
}

static const char *tail(const char *path)
{
    return path ? strrchr(path, '/') + 1 : "(none)";
}

static void logs_found_in_any_letter_case(void **state)
{
    struct fixture *fx = *state;
    char *dir = path_in(fx, "discovery");
    assert_int_equal(mkdir(dir, 0700), 0);
    touch(dir, "Hive.dat");
    touch(dir, "hive.dat.log1");
    touch(dir, "HIVE.DAT.Log2");
    touch(dir, "hive.DAT.log10");       /* not a log of this hive */
    touch(dir, "hivex.dat.log");
    char *sub;
    assert_true(asprintf(&sub, "%s/Hive.dat.LOG", dir) > 0);
    assert_int_equal(mkdir(sub, 0700), 0);  /* a directory is no log */
    char *primary;
    assert_true(asprintf(&primary, "%s/Hive.dat", dir) > 0);

    struct rt_regf_log_paths p;
    assert_int_equal(rt_regf_log_find(primary, &p), 0);
    assert_string_equal(tail(p.path[RT_REGF_LOG1]), "hive.dat.log1");
    assert_string_equal(tail(p.path[RT_REGF_LOG2]), "HIVE.DAT.Log2");
    assert_null(p.path[RT_REGF_LOG]);
    /* The folder is noted as what it is, for a dirty hive to refuse. */
    assert_string_equal(tail(p.not_file[RT_REGF_LOG]), "Hive.dat.LOG");
    assert_string_equal(p.not_file_what[RT_REGF_LOG], "a folder");
    assert_null(p.not_file[RT_REGF_LOG1]);
    assert_int_equal(strncmp(p.path[RT_REGF_LOG1], dir, strlen(dir)), 0);
    rt_regf_log_paths_free(&p);

    /* Several spellings: the primary's own with an upper-case extension
     * first, then with a lower-case one. */
    touch(dir, "Hive.dat.log2");
    touch(dir, "Hive.dat.LOG1");
    assert_int_equal(rt_regf_log_find(primary, &p), 0);
    assert_string_equal(tail(p.path[RT_REGF_LOG1]), "Hive.dat.LOG1");
    assert_string_equal(tail(p.path[RT_REGF_LOG2]), "Hive.dat.log2");
    rt_regf_log_paths_free(&p);

    char *missing;
    assert_true(asprintf(&missing, "%s/nodir/Hive.dat", dir) > 0);
    assert_int_equal(rt_regf_log_find(missing, &p), -1);
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay_file(missing, NULL, NULL, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_IO_ERROR);
    assert_non_null(strstr(r.message, "nodir/Hive.dat"));
    rt_regf_replay_report_free(&r);

    run("rm -rf '%s'", dir);
    free(missing);
    free(primary);
    free(sub);
    free(dir);
}

/* Several logs of one slot and of the same rank (none spelled like the
 * primary): the first in byte order is used, whatever order the
 * directory lists them in. Created in ascending order in one folder and
 * descending in another, for several primaries, so that the listing's
 * own order (creation order on some file systems, a hash of the name on
 * others) gives the first in byte order last somewhere. */
static void logs_of_the_same_rank_first_in_byte_order(void **state)
{
    struct fixture *fx = *state;
    static const char *const spelled[] = {"HIVE%d.DAT.LOG1", "HiVe%d.dat.LoG1",
                                          "hIVE%d.dat.log1", "hive%d.DAT.Log1",
                                          "hive%d.dat.lOG1"};
    const size_t n_spelled = sizeof spelled / sizeof *spelled;
    for (int order = 0; order < 2; order++) {
        char folder[32];
        snprintf(folder, sizeof folder, "same-rank-%d", order);
        char *dir = path_in(fx, folder);
        assert_int_equal(mkdir(dir, 0700), 0);
        for (int base = 0; base < 6; base++) {
            char name[64];
            snprintf(name, sizeof name, "Hive%d.dat", base);
            touch(dir, name);
            for (size_t i = 0; i < n_spelled; i++) {
                size_t k = order ? n_spelled - 1 - i : i;
                snprintf(name, sizeof name, spelled[k], base);
                touch(dir, name);
            }
        }
        for (int base = 0; base < 6; base++) {
            char *primary, want[64];
            assert_true(asprintf(&primary, "%s/Hive%d.dat", dir, base) > 0);
            snprintf(want, sizeof want, spelled[0], base);
            struct rt_regf_log_paths p;
            assert_int_equal(rt_regf_log_find(primary, &p), 0);
            assert_string_equal(tail(p.path[RT_REGF_LOG1]), want);
            assert_null(p.path[RT_REGF_LOG2]);
            rt_regf_log_paths_free(&p);
            free(primary);
        }
        run("rm -rf '%s'", dir);
        free(dir);
    }
}

/* ---- mutation fuzzing: never a crash or an out-of-bounds read ---- */

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Re-hashes every entry whose size fits, so that mutations reach the
 * field checks behind the hashes. */
static void rehash_all(struct buf *log)
{
    size_t pos = 512;
    while (pos + 40 <= log->len && !memcmp(log->p + pos, "HvLE", 4)) {
        uint32_t size = regf_le32(log->p + pos + 4);
        if (size < 40 || size > log->len - pos)
            break;
        rehash(log->p + pos);
        if (size < 512)
            break;
        pos += size;
    }
    regf_base_seal(log->p);
}

static void fuzz_one(struct buf *primary, const struct buf *orig, uint64_t *rng,
                     int rounds, int max_entries)
{
    struct buf log = {malloc(orig->len), orig->len};
    assert_non_null(log.p);
    for (int i = 0; i < rounds; i++) {
        memcpy(log.p, orig->p, orig->len);
        log.len = orig->len;
        int flips = 1 + (int)(xorshift(rng) % 8);
        for (int k = 0; k < flips; k++) {
            /* Mostly the headers and references, where lengths live. */
            uint64_t x = xorshift(rng);
            size_t at = (x & 1) ? (size_t)(x >> 8) % log.len
                                : (size_t)(x >> 8) % (log.len < 1024 ? log.len : 1024);
            log.p[at] ^= (uint8_t)(1u << ((x >> 1) % 8));
        }
        uint64_t y = xorshift(rng);
        if (y % 3 == 0)
            log.len = 512 + (size_t)(y >> 8) % (log.len - 512);
        if (y % 2 == 0)
            rehash_all(&log);
        struct buf out;
        struct rt_regf_replay_report r;
        int ret = syn_replay(primary, &log, &r, &out);
        if (ret == 0) {
            assert_false(regf_base_is_dirty(out.p));
            assert_true(r.entries_applied <= (size_t)max_entries);
            /* never beyond what a hive can be (2 GiB) */
            assert_true(out.len <= REGF_BASE_BLOCK_SIZE + (size_t)0x7FFFF000u);
        } else {
            assert_null(out.p);
        }
        free(out.p);
        rt_regf_replay_report_free(&r);
    }
    free(log.p);
}

static void mutated_logs_never_crash(void **state)
{
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    struct buf primary = syn_primary(2), log = syn_log();
    fuzz_one(&primary, &log, &rng, 3000, 3);
    free(primary.p);
    free(log.p);

    /* The real NTUSER LOG2 (one entry), made applicable to its primary. */
    struct ntuser s;
    ntuser_load(*state, &s);
    regf_put32(s.primary.data + REGF_OFF_SEQ1, 563);
    regf_put32(s.primary.data + REGF_OFF_SEQ2, 562);
    regf_base_seal(s.primary.data);
    struct buf real_primary = {s.primary.data, s.primary.size};
    struct buf real_log = {s.log2.data, s.log2.size};
    fuzz_one(&real_primary, &real_log, &rng, 300, 1);
    ntuser_free(&s);
}

/* An old-format log grows the hive only by pages it holds: Windows logs
 * every page of the bins a hive grows by. A hive bins size past the
 * primary's with a page there not dirty (a sparse vector and one dirty
 * page claiming 2 GB) is not replayed: no reader sizes the hive to it. */
static void old_format_log_grows_only_by_its_pages(void **state)
{
    (void)state;
    struct buf primary = syn_primary(2), out;
    struct rt_regf_replay_report r;
    /* Grown by bin 2, logged whole: replayed. */
    struct buf log = old_log(0x3000, (int[]){0, 2}, 2, 0x77);
    assert_int_equal(syn_replay(&primary, &log, &r, &out), 0);
    check_sealed(out.p, 10, 0x3000);
    assert_int_equal(out.p[REGF_BASE_BLOCK_SIZE + 0x2100], 0x77);
    rt_regf_replay_report_free(&r);
    free(out.p);
    free(log.p);
    /* Grown by bins 2 and 3, bin 3 not logged; and to 2 GB by one page. */
    const uint32_t claims[] = {0x4000, 0x7FFFF000u};
    for (int i = 0; i < 2; i++) {
        log = old_log(claims[i], (int[]){0, 2}, 2, 0x77);
        out.p = NULL;
        assert_int_equal(syn_replay(&primary, &log, &r, &out), -1);
        assert_null(out.p);
        assert_int_equal(r.pages_applied, 0);
        assert_non_null(strstr(r.log[RT_REGF_LOG1].problem,
                               "pages the log does not hold"));
        rt_regf_replay_report_free(&r);
        free(log.p);
    }
    free(primary.p);
}

static void mutated_old_logs_never_crash(void **state)
{
    (void)state;
    uint64_t rng = 0xD1B54A32D192ED03ull;
    struct buf primary = syn_primary(3);
    struct buf log = old_log(0x3000, (int[]){0, 2}, 2, 0x77);
    fuzz_one(&primary, &log, &rng, 2000, 0);
    free(primary.p);
    free(log.p);
}


/* ---- files on disk: read as far as the format says, copied aside ---- */

static void marvin32_in_pieces_equals_whole(void **state)
{
    (void)state;
    uint8_t data[1031];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (uint8_t)(i * 131 + 7);
    for (size_t len = 0; len < sizeof data; len += 37) {
        size_t whole = len & ~(size_t)3;
        struct regf_marvin32 m;
        regf_marvin32_begin(&m, REGF_MARVIN32_LOG_SEED);
        /* Pieces of 4, 8, 12, ... bytes, then the 0-3 left over. */
        size_t at = 0;
        for (size_t step = 4; at + step <= whole; step += 4) {
            regf_marvin32_blocks(&m, data + at, step);
            at += step;
        }
        regf_marvin32_blocks(&m, data + at, whole - at);
        assert_int_equal(regf_marvin32_end(&m, data + whole, len - whole),
                         regf_marvin32(data, len, REGF_MARVIN32_LOG_SEED));
    }
}

static void write_file(const char *path, const struct buf *b, uint64_t size,
                       mode_t mode)
{
    unlink(path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b->p, 1, b->len, f), b->len);
    assert_int_equal(fclose(f), 0);
    /* The rest: a hole, as `truncate -s` makes one. */
    if (size > b->len)
        assert_int_equal(truncate(path, (off_t)size), 0);
    assert_int_equal(chmod(path, mode), 0);
}

/* DEST holds exactly the first LEN bytes of WANT, in few blocks, at MODE. */
static void expect_copy(const char *dest, const struct buf *want, size_t len,
                        mode_t mode)
{
    struct stat st;
    assert_int_equal(stat(dest, &st), 0);
    assert_int_equal(st.st_size, (off_t)len);
    assert_int_equal(st.st_mode & 07777, mode);
    /* 512-byte blocks: the data and a little, never the source's holes. */
    assert_true((uint64_t)st.st_blocks * 512 <= len + 65536);
    FILE *f = fopen(dest, "rb");
    assert_non_null(f);
    uint8_t *got = malloc(len + 1);
    assert_non_null(got);
    assert_int_equal(fread(got, 1, len + 1, f), len);
    fclose(f);
    assert_memory_equal(got, want->p, len);
    free(got);
}

/* A primary copied aside a piece (1 MiB) at a time: a piece of zeros is
 * left as a hole, and every other is written as it is, one of a single
 * repeated byte other than 0 included, and the last piece of one byte:
 * the base block and bins up to 1 MiB, 1 MiB of zeros, 1 MiB of 0x01
 * bytes, then one byte past the bins (Windows' unused tail). */
static void primary_copied_aside_piece_by_piece(void **state)
{
    struct fixture *fx = *state;
    char *dir = path_in(fx, "pieces");
    run("mkdir -p '%s'", dir);
    char *primary = path_in(fx, "pieces/hive"), *copy = path_in(fx, "pieces/copy");
    const size_t mib = (size_t)1 << 20, len = 3 * mib + 1;
    struct buf want = {calloc(1, len), len};
    assert_non_null(want.p);
    memcpy(want.p, "regf", 4);
    regf_put32(want.p + REGF_OFF_HBINS_SIZE, (uint32_t)(3 * mib - REGF_BASE_BLOCK_SIZE));
    for (size_t i = REGF_BASE_BLOCK_SIZE; i < mib; i++)
        want.p[i] = (uint8_t)(i * 7 + 1);
    memset(want.p + 2 * mib, 0x01, mib);
    want.p[3 * mib] = 0x5A;
    write_file(primary, &want, len, 0640);
#ifdef HAVE_FSYNC_HOOK
    unsigned fsyncs_before = fsync_calls;
#endif
    int made = 0;
    assert_int_equal(rt_regf_copy_aside(primary, 0, copy, &made), 0);
    assert_true(made);
    expect_copy(copy, &want, len, 0640);
#ifdef HAVE_FSYNC_HOOK
    /* Made durable (fsynced once, at its whole length) before the copy
     * is reported made: a crash after never leaves a copy short. */
    assert_int_equal(fsync_calls - fsyncs_before, 1);
    assert_int_equal(fsync_last_size, (long long)len);
#endif
    struct stat st;
    assert_int_equal(stat(copy, &st), 0);
    /* Two pieces and a byte written, the zeros a hole. */
    assert_true((uint64_t)st.st_blocks * 512 <= 2 * mib + 65536);
    unlink(copy);
    unlink(primary);
    rmdir(dir);
    free(want.p);
    free(primary);
    free(copy);
    free(dir);
}

static void logs_read_and_copied_as_far_as_their_format(void **state)
{
    struct fixture *fx = *state;
    char *dir = path_in(fx, "aside");
    run("mkdir -p '%s'", dir);
    char *primary = path_in(fx, "aside/hive"), *log1 = path_in(fx, "aside/hive.LOG1");
    char *copy = path_in(fx, "aside/copy");
    struct buf p = syn_primary(2), log = syn_log();
    /* A valid chain of three entries, then a gigabyte of sparse zeros. */
    write_file(primary, &p, p.len, 0640);
    write_file(log1, &log, (uint64_t)1 << 30, 0600);

    uint8_t *img;
    size_t n;
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay_file(primary, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_APPLIED);
    assert_int_equal(r.entries_applied, 3);
    assert_int_equal(n, REGF_BASE_BLOCK_SIZE + 0x3000);
    check_sealed(img, 12, 0x3000);
    free(img);
    rt_regf_replay_report_free(&r);

    /* The log's copy: its base block and three entries, at its mode. */
    int made = 0;
    assert_int_equal(rt_regf_copy_aside(log1, 1, copy, &made), 0);
    assert_true(made);
    expect_copy(copy, &log, log.len, 0600);
    unlink(copy);
    /* The primary's: whole, at its mode. */
    assert_int_equal(rt_regf_copy_aside(primary, 0, copy, &made), 0);
    assert_true(made);
    expect_copy(copy, &p, p.len, 0640);
    /* DEST is never replaced. */
    assert_int_equal(rt_regf_copy_aside(primary, 0, copy, &made), -1);
    assert_false(made);
    unlink(copy);

    /* Old format: the base block, the dirty vector and the 16 pages it
     * marks; the file after them is not the log's. */
    struct buf old = old_log(0x3000, (int[]){0, 2}, 2, 0x77);
    write_file(log1, &old, (uint64_t)1 << 30, 0600);
    assert_int_equal(rt_regf_copy_aside(log1, 1, copy, &made), 0);
    assert_true(made);
    expect_copy(copy, &old, old.len, 0600);
    unlink(copy);

    /* No log at all (a secret, say): nothing of it is copied. */
    struct buf text = {(uint8_t *)"root:$6$secret:19000:0:99999:7:::\n", 35};
    write_file(log1, &text, text.len, 0600);
    assert_int_equal(rt_regf_copy_aside(log1, 1, copy, &made), 0);
    assert_false(made);
    assert_int_equal(access(copy, F_OK), -1);
    /* Not a regular file: refused (by the open, or on its descriptor),
     * nothing copied. */
    unlink(log1);
    assert_int_equal(mkdir(log1, 0700), 0);
    assert_int_equal(rt_regf_copy_aside(log1, 1, copy, &made), -1);
    assert_false(made);
    assert_int_equal(access(copy, F_OK), -1);
    rmdir(log1);

    /* A primary running a gigabyte past its bins: only the base block
     * and the bins are read, and copied. */
    write_file(primary, &p, (uint64_t)1 << 30, 0640);
    assert_int_equal(rt_regf_replay_file(primary, &img, &n, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_int_equal(r.primary_file_size, (uint64_t)1 << 30);
    assert_int_equal(r.primary_read, p.len);
    rt_regf_replay_report_free(&r);
    assert_int_equal(rt_regf_copy_aside(primary, 0, copy, &made), 0);
    assert_true(made);
    expect_copy(copy, &p, p.len, 0640);
    unlink(copy);
    /* Within Windows' unused tail (16 MiB), the file is read whole. */
    write_file(primary, &p, p.len + ((uint64_t)1 << 20), 0640);
    assert_int_equal(rt_regf_replay_file(primary, &img, &n, &r), -1);
    assert_int_equal(r.primary_read, p.len + ((uint64_t)1 << 20));
    rt_regf_replay_report_free(&r);

    run("rm -rf '%s'", dir);
    free(old.p);
    free(log.p);
    free(p.p);
    free(copy);
    free(log1);
    free(primary);
    free(dir);
}

/* A FIFO (or a folder, a link, a device) named like a log is never
 * opened: beside a dirty primary it is refused by name, and no log is
 * replayed without it, even a good LOG2; beside a clean one it is listed
 * as not read, as Windows ignores a clean hive's logs. */
static void log_that_is_no_file_is_refused_by_name(void **state)
{
    struct fixture *fx = *state;
    char *dir = path_in(fx, "nofile");
    run("mkdir -p '%s'", dir);
    char *primary = path_in(fx, "nofile/hive");
    char *log1 = path_in(fx, "nofile/hive.LOG1");
    char *log2 = path_in(fx, "nofile/hive.LOG2");
    struct buf p = syn_primary(2), log = syn_log();
    write_file(primary, &p, p.len, 0644);
    write_file(log2, &log, log.len, 0644);
    assert_int_equal(mkfifo(log1, 0644), 0);

    uint8_t *img = (uint8_t *)"unset";
    size_t n = 1;
    struct rt_regf_replay_report r;
    assert_int_equal(rt_regf_replay_file(primary, &img, &n, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    assert_null(img);
    assert_int_equal(n, 0);
    assert_non_null(strstr(r.message, "nofile/hive.LOG1 is a FIFO, not a "
                                      "regular file: refused"));
    assert_string_equal(tail(r.log[RT_REGF_LOG1].name), "hive.LOG1");
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    rt_regf_replay_report_free(&r);
    /* Without an image (hive check): the same. */
    assert_int_equal(rt_regf_replay_file(primary, NULL, NULL, &r), -1);
    assert_int_equal(r.status, RT_REGF_REPLAY_NO_USABLE_LOG);
    rt_regf_replay_report_free(&r);

    /* Clean: replayed as clean, the FIFO listed as not read. */
    regf_put32(p.p + REGF_OFF_SEQ2, regf_le32(p.p + REGF_OFF_SEQ1));
    regf_base_seal(p.p);
    write_file(primary, &p, p.len, 0644);
    assert_int_equal(rt_regf_replay_file(primary, &img, &n, &r), 0);
    assert_int_equal(r.status, RT_REGF_REPLAY_CLEAN);
    assert_int_equal(n, p.len);
    free(img);
    assert_int_equal(r.log[RT_REGF_LOG1].format, RT_REGF_LOG_INVALID);
    assert_string_equal(r.log[RT_REGF_LOG1].problem,
                        "a FIFO, not a regular file: not read");
    rt_regf_replay_report_free(&r);

    run("rm -rf '%s'", dir);
    free(log.p);
    free(p.p);
    free(log2);
    free(log1);
    free(primary);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(marvin32_published_vectors),
        cmocka_unit_test(log_read_stays_within_the_measured_size),
        cmocka_unit_test(ntuser_replays_23_entries_from_log1),
        cmocka_unit_test(usrclass_replays_log1_then_log2),
        cmocka_unit_test(flipped_byte_in_fifth_entry_stops_before_it),
        cmocka_unit_test(dry_run_reports_without_image),
        cmocka_unit_test(clean_primary_ignores_its_logs),
        cmocka_unit_test(bad_primary_checksum_takes_base_block_from_log),
        cmocka_unit_test(truncated_log_applies_entries_before_the_cut),
        cmocka_unit_test(padding_after_the_entries_ends_them_quietly),
        cmocka_unit_test(bad_log_base_block_makes_log_unusable),
        cmocka_unit_test(wrong_hashes_stop_the_chain),
        cmocka_unit_test(entry_past_end_and_absurd_size),
        cmocka_unit_test(synthetic_log_grows_the_hive),
        cmocka_unit_test(hashed_but_absurd_entries_stop_the_replay),
        cmocka_unit_test(first_entry_must_match_the_log_sequence),
        cmocka_unit_test(bad_primary_and_missing_logs),
        cmocka_unit_test(old_format_log_replays_dirty_bins),
        cmocka_unit_test(logs_found_in_any_letter_case),
        cmocka_unit_test(logs_of_the_same_rank_first_in_byte_order),
        cmocka_unit_test(mutated_logs_never_crash),
        cmocka_unit_test(old_format_log_grows_only_by_its_pages),
        cmocka_unit_test(mutated_old_logs_never_crash),
        cmocka_unit_test(marvin32_in_pieces_equals_whole),
        cmocka_unit_test(logs_read_and_copied_as_far_as_their_format),
        cmocka_unit_test(primary_copied_aside_piece_by_piece),
        cmocka_unit_test(log_that_is_no_file_is_refused_by_name),
    };
    return cmocka_run_group_tests_name("regf_log", tests, group_setup,
                                       group_teardown);
}
