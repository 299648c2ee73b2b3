/* The generated base database written into hive handles: the SYSTEM
 * side that `regtool init` creates and the benchmark workload reuses. */
#ifndef RT_BASE_HIVE_H
#define RT_BASE_HIVE_H

#include "regf/regf.h"

/* Fills an empty SYSTEM hive: Select (Current 1), ControlSet001 and 002,
 * and in ControlSet001\Services the built-in providers' Performance keys
 * with their ranges, PerfOS with a Library and no range, and EXTRA more
 * providers as rt_base_extra_provider describes them. 0 or a negative
 * RT_REGF_E* code (rt_regf_errmsg says why). */
int rt_base_build_system(struct rt_regf *sy, unsigned extra);

/* Sets a REG_DWORD, or a string value of TYPE (REG_SZ, REG_EXPAND_SZ)
 * from UTF-8. */
int rt_base_set_dword(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t v);
int rt_base_set_string(struct rt_regf *h, uint32_t key, const char *name,
                       uint32_t type, const char *s);

#endif
