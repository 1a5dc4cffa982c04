/* overtime.h — the heap over time as the commands give it (analyze/overtime.c):
 * the finished timeline of a site count (sitecount.h), its intervals' ends in
 * ns or records, when the peak was reached, and the process's resident
 * memory per interval; cli/overtime_print.c prints it (stats --timeline,
 * --massif), cli/export_chrome.c draws it.
 */
#ifndef ANALYZE_OVERTIME_H
#define ANALYZE_OVERTIME_H

#include <stddef.h>
#include <stdint.h>

#include "hatf_container.h"
#include "sitecount.h"
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

/* Finish st's timelines (by_time and by_record, both set) to at most points
 * intervals and describe them in *ot: by time, or by record number when the
 * trace has no times (all equal); num/den: the trace's time unit in ns;
 * res[0..nres): its resident samples (NULL, 0: none). Once: st gives no
 * other form over time after this. */
void overtime_make(overtime *ot, sitecount *st, uint64_t points, const char *path, uint64_t num, uint64_t den,
                   const hatf_resident *res, size_t nres);

/* dx (a difference of x) in ns: exact, times are at most 2^64 units of num/den ns. */
uint64_t overtime_ns(const overtime *ot, uint64_t dx);

/* dx as JSON and massif give it: records, or ns. */
uint64_t overtime_x(const overtime *ot, uint64_t dx);

/* Where interval i ends, from the first event: by time, its end (the last
 * one's is the last event's time); by record, the records up to its end. */
uint64_t overtime_end_at(const overtime *ot, size_t i);

/* Interval i's end as JSON gives it: overtime_x(overtime_end_at). */
uint64_t overtime_end(const overtime *ot, size_t i);

/* When the peak was reached, from the first event: its time, or its record number (from 1). */
uint64_t overtime_peak_at(const overtime *ot);

/* Whether the intervals have a resident figure (samples, and times). */
int overtime_has_resident(const overtime *ot);

/* The resident figure for interval i: the most resident bytes sampled in it
 * (the last one before it when none fell in it), the recorder's own memory
 * taken out. Taken in order from i = 0 with *k and *last at 0 (they carry
 * the samples already passed); *k still 0 after it: no sample yet, the
 * figure is unknown rather than 0. */
uint64_t overtime_resident(const overtime *ot, size_t i, size_t *k, uint64_t *last);

/* Every interval's resident figure (overtime_resident), or NULL with
 * *failed 0 when there is none (overtime_has_resident), *failed 1 out of memory. */
uint64_t *overtime_residents(const overtime *ot, int *failed);

/* The sites' live bytes at the end of every `every`-th interval but the
 * last (massif's detailed snapshots): bytes[j * nsites + i] for site i at
 * the end of interval (j + 1) * every - 1. */
typedef struct overtime_detail {
    size_t every, nsites;
    const uint64_t *bytes;
} overtime_detail;

/* The sites' live bytes at the end of interval i (of at most the last but
 * one) when d has a snapshot there, else NULL (d may be NULL). */
const uint64_t *overtime_detail_at(const overtime_detail *d, const overtime *ot, size_t i);

#endif
