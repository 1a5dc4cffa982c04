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
 */
#include <stdlib.h>
#include <string.h>

#include "container_internal.h"

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
};

static inline int less(const hatf_cursor *a, const hatf_cursor *b)
{
    if (a->key != b->key) return a->key < b->key;
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
    it->lim_thread = m->t->thread;
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
                       op == HATF_OP_HEAP_DESTROY || op == HATF_OP_THREAD_DESTROY);
    return t << 1 | takes;
}

static hatf_iter *iter_new(hatf_reader *r, size_t n)
{
    hatf_iter *it = calloc(1, sizeof *it);
    if (!it) return NULL;
    it->r = r;
    it->cur = calloc(n ? n : 1, sizeof *it->cur);
    it->heap = calloc(n ? n : 1, sizeof *it->heap);
    if (!it->cur || !it->heap) {
        free(it->cur); free(it->heap); free(it);
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
    it->single = r->nth <= 1;
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
    int rc = hatf_cursor_fill_(c);
    if (UNLIKELY(rc < 0)) it->err = c->err;
    else if (it->on_batch && c->n) it->on_batch(it->on_batch_ctx, c->evs, c->n);
    return rc;
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
        if (c->i == c->n) {
            int k = refill(it, c);
            if (k <= 0) return k;
        }
        it->stop = c->n;
        it->chunk_off = c->chunk_off;
        return 1;
    }
    while (it->primed < it->ncur) {
        c = &it->cur[it->primed];
        int k = refill(it, c);
        if (k < 0) return k;
        if (k > 0) {
            c->key = key_of(&c->evs[0], c->key);
            it->heap[it->nheap++] = (uint32_t)it->primed;
            sift_up(it, it->nheap - 1);
        }
        it->primed++;
        if (it->primed == it->ncur) set_limit(it);
    }
    for (;;) {
        if (it->nheap == 0) return 0;
        c = &it->cur[it->heap[0]];
        if (c->i == c->n) {
            int k = refill(it, c);
            if (k < 0) return k;
            if (k == 0) {
                it->heap[0] = it->heap[--it->nheap];
                sift_down(it, 0);
                set_limit(it);
                continue;
            }
        }
        /* the head's key (a cursor below the top has it already) */
        uint64_t k = key_of(&c->evs[c->i], c->key), th = c->t->thread;
        c->key = k;
        if (!before_limit(it, k, th)) {
            sift_down(it, 0);
            set_limit(it);
            continue;
        }
        uint32_t j = c->i + 1;
        if (it->nheap < 2) {
            j = c->n;
        } else {
            for (; j < c->n; j++) {
                uint64_t kj = key_of(&c->evs[j], k);
                if (!before_limit(it, kj, th)) break;
                k = kj;
            }
            c->key = k;  /* of evs[j - 1]: what a comment at evs[j] inherits */
        }
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

HATF_API int hatf_iter_next_batch(hatf_iter *it, const hatf_event **evs)
{
    hatf_cursor *c = it->top;
    if (c->i >= it->stop) {
        int rc = next_run(it);
        if (rc <= 0) return rc;
        c = it->top;
    }
    uint32_t i = c->i;
    *evs = &c->evs[i];
    c->i = it->stop;
    return (int)(it->stop - i);
}

HATF_API uint64_t hatf_iter_chunk_offset(const hatf_iter *it) { return it->chunk_off; }
HATF_API const hatf_err *hatf_iter_error(const hatf_iter *it) { return &it->err; }

HATF_API void hatf_iter_free(hatf_iter *it)
{
    if (!it) return;
    for (size_t i = 0; i < it->ncur; i++) hatf_cursor_free(&it->cur[i]);
    free(it->cur);
    free(it->heap);
    free(it);
}
