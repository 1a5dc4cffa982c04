/* validate.h — the checks of hatrace validate (analyze/validate.c): each
 * event of a trace, in global time order, checked against what came before
 * it; every problem found is passed to the caller as one message, with the
 * record and byte offset it is at (validate_run reads the trace).
 * cli/validate.c prints the problems and the notes these figures give.
 *
 * The objects are kept by the live-object rule of stats (heaplive.h, with
 * keep_freed: a freed address is remembered, for double frees), a cell per
 * heap instance and (thread, calling family): the family of the call that
 * made an object must match the one that ends it, as valgrind's memcheck
 * checks (new with delete, new[] with delete[], the C functions with free
 * and realloc).
 *
 * Inversions (docs/tools.md): a moving realloc cannot stamp both halves with
 * one time, so another thread may be seen receiving an address before the
 * record that releases it, and that thread may be the object's owner (it
 * handed the object to the thread that reallocs it). An allocation of a live
 * address is held back as pending; if a release of that address by a thread
 * other than the allocating one arrives within VALIDATE_WINDOW_RECORDS
 * records or VALIDATE_WINDOW_NS of trace time, the release applies to the old
 * object, the held allocation is applied after it, and the case is counted
 * as a resolved inversion (a note). Otherwise it is reported as an
 * allocation of a live address.
 *
 * Heaps. Each createHeap starts an instance of its heap id; objects name the
 * instance they were made in. A heap-destroy ends the instance, and with it
 * all its objects at once. Heap 0 and heaps used without a create get an
 * instance on first use.
 */
#ifndef ANALYZE_VALIDATE_H
#define ANALYZE_VALIDATE_H

#include <stdint.h>

#include "hatf.h"
#include "hatf_source.h"

#define VALIDATE_WINDOW_RECORDS 1000
#define VALIDATE_WINDOW_NS 10000     /* 10 us */

/* One problem: msg, found at record rec, byte offset off of the trace. */
typedef void validate_problem_fn(void *ctx, uint64_t rec, uint64_t off, const char *msg);

typedef struct validate_opts {
    double ns_per_unit;   /* the trace's time unit, for the inversions' window */
    int forked;           /* a fork child's trace: a release of an address never
                             allocated is of an object inherited from the parent */
    int attached;         /* an attached recording's: of an object made before tracing */
    validate_problem_fn *problem;
    void *ctx;
} validate_opts;

/* What the notes after the problems say. */
typedef struct validate_figures {
    uint64_t records;     /* events checked */
    uint64_t resolved;    /* inversions resolved */
    uint64_t inherited;   /* releases of objects made before the trace (forked, attached) */
    int died;             /* the recorder noted the signal the process died of */
    hatf_signal death;
    uint64_t death_rec;
} validate_figures;

typedef struct validate validate;

/* @return a checker, or NULL out of memory. */
validate *validate_new(const validate_opts *o);
void validate_free(validate *v);

/* Check every event of s in order, each one's table slots prefetched
 * LOOKAHEAD_N events before its check (lookahead.h). A damaged part of a
 * container is a problem (validate_read_error) and the check goes on past
 * it, unless stop_at_damage (--strict) or the source cannot resume.
 * @return 0 at the end, VALIDATE_OOM out of memory (the figures hold up to
 * the event before), or the source's negative code (hatf_source_error: not
 * told yet, for after validate_finish). */
#define VALIDATE_OOM 1
int validate_run(validate *v, hatf_source *s, int stop_at_damage);

/* Check one event ev, read at record rec and byte offset off (validate_run
 * for each). @return 0, or -1 out of memory. */
int validate_event(validate *v, const hatf_event *ev, uint64_t rec, uint64_t off);

/* A read error as a problem, at the record and offset of the bad record or chunk. */
void validate_read_error(validate *v, const hatf_err *e);

/* After the last event: the allocations still held back are problems. */
void validate_finish(validate *v);

const validate_figures *validate_result(const validate *v);

#endif
