/* regtool hive check: opens a hive file read-only and prints its version,
 * size, dirty state, the transaction logs beside it and what replaying
 * them would apply, and structural findings, as text or JSON. Exit 0
 * when clean, 1 when dirty or with warnings only, 2 with structural
 * errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/hive_files.h"
#include "cli.h"
#include "platform/os.h"

static const char *log_format_name(enum rt_op_log_format f)
{
    return f == RT_OP_LOG_NEW ? "new" : f == RT_OP_LOG_OLD ? "old"
                                                         : "invalid";
}

static const char usage_text[] =
    "Usage: regtool hive check [--json] FILE\n"
    "\n"
    "Checks a hive file cell by cell, bounds-checked: its version, size,\n"
    "whether it is dirty, the transaction logs beside it (FILE.LOG1,\n"
    "FILE.LOG2, FILE.LOG) and what a replay would apply, and a regtool\n"
    "commit left pending beside it (regtool.journal). Reads only.\n"
    "\n"
    "  --json  {\"file\",\"version\",\"size\",\"dirty\",\"sequence\",\"logs\",\n"
    "          \"replay\",\"journal\",\"findings\"}\n"
    "\n"
    "Exit status: 0 clean; 1 dirty, a pending journal, or warnings;\n"
    "2 errors; 3 the file cannot be read, or memory ran out.\n";

static int check_file(const char *shown, const char *real, int json);

int hive_check_main(int argc, char **argv)
{
    int json = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage_text, stdout);
            return RT_EXIT_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            rt_cli_error("hive check: unknown option '%s'", argv[i]);
            return RT_EXIT_USAGE;
        } else if (!path && *argv[i]) {
            path = argv[i];
        } else if (!path) {
            rt_cli_error("hive check: FILE is empty: give a hive's file");
            return RT_EXIT_USAGE;
        } else {
            rt_cli_error("hive check: one FILE only");
            return RT_EXIT_USAGE;
        }
    }
    if (!path) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    char *root, *at = rt_cli_hive_confine(path, &root);
    if (!at)
        return RT_EXIT_FAILURE;
    int rc = check_file(path, at, json);
    free(at);
    rt_os_unconfine(root);
    free(root);
    return rc;
}

/* The report C as JSON; JOURNAL: the pending regtool journal's name as
 * shown (NULL: none). */
static void print_json(FILE *out, const char *shown,
                       const struct rt_op_hive_check *c, const char *journal)
{
    const struct rt_op_hive_replay *rep = &c->replay;
    fputs("{\"file\":", out);
    rt_json_string(out, shown);
    if (c->have_header)
        fprintf(out, ",\"version\":\"%u.%u\"", c->major, c->minor);
    else
        fputs(",\"version\":null", out);
    fprintf(out, ",\"size\":%lld,\"dirty\":%s", c->size,
            c->have_header && c->dirty ? "true" : "false");
    if (c->have_header)
        fprintf(out, ",\"sequence\":[%u,%u]", c->seq1, c->seq2);
    else
        fputs(",\"sequence\":null", out);
    fputs(",\"logs\":[", out);
    int first = 1;
    for (int i = 0; i < RT_OP_HIVE_LOG_SLOTS; i++) {
        const struct rt_op_hive_log *l = &rep->log[i];
        if (l->format == RT_OP_LOG_ABSENT || !l->name)
            continue;
        fprintf(out, "%s{\"file\":", first ? "" : ",");
        rt_json_string(out, l->name);
        fprintf(out, ",\"format\":\"%s\",\"entries\":%zu}",
                log_format_name(l->format), l->valid_entries);
        first = 0;
    }
    fputs("],\"replay\":", out);
    if (rep->status == RT_OP_REPLAY_APPLIED)
        fprintf(out, "{\"entries\":%zu,\"sequence\":[%u,%u]}",
                rep->entries_applied, rep->first_sequence,
                rep->last_sequence);
    else
        fputs("null", out);
    fputs(",\"journal\":", out);
    if (journal) {
        fputs("{\"file\":", out);
        rt_json_string(out, journal);
        fprintf(out, ",\"bytes\":%llu}", (unsigned long long)c->journal_bytes);
    } else {
        fputs("null", out);
    }
    fputs(",\"findings\":[", out);
    for (size_t i = 0; i < c->n_findings; i++) {
        const struct rt_op_hive_finding *f = &c->findings[i];
        fprintf(out, "%s{\"severity\":\"%s\",\"offset\":%llu,\"message\":",
                i ? "," : "",
                f->severity == RT_OP_HIVE_ERROR ? "error" : "warning",
                (unsigned long long)f->offset);
        rt_json_string(out, f->message);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

/* The same report for people. */
static void print_text(FILE *out, const char *shown,
                       const struct rt_op_hive_check *c, const char *journal)
{
    const struct rt_op_hive_replay *rep = &c->replay;
    fprintf(out, "%s: ", rt_cli_shown(shown));
    if (c->have_header)
        fprintf(out, "version %u.%u, %lld bytes, %s, sequence %u/%u\n",
                c->major, c->minor, c->size, c->dirty ? "dirty" : "clean",
                c->seq1, c->seq2);
    else
        fprintf(out, "not a hive, %lld bytes\n", c->size);
    for (int i = 0; i < RT_OP_HIVE_LOG_SLOTS; i++) {
        const struct rt_op_hive_log *l = &rep->log[i];
        if (l->format == RT_OP_LOG_ABSENT || !l->name)
            continue;
        fprintf(out, "log %s: %s, %zu valid entries%s%s\n",
                rt_cli_shown(l->name), log_format_name(l->format),
                l->valid_entries, *l->problem ? "; " : "",
                rt_cli_shown(l->problem));
    }
    if (rep->status == RT_OP_REPLAY_APPLIED)
        fprintf(out, "replay would apply %zu entries, sequence %u to %u\n",
                rep->entries_applied, rep->first_sequence, rep->last_sequence);
    else if (c->have_header && c->dirty)
        fprintf(out, "replay: nothing usable (%s)\n",
                rt_cli_shown(rep->message));
    if (journal)
        fprintf(out, "pending regtool commit: %s (%llu bytes); the next "
                "regtool command that opens this tree finishes or "
                "discards it\n", rt_cli_shown(journal),
                (unsigned long long)c->journal_bytes);
    for (size_t i = 0; i < c->n_findings; i++) {
        const struct rt_op_hive_finding *f = &c->findings[i];
        const char *sev = f->severity == RT_OP_HIVE_ERROR ? "error"
                                                          : "warning";
        const char *m = f->message;
        if (!strncmp(m, "file offset ", 12))
            fprintf(out, "%s at file offset %s\n", sev,
                    rt_cli_shown(m + 12));
        else
            fprintf(out, "%s at file offset 0x%llx: %s\n", sev,
                    (unsigned long long)f->offset, rt_cli_shown(m));
    }
    fprintf(out, "%zu error%s, %zu warning%s\n", c->errors,
            c->errors == 1 ? "" : "s", c->warnings,
            c->warnings == 1 ? "" : "s");
}

/* Checks the hive at REAL (beneath its confined folder), named SHOWN. */
static int check_file(const char *shown, const char *real, int json)
{
    struct rt_op_hive_check c;
    if (rt_op_hive_check(real, &c) != 0) {
        rt_cli_error("%s", c.error);
        rt_op_hive_check_free(&c);
        return RT_EXIT_FAILURE;
    }
    /* The journal named beside the hive as the user named the hive. */
    char journal[4200];
    const char *slash = strrchr(shown, '/');
    if (slash)
        snprintf(journal, sizeof journal, "%.*s/regtool.journal",
                 (int)(slash - shown), shown);
    else
        snprintf(journal, sizeof journal, "regtool.journal");
    const char *pending = c.journal_pending ? journal : NULL;
    if (json)
        print_json(stdout, shown, &c, pending);
    else
        print_text(stdout, shown, &c, pending);
    int code = c.errors ? RT_EXIT_INVALID
             : (c.warnings || c.journal_pending || (c.have_header && c.dirty))
                 ? RT_EXIT_WARN
                 : RT_EXIT_OK;
    rt_op_hive_check_free(&c);
    return code;
}
