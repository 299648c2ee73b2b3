/* Hive-file layer: predefined-handle keys. Windows Vista and later keep
 * Perflib\009 and Perflib\CurrentLanguage as keys flagged
 * KEY_PREDEF_HANDLE whose value-count field holds the handle
 * (HKEY_PERFORMANCE_TEXT, HKEY_PERFORMANCE_NLSTEXT) and which have no
 * values; `regtool init --layout files` writes them that way. */
#include "regf/regf_internal.h"

int rt_regf_key_set_predefined(struct rt_regf *h, uint32_t key,
                               uint32_t handle)
{
    uint8_t *nk;
    uint32_t len;
    int r = regf_require_writable(h);
    if (r || (r = regf_nk(h, key, &nk, &len)))
        return r;
    uint16_t flags = regf_le16(nk + NK_FLAGS);
    if (!(flags & KEY_PREDEF_HANDLE) && regf_le32(nk + NK_NVAL) != 0)
        return regf_fail(h, RT_REGF_EINVAL,
                         "key at offset %u has values; a predefined-handle "
                         "key has none",
                         key);
    regf_set16(h, key, NK_FLAGS, (uint16_t)(flags | KEY_PREDEF_HANDLE));
    regf_set32(h, key, NK_NVAL, handle);
    regf_set32(h, key, NK_VALLIST, RT_REGF_NONE);
    return 0;
}
