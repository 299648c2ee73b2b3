/* Engine layer, inside audit --libraries (audit_libraries.c): a
 * Library's environment strings expanded as the process that loads the
 * DLL has them, setup's or the machine's own (audit_env_strings.h). */
#include "engine/audit_env_strings.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int starts_ci(const char *s, const char *prefix)
{
    return !strncasecmp(s, prefix, strlen(prefix));
}

/* The environment strings Windows setups write into Library values, as
 * ExpandEnvironmentStrings gives them to the process that loads the DLL
 * (system drive C:). A user's profile stands for any user's: "(user)".
 * NULL: the Windows directory. */
static const struct {
    const char *var;
    const char *as;
    /* What a 32-bit process on 64-bit Windows reads instead (WOW64 sets
     * %ProgramFiles% to %ProgramFiles(x86)%'s value), or NULL. */
    const char *x86;
} env_vars[] = {
    {"%systemroot%", NULL, NULL},
    {"%windir%", NULL, NULL},
    {"%systemdrive%", "C:", NULL},
    {"%programfiles%", "C:\\Program Files", "%programfiles(x86)%"},
    {"%programw6432%", "C:\\Program Files", NULL},
    {"%programfiles(x86)%", "C:\\Program Files (x86)", NULL},
    {"%commonprogramfiles%", "C:\\Program Files\\Common Files",
     "%commonprogramfiles(x86)%"},
    {"%commonprogramw6432%", "C:\\Program Files\\Common Files", NULL},
    {"%commonprogramfiles(x86)%", "C:\\Program Files (x86)\\Common Files", NULL},
    {"%programdata%", "C:\\ProgramData", NULL},
    {"%allusersprofile%", "C:\\ProgramData", NULL},
    {"%public%", "C:\\Users\\Public", NULL},
    {"%userprofile%", "C:\\Users\\(user)", NULL},
    {"%homedrive%", "C:", NULL},
    {"%homepath%", "\\Users\\(user)", NULL},
    {"%appdata%", "C:\\Users\\(user)\\AppData\\Roaming", NULL},
    {"%localappdata%", "C:\\Users\\(user)\\AppData\\Local", NULL},
    {"%temp%", "C:\\Users\\(user)\\AppData\\Local\\Temp", NULL},
    {"%tmp%", "C:\\Users\\(user)\\AppData\\Local\\Temp", NULL},
};
enum { N_ENV_VARS = sizeof env_vars / sizeof *env_vars };

/* The index in env_vars of the variable S begins with, or N_ENV_VARS. */
static size_t env_var_at(const char *s)
{
    size_t i = 0;
    if (*s == '%')
        while (i < N_ENV_VARS && !starts_ci(s, env_vars[i].var))
            i++;
    return *s == '%' ? i : N_ENV_VARS;
}


/* How the machine defines VAR (env_vars' spelling), where the tree
 * tells it, else NULL. */
static const struct rt_audit_env *defined(const struct rt_audit_tree *tree,
                                          const char *var)
{
    for (size_t i = 0; tree && i < tree->n_env; i++)
        if (!strcasecmp(tree->env[i].var, var))
            return &tree->env[i];
    return NULL;
}

/* The length of the "%NAME%" S begins with (NAME one character or more,
 * no '%'), or 0: a variable, known or not, that ExpandEnvironmentStrings
 * would look up. */
static size_t var_length(const char *s)
{
    const char *end = *s == '%' && s[1] && s[1] != '%' ? strchr(s + 1, '%')
                                                       : NULL;
    return end ? (size_t)(end - s) + 1 : 0;
}

const struct rt_audit_env *rt_audit_other_drive(
    const struct rt_audit_tree *tree)
{
    static const char *const vars[] = {"%systemdrive%", RT_AUDIT_SETUP_ROOT};
    for (size_t i = 0; i < 2; i++) {
        const struct rt_audit_env *d = defined(tree, vars[i]);
        const char *v = d && !d->problem ? d->value : NULL;
        if (v && isalpha((unsigned char)v[0]) && v[1] == ':' &&
            toupper((unsigned char)v[0]) != 'C')
            return d;
    }
    return NULL;
}

/* Why a machine's value that names a variable is not judged. */
#define NAMES_A_VARIABLE                                                     \
    "names an environment string other than %SystemRoot% and "               \
    "%SystemDrive%, whose value where Windows expands it is not known"
#define TYPED_VARIABLE                                                       \
    "is REG_SZ and names an environment string, which Windows keeps as "     \
    "typed there"

#define SETS_WITH_VARIABLE                                                   \
    "names an environment string itself: which of its values the "           \
    "machine's other values are expanded with is not known"

/* Whether S names a variable, known or not. */
static int names_variable(const char *s)
{
    for (; *s; s++)
        if (var_length(s))
            return 1;
    return 0;
}

/* DEF's value expanded into OUT: the only variables it may use are the
 * ones the system sets before any of the registry's (%SystemRoot%,
 * %SystemDrive%): the Environment key's where it sets them (review 50
 * R50-1: windir=%SystemRoot% was expanded with setup's beside the key's
 * SystemRoot), else setup's. 0; -1 when it does not fit; -2 when it
 * names another variable, known or not (one the Environment key defines
 * too: review 48 R48-5), or a REG_SZ names any (Windows does not expand
 * it), or the key's SystemRoot or SystemDrive it uses is not taken whole
 * (*BLAME that one), with *WHY set. *SETUP_START 1 when OUT begins with
 * setup's %SystemRoot% or %SystemDrive%, the system drive's letter
 * (review 52 R52-4: windir=%SystemRoot% on a machine set up on D:). */
static int expand_value(const struct rt_audit_tree *tree, const char *windows,
                        const struct rt_audit_env *def, char *out,
                        size_t size, const char **why,
                        const struct rt_audit_env **blame, int *setup_start)
{
    const char *v = def->value;
    *blame = def;
    *setup_start = 0;
    size_t k = 0;
    while (*v && k + 1 < size) {
        size_t i = env_var_at(v);
        if (i == N_ENV_VARS && !var_length(v)) {
            out[k++] = *v++;
            continue;
        }
        if (i == N_ENV_VARS || def->typed || (strcmp(env_vars[i].var, "%systemroot%") &&
                           strcmp(env_vars[i].var, "%systemdrive%"))) {
            *why = def->typed ? TYPED_VARIABLE : NAMES_A_VARIABLE;
            return -2;
        }
        const struct rt_audit_env *sys = defined(tree, env_vars[i].var);
        if (sys && sys != def && (sys->problem || names_variable(sys->value))) {
            *blame = sys;
            *why = sys->problem ? sys->problem : SETS_WITH_VARIABLE;
            return -2;
        }
        *setup_start |= k == 0 && !(sys && sys != def);
        int n = sys && sys != def
                    ? snprintf(out + k, size - k, "%s", sys->value)
                : env_vars[i].as
                    ? snprintf(out + k, size - k, "%s", env_vars[i].as)
                    : snprintf(out + k, size - k, "C:\\%s", windows);
        if (n < 0 || (size_t)n >= size - k)
            return -1;
        k += (size_t)n;
        v += strlen(env_vars[i].var);
    }
    out[k] = '\0';
    return *v ? -1 : 0;
}

int rt_expand_env_strings(const struct rt_audit_tree *tree,
                          const char *windows, const char *lib, char *out,
                          size_t size, int mode, struct rt_env_expansion *x)
{
    size_t k = 0;
    memset(x, 0, sizeof *x);
    out[0] = '\0';
    while (*lib && k + 1 < size) {
        size_t i = env_var_at(lib), unknown = var_length(lib);
        if (i == N_ENV_VARS && unknown) {
            /* Whatever defines it (the machine's Environment key, the
             * loading process's own) decides where it leads (review 48
             * R48-5: a folder named %X% in the tree was judged). */
            x->unjudged = 1;
            snprintf(x->var, sizeof x->var, "%.*s",
                     (int)(unknown < sizeof x->var ? unknown
                                                   : sizeof x->var - 1),
                     lib);
            return -2;
        }
        if (i == N_ENV_VARS) {
            out[k++] = *lib++;
            out[k] = '\0';
            continue;
        }
        /* The loading user's home drive, set at each logon: any drive or
         * share, the system's only by chance (review 50 R50-9: judged as
         * C:); before %HOMEPATH%, that user's home folder. */
        if (!strcmp(env_vars[i].var, "%homedrive%") &&
            !starts_ci(lib + strlen("%homedrive%"), "%homepath%")) {
            x->unjudged = 1;
            snprintf(x->var, sizeof x->var, "%.*s",
                     (int)strlen("%homedrive%"), lib);
            x->where = "the loading user's logon";
            x->why = "is that user's home drive, any drive or share";
            return -2;
        }
        size_t use = (mode & RT_EXPAND_32BIT) && env_vars[i].x86
                         ? env_var_at(env_vars[i].x86) : i;
        x->program_files_var |= env_vars[i].x86 != NULL;
        x->expanded = 1;
        /* MINE: a machine value expanded, at most a Library's length
         * (audit_libraries.c's LIBRARY_MAX, 1023 bytes). */
        char setup[300], mine[1024];
        snprintf(setup, sizeof setup, "C:\\%s", windows);
        const char *as = env_vars[use].as ? env_vars[use].as : setup;
        const struct rt_audit_env *def =
            mode & RT_EXPAND_MACHINE ? defined(tree, env_vars[use].var) : NULL;
        int setup_start = !def && isalpha((unsigned char)as[0]) &&
                          as[1] == ':';
        if (def) {
            const char *why = def->problem;
            const struct rt_audit_env *blame = def;
            int r = why ? -2
                        : expand_value(tree, windows, def, mine, sizeof mine,
                                       &why, &blame, &setup_start);
            if (r == -2) {
                x->unjudged = 1;
                snprintf(x->var, sizeof x->var, "%s", blame->var);
                x->where = blame->where;
                x->why = why;
            }
            if (r != 0)
                return r;
            as = mine;
        }
        x->setup_drive |= k == 0 && setup_start;
        k += (size_t)snprintf(out + k, size - k, "%s", as);
        if (k >= size)
            return -1;
        lib += strlen(env_vars[i].var);
    }
    /* What did not fit is said, never judged cut short. */
    return *lib ? -1 : 0;
}
