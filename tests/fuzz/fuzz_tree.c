/* libFuzzer harness: a whole Windows tree through the stores and the
 * engine, as the CLI reaches it: the tree is opened as `--store hive:DIR`
 * opens it (rt_op_open_store), then `query` (Perflib's and the
 * providers' values), `audit` (every table, the copies, the libraries),
 * `install --dry-run --create-service` of a fixed provider
 * (ini-samples/transfer-utf8.ini) and `uninstall --dry-run` of it and of
 * the first provider with a range that query lists, each on its own open
 * as each command opens the store anew.
 *
 * Input: up to five parts separated by FUZZ_SPLIT (fuzz.h): SOFTWARE,
 * SYSTEM, System32\perfc009.dat, System32\perfh009.dat and
 * config\regtool.journal. An empty or missing part is a file that is
 * not there: SOFTWARE and SYSTEM alone are the registry layout, a
 * journal after two empty parts one beside tables as values.
 *
 * Reaching the stores: a hive whose base-block checksum is wrong is read
 * as dirty (its logs, which the tree lacks, would have to be replayed),
 * so a byte flipped in its first 508 bytes would only ever test that
 * path. The harness seals every hive part of 512 bytes or more (stores
 * the XOR checksum of its first 508 bytes at 508, regf_base_seal) before
 * writing it: mutations of the header then reach the reader's checks of
 * the fields themselves and the bins below them. Differing sequence
 * numbers still make a hive dirty, so that path stays reachable. The
 * journal's CRCs are recomputed likewise (seal_journal), or a mutated
 * journal would only ever be an unfinished one.
 *
 * The tree lives in a scratch directory made once per process under
 * $TMPDIR and emptied before each input; nothing is written anywhere
 * else. Opening a store and a dry run write nothing (store_hive.h,
 * engine/ops.h): the harness asserts that every file it wrote is still
 * there with its bytes, and that no file was added. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "api/api.h"
#include "commit/crc32.h"
#include "engine/audit.h"
#include "engine/database.h"
#include "ops/ops.h"
#include "fuzz.h"
#include "platform/os.h"
#include "provider/provider_spec.h"
#include "regf/base_block.h"

/* The provider installed and uninstalled: a small INI of the samples,
 * read once, relative to the top of the source tree (where run.sh runs
 * the harnesses), or from $RT_FUZZ_INI. */
#define DEFAULT_INI "ini-samples/transfer-utf8.ini"

enum { PART_SOFTWARE, PART_SYSTEM, PART_COUNTER, PART_HELP, PART_JOURNAL,
       N_PARTS };

static const char *const part_path[N_PARTS] = {
    "Windows/System32/config/SOFTWARE",
    "Windows/System32/config/SYSTEM",
    "Windows/System32/perfc009.dat",
    "Windows/System32/perfh009.dat",
    "Windows/System32/config/regtool.journal",
};

static char scratch[4096], tree[4200], spec_hive[4300];
static struct rt_provider_spec provider;
static struct rt_inf_files provider_files;

static void remove_tree(const char *path)
{
    struct rt_os_stat st;
    if (rt_os_stat(path, &st) != 0 || st.kind == RT_OS_ABSENT)
        return;
    if (st.kind == RT_OS_DIR) {
        char **names;
        size_t n;
        if (rt_os_list_dir(path, &names, &n) == 0) {
            for (size_t i = 0; i < n; i++) {
                char sub[8192];
                snprintf(sub, sizeof sub, "%s/%s", path, names[i]);
                remove_tree(sub);
            }
            rt_os_free_list(names, n);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

static void cleanup(void)
{
    remove_tree(scratch);
    rt_inf_files_free(&provider_files);
    rt_provider_spec_free(&provider);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/regtool-fuzz-tree.XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(scratch)) {
        perror("fuzz_tree: mkdtemp");
        exit(1);
    }
    snprintf(tree, sizeof tree, "%s/tree", scratch);
    snprintf(spec_hive, sizeof spec_hive, "hive:%s", tree);
    atexit(cleanup);

    const char *ini = getenv("RT_FUZZ_INI");
    if (!ini || !ini[0])
        ini = DEFAULT_INI;
    struct rt_diags d = {0};
    int r = rt_provider_spec_load_files(ini, NULL, NULL, &provider,
                                        &provider_files, &d);
    rt_diags_free(&d);
    if (r != 0) {
        fprintf(stderr, "fuzz_tree: %s: cannot load the provider (run from "
                "the top of the source tree, or set RT_FUZZ_INI)\n", ini);
        exit(1);
    }
    return 0;
}

static void write_file(const char *path, const uint8_t *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
        perror(path);
        abort();
    }
}

/* A journal part sealed again as its writer seals one
 * (commit/commit_build.c): the CRC that ends its intent block and, when
 * it ends in a commit trailer ("RTCOMMIT", body length, CRC, record
 * count), the trailer's length and CRC. A journal cut short or without the trailer's magic
 * stays as it is: an unfinished commit. */
static void seal_journal(uint8_t *b, size_t len)
{
    if (len < 20 || memcmp(b, "RTJOURN3", 8) != 0)
        return;
    uint32_t what_len = regf_le32(b + 16);
    if (what_len > 4096 || len - 20 < what_len)
        return;
    size_t at = 20 + what_len;
    if (len - at < 4)
        return;
    uint32_t n = regf_le32(b + at);
    at += 4;
    for (uint32_t i = 0; i < n; i++) {
        if (len - at < 12 || len - at - 12 < regf_le32(b + at))
            return;
        at += 12 + regf_le32(b + at);
    }
    if (len - at < 4)
        return;
    regf_put32(b + at, rt_crc32(0, b, at));
    const size_t trailer = 24;
    if (len - at - 4 >= trailer &&
        memcmp(b + len - trailer, "RTCOMMIT", 8) == 0) {
        regf_put64(b + len - trailer + 8, len - trailer);
        regf_put32(b + len - trailer + 16, rt_crc32(0, b, len - trailer));
    }
}

/* Writes the parts as the tree, each hive and the journal sealed first,
 * into FILE (NULL: a part that is no file), which the caller frees. */
static void make_tree(const uint8_t **part, const size_t *len, size_t n,
                      uint8_t *file[N_PARTS])
{
    remove_tree(tree);
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/Windows/System32/config", tree);
    if (rt_os_mkdirs(dir) != 0) {
        perror(dir);
        abort();
    }
    for (size_t i = 0; i < N_PARTS; i++) {
        file[i] = NULL;
        if (i >= n || len[i] == 0)
            continue;
        file[i] = malloc(len[i]);
        FUZZ_ASSERT(file[i] != NULL);
        memcpy(file[i], part[i], len[i]);
        if ((i == PART_SOFTWARE || i == PART_SYSTEM) && len[i] >= 512)
            regf_base_seal(file[i]);
        else if (i == PART_JOURNAL)
            seal_journal(file[i], len[i]);
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", tree, part_path[i]);
        write_file(path, file[i], len[i]);
    }
}

/* Files under PATH. */
static size_t count_files(const char *path)
{
    struct rt_os_stat st;
    FUZZ_ASSERT(rt_os_stat(path, &st) == 0);
    if (st.kind != RT_OS_DIR)
        return st.kind == RT_OS_ABSENT ? 0 : 1;
    char **names;
    size_t n, files = 0;
    FUZZ_ASSERT(rt_os_list_dir(path, &names, &n) == 0);
    for (size_t i = 0; i < n; i++) {
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", path, names[i]);
        files += count_files(sub);
    }
    rt_os_free_list(names, n);
    return files;
}

/* Each file written still holds its bytes, and the tree no other file. */
static void check_unchanged(uint8_t *const file[N_PARTS], const size_t *len)
{
    size_t expected = 0;
    for (size_t i = 0; i < N_PARTS; i++) {
        if (!file[i])
            continue;
        expected++;
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", tree, part_path[i]);
        uint8_t *data;
        size_t got;
        FUZZ_ASSERT(rt_os_read_file_max(path, len[i] + 1, &data, &got) == 0);
        FUZZ_ASSERT(got == len[i] && memcmp(data, file[i], got) == 0);
        free(data);
    }
    FUZZ_ASSERT(count_files(tree) == expected);
}

static void on_notice(const char *line)
{
    FUZZ_ASSERT(line != NULL && line[0] != '\0');
}

static struct rt_store *open_tree(int read_once)
{
    /* --wait 0: no lock file is written, so none is waited for. */
    const regtool_open_options o = {NULL, 0, -1, on_notice};
    struct rt_error e = {0};
    int bad_spec = 0;
    struct rt_store *s = rt_op_open_store(spec_hive, &o, read_once, &e,
                                           &bad_spec);
    FUZZ_ASSERT(!bad_spec);
    if (!s)
        FUZZ_ASSERT(e.code != 0 && e.message[0] != '\0');
    return s;
}

/* `regtool query`: Perflib's values and the providers'. Returns the name
 * of the first provider listed with a range (a new string), or NULL. */
static char *query(void)
{
    struct rt_store *s = open_tree(0);
    if (!s)
        return NULL;
    char *first = NULL;
    struct rt_database db;
    struct rt_error e = {0};
    if (rt_database_load_with(s, &db, &rt_db_load_no_tables, &e) == 0) {
        FUZZ_ASSERT(s->ops->layout(s) != NULL);
        for (size_t i = 0; i < db.n_services; i++) {
            FUZZ_ASSERT(rt_database_service(&db, db.services[i].name) != NULL);
            if (!first && db.services[i].has_range)
                first = strdup(db.services[i].name);
        }
        rt_database_free(&db);
    } else {
        FUZZ_ASSERT(e.code != 0);
    }
    s->ops->close(s);
    return first;
}

/* `regtool audit --libraries` asks whether each DLL is in the tree. */
static int tree_exists(void *ctx, const char *path)
{
    (void)ctx;
    char rel[4096];
    snprintf(rel, sizeof rel, "%s", path);
    for (char *p = rel; *p; p++)
        if (*p == '\\')
            *p = '/';
    char *found = rt_os_path_ci(tree, rel, 1);
    free(found);
    return found != NULL;
}

/* `regtool audit`: every table as stored, the other copies of them, and
 * the providers' libraries, on a store opened to read each table once. */
static void audit(void)
{
    struct rt_store *s = open_tree(1);
    if (!s)
        return;
    struct rt_database db;
    struct rt_error e = {0};
    const struct rt_db_load_options all = {RT_DB_TABLES_ALL, NULL, 0, 0,
                                           NULL};
    if (rt_database_load_with(s, &db, &all, &e) == 0) {
        struct rt_findings f = {0};
        if (rt_database_load_copies(s, &db, &e) == 0) {
            const struct rt_audit_options opt = {NULL};
            const struct rt_audit_tree t = {tree_exists, NULL, "Windows", NULL, NULL,
                                            NULL, 0};
            FUZZ_ASSERT(rt_audit(&db, &opt, &f) == 0);
            FUZZ_ASSERT(rt_audit_libraries(&db, &t, &f) == 0);
            rt_findings_sort(&f);
            FUZZ_ASSERT(f.errors + f.warnings + f.infos == f.n);
        }
        rt_findings_free(&f);
        rt_database_free(&db);
    }
    s->ops->close(s);
}

static void install_dry_run(void)
{
    struct rt_store *s = open_tree(0);
    if (!s)
        return;
    struct rt_install_options opt = {0};
    opt.create_service = 1;
    opt.library = "%SystemRoot%\\System32\\transferperf.dll";
    opt.open = "OpenTransfer";
    opt.collect = "CollectTransfer";
    opt.close = "CloseTransfer";
    opt.inf = &provider_files;
    struct rt_change_set cs;
    struct rt_install_plan plan;
    struct rt_error e = {0};
    if (rt_op_install(s, &provider, &opt, RT_OP_DRY_RUN, &cs, &plan, &e) ==
        0) {
        /* Names and help come in pairs: an even first index and the odd
         * one after it, the range within Perflib's new Last values. */
        FUZZ_ASSERT(plan.first_counter % 2 == 0 &&
                    plan.first_help == plan.first_counter + 1);
        FUZZ_ASSERT(plan.last_counter >= plan.first_counter &&
                    plan.last_help == plan.last_counter + 1);
        char *text = rt_op_change_set_text(&cs);
        FUZZ_ASSERT(text != NULL);
        free(text);
        rt_change_set_free(&cs);
        rt_install_plan_free(&plan);
    } else {
        FUZZ_ASSERT(e.code != 0);
    }
    s->ops->close(s);
}

static void uninstall_dry_run(const char *driver)
{
    struct rt_store *s = open_tree(0);
    if (!s)
        return;
    struct rt_change_set cs;
    struct rt_uninstall_plan plan;
    struct rt_error e = {0};
    if (rt_op_uninstall(s, driver, 0, RT_OP_DRY_RUN, &cs, &plan, &e) == 0) {
        char *text = rt_op_change_set_text(&cs);
        FUZZ_ASSERT(text != NULL);
        free(text);
        rt_change_set_free(&cs);
    } else {
        FUZZ_ASSERT(e.code != 0);
    }
    s->ops->close(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *part[N_PARTS];
    size_t len[N_PARTS];
    size_t n = fuzz_split(data, size, part, len, N_PARTS);
    uint8_t *file[N_PARTS];
    make_tree(part, len, n, file);

    char *first = query();
    audit();
    install_dry_run();
    uninstall_dry_run(provider.drivername);
    if (first && strcasecmp(first, provider.drivername))
        uninstall_dry_run(first);
    free(first);

    check_unchanged(file, len);
    for (size_t i = 0; i < N_PARTS; i++)
        free(file[i]);
    return 0;
}
