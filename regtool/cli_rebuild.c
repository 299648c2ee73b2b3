/* Rebuilding the tables from the providers' INIs, as regtool rebuild and
 * lodctr /R say it: the plan, the strings that would be lost. The
 * rebuild itself is the operations layer's (rt_op_rebuild). */
#include "cli.h"
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include "ops/ops.h"
#include "platform/os.h"

/* Every name and path as rt_cli_shown shows it: the tree chose them. */
static void print_plan(const struct rt_rebuild_plan *p,
                       const struct rt_rebuild_sources *src)
{
    for (size_t i = 0; i < src->in.n_base; i++)
        if (!src->base[i].t)
            printf("missing: %s\n", rt_cli_shown(src->base[i].missing));
    if (!src->in.psb)
        printf("missing: %s: %s\n", rt_cli_shown(src->in.psb_path),
               rt_cli_shown(src->in.psb_why));
    for (size_t i = 0; i < p->n_langs; i++) {
        const struct rt_rebuild_language *l = &p->langs[i];
        if (l->base == RT_REBUILD_LOST)
            printf("language %s: base strings LOST: no tables as installed, "
                   "no base strings in the current tables or the backup\n",
                   rt_cli_shown(l->id));
        else
            printf("language %s: base from the %s; %zu names and %zu help "
                   "texts (were %zu and %zu)%s\n",
                   rt_cli_shown(l->id), rt_rebuild_source_name(l->base),
                   l->names_after,
                   l->helps_after, l->names_before, l->helps_before,
                   l->counter_changed || l->help_changed ? "" : ", unchanged");
        if (l->dropped)
            printf("language %s: %zu strings of the current tables are not "
                   "kept: no source gives their index a text\n",
                   rt_cli_shown(l->id),
                   l->dropped);
    }
    for (size_t i = 0; i < p->n_providers; i++) {
        const struct rt_rebuild_provider *pv = &p->providers[i];
        printf("provider %s (names %u-%u, help %u-%u):",
               rt_cli_shown(pv->service),
               pv->first_counter, pv->last_counter, pv->first_help,
               pv->last_help);
        /* A run of more than eight languages with one source is said
         * once: a line a provider, not one a provider and language. */
        for (size_t k = 0; k < pv->n_langs; k++) {
            const struct rt_rebuild_choice *c = &pv->langs[k];
            const char *from = c->source == RT_REBUILD_LOST ? "" : "from the ",
                       *what = rt_rebuild_source_name(c->source),
                       *sep = k + 1 < pv->n_langs ? ";" : "";
            if (c->n > 8) {
                printf(" %s to %s (%zu languages) %s%s%s",
                       rt_cli_shown(c->lang),
                       rt_cli_shown(p->langs[c->first + c->n - 1].id), c->n,
                       from, what, sep);
                continue;
            }
            for (size_t j = 0; j < c->n; j++)
                printf(" %s %s%s%s", rt_cli_shown(p->langs[c->first + j].id),
                       from, what, j + 1 < c->n ? ";" : sep);
        }
        printf("\n");
        const struct rt_rebuild_inf *inf = pv->inf;
        if (inf && inf->spec)
            printf("  INF copy: %s\n", rt_cli_shown(inf->path));
        else if (inf)
            printf("  no INF copy: %s%s%s\n",
                   inf->path ? rt_cli_shown(inf->path) : "",
                   inf->path ? ": " : "", rt_cli_shown(inf->why));
        if (pv->lost)
            printf("  LOST: %s has no text in %zu language%s: no INF copy, "
                   "no strings in the current tables, none in %s\n",
                   rt_cli_shown(pv->service), pv->lost,
                   pv->lost == 1 ? "" : "s", rt_cli_shown(src->in.psb_path));
    }
    printf("Last Counter %u, Last Help %u\n", p->last_counter, p->last_help);
}

/* "  lost Perflib\LANG\TABLE INDEX TEXT". */
static void print_lost(void *ctx, const char *lang, enum rt_table_kind table,
                       uint32_t index, const char *text)
{
    (void)ctx;
    printf("  lost Perflib\\%s\\%s %u %s\n", rt_cli_shown(lang),
           table == RT_TABLE_HELP ? "Help" : "Counter", index,
           rt_cli_shown(text));
}

/* The strings CS loses (rt_op_strings_lost): the change set the rebuild
 * commits, never an estimate of it. With LIST, each is printed.
 * (size_t)-1: out of memory. */
static size_t strings_lost(const struct rt_change_set *cs, int list)
{
    return rt_op_strings_lost(cs, list ? print_lost : NULL, NULL);
}

/* The loss line of a rebuild about to be written (WHEN "will") or
 * previewed ("would"): the same words for rebuild, its dry run and
 * lodctr /R. Returns the number of strings lost, (size_t)-1 when out of
 * memory (said). */
static size_t say_strings_lost(const struct rt_change_set *cs,
                               const char *when)
{
    size_t n = strings_lost(cs, 0);
    if (n == (size_t)-1)
        rt_cli_error("out of memory counting what the rebuild loses");
    else if (n)
        printf("%s: %zu strings of the current tables %s be lost: no "
               "source gives their index a text\n", rt_cli_program(), n,
               when);
    return n;
}

struct before_write_ctx {
    const struct rt_rebuild_sources *src;
    int quiet;
    int printed;        /* the plan and the loss line were said */
};

/* Before the commit: the plan (unless QUIET) and what will be lost. */
static int before_write(const struct rt_rebuild_plan *plan,
                        const struct rt_change_set *cs, void *ctx)
{
    struct before_write_ctx *c = ctx;
    rt_cli_progress_clear();
    if (!c->quiet || plan->lost)
        print_plan(plan, c->src);
    say_strings_lost(cs, "will");
    fflush(stdout);
    c->printed = 1;
    return 0;
}

static int rebuild_from(const char *from, int dry_run, int accept_loss,
                        int quiet, int *win32);

/* --from DIR is another machine's Windows folder, written by whoever
 * wrote it: confined while its sources are read, as a tree
 * (rt_os_confine_on_disk): a file there that another name shares with
 * the host is not read (its tables hard-linked to a host file were
 * printed and copied into this tree's); on a disk, the disk is confined
 * with it, and a link of the disk on the way to it is refused. */
static int rebuild(const char *from, int dry_run, int accept_loss, int quiet,
                   int *win32)
{
    char *root = NULL;
    if (from && rt_os_confine_on_disk(from, &root) != 0) {
        rt_cli_error("--from %s: %s", from, rt_os_strerror(errno));
        *win32 = RT_ERR_FILE_NOT_FOUND;
        return RT_EXIT_FAILURE;
    }
    int rc = rebuild_from(root, dry_run, accept_loss, quiet, win32);
    rt_os_unconfine(root);
    free(root);
    return rc;
}

static int rebuild_from(const char *from, int dry_run, int accept_loss,
                        int quiet, int *win32)
{
    int rc;
    if (!dry_run)
        rt_cli_catch_interrupts();
    struct rt_store *s = rt_cli_open_store(&rc);
    if (!s) {
        *win32 = rc == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                     : RT_ERR_FILE_NOT_FOUND;
        return rc;
    }
    struct rt_change_set cs;
    struct rt_rebuild_plan plan;
    struct rt_rebuild_sources src;
    struct rt_error e = {0};
    int refused = 0;
    struct before_write_ctx bw = {&src, quiet, 0};
    int r = rt_op_rebuild(s, from, accept_loss, dry_run, before_write, &bw,
                          &cs, &plan, &src, &refused, &e);
    rt_cli_progress_clear();
    if ((r == 0 || refused) && !bw.printed) {
        if (!quiet || plan.lost)
            print_plan(&plan, &src);
    }
    if (r == 0) {
        printf("%s: %s the tables from %s: %zu changes%s\n", rt_cli_program(),
               dry_run ? "would rebuild" : "rebuilt", rt_cli_shown(src.root),
               cs.n,
               cs.n || dry_run ? "" : ", nothing to write");
        if (plan.lost)
            printf("%s: %zu provider or language texts %s lost "
                   "(--accept-loss)\n", rt_cli_program(), plan.lost,
                   dry_run ? "would be" : "were");
        /* The dry run's count of the strings lost is read from the very
         * change set a rebuild commits, as the "will" line before it. */
        size_t lost = dry_run ? say_strings_lost(&cs, "would") : 0;
        if (dry_run && !plan.lost && !lost)
            printf("%s: nothing would be lost\n", rt_cli_program());
        if (dry_run && !quiet) {
            rt_cli_print_change_set(stdout, &cs);
            if (lost && lost != (size_t)-1)
                strings_lost(&cs, 1);
        }
        printf("%s: winmgmt /resyncperf has no offline counterpart: run it "
               "on the machine after its next start\n", rt_cli_program());
        rt_change_set_free(&cs);
        /* The dry run exits as the rebuild it shows would: refused, 4. */
        if (dry_run && plan.lost && !accept_loss) {
            r = -1;
            refused = 1;
            e.code = RT_ERR_FILE_NOT_FOUND;
            snprintf(e.message, sizeof e.message, "%zu provider or language "
                     "texts cannot be recovered: the rebuild would write "
                     "nothing", plan.lost);
        }
    }
    if (r == 0 || refused) {
        rt_rebuild_plan_free(&plan);
        rt_rebuild_sources_free(&src);
    }
    if (refused && !quiet)
        snprintf(e.message + strlen(e.message),
                 sizeof e.message - strlen(e.message), "%s",
                 " (--accept-loss rebuilds without them)");
    rc = rt_cli_report_error("rebuild", r, &e);
    *win32 = r == 0 ? RT_ERR_SUCCESS : e.code;
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    return rc;
}

int rt_cli_rebuild(const char *from, int dry_run, int accept_loss, int quiet,
                   int *win32)
{
    rt_cli_progress_begin("rebuild");
    int rc = rebuild(from, dry_run, accept_loss, quiet, win32);
    rt_cli_progress_end();
    return rc;
}
