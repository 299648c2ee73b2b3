/* Test support: the three independent hive readers used as referees
 * (libhivex's hivexsh, libregf's regfexport, reglookup) and the
 * reduction of what each prints to one canonical line per key and per
 * value, so that their view of a hive can be compared with ours:
 *   K path
 *   V path | name | type | data
 * path is relative to the root and '\'-separated, data is "text:S" for
 * strings, "multi:A|B" for REG_MULTI_SZ, "num:N" for DWORD and QWORD and
 * "bytes:LEN:FNV1A" for the rest. Include after <cmocka.h>. */
#ifndef REFEREE_UTIL_H
#define REFEREE_UTIL_H

#include "regf_testutil.h"

/* --- canonical lines ------------------------------------------------- */

struct ref_lines {
    char **v;
    size_t n, cap;
};

static inline void ref_lines_add(struct ref_lines *l, char *s)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = s;
}

static inline int ref_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void ref_lines_free(struct ref_lines *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static inline uint64_t ref_fnv(const uint8_t *d, size_t n)
{
    uint64_t x = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        x = (x ^ d[i]) * 0x100000001b3u;
    return x;
}

/* Canonical text of a value's data. */
static inline char *ref_repr(uint32_t type, const uint8_t *d, size_t n)
{
    char *s = NULL;
    if (type == RT_REG_SZ || type == RT_REG_EXPAND_SZ || type == RT_REG_LINK) {
        size_t k = 0;
        while (2 * k + 1 < n && (d[2 * k] || d[2 * k + 1]))
            k++;
        char *t;
        size_t off;
        assert_int_equal(rt_utf16le_to_utf8(d, 2 * k, &t, NULL, &off), 0);
        assert_true(asprintf(&s, "text:%s", t) > 0);
        free(t);
    } else if (type == RT_REG_MULTI_SZ) {
        struct tu_buf b = {0};
        tu_printf(&b, "multi:");
        size_t i = 0, first = 1;
        while (i + 1 < n) {
            size_t k = i;
            while (k + 1 < n && (d[k] || d[k + 1]))
                k += 2;
            if (k == i)
                break;
            char *t;
            size_t off;
            assert_int_equal(rt_utf16le_to_utf8(d + i, k - i, &t, NULL, &off), 0);
            tu_printf(&b, "%s%s", first ? "" : "|", t);
            free(t);
            first = 0;
            i = k + 2;
        }
        s = b.s;
    } else if ((type == RT_REG_DWORD || type == RT_REG_DWORD_BIG_ENDIAN) && n == 4) {
        uint32_t x = (uint32_t)d[0] | (uint32_t)d[1] << 8 |
                     (uint32_t)d[2] << 16 | (uint32_t)d[3] << 24;
        if (type == RT_REG_DWORD_BIG_ENDIAN)
            x = __builtin_bswap32(x);
        assert_true(asprintf(&s, "num:%" PRIu32, x) > 0);
    } else if (type == RT_REG_QWORD && n == 8) {
        uint64_t x = 0;
        for (int i = 7; i >= 0; i--)
            x = x << 8 | d[i];
        assert_true(asprintf(&s, "num:%" PRIu64, x) > 0);
    } else {
        assert_true(asprintf(&s, "bytes:%zu:%016" PRIx64, n, ref_fnv(d, n)) > 0);
    }
    return s;
}

static inline char *ref_value_line(const char *path, const char *name,
                                   uint32_t type, const char *r)
{
    char *s;
    assert_true(asprintf(&s, "V %s | %s | %u | %s", path, name, type, r) > 0);
    return s;
}

static inline char *ref_key_line(const char *path)
{
    char *s;
    assert_true(asprintf(&s, "K %s", path) > 0);
    return s;
}

/* Drops emptied lines ("" marks a line taken back) and sorts. */
static inline void ref_finish(struct ref_lines *l)
{
    size_t w = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (l->v[i][0])
            l->v[w++] = l->v[i];
        else
            free(l->v[i]);
    }
    l->n = w;
    qsort(l->v, l->n, sizeof *l->v, ref_cmp_str);
}

/* Fails, naming up to ten differing lines, unless GOT (finished here)
 * equals WANT (already finished). */
static inline void ref_compare(const char *who, struct ref_lines *want,
                               struct ref_lines *got)
{
    ref_finish(got);
    size_t i = 0, j = 0, bad = 0;
    while ((i < want->n || j < got->n) && bad < 10) {
        int c = i == want->n ? 1 : j == got->n ? -1 : strcmp(want->v[i], got->v[j]);
        if (c == 0) {
            i++;
            j++;
            continue;
        }
        bad++;
        if (c < 0)
            fprintf(stderr, "%s: missing  %.200s\n", who, want->v[i++]);
        else
            fprintf(stderr, "%s: unexpected %.200s\n", who, got->v[j++]);
    }
    if (bad)
        fail_msg("%s does not read the hive as written", who);
    assert_int_equal(want->n, got->n);
}

static inline int ref_hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* --- hivexsh ----------------------------------------------------------- */

/* hivexsh lsval: "name"=hex(N):aa,bb / "text" / str(N):"text" /
 * dword:xxxxxxxx; @ is the default value. */
static inline void ref_parse_hivexsh_line(const char *path, const char *l,
                                          struct ref_lines *out)
{
    struct tu_buf name = {0};
    tu_printf(&name, "%s", "");
    const char *p = l;
    if (*p == '@') {
        p++;
    } else {
        assert_true(*p == '"');
        for (p++; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1])
                p++;
            tu_printf(&name, "%c", *p);
        }
        p++;
    }
    assert_true(*p == '=');
    p++;
    uint32_t type;
    char *r = NULL;
    if (*p == '"' || !strncmp(p, "str(", 4)) {
        type = RT_REG_SZ;
        if (*p == 's') {
            type = (uint32_t)strtoul(p + 4, (char **)&p, 10);
            p += 2;
        }
        struct tu_buf t = {0};
        tu_printf(&t, "text:");
        for (p++; *p && *p != '"'; p++) {
            if (*p == '\\' && p[1])
                p++;
            tu_printf(&t, "%c", *p);
        }
        r = t.s;
    } else if (!strncmp(p, "dword:", 6)) {
        unsigned long x = strtoul(p + 6, NULL, 16);
        type = RT_REG_DWORD;   /* hivexsh shows both DWORD types this way */
        assert_true(asprintf(&r, "num:%lu", x) > 0);
    } else {
        assert_true(!strncmp(p, "hex(", 4));
        type = (uint32_t)strtoul(p + 4, (char **)&p, 10);
        p += 2;
        size_t cap = strlen(p) / 3 + 1, n = 0;
        uint8_t *d = malloc(cap);
        while (ref_hexval(p[0]) >= 0 && ref_hexval(p[1]) >= 0) {
            d[n++] = (uint8_t)(ref_hexval(p[0]) << 4 | ref_hexval(p[1]));
            p += p[2] == ',' ? 3 : 2;
        }
        r = ref_repr(type, d, n);
        free(d);
    }
    /* hivexsh shows the default value as "@" (quoted or not). */
    ref_lines_add(out, ref_value_line(path, strcmp(name.s, "@") ? name.s : "", type, r));
    free(name.s);
    free(r);
}

/* Whether the lines WANT show KEY with values or subkeys. */
static inline int ref_has_content(const struct ref_lines *want, const char *key)
{
    char *v, *k;
    assert_true(asprintf(&v, "V %s | ", key) > 0);
    assert_true(asprintf(&k, "K %s%s", key, *key ? "\\" : "") > 0);
    int found = 0;
    for (size_t i = 0; i < want->n && !found; i++)
        found = !strncmp(want->v[i], v, strlen(v)) ||
                !strncmp(want->v[i], k, strlen(k));
    free(v);
    free(k);
    return found;
}

/* One hivexsh run per key of KEYS (relative paths; "" entries are
 * skipped, the root is always visited) that WANT shows with values or
 * subkeys: "ls" lists subkeys (bare names), "lsval" the values. Keys
 * without either are seen in their parent's listing. */
static inline void ref_run_hivexsh(const char *hive, const struct ref_lines *keys,
                                   const struct ref_lines *want,
                                   struct ref_lines *out)
{
    char *dir = tu_tmpdir(), *script;
    assert_true(asprintf(&script, "%s/script", dir) > 0);
    for (size_t i = 0; i < keys->n + 1; i++) {
        const char *path = i < keys->n ? keys->v[i] : "";
        if ((i < keys->n && !path[0]) || !ref_has_content(want, path))
            continue;
        FILE *f = fopen(script, "w");
        fprintf(f, "cd \\%s\nls\nlsval\n", path);
        fclose(f);
        char *cmd;
        assert_true(asprintf(&cmd, "hivexsh -f '%s' '%s'", script, hive) > 0);
        char *o = tu_capture(cmd, NULL), *save;
        free(cmd);
        for (char *l = strtok_r(o, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
            if (*l == '"' || *l == '@') {
                ref_parse_hivexsh_line(path, l, out);
            } else {
                char *k;
                assert_true(asprintf(&k, "%s%s%s", path, *path ? "\\" : "", l) > 0);
                ref_lines_add(out, ref_key_line(k));
                free(k);
            }
        }
        free(o);
    }
    free(script);
    tu_rmdir(dir);
}

/* --- regfexport ---------------------------------------------------------- */

/* regfexport: "Key path:", "Value: N name", "Type: ... (REG_X)", then
 * "Data: text|number" or "Data:" and a hex dump. */
static inline uint32_t ref_regfexport_type(const char *l)
{
    static const char *const ids[] = {
        "(REG_NONE)", "(REG_SZ)", "(REG_EXPAND_SZ)", "(REG_BINARY)",
        "(REG_DWORD_LITTLE_ENDIAN)", "(REG_DWORD_BIG_ENDIAN)", "(REG_LINK)",
        "(REG_MULTI_SZ)", "(REG_RESOURCE_LIST)",
        "(REG_FULL_RESOURCE_DESCRIPTOR)",
        "(REG_RESOURCE_REQUIREMENTS_LIST)", "(REG_QWORD_LITTLE_ENDIAN)"};
    for (uint32_t i = 0; i < 12; i++)
        if (strstr(l, ids[i]))
            return i;
    fail_msg("unknown type line %s", l);
    return 0;
}

/* Where a "Key path:" line of regfexport points, relative to the root.
 * The whole hive prints "ROOT\A\B"; "-K A\B" prints "A\B\B" for the key
 * itself and "A\B\B\C" below it (the key's name repeated). */
static inline char *ref_regfexport_path(const char *printed, const char *key)
{
    if (!key) {
        const char *rel = strchr(printed, '\\');
        return strdup(rel ? rel + 1 : "");
    }
    size_t kl = strlen(key);
    if (strncmp(printed, key, kl) || printed[kl] != '\\')
        fail_msg("regfexport -K '%s' printed key path '%s'", key, printed);
    const char *sep = strrchr(key, '\\');
    char *s;
    assert_true(asprintf(&s, "%.*s%s", sep ? (int)(sep - key + 1) : 0, key,
                         printed + kl + 1) > 0);
    return s;
}

/* regfexport of HIVE, or with KEY (relative path, not "") of that key
 * and its subtree. With OWN_ONLY its output is cut at the first subkey
 * and at the first value over 1 MiB: regfexport prints data byte by byte,
 * so a few MB of values take it tens of seconds. */
static inline void ref_run_regfexport(const char *hive, const char *key,
                                      int own_only, struct ref_lines *out)
{
    /* Through a file: regfexport writes a pipe in small pieces. The cut
     * ends regfexport early (SIGPIPE) when it would go on printing. */
    char *cmd, *opt = NULL;
    if (key)
        assert_true(asprintf(&opt, "-K '%s' ", key) > 0);
    if (own_only)
        assert_true(asprintf(&cmd, "regfexport %s'%s' 2>&1 | awk "
                             "'/^Key path: /{if(n++)exit} "
                             "/^Data size: /{if($3+0>1048576)exit} {print}' "
                             "> '%s.txt' && cat '%s.txt'",
                             opt ? opt : "", hive, hive, hive) > 0);
    else
        assert_true(asprintf(&cmd, "regfexport %s'%s' > '%s.txt' 2>&1 && cat '%s.txt'",
                             opt ? opt : "", hive, hive, hive) > 0);
    free(opt);
    char *o = tu_capture(cmd, NULL);
    free(cmd);
    char *path = NULL, *name = NULL, *save;
    uint32_t type = 0;
    uint8_t *d = NULL;
    size_t n = 0, cap = 0;
    int in_hex = 0, seen_key = 0;
    for (char *l = strtok_r(o, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        int hexline = strlen(l) > 10 && l[8] == ':' && l[9] == ' ';
        for (int i = 0; i < 8 && hexline; i++)
            hexline = ref_hexval(l[i]) >= 0;
        if (in_hex && !hexline) {
            char *r = ref_repr(type, d, n);
            ref_lines_add(out, ref_value_line(path, name, type, r));
            free(r);
            in_hex = 0;
        }
        if (!strncmp(l, "Key path: ", 10)) {
            free(path);
            path = ref_regfexport_path(l + 10, key);
            if (*path)
                ref_lines_add(out, ref_key_line(path));
            seen_key = 1;
        } else if (!strncmp(l, "Value: ", 7)) {
            free(name);
            char *sp = strchr(l + 7, ' ');
            name = strdup(!strcmp(sp + 1, "(default)") ? "" : sp + 1);
        } else if (!strncmp(l, "Type: ", 6)) {
            type = ref_regfexport_type(l);
        } else if (!strncmp(l, "Data size: ", 11)) {
            n = 0;
            in_hex = 0;
            if (strtoul(l + 11, NULL, 10) == 0) {
                char *r = ref_repr(type, NULL, 0);
                ref_lines_add(out, ref_value_line(path, name, type, r));
                free(r);
            }
        } else if (!strcmp(l, "Data:")) {
            in_hex = 1;
        } else if (!strncmp(l, "Data: ", 6)) {
            char *r;
            if (type == RT_REG_SZ || type == RT_REG_EXPAND_SZ || type == RT_REG_LINK)
                assert_true(asprintf(&r, "text:%s", l + 6) > 0);
            else
                assert_true(asprintf(&r, "num:%s", l + 6) > 0);
            ref_lines_add(out, ref_value_line(path, name, type, r));
            free(r);
        } else if (in_hex && hexline) {
            for (int i = 10; i < 59 && l[i]; i++) {
                if (ref_hexval(l[i]) >= 0 && ref_hexval(l[i + 1]) >= 0) {
                    if (n == cap) {
                        cap = cap ? cap * 2 : 4096;
                        d = realloc(d, cap);
                    }
                    d[n++] = (uint8_t)(ref_hexval(l[i]) << 4 | ref_hexval(l[i + 1]));
                    i++;
                }
            }
        }
    }
    if (in_hex) {
        char *r = ref_repr(type, d, n);
        ref_lines_add(out, ref_value_line(path, name, type, r));
        free(r);
    }
    if (!seen_key)
        fail_msg("regfexport %s%s: no key in its output: %.200s",
                 key ? "-K " : "", key ? key : hive, o);
    free(path);
    free(name);
    free(d);
    free(o);
}

/* --- reglookup --------------------------------------------------------- */

/* reglookup: CSV PATH,TYPE,VALUE,MTIME with %XX escapes; names it cannot
 * convert to ASCII appear as their UTF-16LE bytes. */
static inline char *ref_unescape(const char *s, size_t len, size_t *outlen)
{
    char *o = malloc(len + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '%' && i + 2 < len + 1 && ref_hexval(s[i + 1]) >= 0 &&
            ref_hexval(s[i + 2]) >= 0) {
            o[n++] = (char)(ref_hexval(s[i + 1]) << 4 | ref_hexval(s[i + 2]));
            i += 2;
        } else {
            o[n++] = s[i];
        }
    }
    o[n] = 0;
    *outlen = n;
    return o;
}

/* One path component or name as reglookup shows it, made UTF-8 again. */
static inline char *ref_reglookup_name(const char *raw, size_t len)
{
    size_t n;
    char *b = ref_unescape(raw, len, &n);
    int ascii = 1;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)b[i] >= 0x80 || (unsigned char)b[i] < 0x20)
            ascii = 0;
    if (ascii)
        return b;
    char *u;
    size_t off;
    assert_int_equal(rt_utf16le_to_utf8((uint8_t *)b, n, &u, NULL, &off), 0);
    free(b);
    return u;
}

/* Canonical data of a string value as reglookup shows it. Strings it
 * cannot convert to ASCII it shows as their raw UTF-16LE bytes ("quoting
 * raw buffer"), which then hold NULs; its decoded text never does. */
static inline char *ref_reglookup_text(uint32_t type, const char *v, size_t vlen)
{
    size_t dl;
    char *t = ref_unescape(v, vlen, &dl), *r;
    if (memchr(t, 0, dl))
        r = ref_repr(type, (const uint8_t *)t, dl);
    else
        assert_true(asprintf(&r, "%s:%s", type == RT_REG_MULTI_SZ ? "multi" : "text",
                             t) > 0);
    free(t);
    return r;
}

/* What reglookup says of a value over 1 MiB, which it reads truncated. */
#define REF_REGLOOKUP_TRUNCATES                                              \
    "larger than 1048576, truncating|"                                       \
    "Left over chunks detected while constructing big data"

/* What reglookup says of names and strings it cannot show in ASCII
 * (ref_reglookup_name, ref_reglookup_text read them all the same). */
#define REF_REGLOOKUP_NON_ASCII                                              \
    "name to encoding US-ASCII|"                                             \
    "Data could not be interpreted, quoting raw buffer"

/* Whether LINE holds one of the '|'-separated substrings of LIST. */
static inline int ref_warning_expected(const char *line, const char *list)
{
    while (list && *list) {
        const char *bar = strchr(list, '|');
        size_t n = bar ? (size_t)(bar - list) : strlen(list);
        char *want = strndup(list, n);
        int found = strstr(line, want) != NULL;
        free(want);
        if (found)
            return 1;
        list = bar ? bar + 1 : NULL;
    }
    return 0;
}

/* reglookup of HIVE. Each line it prints on stderr fails the test unless
 * it holds one of the '|'-separated substrings of WARNS (what reglookup
 * is known to say where it cannot read what Windows can, e.g. a non-ASCII
 * key name or data it truncates): a hive we wrote must read without
 * any other complaint. */
static inline void ref_run_reglookup(const char *hive, const char *warns,
                                     struct ref_lines *out)
{
    static const char *const types[] = {
        "NONE", "SZ", "EXPAND_SZ", "BINARY", "DWORD", "DWORD_BE", "LINK",
        "MULTI_SZ", "RSRC_LIST", "RSRC_DESC", "RSRC_REQ_LIST", "QWORD"};
    char *cmd, *errcmd;
    assert_true(asprintf(&cmd, "reglookup -H '%s' 2>'%s.err'", hive, hive) > 0);
    char *o = tu_capture(cmd, NULL), *save;
    free(cmd);
    assert_true(asprintf(&errcmd, "cat '%s.err'; rm -f '%s.err'", hive, hive) > 0);
    char *warned = tu_capture(errcmd, NULL), *wsave;
    free(errcmd);
    for (char *l = strtok_r(warned, "\n", &wsave); l; l = strtok_r(NULL, "\n", &wsave))
        if (!ref_warning_expected(l, warns))
            fail_msg("reglookup warned on %s: %s", hive, l);
    free(warned);
    for (char *l = strtok_r(o, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        char *c1 = strchr(l, ','), *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
        assert_non_null(c3);
        /* PATH: '/'-separated components, the last one the value name. */
        struct tu_buf path = {0};
        tu_printf(&path, "%s", "");
        char *last = NULL;
        const char *p = l + 1;
        while (p <= c1) {
            const char *e = memchr(p, '/', (size_t)(c1 - p));
            size_t len = e ? (size_t)(e - p) : (size_t)(c1 - p);
            if (p == c1 && c1[-1] != '/')
                break;
            char *comp = ref_reglookup_name(p, len);
            if (last)
                tu_printf(&path, "%s%s", path.len ? "\\" : "", last);
            free(last);
            last = comp;
            p += len + 1;
        }
        *c2 = 0;
        if (!strcmp(c1 + 1, "KEY")) {
            if (last && *last) {
                tu_printf(&path, "%s%s", path.len ? "\\" : "", last);
                ref_lines_add(out, ref_key_line(path.s));
            }
            free(last);
            free(path.s);
            continue;
        }
        uint32_t type = 99;
        for (uint32_t i = 0; i < 12; i++)
            if (!strcmp(c1 + 1, types[i]))
                type = i;
        assert_int_not_equal(type, 99);
        const char *v = c2 + 1;
        size_t vlen = (size_t)(c3 - v), dl;
        char *r;
        if (!strncmp(v, "(null)", 6) && vlen == 6) {
            r = ref_repr(type, NULL, 0);
        } else if (type == RT_REG_SZ || type == RT_REG_EXPAND_SZ ||
                   type == RT_REG_LINK || type == RT_REG_MULTI_SZ) {
            r = ref_reglookup_text(type, v, vlen);
        } else if (type == RT_REG_DWORD || type == RT_REG_DWORD_BIG_ENDIAN) {
            assert_true(asprintf(&r, "num:%lu", strtoul(v, NULL, 16)) > 0);
        } else if (type == RT_REG_QWORD) {
            assert_true(asprintf(&r, "num:%llu", strtoull(v, NULL, 16)) > 0);
        } else {
            char *t = ref_unescape(v, vlen, &dl);
            r = ref_repr(type, (uint8_t *)t, dl);
            free(t);
        }
        ref_lines_add(out, ref_value_line(path.s, last, type, r));
        free(r);
        free(last);
        free(path.s);
    }
    free(o);
}

#endif
