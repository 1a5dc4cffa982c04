/* stats.h — a trace's counts, as hatrace stats counts them (cli/stats.c), for
 * the commands that show them elsewhere: record's closing figures (the main
 * figures), and hatrace report, which reads the trace once for several
 * reports (the counts fed event by event). */
#ifndef HATRACE_CLI_STATS_H
#define HATRACE_CLI_STATS_H

#include <stdio.h>
#include <stdint.h>

#include "hatf.h"
#include "heaplive.h"
#include "hatf_source.h"
#include "lookahead.h"

typedef struct stats_summary {
    uint64_t records;                     /* events read, comments included */
    uint64_t allocs, frees, reallocs;     /* records of each (a failed call included) */
    uint64_t max_live_objects, max_live_bytes;
    uint64_t live_objects, live_bytes;    /* still live at the end: leaked (unless the process died) */
    uint64_t temporary;                   /* temporary allocations (temporary.h) */
    uint64_t total_bytes;                 /* bytes asked for by allocations that made an object */
    uint64_t first_time, last_time;       /* of the timed events (0, 0 when none) */
    int died;                             /* the process died of a signal: death (live_* were live then) */
    hatf_signal death;
    uint64_t signals_handled;             /* signals a handler of the program took (their notes) */
} stats_summary;

/* Read every event of s and count *out by stats' rules (stats --json's
 * allocs, frees, reallocs, max_live_*, live_*_at_end; stats --sites'
 * temporary). path: for messages. @return CLI_OK, or CLI_FAIL after saying
 * why (a read error, out of memory). Damage read past is not said: see
 * cli_read_end. */
int stats_summarize(hatf_source *s, const char *path, stats_summary *out);

/* hatrace stats of several traces (cli/stats_many.c): args are n files or
 * folders (their *.hatf and *.hatf.N files), each trace read as fmt. Prints
 * one row per process (program, pid, parent pid, events, peak live bytes,
 * leaked bytes, temporary allocations) and the totals, as a table or JSON.
 * A trace that cannot be read is said and left out. @return a CLI_* code
 * (CLI_PARTIAL when a trace is damaged or cut). */
int stats_many(int n, char **args, hatf_format fmt, int json);
/* The same, printed to out (hatrace record's table of its processes). */
int stats_many_to(FILE *out, int n, char **args, hatf_format fmt, int json);

/* The counts themselves, for a reading that feeds them along with others. */
typedef struct stats stats;

/* Counts for one reading of s (s names threads and heaps when it is a
 * container), temporary allocations included. @return NULL when out of
 * memory. */
stats *stats_new(hatf_source *s);
void stats_free(stats *st);  /* NULL allowed */

/* lookahead_run's callbacks: lookahead_run(s, stats_count, stats_prefetch, st, ...).
 * stats_count @return 0, or HATF_E_NOMEM. */
int stats_count(void *ctx, const lookahead_item *x);
void stats_prefetch(void *ctx, const hatf_event *ev);

/* Count live objects in l, another count's table fed the same events right
 * after this one (hatrace report: sites_pass_live(p, stats_heap_changed, st)),
 * instead of in a table of our own: one table, one lookup per address, for
 * both. Before the first event; not with phases. */
void stats_share_live(stats *st, heaplive *l);
/* The sharing count's changes of a heap's live objects (a sites_heap_fn). */
void stats_heap_changed(void *ctx, uint64_t heap_id, int64_t objects, int64_t bytes);

/* Records counted so far. */
uint64_t stats_records(const stats *st);

/* The main figures counted so far. */
void stats_figures(const stats *st, stats_summary *out);

/* Append the JSON object of hatrace stats --json (docs/tools.md, "stats"), or
 * with stats_table its table. Both sort the counts' tables: no more events
 * may be counted after. */
void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s);
void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s);

/* hatrace stats --follow (cli/follow.c): the figures of a trace still being
 * written, refreshed every interval_ms until it is complete, the user stops
 * it (SIGINT) or it has not grown for timeout_s seconds. top: sites shown per
 * refresh. @return a CLI_* code. */
int stats_follow(const char *path, int json, uint64_t interval_ms, uint64_t timeout_s, uint64_t top);

#endif
