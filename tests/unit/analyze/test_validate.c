/* test_validate.c — validate's checks (analyze/validate.c) on events made
 * here, and heaplive's keep_freed states they rest on (analyze/heaplive.c):
 * a double free names the record of the first free, a release after a
 * heap-destroy names the destroy, a mismatched release names the call. */
#include <stdio.h>
#include <string.h>

#include "cunit_main.h"
#include "heaplive.h"
#include "validate.h"

typedef struct said {
    char text[16][160];
    int n;
} said;

static void collect(void *ctx, uint64_t rec, uint64_t off, const char *msg)
{
    said *s = ctx;
    (void)off;
    if (s->n < 16) snprintf(s->text[s->n], sizeof s->text[0], "%llu: %s", (unsigned long long)rec, msg);
    s->n++;
}

static hatf_event ev_of(int op, uint64_t heap, uint64_t addr, uint64_t new_addr, uint64_t size)
{
    return (hatf_event){ .op = op, .thread = 1, .heap = heap, .addr = addr, .new_addr = new_addr, .size = size };
}

/* Check events e[0..n) as records 0..n-1 into s. @return the figures' records. */
static uint64_t check_all(const hatf_event *e, size_t n, said *s)
{
    validate_opts o = { .ns_per_unit = 1, .problem = collect, .ctx = s };
    validate *v = validate_new(&o);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    for (size_t i = 0; i < n; i++) CU_ASSERT_EQUAL(validate_event(v, &e[i], i, 100 + i), 0);
    validate_finish(v);
    uint64_t r = validate_result(v)->records;
    validate_free(v);
    return r;
}

static void test_double_free(void)
{
    hatf_event e[] = {
        ev_of(HATF_OP_ALLOC, 0, 0x100, 0, 16),
        ev_of(HATF_OP_FREE, 0, 0x100, 0, 0),
        ev_of(HATF_OP_FREE, 0, 0x100, 0, 0),
        ev_of(HATF_OP_FREE, 0, 0x200, 0, 0),
    };
    said s = { 0 };
    CU_ASSERT_EQUAL(check_all(e, 4, &s), 4);
    CU_ASSERT_EQUAL_FATAL(s.n, 2);
    CU_ASSERT_STRING_EQUAL(s.text[0], "2: free of 0x100, already freed at record 1");
    CU_ASSERT_STRING_EQUAL(s.text[1], "3: free of 0x200, never allocated");
}

static void test_heap_destroy(void)
{
    hatf_event e[] = {
        ev_of(HATF_OP_HEAP_CREATE, 3, 0, 0, 0),
        ev_of(HATF_OP_ALLOC, 3, 0x100, 0, 16),
        ev_of(HATF_OP_HEAP_DESTROY, 3, 0, 0, 0),
        ev_of(HATF_OP_FREE, 0, 0x100, 0, 0),
        ev_of(HATF_OP_ALLOC, 0, 0x100, 0, 8),  /* the address is free again: no problem */
        ev_of(HATF_OP_FREE, 0, 0x100, 0, 0),
    };
    said s = { 0 };
    check_all(e, 6, &s);
    CU_ASSERT_EQUAL_FATAL(s.n, 1);
    CU_ASSERT_STRING_EQUAL(s.text[0], "3: free of 0x100, an object of heap 3, after its heap-destroy at record 2");
}

static void test_live_states(void)
{
    heaplive l;
    CU_ASSERT_EQUAL_FATAL(heaplive_init(&l, NULL, NULL), 0);
    l.keep_freed = 1;
    long c = heaplive_cell_of(&l, 0, 7), d = heaplive_cell_of(&l, 1, 7);
    CU_ASSERT_FATAL(c >= 0 && d >= 0);
    addrmap_entry *e = heaplive_put(&l, 0x10, 4, (uint32_t)c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    e->rec = 42;
    CU_ASSERT_EQUAL(heaplive_state(&l, e), HEAPLIVE_LIVE);
    CU_ASSERT_EQUAL(heaplive_remove(&l, 0x10), 1);
    e = heaplive_find(&l, 0x10);  /* kept, with what the caller wrote */
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(heaplive_state(&l, e), HEAPLIVE_FREED_OBJ);
    CU_ASSERT_EQUAL(e->rec, 42);
    CU_ASSERT_EQUAL(heaplive_remove(&l, 0x10), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(heaplive_put(&l, 0x20, 8, (uint32_t)d));
    heaplive_destroy_heap(&l, 1);
    e = heaplive_find(&l, 0x20);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    CU_ASSERT_EQUAL(heaplive_state(&l, e), HEAPLIVE_ENDED);
    CU_ASSERT_EQUAL(l.objects, 0);
    /* made again at a freed address: live, and the cell counts it */
    CU_ASSERT_PTR_NOT_NULL_FATAL(heaplive_put(&l, 0x10, 2, (uint32_t)c));
    CU_ASSERT_EQUAL(l.cells[c].objects, 1);
    CU_ASSERT_EQUAL(l.cells[c].bytes, 2);
    e = heaplive_find(&l, 0x10);
    heaplive_kill(&l, e);
    CU_ASSERT_EQUAL(heaplive_state(&l, e), HEAPLIVE_ENDED);
    CU_ASSERT_EQUAL(l.cells[c].objects, 0);
    heaplive_free(&l);
}

static CU_TestInfo tests[] = {
    { "double free and never allocated", test_double_free },
    { "a release after the heap's destroy", test_heap_destroy },
    { "heaplive keep_freed states", test_live_states },
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo ut_suites[] = {
    { .pName = "validate", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
