/* test_ring.c — the recorder's SPSC event ring: short and long events, order,
 * wrap-around into the spare units, the fill mark, a full ring, and a
 * two-thread stress with exact counts. Also the allocation-free option
 * helpers of the recorder. Runs under TSan too:
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
#include "options.h"

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

/* Event v: a malloc of v & 0xffff bytes at v * 3 (short), or when lng a
 * realloc from v * 3 to ~v (long). */
static int push_ev(ht_ring *r, uint64_t v, int lng, int *marked)
{
    ht_rawev *e = ht_ring_slot(r);
    if (!e) return 0;
    unsigned u = lng ? ht_rawev_put(e, v << HT_TK_SHIFT | HT_K_REALLOC, v * 3, 16, ~v, 0)
                     : ht_rawev_put(e, v << HT_TK_SHIFT | HT_K_MALLOC, v * 3, v & 0xffff, 0, 0);
    CU_ASSERT_EQUAL(u, lng ? HT_LONG_UNITS : 1);
    int m = ht_ring_publish(r, u);
    if (marked) *marked += m;
    return 1;
}
static int push(ht_ring *r, uint64_t v, int *marked) { return push_ev(r, v, 0, marked); }

/* Check the event at x is event v, short or long as push_ev wrote it.
 * @return its units. */
static size_t check_ev(const uint64_t *x, uint64_t v)
{
    uint64_t tk = x[0];
    CU_ASSERT_EQUAL(tk >> HT_TK_SHIFT, v);
    if (tk & HT_SHORT) {
        CU_ASSERT_EQUAL(tk & 0xff, HT_K_MALLOC);
        CU_ASSERT_EQUAL(x[1] & ((1ull << 48) - 1), v * 3);
        CU_ASSERT_EQUAL(x[1] >> 48, v & 0xffff);
        return 1;
    }
    CU_ASSERT_EQUAL(tk & 0xff, HT_K_REALLOC);
    CU_ASSERT(x[1] == v * 3 && x[2] == 16 && x[3] == ~v && x[4] == 0);
    return HT_LONG_UNITS;
}

static void test_empty_and_order(void)
{
    ht_ring *r = new_ring(16);
    const uint64_t *w;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 0);
    CU_ASSERT_EQUAL(ht_ring_fill(r), 0);
    for (uint64_t i = 0; i < 5; i++) CU_ASSERT(push_ev(r, 100 + i, i == 2, NULL));
    CU_ASSERT_EQUAL(ht_ring_fill(r), 7);  /* four short events and a long one */
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 3), 3);  /* max honoured */
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 7);
    size_t u = 0;
    for (uint64_t i = 0; i < 5; i++) u += check_ev(w + u * HT_UNIT_WORDS, 100 + i);
    CU_ASSERT_EQUAL(u, 7);
    ht_ring_consume(r, 7);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 0);
    /* what does not fit a short event is long: a size of 64 KiB, a high
     * address, a flag; a free is short */
    ht_rawev e;
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_MALLOC, 0x1000, 65536, 0, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_MALLOC, 1ull << 48, 8, 0, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_MALLOC | HT_FAILED, 0, 8, 0, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_NEW, 0x1000, 8, 0, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_FREE, 0x1000, 0, 0, 0), 1);
    CU_ASSERT_EQUAL(e.tk, HT_K_FREE | HT_SHORT);
    CU_ASSERT_EQUAL(e.a, 0x1000);
    /* a realloc of NULL is short, its result where a malloc's is; one with an
     * old block, a begin or stack id in d, or a flag is long */
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC, 0, 48, 0x2000, 0), 1);
    CU_ASSERT_EQUAL(e.tk, HT_K_REALLOC | HT_SHORT);
    CU_ASSERT_EQUAL(e.a, 0x2000 | 48ull << 48);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC, 0x1000, 48, 0x2000, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC, 0, 48, 0x2000, 7), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC, 0, 65536, 0x2000, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC | HT_FAILED, 0, 48, 0, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_REALLOC | HT_STACKED, 0, 48, 0x2000, 3), HT_LONG_UNITS);
    /* a calloc of a count and an element size under 256 is short: both in the top 16 bits */
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_CALLOC, 0x3000, 2, 24, 0), 1);
    CU_ASSERT_EQUAL(e.tk, HT_K_CALLOC | HT_SHORT);
    CU_ASSERT_EQUAL(e.a, 0x3000 | 2ull << 48 | 24ull << 56);
    uint64_t units[2] = { e.tk, e.a };
    CU_ASSERT_EQUAL(hatf_raw_calloc_nmemb(units), 2);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_CALLOC, 0x3000, 256, 1, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_CALLOC, 0x3000, 1, 256, 0), HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_rawev_put(&e, HT_K_CALLOC | HT_STACKED, 0x3000, 2, 24, 5), HT_LONG_UNITS);
    free(r);
}

/* The slot needs room for a long event: a ring of 8 units takes 6 short ones. */
static void test_full_and_mark(void)
{
    ht_ring *r = new_ring(8);
    int marked = 0;
    for (uint64_t i = 0; i < 6; i++) {
        CU_ASSERT(push(r, i, &marked));
        CU_ASSERT_EQUAL(marked, i + 1 >= 4);  /* the mark (half) is crossed exactly once */
    }
    CU_ASSERT_EQUAL(push(r, 6, &marked), 0);   /* full */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 6);
    const uint64_t *w;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 1), 1);
    ht_ring_consume(r, 1);
    CU_ASSERT(push(r, 6, &marked));            /* one unit freed, one event fits */
    CU_ASSERT_EQUAL(push(r, 7, &marked), 0);
    /* the producer learnt the tail there: 5 of 8 still waiting, the consumer is
     * behind the mark, so that event poked it again */
    CU_ASSERT_EQUAL(marked, 2);
    free(r);
}

/* A long event whose units cover the mark pokes, once. */
static void test_mark_long_event(void)
{
    ht_ring *r = new_ring(64);
    int marked = 0;
    for (uint64_t i = 0; i < 11; i++) {
        CU_ASSERT(push_ev(r, i, 1, &marked));   /* units 0..32: the mark (32) in the last */
        CU_ASSERT_EQUAL(marked, i == 10);
    }
    CU_ASSERT(push_ev(r, 11, 1, &marked));
    CU_ASSERT_EQUAL(marked, 1);
    free(r);
}

/* A consumer that drained less than half: the producer, learning the tail when
 * the ring looks full, pokes it at once (the fill never crosses the mark again
 * from below, so waiting for that would leave it asleep until the ring is full). */
static void test_mark_consumer_behind(void)
{
    ht_ring *r = new_ring(64);
    int marked = 0;
    for (uint64_t i = 0; i < 62; i++) CU_ASSERT(push(r, i, &marked));
    CU_ASSERT_EQUAL(push(r, 62, &marked), 0);  /* room for a long event is gone */
    CU_ASSERT_EQUAL(marked, 1);
    const uint64_t *w;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 16), 16);
    ht_ring_consume(r, 16);                    /* 46 left: past the mark (32) */
    CU_ASSERT(push(r, 62, &marked));
    CU_ASSERT_EQUAL(marked, 2);
    for (uint64_t i = 63; i < 77; i++) CU_ASSERT(push(r, i, &marked));
    CU_ASSERT_EQUAL(marked, 2);                /* once */
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 64), 48);  /* to the end of the ring */
    ht_ring_consume(r, 48);                    /* tail 64: 13 left, under the mark */
    for (uint64_t i = 77; i < 109; i++) CU_ASSERT(push(r, i, &marked));
    /* the producer learns tail 64 on its second event (its view looked full)
     * and pokes when the fill reaches the mark again: head 96 */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 45);
    CU_ASSERT_EQUAL(marked, 3);
    free(r);
}

/* At a mark the producer asks whether the flusher must be woken: not if it
 * has drained the ring meanwhile (the mark moves on, past that tail), yes
 * if the ring is still as full as the mark. */
static void test_poke_needed(void)
{
    ht_ring *r = new_ring(64);
    int marked = 0;
    for (uint64_t i = 0; i < 32; i++) CU_ASSERT(push(r, i, &marked));
    CU_ASSERT_EQUAL(marked, 1);
    const uint64_t *w;
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 24), 24);
    ht_ring_consume(r, 24);                    /* drained meanwhile: 8 left */
    CU_ASSERT_EQUAL(ht_ring_poke_needed(r), 0);
    for (uint64_t i = 32; i < 55; i++) CU_ASSERT(push(r, i, &marked));
    CU_ASSERT_EQUAL(marked, 1);                /* the next mark: 24 + 32 */
    CU_ASSERT(push(r, 55, &marked));
    CU_ASSERT_EQUAL(marked, 2);
    CU_ASSERT_EQUAL(ht_ring_fill(r), 32);
    CU_ASSERT_EQUAL(ht_ring_poke_needed(r), 1);  /* not drained: wake it */
    for (uint64_t i = 56; i < 70; i++) CU_ASSERT(push(r, i, &marked));
    CU_ASSERT_EQUAL(marked, 2);                /* once until the producer learns more */
    free(r);
}

/* The flusher's pace: the time to a fill at the rate since the last look. */
static void test_fill_in(void)
{
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 0, 16, 1000, 1u << 30), 2000);  /* 32 units at 16 per µs */
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 24, 16, 1000, 1u << 30), 500);
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 32, 16, 1000, 1u << 30), 0);    /* there already */
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 40, 16, 1000, 1u << 30), 0);
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 0, 0, 1000, 777), 777);         /* idle: the longest */
    CU_ASSERT_EQUAL(ht_ring_fill_in(32, 0, 1, 1000000, 777), 777);      /* slow: at most the longest */
    /* a quarter of a ring of 2^24 units, idle since boot (dt taken at 2^36): no overflow */
    CU_ASSERT_EQUAL(ht_ring_fill_in(1u << 22, 0, 1, UINT64_MAX / 2, UINT64_MAX), (uint64_t)(1u << 22) << 36);
}

/* A long event that starts in the last units runs on into the spares, whole;
 * the next event comes from the units after its indexes at the start. */
static void test_wrap_around(void)
{
    ht_ring *r = new_ring(8);
    const uint64_t *w;
    for (uint64_t i = 0; i < 6; i++) push(r, i, NULL);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 6);
    ht_ring_consume(r, 6);  /* tail = 6 */
    CU_ASSERT(push_ev(r, 6, 1, NULL));  /* units 6, 7 and a spare */
    CU_ASSERT(push_ev(r, 7, 0, NULL));  /* unit 1 */
    CU_ASSERT(push_ev(r, 8, 1, NULL));  /* units 2..4 */
    CU_ASSERT_EQUAL(ht_ring_fill(r), 7);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 2);  /* the run stops at the end of the array */
    CU_ASSERT_EQUAL(check_ev(w, 6), HT_LONG_UNITS);  /* but the event in it is whole */
    ht_ring_consume(r, HT_LONG_UNITS);
    CU_ASSERT_EQUAL(ht_ring_peek(r, &w, 100), 4);
    CU_ASSERT_PTR_EQUAL(w, &r->w[1 * HT_UNIT_WORDS]);
    CU_ASSERT_EQUAL(check_ev(w, 7), 1);
    CU_ASSERT_EQUAL(check_ev(w + HT_UNIT_WORDS, 8), HT_LONG_UNITS);
    ht_ring_consume(r, 4);
    CU_ASSERT_EQUAL(ht_ring_fill(r), 0);
    free(r);
}

/* Producer/consumer threads: every event arrives once, in order, whole. The
 * producer waits (counted) whenever the ring is full, as the recorder does by
 * default; one event in seven is long, so they start at every offset. */
typedef struct stress {
    ht_ring *r;
    uint64_t first, n;
    uint64_t waits;
    _Atomic int blocked;  /* the producer has found the ring full */
} stress;

static int stress_long(uint64_t i) { return i % 7 == 3; }

static void *producer(void *v)
{
    stress *s = v;
    for (uint64_t i = s->first; i < s->first + s->n; i++) {
        int waited = 0;
        while (!push_ev(s->r, i, stress_long(i), NULL)) {
            waited = 1;
            atomic_store(&s->blocked, 1);
            sched_yield();
        }
        s->waits += waited;
    }
    return NULL;
}

/* Consume events until want have come, checking each: @return the next v. */
static uint64_t consume_events(ht_ring *r, uint64_t next, uint64_t want, size_t max, uint64_t *bad)
{
    uint64_t got = 0;
    while (got < want) {
        const uint64_t *w;
        size_t n = ht_ring_peek(r, &w, max), i = 0;
        if (!n) { sched_yield(); continue; }
        while (i < n) {
            uint64_t tk = w[i * HT_UNIT_WORDS];
            int lng = !(tk & HT_SHORT);
            *bad += tk >> HT_TK_SHIFT != next || lng != stress_long(next);
            i += check_ev(w + i * HT_UNIT_WORDS, next);
            next++, got++;
        }
        ht_ring_consume(r, i);
    }
    return next;
}

static void test_two_thread_stress(void)
{
    stress s = { .r = new_ring(256), .n = STRESS_EVENTS };
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, producer, &s), 0);
    uint64_t bad = 0;
    uint64_t next = consume_events(s.r, 0, s.n, 64, &bad);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL(next, s.n);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(ht_ring_fill(s.r), 0);
    free(s.r);
}

/* A full ring, a producer that must wait, and a consumer that frees space late. */
static void test_full_ring_wait(void)
{
    stress s = { .r = new_ring(64), .n = 10 };
    while (push_ev(s.r, s.first, stress_long(s.first), NULL)) s.first++;  /* pre-filled: no room for a long one */
    uint64_t filled = ht_ring_fill(s.r);
    CU_ASSERT(filled > 64 - HT_LONG_UNITS && filled <= 64);
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
    CU_ASSERT_EQUAL(ht_ring_fill(s.r), filled);  /* nothing overwritten while full */
    /* the pre-filled events freed at once (one peek takes them all): the ten
     * pushes then fit however the two threads are scheduled, so only the
     * first waited */
    uint64_t bad = 0;
    CU_ASSERT_EQUAL(consume_events(s.r, 0, s.first + 10, 64, &bad), s.first + 10);
    CU_ASSERT_EQUAL(bad, 0);
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
    { "fill mark under a long event", test_mark_long_event },
    { "fill mark, consumer behind", test_mark_consumer_behind },
    { "poke only when not drained", test_poke_needed },
    { "the flusher's pace", test_fill_in },
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
