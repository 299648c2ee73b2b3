/* Engine layer: the trust boundaries of install (engine.h,
 * rt_engine_install_trust). Every program that reads performance data
 * loads each provider's Library, so an INI that lands on a service the
 * system owns, or an install that rewrites a Library, decides what code
 * runs in them: those are refused unless the caller says --force. Pure:
 * from the database and the service as read. And the name a writer is
 * given for a service (database.h, rt_service_name_check), checked
 * before anything is read. */
#include "engine/engine.h"
#include "engine/audit.h"
#include "engine/side_files.h"
#include "model/perf_data.h"
#include "model/strbuf.h"
#include "model/utf16.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* SVC's name as the registry spells it (service names ignore case, so
 * "perfos" is PerfOS), or SVC's own when it has no Performance key. */
static const char *registry_name(const struct rt_database *db,
                                 const struct rt_service_info *svc)
{
    for (size_t i = 0; i < db->n_services; i++)
        if (!rt_name_casecmp(db->services[i].name, svc->name))
            return db->services[i].name;
    return svc->name;
}

static const char *library_shown(const struct rt_service_info *svc)
{
    return svc->library       ? svc->library
           : svc->has_library ? "not a string"
                              : "none";
}

/* Whether SVC's Object List names an object of the base range: the
 * system's providers serve objects whose indices Windows itself ships
 * (PerfOS: 2 4 86 238 ...), a provider lodctr installed only its own. */
static int lists_base_objects(const struct rt_database *db,
                              const struct rt_service_info *svc, int *failed)
{
    size_t n = 0;
    uint32_t *list = rt_object_list_parse(svc->object_list, &n);
    if (!list) {
        *failed = 1;
        return 0;
    }
    int base = 0;
    for (size_t i = 0; i < n && !base; i++)
        base = list[i] >= 1 && list[i] <= db->base_index;
    free(list);
    return base;
}

/* Why SVC is one of the system's providers, into WHY ("" when it is
 * not): its name is one of Windows' built-in providers, its range lies in
 * the base range, or it has a Library and no range of its own while its
 * Object List names objects of the base range. A service whose installer
 * wrote the Library before running lodctr (the usual order) is none of
 * these. */
int rt_engine_system_provider(const struct rt_database *db,
                              const struct rt_service_info *svc, char *why,
                              size_t size)
{
    *why = '\0';
    const char *name = registry_name(db, svc);
    /* Its name alone: a range lodctr gave it (a forced install) does not
     * make PerfOS anyone else's, nor does a tree where the service or its
     * Performance key is missing (Windows creates them again). */
    if (rt_audit_system_dll(name)) {
        if (!svc->has_perf)
            snprintf(why, size,
                     "it is one of Windows' built-in providers (this tree "
                     "has %s)", svc->exists ? "its service without a "
                                              "Performance key"
                                            : "no such service");
        else
            snprintf(why, size,
                     "it is one of Windows' built-in providers (Library "
                     "%.200s, %s)",
                     library_shown(svc),
                     svc->has_range ? "with a range lodctr gave it"
                                    : "no range of its own");
        return 0;
    }
    if (!svc->has_perf)
        return 0;
    if (svc->has_range) {
        if (svc->first_counter <= db->base_index ||
            (svc->has_first_help && svc->first_help <= db->base_index))
            snprintf(why, size,
                     "its range (First Counter %u, First Help %u) lies in "
                     "the system's base range (Base Index %u)",
                     svc->first_counter, svc->first_help, db->base_index);
        return 0;
    }
    if (!svc->has_library)
        return 0;
    int failed = 0;
    if (svc->object_list && lists_base_objects(db, svc, &failed))
        snprintf(why, size,
                 "it has a Library (%.200s) and no range of its own, and its "
                 "Object List (%.100s) names objects of the system's base "
                 "range (Base Index %u)",
                 library_shown(svc),
                 svc->object_list, db->base_index);
    return failed ? -1 : 0;
}

int rt_engine_install_trust(const struct rt_database *db,
                            const struct rt_service_info *svc,
                            const struct rt_provider_spec *spec,
                            const struct rt_install_options *opt,
                            struct rt_error *e)
{
    const char *ini = spec->ini_path;
    /* Names that become paths of the INF copy and of every later
     * uninstall and rebuild: input, never forced. */
    char shown[100];
    const char *bad = rt_win_name_problem(spec->drivername);
    if (bad) {
        rt_side_name_shown(spec->drivername, shown, sizeof shown);
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "%s:%u: drivername '%s' cannot name the INF "
                            "folder INF\\<drivername>: %s; nothing was "
                            "written",
                            ini, spec->drivername_line, shown, bad);
    }
    const char *ini_name =
        opt->ini_name ? opt->ini_name : rt_path_base_name(spec->ini_path);
    if ((bad = rt_win_name_problem(ini_name))) {
        rt_side_name_shown(ini_name, shown, sizeof shown);
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "%s: the INI's file name '%s' becomes the "
                            "service's PerfIniFile, which must be one file "
                            "name: %s; nothing was written (rename the INI)",
                            ini, shown, bad);
    }
    /* The symbol file is copied beside it under its own name (review 43
     * R43-9: symbolfile=COM1.h became INF\<driver>\<LLLL>\COM1.h). */
    const char *sym = spec->symbolfile ? rt_path_base_name(spec->symbolfile)
                                       : NULL;
    if (sym && (bad = rt_win_name_problem(sym))) {
        rt_side_name_shown(sym, shown, sizeof shown);
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "%s:%u: symbolfile '%s' cannot name its copy in "
                            "the INF folder: %s; nothing was written "
                            "(rename the symbol file)",
                            ini, spec->symbolfile_line, shown, bad);
    }
    /* Both lie in one INF folder, whose names ignore letter case on
     * Windows: a symbol file named as the INI in another case (review 44
     * R44-9) would leave the copy one file, its INI or its symbols. */
    if (sym && rt_name_casecmp(sym, ini_name) == 0) {
        rt_side_name_shown(sym, shown, sizeof shown);
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "%s:%u: symbolfile '%s' names the INI's own "
                            "copy in the INF folder (names there ignore "
                            "letter case); nothing was written (rename the "
                            "symbol file)",
                            ini, spec->symbolfile_line, shown);
    }
    if (opt->force)
        return 0;

    const char *name = registry_name(db, svc);
    char spelled[200] = "";
    if (strcmp(name, spec->drivername))
        snprintf(spelled, sizeof spelled,
                 " (the INI's drivername '%.80s' is the same service: "
                 "service names ignore case)",
                 spec->drivername);
    char why[600];
    if (rt_engine_system_provider(db, svc, why, sizeof why) != 0)
        return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
    if (*why)
        return rt_error_set(
            e, RT_ERR_ALREADY_EXISTS,
            "refusing to install %s onto service '%s'%s: it is one of the "
            "system's providers: %s; the INI's counters would take over its "
            "Performance key%s; nothing was written (check the INI's "
            "drivername; 'regtool install --force' installs onto it anyway)",
            ini, name, spelled, why,
            opt->create_service ? " and --create-service would replace its "
                                  "Library"
                                : "");
    int has_library = svc->has_perf && svc->has_library;
    if (opt->create_service && has_library &&
        (!svc->library || strcasecmp(svc->library, opt->library)))
        return rt_error_set(
            e, RT_ERR_ALREADY_EXISTS,
            "refusing to install %s with --create-service: service '%s'%s "
            "already has a Library (%.200s), which --library would replace "
            "with %.200s; nothing was written (install without "
            "--create-service keeps the service's own; --force replaces it)",
            ini, name, spelled, library_shown(svc),
            opt->library);
    return 0;
}

/* A name given to a writer (a drivername, unlodctr's argument) becomes a
 * path below Services: "" would name Services itself, "a\\b" a key below
 * another service's, and a name past 255 characters no key at all; "."
 * and ".." are no service Windows creates (CreateService forbids '\\'
 * and '/') and read as path steps to any tool that shows keys as paths.
 * Refused before anything is read or locked. */
int rt_service_name_check(const char *name, struct rt_error *e)
{
    size_t chars = rt_utf8_utf16_units(name);
    const char *why = !*name ? "it is empty"
                      : strchr(name, '\\') ? "it holds '\\'"
                      : strchr(name, '/')  ? "it holds '/'"
                      : !strcmp(name, ".") || !strcmp(name, "..")
                          ? "it is a path step"
                      : chars > 255 ? "it is longer than 255 characters"
                                    : NULL;
    if (!why)
        return 0;
    return rt_error_set(e, RT_ERR_INVALID_PARAMETER,
                        "'%.80s%s' is not a service name (a subkey of "
                        "Services): %s; nothing was written", name,
                        chars > 80 ? "..." : "", why);
}
