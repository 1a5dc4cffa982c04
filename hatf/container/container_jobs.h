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

#include "hatf_recorder.h"

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
