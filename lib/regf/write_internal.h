/* Hive-file layer, internal: what the files that modify a hive share
 * (write_key.c: names, key nodes, keys created and deleted;
 * write_subkeys.c: subkey lists; write_value.c: values). Every cell
 * comes from the allocator in cell.c; pointers into the image are
 * re-read after each allocation because appending a bin may move the
 * image. */
#ifndef REGF_WRITE_INTERNAL_H
#define REGF_WRITE_INTERNAL_H

#include "regf/regf_internal.h"

/* A key or value name as a record stores it. */
struct name {
    uint16_t *units;    /* as given */
    uint16_t *up;       /* upper-cased, for comparisons and lh hashes */
    size_t n;
    int comp;           /* every unit < 256: stored one byte each */
    size_t stored;      /* bytes in the record */
};

/* A subkey list's entries, loaded from its leaves. */
struct ents {
    uint32_t *off, *hint;
    size_t n;
    char kind;          /* 'i' li, 'f' lf, 'h' lh, 'r' ri */
};

/* Frees what regf_name_prepare allocated in NM. */
void regf_name_free(struct name *nm);

/* NM for name S (UTF-8) of a key (IS_KEY) or a value: checked, in UTF-16
 * and upper-cased, with the bytes its record takes. 0, or the error
 * regf_fail set on H. */
int regf_name_prepare(struct rt_regf *h, const char *s, int is_key,
                      struct name *nm);

/* Writes NM as its record stores it (one byte a unit when compressed,
 * else UTF-16LE) at DST. */
void regf_name_store(const struct name *nm, uint8_t *dst);

/* Sets KEY's last-written time to now. */
void regf_touch_mtime(struct rt_regf *h, uint32_t key);

/* Frees E's arrays. */
void regf_ents_free(struct ents *e);

/* Loads the entries of the subkey list at CELL (every leaf of an ri)
 * into E. */
int regf_ents_load(struct rt_regf *h, uint32_t cell, struct ents *e);

/* Links CHILD, named NM, into PARENT's subkey list at its sorted place. */
int regf_sublist_insert(struct rt_regf *h, uint32_t parent, uint32_t child,
                        const struct name *nm);

/* Unlinks CHILD from PARENT's subkey list. */
int regf_sublist_remove(struct rt_regf *h, uint32_t parent, uint32_t child);

/* Largest subkey name (UTF-16 bytes) and class name of PARENT's
 * subkeys, recomputed. The upper 16 bits of the name field are flags. */
int regf_subkey_stats(struct rt_regf *h, uint32_t parent);

/* Callbacks of regf_value_data_cells: frees each cell (CTX the hive),
 * or does nothing (counting or checking only). */
void regf_free_cb(void *ctx, uint32_t cell);

void regf_nop_cb(void *ctx, uint32_t cell);

#endif
