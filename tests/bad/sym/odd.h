#define OBJ 0
#define CNT 3
