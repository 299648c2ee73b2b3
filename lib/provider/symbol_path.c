/* INI layer: where the symbol file an INI names lies (see
 * symbol_path.h). */
#include "provider/symbol_path.h"
#include "platform/compat.h"
#include "platform/os.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PATH's directory, or NULL out of memory. */
static char *dir_of(const char *path)
{
    const char *slash = rt_os_last_separator(path);
    if (!slash)
        return strdup("");
    return strndup(path, rt_os_folder_length(path, slash));
}

/* DIR/NAME, or NULL out of memory. */
static char *join(const char *dir, const char *name)
{
    char *r = NULL;
    int n;
    if (!dir[0])
        n = asprintf(&r, "%s", name);
    else if (rt_os_last_separator(dir) == dir + strlen(dir) - 1)
        n = asprintf(&r, "%s%s", dir, name);
    else
        n = asprintf(&r, "%s/%s", dir, name);
    return n < 0 ? NULL : r;
}

/* Windows finds "counteroffsets.h" when the file is CounterOffsets.h; so
 * do we, when exactly one entry of DIR matches but for case
 * (rt_os_path_ci: while DIR is confined, as a folder of INIs read
 * together is, it is listed once, not once an INI). NULL when none does
 * or two do, or out of memory (said in D). */
static char *find_casefold(const char *dir, const char *name,
                           struct rt_diags *d)
{
    char *found = rt_os_path_ci(dir[0] ? dir : ".", name, 1);
    if (!found && errno == ENOMEM)
        rt_diags_nomem(d);
    return found;
}

char *rt_symbol_file_locate(const char *ini_path, const char *symbol_dir,
                            unsigned line, const char *value,
                            struct rt_diags *d)
{
    if (!value[0]) {
        rt_diags_add(d, RT_ERROR, ini_path, line, "symbolfile",
                     "symbolfile is empty");
        return NULL;
    }
    if (strchr(value, '/') || strchr(value, '\\') || !strcmp(value, ".") ||
        !strcmp(value, "..")) {
        rt_diags_add(d, RT_ERROR, ini_path, line, value,
                     "symbol file %s is not in the INI's directory", value);
        return NULL;
    }
    char *dir = symbol_dir ? strdup(symbol_dir) : dir_of(ini_path);
    char *path = dir ? join(dir, value) : NULL;
    if (!path) {
        free(dir);
        rt_diags_nomem(d);
        return NULL;
    }
    if (!rt_os_exists(path)) {
        char *alt = find_casefold(dir, value, d);
        if (!alt) {
            if (!d->out_of_memory)
                rt_diags_add(d, RT_ERROR, ini_path, line, value,
                             "symbol file %s does not exist", path);
            free(path);
            free(dir);
            return NULL;
        }
        free(path);
        path = alt;
    }
    /* A symbolic link may lead elsewhere: compare the real directories. */
    char real_dir[4096], real_file[4096];
    if (rt_os_realpath(dir[0] ? dir : ".", real_dir, sizeof real_dir) != 0 ||
        rt_os_realpath(path, real_file, sizeof real_file) != 0) {
        if (errno == ENOMEM)
            rt_diags_nomem(d);
        else
            rt_diags_add(d, RT_ERROR, ini_path, line, value,
                         "cannot resolve symbol file %s: %s", path,
                         rt_os_strerror(errno));
        free(path);
        free(dir);
        return NULL;
    }
    char *file_dir = dir_of(real_file);
    bool inside = file_dir && !strcmp(file_dir, real_dir);
    free(file_dir);
    free(dir);
    if (!file_dir) {
        rt_diags_nomem(d);
        free(path);
        return NULL;
    }
    if (!inside) {
        rt_diags_add(d, RT_ERROR, ini_path, line, value,
                     "symbol file %s is not in the INI's directory", value);
        free(path);
        return NULL;
    }
    return path;
}
