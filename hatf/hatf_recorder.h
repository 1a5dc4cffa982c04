/* hatf_recorder.h — the recorder's private interface to libhatf's writer (not
 * installed): what preload/ calls beyond the public hatf_container.h, the
 * helper thread's job queue and the recorder's flush in steps (defined in
 * container_jobs.c and container_write.c; container_jobs.h says how the
 * queue works). The only libhatf header the recorder includes; the names end
 * in _ (libhatf's internals) and are hidden in libhatf.so: the recorder links
 * libhatf.a. It brings hatf_check.h with it (HATF_PRE, the contract check).
 */
#ifndef HATF_RECORDER_H
#define HATF_RECORDER_H

#include <stdint.h>

#include "hatf_check.h"

typedef struct hatf_jobq hatf_jobq;
struct hatf_writer;

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

#endif
