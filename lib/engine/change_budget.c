/* Engine layer: a change's new pairs counted against what the store lets
 * one change write (change_budget.h). */
#include "engine/change_budget.h"

struct rt_change_budget rt_change_budget_of(const struct rt_database *db)
{
    struct rt_change_budget b = {db->change_max, 0};
    return b;
}

int rt_change_budget_add(struct rt_change_budget *b, uint32_t index,
                         const char *text)
{
    if (!b->max)
        return 0;
    if (b->bytes > b->max)
        return 1;
    /* A UTF-16 unit for each byte that starts a character, two for one
     * past the BMP (a four-byte sequence: a surrogate pair, which an
     * INI's author picks to double what a count of characters sees,
     * review 36 F1), then the NULs and the index's digits. */
    uint64_t units = 2;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        units += ((*p & 0xC0) != 0x80) + (*p >= 0xF0);
    do {
        units++;
        index /= 10;
    } while (index);
    b->bytes += 2 * units;
    return b->bytes > b->max;
}

int rt_change_budget_add_bytes(struct rt_change_budget *b, uint64_t n)
{
    if (!b->max)
        return 0;
    b->bytes += n;
    return b->bytes > b->max;
}

int rt_change_budget_refuse(const struct rt_change_budget *b,
                            const char *what, size_t n_langs,
                            struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_INVALID_DATA,
                        "this change is too large for the store: %s would "
                        "write over %llu bytes of names and help texts into "
                        "the tables of its %zu languages, the most one change "
                        "of this store may write; nothing was written",
                        what, (unsigned long long)b->max, n_langs);
}
