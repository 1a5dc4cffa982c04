/* timeline.c — the heap over time in a bounded number of intervals (timeline.h). */
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "check.h"

int timeline_init(timeline *t, size_t points)
{
    HATF_PRE(points >= 1);
    memset(t, 0, sizeof *t);
    t->cap = 2 * points;
    t->width = 1;
    t->v = calloc(t->cap, sizeof *t->v);
    return t->v ? 0 : -1;
}

void timeline_free(timeline *t)
{
    free(t->v);
    memset(t, 0, sizeof *t);
}

/* b, the later interval, merged into a: the state at the end is the later one's */
static void merge(timeline_span *a, const timeline_span *b)
{
    if (!b->events) return;
    if (!a->events || b->max_live_bytes > a->max_live_bytes) a->max_live_bytes = b->max_live_bytes;
    a->events += b->events;
    a->live_bytes = b->live_bytes;
    a->live_objects = b->live_objects;
    a->allocs += b->allocs;
    a->frees += b->frees;
    a->bytes += b->bytes;
}

/* Halve the number of intervals: each pair becomes one, twice as wide. */
static void halve(timeline *t)
{
    size_t m = (t->n + 1) / 2;
    for (size_t i = 0; i < m; i++) {
        timeline_span s = t->v[2 * i];
        if (2 * i + 1 < t->n) merge(&s, &t->v[2 * i + 1]);
        t->v[i] = s;
    }
    memset(t->v + m, 0, (t->cap - m) * sizeof *t->v);
    t->n = m;
    t->width *= 2;
    t->cur_end = 0;  /* the last event's interval moved */
}

void timeline_add(timeline *t, uint64_t x, int kind, uint64_t bytes, uint64_t live_bytes, uint64_t live_objects)
{
    if (!t->started) {
        t->started = 1;
        t->x0 = t->last_x = x;
    }
    if (x < t->last_x) x = t->last_x;
    t->last_x = x;
    size_t i = t->cur;
    if (x >= t->cur_end) {  /* a later interval (x0 + (i + 1) * width can wrap: then always here) */
        uint64_t k;
        while ((k = (x - t->x0) / t->width) >= t->cap) halve(t);
        t->cur = i = (size_t)k;
        t->cur_end = t->x0 + (k + 1) * t->width;
    }
    timeline_span *s = &t->v[i];
    if (i >= t->n) t->n = (size_t)i + 1;
    if (!s->events || live_bytes > s->max_live_bytes) s->max_live_bytes = live_bytes;
    s->events++;
    s->live_bytes = live_bytes;
    s->live_objects = live_objects;
    if (kind == TIMELINE_ALLOC) {
        s->allocs++;
        s->bytes += bytes;
    } else if (kind == TIMELINE_FREE) {
        s->frees++;
    }
}

void timeline_finish(timeline *t, size_t points)
{
    while (t->n > points) halve(t);
    for (size_t i = 1; i < t->n; i++) {  /* the first interval holds the first event */
        timeline_span *s = &t->v[i];
        if (s->events) continue;
        s->live_bytes = s->max_live_bytes = t->v[i - 1].live_bytes;
        s->live_objects = t->v[i - 1].live_objects;
    }
}

uint64_t timeline_end(const timeline *t, size_t i)
{
    if (i + 1 >= t->n) return t->last_x;
    return t->x0 + (i + 1) * t->width;
}
