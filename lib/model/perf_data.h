/* The performance data block a provider's Collect returns through
 * HKEY_PERFORMANCE_DATA (winperf.h): PERF_DATA_BLOCK, then per object a
 * PERF_OBJECT_TYPE, its PERF_COUNTER_DEFINITIONs, and either one
 * PERF_COUNTER_BLOCK or per instance a PERF_INSTANCE_DEFINITION (with its
 * UTF-16 name) and a PERF_COUNTER_BLOCK. Pure model: bytes in, a checked
 * walk out; every length is checked against the block before it is
 * followed, so a broken provider's data is described, never trusted. */
#ifndef RT_PERF_DATA_H
#define RT_PERF_DATA_H

#include <stddef.h>
#include <stdint.h>

/* The sizes winperf.h gives on 64-bit Windows (title pointers are DWORDs
 * there). */
#define RT_PERF_DATA_BLOCK_SIZE 88u
#define RT_PERF_OBJECT_SIZE 64u
#define RT_PERF_COUNTER_DEF_SIZE 40u
#define RT_PERF_INSTANCE_SIZE 24u
#define RT_PERF_NO_INSTANCES (-1)

struct rt_perf_counter {
    uint32_t name_index, help_index;
    uint32_t type, size, offset;        /* within the counter block */
};

struct rt_perf_instance {
    char *name;                         /* UTF-8; NULL when unreadable */
    uint32_t byte_length;               /* the definition's ByteLength */
    uint32_t block_length;              /* its counter block's ByteLength */
};

struct rt_perf_object {
    size_t offset;                      /* in the buffer */
    uint32_t total_length, definition_length, header_length;
    uint32_t name_index, help_index;
    int32_t num_instances;              /* RT_PERF_NO_INSTANCES or >= 0 */
    struct rt_perf_counter *counters;
    size_t n_counters;
    struct rt_perf_instance *instances;
    size_t n_instances;
    uint32_t block_length;              /* single instance: its block */
    /* The first thing wrong with it; NULL when it walked cleanly. A
     * broken object ends the walk (nothing after it can be found). */
    const char *problem;
};

struct rt_perf_data {
    uint32_t total_length, header_length, num_objects;
    /* Objects found HeaderLength + RT_PERF_DATA_BLOCK_SIZE into the
     * buffer rather than at HeaderLength: where Wine 8 places them. */
    int wine_offset;
    struct rt_perf_object *objects;
    size_t n_objects;
    const char *problem;                /* the block itself, or NULL */
};

/* Walks LEN bytes (CAP: what the buffer holds, at least LEN; Wine's
 * offset objects may end past LEN). Returns 0 with *OUT filled (its
 * problem fields say what is wrong), or -1 when out of memory. */
int rt_perf_data_parse(const uint8_t *buf, size_t len, size_t cap,
                       struct rt_perf_data *out);
void rt_perf_data_free(struct rt_perf_data *d);

/* The indices a service's Object List value names (decimal numbers
 * separated by spaces; any other character is skipped), as a new array
 * of *N (S may be NULL: none). NULL when out of memory. */
uint32_t *rt_object_list_parse(const char *s, size_t *n);

#endif
