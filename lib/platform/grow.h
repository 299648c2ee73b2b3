/* Platform layer: the growth rule of the arrays that gain one element at
 * a time (staged files, commit intents, reserved files, subkey names). */
#ifndef RT_PLATFORM_GROW_H
#define RT_PLATFORM_GROW_H

#include <stdint.h>
#include <stddef.h>

/* The room for an array of elements of SIZE bytes that holds CAP and
 * needs one more: doubled (FIRST when it has none), so that N elements
 * cost a few reallocs, not N; 0 when the doubled array's bytes would
 * not fit a size_t (the caller says out of memory). */
static inline size_t rt_grown(size_t cap, size_t first, size_t size)
{
    if (!cap)
        return first;
    return cap > SIZE_MAX / 2 / size ? 0 : 2 * cap;
}

#endif
