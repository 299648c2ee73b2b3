/* Engine layer: what a change's new pairs take in their tables, counted
 * against what one change of the store may write (store.h, change_max).
 * A plan that copies texts into every language of a tree (install,
 * rebuild, repair) is bounded by the languages the tree's author planted
 * as well as by its input: a thousand empty languages and an ordinary INI
 * made gigabytes of tables before the commit refused their journal. The
 * bytes counted are a lower bound of what the commit writes (a pair's
 * UTF-16 in its table, once, whatever copies the store keeps), so a plan
 * refused here would have been refused there, only later. */
#ifndef RT_CHANGE_BUDGET_H
#define RT_CHANGE_BUDGET_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"
#include "model/error.h"

struct rt_change_budget {
    uint64_t max;      /* 0: no bound */
    uint64_t bytes;    /* counted so far */
};

/* A budget of DB's store's bound, nothing counted. */
struct rt_change_budget rt_change_budget_of(const struct rt_database *db);

/* Counts the pair (INDEX, TEXT, UTF-8) into B as a table holds it:
 * INDEX's digits, TEXT's UTF-16 units (two past the BMP), two NULs. 1 once B is over its
 * bound (and stays so), 0 otherwise. */
int rt_change_budget_add(struct rt_change_budget *b, uint32_t index,
                         const char *text);

/* Counts N bytes more into B (a table made whole): 1 once over. */
int rt_change_budget_add_bytes(struct rt_change_budget *b, uint64_t n);

/* Sets E to say that WHAT ("the install of 'X'") would add more than B
 * allows to the tables of N_LANGS languages; returns -1. */
int rt_change_budget_refuse(const struct rt_change_budget *b,
                            const char *what, size_t n_langs,
                            struct rt_error *e);

#endif
