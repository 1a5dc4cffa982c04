/* test_lookahead.c — events held back a few steps (hatf/lookahead.c): the
 * order, the copied bytes, where each was read, and lookahead_run over a
 * source with its stop and error cases. */
#include <stdio.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf_source.h"
#include "lookahead.h"

/* the i-th test event: its address, and i % 300 bytes of data (0 to 299: some
 * longer than any attribute, as a comment can be) */
static void make_event(hatf_event *ev, uint8_t *data, unsigned i)
{
    memset(ev, 0, sizeof *ev);
    ev->op = HATF_OP_COMMENT;
    ev->addr = 0x1000 + 16u * i;
    ev->data_len = (uint16_t)(i % 300);
    for (unsigned k = 0; k < ev->data_len; k++) data[k] = (uint8_t)(i + k);
    ev->data = ev->data_len ? data : NULL;
}

static int event_ok(const hatf_event *ev, unsigned i)
{
    if (ev->addr != 0x1000 + 16u * i || ev->data_len != i % 300) return 0;
    for (unsigned k = 0; k < ev->data_len; k++)
        if (ev->data[k] != (uint8_t)(i + k)) return 0;
    return 1;
}

static void test_order_and_bytes(void)
{
    enum { N = 1000 };
    lookahead q;
    lookahead_init(&q);
    uint8_t data[300];
    unsigned next = 0;  /* the event expected out next */
    for (unsigned i = 0; i < N; i++) {
        hatf_event ev;
        make_event(&ev, data, i);
        const lookahead_item *x;
        CU_ASSERT_EQUAL_FATAL(lookahead_push(&q, &ev, 7 * i, 11 * i, &x), 0);
        memset(data, 0xee, sizeof data);  /* the caller's bytes go away: the held copy stays */
        if (i < LOOKAHEAD_N) {
            CU_ASSERT_PTR_NULL(x);
            continue;
        }
        CU_ASSERT_PTR_NOT_NULL_FATAL(x);
        CU_ASSERT(event_ok(&x->ev, next));
        CU_ASSERT(x->rec == 7 * next && x->off == 11 * next);
        next++;
    }
    CU_ASSERT_EQUAL(next, N - LOOKAHEAD_N);
    const lookahead_item *x;
    while ((x = lookahead_pop(&q)) != NULL) {
        CU_ASSERT(event_ok(&x->ev, next) && x->rec == 7 * next);
        next++;
    }
    CU_ASSERT_EQUAL(next, N);
    CU_ASSERT_PTR_NULL(lookahead_pop(&q));
    lookahead_free(&q);
}

/* ---- lookahead_run over a text trace ---- */

typedef struct run_ctx {
    uint64_t seen[64], prefetched[64];
    unsigned n, nseen, nprefetched, stop_at, pause_at;
    int lag_ok;  /* every event was prefetched LOOKAHEAD_N events before it was counted */
    int rec_ok;  /* each came with the next record number */
    uint64_t last_rec;
} run_ctx;

static int count_cb(void *p, const lookahead_item *x)
{
    run_ctx *c = p;
    const hatf_event *ev = &x->ev;
    if (c->nseen && x->rec != c->last_rec + 1) c->rec_ok = 0;
    c->last_rec = x->rec;
    if (c->nseen == c->stop_at) return HATF_E_NOMEM;
    /* held back: the LOOKAHEAD_N events after it were read (and prefetched), or all of them */
    unsigned read = c->nseen + LOOKAHEAD_N + 1 < c->n ? c->nseen + LOOKAHEAD_N + 1 : c->n;
    if (c->nprefetched != read || c->prefetched[c->nseen] != ev->addr) c->lag_ok = 0;
    if (c->nseen < 64) c->seen[c->nseen] = ev->addr;
    c->nseen++;
    return c->nseen == c->pause_at;  /* counted, then a pause */
}

static void prefetch_cb(void *p, const hatf_event *ev)
{
    run_ctx *c = p;
    if (c->nprefetched < 64) c->prefetched[c->nprefetched] = ev->addr;
    c->nprefetched++;
}

/* a text trace of n allocations at 0x1000, 0x1010, ... and, when bad, a line
 * that does not parse after them */
static void write_trace(const char *path, unsigned n, int bad)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fprintf(f, "#hatrace-text 1\n");
    for (unsigned i = 0; i < n; i++) fprintf(f, "%u 1 0 alloc 16 0x%x\n", 100 + i, 0x1000 + 16 * i);
    if (bad) fprintf(f, "999 1 0 alloc sixteen 0x9000\n");
    fclose(f);
}

static void run_file(unsigned n, int bad, unsigned stop_at, run_ctx *c, int *rc, int *count_rc)
{
    char path[512];
    ut_path(path, sizeof path, "la-%u-%d.txt", n, bad);
    write_trace(path, n, bad);
    hatf_err err;
    memset(&err, 0, sizeof err);
    hatf_source *s = hatf_source_open(path, HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    memset(c, 0, sizeof *c);
    c->n = n;
    c->stop_at = stop_at;
    c->pause_at = UINT32_MAX;
    c->lag_ok = 1;
    c->rec_ok = 1;
    *rc = lookahead_run(s, count_cb, prefetch_cb, c, count_rc);
    hatf_source_close(s);
}

static void test_run(void)
{
    run_ctx c;
    int rc, count_rc;
    for (unsigned n = 0; n < 40; n += 7) {  /* fewer and more events than are held back */
        run_file(n, 0, UINT32_MAX, &c, &rc, &count_rc);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_EQUAL(c.nseen, n);
        CU_ASSERT_EQUAL(c.nprefetched, n);
        CU_ASSERT(c.lag_ok);
        CU_ASSERT(c.rec_ok);
        for (unsigned i = 0; i < n; i++) CU_ASSERT_EQUAL(c.seen[i], 0x1000 + 16 * i);
    }
    /* a line that does not parse: the events before it are all counted, then the error */
    run_file(30, 1, UINT32_MAX, &c, &rc, &count_rc);
    CU_ASSERT(rc < 0);
    CU_ASSERT_EQUAL(c.nseen, 30);
    CU_ASSERT(c.lag_ok);
    /* count stops the run: its code comes back, nothing after it is counted */
    run_file(30, 0, 5, &c, &rc, &count_rc);
    CU_ASSERT_EQUAL(rc, LOOKAHEAD_STOPPED);
    CU_ASSERT_EQUAL(count_rc, HATF_E_NOMEM);
    CU_ASSERT_EQUAL(c.nseen, 5);
    run_file(30, 0, 28, &c, &rc, &count_rc);  /* while the held events are handed out at the end */
    CU_ASSERT_EQUAL(rc, LOOKAHEAD_STOPPED);
    CU_ASSERT_EQUAL(c.nseen, 28);
}

/* A pause counts the events held and reads none more; the next run goes on
 * with the next event: every event counted once, in order. */
static void test_pause(void)
{
    char path[512];
    ut_path(path, sizeof path, "la-pause.txt");
    write_trace(path, 30, 0);
    hatf_err err;
    memset(&err, 0, sizeof err);
    hatf_source *s = hatf_source_open(path, HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    run_ctx c;
    memset(&c, 0, sizeof c);
    c.n = 30, c.stop_at = UINT32_MAX, c.pause_at = 4;
    int count_rc;
    CU_ASSERT_EQUAL(lookahead_run(s, count_cb, prefetch_cb, &c, &count_rc), LOOKAHEAD_PAUSED);
    CU_ASSERT_EQUAL(c.nseen, c.nprefetched);  /* the held ones were counted: none is left behind */
    CU_ASSERT(c.nseen >= 4 && c.nseen <= 4 + LOOKAHEAD_N);
    unsigned first = c.nseen;
    CU_ASSERT_EQUAL(lookahead_run(s, count_cb, prefetch_cb, &c, &count_rc), 0);
    CU_ASSERT(first < 30);
    CU_ASSERT_EQUAL(c.nseen, 30);
    for (unsigned i = 0; i < 30; i++) CU_ASSERT_EQUAL(c.seen[i], 0x1000 + 16 * i);
    hatf_source_close(s);
}

static CU_TestInfo tests[] = {
    { "order and bytes", test_order_and_bytes },
    { "run over a source", test_run },
    { "pause and go on", test_pause },
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo ut_suites[] = {
    { .pName = "lookahead", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
