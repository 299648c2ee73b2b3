/* Model layer: Perflib language ids. A language subkey of Perflib is named
 * by three or four hex digits ("009", "00C", "804", "0804": real Chinese
 * and Portuguese systems carry both forms, docs/design.md, "The name
 * database"), or is CurrentLanguage, which holds the UI language's tables.
 * Ids of digits are one language when their values are equal, so an INI's
 * "804" serves a machine's "0804". Any other subkey (_V2Providers, ...) is
 * no language. */
#ifndef RT_LANG_ID_H
#define RT_LANG_ID_H

/* Room for any language id and its NUL ("CurrentLanguage" is longest). */
#define RT_LANG_ID_SIZE 16

/* 1 when S is three or four hex digits or CurrentLanguage (any case). */
int rt_lang_is_id(const char *s);
/* 1 when S is CurrentLanguage (any case). */
int rt_lang_is_current(const char *s);
/* The value of an id of digits in *V; -1 for anything else. */
int rt_lang_value(const char *s, unsigned *v);
/* 1 when A and B name the same language: equal values, or both
 * CurrentLanguage. */
int rt_lang_same(const char *a, const char *b);

#endif
