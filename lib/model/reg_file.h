/* Model layer: .reg files, the registry's interchange format, read and
 * written as regedit and `reg export` do. Pure: bytes in, bytes out.
 *
 * Two dialects: "Windows Registry Editor Version 5.00" (UTF-16LE with a
 * byte-order mark as `reg export` writes it; UTF-8 is read too) and
 * "REGEDIT4" (Windows 95 and NT 4: text in an ANSI code page, as are the
 * bytes of its hex(2) and hex(7) values). In memory every value is what
 * the registry would store: strings as UTF-16LE with their terminator,
 * whatever the file's dialect, so a value read from a REGEDIT4 export and
 * one read from a hive compare equal.
 *
 * A file is kept as written: its keys in order (a key may appear twice),
 * each with its values in order, deletions ([-KEY], "name"=-) as entries.
 * What a file regtool wrote reads back into the same entries, and those
 * write the same bytes. */
#ifndef RT_REG_FILE_H
#define RT_REG_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "model/change_set.h"
#include "model/regtree.h"
#include "model/strbuf.h"

enum rt_reg_format {
    RT_REG_V5_UTF16,     /* Version 5.00, UTF-16LE with BOM: reg export */
    RT_REG_V5_UTF8,      /* Version 5.00 in UTF-8 without a BOM */
    RT_REG_V5_UTF8_BOM,  /* Version 5.00 in UTF-8 with a BOM */
    RT_REG_V4,           /* REGEDIT4, an ANSI code page */
};

struct rt_reg_value {
    char *name;          /* UTF-8; "" is the default value, written @ */
    struct rt_value v;   /* as the registry stores it (nothing if DEL) */
    int del;             /* "name"=- : delete the value */
    unsigned line;       /* where it was read (0 when built) */
};

struct rt_reg_key {
    char *path;          /* "HKEY_LOCAL_MACHINE\SOFTWARE\...", UTF-8 */
    int del;             /* [-PATH]: delete the key and its subkeys */
    struct rt_reg_value *vals;
    size_t n_vals;
    unsigned line;
};

struct rt_reg_file {
    enum rt_reg_format format;
    struct rt_reg_key *keys;
    size_t n_keys;
    /* The values' names and data are another's (rt_reg_from_tree: the
     * tree's), never freed here; keys and their arrays are this file's. */
    int borrowed;
};

struct rt_reg_error {
    unsigned line;       /* 1-based line of the file; 0 when none */
    int nomem;           /* out of memory rather than bad input */
    /* A write that would pass its cap (rt_reg_writer's MAX): the size
     * the file would have at least, in bytes. 0 otherwise. */
    uint64_t too_large;
    char message[256];
};

/* The code page of REGEDIT4 text when none is given: Western Europe's,
 * which English Windows 95 used. */
#define RT_REG_DEFAULT_CODEPAGE "1252"

/* Reads LEN bytes of a .reg file into F (zeroed first). CODEPAGE is the
 * ANSI code page of a REGEDIT4 file (NULL: RT_REG_DEFAULT_CODEPAGE).
 * Returns 0, or -1 with E set (line and message) and F empty. */
int rt_reg_parse(const uint8_t *data, size_t len, const char *codepage,
                 struct rt_reg_file *f, struct rt_reg_error *e);
/* Who takes a file's keys and values as they are read (rt_reg_parse_to),
 * so that a file of millions of tiny values is never held whole beside
 * what is made of it: KEY is told of F->keys[K] as it is added (F keeps
 * the keys, with no values), VALUE takes each value of it (NAME and V,
 * freed by it on failure; DEL for "name"=-). Each returns 0, or -1 out
 * of memory, which stops the read. */
struct rt_reg_sink {
    int (*key)(void *ctx, const struct rt_reg_file *f, size_t k);
    int (*value)(void *ctx, const struct rt_reg_file *f, size_t k,
                 char *name, int del, struct rt_value *v, unsigned line);
    void *ctx;
};
/* rt_reg_parse, each value given to SINK (NULL: kept in F) as it is read. */
int rt_reg_parse_to(const uint8_t *data, size_t len, const char *codepage,
                    struct rt_reg_file *f, const struct rt_reg_sink *sink,
                    struct rt_reg_error *e);

/* Writes F in its format as regedit does: CR LF line ends, a blank line
 * after each key, hex data wrapped at 80 columns with a backslash and a
 * two-space indent. A REG_SZ is written as a quoted string when it is one
 * (terminated, no NUL inside, no line break, and for REGEDIT4 text the
 * code page holds), else as hex(1); a REG_DWORD of 4 bytes as dword:.
 * Returns 0 with a new buffer, or -1 with E set: out of memory, a key
 * path or name that cannot be written, REGEDIT4 text its code page
 * cannot hold. */
int rt_reg_write(const struct rt_reg_file *f, const char *codepage,
                 uint8_t **out, size_t *out_len, struct rt_reg_error *e);
/* The same, refused (E->too_large) when the file would be over MAX
 * bytes (0: no cap). */
int rt_reg_write_max(const struct rt_reg_file *f, const char *codepage,
                     uint64_t max, uint8_t **out, size_t *out_len,
                     struct rt_reg_error *e);

/* The same a key at a time: start, then each key followed by its values,
 * then finish (the file in *OUT, 0 or -1 with E set) or abandon. PATH
 * stays the caller's until the next key; CODEPAGE until the end (NULL:
 * RT_REG_DEFAULT_CODEPAGE). */
struct rt_reg_writer {
    struct rt_strbuf text;
    enum rt_reg_format format;
    const char *codepage;
    const char *key;        /* the key being written, for messages */
    /* The most bytes the file may be (0: no cap), set after start: a
     * write that would pass it stops before the text that passes it is
     * made (E->too_large), so a file no reader takes is never made
     * whole in memory. */
    uint64_t max;
    size_t counted;         /* bytes of TEXT counted into UNITS */
    uint64_t units;         /* UTF-16 code units of TEXT */
};
void rt_reg_writer_start(struct rt_reg_writer *w, enum rt_reg_format format,
                         const char *codepage);
int rt_reg_writer_key(struct rt_reg_writer *w, const char *path, int del,
                      struct rt_reg_error *e);
/* DEL: a deletion ("name"=-), V unused. */
int rt_reg_writer_value(struct rt_reg_writer *w, const char *name,
                        const struct rt_value *v, int del,
                        struct rt_reg_error *e);
int rt_reg_writer_finish(struct rt_reg_writer *w, uint8_t **out,
                         size_t *out_len, struct rt_reg_error *e);
void rt_reg_writer_abandon(struct rt_reg_writer *w);

/* Builders: each copies its arguments; NULL / -1 when out of memory. */
struct rt_reg_key *rt_reg_add_key(struct rt_reg_file *f, const char *path,
                                  int del);
/* V NULL: a deletion ("name"=-). */
int rt_reg_add_value(struct rt_reg_key *k, const char *name,
                     const struct rt_value *v);

/* What K holds (its path and values), not K itself. */
void rt_reg_key_free(struct rt_reg_key *k);
void rt_reg_file_free(struct rt_reg_file *f);

/* Applies F to ROOT, a tree whose children are the root keys
 * (HKEY_LOCAL_MACHINE, ...), as regedit imports it: keys created, values
 * set, deletions done. -1 when out of memory (ROOT then half changed:
 * apply to a clone). */
int rt_reg_apply(const struct rt_reg_file *f, struct rt_tree_key *root);

/* rt_reg_parse then rt_reg_apply into ROOT, value by value: the file is
 * never held whole beside the tree. 0, or -1 with E set (ROOT may then
 * hold part of the file). */
int rt_reg_parse_tree(const uint8_t *data, size_t len, const char *codepage,
                      struct rt_tree_key *root, struct rt_reg_error *e);

/* The whole tree under ROOT (as rt_reg_apply builds it) as a file of
 * FORMAT: every key, each followed by its subkeys, in the tree's order,
 * keys without values included; its values' names and data are the
 * tree's (F->borrowed: a reg: store of millions of values is not held
 * twice to be written), so F is written while ROOT stays as it is. -1
 * when out of memory. */
int rt_reg_from_tree(const struct rt_tree_key *root, enum rt_reg_format format,
                     struct rt_reg_file *f);
/* The same tree written (rt_reg_write_max) without F: what rt_reg_write
 * writes of rt_reg_from_tree's file, with no key or value held twice. */
int rt_reg_write_tree(const struct rt_tree_key *root, enum rt_reg_format format,
                      const char *codepage, uint64_t max, uint8_t **out,
                      size_t *out_len, struct rt_reg_error *e);

/* Whether DATA starts as a .reg file does (a Version 5.00 or REGEDIT4
 * header, in UTF-16LE or 8-bit text, with or without BOM): how restore
 * tells a .reg file from a PerfStringBackup file. */
int rt_reg_sniff(const uint8_t *data, size_t len);

/* Whether NAME is a root key a .reg file may name. */
int rt_reg_is_root(const char *name);

#endif
