/* The store interface: where the Perflib name database lives. A struct of
 * function pointers per backend, as libgit2 does for its object-database
 * backends, so the engine never knows which store it has nor where a
 * store keeps its tables (values in a hive, .dat files, the live
 * registry, memory).
 *
 * A store is used in one transaction at a time: begin() takes the writer
 * lock and brings the store to a consistent state (recovering an
 * interrupted commit), reads see that state, apply() writes a whole change
 * set or nothing, end() releases the lock. Reads outside begin/end are
 * allowed for read-only commands. */
#ifndef RT_STORE_H
#define RT_STORE_H

#include <stddef.h>

#include "model/change_set.h"
#include "model/error.h"

struct rt_store;

struct rt_store_ops {
    const char *kind;                   /* "mem", "hive", "win32" */

    /* Takes the writer lock (waiting for other writers) and recovers an
     * interrupted commit. */
    int (*begin)(struct rt_store *s, struct rt_error *e);
    /* Releases the lock. */
    void (*end)(struct rt_store *s);

    /* Perflib's language subkeys (three hex digits, and CurrentLanguage),
     * in the store's order, as a new array of new strings. */
    int (*list_languages)(struct rt_store *s, char ***langs, size_t *n,
                          struct rt_error *e);
    /* A language's Counter or Help blob; *PRESENT 0 when absent. */
    int (*read_table)(struct rt_store *s, const char *lang,
                      enum rt_table_kind table, struct rt_value *out,
                      int *present, struct rt_error *e);
    /* A Perflib value (Last Counter, Last Help, Base Index, ...). */
    int (*read_perflib)(struct rt_store *s, const char *name,
                        struct rt_value *out, int *present,
                        struct rt_error *e);

    /* Services with a Performance key, as a new array of new strings. */
    int (*list_perf_services)(struct rt_store *s, char ***names, size_t *n,
                              struct rt_error *e);
    /* Whether Services\NAME exists, and whether it has a Performance key. */
    int (*service_state)(struct rt_store *s, const char *service,
                         int *exists, int *has_perf, struct rt_error *e);
    /* A value of Services\NAME\Performance. */
    int (*read_service)(struct rt_store *s, const char *service,
                        const char *name, struct rt_value *out, int *present,
                        struct rt_error *e);

    /* Applies every change of CS, or none (inside begin/end). */
    int (*apply)(struct rt_store *s, const struct rt_change_set *cs,
                 struct rt_error *e);

    /* One line on where the tables were found, for `query`. */
    const char *(*layout)(struct rt_store *s);

    void (*close)(struct rt_store *s);

    /* Optional (NULL in stores that do not read a Windows tree): the
     * tree's Windows directory, as a path of this machine, or NULL when
     * the store's files are not inside one (hive files given by name).
     * audit --libraries checks the providers' DLLs against it. */
    const char *(*windows_dir)(struct rt_store *s);
};

/* Every backend's handle starts with this. */
struct rt_store {
    const struct rt_store_ops *ops;
};

/* Frees an array returned by list_languages / list_perf_services. */
void rt_strings_free(char **v, size_t n);

/* Whether NAME is a language subkey: three or four hex digits, or
 * CurrentLanguage (model/lang_id.h). */
int rt_is_language_key(const char *name);

/* The in-memory store, for tests: empty (no Perflib key at all). */
struct rt_store *rt_store_mem_new(void);

/* Test hook: the next apply() fails after writing K changes, then rolls
 * them back, as a real store must after a failure midway. 0 disables. */
void rt_store_mem_fail_after(struct rt_store *s, size_t k);

/* Direct set-up for tests (outside any change set): create a language,
 * set a table, a Perflib value, a service's Performance key/value. */
int rt_store_mem_put_table(struct rt_store *s, const char *lang,
                           enum rt_table_kind t, const uint8_t *blob,
                           size_t len);
/* The same with a value type of the caller's (a damaged database). */
int rt_store_mem_put_table_typed(struct rt_store *s, const char *lang,
                                 enum rt_table_kind t, uint32_t type,
                                 const uint8_t *blob, size_t len);
int rt_store_mem_put_perflib(struct rt_store *s, const char *name,
                             const struct rt_value *v);
int rt_store_mem_put_service(struct rt_store *s, const char *service,
                             int with_perf_key);
int rt_store_mem_put_service_value(struct rt_store *s, const char *service,
                                   const char *name, const struct rt_value *v);
int rt_store_mem_put_language(struct rt_store *s, const char *lang);

/* A canonical text dump of the whole store (every key and value, the
 * bytes in hex), to compare two states exactly. New string. */
char *rt_store_mem_dump(struct rt_store *s);

#endif
