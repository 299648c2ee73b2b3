/* Model layer, inside the .reg file code: what its reader (reg_file.c)
 * and its writer (reg_file_write.c) share. Not for other files. */
#ifndef RT_REG_FILE_INTERNAL_H
#define RT_REG_FILE_INTERNAL_H

#include "model/reg_file.h"

extern const char rt_reg_header5[];   /* Windows Registry Editor Version 5.00 */
extern const char rt_reg_header4[];   /* REGEDIT4 */

/* E set to a message at LINE (0: none): -1. */
int rt_reg_fail(struct rt_reg_error *e, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* E set to out of memory: -1. */
int rt_reg_nomem(struct rt_reg_error *e);

#endif
