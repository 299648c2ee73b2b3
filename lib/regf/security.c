/* Hive-file layer: key security cells (sk). Keys share them by reference
 * count; all sk cells of a hive form a doubly linked list (flink/blink).
 * A new hive gets one sk with a default descriptor: owner Administrators,
 * group SYSTEM, full control for SYSTEM and Administrators, read for
 * Everyone, inherited by subkeys. */
#include <string.h>

#include "regf/regf_internal.h"

static size_t put_sid(uint8_t *p, uint8_t authority, const uint32_t *subs,
                      uint8_t nsubs)
{
    p[0] = 1;
    p[1] = nsubs;
    memset(p + 2, 0, 5);
    p[7] = authority;
    for (uint8_t i = 0; i < nsubs; i++)
        regf_put32(p + 8 + 4 * i, subs[i]);
    return 8 + 4u * nsubs;
}

static size_t put_ace(uint8_t *p, uint32_t mask, uint8_t authority,
                      const uint32_t *subs, uint8_t nsubs)
{
    p[0] = 0;       /* ACCESS_ALLOWED_ACE_TYPE */
    p[1] = 0x02;    /* CONTAINER_INHERIT_ACE */
    regf_put32(p + 4, mask);
    size_t len = 8 + put_sid(p + 8, authority, subs, nsubs);
    regf_put16(p + 2, (uint16_t)len);
    return len;
}

/* Builds the default self-relative descriptor in BUF; returns its size. */
static size_t default_descriptor(uint8_t *buf, size_t size)
{
    static const uint32_t system[] = {18}, admins[] = {32, 544}, world[] = {0};
    const uint32_t key_all = 0xF003F, key_read = 0x20019;
    /* Reserved bytes (the ACL's Sbz1 and Sbz2) must be zero on disk. */
    memset(buf, 0, size);
    buf[0] = 1;                                 /* revision */
    regf_put16(buf + 2, 0x8004);                /* self-relative, DACL */
    size_t p = 20;
    uint8_t *acl = buf + p;
    acl[0] = 2;                                 /* ACL revision */
    size_t a = 8;
    a += put_ace(acl + a, key_all, 5, system, 1);
    a += put_ace(acl + a, key_all, 5, admins, 2);
    a += put_ace(acl + a, key_read, 1, world, 1);
    regf_put16(acl + 2, (uint16_t)a);
    regf_put16(acl + 4, 3);
    regf_put32(buf + 16, (uint32_t)p);          /* DACL */
    p += a;
    regf_put32(buf + 4, (uint32_t)p);           /* owner */
    p += put_sid(buf + p, 5, admins, 2);
    regf_put32(buf + 8, (uint32_t)p);           /* group */
    p += put_sid(buf + p, 5, system, 1);
    return p;
}

int regf_sk_new_default(struct rt_regf *h, uint32_t *off)
{
    uint8_t desc[256];
    size_t dlen = default_descriptor(desc, sizeof desc);
    uint32_t sk;
    int rc = regf_alloc(h, (uint32_t)(SK_DESC + dlen), &sk);
    if (rc)
        return rc;
    uint8_t *p = regf_cell_write(h, sk, SK_DESC + dlen);
    memset(p, 0, SK_DESC);
    memcpy(p, "sk", 2);
    regf_put32(p + SK_FLINK, sk);
    regf_put32(p + SK_BLINK, sk);
    regf_put32(p + SK_REFS, 0);
    regf_put32(p + SK_DESCLEN, (uint32_t)dlen);
    memcpy(p + SK_DESC, desc, dlen);
    *off = sk;
    return 0;
}

static int sk_cell(struct rt_regf *h, uint32_t sk, uint8_t **p)
{
    uint32_t len;
    int rc = regf_cell(h, sk, "security cell", p, &len);
    if (rc)
        return rc;
    if (len < SK_DESC || memcmp(*p, "sk", 2))
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "security cell at file offset 0x%llx: not an 'sk' "
                         "record", (unsigned long long)regf_file_off(sk));
    return 0;
}

int regf_sk_addref(struct rt_regf *h, uint32_t sk)
{
    uint8_t *p;
    int rc = sk_cell(h, sk, &p);
    if (rc)
        return rc;
    uint32_t refs = regf_le32(p + SK_REFS);
    if (refs == 0xFFFFFFFFu)
        return regf_fail(h, RT_REGF_ECORRUPT,
                         "security cell at file offset 0x%llx: reference "
                         "count overflows", (unsigned long long)regf_file_off(sk));
    regf_put32(regf_cell_write(h, sk, SK_DESC) + SK_REFS, refs + 1);
    return 0;
}

void regf_sk_release(struct rt_regf *h, uint32_t sk)
{
    uint8_t *p, *np, *pp;
    if (sk_cell(h, sk, &p))
        return;
    uint32_t refs = regf_le32(p + SK_REFS);
    if (refs > 1) {
        regf_put32(regf_cell_write(h, sk, SK_DESC) + SK_REFS, refs - 1);
        return;
    }
    uint32_t next = regf_le32(p + SK_FLINK), prev = regf_le32(p + SK_BLINK);
    if (next == sk || prev == sk) {
        /* The hive's last descriptor stays, unreferenced keys or not. */
        regf_put32(regf_cell_write(h, sk, SK_DESC) + SK_REFS, 0);
        return;
    }
    if (sk_cell(h, next, &np) || sk_cell(h, prev, &pp))
        return;
    regf_put32(regf_cell_write(h, prev, SK_DESC) + SK_FLINK, next);
    regf_put32(regf_cell_write(h, next, SK_DESC) + SK_BLINK, prev);
    regf_free_cell(h, sk);
}
