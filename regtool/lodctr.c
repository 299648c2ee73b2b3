/* CLI: drop-in modes. Invoked as lodctr or unlodctr (the binary's name,
 * with or without .exe), regtool accepts their syntax and returns Win32
 * error codes, as installers calling them expect. Switches not built yet
 * say which roadmap item covers them and fail with ERROR_NOT_SUPPORTED:
 * nothing silently succeeds. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ops/ops.h"
#include "platform/os.h"

static int not_supported(const char *tool, const char *sw, const char *item)
{
    fprintf(stderr,
            "%s: %s is not implemented yet (README.md, Roadmap: %s); "
            "nothing was done\n",
            tool, sw, item);
    return RT_ERR_NOT_SUPPORTED;
}

/* The Win32 code of a store that could not be opened: the store's own
 * (a damaged hive is ERROR_BADDB, a read-only one ERROR_ACCESS_DENIED),
 * not "not found" for every failure. */
static int open_failure_code(int exit_code)
{
    if (exit_code == RT_EXIT_USAGE)
        return RT_ERR_INVALID_PARAMETER;
    return rt_cli_last_error() ? rt_cli_last_error() : RT_ERR_FILE_NOT_FOUND;
}

/* CODE from a regtool verb run for /S, /R or /R:file, which call a store
 * that cannot be opened "not found": the store's own code instead. */
static int verb_code(int code)
{
    /* Interrupted, the verb said what became of its change: the code is
     * ERROR_CANCELLED (exit 130/143), before its commit point or after. */
    if (rt_os_interrupted())
        return RT_ERR_CANCELLED;
    return code == RT_ERR_FILE_NOT_FOUND && rt_cli_last_error()
               ? rt_cli_last_error()
               : code;
}

/* An install or uninstall of lodctr's own that OP (its result, E) ended:
 * an interrupt said as regtool's writers say it, and CODE, or
 * ERROR_CANCELLED when interrupted (review 39 F2: the process ended at
 * once, its journal left). */
static int after_interrupt(const char *tool, int op, const struct rt_error *e,
                           int code)
{
    if (!rt_os_interrupted() || (op != 0 && e->code != RT_ERR_CANCELLED))
        return code;
    fprintf(stderr, "%s: %s\n", tool, rt_cli_interrupt_said(op));
    return RT_ERR_CANCELLED;
}

static struct rt_store *open_store(const char *tool, int *code)
{
    int exit_code;
    /* Interrupts are taken over from here (a writer's, as regtool's
     * writers take them before the store is opened): one while the store
     * opens (its lock waited for) has changed nothing, and says so. */
    rt_cli_catch_interrupts();
    struct rt_store *s = rt_cli_open_store(&exit_code);
    if (!s && rt_os_interrupted()) {
        fprintf(stderr, "%s: interrupted: nothing changed\n", tool);
        *code = RT_ERR_CANCELLED;
    } else if (!s) {
        fprintf(stderr, "%s: cannot open the name database\n", tool);
        *code = open_failure_code(exit_code);
    }
    return s;
}

static int lodctr_install(const char *ini)
{
    /* lodctr has no switch for an ANSI INI's code page, nor one that
     * refuses what it loads with a key skipped: the environment says. */
    const char *codepage = getenv("REGTOOL_CODEPAGE");
    const char *strict = getenv("REGTOOL_STRICT");
    struct rt_provider_spec spec;
    struct rt_inf_files inf;
    int rc = rt_cli_load_spec(ini, codepage && *codepage ? codepage : NULL,
                              strict && *strict && strcmp(strict, "0"),
                              &spec, &inf);
    if (rc != RT_EXIT_OK) {
        rt_provider_spec_free(&spec);
        return rc == RT_EXIT_FAILURE ? RT_ERR_FILE_NOT_FOUND
                                     : RT_ERR_INVALID_DATA;
    }
    int code = 0;
    struct rt_store *s = open_store("lodctr", &code);
    if (s) {
        struct rt_install_options opt = {0};
        opt.inf = &inf;
        struct rt_change_set cs;
        struct rt_install_plan plan;
        struct rt_error e = {0};
        int op = rt_op_install(s, &spec, &opt, 0, &cs, &plan, &e);
        if (op != 0) {
            if (!(code = after_interrupt("lodctr", op, &e, 0))) {
                fprintf(stderr, "lodctr: %s\n", rt_cli_shown(e.message));
                code = e.code;
            }
        } else {
            printf("lodctr: installed %s: names %u-%u, help %u-%u\n",
                   rt_cli_shown(spec.drivername), plan.first_counter,
                   plan.last_counter,
                   plan.first_help, plan.last_help);
            for (size_t i = 0; i < plan.n_langs; i++)
                if (plan.langs[i].fixed[0])
                    printf("lodctr: %s not written: %s\n",
                           rt_cli_shown(plan.langs[i].lang),
                           rt_cli_shown(plan.langs[i].fixed));
            rt_change_set_free(&cs);
            rt_install_plan_free(&plan);
            code = after_interrupt("lodctr", 0, &e, code);
        }
        rt_op_close(s);
    }
    rt_inf_files_free(&inf);
    rt_provider_spec_free(&spec);
    return code;
}


/* A regtool exit status RC as lodctr returns it: the failure's Win32
 * code, or for a failure that had none, the status mapped. */
static int lodctr_code(int rc)
{
    if (rt_os_interrupted())
        return RT_ERR_CANCELLED;
    if (rc != RT_EXIT_OK && rt_cli_last_error())
        return rt_cli_last_error();
    switch (rc) {
    case RT_EXIT_OK: return RT_ERR_SUCCESS;
    case RT_EXIT_WARN:
    case RT_EXIT_CONFLICT: return RT_ERR_FILE_NOT_FOUND;
    case RT_EXIT_INVALID: return RT_ERR_INVALID_DATA;
    case RT_EXIT_USAGE: return RT_ERR_INVALID_PARAMETER;
    default: return RT_ERR_WRITE_FAULT;
    }
}

static void lodctr_usage(FILE *f)
{
    fputs("LODCTR\n"
          "    Updates registry values related to performance counters.\n"
          "\n"
          "Usage:\n"
          "    lodctr [\\\\computername] <INI-FileName>\n"
          "        Installs the counter names and explain text of the INI file\n"
          "        and its symbol file.\n"
          "    lodctr /S:<Backup-FileName>\n"
          "        Saves the performance registry strings and values to the file.\n"
          "    lodctr /R\n"
          "        Rebuilds the performance registry strings and values.\n"
          "    lodctr /R:<Backup-FileName>\n"
          "        Restores the performance registry strings and values from the file.\n"
          "    lodctr /T:<Service-Name>\n"
          "        Sets the performance counter service as trusted.\n"
          "    lodctr /E:<Service-Name>\n"
          "        Enables the performance counter service.\n"
          "    lodctr /D:<Service-Name>\n"
          "        Disables the performance counter service.\n"
          "    lodctr /Q[:<Service-Name>]\n"
          "        Queries the performance counter services, or the one named.\n"
          "    lodctr /M:<Manifest>\n"
          "        Installs a manifest of performance counter providers.\n"
          "\n"
          "/R rebuilds from the tables as installed, each provider's INF copy\n"
          "or current strings and PerfStringBackup.INI; when a provider's text\n"
          "cannot be recovered it writes nothing, names the files not found\n"
          "and returns 2. /T and /M are not available in this lodctr yet:\n"
          "they change nothing and return 50 (ERROR_NOT_SUPPORTED). /S saves to\n"
          "<Backup-FileName>_001 (to _999) when the file exists; /R:file also\n"
          "restores Disable Performance Counters, which Windows leaves alone.\n"
          "The name database is the one REGTOOL_STORE names; REGTOOL_CODEPAGE\n"
          "gives the code page of an ANSI INI file.\n", f);
}

/* The file of /S:file or /R:file as a path of this system. A Windows
 * path (a drive letter, a UNC name, a backslash) means nothing on a POSIX
 * system that is not Wine: taken as it is, "C:\\Windows\\Temp\\x.ini"
 * would be one file of that name in the current directory. Refused with
 * ERROR_PATH_NOT_FOUND; under Wine it is mapped to the Unix path. */
static char *file_argument(const char *sw, const char *arg, int *code)
{
#if !defined(_WIN32) && !defined(__WINE__)
    int drive = ((arg[0] | 0x20) >= 'a' && (arg[0] | 0x20) <= 'z') &&
                arg[1] == ':';
    if (drive || strchr(arg, '\\')) {
        fprintf(stderr, "lodctr: /%s:%s: a Windows path, which names no file "
                "on this system; nothing was done: give the file's path "
                "here (with / between folders)\n", sw, rt_cli_shown(arg));
        *code = RT_ERR_PATH_NOT_FOUND;
        return NULL;
    }
#else
    (void)sw;
#endif
    char *file = rt_os_user_path(arg);
    if (!file)
        *code = RT_ERR_NOT_ENOUGH_MEMORY;
    return file;
}

/* "/X:value" or "-X:value": the switch letter and its value (may be ""). */
static int parse_switch(const char *a, char *letter, const char **value)
{
    if ((a[0] != '/' && a[0] != '-') || !a[1])
        return 0;
    *letter = (char)(a[1] | 0x20);
    *value = a[2] == ':' ? a + 3 : a[2] ? NULL : "";
    return *value != NULL;
}

/* lodctr /Q[:service], in the words and layout Windows prints, which
 * scripts parse (docs/design.md, "Query output (lodctr /Q)"). */
static void print_id(const char *label, uint32_t v)
{
    printf("    %s: 0x%08X (%u)\n", label, v, v);
}

static int lodctr_query(const char *only)
{
    int exit_code;
    struct rt_database db;
    struct rt_store *s = rt_cli_open_database(&db, &exit_code);
    if (!s)
        return open_failure_code(exit_code);
    int code = RT_ERR_SUCCESS;
    if (only && !rt_database_service(&db, only)) {
        fprintf(stderr, "lodctr: no service '%s' with performance counters\n",
                rt_cli_shown(only));
        code = RT_ERR_FILE_NOT_FOUND;
        goto out;
    }
    printf("Performance Counter ID Queries [PERFLIB]:\n");
    print_id("Base Index", db.base_index);
    print_id("Last Counter Text ID", db.last_counter);
    print_id("Last Help Text ID", db.last_help);
    for (size_t i = 0; i < db.n_services; i++) {
        const struct rt_service_info *p = &db.services[i];
        if (only && rt_name_casecmp(only, p->name))
            continue;
        /* The names as rt_cli_shown shows them: the tree chose them. */
        printf("\n[%s] Performance Counters (%s)\n", rt_cli_shown(p->name),
               p->has_disable && p->disable ? "Disabled" : "Enabled");
        printf("    DLL Name: %s\n", p->library ? rt_cli_shown(p->library) : "");
        printf("    Open Procedure: %s\n", p->open ? rt_cli_shown(p->open) : "");
        printf("    Collect Procedure: %s\n",
               p->collect ? rt_cli_shown(p->collect) : "");
        printf("    Close Procedure: %s\n",
               p->close ? rt_cli_shown(p->close) : "");
        if (!p->has_range)
            continue;
        print_id("First Counter ID", p->first_counter);
        if (p->has_last_counter)
            print_id("Last Counter ID", p->last_counter);
        if (p->has_first_help)
            print_id("First Help ID", p->first_help);
        if (p->has_last_help)
            print_id("Last Help ID", p->last_help);
    }
out:
    rt_database_free(&db);
    rt_op_close(s);
    return code;
}

/* "\\\\computer" before the INI: the live registry of that computer.
 * Only the live store has other computers; any other store refuses with
 * the code Windows gives for a computer it cannot reach. */
static int choose_computer(const char *name, char *buf, size_t size)
{
    const char *spec = rt_cli_store_spec();
    if (!spec || (strcmp(spec, "live") && strncmp(spec, "live:", 5))) {
        fprintf(stderr, "lodctr: cannot connect to %s: the network path was "
                "not found (the name database is not a registry that has "
                "other computers)\n", name);
        return RT_ERR_BAD_NETPATH;
    }
    snprintf(buf, size, "live:%s", name);
    rt_cli_options()->store = buf;
    return RT_ERR_SUCCESS;
}

int rt_lodctr_main(int argc, char **argv)
{
    char machine[300];
    if (argc == 3 && !strncmp(argv[1], "\\\\", 2)) {
        int code = choose_computer(argv[1], machine, sizeof machine);
        if (code != RT_ERR_SUCCESS)
            return code;
        argv++;
        argc--;
        if (argv[1][0] == '/' || argv[1][0] == '-') {
            lodctr_usage(stderr);
            return RT_ERR_INVALID_PARAMETER;
        }
    }
    if (argc != 2) {
        lodctr_usage(stderr);
        return RT_ERR_INVALID_PARAMETER;
    }
    char sw;
    const char *val;
    if (!*argv[1]) {
        /* No INI named: not the working directory read as one. */
        fprintf(stderr, "lodctr: the INI file is empty: give an INI\n");
        lodctr_usage(stderr);
        return RT_ERR_INVALID_PARAMETER;
    }
    if (!parse_switch(argv[1], &sw, &val))
        return lodctr_install(argv[1]);
    switch (sw) {
    case '?':
        lodctr_usage(stdout);
        return RT_ERR_SUCCESS;
    case 'q':
        return lodctr_query(*val ? val : NULL);
    case 'e':
    case 'd':
        if (!*val) {
            fprintf(stderr, "lodctr: /%c needs a service: /%c:service\n",
                    sw & ~0x20, sw & ~0x20);
            return RT_ERR_INVALID_PARAMETER;
        }
        return lodctr_code(rt_cli_set_disabled(
            sw == 'e' ? "enable" : "disable", val, sw == 'd'));
    case 's': {
        if (!*val) {
            fprintf(stderr, "lodctr: /S needs a file: /S:file\n");
            return RT_ERR_INVALID_PARAMETER;
        }
        int code = RT_ERR_SUCCESS;
        char *file = file_argument("S", val, &code);
        if (file)
            rt_cli_backup(file, 0, &code);
        free(file);
        return verb_code(code);
    }
    case 'r': {
        int code = RT_ERR_NOT_ENOUGH_MEMORY;
        if (!*val && argv[1][2] == ':') {
            /* "/R:" names no file: not a rebuild (which writes every
             * table) by a slip of the keyboard. */
            fprintf(stderr, "lodctr: /R: needs a file: /R:file (or /R, "
                            "to rebuild)\n");
            return RT_ERR_INVALID_PARAMETER;
        }
        if (!*val) {
            /* Windows says "error code is 2" and no more: the plan printed
             * names each file that could not be found. */
            rt_cli_rebuild(NULL, 0, 0, 1, &code);
            return verb_code(code);
        }
        char *file = file_argument("R", val, &code);
        if (file)
            /* Windows restores another machine's backup: so does
             * lodctr, saying so (regtool restore needs --force). */
            rt_cli_restore(file, 1, 0, 1, 1, NULL, &code);
        free(file);
        return verb_code(code);
    }
    case 't':
        return not_supported("lodctr", "/T (trusted)", "trusted providers");
    case 'm':
        return not_supported("lodctr", "/M (manifest)", "manifest providers");
    default:
        fprintf(stderr, "lodctr: unknown switch %s\n", argv[1]);
        lodctr_usage(stderr);
        return RT_ERR_INVALID_PARAMETER;
    }
}

static void unlodctr_usage(FILE *f)
{
    fputs("UNLODCTR\n"
          "    Removes counter names and explain text for the specified\n"
          "    extensible counter.\n"
          "\n"
          "Usage:\n"
          "    unlodctr <driver>\n"
          "        Removes the counter names and explain text of the service.\n"
          "    unlodctr /M:<Manifest>\n"
          "        Removes the providers of a counter manifest.\n"
          "    unlodctr /G:<GUID>\n"
          "        Removes the provider with that GUID.\n"
          "    unlodctr /P:<Provider-Name>\n"
          "        Removes the provider with that name.\n"
          "\n"
          "/M, /G and /P are not available in this unlodctr yet: they change\n"
          "nothing and return 50 (ERROR_NOT_SUPPORTED). The name database is\n"
          "the one REGTOOL_STORE names.\n", f);
}

int rt_unlodctr_main(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "/?") || !strcmp(argv[1], "-?")) {
        unlodctr_usage(argc == 2 ? stdout : stderr);
        return argc == 2 ? RT_ERR_SUCCESS : RT_ERR_INVALID_PARAMETER;
    }
    char sw;
    const char *val;
    if (parse_switch(argv[1], &sw, &val)) {
        switch (sw) {
        case 'm':
            return not_supported("unlodctr", "/M (manifest)",
                                 "manifest providers");
        case 'g':
            return not_supported("unlodctr", "/G (provider GUID)",
                                 "manifest providers");
        case 'p':
            return not_supported("unlodctr", "/P (provider name)",
                                 "manifest providers");
        default:
            fprintf(stderr, "unlodctr: unknown switch %s\n", argv[1]);
            unlodctr_usage(stderr);
            return RT_ERR_INVALID_PARAMETER;
        }
    }
    int code = 0;
    struct rt_store *s = open_store("unlodctr", &code);
    if (!s)
        return code;
    struct rt_change_set cs;
    struct rt_uninstall_plan p;
    struct rt_error e = {0};
    int op = rt_op_uninstall(s, argv[1], 0, 0, &cs, &p, &e);
    if (op != 0) {
        if (!(code = after_interrupt("unlodctr", op, &e, 0))) {
            fprintf(stderr, "unlodctr: %s\n", rt_cli_shown(e.message));
            code = e.code;
        }
    } else {
        printf("unlodctr: removed %s: names %u-%u, help %u-%u\n"
               "unlodctr: %s\nunlodctr: %s\n",
               rt_cli_shown(argv[1]), p.first_counter, p.last_counter,
               p.first_help, p.last_help, rt_cli_shown(p.counter.why),
               rt_cli_shown(p.help.why));
        if (*p.side_skipped && rt_op_keeps_side_files(s))
            fprintf(stderr, "unlodctr: warning: %s\n",
                    rt_cli_shown(p.side_skipped));
        rt_change_set_free(&cs);
        code = after_interrupt("unlodctr", 0, &e, code);
    }
    rt_op_close(s);
    return code;
}

int rt_dropin_mode(const char *argv0)
{
    const char *base = strrchr(argv0, '/');
    const char *b2 = strrchr(argv0, '\\');
    if (b2 && (!base || b2 > base))
        base = b2;
    base = base ? base + 1 : argv0;
    size_t n = strlen(base);
    if (n > 4 && !strcasecmp(base + n - 4, ".exe"))
        n -= 4;
    if (n == 6 && !strncasecmp(base, "lodctr", 6))
        return 1;
    if (n == 8 && !strncasecmp(base, "unlodctr", 8))
        return 2;
    return 0;
}

#ifndef _WIN32
/* Win32 codes above 255, which an 8-bit exit status cannot carry. */
static const struct {
    int code;
    const char *name, *meaning;
} wide_codes[] = {
    {RT_ERR_BADDB, "ERROR_BADDB", "the name database is damaged"},
    {RT_ERR_BADKEY, "ERROR_BADKEY", "a registry key is damaged"},
    {RT_ERR_CANCELLED, "ERROR_CANCELLED", "interrupted"},
    {RT_ERR_INTERNAL_ERROR, "ERROR_INTERNAL_ERROR", "an internal error"},
};
#endif

int rt_dropin_exit(int code)
{
#ifdef _WIN32
    return code;
#else
    if (code >= 0 && code < 256)
        return code;
    /* An interrupt ends with the shell's status for it, as regtool's
     * commands do; any other code keeps its low 8 bits, which is what a
     * POSIX parent sees of the same lodctr.exe under Wine, so both builds
     * agree (docs/reference.md, "As lodctr and unlodctr"). */
    int status = code == RT_ERR_CANCELLED
                     ? 128 + (rt_os_interrupted() ? rt_os_interrupted()
                                                  : RT_OS_SIGINT)
                     : code & 0xff;
    const char *name = "", *meaning = "";
    for (size_t i = 0; i < sizeof wide_codes / sizeof *wide_codes; i++)
        if (wide_codes[i].code == code) {
            name = wide_codes[i].name;
            meaning = wide_codes[i].meaning;
        }
    fprintf(stderr, "%s: Win32 error %d%s%s%s%s%s; exit status %d (exit "
            "statuses here are 8 bits)\n", rt_cli_program(), code,
            *name ? " (" : "", name, *meaning ? ": " : "", meaning,
            *name ? ")" : "", status);
    return status;
#endif
}
