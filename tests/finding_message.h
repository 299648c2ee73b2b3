/* Test helper: a finding's message as a string (struct rt_finding keeps
 * it marked, rt_finding_message spells it out). */
#ifndef RT_TEST_FINDING_MESSAGE_H
#define RT_TEST_FINDING_MESSAGE_H

#include <stdlib.h>

#include "engine/audit.h"

/* X's message: valid until four more calls (an assertion may compare
 * two). Aborts when out of memory. */
static inline const char *message_of(const struct rt_finding *x)
{
    static char *ring[4];
    static unsigned next;
    unsigned at = next++ % 4;
    free(ring[at]);
    if (!(ring[at] = rt_finding_message(x)))
        abort();
    return ring[at];
}

#endif
