/* Error values shared by the engine and the stores. */
#include "model/error.h"
#include "platform/os.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

int rt_error_set(struct rt_error *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        rt_os_format_cut(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int rt_error_code_for_errno(int err)
{
    switch (err) {
    case ENOENT:
    case ENOTDIR: return RT_ERR_PATH_NOT_FOUND;
    case EACCES:
    case EPERM:
    case EROFS:
    /* What the platform layer refuses beneath a tree: a link (ELOOP), a
     * mount point (EXDEV), a special file (ENODEV), a folder: not an I/O
     * failure, a place not to be written, as Windows says of a reparse
     * point it will not open. */
    case ELOOP:
    case EXDEV:
    case ENODEV:
    case EISDIR: return RT_ERR_ACCESS_DENIED;
    case EEXIST: return RT_ERR_FILE_EXISTS;
    case ENOSPC: return RT_ERR_DISK_FULL;
    case ENOMEM: return RT_ERR_NOT_ENOUGH_MEMORY;
    default: return RT_ERR_WRITE_FAULT;
    }
}
