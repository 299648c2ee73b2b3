/* Engine layer: repair of the name database, as a change set. Pure. It
 * fixes what needs no guessing: every valid pair of a damaged blob is kept
 * (salvaged past the damage), a duplicate index keeps the text another
 * language confirms (else the first, reported), Last Counter/Last Help
 * cover the highest index again, a missing Base Index comes back, entries
 * a language lacks above Base Index get their English text, CurrentLanguage
 * becomes a copy of the language it mirrors; orphaned strings are pruned
 * and disabled providers re-enabled only when asked. What it cannot fix
 * (a provider's range that is wrong, English overwritten) is reported with
 * the reason. A repaired database gives an empty change set: repair is
 * idempotent. */
#ifndef RT_REPAIR_H
#define RT_REPAIR_H

#include "engine/audit.h"
#include "engine/database.h"
#include "model/change_set.h"
#include "model/error.h"
#include "provider/provider_spec.h"

struct rt_repair_options {
    int prune_orphans;      /* remove strings above Base Index no provider owns */
    int enable_disabled;    /* delete Disable Performance Counters values */
    /* --from-ini: a provider's missing strings come back from its INI
     * (matched by drivername; several per provider, as the INF copies
     * keep one INI per language), at First Counter/First Help plus the
     * symbols' offsets. FROM_INI set: each provider missing strings is
     * reported, restored or not, with why not. */
    int from_ini;
    const struct rt_provider_spec *const *inis;
    size_t n_inis;
};

/* What repair did and what it left, as findings (severity info for a fix,
 * the audit finding's own severity for what stays). */
struct rt_repair_report {
    struct rt_findings fixed;
    struct rt_findings left;
};

/* Computes the repair of DB into CS (empty when nothing needs fixing).
 * Returns 0, or -1 with E set (out of memory). */
int rt_engine_repair(const struct rt_database *db,
                     const struct rt_repair_options *opt,
                     struct rt_change_set *cs, struct rt_repair_report *r,
                     struct rt_error *e);

void rt_repair_report_free(struct rt_repair_report *r);

#endif
