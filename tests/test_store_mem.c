/* The store contract on the in-memory store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "store_contract.h"

static struct rt_store *mem_open(void *ctx)
{
    (void)ctx;
    return rt_store_mem_new();
}

static void mem_fail(struct rt_store *s, size_t k, void *ctx)
{
    (void)ctx;
    rt_store_mem_fail_after(s, k);
}

static char *mem_snapshot(struct rt_store *s, void *ctx)
{
    (void)ctx;
    return rt_store_mem_dump(s);
}

int main(void)
{
    contract = (struct contract_fixture){mem_open, mem_fail, mem_snapshot, NULL, 0};
    const struct CMUnitTest tests[] = {STORE_CONTRACT_TESTS};
    return cmocka_run_group_tests_name("store_mem", tests, NULL, NULL);
}
