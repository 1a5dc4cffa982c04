/* test_run.c — the runner's loop structure: ops run in untimed spans between
 * timed calls, and the progress counters are stored at the end of each span.
 * Whatever the sampling rate, a run makes the same calls, ends with the same
 * live bytes and times every call when asked to. */
#include <string.h>

#include "cunit_main.h"
#include "replay.h"

static hatf_event ev(unsigned op, uint64_t heap, uint64_t size, uint64_t addr, uint64_t new_addr)
{
    hatf_event e = { .op = (uint8_t)op, .thread = 1, .heap = heap, .size = size, .addr = addr,
                     .new_addr = new_addr };
    return e;
}

static uint64_t rng = 0x2545f4914f6cdd1dull;
static uint64_t next(void) { return ut_xorshift(&rng); }

/* Rounds of plain mallocs and frees (a varying number, so the heap ops fall
 * anywhere in a span), then a heap created, an object made in it and moved by
 * realloc (RP_HEAP_REALLOC and its RP_ARG op), and the heap destroyed with
 * that object live (RP_HEAP_DFREE). */
static void build(rp_plan *p, unsigned rounds)
{
    enum { LIVE = 100 };
    uint64_t live[LIVE] = { 0 };
    uint64_t addr = 0x10000;
    rp_compiler *c = rp_compiler_new(1);
    CU_ASSERT_FATAL(c != NULL);
    hatf_err err = { 0 };
    uint64_t rec = 0;
#define ADD(e)                                                                          \
    do {                                                                                \
        hatf_event e_ = (e);                                                            \
        CU_ASSERT_EQUAL_FATAL(rp_compiler_add(c, &e_, rec, rec, &err), 0);              \
        rec++;                                                                          \
    } while (0)
    for (unsigned r = 0; r < rounds; r++) {
        unsigned n = 1 + (unsigned)(next() % 150);
        for (unsigned i = 0; i < n; i++) {
            unsigned k = (unsigned)(next() % LIVE);
            if (live[k]) {
                ADD(ev(HATF_OP_FREE, 0, 0, live[k], 0));
                live[k] = 0;
            } else {
                live[k] = addr += 64;
                ADD(ev(HATF_OP_ALLOC, 0, 1 + next() % 48, live[k], 0));
            }
        }
        uint64_t a = addr += 64, b = addr += 64;
        ADD(ev(HATF_OP_HEAP_CREATE, 9, 0, 0, 0));
        ADD(ev(HATF_OP_ALLOC, 9, 10 + r, a, 0));
        ADD(ev(HATF_OP_REALLOC_MOVE, 9, 20 + r, a, b));
        ADD(ev(HATF_OP_HEAP_DESTROY, 9, 0, 0, 0));
    }
#undef ADD
    CU_ASSERT_EQUAL_FATAL(rp_compiler_finish(c, p, &err), 0);
    rp_compiler_free(c);
}

static void test_spans(void)
{
    rp_plan p;
    build(&p, 60);
    CU_ASSERT_EQUAL_FATAL(p.nthreads, 1);
    /* the plan holds what the rounds asked for: a heap realloc and its argument each round */
    unsigned heap_reallocs = 0, args = 0, dfrees = 0;
    for (uint64_t i = 0; i < p.threads[0].nops; i++) {
        unsigned k = rp_op_kind(&p.threads[0].ops[i]);
        heap_reallocs += k == RP_HEAP_REALLOC;
        args += k == RP_ARG;
        dfrees += k == RP_HEAP_DFREE;
    }
    CU_ASSERT_EQUAL(heap_reallocs, 60);
    CU_ASSERT_EQUAL(args, 60);
    CU_ASSERT_EQUAL(dfrees, 60);

    static rp_result res;
    static const unsigned every[] = { 1, 2, 3, 7, 64, 1000000 };
    for (int null_alloc = 1; null_alloc >= 0; null_alloc--) {
        uint64_t calls = 0;
        for (unsigned i = 0; i < sizeof every / sizeof *every; i++) {
            rp_run_opts o = { .touch = RP_TOUCH_NONE, .null_alloc = null_alloc, .latency_every = every[i],
                              .sample_us = 100, .heaps_free_each = 1 };
            CU_ASSERT_EQUAL_FATAL(rp_run(&p, &o, &res), 0);
            /* free-each: the creates and destroys make no call */
            CU_ASSERT_EQUAL(res.skipped_calls, 120);
            CU_ASSERT_EQUAL(res.calls, p.threads[0].calls - 120);
            if (i == 0) calls = res.calls;
            CU_ASSERT_EQUAL(res.calls, calls);
            CU_ASSERT_EQUAL(res.heaps_free_each, 60);
            /* the last sample is taken after the runner ends: its counters are final */
            CU_ASSERT_FATAL(res.nsamples > 0);
            CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].op, res.calls);
            CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].live, p.st.end_live_bytes);
            uint64_t timed = 0;
            for (unsigned k = 0; k < RP_LAT_COUNT_; k++) timed += res.lat_count[k];
            if (every[i] == 1) {
                CU_ASSERT_EQUAL(timed, res.calls);
                CU_ASSERT_EQUAL(res.lat_count[RP_LAT_REALLOC], 60);
                CU_ASSERT_EQUAL(res.lat_count[RP_LAT_HEAP], 0);
            } else {
                CU_ASSERT(timed <= res.calls);
                /* gaps average every[i]: far fewer timed than calls, but some */
                if (every[i] <= 64) CU_ASSERT(timed > 0 && timed < res.calls);
            }
        }
    }
    rp_plan_free(&p);
}

static CU_TestInfo tests[] = {
    { "spans between timed calls", test_spans },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "run", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
