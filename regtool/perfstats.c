/* regtool perfstats: Windows 95 System Monitor registrations in a .reg
 * export (docs/design.md, "Windows 95 System Monitor"): list, audit, remove
 * a stat server. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "ops/perfstats_reg.h"
#include "platform/os.h"

static const char usage_text[] =
    "Usage: regtool perfstats list [--json] FILE.reg\n"
    "       regtool perfstats audit [--json] FILE.reg\n"
    "       regtool perfstats remove [--emit-reg PATCH] SERVER FILE.reg\n"
    "\n"
    "Windows 95 System Monitor: the stat servers and statistics a REGEDIT4\n"
    "(or Version 5.00) export holds under HKLM\\System\\CurrentControlSet\\\n"
    "Control\\PerfStats\\Enum. list prints each server and each statistic's\n"
    "name, description and kind (rate: Differentiate TRUE; count: FALSE).\n"
    "audit reports statistics without a name, stat keys exported twice,\n"
    "servers without statistics and a Differentiate that is neither TRUE nor\n"
    "FALSE (exit 0 clean, 1 warnings, 2 errors). remove writes FILE.reg again\n"
    "without SERVER (through a temporary file), and with --emit-reg the\n"
    "[-KEY] patch that removes it from a registry. A REGEDIT4 file is read\n"
    "in code page 1252, or REGTOOL_CODEPAGE.\n";

static const char *codepage(void)
{
    const char *cp = getenv("REGTOOL_CODEPAGE");
    return cp && *cp ? cp : NULL;
}

/* The exit code for an operation's STATUS, its message WHY printed. */
static int failed(enum rt_op_perfstats_status status, char *why)
{
    rt_cli_error("%s", why ? why : "out of memory");
    free(why);
    switch (status) {
    case RT_OP_PERFSTATS_OK: return RT_EXIT_OK;
    case RT_OP_PERFSTATS_MALFORMED: return RT_EXIT_INVALID;
    case RT_OP_PERFSTATS_NO_SERVER: return RT_EXIT_CONFLICT;
    default: return RT_EXIT_FAILURE;
    }
}

static const char *kind_name(enum rt_op_stat_kind k)
{
    return k == RT_OP_STAT_RATE ? "rate" : k == RT_OP_STAT_COUNT ? "count"
                                                                 : NULL;
}

static void list_json(const struct rt_op_perfstats *p)
{
    printf("{\"servers\":[");
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_op_stat_server *s = &p->servers[i];
        printf("%s{\"key\":", i ? "," : "");
        rt_json_string(stdout, s->key);
        printf(",\"name\":");
        rt_json_string_or_null(stdout, s->name);
        printf(",\"vxd\":");
        rt_json_string_or_null(stdout, s->vxd);
        printf(",\"stats\":[");
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_op_stat *st = &s->stats[j];
            printf("%s{\"key\":", j ? "," : "");
            rt_json_string(stdout, st->key);
            printf(",\"name\":");
            rt_json_string_or_null(stdout, st->name);
            printf(",\"description\":");
            rt_json_string_or_null(stdout, st->description);
            printf(",\"kind\":");
            rt_json_string_or_null(stdout, kind_name(st->kind));
            printf("}");
        }
        printf("]}");
    }
    printf("]}\n");
}

static void list_text(const struct rt_op_perfstats *p)
{
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_op_stat_server *s = &p->servers[i];
        printf("%s", rt_cli_shown(s->key));
        if (s->name)
            printf("  %s", rt_cli_shown(s->name));
        if (s->vxd)
            printf("  (VxD %s)", rt_cli_shown(s->vxd));
        printf("\n");
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_op_stat *st = &s->stats[j];
            const char *k = kind_name(st->kind);
            printf("  %-20s %-6s %s\n", rt_cli_shown(st->key), k ? k : "?",
                   st->name ? rt_cli_shown(st->name) : "(no name)");
            if (st->description)
                printf("  %-20s        %s\n", "",
                       rt_cli_shown(st->description));
        }
    }
}

static int print_audit(const char *file, const struct rt_op_perfstats *p,
                       int json)
{
    size_t n = p->n_findings;
    struct rt_op_stat_finding x;
    char message[512];
    if (json) {
        printf("{\"file\":");
        rt_json_string(stdout, file);
        printf(",\"findings\":[");
        for (size_t i = 0; i < n; i++) {
            rt_op_perfstats_finding(p, i, &x, message, sizeof message);
            printf("%s{\"id\":\"%s\",\"severity\":\"%s\",\"server\":",
                   i ? "," : "", x.id, x.error ? "error" : "warning");
            rt_json_string(stdout, x.server);
            printf(",\"stat\":");
            rt_json_string_or_null(stdout, x.stat);
            printf(",\"line\":%u,\"message\":", x.line);
            rt_json_string(stdout, x.message);
            printf("}");
        }
        printf("],\"summary\":{\"errors\":%zu,\"warnings\":%zu}}\n",
               p->errors, p->warnings);
    } else {
        for (size_t i = 0; i < n; i++) {
            rt_op_perfstats_finding(p, i, &x, message, sizeof message);
            printf("%s:%u: %s: %s [%s]\n", rt_cli_shown(file), x.line,
                   x.error ? "error" : "warning", rt_cli_shown(x.message),
                   x.id);
        }
        printf("%zu servers, %zu errors, %zu warnings\n", p->n_servers,
               p->errors, p->warnings);
    }
    return p->errors ? RT_EXIT_INVALID
         : p->warnings ? RT_EXIT_WARN
                       : RT_EXIT_OK;
}

static int remove_server(const char *server, const char *file,
                         const char *emit)
{
    /* One write would replace the other (review 41). */
    const struct rt_cli_file patch = {"--emit-reg", emit, 0, 0},
                             input = {"the file", file, 1, 0};
    if (rt_cli_refuse_one_file(&patch, &input))
        return RT_EXIT_USAGE;
    /* Nor the lock it holds beside the file while it writes (review 44
     * R44-3: a patch put in its place let a second writer in). */
    static const char *const lock[] = {".lock", NULL};
    if (emit && rt_os_names_file(emit, file, lock) >= 0) {
        rt_cli_error("--emit-reg '%s' names the lock '%s.lock' the removal "
                     "holds while it writes; name another; nothing was "
                     "written", rt_cli_shown(emit), rt_cli_shown(file));
        return RT_EXIT_USAGE;
    }
    size_t keys_left;
    char *why;
    enum rt_op_perfstats_status st =
        rt_op_perfstats_remove(file, server, codepage(), emit, &keys_left,
                               &why);
    if (st != RT_OP_PERFSTATS_OK)
        return failed(st, why);
    printf("removed stat server %s from %s (%zu keys left)%s%s\n",
           rt_cli_shown(server), rt_cli_shown(file), keys_left,
           emit ? "; patch: " : "", emit ? rt_cli_shown(emit) : "");
    return RT_EXIT_OK;
}

int cmd_perfstats(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'},
        {"emit-reg", required_argument, 0, 'E'},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int json = 0, c;
    const char *emit = NULL;
    if (argc < 2) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    const char *verb = argv[1];
    if (!strcmp(verb, "--help") || !strcmp(verb, "-h")) {
        fputs(usage_text, stdout);
        return RT_EXIT_OK;
    }
    optind = 2;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'E': emit = optarg; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    int rest = argc - optind;
    if (!strcmp(verb, "remove")) {
        if (rest != 2 || json || !*argv[optind] || !*argv[optind + 1]) {
            fputs(usage_text, stderr);
            return RT_EXIT_USAGE;
        }
        return remove_server(argv[optind], argv[optind + 1], emit);
    }
    if ((strcmp(verb, "list") && strcmp(verb, "audit")) || rest != 1 ||
        emit || !*argv[optind]) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    const char *file = argv[optind];
    int audit = !strcmp(verb, "audit");
    struct rt_op_perfstats p;
    char *why;
    enum rt_op_perfstats_status st =
        rt_op_perfstats_read(file, codepage(), audit ? RT_OP_PERFSTATS_AUDIT
                                                     : 0, &p, &why);
    int rc = RT_EXIT_OK;
    if (st != RT_OP_PERFSTATS_OK)
        rc = failed(st, why);
    else if (audit)
        rc = print_audit(file, &p, json);
    else if (json)
        list_json(&p);
    else
        list_text(&p);
    rt_op_perfstats_free(&p);
    return rc;
}
