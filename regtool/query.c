/* regtool query: the database's counters and every provider's values
 * (lodctr /Q). */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char usage_text[] =
    "Usage: regtool [--store SPEC] query [--json] [DRIVER]\n"
    "\n"
    "The store's layout, Base Index, Last Counter, Last Help, its languages\n"
    "and each provider's Library, Open/Collect/Close, ranges, Object List and\n"
    "disabled state (lodctr /Q); only DRIVER's when given (exit 4 when it\n"
    "has no Performance key).\n"
    "\n"
    "  --json  one object: {\"layout\",\"base_index\",\"last_counter\",\n"
    "          \"last_help\",\"languages\",\"providers\":[...]}\n";

static void print_provider_json(const struct rt_service_info *p)
{
    fputs("{\"name\":", stdout);
    rt_json_string(stdout, p->name);
    fputs(",\"library\":", stdout);
    rt_json_string_or_null(stdout, p->library);
    fputs(",\"open\":", stdout);
    rt_json_string_or_null(stdout, p->open);
    fputs(",\"collect\":", stdout);
    rt_json_string_or_null(stdout, p->collect);
    fputs(",\"close\":", stdout);
    rt_json_string_or_null(stdout, p->close);
    fputs(",\"first_counter\":", stdout);
    rt_json_u32_or_null(stdout, p->has_range, p->first_counter);
    fputs(",\"last_counter\":", stdout);
    rt_json_u32_or_null(stdout, p->has_last_counter, p->last_counter);
    fputs(",\"first_help\":", stdout);
    rt_json_u32_or_null(stdout, p->has_first_help, p->first_help);
    fputs(",\"last_help\":", stdout);
    rt_json_u32_or_null(stdout, p->has_last_help, p->last_help);
    fputs(",\"object_list\":", stdout);
    rt_json_string_or_null(stdout, p->object_list);
    fputs(",\"ini_file\":", stdout);
    rt_json_string_or_null(stdout, p->ini_file);
    printf(",\"disabled\":%s,\"disable_value\":",
           p->has_disable && p->disable ? "true" : "false");
    rt_json_u32_or_null(stdout, p->has_disable, p->disable);
    putchar('}');
}

static void print_range(const char *label, int has_first, uint32_t first,
                        int has_last, uint32_t last)
{
    printf("    %-14s", label);
    if (has_first)
        printf("%u", first);
    else
        printf("-");
    printf(" .. ");
    if (has_last)
        printf("%u\n", last);
    else
        printf("-\n");
}

/* Every name and value as rt_cli_shown shows it: the tree chose them. */
static void print_provider_text(const struct rt_service_info *p)
{
    printf("  %s%s\n", rt_cli_shown(p->name),
           p->has_disable && p->disable ? "  [disabled]" : "");
    printf("    Library       %s\n",
           p->library ? rt_cli_shown(p->library) : "-");
    printf("    Open/Collect/Close  %s / %s / %s\n",
           p->open ? rt_cli_shown(p->open) : "-",
           p->collect ? rt_cli_shown(p->collect) : "-",
           p->close ? rt_cli_shown(p->close) : "-");
    print_range("Counter", p->has_range, p->first_counter, p->has_last_counter,
                p->last_counter);
    print_range("Help", p->has_first_help, p->first_help, p->has_last_help,
                p->last_help);
    if (p->object_list)
        printf("    Object List   %s\n", rt_cli_shown(p->object_list));
    if (p->ini_file)
        printf("    PerfIniFile   %s\n", rt_cli_shown(p->ini_file));
}

int cmd_query(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j': json = 1; break;
        case 'h': fputs(usage_text, stdout); return RT_EXIT_OK;
        default: fputs(usage_text, stderr); return RT_EXIT_USAGE;
        }
    }
    if (argc - optind > 1) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    const char *only = optind < argc ? argv[optind] : NULL;
    int rc;
    struct rt_database db;
    /* Perflib's values and the providers': no table is read. */
    struct rt_store *s =
        rt_cli_open_database_with(&db, &rt_db_load_no_tables, &rc);
    if (!s)
        return rc;
    rc = RT_EXIT_OK;
    /* What this listing cannot show (a link key, two keys of one name)
     * is said, not left for the reader to miss: audit reports it. */
    struct rt_findings odd;
    struct rt_error e = {0};
    memset(&odd, 0, sizeof odd);
    if (rt_op_key_findings(s, &odd, &e) > 0)
        rt_cli_error("warning: %s", e.message);
    for (size_t i = 0; i < odd.n; i++) {
        char *m = rt_finding_message(&odd.v[i]);
        rt_cli_error("warning: %s (%s: regtool audit reports it; writers "
                     "refuse this tree)",
                     m ? m : "(out of memory)", rt_finding_id(&odd.v[i]));
        free(m);
    }
    rt_findings_free(&odd);
    if (only && !rt_database_service(&db, only)) {
        rt_cli_error("no service '%s' with a Performance key", only);
        rc = RT_EXIT_CONFLICT;
        goto out;
    }
    if (json) {
        fputs("{\"layout\":", stdout);
        rt_json_string(stdout, rt_op_layout_text(s));
        printf(",\"base_index\":%u,\"last_counter\":%u,\"last_help\":%u,"
               "\"languages\":[",
               db.base_index, db.last_counter, db.last_help);
        for (size_t i = 0; i < db.n_langs; i++) {
            if (i)
                putchar(',');
            rt_json_string(stdout, db.langs[i].id);
        }
        fputs("],\"providers\":[", stdout);
        int first = 1;
        for (size_t i = 0; i < db.n_services; i++) {
            if (only && rt_name_casecmp(only, db.services[i].name))
                continue;
            if (!first)
                putchar(',');
            first = 0;
            print_provider_json(&db.services[i]);
        }
        puts("]}");
    } else {
        printf("Layout        %s\n", rt_cli_shown(rt_op_layout_text(s)));
        printf("Base Index    %u%s\n", db.base_index,
               db.has_base_index ? "" : " (absent: Windows' base)");
        printf("Last Counter  %u%s\n", db.last_counter,
               db.has_last_counter ? "" : " (absent: Windows' base)");
        printf("Last Help     %u%s\n", db.last_help,
               db.has_last_help ? "" : " (absent: Windows' base)");
        printf("Languages    ");
        for (size_t i = 0; i < db.n_langs; i++)
            printf(" %s", rt_cli_shown(db.langs[i].id));
        printf("\nProviders\n");
        for (size_t i = 0; i < db.n_services; i++)
            if (!only || !rt_name_casecmp(only, db.services[i].name))
                print_provider_text(&db.services[i]);
    }
out:
    rt_database_free(&db);
    rt_op_close(s);
    return rc;
}
