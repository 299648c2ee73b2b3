/* Windows 95 System Monitor registrations (docs/design.md, "Windows 95
 * System Monitor"), read from a .reg export: Windows 95 has no name
 * database; its PERF VxD records each stat server under
 * HKLM\System\CurrentControlSet\Control\PerfStats\Enum\SERVER (values Name,
 * VxDName) and each statistic under SERVER\STAT (Name, Description,
 * Differentiate: "TRUE" for a rate the monitor turns into a per-second
 * value, "FALSE" for a count shown as it is). Read from the file's entries,
 * not the registry they describe, so that a key exported twice is seen and
 * every finding names its line. */
#ifndef RT_PERFSTATS_H
#define RT_PERFSTATS_H

#include <stddef.h>
#include <stdint.h>

#include "model/reg_file.h"

#define RT_PERFSTATS_ENUM \
    "HKEY_LOCAL_MACHINE\\System\\CurrentControlSet\\Control\\PerfStats\\Enum"

enum rt_perfstat_kind { RT_STAT_UNKNOWN, RT_STAT_RATE, RT_STAT_COUNT };

struct rt_perfstat {
    char *key;                   /* the stat's key name */
    char *name, *description;    /* NULL when absent (or not a string) */
    char *differentiate;         /* as written; NULL when absent */
    enum rt_perfstat_kind kind;
    unsigned line;               /* of its [KEY] */
};

struct rt_perfstats_server {
    char *key;
    char *name, *vxd;            /* Name and VxDName, NULL when absent */
    unsigned line;               /* of its [KEY]; 0 when only its stats
                                    have keys */
    struct rt_perfstat *stats;   /* in file order, duplicates included */
    size_t n_stats, cap_stats;
};

struct rt_perfstats {
    struct rt_perfstats_server *servers;   /* in file order */
    size_t n_servers, cap_servers;
};

/* The part of PATH below the Enum key ("SERVER" or "SERVER\STAT..."), or
 * NULL when PATH is not below it: the keys rt_perfstats_read reads (those
 * not deleted). */
const char *rt_perfstats_below_enum(const char *path);
/* Whether rt_perfstats_read reads a value of NAME (Name, VxDName,
 * Description, Differentiate, in any case; of several, the last): a
 * reader keeps no other, and one of each. */
int rt_perfstats_value_read(const char *name);

/* Reads every server and statistic of F, in time linear in F's keys.
 * -1 when out of memory. */
int rt_perfstats_read(const struct rt_reg_file *f, struct rt_perfstats *out);
void rt_perfstats_free(struct rt_perfstats *p);
const struct rt_perfstats_server *
rt_perfstats_server(const struct rt_perfstats *p, const char *key);

/* A finding holds what its message is made of, pointers into the
 * perfstats, not the message: a file of 400,000 statistics has as many
 * findings, and a message each took three times the file. */
struct rt_perfstats_finding {
    const char *id;              /* stat-no-name, stat-duplicate,
                                    stat-bad-differentiate, server-no-stats */
    int error;                   /* 1 error, 0 warning */
    const struct rt_perfstats_server *server;
    const struct rt_perfstat *stat;     /* NULL for a finding on the server */
    unsigned line;
    const struct rt_perfstat *first;    /* stat-duplicate: the first
                                           section (STAT the second) */
    size_t times;                /* stat-duplicate: its sections in all */
};
/* X's message in BUF (SIZE bytes, cut short there). */
void rt_perfstats_finding_message(const struct rt_perfstats_finding *x,
                                  char *buf, size_t size);

/* The audit: statistics without a Name (System Monitor lists them with an
 * empty label), a stat key exported more than once under its server (on
 * import the sections merge, the last value of each name winning: one
 * finding a key), servers without statistics, and a Differentiate that
 * is neither TRUE nor FALSE (a warning; of a key's sections, the last
 * that has one, as import keeps). A new array in
 * *OUT; -1 when out of memory. O(n log n) in the statistics. */
int rt_perfstats_audit(const struct rt_perfstats *p,
                       struct rt_perfstats_finding **out, size_t *n);

/* The .reg file DATA (LEN bytes; CODEPAGE for REGEDIT4) without the
 * server KEY and everything under it, in *OUT (*OUT_LEN bytes), in the
 * file's own dialect: each section is written as it is read, the
 * server's left out (a file of millions of values is never held as
 * values, only the text made of it), no larger than MAX bytes (0: no
 * cap). *KEYS_LEFT: the sections written; *PATCH: the patch that does
 * the same on a registry ([-KEY], in the file's dialect). Returns 0; 1
 * when the file has no such server (nothing made); -1 with E set (a
 * malformed file with its line, out of memory, E->too_large). */
int rt_perfstats_remove_text(const uint8_t *data, size_t len,
                             const char *codepage, const char *key,
                             uint64_t max, uint8_t **out, size_t *out_len,
                             size_t *keys_left, struct rt_reg_file *patch,
                             struct rt_reg_error *e);

#endif
