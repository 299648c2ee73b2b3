/* Store layer: helpers shared by every backend. */
#include "store/store.h"

#include "model/lang_id.h"
#include "model/size_caps.h"
#include "platform/os.h"

#include <errno.h>
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

uint64_t rt_store_change_max(struct rt_store *s)
{
    return s->ops->change_max ? s->ops->change_max(s) : 0;
}

int rt_store_owns_file(struct rt_store *s, const char *path)
{
    return s->ops->own_file ? s->ops->own_file(s, path) : 0;
}

int rt_store_read_side_file(const char *path, const char *rel,
                            struct rt_value *out, struct rt_error *e)
{
    uint64_t cap = rt_win_file_max(rel);
    /* rt_os_read_file_max refuses a file over CAP by its size, before a
     * byte is read; the size is looked up only to name it. */
    if (rt_os_read_file_max(path, (size_t)cap, &out->data, &out->len) == 0)
        return 0;
    int err = errno;
    struct rt_os_stat st;
    if (err == EFBIG)
        return rt_size_cap_error(e, path,
                                 rt_os_stat(path, &st) == 0 ? st.size
                                                            : cap + 1,
                                 cap, rt_win_file_kind(rel));
    return rt_error_set(e, err == ENOMEM ? RT_ERR_NOT_ENOUGH_MEMORY
                                         : RT_ERR_ACCESS_DENIED,
                        "%s: %s", path, rt_os_strerror(err));
}

void rt_key_anomalies_free(struct rt_key_anomaly *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].key);
        free(v[i].other);
    }
    free(v);
}
