/* A realistic base name database, generated: what `regtool init` writes
 * and what tests and benchmarks start from. Deterministic, so two runs
 * give the same bytes. Pure: no I/O.
 *
 * Like a real system it has the system's own range (the "1"/"1847" pair,
 * names at even indices up to the End Marker at 1846, help at odd ones up
 * to 1847) and, above Base Index, a few built-in providers installed the
 * lodctr way, each with its service range; about 2,000 names in all, and
 * an English Help table over 1 MB. */
#ifndef RT_BASE_TABLES_H
#define RT_BASE_TABLES_H

#include <stddef.h>
#include <stdint.h>

#include "model/name_table.h"

struct rt_base_provider {
    const char *service;
    const char *library;
    uint32_t first_counter, last_counter, first_help, last_help;
};

/* The built-in providers (static data) and the resulting Last Counter /
 * Last Help. */
const struct rt_base_provider *rt_base_providers(size_t *n);
uint32_t rt_base_last_counter(void);
uint32_t rt_base_last_help(void);

/* Fills T with LANG's base tables ("009", "019", "00C", ... any
 * three-hex-digit id; the text's script follows the language). Returns 0
 * or -1 when out of memory. */
int rt_base_tables_generate(const char *lang, struct rt_name_table *t);

/* Benchmark-sized databases: EXTRA more providers above the built-in
 * ones, as a machine with many products installed has. Extra provider I
 * (0-based) has RT_BASE_EXTRA_NAMES names and help paragraphs of about
 * 360 UTF-16 units in every script (so a language's Help grows by the
 * same amount whatever its script). Its service name is written to
 * SERVICE (PerfGen001, ...); P->service points there. */
#define RT_BASE_EXTRA_NAMES 500u
void rt_base_extra_provider(unsigned i, struct rt_base_provider *p,
                            char *service, size_t size);
uint32_t rt_base_last_counter_scaled(unsigned extra);
uint32_t rt_base_last_help_scaled(unsigned extra);
/* rt_base_tables_generate plus the EXTRA providers' ranges. */
int rt_base_tables_generate_scaled(const char *lang, unsigned extra,
                                   struct rt_name_table *t);

#endif
