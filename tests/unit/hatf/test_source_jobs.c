/* test_source_jobs.c — a container read on several threads (hatf_source_jobs)
 * gives what one thread gives: every event in the same order with the same
 * data, the same errors and skips, the same damage lines and order figures;
 * on an intact trace, on one with damaged chunks, with ties across threads
 * and releases stamped before their allocations, read to the end or
 * stopped early. Small chunk groups, so that hundreds of them are decoded
 * ahead. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cunit_main.h"
#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"
#include "container/container_format.h"
#include "container/source_jobs.h"

enum { NTH = 4, STEPS = 40000 };

static char intact[256], damaged[256];

/* Threads allocate and hand objects to each other; times in coarse units so
 * that many events of different threads share one, some releases are
 * stamped a unit before the allocation they end (an early release), and
 * every thread now and then writes a comment. */
static int write_trace(const char *path)
{
    hatf_info info = { .address_bits = 64, .time_unit_ns_num = 1000, .time_unit_ns_den = 1,
                       .flags = HATF_INFO_EARLY_RELEASE };
    hatf_writer_opts o = { .chunk_events = 300 };
    hatf_err err = { 0 };
    hatf_writer *w = hatf_writer_create(path, 1, &info, &o, &err);
    if (!w) return -1;
    enum { LIVE = 64 };
    uint64_t live[LIVE] = { 0 }, last[NTH + 1] = { 0 }, seed = 0x1234567, next_addr = 0x100000;
    int rc = 0;
    for (uint64_t step = 0; step < STEPS && !rc; step++) {
        uint64_t r = ut_xorshift(&seed);
        uint64_t th = 1 + r % NTH, slot = (r >> 8) % LIVE, t = step / 16;
        if (t < last[th]) t = last[th];
        hatf_event e = { .thread = th, .time = t };
        if ((r >> 20) % 50 == 0) {
            static const char text[] = "phase";
            e.op = HATF_OP_COMMENT;
            e.data = (const uint8_t *)text;
            e.data_len = (uint16_t)(1 + (r >> 30) % 5);
        } else if (live[slot]) {
            e.op = HATF_OP_FREE;
            e.addr = live[slot];
            /* stamped a unit early, when this thread's clock allows it */
            if ((r >> 40) % 7 == 0 && e.time > last[th]) e.time--;
            live[slot] = 0;
        } else {
            e.op = HATF_OP_ALLOC;
            e.size = 16 + (r >> 24) % 300;
            /* an address used before, by any thread, or a fresh one */
            e.addr = (r >> 36) % 3 ? 0x100000 + 64 * ((r >> 44) % 200) : (next_addr += 64);
            int taken = 0;
            for (int i = 0; i < LIVE; i++) taken |= live[i] == e.addr;
            if (taken) e.addr = (next_addr += 64);
            live[slot] = e.addr;
        }
        last[th] = e.time;
        rc = hatf_writer_add(w, &e, 1);
    }
    return hatf_writer_close(w, NULL, &err) || rc ? -1 : 0;
}

/* Flip a payload byte of the k-th chunk of kind and thread. */
static void flip(const char *path, int kind, int thread, int k)
{
    FILE *f = fopen(path, "r+b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    uint8_t *b = malloc((size_t)len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    fseek(f, 0, SEEK_SET);
    CU_ASSERT_EQUAL_FATAL(fread(b, 1, (size_t)len, f), (size_t)len);
    long hit = -1;
    for (long i = 0; i + 72 < len && hit < 0; i++)
        if (!memcmp(b + i, "HCHK", 4) && b[i + 4] == kind && b[i + 8] == thread && k-- == 0) hit = i + 70;
    CU_ASSERT_FATAL(hit > 0);
    fseek(f, hit, SEEK_SET);
    fputc(b[hit] ^ 0x5a, f);
    fclose(f);
    free(b);
}

static int setup(void)
{
    ut_path(intact, sizeof intact, "intact.hatf");
    ut_path(damaged, sizeof damaged, "damaged.hatf");
    if (write_trace(intact) || write_trace(damaged)) return 1;
    return 0;
}

/* What a read gave: a digest of every event (data included) and of every
 * error, in order, and the counts. */
typedef struct reading {
    uint64_t events, errors, digest;
    size_t skips, damage;
    char first_skip[256], last_damage[256];
    hatf_order_stats order;
    int threads;
} reading;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

/* Read path on jobs threads: read on past damage (read_on), or stop at each
 * damage and resume; at most max events (then close early). */
static reading read_all(const char *path, unsigned jobs, int read_on, uint64_t max)
{
    reading g;
    memset(&g, 0, sizeof g);
    g.digest = 0xcbf29ce484222325ull;
    hatf_err err = { 0 };
    hatf_source *s = hatf_source_open(path, HATF_FMT_CONTAINER, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    hatf_source_read_on(s, read_on);
    g.threads = hatf_source_jobs(s, jobs);
    hatf_event ev;
    int rc;
    while (g.events < max) {
        rc = hatf_source_next(s, &ev);
        if (rc == 0) break;
        if (rc < 0) {
            const hatf_err *e = hatf_source_error(s);
            g.errors++;
            g.digest = mix(g.digest, (uint64_t)-rc);
            g.digest = mix(g.digest, e->offset);
            for (const char *p = e->msg; *p; p++) g.digest = mix(g.digest, (uint8_t)*p);
            CU_ASSERT_EQUAL_FATAL(hatf_source_resume(s), 0);
            continue;
        }
        g.events++;
        uint64_t f[] = { ev.op, ev.time, ev.thread, ev.heap, ev.size, ev.addr, ev.new_addr, ev.attr,
                         ev.data_len, hatf_source_record(s), hatf_source_offset(s) };
        for (size_t i = 0; i < sizeof f / sizeof *f; i++) g.digest = mix(g.digest, f[i]);
        for (size_t i = 0; i < ev.data_len; i++) g.digest = mix(g.digest, ev.data[i]);
    }
    const char *const *lines;
    g.skips = hatf_source_skips(s, &lines);
    if (g.skips) snprintf(g.first_skip, sizeof g.first_skip, "%s", lines[0]);
    g.damage = hatf_reader_damage(hatf_source_container(s), &lines);
    if (g.damage) snprintf(g.last_damage, sizeof g.last_damage, "%s", lines[g.damage - 1]);
    hatf_source_order_stats(s, &g.order);
    hatf_source_close(s);
    return g;
}

static void same(const reading *a, const reading *b)
{
    CU_ASSERT_EQUAL(a->events, b->events);
    CU_ASSERT_EQUAL(a->errors, b->errors);
    CU_ASSERT_EQUAL(a->digest, b->digest);
    CU_ASSERT_EQUAL(a->skips, b->skips);
    CU_ASSERT_EQUAL(a->damage, b->damage);
    CU_ASSERT_STRING_EQUAL(a->first_skip, b->first_skip);
    CU_ASSERT_STRING_EQUAL(a->last_damage, b->last_damage);
    CU_ASSERT_EQUAL(memcmp(&a->order, &b->order, sizeof a->order), 0);
}

static void test_intact(void)
{
    reading one = read_all(intact, 1, 1, UINT64_MAX);
    CU_ASSERT_EQUAL(one.threads, 1);
    CU_ASSERT_EQUAL(one.events, STEPS);
    CU_ASSERT_EQUAL(one.damage, 0);
    /* the trace is what it is meant to be: ties reordered, early releases put after */
    CU_ASSERT(one.order.tie_groups > 0);
    CU_ASSERT(one.order.reordered > 0);
    CU_ASSERT(one.order.early_releases > 0);
    for (unsigned j = 2; j <= 8; j *= 2) {
        reading many = read_all(intact, j, 1, UINT64_MAX);
        CU_ASSERT_EQUAL(many.threads, (int)j);
        same(&one, &many);
    }
    reading all = read_all(intact, 0, 1, UINT64_MAX);
    CU_ASSERT(all.threads >= 1);
    same(&one, &all);
}

/* (the damage stays: the tests after this one read the damaged trace too) */
static void test_damaged(void)
{
    flip(damaged, HATF_CK_RECORDS, 2, 5);
    flip(damaged, HATF_CK_ADDRS, 3, 20);
    flip(damaged, HATF_CK_RECORDS, 1, 30);
    for (int read_on = 0; read_on <= 1; read_on++) {
        reading one = read_all(damaged, 1, read_on, UINT64_MAX);
        CU_ASSERT(one.events > STEPS / 2 && one.events < STEPS);
        CU_ASSERT_EQUAL(one.damage, 3);
        CU_ASSERT_EQUAL(one.skips, read_on ? 3 : 0);
        CU_ASSERT_EQUAL(one.errors, read_on ? 0 : 3);
        for (unsigned j = 2; j <= 8; j *= 2) {
            reading many = read_all(damaged, j, read_on, UINT64_MAX);
            CU_ASSERT_EQUAL(many.threads, (int)j);
            same(&one, &many);
        }
    }
}

/* Closed after a few events (the decoding threads are still at work), at
 * any point: the events so far are the same, and nothing leaks or hangs. */
static void test_early_close(void)
{
    for (uint64_t max = 1; max < STEPS; max = max * 7 + 3) {
        reading one = read_all(damaged, 1, 1, max);
        reading many = read_all(damaged, 4, 1, max);
        CU_ASSERT_EQUAL(one.events, many.events);
        CU_ASSERT_EQUAL(one.digest, many.digest);
    }
}

static void test_usage(void)
{
    hatf_err err = { 0 };
    CU_ASSERT_EQUAL(hatf_source_jobs(NULL, 2), HATF_E_USAGE);
    hatf_source *s = hatf_source_open(intact, HATF_FMT_CONTAINER, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_jobs(s, 3), 3);
    CU_ASSERT_EQUAL(hatf_source_jobs(s, 1), 1);  /* changed before reading: back to one thread */
    CU_ASSERT_EQUAL(hatf_source_jobs(s, 100000), HATF_SOURCE_JOBS_MAX);
    hatf_event ev;
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    CU_ASSERT_EQUAL(hatf_source_jobs(s, 2), HATF_E_USAGE);  /* too late */
    hatf_source_close(s);
    /* the text form reads on the calling thread */
    char tp[256];
    ut_path(tp, sizeof tp, "t.txt");
    FILE *f = fopen(tp, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("#hatrace-text 1\n10 1 0 alloc 8 0x10\n", f);
    fclose(f);
    s = hatf_source_open(tp, HATF_FMT_TEXT, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    CU_ASSERT_EQUAL(hatf_source_jobs(s, 4), 1);
    CU_ASSERT_EQUAL(hatf_source_next(s, &ev), 1);
    hatf_source_close(s);
}

/* Groups above hatf_ahead_decode_max_ events are only loaded ahead (the
 * merge's cursor decodes them): the same again, with every group, or only the
 * full ones (300 events; a thread's last group is shorter), past the limit. */
static void test_loaded_only(void)
{
    uint32_t keep = hatf_ahead_decode_max_;
    for (uint32_t max = 0; max <= 299; max += 299) {
        hatf_ahead_decode_max_ = max;
        reading one = read_all(intact, 1, 1, UINT64_MAX), many = read_all(intact, 3, 1, UINT64_MAX);
        CU_ASSERT_EQUAL(many.threads, 3);
        same(&one, &many);
        for (int read_on = 0; read_on <= 1; read_on++) {
            one = read_all(damaged, 1, read_on, UINT64_MAX);
            many = read_all(damaged, 4, read_on, UINT64_MAX);
            CU_ASSERT_EQUAL(many.damage, 3);
            same(&one, &many);
        }
    }
    hatf_ahead_decode_max_ = keep;
}

static CU_TestInfo tests[] = {
    { "intact trace: the same on 1, 2, 4, 8 threads and all cores", test_intact },
    { "damaged trace: the same damage, skips and events", test_damaged },
    { "closed early while groups are being decoded", test_early_close },
    { "groups only loaded ahead, decoded by the merge", test_loaded_only },
    { "hatf_source_jobs: values, too late, other formats", test_usage },
    CU_TEST_INFO_NULL,
};
CU_SuiteInfo ut_suites[] = {
    { .pName = "source jobs", .pInitFunc = setup, .pTests = tests },
    CU_SUITE_INFO_NULL,
};
