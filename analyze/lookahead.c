/* lookahead.c — events held back a few steps (see lookahead.h). */
#include <string.h>

#include "lookahead.h"

#define SLOTS (LOOKAHEAD_N + 1)

void lookahead_init(lookahead *q)
{
    memset(q, 0, sizeof *q);
    for (unsigned i = 0; i < SLOTS; i++) hatf_buf_init(&q->data[i]);
}

void lookahead_free(lookahead *q)
{
    for (unsigned i = 0; i < SLOTS; i++) hatf_buf_free(&q->data[i]);
}

int lookahead_push(lookahead *q, const hatf_event *ev, uint64_t rec, uint64_t off, const lookahead_item **out)
{
    *out = NULL;
    unsigned slot = (q->head + q->n) % SLOTS;
    lookahead_item *x = &q->it[slot];
    hatf_event *e = &x->ev;
    *e = *ev;
    x->rec = rec;
    x->off = off;
    if (ev->data_len) {
        hatf_buf *b = &q->data[slot];
        b->len = 0;
        hatf_buf_append(b, ev->data, ev->data_len);
        if (b->failed) return -1;
        e->data = b->p;
    }
    if (q->n < LOOKAHEAD_N) {
        q->n++;
        return 0;
    }
    *out = &q->it[q->head];
    q->head = (q->head + 1) % SLOTS;
    return 0;
}

const lookahead_item *lookahead_pop(lookahead *q)
{
    if (!q->n) return NULL;
    const lookahead_item *e = &q->it[q->head];
    q->head = (q->head + 1) % SLOTS;
    q->n--;
    return e;
}

/* Count evs[0..n) (records first.., chunk offset off), prefetching LOOKAHEAD_N
 * ahead within the run. @return how many were counted, with count's first
 * nonzero code in *rc (the events after it are not counted). */
static unsigned count_run(const hatf_event *evs, unsigned n, uint64_t first, uint64_t off,
                          int (*count)(void *ctx, const lookahead_item *x),
                          void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *rc)
{
    lookahead_item x;
    x.off = off;
    for (unsigned i = 0; i < n && i < LOOKAHEAD_N; i++) prefetch(ctx, &evs[i]);
    for (unsigned i = 0; i < n; i++) {
        if (i + LOOKAHEAD_N < n) prefetch(ctx, &evs[i + LOOKAHEAD_N]);
        x.ev = evs[i];
        x.rec = first + i;
        if ((*rc = count(ctx, &x)) != 0) return i + 1;
    }
    return n;
}

/* Count the held events, all of them (a pause included: they were read).
 * @return rc, or count's first nonzero code when rc was 0, or its first negative one. */
static int count_held(lookahead *q, int (*count)(void *ctx, const lookahead_item *x), void *ctx, int rc)
{
    const lookahead_item *out;
    while (rc >= 0 && (out = lookahead_pop(q)) != NULL) {
        int c = count(ctx, out);
        if (c < 0 || (c > 0 && rc == 0)) rc = c;
    }
    return rc;
}

int lookahead_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x),
                  void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *count_rc)
{
    lookahead q;
    lookahead_init(&q);
    const hatf_event *evs;
    const lookahead_item *out;
    uint64_t first;
    int n = 0, rc = 0;
    *count_rc = 0;
    while (rc == 0 && (n = hatf_source_peek(src, &evs, &first)) > 0) {
        if (n == 1) {  /* a source read an event at a time: held back, copied */
            prefetch(ctx, evs);
            if (lookahead_push(&q, evs, first, hatf_source_offset(src), &out) < 0) {
                rc = HATF_E_NOMEM;
                break;
            }
            hatf_source_take(src, 1);
            if (out) rc = count(ctx, out);
            continue;
        }
        /* a run, counted in place after what is held: a pause leaves the rest next in the source */
        if ((rc = count_held(&q, count, ctx, 0)) != 0) break;
        unsigned k = count_run(evs, (unsigned)n, first, hatf_source_offset(src), count, prefetch, ctx, &rc);
        hatf_source_take(src, k);
    }
    rc = count_held(&q, count, ctx, rc);
    lookahead_free(&q);
    if (rc < 0) {
        *count_rc = rc;
        return LOOKAHEAD_STOPPED;
    }
    return rc > 0 ? LOOKAHEAD_PAUSED : n;
}
