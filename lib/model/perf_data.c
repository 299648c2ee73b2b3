/* Model layer: walking a performance data block with every length checked
 * (model/perf_data.h). Fields are read byte by byte in little-endian, so
 * the walk is the same on any host and never reads unaligned memory. */
#include "model/perf_data.h"

#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

static uint32_t u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Whether N bytes at AT lie within LIMIT, without overflow. */
static int within(size_t limit, size_t at, size_t n)
{
    return at <= limit && n <= limit - at;
}

/* Whether a plausible PERF_OBJECT_TYPE starts at OFF of SIZE bytes: its
 * header, definitions and total fit each other and the block. */
static int object_ok(const uint8_t *buf, size_t size, size_t off)
{
    if (!within(size, off, RT_PERF_OBJECT_SIZE))
        return 0;
    const uint8_t *o = buf + off;
    uint32_t total = u32(o), def = u32(o + 4), head = u32(o + 8);
    return head >= RT_PERF_OBJECT_SIZE && def >= head && total >= def &&
           within(size, off, total);
}

/* The instance name of BYTES at P as UTF-8 in *OUT: 0, 1 when it is not
 * valid UTF-16, -1 when out of memory. */
static int instance_name(const uint8_t *p, uint32_t bytes, char **out)
{
    size_t units = bytes / 2;
    /* NameLength counts the NUL; stop at the first one all the same. */
    size_t n = 0;
    while (n < units && (p[2 * n] | p[2 * n + 1]))
        n++;
    int r = rt_utf16le_to_utf8(p, 2 * n, out, NULL, NULL);
    return r == 0 ? 0 : r == -1 ? 1 : -1;
}

/* Reads the counter block at AT of object O (TOTAL bytes). Returns its
 * length, or 0 with *PROBLEM set. */
static uint32_t counter_block(const uint8_t *o, uint32_t total, size_t at,
                              const char **problem)
{
    if (!within(total, at, 4)) {
        *problem = "counter block past the end of the object";
        return 0;
    }
    uint32_t len = u32(o + at);
    if (len < 4 || !within(total, at, len)) {
        *problem = "counter block length does not fit the object";
        return 0;
    }
    return len;
}

static int walk_object(const uint8_t *buf, size_t off, struct rt_perf_object *x)
{
    const uint8_t *o = buf + off;
    x->offset = off;
    x->total_length = u32(o);
    x->definition_length = u32(o + 4);
    x->header_length = u32(o + 8);
    x->name_index = u32(o + 12);
    x->help_index = u32(o + 20);
    uint32_t n_counters = u32(o + 32);
    x->num_instances = (int32_t)u32(o + 40);

    /* Definitions: each at least a PERF_COUNTER_DEFINITION, all within
     * DefinitionLength; so their count is bounded by the bytes. */
    size_t at = x->header_length;
    size_t most = (x->definition_length - at) / RT_PERF_COUNTER_DEF_SIZE;
    if (n_counters > most) {
        x->problem = "more counters than DefinitionLength holds";
        return 0;
    }
    x->counters = calloc(n_counters ? n_counters : 1, sizeof *x->counters);
    if (!x->counters)
        return -1;
    for (uint32_t c = 0; c < n_counters; c++) {
        const uint8_t *d = o + at;
        uint32_t len = u32(d);
        if (len < RT_PERF_COUNTER_DEF_SIZE ||
            !within(x->definition_length, at, len)) {
            x->problem = "a counter definition's ByteLength does not fit";
            return 0;
        }
        struct rt_perf_counter *k = &x->counters[x->n_counters++];
        k->name_index = u32(d + 4);
        k->help_index = u32(d + 12);
        k->type = u32(d + 28);
        k->size = u32(d + 32);
        k->offset = u32(d + 36);
        at += len;
    }

    at = x->definition_length;
    if (x->num_instances == RT_PERF_NO_INSTANCES) {
        x->block_length = counter_block(o, x->total_length, at, &x->problem);
        return 0;
    }
    if (x->num_instances < 0) {
        x->problem = "NumInstances is negative";
        return 0;
    }
    /* Each instance takes at least its definition: bounded by the bytes. */
    size_t room = (x->total_length - at) / RT_PERF_INSTANCE_SIZE;
    if ((size_t)x->num_instances > room) {
        x->problem = "more instances than the object's bytes hold";
        return 0;
    }
    x->instances = calloc(x->num_instances ? (size_t)x->num_instances : 1,
                          sizeof *x->instances);
    if (!x->instances)
        return -1;
    for (int32_t i = 0; i < x->num_instances; i++) {
        if (!within(x->total_length, at, RT_PERF_INSTANCE_SIZE)) {
            x->problem = "an instance lies past the end of the object";
            return 0;
        }
        const uint8_t *in = o + at;
        uint32_t len = u32(in), name_off = u32(in + 16),
                 name_len = u32(in + 20);
        if (len < RT_PERF_INSTANCE_SIZE || !within(x->total_length, at, len) ||
            !within(len, name_off, name_len) || name_len < 2 ||
            (name_len & 1)) {
            x->problem = "an instance definition's lengths do not fit";
            return 0;
        }
        struct rt_perf_instance *y = &x->instances[x->n_instances++];
        y->byte_length = len;
        int r = instance_name(in + name_off, name_len, &y->name);
        if (r < 0)
            return -1;
        if (r > 0) {
            x->problem = "an instance name is not valid UTF-16";
            return 0;
        }
        at += len;
        y->block_length = counter_block(o, x->total_length, at, &x->problem);
        if (!y->block_length)
            return 0;
        at += y->block_length;
    }
    return 0;
}

int rt_perf_data_parse(const uint8_t *buf, size_t len, size_t cap,
                       struct rt_perf_data *out)
{
    memset(out, 0, sizeof *out);
    if (len < RT_PERF_DATA_BLOCK_SIZE) {
        out->problem = "shorter than a PERF_DATA_BLOCK";
        return 0;
    }
    if (memcmp(buf, "P\0E\0R\0F\0", 8) != 0) {
        out->problem = "no PERF signature";
        return 0;
    }
    out->total_length = u32(buf + 20);
    out->header_length = u32(buf + 24);
    out->num_objects = u32(buf + 28);
    if (out->total_length > len || out->header_length > out->total_length ||
        out->header_length < RT_PERF_DATA_BLOCK_SIZE) {
        out->problem = "PERF_DATA_BLOCK lengths do not fit the data";
        return 0;
    }
    size_t size = out->total_length, off = out->header_length;
    if (cap < len)
        cap = len;
    /* Wine 8 hands the providers the buffer one PERF_DATA_BLOCK further
     * than HeaderLength while TotalByteLength counts from HeaderLength. */
    if (out->num_objects > 0 && !object_ok(buf, size, off) &&
        object_ok(buf, cap, off + RT_PERF_DATA_BLOCK_SIZE)) {
        out->wine_offset = 1;
        off += RT_PERF_DATA_BLOCK_SIZE;
        size = cap;
    }
    size_t most = (size - (off < size ? off : size)) / RT_PERF_OBJECT_SIZE;
    if (out->num_objects > most) {
        out->problem = "more objects than the data holds";
        return 0;
    }
    out->objects = calloc(out->num_objects ? out->num_objects : 1,
                          sizeof *out->objects);
    if (!out->objects)
        return -1;
    for (uint32_t i = 0; i < out->num_objects; i++) {
        if (!object_ok(buf, size, off)) {
            out->problem = "an object's lengths do not fit the data";
            return 0;
        }
        struct rt_perf_object *x = &out->objects[out->n_objects++];
        if (walk_object(buf, off, x) != 0) {
            rt_perf_data_free(out);
            return -1;
        }
        if (x->problem)
            return 0;
        off += x->total_length;
    }
    return 0;
}

void rt_perf_data_free(struct rt_perf_data *d)
{
    for (size_t i = 0; i < d->n_objects; i++) {
        struct rt_perf_object *x = &d->objects[i];
        free(x->counters);
        for (size_t k = 0; k < x->n_instances; k++)
            free(x->instances[k].name);
        free(x->instances);
    }
    free(d->objects);
    memset(d, 0, sizeof *d);
}

uint32_t *rt_object_list_parse(const char *s, size_t *n)
{
    *n = 0;
    size_t cap = 8;
    uint32_t *v = malloc(cap * sizeof *v);
    if (!v)
        return NULL;
    while (s && *s) {
        char *end;
        unsigned long x = strtoul(s, &end, 10);
        if (end == s) {
            s++;
            continue;
        }
        if (*n == cap) {
            uint32_t *w = realloc(v, (cap *= 2) * sizeof *v);
            if (!w) {
                free(v);
                return NULL;
            }
            v = w;
        }
        v[(*n)++] = (uint32_t)x;
        s = end;
    }
    return v;
}
