/* timeline.h — the heap over time, in a bounded number of intervals
 * (analyze/timeline.c), for hatrace stats --timeline and --massif.
 *
 * Events are added in order with a position x that never goes back (a time,
 * or a record number). The intervals have one width, starting at the first
 * event's x; when an event falls past the last interval, neighbouring
 * intervals merge in pairs and the width doubles. Every figure merges
 * exactly (sums, a maximum, the state at the end), so the result does not
 * depend on where the doublings happened.
 */
#ifndef ANALYZE_TIMELINE_H
#define ANALYZE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

typedef struct timeline_span {
    uint64_t events;          /* events in the interval (0: none; the state carries over) */
    uint64_t live_bytes, live_objects;  /* after the interval's last event */
    uint64_t max_live_bytes;  /* the most live bytes after any of its events */
    uint64_t allocs, frees;   /* alloc and realloc records; free records of an address */
    uint64_t bytes;           /* bytes those alloc and realloc records asked for */
} timeline_span;

typedef struct timeline {
    timeline_span *v;  /* cap intervals, n used */
    size_t n, cap;
    uint64_t x0, width, last_x;  /* the first event's x, the interval width, the last x */
    int started;
    size_t cur;        /* the interval of the last event, which ends before x cur_end */
    uint64_t cur_end;  /* (0: find it; the common case is one interval for many events, with no division) */
} timeline;

enum { TIMELINE_ALLOC = 1, TIMELINE_FREE = 2 };

/* Room for 2 * points intervals; timeline_finish leaves at most points.
 * @return 0, or -1 out of memory. pre: points >= 1. */
int timeline_init(timeline *t, size_t points);
void timeline_free(timeline *t);

/* One event at x (x >= every earlier x; an earlier one counts as the latest),
 * kind TIMELINE_ALLOC (with the bytes it asked for), TIMELINE_FREE or 0, and
 * the heap's live bytes and objects after it. */
void timeline_add(timeline *t, uint64_t x, int kind, uint64_t bytes, uint64_t live_bytes, uint64_t live_objects);

/* Merge to at most points intervals, and fill the empty ones with the state
 * that carries into them (max_live_bytes: the live bytes). */
void timeline_finish(timeline *t, size_t points);

/* The end of interval i (exclusive), as an x: x0 + (i + 1) * width, but the
 * last interval ends at the last event's x. */
uint64_t timeline_end(const timeline *t, size_t i);

#endif
