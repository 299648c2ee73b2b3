// SkladOffsets.h
#define SKLAD_OBJECT   0
#define ITEMS_SHIPPED  2
#define ORDERS_WAITING 4
