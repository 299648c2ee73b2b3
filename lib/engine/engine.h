/* The engine: install and uninstall computed as change sets from the
 * database as read, following docs/design.md, "Install" and "Uninstall".
 * Pure: no I/O, no store; the caller reads the database, calls the engine,
 * and hands the change set to the store to apply atomically. */
#ifndef RT_ENGINE_H
#define RT_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#include "model/lang_id.h"
#include "model/change_set.h"
#include "engine/database.h"
#include "model/error.h"
#include "provider/provider_spec.h"

struct rt_inf_files;

struct rt_install_options {
    int replace;            /* upgrade an installed provider in place */
    int create_service;     /* write the Performance key and the values
                               below, lodctr would refuse instead */
    const char *library, *open, *collect, *close;
    int force;              /* past the trust checks below (install onto a
                               system provider, --create-service over an
                               existing Library) */
    const char *ini_name;   /* PerfIniFile: the INI's file name */
    /* The INI's and symbol file's bytes, for the INF copy a store with
     * side files keeps (engine/side_files.h); NULL: none is made. Once
     * the plan has copied them into its change set, their buffers are
     * freed (an install is planned once). */
    struct rt_inf_files *inf;
};

/* Where each machine language's text came from. */
struct rt_language_source {
    char lang[32];          /* the machine's language key */
    char source[RT_LANG_ID_SIZE];         /* the INI language used ("009"), per symbol
                               the first choice: that language, English,
                               then the INI's first language */
    int created;            /* the key was created (009 when absent) */
    char fixed[160];        /* not written: why (the store serves a fixed
                               table there), else "" */
};

struct rt_install_plan {
    uint32_t first_counter, last_counter, first_help, last_help;
    int replaced;           /* an installed range was replaced */
    int kept_position;      /* ... at the same first indices */
    uint32_t old_first_counter, old_last_counter;
    uint32_t old_first_help, old_last_help;
    /* INI languages the machine does not have: reported, not created. */
    char (*missing)[RT_LANG_ID_SIZE];
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

/* What the index allocation of an install (docs/design.md, "Allocating
 * indices") is given. */
struct rt_index_request {
    /* Perflib's Last Counter and Last Help, as read (or the base's). */
    uint32_t last_counter, last_help;
    /* The highest index any Counter (Help) table holds, the range
     * replaced cut out: the tables count, not Last Counter alone. */
    uint32_t highest_counter, highest_help;
    /* The installed service whose range --replace takes out, or NULL. */
    const struct rt_service_info *replaced;
    size_t n_symbols;       /* how many the INI defines (messages) */
    uint32_t span;          /* the last symbol's offset */
};

/* The indices an install takes, and Perflib's values after it. */
struct rt_index_allocation {
    uint32_t first_counter, last_counter, first_help, last_help;
    int kept_position;      /* the replaced range's first indices kept */
    /* Perflib's Last Counter and Last Help: never lower than before. */
    uint32_t perflib_last_counter, perflib_last_help;
};

/* Allocates RQ's range: the replaced one's first indices when the new
 * range fits in it (each of its two ranges as long or longer), else the
 * first even counter index above the highest of Last Counter, Last Help
 * - 1 and every table's indices, with the help index one above it (a
 * counter is even, its help odd). 0, or -1 with E (RT_ERR_INVALID_DATA)
 * when the range would reach RT_INDEX_MAX. Pure: install's step alone,
 * tested on its own. */
int rt_engine_allocate_indices(const struct rt_index_request *rq,
                               struct rt_index_allocation *out,
                               struct rt_error *e);

/* The trust boundaries of installing SPEC onto SVC, checked by
 * rt_engine_install before anything is computed (after its refusal of an
 * installed provider without --replace). Refused, unless
 * OPT->force, with RT_ERR_ALREADY_EXISTS: a service that is one of the
 * system's providers (a range in the base range, or a Library with no
 * range of its own while its Object List names objects of the base range
 * or its name is one of Windows' built-in providers, audit.h
 * rt_audit_system_dll), and --create-service over a service's existing,
 * different Library. Refused always, with RT_ERR_INVALID_DATA: a
 * drivername or INI file name that cannot be one file name of the INF
 * copy (side_files.h, rt_win_name_problem). SVC's name is matched
 * without regard to case, as Windows matches service names; messages give
 * the registry's spelling. */
int rt_engine_install_trust(const struct rt_database *db,
                            const struct rt_service_info *svc,
                            const struct rt_provider_spec *spec,
                            const struct rt_install_options *opt,
                            struct rt_error *e);

/* Why SVC is one of the system's providers (as rt_engine_install_trust
 * judges it), into WHY ("" when it is not): 0, or -1 when memory ran
 * out. Restore too gives no range to one of them without --force. */
int rt_engine_system_provider(const struct rt_database *db,
                              const struct rt_service_info *svc, char *why,
                              size_t size);

/* The text of a provider's symbol for machine language KEY whose table
 * is LANG's (both the same but for CurrentLanguage): KEY's own, else
 * LANG's, else English, else the INI's languages in order
 * (docs/design.md, "What install writes"); NULL when no language has
 * one; SRC gets the INI language used. Install and rebuild
 * (engine/rebuild.h) choose alike. The positions of KEY's, LANG's and
 * English in SPEC->languages (ORDER) are found once for a language
 * (rt_engine_pick_order), not once a symbol.
 *
 * The same choice made for every symbol of SPEC in many languages in
 * time of the texts, not of symbols x INI languages x languages: each
 * symbol's first INI language with a name and with a help (FIRST, made
 * once), and for each machine language the positions of KEY's, LANG's
 * and English in SPEC->languages (rt_engine_pick_order, made once per
 * language). */
struct rt_engine_picker {
    const struct rt_provider_spec *spec;
    int *first;     /* [2 * n_symbols]: name, help; -1 none */
};
int rt_engine_picker_init(struct rt_engine_picker *p,
                          const struct rt_provider_spec *spec);
void rt_engine_picker_free(struct rt_engine_picker *p);
void rt_engine_pick_order(const struct rt_provider_spec *spec,
                          const char *key, const char *lang, int order[3]);
/* The choice for SYM with ORDER (rt_engine_pick_order, made once for a
 * language: a scan of the INI's languages a symbol was symbols x INI
 * languages, review 35 F5). */
const char *rt_engine_pick_ordered(const struct rt_provider_spec *spec,
                                   const struct rt_provider_symbol *sym,
                                   const int order[3], int help,
                                   char src[RT_LANG_ID_SIZE]);
/* The choice for symbol K with ORDER, its first texts known (P). */
const char *rt_engine_pick(const struct rt_engine_picker *p, size_t k,
                           const int order[3], int help,
                           char src[RT_LANG_ID_SIZE]);

/* What uninstall does with Perflib's Last Counter (or Last Help), and why
 * (docs/design.md, "Uninstall"). */
enum rt_last_rule {
    RT_LAST_KEPT,       /* not on top: left where it was */
    RT_LAST_FOUND,      /* on top: First - 2, where its install found it */
    RT_LAST_HIGHEST,    /* not below the highest index still present */
    RT_LAST_PROVIDER,   /* not below another provider's range */
    RT_LAST_BASE        /* not below the base range (Base Index) */
};

struct rt_last_change {
    uint32_t old_value, new_value;
    int on_top;             /* the provider held this value */
    enum rt_last_rule rule; /* what decided new_value */
    uint32_t found_at;      /* First Counter (First Help) - 2 */
    uint32_t highest;       /* highest index still present, any language */
    char why[320];          /* the same, in one sentence for people */
};

struct rt_uninstall_plan {
    uint32_t first_counter, last_counter, first_help, last_help;
    size_t removed_names, removed_helps;   /* over all languages */
    struct rt_last_change counter, help;   /* Perflib Last Counter/Help */
    /* Why the INF copy was not looked for (its PerfIniFile, or the
     * service's name, is not one file name: side_files.h), for people;
     * "" when it was. The ranges and values go all the same. */
    char side_skipped[400];
};

/* Computes the removal of SVC's ranges. A range that is inverted, odd,
 * overlaps the base range or another provider is refused
 * (RT_ERR_INVALID_DATA) unless FORCE; a service without a range is
 * RT_ERR_FILE_NOT_FOUND.
 * Last Counter and Last Help (docs/design.md, "Uninstall"): when the
 * provider is on top, back to First - 2, where its install found them
 * (install allocates 2 above), but never below the highest index still
 * present in any language, another provider's range, or the base range; a
 * provider not on top leaves them alone, unless they lie below the highest
 * index still present or the base range, where they are raised to it. Each
 * value is decided by itself: the provider is on top for Last Counter when
 * Last Counter lies within its names, or below them while its range is the
 * highest of all (a Last Counter that lies low: it stays, never raised to
 * First - 2, which would only move it up); a Last Counter above its
 * names (real machines keep it far above their highest string,
 * docs/design.md, "What real machines look like") is never lowered. */
int rt_engine_uninstall(const struct rt_database *db,
                        const struct rt_service_info *svc, int force,
                        struct rt_change_set *cs,
                        struct rt_uninstall_plan *plan, struct rt_error *e);

/* The invariant of every table change C (RT_CHANGE_SET_TABLE), checked
 * before any commit: the new table equals BEFORE (the table as the store
 * holds it where C will write; PRESENT 0 when there is none), plus
 * exactly C's added pairs, minus exactly its removed pairs, as multisets
 * of (index, text). A change that breaks it is a bug upstream:
 * RT_ERR_INTERNAL_ERROR, with a message saying where. */
int rt_engine_check_table_change(const struct rt_change *c,
                                 const struct rt_value *before, int present,
                                 struct rt_error *e);
/* The same, KNOWN the table as the database loaded it (NULL: none): when
 * BEFORE is its very bytes and it was well-formed, its index of pairs is
 * used, not a second scan of the same bytes. */
int rt_engine_check_table_change_known(const struct rt_change *c,
                                       const struct rt_value *before,
                                       int present,
                                       const struct rt_table *known,
                                       struct rt_error *e);

/* The same invariant for a splice C (C->n_edits > 0), against T, the
 * table as read under the lock the change will be applied under (NULL or
 * PRESENT 0: none): it looks only at the pairs the edits touch. */
int rt_engine_check_table_splice(const struct rt_change *c,
                                 const struct rt_table *t, int present,
                                 struct rt_error *e);

#endif
