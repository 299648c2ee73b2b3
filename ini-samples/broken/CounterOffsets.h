// CounterOffsets.h for the broken samples: one INI per kind of error.
#define TRANSFER_OBJECT   0
#define BYTES_SENT        2
#define AVAILABLE_BYTES   4
#define NEGATIVE_BYTES    -2
#define ODD_BYTES         5
#define SAME_AS_SENT      BYTES_SENT
#define CYCLE_A           CYCLE_B
#define CYCLE_B           CYCLE_A
