/* Helpers shared by the regf tests: scratch directories, running the
 * referee tools, and a dump of a hive in regfexport's output format so
 * that our reader and libregf's can be compared line by line. */
#ifndef REGF_TESTUTIL_H
#define REGF_TESTUTIL_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regf/regf.h"
#include "scratch.h"
#include "model/utf16.h"

/* H's image as a new block of *LEN bytes, H closed: the hive as a file
 * holds it, to be damaged and opened again. Aborts out of memory. */
static inline uint8_t *tu_image_closed(struct rt_regf *h, size_t *len)
{
    const uint8_t *img;
    rt_regf_image(h, &img, len);
    uint8_t *copy = malloc(*len);
    if (!copy)
        abort();
    memcpy(copy, img, *len);
    rt_regf_close(h);
    return copy;
}

/* A fresh scratch directory (malloc'd path); aborts on failure. */
static inline char *tu_tmpdir(void)
{
    return scratch_dir_new("regf-test");
}

/* Removes DIR and everything under it, and frees DIR. */
static inline void tu_rmdir(char *dir)
{
    if (scratch_remove(dir) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    free(dir);
}

/* Runs CMD through the shell and returns its whole stdout (malloc'd,
 * NUL-terminated), or NULL when it cannot run; the test fails when CMD
 * exits with a status other than 0. */
static inline char *tu_capture(const char *cmd, size_t *len_out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t r = fread(buf + len, 1, cap - len - 1, p);
        if (r == 0)
            break;
        len += r;
    }
    buf[len] = 0;
    /* A referee that fails has not read the hive: its status counts. */
    int status = pclose(p);
    if (status != 0) {
#ifdef fail_msg
        fail_msg("'%s' exited with status %d", cmd, status);
#else
        fprintf(stderr, "'%s' exited with status %d\n", cmd, status);
        abort();
#endif
    }
    if (len_out)
        *len_out = len;
    return buf;
}

/* Text of a growing buffer. */
struct tu_buf {
    char *s;
    size_t len, cap;
};

static inline void tu_printf(struct tu_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static inline void tu_printf(struct tu_buf *b, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(b->s ? b->s + b->len : NULL,
                          b->s ? b->cap - b->len : 0, fmt, ap);
        va_end(ap);
        if (b->s && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = (b->cap + (size_t)n + 1) * 2;
        b->s = realloc(b->s, b->cap);
    }
}

/* regfexport's hex dump: 16 bytes a line, a gap after 8, then ASCII. */
static inline void tu_hexdump(struct tu_buf *b, const uint8_t *d, size_t n)
{
    for (size_t line = 0; line < n; line += 16) {
        tu_printf(b, "%.8zx: ", line);
        size_t i = line;
        for (; i < n && i < line + 16; i++) {
            tu_printf(b, "%.2x ", d[i]);
            if ((i + 1) % 16 && (i + 1) % 8 == 0)
                tu_printf(b, " ");
        }
        for (; i % 16; ) {
            i++;
            tu_printf(b, "   ");
            if (i % 8 == 0 && i % 16)
                tu_printf(b, " ");
        }
        tu_printf(b, "  ");
        for (i = line; i < n && i < line + 16; i++) {
            tu_printf(b, "%c", d[i] >= 0x20 && d[i] <= 0x7e ? d[i] : '.');
            if ((i + 1) % 16 && (i + 1) % 8 == 0)
                tu_printf(b, " ");
        }
        tu_printf(b, "\n");
    }
    tu_printf(b, "\n");
}

static inline const char *tu_type_name(uint32_t t)
{
    static const char *names[] = {
        "undefined (REG_NONE)", "string (REG_SZ)",
        "expandable string (REG_EXPAND_SZ)", "binary data (REG_BINARY)",
        "32-bit integer little-endian (REG_DWORD_LITTLE_ENDIAN)",
        "32-bit integer big-endian (REG_DWORD_BIG_ENDIAN)",
        "symbolic link (REG_LINK)", "multi-value string (REG_MULTI_SZ)",
        "resource list (REG_RESOURCE_LIST)",
        "full resource descriptor (REG_FULL_RESOURCE_DESCRIPTOR)",
        "resource requirements list (REG_RESOURCE_REQUIREMENTS_LIST)",
        "64-bit integer little-endian (REG_QWORD_LITTLE_ENDIAN)"};
    return t < 12 ? names[t] : NULL;
}

/* One value as regfexport prints it. */
static inline int tu_dump_value(struct rt_regf *h, uint32_t v, int index,
                                struct tu_buf *b)
{
    char *name;
    uint32_t type;
    uint8_t *data;
    size_t n;
    if (rt_regf_value_name(h, v, &name) ||
        rt_regf_value_read(h, v, &type, &data, &n))
        return -1;
    if (*name)
        tu_printf(b, "Value: %d %s\n", index, name);
    else
        tu_printf(b, "Value: %d (default)\n", index);
    if (tu_type_name(type))
        tu_printf(b, "Type: %s\n", tu_type_name(type));
    else
        tu_printf(b, "Type: unknown: 0x%08" PRIx32 "\n", type);
    tu_printf(b, "Data size: %zu\n", n);
    size_t expected = 0;
    if (type == RT_REG_SZ || type == RT_REG_EXPAND_SZ) {
        size_t units = n / 2, k = 0;
        while (k < units && (data[2 * k] || data[2 * k + 1]))
            k++;
        char *s;
        size_t off;
        /* regfexport prints no string at all for empty data. */
        if (n && rt_utf16le_to_utf8(data, 2 * k, &s, NULL, &off) == 0) {
            tu_printf(b, "Data: %s\n", s);
            free(s);
        }
        expected = 2 * (k + 1);
        if (expected == n + 2)
            expected -= 2;
    } else if (type == RT_REG_DWORD || type == RT_REG_DWORD_BIG_ENDIAN) {
        if (n == 4) {
            uint32_t x = (uint32_t)data[0] | (uint32_t)data[1] << 8 |
                         (uint32_t)data[2] << 16 | (uint32_t)data[3] << 24;
            if (type == RT_REG_DWORD_BIG_ENDIAN)
                x = __builtin_bswap32(x);
            tu_printf(b, "Data: %" PRIu32 "\n", x);
        }
        expected = 4;
    } else if (type == RT_REG_QWORD) {
        if (n == 8) {
            uint64_t x = 0;
            for (int i = 7; i >= 0; i--)
                x = x << 8 | data[i];
            tu_printf(b, "Data: %" PRIu64 "\n", x);
        }
        expected = 8;
    }
    if (n != expected) {
        if (n == 4 && expected == 2 &&
            (type == RT_REG_SZ || type == RT_REG_EXPAND_SZ)) {
            /* regfexport: an empty string stored as 4 bytes */
        } else if (expected) {
            tu_printf(b, "Mismatch in data size and that required for data "
                         "type.\n");
        }
        if (n) {
            tu_printf(b, "Data:\n");
            tu_hexdump(b, data, n);
        } else {
            tu_printf(b, "\n");
        }
    } else {
        tu_printf(b, "\n");
    }
    free(name);
    free(data);
    return 0;
}

/* KEY and everything below it, as regfexport prints it. */
static inline int tu_dump_key(struct rt_regf *h, uint32_t key,
                              const char *parent_path, struct tu_buf *b,
                              unsigned depth)
{
    struct rt_regf_key_info ki;
    if (depth > 512 || rt_regf_key_info(h, key, &ki))
        return -1;
    char *path;
    if (parent_path) {
        if (asprintf(&path, "%s\\%s", parent_path, ki.name) < 0)
            abort();
    } else {
        path = strdup(ki.name);
    }
    tu_printf(b, "Key path: %s\nKey: %s\n", path, ki.name);
    rt_regf_key_info_free(&ki);
    char *cls;
    if (rt_regf_key_class(h, key, &cls)) {
        free(path);
        return -1;
    }
    if (cls)
        tu_printf(b, "Class name: %s\n", cls);
    free(cls);
    uint32_t *vals, *subs;
    size_t nv, ns;
    int rc = rt_regf_values(h, key, &vals, &nv);
    for (size_t i = 0; !rc && i < nv; i++)
        rc = tu_dump_value(h, vals[i], (int)i, b);
    if (!rc && nv == 0)
        tu_printf(b, "\n");
    free(vals);
    if (!rc)
        rc = rt_regf_subkeys(h, key, &subs, &ns);
    for (size_t i = 0; !rc && i < ns; i++)
        rc = tu_dump_key(h, subs[i], path, b, depth + 1);
    if (!rc)
        free(subs);
    free(path);
    return rc;
}

/* Normalises a dump in regfexport's format for comparison.
 * regfexport 20201007 shows inline data of 1 to 3 bytes from the end of
 * the 4-byte field, Windows stores it at the start (RtlCopyMemory to the
 * field; Suhanov's spec, "Data size"), as hivex and we read it. So the
 * hex line of such values is masked on both sides before comparing. */
static inline char *tu_normalise(const char *text)
{
    struct tu_buf out = {0};
    tu_printf(&out, "%s", "");
    const char *p = text;
    int pending = 0, str = 0;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) + 1 : strlen(p);
        /* regfexport's "Data size" of a string is that of the string it
         * decodes (up to the first NUL, plus one), not the stored size:
         * strings compare by their decoded text only. */
        if (!strncmp(p, "Type: string (REG_SZ)\n", 22) ||
            !strncmp(p, "Type: expandable string (REG_EXPAND_SZ)\n", 40)) {
            tu_printf(&out, "%.*s", (int)len, p);
            str = 1;
            p += len;
            continue;
        }
        if (str == 1 && !strncmp(p, "Data size: ", 11)) {
            tu_printf(&out, "Data size: (string)\n");
            str = 2;
            p += len;
            continue;
        }
        if (str == 2 && !strncmp(p, "Data: ", 6)) {
            tu_printf(&out, "%.*s", (int)len, p);
            str = 3;
            p += len;
            continue;
        }
        if (str >= 2) {
            if (len == 1) {
                tu_printf(&out, "\n");
                str = 0;
            }
            p += len;
            continue;
        }
        str = 0;
        if (pending == 2 && len > 10 && !strncmp(p, "00000000: ", 10)) {
            tu_printf(&out, "(short inline data)\n");
            pending = 0;
        } else {
            tu_printf(&out, "%.*s", (int)len, p);
            if (!strncmp(p, "Data size: ", 11) && p[11] >= '1' &&
                p[11] <= '3' && p[12] == '\n')
                pending = 1;
            else if (pending == 1 && !strncmp(p, "Data:\n", 6))
                pending = 2;
            else
                pending = 0;
        }
        p += len;
    }
    while (out.len && out.s[out.len - 1] == '\n')
        out.s[--out.len] = 0;
    return out.s;
}

/* First differing line of A and B, for a readable failure. */
static inline void tu_show_diff(const char *a, const char *b)
{
    size_t line = 1;
    const char *pa = a, *pb = b;
    while (*pa && *pa == *pb) {
        if (*pa == '\n')
            line++;
        pa++;
        pb++;
    }
    fprintf(stderr, "first difference at line %zu:\n ours: %.200s\n them: %.200s\n",
            line, pa, pb);
}

#endif
