/* Engine layer, inside audit --libraries (audit_libraries.c): a
 * Library's environment strings (%SystemRoot%, %ProgramFiles%, ...)
 * expanded as ExpandEnvironmentStrings gives them to the process that
 * loads the DLL: as Windows setup defines them, or as the machine's own
 * registry does where the tree tells (rt_audit_tree's env), each of the
 * machine's values taken whole or not at all. */
#ifndef RT_ENGINE_AUDIT_ENV_STRINGS_H
#define RT_ENGINE_AUDIT_ENV_STRINGS_H

#include "engine/audit.h"

#include <stddef.h>

/* How a Library's variables are expanded: with the machine's values
 * where the tree tells them (else setup's), and as a 32-bit process on
 * 64-bit Windows reads them (WOW64 gives it %ProgramFiles(x86)%'s value
 * for %ProgramFiles%). */
enum { RT_EXPAND_MACHINE = 1, RT_EXPAND_32BIT = 2 };

/* What an expansion met. */
struct rt_env_expansion {
    /* %ProgramFiles% or %CommonProgramFiles%, which a 32-bit process
     * reads as Program Files (x86). */
    int program_files_var;
    int expanded;   /* an environment string was expanded */
    /* Where the Library leads is not known: VAR ("%windir%", cut to
     * fit) is one the machine defines by a value not judged (WHERE the
     * value's key and name, WHY "is empty"), or one regtool does not
     * know (WHERE NULL: the loading process's environment decides). */
    int unjudged;
    char var[64];
    const char *where, *why;
};

/* LIB with every known %VAR% replaced wherever it stands into OUT (SIZE
 * bytes), as MODE says; the
 * Windows directory is C:\WINDOWS (its name below the root). 0; -1 when
 * the result does not fit (a Library said too long, never judged cut
 * short); -2 when a variable's value cannot be judged, or a variable
 * is not known (X's UNJUDGED). */
int rt_expand_env_strings(const struct rt_audit_tree *tree,
                          const char *windows, const char *lib, char *out,
                          size_t size, int mode, struct rt_env_expansion *x);

/* The letter of the drive TREE's machine runs from: its Environment
 * key's SystemDrive where that is a drive letter alone ("D:"), else C,
 * where setup puts Windows. */
char rt_audit_system_drive(const struct rt_audit_tree *tree);

#endif
