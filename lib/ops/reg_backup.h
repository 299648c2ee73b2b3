/* Backups as .reg files: the whole Perflib key and every provider's
 * Performance values in a file Windows' `reg import` takes, and the
 * restore of such a file into a store, as one atomic commit. Unlike the
 * PerfStringBackup format, the tables are kept as the exact bytes of
 * their hex(7) values, and a provider's Library, procedures, Object List
 * and the rest come back too. */
#ifndef RT_OPS_REG_BACKUP_H
#define RT_OPS_REG_BACKUP_H

#include <stddef.h>

#include "engine/backup.h"
#include "engine/database.h"
#include "engine/reg_patch.h"
#include "model/change_set.h"
#include "model/error.h"
#include "model/reg_file.h"
#include "model/size_caps.h"
#include "store/store.h"

/* The values saved and restored. The store interface reads values by
 * name, so these are the names Windows, lodctr, the providers and WMI's
 * ADAP keep there; any other value is neither saved nor touched. */
extern const char *const rt_reg_perflib_values[];
extern const char *const rt_reg_service_values[];

/* The whole database of S (as loaded in DB: its languages and services)
 * as a file of FORMAT: Perflib's values, each language's Counter and Help
 * bytes as stored, each service's Performance values. */
int rt_engine_backup_reg(struct rt_store *s, const struct rt_database *db,
                         enum rt_reg_format format, struct rt_reg_file *out,
                         struct rt_error *e);

struct rt_reg_restore_report {
    size_t tables, perflib_values, service_values;  /* changes of each */
    /* The file's base texts against the database's (engine/backup.h),
     * every language summed; the first differing one is in language
     * BASE_FIRST_LANG (owned; NULL when none differs). */
    uint32_t base_index;
    struct rt_base_texts base;
    char *base_first_lang;
    char **skipped;          /* keys of the file the store has nothing
                                for: reported, not created */
    size_t n_skipped;
};
void rt_reg_restore_report_free(struct rt_reg_restore_report *r);

/* Restores F into S in one atomic commit: each store language the file
 * has gets its tables byte for byte; Perflib's values are set as the file
 * has them; each service with a Performance key gets every value of
 * rt_reg_service_values as the file has it, deleted when the file's key
 * lacks it, and when the file has no key for it, loses First/Last
 * Counter/Help as lodctr /R does. Only what differs is written; with
 * DRY_RUN nothing is. Refused (RT_ERR_INVALID_DATA, nothing written): a
 * file without the Perflib key, a table that is not REG_MULTI_SZ or is
 * empty, a file with tables for none of the store's languages. A file
 * whose base texts differ from the database's (another machine's backup,
 * as rt_op_restore compares them) is refused with RT_ERR_ALREADY_EXISTS,
 * nothing written, unless FORCE (or DRY_RUN, whose report says it). */
int rt_op_restore_reg(struct rt_store *s, const struct rt_reg_file *f,
                      int force, int dry_run, struct rt_change_set *cs,
                      struct rt_reg_restore_report *r, struct rt_error *e);
/* The same of the file read into the tree under ROOT (rt_reg_parse_tree:
 * a restore's backup file, never held twice). */
int rt_op_restore_reg_tree(struct rt_store *s, const struct rt_tree_key *root,
                           int force, int dry_run, struct rt_change_set *cs,
                           struct rt_reg_restore_report *r,
                           struct rt_error *e);

/* F (rt_engine_backup_reg's) as a .reg file's bytes in *DATA (a new
 * buffer). 1 when the file would be larger than RT_REG_FILE_MAX, which
 * no store's restore reads (*TOO_LARGE then at least its size; told
 * before the text is made where the tables alone are too large); -1
 * with E when the text cannot be made. */
int rt_op_reg_backup_text(const struct rt_reg_file *f, uint8_t **data,
                          size_t *len, uint64_t *too_large,
                          struct rt_error *e);

/* --emit-reg: CS as a .reg patch's bytes (Version 5.00, UTF-16LE) in
 * *DATA (a new buffer), for a store S: where S keeps its tables in .dat
 * files, which no .reg file reaches, the table changes are left out and
 * counted in *LEFT_OUT. *KEYS and *VALUES: what the patch holds;
 * *FILES: the file changes (INF copy, PerfStringBackup.INI) no patch
 * holds. -1 with E (out of memory, or the text's error). */
int rt_op_reg_patch_text(struct rt_store *s, const struct rt_change_set *cs,
                         uint8_t **data, size_t *len, size_t *keys,
                         size_t *values, size_t *left_out, size_t *files,
                         struct rt_error *e);

#endif
