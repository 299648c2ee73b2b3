/* Engine: one table (Counter or Help) of a language being rebuilt
 * (engine/rebuild.h), kept as layers rather than as a list of pairs.
 *
 * The rebuild puts the base, then each provider in turn: a provider's
 * ranges are cut (every pair there removed) and its strings put in. Done
 * on a list, each cut and each "does the table hold anything here" scans
 * the whole table: O(providers x pairs). Here an index holds, at any
 * time, the pairs of one source at that index (the base, the current
 * tables, PerfStringBackup.INI's, or none: the source of the last range
 * cut over it) plus the INF pairs put there since that cut. The sources
 * are sorted once; the ranges are segments of the providers' range
 * bounds, painted through a segment tree that also counts; INF pairs
 * live in a Fenwick tree. Every cut, count and put is O(log n) (a cut
 * besides O(log n) per INF pair it removes), and the table comes out
 * sorted by index, one index's pairs in the order the list would have
 * held them: the same pairs, in the same order, as the list's. */
#ifndef RT_REBUILD_LAYERS_H
#define RT_REBUILD_LAYERS_H

#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"

/* Pairs (a list, or a table as stored) with their positions sorted by
 * index, one index's in their order. */
struct rt_rb_source {
    const struct rt_pair *pairs;        /* a list's, or NULL */
    const struct rt_table *table;       /* a table's as stored, or NULL */
    uint32_t *pos;                      /* positions, by index; NULL:
                                           they are in order */
    size_t n;
};

/* 0, or -1 when out of memory. L or T must outlive S. */
int rt_rb_source_of_pairs(struct rt_rb_source *s, const struct rt_pair_list *l);
int rt_rb_source_of_table(struct rt_rb_source *s, const struct rt_table *t);
void rt_rb_source_free(struct rt_rb_source *s);
/* How many of its pairs have A <= index <= B. */
size_t rt_rb_source_count(const struct rt_rb_source *s, uint32_t a,
                          uint32_t b);

enum rt_rb_layer {
    RT_RB_NONE,         /* cut, nothing put back but INF pairs */
    RT_RB_BASE,
    RT_RB_STORED,       /* the current tables */
    RT_RB_BACKUP,       /* PerfStringBackup.INI */
    RT_RB_LAYERS
};

struct rt_rb_table {
    uint64_t *x;        /* segment bounds: segment k is x[k] .. x[k+1]-1 */
    size_t segs;
    /* Counts of pairs, 4 bytes each: a table is under 4 GiB. */
    uint32_t *pre[RT_RB_LAYERS];    /* a source's pairs before x[k] */
    uint32_t *sum;                  /* the segment tree: pairs held */
    signed char *tag;           /* the layer of a whole node, or -1 */
    const struct rt_rb_source *src[RT_RB_LAYERS];
    /* INF pairs: put, in order of putting; sorted by (index, order) */
    const struct rt_pair_list *inf;
    uint32_t *inf_pos, *inf_idx, *inf_rank;
    uint32_t *fen;                  /* Fenwick tree of those held */
    unsigned char *inf_held;
};

/* Segments from the N ranges RANGES[k][0] .. RANGES[k][1] (an empty
 * range, first above last, is no bound): 0, or -1 when out of memory. */
int rt_rb_table_init(struct rt_rb_table *t, const uint32_t (*ranges)[2],
                     size_t n);
/* A language's start: the base BASE's pairs up to index BASE_LAST
 * (BASE NULL: none), sources STORED and
 * BACKUP (NULL: empty) for cuts to put back, and INF (NULL: none), the
 * INF pairs that will be put, in their order. 0, or -1 when out of
 * memory. */
int rt_rb_table_start(struct rt_rb_table *t, const struct rt_rb_source *base,
                      uint32_t base_last, const struct rt_rb_source *stored,
                      const struct rt_rb_source *backup,
                      const struct rt_pair_list *inf);
/* Cuts A .. B and puts there LAYER's pairs within it. A range given to
 * rt_rb_table_init, or an empty one. */
void rt_rb_table_cut(struct rt_rb_table *t, uint32_t a, uint32_t b,
                     enum rt_rb_layer layer);
/* Puts INF pairs FROM .. TO-1 (of rt_rb_table_start's INF). */
void rt_rb_table_put_inf(struct rt_rb_table *t, size_t from, size_t to);
/* Pairs held with A <= index <= B (a range given to rt_rb_table_init). */
size_t rt_rb_table_count(const struct rt_rb_table *t, uint32_t a, uint32_t b);
/* The pairs held, sorted by index, into OUT (emptied): its pairs' texts
 * are the sources' (OUT must be freed with rt_rb_table_result_free, and
 * before them), those of a table as stored decoded into one block.
 * 0, or -1 when out of memory. */
int rt_rb_table_result(struct rt_rb_table *t, struct rt_pair_list *out);
void rt_rb_table_result_free(struct rt_pair_list *out);
void rt_rb_table_free(struct rt_rb_table *t);

#endif
