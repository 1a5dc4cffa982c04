/* flusher_state.h — the writer side's state in one struct (ht_fs), which
 * registry.c, clock.c, output.c, convert.c, flusher.c, writer_end.c and
 * flusher_state.c share, and what flusher_state.c does with it.
 *
 * The state is one struct so that what a fork does to it is one visible
 * operation (ht_flusher_atfork_child, flusher_state.c), not resets scattered
 * over the files.
 */
#ifndef HT_FLUSHER_STATE_H
#define HT_FLUSHER_STATE_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "hatf_container.h"
#include "prim.h"


enum { HT_FLUSHER_OFF = 0, HT_FLUSHER_ON = 1, HT_FLUSHER_STARTING = 2 };

typedef struct ht_flush_state {
    /* The trace of this process. All writer calls, and these fields, are used
     * under wlock: on the flusher thread normally, on a producer thread when no
     * flusher runs (its ring is full), on the exiting thread for the final
     * drain. Code holding wlock is untraced. */
    pthread_mutex_t wlock;
    hatf_writer *writer;        /* NULL until the first drain opens it; again after a failure or close */
    int out_fd;                 /* the trace file; -1 before it is created and after close */
    int out_failed;             /* output could not be created or written: trace off */
    int forked;                 /* a fork child: the name gets the pid, the header the parent's trace */
    dev_t out_dev;              /* identity of the trace file behind out_fd */
    ino_t out_ino;
    char out_path[PATH_MAX];
    char parent_path[PATH_MAX]; /* a fork child: the parent's trace */
    char out_dir[PATH_MAX];     /* working directory when the first trace was opened */

    /* The flusher thread (flusher.c). */
    pthread_t flusher;
    int helper_tried;           /* the encoding helper of this writer was started (or could not be) */
    int due_left;               /* the flusher has flushed groups still to write (wlock) */
    _Atomic int flusher_on;     /* HT_FLUSHER_OFF, _STARTING (its handle not yet written), _ON */
    _Atomic int flusher_stop;
    _Atomic uint32_t finish_req, finish_done;  /* ht_flusher_finish: asked, done (futex) */
    _Atomic uint32_t sync_req, sync_done;      /* ht_flusher_sync: asked, done (counts; futex) */
    int death_sig;              /* the signal the process died of (its note written), else 0 */
    uint64_t last_flush_ns;
    uint64_t pace_at;           /* when the flusher last measured the rings' rates (flusher.c) */
    pthread_t helper;           /* the encoding helper, while helper_on */
    int helper_on;
    /* CPU ns of the flusher and of the helper, as last read (wlock) */
    uint64_t flusher_cpu_ns, helper_cpu_ns;
    /* the stacks of the flusher and the helper: their touched pages are the
     * recorder's memory in a resident sample (0, 0 while unknown) */
    _Atomic uintptr_t flusher_stack, helper_stack;
    _Atomic size_t flusher_stack_size, helper_stack_size;

    /* Counters: events written, and drops/waits of rings already reclaimed. */
    uint64_t n_events, n_drops, n_waits, n_wait_ns;

    /* The clock (clock.c): start sample, and the unit fixed when the writer opens. */
    uint64_t mono0, real0;
    uint64_t unit_num, unit_den;
} ht_flush_state;

extern ht_flush_state ht_fs HT_HIDDEN;  /* defined, and reset after fork, in flusher_state.c */

/* ---- flusher_state.c ---- */
/* The flusher, the helper and the counters of one trace as before its first
 * event (a fork child's trace, an attached process's next window); the file,
 * the rings and the stacks are their owners' to reset. */
void ht_flusher_state_fresh(void) HT_HIDDEN;
/* Fork: lock in prepare, unlock in the parent, reset in the child. */
void ht_flusher_atfork_prepare(void) HT_HIDDEN;
void ht_flusher_atfork_parent(void) HT_HIDDEN;
void ht_flusher_atfork_child(void) HT_HIDDEN;
/* 1 if the writer lock is held, by this thread or another (flusher_state.c):
 * the check of "pre: wlock held", HATF_PRE(ht_wlock_held()). */
int ht_wlock_held(void) HT_HIDDEN;

#endif /* HT_FLUSHER_STATE_H */
