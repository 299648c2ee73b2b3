/* The Perflib tree `regtool init` creates and the benchmark generator
 * (bench/mkbench.c) builds at scale: one implementation, so the trees
 * the benchmarks measure are the trees regtool makes (docs/design.md,
 * "Where the tables live"). */
#include "ops/ops.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commit/io.h"
#include "model/base_tables.h"
#include "model/lang_id.h"
#include "regf/regf.h"
#include "store/base_hive.h"

#define PERFLIB "Microsoft\\Windows NT\\CurrentVersion\\Perflib"
/* Predefined handles of Perflib\009 and Perflib\CurrentLanguage. */
#define HKEY_PERFORMANCE_TEXT    0x80000050u
#define HKEY_PERFORMANCE_NLSTEXT 0x80000060u

/* Cuts every text of L to at most MAX bytes, on a UTF-8 boundary. */
static void cut_texts(struct rt_pair_list *l, size_t max)
{
    for (size_t i = 0; i < l->n; i++) {
        struct rt_pair *p = &l->v[i];
        if (p->text_len <= max)
            continue;
        size_t cut = max;
        while (cut > 0 && ((unsigned char)p->text[cut] & 0xC0) == 0x80)
            cut--;
        p->text[cut] = 0;
        p->text_len = cut;
    }
}

int rt_op_init_write_file(const char *path, const void *data, size_t len)
{
    if (rt_os_write_new_file(path, data, len) != 0)
        return -1;
    /* Counted as a commit's writes are: the test build's interrupt hook
     * (REGTOOL_SIGNAL_AT_WRITE) then reaches each file init makes. */
    rt_io_count_write();
    return 0;
}

/* Writes DIR/perfKLANG.dat, new; E says which file and why. */
static int write_dat(const char *dir, char kind, const char *lang,
                     const uint8_t *data, size_t len, struct rt_error *e)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/perf%c%s.dat", dir, kind, lang);
    if (rt_op_init_write_file(path, data, len) == 0)
        return 0;
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "writing %s: %s", path,
                        rt_os_strerror(errno));
}

/* A failure of SOFTWARE's hive itself, in E: its own error when it has
 * one, else out of memory. */
static int software_failed(struct rt_regf *sw, struct rt_error *e)
{
    return rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "building SOFTWARE: %s",
                        *rt_regf_errmsg(sw) ? rt_regf_errmsg(sw)
                                            : "out of memory");
}

/* One language's tables: values of Perflib\LANG, or .dat files in each
 * of the layout's folders; and with T->installed, the tables as installed
 * (perfdLLL.dat, perfiLLL.dat), which lodctr /R rebuilds from, in
 * System32 in both layouts and SysWOW64 too in the files layout. */
static int write_language(const struct rt_init_tree *t, struct rt_regf *sw,
                          uint32_t perflib, const char *lang,
                          struct rt_init_hives *h, struct rt_error *e)
{
    struct rt_name_table nt;
    uint8_t *c = NULL, *hb = NULL;
    size_t cl, hl;
    uint32_t key;
    int rc = -1, current = rt_lang_is_current(lang);
    size_t n_dirs = t->files ? 2 : 1;
    /* CurrentLanguage holds the UI language's tables: English here. */
    if (rt_base_tables_generate_scaled(current ? "009" : lang, t->extra,
                                       &nt) != 0) {
        software_failed(sw, e);
        goto out;
    }
    if (t->help_chars)
        cut_texts(&nt.help, t->help_chars);
    if (rt_pair_list_encode(&nt.counter, &c, &cl) != 0 ||
        rt_pair_list_encode(&nt.help, &hb, &hl) != 0 ||
        rt_regf_key_create(sw, perflib, lang, &key) != 0) {
        software_failed(sw, e);
        goto out;
    }
    /* CurrentLanguage has no files of its own. */
    for (size_t i = 0; t->installed && !current && i < n_dirs; i++)
        if (write_dat(t->dat_dirs[i], 'd', lang, c, cl, e) != 0 ||
            write_dat(t->dat_dirs[i], 'i', lang, hb, hl, e) != 0)
            goto out;
    if (t->files) {
        if (rt_lang_same(lang, "009") &&
            rt_regf_key_set_predefined(sw, key, HKEY_PERFORMANCE_TEXT) != 0) {
            software_failed(sw, e);
            goto out;
        }
        for (size_t i = 0; i < n_dirs; i++)
            if (write_dat(t->dat_dirs[i], 'c', lang, c, cl, e) != 0 ||
                write_dat(t->dat_dirs[i], 'h', lang, hb, hl, e) != 0)
                goto out;
    } else if (rt_regf_value_set(sw, key, "Counter", RT_REG_MULTI_SZ, c, cl) ||
               rt_regf_value_set(sw, key, "Help", RT_REG_MULTI_SZ, hb, hl)) {
        software_failed(sw, e);
        goto out;
    }
    h->help_min = hl < h->help_min ? hl : h->help_min;
    h->help_max = hl > h->help_max ? hl : h->help_max;
    h->tables_bytes += cl + hl;
    rc = 0;
out:
    rt_name_table_free(&nt);
    free(c);
    free(hb);
    return rc;
}

static int build_software(const struct rt_init_tree *t,
                          struct rt_init_hives *h, struct rt_error *e)
{
    struct rt_regf *sw = h->software;
    uint32_t perflib, cur;
    if (rt_regf_key_create_path(sw, rt_regf_root(sw), PERFLIB, &perflib) ||
        rt_base_set_dword(sw, perflib, "Last Counter",
                          rt_base_last_counter_scaled(t->extra)) ||
        rt_base_set_dword(sw, perflib, "Last Help",
                          rt_base_last_help_scaled(t->extra)) ||
        rt_base_set_dword(sw, perflib, "Base Index", 1847) ||
        rt_base_set_dword(sw, perflib, "Version", 0x00050001))
        return software_failed(sw, e);
    for (size_t i = 0; i < t->n_langs; i++)
        if (!(t->files && rt_lang_is_current(t->langs[i])) &&
            write_language(t, sw, perflib, t->langs[i], h, e) != 0)
            return -1;
    if (t->files &&
        (rt_regf_key_create(sw, perflib, "CurrentLanguage", &cur) != 0 ||
         rt_regf_key_set_predefined(sw, cur, HKEY_PERFORMANCE_NLSTEXT) != 0))
        return software_failed(sw, e);
    return 0;
}

int rt_op_init_build(const struct rt_init_tree *t, struct rt_init_hives *h,
                     struct rt_error *e)
{
    char err[512] = "";
    memset(h, 0, sizeof *h);
    h->help_min = SIZE_MAX;
    if (rt_regf_create(5, "ROOT", &h->software, err, sizeof err) ||
        rt_regf_create(5, "ROOT", &h->system, err, sizeof err)) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "%s", err);
        goto fail;
    }
    if (build_software(t, h, e) != 0)
        goto fail;
    if (rt_base_build_system(h->system, t->extra) != 0) {
        rt_error_set(e, RT_ERR_NOT_ENOUGH_MEMORY, "building SYSTEM: %s",
                     *rt_regf_errmsg(h->system) ? rt_regf_errmsg(h->system)
                                                : "out of memory");
        goto fail;
    }
    return 0;
fail:
    rt_op_init_free(h);
    return -1;
}

int rt_op_init_save(struct rt_init_hives *h, const char *software_path,
                    const char *system_path, struct rt_error *e)
{
    if (rt_regf_save_as(h->software, software_path) == 0) {
        rt_io_count_write();
        if (rt_regf_save_as(h->system, system_path) == 0) {
            rt_io_count_write();
            return 0;
        }
    }
    /* The hive's error names the file and why. */
    return rt_error_set(e, RT_ERR_WRITE_FAULT, "writing %s",
                        rt_regf_errmsg(*rt_regf_errmsg(h->software)
                                           ? h->software
                                           : h->system));
}

void rt_op_init_free(struct rt_init_hives *h)
{
    rt_regf_close(h->software);
    rt_regf_close(h->system);
    h->software = h->system = NULL;
}

int rt_op_backup_image(const struct rt_database *db, uint8_t **bytes,
                       size_t *len, struct rt_error *e)
{
    struct rt_psb psb;
    *bytes = NULL;
    *len = 0;
    if (rt_engine_backup(db, &psb, e) != 0)
        return -1;
    int r = rt_psb_write(&psb, bytes, len);
    rt_psb_free(&psb);
    return r != 0 ? 1 : 0;
}
