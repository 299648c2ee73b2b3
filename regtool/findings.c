/* Printing findings (audit's format, also verify's): JSON for programs,
 * text for people. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

/* Calls PUT with X's message, spelt out now (the findings keep the words
 * said of thousands of languages once: struct rt_finding). */
static void put_message(FILE *out, const struct rt_finding *x,
                        void (*put)(FILE *f, const char *text))
{
    const char *kept = rt_finding_message_kept(x);
    char *spelt = kept ? NULL : rt_finding_message(x);
    if (!kept && !spelt)
        rt_cli_error("out of memory: a finding's message is left out");
    put(out, kept ? kept : spelt ? spelt : "(out of memory)");
    free(spelt);
}

static void json_finding(FILE *out, const struct rt_finding *x)
{
    fputs("{\"id\":", out);
    rt_json_string(out, rt_finding_id(x));
    fputs(",\"severity\":", out);
    rt_json_string(out, rt_audit_severity_name(rt_finding_severity(x)));
    fputs(",\"language\":", out);
    rt_json_string_or_null(out, x->language);
    fputs(",\"indices\":[", out);
    for (size_t i = 0; i < rt_finding_n_indices(x); i++)
        fprintf(out, "%s%u", i ? "," : "", rt_finding_index(x, i));
    fputs("],\"texts\":[", out);
    for (size_t i = 0; i < rt_finding_n_texts(x); i++) {
        if (i)
            fputc(',', out);
        rt_json_string(out, rt_finding_text(x, i));
    }
    fputs("],\"message\":", out);
    put_message(out, x, rt_json_string);
    fputs(",\"symptom\":", out);
    rt_json_string_or_null(out, rt_finding_symptom(x));
    fputs(",\"fix\":", out);
    rt_json_string_or_null(out, rt_finding_fix(x));
    fputc('}', out);
}

void rt_cli_findings_json(const char *spec, const char *layout,
                          const struct rt_findings *f)
{
    rt_cli_findings_json_to(stdout, NULL, spec, layout, f);
}

void rt_cli_findings_json_to(FILE *out, const char *machine, const char *spec,
                             const char *layout, const struct rt_findings *f)
{
    fputc('{', out);
    if (machine) {
        fputs("\"machine\":", out);
        rt_json_string(out, machine);
        fputc(',', out);
    }
    fputs("\"store\":", out);
    rt_json_string(out, spec);
    fputs(",\"layout\":", out);
    rt_json_string_or_null(out, layout);
    fputs(",\"findings\":[", out);
    for (size_t i = 0; i < f->n; i++) {
        if (i)
            fputc(',', out);
        json_finding(out, &f->v[i]);
    }
    fprintf(out, "],\"summary\":{\"errors\":%zu,\"warnings\":%zu,\"info\":%zu}}",
           f->errors, f->warnings, f->infos);
}

/* For people: most severe first, evidence under each finding (a long list
 * is cut, --json has it all), then a summary line. Every text is escaped
 * (rt_cli_shown): a finding quotes the tree's names and values, and one
 * holding a newline must not forge a finding or the summary. */
void rt_cli_findings_text(const char *spec, const char *layout,
                          const struct rt_findings *f)
{
    printf("%s%s%s\n", rt_cli_shown(spec), layout ? ": " : "",
           layout ? rt_cli_shown(layout) : "");
    for (size_t i = 0; i < f->n; i++) {
        const struct rt_finding *x = &f->v[i];
        printf("%-7s %s%s%s%s: ", rt_audit_severity_name(rt_finding_severity(x)),
               rt_finding_id(x), x->language ? " [" : "",
               x->language ? rt_cli_shown(x->language) : "",
               x->language ? "]" : "");
        put_message(stdout, x, rt_cli_put_shown);
        putchar('\n');
        size_t shown = rt_finding_n_indices(x) < 8 ? rt_finding_n_indices(x) : 8;
        for (size_t k = 0; k < shown; k++) {
            if (k < rt_finding_n_texts(x)) {
                printf("        %u \"", rt_finding_index(x, k));
                rt_cli_put_shown(stdout, rt_finding_text(x, k));
                fputs("\"\n", stdout);
            } else {
                printf("        %u\n", rt_finding_index(x, k));
            }
        }
        if (shown < rt_finding_n_indices(x))
            printf("        ... %zu more (--json lists them all)\n",
                   rt_finding_n_indices(x) - shown);
        if (rt_finding_symptom(x)) {
            fputs("        symptom: ", stdout);
            rt_cli_put_shown(stdout, rt_finding_symptom(x));
            putchar('\n');
        }
        if (rt_finding_fix(x)) {
            fputs("        fix: ", stdout);
            rt_cli_put_shown(stdout, rt_finding_fix(x));
            putchar('\n');
        }
    }
    printf("%zu error%s, %zu warning%s, %zu info\n", f->errors,
           f->errors == 1 ? "" : "s", f->warnings,
           f->warnings == 1 ? "" : "s", f->infos);
}
