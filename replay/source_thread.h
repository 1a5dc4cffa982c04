/* source_thread.h — a trace read on a thread of its own (source_thread.c).
 * Internal to the replay module. */
#ifndef HATRACE_REPLAY_SOURCE_THREAD_H
#define HATRACE_REPLAY_SOURCE_THREAD_H

#include "lookahead.h"
#include "replay.h"

/* How far ahead of the event being counted each prefetch stage runs (events):
 * stage 1 starts loading what an event's addresses name, stage 2 follows what
 * stage 1 loaded, stage 3 what stage 2 did. Each stage's loads have the
 * events between it and the next stage to arrive (a few hundred ns). */
#ifndef RP_AHEAD_1
#define RP_AHEAD_1 16
#endif
#ifndef RP_AHEAD_2
#define RP_AHEAD_2 10
#endif
#ifndef RP_AHEAD_3
#define RP_AHEAD_3 4
#endif

/* lookahead_run with the source read and decoded on another thread: every
 * event of src, in order, to count(ctx, x, damaged), each first passed to
 * prefetch's three stages, as far ahead as RP_AHEAD_1, _2 and _3 when so many
 * events are read: a call to prefetch(ctx, ev, g) runs stage s + 1 on event
 * number g[s] (from 0) where ev[s] is not NULL, stage 1 first, and no stage
 * on an event before the stage before it. x and its bytes stay valid until
 * count returns. damaged says whether the source had reported damage when
 * lookahead_run's count would have looked (LOOKAHEAD_N events later); cpu_s:
 * the CPU time of the reading thread and of the calling thread.
 * @return as lookahead_run. */
int rp_source_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x, int damaged),
                  void (*prefetch)(void *ctx, const hatf_event *const ev[3], const uint64_t g[3]), void *ctx,
                  int *count_rc, double cpu_s[2]);

#endif
