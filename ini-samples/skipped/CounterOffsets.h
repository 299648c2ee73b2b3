// CounterOffsets.h for the samples lodctr loads, skipping a key or a
// line (docs/reference.md, "What lodctr loads").
#define TRANSFER_OBJECT   0
#define BYTES_SENT        2
#define AVAILABLE_BYTES   4
