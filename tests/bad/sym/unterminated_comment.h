#define OBJ 0
/* open comment
#define CNT 2
