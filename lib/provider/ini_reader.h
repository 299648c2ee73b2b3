/* INI layer: decodes a lodctr INI file to UTF-8 lines and parses them with
 * inih through a line reader of ours.
 *
 * Debian's libinih is compiled with a 200-byte line limit, inline ';'
 * comments and indented continuation lines, none of which lodctr has. The
 * reader hands inih one short line per physical line (the key and '=' of a
 * name=value line, never its value), so inih decides what is a section, a
 * comment or a pair, while every value is taken whole and unaltered from
 * our own copy of the line. */
#ifndef RT_INI_READER_H
#define RT_INI_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/diag.h"

/* A decoded INI file: UTF-8, one string per physical line, without its
 * line terminator (LF or CR LF); lines[i] is line i + 1 of the file. */
struct rt_ini_text {
    char *path;     /* as given, for diagnostics */
    char **lines;
    size_t n_lines;
    char *buf;      /* storage of the lines */
};

/* Decodes LEN bytes of DATA. A byte-order mark decides the encoding:
 * FF FE is UTF-16LE, EF BB BF is UTF-8 (the mark is not part of line 1).
 * Without a mark, a file whose first lines have a NUL in every high byte
 * is UTF-16LE (rt_text_sniff); one where that cannot be told is rejected
 * rather than guessed at; any other file is ANSI in CODEPAGE when one is
 * given ("1251", "CP1252", "windows-1251": any name iconv knows, digits
 * alone meaning "CP" + digits), else it must be valid UTF-8. A DOS
 * end-of-file mark (0x1A, in UTF-16LE 1A 00) followed by nothing but line
 * ends ends the file. NUL characters are rejected: Windows cannot remove
 * a string holding one.
 * Returns 0, or -1 with errors (naming PATH and the line) added to D. */
int rt_ini_decode(const char *path, const void *data, size_t len,
                  const char *codepage, struct rt_ini_text *out,
                  struct rt_diags *d);

/* Reads and decodes the file at PATH as rt_ini_decode. Returns 0, -1 when
 * it is not valid text, -2 when it cannot be read (an error in D too). */
int rt_ini_load(const char *path, const char *codepage,
                struct rt_ini_text *out, struct rt_diags *d);

/* rt_ini_load, giving the file's bytes as read (a new buffer) to *RAW and
 * *RAW_LEN when it returns 0: what was decoded is then what a copy of the
 * file holds, read once. */
int rt_ini_load_kept(const char *path, const char *codepage,
                     struct rt_ini_text *out, uint8_t **raw, size_t *raw_len,
                     struct rt_diags *d);

void rt_ini_text_free(struct rt_ini_text *t);

/* One name=value line as the parser delivers it. NAME and VALUE lie in
 * the parsed text's own line and stay valid as long as it does. */
struct rt_ini_entry {
    const char *section;    /* as inih names it; "" before any header */
    unsigned section_line;  /* line of that section's header, 0 if none */
    const char *name;       /* text before the first '=', whitespace trimmed */
    const char *value;      /* text after the first '=' as
                               GetPrivateProfileString returns it: blanks
                               trimmed at both ends, then one pair of
                               enclosing quotes (" or ') dropped, the rest
                               as written */
    unsigned line;
    bool trimmed_tab;       /* the value ended in blanks, a tab among them */
    bool trimmed_space;     /* ... other blanks (spaces) only */
    bool unquoted;          /* enclosing quotes were dropped */
};


typedef void (*rt_ini_entry_fn)(void *user, const struct rt_ini_entry *e);

/* Parses T with inih, calling FN for each name=value line in file order.
 * Each such line of T is cut after its name (a NUL where the name ends),
 * so that the entry's NAME and VALUE point into it.
 * Leading whitespace never makes a continuation line; lines starting with
 * ';', '#' or '//' are comments; ';' inside a value is part of it. A line
 * that is none of blank, comment, [section] or name=value (no '=') is a
 * warning and skipped: the profile API makes it a key without a value,
 * which lodctr never reads. Key names and section headers too long for
 * inih's line buffer, names inih would split and headers without ']' are
 * errors. Every bad line is reported, and the good lines are still
 * delivered. Returns 0, or -1 when errors were added to D. */
int rt_ini_parse(struct rt_ini_text *t, rt_ini_entry_fn fn, void *user,
                 struct rt_diags *d);

/* 1 when this build reads INIs (linked with inih), 0 when it was built
 * without (ini_unavailable.c). */
int rt_ini_available(void);

#endif
