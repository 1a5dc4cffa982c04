/* test_order.c — a coarse time unit that keeps the order of two threads'
 * uses of an address (hatf/container/container_order.h): which events keep a 1 us
 * time, what the others get, and the order the readers give back. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cunit_main.h"
#include "hatf_container.h"

static char path1[300];

static hatf_info ns_info(void)
{
    hatf_info in;
    memset(&in, 0, sizeof in);
    in.address_bits = 64;
    in.pid = 7;
    in.time_unit_ns_num = 1;  /* ticks of 1 ns */
    in.time_unit_ns_den = 1;
    strcpy(in.clock, "CLOCK_MONOTONIC");
    return in;
}

#define MS10 10000000ull
#define X 0x1000
#define Y 0x2000

/* Write ev[0..n) one event a call, as the recorder's merged drain gives them,
 * at units of res ns; @return the reader (the caller closes it). */
static hatf_reader *write_read(const hatf_event *ev, size_t n, uint64_t res)
{
    hatf_info in = ns_info();
    hatf_writer_opts o = { .time_res_ns = res };
    hatf_err err = { 0 };
    unlink(path1);
    hatf_writer *w = hatf_writer_create(path1, 0, &in, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (size_t i = 0; i < n; i++) CU_ASSERT_EQUAL(hatf_writer_add(w, &ev[i], 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    return r;
}

/* Each thread's stored times, in its stream order, against want (thread 1's,
 * then thread 2's). */
static void check_times(hatf_reader *r, const uint64_t *want1, size_t n1, const uint64_t *want2, size_t n2)
{
    const uint64_t *want[2] = { want1, want2 };
    size_t nw[2] = { n1, n2 };
    for (int t = 0; t < 2; t++) {
        hatf_iter *it = hatf_iter_thread(r, (uint64_t)t + 1);
        hatf_event ev;
        for (size_t i = 0; i < nw[t]; i++) {
            CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
            if (ev.time != want[t][i])
                printf("\n  thread %d event %zu: time %llu, want %llu", t + 1, i, (unsigned long long)ev.time,
                       (unsigned long long)want[t][i]);
            CU_ASSERT_EQUAL(ev.time, want[t][i]);
        }
        CU_ASSERT_EQUAL(hatf_iter_next(it, &ev), 0);
        hatf_iter_free(it);
    }
}

/* Thread 1 allocates X and hands it to thread 2, which frees it and takes it
 * again, then thread 1 frees it: all in one 10 ms unit. The uses that follow
 * another thread's keep their 1 us time, the others the unit's start (or
 * their thread's time before, never going back); the unit is 1 us, and the
 * global order gives X's uses as they came, where rounding all to 10 ms made
 * them one tie. */
static void test_handoff_in_one_unit(void)
{
    hatf_event ev[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = X, .time = 3 * MS10 + 500 },
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = Y, .time = 3 * MS10 + 1000 },
        { .op = HATF_OP_FREE, .thread = 2, .addr = X, .time = 3 * MS10 + 2300 },            /* after 1's: 30002 us */
        { .op = HATF_OP_ALLOC, .thread = 2, .size = 16, .addr = X, .time = 3 * MS10 + 3000 }, /* after its own: kept */
        { .op = HATF_OP_FREE, .thread = 1, .addr = Y, .time = 3 * MS10 + 4000 },            /* Y is 1's alone */
        { .op = HATF_OP_FREE, .thread = 1, .addr = X, .time = 3 * MS10 + 5700 },            /* after 2's: 30005 */
        { .op = HATF_OP_ALLOC, .thread = 2, .size = 16, .addr = X, .time = 4 * MS10 + 100 }, /* the next unit */
    };
    hatf_reader *r = write_read(ev, 7, MS10);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_num, 1000);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_den, 1);
    static const uint64_t want1[] = { 30000, 30000, 30000, 30005 };
    static const uint64_t want2[] = { 30002, 30002, 40000 };
    check_times(r, want1, 4, want2, 3);
    /* the global order: X allocated by 1, freed and taken by 2, freed by 1 */
    hatf_iter *it = hatf_iter_global(r);
    hatf_event e;
    static const struct { uint64_t thread; unsigned op; } x_uses[] = {
        { 1, HATF_OP_ALLOC }, { 2, HATF_OP_FREE }, { 2, HATF_OP_ALLOC }, { 1, HATF_OP_FREE }, { 2, HATF_OP_ALLOC },
    };
    size_t k = 0;
    while (hatf_iter_next(it, &e) == 1) {
        if (e.addr != X) continue;
        CU_ASSERT_FATAL(k < 5);
        CU_ASSERT_EQUAL(e.thread, x_uses[k].thread);
        CU_ASSERT_EQUAL(e.op, x_uses[k].op);
        k++;
    }
    CU_ASSERT_EQUAL(k, 5);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* A release that follows a release of its address (stamped before the
 * allocation it ends, on another thread: the recorder's early releases)
 * keeps its 1 us time even with no other thread in its unit before it, so
 * the readers' repair (2 us) reaches that allocation; so does the allocation. */
static void test_early_release(void)
{
    hatf_event ev[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = X, .time = 2 * MS10 + 100 },
        { .op = HATF_OP_FREE, .thread = 1, .addr = X, .time = 2 * MS10 + 200 },
        { .op = HATF_OP_FREE, .thread = 2, .addr = X, .time = 3 * MS10 + 1000 },            /* early: 30001 */
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = X, .time = 3 * MS10 + 1500 }, /* after 2's: 30001 */
    };
    hatf_reader *r = write_read(ev, 4, MS10);
    static const uint64_t want1[] = { 20000, 20000, 30001 };
    static const uint64_t want2[] = { 30001 };
    check_times(r, want1, 3, want2, 1);
    hatf_reader_close(r);
}

/* A realloc that gave its block back inside its call keeps its 1 us time and
 * its release's (the readers take a make of the old block after that to be
 * after the release); a release before its thread's time before is raised
 * to it, as every time. */
static void test_release_lead(void)
{
    hatf_event ev[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = X, .time = 3 * MS10 + 100 },
        { .op = HATF_OP_REALLOC_MOVE, .thread = 2, .size = 32, .addr = X, .new_addr = Y,
          .time = 3 * MS10 + 9000, .release_lead = 4000 },  /* release at 30005 us, event at 30009 */
        { .op = HATF_OP_REALLOC_MOVE, .thread = 2, .size = 64, .addr = Y, .new_addr = X,
          .time = 3 * MS10 + 9500, .release_lead = 2000 },  /* release at 30007 us: raised to 30009 */
    };
    hatf_reader *r = write_read(ev, 3, MS10);
    hatf_iter *it = hatf_iter_thread(r, 2);
    hatf_event e;
    CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &e), 1);
    CU_ASSERT_EQUAL(e.time, 30009);
    CU_ASSERT_EQUAL(e.release_lead, 4);
    CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &e), 1);
    CU_ASSERT_EQUAL(e.time, 30009);  /* its thread's time before: never back */
    CU_ASSERT_EQUAL(e.release_lead, 0);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* At 1 us or finer nothing changes: the unit is the one asked for. */
static void test_fine_units_unchanged(void)
{
    hatf_event ev[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = X, .time = 2500 },
        { .op = HATF_OP_FREE, .thread = 2, .addr = X, .time = 2700 },
    };
    hatf_reader *r = write_read(ev, 2, 1000);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_num, 1000);
    static const uint64_t want1[] = { 2 }, want2[] = { 2 };
    check_times(r, want1, 1, want2, 1);
    hatf_reader_close(r);
    r = write_read(ev, 2, 500);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_num, 500);
    static const uint64_t want1b[] = { 5 }, want2b[] = { 5 };
    check_times(r, want1b, 1, want2b, 1);
    hatf_reader_close(r);
}

static int setup(void)
{
    ut_path(path1, sizeof path1, "order.hatf");
    return 0;
}

static CU_TestInfo tests[] = {
    { "a hand-off in one 10 ms unit keeps its order", test_handoff_in_one_unit },
    { "an early release keeps its 1 us time", test_early_release },
    { "a realloc's release half", test_release_lead },
    { "units of 1 us or finer unchanged", test_fine_units_unchanged },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "order", .pInitFunc = setup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
