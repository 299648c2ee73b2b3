/* CLI: global options and store selection (--store SPEC, REGTOOL_STORE). */
#include "cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "platform/compat.h"
#include "platform/os.h"

static struct rt_cli_options options;

struct rt_cli_options *rt_cli_options(void)
{
    return &options;
}

/* The options, global or a command's, whose value names a file or a
 * folder: an empty one names none, and is refused as a usage error by
 * every command alike (it was read as the working directory, or said
 * as a file not found, exit 2, 3 or 4 by verb: review 40 R40-7). */
static const char *const path_options[] = {
    "--store", "--tables", "--backup", "--emit-reg", "--from-ini",
    "--textfile", "--fleet", "--stores-from", "--from", "-o", NULL};

/* 1, said, when A (at ARGV[I]) is a path option given an empty value
 * (as the next argument, or after "="). */
static int empty_path_value(char **v, int argc, int i)
{
    const char *a = v[i];
    for (size_t k = 0; path_options[k]; k++) {
        size_t n = strlen(path_options[k]);
        if (strncmp(a, path_options[k], n))
            continue;
        if ((!a[n] && i + 1 < argc && !*v[i + 1]) ||
            (a[n] == '=' && !a[n + 1] && a[1] == '-')) {
            rt_cli_error("%s names no file or folder: give one",
                         path_options[k]);
            return 1;
        }
    }
    return 0;
}

/* Takes the global options out of ARGV wherever they stand before a
 * "--" (before the command or after it: `regtool names --store X 2`),
 * leaving the command and its own arguments in order. */
int rt_cli_parse_global(int *argc, char ***argv)
{
    char **v = *argv;
    int out = 1, i = 1, rest = 0;
    while (i < *argc) {
        const char *a = v[i];
        if (!rest && empty_path_value(v, *argc, i))
            return -1;
        if (rest || strncmp(a, "--", 2)) {
            v[out++] = v[i++];
            continue;
        }
        if (!strcmp(a, "--")) {
            rest = 1;
            v[out++] = v[i++];
        } else if (!strcmp(a, "--verbose")) {
            options.verbose = 1;
            i++;
        } else if (!strcmp(a, "--force-dirty")) {
            options.force_dirty = 1;
            i++;
        } else if (!strcmp(a, "--store") || !strcmp(a, "--tables") ||
                   !strcmp(a, "--wait")) {
            if (i + 1 >= *argc) {
                rt_cli_error("%s needs a value", a);
                return -1;
            }
            const char *val = v[i + 1];
            if (!strcmp(a, "--store")) {
                options.store = val;
            } else if (!strcmp(a, "--tables")) {
                options.tables = val;
            } else {
                char *end;
                long n = strtol(val, &end, 10);
                if (!*val || *end || n < 0 || n > 86400) {
                    rt_cli_error("--wait %s: give the seconds to wait for "
                                 "another regtool, 0 to 86400", val);
                    return -1;
                }
                options.wait_seconds = (int)n;
                options.wait_set = 1;
            }
            i += 2;
        } else if (!strncmp(a, "--store=", 8)) {
            options.store = a + 8;
            i++;
        } else if (!strncmp(a, "--tables=", 9)) {
            options.tables = a + 9;
            i++;
        } else {
            v[out++] = v[i++];
        }
    }
    v[out] = NULL;
    *argc = out;
    return 0;
}

int rt_cli_hold_store_folders(const char *file, const char *nothing,
                              char *held[2], size_t *n)
{
    const char *spec = rt_cli_store_spec();
    *n = 0;
    if (!spec || rt_op_hold_spec_folders(spec, held, n) == 0)
        return 0;
    int err = errno;
    rt_op_release_spec_folders(held, *n);
    *n = 0;
    rt_cli_error("%s: the store's folder cannot be held while %s is read "
                 "(%s): %s", rt_cli_shown(spec), rt_cli_shown(file),
                 rt_os_strerror(err), nothing);
    return -1;
}

const char *rt_cli_store_spec(void)
{
    const char *spec = options.store;
    if (!spec || !*spec)
        spec = getenv("REGTOOL_STORE");
    if (spec && *spec)
        return spec;
#ifdef _WIN32
    if (strcmp(rt_cli_program(), "regtool"))
        return "live";
#endif
    return NULL;
}

/* The store's one-line notices: waiting for the lock, an unfinished
 * commit found, finished or discarded. */
static void say(const char *line)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "%s: ", rt_cli_program());
    rt_cli_put_shown_line(stderr, prefix, line);   /* names the tree's files */
}

regtool_open_options rt_cli_open_options(void)
{
    /* --wait 0 is "do not wait", which the library spells negative. */
    regtool_open_options o = {
        options.tables, options.force_dirty,
        !options.wait_set ? 0 : options.wait_seconds ? options.wait_seconds : -1,
        say};
    return o;
}

/* The store chosen (--store, REGTOOL_STORE), or NULL having said that
 * none is. */
static const char *chosen_spec(int *exit_code)
{
    const char *spec = rt_cli_store_spec();
    if (!spec) {
        if (strcmp(rt_cli_program(), "regtool"))
            rt_cli_error("no name database chosen: set REGTOOL_STORE to "
                         "hive:DIR (a Windows tree), hive:SOFTWARE,SYSTEM "
                         "(two hive files) or live (the Windows registry)");
        else
            rt_cli_error("no store chosen: use --store hive:DIR (a Windows "
                         "tree), --store hive:SOFTWARE,SYSTEM (two hive "
                         "files), or --store live (the Windows registry), "
                         "or set REGTOOL_STORE");
        *exit_code = RT_EXIT_USAGE;
    }
    return spec;
}

/* S, or the failure to open it (or read its database) said, with
 * *EXIT_CODE. */
static struct rt_store *opened(struct rt_store *s, const struct rt_error *e,
                               int bad_spec, int *exit_code)
{
    if (!s) {
        rt_cli_error("%s", e->message);
        *exit_code = bad_spec ? RT_EXIT_USAGE : rt_cli_exit_for(e->code);
    }
    return s;
}

struct rt_store *rt_cli_open_store(int *exit_code)
{
    const char *spec = chosen_spec(exit_code);
    if (!spec)
        return NULL;
    struct rt_error e = {0};
    int bad_spec;
    regtool_open_options o = rt_cli_open_options();
    struct rt_store *s = rt_op_open_store(spec, &o, options.read_once, &e,
                                          &bad_spec);
    return opened(s, &e, bad_spec, exit_code);
}

/* Whether X names N's file, or (N saved numbered) one of N_001 to
 * N_999, which N's saving may take (review 42 R42-3: repair's --backup
 * went to B_001, then --emit-reg B_001 replaced it). */
static int names_one_of(const struct rt_cli_file *x, const struct rt_cli_file *n)
{
    static const char *const same[] = {"", NULL};
    if (rt_os_names_file(x->name, n->name, same) >= 0)
        return 1;       /* (2: one of N's numbered names) */
    size_t len = strlen(x->name);
    const char *tail = x->name + (len > 4 ? len - 4 : 0);
    if (!n->numbered || len <= 4 || tail[0] != '_' ||
        strspn(tail + 1, "0123456789") != 3 || !strcmp(tail + 1, "000"))
        return 0;
    char *base = strndup(x->name, len - 4);
    int named = base && rt_os_names_file(base, n->name, same) >= 0;
    free(base);
    return named ? 2 : 0;
}

int rt_cli_refuse_one_file(const struct rt_cli_file *out,
                           const struct rt_cli_file *f)
{
    if (!out->name || !f->name)
        return 0;
    int how = names_one_of(out, f);
    if (!how)
        how = names_one_of(f, out);
    if (!how)
        return 0;
    rt_cli_error("%s '%s' and %s '%s' name one file%s: %s; name another; "
                 "nothing was written", out->what, rt_cli_shown(out->name),
                 f->what, rt_cli_shown(f->name),
                 how == 2 ? " (a backup whose name is taken is saved as "
                            "NAME_001 and on)" : "",
                 f->input ? "written over, it would be lost"
                          : "one would be written over the other");
    return 1;
}

/* 1 when output OUT names a file of S's or the file of another of
 * FILES (an input, or an output listed after it): said. */
static int refused_output(struct rt_store *s, const struct rt_cli_file *files,
                          size_t n, size_t out)
{
    const struct rt_cli_file *o = &files[out];
    if (rt_cli_refuse_own_file(s, o->name, o->what))
        return 1;
    for (size_t j = 0; j < n; j++)
        if (j != out && (files[j].input || j > out) &&
            rt_cli_refuse_one_file(o, &files[j]))
            return 1;
    return 0;
}

/* 1 when output F is one its writer cannot write, whatever the change
 * (so it is refused before the change, not after it): its folder reached
 * beneath the open tree by a step the tree refuses ("..", a link: review
 * 43 R43-3, an install committed and then its patch refused, exit 3);
 * with MISSING_TOO, whatever its saving would refuse. Said. */
static int unwritable_folder(const struct rt_cli_file *f, int missing_too)
{
    char *typed = rt_os_without_dot_steps(f->name);
    char *dir = typed ? rt_os_folder_of(typed) : NULL;
    struct rt_os_stat st;
    int bad = 0, err = ENOMEM;
    if (dir && missing_too) {
        /* As its saving will look: a folder to put it in, and no link,
         * folder, FIFO or device at its name (review 44 R44-2: refused
         * only after the commit). */
        bad = rt_op_check_backup_path(f->name, 1, &err) != 0;
    } else if (dir && rt_os_stat(dir, &st) != 0) {
        err = errno;
        bad = err == EXDEV || err == ELOOP;
    }
    if (bad || !dir)
        rt_cli_error("%s: cannot write %s: %s; nothing was written", f->what,
                     rt_cli_shown(f->name), rt_os_strerror(err));
    free(typed);
    free(dir);
    return bad || !dir;
}

struct rt_store *rt_cli_open_store_writing(const struct rt_cli_file *files,
                                           size_t n, int *exit_code)
{
    struct rt_store *s = rt_cli_open_store(exit_code);
    for (size_t i = 0; s && i < n; i++) {
        if (!files[i].name || files[i].input)
            continue;
        /* A numbered output (repair's --backup) is saved before the
         * change, nothing changed when it cannot be: the folder is only
         * looked at here for what is written after the commit: one
         * reached by ".." beneath the tree first (said as the writer
         * would say it, not as one of the store's files), one not there
         * after (an INF copy's folder to be made is the store's). */
        int usage = 0, later = !files[i].numbered;
        if ((later && unwritable_folder(&files[i], 0)) ||
            (usage = refused_output(s, files, n, i)) ||
            (later && unwritable_folder(&files[i], 1))) {
            rt_op_close(s);
            *exit_code = usage ? RT_EXIT_USAGE : RT_EXIT_FAILURE;
            return NULL;
        }
        if (!strcmp(files[i].what, "--emit-reg"))
            rt_cli_stage_emit_reg(files[i].name, s);
    }
    return s;
}

struct rt_store *rt_cli_open_database(struct rt_database *db, int *exit_code)
{
    static const struct rt_db_load_options all = {RT_DB_TABLES_ALL, NULL, 1,
                                                  0, NULL};
    return rt_cli_open_database_with(db, &all, exit_code);
}

struct rt_store *rt_cli_open_database_with(struct rt_database *db,
                                           const struct rt_db_load_options *o,
                                           int *exit_code)
{
    const char *spec = chosen_spec(exit_code);
    if (!spec)
        return NULL;
    struct rt_error e = {0};
    int bad_spec;
    regtool_open_options oo = rt_cli_open_options();
    struct rt_store *s = rt_op_open_database(spec, &oo, options.read_once, o,
                                             db, &e, &bad_spec);
    return opened(s, &e, bad_spec, exit_code);
}

static int last_error;

int rt_cli_last_error(void)
{
    return last_error;
}

int rt_cli_exit_for(int win32_code)
{
    if (win32_code != RT_ERR_SUCCESS)
        last_error = win32_code;
    /* A failure after an interrupt is the interrupt's doing: a call it
     * ended (an open or read that was blocked) failed with EINTR. */
    if (win32_code != RT_ERR_SUCCESS && rt_os_interrupted())
        return 128 + rt_os_interrupted();
    switch (win32_code) {
    case RT_ERR_SUCCESS:
        return RT_EXIT_OK;
    case RT_ERR_ALREADY_EXISTS:
    case RT_ERR_WRITE_PROTECT:      /* a read-only store (psb:) */
        return RT_EXIT_CONFLICT;
    case RT_ERR_INVALID_DATA:
    case RT_ERR_BADDB:
    case RT_ERR_BADKEY:
    case RT_ERR_INVALID_PARAMETER:
        return RT_EXIT_INVALID;
    case RT_ERR_FILE_NOT_FOUND:
        return RT_EXIT_CONFLICT;
    case RT_ERR_CANCELLED:
        return 128 + RT_OS_SIGINT;
    default:
        return RT_EXIT_FAILURE;
    }
}

void rt_cli_report_io(int ok)
{
    uint64_t bytes;
    unsigned writes, fsyncs;
    rt_op_io_totals(&bytes, &writes, &fsyncs);
    /* After a failure, only what was written before it is worth a line. */
    if (options.verbose && (ok || writes))
        fprintf(stderr,
                "%s: %llu bytes written in %u writes, %u fsyncs\n", rt_cli_program(),
                (unsigned long long)bytes, writes, fsyncs);
}

void rt_cli_catch_interrupts(void)
{
    rt_os_catch_interrupts();
}

int rt_cli_report_error(const char *what, int op_rc, const struct rt_error *e)
{
    int sig = rt_os_interrupted();
    if (op_rc != 0 && !(sig && e->code == RT_ERR_CANCELLED)) {
        if (what)
            rt_cli_error("%s: %s", what, e->message);
        else
            rt_cli_error("%s", e->message);
        rt_cli_said_committed_patch();
    }
    if (!sig)
        return op_rc ? rt_cli_exit_for(e->code) : RT_EXIT_OK;
    if (op_rc == 0 || e->code == RT_ERR_CANCELLED)
        rt_cli_error("%s", rt_cli_interrupt_said(op_rc));
    return 128 + sig;
}

const char *rt_cli_interrupt_said(int op_rc)
{
    uint64_t bytes;
    unsigned writes, fsyncs;
    rt_op_io_totals(&bytes, &writes, &fsyncs);
    /* A run that wrote nothing (nothing to change, a dry run) made no
     * commit to be past the point of (review 40 R40-6). */
    return op_rc == 0 && writes
               ? "interrupted after the commit point: the change is complete"
               : "interrupted: nothing changed";
}

void rt_cli_say_own_file(const char *what, const char *file)
{
    rt_cli_error("%s '%s' names one of the store's own files (a hive or its "
                 "log, the journal, the lock, a .dat table, the tree's "
                 "PerfStringBackup.INI, an INF copy's file or folder, or "
                 "the file of a reg: or psb: store): writing it would "
                 "replace that file; write it elsewhere; nothing was "
                 "written", what,
                 rt_cli_shown(file));
}

int rt_cli_refuse_own_file(struct rt_store *s, const char *file,
                           const char *what)
{
    if (!s || !rt_op_owns_file(s, file))
        return 0;
    rt_cli_say_own_file(what, file);
    return 1;
}

char *rt_cli_hive_confine(const char *file, char **root)
{
    char *out = rt_os_confine_folder_of(file, root);
    if (!out)
        rt_cli_error("cannot read '%s': %s", file, rt_os_strerror(errno));
    return out;
}
