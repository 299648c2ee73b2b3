/* Platform layer, internal: what the POSIX files share (os_posix.c:
 * files, folders, locks, time, signals; os_posix_confine.c: confinement
 * and the resolution of paths beneath a confined directory;
 * os_posix_map.c: mapped files and memory; os_posix_codepage.c: code
 * pages; os_posix_walk.c: where a path leads, component by component).
 * Each keeps its own helpers static; this header holds how a call on a
 * path reaches the file beneath a confined directory. Not for use
 * outside lib/platform/ (and its tests). */
#ifndef RT_PLATFORM_OS_POSIX_INTERNAL_H
#define RT_PLATFORM_OS_POSIX_INTERNAL_H

#include "platform/os.h"

#ifdef RT_OS_POSIX
#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

/* A path resolved beneath a confined directory: the directory holding its
 * last component (a descriptor) and that component's name. */
struct beneath {
    int dir;           /* -1: the path is not confined */
    const char *leaf;  /* "" when the path is the confined directory */
    uid_t root_uid;    /* the confined tree's root folder's owner */
    int input;         /* the root is only a folder of the user's input */
    int read_only;     /* the root was named through a read-only mount */
    char buf[PATH_MAX];
    /* The path from the file system's root: the confined directory's
     * canonical path and the part beneath it, as spelled. */
    char canon[PATH_MAX];
};

/* Resolves PATH: B->dir -1 when it is not confined (0 returned; the
 * caller uses PATH as it is), else the open parent; -1 with errno when a
 * component is a link, "." or "..", or cannot be opened. */
int os_posix_resolve(const char *path, struct beneath *b);
/* Closes what os_posix_resolve opened (keeping errno). */
void os_posix_resolved_done(struct beneath *b);
/* NAME (one component) opened beneath DIRFD with FLAGS (O_NOFOLLOW added)
 * and MODE, refusing a symbolic link (ELOOP) or a mount point (EXDEV);
 * -1 with errno, the reason not yet recorded (os_posix_walk_failed). */
int os_posix_open_beneath(int dirfd, const char *name, int flags,
                          mode_t mode);
/* Why opening COMP (the path PATH up to UPTO bytes) beneath DIRFD failed
 * with ERR: a link or a mount point is refused by name (rt_os_refuse);
 * anything else keeps its errno. Returns -1. */
int os_posix_walk_failed(int dirfd, const char *comp, const char *path,
                         size_t upto, int err);
/* ABS (absolute) walked one component at a time from the file system's
 * root as the kernel would, a link followed (up to 40) only while no
 * leading part resolved so far is STOP: then that part (canonical, links
 * resolved) and the rest of the path as spelled, unresolved, a new string
 * in *OUT, and the part's length in *AT; *OUT NULL when no part is (or a
 * part is not there). realpath would follow the links beneath that part
 * too: a user's link into a tree, to a folder reached through a link the
 * tree planted, would lead out of it unseen. A folder bound from another
 * (a bind mount) is walked as its source, as a link would be. -1 with
 * errno (a refusal named: rt_os_refuse) where the walk cannot tell where
 * the kernel goes: a way longer than PATH_MAX, more than 40 links, a link
 * of /proc into another mount namespace, ".." after a bound folder.
 * *READ_ONLY (when not NULL): whether a bound folder walked as its
 * source was reached through a read-only mount (a read-only view). */
int os_posix_walk_until(const char *abs, int (*stop)(const char *),
                        char **out, size_t *at, int *read_only);
/* S, a field of /proc/self/mountinfo (a mount point, a bind's root), in
 * place with its octal escapes undone (\040 a space, \134 a backslash);
 * anything else after a backslash kept as it is. */
void os_posix_unescape_mount_field(char *s);
#endif

/* SIGINT, SIGTERM and SIGHUP to HANDLER, without SA_RESTART (glibc's
 * signal() restarts an interrupted open() of a FIFO, which then waits for
 * a writer forever). */
void os_posix_catch(void (*handler)(int));
/* The folder the file FD, just made as PATH, lies in, held open in *DIR
 * (a descriptor), and its name there in LEAF (NAME_MAX + 1 bytes): an
 * interrupt removes a temporary by unlinkat in that folder, never by
 * PATH again (a folder on the way swapped for a link meanwhile would
 * lead elsewhere). The folder rt_os_open made it in when FD is the file
 * its last RT_OS_WRITE_NEW made (held from before the file was made, so
 * that a folder moved just after is still found); else found by PATH.
 * -1 when neither names FD's file. */
int os_posix_folder_of_made(const char *path, int fd, int *dir, char *leaf);

#endif
