// CounterOffsets.h
//
// Offsets of the Transfer and Peer performance objects and their counters.
// They are relative: the provider adds them to the First Counter and First
// Help values that lodctr writes under its Performance key. They must be
// even and consecutive, starting at 0: an object, then its counters.
//
// This file is used by the provider DLL as well as by transfer.ini, the
// file given to lodctr.

#ifndef _COUNTER_OFFSETS_H_
#define _COUNTER_OFFSETS_H_

#define TRANSFER_OBJECT          0
#define BYTES_SENT               2
#define AVAILABLE_BYTES          4
#define SENT_BYTES_PER_SEC       6

#define PEER_OBJECT              8
#define PEER_BYTES_RECEIVED     10
#define ACTIVE_PEERS            12

/* The DLL sizes its data block from the last counter. */
#define LAST_TRANSFER_COUNTER   SENT_BYTES_PER_SEC
#define LAST_PEER_COUNTER       ACTIVE_PEERS
#define NUM_COUNTERS            ((LAST_PEER_COUNTER / 2) + 1)

#endif // _COUNTER_OFFSETS_H_
