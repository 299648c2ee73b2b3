/* The name database as read from a store: every language's tables, the
 * Perflib values, and the providers' service values. Plain data: the
 * engine computes from it without touching the store. */
#ifndef RT_DATABASE_H
#define RT_DATABASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/change_set.h"
#include "model/name_table.h"
#include "model/str_pool.h"
#include "store/store.h"

/* Windows' base values, used when Perflib lacks them (a fresh Wine prefix). */
#define RT_BASE_LAST_COUNTER 1846u
#define RT_BASE_LAST_HELP    1847u
#define RT_BASE_INDEX        1847u

struct rt_db_language {
    char *id;                     /* "009", "019", "CurrentLanguage" */
    int loaded;                   /* its tables were read (load options) */
    /* Each table as stored, UTF-16, with where each pair lies:
     * [RT_TABLE_COUNTER], [RT_TABLE_HELP]. */
    struct rt_table tab[2];
    /* The same pairs decoded to UTF-8: only when loaded with PAIRS. */
    struct rt_name_table table;
    int has_counter, has_help;    /* the values exist */
    int damaged;                  /* a blob failed strict decoding */
    struct rt_msz_error damage;   /* the first damage ... */
    int damage_in_help;           /* ... and in which blob */
    /* Each blob as stored, for audit: its value type and size, and its
     * own first damage (status RT_MSZ_OK when it decodes strictly). */
    uint32_t type[2];             /* [RT_TABLE_COUNTER], [RT_TABLE_HELP] */
    size_t bytes[2];
    struct rt_msz_error blob_damage[2];
    /* A damaged blob's bytes, kept so repair can salvage every valid pair
     * (type 0 and no data when the blob decoded strictly). */
    struct rt_value raw[2];
    int help_damaged;             /* the Help blob is damaged (whichever
                                     blob the first damage is in) */
    /* The store serves a fixed table here that nothing can change
     * (store op language_fixed): install and uninstall leave it alone.
     * FIXED_WHY says why; owned as ID is (NULL unless FIXED): a database
     * of thousands of languages holds no text for those that are not. */
    int fixed;
    char *fixed_why;
};

/* A service's Performance values, as lodctr and the provider wrote them.
 * Pointers first, then the numbers, then the flags, one bit each: a
 * database of hundreds of thousands of services holds 88 bytes for
 * each, not 120. */
struct rt_service_info {
    char *name;
    char *library, *open, *collect, *close;   /* NULL when absent */
    char *object_list, *ini_file;
    uint32_t first_counter, last_counter, first_help, last_help;
    uint32_t library_type;        /* Library's value type (0 when absent,
                                     or REG_NONE): Perflib loads only
                                     REG_SZ and REG_EXPAND_SZ */
    uint32_t disable;             /* Disable Performance Counters */
    bool exists : 1, has_perf : 1;
    bool has_range : 1;           /* First Counter present */
    /* A Library value, of whatever type (review 49 R49-12: a REG_NONE
     * one was taken for none, and --create-service replaced it). */
    bool has_library : 1;
    bool has_last_counter : 1, has_first_help : 1, has_last_help : 1;
    bool has_validation_code : 1; /* Library Validation Code */
    bool has_disable : 1;
};

struct rt_database {
    struct rt_db_language *langs;
    size_t n_langs;
    int has_last_counter, has_last_help, has_base_index;
    uint32_t last_counter, last_help, base_index;   /* as stored, or base */
    struct rt_service_info *services;               /* with a Performance key */
    size_t n_services;
    /* The services' names when the load put them here (one pool rather
     * than a heap block each); empty, and each name its own heap block,
     * in a database put together by hand. */
    struct rt_str_pool service_names;
    /* Perflib's own Disable Performance Counters (every provider off). */
    int has_perflib_disable;
    uint32_t perflib_disable;
    /* The store's other copies of tables (store.h, read_table_copy) that
     * differ from the table: none until rt_database_load_copies. */
    struct rt_db_copy_diff *copy_diffs;
    size_t n_copy_diffs;
    /* Languages and services sorted for rt_database_language and
     * rt_database_service, built by the load; NULL (or one built for
     * other arrays: a database put together by hand) and they scan. */
    struct rt_db_index *index;
    /* The most bytes of tables one change of the store may write
     * (store.h, change_max), 0 for no bound: a plan whose new pairs come
     * to more is refused before it is made (change_budget.h). Set by
     * the operations layer for the plans it makes; a reader's load does
     * not look it up (the hive store finds PerfStringBackup.INI for it). */
    uint64_t change_max;
};

/* A copy of LANG's table KIND (RT_COPY_WOW64, RT_COPY_HIVE) that is not
 * byte for byte the table: the first index where their pairs differ (0
 * when every pair agrees and the bytes after them do not), and each one's
 * size. */
struct rt_db_copy_diff {
    char *lang;
    enum rt_table_kind kind;
    int which;
    uint32_t first_index;
    size_t table_bytes, copy_bytes;
};

/* What to read of the tables: every language's, none (the Perflib and
 * service values only), or one language's. */
enum rt_db_tables { RT_DB_TABLES_ALL, RT_DB_TABLES_NONE, RT_DB_TABLES_ONE };

struct rt_db_load_options {
    enum rt_db_tables tables;
    const char *lang;       /* RT_DB_TABLES_ONE: the language, matched as
                               rt_database_language matches */
    int pairs;              /* also decode every table into UTF-8 pairs
                               (table): for whole-table work that reads
                               their texts */
    unsigned kinds;         /* which of a language's two tables: 0 both,
                               else bits 1 << RT_TABLE_COUNTER / HELP */
    /* Install and uninstall of this service (not with PAIRS): of each
     * table keep only the bytes a change of its end can touch, from the
     * first pair in the service's range (the pairs' end when none is, or
     * the service has no range) on; every pair stays indexed. Counter
     * tables are kept whole where Perflib has CurrentLanguage (install
     * compares their texts). */
    const char *tail_for;
};

/* Perflib's values, the services' and the list of languages, no table:
 * for work that reads no table, or reads each language's in turn
 * (rt_database_read_language). */
extern const struct rt_db_load_options rt_db_load_no_tables;

/* Reads what OPT asks; every language is listed, those whose tables were
 * not read have loaded 0. */
int rt_database_load_with(struct rt_store *s, struct rt_database *db,
                          const struct rt_db_load_options *opt,
                          struct rt_error *e);

/* Reads the whole database (every table, with PAIRS). Damaged blobs are decoded leniently and
 * flagged (the loader never fails on them: audit reports, install refuses). */
int rt_database_load(struct rt_store *s, struct rt_database *db,
                     struct rt_error *e);
void rt_database_free(struct rt_database *db);

/* L (a language of a database read without its tables) with its tables
 * read as RT_DB_TABLES_ALL reads them, with PAIRS or not, into OUT, which
 * shares L's id; freed with rt_database_unload_language. For work that
 * needs one language at a time (a backup), so that it holds one
 * language's tables rather than every one. */
int rt_database_read_language(struct rt_store *s,
                              const struct rt_db_language *l, int pairs,
                              struct rt_db_language *out, struct rt_error *e);
/* Frees L's tables, leaving it as listed without them (its id stays). */
void rt_database_unload_language(struct rt_db_language *l);
/* Frees every language's tables as stored (TAB, RAW), keeping the pairs
 * decoded from them (TABLE) and what was said of them: for work that
 * reads only texts (diff), whose stored forms (the blob and where each
 * pair lies: 24 bytes a pair beside the pair itself) would otherwise
 * outlive their use. */
void rt_database_keep_pairs_only(struct rt_database *db);

/* Compares every loaded table with the store's other copies of it (none
 * when the store has no read_table_copy) and records those that differ in
 * DB->copy_diffs. Returns 0, or -1 with E set. */
int rt_database_load_copies(struct rt_store *s, struct rt_database *db,
                            struct rt_error *e);
/* Frees DB->copy_diffs alone. */
void rt_database_copies_free(struct rt_database *db);

/* Service SVC's value NAME as a string in *OUT (malloc'd; NULL when it is
 * not there). 0; -1 with E when the store cannot be read. */
int rt_database_service_string(struct rt_store *s, const char *svc,
                               const char *name, char **out,
                               struct rt_error *e);

/* Reads one service's Performance values (exists/has_perf set even when
 * the service or its key is absent). */
int rt_service_load(struct rt_store *s, const char *name,
                    struct rt_service_info *out, struct rt_error *e);
void rt_service_info_free(struct rt_service_info *si);

/* Refuses (RT_ERR_INVALID_PARAMETER) a NAME that is no service's: empty,
 * holding '\\' or '/', "." or "..", or longer than a key name's 255
 * characters. */
int rt_service_name_check(const char *name, struct rt_error *e);

/* The rt_blob_hash of L's table K as read, all its bytes (a damaged
 * one's too): what a whole replacement of it names as its before. */
uint64_t rt_db_table_hash(const struct rt_db_language *l, int k);

/* Puts into CS the change of each of L's tables (Counter, Help) that T's
 * pairs, encoded, make different from what the store holds: a splice of
 * the table from the byte where its first pairs stop agreeing (AT[k]),
 * when at least half the new table stays; else, or when the table is
 * damaged or absent, a whole replacement (AT[k] the table's length).
 * CHANGED[0] and CHANGED[1] say which tables change. Needs L's tables
 * read whole (not PAIRS). Returns 0, or -1 when out of memory. */
int rt_db_replace_changed_tables(const struct rt_db_language *l,
                                 const struct rt_name_table *t,
                                 struct rt_change_set *cs, int changed[2],
                                 size_t at[2]);

const struct rt_db_language *rt_database_language(const struct rt_database *db,
                                                  const char *id);
const struct rt_service_info *rt_database_service(const struct rt_database *db,
                                                  const char *name);

/* Highest index present in any language's Counter (or Help) table. */
uint32_t rt_database_highest(const struct rt_database *db,
                             enum rt_table_kind which);

#endif
