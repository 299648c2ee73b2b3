/* A change set as a .reg patch: the exact change an install, uninstall
 * or restore makes, for review and for applying elsewhere (reg import,
 * hivexregedit --merge). Only the values that change are in it. */
#ifndef RT_REG_PATCH_H
#define RT_REG_PATCH_H

#include <stddef.h>

#include "model/change_set.h"
#include "model/reg_file.h"

/* The keys of a .reg file that hold Perflib and the services. */
#define RT_REG_PERFLIB_KEY \
    "HKEY_LOCAL_MACHINE\\SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\Perflib"
#define RT_REG_SERVICES_KEY \
    "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Services"

/* CS as a patch of FORMAT: each change under its key (keys created as
 * [KEY] lines, values set, deleted values as "name"=-), consecutive
 * changes of one key under one [KEY]. With TABLES 0 (a store keeping its
 * tables in .dat files, which no .reg file reaches) the table changes are
 * left out and counted in *LEFT_OUT. -1 when out of memory. */
int rt_reg_patch(const struct rt_change_set *cs, enum rt_reg_format format,
                 int tables, struct rt_reg_file *out, size_t *left_out);

#endif
