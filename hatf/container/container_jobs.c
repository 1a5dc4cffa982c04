/* container_jobs.c — the helper's job queue (container_jobs.h). */
#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "container_jobs.h"

enum { JOB_FREE, JOB_QUEUED, JOB_CLAIMED, JOB_DONE, JOB_TAKEN, JOB_ORPHANED };

typedef struct hatf_job {
    _Atomic int state;
    _Atomic uint64_t order;   /* when it was sealed: the helper takes the oldest (read while the
                               * writer may be reusing the slot, hence atomic) */
    _Atomic uint64_t claimed_ns;  /* when the helper began it (CLOCK_MONOTONIC) */
    int rc;                   /* the helper's encoding result (read at DONE) */
    hatf_group g;             /* input: the writer's until QUEUED, then read-only */
    hatf_gout out;            /* the helper's encoding */
} hatf_job;

struct hatf_jobq {
    _Atomic int refs;
    _Atomic int closed;
    sem_t sem;                /* posted per job queued, and at close */
    int level;
    size_t max_items;
    uint64_t head, tail;      /* the writer's: next to seal, next to write */
    uint64_t by_helper, by_writer, twice;  /* twice: taken from the helper while it encoded them */
    unsigned n;
    hatf_job job[];
};

hatf_jobq *hatf_jobq_new_(unsigned nslots, int level, size_t max_items)
{
    if (nslots < 1) nslots = 1;
    hatf_jobq *q = calloc(1, sizeof *q + nslots * sizeof(hatf_job));
    if (!q) return NULL;
    if (sem_init(&q->sem, 0, 0) != 0) { free(q); return NULL; }
    atomic_init(&q->refs, 2);  /* the writer's and the helper's */
    q->n = nslots;
    q->level = level;
    q->max_items = max_items;
    return q;
}

void hatf_jobq_release_(hatf_jobq *q)
{
    if (!q || atomic_fetch_sub_explicit(&q->refs, 1, memory_order_acq_rel) != 1) return;
    for (unsigned i = 0; i < q->n; i++) {
        hatf_group_free(&q->job[i].g);
        hatf_gout_free(&q->job[i].out);
    }
    sem_destroy(&q->sem);
    free(q);
}

void hatf_jobq_close_(hatf_jobq *q)
{
    atomic_store_explicit(&q->closed, 1, memory_order_release);
    sem_post(&q->sem);
    hatf_jobq_release_(q);
}

void hatf_jobq_counts_(const hatf_jobq *q, uint64_t *by_helper, uint64_t *by_writer, uint64_t *twice)
{
    *by_helper = q->by_helper;
    *by_writer = q->by_writer;
    *twice = q->twice;
}

/* ---- the writer's side ------------------------------------------------------ */

void hatf_jobq_note_writer_(hatf_jobq *q) { q->by_writer++; }
uint64_t hatf_jobq_sealed_(const hatf_jobq *q) { return q->head; }
uint64_t hatf_jobq_written_(const hatf_jobq *q) { return q->tail; }

int hatf_jobq_put_(hatf_jobq *q, hatf_group *g)
{
    if (q->head - q->tail >= q->n) return 0;
    hatf_job *j = &q->job[q->head % q->n];
    if (atomic_load_explicit(&j->state, memory_order_acquire) != JOB_FREE) return 0;  /* orphaned, still read */
    hatf_group old = j->g;
    j->g = *g;
    *g = old;  /* the slot's buffers, for the writer's next group */
    g->tsec.len = g->rec.len = g->rsec.len = 0;
    g->nitems = 0;
    atomic_store_explicit(&j->order, q->head++, memory_order_relaxed);
    atomic_store_explicit(&j->state, JOB_QUEUED, memory_order_release);
    sem_post(&q->sem);
    return 1;
}

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int hatf_jobq_head_(hatf_jobq *q, uint64_t force_below, uint64_t grace_ns, hatf_genc *c, hatf_gout *mine,
                    const hatf_gout **out)
{
    if (q->tail == q->head) return 2;
    hatf_job *j = &q->job[q->tail % q->n];
    int force = atomic_load_explicit(&j->order, memory_order_relaxed) < force_below;
    for (;;) {
        int st = atomic_load_explicit(&j->state, memory_order_acquire);
        if (st == JOB_DONE) {
            if (j->rc) return j->rc;
            q->by_helper++;
            *out = &j->out;
            return 0;
        }
        if (!force) return 1;
        if (st == JOB_CLAIMED && grace_ns &&
            now_ns() - atomic_load_explicit(&j->claimed_ns, memory_order_relaxed) < grace_ns)
            return 3;  /* the helper began it a moment ago: it will be done soon */
        int to = st == JOB_QUEUED ? JOB_TAKEN : st == JOB_CLAIMED ? JOB_ORPHANED : -1;
        if (to < 0) return HATF_E_USAGE;  /* not a sealed job: a broken call sequence */
        if (!atomic_compare_exchange_strong_explicit(&j->state, &st, to, memory_order_acq_rel,
                                                     memory_order_acquire))
            continue;  /* the helper moved first */
        q->by_writer++;
        q->twice += to == JOB_ORPHANED;
        int rc = hatf_group_encode(c, &j->g, mine);
        if (rc) return rc;
        *out = mine;
        return 0;
    }
}

void hatf_jobq_pop_(hatf_jobq *q)
{
    hatf_job *j = &q->job[q->tail % q->n];
    int st = atomic_load_explicit(&j->state, memory_order_acquire);
    if (st == JOB_DONE || st == JOB_TAKEN) atomic_store_explicit(&j->state, JOB_FREE, memory_order_release);
    q->tail++;  /* an orphaned slot is freed by the helper */
}

/* ---- the helper ------------------------------------------------------------- */

static hatf_job *oldest_queued(hatf_jobq *q)
{
    hatf_job *best = NULL;
    uint64_t best_order = 0;
    for (unsigned i = 0; i < q->n; i++) {
        hatf_job *j = &q->job[i];
        if (atomic_load_explicit(&j->state, memory_order_acquire) != JOB_QUEUED) continue;
        uint64_t o = atomic_load_explicit(&j->order, memory_order_relaxed);
        if (!best || o < best_order) best = j, best_order = o;
    }
    return best;
}

void hatf_jobq_run_(hatf_jobq *q, void (*pause)(void))
{
    hatf_genc c;
    if (hatf_genc_init(&c, q->level, q->max_items) != 0) {
        hatf_jobq_release_(q);  /* the writer encodes every group itself */
        return;
    }
    c.pause = pause;
    while (!atomic_load_explicit(&q->closed, memory_order_acquire)) {
        hatf_job *j = oldest_queued(q);
        if (!j) {
            while (sem_wait(&q->sem) != 0 && errno == EINTR) {}
            continue;
        }
        /* the time first: the writer reads it once it sees CLAIMED (released by the CAS) */
        atomic_store_explicit(&j->claimed_ns, now_ns(), memory_order_relaxed);
        int st = JOB_QUEUED;
        if (!atomic_compare_exchange_strong_explicit(&j->state, &st, JOB_CLAIMED, memory_order_acq_rel,
                                                     memory_order_acquire))
            continue;
        j->rc = hatf_group_encode(&c, &j->g, &j->out);
        st = JOB_CLAIMED;
        if (!atomic_compare_exchange_strong_explicit(&j->state, &st, JOB_DONE, memory_order_acq_rel,
                                                     memory_order_acquire))
            atomic_store_explicit(&j->state, JOB_FREE, memory_order_release);  /* orphaned: let go */
    }
    hatf_genc_free(&c);
    hatf_jobq_release_(q);
}
