#define OBJ 0
#define CNT NOWHERE
