/* container_jobs.h — chunk groups encoded by a helper thread, written in order
 * by the writer.
 *
 * The recorder's flusher must keep up with the program (its rings fill
 * otherwise), but most of its work per event is encoding whole groups: the
 * address model and zstd. With a job queue the writer seals a full group into
 * a slot and goes on; a helper thread encodes it (the recorder's helper
 * yields its CPU between slices of the work, so the program's threads get it
 * back at once); the writer writes finished groups in the order they were
 * sealed.
 *
 * The writer never waits for the helper. A group the helper has not finished
 * when the writer needs it (a flush, every slot taken, the close) the
 * writer encodes itself, from the same read-only input; the helper's copy is
 * thrown away when it ends. So a helper that is starved, preempted or gone
 * delays nothing, and the file is byte for byte the one the writer alone
 * would write. The helper shares no lock with the writer: slots change hands
 * by atomic state changes, and it sleeps on a semaphore.
 *
 * A slot's life (the writer owns FREE, the helper CLAIMED):
 *   FREE -> QUEUED (sealed) -> CLAIMED (helper) -> DONE -> written -> FREE
 *   QUEUED -> TAKEN (the writer encodes it) -> written -> FREE
 *   CLAIMED -> ORPHANED (the writer encodes it) -> written; FREE when the
 *              helper lets go of it
 */
#ifndef HATF_CONTAINER_JOBS_H
#define HATF_CONTAINER_JOBS_H

#include "container_group.h"

typedef struct hatf_jobq hatf_jobq;
struct hatf_writer;

/* A plain event of the recorder, as its ring holds it (preload/ring.h's
 * ht_rawev, checked there): tk = time << 8 | function code (HATF_FN_MALLOC,
 * _REALLOC or _FREE; the bits above it, the recorder's flags, 0); malloc: a
 * result, b size; free: a pointer; realloc: a old, b size, c result. */
typedef struct hatf_plain_ev { uint64_t tk, a, b, c, d; } hatf_plain_ev;
#define HATF_PLAIN_FNS (1u << HATF_FN_MALLOC | 1u << HATF_FN_REALLOC | 1u << HATF_FN_FREE)
static inline int hatf_plain_is(const hatf_plain_ev *x)
{
    unsigned low = (unsigned)x->tk & 0xffu;
    return low < 32 && (HATF_PLAIN_FNS >> low & 1);
}

/* hatf_writer_add for thread's events at ev while they are plain (what
 * hatf_writer_add would write for them as hatf_events of op, size, addr,
 * new_addr, thread, time tk >> 8 and no attribute, coded in one pass,
 * container_plain.h). @return how many it took (the first that is not plain
 * is the caller's), or a negative code (the writer failed). */
long hatf_writer_add_plain_(struct hatf_writer *w, uint64_t thread, const hatf_plain_ev *ev, size_t n);
/* The thread a batch of comments alone goes with from now on (hatf_writer_add
 * puts them with the thread of the batch before): the recorder's comments
 * come from a thread's ring, and stay with that thread. */
void hatf_writer_comment_thread_(struct hatf_writer *w, uint64_t thread);

/* Make w defer group encoding to a helper, with nslots slots (at least 1).
 * @return the queue, holding one reference for the helper, which passes it
 * to hatf_jobq_run_ (or drops it with hatf_jobq_release_ if it cannot run);
 * NULL if w already defers, failed, or out of memory (w stays as it was). */
hatf_jobq *hatf_writer_defer_(struct hatf_writer *w, unsigned nslots);

/* The helper's loop: encode queued groups until the writer closes, then drop
 * the reference (the last one frees the queue). pause, if not NULL, is
 * called between slices of the work. */
void hatf_jobq_run_(hatf_jobq *q, void (*pause)(void));
void hatf_jobq_release_(hatf_jobq *q);

/* Groups the helper encoded, groups the writer encoded itself (taken over
 * or with no free slot), and of those the ones the helper was encoding too,
 * since the writer deferred. */
void hatf_writer_defer_counts_(const struct hatf_writer *w, uint64_t *by_helper, uint64_t *by_writer,
                               uint64_t *twice);

/* Groups begun from now on are coded fast (nonzero) or in full (0): the
 * recorder's choice of effort, per group (hatf_group_encode). A fast group
 * is coded by the writer itself, after every group queued before it.
 * hatf_writer_fast_counts_: the groups written fast so far, and their events. */
void hatf_writer_set_fast_(struct hatf_writer *w, int fast);
void hatf_writer_fast_counts_(const struct hatf_writer *w, uint64_t *groups, uint64_t *events);

/* The recorder's flush with a helper, in steps that leave the flusher free
 * to drain rings between groups: hatf_writer_seal_ queues every pending
 * group (and writes finished ones and the tables) and makes every group
 * sealed so far due; hatf_writer_write_due_ writes finished groups and
 * encodes at most one due group the helper has not finished (not one it
 * began less than 5 ms ago: it will be done soon).
 * @return <0 an error (the writer failed), else for write_due 1 if due
 * groups remain (call again soon), 0 if none. Without a helper, seal is
 * hatf_writer_flush and write_due does nothing. */
int hatf_writer_seal_(struct hatf_writer *w);
int hatf_writer_write_due_(struct hatf_writer *w);

/* ---- the writer's side (container_write.c) -------------------------------- */

/* A queue with two references (the writer's and the helper's). */
hatf_jobq *hatf_jobq_new_(unsigned nslots, int level, size_t max_items);
void hatf_jobq_counts_(const hatf_jobq *q, uint64_t *by_helper, uint64_t *by_writer, uint64_t *twice);
/* Count a group the writer encoded in place (no slot free). */
void hatf_jobq_note_writer_(hatf_jobq *q);

/* Queue g (moved into a slot: g gets the slot's old buffers, emptied).
 * @return 1 if queued, 0 if no slot is free (encode it in place). */
int hatf_jobq_put_(hatf_jobq *q, hatf_group *g);

/* The oldest sealed group, in order: if the helper finished it, its chunks
 * (*out, *len1) and 0; if not, and it is among the first force_below groups
 * ever sealed, the writer encodes it now with c into mine (0 too), unless
 * the helper began it less than grace_ns ago (3: it will be done soon); else
 * 1 (nothing to write yet). 2: the queue is empty. After 0, write *out and
 * call hatf_jobq_pop_. @return as said, or <0 an encoding error. */
int hatf_jobq_head_(hatf_jobq *q, uint64_t force_below, uint64_t grace_ns, hatf_genc *c, hatf_gout *mine,
                    const hatf_gout **out);
/* Groups sealed so far (the next one's number), and written so far. */
uint64_t hatf_jobq_sealed_(const hatf_jobq *q);
uint64_t hatf_jobq_written_(const hatf_jobq *q);
void hatf_jobq_pop_(hatf_jobq *q);

/* The writer closes: no more jobs; drop its reference. */
void hatf_jobq_close_(hatf_jobq *q);

#endif
