/* test_flusher.c — the recorder core in-process: threads record through the
 * hooks' inline path (ht_emit, ht_emit_free) while the flusher thread drains
 * their rings into the container; the trace read back holds every event of
 * every thread, in order. Runs under TSan too (made smaller):
 *   make SANITIZE=thread B=build-tsan build-tsan/tests/test_flusher */
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf_container.h"
#include "ring.h"
#include "recorder.h"
#include "flusher.h"
#include "prim.h"
#include "process.h"

#if defined(__SANITIZE_THREAD__)
#define UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define UNDER_TSAN 1
#endif
#endif

#ifdef UNDER_TSAN
#define PER_THREAD 3000
#else
#define PER_THREAD 40000
#endif
#define THREADS 4
#define MAIN_EVENTS 10
/* small rings: producers fill them and wait for the flusher */
#define RING_SIZE "256"

/* libhatpreload.a has no constructor (it sits in hooks.c): the test starts
 * the recorder itself once it has set the HATRACE_* variables. */
static char trace[300];

static int start_recorder(void)
{
    ut_path(trace, sizeof trace, "trace.hatf");
    setenv("HATRACE_OUTPUT", trace, 1);
    setenv("HATRACE_RING_SIZE", RING_SIZE, 1);
    setenv("HATRACE_FLUSH_MS", "5", 1);
    setenv("HATRACE_STACKS", "0", 1);
    setenv("HATRACE_DROP", "0", 1);
    ht_real_pthread_create = pthread_create;  /* what the shim (hooks.c) would give */
    setenv("HATRACE_TIME_RES", "0", 1);  /* raw times: order within a stream is exact */
    ht_init(NULL);  /* nothing to resolve: the test links no hooks */
    return 0;
}

/* Thread k's i-th block: distinct addresses per thread, sizes that vary. */
static uint64_t addr_of(unsigned k, unsigned i) { return ((uint64_t)(k + 1) << 40) + (uint64_t)i * 64; }
static uint64_t size_of(unsigned k, unsigned i) { return 1 + (i * 7 + k) % 4000; }

static _Atomic uint64_t fake_frees;
static void fake_free(void *p) { (void)p; atomic_fetch_add_explicit(&fake_frees, 1, memory_order_relaxed); }

static void *producer(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    for (unsigned i = 0; i < PER_THREAD; i++) {
        ht_emit(HT_K_MALLOC, addr_of(k, i), size_of(k, i), 0, 0);
        ht_emit_free(HT_K_FREE, (void *)(uintptr_t)addr_of(k, i), fake_free);
    }
#ifdef UNDER_TSAN
    /* The recorder's key destructor (thread-destroy) re-arms to run in the
     * last round, and so does TSan's, which comes first (older key) and
     * frees the thread's TSan state: the recorder's next atomic then faults.
     * Counting one round as seen moves ours one round earlier. This concerns
     * only a TSan-built recorder core, i.e. this test. */
    ht_t.dtor_rounds = 1;
#endif
    return NULL;
}

/* The stream of one worker thread, checked event by event. @return the
 * worker's index k (from its first address), or -1 when it is no worker. */
static int check_worker(hatf_reader *rd, uint64_t tid, uint64_t *events)
{
    hatf_iter *it = hatf_iter_thread(rd, tid);
    CU_ASSERT_PTR_NOT_NULL_FATAL(it);
    hatf_event ev;
    uint64_t n = 0, last_time = 0, bad = 0;
    int k = -1, rc;
    while ((rc = hatf_iter_next(it, &ev)) == 1) {
        if (ev.thread != tid) bad++;
        if (ev.time < last_time) bad++;
        last_time = ev.time;
        if (n == 0) {
            if (ev.op != HATF_OP_THREAD_CREATE) bad++;
        } else if (n == 2 * PER_THREAD + 1) {
            if (ev.op != HATF_OP_THREAD_DESTROY) bad++;
        } else if (n <= 2 * PER_THREAD) {
            unsigned i = (unsigned)((n - 1) / 2);
            if (n == 1) k = (int)((ev.addr >> 40) - 1);
            unsigned kk = k < 0 ? 0 : (unsigned)k;
            if ((n - 1) % 2 == 0) {
                if (ev.op != HATF_OP_ALLOC || ev.addr != addr_of(kk, i) || ev.size != size_of(kk, i)) bad++;
            } else if (ev.op != HATF_OP_FREE || ev.addr != addr_of(kk, i)) {
                bad++;
            }
        } else {
            bad++;  /* more events than the thread recorded */
        }
        n++;
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(bad, 0);
    hatf_iter_free(it);
    *events = n;
    return n == 2 * PER_THREAD + 2 ? k : -1;
}

/* A heap-create that is not recorded (here: inside an ignored section) frees
 * the copy of the name the recorder made for the flusher: 5000 of them with
 * 200-byte names would hold 1 MB. Before any event, so the main thread is
 * still thread 1 below. (The annotation runtime's symbols: include/hatrace.h.) */
uint64_t hatrace_rt_heap_create(const char *name);
void hatrace_rt_ignore(int delta);

static void test_unrecorded_heap_names_freed(void)
{
    CU_ASSERT_EQUAL_FATAL(atomic_load(&ht_state), HT_ST_READY);
    char name[201];
    memset(name, 'h', 200);
    name[200] = 0;
    hatrace_rt_ignore(1);
    size_t before = mallinfo2().uordblks;
    for (int i = 0; i < 5000; i++) CU_ASSERT(hatrace_rt_heap_create(name) != 0);
    size_t after = mallinfo2().uordblks;
    hatrace_rt_ignore(-1);
    hatrace_rt_ignore(-2147483647 - 1);  /* INT_MIN: no overflow, and nothing to undo */
    CU_ASSERT_EQUAL(ht_t.untraced, 0);
    CU_ASSERT(after < before + 100000);
    CU_ASSERT_PTR_NULL(ht_t.ring);  /* nothing was recorded */
}

static void test_threads_through_flusher(void)
{
    CU_ASSERT_EQUAL_FATAL(atomic_load(&ht_state), HT_ST_READY);

    /* the main thread records first: it is thread 1 */
    for (unsigned i = 0; i < MAIN_EVENTS; i++) ht_emit(HT_K_MALLOC, 0x1000 + i * 16, 100 + i, 0, 0);
    CU_ASSERT(ht_flusher_running());

    pthread_t th[THREADS];
    for (unsigned k = 0; k < THREADS; k++)
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[k], NULL, producer, (void *)(uintptr_t)k), 0);
    for (unsigned k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
    CU_ASSERT_EQUAL(atomic_load(&fake_frees), (uint64_t)THREADS * PER_THREAD);
    ht_finish();
    CU_ASSERT_EQUAL(atomic_load(&ht_state), HT_ST_OFF);
    CU_ASSERT(!ht_flusher_running());

    hatf_err err;
    hatf_reader *rd = hatf_reader_open(trace, &err);
    if (!rd) printf("\n  %s: %s\n", trace, err.msg);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rd);
    CU_ASSERT(hatf_reader_complete(rd));
    const uint64_t total = MAIN_EVENTS + 1 /* destroy */ + 1 /* create */ +
                           (uint64_t)THREADS * (2 * PER_THREAD + 2);
    CU_ASSERT_EQUAL(hatf_reader_event_count(rd), total);
    const hatf_counters *c = hatf_reader_counters(rd);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_EQUAL(c->events, total);
    CU_ASSERT_EQUAL(c->dropped, 0);
    printf("\n  %llu events, %llu ring waits\n", (unsigned long long)c->events,
           (unsigned long long)c->ring_waits);

    const uint64_t *tids;
    size_t nt = hatf_reader_threads(rd, &tids);
    CU_ASSERT_EQUAL_FATAL(nt, THREADS + 1);
    int seen[THREADS] = { 0 };
    for (size_t j = 0; j < nt; j++) {
        if (tids[j] == 1) {  /* main: thread-create, its mallocs, the destroy of ht_finish */
            hatf_iter *it = hatf_iter_thread(rd, 1);
            CU_ASSERT_PTR_NOT_NULL_FATAL(it);
            hatf_event ev;
            unsigned n = 0, allocs = 0;
            int rc;
            while ((rc = hatf_iter_next(it, &ev)) == 1) {
                if (n == 0) CU_ASSERT_EQUAL(ev.op, HATF_OP_THREAD_CREATE);
                if (ev.op == HATF_OP_ALLOC) {
                    CU_ASSERT_EQUAL(ev.addr, 0x1000 + allocs * 16);
                    CU_ASSERT_EQUAL(ev.size, 100 + allocs);
                    allocs++;
                }
                n++;
            }
            CU_ASSERT_EQUAL(rc, 0);
            CU_ASSERT_EQUAL(ev.op, HATF_OP_THREAD_DESTROY);
            CU_ASSERT_EQUAL(allocs, MAIN_EVENTS);
            CU_ASSERT_EQUAL(n, MAIN_EVENTS + 2);
            hatf_iter_free(it);
            continue;
        }
        uint64_t n;
        int k = check_worker(rd, tids[j], &n);
        CU_ASSERT_EQUAL(n, 2 * PER_THREAD + 2);
        CU_ASSERT(k >= 0 && k < THREADS);
        if (k >= 0 && k < THREADS) seen[k]++;
    }
    for (unsigned k = 0; k < THREADS; k++) CU_ASSERT_EQUAL(seen[k], 1);
    hatf_reader_close(rd);
}

static CU_TestInfo tests[] = {
    { "heap names of unrecorded heap-creates are freed", test_unrecorded_heap_names_freed },
    { "threads record while the flusher drains", test_threads_through_flusher },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "flusher", .pInitFunc = start_recorder, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
