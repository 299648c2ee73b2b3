/* The name database as read from a store: every language's tables, the
 * Perflib values, and the providers' service values. Plain data: the
 * engine computes from it without touching the store. */
#ifndef RT_DATABASE_H
#define RT_DATABASE_H

#include <stddef.h>
#include <stdint.h>

#include "model/change_set.h"
#include "model/name_table.h"
#include "store/store.h"

/* Windows' base values, used when Perflib lacks them (a fresh Wine prefix). */
#define RT_BASE_LAST_COUNTER 1846u
#define RT_BASE_LAST_HELP    1847u
#define RT_BASE_INDEX        1847u

struct rt_db_language {
    char *id;                     /* "009", "019", "CurrentLanguage" */
    struct rt_name_table table;
    int has_counter, has_help;    /* the values exist */
    int damaged;                  /* a blob failed strict decoding */
    struct rt_msz_error damage;   /* the first damage ... */
    int damage_in_help;           /* ... and in which blob */
    /* Each blob as stored, for audit: its value type and size, and its
     * own first damage (status RT_MSZ_OK when it decodes strictly). */
    uint32_t type[2];             /* [RT_TABLE_COUNTER], [RT_TABLE_HELP] */
    size_t bytes[2];
    uint64_t hash[2];             /* rt_blob_hash of the bytes */
    struct rt_msz_error blob_damage[2];
    /* A damaged blob's bytes, kept so repair can salvage every valid pair
     * (type 0 and no data when the blob decoded strictly). */
    struct rt_value raw[2];
    int help_damaged;             /* the Help blob is damaged (whichever
                                     blob the first damage is in) */
};

/* A service's Performance values, as lodctr and the provider wrote them. */
struct rt_service_info {
    char *name;
    int exists, has_perf;
    int has_range;                /* First Counter present */
    uint32_t first_counter, last_counter, first_help, last_help;
    int has_last_counter, has_first_help, has_last_help;
    char *library, *open, *collect, *close;   /* NULL when absent */
    uint32_t library_type;        /* Library's value type (0 when absent):
                                     Perflib loads only REG_SZ and
                                     REG_EXPAND_SZ */
    char *object_list, *ini_file;
    int has_validation_code;      /* Library Validation Code */
    int has_disable;
    uint32_t disable;             /* Disable Performance Counters */
};

struct rt_database {
    struct rt_db_language *langs;
    size_t n_langs;
    int has_last_counter, has_last_help, has_base_index;
    uint32_t last_counter, last_help, base_index;   /* as stored, or base */
    struct rt_service_info *services;               /* with a Performance key */
    size_t n_services;
    /* Perflib's own Disable Performance Counters (every provider off). */
    int has_perflib_disable;
    uint32_t perflib_disable;
};

/* Reads the whole database. Damaged blobs are decoded leniently and
 * flagged (the loader never fails on them: audit reports, install refuses). */
int rt_database_load(struct rt_store *s, struct rt_database *db,
                     struct rt_error *e);
void rt_database_free(struct rt_database *db);

/* Reads one service's Performance values (exists/has_perf set even when
 * the service or its key is absent). */
int rt_service_load(struct rt_store *s, const char *name,
                    struct rt_service_info *out, struct rt_error *e);
void rt_service_info_free(struct rt_service_info *si);

const struct rt_db_language *rt_database_language(const struct rt_database *db,
                                                  const char *id);
const struct rt_service_info *rt_database_service(const struct rt_database *db,
                                                  const char *name);

/* Highest index present in any language's Counter (or Help) table. */
uint32_t rt_database_highest(const struct rt_database *db,
                             enum rt_table_kind which);

#endif
