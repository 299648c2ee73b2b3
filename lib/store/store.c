/* Store layer: helpers shared by every backend. */
#include "store/store.h"

#include "model/lang_id.h"

#include <stdlib.h>
#include <string.h>

void rt_strings_free(char **v, size_t n)
{
    /* A failed list may leave a count with no array: nothing to free. */
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int rt_is_language_key(const char *name)
{
    return rt_lang_is_id(name);
}

void rt_table_pieces_free(struct rt_table_pieces *p)
{
    free(p->piece);
    free(p->len);
    memset(p, 0, sizeof *p);
}

int rt_store_win_files(struct rt_store *s)
{
    return s->ops->has_win_files && s->ops->read_win_file &&
           s->ops->has_win_files(s);
}

void rt_key_anomalies_free(struct rt_key_anomaly *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].other);
    }
    free(v);
}
