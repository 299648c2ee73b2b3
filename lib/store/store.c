/* Store layer: helpers shared by every backend. */
#include "store/store.h"
#include "model/lang_id.h"

#include <stdlib.h>

void rt_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int rt_is_language_key(const char *name)
{
    return rt_lang_is_id(name);
}

int rt_store_win_files(struct rt_store *s)
{
    return s->ops->has_win_files && s->ops->read_win_file &&
           s->ops->has_win_files(s);
}
