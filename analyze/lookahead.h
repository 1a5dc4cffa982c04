/* lookahead.h — events held back a few steps between being read and being
 * counted, so a tool can prefetch the table slots each one will touch while
 * it counts the earlier ones (stats, stats --sites, validate, the replay
 * compiler). Part of the analysis (analyze/), not of libhatf.
 *
 * The tools' live-object tables hold an entry per live object: on a trace
 * with a million live objects they are tens of MB, and each event's lookup is
 * a cache miss. Misses started LOOKAHEAD_N events ahead overlap instead of
 * waiting one after the other. The order of the events is unchanged.
 */
#ifndef ANALYZE_LOOKAHEAD_H
#define ANALYZE_LOOKAHEAD_H

#include "hatf.h"
#include "hatf_source.h"

/* 4 to 32 measured alike on python3's trace (stats, validate); two prefetches an
 * event, so 8 keeps about as many misses in flight as a core tracks */
#define LOOKAHEAD_N 8

/* An event and where the source read it (hatf_source_record, _offset). */
typedef struct lookahead_item {
    hatf_event ev;
    uint64_t rec, off;
} lookahead_item;

typedef struct lookahead {
    /* one slot more than held: the item handed out stays in its slot until the next push */
    lookahead_item it[LOOKAHEAD_N + 1];
    hatf_buf data[LOOKAHEAD_N + 1];  /* each event's attribute or comment bytes, copied */
    unsigned head, n;
} lookahead;

void lookahead_init(lookahead *q);
void lookahead_free(lookahead *q);

/* Hold a copy of ev (and its bytes) read at record rec, offset off. When
 * LOOKAHEAD_N events were held, the oldest leaves: *out points to it until the
 * next call; else *out is NULL. @return 0, or -1 out of memory (ev is not held). */
int lookahead_push(lookahead *q, const hatf_event *ev, uint64_t rec, uint64_t off, const lookahead_item **out);

/* After the last push: the held events, oldest first, one per call; NULL when
 * none is left. */
const lookahead_item *lookahead_pop(lookahead *q);

/* Every event of src, in order, to count(ctx, x) with where the source read
 * it (x->rec, x->off), each one first passed to prefetch(ctx, ev)
 * LOOKAHEAD_N events earlier: a run of a container's events
 * (hatf_source_peek) is counted in place, prefetched within the run; a source
 * that gives an event at a time has its events copied and held back. Stops
 * at the source's end or error, or when count returns < 0 (the events read
 * are all counted first), or pauses when it returns > 0 (the events held are
 * counted, none more is read: a later call goes on with the next one).
 * @return 0 at the end, the source's negative code (hatf_source_error says
 * more), LOOKAHEAD_STOPPED with count's code in *count_rc (or HATF_E_NOMEM
 * when holding an event failed), or LOOKAHEAD_PAUSED. */
#define LOOKAHEAD_STOPPED 1
#define LOOKAHEAD_PAUSED 2
int lookahead_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x),
                  void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *count_rc);

#endif
