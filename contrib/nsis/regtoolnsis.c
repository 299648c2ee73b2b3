/* regtoolnsis.dll: the NSIS plugin of regtool (x86-unicode, the kind of
 * installer makensis builds by default), linked with libregtool so that
 * one DLL does the work and imports only Windows' own DLLs.
 *
 *     regtoolnsis::Install "$INSTDIR\provider.ini"
 *     Pop $0     ; "0", or "ERROR: <message>"
 *     regtoolnsis::Uninstall "ProviderDriverName"
 *     Pop $0
 *
 * Both work on the live registry of this computer, as lodctr and unlodctr
 * do: Install takes the INI as lodctr takes it (REGTOOL_CODEPAGE and
 * REGTOOL_STRICT in the environment, as for the lodctr.exe of the release
 * zip), and the provider's service must exist. The message after
 * "ERROR: " is the one the regtool command prints for the same failure.
 *
 * A 32-bit installer on 64-bit Windows reaches the system's Perflib and
 * System32 because the library opens every key with KEY_WOW64_64KEY and
 * reads System32 as Sysnative (lib/store/store_win32.c). */
#include <windows.h>

#include <stdlib.h>
#include <string.h>

#include "pluginapi.h"
#include "regtool.h"

#define PLUGIN_API __declspec(dllexport)

/* Pushes "ERROR: " and MESSAGE (UTF-8) as one string. */
static void push_error(const char *message)
{
    static const WCHAR prefix[] = L"ERROR: ";
    size_t np = sizeof prefix / sizeof *prefix - 1;
    int n = MultiByteToWideChar(CP_UTF8, 0, message, -1, NULL, 0);
    WCHAR *w = n > 0 ? malloc((np + (size_t)n) * sizeof *w) : NULL;
    if (!w) {
        pushstring(L"ERROR: out of memory");
        return;
    }
    memcpy(w, prefix, np * sizeof *w);
    MultiByteToWideChar(CP_UTF8, 0, message, -1, w + np, n);
    pushstring(w);
    free(w);
}

static void push_result(int rc, const regtool_error *err)
{
    if (rc == REGTOOL_OK)
        pushstring(L"0");
    else
        push_error(err->message[0] ? err->message : "failed");
}

/* The argument on top of the stack, as UTF-8 (the library's paths and
 * names), or NULL after pushing the error that says why. */
static char *pop_argument(const char *what)
{
    WCHAR *w = malloc((g_stringsize + 1) * sizeof *w);
    if (!w) {
        push_error("out of memory");
        return NULL;
    }
    if (popstring(w) != 0 || !w[0]) {
        free(w);
        char message[128];
        strcpy(message, "no ");
        strcat(message, what);
        strcat(message, " given");
        push_error(message);
        return NULL;
    }
    int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
    char *s = n > 0 ? malloc((size_t)n) : NULL;
    if (s)
        WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
    else
        push_error("out of memory");
    free(w);
    return s;
}

/* A variable of lodctr's environment, or NULL when unset or empty. */
static const char *lodctr_setting(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

PLUGIN_API void Install(HWND parent, int string_size, LPTSTR variables,
                        stack_t **stacktop, extra_parameters *extra)
{
    (void)parent;
    (void)extra;
    EXDLL_INIT();
    char *ini = pop_argument("INI");
    if (!ini)
        return;
    regtool_install_options opt;
    memset(&opt, 0, sizeof opt);
    opt.codepage = lodctr_setting("REGTOOL_CODEPAGE");
    const char *strict = lodctr_setting("REGTOOL_STRICT");
    opt.strict = strict && strcmp(strict, "0") != 0;
    regtool *rt = NULL;
    regtool_error err;
    memset(&err, 0, sizeof err);
    int rc = regtool_open("live", NULL, &rt, &err);
    if (rc == REGTOOL_OK) {
        rc = regtool_install(rt, ini, &opt, NULL, &err);
        regtool_close(rt);
    }
    free(ini);
    push_result(rc, &err);
}

PLUGIN_API void Uninstall(HWND parent, int string_size, LPTSTR variables,
                          stack_t **stacktop, extra_parameters *extra)
{
    (void)parent;
    (void)extra;
    EXDLL_INIT();
    char *driver = pop_argument("driver name");
    if (!driver)
        return;
    regtool *rt = NULL;
    regtool_error err;
    memset(&err, 0, sizeof err);
    int rc = regtool_open("live", NULL, &rt, &err);
    if (rc == REGTOOL_OK) {
        rc = regtool_uninstall(rt, driver, 0, NULL, &err);
        regtool_close(rt);
    }
    free(driver);
    push_result(rc, &err);
}
