/* stats_json.h — hatrace stats --json: analyze/stats.h's counts as JSON
 * (analyze/stats_json.c), the form other programs read (the command prints
 * it, libhatanalyze's hatan_stats_json gives it to Python); and what both it
 * and the command's table derive from the counts and the source. */
#ifndef ANALYZE_STATS_JSON_H
#define ANALYZE_STATS_JSON_H

#include "phases.h"
#include "stats.h"

/* What the reports derive from the counts and the source. */
typedef struct stats_derived {
    hatf_reader *r;          /* the container's reader, NULL for the other formats */
    uint64_t num, den, dur;  /* the time unit (num/den ns), the duration in it */
    double dur_ns;
    char avg[32];            /* avg_size: bytes per allocation that made an object, 2 decimals */
    char avg_json[40];       /* the same at full precision (the shortest that reads back the same) */
} stats_derived;

void stats_derive(const stats *st, hatf_source *s, stats_derived *d);

/* The trace's time unit, num/den ns: a container's header, or the one a text
 * trace or a HATF 1.0 stream of hatrace's carries; another writer's stream
 * has none (1 ns taken). */
void stats_time_unit(hatf_source *s, uint64_t *num, uint64_t *den);

/* funcs[i]'s name: "(none)", the function, or "(other)". */
const char *stats_func_label(unsigned i);
/* The sizes of hist[b]: [*lo, *hi]. */
void stats_hist_range(unsigned b, uint64_t *lo, uint64_t *hi);
/* A thread's (heap 0) or a heap's name in the container r (NULL: none). */
const char *stats_name_of(hatf_reader *r, int heap, uint64_t id);
/* Whether the trace was recorded by attaching to a running process
 * (hatrace record -p): its unknown frees are of objects allocated before
 * tracing, and what is live at its end was live when the recorder detached. */
int stats_attached(hatf_source *s);

/* Append the JSON object of hatrace stats --json (docs/tools.md, "stats"):
 * path as the trace's name. Sorts the counts' tables: no more events may be
 * counted after. */
void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s);

/* The phases as stats --json's "phases" array. */
void phases_json(hatf_buf *o, const phases *p);

#endif
