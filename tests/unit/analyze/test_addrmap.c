/* test_addrmap.c — the address map of stats and validate (hatf/addrmap.c),
 * against a reference model, with millions of keys. */
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "addrmap.h"

static void test_basic(void)
{
    addrmap m;
    int added;
    CU_ASSERT_EQUAL_FATAL(addrmap_init(&m), 0);
    CU_ASSERT_PTR_NULL(addrmap_find(&m, 0));
    addrmap_entry *e = addrmap_put(&m, 0, &added);  /* key 0 is allowed */
    CU_ASSERT(e && added);
    e->size = 5;
    CU_ASSERT_EQUAL(addrmap_find(&m, 0)->size, 5);
    e = addrmap_put(&m, UINT64_MAX, &added);
    CU_ASSERT(e && added && e->size == 0);
    CU_ASSERT(addrmap_put(&m, UINT64_MAX, &added) == e && !added);
    CU_ASSERT_EQUAL(m.count, 2);
    addrmap_remove(&m, addrmap_find(&m, 0));
    CU_ASSERT_PTR_NULL(addrmap_find(&m, 0));
    CU_ASSERT_PTR_NOT_NULL(addrmap_find(&m, UINT64_MAX));
    CU_ASSERT_EQUAL(m.count, 1);
    addrmap_free(&m);

    /* dense indexes in order of first appearance */
    CU_ASSERT_EQUAL_FATAL(addrmap_init(&m), 0);
    CU_ASSERT_EQUAL(addrmap_index(&m, 42, &added), 0);
    CU_ASSERT_EQUAL(addrmap_index(&m, 7, &added), 1);
    CU_ASSERT_EQUAL(addrmap_index(&m, 42, &added), 0);
    CU_ASSERT(!added);
    CU_ASSERT_EQUAL(addrmap_index(&m, 0, &added), 2);
    addrmap_free(&m);
}

/* 2 million addresses 16 bytes apart (as an allocator hands them out) live
 * at once, then removed in a scrambled order, with checks against a bitmap. */
static void test_many(void)
{
    enum { N = 2000000 };
    addrmap m;
    int added;
    CU_ASSERT_EQUAL_FATAL(addrmap_init(&m), 0);
    uint8_t *live = calloc(N, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(live);
    for (uint64_t i = 0; i < N; i++) {
        addrmap_entry *e = addrmap_put(&m, 0x7f0000000000ull + 16 * i, &added);
        CU_ASSERT_FATAL(e && added);
        e->size = i;
        live[i] = 1;
    }
    CU_ASSERT_EQUAL(m.count, N);
    uint64_t x = 88172645463325252ull, removed = 0;
    for (int round = 0; round < 3 * N; round++) {
        ut_xorshift(&x);
        uint64_t i = x % N;
        addrmap_entry *e = addrmap_find(&m, 0x7f0000000000ull + 16 * i);
        if (live[i]) {
            CU_ASSERT_FATAL(e && e->size == i);
            if (round & 1) { addrmap_remove(&m, e); live[i] = 0; removed++; }
        } else {
            CU_ASSERT_PTR_NULL_FATAL(e);
        }
    }
    CU_ASSERT_EQUAL(m.count, N - removed);
    uint64_t seen = 0;
    for (size_t s = 0; s <= m.mask; s++) {
        addrmap_entry *e = addrmap_slot(&m, s);
        if (!e) continue;
        seen++;
        CU_ASSERT_FATAL(live[(e->key - 0x7f0000000000ull) / 16]);
    }
    CU_ASSERT_EQUAL(seen, N - removed);
    /* remove-while-scanning, as heap-destroy does: drop every even index */
    for (size_t s = 0; s <= m.mask;) {
        addrmap_entry *e = addrmap_slot(&m, s);
        if (e && ((e->key - 0x7f0000000000ull) / 16) % 2 == 0) {
            live[(e->key - 0x7f0000000000ull) / 16] = 0;
            addrmap_remove(&m, e);
            continue;
        }
        s++;
    }
    uint64_t want = 0;
    for (uint64_t i = 0; i < N; i++) {
        want += live[i];
        CU_ASSERT_FATAL((addrmap_find(&m, 0x7f0000000000ull + 16 * i) != NULL) == live[i]);
    }
    CU_ASSERT_EQUAL(m.count, want);
    free(live);
    addrmap_free(&m);
}

static CU_TestInfo tests[] = {
    { "basic", test_basic },
    { "millions", test_many },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "addrmap", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
