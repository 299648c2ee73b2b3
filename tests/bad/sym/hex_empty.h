#define OBJ 0
#define CNT 0x
