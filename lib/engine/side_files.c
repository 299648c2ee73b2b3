/* Engine and operations: the INF copies and PerfStringBackup.INI kept
 * beside the database (engine/side_files.h). */
#include "engine/side_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/backup.h"
#include "engine/overlay.h"
#include "model/lang_id.h"
#include "model/perf_backup.h"
#include "model/printable.h"
#include "model/strbuf.h"
#include "provider/ini_reader.h"

static int oom(struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "out of memory");
}

int rt_inf_folder(const char *lang, char out[8])
{
    unsigned v;
    if (rt_lang_is_current(lang) || rt_lang_value(lang, &v) != 0)
        return -1;
    snprintf(out, 8, "%04X", v & 0xffffu);
    return 0;
}

void rt_side_name_shown(const char *name, char *out, size_t size)
{
    size_t k = 0, used;
    if (!size)
        return;
    for (const char *p = name; *p; p += used) {
        char one[RT_PRINTABLE_MAX];
        size_t n;
        /* The name is shown between quotes: its own quote is escaped. */
        if (*p == '\'') {
            memcpy(one, "\\x27", 4);
            n = 4;
            used = 1;
        } else {
            n = rt_printable_char(p, one, &used);
        }
        if (k + n + 4 > size) {
            snprintf(out + k, size - k, "...");
            return;
        }
        memcpy(out + k, one, n);
        k += n;
    }
    out[k] = '\0';
}

char *rt_inf_path(const char *service, const char *folder, const char *name)
{
    char *p = NULL;
    if (asprintf(&p, "INF/%s/%s/%s", service, folder, name) < 0)
        return NULL;
    return p;
}

/* Whether CS already changes the file REL (Windows names ignore case). */
static int changes_file(const struct rt_change_set *cs, const char *rel)
{
    for (size_t i = 0; i < cs->n; i++)
        if ((cs->v[i].op == RT_CHANGE_WRITE_FILE ||
             cs->v[i].op == RT_CHANGE_DELETE_FILE) &&
            !strcasecmp(cs->v[i].name, rel))
            return 1;
    return 0;
}

static int write_pair(const char *service, const char *folder,
                      const struct rt_inf_files *f, struct rt_change_set *cs)
{
    char *ini = rt_inf_path(service, folder, f->ini_name);
    char *sym = rt_inf_path(service, folder, f->sym_name);
    int r = !ini || !sym ||
            (!changes_file(cs, ini) &&
             rt_change_set_write_file(cs, ini, f->ini, f->ini_len)) ||
            (!changes_file(cs, sym) &&
             rt_change_set_write_file(cs, sym, f->sym, f->sym_len));
    free(ini);
    free(sym);
    return r ? -1 : 0;
}

int rt_side_inf_copy(const struct rt_database *db,
                     const struct rt_provider_spec *spec,
                     struct rt_inf_files *f, struct rt_change_set *cs,
                     struct rt_error *e)
{
    /* One copy: the INI holds every language's text, and a rebuild
     * reads it for all of them. English's folder when the INI has
     * English, else the first of its languages the machine has, else its
     * first language with digits. */
    char folder[8] = "";
    if (rt_provider_spec_language(spec, "009") >= 0)
        snprintf(folder, sizeof folder, "0009");
    for (int pass = 0; pass < 2 && !*folder; pass++)
        for (size_t i = 0; i < spec->n_languages && !*folder; i++) {
            const char *id = spec->languages[i].id;
            if ((pass == 0 && !rt_database_language(db, id)) ||
                rt_inf_folder(id, folder) != 0)
                folder[0] = '\0';
        }
    if (*folder && write_pair(spec->drivername, folder, f, cs) != 0)
        return oom(e);
    /* The change set holds the bytes now: a big INI is not held once
     * more until the commit is done. */
    free(f->ini);
    free(f->sym);
    f->ini = f->sym = NULL;
    f->ini_len = f->sym_len = 0;
    return 0;
}

/* The symbolfile= of an INI's [info], from its bytes, in *NAME: NULL
 * when it has none or does not read. 0, or -1 out of memory (which is
 * not an INI without one: its symbol file would be left behind). */
struct find_sym {
    char *value;
    struct rt_diags *d;
};

static void on_entry(void *user, const struct rt_ini_entry *en)
{
    struct find_sym *f = user;
    if (!f->value && !strcasecmp(en->section, "info") &&
        !strcasecmp(en->name, "symbolfile") &&
        !(f->value = strdup(en->value)))
        rt_diags_nomem(f->d);
}

static int symbol_file_of(const struct rt_value *ini, char **name)
{
    struct rt_ini_text t;
    struct rt_diags d = {0};
    struct find_sym f = {NULL, &d};
    if (rt_ini_decode("INF copy", ini->data, ini->len, NULL, &t, &d) == 0) {
        rt_ini_parse(&t, on_entry, &f, &d);
        rt_ini_text_free(&t);
    }
    int oom = d.out_of_memory;
    rt_diags_free(&d);
    if (oom) {
        free(f.value);
        *name = NULL;
        return -1;
    }
    if (f.value) {
        /* One file of this folder, or none. */
        size_t n = strlen(f.value);
        while (n && (f.value[n - 1] == ' ' || f.value[n - 1] == '\t'))
            f.value[--n] = '\0';
        if (rt_win_name_problem(f.value)) {
            free(f.value);
            f.value = NULL;
        }
    }
    *name = f.value;
    return 0;
}

static int cmp_name_ci(const void *a, const void *b)
{
    return strcasecmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The files a change set changes already, sorted ignoring case: the
 * removal below looks each of its paths up among them, not among every
 * change (a table change a language: languages x languages compares,
 * review 35 F3). */
struct file_set {
    const char **v;
    size_t n;
};

static int file_set_of(const struct rt_change_set *cs, struct file_set *f)
{
    f->n = 0;
    f->v = malloc((cs->n ? cs->n : 1) * sizeof *f->v);
    if (!f->v)
        return -1;
    for (size_t i = 0; i < cs->n; i++)
        if (cs->v[i].op == RT_CHANGE_WRITE_FILE ||
            cs->v[i].op == RT_CHANGE_DELETE_FILE)
            f->v[f->n++] = cs->v[i].name;
    qsort(f->v, f->n, sizeof *f->v, cmp_name_ci);
    return 0;
}

static int file_set_has(const struct file_set *f, const char *rel)
{
    return bsearch(&rel, f->v, f->n, sizeof *f->v, cmp_name_ci) != NULL;
}

/* Removes REL from the store's side files if it is there and neither
 * the change set as it was (PRE) nor the removal just made (SAME: the
 * folder's INI, when its symbol file has its name) changes it. */
static int remove_if_present(struct rt_store *s, const char *rel,
                             const struct file_set *pre, const char *same,
                             struct rt_change_set *cs, struct rt_value *keep,
                             struct rt_error *e)
{
    int present = 0;
    if (file_set_has(pre, rel) || (same && !strcasecmp(same, rel)))
        return 0;
    /* Read only when KEEP asks for its bytes: a file about to go is
     * otherwise looked for, not read. */
    if (s->ops->read_win_file(s, rel, keep, &present, e) != 0)
        return -1;
    return present && rt_change_set_delete_file(cs, rel) ? oom(e) : 0;
}

/* The INF folder of each language of DB, each once (two spellings of a
 * language id name one folder), sorted: into *V, *N. 0, or -1 out of
 * memory. */
static int inf_folders(const struct rt_database *db, uint32_t **v, size_t *n)
{
    *n = 0;
    if (!(*v = malloc((db->n_langs ? db->n_langs : 1) * sizeof **v)))
        return -1;
    for (size_t i = 0; i < db->n_langs; i++) {
        unsigned x;
        if (!rt_lang_is_current(db->langs[i].id) &&
            rt_lang_value(db->langs[i].id, &x) == 0)
            (*v)[(*n)++] = x & 0xffffu;
    }
    qsort(*v, *n, sizeof **v, cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < *n; i++)
        if (!m || (*v)[m - 1] != (*v)[i])
            (*v)[m++] = (*v)[i];
    *n = m;
    return 0;
}

/* One folder's INI and the symbol file it names. */
static int remove_folder_pair(struct rt_store *s,
                              const struct rt_service_info *svc,
                              const char *folder, const struct file_set *pre,
                              struct rt_change_set *cs, struct rt_error *e)
{
    char *ini = rt_inf_path(svc->name, folder, svc->ini_file);
    if (!ini)
        return oom(e);
    struct rt_value v = {0};
    int r = remove_if_present(s, ini, pre, NULL, cs, &v, e);
    char *sym_name = NULL;
    if (r == 0 && v.data && symbol_file_of(&v, &sym_name) != 0)
        r = oom(e);
    rt_value_free(&v);
    if (r == 0 && sym_name) {
        char *sym = rt_inf_path(svc->name, folder, sym_name);
        r = !sym ? oom(e) : remove_if_present(s, sym, pre, ini, cs, NULL, e);
        free(sym);
    }
    free(sym_name);
    free(ini);
    return r;
}

int rt_side_inf_remove(struct rt_store *s, const struct rt_database *db,
                       const struct rt_service_info *svc,
                       struct rt_change_set *cs, struct rt_error *e)
{
    /* A name that is not one file of the folder is never made a path:
     * uninstall says so (engine.h, rt_uninstall_plan) and goes on. */
    if (!svc->ini_file || rt_win_name_problem(svc->ini_file) ||
        rt_win_name_problem(svc->name))
        return 0;
    uint32_t *folders;
    size_t n;
    struct file_set pre;
    if (inf_folders(db, &folders, &n) != 0)
        return oom(e);
    if (file_set_of(cs, &pre) != 0) {
        free(folders);
        return oom(e);
    }
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) {
        char folder[8];
        snprintf(folder, sizeof folder, "%04X", folders[i]);
        r = remove_folder_pair(s, svc, folder, &pre, cs, e);
    }
    free(pre.v);
    free(folders);
    return r;
}

/* Collects the backup's parts (rt_engine_backup_stream) in a buffer. */
static int gather(void *ctx, const uint8_t *data, size_t len)
{
    struct rt_strbuf *b = ctx;
    rt_strbuf_append(b, data, len);
    return b->failed ? -1 : 0;
}

int rt_side_psb(struct rt_store *s, struct rt_change_set *cs,
                struct rt_error *e)
{
    struct rt_value old = {0};
    int present = 0;
    if (changes_file(cs, RT_PSB_REL))
        return 0;
    /* Read to write nothing when it holds the new bytes already. One too
     * large to be read (the stores refuse a side file over its cap,
     * RT_ERR_INVALID_DATA) is rewritten whole all the same: nothing of
     * it is kept, and the change is not refused for its sake; any other
     * failure (a link there, a read error) is. */
    struct rt_error oe = {0};
    if (s->ops->read_win_file(s, RT_PSB_REL, &old, &present, &oe) != 0) {
        if (oe.code != RT_ERR_INVALID_DATA) {
            *e = oe;
            return -1;
        }
        present = 1;
    }
    if (!present)
        return 0;
    struct rt_store *after = rt_overlay_new(s, cs);
    struct rt_database db;
    struct rt_strbuf b = {0};
    struct rt_backup_stats st;
    uint8_t *bytes = NULL;
    int rc = -1;
    if (!after) {
        oom(e);
        goto out;
    }
    /* Made a language at a time, as regtool backup writes a file: the
     * tables of one language are held at once, not the database's (the
     * caller holds the database as read already). */
    if (rt_database_load_with(after, &db, &rt_db_load_no_tables, e) != 0)
        goto out;
    /* A damaged table saves what can be read of it, as repair's backup
     * does: the change itself is not refused for the backup's sake. */
    int r = rt_engine_backup_stream(after, &db, 1, gather, &b, &st, e);
    rt_database_free(&db);
    if (r != 0) {
        if (b.failed)
            oom(e);
        goto out;
    }
    size_t len = b.len;
    if (!(bytes = (uint8_t *)rt_strbuf_take(&b))) {
        oom(e);
        goto out;
    }
    rc = 0;
    if (!old.data || len != old.len || memcmp(bytes, old.data, len)) {
        /* The buffer grew by doubling: its slack is given back, and the
         * bytes are the change set's, not copied (with thousands of
         * languages the file is most of what a change holds). */
        uint8_t *fit = realloc(bytes, len ? len : 1);
        if (fit)
            bytes = fit;
        if (rt_change_set_write_file_take(cs, RT_PSB_REL, bytes, len) != 0)
            rc = oom(e);
        bytes = NULL;
    }
out:
    free(bytes);
    rt_strbuf_free(&b);
    rt_value_free(&old);
    if (after)
        after->ops->close(after);
    return rc;
}
