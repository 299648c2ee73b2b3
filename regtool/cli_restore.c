/* Restoring the name database from a file, as regtool restore and lodctr
 * /R:FILE say it: the file read and parsed (errors name its line), the
 * restore's plan printed, another machine's backup warned of. The
 * restore itself is the operations layer's (rt_op_restore,
 * rt_op_restore_reg). */
#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops.h"
#include "platform/os.h"

static const char *encoding_name(enum rt_psb_encoding enc)
{
    switch (enc) {
    case RT_PSB_UTF16LE: return "UTF-16LE";
    case RT_PSB_UTF16LE_BOM: return "UTF-16LE with byte-order mark";
    case RT_PSB_UTF8: return "UTF-8";
    default: return "UTF-8 with byte-order mark";
    }
}

/* The file's names as rt_cli_shown shows them: whoever wrote the backup
 * chose them. */
static void print_plan(const struct rt_restore_plan *p)
{
    for (int i = 0; i < 3; i++) {
        const struct rt_restore_perflib *v = &p->perflib[i];
        if (!v->in_file)
            printf("Perflib %s: kept at %u (not in the file)\n", v->name,
                   v->old_value);
        else if (v->had && v->old_value == v->new_value)
            printf("Perflib %s: %u, unchanged\n", v->name, v->new_value);
        else if (v->had)
            printf("Perflib %s: %u -> %u\n", v->name, v->old_value,
                   v->new_value);
        else
            printf("Perflib %s: %u (was absent)\n", v->name, v->new_value);
    }
    for (size_t i = 0; i < p->n_langs; i++) {
        const struct rt_restore_language *l = &p->langs[i];
        if (!l->section)
            printf("language %s: kept, %zu names and %zu help texts (the "
                   "file has no [PerfStrings_%s])\n",
                   rt_cli_shown(l->id), l->names_before, l->helps_before,
                   rt_cli_shown(l->id));
        else if (!l->counter_changed && !l->help_changed)
            printf("language %s: %zu names and %zu help texts, unchanged\n",
                   rt_cli_shown(l->id), l->names_after, l->helps_after);
        else
            printf("language %s: %zu names and %zu help texts (were %zu and "
                   "%zu) from [PerfStrings_%s], line %u\n",
                   rt_cli_shown(l->id), l->names_after, l->helps_after,
                   l->names_before, l->helps_before, rt_cli_shown(l->section),
                   l->line);
    }
    size_t set = 0, deleted = 0, same = 0;
    for (size_t i = 0; i < p->n_services; i++) {
        const struct rt_restore_service *s = &p->services[i];
        if (!s->values_changed) {
            same++;
        } else if (s->action == RT_RESTORE_SET) {
            set++;
            printf("service %s: names %u-%u, help %u-%u%s\n",
                   rt_cli_shown(s->name),
                   s->first_counter, s->last_counter, s->first_help,
                   s->last_help, s->had_range ? "" : " (had no range)");
        } else {
            deleted++;
            if (s->line)
                printf("service %s: First/Last Counter/Help deleted (its "
                       "section, line %u, lacks some of them)\n",
                       rt_cli_shown(s->name), s->line);
            else
                printf("service %s: First/Last Counter/Help deleted (the "
                       "file has no [PERF_%s])\n", rt_cli_shown(s->name),
                       rt_cli_shown(s->name));
        }
        if (s->disable_changed) {
            if (s->has_disable)
                printf("service %s: Disable Performance Counters %u\n",
                       rt_cli_shown(s->name), s->disable);
            else
                printf("service %s: Disable Performance Counters deleted\n",
                       rt_cli_shown(s->name));
        }
    }
    printf("services: %zu ranges set, %zu deleted, %zu unchanged\n", set,
           deleted, same);
    for (size_t i = 0; i < p->n_extra_services; i++)
        printf("skipped [PERF_%s] (line %u): the service has no Performance "
               "key here\n", rt_cli_shown(p->extra_services[i]->name),
               p->extra_services[i]->line);
    for (size_t i = 0; i < p->n_extra_langs; i++)
        printf("skipped [PerfStrings_%s] (line %u): no such language here; "
               "not created\n", rt_cli_shown(p->extra_langs[i]->id),
               p->extra_langs[i]->line);
    for (size_t i = 0; i < p->n_unnamed; i++)
        rt_cli_error("warning: %s: its First Counter has no name in the "
                     "file (a truncated backup?)", p->unnamed[i]);
}

/* A warning line when the file's base texts differ from the database's
 * (another machine's backup): restored as asked (FORCE), or, in a dry
 * run, what a restore without --force does. */
static void say_base_differ(const char *file, uint32_t base_index,
                            size_t differ, size_t compared,
                            uint32_t first_index, const char *first_lang,
                            int force)
{
    if (!differ)
        return;
    rt_cli_error("warning: %s: its base texts (indices 1 to Base Index %u) "
                 "differ from the database's in %zu of the %zu they both "
                 "have (the first: index %u of language %s): another "
                 "machine's backup, %s", file, (unsigned)base_index, differ,
                 compared, (unsigned)first_index, first_lang,
                 force ? "restored as asked"
                       : "which restore refuses without --force");
}

/* The end of a dry run whose restore is refused without --force
 * (another machine's backup): the change shown, the exit the restore
 * would have (4), so that a script gating on the dry run is told. */
static int refused_without_force(const char *file, int *win32)
{
    rt_cli_error("restore from %s: another machine's backup: the restore "
                 "would write nothing (--force restores it anyway)", file);
    *win32 = RT_ERR_ALREADY_EXISTS;
    return rt_cli_exit_for(RT_ERR_ALREADY_EXISTS);
}

/* An interrupt said as every writer says it (rt_cli_report_error): OP
 * failed with E cancelled ("nothing changed"), or OP's change was made
 * ("complete"); 1 when it was said, *RC its exit. */
static int said_interrupt(int op, const struct rt_error *e, int *rc)
{
    if (!rt_os_interrupted() || (op != 0 && e->code != RT_ERR_CANCELLED))
        return 0;
    *rc = rt_cli_report_error(NULL, op, e);
    return 1;
}

/* The .reg side of restore: one commit of what differs. */
static int restore_reg(const char *file, const struct rt_tree_key *f,
                       int force, int dry_run, int quiet, const char *emit_reg,
                       int *win32)
{
    int rc;
    const struct rt_cli_file files[] = {{"--emit-reg", emit_reg, 0, 0},
                                        {"the backup", file, 1, 0}};
    struct rt_store *s = rt_cli_open_store_writing(files, 2, &rc);
    if (!s) {
        *win32 = rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                     : RT_ERR_FILE_NOT_FOUND;
        return rc;
    }
    struct rt_change_set cs;
    struct rt_reg_restore_report r;
    struct rt_error e = {0};
    int op = rt_op_restore_reg_tree(s, f, force, dry_run, &cs, &r, &e);
    rt_cli_progress_clear();
    if (op != 0 && said_interrupt(op, &e, &rc)) {
        *win32 = e.code;
    } else if (op != 0) {
        /* The refusal of another machine's backup says it already. */
        rt_cli_error("restore from %s: %s%s", file, e.message,
                     strstr(e.message, "nothing was written")
                         ? "" : "; nothing was written");
        *win32 = e.code;
        rc = rt_cli_exit_for(e.code);
    } else {
        printf("%s: %s %s (.reg): %zu changes%s\n", rt_cli_program(),
               dry_run ? "would restore from" : "restored from",
               rt_cli_shown(file), cs.n,
               cs.n || dry_run ? "" : ", nothing to write");
        if (!quiet) {
            printf("tables: %zu replaced\nPerflib values: %zu set\n"
                   "service values: %zu set or deleted\n", r.tables,
                   r.perflib_values, r.service_values);
            for (size_t i = 0; i < r.n_skipped; i++)
                printf("skipped %s: not in this store; not created\n",
                       rt_cli_shown(r.skipped[i]));
        }
        say_base_differ(file, r.base_index, r.base.differ, r.base.compared,
                        r.base.first_differ, r.base_first_lang, force);
        int refused = dry_run && !force && r.base.differ;
        rt_reg_restore_report_free(&r);
        /* A change the restore refuses is no patch to import either. */
        rc = emit_reg && !refused ? rt_cli_emit_reg(emit_reg, s, &cs)
                                  : RT_EXIT_OK;
        rt_change_set_free(&cs);
        *win32 = RT_ERR_SUCCESS;
        if (rc == RT_EXIT_OK && refused)
            rc = refused_without_force(file, win32);
        if (rc == RT_EXIT_OK)
            said_interrupt(0, &e, &rc);
    }
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    return rc;
}

static int restore_file(const char *file, int force, int dry_run, int quiet,
                        int psb_only, const char *emit_reg, int *win32)
{
    /* A writer's interrupt rolls its commit back or lets it finish, as
     * every writer's does (it ended the process at once, a journal left). */
    if (!dry_run)
        rt_cli_catch_interrupts();
    rt_cli_options()->read_once = 1;    /* each table compared once */
    struct rt_backup_file bf;
    struct rt_error re = {0};
    /* Read before the store is opened, but beneath its folder by the
     * tree's rules all the same (a hard link there to a host file is
     * refused), as a file the user names on a disk is. */
    char *held[2];
    size_t n_held = 0;
    if (rt_cli_hold_store_folders(file, "nothing restored", held,
                                  &n_held) != 0) {
        *win32 = RT_ERR_ACCESS_DENIED;
        return RT_EXIT_FAILURE;
    }
    enum rt_backup_read read = rt_op_read_backup_file(file, &bf, &re);
    rt_op_release_spec_folders(held, n_held);
    if (read != RT_BACKUP_READ_OK) {
        rt_cli_error("%s", re.message);
        *win32 = re.code;
        rt_backup_file_free(&bf);
        return read == RT_BACKUP_READ_TOO_LARGE ||
                       read == RT_BACKUP_READ_MALFORMED
                   ? RT_EXIT_INVALID
                   : RT_EXIT_FAILURE;
    }
    if (bf.kind == RT_BACKUP_FILE_REG && psb_only) {
        rt_cli_error("%s is a .reg export, not a PerfStringBackup file: /R: "
                     "restores those only, as Windows' lodctr does (a .reg "
                     "file can change which DLL a provider loads); "
                     "'regtool restore %s' restores it, and a change to a "
                     "system provider only with --force", file, file);
        *win32 = RT_ERR_INVALID_DATA;
        rt_backup_file_free(&bf);
        return RT_EXIT_INVALID;
    }
    if (bf.kind == RT_BACKUP_FILE_REG) {
        int rc = restore_reg(file, bf.reg, force, dry_run, quiet, emit_reg,
                             win32);
        rt_backup_file_free(&bf);
        return rc;
    }
    int rc;
    const struct rt_cli_file files[] = {{"--emit-reg", emit_reg, 0, 0},
                                        {"the backup", file, 1, 0}};
    struct rt_store *s = rt_cli_open_store_writing(files, 2, &rc);
    if (!s) {
        *win32 = rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                     : RT_ERR_FILE_NOT_FOUND;
        rt_backup_file_free(&bf);
        return rc;
    }
    struct rt_change_set cs;
    struct rt_restore_plan plan;
    struct rt_error e = {0};
    int op = rt_op_restore(s, &bf.psb, force, dry_run, &cs, &plan, &e);
    rt_cli_progress_clear();
    if (op != 0 && said_interrupt(op, &e, &rc)) {
        *win32 = e.code;
    } else if (op != 0) {
        /* The engine names a section by its line ("line 5: ..."): said
         * as FILE:LINE, as the reader's own errors are. */
        unsigned ln = 0;
        int at = 0;
        if (sscanf(e.message, "line %u: %n", &ln, &at) == 1 && at > 0)
            rt_cli_error("%s:%u: %s", file, ln, e.message + at);
        else
            rt_cli_error("restore from %s: %s", file, e.message);
        *win32 = e.code;
        rc = rt_cli_exit_for(e.code);
    } else {
        printf("%s: %s %s (%s): %zu changes%s\n", rt_cli_program(),
               dry_run ? "would restore from" : "restored from",
               rt_cli_shown(file), encoding_name(bf.enc), cs.n,
               cs.n || dry_run ? "" : ", nothing to write");
        if (!quiet)
            print_plan(&plan);
        const struct rt_restore_language *first = NULL;
        for (size_t i = 0; i < plan.n_langs && !first; i++)
            if (plan.langs[i].base_differ)
                first = &plan.langs[i];
        if (first)
            say_base_differ(file, plan.perflib[2].old_value, plan.base_differ,
                            plan.base_compared, first->base_first_differ,
                            first->id, force);
        int refused = dry_run && !force && plan.base_differ;
        rt_restore_plan_free(&plan);
        /* A change the restore refuses is no patch to import either. */
        rc = emit_reg && !refused ? rt_cli_emit_reg(emit_reg, s, &cs)
                                  : RT_EXIT_OK;
        rt_change_set_free(&cs);
        *win32 = RT_ERR_SUCCESS;
        if (rc == RT_EXIT_OK && refused)
            rc = refused_without_force(file, win32);
        if (rc == RT_EXIT_OK)
            said_interrupt(0, &e, &rc);
    }
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    rt_backup_file_free(&bf);
    return rc;
}

int rt_cli_restore(const char *file, int force, int dry_run, int quiet,
                   int psb_only, const char *emit_reg, int *win32)
{
    rt_cli_progress_begin("restore");
    int rc = restore_file(file, force, dry_run, quiet, psb_only, emit_reg,
                          win32);
    rt_cli_progress_end();
    return rc;
}
