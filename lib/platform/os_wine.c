/* Platform layer, Winelib builds only (winegcc defines __WINE__): the
 * Unix path Wine maps a Windows path to. A Winelib regtool does its file
 * I/O through the C library (os_posix.c), but Windows programs that run
 * it as lodctr.exe give it Windows paths (C:\dir\x.ini), whose Unix
 * location only Wine knows (its drive mappings): kernel32's
 * wine_get_unix_file_name says, as Wine's own tools ask it. */
#include "platform/os_internal.h"

#ifdef __WINE__
#include <stdlib.h>
#include <string.h>

#include <windows.h>

char *rt_os_wine_unix_path(const char *path)
{
    int n = MultiByteToWideChar(CP_UTF8, 0, path, -1, NULL, 0);
    if (n <= 0)
        return NULL;
    WCHAR *w = malloc((size_t)n * sizeof *w);
    if (!w)
        return NULL;
    MultiByteToWideChar(CP_UTF8, 0, path, -1, w, n);
    typedef char *(CDECL * unix_name_fn)(LPCWSTR);
    unix_name_fn to_unix = (unix_name_fn)(void (*)(void))GetProcAddress(
        GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name");
    char *u = to_unix ? to_unix(w) : NULL;
    free(w);
    char *r = u ? strdup(u) : NULL;
    if (u)
        HeapFree(GetProcessHeap(), 0, u);
    return r;
}
#else
/* Elsewhere this file has nothing to give; ISO C wants a declaration. */
typedef int rt_os_wine_only;
#endif
