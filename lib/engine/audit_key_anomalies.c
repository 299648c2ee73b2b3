/* Engine layer: the key anomalies a store reports (a link key, keys that
 * differ only in case, a key listed under a parent that is not its own)
 * as audit findings, and as the refusal of every writer. */
#include "engine/audit.h"

#include <stdio.h>

/* One anomaly in words: the finding's id and its message. */
static const char *anomaly_id(const struct rt_key_anomaly *x)
{
    if (x->kind == RT_KEY_SELECT_DIFFERS)
        return "control-sets-differ";
    if (x->kind == RT_KEY_NUMBERED_SET)
        return "service-key-in-numbered-set";
    if (x->kind == RT_KEY_LINK)
        return x->in_perflib ? "perflib-key-is-link" : "service-key-is-link";
    if (x->kind == RT_KEY_MISPARENTED)
        return x->in_perflib ? "perflib-key-misparented"
                             : "service-key-misparented";
    return x->in_perflib ? "perflib-keys-differ-in-case"
                         : "service-keys-differ-in-case";
}

static void anomaly_text(const struct rt_key_anomaly *x, char *buf,
                         size_t size)
{
    if (x->kind == RT_KEY_NUMBERED_SET)
        snprintf(buf, size,
                 "%s sets a provider's key under a numbered control set "
                 "(and %s): reg import writes it into that set, which is "
                 "CurrentControlSet's on a machine booted from it, and "
                 "regtool reads only CurrentControlSet's sections, so what "
                 "it sets (a provider's Library) is not checked", x->key,
                 x->other ? x->other : "no more");
    else if (x->kind == RT_KEY_SELECT_DIFFERS)
        snprintf(buf, size,
                 "%s is the control set regtool reads and writes, but %s is "
                 "the one the next boot uses (after a last-known-good boot, "
                 "or set so to hide a provider there): its providers are not "
                 "checked, and a change here would not be the one Windows "
                 "loads", x->key, x->other);
    else
    if (x->kind == RT_KEY_LINK)
        snprintf(buf, size,
                 "%s is a symbolic link key to %s: Windows reads that key in "
                 "its place, and regtool does not follow links, so what it "
                 "holds (a provider's Library, a table) is not checked",
                 x->key, x->other ? x->other : "a key its SymbolicLinkValue "
                                               "does not name");
    else if (x->kind == RT_KEY_MISPARENTED)
        snprintf(buf, size,
                 "%s is listed there, but its own parent is another key (a "
                 "loop in the key tree, or a key listed in two places): the "
                 "hive is damaged (hive check names it), and a write there "
                 "would land in that other key", x->key);
    else
        snprintf(buf, size,
                 "%s and %s differ only in letter case: Windows reads one of "
                 "them by either name, and which one is not known, so the "
                 "other's values are not checked", x->key, x->other);
}

#define SYMPTOM_KEY_ANOMALY                                                   \
    "consumers and Perflib may read values no audit here has seen (a "      \
    "provider DLL loaded into every program that reads performance data)"
#define FIX_KEY_ANOMALY                                                       \
    "inspect the keys (hive check names them) and remove the link or the "  \
    "extra key with a registry editor; regtool writes nothing to this tree "\
    "until then"

int rt_audit_key_anomalies(const struct rt_key_anomaly *v, size_t n,
                           struct rt_findings *out)
{
    for (size_t i = 0; i < n; i++) {
        char text[1200];
        anomaly_text(&v[i], text, sizeof text);
        if (rt_findings_add(out, anomaly_id(&v[i]), RT_AUDIT_ERROR, NULL,
                            SYMPTOM_KEY_ANOMALY, FIX_KEY_ANOMALY, "%s",
                            text) != 0)
            return -1;
    }
    return 0;
}

int rt_refuse_key_anomalies(const struct rt_key_anomaly *v, size_t n,
                            struct rt_error *e)
{
    if (!n)
        return 0;
    char text[1200];
    anomaly_text(&v[0], text, sizeof text);
    return rt_error_set(e, RT_ERR_BADDB,
                        "%s (%s%s); nothing was written: remove the %s first",
                        text, anomaly_id(&v[0]),
                        n > 1 ? ", and more: regtool audit lists them" : "",
                        v[0].kind == RT_KEY_NUMBERED_SET
                            ? "numbered control set's keys (or put them under "
                              "CurrentControlSet)"
                        : v[0].kind == RT_KEY_SELECT_DIFFERS
                            ? "difference (set Select's Current and Default "
                              "to the control set Windows is to boot, with a "
                              "registry editor)"
                        : v[0].kind == RT_KEY_LINK        ? "link"
                        : v[0].kind == RT_KEY_MISPARENTED ? "damage (a registry "
                                                            "editor, or restore "
                                                            "the hive)"
                                                          : "extra key");
}
