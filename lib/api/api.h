/* The API layer's own interface to the regtool CLI: what the CLI shares
 * with the public API (lib/regtool.h) but needs in the library's own
 * types, because its other commands work on struct rt_store directly. */
#ifndef RT_API_H
#define RT_API_H

#include <regtool.h>

#include "engine/backup.h"
#include "model/change_set.h"
#include "model/error.h"
#include "platform/os.h"
#include "store/store.h"

/* Opens the store SPEC names (regtool_open's specs) with OPT (NULL:
 * defaults); READ_ONCE: the caller reads each table once, copying it (a
 * hive store's open then holds none of their pages). Warnings of the
 * opening (a dirty hive read without its logs) go to OPT->notice. NULL
 * with E set on failure, and *BAD_SPEC set to 1 when SPEC names no store
 * this build has (the CLI's usage error). */
struct rt_store *rt_api_open_store(const char *spec,
                                   const regtool_open_options *opt,
                                   int read_once, struct rt_error *e,
                                   int *bad_spec);

/* A handle on an open store, which regtool_close then closes. NULL when
 * out of memory (S is left open). */
regtool *rt_api_wrap_store(struct rt_store *s);

/* The PerfStringBackup of DB saved to PATH by RULE as it is made: each
 * language's tables read from S, written and freed in turn
 * (rt_engine_backup_to; with SALVAGE a damaged table's readable pairs,
 * each such table told to DAMAGED when not NULL). It is written to a
 * temporary file, each write counted (commit/io.h), and renamed to its
 * name only when whole: whatever fails, an interrupt included
 * (RT_ERR_CANCELLED), leaves no file. Returns 0 with *ST set, or -1 with
 * E set: E->code RT_ERR_WRITE_FAULT when the file could not be opened,
 * written or finished (*ERR_NO its errno: EEXIST when the rule found no
 * free name), else the backup's own refusal. *USED: the name written to
 * (rt_os_saving_open), also on failure; the caller frees it. */
int rt_api_save_backup(struct rt_store *s, const struct rt_database *db,
                       const char *path, enum rt_os_saving_rule rule,
                       int salvage,
                       void (*damaged)(void *ctx,
                                       const struct rt_backup_damage *d),
                       void *damaged_ctx, struct rt_backup_stats *st,
                       char **used, int *err_no, struct rt_error *e);

/* CS as text, one line per change and per pair, each line ending in a
 * newline: a new string, or NULL when out of memory. */
char *rt_api_change_set_text(const struct rt_change_set *cs);

#endif
