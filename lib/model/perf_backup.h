/* Model layer: the PerfStringBackup format, what `lodctr /S:file` writes
 * and `lodctr /R:file` reads, and what Windows keeps as
 * System32\PerfStringBackup.INI (docs/design.md, "The backup store"). A
 * pure codec: bytes in, bytes out, no I/O.
 *
 * As Windows writes it: UTF-16LE without byte-order mark; every record is
 * CR LF followed by its text, so the file starts with two empty lines,
 * an empty line comes before every section header and the last line has
 * no line end. Sections, in this order:
 *   [Perflib]              Base Index=, Last Counter=, Last Help=
 *   [PERF_<service>]       First Counter=, First Help=, Last Counter=,
 *                          Last Help=, then Disable Performance Counters=
 *                          when set; one per service with First Counter,
 *                          in the Services key's enumeration order
 *   [PerfStrings_<lang>]   index=text, Counter and Help merged into one
 *                          list sorted by index (`1=1847` first); one per
 *                          language subkey of Perflib
 * Nothing is escaped: a text may hold '=' (a record splits on the first
 * one), ';' and quotes.
 *
 * The reader takes every real file as it is (the six in
 * ../shared/research-real/perfstringbackup): UTF-16LE with or without a
 * byte-order mark, UTF-8 with or without one (a file converted by an
 * editor), CR LF or LF line ends, sections in any order, language ids of
 * three or four hex digits ([PerfStrings_0804]); in a [PerfStrings_]
 * section a physical line that does not start with `N=` continues the
 * previous text (one real file has bare LF characters inside help texts),
 * with the line ends between them kept, so the text reads back byte for
 * byte. Errors name the line. */
#ifndef RT_PERF_BACKUP_H
#define RT_PERF_BACKUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"
#include "model/str_pool.h"

/* The numbers before the flags, each flag a byte: a file of hundreds of
 * thousands of bare [PERF_] sections holds 40 bytes for each, not 56. */
struct rt_psb_service {
    char *name;                 /* the Services subkey, verbatim */
    unsigned line;              /* of its section header */
    uint32_t first_counter, first_help, last_counter, last_help;
    uint32_t disable;           /* Disable Performance Counters */
    bool has_first_counter, has_first_help, has_last_counter, has_last_help;
    bool has_disable;
};

struct rt_psb_language {
    char *id;                   /* as the header names it: "009", "0804" */
    unsigned line;              /* of its section header */
    struct rt_pair_list strings;  /* Counter and Help merged, file order */
};

struct rt_psb {
    int has_perflib;            /* a [Perflib] section */
    unsigned perflib_line;
    int has_base_index, has_last_counter, has_last_help;
    uint32_t base_index, last_counter, last_help;
    struct rt_psb_service *services;
    size_t n_services;
    /* The services' names when the parse put them here (one pool rather
     * than a heap block each); empty, and each name its own heap block,
     * in a backup put together by hand. */
    struct rt_str_pool service_names;
    struct rt_psb_language *langs;
    size_t n_langs;
    /* Sections sorted for rt_psb_service_find and rt_psb_language_find,
     * built by the parse; NULL (or built for other arrays: a backup put
     * together by hand) and they scan. */
    struct rt_psb_index *index;
};

/* How the bytes read were encoded. */
enum rt_psb_encoding {
    RT_PSB_UTF16LE,             /* what Windows writes: no byte-order mark */
    RT_PSB_UTF16LE_BOM,
    RT_PSB_UTF8,
    RT_PSB_UTF8_BOM,
};

/* Why reading failed: the physical line (1-based, counting LF
 * characters) and what is wrong there. */
struct rt_psb_error {
    unsigned line;
    char message[256];
    int nomem;                  /* out of memory, not the file's fault */
};

/* Reads LEN bytes of a backup file into *OUT (ENC, when not NULL, says
 * how they were encoded). Returns 0, or -1 with *ERR filled and nothing
 * kept in *OUT. Rejected: bytes that are not text in the detected
 * encoding (an odd byte count, an unpaired surrogate, invalid UTF-8, a
 * NUL character), text outside any section, an unknown or duplicated
 * section or key, a value that is not a decimal DWORD, a string index of
 * 0 or above 2^31, a text line with nothing before it to continue. */
int rt_psb_parse(const uint8_t *data, size_t len, struct rt_psb *out,
                 enum rt_psb_encoding *enc, struct rt_psb_error *err);
/* The same, taking DATA (malloc'd), freed once read. Either way UTF-16
 * text is decoded and read a piece at a time: the file's text is never
 * held whole beside what it makes. */
int rt_psb_parse_take(uint8_t *data, size_t len, struct rt_psb *out,
                      enum rt_psb_encoding *enc, struct rt_psb_error *err);
/* The same, reading DATA front to back and telling DONE (CTX, OFF, N) of
 * each range [OFF, OFF+N) of it as soon as it is decoded (but to name the
 * line of an error, it is not read again): a caller holding DATA as a
 * view of a file gives those pages back, so that a large backup is not
 * held both as the file's bytes and as text. */
int rt_psb_parse_view(const uint8_t *data, size_t len,
                      void (*done)(void *ctx, size_t off, size_t n), void *ctx,
                      struct rt_psb *out, enum rt_psb_encoding *enc,
                      struct rt_psb_error *err);

/* Writes P as Windows does, byte for byte, into a new buffer. Values
 * absent from P (has_... 0) are left out; a language's strings are
 * written in their list order. Returns 0, or -1 when out of memory or a
 * text is not valid UTF-8. */
int rt_psb_write(const struct rt_psb *p, uint8_t **out, size_t *len);
/* The same in parts, whose bytes one after the other are rt_psb_write's:
 * the head ([Perflib] and the [PERF_] sections: P's languages are not
 * looked at), then each language's section. For a backup written a
 * language at a time. */
int rt_psb_write_head(const struct rt_psb *p, uint8_t **out, size_t *len);
int rt_psb_write_language(const struct rt_psb_language *l, uint8_t **out,
                          size_t *len);

/* Whether TEXT (N bytes of UTF-8), written as a string's text, reads back
 * as that text alone: lodctr writes texts unescaped, so a line after a
 * line break is a continuation (Windows writes such help texts) unless
 * it reads as a section header or an N= record of its own, to any
 * reader; a text ending in a line feed does not (the record's own line
 * end follows it). */
int rt_psb_text_reads_back(const char *text, size_t n);

/* Whether code point C ends a line to some reader of a backup (LF, CR,
 * VT, FF, FS, GS, RS, NEL, LS, PS): where rt_psb_text_reads_back looks. */
int rt_psb_line_break(uint32_t c);

/* Whether NAME (UTF-8), a service's, written in its section's header
 * "[PERF_NAME]", reads back as that section and no other to any reader. */
int rt_psb_name_heads_section(const char *name);

/* One language's tables as a backup lists them: Counter and Help merged,
 * sorted by index, one string per index (as lodctr builds it, through
 * one array by index: a later pair wins, Help over Counter). */
int rt_psb_merge(const struct rt_name_table *t, struct rt_pair_list *out);

/* Splits a language's strings back into Counter and Help as lodctr /R
 * does: names at even indices and index 1 (the base index's entry),
 * help texts at odd ones; the order is the list's. */
int rt_psb_split(const struct rt_pair_list *strings, struct rt_name_table *out);
/* The same as views of STRINGS' texts (RT_TEXTS_BORROWED: nothing copied, a
 * backup's hundreds of megabytes of text are not held twice), to be read
 * and freed while STRINGS stands, never appended to. */
int rt_psb_split_view(const struct rt_pair_list *strings,
                      struct rt_name_table *out);

/* The service's section by name (case-insensitive, as registry keys are),
 * or NULL; likewise a language's by id value (804 and 0804 are one). */
const struct rt_psb_service *rt_psb_service_find(const struct rt_psb *p,
                                                 const char *name);
const struct rt_psb_language *rt_psb_language_find(const struct rt_psb *p,
                                                   const char *id);

void rt_psb_free(struct rt_psb *p);

#endif
