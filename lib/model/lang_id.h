/* Model layer: Perflib language ids. A language subkey of Perflib is named
 * by three or four hex digits ("009", "00C", "804", "0804": real Chinese
 * and Portuguese systems carry both forms, docs/design.md, "The name
 * database"), or is CurrentLanguage, which holds the UI language's tables.
 * Ids of digits are one language when their values are equal, so an INI's
 * "804" serves a machine's "0804". Any other subkey (_V2Providers, ...) is
 * no language. */
#ifndef RT_LANG_ID_H
#define RT_LANG_ID_H

#include <stddef.h>
#include <stdint.h>

/* Room for any language id and its NUL ("CurrentLanguage" is longest). */
#define RT_LANG_ID_SIZE 16

/* 1 when S is three or four hex digits or CurrentLanguage (any case). */
int rt_lang_is_id(const char *s);
/* 1 when the LEN bytes at S are four hex digits: the language folder of
 * an INF copy (INF/<service>/<LLLL>). */
int rt_lang_is_folder_id(const char *s, size_t len);
/* 1 when S is CurrentLanguage (any case). */
int rt_lang_is_current(const char *s);
/* The value of an id of digits in *V; -1 for anything else. */
int rt_lang_value(const char *s, unsigned *v);
/* 1 when A and B name the same language: equal values, or both
 * CurrentLanguage. */
int rt_lang_same(const char *a, const char *b);
/* The key S sorts and is found by among languages, as rt_lang_same
 * matches them: its value, CurrentLanguage above every value; 1, or 0
 * when S is neither (it matches nothing). */
int rt_lang_key(const char *s, uint32_t *key);

/* A language's key (rt_lang_key) and its position in some list: a list
 * of thousands of languages is sorted once (rt_lang_pos_cmp: by key,
 * ties in list order) and each language found by a search. */
struct rt_lang_pos {
    uint32_t key, pos;
};
int rt_lang_pos_cmp(const void *a, const void *b);
/* The first of V (N, sorted) whose key is KEY, or N. */
size_t rt_lang_pos_find(const struct rt_lang_pos *v, size_t n, uint32_t key);

#endif
