/* Transaction log replay (regf layer): decides which logs apply to a dirty
 * primary and writes their pages onto a copy of it, following the
 * "Windows registry file format specification" (sections "New format",
 * "Old format", "Multiple transaction log files"):
 *  - new format: the log with the earlier entries first, its chain must
 *    start at or after the primary's secondary sequence number; the other
 *    log continues when its first entry is the next sequence number. A
 *    primary with a bad checksum uses only the log with the latest entries
 *    and takes its base block from it.
 *  - old format: only a log whose timestamp equals the primary's; each
 *    dirty hive bin is checked before its pages are written.
 * The result is sealed: both sequence numbers equal, file type primary,
 * hive bins size of the last entry, checksum recomputed. */
#include "regf/log_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/base_block.h"
#include "platform/os.h"

/* Hive bin header fields. */
#define HBIN_OFF_OFFSET     4
#define HBIN_OFF_SIZE       8
#define HBIN_OFF_TIMESTAMP  20

struct image {
    uint8_t *buf;
    size_t len;
};

static int image_grow(struct image *im, size_t len)
{
    if (len <= im->len)
        return 0;
    uint8_t *n = realloc(im->buf, len);
    if (!n)
        return -1;
    memset(n + im->len, 0, len - im->len);
    im->buf = n;
    im->len = len;
    return 0;
}

static void report_say(struct rt_regf_replay_report *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void report_say(struct rt_regf_replay_report *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->message, sizeof r->message, fmt, ap);
    va_end(ap);
}

static void log_say(struct rt_regf_log_info *info, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void log_say(struct rt_regf_log_info *info, const char *fmt, ...)
{
    if (info->problem[0])       /* keep the first, more specific, reason */
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(info->problem, sizeof info->problem, fmt, ap);
    va_end(ap);
}

/* A log that could not be read (ERR: an errno value) ends the replay:
 * a log left out could hold the only copy of recent changes. Out of
 * memory is reported as such by the caller. */
static void failed_read(struct rt_regf_replay_report *r,
                        const struct rt_regf_log_info *info, int err)
{
    if (err == ENOMEM || r->status == RT_REGF_REPLAY_IO_ERROR)
        return;
    r->status = RT_REGF_REPLAY_IO_ERROR;
    report_say(r, "cannot read '%s': %s", info->name ? info->name : "log",
               rt_os_strerror(err ? err : EIO));
}

const char *rt_regf_log_slot_name(enum rt_regf_log_slot slot)
{
    switch (slot) {
    case RT_REGF_LOG1: return "LOG1";
    case RT_REGF_LOG2: return "LOG2";
    case RT_REGF_LOG: return "LOG";
    default: return "?";
    }
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

/* The bytes of the COUNT dirty pages of V's entry at POS, into *HELD:
 * 0, or -1 (errno) when the references cannot be read. */
static int entry_page_bytes(const struct regf_log_view *v, uint64_t pos,
                            uint32_t count, uint64_t *held)
{
    uint8_t ref[8];
    *held = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (regf_log_read(&v->src, pos + REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)i,
                          ref, sizeof ref) != 0)
            return -1;
        *held += regf_le32(ref + 4);
    }
    return 0;
}

/* Writes the pages of every entry of V's chain, in order, read from the
 * log straight into the image. *FAILED: an errno value when it cannot. */
static void apply_new_log(struct image *im, const struct regf_log_view *v,
                          struct rt_regf_log_info *info,
                          struct rt_regf_replay_report *r, uint32_t *hbins,
                          uint32_t *flags, int *failed)
{
    *flags = v->flags;
    uint8_t e[REGF_LOG_ENTRY_HEADER], ref[8];
    for (size_t k = 0; k < v->n_entries; k++) {
        uint64_t pos = v->entry_off[k];
        if (regf_log_read(&v->src, pos, e, sizeof e) != 0) {
            failed_read(r, info, *failed = errno ? errno : EIO);
            return;
        }
        uint32_t entry_hbins = regf_le32(e + REGF_LE_OFF_HBINS_SIZE);
        uint32_t count = regf_le32(e + REGF_LE_OFF_PAGE_COUNT);
        /* The spec: the primary grows to the entry's hive bins size. Windows
         * logs every bin a hive grows by as dirty pages: an entry that grows
         * it by more than its pages hold is no log Windows wrote, and would
         * have a few KB of log allocate and write gigabytes of zeros (a
         * hostile tree's). Its entries end there, as at a broken one. */
        size_t want = REGF_BASE_BLOCK_SIZE + (size_t)entry_hbins;
        if (want > im->len) {
            uint64_t held;
            if (entry_page_bytes(v, pos, count, &held) != 0) {
                failed_read(r, info, *failed = errno ? errno : EIO);
                return;
            }
            if (want - im->len > held) {
                log_say(info, "log entry at offset 0x%llx grows the hive bins "
                        "to 0x%x, 0x%llx bytes more than its dirty pages hold "
                        "(0x%llx): no log Windows writes; the entries end here",
                        (unsigned long long)pos, entry_hbins,
                        (unsigned long long)(want - im->len),
                        (unsigned long long)held);
                break;
            }
        }
        if (image_grow(im, want) != 0) {
            *failed = ENOMEM;
            return;
        }
        uint64_t page = pos + REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)count;
        for (uint32_t i = 0; i < count; i++) {
            if (regf_log_read(&v->src,
                              pos + REGF_LOG_ENTRY_HEADER + 8 * (uint64_t)i,
                              ref, sizeof ref) != 0) {
                failed_read(r, info, *failed = errno ? errno : EIO);
                return;
            }
            uint32_t off = regf_le32(ref), psz = regf_le32(ref + 4);
            if (regf_log_read(&v->src, page,
                              im->buf + REGF_BASE_BLOCK_SIZE + off, psz) != 0) {
                failed_read(r, info, *failed = errno ? errno : EIO);
                return;
            }
            page += psz;
            r->pages_applied++;
        }
        uint32_t seq = regf_le32(e + REGF_LE_OFF_SEQUENCE);
        if (r->entries_applied == 0)
            r->first_sequence = seq;
        r->last_sequence = seq;
        r->entries_applied++;
        info->entries_applied++;
        *hbins = entry_hbins;
        /* Only bit 0 (KTM locked) travels in log entries. */
        *flags = (*flags & ~1u) | (regf_le32(e + REGF_LE_OFF_FLAGS) & 1u);
    }
    info->used = 1;
}

/* A log whose chain starts before the primary's secondary sequence
 * number holds changes the primary already has (spec, note 7). */
static int new_log_eligible(const struct regf_log_view *v, uint32_t seq2)
{
    return v->format == RT_REGF_LOG_NEW && v->n_entries > 0 &&
           regf_seq_diff(v->sequence, seq2) >= 0;
}

static void explain_new_log(const struct regf_log_view *v,
                            struct rt_regf_log_info *info, uint32_t seq2)
{
    if (v->format != RT_REGF_LOG_NEW || info->used)
        return;
    if (v->n_entries == 0)
        log_say(info, "no valid log entry");
    else if (regf_seq_diff(v->sequence, seq2) < 0)
        log_say(info, "not used: its entries (from sequence %u) are older "
                "than the primary's sequence number %u", v->sequence, seq2);
    else
        log_say(info, "not used: its entries (from sequence %u) do not "
                "continue the entries applied", v->sequence);
}

/* Applies the new-format logs; returns the log whose entries came last
 * when the primary's base block is damaged (it supplies the base block). */
static const struct regf_log_view *
replay_new(struct image *im, struct regf_log_view *views,
           struct rt_regf_replay_report *r, uint32_t *hbins, uint32_t *flags,
           int *failed)
{
    int first = -1, second = -1;
    if (views[RT_REGF_LOG1].format == RT_REGF_LOG_NEW &&
        views[RT_REGF_LOG2].format == RT_REGF_LOG_NEW) {
        /* Windows swaps LOG1 and LOG2 as it writes: either may hold the
         * earlier entries. */
        int log2_earlier = regf_seq_diff(views[RT_REGF_LOG2].sequence,
                                         views[RT_REGF_LOG1].sequence) < 0;
        first = log2_earlier ? RT_REGF_LOG2 : RT_REGF_LOG1;
        second = log2_earlier ? RT_REGF_LOG1 : RT_REGF_LOG2;
    } else {
        for (int s = 0; s < RT_REGF_LOG_SLOTS && first < 0; s++)
            if (views[s].format == RT_REGF_LOG_NEW)
                first = s;
    }
    const struct regf_log_view *base_from = NULL;
    uint32_t seq2 = r->primary_seq2;
    if (!r->primary_checksum_ok) {
        /* Only the latest log is used, and the base block comes from it;
         * sequence numbers of a damaged primary mean nothing. */
        int latest = second >= 0 ? second : first;
        if (views[latest].n_entries > 0) {
            apply_new_log(im, &views[latest], &r->log[latest], r, hbins,
                          flags, failed);
            base_from = &views[latest];
        }
        if (second >= 0 && !r->log[first].used)
            log_say(&r->log[first], "not used: the primary's base block is "
                    "damaged, so only the log with the latest entries is");
    } else if (new_log_eligible(&views[first], seq2)) {
        apply_new_log(im, &views[first], &r->log[first], r, hbins, flags,
                      failed);
        if (!*failed && second >= 0 && views[second].n_entries > 0 &&
            views[second].sequence == r->last_sequence + 1)
            apply_new_log(im, &views[second], &r->log[second], r, hbins,
                          flags, failed);
    } else if (second >= 0 && new_log_eligible(&views[second], seq2)) {
        apply_new_log(im, &views[second], &r->log[second], r, hbins, flags,
                      failed);
    }
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        explain_new_log(&views[s], &r->log[s], seq2);
    return base_from;
}

/* The bin header at hive offset OFF, HDR its first bytes: sane when it
 * says where it is and has a size that fits. */
static int hbin_ok(const uint8_t *hdr, size_t off, uint32_t hbins,
                   uint32_t *size)
{
    *size = regf_le32(hdr + HBIN_OFF_SIZE);
    return memcmp(hdr, "hbin", 4) == 0 &&
           regf_le32(hdr + HBIN_OFF_OFFSET) == off &&
           *size >= REGF_HBIN_ALIGN && *size % REGF_HBIN_ALIGN == 0 &&
           (uint64_t)off + *size <= hbins;
}

/* Old format: the dirty pages of each hive bin go in together, after the
 * bin's header (from the log when its first page is dirty, else from the
 * primary) is checked; a bad dirty bin ends the replay (spec, "Dirty
 * pages"). */
static int replay_old_pages(struct image *im, const struct regf_log_view *v,
                            struct rt_regf_log_info *info,
                            struct rt_regf_replay_report *r)
{
    /* As for the new format: Windows logs every page of the bins a hive
     * grows by, so a page past the primary's end that is not dirty says
     * no log Windows wrote; replayed, a few KB of log (one dirty page, a
     * sparse vector) would size the hive to the 2 GB its base block
     * claims, for every reader. Not replayed at all. */
    size_t npages = v->hbins_size / REGF_LOG_SECTOR;
    size_t have = im->len > REGF_BASE_BLOCK_SIZE ? im->len - REGF_BASE_BLOCK_SIZE
                                                 : 0;
    for (size_t p = have / REGF_LOG_SECTOR; p < npages; p++)
        if (!((v->bitmap[p / 8] >> (p % 8)) & 1)) {
            log_say(info, "its hive bins size 0x%x grows the hive past its "
                    "0x%zx bytes with pages the log does not hold (hive "
                    "offset 0x%zx is not dirty): no log Windows writes; not "
                    "replayed", v->hbins_size, have, p * REGF_LOG_SECTOR);
            return 0;
        }
    if (image_grow(im, REGF_BASE_BLOCK_SIZE + (size_t)v->hbins_size) != 0) {
        errno = ENOMEM;
        return -1;
    }
    size_t next_page = 0;           /* index of the next page in the log */
    uint64_t bin_end = 0;
    uint8_t log_page[REGF_LOG_SECTOR];
    for (size_t p = 0; p < npages; p++) {
        size_t off = p * REGF_LOG_SECTOR;
        int dirty = (v->bitmap[p / 8] >> (p % 8)) & 1;
        uint64_t log_off = v->pages_off + (uint64_t)next_page * REGF_LOG_SECTOR;
        if (dirty && regf_log_read(&v->src, log_off, log_page,
                                   sizeof log_page) != 0) {
            failed_read(r, info, errno ? errno : EIO);
            return -1;
        }
        if (off >= bin_end) {
            const uint8_t *hdr =
                dirty ? log_page : im->buf + REGF_BASE_BLOCK_SIZE + off;
            uint32_t size;
            if (hbin_ok(hdr, off, v->hbins_size, &size)) {
                bin_end = off + (uint64_t)size;
            } else if (dirty) {
                log_say(info, "dirty hive bin at hive offset 0x%zx (log "
                        "offset 0x%llx) is not a valid hive bin; the replay "
                        "stops there", off, (unsigned long long)log_off);
                break;
            } else {
                /* No bin layout known here: go on block by block. */
                bin_end = off + REGF_HBIN_ALIGN;
            }
        }
        if (dirty) {
            memcpy(im->buf + REGF_BASE_BLOCK_SIZE + off, log_page,
                   REGF_LOG_SECTOR);
            next_page++;
            r->pages_applied++;
        }
    }
    info->used = 1;
    return 0;
}

/* The primary's last written timestamp, or, when its base block is
 * damaged, that of its first hive bin (spec, old format, note 3). */
static int primary_timestamp(const uint8_t *p, size_t size, int checksum_ok,
                             uint64_t *ts)
{
    if (checksum_ok) {
        *ts = regf_le64(p + REGF_OFF_TIMESTAMP);
        return 0;
    }
    if (size < REGF_BASE_BLOCK_SIZE + HBIN_OFF_TIMESTAMP + 8 ||
        memcmp(p + REGF_BASE_BLOCK_SIZE, "hbin", 4) != 0)
        return -1;
    *ts = regf_le64(p + REGF_BASE_BLOCK_SIZE + HBIN_OFF_TIMESTAMP);
    return 0;
}

static const struct regf_log_view *
replay_old(struct image *im, const uint8_t *primary, size_t primary_size,
           struct regf_log_view *views, struct rt_regf_replay_report *r,
           uint32_t *hbins, uint32_t *flags, int *failed)
{
    uint64_t ts = 0;
    int have_ts = primary_timestamp(primary, primary_size,
                                    r->primary_checksum_ok, &ts) == 0;
    int chosen = -1;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        if (views[s].format != RT_REGF_LOG_OLD)
            continue;
        if (!have_ts) {
            log_say(&r->log[s], "not used: the primary has no timestamp to "
                    "match (damaged base block and first hive bin)");
            continue;
        }
        if (views[s].timestamp != ts) {
            log_say(&r->log[s], "not used: its timestamp 0x%016llx differs "
                    "from the primary's 0x%016llx",
                    (unsigned long long)views[s].timestamp,
                    (unsigned long long)ts);
            continue;
        }
        /* Of two applicable logs, the one written last. */
        if (chosen < 0 ||
            regf_seq_diff(views[s].sequence, views[chosen].sequence) > 0)
            chosen = s;
    }
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        if (views[s].format == RT_REGF_LOG_OLD && s != chosen)
            log_say(&r->log[s], "not used: another log is more recent");
    if (chosen < 0)
        return NULL;
    if (replay_old_pages(im, &views[chosen], &r->log[chosen], r) != 0) {
        *failed = errno ? errno : EIO;
        return NULL;
    }
    if (r->pages_applied == 0) {
        /* Its first dirty bin is bad: nothing recovered, nothing to seal. */
        r->log[chosen].used = 0;
        return NULL;
    }
    *hbins = views[chosen].hbins_size;
    *flags = views[chosen].flags;
    r->format_applied = RT_REGF_LOG_OLD;
    return &views[chosen];
}

/* Rewrites the image's base block as the recovered primary's; FROM_LOG,
 * when not NULL, supplies the base block (the primary's is damaged). */
static void seal(struct image *im, const struct regf_log_view *from_log,
                 uint32_t seq, uint32_t hbins, uint32_t flags)
{
    uint8_t *b = im->buf;
    if (from_log) {
        /* A log keeps only the first 512 bytes of the base block. */
        memset(b, 0, REGF_BASE_BLOCK_SIZE);
        memcpy(b, from_log->base, REGF_LOG_BASE_BLOCK_SIZE);
    }
    regf_put32(b + REGF_OFF_SEQ1, seq);
    regf_put32(b + REGF_OFF_SEQ2, seq);
    regf_put32(b + REGF_OFF_HBINS_SIZE, hbins);
    regf_put32(b + REGF_OFF_FLAGS, flags);
    regf_put32(b + REGF_OFF_FILE_TYPE, REGF_FILE_TYPE_PRIMARY);
    regf_base_seal(b);
}

static int check_primary(const uint8_t *p, size_t size,
                         struct rt_regf_replay_report *r)
{
    if (size < REGF_BASE_BLOCK_SIZE) {
        report_say(r, "file is %zu bytes, shorter than a hive base block "
                   "(4096)", size);
        return -1;
    }
    if (memcmp(p, "regf", 4) != 0) {
        report_say(r, "no 'regf' signature at offset 0: not a hive file");
        return -1;
    }
    uint32_t type = regf_le32(p + REGF_OFF_FILE_TYPE);
    if (type != REGF_FILE_TYPE_PRIMARY) {
        report_say(r, "file type %u at offset 0x1c: a transaction log, not a "
                   "primary hive file", type);
        return -1;
    }
    return 0;
}

static void describe_unusable(struct rt_regf_replay_report *r)
{
    int any = 0;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        any |= r->log[s].format != RT_REGF_LOG_ABSENT;
    if (!any)
        report_say(r, "dirty (sequence numbers %u/%u%s) and no transaction "
                   "log beside it", r->primary_seq1, r->primary_seq2,
                   r->primary_checksum_ok ? "" : ", bad checksum");
    else
        report_say(r, "dirty (sequence numbers %u/%u%s) and none of its "
                   "transaction logs can be applied", r->primary_seq1,
                   r->primary_seq2,
                   r->primary_checksum_ok ? "" : ", bad checksum");
}

/* Applies the logs of VIEWS to IM, the image of the dirty PRIMARY
 * (PRIMARY_SIZE bytes), and seals it: the new-format logs when there is
 * one, else the old format. 0 applied (R's status RT_REGF_REPLAY_APPLIED),
 * 1 when no log could be applied (RT_REGF_REPLAY_NO_USABLE_LOG, said
 * why), -1 when a log could not be read or memory ran out. */
static int apply_logs(struct image *im, const uint8_t *primary,
                      size_t primary_size, struct regf_log_view *views,
                      struct rt_regf_replay_report *r)
{
    uint32_t hbins = 0, flags = 0;
    int failed = 0, any_new = 0;
    const struct regf_log_view *base_from = NULL;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        any_new |= views[s].format == RT_REGF_LOG_NEW;
    if (any_new) {
        /* Windows 8.1 and later write only the new format; an old-format
         * file beside new ones is a leftover (spec, "Multiple transaction
         * log files"). */
        base_from = replay_new(im, views, r, &hbins, &flags, &failed);
        for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
            if (views[s].format == RT_REGF_LOG_OLD)
                log_say(&r->log[s], "not used: old format beside new-format "
                        "logs");
        if (r->entries_applied > 0) {
            r->format_applied = RT_REGF_LOG_NEW;
            r->result_sequence = r->last_sequence;
        }
    } else {
        base_from = replay_old(im, primary, primary_size, views, r, &hbins,
                               &flags, &failed);
        if (base_from)
            r->result_sequence = r->primary_checksum_ok ? r->primary_seq1
                                                        : base_from->sequence;
    }
    if (failed)
        return -1;
    if (r->format_applied == RT_REGF_LOG_ABSENT) {
        r->status = RT_REGF_REPLAY_NO_USABLE_LOG;
        describe_unusable(r);
        return 1;
    }
    seal(im, r->primary_checksum_ok ? NULL : base_from, r->result_sequence,
         hbins, flags);
    r->result_hbins_size = hbins;
    r->status = RT_REGF_REPLAY_APPLIED;
    return 0;
}

int regf_replay_sources(const uint8_t *primary, size_t primary_size,
                        int owned, const char *primary_name,
                        const struct regf_log_source *const src[RT_REGF_LOG_SLOTS],
                        const char *const names[RT_REGF_LOG_SLOTS],
                        uint8_t **image_out, size_t *image_size,
                        struct rt_regf_replay_report *r)
{
    memset(r, 0, sizeof *r);
    struct regf_log_view views[RT_REGF_LOG_SLOTS];
    struct image im = {NULL, 0};
    int ret = -1;
    memset(views, 0, sizeof views);
    if (image_out)
        *image_out = NULL;
    if (image_size)
        *image_size = 0;

    r->primary_name = dup_or_null(primary_name);
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        r->log[s].name = dup_or_null(names ? names[s] : NULL);
        if (regf_log_parse(src ? src[s] : NULL, &views[s], &r->log[s]) != 0) {
            failed_read(r, &r->log[s], errno);
            goto failed;
        }
    }
    if (!primary || check_primary(primary, primary_size, r) != 0) {
        if (!primary)
            report_say(r, "no primary file given");
        r->status = RT_REGF_REPLAY_BAD_PRIMARY;
        goto out;
    }
    r->primary_seq1 = regf_le32(primary + REGF_OFF_SEQ1);
    r->primary_seq2 = regf_le32(primary + REGF_OFF_SEQ2);
    r->primary_checksum_ok = regf_le32(primary + REGF_OFF_CHECKSUM) ==
                             regf_base_checksum(primary);
    r->primary_dirty = regf_base_is_dirty(primary);

    /* A clean primary is copied only for a caller that wants the image
     * (hive recover); a report alone (hive check) need not hold the hive
     * twice, and a primary handed over is the image itself. */
    if (owned) {
        im.buf = (uint8_t *)primary;
        im.len = primary_size;
        owned = 0;
    } else if (r->primary_dirty || image_out) {
        im.buf = malloc(primary_size ? primary_size : 1);
        if (!im.buf)
            goto no_memory;
        memcpy(im.buf, primary, primary_size);
        im.len = primary_size;
    }

    if (!r->primary_dirty) {
        for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
            if (views[s].format == RT_REGF_LOG_NEW ||
                views[s].format == RT_REGF_LOG_OLD)
                log_say(&r->log[s], "not used: the primary is not dirty, so "
                        "its logs are ignored");
        r->status = RT_REGF_REPLAY_CLEAN;
        r->result_sequence = r->primary_seq1;
        r->result_hbins_size = regf_le32(primary + REGF_OFF_HBINS_SIZE);
        ret = 0;
        goto out;
    }

    int applied = apply_logs(&im, primary, primary_size, views, r);
    if (applied < 0)
        goto failed;
    ret = applied == 0 ? 0 : -1;
    goto out;

failed:
    /* The status and message say which log could not be read; out of
     * memory says so itself. */
    if (r->status != RT_REGF_REPLAY_IO_ERROR)
        goto no_memory;
    ret = -1;
    goto out;
no_memory:
    r->status = RT_REGF_REPLAY_NO_MEMORY;
    report_say(r, "out of memory");
    ret = -1;
out:
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++)
        regf_log_view_free(&views[s]);
    if (owned)
        free((void *)primary);
    if (ret == 0 && image_out) {
        *image_out = im.buf;
        if (image_size)
            *image_size = im.len;
    } else {
        free(im.buf);
    }
    return ret;
}

int rt_regf_replay(const uint8_t *primary, size_t primary_size,
                   const char *primary_name,
                   const struct rt_regf_log_input logs[RT_REGF_LOG_SLOTS],
                   uint8_t **image_out, size_t *image_size,
                   struct rt_regf_replay_report *r)
{
    struct regf_log_source in[RT_REGF_LOG_SLOTS];
    const struct regf_log_source *src[RT_REGF_LOG_SLOTS] = {NULL};
    const char *names[RT_REGF_LOG_SLOTS] = {NULL};
    for (int s = 0; logs && s < RT_REGF_LOG_SLOTS; s++) {
        names[s] = logs[s].name;
        if (!logs[s].data)
            continue;
        in[s] = (struct regf_log_source){logs[s].data, -1, logs[s].size};
        src[s] = &in[s];
    }
    return regf_replay_sources(primary, primary_size, 0, primary_name, src,
                               names, image_out, image_size, r);
}

void rt_regf_replay_report_free(struct rt_regf_replay_report *r)
{
    if (!r)
        return;
    free(r->primary_name);
    r->primary_name = NULL;
    for (int s = 0; s < RT_REGF_LOG_SLOTS; s++) {
        free(r->log[s].name);
        r->log[s].name = NULL;
    }
}
