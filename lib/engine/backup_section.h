/* Engine, inside the backup: a language's [PerfStrings_] section written
 * from its tables' own UTF-16LE straight to the backup's sink, in pieces
 * (backup_section.c). Not part of the engine's interface. */
#ifndef RT_BACKUP_SECTION_H
#define RT_BACKUP_SECTION_H

#include <stddef.h>
#include <stdint.h>

#include "engine/backup.h"

/* The largest piece handed to the sink's write at once: a language's
 * section is megabytes, written through one buffer of this size that
 * every language reuses. */
#define RT_BACKUP_PIECE ((size_t)256 * 1024)

/* Where a section's bytes go: the sink, pieces of at most
 * RT_BACKUP_PIECE bytes through BUF (that many bytes, the caller's),
 * the bytes written so far counted in *BYTES. */
struct rt_backup_out {
    const struct rt_backup_sink *k;
    uint8_t *buf;
    size_t len;             /* bytes in BUF not yet written */
    size_t *bytes;
};

/* An interrupt (Ctrl-C, SIGTERM) noted by a caller that catches them
 * (rt_os_catch_interrupts) stops the backup before its next read or
 * write: -1 with RT_ERR_CANCELLED (the caller removes what was written),
 * else 0. */
int rt_backup_interrupted(struct rt_error *e);

/* LEN bytes of DATA through the sink, unless an interrupt came first or
 * the backup would pass RT_BACKUP_FILE_MAX: 0, or -1 with E set. */
int rt_backup_emit(const struct rt_backup_sink *k, const uint8_t *data,
                   size_t len, size_t *bytes, struct rt_error *e);

/* L's [PerfStrings_] section as rt_psb_write_language writes it (the
 * tables merged as rt_psb_merge merges them), the strings that would not
 * read back as themselves left out and counted on *LEFT_OUT, through O
 * (written whole, O's buffer empty again, on return). L's tables are whole
 * and undamaged. 0, or -1 with E set. */
int rt_backup_write_section(const struct rt_db_language *l,
                            struct rt_backup_out *o, size_t *left_out,
                            struct rt_error *e);

#endif
