/* stats_many.h — hatrace stats FILE|FOLDER...: one row per process. */
#ifndef HATRACE_CLI_STATS_MANY_H
#define HATRACE_CLI_STATS_MANY_H

#include <stdio.h>

#include "hatf_source.h"
#include "stats.h"

/* hatrace stats of several traces (cli/stats_many.c): args are n files or
 * folders (their *.hatf and *.hatf.N files), each trace read as fmt. Prints
 * one row per process (program, pid, parent pid, events, peak live bytes,
 * leaked bytes, temporary allocations) and the totals, as a table or JSON.
 * A trace that cannot be read is said and left out. @return a CLI_* code
 * (CLI_PARTIAL when a trace is damaged or cut). */
int stats_many(int n, char **args, hatf_format fmt, int json);
/* The same, printed to out (hatrace record's table of its processes). */
int stats_many_to(FILE *out, int n, char **args, hatf_format fmt, int json);
/* The same for n trace files, known[i] the figures of args[i] counted
 * already (NULL: read it; known itself NULL: read every one). */
int stats_many_known(FILE *out, int n, char **args, hatf_format fmt, int json, const stats_summary *const *known);

#endif
