/* Writes a regtool.journal as anyone could: the format of
 * lib/commit/commit_build.c, every CRC computed, so that what the journal
 * says, not a checksum, is what regtool must judge (hostile_journal.sh).
 *
 *   mkjournal OUT [-u] [-n NOTE] ITEM...
 *     -u                   unsealed: no trailer (a commit cut before its
 *                          commit point)
 *     -n NOTE              the commit's note ("install of Xfer")
 *     i|PATH|SIZE          an intent block entry: PATH gets fresh bytes,
 *                          SIZE its size before the commit
 *     w|PATH|OFFSET|TEXT   a write record of TEXT (\n for a newline)
 *     f|PATH|OFFSET|FILE   a write record of FILE's bytes
 *     s|PATH|SIZE          a size record
 *     d|PATH|PRUNE         a removal record
 * PATH may hold \xNN escapes (a control character, a NUL). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commit/crc32.h"

static uint8_t *buf;
static size_t len, cap;

static void put(const void *p, size_t n)
{
    if (len + n > cap) {
        cap = (len + n) * 2;
        buf = realloc(buf, cap);
        if (!buf) {
            perror("mkjournal");
            exit(1);
        }
    }
    memcpy(buf + len, p, n);
    len += n;
}

static void put32(uint32_t v)
{
    uint8_t b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(b, 4);
}

static void put64(uint64_t v)
{
    put32((uint32_t)v);
    put32((uint32_t)(v >> 32));
}

/* S with \n and \xNN decoded, in place; its length. */
static size_t unescape(char *s)
{
    size_t o = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '\\' && s[i + 1] == 'n') {
            s[o++] = '\n';
            i++;
        } else if (s[i] == '\\' && s[i + 1] == 'x' && s[i + 2] && s[i + 3]) {
            char hex[3] = {s[i + 2], s[i + 3], 0};
            s[o++] = (char)strtoul(hex, NULL, 16);
            i += 3;
        } else {
            s[o++] = s[i];
        }
    }
    s[o] = '\0';
    return o;
}

static char *field(char **p)
{
    char *f = *p, *bar = f ? strchr(f, '|') : NULL;
    if (bar) {
        *bar = '\0';
        *p = bar + 1;
    } else {
        *p = NULL;
    }
    return f;
}

static void record(uint32_t kind, char *path, uint64_t offset,
                   const void *data, size_t n)
{
    size_t pl = unescape(path);
    put32(kind);
    put32((uint32_t)pl);
    put64(offset);
    put32((uint32_t)n);
    put(path, pl);
    put(data, n);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mkjournal OUT [-u] [-n NOTE] ITEM...\n");
        return 64;
    }
    const char *out = argv[1], *note = "install of Xfer";
    int unsealed = 0, i = 2;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-u"))
            unsealed = 1;
        else if (!strcmp(argv[i], "-n") && i + 1 < argc)
            note = argv[++i];
    }
    put("RTJOURN3", 8);
    put64((uint64_t)time(NULL));
    put32((uint32_t)strlen(note));
    put(note, strlen(note));
    /* The intent block: its count, entries, then its own CRC. */
    uint32_t n_intents = 0;
    for (int k = i; k < argc; k++)
        n_intents += argv[k][0] == 'i';
    put32(n_intents);
    for (int k = i; k < argc; k++) {
        if (argv[k][0] != 'i')
            continue;
        char *p = argv[k] + 2, *path = field(&p), *size = field(&p);
        size_t pl = unescape(path);
        put32((uint32_t)pl);
        put64(strtoull(size ? size : "0", NULL, 0));
        put(path, pl);
    }
    put32(rt_crc32(0, buf, len));
    uint32_t count = 0;
    for (int k = i; k < argc; k++) {
        char kind = argv[k][0];
        if (kind == 'i')
            continue;
        char *p = argv[k] + 2, *path = field(&p), *num = field(&p);
        uint64_t v = strtoull(num ? num : "0", NULL, 0);
        count++;
        if (kind == 'w') {
            char *text = p ? p : (char *)"";
            size_t tl = unescape(text);
            record(1, path, v, text, tl);
        } else if (kind == 'f') {
            FILE *f = fopen(p ? p : "", "rb");
            if (!f) {
                perror(p);
                return 1;
            }
            static uint8_t data[1 << 24];
            size_t got = fread(data, 1, sizeof data, f);
            fclose(f);
            record(1, path, v, data, got);
        } else if (kind == 's') {
            record(2, path, v, NULL, 0);
        } else if (kind == 'd') {
            record(4, path, v, NULL, 0);
        } else {
            fprintf(stderr, "mkjournal: unknown item %s\n", argv[k]);
            return 64;
        }
    }
    if (!unsealed) {
        size_t body = len;
        put("RTCOMMIT", 8);
        put64(body);
        put32(rt_crc32(0, buf, body));
        put32(count);
    }
    FILE *f = fopen(out, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        perror(out);
        return 1;
    }
    free(buf);
    return 0;
}
