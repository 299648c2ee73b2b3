/* Backup and restore of the whole name database in the PerfStringBackup
 * format: `lodctr /S:file` and `lodctr /R:file` (docs/design.md, "The
 * backup store"), as pure functions of the database as read. Restore is a
 * change set the caller applies atomically (engine/ops.h,
 * rt_op_restore). */
#ifndef RT_BACKUP_H
#define RT_BACKUP_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"
#include "model/change_set.h"
#include "model/error.h"
#include "model/perf_backup.h"

/* What lodctr /S saves: [Perflib]'s three values; a [PERF_] section for
 * each service whose Performance key has First Counter, in the store's
 * order (the Services key's enumeration order), with the values present
 * and Disable Performance Counters when set; a [PerfStrings_] section for
 * each language subkey but CurrentLanguage, in the store's order, Counter
 * and Help merged by index. A damaged table is refused (RT_ERR_BADDB):
 * its pairs after the damage would be missing from the backup. */
int rt_engine_backup(const struct rt_database *db, struct rt_psb *out,
                     struct rt_error *e);
/* The same for a database that may be damaged, as repair saves it before
 * it writes: a damaged table gives every pair readable in it, also past
 * the damage (rt_multi_sz_salvage), which is what repair will keep. */
int rt_engine_backup_salvaged(const struct rt_database *db, struct rt_psb *out,
                              struct rt_error *e);

/* The parts of a backup: the head ([Perflib], the [PERF_] sections; OUT
 * has no languages) and one language's section (L's tables loaded with
 * PAIRS; a damaged one refused as rt_engine_backup does, or salvaged).
 * rt_engine_backup is the head and each language but CurrentLanguage. */
int rt_engine_backup_head(const struct rt_database *db, struct rt_psb *out,
                          struct rt_error *e);
int rt_engine_backup_language(const struct rt_db_language *l, int salvage,
                              struct rt_psb_language *out,
                              struct rt_error *e);

struct rt_backup_stats {
    size_t n_langs, n_services;
    size_t bytes;
    size_t n_damaged;       /* damaged tables, their readable pairs saved */
    /* Strings left out: a line break in each would have the file read
     * as another string or a section there (rt_psb_text_reads_back). */
    size_t left_out;
};

/* A damaged table of which a salvaged backup holds the readable pairs. */
struct rt_backup_damage {
    const char *lang;               /* the language's id */
    const char *table;              /* "Counter" or "Help" */
    struct rt_msz_error damage;     /* its first damage */
    size_t bytes;                   /* the table's size */
    size_t pairs;                   /* pairs read from it, saved */
    size_t dropped;                 /* strings that read as no pair */
};

/* The backup of DB as rt_psb_write would write it, in parts handed to
 * WRITE one after the other (which returns 0, or non-zero to stop: then
 * RT_ERR_WRITE_FAULT). A language whose tables DB does not hold is read
 * from S for its section and freed after it: DB read without tables
 * (RT_DB_TABLES_NONE), a backup holds one language's tables at a time,
 * not every one. Returns 0 with STATS set, or -1 with E set (a damaged
 * table without SALVAGE: RT_ERR_BADDB, as rt_engine_backup). */
int rt_engine_backup_stream(struct rt_store *s, const struct rt_database *db,
                            int salvage,
                            int (*write)(void *ctx, const uint8_t *data,
                                         size_t len),
                            void *ctx, struct rt_backup_stats *stats,
                            struct rt_error *e);

/* Where rt_engine_backup_to sends the backup: its parts to WRITE, in
 * order, and (DAMAGED not NULL) each damaged table salvaged, as its
 * language is written. */
struct rt_backup_sink {
    int (*write)(void *ctx, const uint8_t *data, size_t len);
    void *ctx;
    void (*damaged)(void *ctx, const struct rt_backup_damage *d);
    void *damaged_ctx;
};
/* rt_engine_backup_stream through K. An interrupt noted by
 * rt_os_interrupted (a caller that catches them) stops it before its next
 * read or write and after its last one: -1 with RT_ERR_CANCELLED, and the
 * caller removes what was written. */
int rt_engine_backup_to(struct rt_store *s, const struct rt_database *db,
                        int salvage, const struct rt_backup_sink *k,
                        struct rt_backup_stats *stats, struct rt_error *e);

/* The base texts (indices 1 to the database's Base Index) a backup's
 * table and the database's both hold: how many, how many of them the
 * backup has another text for, and the lowest such index. A backup of
 * this database differs in none; another machine's (another Windows
 * version or language pack) differs in most. */
struct rt_base_texts {
    size_t compared, differ;
    uint32_t first_differ;
};

/* Adds to OUT the base indices (1 to BASE) both table T (the database's)
 * and the backup's list P hold (the first pair of each, as a reader finds
 * it), counting those whose texts differ. 0, or -1 when out of memory.
 * Both restores (PerfStringBackup and .reg) compare with it. */
int rt_engine_compare_base(const struct rt_table *t,
                           const struct rt_pair_list *p, uint32_t base,
                           struct rt_base_texts *out);

struct rt_restore_language {
    char *id;                   /* the store's language key */
    char *section;              /* the file's id for it; NULL: none, kept */
    unsigned line;              /* of the section */
    size_t names_before, helps_before, names_after, helps_after;
    int counter_changed, help_changed;
    /* The base texts (indices 1 to the database's Base Index) both the
     * tables and the section hold: how many, how many of them the
     * section has another text for, and the lowest such index. A backup
     * of this database differs in none; another machine's (another
     * Windows version or language pack) differs in most. */
    size_t base_compared, base_differ;
    uint32_t base_first_differ;
};

enum rt_restore_service_action {
    RT_RESTORE_SET,             /* the four values from the section */
    RT_RESTORE_DELETE,          /* no section (or an incomplete one): the
                                   four values deleted, as lodctr does */
};

struct rt_restore_service {
    char *name;
    enum rt_restore_service_action action;
    unsigned line;              /* of the section; 0 when none */
    int had_range;              /* First Counter was there before */
    uint32_t first_counter, last_counter, first_help, last_help; /* SET */
    size_t values_changed;      /* values set or deleted */
    int disable_changed;        /* Disable Performance Counters */
    int has_disable;            /* ... as the file has it (SET) */
    uint32_t disable;
};

struct rt_restore_perflib {
    const char *name;           /* "Base Index", "Last Counter", "Last Help" */
    int in_file, had;
    uint32_t old_value, new_value;
};

struct rt_restore_plan {
    struct rt_restore_language *langs;      /* every store language */
    size_t n_langs;
    struct rt_restore_service *services;    /* every service with a
                                               Performance key */
    size_t n_services;
    struct rt_restore_perflib perflib[3];
    /* Sections of the file this store has nothing for: reported, not
     * created (lodctr goes through the machine's keys). Pointers into the
     * file's data. */
    const struct rt_psb_language **extra_langs;
    size_t n_extra_langs;
    const struct rt_psb_service **extra_services;
    size_t n_extra_services;
    /* Services whose First Counter has no string in any language of the
     * file: what a truncated backup looks like (KB 2554336). */
    char **unnamed;
    size_t n_unnamed;
    /* The languages' base_compared and base_differ summed. */
    size_t base_compared, base_differ;
};

void rt_restore_plan_free(struct rt_restore_plan *p);

/* Computes lodctr /R:file on DB from the file's content PSB: for every
 * service with a Performance key, the four First/Last values from its
 * [PERF_] section, or, when the file has no complete section for it, they
 * are deleted; every language that has a [PerfStrings_] section gets its
 * Counter and Help replaced by the section's strings (names at even
 * indices and 1, help at odd ones); then Perflib's Base Index, Last
 * Counter and Last Help. The plan counts the base texts the file would
 * change (base_differ: a sign of another machine's backup, which
 * rt_op_restore refuses without FORCE). Unlike Windows, Disable Performance Counters is
 * restored too for each service with a section: set as the file has it,
 * deleted when the section has none. Only what differs goes into CS.
 * Refused with RT_ERR_INVALID_DATA, nothing planned: a file without
 * [Perflib] or its Last Counter/Last Help, a file with strings for none of
 * the store's languages, a [PerfStrings_] section without strings (it
 * would empty the tables). */
int rt_engine_restore(const struct rt_database *db, const struct rt_psb *psb,
                      struct rt_change_set *cs, struct rt_restore_plan *plan,
                      struct rt_error *e);
/* The same for a DB read without its tables (RT_DB_TABLES_NONE): each
 * language's are read from S, compared and freed in turn, so that a
 * restore holds one language's old tables at a time; of a table a change
 * splices, DB keeps the bytes from the splice on (what the change is
 * checked and applied against, as install's lean load keeps them). */
struct rt_store;
int rt_engine_restore_from(struct rt_store *s, struct rt_database *db,
                           const struct rt_psb *psb, struct rt_change_set *cs,
                           struct rt_restore_plan *plan, struct rt_error *e);

#endif
