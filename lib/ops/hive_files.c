/* Operations on one hive file (ops/hive_files.h): regtool hive check and
 * hive recover, on the hive layer's reading, checking and log replay. */
#include "ops/hive_files.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "platform/compat.h"
#include "platform/grow.h"
#include "platform/os.h"
#include "regf/base_block.h"
#include "regf/log.h"
#include "regf/regf.h"
#include "store/store_hive.h"

_Static_assert(RT_OP_HIVE_LOG_SLOTS == RT_REGF_LOG_SLOTS,
               "one rt_op_hive_log per log slot of the hive layer");

static enum rt_op_log_format log_format(enum rt_regf_log_format f)
{
    switch (f) {
    case RT_REGF_LOG_INVALID: return RT_OP_LOG_INVALID;
    case RT_REGF_LOG_NEW: return RT_OP_LOG_NEW;
    case RT_REGF_LOG_OLD: return RT_OP_LOG_OLD;
    default: return RT_OP_LOG_ABSENT;
    }
}

static enum rt_op_replay_status replay_status(enum rt_regf_replay_status s)
{
    switch (s) {
    case RT_REGF_REPLAY_CLEAN: return RT_OP_REPLAY_CLEAN;
    case RT_REGF_REPLAY_APPLIED: return RT_OP_REPLAY_APPLIED;
    case RT_REGF_REPLAY_NO_USABLE_LOG: return RT_OP_REPLAY_NO_USABLE_LOG;
    case RT_REGF_REPLAY_BAD_PRIMARY: return RT_OP_REPLAY_BAD_PRIMARY;
    case RT_REGF_REPLAY_IO_ERROR: return RT_OP_REPLAY_IO_ERROR;
    default: return RT_OP_REPLAY_NO_MEMORY;
    }
}

/* The hive layer's report R as the operations' *OUT, R's log names taken
 * over (R is freed). */
static void take_replay(struct rt_regf_replay_report *r,
                        struct rt_op_hive_replay *out)
{
    memset(out, 0, sizeof *out);
    out->status = replay_status(r->status);
    out->primary_checksum_ok = r->primary_checksum_ok;
    out->primary_seq1 = r->primary_seq1;
    out->primary_seq2 = r->primary_seq2;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        struct rt_regf_log_info *l = &r->log[s];
        struct rt_op_hive_log *o = &out->log[s];
        o->slot = rt_regf_log_slot_name((enum rt_regf_log_slot)s);
        o->name = l->name;
        l->name = NULL;
        o->format = log_format(l->format);
        o->sequence = l->sequence;
        o->valid_entries = l->valid_entries;
        o->dirty_pages = l->dirty_pages;
        o->used = l->used;
        o->entries_applied = l->entries_applied;
        snprintf(o->problem, sizeof o->problem, "%s", l->problem);
    }
    out->format_applied = log_format(r->format_applied);
    out->entries_applied = r->entries_applied;
    out->pages_applied = r->pages_applied;
    out->first_sequence = r->first_sequence;
    out->last_sequence = r->last_sequence;
    out->result_sequence = r->result_sequence;
    out->result_hbins_size = r->result_hbins_size;
    snprintf(out->message, sizeof out->message, "%s", r->message);
    out->primary_file_size = r->primary_file_size;
    out->primary_read = r->primary_read;
    rt_regf_replay_report_free(r);
}

static void replay_free(struct rt_op_hive_replay *r)
{
    for (int s = 0; s < RT_OP_HIVE_LOG_SLOTS; s++) {
        free(r->log[s].name);
        r->log[s].name = NULL;
    }
}

/* The findings of a check as they come; NO_MEMORY once one could not be
 * kept (the check goes on to its end, but the report is not given). */
struct findings_sink {
    struct rt_op_hive_check *c;
    size_t cap;
    int no_memory;
};

static void add_finding(struct findings_sink *k, enum rt_op_hive_severity sev,
                        uint64_t offset, const char *message)
{
    struct rt_op_hive_check *c = k->c;
    if (k->no_memory)
        return;
    if (c->n_findings == k->cap) {
        size_t cap = rt_grown(k->cap, 16, sizeof *c->findings);
        struct rt_op_hive_finding *v =
            cap ? realloc(c->findings, cap * sizeof *v) : NULL;
        if (!v) {
            k->no_memory = 1;
            return;
        }
        c->findings = v;
        k->cap = cap;
    }
    char *m = strdup(message);
    if (!m) {
        k->no_memory = 1;
        return;
    }
    c->findings[c->n_findings++] = (struct rt_op_hive_finding){sev, offset, m};
    if (sev == RT_OP_HIVE_ERROR)
        c->errors++;
    else
        c->warnings++;
}

static void on_finding(void *ctx, enum rt_regf_severity sev, uint64_t offset,
                       const char *message)
{
    add_finding(ctx, sev == RT_REGF_ERROR ? RT_OP_HIVE_ERROR
                                          : RT_OP_HIVE_WARNING,
                offset, message);
}

/* The base block's fields straight from the file. */
static void read_header(const char *path, struct rt_op_hive_check *c)
{
    c->size = -1;
    /* Through the platform layer: a FIFO or device is refused at its
     * open, never waited on. */
    int fd = rt_os_open(path, RT_OS_READ);
    if (fd < 0)
        return;
    uint8_t b[REGF_BASE_BLOCK_SIZE];
    long long got = rt_os_pread(fd, b, sizeof b, 0);
    uint64_t size;
    if (rt_os_fsize(fd, &size) == 0)
        c->size = (long long)size;
    rt_os_close(fd);
    if (got == (long long)sizeof b && !memcmp(b, "regf", 4)) {
        c->have_header = 1;
        c->major = regf_le32(b + REGF_OFF_MAJOR);
        c->minor = regf_le32(b + REGF_OFF_MINOR);
        c->seq1 = regf_le32(b + REGF_OFF_SEQ1);
        c->seq2 = regf_le32(b + REGF_OFF_SEQ2);
        c->dirty = regf_base_is_dirty(b);
    }
}

/* regtool.journal beside PATH: an unfinished regtool commit. */
static void find_journal(const char *path, struct rt_op_hive_check *c)
{
    const char *slash = strrchr(path, '/');
    char *journal;
    int n = slash ? asprintf(&journal, "%.*s/" RT_HIVE_JOURNAL_NAME,
                             (int)(slash - path), path)
                  : asprintf(&journal, RT_HIVE_JOURNAL_NAME);
    if (n < 0)
        return;
    struct rt_os_stat st;
    if (rt_os_stat(journal, &st) == 0 && st.kind == RT_OS_FILE) {
        c->journal_pending = 1;
        c->journal_bytes = st.size;
    }
    free(journal);
}

int rt_op_hive_check(const char *path, struct rt_op_hive_check *out)
{
    memset(out, 0, sizeof *out);
    read_header(path, out);
    /* What the logs hold and what a replay would apply, without keeping
     * the replayed image. */
    struct rt_regf_replay_report rep;
    rt_regf_replay_file(path, NULL, NULL, &rep);
    take_replay(&rep, &out->replay);
    struct findings_sink sink = {out, 0, 0};
    struct rt_regf *h;
    int rc = rt_regf_open(path, 0, &h, out->error, sizeof out->error);
    if (rc == RT_REGF_EIO || rc == RT_REGF_ENOMEM)
        return -1;
    if (rc) {
        /* The message names the offset it is about; report it there. */
        unsigned long long at = 0;
        const char *o = strstr(out->error, "file offset 0x");
        if (o)
            sscanf(o + 12, "%llx", &at);
        add_finding(&sink, RT_OP_HIVE_ERROR, at, out->error);
        out->error[0] = 0;
    } else {
        sink.no_memory |= rt_regf_check(h, on_finding, &sink) ==
                          RT_REGF_ENOMEM;
        rt_regf_close(h);
    }
    if (sink.no_memory) {
        snprintf(out->error, sizeof out->error,
                 "%s: out of memory: the check is incomplete", path);
        return -1;
    }
    find_journal(path, out);
    return 0;
}

void rt_op_hive_check_free(struct rt_op_hive_check *c)
{
    for (size_t i = 0; i < c->n_findings; i++)
        free(c->findings[i].message);
    free(c->findings);
    c->findings = NULL;
    c->n_findings = 0;
    replay_free(&c->replay);
}

static enum rt_op_recover_outcome outcome(struct rt_op_hive_recover *r,
                                          enum rt_op_recover_outcome o,
                                          int err_no)
{
    r->outcome = o;
    r->err_no = err_no;
    return o;
}

/* Which of the hive at PATH and its logs OUT names in its folder in any
 * letter case (Windows sees one name where Linux sees two): -2 the hive,
 * a log slot, or -1 none (another folder or name). */
static int names_hive_or_log(const char *path, const char *out)
{
    char logs[RT_OP_HIVE_LOG_SLOTS][16];
    const char *suffixes[RT_OP_HIVE_LOG_SLOTS + 2] = {""};
    for (int s = 0; s < RT_OP_HIVE_LOG_SLOTS; s++) {
        snprintf(logs[s], sizeof logs[s], ".%s", rt_regf_log_slot_name(s));
        suffixes[s + 1] = logs[s];
    }
    int k = rt_os_names_file(out, path, suffixes);
    return k < 0 ? -1 : k == 0 ? -2 : k - 1;
}

enum rt_op_recover_outcome rt_op_hive_recover(const char *path,
                                              const char *out, int force,
                                              struct rt_op_hive_recover *r)
{
    memset(r, 0, sizeof *r);
    struct rt_os_stat st;
    /* A failed stat leaves KIND ABSENT (rt_os_stat zeroes it). */
    if (rt_os_stat(path, &st) != 0 || st.kind == RT_OS_ABSENT)
        return outcome(r, RT_OP_RECOVER_UNREADABLE,
                       st.kind == RT_OS_ABSENT ? ENOENT : errno);
    int named = names_hive_or_log(path, out);
    if (rt_os_same_file(out, path) || named == -2)
        return outcome(r, RT_OP_RECOVER_OUT_IS_HIVE, 0);
    /* Another file of the tree the hive lies in: its journal or lock
     * (review 42 R42-7: a hive written as the journal left every writer
     * of the tree refused), the other hive, a .dat table,
     * PerfStringBackup.INI or an INF copy's file, --force or not: what
     * is replaced there is the tree's database, not an old copy. */
    int in_tree = named == -1 ? rt_store_hive_tree_names(path, NULL, out) : 0;
    if (in_tree < 0)
        return outcome(r, RT_OP_RECOVER_UNWRITABLE, ENOMEM);
    if (in_tree)
        return outcome(r, RT_OP_RECOVER_OUT_IS_TREE_FILE, 0);

    uint8_t *image = NULL;
    size_t size = 0;
    struct rt_regf_replay_report rep;
    int rc = rt_regf_replay_file(path, &image, &size, &rep);
    take_replay(&rep, &r->replay);
    if (rc != 0)
        return outcome(r, RT_OP_RECOVER_NOT_REPLAYED, 0);
    /* A log's name in another case, the log there or not: what Windows
     * would take for the log. */
    if (named >= 0 && !r->replay.log[named].name &&
        !(r->replay.log[named].name = strdup(out))) {
        free(image);
        return outcome(r, RT_OP_RECOVER_UNWRITABLE, ENOMEM);
    }
    if (named >= 0) {
        free(image);
        r->out_log = named;
        return outcome(r, RT_OP_RECOVER_OUT_IS_LOG, 0);
    }
    for (int s = 0; s < RT_OP_HIVE_LOG_SLOTS; s++) {
        if (r->replay.log[s].name &&
            rt_os_same_file(out, r->replay.log[s].name)) {
            free(image);
            r->out_log = s;
            return outcome(r, RT_OP_RECOVER_OUT_IS_LOG, 0);
        }
    }
    if (!force && rt_os_exists(out)) {
        free(image);
        return outcome(r, RT_OP_RECOVER_OUT_EXISTS, 0);
    }
    rc = rt_os_replace_file(out, image, size, st.mode & 0666);
    int err = errno;
    free(image);
    if (rc != 0)
        return outcome(r, RT_OP_RECOVER_UNWRITABLE, err);
    return outcome(r, RT_OP_RECOVER_WRITTEN, 0);
}

void rt_op_hive_recover_free(struct rt_op_hive_recover *r)
{
    replay_free(&r->replay);
}
