/* Platform layer: look-ups in the generated Unicode tables (unicode_tables.h). */
#include "platform/unicode_tables.h"

int rt_unicode_in_ranges(const struct rt_unicode_range *ranges, size_t count,
                         uint32_t c)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c < ranges[mid].first)
            hi = mid;
        else if (c > ranges[mid].last)
            lo = mid + 1;
        else
            return 1;
    }
    return 0;
}
