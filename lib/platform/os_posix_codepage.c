/* Platform layer: code pages on POSIX systems (os.h): text converted
 * between a Windows code page and UTF-8 through iconv, saying where a
 * byte does not convert. */
#include "platform/os.h"
#ifdef RT_OS_POSIX
#include "platform/os_internal.h"

#include <errno.h>
#include <iconv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Doubles the output buffer *BUF (*CAP bytes, written up to *OUTP, one
 * byte kept for the terminator), keeping what is written: 0, or -2 out of
 * memory (*BUF as it was). */
static int grow(char **buf, size_t *cap, char **outp, size_t *outleft)
{
    size_t used = (size_t)(*outp - *buf);
    char *nb = realloc(*buf, *cap * 2);
    if (!nb)
        return -2;
    *cap *= 2;
    *buf = nb;
    *outp = nb + used;
    *outleft = *cap - used - 1;
    return 0;
}

/* One iconv conversion of the whole input; FROM and TO are iconv names. */
static int convert(const char *to, const char *from, const uint8_t *in,
                   size_t len, char **out, size_t *out_len, size_t *err_off)
{
    iconv_t cd = iconv_open(to, from);
    /* glibc says EINVAL, no such conversion, also when memory ran out
     * loading its conversion modules: asked again, a conversion that
     * exists is found once memory is there, and one that every glibc has
     * tells whether the machine can convert at all. Only then is the
     * code page unknown. */
    if (cd == (iconv_t)-1 && errno == EINVAL)
        cd = iconv_open(to, from);
    if (cd == (iconv_t)-1 && errno == EINVAL) {
        iconv_t probe = iconv_open("UTF-8", "ISO-8859-1");
        if (probe == (iconv_t)-1)
            return -2;
        iconv_close(probe);
        return -3;
    }
    if (cd == (iconv_t)-1)
        /* ENOMEM, EMFILE: the machine, not the input. */
        return -2;
    size_t cap = len * 4 + 16;
    char *buf = malloc(cap);
    if (!buf) {
        iconv_close(cd);
        return -2;
    }
    char *inp = (char *)in, *outp = buf;
    size_t inleft = len, outleft = cap - 1;
    int rc = 0;
    while (inleft > 0) {
        if (iconv(cd, &inp, &inleft, &outp, &outleft) != (size_t)-1)
            continue;
        if (errno == E2BIG) {
            if (grow(&buf, &cap, &outp, &outleft) != 0) {
                rc = -2;
                break;
            }
            continue;
        }
        *err_off = (size_t)((const uint8_t *)inp - in);
        /* EINVAL: the input ends inside a multibyte character. */
        rc = errno == EINVAL ? -4 : -1;
        break;
    }
    /* Stateful encodings flush their shift state here, and decoders that
     * hold characters back to combine them (TSCII) write them out: that
     * may need more room than is left (eight TSCII bytes 0x8A, 48 bytes
     * of UTF-8, fill all but 2 bytes of the first buffer before it). */
    while (rc == 0 && iconv(cd, NULL, NULL, &outp, &outleft) == (size_t)-1) {
        if (errno == E2BIG) {
            if (grow(&buf, &cap, &outp, &outleft) != 0)
                rc = -2;
            continue;
        }
        *err_off = len;
        rc = -1;
    }
    iconv_close(cd);
    if (rc) {
        free(buf);
        return rc;
    }
    *outp = '\0';
    *out = buf;
    *out_len = (size_t)(outp - buf);
    return 0;
}

/* glibc names Windows code pages CPnnnn; a name without a number
 * ("ASCII", "KOI8-R") is given to iconv as it is. */
static int iconv_name(const char *codepage, char *name, size_t size)
{
    unsigned n = rt_os_codepage_number(codepage);
    if (n)
        snprintf(name, size, "CP%u", n);
    else if (*codepage && strlen(codepage) < size)
        snprintf(name, size, "%s", codepage);
    else
        return -3;
    return 0;
}

int rt_os_codepage_to_utf8(const char *codepage, const uint8_t *in,
                           size_t len, char **out, size_t *out_len,
                           size_t *err_off)
{
    char name[64];
    if (iconv_name(codepage, name, sizeof name) != 0)
        return -3;
    return convert("UTF-8", name, in, len, out, out_len, err_off);
}

int rt_os_utf8_to_codepage(const char *codepage, const char *in, size_t len,
                           uint8_t **out, size_t *out_len, size_t *err_off)
{
    char name[64];
    if (iconv_name(codepage, name, sizeof name) != 0)
        return -3;
    char *o;
    int r = convert(name, "UTF-8", (const uint8_t *)in, len, &o, out_len,
                    err_off);
    if (r == 0)
        *out = (uint8_t *)o;
    return r;
}
#endif
