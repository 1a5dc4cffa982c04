/* sites.h — allocation sites from call stacks (cli/sites.c). */
#ifndef HATRACE_CLI_SITES_H
#define HATRACE_CLI_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "frames.h"
#include "heaplive.h"
#include "hatf_container.h"
#include "hatf_source.h"
#include "lookahead.h"
#include "site.h"
#include "sitecount.h"
#include "sites_opts.h"

/* The sites of a trace, for comparing two (sitediff_print.c). */
typedef struct sites_list {
    hatf_source *src;     /* open: the frames' names come from it */
    frames fr;
    site *v;              /* in the order first seen */
    size_t n;
    uint64_t records, stacked, max_live_bytes;
} sites_list;

/* Open path (as o->from, o->demangle, o->lines say) and count its sites.
 * @return CLI_OK or CLI_PARTIAL (a damaged trace, said) with *l to free with
 * sites_list_free, or CLI_FAIL after saying why (nothing to free). */
int sites_list_read(const char *path, const sites_opts *o, sites_list *l);
void sites_list_free(sites_list *l);

/* Say on stderr that the trace at path has no call stacks, and to record
 * them (a site report of it has one site, "(no stack)"). */
void sites_say_no_stacks(const char *path);

/* Read every event of src and print its allocation sites, or the heap over
 * time (with the sites' call trees at the peak and the end), as o asks.
 * @return a CLI_* exit code. */
int sites_report(hatf_source *src, const char *path, const sites_opts *o);

/* One reading of a trace for several outputs (hatrace report): the sites,
 * and with points > 0 the heap over time in at most that many intervals.
 * Feed it with lookahead_run(src, sites_pass_count, sites_pass_prefetch, p,
 * ...), then print as many forms as wanted (not SITES_MASSIF) with
 * sites_pass_print. @return NULL when out of memory. */
typedef struct sites_pass sites_pass;
sites_pass *sites_pass_new(hatf_source *src, int demangle, int lines, uint64_t points);
int sites_pass_count(void *ctx, const lookahead_item *x);
void sites_pass_prefetch(void *ctx, const hatf_event *ev);
/* Heap heap_id's live objects and bytes change by objects, bytes. */
typedef sitecount_heap_fn sites_heap_fn;

/* The live objects of p, for a count fed beside it that tracks them by the
 * same rule (stats_share_live): from now on, each change of a heap's live
 * objects is told to observe(ctx, ...) as the pass makes it.
 * @return the live objects' table, valid until sites_pass_free. */
heaplive *sites_pass_live(sites_pass *p, sites_heap_fn *observe, void *ctx);
/* Whether p counted allocations and none had a call stack (then say so:
 * sites_say_no_stacks). */
int sites_pass_unstacked(const sites_pass *p);
/* Append the form o asks for to out (the sites are sorted by o->sort).
 * @return 0, -1 out of memory, or CLI_FAIL when a reading failed (said). */
int sites_pass_print(sites_pass *p, hatf_source *src, const char *path, const sites_opts *o, hatf_buf *out);
void sites_pass_free(sites_pass *p);
/* The sites of p in the order the last sites_pass_print sorted them (by
 * stack: its "top" first), and the frames that name them. @return their count. */
size_t sites_pass_sites(sites_pass *p, const site **v, frames **fr);

/* The heap over time of a pass made with points > 0, as stats --timeline
 * gives it: its timelines finished to at most points intervals (once: the
 * pass gives no other form over time after this), by time, or by record
 * number when the trace has no times, with the trace's resident samples. */
struct overtime;
void sites_pass_overtime(sites_pass *p, hatf_source *src, const char *path, uint64_t points, struct overtime *ot);

#endif
