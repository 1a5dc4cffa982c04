/* source_jobs.c — chunk groups decoded ahead on other threads (source_jobs.h).
 *
 * The plan is a list of every group, in the order the merge is expected to
 * load them: a thread's first group at once, each later one when the merge
 * passes the time its previous group ends (rh.t_last), ties by thread then
 * group. A job's life, under the mutex:
 *   WAIT -> BUSY (a decoding thread took it) -> DONE (its result ready)
 *   -> TAKEN (the merge's cursor installed it)
 *   WAIT -> TAKEN (the merge wanted it first and decodes it itself)
 *   BUSY -> ORPHANED (the merge waited AHEAD_GRACE_NS for it in vain: its
 *           thread is not running, on a machine with no core free; the merge
 *           decodes it itself) -> TAKEN when its thread ends it (thrown away)
 * head is the first job not TAKEN; a decoding thread takes the next WAIT job
 * only within the window after head (AHEAD_GROUPS per thread, AHEAD_EVENTS).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "hatf_check.h"
#include "source_jobs.h"

enum { JOB_WAIT, JOB_BUSY, JOB_DONE, JOB_TAKEN, JOB_ORPHANED };

#define AHEAD_GRACE_NS 2000000  /* how long the merge waits for a group being decoded */

/* One fill of the decoding thread's cursor, replayed by the merge's: rc > 0,
 * that many events at evs[at]; rc < 0, the damage errs[at]. */
typedef struct ahead_item {
    int rc;
    uint32_t at;
} ahead_item;

uint32_t hatf_ahead_decode_max_ = 1u << 17;

/* A group decoded (or only loaded) ahead, kept for reuse when given back. */
struct hatf_ahead_group {
    struct hatf_ahead_group *next_free;
    int failed;               /* out of memory, or a streamed group too large to decode ahead: the merge decodes the group itself */
    int loaded;               /* only loaded: its payloads in rec and adr, or the error load_rc, err */
    int load_rc;
    hatf_err err;
    hatf_buf adr;
    hatf_rgroup g;            /* the group's headers, as planned */
    hatf_event *evs;          /* its events, batch after batch */
    size_t nev, cap_ev;
    ahead_item *items;
    size_t nitems, cap_items, next;  /* next: the item the merge's cursor hands out next */
    hatf_err *errs;
    size_t nerrs, cap_errs;
    hatf_buf rec;             /* the records payload the events' data point into */
};

typedef struct ahead_job {
    uint64_t key;             /* when the merge is expected to load it */
    uint64_t thread;
    uint32_t ti, gi;          /* r->th[ti].g[gi] */
    int state;
    hatf_rgroup g;
    struct hatf_ahead_group *res;
} ahead_job;

struct hatf_ahead {
    hatf_reader *r;
    pthread_mutex_t mu;
    pthread_cond_t work;      /* decoding threads: a job may be taken, or stop */
    pthread_cond_t done;      /* the merge: a job it waits for is DONE */
    ahead_job *jobs;
    size_t njobs;
    size_t nth;               /* threads planned */
    size_t *first;            /* first[ti]: thread ti's group 0 in at[]; first[nth]: all groups */
    uint32_t *at;             /* job index of (ti, gi) */
    size_t head, next;        /* first job not TAKEN; no WAIT job before next */
    size_t window;
    int stop;
    struct hatf_ahead_group *pool;
    pthread_t *tids;
    unsigned ntids;
};

static int job_cmp(const void *a, const void *b)
{
    const ahead_job *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    if (x->ti != y->ti) return x->ti < y->ti ? -1 : 1;
    return x->gi < y->gi ? -1 : x->gi > y->gi;
}

static void group_free(struct hatf_ahead_group *g)
{
    free(g->evs);
    free(g->items);
    free(g->errs);
    hatf_buf_free(&g->rec);
    hatf_buf_free(&g->adr);
    free(g);
}

/* 1 if a->mu is held, by this thread or another: the check of "pre: mu held". */
static inline int mu_held(struct hatf_ahead *a)
{
    if (pthread_mutex_trylock(&a->mu) != 0) return 1;
    pthread_mutex_unlock(&a->mu);
    return 0;
}

/* pre: mu held. */
static struct hatf_ahead_group *pool_get(struct hatf_ahead *a)
{
    HATF_PRE(mu_held(a));
    struct hatf_ahead_group *g = a->pool;
    if (g) a->pool = g->next_free;
    return g;
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 16;
    while (n < need) n *= 2;
    void *q = realloc(*p, n * size);
    if (!q) return -1;
    *p = q;
    *cap = n;
    return 0;
}

/* Decode job j's group with the thread's cursor wc into res: every fill,
 * as the merge's cursor would have made it. */
static void decode_group(hatf_cursor *wc, const ahead_job *j, struct hatf_ahead_group *res)
{
    hatf_rthread t = { .thread = j->thread, .g = &res->g, .ng = 1, .cap = 1, .events = j->g.rh.events };
    res->g = j->g;
    res->failed = 0;
    res->loaded = 0;
    res->nev = res->nitems = res->nerrs = res->next = 0;
    wc->t = &t;
    wc->gi = 0;
    wc->left = 0;
    wc->loaded = 0;
    wc->pend = 0;
    wc->rec = res->rec;  /* the events' data point into it: it stays with them */
    for (;;) {
        /* room for the next fill: the events the group has left, up to a batch
         * (the cursor's fill takes no more), so a group of one event holds
         * room for a few, not for a batch: 20,000 threads whose groups overlap
         * in time, all decoded ahead, held 250-271 MB, 13 KB a group */
        uint64_t left = j->g.rh.events > res->nev ? j->g.rh.events - res->nev : 1;
        size_t room = left < HATF_CURSOR_BATCH ? (size_t)left : HATF_CURSOR_BATCH;
        if (grow((void **)&res->evs, &res->cap_ev, res->nev + room, sizeof *res->evs) ||
            grow((void **)&res->items, &res->cap_items, res->nitems + 1, sizeof *res->items)) {
            res->failed = 1;
            break;
        }
        wc->evs = res->evs + res->nev;
        wc->i = wc->n;  /* the batch before is kept where it is: used up as far as the cursor goes */
        int rc = hatf_cursor_fill_(wc);
        if (rc == 0) break;
        ahead_item *it = &res->items[res->nitems++];
        it->rc = rc;
        if (rc > 0) {
            it->at = (uint32_t)res->nev;
            res->nev += (size_t)rc;
            continue;
        }
        if (grow((void **)&res->errs, &res->cap_errs, res->nerrs + 1, sizeof *res->errs)) {
            res->failed = 1;
            break;
        }
        it->at = (uint32_t)res->nerrs;
        res->errs[res->nerrs++] = wc->err;
    }
    res->rec = wc->rec;
    hatf_buf_init(&wc->rec);
    wc->evs = wc->own_evs;
    wc->t = NULL;
}

/* Only load a group of more than hatf_ahead_decode_max_ events (and its
 * payloads: as the merge's cursor loads them). */
static void load_group(hatf_reader *r, ZSTD_DCtx *dctx, hatf_buf *io, const ahead_job *j,
                       struct hatf_ahead_group *res)
{
    res->g = j->g;
    /* a payload decompressed as it is decoded (container_stream.h): the
     * merge's cursor does it, not in whole here */
    res->failed = hatf_zpay_streamed(&j->g.rh) || hatf_zpay_streamed(&j->g.ah);
    if (res->failed) return;
    res->loaded = 1;
    res->nev = res->nitems = res->nerrs = res->next = 0;
    memset(&res->err, 0, sizeof res->err);
    res->load_rc = hatf_load_payload_with_(r, dctx, io, j->g.roff, &j->g.rh, &res->rec, &res->err);
    if (!res->load_rc) res->load_rc = hatf_load_payload_with_(r, dctx, io, j->g.aoff, &j->g.ah, &res->adr, &res->err);
    /* out of memory here is the merge's to meet, if it meets it too */
    res->failed = res->load_rc == HATF_E_NOMEM;
}

/* Memory a job's result takes (an estimate from its headers). */
static uint64_t job_bytes(const ahead_job *j)
{
    uint64_t raw = (uint64_t)j->g.rh.raw_len + j->g.ah.raw_len;
    return j->g.rh.events > hatf_ahead_decode_max_ ? raw : raw + (uint64_t)j->g.rh.events * sizeof(hatf_event);
}

/* The next job a decoding thread may take, or SIZE_MAX. pre: mu held. */
static size_t claimable(struct hatf_ahead *a)
{
    HATF_PRE(mu_held(a));
    while (a->next < a->njobs && a->jobs[a->next].state != JOB_WAIT) a->next++;
    if (a->next >= a->njobs || a->next >= a->head + a->window) return SIZE_MAX;
    uint64_t bytes = 0;
    for (size_t k = a->head; k < a->next; k++)
        if (a->jobs[k].state != JOB_TAKEN) bytes += job_bytes(&a->jobs[k]);
    if (bytes && bytes + job_bytes(&a->jobs[a->next]) > AHEAD_BYTES) return SIZE_MAX;
    return a->next;
}

static void advance_head(struct hatf_ahead *a);

static void *decoder_main(void *arg)
{
    struct hatf_ahead *a = arg;
    hatf_cursor wc;
    hatf_buf io;
    hatf_buf_init(&io);
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    int ok = dctx && hatf_cursor_init(&wc, a->r, NULL) == 0;
    wc.worker = 1;
    wc.dctx = dctx;
    wc.io = &io;
    pthread_mutex_lock(&a->mu);
    while (ok) {
        size_t k;
        while (!a->stop && (k = claimable(a)) == SIZE_MAX) pthread_cond_wait(&a->work, &a->mu);
        if (a->stop) break;
        ahead_job *j = &a->jobs[k];
        j->state = JOB_BUSY;
        a->next = k + 1;
        struct hatf_ahead_group *res = pool_get(a);
        ahead_job job = *j;
        pthread_mutex_unlock(&a->mu);
        if (!res) res = calloc(1, sizeof *res);
        if (res && job.g.rh.events > hatf_ahead_decode_max_) load_group(a->r, dctx, &io, &job, res);
        else if (res) decode_group(&wc, &job, res);
        pthread_mutex_lock(&a->mu);
        if (j->state == JOB_ORPHANED) {  /* the merge decoded it meanwhile */
            if (res) {
                res->next_free = a->pool;
                a->pool = res;
            }
            j->state = JOB_TAKEN;
            advance_head(a);
            continue;
        }
        j->res = res;  /* NULL (no memory): the merge decodes it itself */
        j->state = JOB_DONE;
        pthread_cond_broadcast(&a->done);
    }
    pthread_mutex_unlock(&a->mu);
    if (dctx) hatf_cursor_free(&wc);
    ZSTD_freeDCtx(dctx);
    hatf_buf_free(&io);
    return NULL;
}

unsigned hatf_ahead_cores_(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return (unsigned)CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

static void ahead_free(struct hatf_ahead *a)
{
    for (size_t k = 0; k < a->njobs; k++)
        if (a->jobs[k].res) group_free(a->jobs[k].res);
    for (struct hatf_ahead_group *g = a->pool, *n; g; g = n) {
        n = g->next_free;
        group_free(g);
    }
    free(a->jobs);
    free(a->first);
    free(a->at);
    free(a->tids);
    free(a);
}

/* The plan: every group, in the order the merge is expected to load them. */
static int plan(struct hatf_ahead *a)
{
    hatf_reader *r = a->r;
    size_t n = 0;
    for (size_t i = 0; i < r->nth; i++) n += r->th[i].ng;
    a->jobs = malloc((n ? n : 1) * sizeof *a->jobs);
    a->at = malloc((n ? n : 1) * sizeof *a->at);
    a->first = malloc((r->nth + 1) * sizeof *a->first);
    if (!a->jobs || !a->at || !a->first || n > UINT32_MAX) return HATF_E_NOMEM;
    for (size_t i = 0, k = 0; i < r->nth; i++) {
        const hatf_rthread *t = &r->th[i];
        a->first[i] = k;
        for (size_t gi = 0; gi < t->ng; gi++, k++)
            a->jobs[k] = (ahead_job){ .key = gi ? t->g[gi - 1].rh.t_last : 0, .thread = t->thread,
                                      .ti = (uint32_t)i, .gi = (uint32_t)gi, .state = JOB_WAIT, .g = t->g[gi] };
    }
    a->first[r->nth] = n;
    a->nth = r->nth;
    qsort(a->jobs, n, sizeof *a->jobs, job_cmp);
    for (size_t k = 0; k < n; k++) a->at[a->first[a->jobs[k].ti] + a->jobs[k].gi] = (uint32_t)k;
    a->njobs = n;
    return 0;
}

int hatf_ahead_start_(hatf_reader *r, unsigned nthreads)
{
    HATF_PRE(r->open == 0);
    struct hatf_ahead *a = calloc(1, sizeof *a);
    if (!a) return HATF_E_NOMEM;
    a->r = r;
    if (nthreads < 1) nthreads = 1;
    a->window = (size_t)AHEAD_GROUPS * nthreads;
    a->tids = calloc(nthreads, sizeof *a->tids);
    if (!a->tids || plan(a) != 0) {
        ahead_free(a);
        return HATF_E_NOMEM;
    }
    pthread_mutex_init(&a->mu, NULL);
    pthread_cond_init(&a->work, NULL);
    pthread_cond_init(&a->done, NULL);
    /* the decoding threads take no signals: they stay with the caller's thread */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (; a->ntids < nthreads; a->ntids++)
        if (pthread_create(&a->tids[a->ntids], NULL, decoder_main, a) != 0) break;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (a->ntids == 0) {
        pthread_mutex_destroy(&a->mu);
        pthread_cond_destroy(&a->work);
        pthread_cond_destroy(&a->done);
        ahead_free(a);
        return HATF_E_NOMEM;
    }
    r->ahead = a;
    return 0;
}

void hatf_ahead_stop_(hatf_reader *r)
{
    HATF_PRE(r->open == 0);
    struct hatf_ahead *a = r->ahead;
    if (!a) return;
    pthread_mutex_lock(&a->mu);
    a->stop = 1;
    pthread_cond_broadcast(&a->work);
    pthread_mutex_unlock(&a->mu);
    for (unsigned i = 0; i < a->ntids; i++) pthread_join(a->tids[i], NULL);
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->work);
    pthread_cond_destroy(&a->done);
    ahead_free(a);
    r->ahead = NULL;
}

/* pre: mu held. */
static void advance_head(struct hatf_ahead *a)
{
    HATF_PRE(mu_held(a));
    size_t h = a->head;
    while (a->head < a->njobs && a->jobs[a->head].state == JOB_TAKEN) a->head++;
    if (a->head != h) pthread_cond_broadcast(&a->work);
}

int hatf_ahead_take_(hatf_cursor *c, int *rc)
{
    HATF_PRE(!c->ahead && c->gi < c->t->ng && !c->worker);
    struct hatf_ahead *a = c->r->ahead;
    size_t ti = (size_t)(c->t - c->r->th);
    /* not a thread or a group the plan has (the reader's lists grew since) */
    if (ti >= a->nth || c->gi >= a->first[ti + 1] - a->first[ti]) return HATF_AHEAD_NONE;
    pthread_mutex_lock(&a->mu);
    ahead_job *j = &a->jobs[a->at[a->first[ti] + c->gi]];
    if (j->state == JOB_BUSY) {  /* wait for it, a while */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += AHEAD_GRACE_NS;
        if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
        while (j->state == JOB_BUSY && pthread_cond_timedwait(&a->done, &a->mu, &until) == 0) {}
        if (j->state == JOB_BUSY) {
            j->state = JOB_ORPHANED;
            pthread_mutex_unlock(&a->mu);
            return HATF_AHEAD_NONE;
        }
    }
    struct hatf_ahead_group *res = NULL;
    if (j->state == JOB_WAIT || j->state == JOB_DONE) {
        res = j->res;
        j->res = NULL;
        j->state = JOB_TAKEN;
        advance_head(a);
    }
    if (res && res->failed) {
        res->next_free = a->pool;
        a->pool = res;
        res = NULL;
    }
    pthread_mutex_unlock(&a->mu);
    if (!res) return HATF_AHEAD_NONE;
    if (res->loaded) {  /* the payloads change hands: the cursor's buffers go back with the result */
        hatf_buf t = c->rec;
        c->rec = res->rec;
        res->rec = t;
        t = c->adr;
        c->adr = res->adr;
        res->adr = t;
        c->err = res->err;
        *rc = res->load_rc;
        pthread_mutex_lock(&a->mu);
        res->next_free = a->pool;
        a->pool = res;
        pthread_mutex_unlock(&a->mu);
        return HATF_AHEAD_LOADED;
    }
    c->ahead = res;
    c->gi++;
    c->chunk_off = res->g.roff;
    c->left = 0;
    c->loaded = 0;
    c->pend = 0;
    return HATF_AHEAD_DECODED;
}

int hatf_ahead_next_(hatf_cursor *c)
{
    HATF_PRE(c->ahead);
    struct hatf_ahead_group *g = c->ahead;
    if (g->next == g->nitems) {
        hatf_ahead_done_(c);
        return 0;
    }
    const ahead_item *it = &g->items[g->next++];
    hatf_cursor_open_(c, g->next < g->nitems);  /* as its own decoding says it */
    if (it->rc > 0) {
        c->evs = g->evs + it->at;
        c->i = 0;
        c->n = (uint32_t)it->rc;
        return it->rc;
    }
    c->err = g->errs[it->at];
    hatf_reader_add_damage_(c->r, "%s", c->err.msg);
    return it->rc;
}

void hatf_ahead_done_(hatf_cursor *c)
{
    struct hatf_ahead *a = c->r->ahead;
    struct hatf_ahead_group *g = c->ahead;
    c->ahead = NULL;
    hatf_cursor_open_(c, 0);
    c->evs = c->own_evs;
    c->i = c->n = 0;
    pthread_mutex_lock(&a->mu);
    g->next_free = a->pool;
    a->pool = g;
    pthread_mutex_unlock(&a->mu);
}
