/* Hive-file layer: reads and writes Windows registry hive files (regf).
 *
 * Why not libhivex (Debian 1.3.23): it refuses cells over 1,000,000 bytes
 * (a real Help value cannot be written), hivex_node_set_value re-allocates
 * every value of the key, freed cells are never reused, values over 16344
 * bytes are written as single cells (which Windows rejects) and
 * transaction logs are ignored. This layer reads every cell with bounds
 * checks, reuses and coalesces free cells, writes big data the way Windows
 * does and tracks which 4 KB pages it changed, so a commit layer can write
 * only those through its journal.
 *
 * Keys and values are referred to by their cell offsets (relative to the
 * first hive bin, as stored in the hive). Names are UTF-8; paths use '\'
 * and are compared case-insensitively the way Windows compares key names.
 * Functions returning int give 0 or a negative RT_REGF_E* code; the text
 * of the last error (naming the file offset and what is wrong) is
 * rt_regf_errmsg(). */
#ifndef RT_REGF_H
#define RT_REGF_H

#include <stddef.h>
#include <stdint.h>

struct rt_regf;

#define RT_REGF_NONE 0xFFFFFFFFu      /* "no cell" */
#define RT_REGF_SEGMENT_MAX 16344u    /* largest big-data segment */

enum {
    RT_REGF_EIO = -1,         /* reading or writing a file failed */
    RT_REGF_ECORRUPT = -2,    /* the hive is structurally broken */
    RT_REGF_ENOMEM = -3,
    RT_REGF_ENOTFOUND = -4,   /* no such key or value */
    RT_REGF_EINVAL = -5,      /* bad argument (name, type, key reference) */
    RT_REGF_EEXIST = -6,      /* key already exists */
    RT_REGF_ENOTEMPTY = -7,   /* key has subkeys and no RT_REGF_RECURSIVE */
    RT_REGF_EREADONLY = -8,   /* handle not opened for writing */
    RT_REGF_ETOOBIG = -9,     /* beyond what the format can hold */
};

/* Open flags. A dirty hive (bad checksum or sequence numbers differing)
 * opens read-only; RT_REGF_WRITE on it needs RT_REGF_FORCE too, because
 * writing it would discard whatever its transaction logs hold. */
#define RT_REGF_WRITE 0x1u
#define RT_REGF_FORCE 0x2u
/* The caller reads each big value once, copying it (a restore, a backup,
 * an audit): a view's walk at open gives back every page it passes, the
 * name tables' too, rather than keeping those for the reads to come. */
#define RT_REGF_READ_ONCE 0x4u

/* Opens a hive file (read entirely into memory). On failure *OUT is NULL
 * and ERR (if not NULL) holds the reason. */
int rt_regf_open(const char *path, unsigned flags, struct rt_regf **out,
                 char *err, size_t errsize);
/* Same from a memory image (copied), e.g. one recovered from logs. */
int rt_regf_open_memory(const void *buf, size_t len, unsigned flags,
                        struct rt_regf **out, char *err, size_t errsize);
/* New empty hive, writable: base block, one 4 KB bin, a root key named
 * ROOT_NAME (NULL: "ROOT") with a security cell. MINOR is 3..6, 0 for
 * the default 5. */
int rt_regf_create(unsigned minor, const char *root_name, struct rt_regf **out,
                   char *err, size_t errsize);
void rt_regf_close(struct rt_regf *h);
const char *rt_regf_errmsg(const struct rt_regf *h);

struct rt_regf_info {
    unsigned major, minor;
    uint32_t seq1, seq2;      /* primary, secondary sequence numbers */
    uint64_t timestamp;       /* FILETIME in the base block */
    uint32_t hbins_size;
    uint64_t file_size;       /* size of the file or buffer opened */
    int dirty;                /* as opened: checksum wrong or seq1 != seq2 */
    int checksum_ok;
    uint32_t root;
};
void rt_regf_get_info(const struct rt_regf *h, struct rt_regf_info *info);

/* --- Keys ------------------------------------------------------------ */

#define RT_REGF_KEY_PREDEF_HANDLE 0x0040u
/* A symbolic link key (KEY_SYM_LINK): Windows opens the key its value
 * SymbolicLinkValue (REG_LINK) names in its place. regtool never follows
 * one; it reports it (hive check, audit) and refuses to write beside it. */
#define RT_REGF_KEY_SYM_LINK 0x0010u

uint32_t rt_regf_root(const struct rt_regf *h);

/* Finds PATH ('\'-separated, case-insensitive, "" is FROM itself) below
 * FROM. RT_REGF_ENOTFOUND when a component is missing. */
int rt_regf_lookup(struct rt_regf *h, uint32_t from, const char *path,
                   uint32_t *key);

struct rt_regf_key_info {
    char *name;               /* UTF-8, malloc'd */
    uint16_t flags;           /* key-node flags (KEY_COMP_NAME, ...) */
    uint64_t mtime;           /* FILETIME */
    uint32_t parent;
    uint32_t n_subkeys;
    uint32_t n_values;        /* 0 for a predefined-handle key */
    int predefined;           /* KEY_PREDEF_HANDLE set */
    uint32_t predef_handle;   /* e.g. 0x80000050 HKEY_PERFORMANCE_TEXT */
    uint32_t security;        /* sk cell */
    uint32_t class_len;       /* bytes */
};
int rt_regf_key_info(struct rt_regf *h, uint32_t key,
                     struct rt_regf_key_info *info);
void rt_regf_key_info_free(struct rt_regf_key_info *info);
/* KEY's link target (a key with RT_REGF_KEY_SYM_LINK): its value
 * SymbolicLinkValue as UTF-8 text in *TARGET (malloc'd), or NULL when
 * that value is missing, empty or no UTF-16 text. 0, or an RT_REGF_E*
 * code when the key or value does not read. */
int rt_regf_key_link_target(struct rt_regf *h, uint32_t key, char **target);
/* KEY's path below the root ('\'-separated, "" for the root), from its
 * parent fields, in *PATH (malloc'd). 0, or an RT_REGF_E* code (a parent
 * chain that does not reach the root within 512 levels is corrupt). */
int rt_regf_key_path(struct rt_regf *h, uint32_t key, char **path);
/* Class name (UTF-8, malloc'd; NULL when the key has none). */
int rt_regf_key_class(struct rt_regf *h, uint32_t key, char **cls);

/* Subkeys in stored (sorted) order, as a malloc'd array. */
int rt_regf_subkeys(struct rt_regf *h, uint32_t key, uint32_t **keys,
                    size_t *n);
/* Whether Windows' look-up finds CHILD in PARENT's subkey list: the list
 * holds, beside its entry, the hash (lh) or hint (lf) of CHILD's name,
 * which the look-up compares before the name (an li list holds none),
 * and the list is in Windows' upper-case order, which it searches by.
 * *HINTED 0 when not (Windows passes the entry over) or when CHILD is
 * not listed. */
int rt_regf_subkey_hinted(struct rt_regf *h, uint32_t parent, uint32_t child,
                          int *hinted);

/* Visits KEY and every key below it, parents before children, in stored
 * order. A key reached twice (a cycle) is an error. FN returning non-zero
 * stops the walk and is returned. */
int rt_regf_walk(struct rt_regf *h, uint32_t key,
                 int (*fn)(void *ctx, uint32_t key, unsigned depth),
                 void *ctx);

/* --- Values ---------------------------------------------------------- */

#include "model/reg_types.h"

/* Value cells of KEY in stored order (empty for a predefined handle). */
int rt_regf_values(struct rt_regf *h, uint32_t key, uint32_t **values,
                   size_t *n);
/* Finds a value by name (case-insensitive; "" is the default value). */
int rt_regf_value_find(struct rt_regf *h, uint32_t key, const char *name,
                       uint32_t *value);
/* How many of KEY's values bear NAME, compared as rt_regf_value_find
 * does, or up to a NUL in their name (a reader taking names as C strings
 * reads "windir<NUL>x" as windir): more than one where a hive holds names
 * that differ only in letter case or past a NUL (Windows makes none;
 * which one a reader takes is its own). */
int rt_regf_value_count(struct rt_regf *h, uint32_t key, const char *name,
                        size_t *count);
int rt_regf_value_name(struct rt_regf *h, uint32_t value, char **name);
/* Type and data (malloc'd, NULL when LEN is 0), big data reassembled. */
int rt_regf_value_read(struct rt_regf *h, uint32_t value, uint32_t *type,
                       uint8_t **data, size_t *len);
/* VALUE's data where it lies in the hive image, without a copy: *N
 * pieces (one, or each big-data segment) of (*LEN)[i] bytes at
 * (*PIECE)[i], *TOTAL bytes in all; the arrays are malloc'd, the bytes
 * valid until the hive is next changed. */
int rt_regf_value_pieces(struct rt_regf *h, uint32_t value, uint32_t *type,
                         const uint8_t ***piece, size_t **len, size_t *n,
                         size_t *total);
/* The same, but the pieces that hold only bytes before FROM are NULL,
 * their segments neither read nor checked (a read of a value's end). */
int rt_regf_value_pieces_from(struct rt_regf *h, uint32_t value, size_t from,
                              uint32_t *type, const uint8_t ***piece,
                              size_t **len, size_t *n, size_t *total);
/* Gives back the memory that VALUE's data cells hold in a hive opened
 * as a view of its file, where the image has not changed them: for data
 * read out whole (rt_regf_value_read) and not needed in the hive any
 * more, so that it is not held twice. Reading it again reads the file
 * again; nothing changes. */
int rt_regf_value_release(struct rt_regf *h, uint32_t value);
/* rt_regf_value_find + rt_regf_value_read. */
int rt_regf_get_value(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t *type, uint8_t **data, size_t *len);

/* --- Writing (handle opened with RT_REGF_WRITE or created) ----------- */

/* Creates subkey NAME of PARENT; RT_REGF_EEXIST with *KEY set when it
 * exists. The new key shares its parent's security cell. */
int rt_regf_key_create(struct rt_regf *h, uint32_t parent, const char *name,
                       uint32_t *key);
/* Opens PATH below FROM, creating missing keys. */
int rt_regf_key_create_path(struct rt_regf *h, uint32_t from,
                            const char *path, uint32_t *key);

/* Makes KEY (which has no values) a predefined-handle key: flag
 * KEY_PREDEF_HANDLE, HANDLE stored where the value count would be, as
 * Vista and later keep Perflib\009 (HKEY_PERFORMANCE_TEXT 0x80000050) and
 * Perflib\CurrentLanguage (HKEY_PERFORMANCE_NLSTEXT 0x80000060). */
int rt_regf_key_set_predefined(struct rt_regf *h, uint32_t key,
                               uint32_t handle);

#define RT_REGF_RECURSIVE 0x1u
/* Deletes KEY (never the root). Without RT_REGF_RECURSIVE a key with
 * subkeys is refused (RT_REGF_ENOTEMPTY); its values go with it. */
int rt_regf_key_delete(struct rt_regf *h, uint32_t key, unsigned flags);

/* Creates or replaces value NAME of KEY. Data over 16344 bytes goes to
 * big data in hives of minor version 4 and later. Unchanged full
 * segments of a big value are kept in place. */
int rt_regf_value_set(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t type, const void *data, size_t len);
int rt_regf_value_delete(struct rt_regf *h, uint32_t key, const char *name);

/* One byte range of a value's data replaced: CUT bytes at AT give way to
 * INS_LEN bytes from INS. */
struct rt_regf_edit {
    size_t at, cut;
    const uint8_t *ins;
    size_t ins_len;
};
/* Makes N EDITS (ascending, disjoint) to the data of value NAME of KEY,
 * which must be OLD_LEN bytes long (else RT_REGF_EINVAL, nothing
 * changed; no value is 0 bytes long), and sets its type. Of a big value,
 * the segments before the first edit are neither read nor written: the
 * work follows the edits, not the value's size. */
int rt_regf_value_splice(struct rt_regf *h, uint32_t key, const char *name,
                         uint32_t type, size_t old_len,
                         const struct rt_regf_edit *edits, size_t n);

/* --- Saving ---------------------------------------------------------- */

/* Makes the base block describe the image for writing: both sequence
 * numbers one past the highest, timestamp now, hive-bins size, checksum.
 * Marks the base block page changed. */
int rt_regf_seal(struct rt_regf *h);
/* The current image (base block + hive bins); valid until the next
 * modifying call. */
void rt_regf_image(const struct rt_regf *h, const uint8_t **data,
                   size_t *len);
/* Seals, then writes the whole image to PATH (created or truncated) and
 * fsyncs it. */
int rt_regf_save_as(struct rt_regf *h, const char *path);

/* Calls FN for each 4 KB page of the image changed since opening (or the
 * last rt_regf_changes_clear), in ascending order: its file offset and
 * length (4096). FN returning non-zero stops and is returned. */
int rt_regf_changed_pages(const struct rt_regf *h,
                          int (*fn)(void *ctx, uint64_t offset, size_t len),
                          void *ctx);
size_t rt_regf_changed_count(const struct rt_regf *h);
void rt_regf_changes_clear(struct rt_regf *h);

/* --- Structural check ------------------------------------------------ */

enum rt_regf_severity { RT_REGF_WARNING = 0, RT_REGF_ERROR = 1 };

/* Walks the whole hive and reports each finding (FILE offset it is about
 * and message). Returns the number of errors found (>= 0), or
 * RT_REGF_ENOMEM when memory ran out: the check is then incomplete (what
 * was reported stands; nothing was made of what was not seen). */
int rt_regf_check(struct rt_regf *h,
                  void (*fn)(void *ctx, enum rt_regf_severity sev,
                             uint64_t offset, const char *message),
                  void *ctx);

#endif
