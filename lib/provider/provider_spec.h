/* INI layer, public model: a performance-counter provider as a lodctr INI
 * file and its symbol file describe it, validated (docs/design.md, "The
 * lodctr input").
 *
 * The loader reads and checks everything and reports every problem in one
 * pass; the spec it fills is plain data, so that the install engine never
 * touches a file or meets an unchecked value. */
#ifndef RT_PROVIDER_SPEC_H
#define RT_PROVIDER_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/diag.h"
#include "model/error.h"
#include "model/lang_id.h"

/* A performance-counter language: three or four upper-case hex digits
 * ("009", "0804"), or CurrentLanguage (model/lang_id.h). */
struct rt_provider_language {
    char id[RT_LANG_ID_SIZE];
    unsigned line;          /* its [languages] line */
};

/* A symbol's text in one language, LANG: NAME or HELP is NULL when the INI
 * has no such key (line 0), never both. Text is UTF-8 as the profile API
 * gives it to lodctr: as written after the '=', blanks at both ends
 * dropped (a warning says so); a tab inside is kept (a warning too), no
 * other control character ever. */
struct rt_provider_text {
    char *name;
    char *help;
    unsigned name_line, help_line;
    unsigned lang;          /* index in rt_provider_spec.languages */
};

/* An object or counter. */
struct rt_provider_symbol {
    char *symbol;           /* as the first INI key naming it spells it */
    long offset;            /* even, >= 0, unique within the provider */
    unsigned define_line;   /* its #define in the symbol file */
    bool is_object;         /* listed in [objects] */
    unsigned object_line;   /* that [objects] line; 0 for a counter */
    unsigned first_line;    /* first INI line naming it */
    /* Its texts, one for each language it has [text] keys in, by
     * ascending lang: they cost by the keys, not by the languages listed
     * (an INI may list 4,096). rt_provider_symbol_text finds one. */
    struct rt_provider_text *text;
    size_t n_text;
};

struct rt_provider_spec {
    char *ini_path;         /* as given to the loader */
    char *symbol_path;      /* the symbol file that was read */
    char *drivername;       /* the Services subkey name */
    char *symbolfile;       /* the [info] value, a bare file name */
    unsigned drivername_line, symbolfile_line;
    bool trusted;           /* [info] has a trusted key */
    struct rt_provider_language *languages;     /* in INI order */
    size_t n_languages;
    struct rt_provider_symbol *symbols;         /* by ascending offset */
    size_t n_symbols;
    /* NULL: every NAME and HELP text is a string of its own (a spec built
     * by hand). Else the loader's decoded INI, in which they all lie (a
     * big INI's texts are then not copied one by one); freed with it. */
    char *text_pool;
    /* NULL (a spec built by hand: rt_provider_spec_language scans), or
     * the languages' positions sorted by their value (CurrentLanguage
     * last, ties in INI order), N_LANG_INDEX of them: a tree of
     * thousands of languages looks each up in an INI listing thousands. */
    struct rt_lang_pos *lang_index;
    size_t n_lang_index;
};

/* Loads and validates the INI at INI_PATH (CODEPAGE as rt_ini_decode: the
 * ANSI code page of a file without byte-order mark, or NULL) and its
 * symbol file, which must be in the INI's directory. Every error and
 * warning goes to D with its file, line and symbol. What Windows' lodctr
 * loads loads, with lodctr's result: a [text] key whose symbol the symbol
 * file lacks or whose language [languages] lacks, an [objects] entry
 * without text and a line without '=' are skipped with a warning; only
 * what would damage the tables is an error (docs/reference.md, "What lodctr loads"). Returns 0 when the
 * provider is valid (warnings possible) and fills *SPEC; -1 when there
 * are errors; -2 when the INI cannot be read at all. On failure *SPEC is
 * left empty (safe to free). */
int rt_provider_spec_load(const char *ini_path, const char *codepage,
                          struct rt_provider_spec *spec, struct rt_diags *d);

/* The same, with the symbol file in SYMBOL_DIR instead of the INI's
 * directory: Windows keeps a provider's INF copy as INF\<service>\<LLLL>\
 * <ini> with the symbol file in INF\<service> (docs/design.md, "Rebuilding:
 * lodctr /R"). */
int rt_provider_spec_load_in(const char *ini_path, const char *symbol_dir,
                             const char *codepage,
                             struct rt_provider_spec *spec, struct rt_diags *d);

void rt_provider_spec_free(struct rt_provider_spec *spec);

/* SYM's text in language LANG (an index in the spec's languages), or NULL
 * when it has none there. */
const struct rt_provider_text *
rt_provider_symbol_text(const struct rt_provider_symbol *sym, size_t lang);

/* Makes SPEC's lang_index (the loader does, once the languages are
 * known): 0, or -1 out of memory (SPEC then scans, as one built by hand). */
int rt_provider_spec_index_languages(struct rt_provider_spec *spec);

/* Index of language ID ("009" or "CurrentLanguage", any case) in
 * SPEC->languages, or -1. */
int rt_provider_spec_language(const struct rt_provider_spec *spec,
                              const char *id);

/* The provider's own files as given to install, read whole: what its INF
 * copy holds (engine/side_files.h). The names point into the spec. */
struct rt_inf_files {
    const char *ini_name;       /* PerfIniFile: the INI's file name */
    uint8_t *ini;
    size_t ini_len;
    const char *sym_name;       /* the symbol file's name as on disk */
    uint8_t *sym;
    size_t sym_len;
};

/* rt_provider_spec_load_in, keeping in *FILES the INI's and the symbol
 * file's bytes as they were read and validated, each file read once:
 * what the INF copy holds is what was checked, whatever takes the files'
 * places meanwhile. FILES NULL: as rt_provider_spec_load_in. On success
 * the caller frees *FILES (rt_inf_files_free); on failure it is empty. */
int rt_provider_spec_load_files(const char *ini_path, const char *symbol_dir,
                                const char *codepage,
                                struct rt_provider_spec *spec,
                                struct rt_inf_files *files,
                                struct rt_diags *d);
void rt_inf_files_free(struct rt_inf_files *f);

#endif
