/* Model-to-hive: writes the generated base database's SYSTEM side into a
 * regf handle (in memory; saving is the caller's). */
#include "store/base_hive.h"

#include <stdio.h>

#include "model/base_tables.h"
#include "model/change_set.h"

int rt_base_set_dword(struct rt_regf *h, uint32_t key, const char *name,
                      uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
                    (uint8_t)(v >> 24)};
    return rt_regf_value_set(h, key, name, RT_REG_DWORD, b, 4);
}

int rt_base_set_string(struct rt_regf *h, uint32_t key, const char *name,
                       uint32_t type, const char *s)
{
    struct rt_value v;
    if (rt_value_from_string(&v, type, s) != 0)
        return RT_REGF_ENOMEM;
    int r = rt_regf_value_set(h, key, name, type, v.data, v.len);
    rt_value_free(&v);
    return r;
}

static int add_provider(struct rt_regf *sy, uint32_t services,
                        const struct rt_base_provider *p)
{
    char path[256];
    uint32_t perf;
    snprintf(path, sizeof path, "%s\\Performance", p->service);
    int rc;
    if ((rc = rt_regf_key_create_path(sy, services, path, &perf)) ||
        (rc = rt_base_set_string(sy, perf, "Library", RT_REG_EXPAND_SZ,
                                 p->library)) ||
        (rc = rt_base_set_string(sy, perf, "Open", RT_REG_SZ,
                                 "OpenPerformanceData")) ||
        (rc = rt_base_set_string(sy, perf, "Collect", RT_REG_SZ,
                                 "CollectPerformanceData")) ||
        (rc = rt_base_set_string(sy, perf, "Close", RT_REG_SZ,
                                 "ClosePerformanceData")) ||
        (rc = rt_base_set_dword(sy, perf, "First Counter", p->first_counter)) ||
        (rc = rt_base_set_dword(sy, perf, "Last Counter", p->last_counter)) ||
        (rc = rt_base_set_dword(sy, perf, "First Help", p->first_help)) ||
        (rc = rt_base_set_dword(sy, perf, "Last Help", p->last_help)))
        return rc;
    return 0;
}

int rt_base_build_system(struct rt_regf *sy, unsigned extra)
{
    uint32_t sel, svc, perf, root = rt_regf_root(sy);
    int rc;
    if ((rc = rt_regf_key_create_path(sy, root, "Select", &sel)) ||
        (rc = rt_base_set_dword(sy, sel, "Current", 1)) ||
        (rc = rt_base_set_dword(sy, sel, "Default", 1)) ||
        (rc = rt_base_set_dword(sy, sel, "Failed", 0)) ||
        (rc = rt_base_set_dword(sy, sel, "LastKnownGood", 2)) ||
        (rc = rt_regf_key_create_path(sy, root, "ControlSet001\\Services",
                                      &svc)) ||
        (rc = rt_regf_key_create_path(sy, root, "ControlSet002\\Services",
                                      &perf)))
        return rc;
    size_t n;
    const struct rt_base_provider *p = rt_base_providers(&n);
    for (size_t i = 0; i < n; i++)
        if ((rc = add_provider(sy, svc, &p[i])))
            return rc;
    for (unsigned i = 0; i < extra; i++) {
        struct rt_base_provider x;
        char service[32];
        rt_base_extra_provider(i, &x, service, sizeof service);
        if ((rc = add_provider(sy, svc, &x)))
            return rc;
    }
    /* A provider with a Library but no range, as PerfOS is on a real
     * system (its names are in the base range), with its procedures. */
    if ((rc = rt_regf_key_create_path(sy, svc, "PerfOS\\Performance", &perf)) ||
        (rc = rt_base_set_string(sy, perf, "Library", RT_REG_EXPAND_SZ,
                                 "%SystemRoot%\\System32\\perfos.dll")) ||
        (rc = rt_base_set_string(sy, perf, "Open", RT_REG_SZ,
                                 "OpenOSObject")) ||
        (rc = rt_base_set_string(sy, perf, "Collect", RT_REG_SZ,
                                 "CollectOSObjectData")) ||
        (rc = rt_base_set_string(sy, perf, "Close", RT_REG_SZ,
                                 "CloseOSObject")))
        return rc;
    return 0;
}
