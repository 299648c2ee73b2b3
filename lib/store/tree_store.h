/* Store layer, internal: the Perflib database read from and changed in a
 * registry tree (model/regtree.h). The in-memory store and the .reg store
 * both keep one; they differ only in where the two keys lie in it. */
#ifndef RT_TREE_STORE_H
#define RT_TREE_STORE_H

#include <stddef.h>

#include "model/regtree.h"
#include "store/store.h"

/* Where Perflib and the Services key lie, relative to the tree's root. */
struct rt_tree_paths {
    const char *perflib, *services;
    /* The key whose values are the side files under the Windows
     * directory (REG_BINARY values named by their relative paths), or
     * NULL where the store has none (a .reg file): file changes are then
     * refused. */
    const char *files;
};

/* The store.h reads, on ROOT. */
int rt_tree_store_list_languages(struct rt_tree_key *root,
                                 const struct rt_tree_paths *p, char ***langs,
                                 size_t *n, struct rt_error *e);
int rt_tree_store_read_table(struct rt_tree_key *root,
                             const struct rt_tree_paths *p, const char *lang,
                             enum rt_table_kind t, struct rt_value *out,
                             int *present, struct rt_error *e);
int rt_tree_store_read_perflib(struct rt_tree_key *root,
                               const struct rt_tree_paths *p, const char *name,
                               struct rt_value *out, int *present,
                               struct rt_error *e);
int rt_tree_store_list_perf_services(struct rt_tree_key *root,
                                     const struct rt_tree_paths *p,
                                     char ***names, size_t *n,
                                     struct rt_error *e);
void rt_tree_store_service_state(struct rt_tree_key *root,
                                 const struct rt_tree_paths *p,
                                 const char *service, int *exists,
                                 int *has_perf);
int rt_tree_store_read_service(struct rt_tree_key *root,
                               const struct rt_tree_paths *p,
                               const char *service, const char *name,
                               struct rt_value *out, int *present,
                               struct rt_error *e);

/* Value NAME of the key at PATH below ROOT (any letter case); *PRESENT 0
 * when the key has no such value, -1 when the key is absent. */
int rt_tree_store_read_at(struct rt_tree_key *root, const char *path,
                          const char *name, struct rt_value *out, int *present,
                          struct rt_error *e);

/* A side file (P->files); *PRESENT 0 when absent. */
int rt_tree_store_read_file(struct rt_tree_key *root,
                            const struct rt_tree_paths *p, const char *rel,
                            struct rt_value *out, int *present,
                            struct rt_error *e);

/* Applies change C to ROOT itself, as the registry would. */
int rt_tree_store_apply_one(struct rt_tree_key *root,
                            const struct rt_tree_paths *p,
                            const struct rt_change *c, struct rt_error *e);

/* Applies every change of CS to ROOT itself, as the registry would: a
 * failure midway leaves ROOT part changed (the caller reads it again).
 * FAIL_AFTER (test hook, 0 off): fail after that many changes, the
 * message naming store WHO. */
int rt_tree_store_apply_here(struct rt_tree_key *root,
                             const struct rt_tree_paths *p,
                             const struct rt_change_set *cs, size_t fail_after,
                             const char *who, struct rt_error *e);

/* The same on a copy of ROOT, returned in *OUT: ROOT is untouched, so a
 * failure midway changes nothing (the mem store, which has no file to
 * read again). */
int rt_tree_store_apply(const struct rt_tree_key *root,
                        const struct rt_tree_paths *p,
                        const struct rt_change_set *cs, size_t fail_after,
                        const char *who, struct rt_tree_key **out,
                        struct rt_error *e);

#endif
