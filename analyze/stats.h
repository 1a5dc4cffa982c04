/* stats.h — a trace's counts, as hatrace stats counts them (analyze/stats.c):
 * the figures of stats and stats --json (cli/stats_print.c prints them),
 * record's closing figures, and hatrace report, which reads the trace once for
 * several reports (the counts fed event by event). */
#ifndef ANALYZE_STATS_H
#define ANALYZE_STATS_H

#include <stdint.h>

#include "hatf.h"
#include "hatf_container.h"
#include "heaplive.h"
#include "hatf_source.h"
#include "lookahead.h"
#include "phases.h"
#include "temporary.h"

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

#define HIST_BUCKETS 65  /* size 0, then [2^k, 2^(k+1)) for k = 0..63 */
#define FUNC_SLOTS (HATF_FN_COUNT_ + 1)  /* 0: no func attribute, last: unknown code */

typedef struct counts {
    uint64_t id;              /* thread or heap id; for a name: heaps made with that name (creates,
                                 or 1 for an id used without a create) */
    uint64_t allocs, frees, reallocs, bytes;
    uint64_t live_objects, live_bytes, max_live_objects, max_live_bytes;
    uint64_t destroy_frees, destroy_bytes;  /* objects ended by heap-destroy */
    uint32_t cell;            /* heaps: its cell in live */
    int32_t group;            /* heaps: index in names, or -1 */
    const char *name;         /* names: the name (owned by the reader) */
} counts;

typedef struct table {
    addrmap index;   /* id -> position in v */
    counts *v;
    size_t n, cap;
    uint64_t last_id;  /* the last id asked for, at v[last] (n > 0): most events keep their thread and heap */
    size_t last;
} table;

typedef struct stats {
    uint64_t records, allocs, frees, free_null, reallocs, kinds[HATF_OP_COUNT_];
    uint64_t total_bytes, live_objects, live_bytes, max_live_objects, max_live_bytes;
    uint64_t unknown_frees, failed_allocs;
    uint64_t first_time, last_time;
    int timed;
    uint64_t hist[HIST_BUCKETS];
    uint64_t funcs[FUNC_SLOTS];
    table threads, heaps;
    heaplive live;   /* cell tag = heap position */
    /* with stats_share_live: another count's table of the same live objects,
     * which it changes after this count has seen each event (its changes
     * come through stats_heap_changed); NULL: live is ours */
    heaplive *shared;
    uint64_t last_heap_id;   /* stats_heap_changed's last heap, at last_hpos */
    uint32_t last_hpos;
    int last_known;
    hatf_reader *reader;  /* names, or NULL */
    counts *names;   /* per heap name */
    size_t nnames, capnames;
    addrmap name_index;   /* hash of a name -> position in names (collisions: linear search) */
    temporary tmp;   /* temporary allocations (tag unused) */
    int want_phases;
    int summary_only;  /* stats_summary_only */
    phases ph;       /* with want_phases: the figures split at comments */
    /* the program's own mappings, from the recorder's "hatrace-map" comments */
    uint64_t mmaps, mmap_bytes, munmaps, munmap_bytes, mremaps, brks;
    int64_t brk_bytes;
    /* the recorder's "hatrace-signal" notes: the signal the process died of, those its handlers took */
    int died;
    hatf_signal death;
    uint64_t signals_handled;
} stats;

/* Counts for one reading of s (s names threads and heaps when it is a
 * container; NULL: events that come from no source, unnamed), temporary
 * allocations included. @return NULL when out of memory. */
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

/* Count only the figures of stats_summary (hatrace record's closing
 * figures, a row per process): no counts per thread, heap or name, by size
 * or by function. Before the first event; not with stats_share_live. */
void stats_summary_only(stats *st);

/* Records counted so far. */
uint64_t stats_records(const stats *st);

/* The main figures counted so far. */
void stats_figures(const stats *st, stats_summary *out);

/* Threads and heaps by id, heap names by name, as both outputs list them: no
 * more events may be counted after. */
void stats_sort(stats *st);

/* Count the figures split at comments too (stats --phases), before the first
 * event. @return 0, or -1 out of memory. */
int stats_want_phases(stats *st);

/* After the last event: the last phase ends. */
void stats_end(stats *st);

/* The most resident bytes sampled while recording, the recorder's rings
 * taken out (r: a container's reader). @return the number of samples. */
uint64_t stats_resident_peak(hatf_reader *r, uint64_t *max);

#endif
