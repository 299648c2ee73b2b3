/* The install/uninstall suite on the in-memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "engine_suite.h"

static struct rt_store *mem_open(void *ctx)
{
    (void)ctx;
    return rt_store_mem_new();
}

static char *mem_exact(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return rt_store_mem_dump(s);
}

int main(void)
{
    efx = (struct engine_fixture){mem_open, mem_exact, 1, NULL, 0};
    const struct CMUnitTest tests[] = {ENGINE_SUITE_TESTS};
    return cmocka_run_group_tests_name("engine (mem store)", tests, NULL, NULL);
}
