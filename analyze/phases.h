/* phases.h — a trace's figures split at its comments (hatrace stats --phases).
 *
 * A program marks its phases with comments (hatrace_comment in
 * include/hatrace.h); each comment starts a phase named by its text, and the
 * events before the first one form the phase "(start)". A phase's counts are
 * the differences of stats' running counts at its two ends, so every count
 * of the phases adds up to the whole trace's; its peak is the most live
 * bytes after any of its events (the phases' peaks do not add up: the
 * trace's peak is the largest of them). hatrace's own comments (the HATF 1.0
 * mark, the program's mappings, HATF_MAP_PREFIX, signals, HATF_SIGNAL_PREFIX)
 * start no phase.
 */
#ifndef ANALYZE_PHASES_H
#define ANALYZE_PHASES_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"

/* stats' running counts at a moment */
typedef struct phase_counts {
    uint64_t records, allocs, frees, reallocs, bytes, live_bytes, live_objects;
} phase_counts;

typedef struct phase {
    char name[64];            /* the comment's text, cut (printable bytes only) */
    uint64_t first_time, last_time;
    int timed;                /* it has an event with a time */
    phase_counts start, end;
    uint64_t max_live_bytes;
} phase;

typedef struct phases {
    phase *v;
    size_t n, cap;
} phases;

/* The phase "(start)" from counts now. @return 0, or -1 out of memory. */
int phases_init(phases *p, const phase_counts *now);
void phases_free(phases *p);

/* 1 when the comment (text, len) starts a phase, 0 for hatrace's own. */
int phases_is_phase(const uint8_t *text, size_t len);

/* A comment (text, len): the current phase ends at now, one named by it
 * begins (not for hatrace's HATF 1.0 mark). @return 0, or -1 out of memory. */
int phases_comment(phases *p, const uint8_t *text, size_t len, const phase_counts *now);

/* An event of the current phase at time, live_bytes after it. */
static inline void phases_event(phases *p, uint64_t time, uint64_t live_bytes)
{
    phase *c = &p->v[p->n - 1];
    if (!c->timed || time < c->first_time) c->first_time = time;
    if (!c->timed || time > c->last_time) c->last_time = time;
    c->timed = 1;
    if (live_bytes > c->max_live_bytes) c->max_live_bytes = live_bytes;
}

/* The last phase ends at now (the end of the trace). */
void phases_finish(phases *p, const phase_counts *now);

#endif
