/* Store layer: helpers shared by every backend. */
#include "store/store.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

void rt_strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

int rt_is_language_key(const char *name)
{
    if (!strcasecmp(name, "CurrentLanguage"))
        return 1;
    return isxdigit((unsigned char)name[0]) &&
           isxdigit((unsigned char)name[1]) &&
           isxdigit((unsigned char)name[2]) && name[3] == '\0';
}
