/* Calls one function of an NSIS plugin as an installer's exehead does:
 * its argument on the NSIS stack, then prints what it left on top and
 * exits 0 when that is "0". It runs the plugin where no installer can
 * (the 64-bit build under wine64) and in the 32-bit build next to it.
 *   plugin_host.exe PLUGIN.dll FUNCTION ARGUMENT */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pluginapi.h"

#define STRING_SIZE 1024

typedef void (*plugin_fn)(HWND, int, LPWSTR, stack_t **, extra_parameters *);

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: plugin_host PLUGIN.dll FUNCTION ARGUMENT\n");
        return 2;
    }
    HMODULE dll = LoadLibraryA(argv[1]);
    plugin_fn fn = dll ? (plugin_fn)(void (*)(void))GetProcAddress(dll, argv[2])
                       : NULL;
    if (!fn) {
        fprintf(stderr, "plugin_host: no %s in %s (error %lu)\n", argv[2],
                argv[1], (unsigned long)GetLastError());
        return 2;
    }
    stack_t *top = calloc(1, sizeof *top + STRING_SIZE * sizeof(WCHAR));
    static WCHAR variables[__INST_LAST * STRING_SIZE];
    exec_flags_t flags;
    extra_parameters extra;
    memset(&flags, 0, sizeof flags);
    memset(&extra, 0, sizeof extra);
    extra.exec_flags = &flags;
    if (!top)
        return 2;
    MultiByteToWideChar(CP_ACP, 0, argv[3], -1, top->text, STRING_SIZE);
    stack_t *stack = top;
    fn(NULL, STRING_SIZE, variables, &stack, &extra);
    if (!stack) {
        fprintf(stderr, "plugin_host: %s left the stack empty\n", argv[2]);
        return 2;
    }
    char out[4 * STRING_SIZE];
    WideCharToMultiByte(CP_UTF8, 0, stack->text, -1, out, sizeof out, NULL,
                        NULL);
    printf("%s\n", out);
    return strcmp(out, "0") == 0 ? 0 : 1;
}
