/* stacks.h — call stacks (stacks.c): capture on the hooks' thread, a
 * per-thread dedup, process-wide ids and tables on the flusher. */
#ifndef HT_STACKS_H
#define HT_STACKS_H

#include <stdatomic.h>
#include <stdint.h>

#include "prim.h"
#include "ring.h"

/* Frames per stack (HATRACE_STACKS), 0 when stacks are off. Set at init. */
extern int ht_stack_depth HT_HIDDEN;
/* Read the option, set up libunwind's per-thread caching. pre: untraced. */
void ht_stacks_init(void) HT_HIDDEN;
/* Give ring r its dedup table (kept across reuse) and warm libunwind up on
 * this thread, so the hot path neither allocates nor recurses.
 * pre: untraced, stacks on. */
void ht_stacks_attach(ht_ring *r) HT_HIDDEN;
/* The call stack of the hook that calls this (from the hook's caller on), as
 * a thread-local id: found in the thread's table, or added and announced to
 * the flusher by a STACK event. @return the id, 0 when none (no ring, inside
 * a hook, table full). No lock, no malloc after ht_stacks_attach. */
uint64_t ht_stack_here(void) HT_HIDDEN;
struct hatf_writer;
/* Flusher (wlock held): take a STACK event of ring r: its frames get a
 * process-wide id (equal stacks of all threads share one), new ones are
 * written to the trace's tables (w may be NULL: ids only). */
void ht_stacks_take(struct hatf_writer *w, ht_ring *r, const ht_rawev *e) HT_HIDDEN;
/* Flusher: the process-wide id of ring r's local id, 0 if unknown. */
uint64_t ht_stacks_gid(ht_ring *r, uint64_t local) HT_HIDDEN;
/* At the end (wlock held): the load map and the names of every frame seen. */
void ht_stacks_finish(struct hatf_writer *w) HT_HIDDEN;
/* Fork child: forget every stack (the child's trace starts empty). */
void ht_stacks_atfork_child(void) HT_HIDDEN;
/* Allocations without a stack id because a thread's table was full. */
extern _Atomic uint64_t ht_stacks_full HT_HIDDEN;

#endif /* HT_STACKS_H */
