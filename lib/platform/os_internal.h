/* Platform layer, internal: what os_posix*.c and os_win32*.c share from
 * os_common.c. */
#ifndef RT_PLATFORM_OS_INTERNAL_H
#define RT_PLATFORM_OS_INTERNAL_H

#include <stddef.h>

struct rt_os_map;

/* The names of a directory listing being collected (rt_os_list_dir): the
 * system-specific part reads entries, this part keeps them. */
struct rt_os_names {
    char **v;
    size_t n, cap;
};

/* Adds a copy of NAME unless it is "." or ".."; -1 with errno ENOMEM. */
int rt_os_names_add(struct rt_os_names *l, const char *name);

/* Ends a listing. When ERR (an errno value) is 0, hands the names over to
 * *NAMES and *N and returns 0; otherwise frees them, sets errno to ERR and
 * returns -1 with *NAMES NULL and *N 0. */
int rt_os_names_finish(struct rt_os_names *l, int err, char ***names,
                       size_t *n);

/* Records why a path was refused (rt_os_strerror gives it back for ERR),
 * sets errno to ERR and returns -1. */
int rt_os_refuse(int err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Forgets the last refusal: called as a call on a path begins, so that a
 * later error of the same number is not given an old reason. */
void rt_os_refusal_clear(void);

/* The temporary files being saved (rt_os_saving), for an interrupt that
 * ends the process at once (rt_os_end_on_interrupts) to remove them: a
 * file the user named is replaced whole or not at all, and no
 * NAME.tmp.* is left beside it. Made and gone say when one is created
 * and when it is renamed or removed; unlink_all, async-signal-safe,
 * removes those in flight. At most a few at a time (one more is left to
 * the abandon paths alone). */
void rt_os_temporary_made(const char *path, int fd);
/* Interrupts held from HOLD 1 to HOLD 0 (POSIX: SIGINT, SIGTERM and
 * SIGHUP blocked in this thread; one that comes meanwhile is taken at
 * the release): a temporary is made and recorded in between, so that an
 * interrupt never finds it made and not yet recorded (review 41 R41-5:
 * one taken as its open returned left it beside the file). Windows,
 * whose console handler runs on a thread of its own: nothing. */
void rt_os_interrupts_held(int hold);
void rt_os_temporary_gone(const char *path);
/* NAME, in the folder the temporary TMP was made in, made new and empty
 * (claimed), TMP renamed to it, or NAME claimed removed: in that folder,
 * held since (POSIX), never by a path a folder on the way swapped for a
 * link since would lead elsewhere (review 49 R49-5: a failed save's
 * claim was removed by its path, a file of that name where the link
 * led); by path on Windows, or where TMP is not recorded. 0, or -1 with
 * errno. */
int rt_os_temporary_claim(const char *tmp, const char *name);
int rt_os_temporary_rename(const char *tmp, const char *name);
void rt_os_temporary_unclaim(const char *tmp, const char *name);
/* Removes the temporary PATH where it was made, in the folder held since
 * (POSIX), then forgets it: a save that fails does not leave it behind
 * when its folder was moved meanwhile (review 42 R42-5: by its path, the
 * removal found nothing there, or a link, and a third of such runs left
 * a whole copy in the tree). One not recorded is removed by its path. */
void rt_os_temporary_remove(const char *path);
/* What unlink_all found of those in flight: RT_OS_SAVE_LEFT when it
 * removed one (its file left as it was), RT_OS_SAVE_PLACED when one was
 * already gone (renamed into place, a signal come between the rename and
 * temporary_gone), or both. */
#define RT_OS_SAVE_LEFT   1
#define RT_OS_SAVE_PLACED 2
int rt_os_temporaries_unlink_all(void);

/* The table V of *N entries of SIZE bytes grown (16 first, then twice
 * as many), the new entries zeroed: the new table (V moved or freed), or
 * NULL (out of memory; V and *N unchanged). For the tables of confined
 * folders. */
void *rt_os_grow_table(void *v, size_t *n, size_t size);

/* Where PATH lies beneath ROOT (a directory's canonical path, LEN bytes):
 * the part after it ("" for ROOT itself) in *REL, and 1; 0 when PATH
 * does not lie beneath ROOT. */
int rt_os_beneath(const char *root, size_t len, const char *path,
                  const char **rel);

/* rt_os_path_ci keeps each folder's listing, sorted, while a directory
 * is confined: rt_os_confine and rt_os_unconfine call
 * rt_os_listings_scope(+1 / -1) (os.h), which forgets every listing (the
 * tree they are kept for changes); every call that creates, renames or
 * removes a file or folder, or takes a lock (after which another
 * process's changes are seen), calls rt_os_listings_forget. Both keep
 * errno. */
void rt_os_listings_forget(void);

/* rt_os_map_file for a file of SIZE bytes open as FD, no larger than
 * RT_OS_MAP_SMALL: read into the heap instead of mapped. Every mapping
 * is one of the kernel's (Linux allows 65,530 a process), and a tree
 * with thousands of languages holds two tiny tables for each: read, they
 * cost memory only. 0, or -1 with errno (the caller closes FD). */
#define RT_OS_MAP_SMALL ((size_t)64 << 10)
int rt_os_map_small(int fd, size_t size, struct rt_os_map *m);

/* The number in a code page's name, 0 when it has none. */
unsigned rt_os_codepage_number(const char *codepage);

#ifdef RT_OS_POSIX
/* With ON, every path beneath a confined directory is resolved as on a
 * kernel without openat2: component by component, each checked for a
 * link and for a mount point by this layer (os_posix_confine.c). For the
 * tests of that walk; 0 (the default) uses openat2 where the kernel has
 * it. */
void rt_os_walk_by_components(int on);
#endif

#ifdef __WINE__
/* The Unix path Wine maps Windows path PATH to, as a new string; NULL
 * when Wine cannot map it or out of memory (os_wine.c). */
char *rt_os_wine_unix_path(const char *path);
#endif

#endif
