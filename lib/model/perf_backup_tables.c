/* Model layer: a PerfStringBackup language's strings and a name table,
 * each into the other (one list by index, as lodctr /S writes it; Counter
 * and Help again, as lodctr /R reads it). */
#include "model/perf_backup.h"

#include <stdlib.h>
#include <string.h>

struct slot {
    uint32_t index;
    size_t order;               /* position in Counter, then Help */
    const struct rt_pair *pair;
};

static int slot_cmp(const void *a, const void *b)
{
    const struct slot *x = a, *y = b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

int rt_psb_merge(const struct rt_name_table *t, struct rt_pair_list *out)
{
    memset(out, 0, sizeof *out);
    size_t n = t->counter.n + t->help.n;
    struct slot *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = 0; i < t->counter.n; i++)
        v[i] = (struct slot){t->counter.v[i].index, i, &t->counter.v[i]};
    for (size_t i = 0; i < t->help.n; i++)
        v[t->counter.n + i] =
            (struct slot){t->help.v[i].index, t->counter.n + i, &t->help.v[i]};
    qsort(v, n, sizeof *v, slot_cmp);
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        /* The last of equal indices wins, as in lodctr's array by index. */
        if (i + 1 < n && v[i + 1].index == v[i].index)
            continue;
        rc = rt_pair_list_append_valid(out, v[i].index, v[i].pair->text,
                                       v[i].pair->text_len);
    }
    free(v);
    if (rc)
        rt_pair_list_free(out);
    return rc;
}

static int is_counter(uint32_t index)
{
    return index == 1 || index % 2 == 0;
}

/* L (emptied) sized for N pairs whose texts take SIZE bytes, NULs
 * included: one block for the texts, not one heap block a pair (a
 * language of a large backup holds hundreds of thousands). */
static int sized(struct rt_pair_list *l, size_t n, size_t size)
{
    memset(l, 0, sizeof *l);
    if (!n)
        return 0;
    l->v = malloc(n * sizeof *l->v);
    l->texts = malloc(sizeof *l->texts + size);
    if (l->texts)
        *l->texts = (struct rt_text_block){NULL, size, size};
    if (!l->v || !l->texts)
        return -1;
    l->cap = n;
    return 0;
}

int rt_psb_split_view(const struct rt_pair_list *strings,
                      struct rt_name_table *out)
{
    size_t n[2] = {0, 0};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < strings->n; i++)
        n[!is_counter(strings->v[i].index)]++;
    struct rt_pair_list *l[2] = {&out->counter, &out->help};
    for (int k = 0; k < 2; k++) {
        l[k]->texts = RT_TEXTS_BORROWED;
        if (n[k] && !(l[k]->v = malloc(n[k] * sizeof *l[k]->v))) {
            rt_name_table_free(out);
            return -1;
        }
        l[k]->cap = n[k];
    }
    for (size_t i = 0; i < strings->n; i++) {
        struct rt_pair_list *to = l[!is_counter(strings->v[i].index)];
        to->v[to->n] = strings->v[i];
        to->v[to->n++].index_raw = NULL;
    }
    return 0;
}

int rt_psb_split(const struct rt_pair_list *strings, struct rt_name_table *out)
{
    size_t n[2] = {0, 0}, size[2] = {0, 0};
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < strings->n; i++) {
        int k = !is_counter(strings->v[i].index);
        n[k]++;
        size[k] += strings->v[i].text_len + 1;
    }
    if (sized(&out->counter, n[0], size[0]) != 0 ||
        sized(&out->help, n[1], size[1]) != 0) {
        rt_name_table_free(out);
        return -1;
    }
    char *at[2] = {out->counter.texts ? out->counter.texts->text : NULL,
                   out->help.texts ? out->help.texts->text : NULL};
    for (size_t i = 0; i < strings->n; i++) {
        const struct rt_pair *p = &strings->v[i];
        int k = !is_counter(p->index);
        struct rt_pair_list *l = k ? &out->help : &out->counter;
        memcpy(at[k], p->text, p->text_len + 1);
        l->v[l->n++] = (struct rt_pair){p->index, p->text_len, at[k], NULL};
        at[k] += p->text_len + 1;
    }
    return 0;
}
