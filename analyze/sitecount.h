/* sitecount.h — the allocation sites' figures (stats --sites, --timeline,
 * --massif, --diff; hatrace report), counted from the events in order
 * (analyze/sitecount.c); cli/sites.c prints them.
 *
 * A site is one call stack (the HATF_A_STACK attribute of alloc and realloc
 * records, recorded with --stacks). Events come in global time order; live
 * objects are tracked by the rule stats uses (heaplive.c, a cell per heap and
 * site), so a free is charged to the site that made (or last reallocated) the
 * object, and a heap-destroy ends the objects still live in that heap for
 * their sites. Per site: calls (alloc and realloc records), bytes requested,
 * the site's own peak of live objects and bytes, and what is still live at
 * the end (leaked), what it held when the whole heap was at its peak (as
 * heaptrack's peak consumers), and temporary allocations (heaptrack's measure of waste:
 * an object its thread freed with no allocation of that thread in between;
 * a realloc counts as an allocation). Records without a stack form the site
 * "(no stack)". The same pass feeds the heap over time (timeline.h) for
 * stats --timeline and --massif.
 */
#ifndef ANALYZE_SITECOUNT_H
#define ANALYZE_SITECOUNT_H

#include <stddef.h>
#include <stdint.h>

#include "addrmap.h"
#include "heaplive.h"
#include "lookahead.h"
#include "site.h"
#include "temporary.h"
#include "timeline.h"

/* Heap heap_id's live objects and bytes change by objects, bytes. */
typedef void sitecount_heap_fn(void *ctx, uint64_t heap_id, int64_t objects, int64_t bytes);

/* The sites of the events counted so far (v[0..n), in the order first seen). */
typedef struct sitecount {
    addrmap index;   /* stack id -> position in v */
    site *v;
    size_t n, cap;
    addrmap heaps;   /* heap id -> dense heap number */
    uint64_t *heap_ids;  /* dense heap number -> heap id */
    uint64_t last_heap_id, nheaps;
    uint32_t last_heap;  /* the number of last_heap_id, once nheaps > 0 */
    heaplive live;   /* cell tag = site position */
    uint64_t stacked, records;
    /* every site's live bytes together, their peak, and the peak's number
     * (which new peak it is, from 1; 0: none yet) */
    uint64_t live_bytes, max_live_bytes, peak_no;
    /* the heap over time (when asked): by time and by record number, the
     * event being counted (its time and number), and the peak's */
    timeline *by_time, *by_record;
    uint64_t now, now_record, peak_time, peak_record;
    temporary tmp;   /* temporary allocations, tag = site position */
    sitecount_heap_fn *observe;  /* told each change of a heap's live objects, or NULL */
    void *observe_ctx;
} sitecount;

/* @return 0, or -1 out of memory (then sitecount_free is still safe). by_time
 * and by_record are set by the caller for the heap over time (both or none). */
int sitecount_init(sitecount *st);
void sitecount_free(sitecount *st);

/* Count one event (lookahead_run's count; ctx: the sitecount).
 * @return 0, or -1 out of memory. */
int sitecount_event(void *ctx, const lookahead_item *x);

/* always_inline: the wrappers below call it, and gcc takes a static function
 * made only of prefetches for a const one and drops the call (see
 * addrmap_prefetch): sites_pass_prefetch and sitecount_detail_prefetch were empty */
static inline __attribute__((always_inline)) void sitecount_prefetch(void *ctx, const hatf_event *ev)
{
    heaplive_prefetch(&((sitecount *)ctx)->live, ev);
}

/* After the last event: each site's figures at the heap's peak (at_peak_*). */
void sitecount_settle(sitecount *st);

/* --massif's second pass.
 * Massif's detailed snapshots show the call tree at moments of the run; which
 * moments (interval ends) is known only once the first pass has fixed the
 * intervals. So the trace is read again, by the same rules, with the sites'
 * live bytes copied at the end of every SITECOUNT_DETAIL_EVERY-th interval (massif's
 * own default frequency). The sites come in the same order as in the first
 * pass; a trace that grew meanwhile (still being written) is read only as far
 * as the first pass went. */
#define SITECOUNT_DETAIL_EVERY 10

typedef struct sitecount_detail {
    sitecount st;
    const timeline *tl;
    int by_records;
    uint64_t limit;         /* events the first pass counted (st.now_record: this one's so far) */
    size_t next, nsnap;     /* the next snapshot to take, and how many */
    size_t nsites;          /* the first pass's */
    uint64_t *bytes;        /* nsnap x nsites */
} sitecount_detail;

/* Take the snapshots whose interval ends at or before x (the next event's). */
void sitecount_detail_take(sitecount_detail *d, uint64_t x);
/* lookahead_run's callbacks for the second pass (ctx: the sitecount_detail):
 * the events past the first pass's limit are left out. */
int sitecount_detail_event(void *ctx, const lookahead_item *x);
void sitecount_detail_prefetch(void *ctx, const hatf_event *ev);

#endif
