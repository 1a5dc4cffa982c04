/* overtime.h — the heap over time as people and tools read it (cli/overtime.c):
 * hatrace stats --timeline (a table with a bar per interval, or JSON) and
 * --massif (valgrind massif's file format, for ms_print and
 * massif-visualizer: the heap's size over time, with the call tree of what
 * was live at the heap's peak, at the end and at every tenth interval's end).
 */
#ifndef HATRACE_CLI_OVERTIME_H
#define HATRACE_CLI_OVERTIME_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "hatf_container.h"
#include "site.h"
#include "timeline.h"

typedef struct overtime {
    const timeline *tl;       /* finished (timeline_finish) */
    int by_records;           /* x is a record number: the trace has no times */
    uint64_t num, den;        /* otherwise x is a time in units of num/den ns */
    uint64_t max_live_bytes;  /* the heap's peak */
    uint64_t peak_x;          /* when it was first reached */
    const char *path;         /* the trace */
    const hatf_resident *res; /* the process's resident memory sampled while recording (a container's), or NULL */
    size_t nres;
} overtime;

/* The table: one line per interval, the peak and the end above it; with
 * resident samples (and times), a column of the most resident bytes sampled
 * in each interval (the last one before it when none fell in it), the
 * recorder's own memory taken out; "-" (JSON: no resident_bytes) before the
 * first sample, whose figure is unknown rather than 0. */
void overtime_text(hatf_buf *o, const overtime *ot);
void overtime_json(hatf_buf *o, const overtime *ot);

/* Interval i's end as JSON gives it: in ns from the first event, or in
 * records when the trace has no times (by_records). */
uint64_t overtime_end(const overtime *ot, size_t i);

/* Whether the table has its resident column (samples, and times). */
int overtime_has_resident(const overtime *ot);

/* The resident column's figure for interval i, taken in order from i = 0
 * with *k and *last at 0 (they carry the samples already passed); *k still 0
 * after it: no sample yet, the figure is unknown. */
uint64_t overtime_resident(const overtime *ot, size_t i, size_t *k, uint64_t *last);

/* The sites' live bytes at the end of every `every`-th interval but the
 * last (massif's detailed snapshots): bytes[j * nsites + i] for site i at
 * the end of interval (j + 1) * every - 1. */
typedef struct overtime_detail {
    size_t every, nsites;
    const uint64_t *bytes;
} overtime_detail;

/* A massif file: a snapshot at the end of each interval, one at the peak
 * (with resident samples, each snapshot's mem_heap_extra_B is what the
 * interval's resident figure, as the table's column, is over its live bytes)
 * with the call tree of what the sites v[0..n) held then (at_peak_bytes;
 * heap_tree=peak), the last one with the tree of what was still live
 * (live_bytes; detailed), and with d (may be NULL) the trees of d's
 * intervals (detailed). Trees have massif's default threshold: callers below
 * 1 % of the snapshot are summed into one node. cmd: the traced command
 * line (NULL: the trace's path). @return 0, or -1 out of memory. */
int overtime_massif(hatf_buf *o, const overtime *ot, frames *fr, const site *v, size_t n,
                    const overtime_detail *d, const char *cmd);

#endif
