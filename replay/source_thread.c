/* source_thread.c — a trace read and decoded on a thread of its own while the
 * calling thread compiles it (rp_source_run, replay.h).
 *
 * The reader thread fills batches of events (each event's attribute bytes
 * copied into the batch) and hands them over through a ring of SQ_BATCHES;
 * the calling thread counts them where they are, in the same order as
 * lookahead_run and at the same point (LOOKAHEAD_N events after reading each),
 * with three prefetch stages running ahead of the count (RP_AHEAD_1.._3,
 * source_thread.h) instead of the lookahead's copies. What differs is when
 * the source's damage list is looked at: the reader notes the first event
 * after which the source reported damage, and an event is counted as
 * `damaged` exactly when lookahead_run's caller, which looks at the list when
 * it counts an event, LOOKAHEAD_N events after reading it (or after the end),
 * would have seen damage.
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
        int r = 1;
        /* each event read straight into its place (no copy) */
        while (b->n < SQ_BATCH && (r = hatf_source_next(q->src, &b->it[b->n].ev)) > 0) {
            lookahead_item *x = &b->it[b->n++];
            x->rec = hatf_source_record(q->src);
            x->off = hatf_source_offset(q->src);
            if (x->ev.data_len) {  /* its offset for now: the buffer may move */
                const uint8_t *data = x->ev.data;
                x->ev.data = (const uint8_t *)(uintptr_t)b->bytes.len;
                hatf_buf_append(&b->bytes, data, x->ev.data_len);
            }
            if (dmg_from == UINT64_MAX && q->container && hatf_reader_damage(q->container, NULL)) dmg_from = nread;
            nread++;
        }
        if (b->bytes.failed) r = HATF_E_NOMEM;
        for (uint32_t i = 0; b->bytes.len && i < b->n; i++)  /* none when no event had bytes */
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

/* A batch the counting side holds, and the number of its first event. */
typedef struct held {
    const sq_batch *b;
    uint64_t base;
} held;

/* Event g, in cur or in prev (pre: prev.base <= g < cur.base + cur.b->n). */
static inline const lookahead_item *held_item(const held *prev, const held *cur, uint64_t g)
{
    return g >= cur->base ? &cur->b->it[g - cur->base] : &prev->b->it[g - prev->base];
}

int rp_source_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x, int damaged),
                  void (*prefetch)(void *ctx, const hatf_event *const ev[3], const uint64_t g[3]), void *ctx,
                  int *count_rc, double cpu_s[2])
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
    /* Events are counted from the batches themselves (no copy): event g once
     * event g + LOOKAHEAD_N is read, as lookahead_run counts it, so the last
     * LOOKAHEAD_N events of a batch wait for the next one and the batch is
     * handed back after them (every batch but the last is full, so they are
     * all in the batch before). Before event g is counted, the three prefetch
     * stages have seen the events up to g + RP_AHEAD_1, g + RP_AHEAD_2 and
     * g + RP_AHEAD_3 that were read. */
    held prev = { 0 }, cur = { 0 };
    uint64_t total = 0, next = 0, p1 = 0, p2 = 0, p3 = 0, dmg_from = UINT64_MAX;
    int rc = 0, src_rc = 0, dmg_end = 0, done = 0;
    while (!done && rc >= 0) {
        unsigned nheld = prev.b != NULL;
        pthread_mutex_lock(&q.mu);
        while (q.full <= nheld) pthread_cond_wait(&q.cv, &q.mu);
        pthread_mutex_unlock(&q.mu);
        const sq_batch *b = &q.b[(q.head + nheld) % SQ_BATCHES];
        cur = (held){ b, total };
        total += b->n;
        dmg_from = b->dmg_from;
        if (b->last) {
            done = 1;
            src_rc = b->rc;
            dmg_end = b->dmg_end;
        }
        /* what lookahead_run's caller counts on reading this batch (and at the end) */
        uint64_t upto = done ? total : total > LOOKAHEAD_N ? total - LOOKAHEAD_N : 0;
        for (; next < upto && rc >= 0; next++) {
            uint64_t a1 = next + RP_AHEAD_1, a2 = next + RP_AHEAD_2, a3 = next + RP_AHEAD_3;
            if (p1 == a1 && a1 < total && p2 == a2 && p3 == a3 && a3 >= cur.base) {
                /* most events: each stage one event on, all three in this batch */
                const lookahead_item *it = cur.b->it;
                const hatf_event *ev[3] = { &it[a1 - cur.base].ev, &it[a2 - cur.base].ev, &it[a3 - cur.base].ev };
                const uint64_t g[3] = { a1, a2, a3 };
                prefetch(ctx, ev, g);
                p1++, p2++, p3++;
            } else {  /* a batch's first events: each stage catches up */
                for (;;) {
                    const hatf_event *ev[3] = { NULL, NULL, NULL };
                    const uint64_t g[3] = { p1, p2, p3 };
                    if (p1 < total && p1 <= a1) ev[0] = &held_item(&prev, &cur, p1++)->ev;
                    if (p2 < p1 && p2 <= a2) ev[1] = &held_item(&prev, &cur, p2++)->ev;
                    if (p3 < p2 && p3 <= a3) ev[2] = &held_item(&prev, &cur, p3++)->ev;
                    if (!ev[0] && !ev[1] && !ev[2]) break;
                    prefetch(ctx, ev, g);
                }
            }
            /* it would look at the damage list after reading event next + LOOKAHEAD_N */
            int damaged = next + LOOKAHEAD_N < total ? dmg_from <= next + LOOKAHEAD_N : dmg_end || dmg_from < total;
            rc = count(ctx, held_item(&prev, &cur, next), damaged);
        }
        /* hand back prev (all counted: every batch but the last holds more
           than LOOKAHEAD_N events), and cur when all of it is counted */
        unsigned give = (prev.b != NULL) + (done && next == total);
        prev = cur;
        pthread_mutex_lock(&q.mu);
        q.head = (q.head + give) % SQ_BATCHES;
        q.full -= give;
        if (done || rc < 0) q.stop = 1;
        pthread_cond_broadcast(&q.cv);
        pthread_mutex_unlock(&q.mu);
    }
    pthread_join(tid, NULL);
    cpu_s[0] = q.cpu_s;
    cpu_s[1] = thread_cpu_s() - cpu0;
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
