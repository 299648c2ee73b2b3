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
    /* The drive letter OUT begins with is setup's (%SystemRoot%,
     * %SystemDrive%, %ProgramFiles% as setup writes them): the system
     * drive's, the tree's, whatever letter the machine gives it. */
    int setup_drive;
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

/* The machine value of TREE that names a system drive other than C:
 * (the Environment key's SystemDrive, setup's SystemRoot below
 * SOFTWARE), or NULL: where one does, which volume a drive letter names
 * on that machine is not known offline (review 50 R50-6, review 51
 * R51-1: a value the disk's author writes renames no volume). */
const struct rt_audit_env *rt_audit_other_drive(
    const struct rt_audit_tree *tree);

#endif
