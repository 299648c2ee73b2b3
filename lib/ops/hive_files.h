/* regtool hive check and hive recover work on one hive file, not on a
 * name database: what they call is the hive layer's own reading,
 * checking and log replay (regf/), which this header hands the CLI as it
 * is, so that the CLI's one door to the library stays lib/ops/. */
#ifndef RT_OPS_HIVE_FILES_H
#define RT_OPS_HIVE_FILES_H

#include "regf/base_block.h"
#include "regf/log.h"
#include "regf/regf.h"

#endif
