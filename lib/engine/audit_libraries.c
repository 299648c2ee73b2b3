/* Engine layer: who gets loaded (audit.h, rt_audit_libraries). Each
 * provider's Library, Open, Collect and Close as Perflib reads them, where
 * Windows would find the DLL, whether that place is one a user can write
 * to, whether a built-in system object is still served by the system's own
 * DLL, and, given the tree's file-existence facts, whether the DLL is
 * there at all. Pure: the files are asked through struct rt_audit_tree. */
#include "engine/audit.h"
#include "engine/audit_env_strings.h"
#include "engine/audit_shared_dlls.h"
#include "engine/audit_short_names.h"
#include "model/strbuf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model/reg_types.h"

#define SYMPTOM_SKIPPED                                                       \
    "Perflib skips the provider: its objects are missing from every "        \
    "consumer, and the Application log gets a Perflib error each time data " \
    "is collected"
#define SYMPTOM_NOT_LOADED                                                    \
    "Perflib event 1023 (Windows cannot load the extensible counter DLL); "  \
    "the provider's objects are missing from every consumer"
#define SYMPTOM_HIJACK                                                        \
    "every program that reads performance data (and services running as "   \
    "SYSTEM that do) loads this DLL: whoever can write the file runs code "  \
    "in them"
#define SYMPTOM_SEARCH                                                        \
    "Windows finds the DLL through the DLL search order (the reading "       \
    "program's directory first, then System32, the Windows directory, the " \
    "current directory and PATH): a file of that name placed earlier in "   \
    "the order is loaded instead"
#define SYMPTOM_WOW64_32                                                      \
    "32-bit consumers (System32 is SysWOW64 for them) cannot load it and "   \
    "do not see the provider's objects"
#define SYMPTOM_WOW64_64                                                      \
    "64-bit consumers, and Perflib itself on a 64-bit Windows, cannot load " \
    "it: the objects show up in 32-bit programs only"
#define SYMPTOM_SYSTEM_RANGE                                                  \
    "the system's objects are served by a Performance key an installer "    \
    "took over: its Library, Open, Collect and Close are whatever the INI's " \
    "installer wrote, loaded by every program that reads performance data"
#define SYMPTOM_TOO_LONG                                                      \
    "no Windows path is this long (a DLL's path has at most 32,767 "         \
    "characters, and without long-path support 260): the value was made to " \
    "be seen cut short, and where it leads is not known"
#define SYMPTOM_STREAM                                                        \
    "an alternate data stream is not seen by a directory listing or by "    \
    "most file checks: a DLL kept in one hides from whoever looks at the "   \
    "folder, and whoever can write the file or folder holding the stream "  \
    "can plant it"
#define SYMPTOM_SHARED                                                        \
    "one DLL serves several providers through different entry points; if "  \
    "that is not intended, one provider's values were overwritten"

#define SYMPTOM_UNJUDGED                                                      \
    "a value the disk's author chose can hide where the DLL is loaded from"
#define CHECK_UNJUDGED                                                        \
    "check the value on the machine itself, and what the Library expands "   \
    "to there"
#define CHECK_VALUES "check the provider's Performance key (reinstall it: regtool install --replace INI)"
#define CHECK_FILE "check that the product owning the provider is installed; reinstall it, or remove the provider (regtool uninstall)"
#define CHECK_BARE "check that the DLL is in System32, where Windows finds it first after the reading program's own directory; a full path (%SystemRoot%\\System32\\NAME) leaves nothing to search"
#define CHECK_PLACE "check who owns the file and who can write the directory; a legitimate product installs into Program Files"

struct libaudit {
    const struct rt_database *db;
    const struct rt_audit_tree *tree;
    struct rt_findings *f;
    int failed;
    int have_files;      /* the tree holds Windows' system files */
    int have_wow64;      /* ... and a SysWOW64 with them */
    int bits;            /* 64 or 32 when the tree has files, else 0 */
    struct rt_short_names *shorts;   /* the tree's folders, each listed once */
    int refused;         /* a look-up met a link or special file (1),
                            or two names differing only in case (2) */
    int folder;          /* a Library looked for was a folder */
};

#define ADD(a, ...)                                                           \
    do {                                                                      \
        if (rt_findings_add((a)->f, __VA_ARGS__) != 0)                        \
            (a)->failed = 1;                                                  \
    } while (0)

/* Where a Library value points, in the terms Windows resolves it. */
enum lib_where {
    LIB_BARE,        /* "perfos.dll": the DLL search order */
    LIB_RELATIVE,    /* "sub\\x.dll": relative to the current directory */
    LIB_WINDOWS,     /* under the Windows directory: REST is below it */
    LIB_DRIVE,       /* "C:\\...": REST is below the drive's root */
    LIB_OTHER_DRIVE, /* another drive letter, UNC, or an unknown variable */
};

/* The longest Library regtool judges, once environment strings are
 * expanded and short names replaced (docs/reference.md, "Who gets loaded"): four
 * times the MAX_PATH of a DLL loaded without long-path support. A longer
 * one is said to be too long and where it leads is not judged: a copy
 * cut short could end anywhere (a harmless folder instead of the
 * user-writable one further on). */
#define LIBRARY_MAX 1023

struct lib_path {
    enum lib_where where;
    char rest[LIBRARY_MAX + 1];   /* '\\'-separated, no leading separator */
    /* Longer than LIBRARY_MAX once expanded: REST means nothing. */
    int too_long;
    /* It names an NTFS alternate data stream ("x.dll:s", "System32:s"):
     * REST is cut to the file or folder holding it. */
    int stream;
    /* Its environment strings, as expanded (audit_env_strings.h). */
    struct rt_env_expansion env;
    /* An 8.3 short name the tree could not resolve: its place and file
     * are not known. MAY_BE is a user-writable place it may stand for. */
    int unresolved;
    char may_be[272];   /* C:\ and the name of a folder at the root */
    /* A short name the tree's folders resolved by its prefix, as Windows
     * forms them; TYPED is REST as it was before. */
    int by_prefix;
    char typed[LIBRARY_MAX + 1];
    /* A drive letter the Library names where the machine says its system
     * drive is another than C: (that value): which volume it is there is
     * not known. */
    const struct rt_audit_env *other_drive;
};

static void copy_rest(struct lib_path *p, const char *s)
{
    while (*s == '\\' || *s == '/')
        s++;
    size_t k = 0;
    for (; *s && k + 1 < sizeof p->rest; s++)
        p->rest[k++] = *s == '/' ? '\\' : *s;
    p->rest[k] = '\0';
}

static const char *windows_name(const struct libaudit *a)
{
    return a->tree && a->tree->windows_dir && *a->tree->windows_dir
               ? a->tree->windows_dir
               : "Windows";
}

/* Drops "." and empty components and resolves ".." (never above the
 * root, as Windows does: C:\..\x is C:\x; a relative path keeps a leading
 * ".."), then trims as Win32 path normalization does: a component's one
 * trailing dot, and the last component's trailing dots and blanks. */
static void resolve_steps(struct lib_path *p)
{
    char out[sizeof p->rest];
    size_t k = 0, kept = 0;   /* KEPT: components that ".." may pop */
    const char *s = p->rest;
    while (*s) {
        size_t n = strcspn(s, "\\");
        const char *next = s[n] ? s + n + 1 : s + n;
        int last = !*next;
        char c[sizeof p->rest];
        memcpy(c, s, n);
        c[n] = '\0';
        s = next;
        if (!strcmp(c, ".") || !n)
            continue;
        if (!strcmp(c, "..")) {
            if (kept) {
                while (k && out[k - 1] != '\\')
                    k--;
                if (k)
                    k--;
                kept--;
                continue;
            }
            if (p->where != LIB_RELATIVE)
                continue;
        } else {
            size_t m = strlen(c);
            if (last)
                while (m && (c[m - 1] == '.' || c[m - 1] == ' '))
                    m--;
            else if (m >= 2 && c[m - 1] == '.' && c[m - 2] != '.')
                m--;
            c[m] = '\0';
            if (!m)
                continue;
            kept++;
        }
        /* OUT never fills: it joins components of REST, each no longer
         * than it was, with no more separators. */
        size_t len = strlen(c);
        if (k)
            out[k++] = '\\';
        memcpy(out + k, c, len);
        k += len;
    }
    out[k] = '\0';
    memcpy(p->rest, out, k + 1);
}

/* The first component of REST and whether it equals NAME. */
static int first_is(const char *rest, const char *name)
{
    size_t n = strlen(name);
    return !strncasecmp(rest, name, n) && (rest[n] == '\\' || !rest[n]);
}

static const char *after_first(const char *rest)
{
    const char *s = strchr(rest, '\\');
    return s ? s + 1 : rest + strlen(rest);
}

/* Windows setup's own folders at a drive's root, with their short names
 * in the order setup creates them (64-bit, then 32-bit Windows). */
static const struct {
    const char *short_name, *name64, *name32;
} setup_short[] = {
    {"PROGRA~1", "Program Files", "Program Files"},
    {"PROGRA~2", "Program Files (x86)", "ProgramData"},
    {"PROGRA~3", "ProgramData", NULL},
    {"DOCUME~1", "Documents and Settings", "Documents and Settings"},
};

/* Whether folder DIR (as struct rt_audit_tree's list takes it) may be
 * listed: anywhere on a drive whose root is the tree's, else only
 * beneath the Windows directory, whatever the folders above it hold. */
static int may_list(const struct libaudit *a, const char *dir)
{
    return !a->tree || !a->tree->root_unheld ||
           (*dir && first_is(dir, windows_name(a)));
}

static void windows_place(const struct libaudit *a, struct lib_path *p);

/* Replaces the 8.3 short names of a drive path by the names they stand
 * for, as far as the tree tells them: a folder with one entry of that
 * short form, else (at the root) Windows setup's order, on a tree of
 * known bitness. What stays unresolved is said in P. */
static void resolve_short(struct libaudit *a, struct lib_path *p)
{
    if (!strchr(p->rest, '~'))
        return;
    memcpy(p->typed, p->rest, sizeof p->rest);
    char out[sizeof p->rest] = "";
    size_t k = 0;
    for (const char *s = p->rest; *s;) {
        size_t n = strcspn(s, "\\");
        char c[sizeof p->rest];
        memcpy(c, s, n);
        c[n] = '\0';
        s += n + (s[n] == '\\');
        const char *name = c;
        struct rt_short_match m = {"", 0, ""};
        if (strchr(c, '~') && !p->unresolved) {
            if (may_list(a, out) &&
                rt_short_names_match(a->shorts, out, c, &m) != 0)
                a->failed = 1;
            if (m.n == 1) {
                name = m.first;
                p->by_prefix |= strcasecmp(c, m.first) != 0;
            } else {
                const char *setup = NULL;
                int bits = a->bits;
                for (size_t i = 0; !k && i < sizeof setup_short /
                                                 sizeof *setup_short; i++)
                    if (!strcasecmp(c, setup_short[i].short_name)) {
                        const char *n64 = setup_short[i].name64;
                        const char *n32 = setup_short[i].name32;
                        if (bits == 64 || (n32 && !strcmp(n64, n32)))
                            setup = n64;
                        else if (bits == 32)
                            setup = n32;
                        else if (!*m.writable && rt_audit_writable_at_root(n64))
                            snprintf(m.writable, sizeof m.writable, "%s", n64);
                        else if (!*m.writable && n32 && rt_audit_writable_at_root(n32))
                            snprintf(m.writable, sizeof m.writable, "%s", n32);
                    }
                if (setup) {
                    name = setup;
                } else {
                    p->unresolved = 1;
                    if (!k && *m.writable)
                        snprintf(p->may_be, sizeof p->may_be, "C:\\%s",
                                 m.writable);
                }
            }
        }
        k += (size_t)snprintf(out + k, sizeof out - k, "%s%s", k ? "\\" : "",
                              name);
        if (k >= sizeof out) {
            /* The long names did not fit where the short ones did. */
            p->too_long = 1;
            return;
        }
    }
    memcpy(p->rest, out, sizeof out);
}

static int is_sep(char c)
{
    return c == '\\' || c == '/';
}

/* The length of a Win32 device-path prefix (\\?\ or \\.\) or of the
 * NT object manager's \??\ when a drive letter and ':' follow it, else
 * 0 (\\?\UNC\..., \\.\pipe\... and the like stay paths elsewhere). */
static size_t drive_behind_prefix(const char *x)
{
    int device = is_sep(x[0]) && is_sep(x[1]) && (x[2] == '?' || x[2] == '.') &&
                 is_sep(x[3]);
    int nt = is_sep(x[0]) && x[1] == '?' && x[2] == '?' && is_sep(x[3]);
    if ((device || nt) && isalpha((unsigned char)x[4]) && x[5] == ':')
        return 4;
    return 0;
}

/* Where LIB leads, resolved as Windows resolves it before loading:
 * environment strings expanded, "." and ".." taken, short names replaced
 * as far as the tree tells them, and a drive path below the Windows
 * directory made LIB_WINDOWS. */
static void classify(struct libaudit *a, const char *lib, int mode,
                     struct lib_path *p)
{
    memset(p, 0, sizeof *p);
    char x[sizeof p->rest];
    int r = rt_expand_env_strings(a->tree, windows_name(a), lib, x, sizeof x,
                                  mode, &p->env);
    if (r != 0) {
        p->too_long = r == -1;
        p->where = LIB_OTHER_DRIVE;
        return;
    }
    /* \\?\C:\..., \\.\C:\... and \??\C:\... name the drive path
     * behind the prefix (LoadLibrary passes each through to the file
     * system): judged as that path, not as a UNC path elsewhere. */
    size_t skip = drive_behind_prefix(x);
    if (skip)
        memmove(x, x + skip, strlen(x + skip) + 1);
    if (x[0] == '%' || ((x[0] == '\\' || x[0] == '/') &&
                        (x[1] == '\\' || x[1] == '/'))) {
        p->where = LIB_OTHER_DRIVE;   /* an unknown variable, UNC, \\?\ */
        copy_rest(p, x);
    } else if (isalpha((unsigned char)x[0]) && x[1] == ':' &&
               !is_sep(x[2]) && x[2]) {
        /* "C:Windows\x.dll": against the reading process's current
         * folder on that drive (review 51 R51-3: judged as C:\Windows). */
        p->where = LIB_RELATIVE;
        copy_rest(p, x);
    } else if (isalpha((unsigned char)x[0]) && x[1] == ':') {
        /* Setup's letter is the tree's, whatever the machine calls it;
         * any other is not known where the machine says its system drive
         * is not C: (review 51 R51-1). */
        p->other_drive = p->env.setup_drive ? NULL
                                            : rt_audit_other_drive(a->tree);
        p->where = p->env.setup_drive ||
                           (!p->other_drive &&
                            toupper((unsigned char)x[0]) == 'C')
                       ? LIB_DRIVE
                       : LIB_OTHER_DRIVE;
        copy_rest(p, x + 2);
    } else if (x[0] == '\\' || x[0] == '/') {
        /* The current drive: the system's, as every service and nearly
         * every reader runs there (a reader started on another drive
         * resolves it there: review 51 R51-3, left). */
        p->where = LIB_DRIVE;
        copy_rest(p, x);
    } else {
        p->where = strpbrk(x, "\\/") ? LIB_RELATIVE : LIB_BARE;
        copy_rest(p, x);
    }
    /* A ':' past the drive is a stream's (a '\\\\?\\' or UNC path is
     * judged as being elsewhere already); a drive-relative path's own
     * is its drive's (review 52 R52-5: "C:x.dll" said a stream). */
    int drive_relative = p->where == LIB_RELATIVE &&
                         isalpha((unsigned char)p->rest[0]) &&
                         p->rest[1] == ':';
    char *colon = strchr(p->rest + (drive_relative ? 2 : 0), ':');
    if (colon && (p->where != LIB_OTHER_DRIVE || x[1] == ':')) {
        *colon = '\0';
        p->stream = 1;
    }
    if (p->where == LIB_BARE)
        return;
    resolve_steps(p);
    if (p->where == LIB_DRIVE)
        resolve_short(a, p);
    if (p->too_long) {
        p->where = LIB_OTHER_DRIVE;
        p->rest[0] = '\0';
        return;
    }
    if (p->where == LIB_DRIVE && first_is(p->rest, windows_name(a))) {
        char tmp[sizeof p->rest];
        snprintf(tmp, sizeof tmp, "%s", after_first(p->rest));
        memcpy(p->rest, tmp, sizeof tmp);
        p->where = LIB_WINDOWS;
        windows_place(a, p);
    }
}

static int has_component(const char *rest, const char *name)
{
    for (const char *s = rest; *s; s = after_first(s))
        if (first_is(s, name))
            return 1;
    return 0;
}

/* A path below the Windows directory as Windows takes it: Sysnative is
 * System32 for a 32-bit process (review 42 R42-12: judged a folder of its
 * own, missing), and a short name the tree did not resolve that may
 * stand for a folder users can write to is said to (R42-13: as at the
 * drive's root). */
static void as_system32(char *rest, size_t size)
{
    if (first_is(rest, "Sysnative")) {
        char tmp[LIBRARY_MAX + 1];
        int n = snprintf(tmp, sizeof tmp, "System32%s%s",
                         *after_first(rest) ? "\\" : "", after_first(rest));
        if (n > 0 && (size_t)n < sizeof tmp && (size_t)n < size)
            memcpy(rest, tmp, (size_t)n + 1);
    }
}

static void windows_place(const struct libaudit *a, struct lib_path *p)
{
    as_system32(p->rest, sizeof p->rest);
    /* One the tree resolved by its prefix is Windows' own assignment only
     * where nobody gave the name to another folder (fsutil file
     * setshortname; review 44 R44-7: PROVIS~1 taken for Provisioning,
     * though the disk may give it to Temp): judged as typed too. */
    if (*p->may_be || (!p->unresolved && (!p->by_prefix ||
                       rt_audit_writable_in_windows(p->rest, 0))))
        return;
    char typed[sizeof p->typed];
    snprintf(typed, sizeof typed, "%s", after_first(p->typed));
    as_system32(typed, sizeof typed);
    const char *place =
        rt_audit_writable_in_windows(p->unresolved ? p->rest : typed, 1);
    if (place)
        snprintf(p->may_be, sizeof p->may_be, "C:\\%s\\%s",
                 windows_name(a), place);
}

/* Places a standard user (or any program run by one) can write to. */
static int user_writable(const struct lib_path *p)
{
    if (p->where == LIB_WINDOWS)
        return rt_audit_writable_in_windows(p->rest, 0) != NULL;
    if (p->where != LIB_DRIVE)
        return 0;
    return rt_audit_writable_at_root(p->rest) || has_component(p->rest, "AppData") ||
           has_component(p->rest, "Temp") || *p->may_be;
}

static int program_files(const struct lib_path *p)
{
    return p->where == LIB_DRIVE &&
           (first_is(p->rest, "Program Files") ||
            first_is(p->rest, "Program Files (x86)"));
}

/* Built-in system objects (their indices are below Base Index) and the
 * DLL of Windows' own that serves each, in System32; BARE when Windows
 * itself names it by a bare name (Lsa's Secur32.dll and Spooler's
 * winspool.drv in older SYSTEM hives), where the others are always
 * %SystemRoot%\System32\NAME: a bare "perfos.dll" is searched for in
 * each reading program's own directory first (review 53 R53-8). */
static const struct {
    const char *service, *dll;
    int bare;
} system_providers[] = {
    {"PerfOS", "perfos.dll", 0},     {"PerfProc", "perfproc.dll", 0},
    {"PerfDisk", "perfdisk.dll", 0}, {"PerfNet", "perfnet.dll", 0},
    {"Tcpip", "perfctrs.dll", 0},    {"Spooler", "winspool.drv", 1},
    {"Lsa", "secur32.dll", 1},
};

const char *rt_audit_system_dll(const char *service)
{
    for (size_t i = 0; i < sizeof system_providers / sizeof *system_providers;
         i++)
        if (!strcasecmp(service, system_providers[i].service))
            return system_providers[i].dll;
    return NULL;
}

static int exists(struct libaudit *a, const char *fmt, const char *x,
                  const char *y)
{
    char path[2200];
    snprintf(path, sizeof path, fmt, x, y);
    int r = a->tree->exists(a->tree->ctx, path);
    if (r == -2)
        a->failed = 1;
    else if (r < 0)
        a->refused |= r == -3 ? 2 : 1;
    return r > 0 ? r : 0;
}

/* A DLL: a file, not a folder of that name, which LoadLibrary cannot
 * load (review 43 R43-11: %windir%\System32\ as a Library was judged
 * present and clean); the folder noted for the message. */
static int dll_at(struct libaudit *a, const char *fmt, const char *x,
                  const char *y)
{
    int r = exists(a, fmt, x, y);
    a->folder |= r == 2;
    return r == 1;
}

/* What a Library not found is said to be when a folder stood there. */
static const char *folder_note(const struct libaudit *a)
{
    return a->folder ? " (a folder of that name is, which Windows cannot "
                       "load as a DLL)"
                     : "";
}

/* A DLL not found where a look-up met a link or special file of the tree
 * (not followed: it may lead anywhere on this machine), or two names
 * that differ only in case, is not missing but unknown: said so, a
 * warning, and 1. Windows follows a link (a junction, a symbolic link:
 * review 50 R50-7, one into Users\Public was info only), so where the
 * DLL is loaded from is the disk's author's choice. */
static int unchecked_by_link(struct libaudit *a,
                             const struct rt_service_info *s,
                             const char *dir, const char *rest)
{
    if (!a->refused)
        return 0;
    /* Two names for one (R44-6: folders two.dll and TWO.DLL were taken
     * for the DLL) could hide a missing one: a warning, as Windows makes
     * them only in a folder set case-sensitive. */
    int twins = a->refused & 2;
    ADD(a, twins ? "library-name-ambiguous" : "library-through-link",
        RT_AUDIT_WARNING, NULL,
        twins ? NULL
              : "Windows follows a junction or symbolic link: the DLL is "
                "loaded from wherever it leads, a place the disk's author "
                "chose",
        twins ? "check the file on the machine itself, and rename or remove "
                "the entry that is not meant"
              : "check where the link leads on the machine itself; a "
                "provider's DLL is a file in its product's folder",
        "%s: Library %s: %s on the way to %s%s%s in the tree%s; whether it "
        "exists is not checked offline", s->name, s->library,
        twins ? "a folder" : "a link or special file stands",
        dir, *dir ? "\\" : "", rest,
        twins ? " holds two entries whose names differ only in letter case, "
                "where Windows sees one name and which of the two it uses "
                "is not known"
              : ", which regtool does not follow");
    return 1;
}

/* Where in the tree the DLL is, as Windows would look for it. Only
 * LIB_BARE, LIB_WINDOWS and LIB_DRIVE paths can be looked up. */
static void check_file(struct libaudit *a, const struct rt_service_info *s,
                       const struct lib_path *p)
{
    const char *w = windows_name(a);
    int in32 = 0, in64 = 0, found = 0;
    const char *sub = NULL;   /* below System32, for the SysWOW64 twin */
    a->refused = 0;
    a->folder = 0;
    /* Before the short names: one the tree did not resolve was left so
     * because its folder is not the tree's. */
    if (p->where == LIB_DRIVE && a->tree->root_unheld) {
        ADD(a, "library-unchecked", RT_AUDIT_INFO, NULL, NULL,
            "check the file on the machine itself",
            "%s: Library %s: C:\\%s is not looked up, as %s; whether it "
            "exists is not checked offline", s->name, s->library, p->rest,
            a->tree->root_unheld);
        return;
    }
    if (p->unresolved) {
        ADD(a, "library-unchecked", RT_AUDIT_INFO, NULL, NULL,
            "check the file on the machine itself",
            "%s: Library %s is an 8.3 short name the tree does not resolve; "
            "whether it exists is not checked offline", s->name, s->library);
        return;
    }
    /* SysWOW64 is looked in whether or not the tree has its ntdll.dll: a
     * 32-bit provider's DLL there is not missing. */
    if (p->where == LIB_BARE) {
        in32 = dll_at(a, "%s\\System32\\%s", w, p->rest);
        in64 = dll_at(a, "%s\\SysWOW64\\%s", w, p->rest);
        found = in32 || in64 || dll_at(a, "%s\\%s", w, p->rest);
        sub = p->rest;
        if (found && !in32 && !in64)
            ADD(a, "library-relative", RT_AUDIT_INFO, NULL, SYMPTOM_SEARCH,
                CHECK_BARE,
                "%s: Library %s is a bare name found in %s, not System32: "
                "Windows looks in the reading program's directory and "
                "System32 before it", s->name, s->library, w);
        if (!found && !unchecked_by_link(a, s, "", p->rest))
            ADD(a, "library-not-found", RT_AUDIT_WARNING, NULL,
                SYMPTOM_NOT_LOADED, CHECK_FILE,
                "%s: Library %s is in neither %s\\System32 nor %s%s, where "
                "Windows searches first; it would be loaded from PATH or the "
                "reading program's directory, or not at all",
                s->name, s->library, w, w, folder_note(a));
    } else if (p->where == LIB_WINDOWS) {
        if (first_is(p->rest, "System32")) {
            sub = after_first(p->rest);
            in32 = dll_at(a, "%s\\System32\\%s", w, sub);
            in64 = dll_at(a, "%s\\SysWOW64\\%s", w, sub);
            found = in32 || in64;
        } else {
            found = dll_at(a, "%s\\%s", w, p->rest);
        }
        if (!found && !unchecked_by_link(a, s, w, p->rest))
            ADD(a, "library-not-found", RT_AUDIT_WARNING, NULL,
                SYMPTOM_NOT_LOADED, CHECK_FILE,
                "%s: Library %s: %s\\%s is not in the tree%s", s->name,
                s->library, w, p->rest, folder_note(a));
    } else {
        /* %ProgramFiles% leads a 32-bit process to Program Files (x86). */
        if (!dll_at(a, "%s%s", "", p->rest) && p->env.program_files_var &&
            first_is(p->rest, "Program Files") &&
            dll_at(a, "Program Files (x86)\\%s%s", after_first(p->rest), ""))
            ADD(a, "library-only-in-program-files-x86", RT_AUDIT_WARNING, NULL,
                SYMPTOM_WOW64_64, CHECK_FILE,
                "%s: Library %s: C:\\%s is not in the tree, but C:\\Program "
                "Files (x86)\\%s is, where %%ProgramFiles%% leads 32-bit "
                "processes only", s->name, s->library, p->rest,
                after_first(p->rest));
        else if (!dll_at(a, "%s%s", "", p->rest) &&
                 !unchecked_by_link(a, s, "C:", p->rest))
            ADD(a, "library-not-found", RT_AUDIT_WARNING, NULL,
                SYMPTOM_NOT_LOADED, CHECK_FILE,
                "%s: Library %s: C:\\%s is not in the tree%s", s->name,
                s->library, p->rest, folder_note(a));
        return;
    }
    if (!sub || (in32 && in64) || (!in32 && !in64))
        return;
    if (in64)
        ADD(a, "library-only-in-syswow64", RT_AUDIT_WARNING, NULL,
            SYMPTOM_WOW64_64, CHECK_FILE,
            "%s: Library %s is in %s\\SysWOW64 (32-bit) but not in "
            "%s\\System32", s->name, s->library, w, w);
    else if (a->have_wow64)
        ADD(a, "library-only-in-system32", RT_AUDIT_INFO, NULL,
            SYMPTOM_WOW64_32, CHECK_FILE,
            "%s: Library %s is in %s\\System32 but has no 32-bit twin in "
            "%s\\SysWOW64", s->name, s->library, w, w);
}

static void check_values(struct libaudit *a, const struct rt_service_info *s)
{
    if (!s->has_library) {
        ADD(a, "library-missing", RT_AUDIT_WARNING, NULL, SYMPTOM_SKIPPED,
            CHECK_VALUES, "%s: its Performance key has no Library value",
            s->name);
    } else if (s->library_type != RT_REG_SZ &&
               s->library_type != RT_REG_EXPAND_SZ) {
        ADD(a, "library-type", RT_AUDIT_WARNING, NULL, SYMPTOM_SKIPPED,
            CHECK_VALUES,
            "%s: Library is of type %u, not REG_SZ or REG_EXPAND_SZ", s->name,
            s->library_type);
    } else if (rt_audit_blank(s->library)) {
        ADD(a, "library-empty", RT_AUDIT_WARNING, NULL, SYMPTOM_SKIPPED,
            CHECK_VALUES, "%s: Library is empty", s->name);
    }
    const char *missing[3];
    size_t n = 0;
    if (rt_audit_blank(s->open))
        missing[n++] = "Open";
    if (rt_audit_blank(s->collect))
        missing[n++] = "Collect";
    if (rt_audit_blank(s->close))
        missing[n++] = "Close";
    if (n)
        ADD(a, "procedures-missing", RT_AUDIT_WARNING, NULL, SYMPTOM_SKIPPED,
            CHECK_VALUES, "%s: its Performance key lacks %s%s%s%s%s", s->name,
            missing[0], n > 1 ? (n > 2 ? ", " : " and ") : "",
            n > 1 ? missing[1] : "", n > 2 ? " and " : "",
            n > 2 ? missing[2] : "");
}

/* " (C:\\...)": where P resolved, when that is not what LIB says. */
static void resolved_note(const struct libaudit *a, const char *lib,
                          const struct lib_path *p, char *out, size_t size)
{
    char full[1400];
    if (p->where == LIB_WINDOWS)
        snprintf(full, sizeof full, "C:\\%s%s%s", windows_name(a),
                 *p->rest ? "\\" : "", p->rest);
    else if (p->where == LIB_DRIVE)
        snprintf(full, sizeof full, "C:\\%s", p->rest);
    else
        full[0] = '\0';
    if (*full && strcasecmp(full, lib))
        snprintf(out, size, " (%s)", full);
    else
        out[0] = '\0';
}

static void check_place(struct libaudit *a, const struct rt_service_info *s,
                        const struct lib_path *p)
{
    char at[1500];
    resolved_note(a, s->library, p, at, sizeof at);
    if (*p->may_be) {
        ADD(a, "library-user-writable", RT_AUDIT_WARNING, NULL, SYMPTOM_HIJACK,
            CHECK_PLACE,
            "%s: Library %s%s is an 8.3 short name %s, and it may stand for "
            "%s, a place users can write to", s->name, s->library,
            p->unresolved ? "" : at,
            p->unresolved ? "the tree does not resolve"
                          : "the tree resolves only by its prefix (a short "
                            "name is the disk's to give: fsutil file "
                            "setshortname)",
            p->may_be);
    } else if (user_writable(p)) {
        ADD(a, "library-user-writable", RT_AUDIT_WARNING, NULL, SYMPTOM_HIJACK,
            CHECK_PLACE,
            "%s: Library %s%s is in a place users can write to", s->name,
            s->library, at);
    } else if (p->where == LIB_RELATIVE) {
        ADD(a, "library-relative", RT_AUDIT_WARNING, NULL, SYMPTOM_SEARCH,
            CHECK_PLACE,
            "%s: Library %s is a relative path: where it resolves depends "
            "on the reading program's current directory", s->name,
            s->library);
    } else if (p->where == LIB_OTHER_DRIVE ||
               (p->where == LIB_DRIVE && !program_files(p))) {
        ADD(a, "library-outside-system-dirs", RT_AUDIT_WARNING, NULL,
            SYMPTOM_HIJACK, CHECK_PLACE,
            "%s: Library %s%s is outside the Windows directory and Program "
            "Files", s->name, s->library, at);
    }
}

static void check_system_provider(struct libaudit *a,
                                  const struct rt_service_info *s,
                                  const struct lib_path *p)
{
    for (size_t i = 0; i < sizeof system_providers / sizeof *system_providers;
         i++) {
        if (strcasecmp(s->name, system_providers[i].service))
            continue;
        /* Its own objects are in the base range: a range of its own
         * means an INI was installed onto it (install refuses that without
         * --force), and whatever its Library is, it is still checked. */
        if (s->has_range) {
            char fix[300];
            snprintf(fix, sizeof fix,
                     "check the INI that was installed onto it; 'regtool "
                     "uninstall %s' removes the range", s->name);
            ADD(a, "system-provider-range", RT_AUDIT_WARNING, NULL,
                SYMPTOM_SYSTEM_RANGE, fix,
                "%s serves a built-in system object, but has a range of its "
                "own (First Counter %u): an INI was installed onto it",
                s->name, s->first_counter);
        }
        int own = !p->stream && !p->too_long &&
                  !strcasecmp(rt_path_base_name(p->rest),
                              system_providers[i].dll) &&
                  ((p->where == LIB_BARE && system_providers[i].bare) ||
                   (p->where == LIB_WINDOWS && first_is(p->rest, "System32") &&
                    !strchr(after_first(p->rest), '\\')));
        if (!own && !p->env.unjudged) {
            char fix[200];
            snprintf(fix, sizeof fix,
                     "check the file; Windows' own value is "
                     "%%SystemRoot%%\\System32\\%s",
                     system_providers[i].dll);
            ADD(a, "system-library-replaced", RT_AUDIT_WARNING, NULL,
                SYMPTOM_HIJACK, fix,
                "%s serves a built-in system object, but its Library is %s, "
                "not System32\\%s", s->name, s->library,
                system_providers[i].dll);
        }
        return;
    }
}

/* The DLL a Library names, for comparing two providers' values: bare
 * names and System32 paths of the same file are the same DLL; a value
 * too long to resolve, using a variable whose value is not judged, or
 * naming a stream, is compared as it is. A new
 * string, or NULL when out of memory. */
static char *dll_key(struct libaudit *a, const char *lib)
{
    struct lib_path p;
    classify(a, lib, RT_EXPAND_MACHINE, &p);
    const char *key = p.rest;
    int kind = (int)p.where;
    if (p.too_long || p.env.unjudged || p.stream) {
        key = lib;
        kind = -1;
    } else if (p.where == LIB_WINDOWS && first_is(p.rest, "System32")) {
        key = after_first(p.rest);
        kind = LIB_BARE;
    }
    char *out = NULL;
    return asprintf(&out, "%d:%s", kind, key) < 0 ? NULL : out;
}

/* Callback of rt_audit_shared_dll_pairs. */
static char *library_key(void *ctx, const char *library)
{
    return dll_key(ctx, library);
}

/* Providers whose Library names the same DLL with other procedures: each
 * such pair once, in database order (audit_shared_dlls.h). */
static void check_shared(struct libaudit *a)
{
    const struct rt_database *db = a->db;
    struct rt_dll_pair *pairs = NULL;
    size_t np = 0;
    if (rt_audit_shared_dll_pairs(db, library_key, a, &pairs, &np) != 0) {
        a->failed = 1;
        return;
    }
    for (size_t k = 0; k < np; k++) {
        const struct rt_service_info *s = &db->services[pairs[k].i];
        const struct rt_service_info *o = &db->services[pairs[k].j];
        ADD(a, "library-shared", RT_AUDIT_INFO, NULL, SYMPTOM_SHARED,
            "check that the DLL exports both sets of procedures",
            "%s (%s/%s/%s) and %s (%s/%s/%s) both load %s", s->name,
            s->open ? s->open : "-", s->collect ? s->collect : "-",
            s->close ? s->close : "-", o->name, o->open ? o->open : "-",
            o->collect ? o->collect : "-", o->close ? o->close : "-",
            s->library);
    }
    free(pairs);
}

/* A Library P does not judge, said: too long once expanded, or using a
 * variable whose machine value cannot be judged. 1 when said. */
static int said_unjudged(struct libaudit *a, const struct rt_service_info *s,
                         const struct lib_path *p)
{
    if (p->too_long)
        /* Judged on no copy cut short: said, and left at that. */
        ADD(a, "library-too-long", RT_AUDIT_WARNING, NULL, SYMPTOM_TOO_LONG,
            CHECK_VALUES,
            "%s: Library is %zu bytes long, more than the %d regtool "
            "judges once environment strings and short names are "
            "expanded: where it leads is not checked (it begins "
            "%.60s...)", s->name, strlen(s->library), LIBRARY_MAX,
            s->library);
    else if (p->other_drive)
        ADD(a, "library-variable-unjudged", RT_AUDIT_WARNING, NULL,
            SYMPTOM_UNJUDGED, CHECK_UNJUDGED,
            "%s: Library %s names a drive letter, and the machine says its "
            "system drive is not C: (%s is %s): which volume each letter "
            "names there is not known offline, so where the Library leads "
            "is not checked", s->name, s->library, p->other_drive->where,
            p->other_drive->value);
    else if (p->env.unjudged && p->env.where)
        ADD(a, "library-variable-unjudged", RT_AUDIT_WARNING, NULL,
            SYMPTOM_UNJUDGED, CHECK_UNJUDGED,
            "%s: Library %s uses %s, whose value (%s) %s: where the "
            "Library leads is not checked",
            s->name, s->library, p->env.var, p->env.where, p->env.why);
    else if (p->env.unjudged)
        ADD(a, "library-variable-unjudged", RT_AUDIT_WARNING, NULL,
            SYMPTOM_UNJUDGED, CHECK_UNJUDGED,
            "%s: Library %s uses %s, an environment string regtool does "
            "not know: its value (the machine's Session Manager\\"
            "Environment, or the loading program's own) decides where the "
            "Library leads, which is not checked",
            s->name, s->library, p->env.var);
    return p->too_long || p->env.unjudged || p->other_drive;
}

int rt_audit_libraries(const struct rt_database *db,
                       const struct rt_audit_tree *tree,
                       struct rt_findings *out)
{
    struct libaudit a = {db, tree, out, 0, 0, 0, 0,
                         rt_short_names_new(tree), 0, 0};
    if (!a.shorts)
        return -1;
    if (tree && tree->exists) {
        const char *w = windows_name(&a);
        a.have_files = exists(&a, "%s\\System32\\%s", w, "ntdll.dll") ||
                       exists(&a, "%s\\System32\\%s", w, "kernel32.dll");
        a.have_wow64 = a.have_files &&
                       exists(&a, "%s\\SysWOW64\\%s", w, "ntdll.dll");
        /* A 64-bit Windows has a SysWOW64, whatever it holds. */
        if (a.have_files)
            a.bits = a.have_wow64 || exists(&a, "%s\\SysWOW64%s", w, "")
                         ? 64
                         : 32;
        if (!a.have_files)
            ADD(&a, "library-files-unchecked", RT_AUDIT_INFO, NULL, NULL, NULL,
                "%s\\System32 holds no ntdll.dll or kernel32.dll: the tree "
                "has no system files, so whether each Library exists is not "
                "checked", w);
    }
    char bare[2048] = "";
    size_t n_bare = 0;
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *s = &db->services[i];
        if (!s->has_perf)
            continue;
        check_values(&a, s);
        if (rt_audit_blank(s->library))
            continue;
        struct lib_path p;
        classify(&a, s->library, RT_EXPAND_MACHINE, &p);
        if (said_unjudged(&a, s, &p)) {
            check_system_provider(&a, s, &p);
            continue;
        }
        if (s->library_type == RT_REG_SZ && p.env.expanded)
            ADD(&a, "library-not-expanded", RT_AUDIT_WARNING, NULL,
                SYMPTOM_SEARCH,
                "make Library REG_EXPAND_SZ (regtool install writes it so), "
                "or write the path out",
                "%s: Library %s is REG_SZ, whose environment strings "
                "Windows does not expand (a REG_EXPAND_SZ's only): it may "
                "be loaded as typed, a relative path; judged below as "
                "expanded", s->name, s->library);
        if (p.stream)
            ADD(&a, "library-stream", RT_AUDIT_WARNING, NULL, SYMPTOM_STREAM,
                "check the stream on the machine itself (dir /R, or "
                "Get-Item -Stream * in PowerShell); a provider's Library "
                "names a plain file",
                "%s: Library %s names an NTFS alternate data stream, not a "
                "plain file; streams are not checked offline", s->name,
                s->library);
        check_place(&a, s, &p);
        /* Where %ProgramFiles% leads a 32-bit reader of 64-bit Windows:
         * the machine's ProgramFilesDir (x86) (review 47 R47-3: set to
         * C:\Windows\Temp, not judged). */
        if (p.env.program_files_var && a.bits != 32) {
            struct lib_path q;
            classify(&a, s->library, RT_EXPAND_MACHINE | RT_EXPAND_32BIT, &q);
            if (!said_unjudged(&a, s, &q) &&
                (q.where != p.where || strcasecmp(q.rest, p.rest)))
                check_place(&a, s, &q);
        }
        check_system_provider(&a, s, &p);
        if (a.have_files && !p.stream && p.where != LIB_RELATIVE &&
            p.where != LIB_OTHER_DRIVE)
            check_file(&a, s, &p);
        else if (p.where == LIB_BARE) {
            size_t len = strlen(bare);
            if (len + strlen(s->name) + 4 < sizeof bare)
                snprintf(bare + len, sizeof bare - len, "%s%s",
                         n_bare ? ", " : "", s->name);
            n_bare++;
        }
    }
    /* Without the tree's files, where a bare name resolves is unknown:
     * one finding for them all (a real system has dozens). With them, a
     * bare name found in System32 is no finding: Windows writes such
     * values itself (Spooler's winspool.drv, .NET's netfxperf.dll). */
    if (n_bare)
        ADD(&a, "library-relative", RT_AUDIT_INFO, NULL, SYMPTOM_SEARCH,
            CHECK_BARE,
            "%zu provider%s %s Library by a bare name, found through "
            "the DLL search order: %s", n_bare, n_bare == 1 ? "" : "s",
            n_bare == 1 ? "names its" : "name their", bare);
    check_shared(&a);
    rt_short_names_free(a.shorts);
    return a.failed ? -1 : 0;
}
