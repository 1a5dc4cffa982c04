/* source_thread.h — a trace read on a thread of its own (source_thread.c).
 * Internal to the replay module. */
#ifndef HATRACE_REPLAY_SOURCE_THREAD_H
#define HATRACE_REPLAY_SOURCE_THREAD_H

#include "lookahead.h"
#include "replay.h"

/* lookahead_run with the source read and decoded on another thread: every
 * event of src, in order, to count(ctx, x, damaged), each first passed to
 * prefetch(ctx, ev) LOOKAHEAD_N events earlier; damaged says whether the
 * source had reported damage when lookahead_run's count would have looked;
 * cpu_s: the CPU time of the reading thread and of the calling thread.
 * @return as lookahead_run. */
int rp_source_run(hatf_source *src, int (*count)(void *ctx, const lookahead_item *x, int damaged),
                  void (*prefetch)(void *ctx, const hatf_event *ev), void *ctx, int *count_rc, double cpu_s[2]);

#endif
