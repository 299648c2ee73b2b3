/* Platform layer: the tables of confined folders grown as they fill
 * (POSIX's and Windows'), one way for both. */
#include "platform/os_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void *rt_os_grow_table(void *v, size_t *n, size_t size)
{
    size_t want = *n ? 2 * *n : 16;
    if (want <= *n || want > SIZE_MAX / size)
        return NULL;
    unsigned char *t = realloc(v, want * size);
    if (!t)
        return NULL;
    memset(t + *n * size, 0, (want - *n) * size);
    *n = want;
    return t;
}
