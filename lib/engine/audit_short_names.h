/* Engine layer, inside audit --libraries (audit_libraries.c): what the
 * 8.3 short name of a folder's entry ("PROGRA~1") stands for, as far as
 * the tree's folders tell it. Each folder is listed once an audit, however
 * many providers' Library paths go through it, and each short form is
 * matched once a folder: thousands of providers below one folder cost
 * one listing and a binary search each, not a listing each. And the
 * places users can write to that a path, short names and all, may name:
 * at a drive's root and below the Windows directory. */
#ifndef RT_AUDIT_SHORT_NAMES_H
#define RT_AUDIT_SHORT_NAMES_H

#include <stddef.h>

#include "engine/audit.h"

/* The entries of a folder that SHORT_NAME may stand for. */
struct rt_short_match {
    char first[260];      /* the first in the folder's listing order */
    size_t n;             /* how many, names that differ in case only as one
                             when they are FIRST's */
    char writable[260];   /* the first of them users can write to at a
                             drive's root (rt_audit_writable_at_root) */
};

/* The tree's folders as far as they have been listed (TREE's list). */
struct rt_short_names;

/* NULL when out of memory. TREE (or its list) may be NULL: no folder is
 * listed, nothing matches. */
struct rt_short_names *rt_short_names_new(const struct rt_audit_tree *tree);
/* Fills M with the entries of folder DIR (as struct rt_audit_tree's list
 * takes it) that SHORT_NAME may stand for (none when DIR is not there).
 * Returns 0, or -1 when out of memory (M then says none). */
int rt_short_names_match(struct rt_short_names *s, const char *dir,
                         const char *short_name, struct rt_short_match *m);
void rt_short_names_free(struct rt_short_names *s);

/* Whether a folder NAME at a drive's root (or a path beginning with it)
 * is one users can write to: Users, Documents and Settings, ProgramData,
 * Temp, Tmp. */
int rt_audit_writable_at_root(const char *name);
/* The folder below the Windows directory users can write to that REST
 * (a path below it, '\\'-separated) lies in, or NULL; with MAYBE, one it
 * may lie in, its short names the tree did not resolve read as any
 * folder they may stand for. */
const char *rt_audit_writable_in_windows(const char *rest, int maybe);

#endif
