/* regtool verify: what a provider's own data says about its registration,
 * on a running system (--store live): its objects and counters, read the
 * way a consumer reads them, checked against the name database. */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include "ops/ops.h"

static const char usage_text[] =
    "Usage: regtool [--store live] verify [--json] [--query Q] DRIVER\n"
    "\n"
    "Reads the provider's performance data as a consumer does (Wine or\n"
    "Windows loads its Library and calls Collect) and checks it against\n"
    "the name database: every object and counter index resolves in every\n"
    "language, lies in the provider's range with the right parity, each\n"
    "object is in Object List, lengths are 8-byte aligned, and a short\n"
    "buffer is answered with ERROR_MORE_DATA. Findings as audit prints\n"
    "them; exit 1 when any is an error or a warning.\n"
    "\n"
    "  --query Q  the value asked of HKEY_PERFORMANCE_DATA (default Global:\n"
    "             every object, so that one numbered wrongly is found too)\n"
    "  --json     audit's JSON format\n";

int cmd_verify(int argc, char **argv)
{
    int json = 0;
    const char *query = NULL, *driver = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = 1;
        } else if (!strcmp(a, "--query") && i + 1 < argc) {
            query = argv[++i];
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage_text, stdout);
            return RT_EXIT_OK;
        } else if (a[0] == '-' || driver) {
            fputs(usage_text, stderr);
            return RT_EXIT_USAGE;
        } else {
            driver = a;
        }
    }
    if (!driver) {
        fputs(usage_text, stderr);
        return RT_EXIT_USAGE;
    }
    int rc;
    struct rt_database db;
    /* Indices are looked up in the tables as stored: no decoding. */
    static const struct rt_db_load_options load = {RT_DB_TABLES_ALL, NULL, 0,
                                                   0, NULL};
    struct rt_store *s = rt_cli_open_database_with(&db, &load, &rc);
    if (!s)
        return rc;
    if (!query)
        query = "Global";
    struct rt_error e = {0};
    struct rt_findings f = {0};
    switch (rt_op_verify(s, &db, driver, query, &f, &e)) {
    case RT_VERIFY_NO_SYSTEM:
        rt_cli_error("verify: %s", e.message);
        rc = RT_EXIT_USAGE;
        goto out;
    case RT_VERIFY_READ_FAILED:
        rt_cli_error("verify: %s", e.message);
        rc = rt_cli_exit_for(e.code);
        goto out;
    case RT_VERIFY_NO_MEMORY:
        rt_cli_error("%s", e.message);
        rc = RT_EXIT_FAILURE;
        goto out;
    case RT_VERIFY_INCOMPLETE:
        rt_cli_error("verify: out of memory; findings incomplete");
        break;
    case RT_VERIFY_DONE:
        break;
    }
    if (json) {
        rt_cli_findings_json(driver, rt_op_layout_text(s), &f);
        putchar('\n');
    } else {
        rt_cli_findings_text(driver, rt_op_layout_text(s), &f);
    }
    rc = f.errors || f.warnings ? RT_EXIT_WARN : RT_EXIT_OK;
    rt_findings_free(&f);
out:
    rt_database_free(&db);
    rt_op_close(s);
    return rc;
}
