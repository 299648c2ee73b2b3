/* Engine: lodctr /S and /R:file over the database as read (docs/design.md,
 * "The backup store"). */
#include "engine/backup.h"
#include "engine/backup_section.h"

#include <stdlib.h>
#include <string.h>

#include "model/lang_id.h"
#include "model/utf16.h"
#include "platform/progress.h"

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

/* --- backup -------------------------------------------------------------- */

/* Table K of L as a list: decoded, or, with its blob damaged, every
 * valid pair of it (rt_multi_sz_salvage; the strings that could not be
 * read counted in *DROPPED). A database read without pairs (repair's)
 * holds an undamaged table as its bytes only: its pairs are decoded from
 * them, or the backup would hold none of them. */
static int table_list(const struct rt_db_language *l, int k,
                      struct rt_pair_list *dst, size_t *dropped)
{
    const struct rt_pair_list *src = k ? &l->table.help : &l->table.counter;
    const struct rt_table *t = &l->tab[k];
    memset(dst, 0, sizeof *dst);
    *dropped = 0;
    if (l->blob_damage[k].status != RT_MSZ_OK) {
        if (rt_multi_sz_salvage(l->raw[k].data, l->raw[k].len, &dst->v,
                                &dst->n, dropped, NULL) != 0)
            return -1;
        dst->cap = dst->n;
        return 0;
    }
    if (src->n == t->n)
        return rt_pair_list_copy(dst, src);
    /* Fails where the table is held from a splice on only (t->base):
     * the pairs before it are in neither form. */
    return rt_table_pairs(t, dst);
}

static int salvaged_table(const struct rt_db_language *l,
                          struct rt_name_table *t, size_t dropped[2])
{
    memset(t, 0, sizeof *t);
    if (table_list(l, 0, &t->counter, &dropped[0]) == 0 &&
        table_list(l, 1, &t->help, &dropped[1]) == 0)
        return 0;
    rt_name_table_free(t);
    return -1;
}

int rt_engine_backup_head(const struct rt_database *db, struct rt_psb *out,
                          struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    out->has_perflib = out->has_base_index = out->has_last_counter =
        out->has_last_help = 1;
    out->base_index = db->base_index;
    out->last_counter = db->last_counter;
    out->last_help = db->last_help;
    out->services = calloc(db->n_services ? db->n_services : 1,
                           sizeof *out->services);
    if (!out->services)
        goto nomem;
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *si = &db->services[i];
        if (!si->has_range)
            continue;
        /* A section header holds the name on one line up to its ']': a
         * name with a line break, a bracket, a control or a trailing
         * blank would write sections and values of its own into the
         * file, or head another service's section to Windows' reader (a
         * hostile tree's; no service Windows makes has one). Such a
         * service is left out, as one without a range is: the backup,
         * and every writer that keeps PerfStringBackup.INI, go on (audit
         * shows the name, escaped). */
        if (!rt_psb_name_heads_section(si->name))
            continue;
        struct rt_psb_service *s = &out->services[out->n_services];
        if (!(s->name = strdup(si->name)))
            goto nomem;
        out->n_services++;
        s->has_first_counter = 1;
        s->first_counter = si->first_counter;
        s->has_first_help = si->has_first_help;
        s->first_help = si->first_help;
        s->has_last_counter = si->has_last_counter;
        s->last_counter = si->last_counter;
        s->has_last_help = si->has_last_help;
        s->last_help = si->last_help;
        s->has_disable = si->has_disable;
        s->disable = si->disable;
    }
    return 0;
nomem:
    rt_psb_free(out);
    return oom(e);
}

/* Leaves out of L the strings that would not read back as themselves
 * (rt_psb_text_reads_back: a hostile tree's text whose line breaks would
 * start a section or another string); how many on *LEFT_OUT. */
static void leave_out_unreadable(struct rt_pair_list *l, size_t *left_out)
{
    size_t w = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (!rt_psb_text_reads_back(l->v[i].text, l->v[i].text_len)) {
            rt_pair_list_free_pair(l, &l->v[i]);
            (*left_out)++;
            continue;
        }
        l->v[w++] = l->v[i];
    }
    l->n = w;
}

/* rt_engine_backup_language, with the pairs each table gave and the
 * strings a damaged one's salvage dropped. */
static int language_section(const struct rt_db_language *l, int salvage,
                            struct rt_psb_language *out, size_t pairs[2],
                            size_t dropped[2], size_t *left_out,
                            struct rt_error *e)
{
    memset(out, 0, sizeof *out);
    if (l->damaged && !salvage)
        return rt_error_set(
            e, RT_ERR_BADDB,
            "Perflib\\%s\\%s is damaged at byte %zu (%s): a backup "
            "would miss every string after it; nothing was saved",
            l->id, l->damage_in_help ? "Help" : "Counter",
            l->damage.offset, rt_msz_strerror(l->damage.status));
    if (!(out->id = strdup(l->id)))
        return oom(e);
    int r;
    if (!l->damaged && l->table.counter.n == l->tab[0].n &&
        l->table.help.n == l->tab[1].n) {
        /* Decoded whole already: merged as it is, not copied first. */
        r = rt_psb_merge(&l->table, &out->strings);
        pairs[0] = l->tab[0].n;
        pairs[1] = l->tab[1].n;
        dropped[0] = dropped[1] = 0;
    } else {
        struct rt_name_table t;
        r = salvaged_table(l, &t, dropped);
        if (r == 0) {
            pairs[0] = t.counter.n;
            pairs[1] = t.help.n;
            r = rt_psb_merge(&t, &out->strings);
        }
        rt_name_table_free(&t);
    }
    if (r) {
        free(out->id);
        rt_pair_list_free(&out->strings);
        memset(out, 0, sizeof *out);
        return oom(e);
    }
    leave_out_unreadable(&out->strings, left_out);
    return 0;
}

int rt_engine_backup_language(const struct rt_db_language *l, int salvage,
                              struct rt_psb_language *out, struct rt_error *e)
{
    size_t pairs[2], dropped[2], left_out = 0;
    return language_section(l, salvage, out, pairs, dropped, &left_out, e);
}

static int backup(const struct rt_database *db, int salvage,
                  struct rt_psb *out, struct rt_error *e)
{
    if (rt_engine_backup_head(db, out, e) != 0)
        return -1;
    out->langs = calloc(db->n_langs ? db->n_langs : 1, sizeof *out->langs);
    if (!out->langs) {
        rt_psb_free(out);
        return oom(e);
    }
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_db_language *l = &db->langs[i];
        if (rt_lang_is_current(l->id))
            continue;
        if (rt_engine_backup_language(l, salvage, &out->langs[out->n_langs],
                                      e) != 0) {
            rt_psb_free(out);
            return -1;
        }
        out->n_langs++;
    }
    return 0;
}

/* Writes PART (a new buffer, freed here) through the sink. */
static int emit(const struct rt_backup_sink *k, uint8_t *part, size_t len,
                size_t *bytes, struct rt_error *e)
{
    int r = rt_backup_emit(k, part, len, bytes, e);
    free(part);
    return r;
}

/* L's section with its damaged tables salvaged, each told to the sink. */
static int salvaged_part(const struct rt_db_language *l, int salvage,
                         const struct rt_backup_sink *k, size_t *n_damaged,
                         size_t *left_out, uint8_t **part, size_t *len,
                         struct rt_error *e)
{
    struct rt_psb_language pl;
    size_t pairs[2], dropped[2];
    if (language_section(l, salvage, &pl, pairs, dropped, left_out, e) != 0)
        return -1;
    int r = rt_psb_write_language(&pl, part, len) != 0 ? oom(e) : 0;
    free(pl.id);
    rt_pair_list_free(&pl.strings);
    for (int t = 0; t < 2 && r == 0; t++) {
        if (l->blob_damage[t].status == RT_MSZ_OK)
            continue;
        (*n_damaged)++;
        if (k->damaged) {
            struct rt_backup_damage d = {l->id, t ? "Help" : "Counter",
                                         l->blob_damage[t], l->bytes[t],
                                         pairs[t], dropped[t]};
            k->damaged(k->damaged_ctx, &d);
        }
    }
    return r;
}

/* L's tables read from S, their texts decoded only where a damaged table
 * is salvaged. */
static int read_language(struct rt_store *s, const struct rt_db_language *l,
                         struct rt_db_language *read, struct rt_error *e)
{
    if (rt_database_read_language(s, l, 0, read, e) != 0)
        return -1;
    if (!read->damaged)
        return 0;
    rt_database_unload_language(read);
    return rt_database_read_language(s, l, 1, read, e);
}

/* L's section through O: from its tables' UTF-16 as they lie, or, with
 * a table damaged (or held from a splice on), as its pairs decoded. */
static int language_out(const struct rt_db_language *l, int salvage,
                        struct rt_backup_out *o,
                        struct rt_backup_stats *stats, struct rt_error *e)
{
    if (!l->damaged && !l->tab[0].base && !l->tab[1].base)
        return rt_backup_write_section(l, o, &stats->left_out, e);
    uint8_t *part;
    size_t len;
    if (salvaged_part(l, salvage, o->k, &stats->n_damaged, &stats->left_out,
                      &part, &len, e) != 0)
        return -1;
    return emit(o->k, part, len, o->bytes, e);
}

int rt_engine_backup_to(struct rt_store *s, const struct rt_database *db,
                        int salvage, const struct rt_backup_sink *k,
                        struct rt_backup_stats *stats, struct rt_error *e)
{
    struct rt_psb head;
    uint8_t *part;
    size_t len;
    memset(stats, 0, sizeof *stats);
    if (rt_engine_backup_head(db, &head, e) != 0)
        return -1;
    int r = rt_psb_write_head(&head, &part, &len);
    stats->n_services = head.n_services;
    rt_psb_free(&head);
    if (r != 0)
        return oom(e);
    if (emit(k, part, len, &stats->bytes, e) != 0)
        return -1;
    /* Every language's section goes through this one buffer. */
    struct rt_backup_out o = {k, malloc(RT_BACKUP_PIECE), 0, &stats->bytes};
    if (!o.buf)
        return oom(e);
    for (size_t i = 0; i < db->n_langs && r == 0; i++) {
        const struct rt_db_language *l = &db->langs[i];
        struct rt_db_language read;
        if (rt_backup_interrupted(e)) {
            r = -1;
            break;
        }
        if (rt_lang_is_current(l->id))
            continue;
        rt_progress_report("saving languages", i, db->n_langs);
        /* Read here, freed once written: one language at a time. */
        int here = !l->loaded;
        if (here) {
            if (read_language(s, l, &read, e) != 0) {
                r = -1;
                break;
            }
            l = &read;
        }
        r = language_out(l, salvage, &o, stats, e);
        if (here)
            rt_database_unload_language(&read);
        if (r == 0)
            stats->n_langs++;
    }
    free(o.buf);
    return r != 0 ? -1 : rt_backup_interrupted(e);
}

int rt_engine_backup_stream(struct rt_store *s, const struct rt_database *db,
                            int salvage,
                            int (*write)(void *ctx, const uint8_t *data,
                                         size_t len),
                            void *ctx, struct rt_backup_stats *stats,
                            struct rt_error *e)
{
    const struct rt_backup_sink k = {write, ctx, NULL, NULL};
    return rt_engine_backup_to(s, db, salvage, &k, stats, e);
}

int rt_engine_backup(const struct rt_database *db, struct rt_psb *out,
                     struct rt_error *e)
{
    return backup(db, 0, out, e);
}

int rt_engine_backup_salvaged(const struct rt_database *db, struct rt_psb *out,
                              struct rt_error *e)
{
    return backup(db, 1, out, e);
}

/* --- restore ------------------------------------------------------------- */

void rt_restore_plan_free(struct rt_restore_plan *p)
{
    for (size_t i = 0; i < p->n_langs; i++) {
        free(p->langs[i].id);
        free(p->langs[i].section);
    }
    free(p->langs);
    for (size_t i = 0; i < p->n_services; i++)
        free(p->services[i].name);
    free(p->services);
    free(p->extra_langs);
    free(p->extra_services);
    for (size_t i = 0; i < p->n_unnamed; i++)
        free(p->unnamed[i]);
    free(p->unnamed);
    memset(p, 0, sizeof *p);
}

/* A base pair (index 1 to Base Index) and where it is in its list. */
struct base_pos {
    uint32_t index;
    size_t pos;
};

static int cmp_base_pos(const void *x, const void *y)
{
    const struct base_pos *a = x, *b = y;
    if (a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* Sorted, then merged: O(n log n). */
int rt_engine_compare_base(const struct rt_table *t,
                           const struct rt_pair_list *p, uint32_t base,
                           struct rt_base_texts *out)
{
    struct base_pos *a = malloc((t->n ? t->n : 1) * sizeof *a);
    struct base_pos *b = malloc((p->n ? p->n : 1) * sizeof *b);
    size_t na = 0, nb = 0;
    int rc = a && b ? 0 : -1;
    for (size_t i = 0; i < t->n && !rc; i++)
        if (t->v[i].index <= base)
            a[na++] = (struct base_pos){t->v[i].index, i};
    for (size_t i = 0; i < p->n && !rc; i++)
        if (p->v[i].index <= base)
            b[nb++] = (struct base_pos){p->v[i].index, i};
    if (!rc) {
        qsort(a, na, sizeof *a, cmp_base_pos);
        qsort(b, nb, sizeof *b, cmp_base_pos);
    }
    size_t i = 0, j = 0;
    while (!rc && i < na && j < nb) {
        uint32_t ix = a[i].index;
        if (ix != b[j].index) {
            if (ix < b[j].index)
                i++;
            else
                j++;
            continue;
        }
        const struct rt_msz_entry *x = &t->v[a[i].pos];
        const struct rt_pair *q = &p->v[b[j].pos];
        const uint8_t *stored = rt_table_at(t, x->text);
        uint8_t *u16 = NULL;
        size_t u16_len = 0;
        if (stored) {
            if (rt_utf8_to_utf16le(q->text, q->text_len, &u16, &u16_len,
                                   NULL) != 0) {
                rc = -1;
                break;
            }
            out->compared++;
            if (u16_len != x->text_bytes ||
                (u16_len && memcmp(u16, stored, u16_len))) {
                if (!out->differ || ix < out->first_differ)
                    out->first_differ = ix;
                out->differ++;
            }
            free(u16);
        }
        /* The first pair of the index only. */
        while (i < na && a[i].index == ix)
            i++;
        while (j < nb && b[j].index == ix)
            j++;
    }
    free(a);
    free(b);
    return rc;
}

/* Plans L's tables from SEC's strings, comparing their base texts (1 to
 * BASE). *AT: where each changed table's splice starts (its length when
 * it is replaced whole). */
static int restore_language(const struct rt_db_language *l,
                            const struct rt_psb_language *sec, uint32_t base,
                            struct rt_change_set *cs,
                            struct rt_restore_language *rl, size_t at[2],
                            struct rt_error *e)
{
    struct rt_name_table t;
    if (rt_psb_split_view(&sec->strings, &t) != 0)
        return oom(e);
    rl->names_after = t.counter.n;
    rl->helps_after = t.help.n;
    int rc = -1, changed[2];
    struct rt_base_texts b = {0};
    if (rt_engine_compare_base(&l->tab[RT_TABLE_COUNTER], &t.counter, base,
                               &b) != 0 ||
        rt_engine_compare_base(&l->tab[RT_TABLE_HELP], &t.help, base,
                               &b) != 0 ||
        rt_db_replace_changed_tables(l, &t, cs, changed, at) != 0) {
        oom(e);
        goto out;
    }
    rl->base_compared = b.compared;
    rl->base_differ = b.differ;
    rl->base_first_differ = b.first_differ;
    rl->counter_changed = changed[0];
    rl->help_changed = changed[1];
    rc = 0;
out:
    rt_name_table_free(&t);
    return rc;
}

/* Moves into KEEP (a language listed without tables) the tables of READ
 * that a splice starting at AT[k] changes, keeping only their bytes from
 * there on; whatever else READ holds is freed. */
static int keep_spliced(struct rt_db_language *read, const size_t at[2],
                        const int changed[2], struct rt_db_language *keep)
{
    int r = 0;
    keep->has_counter = read->has_counter;
    keep->has_help = read->has_help;
    for (int k = 0; k < 2 && !r; k++) {
        if (!changed[k] || at[k] >= read->tab[k].len)
            continue;
        r = rt_table_keep_from(&read->tab[k], at[k]);
        keep->tab[k] = read->tab[k];
        keep->type[k] = read->type[k];
        keep->bytes[k] = read->bytes[k];
        memset(&read->tab[k], 0, sizeof read->tab[k]);
    }
    rt_database_unload_language(read);
    return r;
}

/* Sets NAME to V unless the service already holds it. */
static int set_value(struct rt_change_set *cs, const char *svc,
                     const char *name, int had, uint32_t old, uint32_t v,
                     size_t *changed)
{
    if (had && old == v)
        return 0;
    (*changed)++;
    return rt_change_set_dword(cs, svc, name, v);
}

static int delete_value(struct rt_change_set *cs, const char *svc,
                        const char *name, int had, size_t *changed)
{
    if (!had)
        return 0;
    (*changed)++;
    return rt_change_set_delete_service(cs, svc, name);
}

static int restore_service(const struct rt_service_info *si,
                           const struct rt_psb_service *sec,
                           struct rt_change_set *cs,
                           struct rt_restore_service *rs)
{
    const char *n = si->name;
    rs->had_range = si->has_range;
    int complete = sec && sec->has_first_counter && sec->has_first_help &&
                   sec->has_last_counter && sec->has_last_help;
    int r = 0;
    if (complete) {
        rs->action = RT_RESTORE_SET;
        rs->first_counter = sec->first_counter;
        rs->last_counter = sec->last_counter;
        rs->first_help = sec->first_help;
        rs->last_help = sec->last_help;
        r = set_value(cs, n, "First Counter", si->has_range,
                      si->first_counter, sec->first_counter,
                      &rs->values_changed) ||
            set_value(cs, n, "First Help", si->has_first_help, si->first_help,
                      sec->first_help, &rs->values_changed) ||
            set_value(cs, n, "Last Counter", si->has_last_counter,
                      si->last_counter, sec->last_counter,
                      &rs->values_changed) ||
            set_value(cs, n, "Last Help", si->has_last_help, si->last_help,
                      sec->last_help, &rs->values_changed);
    } else {
        /* lodctr deletes the four when any is missing from the file. */
        rs->action = RT_RESTORE_DELETE;
        r = delete_value(cs, n, "First Counter", si->has_range,
                         &rs->values_changed) ||
            delete_value(cs, n, "First Help", si->has_first_help,
                         &rs->values_changed) ||
            delete_value(cs, n, "Last Counter", si->has_last_counter,
                         &rs->values_changed) ||
            delete_value(cs, n, "Last Help", si->has_last_help,
                         &rs->values_changed);
    }
    if (r || !sec)
        return r;
    /* regtool's difference: the saved Disable Performance Counters comes
     * back too (Windows saves it and does not restore it). */
    size_t d = 0;
    rs->has_disable = sec->has_disable;
    rs->disable = sec->disable;
    if (sec->has_disable)
        r = set_value(cs, n, "Disable Performance Counters", si->has_disable,
                      si->disable, sec->disable, &d);
    else
        r = delete_value(cs, n, "Disable Performance Counters",
                         si->has_disable, &d);
    rs->disable_changed = d > 0;
    return r;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

/* The services of PLAN whose range the file sets but whose First Counter
 * no language of the file names, in the store's order, into
 * PLAN->unnamed. Their First Counters are sorted once (each kept once)
 * and each string of the file looked up among them: a scan of every
 * language's strings for each service was O(services x strings), 18 s
 * for 10,000 services and 600,000 strings (hostile_scale.sh, 5b). 0,
 * or -1 when out of memory. */
static int note_unnamed(const struct rt_psb *psb,
                        struct rt_restore_plan *plan)
{
    size_t n = 0;
    uint32_t *first = malloc((plan->n_services ? plan->n_services : 1) *
                             sizeof *first);
    if (!first)
        return -1;
    for (size_t i = 0; i < plan->n_services; i++)
        if (plan->services[i].action == RT_RESTORE_SET)
            first[n++] = plan->services[i].first_counter;
    qsort(first, n, sizeof *first, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (!u || first[i] != first[u - 1])
            first[u++] = first[i];
    unsigned char *named = calloc(u ? u : 1, 1);
    if (!named) {
        free(first);
        return -1;
    }
    for (size_t k = 0; k < psb->n_langs && u; k++) {
        const struct rt_pair_list *l = &psb->langs[k].strings;
        for (size_t j = 0; j < l->n; j++) {
            const uint32_t *at =
                bsearch(&l->v[j].index, first, u, sizeof *first, cmp_u32);
            if (at)
                named[at - first] = 1;
        }
    }
    int rc = 0;
    for (size_t i = 0; i < plan->n_services && !rc; i++) {
        const struct rt_restore_service *rs = &plan->services[i];
        if (rs->action != RT_RESTORE_SET)
            continue;
        const uint32_t *at = bsearch(&rs->first_counter, first, u,
                                     sizeof *first, cmp_u32);
        if (!named[at - first] &&
            !(plan->unnamed[plan->n_unnamed++] = strdup(rs->name)))
            rc = -1;
    }
    free(named);
    free(first);
    return rc;
}

static int perflib_value(struct rt_change_set *cs,
                         struct rt_restore_perflib *p, const char *name,
                         int in_file, uint32_t v, int had, uint32_t old)
{
    p->name = name;
    p->in_file = in_file;
    p->had = had;
    p->old_value = old;
    p->new_value = in_file ? v : old;
    if (!in_file || (had && old == v))
        return 0;
    return rt_change_set_dword(cs, NULL, name, v);
}

/* The file checked against the store before anything is planned: a
 * complete backup ([Perflib] with Last Counter and Last Help) with
 * strings for at least one of DB's languages, and no section that would
 * write a table audit calls damaged or empty one. 0, or -1 with E. */
static int check_backup(const struct rt_database *db,
                        const struct rt_psb *psb, struct rt_error *e)
{
    if (!psb->has_perflib || !psb->has_last_counter || !psb->has_last_help)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "the file has no [Perflib] section with Last "
                            "Counter and Last Help: it is no complete backup; "
                            "nothing was changed");
    size_t matched = 0;
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_psb_language *sec =
            rt_psb_language_find(psb, db->langs[i].id);
        if (!sec)
            continue;
        if (!sec->strings.n)
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "line %u: [PerfStrings_%s] holds no strings: "
                                "restoring it would empty the tables of "
                                "language %s; nothing was changed",
                                sec->line, sec->id, db->langs[i].id);
        /* A backup holds each index once (lodctr /S writes a table
         * sorted by index); restoring one that repeats an index would
         * write a table audit calls damaged (duplicate-index). */
        struct rt_duplicate *dup = NULL;
        size_t nd = rt_pair_list_duplicates(&sec->strings, &dup);
        if (nd == (size_t)-1)
            return oom(e);
        if (nd) {
            uint32_t ix = dup[0].index;
            free(dup);
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "line %u: [PerfStrings_%s] has index %u "
                                "twice: restoring it would write a table "
                                "with a duplicate index; nothing was "
                                "changed", sec->line, sec->id, (unsigned)ix);
        }
        /* Nor may it empty one of the two tables: a section of names
         * only (or help only) is as damaging as an empty one. */
        size_t names = 0;
        for (size_t k = 0; k < sec->strings.n; k++) {
            uint32_t ix = sec->strings.v[k].index;
            names += ix == 1 || ix % 2 == 0;
        }
        if (!names || names == sec->strings.n)
            return rt_error_set(e, RT_ERR_INVALID_DATA,
                                "line %u: [PerfStrings_%s] holds no %s: "
                                "restoring it would empty the %s table of "
                                "language %s; nothing was changed",
                                sec->line, sec->id,
                                names ? "help texts (odd indices)"
                                      : "names (even indices)",
                                names ? "Help" : "Counter", db->langs[i].id);
        matched++;
    }
    if (!matched)
        return rt_error_set(e, RT_ERR_INVALID_DATA,
                            "the file has strings for none of the "
                            "database's languages; nothing was changed");
    return 0;
}

/* Both: KEEP is DB where languages are read from S here (and keep what
 * their splices need), NULL where DB holds every table. */
static int restore(struct rt_store *s, const struct rt_database *db,
                   struct rt_database *keep, const struct rt_psb *psb,
                   struct rt_change_set *cs, struct rt_restore_plan *plan,
                   struct rt_error *e)
{
    memset(plan, 0, sizeof *plan);
    memset(cs, 0, sizeof *cs);
    if (check_backup(db, psb, e) != 0)
        return -1;

    plan->services = calloc(db->n_services ? db->n_services : 1,
                            sizeof *plan->services);
    plan->langs = calloc(db->n_langs ? db->n_langs : 1, sizeof *plan->langs);
    plan->extra_langs = calloc(psb->n_langs ? psb->n_langs : 1,
                               sizeof *plan->extra_langs);
    plan->extra_services = calloc(psb->n_services ? psb->n_services : 1,
                                  sizeof *plan->extra_services);
    plan->unnamed = calloc(psb->n_services ? psb->n_services : 1,
                           sizeof *plan->unnamed);
    if (!plan->services || !plan->langs || !plan->extra_langs ||
        !plan->extra_services || !plan->unnamed)
        goto nomem;

    /* Services, in the store's order, as lodctr goes through them. */
    for (size_t i = 0; i < db->n_services; i++) {
        const struct rt_service_info *si = &db->services[i];
        const struct rt_psb_service *sec = rt_psb_service_find(psb, si->name);
        struct rt_restore_service *rs = &plan->services[i];
        if (!(rs->name = strdup(si->name)))
            goto nomem;
        plan->n_services++;
        rs->line = sec ? sec->line : 0;
        if (restore_service(si, sec, cs, rs) != 0)
            goto nomem;
    }
    if (note_unnamed(psb, plan) != 0)
        goto nomem;
    for (size_t i = 0; i < psb->n_services; i++)
        if (!rt_database_service(db, psb->services[i].name))
            plan->extra_services[plan->n_extra_services++] = &psb->services[i];

    /* Then every language's tables: where DB does not hold them, read
     * from S one language at a time (pairs only where a section replaces
     * them) and freed before the next. */
    for (size_t i = 0; i < db->n_langs; i++) {
        const struct rt_db_language *l = &db->langs[i];
        const struct rt_psb_language *sec = rt_psb_language_find(psb, l->id);
        struct rt_restore_language *rl = &plan->langs[i];
        struct rt_db_language read;
        rt_progress_report("comparing languages", i, db->n_langs);
        if (!(rl->id = strdup(l->id)))
            goto nomem;
        plan->n_langs++;
        int here = s && keep && !l->loaded;
        if (here) {
            if (rt_database_read_language(s, l, 0, &read, e) != 0)
                goto fail;
            l = &read;
        }
        /* Every pair indexed (tab) is a pair decoded (table). */
        rl->names_before = rl->names_after = l->tab[RT_TABLE_COUNTER].n;
        rl->helps_before = rl->helps_after = l->tab[RT_TABLE_HELP].n;
        int r = 0;
        size_t at[2] = {0, 0};
        if (sec) {
            rl->line = sec->line;
            r = !(rl->section = strdup(sec->id))
                    ? oom(e)
                    : restore_language(l, sec, db->base_index, cs, rl, at,
                                       e);
            plan->base_compared += rl->base_compared;
            plan->base_differ += rl->base_differ;
        }
        int changed[2] = {rl->counter_changed, rl->help_changed};
        if (here && keep_spliced(&read, at, changed, &keep->langs[i]) != 0 &&
            r == 0)
            r = oom(e);
        if (r != 0)
            goto fail;
    }
    for (size_t i = 0; i < psb->n_langs; i++)
        if (!rt_database_language(db, psb->langs[i].id))
            plan->extra_langs[plan->n_extra_langs++] = &psb->langs[i];

    /* Then Perflib's values. */
    if (perflib_value(cs, &plan->perflib[0], "Last Counter",
                      psb->has_last_counter, psb->last_counter,
                      db->has_last_counter, db->last_counter) ||
        perflib_value(cs, &plan->perflib[1], "Last Help", psb->has_last_help,
                      psb->last_help, db->has_last_help, db->last_help) ||
        perflib_value(cs, &plan->perflib[2], "Base Index",
                      psb->has_base_index, psb->base_index,
                      db->has_base_index, db->base_index))
        goto nomem;
    return 0;
nomem:
    oom(e);
fail:
    rt_change_set_free(cs);
    rt_restore_plan_free(plan);
    return -1;
}

int rt_engine_restore(const struct rt_database *db, const struct rt_psb *psb,
                      struct rt_change_set *cs, struct rt_restore_plan *plan,
                      struct rt_error *e)
{
    return restore(NULL, db, NULL, psb, cs, plan, e);
}

int rt_engine_restore_from(struct rt_store *s, struct rt_database *db,
                           const struct rt_psb *psb, struct rt_change_set *cs,
                           struct rt_restore_plan *plan, struct rt_error *e)
{
    return restore(s, db, db, psb, cs, plan, e);
}
