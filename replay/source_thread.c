/* source_thread.c — a trace read and decoded on a thread of its own while the
 * calling thread compiles it (rp_source_run, replay.h).
 *
 * The reader thread fills batches of events (each event's attribute bytes
 * copied into the batch) and hands them over through a ring of SQ_BATCHES;
 * the calling thread runs them through the same lookahead as lookahead_run,
 * so prefetch and count see the events in the same order and at the same
 * distance. What differs is when the source's damage list is looked at: the
 * reader notes the first event after which the source reported damage, and
 * an event is counted as `damaged` exactly when lookahead_run's caller, which
 * looks at the list when it counts an event, LOOKAHEAD_N events after reading
 * it (or after the end), would have seen damage.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "source_thread.h"

#define SQ_BATCH 4096
#define SQ_BATCHES 32  /* 131072 events ahead: a handoff outlasts a scheduling delay on a busy machine */

typedef struct sq_batch {
    lookahead_item it[SQ_BATCH];
    hatf_buf bytes;            /* the events' attribute bytes, one after another */
    uint32_t n;
    int last;                  /* the source ended (or failed: rc) after these */
    int rc;
    uint64_t dmg_from;         /* as of this batch: first event after which damage showed, or UINT64_MAX */
    int dmg_end;               /* last batch: damage shown at the end */
} sq_batch;

typedef struct srcq {
    hatf_source *src;
    hatf_reader *container;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sq_batch *b;               /* SQ_BATCHES */
    unsigned head, full;       /* next batch to count; batches filled and not yet counted */
    int stop;                  /* the counting side stopped */
    double cpu_s;              /* the reader thread's CPU time, when it ended */
} srcq;

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *reader_main(void *arg)
{
    srcq *q = arg;
    uint64_t nread = 0, dmg_from = UINT64_MAX;
    unsigned tail = 0;
    for (int last = 0; !last;) {
        pthread_mutex_lock(&q->mu);
        while (q->full == SQ_BATCHES && !q->stop) pthread_cond_wait(&q->cv, &q->mu);
        int stop = q->stop;
        pthread_mutex_unlock(&q->mu);
        if (stop) break;
        sq_batch *b = &q->b[tail];
        b->n = 0;
        b->bytes.len = 0;
        b->rc = 0;
        hatf_event ev;
        int r = 1;
        while (b->n < SQ_BATCH && (r = hatf_source_next(q->src, &ev)) > 0) {
            lookahead_item *x = &b->it[b->n++];
            x->ev = ev;
            x->rec = hatf_source_record(q->src);
            x->off = hatf_source_offset(q->src);
            if (ev.data_len) {  /* its offset for now: the buffer may move */
                x->ev.data = (const uint8_t *)(uintptr_t)b->bytes.len;
                hatf_buf_append(&b->bytes, ev.data, ev.data_len);
            }
            if (dmg_from == UINT64_MAX && q->container && hatf_reader_damage(q->container, NULL)) dmg_from = nread;
            nread++;
        }
        if (b->bytes.failed) r = HATF_E_NOMEM;
        for (uint32_t i = 0; i < b->n; i++)
            if (b->it[i].ev.data_len) b->it[i].ev.data = b->bytes.p + (uintptr_t)b->it[i].ev.data;
        if (r <= 0) {
            last = 1;
            b->rc = r;
            b->dmg_end = q->container && hatf_reader_damage(q->container, NULL);
        }
        b->last = last;
        b->dmg_from = dmg_from;
        tail = (tail + 1) % SQ_BATCHES;
        pthread_mutex_lock(&q->mu);
        q->full++;
        pthread_cond_broadcast(&q->cv);
        pthread_mutex_unlock(&q->mu);
    }
    q->cpu_s = thread_cpu_s();
    return NULL;
}

int rp_source_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x, int damaged),
                  void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *count_rc, double cpu_s[2])
{
    srcq q = { .src = src, .container = hatf_source_container(src) };
    double cpu0 = thread_cpu_s();
    *count_rc = 0;
    q.b = calloc(SQ_BATCHES, sizeof *q.b);
    if (!q.b) return HATF_E_NOMEM;
    for (unsigned i = 0; i < SQ_BATCHES; i++) hatf_buf_init(&q.b[i].bytes);
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.cv, NULL);
    pthread_t tid;
    if (pthread_create(&tid, NULL, reader_main, &q)) {
        free(q.b);
        return HATF_E_NOMEM;
    }
    lookahead la;
    lookahead_init(&la);
    const lookahead_item *out;
    uint64_t nread = 0, dmg_from = UINT64_MAX;
    int rc = 0, src_rc = 0, dmg_end = 0, done = 0;
    while (!done && rc >= 0) {
        pthread_mutex_lock(&q.mu);
        while (!q.full) pthread_cond_wait(&q.cv, &q.mu);
        pthread_mutex_unlock(&q.mu);
        sq_batch *b = &q.b[q.head];
        dmg_from = b->dmg_from;
        for (uint32_t i = 0; i < b->n && rc >= 0; i++) {
            prefetch(ctx, &b->it[i].ev);
            if (lookahead_push(&la, &b->it[i].ev, b->it[i].rec, b->it[i].off, &out) < 0) {
                rc = HATF_E_NOMEM;
                break;
            }
            nread++;
            /* out was read LOOKAHEAD_N events ago: lookahead_run's caller would
               look at the damage list now, after reading event nread - 1 */
            if (out) rc = count(ctx, out, dmg_from < nread);
        }
        if (b->last) {
            done = 1;
            src_rc = b->rc;
            dmg_end = b->dmg_end;
        }
        q.head = (q.head + 1) % SQ_BATCHES;
        pthread_mutex_lock(&q.mu);
        q.full--;
        if (done || rc < 0) q.stop = 1;
        pthread_cond_broadcast(&q.cv);
        pthread_mutex_unlock(&q.mu);
    }
    /* what was read is counted, as by lookahead_run; the source has ended */
    while (rc >= 0 && (out = lookahead_pop(&la)) != NULL) rc = count(ctx, out, dmg_end || dmg_from < nread);
    pthread_join(tid, NULL);
    cpu_s[0] = q.cpu_s;
    cpu_s[1] = thread_cpu_s() - cpu0;
    lookahead_free(&la);
    for (unsigned i = 0; i < SQ_BATCHES; i++) hatf_buf_free(&q.b[i].bytes);
    free(q.b);
    pthread_mutex_destroy(&q.mu);
    pthread_cond_destroy(&q.cv);
    if (rc < 0) {
        *count_rc = rc;
        return LOOKAHEAD_STOPPED;
    }
    return src_rc < 0 ? src_rc : 0;
}
