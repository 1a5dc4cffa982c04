/* test_replay.c — the replay compiler on hand-made event arrays, the flat plan,
 * the runner with the null allocator and with this process's malloc, and the
 * latency histogram. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cunit_main.h"
#include "replay.h"

/* ---- building events --------------------------------------------------- */

static uint8_t attr_pool[64][HATF_ATTRS_MAX];
static unsigned attr_next;

static hatf_event ev(unsigned op, uint64_t thread, uint64_t heap, uint64_t size, uint64_t addr,
                     uint64_t new_addr)
{
    hatf_event e = { .op = (uint8_t)op, .thread = thread, .heap = heap, .size = size, .addr = addr,
                     .new_addr = new_addr };
    return e;
}

/* Attach attributes: pairs of (key, value), ended by 0. */
static hatf_event with(hatf_event e, unsigned k1, uint64_t v1, unsigned k2, uint64_t v2)
{
    hatf_attrs a = { .present = 0 };
    if (k1) { a.value[k1] = v1; a.present |= 1u << k1; }
    if (k2) { a.value[k2] = v2; a.present |= 1u << k2; }
    uint8_t *buf = attr_pool[attr_next++ % 64];
    e.data_len = (uint16_t)hatf_attrs_encode(&a, buf);
    e.data = buf;
    e.attr_is_bytes = 1;
    return e;
}

#define ALLOC(t, size, addr) ev(HATF_OP_ALLOC, t, 0, size, addr, 0)
#define FREE(t, addr) ev(HATF_OP_FREE, t, 0, 0, addr, 0)

/* Compile n events; @return the compiler's result, plan in *p. */
static int compile(const hatf_event *e, size_t n, int single, rp_plan *p, hatf_err *err)
{
    rp_compiler *c = rp_compiler_new(single);
    CU_ASSERT_FATAL(c != NULL);
    int r = 0;
    for (size_t i = 0; i < n && r == 0; i++) r = rp_compiler_add(c, &e[i], i, 100 + 10 * i, err);
    if (r == 0) r = rp_compiler_finish(c, p, err);
    rp_compiler_free(c);
    return r;
}

/* Compile the first n events, which must succeed; the plan in *p. */
static void compile_ok(const hatf_event *e, size_t n, int single, rp_plan *p)
{
    hatf_err err = { 0 };
    CU_ASSERT_EQUAL_FATAL(compile(e, n, single, p, &err), 0);
}
#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define COMPILE_OK(e, single, p) compile_ok(e, LEN(e), single, p)  /* all of array e */

static unsigned K(const rp_plan *p, unsigned t, unsigned i) { return rp_op_kind(&p->threads[t].ops[i]); }
static unsigned F(const rp_plan *p, unsigned t, unsigned i) { return rp_op_flags(&p->threads[t].ops[i]); }
static uint64_t S(const rp_plan *p, unsigned t, unsigned i) { return rp_op_size(&p->threads[t].ops[i]); }
static const rp_op *O(const rp_plan *p, unsigned t, unsigned i) { return &p->threads[t].ops[i]; }

/* ---- compiler ------------------------------------------------------------ */

static void test_basic(void)
{
    hatf_event e[] = { ALLOC(1, 100, 0x1000), ALLOC(1, 50, 0x2000), FREE(1, 0x1000), ALLOC(1, 30, 0x3000),
                       FREE(1, 0x2000), FREE(1, 0x3000) };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.nthreads, 1);
    CU_ASSERT_EQUAL(p.threads[0].nops, 6);
    CU_ASSERT_EQUAL(p.threads[0].calls, 6);
    CU_ASSERT_EQUAL(p.st.ops, 6);
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 150);
    CU_ASSERT_EQUAL(p.st.peak_live_objects, 2);
    CU_ASSERT_EQUAL(p.st.peak_live_index, 2);
    CU_ASSERT_EQUAL(p.st.total_bytes, 180);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 0);
    /* dense slots: 0x1000 -> 0, 0x2000 -> 1; the freed slot 0 is reused for 0x3000 */
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_MALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 0)->slot, 0);
    CU_ASSERT_EQUAL(S(&p, 0, 0), 100);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->slot, 1);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_FREE);
    CU_ASSERT_EQUAL(O(&p, 0, 2)->slot, 0);
    CU_ASSERT_EQUAL(O(&p, 0, 3)->slot, 0);
    CU_ASSERT_EQUAL(p.nslots, 2);
    /* the peak is flagged once, on the op that first reaches it */
    CU_ASSERT_EQUAL(F(&p, 0, 1), RP_F_PEAK);
    CU_ASSERT_EQUAL(F(&p, 0, 0), 0);
    CU_ASSERT_EQUAL(F(&p, 0, 3), 0);
    rp_plan_free(&p);
}

static void test_cross_thread(void)
{
    /* thread 1 makes, thread 2 frees; thread 2 makes, thread 1 reallocs */
    hatf_event e[] = { ALLOC(1, 10, 0x1000), ALLOC(2, 20, 0x2000), FREE(2, 0x1000),
                       ev(HATF_OP_REALLOC_MOVE, 1, 0, 40, 0x2000, 0x3000), FREE(1, 0x3000) };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL_FATAL(p.nthreads, 2);
    CU_ASSERT_EQUAL(p.threads[0].trace_thread, 1);
    CU_ASSERT_EQUAL(p.threads[1].trace_thread, 2);
    CU_ASSERT_EQUAL(p.st.waits, 2);
    /* thread 1: alloc (published), wait for thread 2's object, realloc, free */
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 4);
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_MALLOC);
    CU_ASSERT(F(&p, 0, 0) & RP_F_PUBLISH);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_WAIT);
    uint32_t slot2 = O(&p, 1, 0)->slot;
    CU_ASSERT_EQUAL(O(&p, 0, 1)->slot, slot2);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, 1);  /* first publication of that slot */
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_REALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 2)->slot, slot2);
    CU_ASSERT_EQUAL(S(&p, 0, 2), 40);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_FREE);
    CU_ASSERT_EQUAL(p.threads[0].calls, 3);
    /* thread 2: alloc (published), free of thread 1's object with its wait
       folded in (a realloc's wait, above, is an op of its own) */
    CU_ASSERT_EQUAL_FATAL(p.threads[1].nops, 2);
    CU_ASSERT(F(&p, 1, 0) & RP_F_PUBLISH);
    CU_ASSERT_EQUAL(F(&p, 1, 0) & RP_F_WAIT, 0);
    CU_ASSERT_EQUAL(K(&p, 1, 1), RP_FREE);
    CU_ASSERT_EQUAL(F(&p, 1, 1), RP_F_WAIT);
    CU_ASSERT_EQUAL(O(&p, 1, 1)->slot, O(&p, 0, 0)->slot);
    CU_ASSERT_EQUAL(O(&p, 1, 1)->arg, 1);  /* first publication of that slot */
    CU_ASSERT_EQUAL(p.threads[1].calls, 2);
    /* thread 1's own free waits for nothing */
    CU_ASSERT_EQUAL(F(&p, 0, 3) & RP_F_WAIT, 0);
    /* live: 10, 30, 20, 40 (realloc replaces 20 by 40), 0 */
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 40);
    rp_plan_free(&p);

    /* --threads 1: one list in global order, no waits */
    COMPILE_OK(e, 1, &p);
    CU_ASSERT_EQUAL(p.nthreads, 1);
    CU_ASSERT_EQUAL(p.threads[0].nops, 5);
    CU_ASSERT_EQUAL(p.st.waits, 0);
    CU_ASSERT_EQUAL(F(&p, 0, 0) & RP_F_PUBLISH, 0);
    rp_plan_free(&p);
}

static void test_generation_per_slot(void)
{
    /* slot 0 crosses threads twice: the second wait must expect generation 2 */
    hatf_event e[] = { ALLOC(1, 8, 0x1000), FREE(2, 0x1000), ALLOC(2, 8, 0x1000), FREE(1, 0x1000) };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    /* thread 2 freed slot 0 and reuses it for its own allocation (its ops:
       the free, then the allocation) */
    CU_ASSERT_EQUAL_FATAL(p.threads[1].nops, 2);
    CU_ASSERT_EQUAL(K(&p, 1, 1), RP_MALLOC);
    CU_ASSERT_EQUAL(O(&p, 1, 1)->slot, 0);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_FREE);
    CU_ASSERT_EQUAL(F(&p, 0, 1), RP_F_WAIT);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, 2);
    CU_ASSERT_EQUAL(K(&p, 1, 0), RP_FREE);
    CU_ASSERT(F(&p, 1, 0) & RP_F_WAIT);
    CU_ASSERT_EQUAL(O(&p, 1, 0)->arg, 1);
    rp_plan_free(&p);
}

static void test_inversion(void)
{
    /* Thread 1's moving realloc of 0x1000 is stamped after thread 2 got 0x1000
       back from the allocator: 0x1000 is handed out while it still looks live. */
    hatf_event e[] = { ALLOC(1, 10, 0x1000), ALLOC(2, 70, 0x1000),
                       ev(HATF_OP_REALLOC_MOVE, 1, 0, 30, 0x1000, 0x5000), FREE(2, 0x1000), FREE(1, 0x5000) };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.st.reused_live, 1);
    CU_ASSERT_EQUAL(p.st.late_consumed, 1);
    CU_ASSERT_EQUAL(p.st.left_displaced, 0);
    CU_ASSERT_EQUAL(p.st.waits, 0);  /* each thread consumed its own object */
    /* thread 1's realloc took its own old object (slot 0), thread 2 freed its own */
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_REALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->slot, O(&p, 0, 0)->slot);
    CU_ASSERT_EQUAL(K(&p, 1, 1), RP_FREE);
    CU_ASSERT_EQUAL(O(&p, 1, 1)->slot, O(&p, 1, 0)->slot);
    /* live: 10, 80, 100 (10 -> 30), 30, 0 */
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 100);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 0);
    rp_plan_free(&p);

    /* the thread that made the current object frees it: no late free */
    hatf_event f[] = { ALLOC(1, 10, 0x1000), ALLOC(2, 70, 0x1000), FREE(2, 0x1000), FREE(1, 0x1000) };
    COMPILE_OK(f, 0, &p);
    CU_ASSERT_EQUAL(p.st.reused_live, 1);
    CU_ASSERT_EQUAL(p.st.late_consumed, 0);
    CU_ASSERT_EQUAL(O(&p, 1, 1)->slot, O(&p, 1, 0)->slot);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->slot, O(&p, 0, 0)->slot);
    rp_plan_free(&p);

    /* an old object never freed stays live and is counted */
    hatf_event g[] = { ALLOC(1, 10, 0x1000), ALLOC(1, 20, 0x1000), FREE(1, 0x1000) };
    COMPILE_OK(g, 0, &p);
    CU_ASSERT_EQUAL(p.st.left_displaced, 1);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 10);
    rp_plan_free(&p);
}

static void test_realloc_outcomes(void)
{
    hatf_event e[] = {
        ev(HATF_OP_REALLOC_NEW, 1, 0, 16, 0, 0x1000),          /* realloc(NULL, 16) */
        ev(HATF_OP_REALLOC_INPLACE, 1, 0, 24, 0x1000, 0x1000), /* grew in place */
        ev(HATF_OP_REALLOC_MOVE, 1, 0, 4000, 0x1000, 0x8000),  /* moved */
        ev(HATF_OP_REALLOC_FREE, 1, 0, 0, 0x8000, 0),          /* realloc(p, 0) freed */
    };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 4);
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_REALLOC_NULL);
    CU_ASSERT_EQUAL(S(&p, 0, 0), 16);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_REALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->slot, 0);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, 0);  /* the slot is reused by its own thread */
    CU_ASSERT_EQUAL(S(&p, 0, 1), 24);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_REALLOC);
    CU_ASSERT_EQUAL(S(&p, 0, 2), 4000);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_FREE);
    CU_ASSERT_EQUAL(p.st.realloc_free, 1);
    CU_ASSERT_EQUAL(p.st.ops, 4);
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 4000);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 0);
    CU_ASSERT_EQUAL(p.nslots, 1);
    rp_plan_free(&p);
}

static void test_heaps(void)
{
    hatf_event e[] = { ev(HATF_OP_HEAP_CREATE, 1, 5, 0, 0, 0), ev(HATF_OP_ALLOC, 1, 5, 100, 0x1000, 0),
                       ev(HATF_OP_ALLOC, 2, 5, 200, 0x2000, 0), ALLOC(1, 7, 0x3000),
                       ev(HATF_OP_FREE, 1, 5, 0, 0x1000, 0), ev(HATF_OP_ALLOC, 1, 5, 300, 0x4000, 0),
                       ev(HATF_OP_HEAP_DESTROY, 1, 5, 0, 0, 0) };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_created, 1);
    CU_ASSERT_EQUAL(p.st.heaps_destroyed, 1);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 0);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 1);       /* thread 2 allocated in it */
    CU_ASSERT_EQUAL(p.st.heap_frees, 2);        /* 0x4000 and thread 2's 0x2000 */
    CU_ASSERT_EQUAL(p.st.ops, 5);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 7);    /* heap 0's object stays */
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 507); /* 200 + 7 + 300 */
    CU_ASSERT_EQUAL(p.st.waits, 1);             /* thread 2's object freed on thread 1 */
    /* thread 1: create, alloc (heap kind: the heap was still confined), alloc,
       free, alloc, free 0x4000, free 0x2000 (waiting for it); no destroy op:
       never native */
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 7);
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_HEAP_CREATE);
    CU_ASSERT_EQUAL(F(&p, 0, 0) & RP_F_NATIVE, 0);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_HEAP_ALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, O(&p, 0, 0)->slot);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_FREE);
    CU_ASSERT_EQUAL(K(&p, 0, 4), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 5), RP_FREE);
    CU_ASSERT_EQUAL(F(&p, 0, 5) & RP_F_WAIT, 0);
    CU_ASSERT_EQUAL(K(&p, 0, 6), RP_FREE);
    CU_ASSERT_EQUAL(F(&p, 0, 6), RP_F_WAIT);
    CU_ASSERT_EQUAL(O(&p, 0, 6)->slot, O(&p, 1, 0)->slot);
    CU_ASSERT_EQUAL(O(&p, 0, 6)->arg, 1);
    CU_ASSERT_EQUAL(K(&p, 1, 0), RP_MALLOC);
    rp_plan_free(&p);

    /* the same trace on one runner thread: the heap is confined, so native */
    COMPILE_OK(e, 1, &p);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 1);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 0);
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 9);
    CU_ASSERT(F(&p, 0, 0) & RP_F_NATIVE);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_HEAP_ALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 4), RP_HEAP_FREE);
    CU_ASSERT_EQUAL(K(&p, 0, 6), RP_HEAP_DFREE);
    CU_ASSERT_EQUAL(K(&p, 0, 7), RP_HEAP_DFREE);
    CU_ASSERT_EQUAL(K(&p, 0, 8), RP_HEAP_DESTROY);
    CU_ASSERT_EQUAL(O(&p, 0, 8)->slot, O(&p, 0, 0)->slot);
    rp_plan_free(&p);
}

/* A heap confined to one thread: every heap kind, then run free-each (this
 * process's malloc has no heap API, and the null allocator never has one). */
static void test_heap_confined(void)
{
    hatf_event e[] = {
        ev(HATF_OP_HEAP_CREATE, 1, 7, 0, 0, 0),
        ev(HATF_OP_ALLOC, 1, 7, 100, 0x1000, 0),
        with(ev(HATF_OP_ALLOC, 1, 7, 40, 0x2000, 0), HATF_A_FUNC, HATF_FN_CALLOC, HATF_A_NMEMB, 4),
        ALLOC(1, 10, 0x9000),
        ev(HATF_OP_FREE, 1, 7, 0, 0x1000, 0),
        ev(HATF_OP_REALLOC_MOVE, 1, 7, 80, 0x2000, 0x3000),
        ev(HATF_OP_HEAP_DESTROY, 1, 7, 0, 0, 0),
        FREE(1, 0x9000),
    };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 1);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 0);
    CU_ASSERT_EQUAL(p.st.heap_frees, 1);
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 150);
    CU_ASSERT_EQUAL(p.st.end_live_bytes, 0);
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 10);
    CU_ASSERT_EQUAL(p.threads[0].calls, 9);  /* the RP_ARG is no call */
    uint32_t hs = O(&p, 0, 0)->slot;
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_HEAP_CREATE);
    CU_ASSERT_EQUAL(F(&p, 0, 0), RP_F_NATIVE);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_HEAP_ALLOC);
    CU_ASSERT_EQUAL(S(&p, 0, 1), 100);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, hs);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_HEAP_ALLOC);
    CU_ASSERT(F(&p, 0, 2) & RP_F_ZERO);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 4), RP_HEAP_FREE);
    CU_ASSERT_EQUAL(O(&p, 0, 4)->arg, hs);
    CU_ASSERT_EQUAL(K(&p, 0, 5), RP_HEAP_REALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 5)->slot, O(&p, 0, 2)->slot);
    CU_ASSERT_EQUAL(K(&p, 0, 6), RP_ARG);
    CU_ASSERT_EQUAL(O(&p, 0, 6)->slot, hs);
    CU_ASSERT_EQUAL(K(&p, 0, 7), RP_HEAP_DFREE);
    CU_ASSERT_EQUAL(O(&p, 0, 7)->slot, O(&p, 0, 5)->arg);
    CU_ASSERT_EQUAL(K(&p, 0, 8), RP_HEAP_DESTROY);
    CU_ASSERT_EQUAL(O(&p, 0, 8)->slot, hs);
    CU_ASSERT_EQUAL(K(&p, 0, 9), RP_FREE);
    CU_ASSERT(p.threads[0].bump_bytes >= 112 + 48 + 16 + 80);

    static rp_result res;
    for (int null_alloc = 1; null_alloc >= 0; null_alloc--) {
        rp_run_opts o = { .touch = RP_TOUCH_ALL, .null_alloc = null_alloc, .latency_every = 1, .sample_us = 100 };
        CU_ASSERT_EQUAL(rp_run(&p, &o, &res), 0);
        CU_ASSERT_STRING_EQUAL(res.msg, "");
        CU_ASSERT_EQUAL(res.heaps_native, 0);
        CU_ASSERT_EQUAL(res.heaps_free_each, 1);
        CU_ASSERT_EQUAL(res.skipped_calls, 2);  /* create and destroy: no heap API */
        CU_ASSERT_EQUAL(res.calls, 7);
        CU_ASSERT_STRING_EQUAL(res.heap_mode, "free-each");
        CU_ASSERT_STRING_EQUAL(res.heap_api, "none");
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_MALLOC], 3);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_REALLOC], 1);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_FREE], 3);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_HEAP], 0);
        CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].op, 7);  /* calls made */
        CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].live, 0);
    }
    rp_plan_free(&p);
}

/* What keeps a heap from being native: an aligned allocation in it, an
 * object realloc'd out of it, an allocation on another thread. */
static void test_heap_not_native(void)
{
    hatf_event aligned[] = {
        ev(HATF_OP_HEAP_CREATE, 1, 3, 0, 0, 0),
        with(ev(HATF_OP_ALLOC, 1, 3, 64, 0x1000, 0), HATF_A_FUNC, HATF_FN_POSIX_MEMALIGN, HATF_A_ALIGN, 64),
        ev(HATF_OP_HEAP_DESTROY, 1, 3, 0, 0, 0),
    };
    hatf_event moved[] = {
        ev(HATF_OP_HEAP_CREATE, 1, 3, 0, 0, 0),
        ev(HATF_OP_ALLOC, 1, 3, 64, 0x1000, 0),
        ev(HATF_OP_REALLOC_MOVE, 1, 0, 128, 0x1000, 0x2000),  /* into heap 0 */
        ev(HATF_OP_HEAP_DESTROY, 1, 3, 0, 0, 0),
        FREE(1, 0x2000),
    };
    hatf_event foreign[] = {
        ev(HATF_OP_HEAP_CREATE, 1, 3, 0, 0, 0),
        ev(HATF_OP_ALLOC, 1, 3, 64, 0x1000, 0),
        ev(HATF_OP_ALLOC, 2, 3, 16, 0x2000, 0),
        ev(HATF_OP_ALLOC, 1, 3, 32, 0x3000, 0),
        /* never destroyed: judged at the end of the trace */
    };
    rp_plan p;
    COMPILE_OK(aligned, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 1);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_POSIX_MEMALIGN);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_FREE);
    CU_ASSERT_EQUAL(p.threads[0].nops, 3);  /* no destroy op */
    rp_plan_free(&p);

    COMPILE_OK(moved, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 1);
    CU_ASSERT_EQUAL(p.st.heap_frees, 0);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_HEAP_ALLOC);  /* falls back to malloc at run time */
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_REALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_FREE);
    CU_ASSERT_EQUAL(p.threads[0].nops, 4);
    CU_ASSERT_EQUAL(F(&p, 0, 0) & RP_F_NATIVE, 0);
    rp_plan_free(&p);

    COMPILE_OK(foreign, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 1);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 0);
    CU_ASSERT_EQUAL(K(&p, 1, 0), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_MALLOC);
    rp_plan_free(&p);

    /* a heap never destroyed but confined is still native (thread 1 alone) */
    compile_ok(foreign, 2, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 1);
    CU_ASSERT_EQUAL(F(&p, 0, 0), RP_F_NATIVE);
    rp_plan_free(&p);
}

/* Frees from another thread keep a heap native: they publish on the heap's
 * slot and the owner waits for them before the destroy. Run it too. */
static void test_heap_foreign_free(void)
{
    hatf_event e[] = {
        ev(HATF_OP_HEAP_CREATE, 1, 4, 0, 0, 0),
        ev(HATF_OP_ALLOC, 1, 4, 64, 0x1000, 0),
        ev(HATF_OP_ALLOC, 1, 4, 32, 0x2000, 0),
        ev(HATF_OP_ALLOC, 1, 4, 16, 0x3000, 0),
        ev(HATF_OP_FREE, 2, 0, 0, 0x1000, 0),   /* a free need not name the heap */
        ev(HATF_OP_FREE, 3, 4, 0, 0x3000, 0),
        ev(HATF_OP_HEAP_DESTROY, 1, 4, 0, 0, 0),
    };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.st.heaps_confined, 1);
    CU_ASSERT_EQUAL(p.st.heaps_shared, 0);
    CU_ASSERT_EQUAL(p.st.waits, 3);  /* two object waits, the owner's wait for both frees */
    CU_ASSERT_EQUAL_FATAL(p.nthreads, 3);
    uint32_t hs = O(&p, 0, 0)->slot;
    CU_ASSERT_EQUAL(F(&p, 0, 0), RP_F_NATIVE);
    /* threads 2 and 3: wait for the object, free it in the heap, publish */
    for (unsigned t = 1; t <= 2; t++) {
        CU_ASSERT_EQUAL_FATAL(p.threads[t].nops, 2);
        CU_ASSERT_EQUAL(K(&p, t, 0), RP_WAIT);
        CU_ASSERT_EQUAL(K(&p, t, 1), RP_HEAP_FREE);
        CU_ASSERT_EQUAL(F(&p, t, 1), RP_F_PUBLISH);
        CU_ASSERT_EQUAL(O(&p, t, 1)->arg, hs);
    }
    /* thread 1: create, 3 allocs, the free at destroy, wait for 2 frees, destroy */
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 7);
    CU_ASSERT_EQUAL(K(&p, 0, 4), RP_HEAP_DFREE);
    CU_ASSERT_EQUAL(K(&p, 0, 5), RP_WAIT);
    CU_ASSERT_EQUAL(O(&p, 0, 5)->slot, hs);
    CU_ASSERT_EQUAL(O(&p, 0, 5)->arg, 2);
    CU_ASSERT_EQUAL(K(&p, 0, 6), RP_HEAP_DESTROY);
    static rp_result res;
    for (int null_alloc = 1; null_alloc >= 0; null_alloc--) {
        rp_run_opts o = { .touch = RP_TOUCH_PAGE, .null_alloc = null_alloc, .latency_every = 1, .sample_us = 100 };
        CU_ASSERT_EQUAL(rp_run(&p, &o, &res), 0);  /* a missed publish would hang here */
        CU_ASSERT_STRING_EQUAL(res.msg, "");
        CU_ASSERT_EQUAL(res.heaps_free_each, 1);
        CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].live, 0);
    }
    rp_plan_free(&p);
}

static void test_null_and_failed(void)
{
    hatf_event e[] = {
        FREE(1, 0),                                                          /* free(NULL) */
        with(ALLOC(1, 64, 0), HATF_A_FUNC, HATF_FN_MALLOC, HATF_A_FAILED, 1), /* failed malloc */
        ALLOC(1, 10, 0x1000),
        with(ev(HATF_OP_REALLOC_MOVE, 1, 0, 1 << 30, 0x1000, 0), HATF_A_FUNC, HATF_FN_REALLOC, HATF_A_FAILED, 1),
        FREE(1, 0x1000),
    };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(p.st.ops, 5);
    CU_ASSERT_EQUAL(p.st.free_null, 1);
    CU_ASSERT_EQUAL(p.st.skipped_failed, 2);
    CU_ASSERT_EQUAL_FATAL(p.threads[0].nops, 3);
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_FREE_NULL);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_FREE);  /* the failed realloc left the object live */
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 10);
    rp_plan_free(&p);
}

static void test_func_attrs(void)
{
    hatf_event e[] = {
        with(ALLOC(1, 96, 0x1000), HATF_A_FUNC, HATF_FN_CALLOC, HATF_A_NMEMB, 12),
        with(ALLOC(1, 100, 0x2000), HATF_A_FUNC, HATF_FN_MEMALIGN, HATF_A_ALIGN, 64),
        with(ALLOC(1, 100, 0x3000), HATF_A_FUNC, HATF_FN_POSIX_MEMALIGN, HATF_A_ALIGN, 4096),
        with(ALLOC(1, 128, 0x4000), HATF_A_FUNC, HATF_FN_ALIGNED_ALLOC, HATF_A_ALIGN, 32),
        with(ALLOC(1, 100, 0x5000), HATF_A_FUNC, HATF_FN_VALLOC, 0, 0),
        with(ALLOC(1, 100, 0x6000), HATF_A_FUNC, HATF_FN_PVALLOC, 0, 0),
        with(ALLOC(1, 8, 0x7000), HATF_A_FUNC, HATF_FN_NEW, 0, 0),
        ALLOC(1, 8, 0x8000),
        with(ALLOC(1, 8, 0x9000), HATF_A_FUNC, 1ull << 32 | HATF_FN_CALLOC, 0, 0),  /* unknown, not calloc */
    };
    rp_plan p;
    COMPILE_OK(e, 0, &p);
    CU_ASSERT_EQUAL(K(&p, 0, 0), RP_CALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 0)->arg, 12);
    CU_ASSERT_EQUAL(K(&p, 0, 1), RP_MEMALIGN);
    CU_ASSERT_EQUAL(O(&p, 0, 1)->arg, 6);
    CU_ASSERT_EQUAL(K(&p, 0, 2), RP_POSIX_MEMALIGN);
    CU_ASSERT_EQUAL(O(&p, 0, 2)->arg, 12);
    CU_ASSERT_EQUAL(K(&p, 0, 3), RP_ALIGNED_ALLOC);
    CU_ASSERT_EQUAL(O(&p, 0, 3)->arg, 5);
    CU_ASSERT_EQUAL(K(&p, 0, 4), RP_VALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 5), RP_PVALLOC);
    CU_ASSERT_EQUAL(p.st.pvalloc, 1);
    CU_ASSERT_EQUAL(K(&p, 0, 6), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 7), RP_MALLOC);
    CU_ASSERT_EQUAL(K(&p, 0, 8), RP_MALLOC);
    /* null allocator reserve: sizes rounded to 16 (96+112+112+128+112+112+16+16+16 = 720)
       plus alignments 64 + 4096 + 32 and two pages each for valloc and pvalloc */
    CU_ASSERT_EQUAL(p.threads[0].bump_bytes, 720 + 64 + 4096 + 32 + 4 * 4096);
    rp_plan_free(&p);
}

static void test_errors(void)
{
    hatf_event e[] = { ALLOC(1, 10, 0x1000), FREE(1, 0x1000), ALLOC(1, 5, 0x2000), FREE(3, 0xdead) };
    rp_plan p;
    hatf_err err = { 0 };
    err.record = UINT64_MAX;
    CU_ASSERT_EQUAL(compile(e, LEN(e), 0, &p, &err), HATF_E_CORRUPT);
    CU_ASSERT_EQUAL(err.record, 3);
    CU_ASSERT_EQUAL(err.offset, 130);
    CU_ASSERT_STRING_EQUAL(err.msg, "record 3: free of 0xdead on thread 3, which is not live");

    hatf_event f[] = { ALLOC(1, 10, 0x1000), ev(HATF_OP_REALLOC_MOVE, 1, 0, 9, 0x3000, 0x4000) };
    hatf_err err2 = { 0 };
    CU_ASSERT_EQUAL(compile(f, LEN(f), 0, &p, &err2), HATF_E_CORRUPT);
    CU_ASSERT_STRING_EQUAL(err2.msg, "record 1: realloc-move of 0x3000 on thread 1, which is not live");

    hatf_event g[] = { ALLOC(1, (uint64_t)1 << 50, 0x1000) };
    hatf_err err3 = { 0 };
    CU_ASSERT_EQUAL(compile(g, LEN(g), 0, &p, &err3), HATF_E_LIMIT);
}

/* ---- flat plan and runner ----------------------------------------------- */

static void test_flat_and_run(void)
{
    hatf_event e[] = { ALLOC(1, 100, 0x1000), ALLOC(2, 5000, 0x2000), FREE(2, 0x1000),
                       with(ALLOC(2, 64, 0x3000), HATF_A_FUNC, HATF_FN_ALIGNED_ALLOC, HATF_A_ALIGN, 64),
                       ev(HATF_OP_REALLOC_MOVE, 1, 0, 9000, 0x2000, 0x5000), FREE(1, 0x3000), FREE(2, 0x5000),
                       FREE(1, 0) };
    rp_plan built, p;
    hatf_err err = { 0 };
    COMPILE_OK(e, 0, &built);
    int fd = memfd_create("test-plan", MFD_CLOEXEC);
    CU_ASSERT_FATAL(fd >= 0);
    /* segments of at most 2 ops: the file holds each thread's ops in order, in several */
    CU_ASSERT_EQUAL_FATAL(rp_plan_save(&built, fd, 2), 0);
    CU_ASSERT_EQUAL_FATAL(rp_plan_load(fd, &p, &err), 0);
    CU_ASSERT_EQUAL(p.nthreads, built.nthreads);
    CU_ASSERT_EQUAL(p.nslots, built.nslots);
    CU_ASSERT_EQUAL(p.st.peak_live_bytes, 9064);
    CU_ASSERT(p.nsegs > p.nthreads);
    for (uint32_t t = 0; t < p.nthreads; t++) {
        CU_ASSERT_EQUAL(p.threads[t].nops, built.threads[t].nops);
        CU_ASSERT_EQUAL(p.threads[t].calls, built.threads[t].calls);
        rp_op ops[64];
        uint64_t n = 0;
        for (uint64_t k = p.threads[t].first_seg; k < p.threads[t].first_seg + p.threads[t].nsegs; k++) {
            CU_ASSERT_FATAL(n + p.segs[k].nops <= 64 && p.segs[k].nops <= 3);
            CU_ASSERT_EQUAL_FATAL(rp_plan_read_seg(&p, k, ops + n), 0);
            n += p.segs[k].nops;
        }
        CU_ASSERT_EQUAL(n, built.threads[t].nops);
        CU_ASSERT_EQUAL(memcmp(ops, built.threads[t].ops, n * sizeof(rp_op)), 0);
    }
    /* a file that is not a plan */
    rp_plan bad;
    int zfd = memfd_create("test-bad-plan", MFD_CLOEXEC);
    CU_ASSERT_FATAL(zfd >= 0);
    CU_ASSERT_EQUAL(write(zfd, "not a plan, not a plan, not a plan, not a plan, not a plan.........", 64), 64);
    CU_ASSERT_EQUAL(rp_plan_load(zfd, &bad, &err), HATF_E_CORRUPT);
    close(zfd);
    static rp_result res;  /* large: keep it off the stack */
    for (int null_alloc = 1; null_alloc >= 0; null_alloc--) {
        rp_run_opts o = { .touch = RP_TOUCH_ALL, .null_alloc = null_alloc, .latency_every = 1, .sample_us = 100 };
        CU_ASSERT_EQUAL(rp_run(&p, &o, &res), 0);
        CU_ASSERT_EQUAL(res.calls, 8);
        CU_ASSERT_EQUAL(res.ops, 8);
        CU_ASSERT_EQUAL(res.peak_live_bytes, 9064);
        CU_ASSERT_STRING_EQUAL(res.msg, "");
        /* every call timed: 3 mallocs + 1 aligned, 1 realloc, 4 frees incl. free(NULL) */
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_MALLOC], 2);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_ALIGNED], 1);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_REALLOC], 1);
        CU_ASSERT_EQUAL(res.lat_count[RP_LAT_FREE], 4);
        CU_ASSERT(res.nsamples >= 2);
        CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].op, 8);
        CU_ASSERT_EQUAL(res.samples[res.nsamples - 1].live, 0);
        CU_ASSERT(res.wall_s > 0);
    }
    rp_plan_free(&p);
    rp_plan_free(&built);
    close(fd);
}

static void test_hist(void)
{
    CU_ASSERT_EQUAL(rp_hist_bucket(0), 0);
    CU_ASSERT_EQUAL(rp_hist_bucket(7), 7);
    CU_ASSERT_EQUAL(rp_hist_bucket(8), 8);
    CU_ASSERT_EQUAL(rp_hist_bucket(15), 15);
    CU_ASSERT_EQUAL(rp_hist_bucket(16), 16);
    CU_ASSERT_EQUAL(rp_hist_bucket(17), 16);  /* width 2 from 16 on */
    CU_ASSERT_EQUAL(rp_hist_bucket(18), 17);
    CU_ASSERT_EQUAL(rp_hist_bucket(1000), 8 * 7 + 7);  /* 2^9 * (1 + 7/8) = 960 <= 1000 < 1024 */
    CU_ASSERT(rp_hist_bucket(UINT64_MAX) < RP_HIST_BUCKETS);
    CU_ASSERT_DOUBLE_EQUAL(rp_hist_value(16), 17.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rp_hist_value(63), 992.0, 1e-9);  /* [960, 1024) */
    static rp_hist h;
    memset(&h, 0, sizeof h);
    h.n[rp_hist_bucket(10)] = 990;
    h.n[rp_hist_bucket(1000)] = 9;
    h.n[rp_hist_bucket(100000)] = 1;
    CU_ASSERT_DOUBLE_EQUAL(rp_hist_quantile(&h, 0.5), 10.0, 1e-9);
    CU_ASSERT_DOUBLE_EQUAL(rp_hist_quantile(&h, 0.99), 992.0, 1e-9);
    CU_ASSERT(rp_hist_quantile(&h, 0.999) > 90000);
}

static void test_frag(void)
{
    static rp_result r;
    memset(&r, 0, sizeof r);
    /* calls 0..100 at live 100 and rss 200, then 100..400 at live 300 and rss 300 */
    r.samples[0] = (rp_sample){ 0, 0, 0 };
    r.samples[1] = (rp_sample){ 100, 100, 200 };
    r.samples[2] = (rp_sample){ 400, 300, 300 };
    r.nsamples = 3;
    r.peak_live_bytes = 300;
    r.rss_at_peak_live = 330;
    r.peak_rss_bytes = 400;
    r.peak_rss_busy_bytes = 400;
    r.live_at_peak_rss = 200;
    rp_figures_frag(&r);
    CU_ASSERT_DOUBLE_EQUAL(r.frag_time_avg, (100.0 * 200 + 300.0 * 300) / (100.0 * 100 + 300.0 * 300), 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.frag_at_peak_live, 1.1, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.frag_at_peak_rss, 2.0, 1e-12);
    CU_ASSERT_DOUBLE_EQUAL(r.frag_peak_over_peak, 400.0 / 300, 1e-12);
}

/* frag_at_peak_rss's terms: the peak while live bytes are at least a tenth of
 * theirs, at its first sample within 1% */
static void test_peak_rss_busy(void)
{
    uint64_t rss = 1, live = 1;
    /* memory creeping up while the program drains to almost nothing at the end:
     * judged before the drain (the whole series' peak, 10100 at live 5, is not) */
    const rp_sample drain[] = { { 0, 0, 0 }, { 100, 1000, 3000 }, { 200, 2000, 9000 }, { 300, 1800, 9500 },
                                { 350, 150, 9900 }, { 400, 5, 10100 } };
    rp_peak_rss_busy(drain, 6, 2000, &rss, &live);
    CU_ASSERT_EQUAL(rss, 9500);
    CU_ASSERT_EQUAL(live, 1800);
    /* pages kept to the end at live 0: where it first grew that large; an
     * earlier sample within 1% of the peak is the one */
    const rp_sample kept[] = { { 0, 0, 0 }, { 100, 1500, 9950 }, { 200, 2000, 10000 }, { 300, 0, 10000 } };
    rp_peak_rss_busy(kept, 4, 2000, &rss, &live);
    CU_ASSERT_EQUAL(rss, 10000);
    CU_ASSERT_EQUAL(live, 1500);
    /* exactly a tenth of the peak counts */
    const rp_sample tenth[] = { { 100, 2000, 5000 }, { 200, 200, 8000 }, { 300, 199, 9000 } };
    rp_peak_rss_busy(tenth, 3, 2000, &rss, &live);
    CU_ASSERT_EQUAL(rss, 8000);
    CU_ASSERT_EQUAL(live, 200);
    /* no sample with live bytes (a run shorter than a sampling period): none */
    const rp_sample none[] = { { 0, 0, 0 }, { 500, 0, 4096 } };
    rp_peak_rss_busy(none, 2, 2000, &rss, &live);
    CU_ASSERT_EQUAL(rss, 0);
    CU_ASSERT_EQUAL(live, 0);
}

static void test_allocators(void)
{
    rp_allocator a;
    hatf_err err = { 0 };
    CU_ASSERT_EQUAL(rp_allocator_resolve("glibc", &a, &err), 0);
    CU_ASSERT_STRING_EQUAL(a.path, "");
    CU_ASSERT_EQUAL(rp_allocator_resolve("null", &a, &err), 0);
    CU_ASSERT_EQUAL(a.is_null, 1);
    CU_ASSERT_EQUAL(rp_allocator_resolve("dlmalloc", &a, &err), HATF_E_USAGE);
    hatf_err e2 = { 0 };
    CU_ASSERT_EQUAL(rp_allocator_resolve("/nonexistent/libx.so", &a, &e2), HATF_E_USAGE);
    if (rp_allocator_installed("jemalloc")) {
        CU_ASSERT_EQUAL(rp_allocator_resolve("jemalloc", &a, &err), 0);
        CU_ASSERT(strstr(a.path, "/libjemalloc.so.2") != NULL);
    }
}

/* Where the plan goes: memory only for a known size, a quarter of what is
 * free at most; TMPDIR, when set, is where the plan goes whatever its size. */
static void test_plan_place(void)
{
    CU_ASSERT_TRUE(rp_plan_in_memory(1000, 4000));
    CU_ASSERT_FALSE(rp_plan_in_memory(1001, 4000));
    CU_ASSERT_FALSE(rp_plan_in_memory(0, 4000));  /* size unknown */
    CU_ASSERT_FALSE(rp_plan_in_memory(10, 0));    /* memory unknown */
    CU_ASSERT(rp_mem_available() > 0);            /* /proc/meminfo is there */
    char *old = getenv("TMPDIR") ? strdup(getenv("TMPDIR")) : NULL;
    unsetenv("TMPDIR");
    hatf_err err = { 0 };
    char link[64], target[256];
    const char *where = NULL;
    int fd = rp_plan_tmpfile(NULL, 4096, &where, &err);  /* small: in memory */
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_STRING_EQUAL(where, "memory");
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    CU_ASSERT_FATAL(n > 0);
    target[n] = 0;
    CU_ASSERT(strncmp(target, "/memfd:hatrace-plan", 19) == 0);
    close(fd);
    fd = rp_plan_tmpfile(NULL, 0, &where, &err);  /* unknown: /tmp */
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_STRING_EQUAL(where, "/tmp");
    n = readlink(link, target, sizeof target - 1);
    CU_ASSERT_FATAL(n > 0);
    target[n] = 0;
    CU_ASSERT(strncmp(target, "/tmp/", 5) == 0);
    close(fd);
    setenv("TMPDIR", "/nonexistent-dir", 1);  /* TMPDIR named: there, not memory */
    CU_ASSERT_EQUAL(rp_plan_tmpfile(NULL, 4096, NULL, &err), -1);
    CU_ASSERT(strstr(err.msg, "/nonexistent-dir") != NULL);
    if (old) setenv("TMPDIR", old, 1);
    else unsetenv("TMPDIR");
    free(old);
}

static CU_TestInfo tests[] = {
    { "basic", test_basic },
    { "cross-thread", test_cross_thread },
    { "generation per slot", test_generation_per_slot },
    { "inversions", test_inversion },
    { "realloc outcomes", test_realloc_outcomes },
    { "heaps", test_heaps },
    { "heap confined", test_heap_confined },
    { "heap not native", test_heap_not_native },
    { "heap freed from other threads", test_heap_foreign_free },
    { "free(NULL) and failed", test_null_and_failed },
    { "func attributes", test_func_attrs },
    { "errors", test_errors },
    { "flat plan and runner", test_flat_and_run },
    { "histogram", test_hist },
    { "fragmentation", test_frag },
    { "peak rss while busy", test_peak_rss_busy },
    { "allocators", test_allocators },
    { "plan place", test_plan_place },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "replay", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
