#define OBJ CNT
#define CNT OBJ
