/* Hive-file layer, internal: the handle, record layouts and the helpers
 * shared by handle.c, cell.c, node.c, value.c, write_key.c,
 * write_subkeys.c, write_value.c, security.c and check.c. Offsets named
 * "off" are relative to the first hive bin (as stored in cells); file
 * offsets are off + 4096. */
#ifndef REGF_INTERNAL_H
#define REGF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "platform/os.h"
#include "regf/base_block.h"
#include "regf/regf.h"

#define REGF_HBIN_HEADER 32u
#define REGF_PAGE 4096u
/* Windows grows a hive file in steps of a few hundred KB, so real files
 * run past their bins by that much (442,368 bytes in the samples). A
 * file running more than this past the bins its base block covers is no
 * file Windows wrote: only the bins are read (the hive store's rule too). */
#define REGF_SLACK_MAX (16u << 20)

/* Key node (nk) field offsets within the cell data. */
#define NK_SIG 0
#define NK_FLAGS 2
#define NK_MTIME 4
#define NK_ACCESS 12
#define NK_PARENT 16
#define NK_NSUB 20
#define NK_NSUB_VOL 24
#define NK_SUBLIST 28
#define NK_SUBLIST_VOL 32
#define NK_NVAL 36
#define NK_VALLIST 40
#define NK_SECURITY 44
#define NK_CLASS 48
#define NK_MAX_SUBNAME 52   /* low 16 bits; the rest are flag fields */
#define NK_MAX_CLASS 56
#define NK_MAX_VALNAME 60
#define NK_MAX_VALDATA 64
#define NK_WORKVAR 68
#define NK_NAMELEN 72
#define NK_CLASSLEN 74
#define NK_NAME 76

#define KEY_HIVE_ENTRY 0x0004u
#define KEY_NO_DELETE 0x0008u
#define KEY_COMP_NAME 0x0020u
#define KEY_PREDEF_HANDLE 0x0040u

/* Key value (vk). */
#define VK_SIG 0
#define VK_NAMELEN 2
#define VK_DATALEN 4
#define VK_DATA 8
#define VK_TYPE 12
#define VK_FLAGS 16
#define VK_SPARE 18
#define VK_NAME 20
#define VALUE_COMP_NAME 0x0001u
#define VK_DATA_INLINE 0x80000000u

/* Security (sk). */
#define SK_FLINK 4
#define SK_BLINK 8
#define SK_REFS 12
#define SK_DESCLEN 16
#define SK_DESC 20

/* Limits that keep a corrupt hive from making us loop or allocate without
 * end: the format's own 16-bit counts bound lists; these bound the rest. */
#define REGF_MAX_DEPTH 512u      /* Windows allows 512 levels of keys */
#define REGF_LEAF_MAX 256u       /* entries per subkey leaf we write */

struct regf_bin {
    uint32_t off, size;
};

struct regf_free {
    uint32_t size, off;          /* sorted by size, then offset */
};

/* cell_map.c: what an index keeps for a key, by the key's cell. Every
 * entry begins with its key cell (a uint32_t first member); a zeroed map
 * is empty. put replaces (freeing) an entry of the same key. */
struct regf_cell_map {
    void **slot;
    size_t cap, used;
};
void *regf_cell_map_find(const struct regf_cell_map *m, uint32_t key);
/* 0, or -1 out of memory (ENTRY is then not the map's). */
int regf_cell_map_put(struct regf_cell_map *m, void *entry,
                      void (*free_entry)(void *));
void regf_cell_map_drop(struct regf_cell_map *m, uint32_t key,
                        void (*free_entry)(void *));
void regf_cell_map_clear(struct regf_cell_map *m, void (*free_entry)(void *));

struct rt_regf {
    uint8_t *img;                /* base block + hive bins */
    size_t len, cap;
    /* When IMG is a copy-on-write view of the hive file with CAP - LEN
     * bytes of zeros behind it (rt_os_map_cow), rather than malloc'd:
     * MAP.priv is set exactly while IMG is the view (a copy unmaps it). */
    struct rt_os_map map;
    uint64_t file_size;
    unsigned minor;
    int writable;
    int read_once;               /* RT_REGF_READ_ONCE */
    int dirty_at_open, checksum_ok_at_open;
    uint64_t *cellmap;           /* 1 bit per 8 bytes of bins: a cell starts */
    size_t cellmap_words;
    struct regf_bin *bins;
    size_t nbins, bins_cap;
    struct regf_free *free;
    size_t nfree, free_cap;
    uint64_t *changed;           /* 1 bit per 4 KB page of the image */
    size_t changed_words;
    /* Subkey indexes (node.c) and the generation of subkey lists and key
     * names they hold while it is unchanged. */
    struct regf_cell_map subidx;
    uint64_t keys_gen;
    /* Value indexes (validx.c), by key cell. */
    struct regf_cell_map validx;
    /* Who each value list, value, data cell and subkey list cell read
     * belongs to (regf_claim), and the count of reads that claim them;
     * forgotten when a cell is freed (a new one may take its place). */
    struct regf_cell_map claims;
    uint32_t reads;
    char err[256];
    int err_code;                /* of the last failure: RT_REGF_E* */
};

/* value.c: CELL (WHAT, for the message), met in read number READ as a
 * part of OWNER (a key for its value list and values, for its subkey
 * list cells and for a subkey whose parent field names another key; a
 * value for its data cells): refused, RT_REGF_ECORRUPT, when it is
 * another owner's part, or met twice in one read: a few bytes of hive
 * would otherwise stand for any amount of data (six hundred languages
 * whose values all name 009's tables; four thousand services that all
 * name one subkey list of four thousand keys). */
int regf_claim(struct rt_regf *h, uint32_t cell, uint32_t owner,
               uint32_t read, const char *what);
/* Forgets every claim (cell.c, when a cell is freed). */
void regf_claims_forget(struct rt_regf *h);

/* Records an error message (printf-style) and returns CODE. */
int regf_fail(struct rt_regf *h, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline uint8_t *regf_bins(const struct rt_regf *h)
{
    return h->img + REGF_BASE_BLOCK_SIZE;
}
static inline uint32_t regf_hbins_size(const struct rt_regf *h)
{
    return (uint32_t)(h->len - REGF_BASE_BLOCK_SIZE);
}
static inline uint64_t regf_file_off(uint32_t off)
{
    return (uint64_t)off + REGF_BASE_BLOCK_SIZE;
}

/* cell.c: validated access to allocated cells. WHAT names the record for
 * the error message. Gives the cell data and its length (cell size - 4). */
int regf_cell(struct rt_regf *h, uint32_t off, const char *what,
              uint8_t **data, uint32_t *len);
int regf_is_cell_start(const struct rt_regf *h, uint32_t off);
/* Bin containing OFF (NULL if none). */
const struct regf_bin *regf_bin_of(const struct rt_regf *h, uint32_t off);
/* Builds the bin table, the cell map and the free list from the image. */
int regf_index_bins(struct rt_regf *h);

/* Reads the base block and the bins it covers of the hive file PATH (the
 * whole file when it is no hive or shorter than its bins); *FILE_SIZE is
 * the file's size. 0, or -1 with errno set (EFBIG: larger than MAX). */
int regf_read_hive(const char *path, uint64_t max, uint8_t **img,
                   size_t *len, uint64_t *file_size);

/* Allocator. Sizes are cell-data bytes. */
int regf_alloc(struct rt_regf *h, uint32_t datalen, uint32_t *off);
/* Same, from free cells at or after FLOOR (or a new bin). */
int regf_alloc_above(struct rt_regf *h, uint32_t datalen, uint32_t floor,
                     uint32_t *off);
void regf_free_cell(struct rt_regf *h, uint32_t off);
/* Gives back the memory of the view's pages under image bytes [FILEOFF,
 * FILEOFF+LEN) that the image has not changed (rt_os_map_release); no-op
 * when the image is no view. */
void regf_release(struct rt_regf *h, uint64_t fileoff, size_t len);
/* Marks bytes [FILEOFF, FILEOFF+LEN) of the image changed. */
void regf_touch(struct rt_regf *h, uint64_t fileoff, size_t len);
/* Data pointer of an allocated cell we own (after regf_alloc), marked
 * changed over LEN bytes from its start. */
uint8_t *regf_cell_write(struct rt_regf *h, uint32_t off, size_t len);
uint32_t regf_cell_capacity(const struct rt_regf *h, uint32_t off);
/* Copies LEN bytes to image offset FILEOFF, marking changed only the
 * pages whose bytes really differ. */
void regf_write(struct rt_regf *h, uint64_t fileoff, const void *src,
                size_t len);
/* Little-endian store into field FIELD of the data of cell CELL. */
void regf_set16(struct rt_regf *h, uint32_t cell, uint32_t field, uint16_t v);
void regf_set32(struct rt_regf *h, uint32_t cell, uint32_t field, uint32_t v);
void regf_set64(struct rt_regf *h, uint32_t cell, uint32_t field, uint64_t v);
int regf_grow_changed(struct rt_regf *h);

/* node.c */
int regf_nk(struct rt_regf *h, uint32_t key, uint8_t **nk, uint32_t *len);
/* Key name as UTF-16 code units (malloc'd). */
int regf_nk_name16(struct rt_regf *h, uint32_t key, uint16_t **name,
                   size_t *n);
/* Subkey list entries with validation (malloc'd array). */
int regf_subkey_list(struct rt_regf *h, uint32_t key, uint32_t **keys,
                     size_t *n);
/* Compares upper-cased names, Windows order. */
int regf_name_cmp16(const uint16_t *a, size_t an, const uint16_t *b,
                    size_t bn);
/* Compares a stored name (compressed Latin-1 or UTF-16LE bytes) with
 * upper-cased UTF-16 units. */
int regf_stored_name_cmp(const uint8_t *name, size_t len, int compressed,
                         const uint16_t *up, size_t upn);
/* Converts a stored name to UTF-8 (malloc'd). */
int regf_name_to_utf8(struct rt_regf *h, const uint8_t *name, size_t len,
                      int compressed, uint32_t cell, const char *what,
                      char **out);
/* UTF-8 name to upper-cased UTF-16 units (malloc'd). */
int regf_utf8_upcase16(struct rt_regf *h, const char *name, size_t len,
                       uint16_t **out, size_t *n);
uint32_t regf_lh_hash(const uint16_t *up, size_t n);
/* What a fast leaf (LH: a hash leaf) holds beside KEY's entry: its
 * name's hash, or its first four characters. */
int regf_leaf_hint(struct rt_regf *h, int lh, uint32_t key, uint32_t *want);
/* Finds the subkey of KEY named UP (upper-cased); RT_REGF_ENOTFOUND when
 * there is none. A key with many subkeys is searched in its index. */
int regf_find_subkey(struct rt_regf *h, uint32_t key, const uint16_t *up,
                     size_t upn, uint32_t *found);
/* Key deletion bumps h->keys_gen, which retires every index. Key
 * creation, which changes its parent's list only, notes before its change
 * whether the parent's index is current (regf_subidx_prepare) and adds
 * the new key to it after (regf_subidx_added). */
struct regf_subidx_mark {
    int kept;
};
void regf_subidx_prepare(struct rt_regf *h, uint32_t key,
                         struct regf_subidx_mark *mark);
void regf_subidx_added(struct rt_regf *h, uint32_t parent, uint32_t child,
                       const uint16_t *up, size_t upn,
                       const struct regf_subidx_mark *mark);
void regf_subidx_drop_all(struct rt_regf *h);

/* validx.c: a key's value names sorted, for keys with more than
 * REGF_VALIDX_MIN values (a short list is scanned as fast), and the
 * largest name and data of its values. */
#define REGF_VALIDX_MIN 16u
struct regf_validx;
/* KEY's index (*X), built when it has none or the one it has is stale;
 * *X is NULL for a key of REGF_VALIDX_MIN values or fewer. */
int regf_validx_get(struct rt_regf *h, uint32_t key, struct regf_validx **x);
/* KEY's index when its key node's value list and count are still those
 * it describes, else NULL; never builds one. */
struct regf_validx *regf_validx_current(struct rt_regf *h, uint32_t key);
/* The value named UP (upper-cased) in X: its cell and place in the list.
 * RT_REGF_ENOTFOUND when there is none; 1 when the record the index
 * names no longer bears the name (the caller drops it and scans). */
int regf_validx_find(struct rt_regf *h, struct regf_validx *x,
                     const uint16_t *up, size_t upn, uint32_t *value,
                     uint32_t *index);
/* Records VALUE, named UP with DATA_LEN bytes of data, appended to the
 * key's list (whose key node fields are already updated). Non-zero when
 * the index could not follow: the caller drops it. */
int regf_validx_added(struct rt_regf *h, struct regf_validx *x,
                      uint32_t value, const uint16_t *up, size_t upn,
                      uint32_t data_len);
/* Records a value's data going from OLD_LEN to NEW_LEN bytes. Non-zero:
 * drop the index. */
int regf_validx_resized(struct regf_validx *x, uint32_t old_len,
                        uint32_t new_len);
/* The key's largest value name (UTF-16 bytes) and data, as its key node
 * keeps them. */
void regf_validx_largest(struct regf_validx *x, uint32_t *name_bytes,
                         uint32_t *data_bytes);
void regf_validx_drop(struct rt_regf *h, uint32_t key);
void regf_validx_drop_all(struct rt_regf *h);
/* value.c: the scan regf_find_value makes for short lists. */
int regf_find_value_scan(struct rt_regf *h, uint32_t key, const uint16_t *up,
                         size_t upn, uint32_t *value, uint32_t *index);

/* write_key.c: a new key node (not yet linked into a subkey list). */
int regf_nk_new(struct rt_regf *h, uint32_t parent, const char *name,
                uint16_t flags, uint32_t sk, uint32_t *off);

/* value.c */
int regf_value_list(struct rt_regf *h, uint32_t key, uint32_t **values,
                    size_t *n);
int regf_vk(struct rt_regf *h, uint32_t value, uint8_t **vk, uint32_t *len);
int regf_find_value(struct rt_regf *h, uint32_t key, const uint16_t *up,
                    size_t upn, uint32_t *value, uint32_t *index);
/* Data cells of a value: calls FN for each cell it owns (data, db,
 * segment list, segments). */
int regf_value_data_cells(struct rt_regf *h, uint32_t value,
                          void (*fn)(void *ctx, uint32_t cell), void *ctx);
int regf_is_big_data(struct rt_regf *h, uint32_t datalen, uint32_t dataoff);
/* N bytes of VALUE's data from byte FROM in a new buffer (*OUT; NULL
 * when N is 0), read from the cells that hold them only. */
int regf_value_read_range(struct rt_regf *h, uint32_t value, size_t from,
                          size_t n, uint8_t **out);

/* security.c */
int regf_sk_new_default(struct rt_regf *h, uint32_t *off);
int regf_sk_addref(struct rt_regf *h, uint32_t sk);
/* Drops a key's reference to descriptor SK, freeing it with its last
 * (the hive's last descriptor stays). Nothing to report: a descriptor
 * that is damaged (a hostile hive's) is left as it is, and the key that
 * named it goes all the same. */
void regf_sk_release(struct rt_regf *h, uint32_t sk);

/* handle.c */
uint64_t regf_now_filetime(void);
int regf_require_writable(struct rt_regf *h);

#endif
