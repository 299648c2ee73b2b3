/* Test support for the win32 store: wiping the test areas of a throwaway
 * Wine prefix's registry, and small file helpers with Win32 paths. */
#include "win32_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <windows.h>

#include "model/utf16.h"

#define SERVICES "SYSTEM\\CurrentControlSet\\Services\\"

/* UTF-8 to a new NUL-terminated UTF-16 string; NULL on bad UTF-8 or when
 * out of memory. */
static WCHAR *wide(const char *s)
{
    return (WCHAR *)rt_utf8_to_utf16z(s);
}

/* Deletes key PATH of ROOT and everything under it. */
static LONG delete_under(HKEY root, const WCHAR *path)
{
    HKEY k;
    LONG r = RegOpenKeyExW(root, path, 0, KEY_ALL_ACCESS, &k);
    if (r != ERROR_SUCCESS)
        return r;
    WCHAR name[256];
    DWORD len = 256;
    /* Always the first subkey: each one found is gone afterwards. */
    while (r == ERROR_SUCCESS &&
           (r = RegEnumKeyExW(k, 0, name, &len, NULL, NULL, NULL, NULL)) ==
               ERROR_SUCCESS) {
        r = delete_under(k, name);
        len = 256;
    }
    RegCloseKey(k);
    if (r != ERROR_NO_MORE_ITEMS)
        return r;
    return RegDeleteKeyW(root, path);
}

static int delete_tree(const char *path)
{
    WCHAR *p = wide(path);
    LONG r = p ? delete_under(HKEY_LOCAL_MACHINE, p) : ERROR_OUTOFMEMORY;
    free(p);
    if (r == ERROR_SUCCESS || r == ERROR_FILE_NOT_FOUND)
        return 0;
    fprintf(stderr, "wipe: cannot delete HKLM\\%s: error %ld\n", path,
            (long)r);
    return -1;
}

/* Empties Perflib, keeping the predefined-handle keys (they cannot be
 * deleted and hold nothing of ours). */
static int empty_perflib(void)
{
    HKEY k;
    LONG r = RegOpenKeyExW(HKEY_LOCAL_MACHINE,
                           L"SOFTWARE\\Microsoft\\Windows NT\\CurrentVersion\\"
                           L"Perflib", 0, KEY_ALL_ACCESS, &k);
    if (r == ERROR_FILE_NOT_FOUND)
        return 0;
    if (r != ERROR_SUCCESS) {
        fprintf(stderr, "wipe: cannot open Perflib: error %ld\n", (long)r);
        return -1;
    }
    WCHAR name[16384];
    DWORD i = 0, len = 256;
    while (r == ERROR_SUCCESS &&
           (r = RegEnumKeyExW(k, i, name, &len, NULL, NULL, NULL, NULL)) ==
               ERROR_SUCCESS) {
        HKEY sub = NULL;
        len = 256;
        if (RegOpenKeyExW(k, name, 0, KEY_READ, &sub) == ERROR_SUCCESS) {
            if (sub == HKEY_PERFORMANCE_TEXT || sub == HKEY_PERFORMANCE_NLSTEXT) {
                i++;                    /* the system's: leave it */
                continue;
            }
            RegCloseKey(sub);
        }
        r = delete_under(k, name);
    }
    len = 16384;
    if (r == ERROR_NO_MORE_ITEMS)
        while ((r = RegEnumValueW(k, 0, name, &len, NULL, NULL, NULL, NULL)) ==
                   ERROR_SUCCESS &&
               (r = RegDeleteValueW(k, name)) == ERROR_SUCCESS)
            len = 16384;
    RegCloseKey(k);
    if (r == ERROR_NO_MORE_ITEMS)
        return 0;
    fprintf(stderr, "wipe: cannot empty Perflib: error %ld\n", (long)r);
    return -1;
}

int wt_wipe(const char *root, const char *const *services, size_t n)
{
    if (root)
        return delete_tree(root);
    int r = empty_perflib();
    for (size_t i = 0; r == 0 && i < n; i++) {
        char path[512];
        snprintf(path, sizeof path, SERVICES "%s", services[i]);
        r = delete_tree(path);
    }
    return r;
}

int wt_delete_file(const char *path)
{
    WCHAR *p = wide(path);
    int ok = p && (DeleteFileW(p) || GetLastError() == ERROR_FILE_NOT_FOUND);
    free(p);
    return ok ? 0 : -1;
}

int wt_write_file(const char *path, const void *data, size_t len)
{
    WCHAR *p = wide(path);
    HANDLE h = p ? CreateFileW(p, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS,
                               FILE_ATTRIBUTE_NORMAL, NULL)
                 : INVALID_HANDLE_VALUE;
    free(p);
    if (h == INVALID_HANDLE_VALUE)
        return -1;
    DWORD done = 0;
    int ok = WriteFile(h, data, (DWORD)len, &done, NULL) && done == len;
    CloseHandle(h);
    return ok ? 0 : -1;
}

int wt_file_exists(const char *path)
{
    WCHAR *p = wide(path);
    DWORD a = p ? GetFileAttributesW(p) : INVALID_FILE_ATTRIBUTES;
    free(p);
    return a != INVALID_FILE_ATTRIBUTES;
}
