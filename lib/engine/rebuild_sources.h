/* The sources of a rebuild (engine/rebuild.h), read: from the store's
 * side files (store.h, read_win_file) and its Windows directory, or from
 * another Windows directory (--from DIR: a copy of an identical
 * machine's, as Microsoft's advice goes). Operations layer: I/O. */
#ifndef RT_REBUILD_SOURCES_H
#define RT_REBUILD_SOURCES_H

#include "engine/database.h"
#include "engine/rebuild.h"
#include "store/store.h"

struct rt_rebuild_sources {
    struct rt_rebuild_input in;         /* points into what follows */
    struct rt_rebuild_base *base;
    struct rt_name_table *tables;       /* parallel to base */
    struct rt_rebuild_inf *inf;
    struct rt_provider_spec *specs;     /* parallel to inf */
    struct rt_psb psb;
    int has_psb;
    uint64_t inf_bytes;                 /* the INF copies' folders read */
    char **strings;                     /* paths and reasons, owned */
    size_t n_strings;
    char *root;                         /* where they were looked for,
                                           for people */
};

/* Reads every source for DB's languages and providers. A source that is
 * missing or does not read is no error: it is recorded with the file
 * and the reason (what Windows reports as "error code is 2"). FROM: a
 * Windows directory to read instead of the store's, or NULL. */
int rt_rebuild_sources_read(struct rt_store *s, const struct rt_database *db,
                            const char *from, struct rt_rebuild_sources *src,
                            struct rt_error *e);
void rt_rebuild_sources_free(struct rt_rebuild_sources *src);

#endif
