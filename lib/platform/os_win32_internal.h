/* Platform layer, internal: what the Win32 files share (os_win32.c:
 * files, folders, locks, time, signals, and the Win32 errors and
 * UTF-8/UTF-16 strings the others use; os_win32_confine.c: confinement
 * and the folders held while a call uses a path beneath a confined
 * directory; os_win32_map.c: mapped files and memory;
 * os_win32_codepage.c: code pages). Each keeps its own helpers static.
 * Not for use outside lib/platform/. */
#ifndef RT_PLATFORM_OS_WIN32_INTERNAL_H
#define RT_PLATFORM_OS_WIN32_INTERNAL_H

#include "platform/os.h"

#ifdef RT_OS_WIN32
#include <stddef.h>
#include <wchar.h>
#include <windows.h>

/* --- os_win32.c ------------------------------------------------------------ */

/* errno for the calling thread's last Win32 error; returns -1. */
int os_win32_set_errno(void);
/* UTF-8 to a new wide string; NULL with errno on bad UTF-8. */
wchar_t *os_win32_wide(const char *s);
/* The Win32 handle of C runtime descriptor FD. */
HANDLE os_win32_handle_of(int fd);

/* --- os_win32_confine.c ---------------------------------------------------- */

/* The folders of a path beneath a confined directory, held open while a
 * call uses the path (os_win32_hold_beneath). */
#define HELD_MAX 64
struct held {
    int confined;      /* 0: the path is the caller's, used as it is */
    size_t n;
    HANDLE h[HELD_MAX];
};

/* Holds the folders of PATH beneath its confined directory (with WHOLE,
 * PATH's last component too), each opened as itself, refused when a
 * reparse point; "." and ".." refused by name. 0, or -1 with errno
 * (nothing held). */
int os_win32_hold_beneath(const char *path, int whole, struct held *hd);
/* Closes the handles HD holds, keeping the last error and errno. */
void os_win32_release(struct held *hd);
/* -1 with a refusal naming PATH when handle H is a reparse point. */
int os_win32_refuse_reparse(HANDLE h, const char *path);
/* Opens PATH as itself, never through a reparse point (a folder opens
 * too). */
HANDLE os_win32_open_as_itself(const char *path, DWORD access, DWORD share,
                               DWORD disposition, DWORD flags);
/* -1 with a refusal naming PATH when a folder HD holds has become a
 * reparse point since it was checked. */
int os_win32_held_still_plain(const struct held *hd, const char *path);
#endif

#endif
