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
#include "suppress.h"

/* in the order of their names in stats --sort and --by (cli/stats.c) */
enum { SITES_SORT_COUNT, SITES_SORT_BYTES, SITES_SORT_PEAK, SITES_SORT_AT_PEAK, SITES_SORT_LEAKED,
       SITES_SORT_TEMPORARY };
enum { SITES_BY_STACK, SITES_BY_FUNCTION, SITES_BY_LINE };  /* sitegroups.h */
enum { SITES_TEXT, SITES_JSON, SITES_FOLDED, SITES_TIMELINE, SITES_TIMELINE_JSON, SITES_MASSIF,
       SITES_FOLDED_JSON };

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

typedef struct sites_opts {
    int form;         /* SITES_TEXT, SITES_JSON, or SITES_FOLDED: one line per call
                         chain, outermost frame first, with the sort key's figure;
                         SITES_FOLDED_JSON: the chains of the first top sites by
                         any figure, with every figure (hatrace report);
                         or the heap over time (overtime.h): SITES_TIMELINE (a
                         table), SITES_TIMELINE_JSON, SITES_MASSIF */
    int sort;         /* SITES_SORT_* */
    uint64_t top;     /* the first top sites (0: all) */
    int demangle;     /* C++ and Rust names demangled (text and folded; JSON has both) */
    int lines;        /* source file:line of each frame where known (text and JSON), and
                         names from the modules here for frames the trace left unnamed */
    uint64_t points;  /* the heap over time: at most this many intervals */
    int by;           /* SITES_BY_* (sitegroups.h): one line per stack, or grouped */
    hatf_format from; /* the trace's format as given: --massif reads it twice */
    int frame_table;  /* SITES_JSON by stack: frames as numbers into one "frame_table" */
    suppressions *supp; /* leaks to take out of the sites' leaked figures (suppress.h), or NULL */
} sites_opts;

/* The sites of a trace, for comparing two (sitediff.c). */
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

/* A site's call chain as --folded writes it: frames by name, outermost first,
 * ';' between them, a chain cut at the recording's depth starting with
 * SITES_TRUNCATED. @return a string to free, or NULL out of memory. */
char *sites_chain(frames *fr, uint64_t stack);

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
typedef void sites_heap_fn(void *ctx, uint64_t heap_id, int64_t objects, int64_t bytes);

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

/* The heap over time of a pass made with points > 0, as stats --timeline
 * gives it: its timelines finished to at most points intervals (once: the
 * pass gives no other form over time after this), by time, or by record
 * number when the trace has no times, with the trace's resident samples. */
struct overtime;
void sites_pass_overtime(sites_pass *p, hatf_source *src, const char *path, uint64_t points, struct overtime *ot);

/* The frames of stack id (*out), innermost first, or 0 frames when the trace has no
 * stack tables (a text or raw HATF 1.0 trace: r is NULL) or not this one. */
size_t sites_stack(hatf_reader *r, uint64_t id, const uint64_t **out);

/* The event's HATF_A_STACK id, 0 if it has none. */
uint64_t sites_event_stack(const hatf_event *ev);

#endif
