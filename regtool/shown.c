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

void rt_cli_put_shown(FILE *f, const char *text)
{
    char one[RT_PRINTABLE_MAX];
    size_t used;
    while (*text) {
        size_t n = rt_printable_char(text, one, &used);
        fwrite(one, 1, n, f);
        text += used;
    }
}
