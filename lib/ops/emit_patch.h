/* Operations layer: an --emit-reg patch written with a commit. Its text
 * is made from the change set as it will be committed and written whole
 * to its temporary file, under the writer's lock, before anything of the
 * change is (the store's commit hooks); it is put in place after the
 * commit, or removed when nothing was committed. What the saving refuses
 * that no look before can tell (a full disk, a quota) then refuses the
 * change, nothing written, not the patch after it (review 46 R46-2). */
#ifndef RT_OPS_EMIT_PATCH_H
#define RT_OPS_EMIT_PATCH_H

#include <stddef.h>

#include "platform/os.h"
#include "store/store.h"

enum rt_op_patch_state {
    RT_OP_PATCH_NONE,       /* nothing written (no commit yet, or none) */
    RT_OP_PATCH_WRITTEN,    /* its temporary written, the commit running */
    RT_OP_PATCH_IN_PLACE,   /* committed, and the patch put in place */
    RT_OP_PATCH_LOST,       /* committed, but not put in place (ERR) */
};

struct rt_op_patch {
    const char *file;
    enum rt_op_patch_state state;
    int err;                /* RT_OP_PATCH_LOST: errno */
    size_t keys, values, left_out, files;   /* as rt_op_reg_patch_text */
    struct rt_os_saving sv;
    struct rt_commit_hooks hooks;
};

/* Has S's commits write their change set as a .reg patch to FILE, into
 * P (which must live as long as S is used). */
void rt_op_patch_stage(struct rt_op_patch *p, struct rt_store *s,
                       const char *file);

#endif
