/* Operations on the Windows 95 System Monitor registrations of a .reg
 * export (ops/perfstats_reg.h), on the model's reader (model/perfstats.h)
 * and .reg files (model/reg_file.h). */
#include "ops/perfstats_reg.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/journal.h"
#include "model/perfstats.h"
#include "model/reg_file.h"
#include "model/size_caps.h"
#include "model/utf16.h"
#include "platform/os.h"
#include "store/store_reg.h"

struct rt_op_perfstats_held {
    struct rt_reg_file file;
    struct rt_perfstats stats;
    struct rt_perfstats_finding *audit;
    struct rt_op_stat_server *servers;
    struct rt_op_stat *all_stats;          /* every server's, one array */
};

/* *WHY as FMT says, NULL when out of memory for it; returns STATUS. */
static enum rt_op_perfstats_status say(char **why,
                                       enum rt_op_perfstats_status status,
                                       const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum rt_op_perfstats_status say(char **why,
                                       enum rt_op_perfstats_status status,
                                       const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(why, fmt, ap) < 0)
        *why = NULL;
    va_end(ap);
    return status;
}

/* The keys a reading of the registrations keeps: those rt_perfstats_read
 * reads (below RT_PERFSTATS_ENUM, not deleted), each with its values. */
struct enum_only {
    struct rt_reg_file *out;
    struct rt_reg_key *cur;
};

static int enum_key(void *ctx, const struct rt_reg_file *f, size_t k)
{
    struct enum_only *c = ctx;
    const struct rt_reg_key *key = &f->keys[k];
    c->cur = NULL;
    if (key->del || !rt_perfstats_below_enum(key->path))
        return 0;
    if (!(c->cur = rt_reg_add_key(c->out, key->path, key->del)))
        return -1;
    c->cur->line = key->line;
    return 0;
}

static int enum_value(void *ctx, const struct rt_reg_file *f, size_t k,
                      char *name, int del, struct rt_value *v, unsigned line)
{
    struct enum_only *c = ctx;
    (void)f;
    (void)k;
    int r = 0;
    /* Only what the reading uses, one of each name (the last, as reg
     * import keeps): a million "@=" lines below a statistic held each
     * took 22 times the file (review 39 F1). */
    struct rt_reg_key *key = c->cur;
    if (key && !del && rt_perfstats_value_read(name)) {
        size_t i = 0, n = strlen(name);
        while (i < key->n_vals &&
               rt_utf8_casecmp(key->vals[i].name, strlen(key->vals[i].name),
                               name, n) != 0)
            i++;
        if (i < key->n_vals) {
            struct rt_value copy = {0};
            if (rt_value_copy(&copy, v) != 0) {
                r = -1;
            } else {
                rt_value_free(&key->vals[i].v);
                key->vals[i].v = copy;
                key->vals[i].line = line;
            }
        } else if ((r = rt_reg_add_value(key, name, v)) == 0) {
            key->vals[key->n_vals - 1].line = line;
        }
    }
    free(name);
    rt_value_free(v);
    return r;
}

/* FILE's bytes in *DATA: capped as every .reg file regtool reads (a 2 GB
 * sparse file took 4.2 GB to refuse), and beneath its folder, confined:
 * a link as the file (an export kept on a disk someone else wrote) is
 * refused. */
static enum rt_op_perfstats_status read_bytes(const char *file,
                                              uint8_t **data, size_t *len,
                                              char **why)
{
    if (rt_os_read_file_beneath(file, (size_t)RT_REG_FILE_MAX, data,
                                len) == 0)
        return RT_OP_PERFSTATS_OK;
    return errno == EFBIG
               ? say(why, RT_OP_PERFSTATS_MALFORMED,
                     "%s: larger than the %llu MiB a .reg file may be; "
                     "nothing was read", file,
                     (unsigned long long)(RT_REG_FILE_MAX >> 20))
               : say(why, RT_OP_PERFSTATS_UNREADABLE, "cannot read %s: %s",
                     file, rt_os_strerror(errno));
}

/* Why FILE could not be read or written again, from RE. */
static enum rt_op_perfstats_status parse_failed(const char *file,
                                                const struct rt_reg_error *re,
                                                char **why)
{
    if (re->nomem)
        return say(why, RT_OP_PERFSTATS_NO_MEMORY, "%s: out of memory", file);
    if (re->too_large)
        return say(why, RT_OP_PERFSTATS_UNWRITABLE,
                   "%s: %s; nothing was written", file, re->message);
    if (re->line)
        return say(why, RT_OP_PERFSTATS_MALFORMED, "%s:%u: %s", file,
                   re->line, re->message);
    return say(why, RT_OP_PERFSTATS_MALFORMED, "%s: %s", file, re->message);
}

/* Reads FILE's keys below RT_PERFSTATS_ENUM into *F, value by value (an
 * export of a whole machine, or millions of other values, is not held to
 * list its servers). */
static enum rt_op_perfstats_status load(const char *file, const char *codepage,
                                        struct rt_reg_file *f, char **why)
{
    uint8_t *data;
    size_t len;
    enum rt_op_perfstats_status st = read_bytes(file, &data, &len, why);
    if (st != RT_OP_PERFSTATS_OK)
        return st;
    struct rt_reg_error re;
    struct rt_reg_file all;
    struct enum_only c = {f, NULL};
    const struct rt_reg_sink sink = {enum_key, enum_value, &c};
    memset(f, 0, sizeof *f);
    int r = rt_reg_parse_to(data, len, codepage, &all, &sink, &re);
    if (r == 0) {
        f->format = all.format;
        rt_reg_file_free(&all);
    } else {
        rt_reg_file_free(f);
    }
    free(data);
    return r == 0 ? RT_OP_PERFSTATS_OK : parse_failed(file, &re, why);
}

static enum rt_op_stat_kind stat_kind(enum rt_perfstat_kind k)
{
    return k == RT_STAT_RATE ? RT_OP_STAT_RATE
         : k == RT_STAT_COUNT ? RT_OP_STAT_COUNT
                              : RT_OP_STAT_UNKNOWN;
}

/* The model's servers and statistics in H as the operations' types in
 * *OUT: -1 when out of memory. */
static int give_servers(struct rt_op_perfstats_held *h,
                        struct rt_op_perfstats *out)
{
    const struct rt_perfstats *p = &h->stats;
    size_t total = 0;
    for (size_t i = 0; i < p->n_servers; i++)
        total += p->servers[i].n_stats;
    h->servers = calloc(p->n_servers ? p->n_servers : 1, sizeof *h->servers);
    h->all_stats = calloc(total ? total : 1, sizeof *h->all_stats);
    if (!h->servers || !h->all_stats)
        return -1;
    struct rt_op_stat *next = h->all_stats;
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_perfstats_server *s = &p->servers[i];
        h->servers[i] = (struct rt_op_stat_server){
            s->key, s->name, s->vxd, next, s->n_stats};
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_perfstat *st = &s->stats[j];
            *next++ = (struct rt_op_stat){st->key, st->name, st->description,
                                          stat_kind(st->kind)};
        }
    }
    out->servers = h->servers;
    out->n_servers = p->n_servers;
    return 0;
}

/* The audit of H's statistics in *OUT: -1 when out of memory. */
static int give_audit(struct rt_op_perfstats_held *h,
                      struct rt_op_perfstats *out)
{
    size_t n;
    if (rt_perfstats_audit(&h->stats, &h->audit, &n) != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        out->errors += h->audit[i].error != 0;
        out->warnings += h->audit[i].error == 0;
    }
    out->n_findings = n;
    return 0;
}

void rt_op_perfstats_finding(const struct rt_op_perfstats *p, size_t i,
                             struct rt_op_stat_finding *out, char *buf,
                             size_t size)
{
    const struct rt_perfstats_finding *x = &p->held->audit[i];
    rt_perfstats_finding_message(x, buf, size);
    *out = (struct rt_op_stat_finding){
        x->id, x->error, x->server->key, x->stat ? x->stat->key : NULL,
        x->line, buf};
}

/* FILE's folder confined as a store's (a tree, on its disk) in *ROOT
 * while the file is read and written, with the outputs named there: an
 * export kept in a folder someone else filled, whose links and hard
 * links must not take a patch to a host file or a host file in. */
static enum rt_op_perfstats_status hold_folder(const char *file, char **root,
                                               char **why)
{
    char *inside = rt_os_confine_store_folder_of(file, root);
    if (!inside)
        return errno == ENOMEM
                   ? say(why, RT_OP_PERFSTATS_NO_MEMORY, "out of memory")
                   : say(why, RT_OP_PERFSTATS_UNREADABLE, "cannot read %s: %s",
                         file, rt_os_strerror(errno));
    free(inside);
    return RT_OP_PERFSTATS_OK;
}

static void release_folder(char *root)
{
    rt_os_unconfine(root);
    free(root);
}

static enum rt_op_perfstats_status read_held(const char *file,
                                             const char *codepage,
                                             unsigned flags,
                                             struct rt_op_perfstats *out,
                                             char **why)
{
    *out = (struct rt_op_perfstats){0};
    *why = NULL;
    struct rt_op_perfstats_held *h = calloc(1, sizeof *h);
    if (!h)
        return say(why, RT_OP_PERFSTATS_NO_MEMORY, "out of memory");
    out->held = h;
    enum rt_op_perfstats_status st = load(file, codepage, &h->file, why);
    if (st != RT_OP_PERFSTATS_OK)
        return st;
    int r = rt_perfstats_read(&h->file, &h->stats);
    /* The registrations are copied out of the file: it goes before the
     * lists and the audit are made, not beside them. */
    rt_reg_file_free(&h->file);
    memset(&h->file, 0, sizeof h->file);
    if (r != 0 || give_servers(h, out) != 0 ||
        ((flags & RT_OP_PERFSTATS_AUDIT) && give_audit(h, out) != 0))
        return say(why, RT_OP_PERFSTATS_NO_MEMORY, "out of memory");
    return RT_OP_PERFSTATS_OK;
}

void rt_op_perfstats_free(struct rt_op_perfstats *p)
{
    struct rt_op_perfstats_held *h = p->held;
    if (h) {
        free(h->all_stats);
        free(h->servers);
        free(h->audit);
        rt_perfstats_free(&h->stats);
        rt_reg_file_free(&h->file);
        free(h);
    }
    *p = (struct rt_op_perfstats){0};
}

/* Writes LEN bytes of DATA over PATH through a temporary file. */
static enum rt_op_perfstats_status write_bytes(const char *path,
                                               const uint8_t *data, size_t len,
                                               char **why)
{
    if (rt_os_replace_file(path, data, len, 0644) != 0)
        return say(why, RT_OP_PERFSTATS_UNWRITABLE, "cannot write %s: %s",
                   path, rt_os_strerror(errno));
    return RT_OP_PERFSTATS_OK;
}

/* Writes the patch PATCH over PATH. */
static enum rt_op_perfstats_status write_patch(const char *path,
                                               const struct rt_reg_file *patch,
                                               const char *codepage,
                                               char **why)
{
    uint8_t *data;
    size_t len;
    struct rt_reg_error re;
    if (rt_reg_write(patch, codepage, &data, &len, &re) != 0)
        return say(why, RT_OP_PERFSTATS_UNWRITABLE,
                   "%s: %s; nothing was written", path, re.message);
    enum rt_op_perfstats_status st = write_bytes(path, data, len, why);
    free(data);
    return st;
}

static enum rt_op_perfstats_status remove_held(const char *file,
                                               const char *server,
                                               const char *codepage,
                                               const char *patch,
                                               size_t *keys_left, char **why)
{
    *why = NULL;
    *keys_left = 0;
    uint8_t *data, *text;
    size_t len, text_len;
    enum rt_op_perfstats_status st = read_bytes(file, &data, &len, why);
    if (st != RT_OP_PERFSTATS_OK)
        return st;
    /* The file written again section by section as it is read, the
     * server's left out: never held as values (15 times the file). */
    struct rt_reg_file removal;
    struct rt_reg_error re;
    int r = rt_perfstats_remove_text(data, len, codepage, server,
                                     RT_REG_FILE_MAX, &text, &text_len,
                                     keys_left, &removal, &re);
    free(data);
    if (r < 0)
        return parse_failed(file, &re, why);
    if (r > 0)
        return say(why, RT_OP_PERFSTATS_NO_SERVER,
                   "%s has no stat server %s: nothing was written", file,
                   server);
    /* The patch first: when it cannot be written, FILE stays. */
    if (patch)
        st = write_patch(patch, &removal, codepage, why);
    if (st == RT_OP_PERFSTATS_OK)
        st = write_bytes(file, text, text_len, why);
    free(text);
    rt_reg_file_free(&removal);
    return st;
}

enum rt_op_perfstats_status rt_op_perfstats_read(const char *file,
                                                 const char *codepage,
                                                 unsigned flags,
                                                 struct rt_op_perfstats *out,
                                                 char **why)
{
    char *root = NULL;
    *out = (struct rt_op_perfstats){0};
    *why = NULL;
    enum rt_op_perfstats_status st = hold_folder(file, &root, why);
    if (st != RT_OP_PERFSTATS_OK)
        return st;
    st = read_held(file, codepage, flags, out, why);
    release_folder(root);
    return st;
}

enum rt_op_perfstats_status rt_op_perfstats_remove(const char *file,
                                                   const char *server,
                                                   const char *codepage,
                                                   const char *patch,
                                                   size_t *keys_left,
                                                   char **why)
{
    char *root = NULL;
    *why = NULL;
    *keys_left = 0;
    enum rt_op_perfstats_status st = hold_folder(file, &root, why);
    if (st != RT_OP_PERFSTATS_OK)
        return st;
    /* FILE.lock, as a reg: store's writer takes it: the store's writer
     * removes temporaries of FILE's name under it as a crashed writer's,
     * and the two would each write the file over the other's change
     * (review 42 R42-9). */
    struct rt_lock *lock = NULL;
    struct rt_error e = {0};
    if (rt_store_reg_lock(file, &lock, &e) != 0) {
        st = e.code == RT_ERR_NOT_ENOUGH_MEMORY
                 ? say(why, RT_OP_PERFSTATS_NO_MEMORY, "out of memory")
                 : say(why, RT_OP_PERFSTATS_UNWRITABLE, "%s", e.message);
    } else {
        st = remove_held(file, server, codepage, patch, keys_left, why);
        rt_lock_release(lock);
    }
    release_folder(root);
    return st;
}
