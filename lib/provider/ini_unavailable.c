/* INI layer, for builds without inih: the Windows build links this file
 * instead of ini_reader.c with `make windows INIH=none` (by default it
 * builds inih from ../shared/third_party, or takes an install of it with
 * INIH=DIR). Every verb that reads an INI then fails with a message
 * naming the missing library; everything else in regtool works. */
#include "provider/ini_reader.h"

#include <string.h>

static const char missing[] =
    "this regtool was built without inih, the INI parser: it cannot read "
    "INI files (build it with `make windows`, which builds inih from "
    "../shared/third_party, or `make windows INIH=DIR`, DIR an install of "
    "inih such as MSYS2's mingw-w64-x86_64-libinih or vcpkg's inih)";

int rt_ini_decode(const char *path, const void *data, size_t len,
                  const char *codepage, struct rt_ini_text *out,
                  struct rt_diags *d)
{
    (void)data;
    (void)len;
    (void)codepage;
    memset(out, 0, sizeof *out);
    rt_diags_add(d, RT_ERROR, path, 0, NULL, "%s", missing);
    return -1;
}

int rt_ini_load(const char *path, const char *codepage,
                struct rt_ini_text *out, struct rt_diags *d)
{
    memset(out, 0, sizeof *out);
    (void)codepage;
    rt_diags_add(d, RT_ERROR, path, 0, NULL, "%s", missing);
    return -2;
}

void rt_ini_text_free(struct rt_ini_text *t)
{
    memset(t, 0, sizeof *t);
}

int rt_ini_parse(struct rt_ini_text *t, rt_ini_entry_fn fn, void *user,
                 struct rt_diags *d)
{
    (void)fn;
    (void)user;
    rt_diags_add(d, RT_ERROR, t->path, 0, NULL, "%s", missing);
    return -1;
}

int rt_ini_available(void)
{
    return 0;
}
