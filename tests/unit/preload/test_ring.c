/* test_ring.c — the recorder's SPSC event ring: order, wrap-around, the fill
 * mark, a full ring, and a two-thread stress with exact counts. Also the
 * allocation-free option helpers of the recorder. Runs under TSan too:
 *   make SANITIZE=thread B=build-tsan build-tsan/tests/test_ring */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cunit_main.h"
#include "ring.h"
#include "recorder.h"

#if defined(__SANITIZE_THREAD__)
#define STRESS_EVENTS 200000u
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define STRESS_EVENTS 200000u
#endif
#endif
#ifndef STRESS_EVENTS
#define STRESS_EVENTS 5000000u
#endif

static ht_ring *new_ring(uint32_t cap)
{
    ht_ring *r = aligned_alloc(64, (ht_ring_bytes(cap) + 63) & ~(size_t)63);
    memset(r, 0, ht_ring_bytes(cap));
    ht_ring_init(r, cap);
    return r;
}

static int push(ht_ring *r, uint64_t v, int *marked)
{
    ht_rawev *e = ht_ring_slot(r);
    if (!e) return 0;
    e->tk = v;
    e->a = v * 3;
    e->b = e->c = e->d = 0;
    int m = ht_ring_publish(r);
    if (marked) *marked += m;
    return 1;
}

static void test_empty_and_order(void)
{
    ht_ring *r = new_ring(8);
    const ht_rawev *ev;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 0);
    CU_ASSERT_EQUAL(ht_ring_fill(r), 0);
    for (uint64_t i = 0; i < 5; i++) CU_ASSERT(push(r, 100 + i, NULL));
    CU_ASSERT_EQUAL(ht_ring_fill(r), 5);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 3), 3);  /* max honoured */
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 5);
    for (uint64_t i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL(ev[i].tk, 100 + i);
        CU_ASSERT_EQUAL(ev[i].a, 3 * (100 + i));
    }
    ht_ring_consume(r, 5);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 0);
    free(r);
}

static void test_full_and_mark(void)
{
    ht_ring *r = new_ring(8);
    int marked = 0;
    for (uint64_t i = 0; i < 8; i++) {
        CU_ASSERT(push(r, i, &marked));
        CU_ASSERT_EQUAL(marked, i + 1 >= 4);  /* the mark (half) is crossed exactly once */
    }
    CU_ASSERT_EQUAL(push(r, 8, &marked), 0);   /* full */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 8);
    const ht_rawev *ev;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 1), 1);
    ht_ring_consume(r, 1);
    CU_ASSERT(push(r, 8, &marked));            /* one slot freed, one event fits */
    CU_ASSERT_EQUAL(push(r, 9, &marked), 0);
    /* the producer learnt the tail there: 7 of 8 still waiting, the consumer is
     * behind the mark, so that event poked it again */
    CU_ASSERT_EQUAL(marked, 2);
    free(r);
}

/* A consumer that drained less than half: the producer, learning the tail when
 * the ring looks full, pokes it at once (the fill never crosses the mark again
 * from below, so waiting for that would leave it asleep until the ring is full). */
static void test_mark_consumer_behind(void)
{
    ht_ring *r = new_ring(64);
    int marked = 0;
    for (uint64_t i = 0; i < 64; i++) push(r, i, &marked);
    CU_ASSERT_EQUAL(marked, 1);
    const ht_rawev *ev;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 16), 16);
    ht_ring_consume(r, 16);                    /* 48 left: past the mark (32) */
    CU_ASSERT(push(r, 64, &marked));
    CU_ASSERT_EQUAL(marked, 2);
    for (uint64_t i = 65; i < 80; i++) push(r, i, &marked);
    CU_ASSERT_EQUAL(marked, 2);                /* once */
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 64), 48);
    ht_ring_consume(r, 48);                    /* tail 64: 16 left, under the mark */
    for (uint64_t i = 80; i < 112; i++) push(r, i, &marked);
    /* the producer learns tail 64 on its next event (its view looked full) and
     * pokes when the fill reaches the mark again: head 96 */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 48);
    CU_ASSERT_EQUAL(marked, 3);
    free(r);
}

static void test_wrap_around(void)
{
    ht_ring *r = new_ring(8);
    const ht_rawev *ev;
    for (uint64_t i = 0; i < 6; i++) push(r, i, NULL);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 6);
    ht_ring_consume(r, 6);  /* tail = 6 */
    for (uint64_t i = 6; i < 13; i++) CU_ASSERT(push(r, i, NULL));
    /* 7 waiting: slots 6,7 then 0..4; the first run stops at the end of the array */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 7);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 2);
    CU_ASSERT_EQUAL(ev[0].tk, 6);
    CU_ASSERT_EQUAL(ev[1].tk, 7);
    ht_ring_consume(r, 2);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &ev, 100), 5);
    for (int i = 0; i < 5; i++) CU_ASSERT_EQUAL(ev[i].tk, 8 + (uint64_t)i);
    CU_ASSERT_PTR_EQUAL(ev, &r->ev[0]);
    ht_ring_consume(r, 5);
    CU_ASSERT_EQUAL(ht_ring_fill(r), 0);
    free(r);
}

/* Producer/consumer threads: every event arrives once, in order. The producer
 * waits (counted) whenever the ring is full, as the recorder does by default. */
typedef struct stress {
    ht_ring *r;
    uint64_t n;
    uint64_t waits;
    _Atomic int blocked;  /* the producer has found the ring full */
} stress;

static void *producer(void *v)
{
    stress *s = v;
    for (uint64_t i = 0; i < s->n; i++) {
        ht_rawev *e;
        int waited = 0;
        while (!(e = ht_ring_slot(s->r))) {
            waited = 1;
            atomic_store(&s->blocked, 1);
            sched_yield();
        }
        s->waits += waited;
        e->tk = i;
        e->a = i ^ 0x5555;
        e->d = ~i;
        ht_ring_publish(s->r);
    }
    return NULL;
}

static void test_two_thread_stress(void)
{
    stress s = { .r = new_ring(256), .n = STRESS_EVENTS };
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, producer, &s), 0);
    uint64_t next = 0, bad = 0, sum = 0;
    while (next < s.n) {
        const ht_rawev *ev;
        size_t n = ht_ring_peek(s.r, &ev, 64);
        if (!n) { sched_yield(); continue; }
        for (size_t i = 0; i < n; i++, next++) {
            bad += ev[i].tk != next || ev[i].a != (next ^ 0x5555) || ev[i].d != ~next;
            sum += ev[i].tk;
        }
        ht_ring_consume(s.r, n);
    }
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(next, s.n);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(sum, s.n * (s.n - 1) / 2);
    CU_ASSERT_EQUAL(ht_ring_fill(s.r), 0);
    free(s.r);
}

/* A full ring, a producer that must wait, and a consumer that frees space late. */
static void test_full_ring_wait(void)
{
    stress s = { .r = new_ring(64), .n = 64 + 10 };
    for (uint64_t i = 0; i < 64; i++) push(s.r, i, NULL);  /* pre-filled: ids 0..63 */
    s.n = 10;
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, producer, &s), 0);
    /* consume only once the producer is stuck on the full ring (however late
     * a loaded machine runs it; a minute means it never got there) */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        sched_yield();
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while (!atomic_load(&s.blocked) && t.tv_sec - t0.tv_sec < 60);
    CU_ASSERT_EQUAL_FATAL(atomic_load(&s.blocked), 1);
    CU_ASSERT_EQUAL(ht_ring_fill(s.r), 64);  /* nothing overwritten while full */
    uint64_t got = 0;
    while (got < 74) {
        const ht_rawev *ev;
        size_t n = ht_ring_peek(s.r, &ev, 8);
        for (size_t i = 0; i < n; i++) {
            uint64_t want = got + i < 64 ? got + i : got + i - 64;
            CU_ASSERT_EQUAL(ev[i].tk, want);
        }
        ht_ring_consume(s.r, n);
        got += n;
        if (!n) sched_yield();
    }
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(s.waits, 1);  /* the first push after the pre-fill waited */
    free(s.r);
}

static void test_parse_and_pattern(void)
{
    long v;
    CU_ASSERT_EQUAL(ht_parse_long("4096", &v), 0);
    CU_ASSERT_EQUAL(v, 4096);
    CU_ASSERT_EQUAL(ht_parse_long("64k", &v), 0);
    CU_ASSERT_EQUAL(v, 65536);
    CU_ASSERT_EQUAL(ht_parse_long("-3", &v), 0);
    CU_ASSERT_EQUAL(v, -3);
    CU_ASSERT_EQUAL(ht_parse_long("12x", &v), -1);
    CU_ASSERT_EQUAL(ht_parse_long("", &v), -1);
    CU_ASSERT_EQUAL(ht_parse_long("99999999999999999999", &v), -1);
    char out[64];
    CU_ASSERT_EQUAL(ht_expand_pattern("t.%e.%p.%t.%%.%x", out, sizeof out, 42, "a/b", 1700000000), 0);
    CU_ASSERT_STRING_EQUAL(out, "t.a_b.42.1700000000.%.%x");
    CU_ASSERT_EQUAL(ht_expand_pattern("%e", out, 4, 1, "toolong", 0), -1);
    CU_ASSERT_EQUAL(ht_expand_pattern("x%", out, sizeof out, 1, "p", 0), 0);
    CU_ASSERT_STRING_EQUAL(out, "x%");
}

static CU_TestInfo tests[] = {
    { "empty and order", test_empty_and_order },
    { "full ring and fill mark", test_full_and_mark },
    { "fill mark, consumer behind", test_mark_consumer_behind },
    { "wrap-around", test_wrap_around },
    { "full ring wait", test_full_ring_wait },
    { "two-thread stress", test_two_thread_stress },
    { "option parsing and output pattern", test_parse_and_pattern },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "ring", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
