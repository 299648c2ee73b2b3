/* mkhostile: plants the hostile names of tests/cli/hostile_names.sh in a
 * SYSTEM hive that `regtool init` made, with regtool's own hive writer
 * (linked from libregtool.a): key names and values a .reg file or hivexsh
 * cannot carry (a newline in a key name).
 *
 *   mkhostile SYSTEM SERVICE LIBRARY INIFILE FIRST
 *       SERVICE (UTF-8, any characters but '\') under
 *       ControlSet001\Services with a Performance key: Library LIBRARY
 *       (REG_EXPAND_SZ), Open/Collect/Close, PerfIniFile INIFILE and the
 *       counter range FIRST..FIRST+3
 * Exit 0 done, 1 on any failure (with the writer's message). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"
#include "regf/regf.h"

#define SERVICES "ControlSet001\\Services"

static int fail(struct rt_regf *h, const char *what)
{
    fprintf(stderr, "mkhostile: %s: %s\n", what, h ? rt_regf_errmsg(h) : "");
    return 1;
}

static int dword(struct rt_regf *h, uint32_t key, const char *name,
                 uint32_t v)
{
    uint8_t b[4] = {v & 0xFF, v >> 8 & 0xFF, v >> 16 & 0xFF, v >> 24};
    return rt_regf_value_set(h, key, name, RT_REG_DWORD, b, 4);
}

/* TEXT (UTF-8) as a string value of TYPE, with its terminator. */
static int text(struct rt_regf *h, uint32_t key, const char *name,
                uint32_t type, const char *s)
{
    uint8_t *u;
    size_t n, bad;
    if (rt_utf8_to_utf16le(s, strlen(s) + 1, &u, &n, &bad) != 0)
        return -1;
    int rc = rt_regf_value_set(h, key, name, type, u, n);
    free(u);
    return rc;
}

static uint32_t first(char **argv)
{
    return (uint32_t)strtoul(argv[5], NULL, 10);
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: mkhostile SYSTEM SERVICE LIBRARY INIFILE "
                        "FIRST\n");
        return 2;
    }
    char err[256];
    struct rt_regf *h;
    if (rt_regf_open(argv[1], RT_REGF_WRITE, &h, err, sizeof err)) {
        fprintf(stderr, "mkhostile: %s: %s\n", argv[1], err);
        return 1;
    }
    uint32_t svcs, svc, perf;
    int rc = 0;
    if (rt_regf_lookup(h, rt_regf_root(h), SERVICES, &svcs))
        rc = fail(h, SERVICES);
    else if (rt_regf_key_create(h, svcs, argv[2], &svc) ||
             rt_regf_key_create(h, svc, "Performance", &perf) ||
             text(h, perf, "Library", RT_REG_EXPAND_SZ, argv[3]) ||
             text(h, perf, "Open", RT_REG_SZ, "OpenEvil") ||
             text(h, perf, "Collect", RT_REG_SZ, "CollectEvil") ||
             text(h, perf, "Close", RT_REG_SZ, "CloseEvil") ||
             text(h, perf, "PerfIniFile", RT_REG_SZ, argv[4]) ||
             dword(h, perf, "First Counter", first(argv)) ||
             dword(h, perf, "Last Counter", first(argv) + 2) ||
             dword(h, perf, "First Help", first(argv) + 1) ||
             dword(h, perf, "Last Help", first(argv) + 3))
        rc = fail(h, "the service");
    if (!rc && rt_regf_save_as(h, argv[1]))
        rc = fail(h, argv[1]);
    rt_regf_close(h);
    return rc;
}
