/* Platform layer: the hash of a path or name (os.h, rt_os_path_hash),
 * keyed with a basis of this process's own: the names hashed are a
 * tree's, chosen by whoever wrote it. */
/* rand_s (Windows' RtlGenRandom) is declared only when asked for. */
#define _CRT_RAND_S
#include "platform/os.h"

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#ifdef __linux__
#include <sys/random.h>
#include <sys/types.h>
#endif

/* A basis of this process's own for rt_os_path_hash and the other
 * hashes of names someone else chose (os.h): the names hashed are a
 * tree's (a journal's records, a folder's entries), and names chosen to
 * collide under a basis known in advance would make each table a list
 * (half a million journal files: minutes). */
uint64_t rt_os_hash_basis(void)
{
    static uint64_t basis;
    uint64_t b = __atomic_load_n(&basis, __ATOMIC_RELAXED);
    if (b)
        return b;
    uint64_t seed = 0;
#if defined(__linux__)
    /* getrandom needs no /dev (a chroot's). It fails only on a kernel
     * before 3.17 or under a filter that forbids it: the mix below is
     * then the basis, still this run's own. */
    if (getrandom(&seed, sizeof seed, GRND_NONBLOCK) != (ssize_t)sizeof seed)
        seed = 0;
#elif defined(_WIN32)
    unsigned int hi, lo;
    if (rand_s(&hi) == 0 && rand_s(&lo) == 0)
        seed = (uint64_t)hi << 32 | lo;
#endif
    /* Without a random source: what differs from run to run. */
    seed ^= (uint64_t)time(NULL) * 0x9E3779B97F4A7C15u ^
            (uint64_t)(uintptr_t)&basis ^ (uint64_t)clock();
    b = (14695981039346656037u ^ seed) | 1;
    __atomic_store_n(&basis, b, __ATOMIC_RELAXED);
    return b;
}

uint64_t rt_os_random64(void)
{
    uint64_t r = 0;
#if defined(__linux__)
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) == (ssize_t)sizeof r)
        return r;
#elif defined(_WIN32)
    unsigned int hi, lo;
    if (rand_s(&hi) == 0 && rand_s(&lo) == 0)
        return (uint64_t)hi << 32 | lo;
#endif
    /* Without a random source: the clock and a count, mixed (guessable,
     * as everything is then, but never the hash basis: a name shown must
     * not give away what keys the tables). */
    static uint64_t count;
    uint64_t n = __atomic_add_fetch(&count, 1, __ATOMIC_RELAXED);
    r = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15u ^ (uint64_t)clock() ^
        n * 0xD6E8FEB86659FD93u;
    return rt_os_hash_mix(rt_os_hash_mix(r) ^ n);
}

uint64_t rt_os_hash_mix(uint64_t h)
{
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9u;
    h ^= h >> 32;
    return h;
}

uint64_t rt_os_path_hash(const char *s)
{
    uint64_t h = rt_os_hash_basis();        /* FNV-1a, keyed */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return rt_os_hash_mix(h);
}
