/* stats_read.h — a whole trace counted as hatrace stats counts it, with the
 * commands' messages (stats, stats FILE..., record's closing figures). */
#ifndef HATRACE_CLI_STATS_READ_H
#define HATRACE_CLI_STATS_READ_H

#include "hatf_source.h"
#include "stats.h"

/* Count every event of s (path: for messages), with STATS_READ_PHASES the
 * figures split at comments too, with STATS_READ_SUMMARY only stats_summary's
 * (stats_summary_only). @return the counts (stats_free), or NULL after
 * saying why. */
enum { STATS_READ_PHASES = 1, STATS_READ_SUMMARY = 2 };
stats *stats_read(hatf_source *s, const char *path, int how);

/* Read every event of s and count *out by stats' rules (stats --json's
 * allocs, frees, reallocs, max_live_*, live_*_at_end; stats --sites'
 * temporary). path: for messages. @return CLI_OK, or CLI_FAIL after saying
 * why (a read error, out of memory). Damage read past is not said: see
 * cli_read_end. */
int stats_summarize(hatf_source *s, const char *path, stats_summary *out);

#endif
