/* flusher_state.h — what the writer side of the recorder (registry.c, clock.c,
 * output.c, convert.c, flusher.c, writer_end.c, flusher_state.c) shares among
 * its own files: its state, in one struct, and the helpers one of them calls
 * in another. The rest of preload/ sees only recorder.h.
 *
 * The state is one struct so that what a fork does to it is one visible
 * operation (ht_flusher_atfork_child, flusher_state.c), not resets scattered
 * over the files.
 */
#ifndef HT_FLUSHER_STATE_H
#define HT_FLUSHER_STATE_H

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <sys/types.h>

#include "recorder.h"
#include "hatf_container.h"


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

/* ---- registry.c ---- */
/* Fork child: every ring is reset and free, none counted dead. */
void ht_rings_atfork_child(void) HT_HIDDEN;

/* ---- clock.c ---- */
/* Fix the trace's unit (ht_fs.unit_num/den) by calibration; the writer opens next. */
void ht_clock_fix_unit(void) HT_HIDDEN;
/* At close: measure the rate again over the whole run, warn of a drift above 0.1%. */
void ht_clock_check_drift(void) HT_HIDDEN;

/* ---- output.c ---- */
/* pre: wlock held. Open the writer (creating the file first if need be).
 * @return 0, or -1 if the trace is off. */
int ht_writer_open(void) HT_HIDDEN;
/* pre: wlock held. The writer failed: close it, say why, stop recording. */
void ht_write_failed(void) HT_HIDDEN;
/* pre: wlock held. A sample of the process's resident memory into the trace
 * (each flush interval, and at the end). */
void ht_resident_sample(void) HT_HIDDEN;
/* pre: wlock held. 0 (and recording stops) if the program closed the trace's
 * descriptor and may have reused its number. */
int ht_out_fd_intact(void) HT_HIDDEN;
/* hatrace record's "E" line for this trace, at close: its events, bytes,
 * events dropped, ring waits, the background threads' CPU ns, the events
 * in chunk groups coded fast, ht_fs.death_sig, and the fast events stored
 * unpacked. */
void ht_report_end(uint64_t bytes, uint64_t dropped, uint64_t waits, uint64_t bg_ns,
                   uint64_t fast_events, uint64_t stored_events) HT_HIDDEN;
/* hatrace record's "X" line: writing the trace failed (why), it is incomplete. */
void ht_report_failed(const char *why) HT_HIDDEN;
/* Around a write of the trace from a program thread: SIGXFSZ held, and the
 * one the write raised taken back (see output.c). */
typedef struct ht_xfsz_guard { sigset_t old; int was_pending; } ht_xfsz_guard;
void ht_xfsz_hold(ht_xfsz_guard *g) HT_HIDDEN;
void ht_xfsz_release(ht_xfsz_guard *g) HT_HIDDEN;

/* ---- effort.c ---- */
/* The coding of every chunk group, as HATRACE_EFFORT asks. */
enum hatf_coding_ ht_effort_coding(void) HT_HIDDEN;

/* ---- flusher.c ---- */
/* pre: wlock held. Read the CPU time of the flusher and the helper into
 * ht_fs (from the flusher thread or the exiting one; the helper's while the
 * writer is open: it ends with it). */
void ht_background_cpu_read(void) HT_HIDDEN;

/* ---- convert.c: see convert.h ---- */

#endif /* HT_FLUSHER_STATE_H */
