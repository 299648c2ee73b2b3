#define OBJ 0
#define CNT 2ÿ
