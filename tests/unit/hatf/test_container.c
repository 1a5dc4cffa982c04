/* test_container.c — the container writer, reader, recovery and merge iterator. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cunit_main.h"
#include "merge_key.h"
#include "hatf_container.h"
#include "container/container_format.h"
#include "container/container_addr.h"
#include "container/container_time.h"
#include "container/container_jobs.h"
#include <xxhash.h>

static char path1[300], path2[300];

/* ---- event sets --------------------------------------------------------- */

typedef struct evset {
    hatf_event *ev;
    size_t n, cap;
    uint8_t bytes[64][8];  /* attribute/comment storage */
    size_t nbytes;
} evset;

static void push(evset *s, hatf_event e)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ev = realloc(s->ev, s->cap * sizeof *s->ev);
    }
    s->ev[s->n++] = e;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return ut_xorshift(&rng); }

/* Thread t's events: every op, attributes as numbers and bytes, comments,
 * 64-bit addresses, frees of unknown addresses, free(NULL), a failed alloc. */
static void make_thread(evset *s, uint64_t t, uint64_t t0, size_t n)
{
    static const char *notes[] = { "start", "phase two", "" };
    uint64_t live[64];
    size_t nlive = 0;
    uint64_t time = t0;
    push(s, (hatf_event){ .op = HATF_OP_THREAD_CREATE, .thread = t, .time = time, .attr = 7 });
    for (size_t i = 0; i < n; i++) {
        time += rnd() % 3;  /* equal times happen */
        hatf_event e = { .thread = t, .time = time, .heap = (i % 17 == 0) ? 2 : 0 };
        unsigned k = (unsigned)(rnd() % 16);
        if (k < 6 || nlive == 0) {
            e.op = HATF_OP_ALLOC;
            e.size = 8 << (rnd() % 5);
            e.addr = (t << 40) | 0xffff000000000000ull | (0x1000 + 16 * (rnd() % 512));
            if (i % 29 == 5) e.addr = 0;  /* failed malloc */
            if (e.addr && nlive < 64) live[nlive++] = e.addr;
        } else if (k < 11) {
            e.op = HATF_OP_FREE;
            size_t j = (size_t)(rnd() % nlive);
            e.addr = live[j];
            live[j] = live[--nlive];
        } else if (k == 11) {
            e.op = HATF_OP_FREE;
            e.addr = (i & 1) ? 0 : 0x7f0000001230ull + i * 32;  /* NULL, or not ours */
        } else if (k == 12) {
            e.op = HATF_OP_REALLOC_MOVE;
            size_t j = (size_t)(rnd() % nlive);
            e.size = 100 + i;
            e.addr = live[j];
            e.new_addr = live[j] + 0x100000;
            live[j] = e.new_addr;
        } else if (k == 13) {
            e.op = HATF_OP_REALLOC_INPLACE;
            size_t j = (size_t)(rnd() % nlive);
            e.size = 50;
            e.addr = e.new_addr = live[j];
        } else if (k == 14) {
            e.op = (i & 1) ? HATF_OP_REALLOC_NEW : HATF_OP_REALLOC_FREE;
            if (e.op == HATF_OP_REALLOC_NEW) { e.size = 24; e.new_addr = 0x5550000 + 64 * i; }
            else { size_t j = (size_t)(rnd() % nlive); e.addr = live[j]; live[j] = live[--nlive]; }
        } else {
            switch (i % 4) {
            case 0: {
                const char *c = notes[i % 3];
                e = (hatf_event){ .op = HATF_OP_COMMENT, .data = (const uint8_t *)c, .data_len = (uint16_t)strlen(c) };
                break;
            }
            case 1: e.op = HATF_OP_HEAP_CREATE; e.heap = 3 + i; break;
            case 2: e.op = HATF_OP_HEAP_DESTROY; e.heap = 3 + i; break;
            default: e.op = HATF_OP_ALLOC; e.size = 1; e.addr = 0xfffffffffffffff0ull;
            }
        }
        /* attributes: bytes on some, numbers on others */
        if (e.op != HATF_OP_COMMENT && i % 5 == 1 && s->nbytes < 64) {
            uint8_t *b = s->bytes[s->nbytes++];
            b[0] = 1; b[1] = (uint8_t)(1 + i % 12); b[2] = 3; b[3] = (uint8_t)i;
            e.attr_is_bytes = 1; e.data = b; e.data_len = 4;
        } else if (e.op != HATF_OP_COMMENT && i % 5 == 3) {
            e.attr = 1000 + i;
        }
        push(s, e);
    }
    push(s, (hatf_event){ .op = HATF_OP_THREAD_DESTROY, .thread = t, .time = time + 1 });
}

static int same_event(const hatf_event *a, const hatf_event *b)
{
    if (a->op != b->op || a->size != b->size || a->addr != b->addr || a->new_addr != b->new_addr ||
        a->thread != b->thread || a->heap != b->heap || a->time != b->time || a->attr != b->attr ||
        a->data_len != b->data_len)
        return 0;
    if ((a->attr_is_bytes != b->attr_is_bytes) && a->op != HATF_OP_COMMENT) return 0;
    return a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0;
}

static hatf_info test_info(void)
{
    hatf_info in;
    memset(&in, 0, sizeof in);
    in.address_bits = 64;
    in.pid = 4242;
    in.ppid = 1;
    in.start_realtime_ns = 1700000000123456789ull;
    in.time_unit_ns_num = 1;
    in.time_unit_ns_den = 3;
    strcpy(in.clock, "CLOCK_MONOTONIC");
    strcpy(in.cmdline, "./espresso -t input.in");
    in.flags = HATF_INFO_FORKED;
    strcpy(in.parent_trace, "parent.hatf");
    return in;
}

/* Write threads' sets interleaved in batches of `batch`. */
/* write_sets: nonzero turns through the recorder's three codings pass by
 * pass (full, fast packed, fast stored), so all alternate in one file;
 * fast_written counts the fast groups, fast_stored the events of them stored. */
static int write_fast;
static uint64_t fast_written, fast_events, fast_stored;

static int write_sets(const char *path, evset *sets, size_t nsets, size_t chunk_events, size_t batch,
                      const hatf_counters *ctr)
{
    hatf_info in = test_info();
    hatf_writer_opts o = { .chunk_events = chunk_events };
    hatf_err err = {0};
    unlink(path);
    hatf_writer *w = hatf_writer_create(path, 0, &in, &o, &err);
    if (!w) return -1;
    size_t pos[8] = {0};
    for (int more = 1, pass = 0; more; pass++) {
        more = 0;
        /* groups of 40 begin every third pass of 13: a turn of 4 gives each coding */
        static const enum hatf_coding_ turn[] = { HATF_CODING_FULL_, HATF_CODING_PACKED_, HATF_CODING_STORED_,
                                                  HATF_CODING_PACKED_ };
        if (write_fast) hatf_writer_set_coding_(w, turn[pass % 4]);
        for (size_t t = 0; t < nsets; t++) {
            size_t k = sets[t].n - pos[t] < batch ? sets[t].n - pos[t] : batch;
            if (k == 0) continue;
            if (hatf_writer_add(w, sets[t].ev + pos[t], k) != 0) return -2;
            pos[t] += k;
            more = 1;
        }
    }
    hatf_writer_name_thread(w, 1, "main");
    hatf_writer_name_thread(w, 2, "worker-old");
    hatf_writer_name_thread(w, 2, "worker");
    hatf_writer_name_heap(w, 2, "arena");
    hatf_writer_fast_counts_(w, &fast_written, &fast_events, &fast_stored);
    return hatf_writer_close(w, ctr, &err);
}

/* ---- tests -------------------------------------------------------------- */

/* hatf_tconv_next remembers a unit's ticks: it must give what
 * hatf_tconv_apply gives for every tick, in order or not, at a unit's edges,
 * for clocks coarser and finer than the unit and at the 64-bit clamp. */
static void test_tconv_next(void)
{
    static const uint64_t f[][3] = {  /* num, den, res_ns */
        { 14505554, 35472481, 1000 }, { 2812409, 6877592, 1000 }, { 1, 1, 1000 }, { 1, 1, 1 },
        { 5, 2, 64 }, { 1000, 1, 1 }, { UINT64_MAX, 1, 1 }, { 1, UINT64_MAX, 1 }, { 3, 7, 999983 },
    };
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        hatf_tconv c;
        hatf_tconv_init(&c, f[k][0], f[k][1], f[k][2]);
        uint64_t t = k & 1 ? 0 : UINT64_MAX - 1000000, bad = 0;
        for (int i = 0; i < 200000; i++) {
            ut_xorshift(&x);
            switch (x % 8) {
            case 0: t = x; break;                   /* anywhere */
            case 1: t -= x % 5000; break;           /* backwards */
            case 2: case 3: t += x % 5000; break;   /* a few units on */
            default: t += x % 3; break;             /* the same unit, its edge */
            }
            uint64_t u = hatf_tconv_apply(&c, t);
            bad += hatf_tconv_next(&c, t) != u;
            if (u < UINT64_MAX && x % 3 == 0) {  /* around the next unit's first tick */
                uint64_t lo = t, hi = UINT64_MAX;
                while (hi - lo > 1) {
                    uint64_t mid = lo + (hi - lo) / 2;
                    if (hatf_tconv_apply(&c, mid) > u) hi = mid; else lo = mid;
                }
                bad += hatf_tconv_next(&c, hi - 1) != hatf_tconv_apply(&c, hi - 1);
                bad += hatf_tconv_next(&c, hi) != hatf_tconv_apply(&c, hi);
                bad += hatf_tconv_next(&c, hi - 1) != hatf_tconv_apply(&c, hi - 1);
            }
        }
        bad += hatf_tconv_next(&c, UINT64_MAX) != hatf_tconv_apply(&c, UINT64_MAX);
        CU_ASSERT_EQUAL(bad, 0);
    }
}

/* hatf_tconv_apply is the exact floor(t * num / (den * R)): a time on a unit's
 * first tick (1000 ns in 20 ns units: 50) is that unit, not the one before. */
static void test_tconv_exact(void)
{
    static const uint64_t f[][3] = {  /* num, den, res_ns */
        { 1, 1, 20 }, { 1, 1, 1000 }, { 1, 1, 3 }, { 14505554, 35472481, 1000 }, { 5, 2, 64 },
        { 1000, 1, 1 }, { 3, 7, 999983 }, { 1, UINT64_MAX, 1 }, { UINT32_MAX, 3, 1000000000 },
    };
    uint64_t x = 0x9E3779B97F4A7C15ull;
    for (size_t k = 0; k < sizeof f / sizeof f[0]; k++) {
        hatf_tconv c;
        hatf_tconv_init(&c, f[k][0], f[k][1], f[k][2]);
        unsigned __int128 d = (unsigned __int128)f[k][1] * f[k][2];
        uint64_t bad = 0;
        for (int i = 0; i < 100000; i++) {
            ut_xorshift(&x);
            /* exact multiples of the unit, their neighbours, and anywhere */
            uint64_t t = i % 3 == 0 ? x : (uint64_t)((x % 1000000) * d / f[k][0]) + (uint64_t)(i % 3) - 1;
            unsigned __int128 q = (unsigned __int128)t * f[k][0] / d;
            uint64_t want = q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
            bad += hatf_tconv_apply(&c, t) != want;
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    hatf_tconv c;
    hatf_tconv_init(&c, 1, 1, 20);
    CU_ASSERT_EQUAL(hatf_tconv_apply(&c, 1000), 50);
    CU_ASSERT_EQUAL(hatf_tconv_apply(&c, 999), 49);
}

/* time_res_ns: ticks of 2.5 ns stored as 64 ns units, every time rounded
 * down, never backwards within a thread; the header says 64/1. */
static void test_time_resolution(void)
{
    hatf_info in = test_info();
    in.time_unit_ns_num = 5;
    in.time_unit_ns_den = 2;
    hatf_writer_opts o = { .time_res_ns = 64 };
    hatf_err err = {0};
    unlink(path1);
    hatf_writer *w = hatf_writer_create(path1, 0, &in, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event a[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = 0x1000, .time = 100 }, /* 250 ns -> 3 */
        { .op = HATF_OP_FREE, .thread = 1, .addr = 0x1000, .time = 128 },             /* 320 ns -> 5 */
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = 0x1000, .time = 128 }, /* exact: 5 */
        { .op = HATF_OP_REALLOC_MOVE, .thread = 1, .size = 32, .addr = 0x1000, .new_addr = 0x2000,
          .time = 155 },                                                                /* 387.5 -> 6 */
        { .op = HATF_OP_FREE, .thread = 1, .addr = 0x2000, .time = 150 },             /* 375 -> 5, kept at 6 */
    };
    hatf_event b = { .op = HATF_OP_ALLOC, .thread = 2, .size = 16, .addr = 0x1000, .time = 153 }; /* 382.5 -> 5 */
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 5), 0);
    CU_ASSERT_EQUAL(hatf_writer_add(w, &b, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_num, 64);
    CU_ASSERT_EQUAL(hatf_reader_info(r)->time_unit_ns_den, 1);
    static const uint64_t want1[] = { 3, 5, 5, 6, 6 };
    hatf_iter *it = hatf_iter_thread(r, 1);
    hatf_event ev;
    for (int i = 0; i < 5; i++) {
        CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
        CU_ASSERT_EQUAL(ev.time, want1[i]);
        CU_ASSERT_EQUAL(ev.addr, a[i].addr);
    }
    CU_ASSERT_EQUAL(hatf_iter_next(it, &ev), 0);
    hatf_iter_free(it);
    it = hatf_iter_thread(r, 2);
    CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
    CU_ASSERT_EQUAL(ev.time, 5);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* Decode codes with a model of the given coding and compare with ev. */
typedef struct aev { uint8_t op; uint64_t size, addr, new_addr; } aev;
static void check_decode(const uint8_t *codes, size_t len, int coding, const aev *ev, size_t n, hatf_amodel *d)
{
    hatf_amodel_init(d, 0);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(d, 16, coding), 0);
    const uint8_t *p = codes, *end = codes + len;
    for (size_t i = 0; i < n; i++) {
        hatf_event e = { .op = ev[i].op, .size = ev[i].size };
        CU_ASSERT_EQUAL(hatf_adec_event(d, &e, &p, end), 0);
        CU_ASSERT_EQUAL(e.addr, ev[i].addr);
        if (ev[i].op == HATF_OP_REALLOC_INPLACE) CU_ASSERT_EQUAL(e.new_addr, ev[i].new_addr);
    }
    CU_ASSERT(p == end);
}

static const aev coding_events[] = {
    { HATF_OP_ALLOC, 16, 0x1000, 0 }, { HATF_OP_ALLOC, 16, 0x1010, 0 }, { HATF_OP_FREE, 0, 0x1000, 0 },
    { HATF_OP_ALLOC, 16, 0x1000, 0 }, { HATF_OP_FREE, 0, 0x5000, 0 }, { HATF_OP_FREE, 0, 0, 0 },
    { HATF_OP_REALLOC_INPLACE, 40, 0x1010, 0x1010 }, { HATF_OP_FREE, 0, 0x1010, 0 },
    { HATF_OP_ALLOC, 100, 0x5000, 0 }, { HATF_OP_ALLOC, 100, 0x9000, 0 }, { HATF_OP_ALLOC, 16, 0x2000, 0 },
    { HATF_OP_ALLOC, 24, 0x2020, 0 },
};

static void test_address_coding_bytes(void)
{
    hatf_amodel m;
    hatf_buf out;
    hatf_buf_init(&out);
    hatf_amodel_init(&m, 1);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&m, 16, HATF_ACODE_MODEL), 0);
    size_t n = sizeof coding_events / sizeof coding_events[0];
    for (size_t i = 0; i < n; i++) {
        const aev *a = &coding_events[i];
        hatf_aenc_event(&m, a->op, a->size, a->addr, a->new_addr, &out);
    }
    static const uint8_t want[] = {
        0x83, 0xc0, 0x01,        /* top 0 + guess(0): 3 + 3 zigzag(0x1000) = 0x6003 */
        0x60,                    /* top 0x1000 + 32: 3 + 3 zigzag(-16) = 96 (the class code, 98, is longer) */
        0x03,                    /* free: rank 1 */
        0x00,                    /* the prediction for 16 */
        0x01, 0x80, 0xc0, 0x02,  /* free: escape, zigzag(0x5000) */
        0x00,                    /* free(NULL) */
        0x03, 0x01,              /* realloc: rank 1; same as old */
        0x02,                    /* free: rank 0 */
        0x0a,                    /* freed so far, newest first: 0x1010, 0x1010, 0x5000, 0x1000: 4 + 3 * 2 */
        0xe3, 0xfd, 0x0b,        /* top 0x1010 + 32 (not 0x5000: a recent free is no fresh memory):
                                    3 + 3 zigzag(0x7fd0) = 0x2fee3 */
        0xe5, 0xbd, 0x01,        /* class of 16's fresh 0x1010 + 32: 5 + 3 zigzag(0xfd0) = 0x5ee5
                                    (from the top 0x9000 + 112 it would be 0x2a2a0) */
        0x05,                    /* class of 24 (= of 16): 0x2000 + 32, exact: 5 */
    };
    CU_ASSERT_EQUAL_FATAL(out.len, sizeof want);
    CU_ASSERT(memcmp(out.p, want, sizeof want) == 0);

    hatf_amodel d;
    check_decode(out.p, out.len, HATF_ACODE_MODEL, coding_events, n, &d);
    /* a rank beyond the live objects is refused */
    static const uint8_t bad[] = { 0x09 };
    const uint8_t *p = bad;
    hatf_event e = { .op = HATF_OP_FREE };
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, bad + 1), -1);
    /* so is a recent free beyond the four freed (4 + 3 * 4) */
    static const uint8_t bad_recent[] = { 0x10 };
    p = bad_recent;
    e = (hatf_event){ .op = HATF_OP_ALLOC, .size = 8 };
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, bad_recent + 1), -1);
    /* and a class code for a class with no fresh address yet (size 1000) */
    static const uint8_t bad_class[] = { 0x05 };
    p = bad_class;
    e = (hatf_event){ .op = HATF_OP_ALLOC, .size = 1000 };
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, bad_class + 1), -1);
    hatf_amodel_free(&m);
    hatf_amodel_free(&d);
    hatf_buf_free(&out);
}

/* 0 when hatf_varint_put8 writes at p what hatf_varint_put writes for v (the
 * same length, the same bytes) and nothing past HATF_VARINT_MAX bytes; so
 * does hatf_varint_put8_pdep where this CPU has a fast pdep. */
static int put8_differs(uint64_t v)
{
    static int pdep = -1;
    if (pdep < 0) pdep = hatf_adec_isa() == HATF_ADEC_BMI2;
    uint8_t a[HATF_VARINT_MAX];
    size_t la = hatf_varint_put(a, v);
    for (int k = 0; k <= pdep; k++) {
        uint8_t c[HATF_VARINT_MAX + 8];
        memset(c, 0xa5, sizeof c);
        size_t lc = k ? hatf_varint_put8_pdep(c, v) : hatf_varint_put8(c, v);
        for (size_t i = HATF_VARINT_MAX; i < sizeof c; i++)
            if (c[i] != 0xa5) return 1;
        if (la != lc || memcmp(a, c, la) != 0) return 1;
    }
    return 0;
}

/* hatf_varint_put8 (and its pdep form) writes the bytes hatf_varint_put writes, for every
 * length: 0, 127, 128, each power of two, its neighbours and 2^k - 1 up to
 * 2^64 - 1, random values of every bit length and every value below 2^16. */
static void test_varint_put8(void)
{
    size_t bad = 0, n = 0;
    static const uint64_t edges[] = { 0, 1, 127, 128, 129, 0x3fff, 0x4000, (1ull << 56) - 1, 1ull << 56, UINT64_MAX };
    for (size_t k = 0; k < sizeof edges / sizeof edges[0]; k++, n++) bad += put8_differs(edges[k]);
    for (int b = 0; b <= 64; b++, n++) bad += put8_differs(b < 64 ? (1ull << b) - 1 : UINT64_MAX);
    for (int b = 0; b < 64; b++) {
        uint64_t base = 1ull << b, r = rnd();
        uint64_t vals[] = { base, base + 1, base | (r & (base - 1)), base | (r & (base - 1) & 0x5555555555555555ull),
                            base | (~r & (base - 1)) };
        for (size_t k = 0; k < sizeof vals / sizeof vals[0]; k++, n++) bad += put8_differs(vals[k]);
    }
    for (int i = 0; i < 100000; i++, n++) {
        uint64_t r = rnd();
        bad += put8_differs(r >> (r & 63));
    }
    for (uint64_t v = 0; v < 0x10000; v++, n++) bad += put8_differs(v);
    CU_ASSERT_EQUAL(n, 10 + 65 + 320 + 100000 + 0x10000);
    CU_ASSERT_EQUAL(bad, 0);
}

/* Coding 6 round trip: two groups coded in turn through one table (as a
 * writer's threads share it), each address drawn from its group's past ones,
 * NULL, near the last or anywhere (past 2^61 too); each group decodes to
 * its own addresses, and no code passes HATF_AREF_MAX bytes. */
static void test_aref_round_trip(void)
{
    enum { N = 100000 };
    hatf_aref_slot *tab = calloc((size_t)1 << HATF_AREF_BITS, sizeof *tab);
    hatf_event *ev[2] = { calloc(N, sizeof **ev), calloc(N, sizeof **ev) };
    uint8_t *code[2] = { malloc(N * 2 * HATF_AREF_MAX + 8), malloc(N * 2 * HATF_AREF_MAX + 8) };
    CU_ASSERT_FATAL(tab && ev[0] && ev[1] && code[0] && code[1]);
    uint8_t *o[2] = { code[0], code[1] };
    hatf_aref r[2] = { { .group = 1 }, { .group = 2 } };
    size_t bad = 0;
    for (int i = 0; i < N; i++) {
        int g = i & 1;
        hatf_event *e = &ev[g][i / 2];
        uint64_t x = rnd();
        unsigned ops[] = { HATF_OP_ALLOC, HATF_OP_FREE, HATF_OP_REALLOC_MOVE, HATF_OP_REALLOC_NEW };
        e->op = (uint8_t)ops[x & 3];
        uint64_t addr[2];
        for (int k = 0; k < 2; k++) {
            uint64_t y = rnd();
            int j = i / 2 - 1 - (int)(y >> 40) % 64;  /* an earlier event of the group */
            switch (y % 6) {
            case 0: addr[k] = 0; break;
            case 1: case 2: addr[k] = j >= 0 && ev[g][j].addr ? ev[g][j].addr : 0x7000 + (y & 0xfff0); break;
            case 3: addr[k] = r[g].prev + ((y >> 8) & 0x3ff0); break;
            case 4: addr[k] = y >> (y & 15); break;  /* any, tagged pointers' too */
            default: addr[k] = (y >> (y & 15)) & ((1ull << 47) - 1); break;
            }
        }
        e->addr = e->op == HATF_OP_REALLOC_NEW ? 0 : addr[0];
        e->new_addr = e->op == HATF_OP_REALLOC_MOVE || e->op == HATF_OP_REALLOC_NEW ? addr[1] : 0;
        uint8_t *o0 = o[g];
        o[g] = hatf_aref_put(o[g], e->addr, e->op == HATF_OP_ALLOC, &r[g], tab, 0);
        bad += o[g] - o0 > HATF_AREF_MAX;
        if (e->op >= HATF_OP_REALLOC_INPLACE) {
            o0 = o[g];
            o[g] = hatf_aref_put(o[g], e->new_addr, 1, &r[g], tab, 0);
            bad += o[g] - o0 > HATF_AREF_MAX;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    for (int g = 0; g < 2; g++) {
        hatf_amodel d;
        hatf_amodel_init(&d, 0);
        CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, N, HATF_ACODE_REF), 0);
        hatf_event *got = calloc(N / 2, sizeof *got);
        CU_ASSERT_PTR_NOT_NULL_FATAL(got);
        for (int i = 0; i < N / 2; i++) got[i].op = ev[g][i].op;
        const uint8_t *p = code[g];
        CU_ASSERT_EQUAL(hatf_adec_run(&d, got, N / 2, &p, o[g], HATF_ADEC_PLAIN), N / 2);
        CU_ASSERT(p == o[g]);
        size_t diff = 0;
        for (int i = 0; i < N / 2; i++) diff += got[i].addr != ev[g][i].addr || got[i].new_addr != ev[g][i].new_addr;
        CU_ASSERT_EQUAL(diff, 0);
        free(got);
        hatf_amodel_free(&d);
    }
    free(tab); free(ev[0]); free(ev[1]); free(code[0]); free(code[1]);
}

/* Coding 6's bytes for the events above, and what its decoder refuses. */
static void test_address_coding_ref_bytes(void)
{
    size_t n = sizeof coding_events / sizeof coding_events[0];
    hatf_aref_slot *tab = calloc((size_t)1 << HATF_AREF_BITS, sizeof *tab);
    CU_ASSERT_PTR_NOT_NULL_FATAL(tab);
    uint8_t out[96], *o = out;
    hatf_aref r = { .group = 7 };
    for (size_t i = 0; i < n; i++) {
        o = hatf_aref_put(o, coding_events[i].addr, coding_events[i].op == HATF_OP_ALLOC, &r, tab, 0);
        if (coding_events[i].op == HATF_OP_REALLOC_INPLACE) o = hatf_aref_put(o, coding_events[i].new_addr, 1, &r, tab, 0);
    }
    o = hatf_aref_put(o, 0x4000000000002020, 0, &r, tab, 0);  /* 2^62 from the last */
    static const uint8_t want[] = {
        0x84, 0x80, 0x01,  /* 0x1000, new: 4 + 2 zigzag(0x1000 - 0) */
        0x44,              /* 0x1010: the last new address + 0x10 */
        0x03,              /* free 0x1000: the address coded 1 before the last (1 + 2 * 1) */
        0x01,              /* 0x1000 again: the last one */
        0x84, 0x80, 0x04,  /* free 0x5000: the last address (0x1000) + 0x4000 */
        0x00,              /* free(NULL) */
        0x07,              /* realloc 0x1010: 3 back */
        0x01,              /* ... in place: the last */
        0x01,              /* free 0x1010 */
        0x07,              /* 0x5000, freed 3 back */
        0x84, 0x80, 0x04,  /* 0x9000: the last new address (0x5000) + 0x4000 */
        0x82, 0x80, 0x07,  /* 0x2000: -0x7000 */
        0x84, 0x01,        /* 0x2020: +0x20 */
        0x02, 0xa0, 0xc0, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40,  /* a tagged 0x2020: 2, the address */
    };
    CU_ASSERT_EQUAL_FATAL((size_t)(o - out), sizeof want);
    CU_ASSERT(memcmp(out, want, sizeof want) == 0);
    hatf_amodel d;
    check_decode(want, sizeof want - 10, HATF_ACODE_REF, coding_events, n, &d);
    hatf_event tagged = { .op = HATF_OP_FREE };
    const uint8_t *p = want + sizeof want - 10;
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &tagged, &p, want + sizeof want), 0);
    CU_ASSERT_EQUAL(tagged.addr, 0x4000000000002020);
    hatf_amodel_free(&d);
    /* a distance back past the group's first address, a difference that
     * lands on NULL (the encoder codes it 0), an end inside a varint */
    static const uint8_t past[] = { 0x84, 0x80, 0x01, 0x03 }, one[] = { 0x84, 0x80, 0x01 };
    hatf_amodel_init(&d, 0);
    p = past;
    hatf_event e = { .op = HATF_OP_FREE };
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, 16, HATF_ACODE_REF), 0);
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, past + sizeof past), 0);
    CU_ASSERT_EQUAL(e.addr, 0x1000);
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, past + sizeof past), -1);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, 16, HATF_ACODE_REF), 0);
    p = one;
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, one + sizeof one), 0);
    /* then 0x1000 + unzigzag((0x4002 - 4) / 2) = 0x1000 - 0x1000 */
    static const uint8_t back_to_null[] = { 0x82, 0x80, 0x01 };
    p = back_to_null;
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, back_to_null + sizeof back_to_null), -1);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, 16, HATF_ACODE_REF), 0);
    p = want;
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, want + 1), -1);
    hatf_amodel_free(&d);
    free(tab);
}

/* Coding 5, the fast groups' before coding 6 (no model), still read: NULL as
 * 0, each other address as 1 + the zigzag difference from the previous
 * non-NULL one; coding 4 (before it, without the NULL code) still read. */
static void test_address_coding_delta_bytes(void)
{
    size_t n = sizeof coding_events / sizeof coding_events[0];
    static const uint8_t want[] = {
        0x81, 0x40,        /* 0x1000 - 0: 1 + zigzag 0x2000 */
        0x21,              /* 0x1010: +0x10 */
        0x20,              /* free 0x1000: -0x10 */
        0x01,              /* 0x1000 again */
        0x81, 0x80, 0x02,  /* free 0x5000: +0x4000 */
        0x00,              /* free(NULL): the reference stays 0x5000 */
        0xe0, 0xff, 0x01,  /* realloc 0x1010: -0x3ff0 */
        0x01,              /* ... in place */
        0x01,              /* free 0x1010 */
        0xe1, 0xff, 0x01,  /* 0x5000: +0x3ff0 */
        0x81, 0x80, 0x02,  /* 0x9000: +0x4000 */
        0x80, 0xc0, 0x03,  /* 0x2000: -0x7000 */
        0x41,              /* 0x2020: +0x20 */
    };
    hatf_amodel d;
    check_decode(want, sizeof want, HATF_ACODE_DELTA_N, coding_events, n, &d);
    hatf_amodel_free(&d);
    /* coding 4, as the recorder wrote it before: NULL as the difference to 0 */
    static const uint8_t want4[] = {
        0x80, 0x40, 0x20, 0x1f, 0x00, 0x80, 0x80, 0x02, 0xff, 0xbf, 0x02, 0xdf, 0xff, 0x01,
        0x00, 0x00, 0xe0, 0xff, 0x01, 0x80, 0x80, 0x02, 0xff, 0xbf, 0x03, 0x40,
    };
    check_decode(want4, sizeof want4, HATF_ACODE_DELTA, coding_events, n, &d);
    /* a stream that ends inside a varint is refused */
    const uint8_t *p = want;
    hatf_event e = { .op = HATF_OP_ALLOC, .size = 8 };
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, 16, HATF_ACODE_DELTA), 0);
    CU_ASSERT_EQUAL(hatf_adec_event(&d, &e, &p, want + 1), -1);
    hatf_amodel_free(&d);
}

/* A model freed (as reset's out-of-memory path frees it) is an encoder still:
 * reset again, it codes as a new one does. */
static void test_amodel_free_then_reset(void)
{
    hatf_amodel m, fresh;
    hatf_amodel_init(&m, 1);
    hatf_amodel_init(&fresh, 1);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&m, 16, HATF_ACODE_MODEL), 0);
    hatf_amodel_free(&m);
    CU_ASSERT_EQUAL(m.encoder, 1);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&m, 16, HATF_ACODE_MODEL), 0);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&fresh, 16, HATF_ACODE_MODEL), 0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(m.map);
    hatf_buf a, b;
    hatf_buf_init(&a);
    hatf_buf_init(&b);
    size_t n = sizeof coding_events / sizeof coding_events[0];
    for (size_t i = 0; i < n; i++) {
        const aev *e = &coding_events[i];
        hatf_aenc_event(&m, e->op, e->size, e->addr, e->new_addr, &a);
        hatf_aenc_event(&fresh, e->op, e->size, e->addr, e->new_addr, &b);
    }
    CU_ASSERT_EQUAL(a.len, b.len);
    CU_ASSERT(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
    hatf_buf_free(&a);
    hatf_buf_free(&b);
    hatf_amodel_free(&m);
    hatf_amodel_free(&fresh);
}

/* Coding 2 (traces written before coding 3) still decodes: one bump
 * reference, the newest object, and codes 3 + 2k / 4 + 2k. */
static void test_address_coding2_bytes(void)
{
    static const uint8_t codes[] = {
        0x83, 0x80, 0x01,        /* 3 + 2 zigzag(0x1000) */
        0x41,                    /* 3 + 2 zigzag(0x1010 - (0x1000 + 32)) */
        0x03, 0x00, 0x01, 0x80, 0xc0, 0x02, 0x00, 0x03, 0x01, 0x02,
        0x08,                    /* recent free 2: 0x5000 */
        0x03,                    /* 0x5000 + 112 exact */
        0x03, 0x00,              /* free 0x5000 (rank 1), then the prediction for 100 gives it back */
        0x03,                    /* 0x5000 (the newest object, however coded) + 112 exact */
    };
    static const aev ev[] = {
        { HATF_OP_ALLOC, 16, 0x1000, 0 }, { HATF_OP_ALLOC, 16, 0x1010, 0 }, { HATF_OP_FREE, 0, 0x1000, 0 },
        { HATF_OP_ALLOC, 16, 0x1000, 0 }, { HATF_OP_FREE, 0, 0x5000, 0 }, { HATF_OP_FREE, 0, 0, 0 },
        { HATF_OP_REALLOC_INPLACE, 40, 0x1010, 0x1010 }, { HATF_OP_FREE, 0, 0x1010, 0 },
        { HATF_OP_ALLOC, 100, 0x5000, 0 }, { HATF_OP_ALLOC, 100, 0x5070, 0 }, { HATF_OP_FREE, 0, 0x5000, 0 },
        { HATF_OP_ALLOC, 100, 0x5000, 0 }, { HATF_OP_ALLOC, 8, 0x5070, 0 },
    };
    hatf_amodel d;
    check_decode(codes, sizeof codes, HATF_ACODE_MODEL2, ev, sizeof ev / sizeof ev[0], &d);
    hatf_amodel_free(&d);
}

/* Many live objects across superblocks: ranks of every size round-trip. */
static void test_address_ranks_large(void)
{
    enum { N = 20000 };
    hatf_amodel m, d;
    hatf_buf out;
    hatf_buf_init(&out);
    hatf_amodel_init(&m, 1);
    hatf_amodel_init(&d, 0);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&m, N, HATF_ACODE_MODEL), 0);
    CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, N, HATF_ACODE_MODEL), 0);
    static uint64_t addrs[N];
    static uint8_t ops[2 * N];
    static uint64_t vals[2 * N];
    size_t nops = 0, nlive = 0;
    for (size_t i = 0; i < N; i++) {
        uint64_t a = 0x10000000 + 48 * i;
        hatf_aenc_event(&m, HATF_OP_ALLOC, 32 + i % 7, a, 0, &out);
        ops[nops] = 0; vals[nops++] = a;
        addrs[nlive++] = a;
        if (i % 3 == 2) {  /* free a random live one: ranks far and near */
            size_t j = (size_t)(rnd() % nlive);
            hatf_aenc_event(&m, HATF_OP_FREE, 0, addrs[j], 0, &out);
            ops[nops] = 1; vals[nops++] = addrs[j];
            addrs[j] = addrs[--nlive];
        }
    }
    /* every copy of the decoder's loop this CPU can run */
    for (int isa = HATF_ADEC_PLAIN; isa <= hatf_adec_isa(); isa++) {
        CU_ASSERT_EQUAL_FATAL(hatf_amodel_reset(&d, N, HATF_ACODE_MODEL), 0);
        const uint8_t *p = out.p, *end = out.p + out.len;
        size_t bad = 0;
        for (size_t i = 0, k = 0; i < nops; i++) {
            hatf_event e = { .op = ops[i], .size = ops[i] ? 0 : 32 + k % 7 };
            if (!ops[i]) k++;
            if (hatf_adec_run(&d, &e, 1, &p, end, isa) != 1 || e.addr != vals[i]) bad++;
        }
        CU_ASSERT_EQUAL(bad, 0);
        CU_ASSERT(p == end);
        CU_ASSERT_EQUAL(d.live, nlive);
    }
    hatf_amodel_free(&m);
    hatf_amodel_free(&d);
    hatf_buf_free(&out);
}

static evset sets[3];

static void build_sets(void)
{
    for (int t = 0; t < 3; t++) {
        sets[t].n = 0;
        sets[t].nbytes = 0;
        make_thread(&sets[t], (uint64_t)t + 1, 1000, 300);
    }
}

/* Expected global order: by time (a comment keeps its predecessor's), then thread, then stream order. */
static size_t merge_expected(evset *s, size_t ns, hatf_event *out)
{
    size_t pos[3] = {0}, n = 0;
    uint64_t key[3] = {0};
    for (;;) {
        int best = -1;
        for (size_t t = 0; t < ns; t++) {
            if (pos[t] == s[t].n) continue;
            const hatf_event *e = &s[t].ev[pos[t]];
            uint64_t k = e->op == HATF_OP_COMMENT ? key[t] : ref_merge_key(e);
            const hatf_event *b = best < 0 ? NULL : &s[best].ev[pos[best]];
            if (!b || k < (b->op == HATF_OP_COMMENT ? key[best] : ref_merge_key(b)))
                best = (int)t;
        }
        if (best < 0) return n;
        const hatf_event *e = &s[best].ev[pos[best]++];
        if (e->op != HATF_OP_COMMENT) key[best] = ref_merge_key(e);
        out[n++] = *e;
    }
}

static void round_trip(int fast)
{
    build_sets();
    hatf_counters ctr = { 903, 5, 17 };
    write_fast = fast;
    CU_ASSERT_EQUAL_FATAL(write_sets(path1, sets, 3, 40, 13, &ctr), 0);
    write_fast = 0;
    CU_ASSERT(fast ? fast_written > 3 : fast_written == 0);
    CU_ASSERT(fast ? fast_stored > 0 && fast_stored < fast_events : fast_stored == 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path1, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 0777, 0600);

    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_complete(r), 1);
    CU_ASSERT_EQUAL(hatf_reader_damage(r, NULL), 0);
    const hatf_info *in = hatf_reader_info(r);
    CU_ASSERT_EQUAL(in->version_major, 1);
    CU_ASSERT_EQUAL(in->pid, 4242);
    CU_ASSERT_EQUAL(in->ppid, 1);
    CU_ASSERT_EQUAL(in->address_bits, 64);
    CU_ASSERT_EQUAL(in->start_realtime_ns, 1700000000123456789ull);
    CU_ASSERT_EQUAL(in->time_unit_ns_den, 3);
    CU_ASSERT_EQUAL(in->flags, HATF_INFO_FORKED);
    CU_ASSERT_STRING_EQUAL(in->clock, "CLOCK_MONOTONIC");
    CU_ASSERT_STRING_EQUAL(in->cmdline, "./espresso -t input.in");
    CU_ASSERT_STRING_EQUAL(in->parent_trace, "parent.hatf");
    const hatf_counters *c = hatf_reader_counters(r);
    CU_ASSERT_EQUAL(c->events, 903);
    CU_ASSERT_EQUAL(c->dropped, 5);
    CU_ASSERT_EQUAL(c->ring_waits, 17);
    CU_ASSERT_EQUAL(hatf_reader_event_count(r), sets[0].n + sets[1].n + sets[2].n);
    const uint64_t *th;
    CU_ASSERT_EQUAL_FATAL(hatf_reader_threads(r, &th), 3);
    CU_ASSERT_EQUAL(th[0], 1);
    CU_ASSERT_EQUAL(th[1], 2);
    CU_ASSERT_EQUAL(th[2], 3);
    CU_ASSERT_STRING_EQUAL(hatf_reader_thread_name(r, 1), "main");
    CU_ASSERT_STRING_EQUAL(hatf_reader_thread_name(r, 2), "worker");
    CU_ASSERT_PTR_NULL(hatf_reader_thread_name(r, 3));
    CU_ASSERT_STRING_EQUAL(hatf_reader_heap_name(r, 2), "arena");
    CU_ASSERT_PTR_NULL(hatf_reader_heap_name(r, 1));

    /* each thread alone, in stream order */
    for (int t = 0; t < 3; t++) {
        hatf_iter *it = hatf_iter_thread(r, (uint64_t)t + 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(it);
        hatf_event e;
        size_t n = 0, bad = 0;
        int rc;
        while ((rc = hatf_iter_next(it, &e)) == 1) {
            hatf_event want = sets[t].ev[n];
            if (want.op == HATF_OP_COMMENT) want.attr_is_bytes = e.attr_is_bytes;
            if (n >= sets[t].n || !same_event(&e, &want)) bad++;
            n++;
        }
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT_EQUAL(n, sets[t].n);
        CU_ASSERT_EQUAL(bad, 0);
        hatf_iter_free(it);
    }
    /* an unknown thread: empty */
    hatf_iter *it = hatf_iter_thread(r, 99);
    hatf_event e;
    CU_ASSERT_EQUAL(hatf_iter_next(it, &e), 0);
    hatf_iter_free(it);

    /* all threads merged */
    size_t total = sets[0].n + sets[1].n + sets[2].n;
    hatf_event *want = calloc(total, sizeof *want);
    CU_ASSERT_EQUAL_FATAL(merge_expected(sets, 3, want), total);
    it = hatf_iter_global(r);
    size_t n = 0, bad = 0, offs_bad = 0;
    uint64_t last_off = 0;
    int rc;
    while ((rc = hatf_iter_next(it, &e)) == 1) {
        if (n >= total || !same_event(&e, &want[n])) bad++;
        uint64_t off = hatf_iter_chunk_offset(it);
        if (off < 100 || off >= (uint64_t)st.st_size) offs_bad++;
        last_off = off;
        n++;
    }
    (void)last_off;
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(n, total);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(offs_bad, 0);
    hatf_iter_free(it);
    free(want);
    hatf_reader_close(r);
}

static void test_round_trip(void) { round_trip(0); }
/* Groups coded fast (addresses in coding 4, chunks stored) between groups
 * coded in full read back the same events, in the same order. */
static void test_round_trip_fast(void) { round_trip(1); }

/* Equal times: frees first, then lower thread, then stream order. */
static void test_global_ties(void)
{
    hatf_event a[] = {
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 10, .size = 1, .addr = 0x100 },
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 10, .size = 2, .addr = 0x200 },
        { .op = HATF_OP_FREE, .thread = 2, .time = 30, .addr = 0x100 },
    };
    hatf_event b[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 10, .size = 3, .addr = 0x300 },
        { .op = HATF_OP_FREE, .thread = 1, .time = 20, .addr = 0x300 },
        { .op = HATF_OP_COMMENT, .data = (const uint8_t *)"x", .data_len = 1 },
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 30, .size = 4, .addr = 0x400 },
    };
    hatf_err err = {0};
    unlink(path2);
    hatf_writer *w = hatf_writer_create(path2, 0, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 3), 0);  /* thread 2 first in the file */
    CU_ASSERT_EQUAL(hatf_writer_add(w, b, 4), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const uint64_t *th;
    CU_ASSERT_EQUAL(hatf_reader_threads(r, &th), 2);
    CU_ASSERT_EQUAL(th[0], 2);  /* order of first appearance */
    hatf_iter *it = hatf_iter_global(r);
    /* at 30, thread 2's free goes before thread 1's alloc */
    static const uint64_t want_size[] = { 3, 1, 2, 0, 0, 0, 4 };
    static const uint8_t want_op[] = { 0, 0, 0, 1, 10, 1, 0 };
    hatf_event e;
    size_t n = 0;
    while (hatf_iter_next(it, &e) == 1 && n < 7) {
        CU_ASSERT_EQUAL(e.op, want_op[n]);
        CU_ASSERT_EQUAL(e.size, want_size[n]);
        n++;
    }
    CU_ASSERT_EQUAL(n, 7);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

/* A group without any address (empty address chunk) reads back. */
static void test_no_addresses(void)
{
    hatf_event a[] = {
        { .op = HATF_OP_THREAD_CREATE, .thread = 5, .time = 1 },
        { .op = HATF_OP_HEAP_CREATE, .thread = 5, .heap = 9, .time = 2 },
    };
    hatf_err err = {0};
    unlink(path2);
    hatf_writer *w = hatf_writer_create(path2, 0, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 2), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_iter *it = hatf_iter_global(r);
    hatf_event e;
    CU_ASSERT_EQUAL(hatf_iter_next(it, &e), 1);
    CU_ASSERT_EQUAL(e.op, HATF_OP_THREAD_CREATE);
    CU_ASSERT_EQUAL(hatf_iter_next(it, &e), 1);
    CU_ASSERT_EQUAL(e.heap, 9);
    CU_ASSERT_EQUAL(hatf_iter_next(it, &e), 0);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

static void test_version_refused(void)
{
    build_sets();
    CU_ASSERT_EQUAL_FATAL(write_sets(path1, sets, 1, 0, 1000, NULL), 0);
    int fd = open(path1, O_RDWR);
    uint8_t v[2] = { 2, 0 };
    CU_ASSERT_EQUAL(pwrite(fd, v, 2, 8), 2);
    close(fd);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(err.code, HATF_E_VERSION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "version 2.0 is newer than this reader (1.x)"));
    /* a newer minor version is read */
    fd = open(path1, O_RDWR);
    v[0] = 1; v[1] = 0;
    CU_ASSERT_EQUAL(pwrite(fd, v, 2, 8), 2);
    uint8_t minor[2] = { 7, 0 };
    CU_ASSERT_EQUAL(pwrite(fd, minor, 2, 10), 2);
    close(fd);
    memset(&err, 0, sizeof err);
    r = hatf_reader_open(path1, &err);  /* the header checksum now fails: refused cleanly */
    CU_ASSERT_PTR_NULL(r);
    CU_ASSERT_EQUAL(err.code, HATF_E_CORRUPT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "header checksum"));
}

static uint8_t *slurp(const char *p, size_t *n)
{
    FILE *f = fopen(p, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(*n + 1);
    if (fread(b, 1, *n, f) != *n) { free(b); b = NULL; }
    fclose(f);
    return b;
}

static void spit(const char *p, const uint8_t *b, size_t n)
{
    FILE *f = fopen(p, "wb");
    if (n) fwrite(b, 1, n, f);
    fclose(f);
}

/* Read everything through the global iterator, going on after damage. */
static size_t read_all(hatf_reader *r, size_t *errors, hatf_event *out, size_t cap)
{
    hatf_iter *it = hatf_iter_global(r);
    hatf_event e;
    size_t n = 0;
    int rc;
    *errors = 0;
    while ((rc = hatf_iter_next(it, &e)) != 0) {
        if (rc < 0) { if (++*errors > 1000) break; continue; }
        if (out && n < cap) {  /* keep the bytes: e.data lives until the next call */
            static uint8_t keep[128][64];
            out[n] = e;
            if (e.data_len && e.data_len <= 64 && n < 128) {
                memcpy(keep[n], e.data, e.data_len);
                out[n].data = keep[n];
            }
        }
        n++;
    }
    hatf_iter_free(it);
    return n;
}

/* Chunk map of a complete file: for each group, where its address chunk ends. */
typedef struct gmap { uint64_t thread; uint32_t seq, events; uint64_t end; } gmap;

static size_t chunk_map(const uint8_t *b, size_t n, gmap *g, size_t cap, uint64_t *hdr_len)
{
    uint64_t pos = hatf_load_le32(b + 12);
    *hdr_len = pos;
    size_t ng = 0;
    while (pos + HATF_CK_HDR <= n) {
        hatf_chunk_hdr h;
        if (hatf_ck_hdr_unpack(b + pos, &h) != 0) break;
        uint64_t end = pos + HATF_CK_HDR + h.stored_len;
        if (h.kind == HATF_CK_ADDRS && ng < cap) g[ng++] = (gmap){ h.thread, h.seq, h.events, end };
        pos = end;
    }
    return ng;
}

static void test_truncation_every_byte(void)
{
    evset small[2] = {{0}};
    make_thread(&small[0], 1, 100, 14);
    make_thread(&small[1], 2, 100, 10);
    CU_ASSERT_EQUAL_FATAL(write_sets(path1, small, 2, 5, 3, NULL), 0);
    size_t n;
    uint8_t *b = slurp(path1, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    gmap g[64];
    uint64_t hlen;
    size_t ng = chunk_map(b, n, g, 64, &hlen);
    CU_ASSERT(ng >= 6);
    size_t opened = 0, refused = 0, wrong = 0, no_damage = 0, bad_refusal = 0;
    hatf_event got[128];
    for (size_t len = 0; len < n; len++) {
        spit(path2, b, len);
        hatf_err err = {0};
        hatf_reader *r = hatf_reader_open(path2, &err);
        if (!r) {
            refused++;
            if (len >= hlen || err.code == 0 || err.msg[0] == 0) bad_refusal++;
            continue;
        }
        opened++;
        /* expected: the events of each thread's groups that end within len, in order */
        size_t want_n[2] = {0};
        for (size_t i = 0; i < ng; i++)
            if (g[i].end <= len) want_n[g[i].thread - 1] += g[i].events;
        size_t errors, k = read_all(r, &errors, got, 128);
        if (k != want_n[0] + want_n[1] || errors || hatf_reader_event_count(r) != k) wrong++;
        /* the events read are each thread's first want_n events */
        size_t seen[2] = {0};
        for (size_t i = 0; i < k && i < 128; i++) {
            unsigned t = got[i].op == HATF_OP_COMMENT ? 9 : (unsigned)got[i].thread - 1;
            if (t > 1) continue;  /* comments: checked by count */
            while (seen[t] < small[t].n && small[t].ev[seen[t]].op == HATF_OP_COMMENT) seen[t]++;
            if (seen[t] >= want_n[t] || !same_event(&got[i], &small[t].ev[seen[t]])) wrong++;
            seen[t]++;
        }
        if (hatf_reader_damage(r, NULL) == 0 || hatf_reader_complete(r)) no_damage++;
        hatf_reader_close(r);
    }
    CU_ASSERT_EQUAL(refused, hlen);
    CU_ASSERT_EQUAL(bad_refusal, 0);
    CU_ASSERT_EQUAL(opened, n - hlen);
    CU_ASSERT_EQUAL(wrong, 0);
    CU_ASSERT_EQUAL(no_damage, 0);

    /* one precise message: cut inside the second chunk */
    uint64_t cut = g[0].end + 70;
    spit(path2, b, cut);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const char *const *lines;
    size_t nl = hatf_reader_damage(r, &lines);
    CU_ASSERT_EQUAL(nl, 2);
    char want[128];
    hatf_chunk_hdr h;
    hatf_ck_hdr_unpack(b + g[0].end, &h);
    snprintf(want, sizeof want, "offset %llu: records chunk truncated (needs %u bytes, 70 present)",
             (unsigned long long)g[0].end, HATF_CK_HDR + h.stored_len);
    if (nl == 2) {
        CU_ASSERT_STRING_EQUAL(lines[0], want);
        CU_ASSERT_PTR_NOT_NULL(strstr(lines[1], "index missing: file ended without a trailer"));
    }
    hatf_reader_close(r);
    free(b);
    free(small[0].ev);
    free(small[1].ev);
}

/* The worked example of docs/format-container.md up to its index chunk (whose
 * zstd frame may differ between zstd versions): header, records chunk with its
 * time section, address chunk. */
static const uint8_t worked_example[0x103] = {
    0x48, 0x41, 0x54, 0x52, 0x41, 0x43, 0x45, 0x00, 0x01, 0x00, 0x00, 0x00, 0x58, 0x00, 0x00, 0x00,
    0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x92, 0x10, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0x00, 0x43, 0x4c, 0x4f, 0x43, 0x4b, 0x5f,
    0x4d, 0x4f, 0x4e, 0x4f, 0x54, 0x4f, 0x4e, 0x49, 0x43, 0x03, 0x00, 0x2e, 0x2f, 0x61, 0x00, 0x00,
    0x5f, 0x00, 0xa6, 0x9a, 0xf0, 0x76, 0xec, 0xb0, 0x48, 0x43, 0x48, 0x4b, 0x01, 0x00, 0x01, 0x00,
    0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
    0x27, 0x00, 0x00, 0x00, 0x27, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x96, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3a, 0x8f, 0xa8, 0x6a, 0x5d, 0x45, 0x6b, 0x73,
    0x5b, 0x90, 0xaa, 0x69, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x63, 0x00, 0x0b, 0x01, 0x00, 0x01,
    0x0b, 0x02, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x0b, 0x02, 0x02, 0x03,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x0b, 0x01, 0x01, 0x00, 0x00, 0x18, 0x01, 0x48,
    0x43, 0x48, 0x4b, 0x02, 0x00, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x64,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x96, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x6b,
    0x7f, 0x14, 0x7c, 0xc0, 0x01, 0xec, 0xe0, 0x75, 0xb5, 0xbb, 0xed, 0x00, 0x00, 0x00, 0x00, 0x83,
    0xc0, 0x01, 0x02,
};

static void write_worked_example(const char *path)
{
    hatf_info in;
    memset(&in, 0, sizeof in);
    in.address_bits = 64; in.pid = 4242; in.ppid = 1;
    in.time_unit_ns_num = in.time_unit_ns_den = 1;
    strcpy(in.clock, "CLOCK_MONOTONIC");
    strcpy(in.cmdline, "./a");
    hatf_err err;
    hatf_writer *w = hatf_writer_create(path, 1, &in, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event e[2] = {
        { .op = HATF_OP_ALLOC, .size = 24, .addr = 0x1000, .time = 100, .thread = 1 },
        { .op = HATF_OP_FREE, .addr = 0x1000, .time = 150, .thread = 1 },
    };
    CU_ASSERT_EQUAL(hatf_writer_add(w, e, 2), 0);
    hatf_counters c = { 2, 0, 0 };
    CU_ASSERT_EQUAL(hatf_writer_close(w, &c, &err), 0);
}

/* Read the file at path through the global iterator: one damage line must
 * contain want. @return the events read, *errors the errors met. */
static size_t read_damaged(const char *path, const char *want, size_t *errors)
{
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    size_t k = read_all(r, errors, NULL, 0);
    const char *const *lines;
    size_t nl = hatf_reader_damage(r, &lines), found = 0;
    for (size_t i = 0; i < nl; i++) found += strstr(lines[i], want) != NULL;
    CU_ASSERT_EQUAL(found, 1);
    hatf_reader_close(r);
    return k;
}

/* Patch the worked example's time section (bytes 0x98..0x9b) and fix the
 * records chunk's checksums; without its index (which holds a copy of the
 * chunk header) the reader scans the chunks. A damage line must contain want. */
static void time_section_damage(const uint8_t patch[4], const char *want, size_t want_events)
{
    size_t n;
    uint8_t *b = slurp(path1, &n);
    CU_ASSERT_FATAL(n > 0x103);
    memcpy(b + 0x98, patch, 4);
    hatf_store_le64(b + 0x58 + 48, XXH3_64bits(b + 0x58 + HATF_CK_HDR, 39));
    hatf_store_le32(b + 0x58 + 56, (uint32_t)XXH3_64bits(b + 0x58, 56));
    spit(path2, b, 0x103);
    free(b);
    size_t errors, k = read_damaged(path2, want, &errors);
    CU_ASSERT_EQUAL(errors, 1);
    CU_ASSERT_EQUAL(k, want_events);
}

static void test_time_section(void)
{
    write_worked_example(path1);
    size_t n;
    uint8_t *b = slurp(path1, &n);
    CU_ASSERT_EQUAL(n, 462);
    CU_ASSERT_FATAL(n >= sizeof worked_example);
    CU_ASSERT(memcmp(b, worked_example, sizeof worked_example) == 0);
    free(b);
    /* the times come back from the section: 100, then 150 */
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_event ev[2];
    size_t errors;
    CU_ASSERT_EQUAL(read_all(r, &errors, ev, 2), 2);
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT_EQUAL(ev[0].time, 100);
    CU_ASSERT_EQUAL(ev[1].time, 150);
    hatf_reader_close(r);
    /* a first run of two events: the step and the last run are left over */
    time_section_damage((const uint8_t[]){ 0x03, 0x01, 0x63, 0x00 }, "time section does not match its events", 2);
    /* a last run of two events for the one event left */
    time_section_damage((const uint8_t[]){ 0x03, 0x00, 0x63, 0x01 }, "time section does not match its events", 2);
    /* the step cut off in its varint: the second event has no time */
    time_section_damage((const uint8_t[]){ 0x03, 0x00, 0xff, 0xff }, "time section bad at event 1", 1);
    /* a section longer than the chunk */
    time_section_damage((const uint8_t[]){ 0x30, 0x00, 0x63, 0x00 }, "time section longer than its chunk", 0);
}

/* ---- release leads (records coding 2) ----------------------------------- */

/* alloc 0x1000 at 10, realloc-move to 0x2000 at 20 released at 15 (lead 5),
 * free 0x2000 at 30: the file's records chunk, stored, is at 0x58. */
static void write_lead_example(const char *path)
{
    hatf_info in = test_info();
    in.flags = 0;
    in.time_unit_ns_num = in.time_unit_ns_den = 1;
    hatf_err err;
    hatf_writer *w = hatf_writer_create(path, 1, &in, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event e[3] = {
        { .op = HATF_OP_ALLOC, .size = 24, .addr = 0x1000, .time = 10, .thread = 1 },
        { .op = HATF_OP_REALLOC_MOVE, .size = 48, .addr = 0x1000, .new_addr = 0x2000, .time = 20, .thread = 1,
          .release_lead = 5 },
        { .op = HATF_OP_FREE, .addr = 0x2000, .time = 30, .thread = 1 },
    };
    CU_ASSERT_EQUAL(hatf_writer_add(w, e, 3), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
}

/* Patch byte at (of the records payload) to v, fix the chunk's checksums, cut
 * the index off (the reader scans): it reports damage containing want. */
static void lead_damage(size_t hdr, size_t at, uint8_t v, const char *want)
{
    size_t n;
    uint8_t *b = slurp(path1, &n);
    CU_ASSERT_FATAL(b && n > hdr + HATF_CK_HDR + at);
    uint32_t stored = hatf_load_le32(b + hdr + 28);
    b[hdr + HATF_CK_HDR + at] = v;
    hatf_store_le64(b + hdr + 48, XXH3_64bits(b + hdr + HATF_CK_HDR, stored));
    hatf_store_le32(b + hdr + 56, (uint32_t)XXH3_64bits(b + hdr, 56));
    size_t adr = hdr + HATF_CK_HDR + stored;  /* the address chunk follows; the index is cut off */
    spit(path2, b, adr + HATF_CK_HDR + hatf_load_le32(b + adr + 28));
    free(b);
    size_t errors;
    read_damaged(path2, want, &errors);
    CU_ASSERT(errors >= 1);
}

static void test_release_section(void)
{
    write_lead_example(path1);
    size_t n;
    uint8_t *b = slurp(path1, &n);
    CU_ASSERT_FATAL(b != NULL);
    size_t hdr = hatf_load_le32(b + 12);
    CU_ASSERT_EQUAL(b[hdr + 4], HATF_CK_RECORDS);
    CU_ASSERT_EQUAL(b[hdr + 5], 0);                      /* stored: its bytes as they are */
    CU_ASSERT_EQUAL(b[hdr + 6] | b[hdr + 7] << 8, 2);    /* records coding 2: a release section */
    /* time section: 5 bytes (runs at 10, 20, 30); release section: 1 byte, the lead 5 */
    static const uint8_t want[] = { 0x05, 0x00, 0x13, 0x00, 0x13, 0x00, 0x01, 0x05 };
    CU_ASSERT(memcmp(b + hdr + HATF_CK_HDR, want, sizeof want) == 0);
    free(b);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_event ev[3];
    size_t errors;
    CU_ASSERT_EQUAL(read_all(r, &errors, ev, 3), 3);
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT_EQUAL(ev[0].release_lead, 0);
    CU_ASSERT_EQUAL(ev[1].release_lead, 5);
    CU_ASSERT_EQUAL(ev[1].time, 20);
    CU_ASSERT_EQUAL(ev[2].release_lead, 0);
    hatf_reader_close(r);
    /* a lead past its event's time (21 > 20) */
    lead_damage(hdr, 7, 21, "release section bad at event");
    /* the realloc made in place (tag 2): its lead is left over */
    b = slurp(path1, &n);
    CU_ASSERT_FATAL(b != NULL);
    size_t tag = 0;  /* the realloc's record: the second tag byte 3 after the metadata */
    for (size_t i = hdr + HATF_CK_HDR + sizeof want; i + 1 < n && !tag; i++)
        if (b[i] == HATF_OP_REALLOC_MOVE && b[i + 1] == 48) tag = i - hdr - HATF_CK_HDR;
    free(b);
    CU_ASSERT_FATAL(tag != 0);
    lead_damage(hdr, tag, HATF_OP_REALLOC_INPLACE, "release section has more leads than its reallocs");
    /* the same events with no lead: coding 1, as before */
    hatf_writer *w = hatf_writer_create(path2, 1, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event e = { .op = HATF_OP_REALLOC_MOVE, .size = 48, .addr = 0x1000, .new_addr = 0x2000, .time = 20,
                     .thread = 1 };
    CU_ASSERT_EQUAL(hatf_writer_add(w, &e, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    b = slurp(path2, &n);
    CU_ASSERT_FATAL(b != NULL);
    CU_ASSERT_EQUAL(b[hatf_load_le32(b + 12) + 6], 1);
    free(b);
}

/* Leads in coarse units: the release rounded down as every time, never
 * before the thread's previous event; and from the recorder's raw units
 * (hatf_writer_add_plain_: d carries the call's begin). */
static void test_release_coarse_and_raw(void)
{
    hatf_writer_opts o = { .time_res_ns = 10 };
    hatf_err err = {0};
    hatf_writer *w = hatf_writer_create(path1, 1, NULL, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event a[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = 0x1000, .time = 105 },   /* -> 10 */
        { .op = HATF_OP_REALLOC_MOVE, .thread = 1, .size = 32, .addr = 0x1000, .new_addr = 0x2000,
          .time = 257, .release_lead = 50 },   /* -> 25, released at 207 -> 20: lead 5 */
        { .op = HATF_OP_REALLOC_FREE, .thread = 1, .addr = 0x2000, .time = 309, .release_lead = 200 },
        /* -> 30, released at 109 -> 10, but not before the previous event (25): lead 5 */
        { .op = HATF_OP_REALLOC_MOVE, .thread = 1, .size = 32, .addr = 0x3000, .new_addr = 0x4000,
          .time = 318, .release_lead = 3 },    /* -> 31, released at 315 -> 31: lead 0 */
    };
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 4), 0);
    /* the recorder's units: thread 2, a realloc stamped at 500 that began at 440 */
    uint64_t raw[6] = { 500ull << HATF_RAW_TIME_SHIFT | HATF_FN_REALLOC, 0x5000, 64, 0x6000,
                        hatf_raw_release_d(440), 0 };
    size_t events = 0;
    CU_ASSERT_EQUAL(hatf_writer_add_plain_(w, 2, raw, HATF_RAW_LONG_UNITS, &events), HATF_RAW_LONG_UNITS);
    CU_ASSERT_EQUAL(events, 1);
    /* a realloc whose d has no begin (another producer): no lead */
    raw[0] = 600ull << HATF_RAW_TIME_SHIFT | HATF_FN_REALLOC;
    raw[4] = 0;
    CU_ASSERT_EQUAL(hatf_writer_add_plain_(w, 2, raw, HATF_RAW_LONG_UNITS, &events), HATF_RAW_LONG_UNITS);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    static const uint64_t want_time[] = { 10, 25, 30, 31 }, want_lead[] = { 0, 5, 5, 0 };
    hatf_iter *it = hatf_iter_thread(r, 1);
    hatf_event ev;
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
        CU_ASSERT_EQUAL(ev.time, want_time[i]);
        CU_ASSERT_EQUAL(ev.release_lead, want_lead[i]);
    }
    hatf_iter_free(it);
    it = hatf_iter_thread(r, 2);
    CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
    CU_ASSERT_EQUAL(ev.op, HATF_OP_REALLOC_MOVE);
    CU_ASSERT_EQUAL(ev.time, 50);
    CU_ASSERT_EQUAL(ev.release_lead, 6);  /* 440 -> 44 */
    CU_ASSERT_EQUAL_FATAL(hatf_iter_next(it, &ev), 1);
    CU_ASSERT_EQUAL(ev.release_lead, 0);
    hatf_iter_free(it);
    hatf_reader_close(r);
    /* the raw begin: more than 2^31 ticks back, or after the stamp, gives no lead */
    CU_ASSERT_EQUAL(hatf_raw_release_lead(1000, hatf_raw_release_d(990)), 10);
    CU_ASSERT_EQUAL(hatf_raw_release_lead(1000, hatf_raw_release_d(1001)), 0);
    CU_ASSERT_EQUAL(hatf_raw_release_lead((1ull << 31) + 1000, hatf_raw_release_d(999)), 0);
    CU_ASSERT_EQUAL(hatf_raw_release_lead(1000, 7), 0);
}

/* The global iterator puts a realloc that released early before another
 * thread's reuse of its old block at or after the release, with the time of
 * the reuse; not before a reuse that came before its release. */
static void test_release_promoted(void)
{
    hatf_event a[] = {
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 10, .size = 8, .addr = 0x100 },
        { .op = HATF_OP_REALLOC_MOVE, .thread = 1, .time = 50, .size = 16, .addr = 0x100, .new_addr = 0x200,
          .release_lead = 35 },                                        /* released at 15 */
        { .op = HATF_OP_ALLOC, .thread = 1, .time = 60, .size = 8, .addr = 0x300 },
        { .op = HATF_OP_REALLOC_MOVE, .thread = 1, .time = 80, .size = 16, .addr = 0x300, .new_addr = 0x400,
          .release_lead = 5 },                                         /* released at 75 */
    };
    hatf_event b[] = {
        { .op = HATF_OP_FREE, .thread = 2, .time = 20, .addr = 0x500 },
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 30, .size = 8, .addr = 0x100 },  /* reuse after 15 */
        { .op = HATF_OP_FREE, .thread = 2, .time = 35, .addr = 0x100 },
        { .op = HATF_OP_ALLOC, .thread = 2, .time = 70, .size = 8, .addr = 0x300 },  /* before 75: stays */
    };
    hatf_err err = {0};
    hatf_writer *w = hatf_writer_create(path2, 1, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hatf_writer_add(w, a, 4), 0);
    CU_ASSERT_EQUAL(hatf_writer_add(w, b, 4), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_iter *it = hatf_iter_global(r);
    static const uint64_t want_thread[] = { 1, 2, 1, 2, 2, 1, 2, 1 }, want_time[] = { 10, 20, 30, 30, 35, 60, 70, 80 };
    static const uint64_t want_lead[] = { 0, 0, 15, 0, 0, 0, 0, 5 };
    hatf_event e;
    size_t n = 0;
    while (hatf_iter_next(it, &e) == 1 && n < 8) {
        CU_ASSERT_EQUAL(e.thread, want_thread[n]);
        CU_ASSERT_EQUAL(e.time, want_time[n]);
        CU_ASSERT_EQUAL(e.release_lead, want_lead[n]);
        n++;
    }
    CU_ASSERT_EQUAL(n, 8);
    hatf_iter_free(it);
    hatf_reader_close(r);
}

static void test_flipped_byte(void)
{
    build_sets();
    CU_ASSERT_EQUAL_FATAL(write_sets(path1, sets, 2, 50, 20, NULL), 0);
    size_t n;
    uint8_t *b = slurp(path1, &n);
    gmap g[256];
    uint64_t hlen;
    size_t ng = chunk_map(b, n, g, 256, &hlen);
    CU_ASSERT_FATAL(ng > 3);
    size_t total = sets[0].n + sets[1].n;
    /* flip a byte in the payload of the first records chunk (group 0 of thread 1) */
    b[hlen + HATF_CK_HDR + 5] ^= 0x40;
    spit(path2, b, n);
    hatf_err err = {0};
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_complete(r), 1);  /* opened from the index: checked when read */
    size_t errors, k = read_all(r, &errors, NULL, 0);
    CU_ASSERT_EQUAL(errors, 1);
    CU_ASSERT_EQUAL(k, total - g[0].events);
    const char *const *lines;
    CU_ASSERT_EQUAL(hatf_reader_damage(r, &lines), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(lines[0], "checksum mismatch"));
    hatf_reader_close(r);

    /* without the trailer the scan finds it at open */
    spit(path2, b, n - HATF_TRAILER_LEN);
    r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_event_count(r), total - g[0].events);
    k = read_all(r, &errors, NULL, 0);
    CU_ASSERT_EQUAL(errors, 0);
    CU_ASSERT_EQUAL(k, total - g[0].events);
    size_t nl = hatf_reader_damage(r, &lines);
    CU_ASSERT(nl >= 2);
    if (nl >= 1) {
        char want[64];
        snprintf(want, sizeof want, "offset %llu: records chunk checksum mismatch", (unsigned long long)hlen);
        CU_ASSERT_EQUAL(strncmp(lines[0], want, strlen(want)), 0);
    }
    hatf_reader_close(r);

    /* a damaged chunk header: skipped, the following chunks still read */
    b[hlen + HATF_CK_HDR + 5] ^= 0x40;
    b[hlen + 20] ^= 0x01;  /* events field of the first chunk header */
    spit(path2, b, n - HATF_TRAILER_LEN);
    r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(hatf_reader_event_count(r), total - g[0].events);
    nl = hatf_reader_damage(r, &lines);
    CU_ASSERT(nl >= 3);  /* header, orphan address chunk, missing index */
    if (nl >= 1) CU_ASSERT_PTR_NOT_NULL(strstr(lines[0], "skipped to the next chunk"));
    hatf_reader_close(r);
    free(b);
}

static void test_garbage(void)
{
    build_sets();
    CU_ASSERT_EQUAL_FATAL(write_sets(path1, sets, 3, 30, 7, NULL), 0);
    size_t n;
    uint8_t *b = slurp(path1, &n);
    uint8_t *m = malloc(n);
    size_t opened = 0, runs = 600;
    for (size_t i = 0; i < runs; i++) {
        memcpy(m, b, n);
        size_t flips = 1 + rnd() % 8;
        for (size_t f = 0; f < flips; f++) {
            size_t at = (size_t)(rnd() % n);
            if (i % 3 == 0) at = n - 1 - (size_t)(rnd() % 200);  /* the index and trailer */
            m[at] = (uint8_t)rnd();
        }
        size_t len = i % 4 == 0 ? (size_t)(rnd() % n) : n;
        spit(path2, m, len);
        hatf_err err = {0};
        hatf_reader *r = hatf_reader_open(path2, &err);
        if (!r) { CU_ASSERT(err.code < 0); continue; }
        opened++;
        size_t errors;
        size_t k = read_all(r, &errors, NULL, 0);
        CU_ASSERT(k <= hatf_reader_event_count(r) + 10 * errors + 2000);
        hatf_reader_close(r);
    }
    CU_ASSERT(opened > runs / 2);
    /* pure noise, and noise behind a good magic */
    for (size_t i = 0; i < 200; i++) {
        size_t len = (size_t)(rnd() % 4096);
        for (size_t j = 0; j < len; j++) m[j] = (uint8_t)rnd();
        if (i & 1 && len >= 8) memcpy(m, HATF_CONTAINER_MAGIC, 8);
        spit(path2, m, len);
        hatf_err err = {0};
        hatf_reader *r = hatf_reader_open(path2, &err);
        CU_ASSERT_PTR_NULL(r);
        CU_ASSERT(err.code < 0 && err.msg[0]);
        hatf_reader_close(r);
    }
    free(m);
    free(b);
}

static void test_create_refusals(void)
{
    hatf_err err = {0};
    spit(path2, (const uint8_t *)"keep", 4);
    hatf_writer *w = hatf_writer_create(path2, 0, NULL, NULL, &err);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_EQUAL(err.code, HATF_E_IO);
    CU_ASSERT_EQUAL(err.sys_errno, EEXIST);
    size_t n;
    uint8_t *b = slurp(path2, &n);
    CU_ASSERT(n == 4 && memcmp(b, "keep", 4) == 0);
    free(b);

    char link[320], target[320];
    ut_path(link, sizeof link, "link");
    ut_path(target, sizeof target, "target");
    unlink(link);
    unlink(target);
    CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(hatf_writer_create(link, 0, NULL, NULL, &err));
    CU_ASSERT_EQUAL(err.sys_errno, EEXIST);
    memset(&err, 0, sizeof err);
    CU_ASSERT_PTR_NULL(hatf_writer_create(link, 1, NULL, NULL, &err));  /* overwrite: still no symlink */
    CU_ASSERT_EQUAL(err.sys_errno, ELOOP);
    CU_ASSERT_EQUAL(access(target, F_OK), -1);
    unlink(link);

    /* overwrite=1 replaces a regular file */
    memset(&err, 0, sizeof err);
    w = hatf_writer_create(path2, 1, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL(r);
    if (r) CU_ASSERT_EQUAL(hatf_reader_event_count(r), 0);
    hatf_reader_close(r);
}

static void test_write_error(void)
{
    int fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    hatf_err err = {0};
    hatf_writer *w = hatf_writer_open_fd(fd, NULL, NULL, &err);
    CU_ASSERT_PTR_NULL(w);
    CU_ASSERT_EQUAL(err.code, HATF_E_IO);
    CU_ASSERT_EQUAL(err.sys_errno, ENOSPC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "write failed"));
}

/* A long file's blocks are allocated ahead of the writes (fallocate): what
 * the writer did not use is given back at close, so the file holds no more
 * blocks than its bytes need (with the reserve kept, up to 4 MiB more), and
 * the events read back whole. */
static void test_reserve_returned(void)
{
    enum { N = 240, LEN = 60000 };
    static uint8_t text[LEN];
    hatf_err err = {0};
    unlink(path2);
    hatf_writer *w = hatf_writer_create(path2, 0, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    hatf_event a = { .op = HATF_OP_ALLOC, .thread = 1, .time = 1, .size = 8, .addr = 0x1000 };
    CU_ASSERT_EQUAL(hatf_writer_add(w, &a, 1), 0);
    for (int i = 0; i < N; i++) {  /* comments of letters that zstd cannot shrink much */
        for (size_t k = 0; k < LEN; k++) text[k] = (uint8_t)('a' + rnd() % 26);
        hatf_event e = { .op = HATF_OP_COMMENT, .data = text, .data_len = LEN };
        CU_ASSERT_EQUAL(hatf_writer_add(w, &e, 1), 0);
        CU_ASSERT_EQUAL(hatf_writer_flush(w), 0);  /* a write each, as a recorder's flushes */
    }
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    struct stat st;
    CU_ASSERT_EQUAL_FATAL(stat(path2, &st), 0);
    CU_ASSERT(st.st_size > 6 << 20);
    CU_ASSERT((uint64_t)st.st_blocks * 512 <= (uint64_t)st.st_size + (64 << 10));
    hatf_reader *r = hatf_reader_open(path2, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    hatf_iter *it = hatf_iter_global(r);
    hatf_event e;
    size_t comments = 0, allocs = 0;
    while (hatf_iter_next(it, &e) == 1) {
        comments += e.op == HATF_OP_COMMENT && e.data_len == LEN;
        allocs += e.op == HATF_OP_ALLOC;
    }
    CU_ASSERT_EQUAL(comments, N);
    CU_ASSERT_EQUAL(allocs, 1);
    hatf_iter_free(it);
    hatf_reader_close(r);
    unlink(path2);
}

static int setup(void)
{
    ut_path(path1, sizeof path1, "a.hatf");
    ut_path(path2, sizeof path2, "b.hatf");
    return 0;
}

/* Resident samples: a run of equal ones is written as its first and last
 * (the last at close when the run is still going); a change writes the held
 * one, then itself. */
static void test_resident_runs(void)
{
    hatf_info in = test_info();
    hatf_err err = {0};
    unlink(path1);
    hatf_writer *w = hatf_writer_create(path1, 0, &in, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    static const uint64_t given[][3] = {  /* time, bytes, own */
        { 10, 4096, 100 }, { 20, 4096, 100 }, { 30, 4096, 100 }, { 40, 8192, 100 }, { 50, 8192, 200 },
        { 60, 8192, 200 }, { 70, 8192, 200 }, { 80, 8192, 200 },
    };
    for (size_t i = 0; i < sizeof given / sizeof *given; i++)
        CU_ASSERT_EQUAL(hatf_writer_resident(w, given[i][0], given[i][1], given[i][2]), 0);
    hatf_event e = { .op = HATF_OP_ALLOC, .thread = 1, .size = 16, .addr = 0x1000, .time = 5 };
    CU_ASSERT_EQUAL(hatf_writer_add(w, &e, 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
    hatf_reader *r = hatf_reader_open(path1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    const hatf_resident *v;
    static const uint64_t want[][3] = {
        { 10, 4096, 100 }, { 30, 4096, 100 }, { 40, 8192, 100 }, { 50, 8192, 200 }, { 80, 8192, 200 },
    };
    size_t n = hatf_reader_resident(r, &v);
    CU_ASSERT_EQUAL_FATAL(n, sizeof want / sizeof *want);
    for (size_t i = 0; i < n; i++) {
        CU_ASSERT_EQUAL(v[i].time_ns, want[i][0]);
        CU_ASSERT_EQUAL(v[i].bytes, want[i][1]);
        CU_ASSERT_EQUAL(v[i].own, want[i][2]);
    }
    hatf_reader_close(r);
}

static CU_TestInfo tests[] = {
    { "resident samples: runs written as first and last", test_resident_runs },
    { "address coding bytes", test_address_coding_bytes },
    { "address coding 2 still decodes", test_address_coding2_bytes },
    { "address coding 4 (fast groups) bytes", test_address_coding_delta_bytes },
    { "varint writer of the hot loops", test_varint_put8 },
    { "address coding 6: two groups through one table, round trip", test_aref_round_trip },
    { "address coding 6: bytes and what the decoder refuses", test_address_coding_ref_bytes },
    { "address model freed, then reset: an encoder still", test_amodel_free_then_reset },
    { "time section: the worked example, and damage", test_time_section },
    { "release section: bytes, leads read back, damage", test_release_section },
    { "release leads: coarse units, the recorder's raw units", test_release_coarse_and_raw },
    { "release leads: a realloc put before the reuse of its old block", test_release_promoted },
    { "address ranks, many objects", test_address_ranks_large },
    { "round trip, three threads", test_round_trip },
    { "round trip, fast and full groups mixed", test_round_trip_fast },
    { "global order ties", test_global_ties },
    { "group without addresses", test_no_addresses },
    { "newer major version refused", test_version_refused },
    { "truncation at every byte", test_truncation_every_byte },
    { "flipped byte", test_flipped_byte },
    { "garbage", test_garbage },
    { "create refusals", test_create_refusals },
    { "write error", test_write_error },
    { "blocks allocated ahead given back", test_reserve_returned },
    { "time resolution", test_time_resolution },
    { "time conversion by unit", test_tconv_next },
    { "time conversion exact on a unit's first tick", test_tconv_exact },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "container", .pInitFunc = setup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
