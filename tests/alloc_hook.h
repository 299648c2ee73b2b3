/* Test hooks on the C library's allocator, for the tests of what the code
 * does when memory runs out. Included once, by a test program's own file:
 * the definitions below take realloc (and, with ALLOC_HOOK_MALLOC defined
 * first, malloc) over in the test program, the library linked into it and
 * the C library's own calls, and hand every call to the next one (the C
 * library's, or a sanitizer's). glibc on Linux only: elsewhere
 * HAVE_ALLOC_HOOK is not defined and the tests that need it skip. With
 * ALLOC_HOOK_CALLOC defined first, calloc is taken over as well (glibc's
 * calloc never goes through malloc, so a failing malloc does not reach
 * the code's callocs). Under
 * valgrind, whose allocator replaces these in every object, no call
 * reaches them (alloc_calls stays 0: such tests skip themselves).
 *
 *   alloc_fail_at  the ALLOC_FAIL_AT-th counted call from when it was set
 *                  fails as out of memory (0: never)
 *   alloc_calls    the counted calls: realloc's, malloc's with
 *                  ALLOC_HOOK_MALLOC, calloc's with ALLOC_HOOK_CALLOC
 *   malloc_fill    (ALLOC_HOOK_MALLOC) when not 0, every block malloc
 *                  gives is filled with this 32-bit word: garbage the
 *                  code must never read */
#ifndef RT_TEST_ALLOC_HOOK_H
#define RT_TEST_ALLOC_HOOK_H

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <string.h>

static unsigned long alloc_fail_at, alloc_calls;

/* Counts a call; nonzero when this one is to fail. */
static int alloc_hook_fails(void)
{
    alloc_calls++;
    if (alloc_fail_at && alloc_calls == alloc_fail_at) {
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *realloc(void *old, size_t n)
{
    static void *(*next)(void *, size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "realloc");
    return alloc_hook_fails() ? NULL : next(old, n);
}

#ifdef ALLOC_HOOK_MALLOC
static uint32_t malloc_fill;

void *malloc(size_t n)
{
    static void *(*next)(size_t);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "malloc");
    if (alloc_hook_fails())
        return NULL;
    void *p = next(n);
    if (p && malloc_fill)
        for (size_t i = 0; i + 4 <= n; i += 4)
            memcpy((char *)p + i, &malloc_fill, 4);
    return p;
}
#endif

#ifdef ALLOC_HOOK_CALLOC
void *calloc(size_t n, size_t size)
{
    static void *(*next)(size_t, size_t);
    static int finding;
    if (!next) {
        /* dlsym may ask calloc for its own state (older glibc) before
         * NEXT is known: it gets NULL, which it survives. */
        if (finding)
            return NULL;
        finding = 1;
        *(void **)&next = dlsym(RTLD_NEXT, "calloc");
        finding = 0;
    }
    return alloc_hook_fails() ? NULL : next(n, size);
}
#endif

#define HAVE_ALLOC_HOOK 1
#endif

#endif
