/* stats_print.h — hatrace stats' table of analyze/stats.h's counts (its JSON:
 * analyze/stats_json.h). */
#ifndef HATRACE_CLI_STATS_PRINT_H
#define HATRACE_CLI_STATS_PRINT_H

#include "stats.h"
#include "stats_json.h"

/* Append the table of hatrace stats. Sorts the counts' tables: no more
 * events may be counted after. */
void stats_table(hatf_buf *o, stats *st, const char *path, hatf_source *s);

#endif
