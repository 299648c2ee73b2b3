/* CLI: names and values from the tree, an INI or a journal as the
 * terminal may show them (model/printable.h): whoever wrote the tree chose
 * them, and printed raw their control characters would act on the
 * terminal or forge lines of the report. */
#include "cli.h"

#include <stdlib.h>

/* The escaped forms given out last: a printf may hold several, each kept
 * until RT_CLI_SHOWN_SLOTS later ones have been asked for. Text with
 * nothing to escape, nearly all of it, is given back as it is. */
static char *slots[RT_CLI_SHOWN_SLOTS];
static unsigned next_slot;

const char *rt_cli_shown(const char *text)
{
    if (!text || rt_text_is_printable(text))
        return text;
    char *shown = rt_text_printable_dup(text);
    if (!shown)
        return "(text not shown: out of memory)";
    free(slots[next_slot]);
    slots[next_slot] = shown;
    next_slot = (next_slot + 1) % RT_CLI_SHOWN_SLOTS;
    return shown;
}

/* PREFIX, TEXT escaped and, when LINE, a line end, written to F a
 * kilobyte at a time. */
static void put(FILE *f, const char *prefix, const char *text, int line)
{
    char buf[1024];
    size_t o = 0, used;
    /* Room is kept for the widest form of a character and a line end. */
    for (; prefix && *prefix; prefix++) {
        if (o + RT_PRINTABLE_MAX + 1 > sizeof buf) {
            fwrite(buf, 1, o, f);
            o = 0;
        }
        buf[o++] = *prefix;
    }
    while (*text) {
        if (o + RT_PRINTABLE_MAX + 1 > sizeof buf) {
            fwrite(buf, 1, o, f);
            o = 0;
        }
        o += rt_printable_char(text, buf + o, &used);
        text += used;
    }
    if (line)
        buf[o++] = '\n';
    fwrite(buf, 1, o, f);
}

void rt_cli_put_shown(FILE *f, const char *text)
{
    put(f, NULL, text, 0);
}

void rt_cli_put_shown_line(FILE *f, const char *prefix, const char *text)
{
    put(f, prefix, text, 1);
}
