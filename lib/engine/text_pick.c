/* Engine layer: which of an INI's texts each machine language gets
 * (docs/design.md, "What install writes"), shared by install, rebuild and
 * repair's budget counts. */
#include "engine/engine.h"

#include <stdio.h>
#include <stdlib.h>

/* The symbol's text for machine language KEY, whose table is LANG's
 * (CurrentLanguage mirrors a three-digit language): KEY's own, as .NET's
 * INIs give CurrentLanguage text, else LANG's, else English, else the
 * INI's languages in order (docs/design.md, "What install writes"). */
void rt_engine_pick_order(const struct rt_provider_spec *spec,
                          const char *key, const char *lang, int order[3])
{
    order[0] = rt_provider_spec_language(spec, key);
    order[1] = rt_provider_spec_language(spec, lang);
    order[2] = rt_provider_spec_language(spec, "009");
}

/* The text of SYM in the INI's language I (help or name), or NULL. */
static const char *text_in(const struct rt_provider_symbol *sym, int i,
                           int help)
{
    if (i < 0)
        return NULL;
    const struct rt_provider_text *t = rt_provider_symbol_text(sym,
                                                               (size_t)i);
    return !t ? NULL : help ? t->help : t->name;
}

/* Of SYM's texts, the first language's that has one; -1 none. Its texts
 * are by language: a walk of them, not of every language listed. */
static int first_text(const struct rt_provider_spec *spec,
                      const struct rt_provider_symbol *sym, int help)
{
    (void)spec;
    for (size_t k = 0; k < sym->n_text; k++)
        if (help ? sym->text[k].help : sym->text[k].name)
            return (int)sym->text[k].lang;
    return -1;
}

/* The text of SYM by ORDER, else in language FIRST (-2: not known yet,
 * looked for only then); SRC its language. */
static const char *pick(const struct rt_provider_spec *spec,
                        const struct rt_provider_symbol *sym,
                        const int order[3], int first, int help,
                        char src[RT_LANG_ID_SIZE])
{
    for (int k = 0; k < 4; k++) {
        int i = k < 3 ? order[k]
                : first == -2 ? first_text(spec, sym, help)
                              : first;
        const char *t = text_in(sym, i, help);
        if (t) {
            snprintf(src, RT_LANG_ID_SIZE, "%s", spec->languages[i].id);
            return t;
        }
    }
    return NULL;
}

const char *rt_engine_pick_ordered(const struct rt_provider_spec *spec,
                                   const struct rt_provider_symbol *sym,
                                   const int order[3], int help,
                                   char src[RT_LANG_ID_SIZE])
{
    return pick(spec, sym, order, -2, help, src);
}

int rt_engine_picker_init(struct rt_engine_picker *p,
                          const struct rt_provider_spec *spec)
{
    p->spec = spec;
    p->first = malloc((2 * spec->n_symbols + 1) * sizeof *p->first);
    if (!p->first)
        return -1;
    for (size_t k = 0; k < spec->n_symbols; k++)
        for (int h = 0; h < 2; h++)
            p->first[2 * k + (size_t)h] = first_text(spec, &spec->symbols[k],
                                                     h);
    return 0;
}

void rt_engine_picker_free(struct rt_engine_picker *p)
{
    free(p->first);
    p->first = NULL;
}

const char *rt_engine_pick(const struct rt_engine_picker *p, size_t k,
                           const int order[3], int help,
                           char src[RT_LANG_ID_SIZE])
{
    return pick(p->spec, &p->spec->symbols[k], order,
                p->first[2 * k + (size_t)(help != 0)], help, src);
}
