/* One error from a store or the engine: a Win32 error code (what lodctr
 * would return, and what the drop-in modes exit with) and a message that
 * names the file, key or value concerned. */
#ifndef RT_ERROR_H
#define RT_ERROR_H

/* Win32 error codes regtool reports. */
#define RT_ERR_SUCCESS            0
#define RT_ERR_FILE_NOT_FOUND     2
#define RT_ERR_PATH_NOT_FOUND     3
#define RT_ERR_ACCESS_DENIED      5
#define RT_ERR_NOT_ENOUGH_MEMORY  8
#define RT_ERR_INVALID_DATA       13
#define RT_ERR_WRITE_PROTECT      19
#define RT_ERR_WRITE_FAULT        29
#define RT_ERR_FILE_EXISTS        80
#define RT_ERR_NOT_SUPPORTED      50
#define RT_ERR_BAD_NETPATH        53
#define RT_ERR_INVALID_PARAMETER  87
#define RT_ERR_ALREADY_EXISTS     183
#define RT_ERR_BADDB              1009
#define RT_ERR_BADKEY             1010
#define RT_ERR_CALL_NOT_IMPLEMENTED 120
#define RT_ERR_LOCK_VIOLATION     33
#define RT_ERR_CANCELLED          1223
#define RT_ERR_DISK_FULL          112
#define RT_ERR_INTERNAL_ERROR     1359

struct rt_error {
    int code;            /* RT_ERR_*, 0 when no error */
    char message[1024];
    /* Set by a commit that failed past its commit point: the change
     * stands (its journal finishes it), though the call failed. */
    int committed;
};

/* Sets E (when not NULL) and returns -1, so callers can write
 * `return rt_error_set(e, RT_ERR_..., "...", ...);`. */
int rt_error_set(struct rt_error *e, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The code for a failed file write's errno (ENOSPC: disk full, EROFS:
 * access denied, ...), as lodctr would report it. */
int rt_error_code_for_errno(int err);

#endif
