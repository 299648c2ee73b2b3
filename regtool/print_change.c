/* CLI: printing a change set (--dry-run shows exactly what would be
 * written); the text is the library's, which the API reports too. */
#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "ops/emit_patch.h"
#include "ops/ops.h"
#include "platform/os.h"

void rt_cli_print_change_set(FILE *f, const struct rt_change_set *cs)
{
    /* A change at a time: the text of thousands of tables' pairs is
     * never held whole (each change's text stands alone). */
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change_set one = {&cs->v[i], 1, 1};
        char *text = rt_op_change_set_text(&one);
        if (!text) {
            rt_cli_error("out of memory printing the change");
            return;
        }
        fputs(text, f);     /* escaped where it quotes the tree */
        free(text);
    }
}

int rt_cli_op_flags(int dry_run, const char *emit_reg)
{
    return (dry_run ? RT_OP_DRY_RUN : 0) | (emit_reg ? RT_OP_WHOLE_TABLES : 0);
}

/* Says the patch FILE was written, with what it holds and leaves out. */
static void said_patch(const char *file, size_t keys, size_t values,
                       size_t left_out, size_t files)
{
    printf("%s: wrote the change to %s as a .reg patch: %zu keys, "
           "%zu values\n", rt_cli_program(), rt_cli_shown(file), keys,
           values);
    if (left_out)
        printf("%s: note: this store keeps its tables in .dat "
               "files, which a .reg file cannot change: the patch "
               "holds only the registry part (%zu table changes "
               "left out)\n", rt_cli_program(), left_out);
    if (files)
        printf("%s: note: %zu file changes (INF copy, "
               "PerfStringBackup.INI) are not in the patch\n",
               rt_cli_program(), files);
}

/* The run's --emit-reg patch, written with the commit (emit_patch.h).
 * One a run: a process's CLI writes one patch at most. */
static struct rt_op_patch staged;

void rt_cli_stage_emit_reg(const char *file, struct rt_store *s)
{
    rt_op_patch_stage(&staged, s, file);
}

/* The staged patch, when the commit wrote it (in place or lost): said
 * once; its exit code. -1 when no commit wrote one. */
static int said_staged(void)
{
    if (staged.state != RT_OP_PATCH_IN_PLACE &&
        staged.state != RT_OP_PATCH_LOST)
        return -1;
    int lost = staged.state == RT_OP_PATCH_LOST;
    staged.state = RT_OP_PATCH_NONE;
    if (lost) {
        rt_cli_error("--emit-reg: the change was written, but its patch "
                     "could not be put in place as %s: %s", staged.file,
                     rt_os_strerror(staged.err));
        return RT_EXIT_FAILURE;
    }
    said_patch(staged.file, staged.keys, staged.values, staged.left_out,
               staged.files);
    return RT_EXIT_OK;
}

void rt_cli_said_committed_patch(void)
{
    (void)said_staged();
}

int rt_cli_emit_reg(const char *file, struct rt_store *s,
                    const struct rt_change_set *cs)
{
    /* Written with the commit: said now. */
    int said = said_staged();
    if (said >= 0)
        return said;
    uint8_t *data;
    size_t len, keys, values, left_out, files;
    struct rt_error e = {0};
    /* A dry run's patch, or an empty change's (nothing committed). FILE
     * was refused over the store's own files when the store was opened:
     * rt_cli_open_store_writing. */
    if (rt_op_reg_patch_text(s, cs, &data, &len, &keys, &values, &left_out,
                             &files, &e) != 0) {
        rt_cli_error("--emit-reg %s: %s; nothing was written", file,
                     e.message);
        return RT_EXIT_FAILURE;
    }
    int rc = RT_EXIT_OK;
    if (rt_os_replace_file(file, data, len, 0644) != 0) {
        rt_cli_error("--emit-reg: cannot write %s: %s", file,
                     rt_os_strerror(errno));
        rc = RT_EXIT_FAILURE;
    } else {
        said_patch(file, keys, values, left_out, files);
    }
    free(data);
    return rc;
}
