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

int lookahead_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x),
                  void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *count_rc)
{
    lookahead q;
    lookahead_init(&q);
    hatf_event ev;
    const lookahead_item *out;
    int r, rc = 0;
    *count_rc = 0;
    while ((r = hatf_source_next(src, &ev)) > 0) {
        prefetch(ctx, &ev);
        if (lookahead_push(&q, &ev, hatf_source_record(src), hatf_source_offset(src), &out) < 0) {
            rc = HATF_E_NOMEM;
            break;
        }
        if (out && (rc = count(ctx, out)) != 0) break;
    }
    /* what was read is counted, as without the lookahead (a pause included) */
    while (rc >= 0 && (out = lookahead_pop(&q)) != NULL) {
        int c = count(ctx, out);
        if (c < 0) rc = c;
    }
    lookahead_free(&q);
    if (rc < 0) {
        *count_rc = rc;
        return LOOKAHEAD_STOPPED;
    }
    return r < 0 ? r : rc > 0 ? LOOKAHEAD_PAUSED : 0;
}
