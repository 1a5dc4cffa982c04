/* test_timeline.c — the heap over time in bounded intervals (analyze/timeline.c):
 * after any number of doublings, each interval holds exactly what a direct
 * count of its events over the final width gives. */
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "timeline.h"

typedef struct ev { uint64_t x, bytes, live, objects; int kind; } ev;

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) { return ut_xorshift(&rnd_state); }

/* n events with x from x0 in steps of 0..maxstep (0: many at one x) */
static void make_events(ev *e, size_t n, uint64_t x0, uint64_t maxstep)
{
    uint64_t x = x0, live = 0, objects = 0;
    for (size_t i = 0; i < n; i++) {
        x += maxstep ? rnd() % (maxstep + 1) : 0;
        int kind = (int)(rnd() % 3);
        uint64_t b = 0;
        if (kind == TIMELINE_ALLOC) {
            b = 1 + rnd() % 1000;
            live += b;
            objects++;
        } else if (kind == TIMELINE_FREE && objects) {
            uint64_t f = live / objects;
            live -= f;
            objects--;
        }
        e[i] = (ev){ x, b, live, objects, kind };
    }
}

/* what interval i of t must hold, counted directly from the events */
static void check_against_events(const timeline *t, const ev *e, size_t n, size_t points)
{
    CU_ASSERT(t->n >= 1 && t->n <= points);
    CU_ASSERT_EQUAL(t->x0, e[0].x);
    CU_ASSERT_EQUAL(t->last_x, e[n - 1].x);
    CU_ASSERT(t->x0 + t->n * t->width > t->last_x);  /* the intervals cover every event */
    uint64_t carried_live = 0, carried_objects = 0, allocs = 0, frees = 0;
    for (size_t i = 0; i < t->n; i++) {
        uint64_t lo = t->x0 + i * t->width, hi = lo + t->width;
        timeline_span want = { 0 };
        for (size_t k = 0; k < n; k++) {
            if (e[k].x < lo || e[k].x >= hi) continue;
            if (!want.events || e[k].live > want.max_live_bytes) want.max_live_bytes = e[k].live;
            want.events++;
            want.live_bytes = e[k].live;
            want.live_objects = e[k].objects;
            want.allocs += e[k].kind == TIMELINE_ALLOC;
            want.frees += e[k].kind == TIMELINE_FREE;
            want.bytes += e[k].bytes;
        }
        if (!want.events) {  /* the state carries over */
            want.live_bytes = want.max_live_bytes = carried_live;
            want.live_objects = carried_objects;
        }
        const timeline_span *s = &t->v[i];
        CU_ASSERT_EQUAL(s->events, want.events);
        CU_ASSERT_EQUAL(s->live_bytes, want.live_bytes);
        CU_ASSERT_EQUAL(s->live_objects, want.live_objects);
        CU_ASSERT_EQUAL(s->max_live_bytes, want.max_live_bytes);
        CU_ASSERT_EQUAL(s->allocs, want.allocs);
        CU_ASSERT_EQUAL(s->frees, want.frees);
        CU_ASSERT_EQUAL(s->bytes, want.bytes);
        carried_live = s->live_bytes;
        carried_objects = s->live_objects;
        allocs += s->allocs;
        frees += s->frees;
    }
    uint64_t want_allocs = 0, want_frees = 0;
    for (size_t k = 0; k < n; k++) {
        want_allocs += e[k].kind == TIMELINE_ALLOC;
        want_frees += e[k].kind == TIMELINE_FREE;
    }
    CU_ASSERT_EQUAL(allocs, want_allocs);
    CU_ASSERT_EQUAL(frees, want_frees);
    CU_ASSERT_EQUAL(t->v[t->n - 1].live_bytes, e[n - 1].live);
}

static void run_case(size_t n, uint64_t x0, uint64_t maxstep, size_t points)
{
    ev *e = malloc(n * sizeof *e);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    make_events(e, n, x0, maxstep);
    timeline t;
    CU_ASSERT_EQUAL_FATAL(timeline_init(&t, points), 0);
    for (size_t k = 0; k < n; k++) timeline_add(&t, e[k].x, e[k].kind, e[k].bytes, e[k].live, e[k].objects);
    timeline_finish(&t, points);
    check_against_events(&t, e, n, points);
    timeline_free(&t);
    free(e);
}

static void test_random(void)
{
    for (int round = 0; round < 40; round++) {
        size_t points = 1 + rnd() % 20;
        size_t n = 1 + rnd() % 3000;
        uint64_t maxstep = round % 4 == 0 ? 0 : rnd() % 5000;
        run_case(n, rnd() % 1000000, maxstep, points);
    }
}

static void test_edges(void)
{
    run_case(1, 5, 0, 1);          /* one event */
    run_case(100, 0, 0, 3);        /* every event at one x: one interval of width 1 */
    run_case(500, 7, 1000, 1);     /* everything merged into one interval */
    /* x as large as a time can be: the width doubles up to 2^63 */
    timeline t;
    CU_ASSERT_EQUAL_FATAL(timeline_init(&t, 2), 0);
    timeline_add(&t, 0, TIMELINE_ALLOC, 10, 10, 1);
    timeline_add(&t, UINT64_MAX, TIMELINE_FREE, 0, 0, 0);
    timeline_finish(&t, 2);
    CU_ASSERT_EQUAL(t.n, 2);
    CU_ASSERT_EQUAL(t.v[0].max_live_bytes, 10);
    CU_ASSERT_EQUAL(t.v[1].live_bytes, 0);
    CU_ASSERT_EQUAL(timeline_end(&t, 1), UINT64_MAX);
    /* an x that goes back counts as the latest */
    timeline_free(&t);
    CU_ASSERT_EQUAL_FATAL(timeline_init(&t, 4), 0);
    timeline_add(&t, 100, TIMELINE_ALLOC, 1, 1, 1);
    timeline_add(&t, 90, TIMELINE_ALLOC, 1, 2, 2);
    timeline_finish(&t, 4);
    CU_ASSERT_EQUAL(t.n, 1);
    CU_ASSERT_EQUAL(t.v[0].events, 2);
    CU_ASSERT_EQUAL(t.v[0].live_bytes, 2);
    timeline_free(&t);
}

static CU_TestInfo tests[] = {
    { "random events against a direct count", test_random },
    { "edges", test_edges },
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo ut_suites[] = {
    { .pName = "timeline", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
