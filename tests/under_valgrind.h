/* Tests: whether this program runs under valgrind (tests/run-unit.sh sets
 * VALGRIND=1 for make valgrind). The few tests that repeat a case many
 * times over (cycles of 5 MB values, every corruption class with several
 * seeds) run fewer repetitions there: valgrind looks for memory errors,
 * which one repetition shows as well as a hundred, at fifty times the
 * cost; the plain and sanitizer runs keep every repetition. */
#ifndef RT_TESTS_UNDER_VALGRIND_H
#define RT_TESTS_UNDER_VALGRIND_H

#include <stdlib.h>
#include <string.h>

static inline int under_valgrind(void)
{
    const char *v = getenv("VALGRIND");
    return v && !strcmp(v, "1");
}

/* N repetitions, or FEW under valgrind. */
static inline unsigned repetitions(unsigned n, unsigned few)
{
    return under_valgrind() ? few : n;
}

#endif
