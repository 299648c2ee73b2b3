/* Test support for the win32 store under Wine: puts the registry areas the
 * tests use back to nothing. Destructive: only for a throwaway prefix. */
#ifndef WT_WIN32_FIXTURE_H
#define WT_WIN32_FIXTURE_H

#include <stddef.h>

/* With ROOT (a sandbox key under HKLM): deletes it and everything under
 * it. Without: empties Perflib (every value, every subkey but the
 * predefined-handle ones the system keeps, such as Wine's 009) and deletes
 * Services\NAME for each of the N SERVICES. Returns 0, or -1 after
 * printing why. */
int wt_wipe(const char *root, const char *const *services, size_t n);

/* Deletes the file at the UTF-8 PATH (absent is fine); 0 or -1. */
int wt_delete_file(const char *path);

/* Writes LEN bytes to the UTF-8 PATH, replacing it; 0 or -1. */
int wt_write_file(const char *path, const void *data, size_t len);

/* Whether a file exists at the UTF-8 PATH. */
int wt_file_exists(const char *path);

#endif
