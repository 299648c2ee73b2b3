/* A read-only view of a store as it will be once a change set is
 * applied: what the database will read after the commit, computed before
 * it, so that files derived from the whole database (PerfStringBackup.INI)
 * can be written in the same commit. */
#ifndef RT_OVERLAY_H
#define RT_OVERLAY_H

#include "model/change_set.h"
#include "store/store.h"

/* BASE and CS must outlive the view; close() frees the view only. Every
 * write is refused. NULL when out of memory. */
struct rt_store *rt_overlay_new(struct rt_store *base,
                                const struct rt_change_set *cs);

#endif
