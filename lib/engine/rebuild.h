/* lodctr /R: the name tables rebuilt from scratch (docs/design.md,
 * "Rebuilding: lodctr /R"), as a pure function of the database as read and
 * of the sources the caller found: the tables as installed
 * (System32\perfdLLL.dat, perfiLLL.dat), each provider's INF copy, and
 * PerfStringBackup.INI. Windows' own algorithm is not public; this one
 * says, before anything is written, where every string comes from and what
 * cannot be recovered.
 *
 * Each language's new tables are its base (the tables as installed;
 * else its current tables' base range, else its backup section's) plus,
 * for each provider with First Counter, at its own indices (consumers'
 * cached indices stay valid), its strings from the first source that
 * has them for that language:
 *   1. its INF copy (INF\<service>\<LLLL>\<PerfIniFile> and the symbol
 *      file): texts chosen per language as install chooses them;
 *   2. the current tables: the pairs within its ranges;
 *   3. PerfStringBackup.INI: the pairs within its ranges in the
 *      language's section;
 *   4. the tables as installed, when they cover its ranges (providers
 *      that came with the system).
 * A provider none of these has for a language loses its text there.
 * Pairs of the current tables that none of this keeps (strings no
 * provider owns, base strings the tables as installed lack) are dropped
 * and counted from the change set itself (rt_change_lost), so what a
 * dry run says is lost is what the rebuild loses. Pairs are written sorted by
 * index; Last Counter / Last Help are raised to the highest index
 * written when below it, never lowered. */
#ifndef RT_REBUILD_H
#define RT_REBUILD_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"
#include "model/change_set.h"
#include "model/error.h"
#include "model/name_table.h"
#include "model/perf_backup.h"
#include "provider/provider_spec.h"

/* A language's tables as installed, or why there are none. */
struct rt_rebuild_base {
    const char *lang;                   /* as the store names it */
    const struct rt_name_table *t;      /* NULL: not found or unreadable */
    const char *missing;                /* then: the file, and why */
};

/* A provider's INF copy, or why there is none. */
struct rt_rebuild_inf {
    const char *service;
    const struct rt_provider_spec *spec;    /* NULL: none */
    const char *path;       /* the INI read, or the first one looked for */
    const char *why;        /* spec NULL: "not found", the load error ... */
};

struct rt_rebuild_input {
    const struct rt_rebuild_base *base;
    size_t n_base;
    const struct rt_rebuild_inf *inf;
    size_t n_inf;
    const struct rt_psb *psb;       /* PerfStringBackup.INI, or NULL */
    const char *psb_path;           /* for messages */
    const char *psb_why;            /* psb NULL: why */
};

enum rt_rebuild_source {
    RT_REBUILD_INF,         /* the provider's INF copy */
    RT_REBUILD_TABLES,      /* the current tables */
    RT_REBUILD_BACKUP,      /* PerfStringBackup.INI */
    RT_REBUILD_INSTALLED,   /* the tables as installed (perfd/perfi) */
    RT_REBUILD_LOST,        /* nowhere: the text is lost */
};

/* "INF copy", "current tables", ... for people. */
const char *rt_rebuild_source_name(enum rt_rebuild_source s);

/* A provider's source in a run of languages, one after another in the
 * plan's order, that have the same source and pairs: a tree of thousands
 * of languages and providers, each lost in every language, is a run a
 * provider, not a choice for each language and provider. */
struct rt_rebuild_choice {
    const char *lang;               /* the run's first (the plan's id) */
    size_t first, n;                /* in the plan's languages */
    enum rt_rebuild_source source;
    size_t names, helps;            /* pairs it gives in each */
};

struct rt_rebuild_provider {
    char *service;
    uint32_t first_counter, last_counter, first_help, last_help;
    struct rt_rebuild_choice *langs;    /* runs, in the plan's order */
    size_t n_langs, cap_langs;
    size_t lost;                        /* languages without its text */
    const struct rt_rebuild_inf *inf;   /* its INF input, or NULL */
};

struct rt_rebuild_language {
    char *id;
    enum rt_rebuild_source base;    /* where its base came from; LOST:
                                       nowhere (the language is lost) */
    const struct rt_rebuild_base *installed;   /* its input, or NULL */
    size_t names_before, helps_before, names_after, helps_after;
    size_t dropped;                 /* strings of the current tables
                                       its changes lose: removed, their
                                       index given no other text
                                       (rt_change_lost) */
    int counter_changed, help_changed;
};

struct rt_rebuild_plan {
    struct rt_rebuild_language *langs;
    size_t n_langs;
    struct rt_rebuild_provider *providers;
    size_t n_providers;
    size_t lost;        /* provider-language pairs and languages lost */
    uint32_t last_counter, last_help;           /* after */
};

void rt_rebuild_plan_free(struct rt_rebuild_plan *p);

/* Computes the rebuild of every language of DB (CurrentLanguage takes
 * English's base) into CS (whole tables replaced, only those that
 * differ; Perflib's Last Counter / Last Help when raised) and PLAN. It
 * plans even when text would be lost (PLAN->lost > 0): refusing is the
 * caller's decision. DB needs its tables read whole, as stored: their
 * pairs are decoded here only where taken (not PAIRS). */
int rt_engine_rebuild(const struct rt_database *db,
                      const struct rt_rebuild_input *in,
                      struct rt_change_set *cs, struct rt_rebuild_plan *plan,
                      struct rt_error *e);

#endif
