/* test_causal.c — events of equal time on different threads come out of
 * hatf_source in an order consistent with address liveness (hatf/readers/causal.c):
 * hand-made containers with ties the iterator's tie order gets wrong. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"

static char path[256];
static char got[4096];
static char times[4096];          /* the times read, "t t ..." */
static hatf_order_stats stats;
static uint32_t info_flags;       /* the header's flags of the next roundtrip */

#define A(th, t, a) { .op = HATF_OP_ALLOC, .size = 8, .addr = (a), .thread = (th), .time = (t) }
#define F(th, t, a) { .op = HATF_OP_FREE, .addr = (a), .thread = (th), .time = (t) }
#define M(th, t, a, b) { .op = HATF_OP_REALLOC_MOVE, .size = 16, .addr = (a), .new_addr = (b), .thread = (th), .time = (t) }
#define HD(th, t, h) { .op = HATF_OP_HEAP_DESTROY, .heap = (h), .thread = (th), .time = (t) }

/* Write ev[0..n) (each thread's events in their order) as a container with
 * chunk groups of chunk events (0: the default), read it back through
 * hatf_source into got ("thread:op:addr ..."), and the order stats. */
static void roundtrip(const hatf_event *ev, size_t n, size_t chunk)
{
    static int file_no;
    ut_path(path, sizeof path, "t%d.hatf", file_no++);
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1000, .time_unit_ns_den = 1, .flags = info_flags };
    hatf_writer_opts opts = { .chunk_events = chunk };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, &opts, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    for (uint64_t th = 1; th <= 4; th++)
        for (size_t i = 0; i < n; i++)
            if (ev[i].thread == th) CU_ASSERT_EQUAL(hatf_writer_add(w, &ev[i], 1), 0);
    CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);

    hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_event e;
    size_t len = 0, tlen = 0, count = 0;
    got[0] = times[0] = 0;
    int rc;
    while ((rc = hatf_source_next(s, &e)) == 1) {
        count++;
        tlen += (size_t)snprintf(times + tlen, sizeof times - tlen, "%s%llu", tlen ? " " : "", (unsigned long long)e.time);
        CU_ASSERT_FATAL(tlen < sizeof times);
        if (e.op == HATF_OP_COMMENT) {
            len += (size_t)snprintf(got + len, sizeof got - len, "%s#%.*s", len ? " " : "", (int)e.data_len,
                                    (const char *)e.data);
            continue;
        }
        uint64_t addr = e.op == HATF_OP_REALLOC_MOVE ? e.new_addr : e.addr;
        len += (size_t)snprintf(got + len, sizeof got - len, "%s%llu:%c:%llx", len ? " " : "",
                                (unsigned long long)e.thread, hatf_op_name(e.op)[0], (unsigned long long)addr);
        CU_ASSERT_FATAL(len < sizeof got);
    }
    CU_ASSERT_EQUAL(rc, 0);
    CU_ASSERT_EQUAL(count, n);
    hatf_source_order_stats(s, &stats);
    hatf_source_close(s);
}

#define CHECK(evs, want, ties, reord, unres) do {                              \
        roundtrip(evs, sizeof evs / sizeof evs[0], 0);                         \
        CU_ASSERT_STRING_EQUAL(got, want);                                     \
        if (strcmp(got, want)) fprintf(stderr, "\n got  %s\n want %s\n", got, want); \
        CU_ASSERT_EQUAL(stats.tie_groups, ties);                               \
        CU_ASSERT_EQUAL(stats.reordered, reord);                               \
        CU_ASSERT_EQUAL(stats.unresolved, unres);                              \
    } while (0)

/* T1 allocates A, T2 frees it, in one time unit: the tie order (frees
 * first) has the free first. */
static void test_alloc_then_free(void)
{
    hatf_event ev[] = { A(1, 5, 0xa0), F(2, 5, 0xa0) };
    CHECK(ev, "1:a:a0 2:f:a0", 1, 1, 0);
}

/* T1 frees A, T2 gets it back: reuse. A was allocated earlier. */
static void test_reuse(void)
{
    hatf_event ev[] = { A(1, 1, 0xa0), F(1, 5, 0xa0), A(2, 5, 0xa0) };
    CHECK(ev, "1:a:a0 1:f:a0 2:a:a0", 1, 0, 0);  /* the tie order is right */
    /* the reusing thread sorts first (lower thread, alloc before alloc) */
    hatf_event ev2[] = { A(2, 1, 0xa0), A(1, 5, 0xa0), A(2, 5, 0xb0), F(2, 5, 0xa0) };
    CHECK(ev2, "2:a:a0 2:a:b0 2:f:a0 1:a:a0", 1, 1, 0);
}

/* T1 allocates A, T2 frees it, T1 allocates A again, in one unit. */
static void test_chain(void)
{
    hatf_event ev[] = { A(1, 5, 0xa0), A(1, 5, 0xa0), F(2, 5, 0xa0) };
    CHECK(ev, "1:a:a0 2:f:a0 1:a:a0", 1, 1, 0);
}

/* A live; T1 [free A, alloc A], T2 [alloc A, free A]: following the tie
 * order (T1's free, then T1's alloc) leaves T2's alloc stuck; only
 * T1 free, T2 alloc, T2 free, T1 alloc works. */
static void test_ping_pong(void)
{
    hatf_event ev[] = { A(3, 1, 0xa0), F(1, 5, 0xa0), A(1, 5, 0xa0), A(2, 5, 0xa0), F(2, 5, 0xa0) };
    CHECK(ev, "3:a:a0 1:f:a0 2:a:a0 2:f:a0 1:a:a0", 1, 1, 0);
}

/* A realloc that moves to B, and B freed by another thread. */
static void test_realloc(void)
{
    hatf_event ev[] = { A(1, 1, 0xa0), M(1, 5, 0xa0, 0xb0), F(2, 5, 0xb0) };
    CHECK(ev, "1:a:a0 1:r:b0 2:f:b0", 1, 1, 0);
}

/* Two threads free the same address in one unit: no order is consistent;
 * the tie order stays and the group is counted. */
static void test_no_order(void)
{
    hatf_event ev[] = { A(1, 1, 0xa0), F(2, 5, 0xa0), F(1, 5, 0xa0) };
    CHECK(ev, "1:a:a0 1:f:a0 2:f:a0", 1, 0, 1);
}

/* A group with no consistent order (0xa0 freed by both threads) still puts
 * what has an order in it: T1's allocation of 0xb0 before T2 frees it,
 * where the tie order (frees first) had the free first, a second problem. */
static void test_no_order_rest(void)
{
    hatf_event ev[] = { A(1, 1, 0xa0), F(1, 5, 0xa0), A(1, 5, 0xb0), F(2, 5, 0xa0), F(2, 5, 0xb0) };
    CHECK(ev, "1:a:a0 1:f:a0 1:a:b0 2:f:a0 2:f:b0", 1, 0, 1);
}

/* Ties without a shared address, equal times on one thread, one thread:
 * nothing to resolve, nothing counted; threads' events interleaved by
 * estimated time (T1's one event at half the unit, T2's two at a quarter and
 * three quarters). */
static void test_no_tie(void)
{
    hatf_event ev[] = { A(1, 5, 0xa0), A(2, 5, 0xb0), F(2, 5, 0xb0), F(1, 6, 0xa0) };
    CHECK(ev, "2:a:b0 1:a:a0 2:f:b0 1:f:a0", 0, 0, 0);
    hatf_event one[] = { A(1, 5, 0xa0), F(1, 5, 0xa0), A(1, 5, 0xa0) };
    CHECK(one, "1:a:a0 1:f:a0 1:a:a0", 0, 0, 0);
}

/* Liveness is learnt once (a second pass over the events before the first
 * group that needs it), then kept: several groups, an object allocated long
 * before, a heap destroyed in between (its objects end with it). */
static void test_history(void)
{
    hatf_event ev[] = {
        A(1, 1, 0xc0), A(2, 2, 0xd0), F(1, 3, 0xd0),
        A(1, 5, 0xa0), F(2, 5, 0xa0),                   /* group 1: learns */
        F(2, 7, 0xc0), A(1, 7, 0xe0), A(1, 7, 0xc0),    /* group 2: reuse of an old one */
        HD(1, 8, 0),
        A(2, 9, 0xe0), F(1, 9, 0xe0),                   /* group 3: 0xe0 ended with heap 0 */
    };
    /* group 2 is consistent in tie order too, but goes by estimated time */
    CHECK(ev, "1:a:c0 2:a:d0 1:f:d0 1:a:a0 2:f:a0 1:a:e0 2:f:c0 1:a:c0 1:h:0 2:a:e0 1:f:e0", 3, 3, 0);
}

/* A group spread over several chunk groups of each thread (cursor refills
 * inside it), with attribute bytes that must survive the copy. */
static void test_across_chunks(void)
{
    static const uint8_t at[] = { HATF_A_FUNC, HATF_FN_CALLOC };
    hatf_event ev[24];
    size_t n = 0;
    for (int k = 0; k < 6; k++) {
        ev[n++] = (hatf_event)A(1, 5, 0x100 + 0x10 * (unsigned)k);
        ev[n - 1].attr_is_bytes = 1;
        ev[n - 1].data = at;
        ev[n - 1].data_len = sizeof at;
        ev[n++] = (hatf_event)F(1, 5, 0x100 + 0x10 * (unsigned)k);
    }
    for (int k = 0; k < 6; k++) {
        ev[n++] = (hatf_event)A(2, 5, 0x100 + 0x10 * (unsigned)k);
        ev[n++] = (hatf_event)F(2, 5, 0x100 + 0x10 * (unsigned)k);
    }
    roundtrip(ev, n, 3);
    /* consistent: every address alternates; T2 allocates each after T1 freed it */
    CU_ASSERT_EQUAL(stats.tie_groups, 1);
    CU_ASSERT_EQUAL(stats.unresolved, 0);
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_event e;
    int live[6] = { 0 }, bad = 0, withattr = 0;
    while (hatf_source_next(s, &e) == 1) {
        int k = (int)((e.op == HATF_OP_ALLOC || e.op == HATF_OP_FREE ? e.addr : 0) - 0x100) / 0x10;
        if (k < 0 || k >= 6) { bad++; continue; }
        if (e.op == HATF_OP_ALLOC) bad += live[k]++ != 0;
        else bad += live[k]-- != 1;
        if (e.thread == 1 && e.op == HATF_OP_ALLOC)
            withattr += e.data_len == sizeof at && memcmp(e.data, at, sizeof at) == 0;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(withattr, 6);
    hatf_source_close(s);
}

/* Early releases (HATF_INFO_EARLY_RELEASE, time unit 1 us: a window of 2
 * units). T2 frees A, stamped a unit before T1's allocation of it, then
 * allocates C: the free and T2's events up to the allocation go after it, at
 * its time. Without the flag the trace is read as it is. */
static void test_early_release(void)
{
    hatf_event ev[] = { A(1, 10, 0xa0), F(2, 9, 0xa0), A(2, 9, 0xc0), A(2, 11, 0xd0) };
    info_flags = HATF_INFO_EARLY_RELEASE;
    CHECK(ev, "1:a:a0 2:f:a0 2:a:c0 2:a:d0", 0, 0, 0);
    CU_ASSERT_STRING_EQUAL(times, "10 10 10 11");
    CU_ASSERT_EQUAL(stats.early_releases, 1);
    info_flags = 0;
    CHECK(ev, "2:f:a0 2:a:c0 1:a:a0 2:a:d0", 0, 0, 0);
    CU_ASSERT_STRING_EQUAL(times, "9 9 10 11");
    CU_ASSERT_EQUAL(stats.early_releases, 0);
}

/* What stays as it is: an allocation after the window; a free of an address
 * nobody allocates (a broken trace, or a fork child's inherited object); a
 * release whose move would pass another event on an address its thread uses. */
static void test_early_release_kept(void)
{
    info_flags = HATF_INFO_EARLY_RELEASE;
    hatf_event late[] = { A(1, 10, 0xa0), F(2, 7, 0xa0), A(2, 8, 0xc0) };
    CHECK(late, "2:f:a0 2:a:c0 1:a:a0", 0, 0, 0);
    CU_ASSERT_EQUAL(stats.early_releases, 0);
    hatf_event never[] = { F(2, 7, 0xa0), A(1, 8, 0xb0), A(2, 8, 0xc0) };
    CHECK(never, "2:f:a0 1:a:b0 2:a:c0", 0, 0, 0);
    CU_ASSERT_STRING_EQUAL(times, "7 8 8");
    /* T2's free of B (its own) would pass T3's allocation of B */
    hatf_event pass[] = { A(2, 1, 0xb0), F(2, 9, 0xa0), F(2, 9, 0xb0), A(3, 9, 0xb0), A(1, 10, 0xa0) };
    CHECK(pass, "2:a:b0 2:f:a0 2:f:b0 3:a:b0 1:a:a0", 1, 0, 0);
    CU_ASSERT_EQUAL(stats.early_releases, 0);
    /* two early releases in a row, of two threads */
    hatf_event two[] = { A(1, 10, 0xa0), F(2, 9, 0xa0), A(1, 11, 0xb0), F(3, 10, 0xb0) };
    CHECK(two, "1:a:a0 2:f:a0 1:a:b0 3:f:b0", 0, 0, 0);
    CU_ASSERT_STRING_EQUAL(times, "10 10 11 11");
    CU_ASSERT_EQUAL(stats.early_releases, 2);
    info_flags = 0;
}

/* The freeing thread allocates the address again at once (tcache gives it
 * back): T2 frees A a unit early, then allocates A in the same unit as T1's
 * allocation of the object it freed. That unit's group has no order alone
 * (two allocations of A); with the release ahead of T2's events it has one,
 * and the release goes after T1's allocation. Either thread the lower. The
 * first group keeps its tie order (T1 first), so it counts as not reordered. */
/* The early release inside a group (the handoff of tests/workloads/rec_handoff:
 * T1 allocates, T2 frees what it receives, tcache hands the address back to
 * T1): T2's second free of A in unit 10 is stamped before T1's allocation of
 * A in unit 11, the object it frees. Unit 10's group has no order with that
 * free (one allocation of A, two frees); it goes out last, A not live, and
 * repair moves it after T1's first allocation of A in unit 11. That group
 * pairs T2's own free of A with T1's second allocation of A, as repair leaves
 * it. Before, unit 10 was read in tie order, and the frees doubled. */
static void test_early_release_in_group(void)
{
    info_flags = HATF_INFO_EARLY_RELEASE;
    hatf_event ev[] = { A(1, 9, 0xa0), F(2, 9, 0xa0),
                        A(1, 10, 0xa0), A(1, 10, 0xb0), F(2, 10, 0xa0), F(2, 10, 0xb0), F(2, 10, 0xa0),
                        A(1, 11, 0xa0), A(1, 11, 0xc0), F(2, 11, 0xc0), A(1, 11, 0xa0), F(2, 11, 0xa0) };
    roundtrip(ev, sizeof ev / sizeof ev[0], 0);
    CU_ASSERT_STRING_EQUAL(got, "1:a:a0 2:f:a0 1:a:a0 2:f:a0 1:a:b0 2:f:b0 1:a:a0 2:f:a0 1:a:c0 2:f:c0 1:a:a0 2:f:a0");
    CU_ASSERT_STRING_EQUAL(times, "9 9 10 10 10 10 11 11 11 11 11 11");
    CU_ASSERT_EQUAL(stats.unresolved, 0);
    CU_ASSERT_EQUAL(stats.early_releases, 1);
    info_flags = 0;
}

/* Append what s hands out now to got ("thread:op:addr ..."). @return the
 * last hatf_source_next code (0: nothing more yet, or the end). */
static int read_now(hatf_source *s, size_t *len)
{
    hatf_event e;
    int rc;
    while ((rc = hatf_source_next(s, &e)) == 1) {
        uint64_t addr = e.op == HATF_OP_REALLOC_MOVE ? e.new_addr : e.addr;
        *len += (size_t)snprintf(got + *len, sizeof got - *len, "%s%llu:%c:%llx", *len ? " " : "",
                                 (unsigned long long)e.thread, hatf_op_name(e.op)[0], (unsigned long long)addr);
        CU_ASSERT_FATAL(*len < sizeof got);
    }
    return rc;
}

/* A following source reads one thread with the iterator alone; when a second
 * thread's groups come, the ordered reader takes over where it stood: the
 * tie after is ordered, and with early releases the liveness table learns
 * the events handed out before (T1's allocation of 0xd0, freed by T2 a unit
 * before T1 allocates it again after freeing it: moved once, as a plain read
 * moves it). */
static void test_follow_second_thread(void)
{
    for (int early = 0; early < 2; early++) {
        ut_path(path, sizeof path, "follow%d.hatf", early);
        hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1000, .time_unit_ns_den = 1,
                           .flags = early ? HATF_INFO_EARLY_RELEASE : 0 };
        hatf_err err = { 0 };
        hatf_writer *w = hatf_writer_create(path, 1, &info, NULL, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w);
        hatf_event one[] = { A(1, 1, 0xa0), A(1, 2, 0xd0), F(1, 3, 0xa0) };
        CU_ASSERT_EQUAL(hatf_writer_add(w, one, 3), 0);
        CU_ASSERT_EQUAL(hatf_writer_flush(w), 0);
        hatf_source *s = hatf_source_open_follow(path, &err);
        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        size_t len = 0;
        got[0] = 0;
        CU_ASSERT_EQUAL(read_now(s, &len), 0);
        size_t before = len;
        hatf_event t1[] = { A(1, 5, 0xc0), F(1, 8, 0xd0), A(1, 9, 0xd0) };
        hatf_event t2[] = { F(2, 5, 0xc0), F(2, 8, 0xd0) };
        CU_ASSERT_EQUAL(hatf_writer_add(w, t1, 3), 0);
        CU_ASSERT_EQUAL(hatf_writer_add(w, t2, 2), 0);
        CU_ASSERT_EQUAL(hatf_writer_close(w, NULL, &err), 0);
        int rc;
        for (int k = 0; k < 100 && (rc = read_now(s, &len)) == 0 && hatf_reader_following(hatf_source_container(s)); k++)
            CU_ASSERT(hatf_reader_follow(hatf_source_container(s)) >= 0);
        CU_ASSERT_EQUAL(rc, 0);
        CU_ASSERT(before > 0);  /* some of T1's events went out before T2 came */
        CU_ASSERT_STRING_EQUAL(got, early ? "1:a:a0 1:a:d0 1:f:a0 1:a:c0 2:f:c0 1:f:d0 1:a:d0 2:f:d0"
                                          : "1:a:a0 1:a:d0 1:f:a0 1:a:c0 2:f:c0 1:f:d0 2:f:d0 1:a:d0");
        hatf_source_order_stats(s, &stats);
        CU_ASSERT_EQUAL(stats.tie_groups, 2);
        CU_ASSERT_EQUAL(stats.early_releases, (uint64_t)early);
        hatf_source_close(s);
    }
}

static void test_early_release_reused(void)
{
    info_flags = HATF_INFO_EARLY_RELEASE;
    hatf_event ev[] = { F(2, 9, 0xa0), A(2, 10, 0xa0), A(1, 10, 0xa0) };
    CHECK(ev, "1:a:a0 2:f:a0 2:a:a0", 1, 0, 0);
    CU_ASSERT_STRING_EQUAL(times, "10 10 10");
    CU_ASSERT_EQUAL(stats.early_releases, 1);
    hatf_event low[] = { F(1, 9, 0xa0), A(1, 10, 0xa0), A(1, 10, 0xb0), A(2, 10, 0xa0), F(2, 10, 0xb0) };
    CHECK(low, "2:a:a0 1:f:a0 1:a:a0 1:a:b0 2:f:b0", 1, 1, 0);
    CU_ASSERT_STRING_EQUAL(times, "10 10 10 10 10");
    CU_ASSERT_EQUAL(stats.early_releases, 1);
    /* a group of exactly the gathered capacity (256 events): the order has room
     * for the release too (ASan) */
    hatf_event big[257];
    size_t nb = 0;
    big[nb++] = (hatf_event)F(2, 9, 0xa0);
    big[nb++] = (hatf_event)A(2, 10, 0xa0);
    big[nb++] = (hatf_event)A(1, 10, 0xa0);
    while (nb < 257) big[nb] = (hatf_event)A(1, 10, 0x1000 + 0x10 * nb), nb++;
    roundtrip(big, nb, 0);
    CU_ASSERT_EQUAL(stats.tie_groups, 1);
    CU_ASSERT_EQUAL(stats.unresolved, 0);
    CU_ASSERT_EQUAL(stats.early_releases, 1);
    CU_ASSERT_EQUAL(strncmp(got, "1:a:a0 ", 7), 0);
    /* without the flag the group stays unresolved: nothing is invented */
    info_flags = 0;
    CHECK(ev, "2:f:a0 1:a:a0 2:a:a0", 1, 0, 1);
    CU_ASSERT_EQUAL(stats.early_releases, 0);
}

static CU_TestInfo tests[] = {
    { "alloc then free", test_alloc_then_free },
    { "reuse", test_reuse },
    { "chain", test_chain },
    { "ping-pong", test_ping_pong },
    { "realloc", test_realloc },
    { "no consistent order", test_no_order },
    { "no consistent order: the rest in order", test_no_order_rest },
    { "no tie", test_no_tie },
    { "history", test_history },
    { "across chunks", test_across_chunks },
    { "early release", test_early_release },
    { "early release kept", test_early_release_kept },
    { "early release, the address reused", test_early_release_reused },
    { "early release inside a group", test_early_release_in_group },
    { "following: a second thread met later", test_follow_second_thread },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "causal", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
