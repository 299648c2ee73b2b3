/* INI layer: what the lodctr inputs (INI and symbol file) are written in
 * when they carry no byte-order mark, and where their text ends.
 *
 * Shared by the INI reader and the symbol-file parser, and free of inih,
 * so that builds without inih (ini_unavailable.c) still link it. */
#ifndef RT_TEXT_ENCODING_H
#define RT_TEXT_ENCODING_H

#include <stddef.h>

enum rt_text_encoding {
    RT_TEXT_8BIT,       /* UTF-8 or ANSI: few or no NULs in the first lines */
    RT_TEXT_UTF16LE,    /* NUL in every high byte of the first lines */
    RT_TEXT_UTF16BE,    /* NUL in every low byte of the first lines */
    RT_TEXT_AMBIGUOUS,  /* NUL in most code units there, in neither pattern */
};

/* The encoding of LEN bytes of DATA that have no byte-order mark, judged
 * from their first lines: code units up to the fourth line end, at most
 * RT_TEXT_SNIFF_UNITS of them. Files saved as UTF-16LE without a mark
 * (every PerfStringBackup.INI, and INIs that real projects ship) begin
 * with ASCII text: a non-NUL byte then a NUL, pair after pair. Text with
 * no NUL byte there, or only a few (an 8-bit file holding a stray NUL,
 * which the 8-bit reading then reports), is 8-bit. When most code units
 * hold one NUL byte but not all in the same place (UTF-16LE text beyond
 * Latin-1 in the first lines, or 8-bit text full of NULs), either reading
 * could be meant, and the file is AMBIGUOUS. */
#define RT_TEXT_SNIFF_UNITS 256
enum rt_text_encoding rt_text_sniff(const void *data, size_t len);

/* The message for an AMBIGUOUS file, shared by the INI reader and the
 * symbol-file parser. */
#define RT_TEXT_AMBIGUOUS_MSG                                               \
    "cannot tell whether the file is UTF-16LE without a byte-order mark "   \
    "or 8-bit text: NUL bytes in its first lines, but not in every other " \
    "byte; save it with a byte-order mark (FF FE) or as UTF-8"

/* LEN without a DOS end-of-file mark: a 0x1A at the end of DATA, after
 * which only CR and LF may follow (Microsoft's SDK samples end that way).
 * UTF16 nonzero: DATA is UTF-16LE of even LEN, the mark is 1A 00 and the
 * line ends 0D 00 / 0A 00. Returns LEN when there is no such mark. */
size_t rt_text_strip_dos_eof(const void *data, size_t len, int utf16);

#endif
