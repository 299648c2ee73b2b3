/* Engine layer: verify, what a provider's own data says about its
 * registration. From the performance data its Collect returned (parsed by
 * model/perf_data.h) and the database as read, findings in audit's format:
 * every object and counter title index resolves in every language, lies
 * in the provider's range with the right parity, each object is in Object
 * List and each listed index has an object, lengths are 8-byte aligned,
 * and Collect answered a short buffer with ERROR_MORE_DATA. Pure: the
 * caller queries the data (a store that can: store.h, perf_data). */
#ifndef RT_VERIFY_H
#define RT_VERIFY_H

#include "engine/audit.h"
#include "engine/database.h"
#include "model/perf_data.h"

struct rt_verify_input {
    const char *service;            /* the provider (a Services subkey) */
    const char *query;              /* the value name asked of the data */
    const struct rt_perf_data *data;
    /* How Collect answered a buffer too short for its data: 1 with
     * ERROR_MORE_DATA, 0 by claiming success with more bytes than the
     * buffer holds, -1 when not seen (the data fit the first buffer). */
    int more_data;
};

/* Appends the findings about IN to OUT. Returns 0, or -1 when out of
 * memory (OUT keeps what was found). */
int rt_verify(const struct rt_database *db, const struct rt_verify_input *in,
              struct rt_findings *out);

#endif
