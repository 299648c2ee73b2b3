/* Engine: change sets as .reg patches (engine/reg_patch.h). */
#include "engine/reg_patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/utf16.h"

/* The key to write under: the last one when it is the same path. */
static struct rt_reg_key *key_for(struct rt_reg_file *f, const char *path)
{
    if (f->n_keys) {
        struct rt_reg_key *last = &f->keys[f->n_keys - 1];
        if (!last->del && rt_utf8_casecmp(last->path, strlen(last->path),
                                          path, strlen(path)) == 0)
            return last;
    }
    return rt_reg_add_key(f, path, 0);
}

int rt_reg_patch(const struct rt_change_set *cs, enum rt_reg_format format,
                 int tables, struct rt_reg_file *out, size_t *left_out)
{
    memset(out, 0, sizeof *out);
    out->format = format;
    *left_out = 0;
    for (size_t i = 0; i < cs->n; i++) {
        const struct rt_change *c = &cs->v[i];
        char *path = NULL;
        const char *name = NULL;
        const struct rt_value *v = NULL;
        int r = 0;
        switch (c->op) {
        case RT_CHANGE_CREATE_LANGUAGE:
            r = asprintf(&path, RT_REG_PERFLIB_KEY "\\%s", c->lang);
            break;
        case RT_CHANGE_WRITE_FILE:
        case RT_CHANGE_DELETE_FILE:
            /* Files, not registry values: left out (the caller says so). */
            continue;
        case RT_CHANGE_SET_TABLE:
            if (!tables) {
                (*left_out)++;
                continue;
            }
            r = asprintf(&path, RT_REG_PERFLIB_KEY "\\%s", c->lang);
            name = c->table == RT_TABLE_COUNTER ? "Counter" : "Help";
            v = &c->value;
            break;
        case RT_CHANGE_SET_PERFLIB:
            r = asprintf(&path, "%s", RT_REG_PERFLIB_KEY);
            name = c->name;
            v = &c->value;
            break;
        case RT_CHANGE_CREATE_PERF_KEY:
            /* The service's key first: reg import creates missing parents,
             * but other importers (hivexregedit) create one level only. */
            r = asprintf(&path, RT_REG_SERVICES_KEY "\\%s", c->service);
            struct rt_reg_key *parent = r < 0 ? NULL : key_for(out, path);
            if (r >= 0)
                free(path);
            if (!parent) {
                rt_reg_file_free(out);
                return -1;
            }
            r = asprintf(&path, RT_REG_SERVICES_KEY "\\%s\\Performance",
                         c->service);
            break;
        case RT_CHANGE_SET_SERVICE:
        case RT_CHANGE_DELETE_SERVICE:
            r = asprintf(&path, RT_REG_SERVICES_KEY "\\%s\\Performance",
                         c->service);
            name = c->name;
            v = c->op == RT_CHANGE_SET_SERVICE ? &c->value : NULL;
            break;
        }
        struct rt_reg_key *k = r < 0 ? NULL : key_for(out, path);
        free(path);
        if (!k || (name && rt_reg_add_value(k, name, v) != 0)) {
            rt_reg_file_free(out);
            return -1;
        }
    }
    return 0;
}
