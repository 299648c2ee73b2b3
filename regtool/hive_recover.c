/* regtool hive recover FILE -o OUT: writes the hive FILE with its
 * transaction logs (FILE.LOG1, FILE.LOG2, FILE.LOG in any letter case)
 * replayed, as a clean primary file OUT. FILE and its logs are never
 * modified.
 *
 * Exit codes: 0 logs replayed; 1 FILE was not dirty, so Windows would
 * ignore its logs: OUT is then an identical copy of FILE, so that OUT is
 * always FILE's latest state after exit 0 or 1 (of a FILE running more
 * than 16 MiB past its hive bins, only the base block and the bins are
 * read and written: nothing a hive holds lies past them); 2 FILE is not a hive, or
 * is dirty with no log that can be applied (nothing written); 3 a file
 * could not be read or OUT could not be written; 64 bad command line. */
#include "cli.h"
#include "platform/os.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/hive_files.h"

static const char usage_text[] =
    "Usage: regtool hive recover [--force] FILE -o OUT\n\n"
    "Replays the transaction logs beside the hive FILE (FILE.LOG1,\n"
    "FILE.LOG2, FILE.LOG, any letter case) and writes the recovered, clean\n"
    "hive to OUT. FILE and its logs are left untouched.\n\n"
    "  -o, --output OUT  where the recovered hive goes (never FILE or its logs)\n"
    "  --force           replace OUT when it exists (it keeps its own\n"
    "                    permission bits: a new OUT gets FILE's)\n\n"
    "Exit status: 0 recovered; 1 FILE was not dirty (OUT is a copy of it);\n"
    "2 FILE unusable or no log applicable (nothing written); 3 I/O error.\n";

static const char *format_name(enum rt_op_log_format f)
{
    switch (f) {
    case RT_OP_LOG_NEW: return "new format";
    case RT_OP_LOG_OLD: return "old format";
    case RT_OP_LOG_INVALID: return "not a usable log";
    default: return "absent";
    }
}

static void print_logs(FILE *f, const struct rt_op_hive_replay *r)
{
    for (int s = 0; s < RT_OP_HIVE_LOG_SLOTS; s++) {
        const struct rt_op_hive_log *l = &r->log[s];
        if (l->format == RT_OP_LOG_ABSENT)
            continue;
        fprintf(f, "  %s %s: %s", l->slot, rt_cli_shown(l->name),
                format_name(l->format));
        if (l->format == RT_OP_LOG_NEW)
            fprintf(f, ", sequence %u, %zu valid entr%s", l->sequence,
                    l->valid_entries, l->valid_entries == 1 ? "y" : "ies");
        else if (l->format == RT_OP_LOG_OLD)
            fprintf(f, ", sequence %u, %zu dirty pages", l->sequence,
                    l->dirty_pages);
        if (l->used && l->format == RT_OP_LOG_NEW)
            fprintf(f, ", %zu applied", l->entries_applied);
        else if (l->used)
            fputs(", applied", f);
        if (l->problem[0])
            fprintf(f, "; %s", rt_cli_shown(l->problem));
        fputc('\n', f);
    }
}

/* A primary that runs far past its bins: what was left out. */
static void print_cut(const char *file, const struct rt_op_hive_replay *r)
{
    if (r->primary_file_size <= r->primary_read)
        return;
    printf("note: '%s' is %llu bytes, %llu past the %llu its base block and "
           "hive bins take up: far more than the unused tail Windows leaves, "
           "so that part was neither read nor written\n", rt_cli_shown(file),
           (unsigned long long)r->primary_file_size,
           (unsigned long long)(r->primary_file_size - r->primary_read),
           (unsigned long long)r->primary_read);
}

static int recover_file(const char *file, const char *real, const char *out,
                        int force);

int hive_recover_main(int argc, char **argv)
{
    const char *file = NULL, *out = NULL;
    int force = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return RT_EXIT_OK;
        } else if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
            if (i + 1 >= argc) {
                rt_cli_error("hive recover: %s needs a file name", argv[i]);
                return RT_EXIT_USAGE;
            }
            out = argv[++i];
        } else if (!strcmp(argv[i], "--force")) {
            force = 1;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rt_cli_error("hive recover: unknown option '%s'", argv[i]);
            return RT_EXIT_USAGE;
        } else if (!file && !*argv[i]) {
            rt_cli_error("hive recover: FILE is empty: give a hive's file");
            return RT_EXIT_USAGE;
        } else if (!file) {
            file = argv[i];
        } else {
            rt_cli_error("hive recover: unexpected argument '%s'", argv[i]);
            return RT_EXIT_USAGE;
        }
    }
    if (!file || !out) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    char *root, *real = rt_cli_hive_confine(file, &root);
    if (!real)
        return RT_EXIT_FAILURE;
    int rc = recover_file(file, real, out, force);
    free(real);
    rt_os_unconfine(root);
    free(root);
    return rc;
}

/* What was recovered from FILE into OUT, R's replay, on stdout; the
 * exit code: 1 when FILE was not dirty, 0 when its logs were applied. */
static int print_recovered(const char *file, const char *out,
                           const struct rt_op_hive_replay *r)
{
    int cut = r->primary_file_size > r->primary_read;
    if (r->status == RT_OP_REPLAY_CLEAN) {
        printf("%s: not dirty (sequence numbers %u/%u): its logs are ignored "
               "as Windows ignores them; '%s' is %s\n", rt_cli_shown(file),
               r->primary_seq1, r->primary_seq2, rt_cli_shown(out),
               cut ? "a copy of its base block and hive bins"
                   : "an identical copy");
        print_logs(stdout, r);
        print_cut(file, r);
        return RT_EXIT_WARN;
    }
    printf("%s: dirty (sequence numbers %u/%u%s)\n", rt_cli_shown(file),
           r->primary_seq1,
           r->primary_seq2, r->primary_checksum_ok ? "" : ", bad checksum");
    print_logs(stdout, r);
    if (r->format_applied == RT_OP_LOG_NEW)
        printf("recovered: %zu log entries applied (sequence %u to %u), "
               "%zu pages; ", r->entries_applied, r->first_sequence,
               r->last_sequence, r->pages_applied);
    else
        printf("recovered: %zu dirty pages applied; ", r->pages_applied);
    printf("sequence numbers %u/%u, hive bins 0x%x bytes; written to '%s'\n",
           r->result_sequence, r->result_sequence, r->result_hbins_size,
           rt_cli_shown(out));
    print_cut(file, r);
    return RT_EXIT_OK;
}

/* Recovers the hive at REAL (beneath its confined folder: its logs lie
 * there too), named FILE, into OUT. */
static int recover_file(const char *file, const char *real, const char *out,
                        int force)
{
    struct rt_op_hive_recover r;
    int exit_code = RT_EXIT_USAGE;
    switch (rt_op_hive_recover(real, out, force, &r)) {
    case RT_OP_RECOVER_UNREADABLE:
        rt_cli_error("cannot read '%s': %s", file, rt_os_strerror(r.err_no));
        exit_code = RT_EXIT_FAILURE;
        break;
    case RT_OP_RECOVER_OUT_IS_HIVE:
        rt_cli_error("refusing to write '%s': it is the hive '%s' itself; "
                     "write the recovered hive elsewhere", out, file);
        break;
    case RT_OP_RECOVER_NOT_REPLAYED:
        rt_cli_error("%s: %s", file, r.replay.message);
        print_logs(stderr, &r.replay);
        exit_code = r.replay.status == RT_OP_REPLAY_IO_ERROR ||
                            r.replay.status == RT_OP_REPLAY_NO_MEMORY
                        ? RT_EXIT_FAILURE
                        : RT_EXIT_INVALID;
        break;
    case RT_OP_RECOVER_OUT_IS_TREE_FILE:
        rt_cli_error("refusing to write '%s': it is a file of the tree the "
                     "hive '%s' lies in (regtool's journal or lock, a hive, "
                     "a .dat table, PerfStringBackup.INI, an INF copy's "
                     "file), --force or not; write the recovered hive "
                     "elsewhere", out, file);
        break;
    case RT_OP_RECOVER_OUT_IS_LOG:
        rt_cli_error("refusing to write '%s': it is the transaction log "
                     "'%s' of the hive", out, r.replay.log[r.out_log].name);
        break;
    case RT_OP_RECOVER_OUT_EXISTS:
        rt_cli_error("refusing to overwrite '%s': it exists (--force replaces "
                     "it)", out);
        break;
    case RT_OP_RECOVER_UNWRITABLE:
        rt_cli_error("cannot write '%s': %s", out, rt_os_strerror(r.err_no));
        exit_code = RT_EXIT_FAILURE;
        break;
    case RT_OP_RECOVER_WRITTEN:
        exit_code = print_recovered(file, out, &r.replay);
        break;
    }
    rt_op_hive_recover_free(&r);
    return exit_code;
}
