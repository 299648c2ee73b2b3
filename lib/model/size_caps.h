/* The largest name-database files regtool reads, each refused by its size
 * before a byte of it is read (README "Tests for bad input").
 *
 * Windows keeps a language's Counter or Help table as one registry value
 * or one .dat file: on real machines a few hundred kilobytes to a few
 * megabytes (the largest seen, English's Help of a server with many
 * providers, under 4 MB). A PerfStringBackup file holds every language's
 * tables once as text, and a .reg file of the database the same as
 * regedit's hex: tens of megabytes for a machine with every language
 * pack. 256 MiB is far beyond all of these, and what regtool holds for
 * such a file (a few times its size) still fits a small machine; a file
 * over it is not a table or a backup Windows wrote. */
#ifndef RT_SIZE_CAPS_H
#define RT_SIZE_CAPS_H

#include <stdint.h>

#include "model/error.h"

/* A .dat table (System32\perfcLLL.dat, perfhLLL.dat, SysWOW64's). */
#define RT_DAT_TABLE_MAX ((uint64_t)256 << 20)
/* Every .dat table of a tree held at once (each language's Counter and
 * Help, System32's and SysWOW64's): a machine with every language pack
 * has a few hundred megabytes at most. Many tables each under the cap
 * above (sparse files cost nothing on disk) would otherwise add up to
 * more memory than a small machine has. */
#define RT_DAT_TOTAL_MAX ((uint64_t)1 << 30)
/* A PerfStringBackup file (lodctr /S, regtool backup, psb: stores). */
#define RT_BACKUP_FILE_MAX ((uint64_t)256 << 20)
/* A .reg file (reg: stores, restore FILE.reg). */
#define RT_REG_FILE_MAX ((uint64_t)256 << 20)

/* Sets E (RT_ERR_INVALID_DATA: exit status 2, lodctr's 13) to say that
 * PATH, of SIZE bytes, is over CAP for a WHAT ("a .dat table"), and
 * returns -1. */
static inline int rt_size_cap_error(struct rt_error *e, const char *path,
                                    uint64_t size, uint64_t cap,
                                    const char *what)
{
    return rt_error_set(e, RT_ERR_INVALID_DATA,
                        "%s: %llu bytes, larger than the %llu MiB %s may "
                        "be; nothing was read", path,
                        (unsigned long long)size,
                        (unsigned long long)(cap >> 20), what);
}

#endif
