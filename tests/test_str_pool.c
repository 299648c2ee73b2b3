/* The string pool and the position sort that index hundreds of thousands
 * of names in a few bytes each (model/str_pool.h, model/sort_positions.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/sort_positions.h"
#include "model/str_pool.h"

/* Strings added stay where they were put, whole, while later ones fill
 * new blocks: many short ones, one longer than a block, and empty ones. */
static void test_pool_keeps_strings(void **state)
{
    (void)state;
    struct rt_str_pool pool = {0};
    enum { N = 30000 };
    char **at = malloc(N * sizeof *at);
    assert_non_null(at);
    size_t big_len = 200000;
    char *big = malloc(big_len);
    assert_non_null(big);
    memset(big, 'b', big_len);
    char *big_at = NULL;
    for (int i = 0; i < N; i++) {
        char name[32];
        int n = snprintf(name, sizeof name, "%x", (unsigned)i * 7919u);
        if (i % 1000 == 0)
            n = 0;
        assert_non_null(at[i] = rt_str_pool_add(&pool, name, (size_t)n));
        if (i == N / 2)
            assert_non_null(big_at = rt_str_pool_add(&pool, big, big_len));
    }
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "%x", (unsigned)i * 7919u);
        assert_string_equal(at[i], i % 1000 == 0 ? "" : name);
    }
    assert_int_equal(strlen(big_at), big_len);
    assert_memory_equal(big_at, big, big_len);
    rt_str_pool_free(&pool);
    assert_null(pool.head);
    /* An emptied pool takes strings again. */
    assert_string_equal(rt_str_pool_add(&pool, "again", 5), "again");
    rt_str_pool_free(&pool);
    free(big);
    free(at);
}

/* Arrays beside the strings: at a multiple of 8 whatever came before; a
 * request larger than a block gets a block of its own behind the head, so
 * the strings that follow still fill the head block. */
static void test_pool_arrays_and_big_blocks(void **state)
{
    (void)state;
    struct rt_str_pool pool = {0};
    char *a = rt_str_pool_add(&pool, "abc", 3);
    uint64_t *words = rt_str_pool_alloc(&pool, 5 * sizeof *words);
    assert_non_null(words);
    assert_int_equal((uintptr_t)words % 8, 0);
    assert_true((char *)words >= a + 4 && (char *)words < a + 12);
    for (int i = 0; i < 5; i++)
        words[i] = 0x0102030405060708ull * (uint64_t)i;
    char *b = rt_str_pool_add(&pool, "de", 2);
    assert_ptr_equal(b, (char *)(words + 5));
    size_t big = 3 * 65536;
    char *huge = rt_str_pool_alloc(&pool, big);
    assert_non_null(huge);
    memset(huge, 'h', big);
    char *c = rt_str_pool_add(&pool, "f", 1);
    assert_ptr_equal(c, b + 3);
    assert_string_equal(a, "abc");
    assert_string_equal(b, "de");
    assert_string_equal(c, "f");
    for (int i = 0; i < 5; i++)
        assert_true(words[i] == 0x0102030405060708ull * (uint64_t)i);
    assert_int_equal(huge[big - 1], 'h');
    rt_str_pool_free(&pool);
    assert_null(pool.head);
}

static int by_key_then_position(uint32_t a, uint32_t b, const void *ctx)
{
    const unsigned *key = ctx;
    if (key[a] != key[b])
        return key[a] < key[b] ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* N positions, many with equal keys, sorted: by key, equals in position
 * order, every position once. */
static void check_sort(size_t n)
{
    unsigned *key = malloc((n + 1) * sizeof *key);
    uint32_t *v = malloc((n + 1) * sizeof *v);
    unsigned char *seen = calloc(n + 1, 1);
    assert_non_null(key);
    assert_non_null(v);
    assert_non_null(seen);
    unsigned x = 12345;
    for (size_t i = 0; i < n; i++) {
        x = x * 1103515245u + 12345u;
        key[i] = (x >> 16) % (n / 4 + 1);
        v[i] = (uint32_t)(n - 1 - i);
    }
    rt_sort_positions(v, n, by_key_then_position, key);
    for (size_t i = 0; i < n; i++) {
        assert_true(v[i] < n);
        assert_false(seen[v[i]]);
        seen[v[i]] = 1;
        if (i > 0)
            assert_true(by_key_then_position(v[i - 1], v[i], key) < 0);
    }
    free(seen);
    free(v);
    free(key);
}

/* Every size up to a few hundred (each shape of heap) and a large one. */
static void test_sort_positions(void **state)
{
    (void)state;
    for (size_t n = 0; n <= 300; n++)
        check_sort(n);
    check_sort(100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pool_keeps_strings),
        cmocka_unit_test(test_pool_arrays_and_big_blocks),
        cmocka_unit_test(test_sort_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
