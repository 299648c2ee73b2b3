/* The largest name-database files regtool reads, each refused by its size
 * before a byte of it is read (docs/testing.md "Tests for bad input").
 *
 * Windows keeps a language's Counter or Help table as one registry value
 * or one .dat file: on real machines a few hundred kilobytes to a few
 * megabytes (the largest seen, English's Help of a server with many
 * providers, under 4 MB). A PerfStringBackup file holds every language's
 * tables once as text, and a .reg file of the database the same as
 * regedit's hex: tens of megabytes for a machine with every language
 * pack. 256 MiB is far beyond all of these, and what regtool holds for
 * such a file (a few times its size) still fits a small machine; a file
 * over it is not a table Windows wrote. A backup's cap follows from the
 * tables' (below). */
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
/* A PerfStringBackup file (lodctr /S, regtool backup, psb: stores):
 * whatever regtool backup writes of a tree whose .dat tables are within
 * the caps above, so that every backup it writes can be restored (a
 * 256 MiB cap refused the backup of a 316 MB database regtool itself
 * read). The bound, per pair of a table (UTF-16LE code units):
 *   in the .dat table  INDEX NUL TEXT NUL          d + t + 2 units,
 *   in the backup      CR LF INDEX' '=' TEXT       d' + t + 3 units,
 * with d >= 1 the index's digits as written, d' <= d the same index
 * written by %u (no leading zeros), t >= 0 the text's units, copied as
 * they are. A pair grows by one unit at most, so by a third at most (a
 * one-digit index with an empty text: 6 bytes to 8). Counter and Help
 * are merged into one list (a repeated index once), each language once
 * (System32's tables; SysWOW64's copies are not written again). So a
 * language's strings take at most 4/3 of its tables' bytes, and every
 * language's at most 4/3 of RT_DAT_TOTAL_MAX: 1365.4 MiB. The rest of
 * the file, [Perflib], a [PERF_] section a provider (806 bytes with a
 * 255-character name and its five values) and a section header a
 * language (under 64 bytes), comes from the hives; RT_BACKUP_HEAD_ROOM
 * leaves it 170 MiB (over 200,000 providers).
 * A backup that would be larger all the same (a hive of more providers,
 * or tables kept as values in SOFTWARE, up to a hive's 2 GB) is refused
 * by the writer before its bytes past the cap are written: nothing is
 * saved. Restore maps the file and gives its pages back as it decodes
 * them, so the cap bounds time, not memory held at once. */
#define RT_BACKUP_PAIR_GROWTH_NUM 4   /* a pair's backup bytes over its */
#define RT_BACKUP_PAIR_GROWTH_DEN 3   /* table bytes, at most */
#define RT_BACKUP_HEAD_ROOM ((uint64_t)170 << 20)
#define RT_BACKUP_FILE_MAX ((uint64_t)1536 << 20)
_Static_assert(RT_BACKUP_FILE_MAX >=
                   RT_DAT_TOTAL_MAX * RT_BACKUP_PAIR_GROWTH_NUM /
                           RT_BACKUP_PAIR_GROWTH_DEN +
                       RT_BACKUP_HEAD_ROOM,
               "a backup of tables within RT_DAT_TOTAL_MAX must fit under "
               "RT_BACKUP_FILE_MAX");
/* A .reg file (reg: stores, restore FILE.reg): read whole. regtool backup
 * --format reg writes each table byte as hex, about 6.5 bytes of UTF-16
 * text a byte, and refuses a file over this cap (the PerfStringBackup
 * format holds any tree within the caps). */
#define RT_REG_FILE_MAX ((uint64_t)256 << 20)
/* A provider's INI and its symbol file, read whole: as given to install
 * and as a tree's INF copy holds them (far smaller in practice: the
 * largest real INIs are tens of KB). */
#define RT_PROVIDER_FILE_MAX ((uint64_t)16 << 20)
/* The INF copies rebuild reads in all (each language folder's INI and
 * symbol file, a provider at a time): a real tree's are a few megabytes;
 * thousands of sparse copies at the cap above would have it read
 * gigabytes of zeros. */
#define RT_INF_TOTAL_MAX ((uint64_t)256 << 20)
/* The key names a .reg file's key path may hold after its root key: the
 * hive's own key, then the 512 levels Windows allows below it. The trees
 * built from a file are walked (copied, written, freed) recursively, and
 * each level of a key being written holds its whole path: a deeper path
 * (a 400 KB line of 200,000 levels) overflowed the stack of every
 * writer, and the paths of one chain take memory quadratic in its depth. */
#define RT_REG_MAX_KEY_NAMES 513u

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

/* The cap on a file of a Windows folder read whole as a side file
 * (rebuild's sources, a file an uninstall keeps or removes): a .dat
 * table's for REL ending in .dat, a provider file's for REL in INF/ (an
 * INF copy's INI or symbol file, which the provider's reader refuses
 * beyond it anyway), a PerfStringBackup file's for the rest; and
 * what rt_size_cap_error calls it. A sparse file of gigabytes costs
 * nothing on disk and was read whole. */
static inline int rt_win_file_is_table(const char *rel)
{
    size_t n = 0;
    while (rel[n])
        n++;
    return n >= 4 && rel[n - 4] == '.' && (rel[n - 3] | 0x20) == 'd' &&
           (rel[n - 2] | 0x20) == 'a' && (rel[n - 1] | 0x20) == 't';
}

/* REL in the INF folder: a provider's INF copy. */
static inline int rt_win_file_is_inf(const char *rel)
{
    return (rel[0] | 0x20) == 'i' && (rel[1] | 0x20) == 'n' &&
           (rel[2] | 0x20) == 'f' && rel[3] == '/';
}

static inline uint64_t rt_win_file_max(const char *rel)
{
    return rt_win_file_is_table(rel) ? RT_DAT_TABLE_MAX
           : rt_win_file_is_inf(rel) ? RT_PROVIDER_FILE_MAX
                                     : RT_BACKUP_FILE_MAX;
}

static inline const char *rt_win_file_kind(const char *rel)
{
    return rt_win_file_is_table(rel) ? "a .dat table"
           : rt_win_file_is_inf(rel) ? "an INF copy's file"
                                     : "a side file";
}

#endif
