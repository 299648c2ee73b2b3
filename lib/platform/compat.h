/* Platform layer: the few POSIX string functions the code uses that the
 * Windows C runtime lacks, declared here and implemented in os_win32.c;
 * on POSIX systems this header only includes <string.h>. */
#ifndef RT_PLATFORM_COMPAT_H
#define RT_PLATFORM_COMPAT_H

#include <stddef.h>
#include <string.h>

#include "platform/os.h"

#ifdef RT_OS_WIN32
char *strndup(const char *s, size_t n);
#endif

#endif
