/* stats.h — the counts of hatrace stats (cli/stats.c), for another command
 * that reads the trace once for several reports (hatrace report). */
#ifndef HATRACE_CLI_STATS_H
#define HATRACE_CLI_STATS_H

#include <stdint.h>

#include "hatf.h"
#include "hatf_source.h"
#include "lookahead.h"

typedef struct stats stats;

/* Counts for one reading of s (s names threads and heaps when it is a
 * container). @return NULL when out of memory. */
stats *stats_new(hatf_source *s);
void stats_free(stats *st);  /* NULL allowed */

/* lookahead_run's callbacks: lookahead_run(s, stats_count, stats_prefetch, st, ...).
 * stats_count @return 0, or HATF_E_NOMEM. */
int stats_count(void *ctx, const lookahead_item *x);
void stats_prefetch(void *ctx, const hatf_event *ev);

/* Records counted so far. */
uint64_t stats_records(const stats *st);

/* Append the JSON object of hatrace stats --json (docs/tools.md, "stats"). */
void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s);

#endif
