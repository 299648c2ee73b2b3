/* Platform layer: code pages on Windows (os.h): text converted between
 * a Windows code page and UTF-8 through UTF-16, as Windows converts,
 * saying where a byte does not convert. */
#include "platform/os.h"
#ifdef RT_OS_WIN32
#include "platform/os_internal.h"
#include <stdlib.h>
#include <string.h>
#include <windows.h>

/* Where a conversion from code page CP failed: MultiByteToWideChar does
 * not say, so the input is walked a character at a time (one byte, or two
 * from a lead byte) on this error path only. -4 when the input ends after
 * a lead byte; -1 with *ERR_OFF at the first byte that does not convert
 * (0 where the walk cannot tell: code pages of more than two bytes). */
static int find_bad_byte(unsigned cp, const uint8_t *in, size_t len,
                         size_t *err_off)
{
    CPINFO info;
    *err_off = 0;
    if (!GetCPInfo(cp, &info) || info.MaxCharSize > 2)
        return -1;
    wchar_t w[2];
    for (size_t i = 0; i < len;) {
        int n = info.MaxCharSize == 2 && IsDBCSLeadByteEx(cp, in[i]) ? 2 : 1;
        if (i + (size_t)n > len)
            return *err_off = i, -4;
        if (MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS,
                                (const char *)in + i, n, w, 2) <= 0) {
            *err_off = i;
            return -1;
        }
        i += (size_t)n;
    }
    return -1;
}

/* Both directions go through UTF-16, as Windows converts. A character
 * with no mapping fails (MB_ERR_INVALID_CHARS, WC_NO_BEST_FIT_CHARS and
 * the default-character check) instead of turning into '?'. Windows
 * knows code pages by number only. */
int rt_os_codepage_to_utf8(const char *codepage, const uint8_t *in,
                           size_t len, char **out, size_t *out_len,
                           size_t *err_off)
{
    unsigned cp = rt_os_codepage_number(codepage);
    if (!cp || !IsValidCodePage(cp))
        return -3;
    if (len > 0x3fffffff)
        return -2;
    *err_off = 0;
    int wn = len ? MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS,
                                       (const char *)in, (int)len, NULL, 0)
                 : 0;
    if (len && wn <= 0)
        return find_bad_byte(cp, in, len, err_off);
    wchar_t *w = malloc(((size_t)wn + 1) * sizeof *w);
    if (!w)
        return -2;
    if (len)
        MultiByteToWideChar(cp, MB_ERR_INVALID_CHARS, (const char *)in,
                            (int)len, w, wn);
    int un = wn ? WideCharToMultiByte(CP_UTF8, 0, w, wn, NULL, 0, NULL, NULL)
                : 0;
    char *u = malloc((size_t)un + 1);
    if (!u) {
        free(w);
        return -2;
    }
    if (wn)
        WideCharToMultiByte(CP_UTF8, 0, w, wn, u, un, NULL, NULL);
    free(w);
    u[un] = '\0';
    *out = u;
    *out_len = (size_t)un;
    return 0;
}

int rt_os_utf8_to_codepage(const char *codepage, const char *in, size_t len,
                           uint8_t **out, size_t *out_len, size_t *err_off)
{
    unsigned cp = rt_os_codepage_number(codepage);
    if (!cp || !IsValidCodePage(cp))
        return -3;
    if (len > 0x3fffffff)
        return -2;
    *err_off = 0;
    int wn = len ? MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, in,
                                       (int)len, NULL, 0)
                 : 0;
    if (len && wn <= 0)
        return -1;
    wchar_t *w = malloc(((size_t)wn + 1) * sizeof *w);
    if (!w)
        return -2;
    if (len)
        MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, in, (int)len, w,
                            wn);
    /* UTF-8 takes neither the flag nor the default-character check. */
    BOOL lossy = FALSE;
    DWORD flags = cp == CP_UTF8 ? 0 : WC_NO_BEST_FIT_CHARS;
    int an = wn ? WideCharToMultiByte(cp, flags, w, wn, NULL, 0, NULL,
                                      cp == CP_UTF8 ? NULL : &lossy)
                : 0;
    if (wn && (an <= 0 || lossy)) {
        free(w);
        return -1;
    }
    uint8_t *a = malloc((size_t)an + 1);
    if (!a) {
        free(w);
        return -2;
    }
    if (wn)
        WideCharToMultiByte(cp, flags, w, wn, (char *)a, an, NULL, NULL);
    free(w);
    *out = a;
    *out_len = (size_t)an;
    return 0;
}
#endif
