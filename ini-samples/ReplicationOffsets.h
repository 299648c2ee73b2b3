#pragma once
/* ReplicationOffsets.h - offsets of the Replication performance object,
 * shared by the provider DLL and by replication.ini.
 *
 * Keep them even and consecutive from 0. */

#define REPLICATION_OBJECT      0x0
#define ROWS_REPLICATED         (REPLICATION_OBJECT + 2)
#define REPLICATION_LATENCY     0x04
#define PENDING_CHANGES         6
#define CONFLICTS_RESOLVED      (8)

#define FIRST_COUNTER_OFFSET    ROWS_REPLICATED
#define LAST_COUNTER_OFFSET     CONFLICTS_RESOLVED
#define REPLICATION_PERF_VERSION "2.1"
#define OFFSET_OF(x)            ((x) - FIRST_COUNTER_OFFSET)
