/* End to end, judged by independent readers: the regtool CLI (the binary
 * built next to this test) runs `init` with three languages (009's Help
 * is over 1 MB) in both layouts, then `install`s a provider with a new
 * service. Every key and value of SOFTWARE and SYSTEM as lib/regf reads
 * them, which is how regtool reads them, is reduced to canonical lines
 * (referee_util.h) and compared with what hivexsh, regfexport and
 * reglookup read. Where a referee cannot read what Windows can, it is
 * compared on less, and the test says so where it narrows:
 * - reglookup truncates data over 1 MiB: such values are compared on
 *   their first MiB.
 * - regfexport prints data byte by byte (about 20 s for the registry
 *   layout's SOFTWARE): in a hive holding a value over 1 MiB it is run
 *   once per key (-K) and stops before the first value over 1 MiB.
 * - hivex cannot read the values of a predefined-handle key (Perflib\009
 *   and CurrentLanguage in the files layout): hivexsh must fail on them
 *   with exactly that error ("Numerical result out of range"), and
 *   reads every other key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <time.h>
#include <unistd.h>

#include "referee_util.h"

#define MIB 1048576u
#define MAX_DEPTH 64

struct layout {
    const char *cli;            /* BUILD/regtool */
    const char *name;           /* --layout */
};

/* --- the provider --------------------------------------------------- */

static const char symbols[] =
    "#define XFER_OBJECT 0\n"
    "#define BYTES_SENT  2\n"
    "#define BYTES_RECV  4\n";

static const char ini[] =
    "[info]\n"
    "drivername=Xfer\n"
    "symbolfile=offsets.h\n"
    "\n"
    "[languages]\n"
    "009=English\n"
    "019=Russian\n"
    "\n"
    "[objects]\n"
    "XFER_OBJECT_009_NAME=\n"
    "\n"
    "[text]\n"
    "XFER_OBJECT_009_NAME=Xfer\n"
    "XFER_OBJECT_009_HELP=Transfers; with a semicolon.\n"
    "BYTES_SENT_009_NAME=Bytes Sent\n"
    "BYTES_SENT_009_HELP=Bytes sent.\n"
    "BYTES_RECV_009_NAME=Bytes Received\n"
    "BYTES_RECV_009_HELP=Bytes received.\n"
    "XFER_OBJECT_019_NAME=Передача\n"
    "XFER_OBJECT_019_HELP=Передача файлов.\n"
    "BYTES_SENT_019_NAME=Отправлено байт\n"
    "BYTES_SENT_019_HELP=Байт отправлено.\n"
    "BYTES_RECV_019_NAME=Получено байт\n"
    "BYTES_RECV_019_HELP=Байт получено.\n";

static void write_file(const char *dir, const char *name, const char *text)
{
    char *path;
    assert_true(asprintf(&path, "%s/%s", dir, name) > 0);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
    free(path);
}

/* Runs the CLI with ARGS (shell words) and fails unless it exits 0. */
static void regtool(const struct layout *l, const char *args)
{
    char *cmd;
    assert_true(asprintf(&cmd, "%s %s 2>&1; echo \"exit $?\"", l->cli, args) > 0);
    char *out = tu_capture(cmd, NULL);
    assert_non_null(out);
    size_t n = strlen(out);
    if (n < 7 || strcmp(out + n - 7, "exit 0\n"))
        fail_msg("%s:\n%s", cmd, out);
    free(out);
    free(cmd);
}

/* --- what regtool reads ------------------------------------------------ */

/* Lines of one hive as lib/regf reads it, and as each referee can show
 * it. */
struct expected {
    struct rt_regf *h;
    char *path[MAX_DEPTH];
    struct ref_lines keys;        /* relative paths of all keys but the root */
    struct ref_lines predefined;  /* predefined-handle keys among them */
    struct ref_lines cut;         /* keys regfexport -K must be stopped in */
    struct ref_lines all;         /* every key and value: ours, hivexsh */
    struct ref_lines reglookup;   /* values over 1 MiB: their first MiB */
    struct ref_lines regfexport;  /* values before a key's first over 1 MiB */
    size_t biggest;               /* largest value's size */
};

static void add_value(struct expected *e, const char *path, uint32_t v,
                      int *past_big)
{
    char *name, *r;
    uint32_t type;
    uint8_t *data;
    size_t n;
    assert_int_equal(rt_regf_value_name(e->h, v, &name), 0);
    assert_int_equal(rt_regf_value_read(e->h, v, &type, &data, &n), 0);
    if (n > e->biggest)
        e->biggest = n;
    r = ref_repr(type, data, n);
    /* hivexsh shows REG_DWORD_BIG_ENDIAN as "dword:". */
    ref_lines_add(&e->all, ref_value_line(path, name,
                                          type == RT_REG_DWORD_BIG_ENDIAN ? RT_REG_DWORD
                                                                          : type, r));
    if (n > MIB)
        *past_big = 1;
    if (!*past_big)
        ref_lines_add(&e->regfexport, ref_value_line(path, name, type, r));
    free(r);
    r = ref_repr(type, data, n > MIB ? MIB : n);
    ref_lines_add(&e->reglookup, ref_value_line(path, name, type, r));
    free(r);
    free(name);
    free(data);
}

static int visit(void *ctx, uint32_t key, unsigned depth)
{
    struct expected *e = ctx;
    struct rt_regf_key_info ki;
    assert_true(depth < MAX_DEPTH);
    assert_int_equal(rt_regf_key_info(e->h, key, &ki), 0);
    free(e->path[depth]);
    if (depth == 0)
        e->path[0] = strdup("");
    else
        assert_true(asprintf(&e->path[depth], "%s%s%s", e->path[depth - 1],
                             depth > 1 ? "\\" : "", ki.name) > 0);
    const char *path = e->path[depth];
    if (depth) {
        ref_lines_add(&e->keys, strdup(path));
        ref_lines_add(&e->all, ref_key_line(path));
        ref_lines_add(&e->reglookup, ref_key_line(path));
        ref_lines_add(&e->regfexport, ref_key_line(path));
    }
    if (ki.predefined)
        ref_lines_add(&e->predefined, strdup(path));
    uint32_t *vals;
    size_t nv;
    int past_big = 0;
    assert_int_equal(rt_regf_values(e->h, key, &vals, &nv), 0);
    for (size_t i = 0; i < nv; i++)
        add_value(e, path, vals[i], &past_big);
    free(vals);
    if (ki.n_subkeys || past_big)
        ref_lines_add(&e->cut, strdup(path));
    rt_regf_key_info_free(&ki);
    return 0;
}

static void expect_hive(const char *hive, struct expected *e)
{
    char err[256];
    memset(e, 0, sizeof *e);
    if (rt_regf_open(hive, 0, &e->h, err, sizeof err))
        fail_msg("%s", err);
    if (rt_regf_walk(e->h, rt_regf_root(e->h), visit, e))
        fail_msg("%s", rt_regf_errmsg(e->h));
    rt_regf_close(e->h);
    e->h = NULL;
    for (int i = 0; i < MAX_DEPTH; i++)
        free(e->path[i]);
    ref_finish(&e->all);
    ref_finish(&e->reglookup);
    ref_finish(&e->regfexport);
}

static void expected_free(struct expected *e)
{
    ref_lines_free(&e->keys);
    ref_lines_free(&e->predefined);
    ref_lines_free(&e->cut);
    ref_lines_free(&e->all);
    ref_lines_free(&e->reglookup);
    ref_lines_free(&e->regfexport);
}

static int listed(const struct ref_lines *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->v[i], s))
            return 1;
    return 0;
}

/* The first line of L starting with PREFIX, or NULL. */
static const char *line_with(const struct ref_lines *l, const char *prefix)
{
    for (size_t i = 0; i < l->n; i++)
        if (!strncmp(l->v[i], prefix, strlen(prefix)))
            return l->v[i];
    return NULL;
}

static size_t value_size(const char *hive, const char *key, const char *name)
{
    char err[256];
    struct rt_regf *h;
    uint32_t k, type;
    uint8_t *data;
    size_t n;
    if (rt_regf_open(hive, 0, &h, err, sizeof err))
        fail_msg("%s", err);
    assert_int_equal(rt_regf_lookup(h, rt_regf_root(h), key, &k), 0);
    assert_int_equal(rt_regf_get_value(h, k, name, &type, &data, &n), 0);
    free(data);
    rt_regf_close(h);
    return n;
}

/* --- the referees ------------------------------------------------------ */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* hivexsh cannot list a predefined-handle key's values; it must say so
 * with exactly that error and fail, not show an empty key. */
static void hivexsh_refuses(const char *hive, const char *path)
{
    char *dir = tu_tmpdir(), *script, *cmd;
    assert_true(asprintf(&script, "%s/script", dir) > 0);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "cd \\%s\nlsval\n", path);
    fclose(f);
    assert_true(asprintf(&cmd, "hivexsh -f '%s' '%s' 2>&1; echo \"exit $?\"",
                         script, hive) > 0);
    char *out = tu_capture(cmd, NULL);
    assert_non_null(out);
    if (strcmp(out, "hivexsh: lsval: Numerical result out of range\nexit 1\n"))
        fail_msg("hivexsh on predefined-handle key %s: expected its known "
                 "error, got:\n%s", path, out);
    free(out);
    free(cmd);
    free(script);
    tu_rmdir(dir);
}

static void referee_hive(const char *hive, const char *label)
{
    struct expected e;
    expect_hive(hive, &e);
    struct ref_lines got = {0};
    double t0 = now();

    /* Its known complaints only: text it cannot show in ASCII, values
     * over 1 MiB (the registry layout's Help) it reads truncated, as
     * e.reglookup expects. */
    ref_run_reglookup(hive, REF_REGLOOKUP_NON_ASCII "|" REF_REGLOOKUP_TRUNCATES,
                      &got);
    ref_compare("reglookup", &e.reglookup, &got);
    ref_lines_free(&got);
    double t1 = now();

    /* Predefined-handle keys have no values to show, so the runner
     * visits them only through their parent's listing. */
    ref_run_hivexsh(hive, &e.keys, &e.all, &got);
    ref_compare("hivexsh", &e.all, &got);
    ref_lines_free(&got);
    for (size_t i = 0; i < e.predefined.n; i++)
        hivexsh_refuses(hive, e.predefined.v[i]);
    double t2 = now();

    if (e.biggest <= MIB) {
        ref_run_regfexport(hive, NULL, 0, &got);
    } else {
        print_message("%s: regfexport per key, up to the first value over "
                      "1 MiB (largest %zu bytes, read in full by hivexsh)\n",
                      label, e.biggest);
        ref_run_regfexport(hive, NULL, 1, &got);
        for (size_t i = 0; i < e.keys.n; i++)
            ref_run_regfexport(hive, e.keys.v[i], listed(&e.cut, e.keys.v[i]), &got);
    }
    ref_compare("regfexport", &e.regfexport, &got);
    ref_lines_free(&got);
    double t3 = now();

    print_message("%s: %zu lines; reglookup %.1f s, hivexsh %.1f s, "
                  "regfexport %.1f s\n", label, e.all.n, t1 - t0, t2 - t1, t3 - t2);
    expected_free(&e);
}

/* --- tests ------------------------------------------------------------- */

static void init_install_referee(const struct layout *l)
{
    char *dir = tu_tmpdir(), *args, *hive;
    write_file(dir, "offsets.h", symbols);
    write_file(dir, "xfer.ini", ini);
    assert_true(asprintf(&args, "--store 'hive:%s/tree' init --layout %s "
                         "--languages 009,019,00C", dir, l->name) > 0);
    regtool(l, args);
    free(args);
    assert_true(asprintf(&args, "--store 'hive:%s/tree' install --create-service "
                         "--library x.dll --open O --collect C --close X "
                         "'%s/xfer.ini'", dir, dir) > 0);
    regtool(l, args);
    free(args);

    /* What the referees are held to holds what init and install wrote. */
    struct expected e;
    assert_true(asprintf(&hive, "%s/tree/Windows/System32/config/SYSTEM", dir) > 0);
    expect_hive(hive, &e);
    assert_non_null(line_with(&e.all, "V ControlSet001\\Services\\Xfer\\Performance"
                                      " | First Counter | 4 | num:"));
    assert_non_null(line_with(&e.all, "V ControlSet001\\Services\\Xfer\\Performance"
                                      " | Library | "));
    expected_free(&e);
    free(hive);
    assert_true(asprintf(&hive, "%s/tree/Windows/System32/config/SOFTWARE", dir) > 0);
    expect_hive(hive, &e);
    const char *perflib = "Microsoft\\Windows NT\\CurrentVersion\\Perflib";
    if (!strcmp(l->name, "registry")) {
        const char *help = line_with(&e.all, "V Microsoft\\Windows NT\\CurrentVersion"
                                             "\\Perflib\\009 | Help | 7 | multi:");
        const char *names = line_with(&e.all, "V Microsoft\\Windows NT\\CurrentVersion"
                                              "\\Perflib\\019 | Counter | 7 | multi:");
        assert_non_null(help);
        assert_true(e.biggest > MIB);
        assert_true(value_size(hive, "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
                                     "\\009", "Help") > MIB);
        assert_true(names && strstr(names, "|Передача|"));
        assert_int_equal(e.predefined.n, 0);
    } else {
        char *k009, *current;
        assert_true(asprintf(&k009, "%s\\009", perflib) > 0);
        assert_true(asprintf(&current, "%s\\CurrentLanguage", perflib) > 0);
        assert_int_equal(e.predefined.n, 2);
        assert_true(listed(&e.predefined, k009));
        assert_true(listed(&e.predefined, current));
        free(k009);
        free(current);
    }
    expected_free(&e);
    free(hive);

    const char *const hives[] = {"SOFTWARE", "SYSTEM"};
    for (int i = 0; i < 2; i++) {
        char *label;
        assert_true(asprintf(&hive, "%s/tree/Windows/System32/config/%s", dir,
                             hives[i]) > 0);
        assert_true(asprintf(&label, "%s layout, %s", l->name, hives[i]) > 0);
        referee_hive(hive, label);
        free(label);
        free(hive);
    }
    tu_rmdir(dir);
}

static void registry_layout(void **state)
{
    init_install_referee(*state);
}

static void files_layout(void **state)
{
    init_install_referee(*state);
}

int main(int argc, char **argv)
{
    (void)argc;
    /* The test runs as BUILD/tests/NAME; the CLI is BUILD/regtool. */
    char *cli = strdup(argv[0]), *slash = strrchr(cli, '/');
    if (slash)
        *slash = 0;
    slash = strrchr(cli, '/');
    char *path;
    if (asprintf(&path, "%.*s%sregtool", slash ? (int)(slash - cli) : 0, cli,
                 slash ? "/" : "") < 0)
        return 1;
    free(cli);
    if (access(path, X_OK)) {
        fprintf(stderr, "%s: no regtool binary at %s\n", argv[0], path);
        return 1;
    }
    struct layout registry = {path, "registry"}, files = {path, "files"};
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(registry_layout, &registry),
        cmocka_unit_test_prestate(files_layout, &files),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    free(path);
    return failed;
}
