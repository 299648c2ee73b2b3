/* The engine: install and uninstall computed as change sets from the
 * database as read, following SPEC 4.1 and 4.2. Pure: no I/O, no store;
 * the caller reads the database, calls the engine, and hands the change
 * set to the store to apply atomically. */
#ifndef RT_ENGINE_H
#define RT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/change_set.h"
#include "engine/database.h"
#include "model/error.h"
#include "provider/provider_spec.h"

struct rt_install_options {
    int replace;            /* upgrade an installed provider in place */
    int create_service;     /* write the Performance key and the values
                               below, lodctr would refuse instead */
    const char *library, *open, *collect, *close;
    const char *ini_name;   /* PerfIniFile: the INI's file name */
};

/* Where each machine language's text came from. */
struct rt_language_source {
    char lang[32];          /* the machine's language key */
    char source[RT_PROVIDER_LANG_ID_SIZE];
                            /* the INI language used ("009"), per symbol
                               the first choice: that language, English,
                               then the INI's first language */
    int created;            /* the key was created (009 when absent) */
};

struct rt_install_plan {
    uint32_t first_counter, last_counter, first_help, last_help;
    int replaced;           /* an installed range was replaced */
    int kept_position;      /* ... at the same first indices */
    uint32_t old_first_counter, old_last_counter;
    uint32_t old_first_help, old_last_help;
    /* INI languages the machine does not have: reported, not created. */
    char (*missing)[RT_PROVIDER_LANG_ID_SIZE];
    size_t n_missing;
    struct rt_language_source *langs;
    size_t n_langs;
    size_t pairs_per_language;  /* names added to each Counter table */
};

void rt_install_plan_free(struct rt_install_plan *p);

/* Computes the install of SPEC into DB. SVC is the provider's service as
 * read (rt_service_load). Errors: RT_ERR_FILE_NOT_FOUND (service or its
 * Performance key missing), RT_ERR_ALREADY_EXISTS (installed, no
 * replace), RT_ERR_BADDB (a table is damaged: repair first),
 * RT_ERR_INVALID_DATA (indices would pass 2^31). */
int rt_engine_install(const struct rt_database *db,
                      const struct rt_service_info *svc,
                      const struct rt_provider_spec *spec,
                      const struct rt_install_options *opt,
                      struct rt_change_set *cs, struct rt_install_plan *plan,
                      struct rt_error *e);

struct rt_uninstall_plan {
    uint32_t first_counter, last_counter, first_help, last_help;
    size_t removed_names, removed_helps;   /* over all languages */
    int lowered;            /* Last Counter/Last Help were lowered */
    uint32_t new_last_counter, new_last_help;
};

/* Computes the removal of SVC's ranges. A range that is inverted, odd,
 * overlaps the base range or another provider is refused
 * (RT_ERR_INVALID_DATA) unless FORCE; a service without a range is
 * RT_ERR_FILE_NOT_FOUND. */
int rt_engine_uninstall(const struct rt_database *db,
                        const struct rt_service_info *svc, int force,
                        struct rt_change_set *cs,
                        struct rt_uninstall_plan *plan, struct rt_error *e);

#endif
