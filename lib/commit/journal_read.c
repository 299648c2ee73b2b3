/* Commit layer: a journal read back: parsed, checked and loaded. */
#include "commit/journal_internal.h"
#include "model/printable.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p)
{
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* Where the intent block of journal B (LEN bytes) starts: past the
 * header. 0 when the header is incomplete. */
static size_t intents_at(const uint8_t *b, size_t len)
{
    if (len < 20 || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    uint32_t wl = get32(b + 16);
    if (wl > 4096 || len - 20 < wl)
        return 0;
    return 20 + wl;
}

/* Length of the intent block at the start of journal B (LEN bytes): the
 * magic, the files that get fresh bytes with their sizes before the
 * commit, and a CRC. 0 when it is incomplete or damaged. Each entry is
 * at least 13 bytes of B, so the count is bounded by LEN. */
static size_t intent_len(const uint8_t *b, size_t len)
{
    size_t pos = intents_at(b, len);
    if (!pos || len - pos < 4)
        return 0;
    uint32_t n = get32(b + pos);
    pos += 4;
    for (uint32_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return 0;
        uint32_t fl = get32(b + pos);
        if (fl == 0 || len - pos - 12 < fl)
            return 0;
        pos += 12 + fl;
    }
    if (len - pos < 4 || get32(b + pos) != rt_crc32(0, b, pos))
        return 0;
    return pos + 4;
}

/* Whether B (LEN bytes) is a sealed journal; *BODY its body length. */
static int sealed(const uint8_t *b, size_t len, size_t *body)
{
    if (len < 20 + TRAILER_SIZE || memcmp(b, JOURNAL_MAGIC, 8) != 0)
        return 0;
    const uint8_t *t = b + len - TRAILER_SIZE;
    if (memcmp(t, COMMIT_MAGIC, 8) != 0 || get64(t + 8) != len - TRAILER_SIZE)
        return 0;
    *body = len - TRAILER_SIZE;
    return get32(t + 16) == rt_crc32(0, b, *body);
}

/* NAME (LEN bytes) as it can be printed: other than printable ASCII as
 * \xNN, cut at about SIZE. */
static void shown_name(const uint8_t *name, size_t len, char *buf,
                       size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len && o + 8 < size; i++) {
        if (name[i] >= 0x20 && name[i] < 0x7f && name[i] != '\\')
            buf[o++] = (char)name[i];
        else
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", name[i]);
    }
    if (o + 8 >= size && o + 4 <= size)
        memcpy(buf + o, "...", 3), o += 3;
    buf[o] = '\0';
}

/* What a refused journal's message ends with: what happened, why it
 * cannot be ours, and what to do. */
#define REFUSED_TAIL                                                        \
    "; the journal is refused whole: nothing was replayed, cut back or "   \
    "removed, and it stays where it is. This store's commits never "       \
    "write such a journal (it was planted, or damaged): check it, then "   \
    "move it aside (mv %s %s.refused) and run again"

static int refuse(const char *jpath, struct rt_error *e, const char *why)
{
    return rt_error_set(e, RT_ERR_BADDB, "%s: %s" REFUSED_TAIL, jpath, why,
                        jpath, jpath);
}

/* Checks the name of the intent (INTENT) or record number I, FL bytes at
 * NAME, and copies it into J->names. NULL with E when it is refused. */
static const char *take_name(struct rt_journal *j,
                             const struct rt_journal_scope *scope,
                             int intent, size_t i, const uint8_t *name,
                             uint32_t fl, struct rt_error *e)
{
    char shown[300], why[600];
    const char *problem = rt_journal_name_problem((const char *)name, fl);
    char *s = j->names + j->names_used;
    if (!problem) {
        memcpy(s, name, fl);
        s[fl] = '\0';
        if (scope && scope->is_store_file &&
            !scope->is_store_file(scope->ctx, s))
            problem = "not a file this store's commits write";
    }
    if (problem) {
        shown_name(name, fl, shown, sizeof shown);
        snprintf(why, sizeof why, "%s %zu names '%s': %s",
                 intent ? "the intent block's entry" : "record", i + 1, shown,
                 problem);
        refuse(j->path, e, why);
        return NULL;
    }
    j->names_used += fl + 1;
    return s;
}

/* The entry of J->files for FILE, added when missing. */
/* The index in J->files of FILE, added when missing; SIZE_MAX when J
 * would name more files than J->max_files. */
static size_t file_entry(struct rt_journal *j, const char *file)
{
    size_t at = (size_t)rt_os_path_hash(file) & (j->n_slots - 1);
    while (j->slots[at] && strcmp(j->files[j->slots[at] - 1].rel, file))
        at = (at + 1) & (j->n_slots - 1);
    if (j->slots[at])
        return j->slots[at] - 1;
    if (j->n_files == j->max_files)
        return SIZE_MAX;
    struct rt_journal_file *f = &j->files[j->n_files];
    memset(f, 0, sizeof *f);
    f->rel = file;
    j->slots[at] = (uint32_t)++j->n_files;
    return j->n_files - 1;
}

/* Parses the intent block of J (ILEN bytes, checked by intent_len). */
static int parse_intents(struct rt_journal *j,
                         const struct rt_journal_scope *scope,
                         struct rt_error *e)
{
    size_t pos = intents_at(j->buf, j->len);
    uint32_t n = get32(j->buf + pos);
    pos += 4;
    j->intents = calloc(n ? n : 1, sizeof *j->intents);
    if (!j->intents)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (uint32_t i = 0; i < n; i++) {
        uint32_t fl = get32(j->buf + pos);
        const char *file = take_name(j, scope, 1, i, j->buf + pos + 12, fl, e);
        if (!file)
            return -1;
        j->intents[i].file = (char *)file;
        j->intents[i].size = get64(j->buf + pos + 4);
        j->n_intents++;
        pos += 12 + fl;
    }
    return 0;
}

/* Parses and checks every record of J's sealed body, bytes START to
 * BODY, before any is acted on. */
static int parse_records(struct rt_journal *j,
                         const struct rt_journal_scope *scope, size_t start,
                         size_t body, struct rt_error *e)
{
    char why[700], shown[300];
    /* Each record is at least 21 bytes: this bounds the count. */
    size_t most = (body - start) / 21 + 1;
    j->recs = calloc(most, sizeof *j->recs);
    if (!j->recs)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    for (size_t pos = start; pos < body;) {
        size_t i = j->n_recs;
        if (body - pos < 20 || i == most) {
            snprintf(why, sizeof why, "record %zu at byte %zu is cut short",
                     i + 1, pos);
            return refuse(j->path, e, why);
        }
        struct jrec *r = &j->recs[i];
        r->kind = get32(j->buf + pos);
        uint32_t fl = get32(j->buf + pos + 4);
        r->offset = get64(j->buf + pos + 8);
        r->len = get32(j->buf + pos + 16);
        pos += 20;
        if (r->kind != REC_WRITE && r->kind != REC_SIZE &&
            r->kind != REC_DELETE) {
            snprintf(why, sizeof why,
                     "record %zu at byte %zu is of kind %u, which no commit "
                     "writes", i + 1, pos - 20, (unsigned)r->kind);
            return refuse(j->path, e, why);
        }
        if (body - pos < (uint64_t)fl + r->len) {
            snprintf(why, sizeof why,
                     "record %zu at byte %zu runs past the end of the "
                     "journal", i + 1, pos - 20);
            return refuse(j->path, e, why);
        }
        if (!(r->file = take_name(j, scope, 0, i, j->buf + pos, fl, e)))
            return -1;
        pos += fl;
        r->data = j->buf + pos;
        pos += r->len;
        const char *bad = NULL;
        uint64_t parts = 1;
        for (const char *q = r->file; *q; q++)
            parts += *q == '/';
        uint64_t cap = scope && scope->file_max
                           ? scope->file_max(scope->ctx, r->file)
                           : MAX_FILE_END;
        char capped[128];
        snprintf(capped, sizeof capped, "it makes the file larger than the "
                 "%llu bytes such a file of the store may be",
                 (unsigned long long)cap);
        if (r->kind == REC_WRITE && r->offset + r->len > MAX_FILE_END)
            bad = "it writes past 4 GiB";
        else if (r->kind == REC_SIZE && r->offset > MAX_FILE_END)
            bad = "it makes the file larger than 4 GiB";
        else if ((r->kind == REC_WRITE && r->offset + r->len > cap) ||
                 (r->kind == REC_SIZE && r->offset > cap))
            bad = capped;
        else if (r->kind == REC_SIZE && r->len > 1)
            bad = "its size record carries more than its one byte of flags";
        else if (r->kind == REC_DELETE && r->len)
            bad = "its removal carries data";
        /* Only folders inside the base: one fewer than the parts. */
        else if (r->kind == REC_DELETE && r->offset >= parts)
            bad = "its removal would remove folders above the tree";
        if (bad) {
            shown_name((const uint8_t *)r->file, strlen(r->file), shown,
                       sizeof shown);
            snprintf(why, sizeof why, "record %zu names '%s': %s", i + 1,
                     shown, bad);
            return refuse(j->path, e, why);
        }
        r->in_order = r->kind == REC_SIZE && r->len && (r->data[0] & SIZE_IN_ORDER);
        j->n_recs++;
    }
    return 0;
}

/* J's files with what it does to each: a sealed journal's records, an
 * unsealed one's roll-back. */
int rt_journal_list_files(struct rt_journal *j, struct rt_error *e)
{
    size_t most = j->info.sealed ? j->n_recs : j->n_intents;
    if (most > MAX_FILES)
        most = MAX_FILES;
    j->max_files = most;
    for (j->n_slots = 16; j->n_slots < 2 * most; j->n_slots *= 2)
        ;
    j->files = calloc(most ? most : 1, sizeof *j->files);
    j->grow_to = calloc(most ? most : 1, sizeof *j->grow_to);
    j->slots = calloc(j->n_slots, sizeof *j->slots);
    if (!j->files || !j->grow_to || !j->slots)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t n = j->info.sealed ? j->n_recs : j->n_intents;
    for (size_t i = 0; i < n; i++) {
        const char *file = j->info.sealed ? j->recs[i].file
                                          : j->intents[i].file;
        size_t k = file_entry(j, file);
        if (k == SIZE_MAX) {
            char why[200];
            snprintf(why, sizeof why,
                     "it names more than %u files, more than any commit "
                     "writes", (unsigned)MAX_FILES);
            return refuse(j->path, e, why);
        }
        struct rt_journal_file *f = &j->files[k];
        if (!j->info.sealed) {
            f->sized = 1;
            f->size = j->intents[i].size;
            continue;
        }
        const struct jrec *r = &j->recs[i];
        if (r->kind == REC_SIZE && !r->in_order && r->offset > j->grow_to[k])
            j->grow_to[k] = r->offset;
        if (r->kind == REC_DELETE) {
            f->removed = 1;
            continue;
        }
        f->removed = 0;
        if (r->kind == REC_WRITE) {
            f->bytes += r->len;
            if (r->offset + r->len > f->extent)
                f->extent = r->offset + r->len;
        } else {
            f->sized = 1;
            f->size = r->offset;
            if (r->offset > f->extent)
                f->extent = r->offset;
        }
    }
    return 0;
}

uint64_t rt_journal_extent_total(const struct rt_journal *j)
{
    uint64_t total = 0;
    for (size_t k = 0; k < j->n_files; k++)
        total += j->files[k].extent;
    return total;
}

uint64_t rt_journal_scope_total(const struct rt_journal_scope *scope)
{
    return !scope ? 0 : scope->max_total ? scope->max_total : scope->max_bytes;
}

/* A sealed J whose files would reach more than SCOPE's bound in all is
 * refused: each file capped alone, a journal of a few kilobytes could
 * still size hundreds of them to their caps. No commit of the store
 * leaves its files larger in all (rt_commit_run refuses such a commit
 * alike). */
static int check_total(const struct rt_journal *j,
                       const struct rt_journal_scope *scope,
                       struct rt_error *e)
{
    uint64_t total = rt_journal_extent_total(j);
    uint64_t max = rt_journal_scope_total(scope);
    if (!max || !j->info.sealed || total <= max)
        return 0;
    char why[300];
    snprintf(why, sizeof why,
             "its %zu files would reach %llu bytes in all, more than the "
             "%llu any commit of this store leaves them", j->n_files,
             (unsigned long long)total, (unsigned long long)max);
    return refuse(j->path, e, why);
}

/* Whether J's bytes can be a journal of this format: they begin with
 * its magic, or with as much of it as a commit cut short wrote (an empty
 * file, part of the magic), or with zeros (bytes a crash left unwritten
 * read as zeros on some file systems). Anything else is no journal of
 * ours: not an unfinished change to discard, but a file someone put
 * there (or a journal of another format version), refused and left in
 * place. Its bytes are not shown: the file may be anyone's (a host file
 * planted there), and what it holds is none of the message's business.
 * 0, or -1 with E naming it. */
static int check_magic(const struct rt_journal *j, struct rt_error *e)
{
    static const uint8_t zeros[8];
    size_t n = j->len < 8 ? j->len : 8;
    if (!n || !memcmp(j->buf, JOURNAL_MAGIC, n) || !memcmp(j->buf, zeros, n))
        return 0;
    const char *what = n == 8 && !memcmp(j->buf, JOURNAL_MAGIC, 7)
                           ? "a journal of another format version"
                           : "not a journal of regtool";
    return rt_error_set(e, RT_ERR_BADDB,
                        "%s: %s (it does not begin with '%s'): it is "
                        "refused and left where it is, not discarded as an "
                        "unfinished change; nothing was written. Check what "
                        "it is, then move it aside (mv %s %s.refused) and "
                        "run again",
                        j->path, what, JOURNAL_MAGIC, j->path, j->path);
}

/* Parses journal B (LEN bytes, taken over by J), checking it whole;
 * SCOPE NULL: the names' structure only (a journal just written by this
 * process, whose names were checked before). */
static int parse(struct rt_journal *j, const struct rt_journal_scope *scope,
                 struct rt_error *e)
{
    const uint8_t *b = j->buf;
    size_t len = j->len, body = 0;
    if (check_magic(j, e) != 0)
        return -1;
    j->names = malloc(len + 1);
    if (!j->names)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    size_t at = intents_at(b, len);
    if (at) {
        j->info.when = (int64_t)get64(b + 8);
        /* The note is printed: escaped (model/printable.h), nothing in
         * it reaches the terminal as other than plain text. */
        char raw[sizeof j->info.what];
        size_t n = at - 20 < sizeof raw - 1 ? at - 20 : sizeof raw - 1;
        memcpy(raw, b + 20, n);
        raw[n] = '\0';
        rt_text_printable(j->info.what, sizeof j->info.what, raw);
    }
    /* Without a whole intent block the commit wrote nothing before its
     * journal, nor anything after: there is nothing to undo or redo. */
    size_t ilen = intent_len(b, len);
    j->info.sealed = ilen && sealed(b, len, &body) && ilen <= body;
    if (ilen && parse_intents(j, scope, e) != 0)
        return -1;
    if (j->info.sealed && parse_records(j, scope, ilen, body, e) != 0)
        return -1;
    if (rt_journal_list_files(j, e) != 0)
        return -1;
    return check_total(j, scope, e);
}

void rt_journal_free(struct rt_journal *j)
{
    if (!j)
        return;
    free(j->path);
    free(j->buf);
    free(j->intents);
    free(j->recs);
    free(j->files);
    free(j->grow_to);
    free(j->slots);
    free(j->names);
    free(j);
}

int rt_journal_load(const char *journal_path,
                    const struct rt_journal_scope *scope,
                    struct rt_journal **out, struct rt_error *e)
{
    *out = NULL;
    struct rt_os_stat st;
    if (rt_os_stat(journal_path, &st) != 0)
        return rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", journal_path,
                            rt_os_strerror(errno));
    if (st.kind == RT_OS_ABSENT)
        return 0;
    char why[300];
    /* A device or a FIFO would be read without end, or block; a link
     * (which a confined tree does not follow) reads another file. */
    if (st.kind != RT_OS_FILE)
        return refuse(journal_path, e,
                      "not a regular file (a link, a directory, a device "
                      "or a pipe)");
    /* A journal is written, cut back and removed: one that another name
     * shares may be a host file linked into the tree (a chroot's or a
     * container's copy on the host's file system), refused as every file
     * of a tree regtool would write is, before a byte of it is read. */
    if (st.links > 1) {
        snprintf(why, sizeof why,
                 "not a journal of regtool: it is a hard link (%llu links), "
                 "and regtool writes no file of a tree that another name "
                 "shares", (unsigned long long)st.links);
        return refuse(journal_path, e, why);
    }
    uint64_t max = scope ? scope->max_bytes : 0;
    if (max && st.size > max) {
        snprintf(why, sizeof why,
                 "%llu bytes, more than the %llu any commit of this store "
                 "writes", (unsigned long long)st.size,
                 (unsigned long long)max);
        return refuse(journal_path, e, why);
    }
    struct rt_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = strdup(journal_path))) {
        free(j);
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    }
    int r = rt_os_read_file_max(journal_path, max ? (size_t)max : SIZE_MAX,
                                &j->buf, &j->len);
    if (r != 0) {
        int err = errno;
        if (err == ENOENT) {
            rt_journal_free(j);
            return 0;
        }
        if (err == EFBIG) {
            snprintf(why, sizeof why,
                     "grew past the %llu bytes any commit of this store "
                     "writes while it was read", (unsigned long long)max);
            refuse(journal_path, e, why);
        } else {
            rt_error_set(e, RT_ERR_ACCESS_DENIED, "%s: %s", journal_path,
                         rt_os_strerror(err));
        }
        rt_journal_free(j);
        return -1;
    }
    if (parse(j, scope, e) != 0) {
        rt_journal_free(j);
        return -1;
    }
    *out = j;
    return 1;
}

const struct rt_journal_info *rt_journal_about(const struct rt_journal *j)
{
    return &j->info;
}

size_t rt_journal_files(const struct rt_journal *j,
                        const struct rt_journal_file **files)
{
    *files = j->files;
    return j->n_files;
}
