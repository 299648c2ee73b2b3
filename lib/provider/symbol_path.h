/* INI layer: the symbol file an INI's [info] symbolfile= names, found
 * as lodctr finds it: beside the INI (or in the folder the caller gives),
 * its name matched without regard to ASCII case when only that way
 * matches, as Windows would, and never a file outside that folder (no
 * path in the name, no symbolic link leading elsewhere). */
#ifndef RT_SYMBOL_PATH_H
#define RT_SYMBOL_PATH_H

#include "model/diag.h"

/* The path of the symbol file named VALUE (symbolfile= at LINE of
 * INI_PATH), in SYMBOL_DIR or, when that is NULL, in the INI's folder, as
 * a new string; NULL after an error in D, which says out of memory
 * (D->out_of_memory) when that is why. */
char *rt_symbol_file_locate(const char *ini_path, const char *symbol_dir,
                            unsigned line, const char *value,
                            struct rt_diags *d);

#endif
