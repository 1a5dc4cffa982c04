/* csv_frames.h — the frames table that `convert --to csv` writes beside the
 * events (cli/csv_frames.c; docs/tools.md, "convert --to csv"). */
#ifndef HATRACE_CLI_CSV_FRAMES_H
#define HATRACE_CLI_CSV_FRAMES_H

#include <stddef.h>

#include "hatf_source.h"

/* The frames table's path for the events' table events_path: "x.csv" ->
 * "x.frames.csv", anything else + ".frames.csv", into out (cap bytes).
 * @return 0, or -1 when it does not fit. */
int csv_frames_path(const char *events_path, char *out, size_t cap);

/* Write the frames of every stack of s's tables to path, one row per frame:
 * stack,depth,address,module,module_offset,function,function_offset,file,line
 * (a trace without stacks: the header row alone). path is not overwritten
 * without force. @return 0, or -1 after saying why (a partial file is removed). */
int csv_frames_write(hatf_source *s, const char *path, int force, const char *in_path);

#endif
