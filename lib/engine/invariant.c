/* Engine: the invariant every table change must keep, checked before any
 * commit whatever the store: the table after the change is the table
 * before, plus exactly the pairs the change adds, minus exactly the pairs
 * it removes. Pure: the caller reads the table as the store holds it (the
 * place the bytes will go, not the database as loaded), so a change set
 * computed from the wrong database (a user's hive given as SOFTWARE, a
 * language whose tables were not found) cannot replace a real table. */
#include "engine/engine.h"

#include <stdlib.h>
#include <string.h>

static int pair_cmp(const void *a, const void *b)
{
    const struct rt_pair *x = *(const struct rt_pair *const *)a;
    const struct rt_pair *y = *(const struct rt_pair *const *)b;
    if (x->index != y->index)
        return x->index < y->index ? -1 : 1;
    return strcmp(x->text, y->text);
}

static const char *table_name(const struct rt_change *c)
{
    return c->table == RT_TABLE_HELP ? "Help" : "Counter";
}

int rt_engine_check_table_change(const struct rt_change *c,
                                 const struct rt_value *before, int present,
                                 struct rt_error *e)
{
    struct rt_pair *old = NULL, *now = NULL;
    size_t n_old = 0, n_now = 0;
    struct rt_msz_error me;
    int rc = -1;
    const struct rt_pair **want = NULL, **got = NULL;
    char *removed_used = NULL;
    if (c->replace) {
        /* A whole replacement: the table must be the one it was computed
         * from, and the new one well-formed. */
        if (!present != !c->before_present ||
            (present && (before->len != c->before_len ||
                         rt_blob_hash(before->data, before->len) !=
                             c->before_hash))) {
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: Perflib\\%s\\%s is not the "
                                "table the change was computed from; it was "
                                "refused and nothing was written",
                                c->lang, table_name(c));
        }
        if (rt_multi_sz_decode(c->value.data, c->value.len, 0, &now, &n_now,
                               &me)) {
            return rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                                "internal error: the new Perflib\\%s\\%s is "
                                "malformed (%s at byte %zu); the change was "
                                "refused and nothing was written",
                                c->lang, table_name(c),
                                rt_msz_strerror(me.status), me.offset);
        }
        rt_pairs_free(now, n_now);
        return 0;
    }
    if (present && before->len &&
        rt_multi_sz_decode(before->data, before->len, 0, &old, &n_old, &me)) {
        rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                     "internal error: Perflib\\%s\\%s cannot be decoded "
                     "(%s at byte %zu) though it was checked; nothing was "
                     "written",
                     c->lang, table_name(c), rt_msz_strerror(me.status),
                     me.offset);
        goto out;
    }
    if (rt_multi_sz_decode(c->value.data, c->value.len, 0, &now, &n_now, &me)) {
        rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                     "internal error: the new Perflib\\%s\\%s is malformed "
                     "(%s at byte %zu); the change was refused and nothing "
                     "was written",
                     c->lang, table_name(c), rt_msz_strerror(me.status),
                     me.offset);
        goto out;
    }
    want = malloc((n_old + c->added.n + 1) * sizeof *want);
    got = malloc((n_now + 1) * sizeof *got);
    removed_used = calloc(c->removed.n + 1, 1);
    if (!want || !got || !removed_used) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
        goto out;
    }
    /* Before, minus each removed pair once (it must be there). */
    size_t n_want = 0;
    for (size_t i = 0; i < n_old; i++) {
        size_t k = 0;
        while (k < c->removed.n &&
               (removed_used[k] || c->removed.v[k].index != old[i].index ||
                strcmp(c->removed.v[k].text, old[i].text)))
            k++;
        if (k < c->removed.n)
            removed_used[k] = 1;
        else
            want[n_want++] = &old[i];
    }
    for (size_t k = 0; k < c->removed.n; k++)
        if (!removed_used[k]) {
            rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                         "internal error: the change set removes pair %u "
                         "from Perflib\\%s\\%s, which the table as stored "
                         "does not hold; it was refused and nothing was "
                         "written",
                         c->removed.v[k].index, c->lang, table_name(c));
            goto out;
        }
    for (size_t i = 0; i < c->added.n; i++)
        want[n_want++] = &c->added.v[i];
    for (size_t i = 0; i < n_now; i++)
        got[i] = &now[i];
    qsort(want, n_want, sizeof *want, pair_cmp);
    qsort(got, n_now, sizeof *got, pair_cmp);
    size_t i = 0;
    while (i < n_want && i < n_now && !pair_cmp(&want[i], &got[i]))
        i++;
    if (i < n_want || i < n_now) {
        int extra = i < n_now && (i == n_want || pair_cmp(&got[i], &want[i]) < 0);
        const struct rt_pair *p = extra ? got[i] : want[i];
        rt_error_set(e, RT_ERR_INTERNAL_ERROR,
                     "internal error: the change set would leave %zu pairs "
                     "in Perflib\\%s\\%s, not the %zu stored plus the %zu it "
                     "adds minus the %zu it removes (first difference at "
                     "index %u, %s); it was refused and nothing was written",
                     n_now, c->lang, table_name(c), n_old, c->added.n,
                     c->removed.n, p->index,
                     extra ? "a pair it should not hold"
                               : "a pair it should hold");
        goto out;
    }
    rc = 0;
out:
    free(want);
    free(got);
    free(removed_used);
    rt_pairs_free(old, n_old);
    rt_pairs_free(now, n_now);
    return rc;
}
