/* The files Windows keeps beside the name database, kept by regtool in
 * the same commit as the database itself (docs/design.md, "The backup
 * store"): each provider's INF copy, which Windows' own `lodctr /R`
 * rebuilds it from, and System32\PerfStringBackup.INI, the backup of the
 * whole database Windows rewrites after every change. For stores with side
 * files (store.h, rt_store_win_files); the others keep neither. */
#ifndef RT_SIDE_FILES_H
#define RT_SIDE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "engine/database.h"
#include "model/change_set.h"
#include "model/file_name.h"
#include "provider/provider_spec.h"
#include "store/store.h"

#define RT_PSB_REL "System32/PerfStringBackup.INI"

/* The INF folder of a language key: four hex digits ("009" -> "0009",
 * "804" -> "0804"). -1 for CurrentLanguage (it has no folder). */
int rt_inf_folder(const char *lang, char out[8]);

/* NAME for a message, between quotes: as model/printable.h shows it (a
 * name read from the tree may hold anything), its quotes as \x27, cut to
 * SIZE with "..." at a whole character. */
void rt_side_name_shown(const char *name, char *out, size_t size);

/* "INF/<service>/<LLLL>/<name>" in a new string, or NULL. */
char *rt_inf_path(const char *service, const char *folder, const char *name);

/* Pure: the INF copy of provider SPEC: the INI and its symbol file in
 * INF\<drivername>\<LLLL>\, one copy (the INI holds every language's
 * text): English's folder when the INI has English, else that of its
 * first language the machine (DB) has, else its first language; the INI
 * then sits where lodctr /R looks for it (by PerfIniFile) with its
 * symbol file beside it, where lodctr looks for a symbol file. Added to
 * CS. */
int rt_side_inf_copy(const struct rt_database *db,
                     const struct rt_provider_spec *spec,
                     struct rt_inf_files *f, struct rt_change_set *cs,
                     struct rt_error *e);

/* The removal of SVC's INF copy as the store holds it: in each
 * language folder of the machine, its PerfIniFile and the symbol file
 * that INI names; paths CS already writes are kept. Reads the store. */
int rt_side_inf_remove(struct rt_store *s, const struct rt_database *db,
                       const struct rt_service_info *svc,
                       struct rt_change_set *cs, struct rt_error *e);

/* PerfStringBackup.INI rewritten from the state CS leaves (read through
 * engine/overlay.h), where the store has one: Windows keeps it current
 * after every change. Added to CS only when its bytes change. */
int rt_side_psb(struct rt_store *s, struct rt_change_set *cs,
                struct rt_error *e);

#endif
