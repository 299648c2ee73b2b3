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

struct finding {
    enum rt_regf_severity sev;
    uint64_t offset;
    char *message;
};

struct findings {
    struct finding *v;
    size_t n, cap;
    size_t errors, warnings;
};

static void add(struct findings *f, enum rt_regf_severity sev,
                uint64_t offset, const char *message)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 16;
        struct finding *v = realloc(f->v, cap * sizeof *v);
        if (!v)
            abort();
        f->v = v;
        f->cap = cap;
    }
    char *m = strdup(message);
    if (!m)
        abort();
    f->v[f->n++] = (struct finding){sev, offset, m};
    if (sev == RT_REGF_ERROR)
        f->errors++;
    else
        f->warnings++;
}

static void on_finding(void *ctx, enum rt_regf_severity sev, uint64_t offset,
                       const char *message)
{
    add(ctx, sev, offset, message);
}

static const char *log_format_name(enum rt_regf_log_format f)
{
    return f == RT_REGF_LOG_NEW ? "new" : f == RT_REGF_LOG_OLD ? "old"
                                                             : "invalid";
}

/* Header fields read straight from the file, so that even a hive too
 * broken to open reports its version and sequence numbers. */
struct header {
    int have;
    unsigned major, minor;
    uint32_t seq1, seq2;
    int dirty;
    long long size;
};

static void read_header(const char *path, struct header *hd)
{
    memset(hd, 0, sizeof *hd);
    hd->size = -1;
    /* Through the platform layer: a FIFO or device is refused at its
     * open, never waited on. */
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return;
    uint8_t b[REGF_BASE_BLOCK_SIZE];
    long long got = rt_os_pread(fd, b, sizeof b, 0);
    uint64_t size;
    if (rt_os_fsize(fd, &size) == 0)
        hd->size = (long long)size;
    rt_os_close(fd);
    if (got == (long long)sizeof b && !memcmp(b, "regf", 4)) {
        hd->have = 1;
        hd->major = regf_le32(b + REGF_OFF_MAJOR);
        hd->minor = regf_le32(b + REGF_OFF_MINOR);
        hd->seq1 = regf_le32(b + REGF_OFF_SEQ1);
        hd->seq2 = regf_le32(b + REGF_OFF_SEQ2);
        hd->dirty = regf_base_is_dirty(b);
    }
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
    "2 errors; 3 the file cannot be read.\n";

/* The journal of an unfinished regtool commit beside PATH, if any: its
 * path in BUF and its size. */
static int pending_journal(const char *path, char *buf, size_t size,
                           uint64_t *bytes)
{
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(buf, size, "%.*s/regtool.journal", (int)(slash - path), path);
    else
        snprintf(buf, size, "regtool.journal");
    struct rt_os_stat st;
    if (rt_os_stat(buf, &st) != 0 || st.kind != RT_OS_FILE)
        return 0;
    *bytes = st.size;
    return 1;
}

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
        } else if (!path) {
            path = argv[i];
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

/* The report of check_file as JSON: the header HD, the logs and what a
 * replay would apply (REP), a pending regtool journal (JOURNAL, NULL:
 * none) and the findings F. */
static void print_json(FILE *out, const char *shown, const struct header *hd,
                       const struct rt_regf_replay_report *rep,
                       const struct findings *f, const char *journal,
                       uint64_t journal_bytes)
{
    fputs("{\"file\":", out);
    rt_json_string(out, shown);
    if (hd->have)
        fprintf(out, ",\"version\":\"%u.%u\"", hd->major, hd->minor);
    else
        fputs(",\"version\":null", out);
    fprintf(out, ",\"size\":%lld,\"dirty\":%s", hd->size,
            hd->have && hd->dirty ? "true" : "false");
    if (hd->have)
        fprintf(out, ",\"sequence\":[%u,%u]", hd->seq1, hd->seq2);
    else
        fputs(",\"sequence\":null", out);
    fputs(",\"logs\":[", out);
    int first = 1;
    for (int i = 0; i < RT_REGF_LOG_SLOTS; i++) {
        const struct rt_regf_log_info *l = &rep->log[i];
        if (l->format == RT_REGF_LOG_ABSENT || !l->name)
            continue;
        fprintf(out, "%s{\"file\":", first ? "" : ",");
        rt_json_string(out, l->name);
        fprintf(out, ",\"format\":\"%s\",\"entries\":%zu}",
                log_format_name(l->format), l->valid_entries);
        first = 0;
    }
    fputs("],\"replay\":", out);
    if (rep->status == RT_REGF_REPLAY_APPLIED)
        fprintf(out, "{\"entries\":%zu,\"sequence\":[%u,%u]}",
                rep->entries_applied, rep->first_sequence,
                rep->last_sequence);
    else
        fputs("null", out);
    fputs(",\"journal\":", out);
    if (journal) {
        fputs("{\"file\":", out);
        rt_json_string(out, journal);
        fprintf(out, ",\"bytes\":%llu}", (unsigned long long)journal_bytes);
    } else {
        fputs("null", out);
    }
    fputs(",\"findings\":[", out);
    for (size_t i = 0; i < f->n; i++) {
        fprintf(out, "%s{\"severity\":\"%s\",\"offset\":%llu,\"message\":",
                i ? "," : "",
                f->v[i].sev == RT_REGF_ERROR ? "error" : "warning",
                (unsigned long long)f->v[i].offset);
        rt_json_string(out, f->v[i].message);
        fputc('}', out);
    }
    fputs("]}\n", out);
}

/* The same report for people. */
static void print_text(FILE *out, const char *shown, const struct header *hd,
                       const struct rt_regf_replay_report *rep,
                       const struct findings *f, const char *journal,
                       uint64_t journal_bytes)
{
    fprintf(out, "%s: ", rt_cli_shown(shown));
    if (hd->have)
        fprintf(out, "version %u.%u, %lld bytes, %s, sequence %u/%u\n",
                hd->major, hd->minor, hd->size, hd->dirty ? "dirty" : "clean",
                hd->seq1, hd->seq2);
    else
        fprintf(out, "not a hive, %lld bytes\n", hd->size);
    for (int i = 0; i < RT_REGF_LOG_SLOTS; i++) {
        const struct rt_regf_log_info *l = &rep->log[i];
        if (l->format == RT_REGF_LOG_ABSENT || !l->name)
            continue;
        fprintf(out, "log %s: %s, %zu valid entries%s%s\n",
                rt_cli_shown(l->name), log_format_name(l->format),
                l->valid_entries, *l->problem ? "; " : "",
                rt_cli_shown(l->problem));
    }
    if (rep->status == RT_REGF_REPLAY_APPLIED)
        fprintf(out, "replay would apply %zu entries, sequence %u to %u\n",
                rep->entries_applied, rep->first_sequence, rep->last_sequence);
    else if (hd->have && hd->dirty)
        fprintf(out, "replay: nothing usable (%s)\n",
                rt_cli_shown(rep->message));
    if (journal)
        fprintf(out, "pending regtool commit: %s (%llu bytes); the next "
                "regtool command that opens this tree finishes or "
                "discards it\n", rt_cli_shown(journal),
                (unsigned long long)journal_bytes);
    for (size_t i = 0; i < f->n; i++) {
        const char *sev = f->v[i].sev == RT_REGF_ERROR ? "error" : "warning";
        const char *m = f->v[i].message;
        if (!strncmp(m, "file offset ", 12))
            fprintf(out, "%s at file offset %s\n", sev,
                    rt_cli_shown(m + 12));
        else
            fprintf(out, "%s at file offset 0x%llx: %s\n", sev,
                    (unsigned long long)f->v[i].offset, rt_cli_shown(m));
    }
    fprintf(out, "%zu error%s, %zu warning%s\n", f->errors,
            f->errors == 1 ? "" : "s", f->warnings,
            f->warnings == 1 ? "" : "s");
}

/* Checks the hive at REAL (beneath its confined folder), named SHOWN. */
static int check_file(const char *shown, const char *real, int json)
{
    const char *path = real;
    struct header hd;
    read_header(path, &hd);
    /* What the logs hold and what a replay would apply, without keeping
     * the replayed image. */
    struct rt_regf_replay_report rep;
    rt_regf_replay_file(path, NULL, NULL, &rep);
    struct findings f = {0};
    char err[512];
    struct rt_regf *h;
    int rc = rt_regf_open(path, 0, &h, err, sizeof err);
    if (rc == RT_REGF_EIO || rc == RT_REGF_ENOMEM) {
        rt_cli_error("%s", err);
        rt_regf_replay_report_free(&rep);
        return RT_EXIT_FAILURE;
    }
    if (rc) {
        /* The message names the offset it is about; report it there. */
        unsigned long long at = 0;
        const char *o = strstr(err, "file offset 0x");
        if (o)
            sscanf(o + 12, "%llx", &at);
        add(&f, RT_REGF_ERROR, at, err);
    } else {
        rt_regf_check(h, on_finding, &f);
        rt_regf_close(h);
    }

    char journal[4200];
    uint64_t journal_bytes = 0;
    int pending = pending_journal(path, journal, sizeof journal, &journal_bytes);
    /* Named beside the hive as the user named the hive. */
    const char *slash = strrchr(shown, '/');
    if (pending && slash)
        snprintf(journal, sizeof journal, "%.*s/regtool.journal",
                 (int)(slash - shown), shown);
    else if (pending)
        snprintf(journal, sizeof journal, "regtool.journal");
    if (json)
        print_json(stdout, shown, &hd, &rep, &f, pending ? journal : NULL,
                   journal_bytes);
    else
        print_text(stdout, shown, &hd, &rep, &f, pending ? journal : NULL,
                   journal_bytes);
    int code = f.errors ? RT_EXIT_INVALID
             : (f.warnings || pending || (hd.have && hd.dirty)) ? RT_EXIT_WARN
             : RT_EXIT_OK;
    for (size_t i = 0; i < f.n; i++)
        free(f.v[i].message);
    free(f.v);
    rt_regf_replay_report_free(&rep);
    return code;
}
