/* regtool install: load, validate and install a provider (lodctr INI). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool [--store SPEC] install [--replace] [--force] [--dry-run] "
    "[--codepage CP]\n"
    "         [--strict] [--create-service --library PATH --open FN --collect FN "
    "--close FN] INI\n"
    "\n"
    "Validates the lodctr INI and its symbol file (as check-ini), then adds\n"
    "the provider's names and help texts to every language of the machine\n"
    "and writes its service's First/Last Counter/Help, Object List and\n"
    "PerfIniFile, in one atomic commit. Where the store has a Windows\n"
    "directory, the same commit copies the INI and its symbol file to\n"
    "INF\\<drivername>\\<LLLL>\\ (where Windows' lodctr /R finds them) and\n"
    "rewrites System32\\PerfStringBackup.INI when there is one.\n"
    "\n"
    "  --replace          reinstall an installed provider (in place when its\n"
    "                     new range fits)\n"
    "  --force            install onto one of the system's providers (PerfOS\n"
    "                     and the others whose objects are Windows' own), and\n"
    "                     let --create-service replace an existing Library\n"
    "  --dry-run          print the exact change and write nothing\n"
    "  --emit-reg FILE    also write the exact change to FILE as a .reg patch\n"
    "                     (with or without --dry-run)\n"
    "  --codepage CP      the code page of an ANSI INI (1251, windows-1252)\n"
    "  --strict           refuse the INI on any warning, such as a key\n"
    "                     Windows' lodctr skips (docs/reference.md)\n"
    "  --create-service   create Services\\DRIVER\\Performance, with:\n"
    "  --library PATH     the provider DLL\n"
    "  --open FN, --collect FN, --close FN\n"
    "                     its Open, Collect and Close procedures\n";

/* Prints the INI's diagnostics; returns the number of errors. */
static void print_plan(const struct rt_install_plan *p, const char *driver,
                       int dry_run)
{
    printf("%s %s: names %u-%u, help %u-%u", dry_run ? "would install" :
           "installed", rt_cli_shown(driver), p->first_counter, p->last_counter,
           p->first_help, p->last_help);
    if (p->replaced)
        printf(" (replacing %u-%u/%u-%u%s)", p->old_first_counter,
               p->old_last_counter, p->old_first_help, p->old_last_help,
               p->kept_position ? ", same first indices" : ", moved to the top");
    printf("\n");
    for (size_t i = 0; i < p->n_langs; i++)
        if (p->langs[i].fixed[0])
            printf("  %-16s not written: %s\n", rt_cli_shown(p->langs[i].lang),
                   rt_cli_shown(p->langs[i].fixed));
        else
            printf("  %-16s %zu names, text from %s%s\n",
                   rt_cli_shown(p->langs[i].lang), p->pairs_per_language,
                   rt_cli_shown(p->langs[i].source),
                   p->langs[i].created ? " (key created)" : "");
    for (size_t i = 0; i < p->n_missing; i++)
        fprintf(stderr,
                "%s: warning: language %s is in the INI but not on "
                "this machine: not installed\n",
                rt_cli_program(), rt_cli_shown(p->missing[i]));
}

/* One argument as a POSIX shell reads it back: as it is when it holds
 * only characters no shell treats specially, else in single quotes
 * (control characters shown escaped, as everywhere else). */
static void print_shell_word(FILE *f, const char *word)
{
    const char *w = rt_cli_shown(word);
    if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                        "0123456789_./:=@%+,-") == strlen(w)) {
        fputs(w, f);
        return;
    }
    fputc('\'', f);
    for (; *w; w++) {
        if (*w == '\'')
            fputs("'\\''", f);
        else
            fputc(*w, f);
    }
    fputc('\'', f);
}

/* A new provider's service does not exist yet: the command that creates
 * it with the install, as the user typed theirs (store, options, INI),
 * with the four values only the provider's documentation knows left for
 * them to fill in. */
static void print_create_service_hint(int argc, char **argv, int ini_at)
{
    const char *spec = rt_cli_store_spec();
    fprintf(stderr, "%s: to create the service with the install, name the "
            "provider's DLL and its open, collect and close functions:\n  %s",
            rt_cli_program(), rt_cli_program());
    if (spec) {
        fputs(" --store ", stderr);
        print_shell_word(stderr, spec);
    }
    fputs(" install --create-service --library DLL --open FUNCTION "
          "--collect FUNCTION --close FUNCTION", stderr);
    for (int i = 1; i < argc; i++) {
        if (i == ini_at)
            continue;
        fputc(' ', stderr);
        print_shell_word(stderr, argv[i]);
    }
    fputc(' ', stderr);
    print_shell_word(stderr, argv[ini_at]);
    fputc('\n', stderr);
}

int cmd_install(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"replace", no_argument, 0, 'r'},
        {"force", no_argument, 0, 'f'},
        {"dry-run", no_argument, 0, 'n'},
        {"emit-reg", required_argument, 0, 'E'},
        {"codepage", required_argument, 0, 'c'},
        {"create-service", no_argument, 0, 's'},
        {"library", required_argument, 0, 'L'},
        {"open", required_argument, 0, 'O'},
        {"collect", required_argument, 0, 'C'},
        {"close", required_argument, 0, 'X'},
        {"strict", no_argument, 0, 'S'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    struct rt_install_options opt = {0};
    int dry_run = 0, strict = 0, c, emit_rc = RT_EXIT_OK;
    const char *emit = NULL;
    const char *codepage = NULL;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'r': opt.replace = 1; break;
        case 'f': opt.force = 1; break;
        case 'n': dry_run = 1; break;
        case 'E': emit = optarg; break;
        case 'c': codepage = optarg; break;
        case 'S': strict = 1; break;
        case 's': opt.create_service = 1; break;
        case 'L': opt.library = optarg; break;
        case 'O': opt.open = optarg; break;
        case 'C': opt.collect = optarg; break;
        case 'X': opt.close = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (optind != argc - 1 || !*argv[optind]) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    struct rt_provider_spec spec;
    struct rt_inf_files inf;
    int rc = rt_cli_load_spec(argv[optind], codepage, strict, &spec, &inf);
    if (rc != RT_EXIT_OK) {
        rt_provider_spec_free(&spec);
        return rc;
    }
    opt.inf = &inf;
    if (!dry_run)
        rt_cli_catch_interrupts();
    /* The symbol file too (review 42 R42-4: the patch replaced it). */
    const struct rt_cli_file files[] = {
        {"--emit-reg", emit, 0, 0}, {"the INI", argv[optind], 1, 0},
        {"its symbol file", spec.symbol_path, 1, 0}};
    struct rt_store *s = rt_cli_open_store_writing(files, 3, &rc);
    if (!s) {
        rt_inf_files_free(&inf);
        rt_provider_spec_free(&spec);
        return rc;
    }
    struct rt_change_set cs;
    struct rt_install_plan plan;
    struct rt_error e = {0};
    char what[4200];
    snprintf(what, sizeof what, "install %s", argv[optind]);
    if (rt_op_install(s, &spec, &opt, rt_cli_op_flags(dry_run, emit), &cs,
                      &plan, &e) != 0) {
        /* The engine knows no options; the way around a missing service
         * key is this command's. */
        if (e.code == RT_ERR_FILE_NOT_FOUND && !opt.create_service)
            snprintf(e.message + strlen(e.message),
                     sizeof e.message - strlen(e.message), "%s",
                     ", or use --create-service with --library, --open, "
                     "--collect and --close");
        rc = rt_cli_report_error(what, -1, &e);
        if (e.code == RT_ERR_FILE_NOT_FOUND && !opt.create_service &&
            !strstr(e.message, "has no Performance key"))
            print_create_service_hint(argc, argv, optind);
    } else {
        print_plan(&plan, spec.drivername, dry_run);
        rt_cli_side_note(s);
        if (dry_run)
            rt_cli_print_change_set(stdout, &cs);
        if (emit)
            emit_rc = rt_cli_emit_reg(emit, s, &cs);
        rt_change_set_free(&cs);
        rt_install_plan_free(&plan);
        rc = rt_cli_report_error(what, 0, &e);
    }
    if (rc == RT_EXIT_OK)
        rc = emit_rc;
    rt_cli_report_io(rc == RT_EXIT_OK);
    rt_op_close(s);
    rt_inf_files_free(&inf);
    rt_provider_spec_free(&spec);
    return rc;
}
