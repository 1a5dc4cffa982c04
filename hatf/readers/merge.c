/* merge.c — the thread iterator and the global iterator, which merges the
 * per-thread cursors by time with a binary heap (ties: events that give
 * memory back first, then lower thread, then stream order). Memory: one
 * decoded chunk group per thread.
 *
 * Each cursor holds a batch of decoded events. The global iterator hands out
 * events of the heap's top cursor for as long as they sort before the head
 * of every other cursor (the smaller of the top's two children: the limit),
 * so the heap is touched only when the lead passes to another thread; with
 * one thread left there is no comparison at all.
 *
 * A cursor is refilled lazily, on the call after its last event was handed
 * out, so an event's data stays valid until the next call.
 *
 * A realloc that gave its old block back inside the call (release_lead) sorts
 * by the time it returned; its old block may have been given back, and taken
 * by another thread, from when it began. While such a realloc is the head of
 * a cursor below the top (noted in pend), an event of another thread that
 * makes its old address after its release (a later time: in the release's
 * own time unit that make may be an earlier life of the address, one the
 * realloc's thread had not been given yet), before its time, goes out after
 * it: the realloc is promoted to just before that event, its time
 * lowered to that event's (its lead lowered as much, so its release time
 * stays). Its new block is then taken later than its release and no earlier
 * than any release of that block sorted before the reuse (the recorder stamps
 * a free before the call, an allocation after it). Cost: nothing while no such
 * realloc waits at a cursor's head; else a test of a 64-bit filter per event
 * that makes an address.
 */
#include <stdlib.h>
#include <string.h>

#include "container/container_internal.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

struct hatf_iter {
    hatf_reader *r;
    hatf_cursor *cur;
    size_t ncur;
    uint32_t *heap;           /* cursors holding a current event, min at [0] */
    size_t nheap;
    size_t primed;            /* cursors given their first events so far */
    int single;               /* one cursor: no heap */
    hatf_cursor *top;         /* the run being handed out: top->evs[top->i..stop) */
    uint32_t stop;
    uint64_t lim_key, lim_thread; /* head of the best cursor after the top */
    uint64_t chunk_off;       /* of the run's events */
    hatf_iter_batch_fn on_batch; /* hatf_iter_on_batch_ */
    void *on_batch_ctx;
    hatf_err err;
    /* a following reader (container_follow.c): cursors wait for their
     * threads' next groups, new threads join (merge_follow.c) */
    int follow;
    /* cursors whose head is a realloc with a release lead, not at the top (ncur room) */
    uint32_t *pend;
    size_t npend;
    uint64_t pend_bloom;          /* a bit per old address of theirs (pend_bit) */
    const hatf_rthread *th_base;  /* r->th when the cursors were pointed at it */
    uint64_t high;                /* the key of the last event handed out */
    size_t th_pos;                /* a thread iterator: its thread's place in r->th */
};

static inline int less(const hatf_cursor *a, const hatf_cursor *b)
{
    if (a->key != b->key) return a->key < b->key;
    if (UNLIKELY(a->waiting != b->waiting)) return a->waiting;  /* its next event may tie: first */
    return a->t->thread < b->t->thread;
}

static void sift_down(hatf_iter *it, size_t i)
{
    uint32_t x = it->heap[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= it->nheap) break;
        size_t m = l + 1 < it->nheap && less(&it->cur[it->heap[l + 1]], &it->cur[it->heap[l]]) ? l + 1 : l;
        if (!less(&it->cur[it->heap[m]], &it->cur[x])) break;
        it->heap[i] = it->heap[m];
        i = m;
    }
    it->heap[i] = x;
}

static void sift_up(hatf_iter *it, size_t i)
{
    uint32_t x = it->heap[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!less(&it->cur[x], &it->cur[it->heap[p]])) break;
        it->heap[i] = it->heap[p];
        i = p;
    }
    it->heap[i] = x;
}

/* The top changed: the limit is the smaller of its children. */
static void set_limit(hatf_iter *it)
{
    if (it->nheap < 2) return;  /* no limit: before_limit does not look */
    const hatf_cursor *m = &it->cur[it->heap[1]];
    if (it->nheap > 2 && less(&it->cur[it->heap[2]], m)) m = &it->cur[it->heap[2]];
    it->lim_key = m->key;
    it->lim_thread = m->waiting ? 0 : m->t->thread;  /* waiting: only keys below it go first */
}

/* May the top cursor, with head key k, go on before every other cursor? */
static inline int before_limit(const hatf_iter *it, uint64_t k, uint64_t thread)
{
    return k < it->lim_key || (k == it->lim_key && thread < it->lim_thread) || it->nheap < 2;
}

/* Merge key: time, then events that give memory back before events that take
 * it. With coarse time units events of several threads can share a time; this
 * tie order is only a default: hatf_source puts ties in causal order (causal.h). */
static inline uint64_t key_of(const hatf_event *e, uint64_t prev)
{
    if (e->op == HATF_OP_COMMENT) return prev;  /* a comment keeps its place */
    uint64_t t = e->time > UINT64_MAX >> 1 ? UINT64_MAX >> 1 : e->time;
    unsigned op = e->op;
    unsigned takes = !(op == HATF_OP_FREE || op == HATF_OP_REALLOC_FREE ||
                       op == HATF_OP_HEAP_DESTROY || op == HATF_OP_THREAD_DESTROY ||
                       (op == HATF_OP_REALLOC_MOVE && e->release_lead));  /* released before its time */
    return t << 1 | takes;
}

/* ---- reallocs that released early (release_lead): promotion ---------------- */

static inline unsigned pend_bit(uint64_t addr) { return (unsigned)(addr >> 4 ^ addr >> 12) & 63; }

/* c, below the top, has head evs[i]: note it if it is a realloc that may have
 * released its old block before its time. */
static void pend_note(hatf_iter *it, hatf_cursor *c)
{
    if (c->noted || c->i >= c->n) return;
    const hatf_event *e = &c->evs[c->i];
    if (!e->release_lead || !hatf_event_releases_early(e)) return;
    c->noted = 1;
    it->pend[it->npend++] = (uint32_t)(c - it->cur);
    it->pend_bloom |= 1ull << pend_bit(e->addr);
}

/* c's head goes out (or was promoted): out of the list. */
static void pend_drop(hatf_iter *it, hatf_cursor *c)
{
    uint32_t ci = (uint32_t)(c - it->cur);
    uint64_t bloom = 0;
    size_t k = 0;
    for (size_t i = 0; i < it->npend; i++) {
        if (it->pend[i] == ci) continue;
        const hatf_cursor *p = &it->cur[it->pend[i]];
        bloom |= 1ull << pend_bit(p->evs[p->i].addr);
        it->pend[k++] = it->pend[i];
    }
    it->npend = k;
    it->pend_bloom = bloom;
    c->noted = 0;
}

/* The noted cursor whose head released the address e makes before e's
 * time (key k) but sorts after it, or NULL. */
static hatf_cursor *pend_hit(hatf_iter *it, const hatf_event *e, uint64_t k)
{
    uint64_t a = hatf_event_makes(e), t = k >> 1;
    if (!a || !(it->pend_bloom >> pend_bit(a) & 1)) return NULL;
    for (size_t i = 0; i < it->npend; i++) {
        hatf_cursor *p = &it->cur[it->pend[i]];
        const hatf_event *r = &p->evs[p->i];
        if (r->addr == a && r->time - r->release_lead < t && t < r->time) return p;
    }
    return NULL;
}

static void sift_up(hatf_iter *it, size_t i);

/* Put p's head (a realloc) before the event of key k that reuses its old
 * block: its time lowered to that event's, its key just below k. */
static void promote(hatf_iter *it, hatf_cursor *p, uint64_t k)
{
    hatf_event *e = &p->evs[p->i];
    uint64_t t = k >> 1;
    e->release_lead -= e->time - t;  /* the release's time stays */
    e->time = t;
    p->key = k - 1;  /* k > 0: t < the realloc's time */
    p->promoted = 1;
    pend_drop(it, p);
    uint32_t pi = (uint32_t)(p - it->cur);
    for (size_t h = 0; h < it->nheap; h++)
        if (it->heap[h] == pi) { sift_up(it, h); break; }
}

static hatf_iter *iter_new(hatf_reader *r, size_t n)
{
    hatf_iter *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->r = r;
    it->cur = calloc(n ? n : 1, sizeof *it->cur);
    it->heap = calloc(n ? n : 1, sizeof *it->heap);
    it->pend = calloc(n ? n : 1, sizeof *it->pend);
    if (!it->cur || !it->heap || !it->pend) {
        free(it->cur); free(it->heap); free(it->pend); free(it);
        return NULL;
    }
    it->ncur = n;
    it->top = &it->cur[0];  /* stop 0: the first call chooses */
    return it;
}

HATF_API hatf_iter *hatf_iter_thread(hatf_reader *r, uint64_t thread)
{
    hatf_iter *it = NULL;
    for (size_t i = 0; i < r->nth; i++)
        if (r->th[i].thread == thread) {
            if (!(it = iter_new(r, 1))) return NULL;
            it->single = 1;
            it->th_base = r->th;
            it->th_pos = i;
            if (hatf_cursor_init(&it->cur[0], r, &r->th[i]) != 0) {
                hatf_iter_free(it);
                return NULL;
            }
            return it;
        }
    /* a thread without events: an empty iterator */
    it = iter_new(r, 0);
    if (it) it->single = 1;
    return it;
}

HATF_API hatf_iter *hatf_iter_global(hatf_reader *r)
{
    hatf_iter *it = iter_new(r, r->nth);
    if (!it) return NULL;
    it->follow = r->following;  /* threads may join: always the heap */
    it->th_base = r->th;
    it->single = r->nth <= 1 && !it->follow;
    int bad = 0;
    for (size_t i = 0; i < r->nth; i++) bad |= hatf_cursor_init(&it->cur[i], r, &r->th[i]);
    if (bad) {
        hatf_iter_free(it);
        return NULL;
    }
    return it;
}

/* Refill cursor c. @return as hatf_cursor_fill_, with the error copied. */
static int refill(hatf_iter *it, hatf_cursor *c)
{
    if (c->n) c->last_op = c->evs[c->n - 1].op;
    int rc = hatf_cursor_fill_(c);
    if (UNLIKELY(rc < 0)) it->err = c->err;
    else if (it->on_batch && c->n) it->on_batch(it->on_batch_ctx, c->evs, c->n);
    return rc;
}

/* ---- a following reader (container_follow.c) ----------------------------
 * A cursor whose thread's next group is not in the file yet waits: it stays
 * in the heap with the least key its next event can have (the time of the
 * thread's last sealed event), sorting before the other cursors' equal keys,
 * so nothing at or after that time goes out before it. And a cursor at its
 * thread's last sealed group holds back that group's events of its last time,
 * which the next group may continue: events of one time on several threads
 * go out together, so hatf_source orders each such tie as a whole. */

static uint64_t time_key(uint64_t t) { return (t > UINT64_MAX >> 1 ? UINT64_MAX >> 1 : t) << 1; }

/* The key from which c's events must wait (UINT64_MAX: none; a time key is
 * even, so never UINT64_MAX). */
static uint64_t hold_key(const hatf_iter *it, const hatf_cursor *c)
{
    const hatf_rthread *t = c->t;
    if (!it->r->following || !c->gi || (c->gi < t->ng && t->g[c->gi].aoff)) return UINT64_MAX;
    /* the thread's last sealed group: unless it ends the thread, its last time may go on */
    if (!c->left && c->n && c->evs[c->n - 1].op == HATF_OP_THREAD_DESTROY) return UINT64_MAX;
    return time_key(t->g[c->gi - 1].rh.t_last);
}

/* c (at the top or being primed) has no event it may hand out now: make it
 * wait, unless its thread has ended (a thread-destroy was its last event) or
 * the follow is over. @return 1 waiting, 0 not (c is at its end). */
static int wait_more(hatf_iter *it, hatf_cursor *c)
{
    if (!it->r->following) return 0;
    if (c->i == c->n && c->last_op == HATF_OP_THREAD_DESTROY) return 0;
    const hatf_rthread *t = c->t;
    uint64_t bound = c->gi ? t->g[c->gi - 1].rh.t_last : t->ng ? t->g[0].rh.t_first : 0;
    if (!c->waiting) c->wait_prev = c->key;
    c->waiting = 1;
    c->key = time_key(bound);
    return 1;
}

/* The top cursor c waits: may it go on now? @return 1 yes (c->key is its own
 * again), 0 not yet, 2 it has ended (take it out of the heap), or a negative
 * code (damage; called again, it goes on after it). */
static int unwait(hatf_iter *it, hatf_cursor *c)
{
    if (c->i < c->n) {  /* its head was held back */
        uint64_t h = hold_key(it, c);
        if (h != UINT64_MAX && key_of(&c->evs[c->i], c->wait_prev) >= h) return 0;
        c->waiting = 0;
        c->key = c->wait_prev;
        return 1;
    }
    int k = refill(it, c);
    if (k > 0 || k < 0) {
        c->waiting = 0;
        c->key = c->wait_prev;
        return k > 0 ? 1 : k;
    }
    if (wait_more(it, c)) return 0;
    c->waiting = 0;
    return 2;
}

/* Threads the reader found since the last call get cursors; the cursors
 * follow r->th when it moved. A thread whose first event is earlier than the
 * last one handed out comes late (counted in r->follow_late). @return 0 or
 * HATF_E_NOMEM. */
static int adopt(hatf_iter *it)
{
    hatf_reader *r = it->r;
    if (r->th != it->th_base) {
        for (size_t i = 0; i < it->ncur; i++) it->cur[i].t = &r->th[i];
        it->th_base = r->th;
    }
    if (r->nth <= it->ncur) return 0;
    size_t top = (size_t)(it->top - it->cur);
    hatf_cursor *cur = realloc(it->cur, r->nth * sizeof *cur);
    if (!cur) return HATF_E_NOMEM;
    it->cur = cur;
    it->top = &cur[top];
    uint32_t *heap = realloc(it->heap, r->nth * sizeof *heap);
    if (!heap) return HATF_E_NOMEM;
    it->heap = heap;
    uint32_t *pend = realloc(it->pend, r->nth * sizeof *pend);
    if (!pend) return HATF_E_NOMEM;
    it->pend = pend;
    for (size_t i = it->ncur; i < r->nth; i++) {
        if (hatf_cursor_init(&cur[i], r, &r->th[i]) != 0) {
            hatf_cursor_free(&cur[i]);
            return HATF_E_NOMEM;
        }
        const hatf_rthread *t = &r->th[i];
        if (it->high && t->ng && time_key(t->g[0].rh.t_first) < (it->high & ~1ull)) r->follow_late += t->g[0].rh.events;
        it->ncur = i + 1;
    }
    return 0;
}

void hatf_iter_on_batch_(hatf_iter *it, hatf_iter_batch_fn fn, void *ctx)
{
    it->on_batch = fn;
    it->on_batch_ctx = ctx;
}

/* The run handed out so far is used up: choose the cursor whose head sorts
 * first and clear a run of its events, evs[i..stop), that sort before every
 * other cursor's head. @return 1, 0 at the end, or a negative code (called
 * again, the damaged cursor goes on after the damage). */
static __attribute__((noinline)) int next_run(hatf_iter *it)
{
    hatf_cursor *c = it->top;
    it->stop = 0;
    if (it->single) {
        if (it->ncur == 0) return 0;
        if (UNLIKELY(it->r->th != it->th_base)) {  /* a following reader found threads: r->th moved */
            c->t = &it->r->th[it->th_pos];  /* threads keep their places */
            it->th_base = it->r->th;
        }
        if (c->i == c->n) {
            int k = refill(it, c);
            if (k <= 0) return k;
        }
        it->stop = c->n;
        it->chunk_off = c->chunk_off;
        return 1;
    }
    if (UNLIKELY(it->follow)) {
        int rc = adopt(it);
        if (rc < 0) return rc;
    }
    while (it->primed < it->ncur && !it->follow) {
        /* a cursor is loaded when it comes to the top (below, as one whose
         * events are used up): until then its key is its first group's first
         * time (the least key its events can have), so only the threads whose
         * groups overlap in time hold a decoded group at once */
        c = &it->cur[it->primed];
        if (c->t->ng) {
            c->key = time_key(c->t->g[0].rh.t_first);
            it->heap[it->nheap++] = (uint32_t)it->primed;
            sift_up(it, it->nheap - 1);
        }
        if (++it->primed == it->ncur) set_limit(it);
    }
    while (it->primed < it->ncur) {
        c = &it->cur[it->primed];
        int k = refill(it, c);
        if (k < 0) return k;
        if (k == 0 && it->follow && it->r->following) wait_more(it, c);  /* its first group comes later */
        if (k > 0 || c->waiting) {
            if (k > 0) c->key = key_of(&c->evs[0], c->key);
            it->heap[it->nheap++] = (uint32_t)it->primed;
            sift_up(it, it->nheap - 1);
            pend_note(it, c);
        }
        it->primed++;
        if (it->primed == it->ncur) set_limit(it);
    }
    for (;;) {
        if (it->nheap == 0) return 0;
        c = &it->cur[it->heap[0]];
        if (UNLIKELY(c->waiting)) {
            int w = unwait(it, c);
            if (w < 0) return w;
            if (w == 0) return 0;  /* no more yet: the earliest thread waits for its next group */
            if (w == 2) {  /* it has ended */
                it->heap[0] = it->heap[--it->nheap];
                sift_down(it, 0);
                set_limit(it);
                continue;
            }
        }
        if (c->i == c->n) {
            int k = refill(it, c);
            if (k < 0) return k;
            if (k == 0) {
                if (UNLIKELY(it->follow) && wait_more(it, c)) {
                    sift_down(it, 0);
                    set_limit(it);
                    continue;
                }
                it->heap[0] = it->heap[--it->nheap];
                sift_down(it, 0);
                set_limit(it);
                continue;
            }
        }
        /* the head's key (a cursor below the top has it already) */
        uint64_t k = c->promoted ? c->key : key_of(&c->evs[c->i], c->key), th = c->t->thread;
        c->key = k;
        uint64_t hold = UNLIKELY(it->follow) ? hold_key(it, c) : UINT64_MAX;
        int held = hold != UINT64_MAX;  /* (a key can be UINT64_MAX itself) */
        if (UNLIKELY(held && k >= hold)) {  /* its next events may tie with what another thread still brings */
            wait_more(it, c);
            sift_down(it, 0);
            set_limit(it);
            continue;
        }
        if (!before_limit(it, k, th)) {
            sift_down(it, 0);
            set_limit(it);
            pend_note(it, c);
            continue;
        }
        hatf_cursor *p;
        if (UNLIKELY(it->npend) && (p = pend_hit(it, &c->evs[c->i], k)) != NULL && p != c) {
            promote(it, p, k);  /* p's realloc first: it comes to the top */
            set_limit(it);
            continue;
        }
        if (UNLIKELY(c->noted)) pend_drop(it, c);
        c->promoted = 0;
        uint32_t j = c->i + 1;
        if (it->nheap < 2 && !held) {
            j = c->n;
        } else {
            for (; j < c->n; j++) {
                uint64_t kj = key_of(&c->evs[j], k);
                if (!before_limit(it, kj, th) || (held && kj >= hold)) break;
                if (UNLIKELY(it->npend) && pend_hit(it, &c->evs[j], kj)) break;  /* the next call promotes */
                k = kj;
            }
            c->key = k;  /* of evs[j - 1]: what a comment at evs[j] inherits */
        }
        if (UNLIKELY(it->follow)) it->high = c->key > it->high ? c->key : it->high;
        it->top = c;
        it->stop = j;
        it->chunk_off = c->chunk_off;
        return 1;
    }
}

/* hatf_iter_next at the end of a run; apart, so that the common path needs
 * no stack frame. */
static __attribute__((noinline)) int next_after_run(hatf_iter *it, hatf_event *ev)
{
    int rc = next_run(it);
    if (rc <= 0) return rc;
    hatf_cursor *c = it->top;
    *ev = c->evs[c->i++];
    return 1;
}

HATF_API int hatf_iter_next(hatf_iter *it, hatf_event *ev)
{
    hatf_cursor *c = it->top;
    if (UNLIKELY(c->i >= it->stop)) return next_after_run(it, ev);
    *ev = c->evs[c->i++];
    return 1;
}

HATF_API int hatf_iter_peek(hatf_iter *it, const hatf_event **evs)
{
    hatf_cursor *c = it->top;
    if (c->i >= it->stop) {
        int rc = next_run(it);
        if (rc <= 0) return rc;
        c = it->top;
    }
    *evs = &c->evs[c->i];
    return (int)(it->stop - c->i);
}

HATF_API void hatf_iter_take(hatf_iter *it, unsigned k)
{
    hatf_cursor *c = it->top;
    c->i = k < it->stop - c->i ? c->i + k : it->stop;
}

HATF_API int hatf_iter_next_batch(hatf_iter *it, const hatf_event **evs)
{
    int n = hatf_iter_peek(it, evs);
    if (n > 0) hatf_iter_take(it, (unsigned)n);
    return n;
}

HATF_API uint64_t hatf_iter_chunk_offset(const hatf_iter *it) { return it->chunk_off; }
HATF_API const hatf_err *hatf_iter_error(const hatf_iter *it) { return &it->err; }

HATF_API void hatf_iter_free(hatf_iter *it)
{
    if (!it) return;
    for (size_t i = 0; i < it->ncur; i++) hatf_cursor_free(&it->cur[i]);
    free(it->cur);
    free(it->heap);
    free(it->pend);
    free(it);
}
