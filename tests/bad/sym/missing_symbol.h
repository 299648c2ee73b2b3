#define OBJ 0
