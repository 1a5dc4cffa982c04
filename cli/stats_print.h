/* stats_print.h — hatrace stats' table and JSON of analyze/stats.h's counts. */
#ifndef HATRACE_CLI_STATS_PRINT_H
#define HATRACE_CLI_STATS_PRINT_H

#include "stats.h"

/* Append the JSON object of hatrace stats --json (docs/tools.md, "stats"), or
 * with stats_table its table. Both sort the counts' tables: no more events
 * may be counted after. */
void stats_json(hatf_buf *o, stats *st, const char *path, hatf_source *s);
void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s);

#endif
