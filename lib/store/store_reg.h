/* The reg store: a .reg file (a `reg export` of Perflib plus the Services
 * keys, or a file regtool wrote) read as a registry, so that every verb
 * runs on an export collected from a machine. The tables are Perflib\LLL's
 * Counter and Help, hex(7) values. A write rebuilds the file from the
 * registry it describes, in the file's own dialect and encoding, and
 * replaces it at once (temporary file, fsync, rename): comments and the
 * order of repeated keys are not kept. */
#ifndef RT_STORE_REG_H
#define RT_STORE_REG_H

#include "store/store.h"

/* Reads and parses PATH; CODEPAGE is a REGEDIT4 file's ANSI code page
 * (NULL: 1252). Returns NULL with E set: RT_ERR_FILE_NOT_FOUND when it
 * cannot be read, RT_ERR_INVALID_DATA with "PATH:LINE: ..." when it is
 * malformed or is a patch (it deletes keys or values) rather than an
 * export. */
struct rt_store *rt_store_reg_open(const char *path, const char *codepage,
                                   struct rt_error *e);

/* Takes the writer's lock of the .reg file FILE as the store's writer
 * does (FILE.lock, waited for up to a minute): for a writer of the file
 * outside the store (perfstats remove), so that the two never write it
 * over each other's change. 0, or -1 with E set. */
struct rt_lock;
int rt_store_reg_lock(const char *file, struct rt_lock **lock,
                      struct rt_error *e);

/* Test hook, as rt_store_mem_fail_after: the next apply fails after K
 * changes, before the file is touched. 0 disables. */
void rt_store_reg_fail_after(struct rt_store *s, size_t k);

#endif
