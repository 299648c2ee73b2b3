/* Engine layer, internal: what the files of repair share (repair_plan.c: the
 * steps' order, duplicates and orphans; repair_from_ini.c: --from-ini;
 * repair_fill.c: languages filled from English, CurrentLanguage
 * mirrored; repair_emit.c: the changes written and what is left). Not
 * for use outside lib/engine/repair*.c. */
#ifndef RT_REPAIR_INTERNAL_H
#define RT_REPAIR_INTERNAL_H

#include "engine/repair.h"
#include "engine/change_budget.h"
#include "engine/owned_ranges.h"
#include "model/lang_id.h"
#include "model/size_caps.h"
#include "model/utf16.h"

/* One language being repaired: its new lists, and whether each must be
 * written even when its pairs are unchanged (a blob that was damaged or of
 * the wrong type is rewritten well-formed). */
struct rlang {
    const struct rt_db_language *l;
    /* The pairs as the repair makes them, decoded from the table as read
     * (UTF-16, indexed) only where a step needs their texts or changes
     * them (HAVE); until then the table's index stands for them (see
     * rt_repair_count_of, rt_repair_index_at). Most tables of a healthy
     * database are never decoded. CHANGED: a step changed them
     * (rt_repair_writable). */
    struct rt_pair_list list[2];
    int have[2];
    int changed[2];
    int rewrite[2];
    /* Once emit_tables has made list K's change: its position in the
     * change set + 1 (0: none), where report_left finds the new table's
     * bytes, and the list's highest index, for emit_values. The list
     * itself is freed then: with thousands of languages each filled from
     * English, holding every list besides its change doubled the peak. */
    size_t change[2];
    uint32_t highest[2];
    /* List K's positions in index order, made the first time dedupe
     * looks another language's duplicate up in it, dropped when the
     * list changes and when dedupe is done; NULL until then. */
    struct ipos *by_index[2];
};

struct repair {
    const struct rt_database *db;
    const struct rt_repair_options *opt;
    struct rlang *w;
    size_t n;
    struct rt_repair_report *r;
    int failed;
    int interrupted;   /* a caller's SIGINT or SIGTERM stopped a step */
    /* The texts steps copy into languages (restore_from_inis,
     * fill_from_english) against what one change may write; OVER: a step
     * stopped because they came to more. */
    struct rt_change_budget budget;
    int over;
};

#define FIXED(rp, id, lang, ...)                                              \
    do {                                                                      \
        if (rt_findings_add(&(rp)->r->fixed, id, RT_AUDIT_INFO, lang, NULL,   \
                            NULL, __VA_ARGS__) != 0)                          \
            (rp)->failed = 1;                                                 \
    } while (0)

#define LEFT(rp, id, sev, lang, ...)                                          \
    do {                                                                      \
        if (rt_findings_add(&(rp)->r->left, id, sev, lang, NULL, NULL,        \
                            __VA_ARGS__) != 0)                                \
            (rp)->failed = 1;                                                 \
    } while (0)

/* A list's positions in index order (ties in table order). Eight
 * bytes: a list holds fewer than 2^32 pairs (a table is under 4 GiB,
 * eight bytes a pair at least), and a repair sorts a table of millions
 * of duplicates this way. */
struct ipos {
    uint32_t index;
    uint32_t pos;
};

/* "Counter" (K 0) or "Help" (K 1), for messages. */
const char *rt_repair_kind_name(int k);

/* The language ID of the repair, or NULL. */
struct rlang *rt_repair_lang_of(struct repair *rp, const char *id);

/* W's list K decoded from the table as read, if it is not yet: 0, or -1
 * when out of memory. */
int rt_repair_decoded(struct rlang *w, int k);

/* W's list K, decoded, to be changed: 0, or -1 when out of memory. */
int rt_repair_writable(struct rlang *w, int k);

/* The pairs of W's list K, and the index of the I-th: from the list once
 * decoded, else from the table's index (the same pairs, in order). */
size_t rt_repair_count_of(const struct rlang *w, int k);
uint32_t rt_repair_index_at(const struct rlang *w, int k, size_t i);

/* W's list K's indices, sorted, in a new array of *N; NULL when out of
 * memory. */
uint32_t *rt_repair_sorted_indices(const struct rlang *w, int k, size_t *n);

/* Whether X is in IX (N, sorted). */
int rt_repair_sorted_has(const uint32_t *ix, size_t n, uint32_t x);
/* The first position of IX (N, sorted) whose index is X or more; N when
 * none is. */
size_t rt_repair_lower_bound(const uint32_t *ix, size_t n, uint64_t x);

/* L's positions in index order, in a new array; NULL when out of
 * memory. */
struct ipos *rt_repair_sorted_positions(const struct rt_pair_list *l);

/* Every provider whose strings are missing somewhere gets them back from
 * its INIs, at its installed indices; one without an INI, or whose INI
 * does not give its installed range, is reported and left as it is. */
int rt_repair_restore_from_inis(struct repair *rp);

/* What the name tables would hold together once fill_from_english has
 * run, in bytes: each table as it is, and English's entries each
 * language gets; *FILLED: how many languages get some. Sized from the
 * indices alone, before a text is copied: -1 when out of memory. What
 * the languages get is counted into RP's budget (RP->over once over). */
int rt_repair_filled_size(struct repair *rp, uint64_t *total, size_t *filled);

/* Entries English has above Base Index that a language lacks get the
 * English text, as install gives a language the INI lacks. */
int rt_repair_fill_from_english(struct repair *rp);

/* CurrentLanguage becomes a copy of the language it mirrors (the one it
 * agrees with most). */
int rt_repair_mirror_current(struct repair *rp);

/* A table change for each list that differs from what is stored. */
int rt_repair_emit_tables(struct repair *rp, struct rt_change_set *cs);

/* Perflib's values (Last Counter, Last Help, Base Index, Disable
 * Performance Counters) where the repair changes them. */
int rt_repair_emit_values(struct repair *rp, struct rt_change_set *cs);

/* What audit still finds once the repair is made: the database as it
 * will be, a view that borrows the repaired lists. */
int rt_repair_report_left(struct repair *rp, const struct rt_change_set *cs);

#endif
