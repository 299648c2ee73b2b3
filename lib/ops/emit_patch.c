/* Operations layer: an --emit-reg patch written with a commit
 * (emit_patch.h). */
#include "ops/emit_patch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "model/error.h"
#include "ops/reg_backup.h"

static int patch_before(void *ctx, struct rt_store *s,
                        const struct rt_change_set *cs, struct rt_error *e)
{
    struct rt_op_patch *p = ctx;
    uint8_t *data;
    size_t len;
    char *used = NULL;
    if (rt_op_reg_patch_text(s, cs, &data, &len, &p->keys, &p->values,
                             &p->left_out, &p->files, e) != 0) {
        char why[sizeof e->message];
        snprintf(why, sizeof why, "%s", e->message);
        return rt_error_set(e, e->code, "--emit-reg %s: %s; nothing was "
                            "written", p->file, why);
    }
    int r = rt_os_saving_open(&p->sv, p->file, RT_OS_SAVE_REPLACE, 0644,
                              &used);
    if (r == 0 && (r = rt_os_saving_write(&p->sv, data, len)) == 0 &&
        (r = rt_os_fsync(p->sv.fd)) != 0) {
        int err = errno;
        rt_os_saving_abandon(&p->sv);
        errno = err;
    }
    int err = errno;
    free(used);
    free(data);
    if (r != 0)
        return rt_error_set(e, RT_ERR_WRITE_FAULT, "--emit-reg: cannot write "
                            "%s: %s; nothing was written", p->file,
                            rt_os_strerror(err));
    p->state = RT_OP_PATCH_WRITTEN;
    return 0;
}

static void patch_after(void *ctx, int committed)
{
    struct rt_op_patch *p = ctx;
    if (p->state != RT_OP_PATCH_WRITTEN)
        return;
    if (!committed) {
        rt_os_saving_abandon(&p->sv);
        p->state = RT_OP_PATCH_NONE;
    } else if (rt_os_saving_finish(&p->sv) == 0) {
        p->state = RT_OP_PATCH_IN_PLACE;
    } else {
        p->err = errno;
        p->state = RT_OP_PATCH_LOST;
    }
}

void rt_op_patch_stage(struct rt_op_patch *p, struct rt_store *s,
                       const char *file)
{
    p->file = file;
    p->state = RT_OP_PATCH_NONE;
    p->hooks = (struct rt_commit_hooks){patch_before, patch_after, p};
    s->hooks = &p->hooks;
}
