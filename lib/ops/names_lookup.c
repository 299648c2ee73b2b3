/* What `names` computes from a database it read: the index its name
 * lookups search, and a provider's counters in one language. */
#include "ops/ops.h"

int rt_op_name_index(struct rt_name_index *x, const struct rt_pair_list *l,
                     struct rt_error *e)
{
    if (rt_name_index_build(x, l) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}

int rt_op_provider_names(const struct rt_service_info *svc,
                         const struct rt_db_language *l,
                         struct rt_provider_names *out, struct rt_error *e)
{
    uint32_t first = svc->first_counter;
    uint32_t last = svc->has_last_counter ? svc->last_counter : first;
    if (!svc->has_range) {
        /* No range: nothing is the provider's (an inverted one as well). */
        first = 1;
        last = 0;
    }
    if (rt_provider_names(&l->table.counter, &l->table.help, first, last,
                          out) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    return 0;
}
