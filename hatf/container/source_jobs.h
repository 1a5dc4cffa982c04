/* source_jobs.h — a container's chunk groups decoded ahead on other threads
 * (hatf_source_jobs), while the calling thread merges them by time.
 *
 * A chunk group decodes on its own: its payloads are read, checked and
 * decompressed, and its records, times and addresses decoded, with nothing
 * from any other group (each group starts a fresh address model and time).
 * So decoding threads take groups in the order the merge will want them
 * (predicted from the group headers' times), each decodes a whole group with
 * a cursor of its own into an array of events, and the merge's cursor hands
 * out that array in the very batches, and with the very damage, its own
 * decoding would have made: the output is the same whatever the number of
 * threads and whoever decoded a group. A group of more than
 * hatf_ahead_decode_max_ events (convert --best writes 2^20) would take too
 * much memory as events (72 bytes each): a thread only loads it (reads,
 * checks and decompresses its payloads, zstd's share of the work) and the
 * merge's cursor decodes it in batches, as it decodes its own.
 *
 * The merge never depends on a prediction, nor on a decoding thread: a
 * group it wants before any thread began it, it decodes itself (the
 * one-thread path); a group a thread is decoding, it waits for, 2 ms at most
 * (on a machine with no core free that thread may not run for a while: then
 * the merge decodes the group itself and the thread's copy is thrown away);
 * a group it wants again (the causal order's second pass) it decodes itself. Memory: decoding threads run at most a
 * window ahead of the oldest group the merge has not taken (AHEAD_GROUPS per
 * thread, AHEAD_BYTES of events and payloads in all, at least one group),
 * plus one group per cursor.
 *
 * Synchronisation: one mutex and two condition variables, taken once per
 * group (tens of thousands of events), never per event.
 */
#ifndef HATF_SOURCE_JOBS_H
#define HATF_SOURCE_JOBS_H

#include "container_internal.h"

#define HATF_JOBS_MAX 256          /* threads a source reads with, at most */
#define AHEAD_GROUPS 4             /* groups decoded ahead per decoding thread, at most */
#define AHEAD_BYTES (64u << 20)    /* bytes of groups ahead in all, at most (unless one group has more) */

/* Groups of more events are only loaded ahead, not decoded (tests lower it). */
extern uint32_t hatf_ahead_decode_max_;

/* What hatf_ahead_take_ did. */
enum { HATF_AHEAD_NONE = 0, HATF_AHEAD_DECODED = 1, HATF_AHEAD_LOADED = 2 };

/* Start nthreads decoding threads (at least 1) over r's chunk groups and set
 * r->ahead. pre: no cursor of r has loaded a group yet (checked: none is in
 * the middle of one, r->open == 0).
 * @return 0, or HATF_E_NOMEM (or a thread could not start): then r->ahead
 * stays NULL and nothing is left running. */
int hatf_ahead_start_(hatf_reader *r, unsigned nthreads);

/* Stop the threads, free what they decoded, clear r->ahead.
 * pre: every cursor of r is freed (checked: none holds a group, r->open ==
 * 0). NULL r->ahead: nothing. */
void hatf_ahead_stop_(hatf_reader *r);

/* The cursor's next group (c->t->g[c->gi]), from the decoding threads
 * (waiting a while for it if one is at work on it now): if one decoded it, install it
 * in c (c->gi and c->chunk_off advance) and @return HATF_AHEAD_DECODED; if
 * one loaded it, put its payloads in c->rec and c->adr, the load's result in
 * *rc (its error in c->err) and @return HATF_AHEAD_LOADED: the cursor decodes
 * them; else @return HATF_AHEAD_NONE: the cursor loads the group itself, and
 * no thread will. pre: c->ahead NULL, c->gi < c->t->ng, c is not a
 * decoding thread's. */
int hatf_ahead_take_(hatf_cursor *c, int *rc);

/* Hand out the installed group's next batch (c->evs, c->i, c->n: @return n)
 * or damage (c->err, its line added to the reader: @return the code); at its
 * end, give it back (hatf_ahead_done_) and @return 0. pre: c->ahead. */
int hatf_ahead_next_(hatf_cursor *c);

/* Give the installed group back (its events and data become invalid) and
 * point c->evs at the cursor's own array again. */
void hatf_ahead_done_(hatf_cursor *c);

/* Threads this process may run on (its CPU affinity), at least 1. */
unsigned hatf_ahead_cores_(void);

#endif /* HATF_SOURCE_JOBS_H */
