/* mkbad: makes the binary inputs of the bad-input catalog and of the
 * hostile-input test from good files at test time, so that no damaged
 * binary needs to be kept in the tree. Plain C, nothing of regtool's:
 * built by tests/cli/bad_catalog.sh and hostile_inputs.sh with cc.
 *
 *   mkbad patch FILE OFFSET HEX    write the bytes HEX ("0a0b...") at
 *                                  OFFSET (decimal; negative: from the end)
 *   mkbad find FILE TEXT [N]       print the offset of the N-th (1 by
 *                                  default) occurrence of TEXT's bytes
 *   mkbad find16 FILE TEXT [N]     the same for TEXT as UTF-16LE (ASCII)
 *   mkbad fixsum FILE              recompute the base block's checksum, so
 *                                  that a changed base block is not read
 *                                  as a dirty hive's
 *   mkbad badsum FILE              write a base-block checksum that is
 *                                  wrong whatever the header holds (the
 *                                  right one with its low bit flipped: a
 *                                  fixed byte would match the right sum
 *                                  once in 256 headers, as the header
 *                                  carries the time it was written)
 *   mkbad selfbig FILE list|db     the first big-data cell ("db") of a hive:
 *                                  list: its segment list's first entry
 *                                  points at the list itself; db: its list
 *                                  offset points at the db cell itself;
 *                                  prints the offset changed
 * Exit 0 done, 1 when what was looked for is not there, 2 on bad usage or
 * I/O errors. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *data;
static long size;

static int die(const char *what)
{
    fprintf(stderr, "mkbad: %s\n", what);
    return 2;
}

static int load(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0)
        return -1;
    data = malloc(size ? (size_t)size : 1);
    if (!data || fread(data, 1, (size_t)size, f) != (size_t)size)
        return -1;
    fclose(f);
    return 0;
}

static int store(const char *path, long off, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "r+b");
    if (!f || fseek(f, off, SEEK_SET) != 0 || fwrite(b, 1, n, f) != n ||
        fclose(f) != 0)
        return -1;
    return 0;
}

static uint32_t le32(long off)
{
    const unsigned char *p = data + off;
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(unsigned char *p, uint32_t v)
{
    p[0] = v & 0xff; p[1] = v >> 8 & 0xff; p[2] = v >> 16 & 0xff; p[3] = v >> 24;
}

static int find(const char *text, int wide, long nth)
{
    size_t n = strlen(text) * (wide ? 2 : 1);
    unsigned char *pat = malloc(n ? n : 1);
    if (!pat || !n)
        return die("empty pattern");
    for (size_t i = 0; i < strlen(text); i++) {
        if (wide) { pat[2 * i] = (unsigned char)text[i]; pat[2 * i + 1] = 0; }
        else pat[i] = (unsigned char)text[i];
    }
    for (long i = 0; i + (long)n <= size; i++)
        if (!memcmp(data + i, pat, n) && --nth == 0) {
            printf("%ld\n", i);
            return 0;
        }
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return die("usage: mkbad patch|find|find16|fixsum|badsum|selfbig FILE ...");
    const char *cmd = argv[1], *path = argv[2];
    if (load(path) != 0)
        return die("cannot read the file");
    if (!strcmp(cmd, "patch") && argc == 5) {
        long off = strtol(argv[3], NULL, 10);
        if (off < 0)
            off += size;
        size_t n = strlen(argv[4]) / 2;
        unsigned char b[256];
        if (n == 0 || n > sizeof b || off < 0)
            return die("bad offset or bytes");
        for (size_t i = 0; i < n; i++) {
            char h[3] = { argv[4][2 * i], argv[4][2 * i + 1], 0 };
            b[i] = (unsigned char)strtoul(h, NULL, 16);
        }
        return store(path, off, b, n) ? die("cannot write") : 0;
    }
    if ((!strcmp(cmd, "find") || !strcmp(cmd, "find16")) && argc >= 4)
        return find(argv[3], cmd[4] == '1', argc > 4 ? atol(argv[4]) : 1);
    if ((!strcmp(cmd, "fixsum") || !strcmp(cmd, "badsum")) && argc == 3) {
        if (size < 512)
            return die("shorter than a base block");
        uint32_t x = 0;
        for (long i = 0; i < 508; i += 4)
            x ^= le32(i);
        if (x == 0xffffffffu) x = 0xfffffffeu;
        if (x == 0) x = 1;
        if (cmd[0] == 'b')
            x ^= 1;
        unsigned char b[4];
        put32(b, x);
        return store(path, 508, b, 4) ? die("cannot write") : 0;
    }
    if (!strcmp(cmd, "selfbig") && argc == 4) {
        int db_mode = !strcmp(argv[3], "db");
        /* Every hive bin after the base block, every cell in it. */
        for (long bin = 4096; bin + 32 <= size;) {
            if (memcmp(data + bin, "hbin", 4))
                return die("not a hive bin where one should be");
            long bsize = le32(bin + 8);
            if (bsize < 4096 || bin + bsize > size)
                return die("bad hive bin size");
            for (long c = bin + 32; c + 8 <= bin + bsize;) {
                int32_t cs = (int32_t)le32(c);
                long len = cs < 0 ? -(long)cs : cs;
                if (len < 8 || c + len > bin + bsize)
                    return die("bad cell size");
                if (cs < 0 && !memcmp(data + c + 4, "db", 2)) {
                    unsigned char b[4];
                    long list = le32(c + 8);
                    long at = db_mode ? c + 8 : 4096 + list + 4;
                    put32(b, (uint32_t)(db_mode ? c - 4096 : list));
                    if (at + 4 > size)
                        return die("big-data list outside the file");
                    if (store(path, at, b, 4))
                        return die("cannot write");
                    printf("%ld\n", at);
                    return 0;
                }
                c += len;
            }
            bin += bsize;
        }
        return 1;
    }
    return die("usage: mkbad patch|find|find16|fixsum|badsum|selfbig FILE ...");
}
