/* Model layer: text from a hive tree or an INI as a terminal may show it.
 * Whoever wrote the tree chose every name and value in it; printed raw, an
 * ESC sequence in a service name retitles or clears the terminal and a
 * newline forges a line of the report ("0 errors"). Every text for people
 * that holds such a name goes through rt_printable_char, which renders
 * the characters a terminal acts on as visible escapes:
 *   - C0 controls and DEL: \t \n \r, else \xHH (\x1b, \x07, \x7f);
 *   - C1 controls U+0080..U+009F: \u0080..\u009f (U+009B is the one-code
 *     CSI);
 *   - the characters that reorder, hide or join text without a glyph of
 *     their own (platform/unicode_tables.h, generated from the Unicode
 *     data): the bidirectional marks, embeddings, overrides and isolates
 *     (U+200E, U+200F, U+061C, U+202A..U+202E, U+2066..U+2069), which
 *     reorder what follows on the line ("Trojan Source"); the zero-width
 *     and invisible ones (U+200B..U+200D, U+2060, U+00AD, U+FEFF, the
 *     variation selectors, the Hangul fillers), which make two different
 *     names look alike; the line and paragraph separators (U+2028,
 *     U+2029); every other format character (Unicode category Cf) and
 *     default-ignorable code point: \u202e, \u200b, ..., and past the
 *     BMP \U000e0041 (the tag characters, which hide ASCII text);
 *   - a byte that begins no valid UTF-8 sequence: \xHH.
 * Every other character, ASCII or not (French, Russian, Greek, Chinese
 * names), is kept as it is. A real name that holds a hidden character
 * (a right-to-left mark in a Hebrew name) is shown with it escaped, as
 * the reader cannot see it otherwise; --json gives it back exactly. A backslash is kept too: Windows paths stay readable, and
 * the text "\x1b" does no harm; the escaped text is its own escaped form,
 * so escaping twice changes nothing. Machine formats (JSON, .reg files,
 * backups) keep their own escaping and never use this one. */
#ifndef RT_PRINTABLE_H
#define RT_PRINTABLE_H

#include <stddef.h>
#include <stdint.h>

struct rt_strbuf;

/* The longest visible form of one character: "\U000e0041". */
#define RT_PRINTABLE_MAX 10

/* Whether the character at S (S not at its end) is one a terminal acts
 * on: 1 with its code point in *CP, or with *CP the byte itself plus
 * RT_PRINTABLE_BAD_BYTE when the byte begins no valid UTF-8 sequence; 0
 * for a character shown as it is. *USED: the bytes of S it spans. */
#define RT_PRINTABLE_BAD_BYTE 0x1000000u
int rt_printable_unsafe(const char *s, uint32_t *cp, size_t *used);

/* The visible form of the character at S (S not at its end) into OUT (not
 * NUL-terminated); returns its length and sets *USED to the bytes of S it
 * stands for. */
size_t rt_printable_char(const char *s, char out[RT_PRINTABLE_MAX],
                         size_t *used);

/* Whether S is its own visible form (nothing in it to escape). */
int rt_text_is_printable(const char *s);

/* S's visible form, as snprintf: up to CAP - 1 bytes into BUF and a NUL
 * (CAP 0: nothing written), never cutting an escape or a character in
 * two; returns the length of the whole form, so a result >= CAP says it
 * was cut. */
size_t rt_text_printable(char *buf, size_t cap, const char *s);

/* S's visible form as a new string the caller frees (at most
 * 4 times S's length), or NULL when out of memory. */
char *rt_text_printable_dup(const char *s);

/* Appends S's visible form to B (B->failed set when out of memory). */
void rt_strbuf_append_printable(struct rt_strbuf *b, const char *s);

#endif
