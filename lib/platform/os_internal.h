/* Platform layer, internal: what os_posix.c and os_win32.c share from
 * os_common.c. */
#ifndef RT_PLATFORM_OS_INTERNAL_H
#define RT_PLATFORM_OS_INTERNAL_H

#include <stddef.h>

/* Appends a copy of NAME to the list V of N names; -1 with errno ENOMEM. */
int rt_os_list_push(char ***v, size_t *n, const char *name);

#endif
