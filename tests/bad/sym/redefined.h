#define OBJ 0
#define OBJ 4
#define CNT 2
