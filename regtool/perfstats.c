/* regtool perfstats: Windows 95 System Monitor registrations in a .reg
 * export (docs/design.md, "Windows 95 System Monitor"): list, audit, remove
 * a stat server. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

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

/* Reads FILE; a regtool exit code (the error said) or RT_EXIT_OK. */
static int load(const char *file, struct rt_reg_file *f)
{
    uint8_t *data;
    size_t len;
    if (rt_os_read_file(file, &data, &len) != 0) {
        rt_cli_error("cannot read %s: %s", file, rt_os_strerror(errno));
        return RT_EXIT_FAILURE;
    }
    struct rt_reg_error re;
    int r = rt_reg_parse(data, len, codepage(), f, &re);
    free(data);
    if (r == 0)
        return RT_EXIT_OK;
    if (re.nomem) {
        rt_cli_error("%s: out of memory", file);
        return RT_EXIT_FAILURE;
    }
    if (re.line)
        rt_cli_error("%s:%u: %s", file, re.line, re.message);
    else
        rt_cli_error("%s: %s", file, re.message);
    return RT_EXIT_INVALID;
}

static const char *kind_name(enum rt_perfstat_kind k)
{
    return k == RT_STAT_RATE ? "rate" : k == RT_STAT_COUNT ? "count" : NULL;
}

static void list_json(const struct rt_perfstats *p)
{
    printf("{\"servers\":[");
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_perfstats_server *s = &p->servers[i];
        printf("%s{\"key\":", i ? "," : "");
        rt_json_string(stdout, s->key);
        printf(",\"name\":");
        rt_json_string_or_null(stdout, s->name);
        printf(",\"vxd\":");
        rt_json_string_or_null(stdout, s->vxd);
        printf(",\"stats\":[");
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_perfstat *st = &s->stats[j];
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

static void list_text(const struct rt_perfstats *p)
{
    for (size_t i = 0; i < p->n_servers; i++) {
        const struct rt_perfstats_server *s = &p->servers[i];
        printf("%s", rt_cli_shown(s->key));
        if (s->name)
            printf("  %s", rt_cli_shown(s->name));
        if (s->vxd)
            printf("  (VxD %s)", rt_cli_shown(s->vxd));
        printf("\n");
        for (size_t j = 0; j < s->n_stats; j++) {
            const struct rt_perfstat *st = &s->stats[j];
            const char *k = kind_name(st->kind);
            printf("  %-20s %-6s %s\n", rt_cli_shown(st->key), k ? k : "?",
                   st->name ? rt_cli_shown(st->name) : "(no name)");
            if (st->description)
                printf("  %-20s        %s\n", "",
                       rt_cli_shown(st->description));
        }
    }
}

static int audit(const char *file, const struct rt_perfstats *p, int json)
{
    struct rt_perfstats_finding *v;
    size_t n, errors = 0, warnings = 0;
    if (rt_perfstats_audit(p, &v, &n) != 0) {
        rt_cli_error("out of memory");
        return RT_EXIT_FAILURE;
    }
    for (size_t i = 0; i < n; i++) {
        errors += v[i].error;
        warnings += !v[i].error;
    }
    if (json) {
        printf("{\"file\":");
        rt_json_string(stdout, file);
        printf(",\"findings\":[");
        for (size_t i = 0; i < n; i++) {
            printf("%s{\"id\":\"%s\",\"severity\":\"%s\",\"server\":",
                   i ? "," : "", v[i].id, v[i].error ? "error" : "warning");
            rt_json_string(stdout, v[i].server);
            printf(",\"stat\":");
            rt_json_string_or_null(stdout, v[i].stat);
            printf(",\"line\":%u,\"message\":", v[i].line);
            rt_json_string(stdout, v[i].message);
            printf("}");
        }
        printf("],\"summary\":{\"errors\":%zu,\"warnings\":%zu}}\n", errors,
               warnings);
    } else {
        for (size_t i = 0; i < n; i++)
            printf("%s:%u: %s: %s [%s]\n", rt_cli_shown(file), v[i].line,
                   v[i].error ? "error" : "warning",
                   rt_cli_shown(v[i].message), v[i].id);
        printf("%zu servers, %zu errors, %zu warnings\n", p->n_servers,
               errors, warnings);
    }
    free(v);
    return errors ? RT_EXIT_INVALID : warnings ? RT_EXIT_WARN : RT_EXIT_OK;
}

/* Writes F over PATH through a temporary file. */
static int write_file(const char *path, const struct rt_reg_file *f)
{
    uint8_t *data;
    size_t len;
    struct rt_reg_error re;
    if (rt_reg_write(f, codepage(), &data, &len, &re) != 0) {
        rt_cli_error("%s: %s; nothing was written", path, re.message);
        return RT_EXIT_FAILURE;
    }
    int r = rt_os_replace_file(path, data, len, 0644);
    free(data);
    if (r != 0) {
        rt_cli_error("cannot write %s: %s", path, rt_os_strerror(errno));
        return RT_EXIT_FAILURE;
    }
    return RT_EXIT_OK;
}

static int remove_server(const char *server, const char *file,
                         const char *emit)
{
    struct rt_reg_file f, out, patch;
    int rc = load(file, &f);
    if (rc != RT_EXIT_OK)
        return rc;
    int r = rt_perfstats_remove(&f, server, &out, &patch);
    if (r < 0) {
        rt_cli_error("out of memory");
        rc = RT_EXIT_FAILURE;
    } else if (r > 0) {
        rt_cli_error("%s has no stat server %s: nothing was written", file,
                     server);
        rc = RT_EXIT_CONFLICT;
    } else {
        /* The patch first: when it cannot be written, FILE stays. */
        if (emit)
            rc = write_file(emit, &patch);
        if (rc == RT_EXIT_OK)
            rc = write_file(file, &out);
        if (rc == RT_EXIT_OK)
            printf("removed stat server %s from %s (%zu keys left)%s%s\n",
                   rt_cli_shown(server), rt_cli_shown(file), out.n_keys,
                   emit ? "; patch: " : "", emit ? rt_cli_shown(emit) : "");
        rt_reg_file_free(&out);
        rt_reg_file_free(&patch);
    }
    rt_reg_file_free(&f);
    return rc;
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
        if (rest != 2 || json) {
            fputs(usage_text, stderr);
            return RT_EXIT_USAGE;
        }
        return remove_server(argv[optind], argv[optind + 1], emit);
    }
    if ((strcmp(verb, "list") && strcmp(verb, "audit")) || rest != 1 ||
        emit) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    const char *file = argv[optind];
    struct rt_reg_file f;
    int rc = load(file, &f);
    if (rc != RT_EXIT_OK)
        return rc;
    struct rt_perfstats p;
    if (rt_perfstats_read(&f, &p) != 0) {
        rt_reg_file_free(&f);
        rt_cli_error("out of memory");
        return RT_EXIT_FAILURE;
    }
    if (!strcmp(verb, "audit"))
        rc = audit(file, &p, json);
    else if (json)
        list_json(&p);
    else
        list_text(&p);
    rt_perfstats_free(&p);
    rt_reg_file_free(&f);
    return rc;
}
