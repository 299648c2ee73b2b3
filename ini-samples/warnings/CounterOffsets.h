// CounterOffsets.h for the samples that are valid but draw warnings.
#define TRANSFER_OBJECT   0
#define BYTES_SENT        2
#define AVAILABLE_BYTES   6
