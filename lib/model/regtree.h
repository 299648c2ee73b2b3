/* An in-memory registry tree: keys with case-insensitive names (as Windows
 * compares them), values in insertion order. Backs the mem store and the
 * .reg store. */
#ifndef RT_REGTREE_H
#define RT_REGTREE_H

#include <stddef.h>

#include "model/change_set.h"

/* A value's name, and its data when of RT_TREE_SMALL_DATA bytes or
 * fewer, lie in bytes its key owns (regtree.c): read them, never free or
 * keep them past the key. Only the functions here change a value. */
#define RT_TREE_SMALL_DATA 16u

struct rt_tree_value {
    char *name;          /* UTF-8; "" is the default value */
    struct rt_value v;
};

struct rt_tree_bytes;

struct rt_tree_key {
    char *name;
    struct rt_tree_key **sub;
    size_t n_sub;
    struct rt_tree_value *vals;
    size_t n_vals;
    /* SUB and VALS by name (regtree.c), for keys with many of them: a
     * lookup is not a scan. Only the functions here change a key. */
    struct rt_tree_index *sub_index, *val_index;
    size_t sub_cap, val_cap;
    /* Deleted entries not yet closed up (a NULL SUB, a value whose name
     * is NULL): see rt_tree_settle. */
    size_t dead_subs, dead_vals;
    struct rt_tree_bytes *bytes;    /* its values' names and small data */
};

struct rt_tree_key *rt_tree_new(const char *name);
void rt_tree_free(struct rt_tree_key *k);
struct rt_tree_key *rt_tree_clone(const struct rt_tree_key *k);

/* The child named NAME (case-insensitive), or NULL. */
struct rt_tree_key *rt_tree_child(const struct rt_tree_key *k,
                                  const char *name);
/* Follows a backslash-separated PATH ("" is K itself); NULL when absent. */
struct rt_tree_key *rt_tree_find(const struct rt_tree_key *k,
                                 const char *path);
/* Like rt_tree_find, creating missing keys; NULL when out of memory. */
struct rt_tree_key *rt_tree_create(struct rt_tree_key *k, const char *path);

struct rt_tree_value *rt_tree_value(const struct rt_tree_key *k,
                                    const char *name);
/* Sets (copies) a value, replacing one of the same name in place. */
int rt_tree_set_value(struct rt_tree_key *k, const char *name,
                      const struct rt_value *v);
/* Room for MORE values more on K: a key given all its values at once
 * (a .reg section) holds no room it will not use. 0, or -1 out of
 * memory. */
int rt_tree_reserve_values(struct rt_tree_key *k, size_t more);
/* The same, taking NAME (a heap string) and V's data, which are freed on
 * failure; V is left empty either way. */
int rt_tree_set_value_take(struct rt_tree_key *k, char *name,
                           struct rt_value *v);
/* Returns 1 when deleted, 0 when there was no such value. */
int rt_tree_delete_value(struct rt_tree_key *k, const char *name);

/* Deletes the child NAME and everything under it: 1 when deleted, 0 when
 * there was no such child. */
int rt_tree_delete_child(struct rt_tree_key *k, const char *name);

/* A deletion leaves a hole where the entry was (a NULL in SUB, a value
 * named NULL), closed up once a key's holes outnumber its entries: a run
 * of n deletions costs O(n), not n moves of every entry after each and
 * n rebuilt indexes. The functions here skip holes; code that walks
 * ->sub and ->vals itself calls this first, after deleting: every hole
 * in K and below closed up, the order of what is left kept. */
void rt_tree_settle(struct rt_tree_key *k);

/* Appends a canonical dump of K and everything under it to a new string:
 * one line per key path and per value (type, hex bytes). */
char *rt_tree_dump(const struct rt_tree_key *k);

#endif
