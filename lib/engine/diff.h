/* Engine layer: what differs between two name databases (regtool diff).
 * Pure: it reads two databases as loaded (with PAIRS) and fills a result;
 * no I/O. The result points into both databases (texts, service values,
 * language ids), so it is freed before them.
 *
 * Pairs are compared per language present in both, Counter and Help
 * separately, as multisets by index: the k-th pair of an index in A
 * meets the k-th of that index in B (table order), same text or other
 * text; a pair without its partner is only in A or only in B. Each
 * differing pair falls in a group: its language, its part (at or below
 * Base Index, Windows' own, or above it, the extensible part) and the
 * providers whose ranges hold its index, A's and B's (the same one when
 * both databases give it to one provider; where one database's ranges
 * overlap, the range that starts first, the wider of two that start
 * together, holds the index). A language in only one database is
 * reported whole, not pair by pair. O((n + m) log(n + m)) in the pairs
 * and services. */
#ifndef RT_ENGINE_DIFF_H
#define RT_ENGINE_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"

enum rt_diff_class {
    RT_DIFF_ONLY_A,
    RT_DIFF_ONLY_B,
    RT_DIFF_OTHER_TEXT,     /* the same index with another text */
    RT_DIFF_CLASSES
};

/* A group's provider: none of the ranges holds the index. */
#define RT_DIFF_NO_PROVIDER UINT32_MAX

/* A differing pair: 28 bytes, three million of them in a diff of two
 * hostile tables, so its texts are positions, not pointers (rt_diff_text
 * gives them) and equals keep the order found by their place. */
struct rt_diff_pair {
    uint32_t index;
    uint32_t lang;              /* position in rt_diff.langs */
    uint32_t owner_a, owner_b;  /* the provider whose range in A (in B)
                                   holds the index: a position in
                                   rt_diff.owners, or RT_DIFF_NO_PROVIDER */
    uint32_t at_a, at_b;        /* the pair's position in the language's
                                   table of KIND in A (in B), or
                                   RT_DIFF_ABSENT in the one without it */
    uint8_t kind;               /* RT_TABLE_COUNTER or RT_TABLE_HELP */
    uint8_t cls;                /* enum rt_diff_class */
    uint8_t base;               /* 1: index at or below Base Index */
};

#define RT_DIFF_ABSENT UINT32_MAX

/* A provider whose range holds differing pairs or may: a service with a
 * range in A or B. */
struct rt_diff_owner {
    const char *name;
    const struct rt_service_info *a, *b;   /* NULL when not in that one
                                              (or there without a range) */
    uint32_t lo;                /* the lowest index of its ranges */
};

struct rt_diff_group {
    uint32_t lang;              /* position in rt_diff.langs */
    uint32_t owner_a, owner_b;  /* as its pairs' */
    int base;                   /* 1: the base part, 0 the extensible */
    size_t n[RT_DIFF_CLASSES][2];   /* [class][RT_TABLE_COUNTER/HELP] */
    size_t first, n_pairs;      /* its pairs in rt_diff.pairs */
    uint32_t lowest, highest;   /* indices of its pairs */
};

struct rt_diff_language {
    const char *id;
    const struct rt_db_language *a, *b;    /* NULL when not in that one */
    size_t n[RT_DIFF_CLASSES][2];   /* differing pairs (both have it) */
};

/* What differs about a provider (bits of rt_diff_provider.what). */
#define RT_DIFF_PROV_ONLY_A  1u     /* a range in A only */
#define RT_DIFF_PROV_ONLY_B  2u     /* a range in B only */
#define RT_DIFF_PROV_RANGE   4u     /* First/Last Counter/Help differ */
#define RT_DIFF_PROV_DISABLE 8u     /* Disable Performance Counters */

struct rt_diff_provider {
    const char *name;
    const struct rt_service_info *a, *b;   /* NULL when not in that one */
    unsigned what;
};

/* One of Perflib's values that differs. */
struct rt_diff_value {
    const char *name;           /* "Last Counter", ... */
    int has_a, has_b;
    uint32_t a, b;
};

#define RT_DIFF_MAX_VALUES 8

struct rt_diff {
    struct rt_diff_value values[RT_DIFF_MAX_VALUES];
    size_t n_values;
    struct rt_diff_language *langs;     /* every language of A or B: A's
                                           order, then B's others */
    size_t n_langs;
    struct rt_diff_provider *providers; /* those that differ, by name */
    size_t n_providers;
    struct rt_diff_owner *owners;       /* every ranged service, by range */
    size_t n_owners;
    struct rt_diff_pair *pairs;         /* by group, kind, index */
    size_t n_pairs;
    struct rt_diff_group *groups;       /* by language, base part first,
                                           providers by range (the lower
                                           of A's and B's), none last */
    size_t n_groups;
    uint32_t base_index;                /* the lower of the two */
    size_t n[RT_DIFF_CLASSES][2];       /* every differing pair */
};

/* Compares A with B (both loaded with PAIRS) into OUT. Returns 0, or -1
 * when out of memory (OUT then empty). */
int rt_diff_databases(const struct rt_database *a, const struct rt_database *b,
                      struct rt_diff *out);
/* P's pair in A (SIDE 0) or B (SIDE 1), or NULL in the one without it. */
const struct rt_pair *rt_diff_text(const struct rt_diff *d,
                                   const struct rt_diff_pair *p, int side);

void rt_diff_free(struct rt_diff *d);

/* Adds Perflib's value NAME (static text) to D's values when it differs:
 * one has it and the other not, or both with other numbers; a value the
 * database does not hold (Version) read by the caller. Nothing when D
 * holds RT_DIFF_MAX_VALUES already. */
void rt_diff_add_value(struct rt_diff *d, const char *name, int has_a,
                       uint32_t a, int has_b, uint32_t b);

/* Whether the two databases compared the same. */
int rt_diff_same(const struct rt_diff *d);
/* How many languages are in only one of them. */
size_t rt_diff_languages_alone(const struct rt_diff *d);

#endif
