/* causal.h — the global order of a container's events, with equal times
 * across threads put in an order consistent with address liveness (internal
 * to libhatf; hatf_source uses it, so every tool sees the same order).
 *
 * A writer with a coarse time unit rounds every time down and keeps each
 * thread's times non-decreasing (container_time.h): an event that really came
 * first never gets a later time, but events of different threads in the same
 * unit get equal times, and the global iterator's tie order (memory given back
 * first, then lower thread) can put a free before the allocation it frees.
 *
 * A tie group is a maximal run of the iterator's output with one time and
 * events of two or more threads, interleaved (each thread's own order kept)
 * by an estimated time (each thread at an even pace through the unit) when
 * that is consistent: its addresses used by two or more of its threads (the
 * shared ones) each freed or reallocated only while live and allocated only
 * while not live. Else the first consistent order a bounded depth-first
 * search finds, taking first an event that must go, else the earliest that
 * can, going back at a dead end to the step that caused it; failing that, a
 * search in bursts (the last step's thread first), its order then moved back
 * toward the estimated times (causal.c). A group with no consistent order found (a broken trace, or the
 * search out of steps) is read in the order of the search's first descent,
 * continued past its dead ends, and counted (hatf_source_order_stats).
 *
 * Cost: a trace with one thread needs none of this (hatf_source reads it
 * with the global iterator alone). Otherwise
 * each run the iterator hands out has its last time's events copied aside
 * until the next run shows whether the time goes on. Liveness of every
 * address (a hash table) is kept only from the first group with a shared
 * address on, after a second pass over the events before it: a trace with
 * the raw clock rarely has such a group and usually pays no table at all.
 * Memory: a group is cut after CAUSAL_GROUP_MAX events (bounded memory
 * whatever the times), plus the table when it is kept.
 *
 * Early releases. A recorder that stamps a free without waiting for the load
 * that gave it the pointer (HATF_INFO_EARLY_RELEASE) can stamp it up to
 * HATF_EARLY_RELEASE_NS before the allocation of its object on another
 * thread, at an earlier time, so no tie group holds both. For such a trace
 * the table is kept from the first event, and a release of an address not
 * live starts a read-ahead over that window: if another thread allocates the
 * address in it, the release and its thread's events up to that allocation go
 * after it, their times raised to its time (counted: early_releases), unless
 * one of them uses an address another event they pass uses. A tie group read
 * ahead for it, in which another thread allocates the address before any
 * other event uses it, is ordered with that release as its thread's first
 * event: the order the move leaves. Otherwise the group could pair the
 * allocation with a later release of the address. A tie group with no order
 * that holds such a release itself is searched again letting a release of an
 * address not live go once no allocation of it is left in the group. Memory: at most
 * EARLY_QUEUE_MAX events read ahead. Time: the queue counts its uses of each
 * address, so a release whose address nothing read ahead allocates costs one
 * lookup; the scans and moves of the others are held to a budget of steps per
 * event read (causal.c, repair_charge), past which releases stay where they
 * are, with a damage line. Cost: the table on every event (about
 * 25 ns each on a trace whose threads never share an address, which would not
 * need it otherwise; nothing more where they do).
 */
#ifndef HATF_CAUSAL_H
#define HATF_CAUSAL_H

#include "hatf.h"
#include "hatf_container.h"
#include "hatf_source.h"

#define CAUSAL_GROUP_MAX 65536          /* events a tie group may gather before it is cut (< 2^21: causal.c) */
#define CAUSAL_SEARCH_STEPS_PER_EVENT 16 /* steps of the search per event of a group (and 1024) before giving up */
#define EARLY_QUEUE_MAX 65536      /* events read ahead from an early release, at most */

typedef struct hatf_causal hatf_causal;

/* An ordered reader over r's global iterator (r stays owned by the caller and
 * must outlive it). @return NULL when out of memory. */
hatf_causal *hatf_causal_open(hatf_reader *r);
/* The same over it, a global iterator of r that has handed out `emitted`
 * events already (a following source whose second thread came). It is taken
 * over and freed with the ordered reader; on NULL it stays the caller's. The
 * events handed out are not ordered again; the liveness table, where one is
 * needed, reads them once more from the start (once). */
hatf_causal *hatf_causal_open_at(hatf_reader *r, hatf_iter *it, uint64_t emitted);
void hatf_causal_free(hatf_causal *c);

/* As hatf_iter_next: @return 1 with *ev, 0 at the end, negative on a decode
 * error (hatf_causal_error; called again, it goes on after the damage).
 * ev->data is valid until the next call. */
int hatf_causal_next(hatf_causal *c, hatf_event *ev);
/* The next events when they are a run that needs no ordering (most are):
 * *evs points at n of them, valid until the next call other than take;
 * hatf_causal_take(c, k), k <= n, hands out the first k as k calls of
 * hatf_causal_next would. @return n, or 0 when the next event must come from
 * hatf_causal_next (at a tie group, while tracking liveness, or at the run's end). */
int hatf_causal_peek(hatf_causal *c, const hatf_event **evs);
void hatf_causal_take(hatf_causal *c, unsigned k);

/* File offset of the chunk of the last event returned. */
uint64_t hatf_causal_chunk_offset(const hatf_causal *c);
const hatf_err *hatf_causal_error(const hatf_causal *c);
void hatf_causal_stats(const hatf_causal *c, hatf_order_stats *st);

#endif /* HATF_CAUSAL_H */
