/* regtool perfstats: the Windows 95 System Monitor registrations of a
 * .reg export (docs/design.md, "Windows 95 System Monitor"), read, audited
 * and removed by these operations and given back as their own types for
 * the CLI to print, so that nothing of the model shows through this
 * header (tools/check-layers.sh holds it to that). */
#ifndef RT_OPS_PERFSTATS_REG_H
#define RT_OPS_PERFSTATS_REG_H

#include <stddef.h>

/* Differentiate TRUE: a rate the monitor shows per second; FALSE: a
 * count shown as it is; anything else or nothing: unknown. */
enum rt_op_stat_kind { RT_OP_STAT_UNKNOWN, RT_OP_STAT_RATE, RT_OP_STAT_COUNT };

struct rt_op_stat {
    const char *key;                  /* the stat's key name */
    const char *name, *description;   /* NULL when absent */
    enum rt_op_stat_kind kind;
};

struct rt_op_stat_server {
    const char *key;
    const char *name, *vxd;           /* Name and VxDName, NULL when absent */
    const struct rt_op_stat *stats;   /* in file order, duplicates kept */
    size_t n_stats;
};

/* A finding of the audit, as rt_op_perfstats_finding gives it. */
struct rt_op_stat_finding {
    const char *id;          /* stat-no-name, stat-duplicate,
                                stat-bad-differentiate, server-no-stats */
    int error;               /* 1 error, 0 warning */
    const char *server;
    const char *stat;        /* NULL for a finding on the server */
    unsigned line;           /* of the .reg file */
    const char *message;
};

/* What the strings and arrays point into: the export as read. */
struct rt_op_perfstats_held;

struct rt_op_perfstats {
    const struct rt_op_stat_server *servers;   /* in file order */
    size_t n_servers;
    /* With RT_OP_PERFSTATS_AUDIT: how many findings the audit made
     * (rt_op_perfstats_finding gives each), and of what severity. */
    size_t n_findings, errors, warnings;
    struct rt_op_perfstats_held *held;
};
/* Finding I (below P->n_findings) of P's audit in *OUT, in file order
 * of the keys; its message written to BUF (SIZE bytes, cut short there),
 * OUT->message pointing to it: made when asked for, never held, since a
 * file of 400,000 statistics has as many. */
void rt_op_perfstats_finding(const struct rt_op_perfstats *p, size_t i,
                             struct rt_op_stat_finding *out, char *buf,
                             size_t size);

enum rt_op_perfstats_status {
    RT_OP_PERFSTATS_OK,
    RT_OP_PERFSTATS_UNREADABLE,   /* the .reg file cannot be read */
    RT_OP_PERFSTATS_MALFORMED,    /* it is no .reg file: WHY names the
                                     line */
    RT_OP_PERFSTATS_NO_MEMORY,
    RT_OP_PERFSTATS_NO_SERVER,    /* remove: no such stat server */
    RT_OP_PERFSTATS_UNWRITABLE,   /* remove: a file cannot be written */
};

/* FLAGS of rt_op_perfstats_read. */
#define RT_OP_PERFSTATS_AUDIT 1u

/* Reads every stat server and statistic of the .reg export FILE (a
 * REGEDIT4 file in CODEPAGE, NULL: 1252) into *OUT, and with
 * RT_OP_PERFSTATS_AUDIT audits them: statistics without a name and a
 * stat key exported twice (errors), servers without statistics and a
 * Differentiate neither TRUE nor FALSE (warnings). In time O(n log n) in
 * the file's keys. On anything but OK, *WHY is a new message naming the
 * file (and the line) for the CLI to print (NULL when out of memory for
 * it). Free *OUT with rt_op_perfstats_free whatever the status. */
enum rt_op_perfstats_status rt_op_perfstats_read(const char *file,
                                                 const char *codepage,
                                                 unsigned flags,
                                                 struct rt_op_perfstats *out,
                                                 char **why);
void rt_op_perfstats_free(struct rt_op_perfstats *p);

/* Removes the stat server SERVER and everything under it from the .reg
 * export FILE, writing FILE again through a temporary file, and first,
 * when PATCH is not NULL, writes to PATCH the .reg patch ([-KEY]) that
 * removes it from a registry: when that cannot be written, FILE is left
 * as it was. *KEYS_LEFT: the keys FILE holds after. *WHY as for
 * rt_op_perfstats_read; nothing is written unless the status is OK (or
 * UNWRITABLE for FILE after PATCH was written). */
enum rt_op_perfstats_status rt_op_perfstats_remove(const char *file,
                                                   const char *server,
                                                   const char *codepage,
                                                   const char *patch,
                                                   size_t *keys_left,
                                                   char **why);

#endif
