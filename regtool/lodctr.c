/* CLI: drop-in modes. Invoked as lodctr or unlodctr (the binary's name,
 * with or without .exe), regtool accepts their syntax and returns Win32
 * error codes, as installers calling them expect. Switches not built yet
 * say which roadmap item covers them and fail with ERROR_NOT_SUPPORTED:
 * nothing silently succeeds. */
#include "regtool.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/ops.h"

static int not_supported(const char *tool, const char *sw, const char *item)
{
    fprintf(stderr,
            "%s: %s is not implemented yet (README.md, Roadmap: %s); "
            "nothing was done\n",
            tool, sw, item);
    return RT_ERR_NOT_SUPPORTED;
}

static struct rt_store *open_store(const char *tool, int *code)
{
    int exit_code;
    struct rt_store *s = rt_cli_open_store(&exit_code);
    if (!s) {
        fprintf(stderr, "%s: cannot open the name database\n", tool);
        *code = exit_code == RT_EXIT_USAGE ? RT_ERR_INVALID_PARAMETER
                                           : RT_ERR_FILE_NOT_FOUND;
    }
    return s;
}

static int lodctr_install(const char *ini)
{
    struct rt_provider_spec spec;
    int rc = rt_cli_load_spec(ini, NULL, &spec);
    if (rc != RT_EXIT_OK) {
        rt_provider_spec_free(&spec);
        return rc == RT_EXIT_FAILURE ? RT_ERR_FILE_NOT_FOUND
                                     : RT_ERR_INVALID_DATA;
    }
    int code = 0;
    struct rt_store *s = open_store("lodctr", &code);
    if (s) {
        struct rt_install_options opt = {0};
        struct rt_change_set cs;
        struct rt_install_plan plan;
        struct rt_error e = {0};
        if (rt_op_install(s, &spec, &opt, 0, &cs, &plan, &e) != 0) {
            fprintf(stderr, "lodctr: %s\n", e.message);
            code = e.code;
        } else {
            printf("lodctr: installed %s: names %u-%u, help %u-%u\n",
                   spec.drivername, plan.first_counter, plan.last_counter,
                   plan.first_help, plan.last_help);
            rt_change_set_free(&cs);
            rt_install_plan_free(&plan);
        }
        s->ops->close(s);
    }
    rt_provider_spec_free(&spec);
    return code;
}

/* Runs a regtool command as lodctr would, mapping its exit code. */
static int run_as(int (*cmd)(int, char **), const char *name, const char *arg)
{
    char *argv[] = {(char *)name, (char *)arg, NULL};
    int rc = cmd(arg ? 2 : 1, argv);
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
    fputs("Usage: lodctr INI | /Q[:service] | /E:service | /D:service\n"
          "       (/S:file, /R[:file], /T:service are on the roadmap)\n"
          "The store comes from --store SPEC or REGTOOL_STORE.\n", f);
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

int rt_lodctr_main(int argc, char **argv)
{
    if (argc != 2) {
        lodctr_usage(stderr);
        return RT_ERR_INVALID_PARAMETER;
    }
    char sw;
    const char *val;
    if (!parse_switch(argv[1], &sw, &val))
        return lodctr_install(argv[1]);
    switch (sw) {
    case '?':
        lodctr_usage(stdout);
        return RT_ERR_SUCCESS;
    case 'q':
        return run_as(cmd_query, "query", *val ? val : NULL);
    case 'e':
    case 'd':
        if (!*val) {
            fprintf(stderr, "lodctr: /%c needs a service: /%c:service\n",
                    sw & ~0x20, sw & ~0x20);
            return RT_ERR_INVALID_PARAMETER;
        }
        return run_as(sw == 'e' ? cmd_enable : cmd_disable,
                      sw == 'e' ? "enable" : "disable", val);
    case 's':
        return not_supported("lodctr", "/S (save)", "backup and restore");
    case 'r':
        return not_supported("lodctr", *val ? "/R:file (restore)" : "/R (rebuild)",
                             "backup and restore");
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

int rt_unlodctr_main(int argc, char **argv)
{
    if (argc != 2 || !strcmp(argv[1], "/?")) {
        fputs("Usage: unlodctr DRIVER\n", argc == 2 ? stdout : stderr);
        return argc == 2 ? RT_ERR_SUCCESS : RT_ERR_INVALID_PARAMETER;
    }
    char sw;
    const char *val;
    if (parse_switch(argv[1], &sw, &val))
        return sw == 'm' ? not_supported("unlodctr", "/M (manifest)",
                                         "manifest providers")
                         : RT_ERR_INVALID_PARAMETER;
    int code = 0;
    struct rt_store *s = open_store("unlodctr", &code);
    if (!s)
        return code;
    struct rt_change_set cs;
    struct rt_uninstall_plan p;
    struct rt_error e = {0};
    if (rt_op_uninstall(s, argv[1], 0, 0, &cs, &p, &e) != 0) {
        fprintf(stderr, "unlodctr: %s\n", e.message);
        code = e.code;
    } else {
        printf("unlodctr: removed %s: names %u-%u, help %u-%u\n"
               "unlodctr: %s\nunlodctr: %s\n",
               argv[1], p.first_counter, p.last_counter, p.first_help,
               p.last_help, p.counter.why, p.help.why);
        rt_change_set_free(&cs);
    }
    s->ops->close(s);
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
