/* flusher.h — the flusher and encoding helper threads (flusher.c): rings
 * drained into the writer, timed flushes, the end of a trace on the flusher. */
#ifndef HT_FLUSHER_H
#define HT_FLUSHER_H

#include <pthread.h>
#include <stdint.h>

#include "crash.h"
#include "prim.h"
#include "ring.h"

int ht_flusher_start(void) HT_HIDDEN;     /* @return 0 or -1 */
void ht_flusher_stop(void) HT_HIDDEN;     /* join; no-op if not running or on the flusher */
int ht_flusher_running(void) HT_HIDDEN;
/* Ask the flusher thread to end the trace (ht_finish_on_flusher) and wait for it
 * at most timeout_ns. No allocation, no lock. @return 0 when done, -1 if not. */
int ht_flusher_finish(uint64_t timeout_ns) HT_HIDDEN;
/* Ask the flusher to drain every ring and write every pending chunk now, and
 * wait for it at most timeout_ns (the same rules). @return 0 when done, -1 if not. */
int ht_flusher_sync(uint64_t timeout_ns) HT_HIDDEN;
/* 1 on the flusher or the encoding helper thread. */
int ht_on_background_thread(void) HT_HIDDEN;
/* Write the note of the signal the process dies of, after its thread's last
 * event (takes wlock; ht_finish_on_flusher). */
void ht_write_death(const ht_signal_note *n) HT_HIDDEN;
/* Drain every ring into the writer (opening it on first use). Takes the writer
 * lock. @return events written, or -1 if the trace is off. */
long ht_drain_all(void) HT_HIDDEN;
/* Drain only r (a producer with a full ring and no flusher). */
long ht_drain_one(ht_ring *r) HT_HIDDEN;
/* pre: wlock held. Drain r's events stamped at or before upto (raw time;
 * UINT64_MAX: all); reclaim it once drained if its thread has exited. */
long ht_drain_ring_upto(ht_ring *r, uint64_t upto) HT_HIDDEN;

/* ---- the merged drain (flusher_order.c) ---- */
/* pre: wlock held. Every ring's events stamped before now, given to the
 * writer in time order across the rings (a writer with a time unit above
 * 1 us keeps the order of two threads' uses of an address in one unit from
 * it, hatf/container/container_order.h). @return events written. */
long ht_drain_merged(void) HT_HIDDEN;
/* The units of raw[0..n)'s events stamped at or before upto (at most n, or
 * the last event's end past it). */
size_t ht_ring_cut(const uint64_t *raw, size_t n, uint64_t upto) HT_HIDDEN;

/* ---- what the flusher needs of the process (process.c, which starts it) ---- */
/* The real pthread_create, given by the shim (hooks.c) when it resolves the
 * real functions: the flusher and helper threads are started with it. */
extern int (*ht_real_pthread_create)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) HT_HIDDEN;
/* Of a ring whose thread is exiting (HT_RING_EXITING), before it is drained:
 * the tk of the thread-destroy to write after its events, once the thread is
 * gone (the ring then holds all it wrote) or the trace ends; 0 while it runs. */
uint64_t ht_thread_gone_tk(ht_ring *r) HT_HIDDEN;
/* On the flusher thread, asked by ht_flusher_finish: drain, close, mark finished. */
void ht_finish_on_flusher(void) HT_HIDDEN;

#endif /* HT_FLUSHER_H */
