/* merge.c — the thread iterator and the global iterator, which merges the
 * per-thread cursors by time with a binary heap (ties: lower thread first,
 * then stream order). Memory: one decoded chunk group per thread.
 *
 * The event a call returns stays in its cursor's buffers; that cursor is only
 * advanced on the next call, so ev->data stays valid until then.
 */
#include <stdlib.h>
#include <string.h>

#include "container_internal.h"

#define HATF_API __attribute__((visibility("default")))

struct hatf_iter {
    hatf_reader *r;
    hatf_cursor *cur;
    size_t ncur;
    uint32_t *heap;           /* cursors holding a current event, min at [0] */
    size_t nheap;
    size_t primed;            /* cursors given their first event so far */
    int advance_top;          /* the top cursor's event was returned: advance it first */
    int single;               /* one cursor: no heap */
    uint64_t chunk_off;
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
    return it;
}

HATF_API hatf_iter *hatf_iter_thread(hatf_reader *r, uint64_t thread)
{
    hatf_iter *it = NULL;
    for (size_t i = 0; i < r->nth; i++)
        if (r->th[i].thread == thread) {
            if (!(it = iter_new(r, 1))) return NULL;
            hatf_cursor_init(&it->cur[0], r, &r->th[i]);
            it->single = 1;
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
    for (size_t i = 0; i < r->nth; i++) hatf_cursor_init(&it->cur[i], r, &r->th[i]);
    it->single = r->nth <= 1;
    return it;
}

/* Advance cursor i into its own ev. @return as hatf_cursor_next. */
static int step(hatf_iter *it, hatf_cursor *c)
{
    int rc = hatf_cursor_next(c, &c->ev);
    if (rc == 1) {
        if (c->ev.op != HATF_OP_COMMENT) c->key = c->ev.time;  /* a comment keeps its place */
    } else if (rc < 0) {
        it->err = c->err;
    }
    return rc;
}

HATF_API int hatf_iter_next(hatf_iter *it, hatf_event *ev)
{
    if (it->single) {
        if (it->ncur == 0) return 0;
        hatf_cursor *c = &it->cur[0];
        int rc = hatf_cursor_next(c, ev);
        it->chunk_off = c->chunk_off;
        if (rc < 0) it->err = c->err;
        return rc;
    }
    while (it->primed < it->ncur) {
        hatf_cursor *c = &it->cur[it->primed];
        int rc = step(it, c);
        if (rc < 0) return rc;  /* called again, this cursor goes on after the damage */
        if (rc == 1) {
            it->heap[it->nheap++] = (uint32_t)it->primed;
            sift_up(it, it->nheap - 1);
        }
        it->primed++;
    }
    if (it->advance_top) {
        hatf_cursor *c = &it->cur[it->heap[0]];
        int rc = step(it, c);
        if (rc < 0) return rc;
        it->advance_top = 0;
        if (rc == 0) {
            it->heap[0] = it->heap[--it->nheap];
        }
        if (it->nheap) sift_down(it, 0);
    }
    if (it->nheap == 0) return 0;
    hatf_cursor *c = &it->cur[it->heap[0]];
    *ev = c->ev;
    it->chunk_off = c->chunk_off;
    it->advance_top = 1;
    return 1;
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
