/* A change set: everything an install, uninstall or repair will write,
 * computed by the engine (pure) and applied by a store all at once.
 * It names what changes in registry terms (a language's table, a Perflib
 * value, a service's Performance value); where the bytes go is the
 * store's business. */
#ifndef RT_CHANGE_SET_H
#define RT_CHANGE_SET_H

#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"
#include "model/reg_types.h"


struct rt_value {
    uint32_t type;
    uint8_t *data;
    size_t len;
};

void rt_value_free(struct rt_value *v);
/* A REG_DWORD's number; -1 when V is not a 4-byte DWORD. */
int rt_value_dword(const struct rt_value *v, uint32_t *out);
/* A REG_SZ/REG_EXPAND_SZ as UTF-8 in a new string (NULL on bad data). */
char *rt_value_string(const struct rt_value *v);
/* The same, telling out of memory (-1) from bad data or another type (0
 * with *OUT NULL): where a string taken for absent would be a wrong
 * answer. */
int rt_value_to_string(const struct rt_value *v, char **out);
/* Builds values; return 0 or -1 when out of memory / invalid UTF-8. */
int rt_value_from_dword(struct rt_value *v, uint32_t x);
int rt_value_from_string(struct rt_value *v, uint32_t type, const char *utf8);
int rt_value_copy(struct rt_value *dst, const struct rt_value *src);
int rt_value_equal(const struct rt_value *a, const struct rt_value *b);

enum rt_table_kind { RT_TABLE_COUNTER = 0, RT_TABLE_HELP = 1 };

/* One byte range of a stored table replaced: CUT bytes at AT give way to
 * INS_LEN bytes of the change's VALUE, taken from offset INS. */
struct rt_table_edit {
    size_t at, cut;
    size_t ins, ins_len;
};

enum rt_change_op {
    RT_CHANGE_CREATE_LANGUAGE,  /* lang: create Perflib\LANG */
    RT_CHANGE_SET_TABLE,        /* lang, table, value (REG_MULTI_SZ blob) */
    RT_CHANGE_SET_PERFLIB,      /* name, value: a Perflib value */
    RT_CHANGE_CREATE_PERF_KEY,  /* service: Services\SVC\Performance */
    RT_CHANGE_SET_SERVICE,      /* service, name, value in Performance */
    RT_CHANGE_DELETE_SERVICE,   /* service, name: delete from Performance */
    /* Files under the Windows directory that go with the database (the
     * INF copy of a provider's INI, System32\PerfStringBackup.INI), for
     * stores that have one (store.h, read_win_file): NAME is the path
     * relative to it, '/' between components ("INF/Xfer/0009/x.ini"). */
    RT_CHANGE_WRITE_FILE,       /* name, value (REG_BINARY): the whole file */
    RT_CHANGE_DELETE_FILE,      /* name: removed, with the folders that
                                   leaves empty below its top folder */
};

struct rt_change {
    enum rt_change_op op;
    char *lang;
    enum rt_table_kind table;
    char *service;
    char *name;
    struct rt_value value;
    /* For RT_CHANGE_SET_TABLE: the pairs added and removed, for display
     * (--dry-run) and for verifying after commit. */
    struct rt_pair_list added, removed;
    /* A whole table replaced (restore, repair): the table the change was
     * computed from, as stored (present, byte length, rt_blob_hash), which
     * the store must still hold when the change is applied; ADDED and
     * REMOVED are then for display only. */
    int replace;
    int before_present;
    size_t before_len;
    uint64_t before_hash;
    /* A table spliced (install, uninstall): N_EDITS > 0 edits, ascending
     * and disjoint, of the table as stored (BEFORE_PRESENT, BEFORE_LEN);
     * VALUE then holds only the bytes they insert, so a change costs what
     * it changes, not the table's size. rt_change_splice makes the whole
     * new table for whoever needs it. */
    struct rt_table_edit *edits;
    size_t n_edits;
};

struct rt_change_set {
    struct rt_change *v;
    size_t n, cap;
};

/* Each adder copies its arguments; returns 0 or -1 when out of memory. */
int rt_change_set_create_language(struct rt_change_set *cs, const char *lang);
int rt_change_set_table(struct rt_change_set *cs, const char *lang,
                        enum rt_table_kind table, const uint8_t *blob,
                        size_t len, const struct rt_pair_list *added,
                        const struct rt_pair_list *removed);
/* The same, taking BLOB (malloc'd; freed on failure too) and moving the
 * lists into the change (they are left empty): no copy of a table. */
int rt_change_set_table_take(struct rt_change_set *cs, const char *lang,
                             enum rt_table_kind table, uint8_t *blob,
                             size_t len, struct rt_pair_list *added,
                             struct rt_pair_list *removed);
/* A whole-table replacement of the table stored as BEFORE (LEN bytes,
 * PRESENT 0 when there is none). */
int rt_change_set_table_replace(struct rt_change_set *cs, const char *lang,
                                enum rt_table_kind table, const uint8_t *blob,
                                size_t len, int before_present,
                                size_t before_len, uint64_t before_hash,
                                const struct rt_pair_list *added,
                                const struct rt_pair_list *removed);
/* A splice of the table stored as BEFORE (PRESENT, LEN bytes): takes
 * EDITS (N of them, malloc'd) and INS (INS_LEN bytes, malloc'd; both
 * freed on failure too) and moves the lists in, as _take does. */
int rt_change_set_table_splice(struct rt_change_set *cs, const char *lang,
                               enum rt_table_kind table, int before_present,
                               size_t before_len, struct rt_table_edit *edits,
                               size_t n, uint8_t *ins, size_t ins_len,
                               struct rt_pair_list *added,
                               struct rt_pair_list *removed);
/* The new table's length in bytes (a splice's or a whole value's). */
size_t rt_change_table_len(const struct rt_change *c);
/* Whether C's edits lie within a table of LEN bytes (C's BEFORE_LEN),
 * ascending and disjoint, taking their bytes from within VALUE. */
int rt_change_edits_fit(const struct rt_change *c, size_t len);
/* The whole new table of splice C applied to BEFORE (LEN bytes), in a new
 * buffer. Returns 0, 1 when BEFORE is not the table C was computed from
 * (its length differs), -1 when out of memory. */
int rt_change_splice(const struct rt_change *c, const uint8_t *before,
                     size_t len, uint8_t **out, size_t *out_len);
/* The same, of the new table's bytes from FROM on only. */
int rt_change_splice_from(const struct rt_change *c, const uint8_t *before,
                          size_t len, size_t from, uint8_t **out,
                          size_t *out_len);
/* Turns splice C into a whole-table change (VALUE the new table, no
 * edits), from BEFORE; same returns. A whole-table change is left as it
 * is (0). */
int rt_change_materialize(struct rt_change *c, const uint8_t *before,
                          size_t len);
/* Whether GOT (GOT_LEN bytes) is exactly splice C applied to BEFORE,
 * compared range by range, nothing built. _from: whether GOT is the bytes
 * from FROM on of a table TOTAL bytes long that is, BEFORE holding the
 * table of LEN bytes from byte ORIGIN on (not equal when a byte below
 * ORIGIN would be needed). */
int rt_change_splice_equal(const struct rt_change *c, const uint8_t *before,
                           size_t len, const uint8_t *got, size_t got_len);
int rt_change_splice_equal_from(const struct rt_change *c,
                                const uint8_t *before, size_t origin,
                                size_t len, size_t from, const uint8_t *got,
                                size_t got_len, size_t total);

/* The strings table change C loses: of its removed pairs at an index,
 * those beyond the number of pairs it adds at that index (a text
 * replaced is not lost; an index left without a text is), the later
 * ones in the table's order. Appended to LOST (copies) when not NULL.
 * Returns how many, or (size_t)-1 when out of memory. O(n log n). */
size_t rt_change_lost(const struct rt_change *c, struct rt_pair_list *lost);
/* The same as marks, no copies: *IS_LOST is a new array of one flag for
 * each of C->removed's pairs, set for those lost (NULL when none is
 * removed, or out of memory). A table of millions of tiny pairs is
 * listed in a byte a pair, not a copy of each. */
size_t rt_change_lost_marks(const struct rt_change *c,
                            unsigned char **is_lost);

/* A 64-bit fingerprint of a blob (FNV-1a): equal bytes, equal hash. */
uint64_t rt_blob_hash(const uint8_t *data, size_t len);
int rt_change_set_perflib(struct rt_change_set *cs, const char *name,
                          const struct rt_value *v);
int rt_change_set_create_perf_key(struct rt_change_set *cs,
                                  const char *service);
int rt_change_set_service(struct rt_change_set *cs, const char *service,
                          const char *name, const struct rt_value *v);
int rt_change_set_delete_service(struct rt_change_set *cs,
                                 const char *service, const char *name);

/* A side file's whole new content, or its removal (REL as above). */
/* The same, taking DATA (malloc'd; freed on failure too): a file as big
 * as PerfStringBackup.INI of thousands of languages is not held twice. */
int rt_change_set_write_file_take(struct rt_change_set *cs, const char *rel,
                                  uint8_t *data, size_t len);
int rt_change_set_write_file(struct rt_change_set *cs, const char *rel,
                             const uint8_t *data, size_t len);
int rt_change_set_delete_file(struct rt_change_set *cs, const char *rel);

/* Shorthands: a Perflib DWORD (SVC NULL) or a service's DWORD, and a
 * service's REG_SZ / REG_EXPAND_SZ from UTF-8. */
int rt_change_set_dword(struct rt_change_set *cs, const char *svc,
                        const char *name, uint32_t x);
int rt_change_set_string(struct rt_change_set *cs, const char *svc,
                         const char *name, uint32_t type, const char *utf8);

void rt_change_set_free(struct rt_change_set *cs);

#endif
