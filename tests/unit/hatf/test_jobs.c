/* test_jobs.c — chunk groups encoded by a helper thread (hatf/container/container_jobs.c):
 * whoever encodes a group, and however late, the file is byte for byte the one
 * the writer alone writes. Run under TSan by make check-sanitizers. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cunit_main.h"
#include "hatf_container.h"
#include "container/container_jobs.h"

enum { THREADS = 3, PER_THREAD = 40000, CHUNK = 1000, FLUSH_EVERY = 7000, BATCH = 256 };

/* the events of one thread: allocations and frees in a changing pattern, so
 * that groups differ in size and the address model has work to do */
static hatf_event *make_events(unsigned th)
{
    hatf_event *ev = calloc(PER_THREAD, sizeof *ev);
    uint64_t live[64] = { 0 }, time = 1000 * th;
    unsigned nlive = 0, seed = 17 + th;
    for (unsigned i = 0; i < PER_THREAD; i++) {
        hatf_event *e = &ev[i];
        seed = seed * 1103515245u + 12345u;
        time += (seed >> 8) % 5;
        e->thread = th + 1;
        e->time = time;
        if (nlive == 64 || (nlive && (seed >> 16) % 3 == 0)) {
            unsigned k = (seed >> 4) % nlive;
            e->op = HATF_OP_FREE;
            e->addr = live[k];
            live[k] = live[--nlive];
        } else {
            e->op = HATF_OP_ALLOC;
            e->size = 16 + 16 * ((seed >> 12) % 9);
            e->addr = 0x100000ull * (th + 1) + 64ull * i;
            live[nlive++] = e->addr;
        }
    }
    return ev;
}

typedef enum { SYNC, HELPER, HELPER_YIELDS, HELPER_SLOW, NO_HELPER, RECORDER_STEPS } mode;

static void pause_yield(void) { sched_yield(); }
static void pause_slow(void) { nanosleep(&(struct timespec){ 0, 200000 }, NULL); }

typedef struct helper_arg { hatf_jobq *q; void (*pause)(void); } helper_arg;

static void *helper(void *p)
{
    helper_arg *a = p;
    hatf_jobq_run_(a->q, a->pause);
    return NULL;
}

static hatf_event *evs[THREADS];

/* write every thread's events as the recorder feeds them; @return the file's bytes */
static uint8_t *write_file(mode m, size_t *len, uint64_t *by_helper, uint64_t *by_writer)
{
    char path[512];
    ut_path(path, sizeof path, "jobs-%d.hatf", (int)m);
    hatf_writer_opts o = { .chunk_events = CHUNK, .zstd_level = 3 };
    hatf_err err;
    hatf_writer *w = hatf_writer_create(path, 1, NULL, &o, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    pthread_t th;
    helper_arg a = { NULL, m == HELPER_YIELDS ? pause_yield : m == HELPER_SLOW ? pause_slow : NULL };
    if (m != SYNC) {
        a.q = hatf_writer_defer_(w, 4);
        CU_ASSERT_PTR_NOT_NULL_FATAL(a.q);
        CU_ASSERT_PTR_NULL(hatf_writer_defer_(w, 4));  /* once only */
        if (m == NO_HELPER) hatf_jobq_release_(a.q);
        else CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, helper, &a), 0);
    }
    size_t since = 0;
    for (size_t at = 0; at < PER_THREAD; at += BATCH) {
        size_t n = PER_THREAD - at < BATCH ? PER_THREAD - at : BATCH;
        for (unsigned t = 0; t < THREADS; t++) CU_ASSERT_EQUAL_FATAL(hatf_writer_add(w, evs[t] + at, n), 0);
        since += n * THREADS;
        if (since < FLUSH_EVERY) continue;
        since = 0;
        if (m != RECORDER_STEPS) {
            CU_ASSERT_EQUAL_FATAL(hatf_writer_flush(w), 0);
            continue;
        }
        CU_ASSERT_EQUAL_FATAL(hatf_writer_seal_(w), 0);
        int rc;
        while ((rc = hatf_writer_write_due_(w)) > 0) {}
        CU_ASSERT_EQUAL_FATAL(rc, 0);
    }
    uint64_t twice;
    hatf_writer_defer_counts_(w, by_helper, by_writer, &twice);
    CU_ASSERT(twice <= *by_writer);
    CU_ASSERT_EQUAL_FATAL(hatf_writer_close(w, NULL, &err), 0);
    if (m != SYNC && m != NO_HELPER) pthread_join(th, NULL);  /* it ends when the writer closes */
    FILE *f = fopen(path, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    uint8_t *p = malloc(*len);
    CU_ASSERT_EQUAL_FATAL(fread(p, 1, *len, f), *len);
    fclose(f);
    return p;
}

static void test_same_bytes(void)
{
    for (unsigned t = 0; t < THREADS; t++) evs[t] = make_events(t);
    size_t len0, len;
    uint64_t h, w;
    uint8_t *ref = write_file(SYNC, &len0, &h, &w);
    CU_ASSERT(h == 0 && w == 0);
    /* counted before the close: every full group but the last of each thread, at least */
    uint64_t groups_min = THREADS * (PER_THREAD / CHUNK - 1);
    static const mode modes[] = { HELPER, HELPER_YIELDS, HELPER_SLOW, NO_HELPER, RECORDER_STEPS };
    for (unsigned k = 0; k < sizeof modes / sizeof *modes; k++) {
        uint8_t *p = write_file(modes[k], &len, &h, &w);
        CU_ASSERT_EQUAL(len, len0);
        CU_ASSERT(len == len0 && memcmp(p, ref, len) == 0);
        CU_ASSERT(h + w >= groups_min);
        if (modes[k] == NO_HELPER) CU_ASSERT_EQUAL(h, 0);
        free(p);
    }
    free(ref);
    for (unsigned t = 0; t < THREADS; t++) free(evs[t]);
}

static int pauses;
static void pause_count(void) { pauses++; }

/* the helper compresses in pieces with pauses between: the same frame */
static void test_paused_compression(void)
{
    enum { LEN = 300000 };
    uint8_t *src = malloc(LEN);
    unsigned seed = 5;
    for (size_t i = 0; i < LEN; i++) {  /* compressible: runs and small numbers */
        seed = seed * 1103515245u + 12345u;
        src[i] = (uint8_t)((seed >> 24) % 7 + (i / 1000) % 3);
    }
    for (int level = -1; level <= 19; level += 4) {
        ZSTD_CCtx *c = ZSTD_createCCtx();
        ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, level);
        hatf_buf a, b;
        hatf_buf_init(&a);
        hatf_buf_init(&b);
        for (size_t len = 0; len <= LEN; len = len * 4 + 777) {
            hatf_chunk_hdr h1 = { .kind = HATF_CK_RECORDS }, h2 = h1;
            a.len = b.len = 0;
            pauses = 0;
            CU_ASSERT_EQUAL(hatf_chunk_pack(c, &h1, src, len, &a, NULL), 0);
            CU_ASSERT_EQUAL(hatf_chunk_pack(c, &h2, src, len, &b, pause_count), 0);
            CU_ASSERT(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
            if (len > 100000) CU_ASSERT(pauses > 1);
        }
        hatf_buf_free(&a);
        hatf_buf_free(&b);
        ZSTD_freeCCtx(c);
    }
    free(src);
}

static CU_TestInfo tests[] = {
    { "same bytes whoever encodes", test_same_bytes },
    { "paused compression", test_paused_compression },
    CU_TEST_INFO_NULL,
};

CU_SuiteInfo ut_suites[] = {
    { .pName = "jobs", .pTests = tests },
    CU_SUITE_INFO_NULL,
};
