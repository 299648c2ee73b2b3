/* Engine layer, inside the audit (audit.h): what its checks share, the
 * database's checks (audit_checks.c) and the providers' (audit_providers.c).
 * Not for other files. */
#ifndef RT_AUDIT_INTERNAL_H
#define RT_AUDIT_INTERNAL_H

#include "engine/audit.h"
#include "engine/owned_ranges.h"

/* What consumers show (docs/design.md, "What consumers say"), quoted where
 * they print it. */
#define SYMPTOM_NET_INDEX                                                     \
    ".NET: \"Cannot load Counter Name data because an invalid index '' was " \
    "read from the registry\""
#define SYMPTOM_NOT_FOUND                                                     \
    "windows_exporter and PDH: \"counter not found\" for the names involved"
#define SYMPTOM_DISABLED                                                      \
    "PDH: \"PdhAddEnglishCounterW failed. Performance counters may be "      \
    "disabled\""
#define SYMPTOM_CONSISTENCY                                                   \
    "SQL Server setup: the performance counter registry hive consistency "   \
    "check fails; a new provider may be given indices already in use"
#define SYMPTOM_NO_ROOM                                                       \
    "lodctr and installers: a new provider's counters cannot be installed"
#define SYMPTOM_RANGE                                                         \
    "Datadog agent: \"index out of range\"; consumers show the wrong name "  \
    "for a counter"
#define SYMPTOM_CORRUPT                                                       \
    "LoadPerf event 2004: \"The Performance registry value %1 string is "    \
    "corrupted\"; consumers read nothing past the damage"
#define SYMPTOM_NO_LANGUAGE                                                   \
    "LoadPerf event 2005: \"No COUNTER/HELP definition for Language %1\""
#define SYMPTOM_ENGLISH                                                       \
    "PDH: \"PdhAddEnglishCounterW failed. Performance counters may be "      \
    "disabled\" (English names not found); windows_exporter: \"counter not " \
    "found\""
#define SYMPTOM_HELP                                                          \
    "Performance Monitor shows no explanation for the counter"
#define SYMPTOM_CURRENT                                                       \
    "consumers that read CurrentLanguage (Performance Monitor, typeperf) "   \
    "show names that differ from the language it mirrors"

#define SYMPTOM_WOW64                                                         \
    "32-bit programs (32-bit .NET applications and services, the 32-bit "   \
    "Performance Monitor) read SysWOW64's tables: they show other names "   \
    "than 64-bit ones, or \"counter not found\""
#define SYMPTOM_HIVE_COPY                                                     \
    "programs that read the hive's values rather than what Windows serves "  \
    "(offline tools, a registry export, a copy of the hive) see other names " \
    "than consumers get"

#define SYMPTOM_INI_FILE                                                      \
    "PerfIniFile names the provider's INF copy (INF\\<service>\\<LLLL>\\"   \
    "<PerfIniFile>): lodctr /R finds none and rebuilds without the "        \
    "provider's strings, and uninstall cannot remove the copy"
#define FIX_INI_FILE                                                          \
    "reinstall the provider (regtool install --replace INI: PerfIniFile "   \
    "becomes the INI's file name), or uninstall it (the ranges go; the INF " \
    "copy is left and named)"
#define FIX_REPAIR "regtool repair"
#define FIX_PRUNE "regtool repair --prune-orphans"
#define FIX_FROM_INI                                                          \
    "regtool repair --from-ini DIR (DIR holding the provider's INI and "    \
    "symbol file; its INF copy is read when DIR has none), or reinstall "   \
    "the provider (regtool install --replace INI)"
#define FIX_RESTORE "regtool restore BACKUP, or regtool rebuild"
#define FIX_REINSTALL "reinstall the provider (regtool install --replace INI)"

/* A table's pairs by index (ties in table order), for lookups and merges.
 * The pairs stay where they are in the blob, UTF-16: audit reads indices
 * and compares bytes, and decodes only the texts it shows as evidence. */
struct view {
    const struct rt_table *t;
    const struct rt_msz_entry **p;
    size_t n;
};

/* The language's sorted views, made once. */
struct lang_views {
    const struct rt_db_language *l;
    struct view counter, help;
};

struct audit {
    const struct rt_database *db;
    struct rt_findings *f;
    struct lang_views *lv;
    size_t n;
    const struct lang_views *english;
    int failed;
    /* The union of the providers' names (0) and help texts (1), made once
     * for every language's checks (made for each, it was languages x
     * providers log providers: 8,000 of each, 8 s, review 34 F6). */
    struct rt_span *spans[2];
    size_t n_spans[2];
};

#define ADD(a, ...)                                                           \
    do {                                                                      \
        if (rt_findings_add((a)->f, __VA_ARGS__) != 0)                        \
            (a)->failed = 1;                                                  \
    } while (0)
#define EVIDENCE(a, i, t)                                                     \
    do {                                                                      \
        if (rt_findings_evidence((a)->f, (i), (t)) != 0)                      \
            (a)->failed = 1;                                                  \
    } while (0)

/* The first of V's pairs at INDEX or above (V->n when none). */
size_t rt_audit_view_lower(const struct view *v, uint32_t index);
/* The providers' checks: ranges, overlaps, Object Lists, their names in
 * every language. */
void rt_audit_check_providers(struct audit *a);

#endif
