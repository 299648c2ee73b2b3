/* Printing findings (audit's format, also verify's): JSON for programs,
 * text for people. */
#include "regtool.h"

#include <stdio.h>

#include "engine/audit.h"

static void json_finding(const struct rt_finding *x)
{
    fputs("{\"id\":", stdout);
    rt_json_string(stdout, x->id);
    fputs(",\"severity\":", stdout);
    rt_json_string(stdout, rt_audit_severity_name(x->severity));
    fputs(",\"language\":", stdout);
    rt_json_string_or_null(stdout, x->language);
    fputs(",\"indices\":[", stdout);
    for (size_t i = 0; i < x->n_indices; i++)
        printf("%s%u", i ? "," : "", x->indices[i]);
    fputs("],\"texts\":[", stdout);
    for (size_t i = 0; i < x->n_texts; i++) {
        if (i)
            putchar(',');
        rt_json_string(stdout, x->texts[i]);
    }
    fputs("],\"message\":", stdout);
    rt_json_string(stdout, x->message);
    fputs(",\"symptom\":", stdout);
    rt_json_string_or_null(stdout, x->symptom);
    fputs(",\"fix\":", stdout);
    rt_json_string_or_null(stdout, x->fix);
    putchar('}');
}

void rt_cli_findings_json(const char *spec, const char *layout,
                          const struct rt_findings *f)
{
    fputs("{\"store\":", stdout);
    rt_json_string(stdout, spec);
    fputs(",\"layout\":", stdout);
    rt_json_string_or_null(stdout, layout);
    fputs(",\"findings\":[", stdout);
    for (size_t i = 0; i < f->n; i++) {
        if (i)
            putchar(',');
        json_finding(&f->v[i]);
    }
    printf("],\"summary\":{\"errors\":%zu,\"warnings\":%zu,\"info\":%zu}}",
           f->errors, f->warnings, f->infos);
}

/* For people: most severe first, evidence under each finding (a long list
 * is cut, --json has it all), then a summary line. */
void rt_cli_findings_text(const char *spec, const char *layout,
                          const struct rt_findings *f)
{
    printf("%s%s%s\n", spec, layout ? ": " : "",
           layout ? layout : "");
    for (size_t i = 0; i < f->n; i++) {
        const struct rt_finding *x = &f->v[i];
        printf("%-7s %s%s%s%s: %s\n", rt_audit_severity_name(x->severity),
               x->id, x->language ? " [" : "", x->language ? x->language : "",
               x->language ? "]" : "", x->message);
        size_t shown = x->n_indices < 8 ? x->n_indices : 8;
        for (size_t k = 0; k < shown; k++) {
            if (k < x->n_texts)
                printf("        %u \"%s\"\n", x->indices[k], x->texts[k]);
            else
                printf("        %u\n", x->indices[k]);
        }
        if (shown < x->n_indices)
            printf("        ... %zu more (--json lists them all)\n",
                   x->n_indices - shown);
        if (x->symptom)
            printf("        symptom: %s\n", x->symptom);
        if (x->fix)
            printf("        fix: %s\n", x->fix);
    }
    printf("%zu error%s, %zu warning%s, %zu info\n", f->errors,
           f->errors == 1 ? "" : "s", f->warnings,
           f->warnings == 1 ? "" : "s", f->infos);
}
