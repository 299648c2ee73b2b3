/* CLI: `regtool check-ini` validates a lodctr INI and its symbol file and
 * prints the provider they describe, as text or as one JSON object. */
#include "cli.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE "check-ini [--json] [--strict] [--codepage CP] INI"

/* "warnings":[...] (or "errors"): each diagnostic of SEV as the line
 * stderr shows, "FILE:LINE: warning: ...". 0, or -1 when memory ran out
 * for one (said on stderr). */
static int print_json_diags(FILE *f, const struct rt_diags *d,
                            enum rt_severity sev)
{
    int rc = 0;
    fprintf(f, "\"%s\":[", sev == RT_WARNING ? "warnings" : "errors");
    bool first = true;
    for (size_t i = 0; i < d->n; i++) {
        if (d->v[i].severity != sev)
            continue;
        if (!first)
            fputc(',', f);
        first = false;
        char *msg = rt_diag_format(&d->v[i]);
        if (!msg) {
            rt_cli_error("out of memory: a diagnostic is left out");
            rc = -1;
        }
        rt_json_string(f, msg ? msg : "(out of memory)");
        free(msg);
    }
    fputc(']', f);
    return rc;
}

/* An INI with errors: what a program reading --json needs to report
 * them, on stdout as the valid INI's object is. */
static int print_json_errors(FILE *f, const struct rt_diags *d)
{
    fputc('{', f);
    int rc = print_json_diags(f, d, RT_ERROR);
    fputc(',', f);
    rc |= print_json_diags(f, d, RT_WARNING);
    fputs("}\n", f);
    return rc;
}

/* 0, or -1 when memory ran out for a warning (print_json_diags). */
static int print_json(FILE *f, const struct rt_provider_spec *spec,
                      const struct rt_diags *d)
{
    fputs("{\"drivername\":", f);
    rt_json_string(f, spec->drivername);
    fputs(",\"languages\":[", f);
    for (size_t i = 0; i < spec->n_languages; i++) {
        if (i)
            fputc(',', f);
        rt_json_string(f, spec->languages[i].id);
    }
    fprintf(f, "],\"trusted\":%s,\"objects\":[",
            spec->trusted ? "true" : "false");
    bool first = true;
    for (size_t i = 0; i < spec->n_symbols; i++) {
        if (!spec->symbols[i].is_object)
            continue;
        if (!first)
            fputc(',', f);
        first = false;
        rt_json_string(f, spec->symbols[i].symbol);
    }
    fputs("],\"symbols\":[", f);
    for (size_t i = 0; i < spec->n_symbols; i++) {
        const struct rt_provider_symbol *s = &spec->symbols[i];
        if (i)
            fputc(',', f);
        fputs("{\"symbol\":", f);
        rt_json_string(f, s->symbol);
        fprintf(f, ",\"offset\":%ld,\"object\":%s,\"text\":{", s->offset,
                s->is_object ? "true" : "false");
        bool first_lang = true;
        for (size_t k = 0; k < s->n_text; k++) {
            const struct rt_provider_text *t = &s->text[k];
            if (!t->name && !t->help)
                continue;
            if (!first_lang)
                fputc(',', f);
            first_lang = false;
            rt_json_string(f, spec->languages[t->lang].id);
            fputs(":{\"name\":", f);
            rt_json_string_or_null(f, t->name);
            fputs(",\"help\":", f);
            rt_json_string_or_null(f, t->help);
            fputc('}', f);
        }
        fputs("}}", f);
    }
    fputs("],", f);
    int rc = print_json_diags(f, d, RT_WARNING);
    fputs("}\n", f);
    return rc;
}

static void print_text(FILE *f, const struct rt_provider_spec *spec)
{
    fprintf(f, "drivername: %s\n", rt_cli_shown(spec->drivername));
    fprintf(f, "symbolfile: %s\n", rt_cli_shown(spec->symbolfile));
    fprintf(f, "trusted: %s\n", spec->trusted ? "yes" : "no");
    fputs("languages:", f);
    for (size_t i = 0; i < spec->n_languages; i++)
        fprintf(f, " %s", rt_cli_shown(spec->languages[i].id));
    fputs("\nsymbols:\n", f);
    for (size_t i = 0; i < spec->n_symbols; i++) {
        const struct rt_provider_symbol *s = &spec->symbols[i];
        fprintf(f, "  %ld %s %s\n", s->offset, rt_cli_shown(s->symbol),
                s->is_object ? "object" : "counter");
        for (size_t k = 0; k < s->n_text; k++) {
            const struct rt_provider_text *t = &s->text[k];
            const char *id = spec->languages[t->lang].id;
            if (t->name)
                fprintf(f, "    %s name: %s\n", rt_cli_shown(id),
                        rt_cli_shown(t->name));
            if (t->help)
                fprintf(f, "    %s help: %s\n", rt_cli_shown(id),
                        rt_cli_shown(t->help));
        }
    }
}

int cmd_check_ini(int argc, char **argv)
{
    bool json = false, strict = false;
    const char *codepage = NULL, *ini = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--strict")) {
            strict = true;
        } else if (!strcmp(a, "--codepage")) {
            if (++i == argc) {
                rt_cli_error("--codepage needs a code page\nusage: regtool "
                             USAGE);
                return RT_EXIT_USAGE;
            }
            codepage = argv[i];
        } else if (!strncmp(a, "--codepage=", 11)) {
            codepage = a + 11;
        } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs("Usage: regtool " USAGE "\n"
                  "\n"
                  "Reads a lodctr INI and its symbol file (in the INI's directory)\n"
                  "and reports every problem at once as FILE:LINE: error|warning:\n"
                  "...; prints the provider when the INI is valid. Writes nothing.\n"
                  "\n"
                  "  --json         the provider and its warnings as one object;\n"
                  "                 with errors, {\"errors\":[...],\"warnings\":[...]}\n"
                  "  --strict       warnings fail too (exit 1)\n"
                  "  --codepage CP  the code page of an ANSI INI (1251,\n"
                  "                 windows-1252); UTF-16 and UTF-8 need none\n"
                  "\n"
                  "Exit status: 0 valid; 1 warnings with --strict; 2 errors; 3 the\n"
                  "INI cannot be read.\n", stdout);
            return RT_EXIT_OK;
        } else if (a[0] == '-' && a[1]) {
            rt_cli_error("unknown option '%s'\nusage: regtool " USAGE, a);
            return RT_EXIT_USAGE;
        } else if (!ini && !*a) {
            rt_cli_error("INI is empty: give an INI file\nusage: regtool "
                         USAGE);
            return RT_EXIT_USAGE;
        } else if (!ini) {
            ini = a;
        } else {
            rt_cli_error("one INI file only\nusage: regtool " USAGE);
            return RT_EXIT_USAGE;
        }
    }
    if (!ini) {
        rt_cli_error("no INI file given\nusage: regtool " USAGE);
        return RT_EXIT_USAGE;
    }

    struct rt_diags d = {0};
    struct rt_provider_spec spec;
    /* --strict is the exit status here: the provider is printed. */
    const struct rt_ini_load_options opt = {codepage, NULL, 0};
    enum rt_ini_load r = rt_op_load_ini(ini, &opt, &spec, &d);
    int rc;
    if (r == RT_INI_OUT_OF_MEMORY) {
        /* Its diagnostics are no account of the INI: none is shown. */
        rt_cli_error("check-ini: %s: out of memory", ini);
        rc = RT_EXIT_FAILURE;
    } else if (r != RT_INI_LOADED) {
        int shown = rt_cli_print_diags(&d);
        if (json)
            shown |= print_json_errors(stdout, &d);
        rc = r == RT_INI_UNREADABLE || shown != 0 ? RT_EXIT_FAILURE
                                                  : RT_EXIT_INVALID;
    } else {
        int shown = 0;
        if (json) {
            shown = print_json(stdout, &spec, &d);
        } else {
            print_text(stdout, &spec);
            shown = rt_cli_print_diags(&d);
        }
        rc = shown != 0 ? RT_EXIT_FAILURE
             : d.warnings && strict ? RT_EXIT_WARN : RT_EXIT_OK;
    }
    if (fflush(stdout) || ferror(stdout)) {
        rt_cli_error("cannot write the output");
        rc = RT_EXIT_FAILURE;
    }
    rt_provider_spec_free(&spec);
    rt_diags_free(&d);
    return rc;
}
