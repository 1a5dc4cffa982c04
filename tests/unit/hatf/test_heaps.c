/* test_heaps.c — heap names through the container, and `hatrace stats` per heap
 * and per heap name on a container written here (the text form has no names).
 * The stats figures are worked out by hand in the comments. */
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf_container.h"

static char trace[PATH_MAX];

static hatf_event ev(unsigned op, uint64_t time, uint64_t heap, uint64_t size, uint64_t addr)
{
    hatf_event e = { .op = (uint8_t)op, .thread = 1, .heap = heap, .time = time, .size = size, .addr = addr };
    return e;
}

/* Heaps 1 and 2 are named "request", heap 3 "config".
 * live bytes (request): 100, 150, 350 (3 objects: the peak), 250, destroy 1 ends
 * 0x2000 (50) -> 200, 210, destroy 2 ends 0x3000 and 0x4000 (210) -> 0.
 * request: 2 heaps, 4 allocs, 1 free, 360 bytes, destroy_frees 3, destroy_bytes 260. */
static int write_trace(void)
{
    hatf_event e[] = {
        ev(HATF_OP_HEAP_CREATE, 10, 1, 0, 0),   ev(HATF_OP_ALLOC, 20, 1, 100, 0x1000),
        ev(HATF_OP_ALLOC, 30, 1, 50, 0x2000),   ev(HATF_OP_HEAP_CREATE, 40, 2, 0, 0),
        ev(HATF_OP_ALLOC, 50, 2, 200, 0x3000),  ev(HATF_OP_FREE, 60, 1, 0, 0x1000),
        ev(HATF_OP_HEAP_DESTROY, 70, 1, 0, 0),  ev(HATF_OP_ALLOC, 80, 2, 10, 0x4000),
        ev(HATF_OP_HEAP_CREATE, 90, 3, 0, 0),   ev(HATF_OP_ALLOC, 100, 3, 7, 0x5000),
        ev(HATF_OP_HEAP_DESTROY, 110, 2, 0, 0), ev(HATF_OP_ALLOC, 120, 0, 1, 0x6000),
    };
    hatf_info info = { .address_bits = 64, .pid = 42, .time_unit_ns_num = 1, .time_unit_ns_den = 1 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(trace, 1, &info, NULL, &err);
    if (!w) return -1;
    int rc = hatf_writer_name_heap(w, 1, "request");
    rc |= hatf_writer_name_heap(w, 2, "request");
    rc |= hatf_writer_name_heap(w, 3, "config");
    rc |= hatf_writer_add(w, e, sizeof e / sizeof *e);
    rc |= hatf_writer_close(w, NULL, &err);
    return rc;
}

static void test_names(void)
{
    hatf_err err = { 0 };
    hatf_reader *r = hatf_reader_open(trace, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(hatf_reader_heap_name(r, 1), "request");
    CU_ASSERT_STRING_EQUAL(hatf_reader_heap_name(r, 2), "request");
    CU_ASSERT_STRING_EQUAL(hatf_reader_heap_name(r, 3), "config");
    CU_ASSERT_PTR_NULL(hatf_reader_heap_name(r, 0));
    CU_ASSERT_PTR_NULL(hatf_reader_heap_name(r, 4));
    hatf_reader_close(r);
}

/* Run hatrace (next to this test's folder, or $HATRACE) and keep its stdout. */
static char *run(const char *args)
{
    char exe[PATH_MAX], cmd[3 * PATH_MAX];
    const char *h = getenv("HATRACE");
    if (!h) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 16);
        if (n <= 0) return NULL;
        exe[n] = 0;
        strcat(dirname(exe), "/../hatrace");
        h = exe;
    }
    snprintf(cmd, sizeof cmd, "'%s' %s '%s'", h, args, trace);
    FILE *f = popen(cmd, "r");
    if (!f) return NULL;
    static char out[65536];
    size_t len = fread(out, 1, sizeof out - 1, f);
    out[len] = 0;
    return pclose(f) == 0 ? out : NULL;
}

static void test_stats_json(void)
{
    char *o = run("stats --json");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "{\"name\": \"config\", \"heaps\": 1, \"allocs\": 1, \"frees\": 0, \"reallocs\": 0, "
                                     "\"bytes\": 7, \"max_live_objects\": 1, \"max_live_bytes\": 7, "
                                     "\"destroy_frees\": 0, \"destroy_bytes\": 0}"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "{\"name\": \"request\", \"heaps\": 2, \"allocs\": 4, \"frees\": 1, \"reallocs\": 0, "
                                     "\"bytes\": 360, \"max_live_objects\": 3, \"max_live_bytes\": 350, "
                                     "\"destroy_frees\": 3, \"destroy_bytes\": 260}"));
    /* per heap: heap 1 peaked at 150 bytes, its destroy ended one object of 50 */
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "{\"id\": 1, \"name\": \"request\", \"allocs\": 2, \"frees\": 1, \"reallocs\": 0, "
                                     "\"bytes\": 150, \"max_live_objects\": 2, \"max_live_bytes\": 150, "
                                     "\"destroy_frees\": 1, \"destroy_bytes\": 50}"));
    /* the whole trace peaks with request's 350 (config's 7 comes after 140 bytes were freed) */
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "\n  \"max_live_bytes\": 350,\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(o, "\n  \"live_objects_at_end\": 2,\n"));  /* config's 0x5000, heap 0's 0x6000 */
}

static void test_stats_table(void)
{
    char *o = run("stats");
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    const char *t = strstr(o, "\nheap name ");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nconfig                             1            1            0            0"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "\nrequest                            2            4            1            0"));
}

static int setup(void)
{
    ut_path(trace, sizeof trace, "heaps.hatrace");
    if (write_trace()) {
        fprintf(stderr, "cannot write %s\n", trace);
        return 1;
    }
    return 0;
}

static CU_TestInfo tests[] = {
    { "names in the container", test_names },
    { "stats --json per heap name", test_stats_json },
    { "stats table per heap name", test_stats_table },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "heaps", .pInitFunc = setup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
