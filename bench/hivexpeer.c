/* The peer the benchmark compares against at Ws: the same change to the
 * name tables made with libhivex, the library most Linux tools use to
 * write hives.
 *
 *   hivexpeer diff BEFORE AFTER LANG DIR   what an install appended to
 *       Perflib\LANG's Counter and Help (AFTER's value is BEFORE's with
 *       pairs appended before the final NUL): DIR/Counter.add, Help.add
 *   hivexpeer apply HIVE LANG DIR          the timed change: open HIVE
 *       for writing, append DIR's pairs to Counter and Help, commit,
 *       fsync
 *   hivexpeer reg HIVE LANG DIR OUT        the same change as a .reg
 *       patch for `hivexregedit --merge --prefix HKEY_LOCAL_MACHINE\SOFTWARE`
 *
 * Exit status: 0 done, 3 refused or failed (the message on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <hivex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
static const char *const value_names[] = {"Counter", "Help"};

static int fail(const char *what)
{
    fprintf(stderr, "hivexpeer: %s: %s\n", what, strerror(errno));
    return 3;
}

/* The node of Perflib\LANG, or 0 with errno set. */
static hive_node_h perflib_lang(hive_h *h, const char *lang)
{
    char path[] = PERFLIB;
    hive_node_h n = hivex_root(h);
    for (char *save = NULL, *p = strtok_r(path, "\\", &save); p && n;
         p = strtok_r(NULL, "\\", &save))
        n = hivex_node_get_child(h, n, p);
    if (n)
        n = hivex_node_get_child(h, n, lang);
    if (!n && !errno)
        errno = ENOENT;
    return n;
}

static char *get_value(hive_h *h, hive_node_h n, const char *name,
                       size_t *len)
{
    hive_type t;
    hive_value_h v = hivex_node_get_value(h, n, name);
    if (!v) {
        if (!errno)
            errno = ENOENT;
        return NULL;
    }
    return hivex_value_value(h, v, &t, len);
}

static int read_file(const char *path, char **data, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            char *b = realloc(buf, cap *= 2);
            if (!b) {
                free(buf);
                buf = NULL;
            }
            buf = b;
        }
    }
    fclose(f);
    if (!buf)
        return -1;
    *data = buf;
    *len = n;
    return 0;
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(data, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

static int cmd_diff(const char *before, const char *after, const char *lang,
                    const char *dir)
{
    hive_h *b = hivex_open(before, 0), *a = hivex_open(after, 0);
    if (!b || !a)
        return fail(b ? after : before);
    hive_node_h nb = perflib_lang(b, lang), na = perflib_lang(a, lang);
    if (!nb || !na)
        return fail(lang);
    for (int i = 0; i < 2; i++) {
        size_t lb, la;
        char *vb = get_value(b, nb, value_names[i], &lb);
        char *va = get_value(a, na, value_names[i], &la);
        if (!vb || !va)
            return fail(value_names[i]);
        /* BEFORE without its final NUL must be AFTER's prefix. */
        if (lb < 2 || la < lb || memcmp(vb, va, lb - 2) != 0) {
            fprintf(stderr, "hivexpeer: %s: the change is not an append\n",
                    value_names[i]);
            return 3;
        }
        char path[4200];
        snprintf(path, sizeof path, "%s/%s.add", dir, value_names[i]);
        if (write_file(path, va + lb - 2, la - lb) != 0)
            return fail(path);
        free(vb);
        free(va);
    }
    hivex_close(b);
    hivex_close(a);
    return 0;
}

/* The new value: OLD without its final NUL, the appended pairs, NUL. */
static char *appended(const char *old, size_t old_len, const char *add,
                      size_t add_len, size_t *len)
{
    if (old_len < 2)
        old_len = 2;
    char *v = malloc(old_len + add_len);
    if (!v)
        return NULL;
    memcpy(v, old, old_len - 2);
    memcpy(v + old_len - 2, add, add_len);
    v[old_len - 2 + add_len] = v[old_len - 1 + add_len] = 0;
    *len = old_len + add_len;
    return v;
}

/* Reads both values of Perflib\LANG and returns them with DIR's pairs
 * appended. */
static int new_values(hive_h *h, hive_node_h n, const char *dir,
                      hive_set_value out[2])
{
    for (int i = 0; i < 2; i++) {
        char path[4200], *add, *old;
        size_t add_len, old_len;
        snprintf(path, sizeof path, "%s/%s.add", dir, value_names[i]);
        if (read_file(path, &add, &add_len) != 0)
            return fail(path);
        if (!(old = get_value(h, n, value_names[i], &old_len)))
            return fail(value_names[i]);
        out[i].key = (char *)value_names[i];
        out[i].t = hive_t_REG_MULTI_SZ;
        out[i].value = appended(old, old_len, add, add_len, &out[i].len);
        free(old);
        free(add);
        if (!out[i].value)
            return fail("appending");
    }
    return 0;
}

static int cmd_apply(const char *hive, const char *lang, const char *dir)
{
    hive_h *h = hivex_open(hive, HIVEX_OPEN_WRITE);
    if (!h)
        return fail("hivex_open");
    hive_node_h n = perflib_lang(h, lang);
    hive_set_value v[2];
    if (!n)
        return fail(lang);
    if (new_values(h, n, dir, v) != 0)
        return 3;
    for (int i = 0; i < 2; i++)
        if (hivex_node_set_value(h, n, &v[i], 0) != 0) {
            char what[64];
            snprintf(what, sizeof what, "hivex_node_set_value %s", value_names[i]);
            return fail(what);
        }
    if (hivex_commit(h, NULL, 0) != 0)
        return fail("hivex_commit");
    hivex_close(h);
    int fd = open(hive, O_RDONLY);
    if (fd < 0 || fsync(fd) != 0 || close(fd) != 0)
        return fail(hive);
    free(v[0].value);
    free(v[1].value);
    return 0;
}

static int cmd_reg(const char *hive, const char *lang, const char *dir,
                   const char *out)
{
    hive_h *h = hivex_open(hive, 0);
    if (!h)
        return fail(hive);
    hive_node_h n = perflib_lang(h, lang);
    hive_set_value v[2];
    if (!n)
        return fail(lang);
    if (new_values(h, n, dir, v) != 0)
        return 3;
    hivex_close(h);
    FILE *f = fopen(out, "w");
    if (!f)
        return fail(out);
    fprintf(f, "Windows Registry Editor Version 5.00\n\n"
               "[HKEY_LOCAL_MACHINE\\SOFTWARE\\%s\\%s]\n", PERFLIB, lang);
    for (int i = 0; i < 2; i++) {
        fprintf(f, "\"%s\"=hex(7):", v[i].key);
        for (size_t k = 0; k < v[i].len; k++)
            fprintf(f, k ? ",%02x" : "%02x", (unsigned char)v[i].value[k]);
        fputc('\n', f);
        free(v[i].value);
    }
    if (fclose(f) != 0)
        return fail(out);
    return 0;
}

int main(int argc, char **argv)
{
    errno = 0;
    if (argc == 6 && !strcmp(argv[1], "diff"))
        return cmd_diff(argv[2], argv[3], argv[4], argv[5]);
    if (argc == 5 && !strcmp(argv[1], "apply"))
        return cmd_apply(argv[2], argv[3], argv[4]);
    if (argc == 6 && !strcmp(argv[1], "reg"))
        return cmd_reg(argv[2], argv[3], argv[4], argv[5]);
    fputs("usage: hivexpeer diff BEFORE AFTER LANG DIR\n"
          "       hivexpeer apply HIVE LANG DIR\n"
          "       hivexpeer reg HIVE LANG DIR OUT.reg\n", stderr);
    return 64;
}
