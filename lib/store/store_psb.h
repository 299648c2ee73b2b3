/* The psb store: a PerfStringBackup file (what lodctr /S writes, and
 * Windows' System32\PerfStringBackup.INI) read as a name database, so
 * `names` and `query` run on a backup directly. Read-only: every write is
 * refused with a clear error. */
#ifndef RT_STORE_PSB_H
#define RT_STORE_PSB_H

#include "store/store.h"

/* Reads and parses PATH. Returns NULL with E set: RT_ERR_FILE_NOT_FOUND
 * when it cannot be read, RT_ERR_INVALID_DATA with "PATH:LINE: ..." when
 * it is malformed. */
struct rt_store *rt_store_psb_open(const char *path, struct rt_error *e);

#endif
