/* site.h — one allocation site's figures (a call stack's: stats --sites),
 * the sort keys over them and a stack's frames; counted by analyze/sitecount.c. */
#ifndef ANALYZE_SITE_H
#define ANALYZE_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "hatf.h"
#include "hatf_container.h"

/* in the order of their names in stats --sort and --by (cli/stats.c) */
enum { SITES_SORT_COUNT, SITES_SORT_BYTES, SITES_SORT_PEAK, SITES_SORT_AT_PEAK, SITES_SORT_LEAKED,
       SITES_SORT_TEMPORARY };
enum { SITES_BY_STACK, SITES_BY_FUNCTION, SITES_BY_LINE };  /* sitegroups.h */

/* One call stack's figures. */
typedef struct site {
    uint64_t stack;
    uint64_t calls, bytes;
    uint64_t live_objects, live_bytes, peak_objects, peak_bytes;  /* live: leaked, at the end */
    uint64_t temporary;
    /* what the site held when the whole heap was at its peak: at_peak_* are
     * valid while tag is the peak's number, else the live figures still are */
    uint64_t at_peak_objects, at_peak_bytes, tag;
    uint32_t heap, cell;   /* the site's cell in the heap it last allocated in, cell UINT32_MAX: none yet */
} site;

/* The root frame --folded gives a chain cut at the recording's stack depth
 * (hatf_reader_stack_depth), so a flame graph shows it apart. */
#define SITES_TRUNCATED "[truncated]"

/* Site s's figure for sort key (SITES_SORT_*). */
uint64_t sites_key(const site *s, int sort);

/* Sort v[0..n) by sort key's figure (SITES_SORT_*), largest first, then by stack. */
void sites_sort(site *v, size_t n, int sort);

/* The frames of stack id (*out), innermost first, or 0 frames when the trace has no
 * stack tables (a text or raw HATF 1.0 trace: r is NULL) or not this one. */
size_t sites_stack(hatf_reader *r, uint64_t id, const uint64_t **out);

/* The event's HATF_A_STACK id, 0 if it has none. */
uint64_t sites_event_stack(const hatf_event *ev);

#endif
