/* Error values shared by the engine and the stores. */
#include "model/error.h"

#include <stdarg.h>
#include <stdio.h>

int rt_error_set(struct rt_error *e, int code, const char *fmt, ...)
{
    if (e) {
        va_list ap;
        va_start(ap, fmt);
        e->code = code;
        vsnprintf(e->message, sizeof e->message, fmt, ap);
        va_end(ap);
    }
    return -1;
}
